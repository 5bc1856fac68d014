//! `restore` (SPEC §8.3): one memory as it was at a snapshot (or in a `.trash/`
//! dir), bytes and mtime back, its index line back where Claude Code loads it.
//!
//! The seams: `find` (the copy a `REF` names, in history, a set-aside store or
//! `.trash/`), `entry` (an entry on disk: read, put, put back), `lines` (the index
//! lines back, §10.2), `report` (the JSON document); [`plan`] and [`apply`] here.

mod entry;
mod find;
mod lines;
mod report;

use std::path::PathBuf;

use crate::error::{Error, Kind};
use crate::history::ChangeKind;
use crate::index;
use crate::memdir::MemoryDir;
use crate::store::Writer;

pub use entry::{Entry, Undo, mtime_text, put_entry, read_entry};
pub use find::find;
pub use report::{Conflict, IndexLine, Report, Restored};

/// Where a copy comes from.
#[derive(Clone, Debug)]
pub enum Origin {
    Snapshot {
        id: String,
        time: i64,
    },
    /// A `.trash/<stamp>/` dir of a version 1 `forget` (or one made with history off).
    Trash {
        dir: PathBuf,
        time: i64,
    },
}

/// The copy of one memory to bring back.
#[derive(Clone, Debug)]
pub struct Source {
    /// Relative to the operated-on dir, `/`-separated.
    pub rel: String,
    pub bytes: Vec<u8>,
    pub link: bool,
    pub mtime_ns: i128,
    /// The index lines that linked it then (1-based number, text without its end).
    pub lines: Vec<(usize, String)>,
    /// The index those lines stood in (a snapshot's), to put them back beside
    /// their old neighbours.
    pub index_text: Option<String>,
    pub origin: Origin,
}

impl Source {
    pub fn snapshot_id(&self) -> Option<&str> {
        match &self.origin {
            Origin::Snapshot { id, .. } => Some(id),
            Origin::Trash { .. } => None,
        }
    }

    pub fn from_label(&self) -> String {
        match &self.origin {
            Origin::Snapshot { id, .. } => format!("snapshot {id}"),
            Origin::Trash { dir, .. } => {
                let name = dir
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                format!(".trash/{name}/")
            }
        }
    }
}

fn links(text: &str, local: &str) -> bool {
    index::extract_links(text)
        .iter()
        .any(|l| l.memory_target() == Some(local))
}

/// What `restore` will do.
pub struct Plan {
    pub dir: MemoryDir,
    pub source: Source,
    /// What the restore does to the file (`None`: it is already as it was).
    pub change: Option<ChangeKind>,
    /// Why it must not (different content, no `--force`).
    pub conflict: Option<String>,
    /// The entry as the plan saw it, checked again under the lock.
    pub seen: Option<Entry>,
    pub index: PathBuf,
    pub old_index: String,
    /// The index with the lines back; `None`: it still links the memory.
    pub new_index: Option<String>,
    /// The lines put back: 1-based number in the new index, text.
    pub index_lines: Vec<(usize, String)>,
    pub warnings: Vec<String>,
}

/// Compare the copy with the dir and work out the index lines.
pub fn plan(dir: &MemoryDir, source: Source, force: bool) -> Result<Plan, Error> {
    let path = dir.dir().join(&source.rel);
    let seen = read_entry(&path)?;
    let mut warnings = Vec::new();
    let (change, conflict) = match &seen {
        None => (Some(ChangeKind::Added), None),
        Some(e) if e.bytes == source.bytes && e.link == source.link => {
            if e.mtime_ns == source.mtime_ns {
                (None, None)
            } else {
                (Some(ChangeKind::Touched), None)
            }
        }
        Some(_) if force => {
            warnings.push(format!(
                "{} had other content; it is overwritten (--force){}",
                source.rel,
                if matches!(source.origin, Origin::Trash { .. }) {
                    ""
                } else {
                    ", the current content stays in history"
                }
            ));
            (Some(ChangeKind::Modified), None)
        }
        Some(_) => (
            Some(ChangeKind::Modified),
            Some(format!(
                "{} exists with other content than its copy in {}; pass --force to overwrite it",
                source.rel,
                source.from_label()
            )),
        ),
    };
    let cover = dir.covering(&source.rel);
    let old_index = index::read_index_text(&cover.index);
    let (new_index, index_lines) = if conflict.is_some() || links(&old_index, &cover.local) {
        (None, Vec::new())
    } else {
        let (text, lines, w) = lines::place_lines(&old_index, &source, &cover.local, &cover.label);
        warnings.extend(w);
        if lines.is_empty() {
            (None, lines)
        } else {
            (Some(text), lines)
        }
    };
    Ok(Plan {
        dir: dir.clone(),
        source,
        change,
        conflict,
        seen,
        index: cover.index,
        old_index,
        new_index,
        index_lines,
        warnings,
    })
}

/// Put the file back and the index lines, against the fresh index, under the lock.
/// The file must still be as the plan saw it; if the index write fails, the file is
/// put back as it was.
pub fn apply(plan: &Plan, w: &mut Writer) -> Result<Vec<(usize, String)>, Error> {
    let path = plan.dir.dir().join(&plan.source.rel);
    if read_entry(&path)? != plan.seen {
        return Err(Error::new(
            Kind::Conflict,
            format!("{} changed while memctl was restoring it", plan.source.rel),
        )
        .hint("another program changed it; run the command again"));
    }
    let mut undo = Undo::default();
    if plan.change.is_some() {
        let e = Entry {
            bytes: plan.source.bytes.clone(),
            link: plan.source.link,
            mtime_ns: plan.source.mtime_ns,
        };
        undo.put(w, &path, Some(&e))?;
    }
    let mut placed = Vec::new();
    if plan.new_index.is_some() {
        let cover = plan.dir.covering(&plan.source.rel);
        let result = w.update(&plan.index, Some(plan.old_index.as_bytes()), |fresh| {
            if links(fresh, &cover.local) {
                placed.clear();
                return Ok(fresh.to_string());
            }
            let (text, lines, _) = lines::place_lines(fresh, &plan.source, &cover.local, &cover.label);
            placed = lines;
            Ok(text)
        });
        if let Err(e) = result {
            undo.roll_back(w);
            return Err(e);
        }
    }
    Ok(placed)
}
