//! `restore` (SPEC §8.3): one memory as it was at a snapshot (or in a `.trash/`
//! dir), bytes and mtime back, its index line back where Claude Code loads it.

use std::collections::BTreeMap;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::error::{Error, Kind};
use crate::history::{ChangeKind, FileState, Settings, Snap, Store};
use crate::memdir::MemoryDir;
use crate::memory::{Memory, MemoryType};
use crate::ops::place;
use crate::store::Writer;
use crate::{frontmatter, index, scan};

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

/// An entry as it is on disk now: bytes (a link's target for a symlink), whether
/// it is a link, its mtime. `None`: absent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub bytes: Vec<u8>,
    pub link: bool,
    pub mtime_ns: i128,
}

/// Read the entry at `path` (never following a symlink, never blocking on a FIFO).
pub fn read_entry(path: &Path) -> Result<Option<Entry>, Error> {
    let md = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io(path, &e.to_string())),
    };
    let mtime_ns = crate::history::tracked::mtime_ns(&md);
    if md.file_type().is_symlink() {
        let t = std::fs::read_link(path).map_err(|e| io(path, &e.to_string()))?;
        return Ok(Some(Entry {
            bytes: t.as_os_str().as_bytes().to_vec(),
            link: true,
            mtime_ns,
        }));
    }
    if !md.is_file() {
        return Err(
            Error::new(Kind::InvalidInput, format!("not a regular file: {}", path.display()))
                .hint("memctl only restores over regular files; move it away first"),
        );
    }
    let bytes = crate::fsread::read_regular(path, 1 << 40).map_err(|e| io(path, &e.to_string()))?;
    Ok(Some(Entry {
        bytes,
        link: false,
        mtime_ns,
    }))
}

fn io(path: &Path, why: &str) -> Error {
    Error::new(Kind::Io, format!("cannot read {}: {why}", path.display())).hint("check the file's permissions")
}

/// Put `entry` at `path` (or remove what is there when `None`), through the Writer.
pub fn put_entry(w: &mut Writer, path: &Path, entry: Option<&Entry>) -> Result<(), Error> {
    match entry {
        None => match std::fs::symlink_metadata(path) {
            Ok(_) => w.remove(path),
            Err(_) => Ok(()),
        },
        Some(e) if e.link => w.put_link(path, &e.bytes, e.mtime_ns),
        Some(e) => w.put(path, &e.bytes, e.mtime_ns),
    }
}

/// Entries written so far and what they held before: put back in reverse order
/// when a later step fails, so a failed command leaves the dir as it found it.
#[derive(Default)]
pub struct Undo(Vec<(PathBuf, Option<Entry>)>);

impl Undo {
    /// Write `entry` at `path`, remembering what was there.
    pub fn put(&mut self, w: &mut Writer, path: &Path, entry: Option<&Entry>) -> Result<(), Error> {
        let was = read_entry(path)?;
        put_entry(w, path, entry)?;
        self.0.push((path.to_path_buf(), was));
        Ok(())
    }

    pub fn roll_back(self, w: &mut Writer) {
        for (path, was) in self.0.into_iter().rev() {
            let _ = put_entry(w, &path, was.as_ref());
        }
    }
}

/// `mtime` in the JSON documents: RFC 3339 with nanoseconds, UTC.
pub fn mtime_text(ns: i128) -> String {
    let secs = i64::try_from(ns.div_euclid(1_000_000_000)).unwrap_or(0);
    let nsec = u32::try_from(ns.rem_euclid(1_000_000_000)).unwrap_or(0);
    DateTime::<Utc>::from_timestamp(secs, nsec)
        .map(|t| t.format("%Y-%m-%dT%H:%M:%S%.9fZ").to_string())
        .unwrap_or_default()
}

/// `rel` of a store path, when it lies in the operated-on dir and is a memory.
fn local_rel(dir: &MemoryDir, srel: &[u8]) -> Option<String> {
    let s = std::str::from_utf8(srel).ok()?;
    let s = s.strip_prefix(dir.scope_prefix().as_str())?;
    let base = s.rsplit('/').next().unwrap_or(s);
    (base != crate::memdir::INDEX).then(|| s.to_string())
}

/// One copy a `REF` may name.
struct Candidate {
    snap: Option<(usize, FileState)>,
    trash: Option<(PathBuf, i64)>,
}

/// Find the copy `reference` names: by relative path, file stem or frontmatter
/// name (SPEC §3.2) among the memories now, in history and in `.trash/`; from
/// `at` when given (a snapshot), else the newest copy there is.
pub fn find(
    dir: &MemoryDir,
    reference: &str,
    at: Option<&str>,
    history: &Settings,
    now: DateTime<Utc>,
    warnings: &mut Vec<String>,
) -> Result<Source, Error> {
    if reference
        .rsplit('/')
        .next()
        .is_some_and(|b| b == "MEMORY.md" || b == "MEMORY")
    {
        return Err(
            Error::new(Kind::InvalidInput, format!("`{reference}` is the index, not a memory"))
                .hint("`memctl undo` reverts a snapshot's changes to the index too"),
        );
    }
    let store = match (at, history.is_on()) {
        (Some(_), _) => Some(Store::open_existing(history, dir.main(), now)?),
        (None, false) => None,
        (None, true) => match Store::open(history, dir.main(), None, false, now) {
            Ok(s) => s,
            Err(e) => {
                warnings.push(format!("history: {e}; looking in .trash/ only"));
                None
            }
        },
    };
    let log = match &store {
        Some(s) => s.log()?,
        None => Vec::new(),
    };
    let snaps: Vec<&Snap> = match (at, &store) {
        (Some(spec), Some(s)) => {
            // A snapshot of a store set aside as unreadable (SPEC v3 §8.1) too.
            let asides = crate::history::aside::open_all(history, dir.main());
            let (aside, id) = crate::history::aside::resolve(s, &log, &asides, spec, now)?;
            if aside.is_some() {
                return find_aside(dir, reference, history, warnings, Some(id))
                    .ok_or_else(|| not_found(dir, reference, at));
            }
            log.iter().filter(|x| x.id == id).collect()
        }
        _ => log.iter().collect(),
    };
    let with_md = if reference.ends_with(".md") {
        reference.to_string()
    } else {
        format!("{reference}.md")
    };
    // Every memory a copy exists of, with its newest copy in history and in trash.
    let mut cands: BTreeMap<String, Candidate> = BTreeMap::new();
    if let Some(s) = &store {
        for (i, snap) in snaps.iter().enumerate() {
            let state = s.state(snap.id)?;
            for (srel, f) in &state.files {
                if let Some(rel) = local_rel(dir, srel) {
                    cands
                        .entry(rel)
                        .or_insert(Candidate {
                            snap: None,
                            trash: None,
                        })
                        .snap
                        .get_or_insert((i, f.clone()));
                }
            }
            // A path given exactly needs no older snapshot.
            if cands.get(&with_md).is_some_and(|c| c.snap.is_some()) {
                break;
            }
        }
    }
    if at.is_none() {
        for (rel, file, time) in trash_copies(dir.dir()) {
            let c = cands.entry(rel).or_insert(Candidate {
                snap: None,
                trash: None,
            });
            if c.trash.is_none() {
                c.trash = Some((file, time));
            }
        }
    }
    let rel = if cands.contains_key(&with_md) {
        with_md
    } else {
        match resolve(dir, reference, &cands, store.as_ref(), at) {
            Ok(rel) => rel,
            // Not in this store's history or the trash: the stores set aside as
            // unreadable may still hold it (SPEC v3 §8.1, issue 29 point 4).
            Err(e) if e.kind == Kind::NotFound && at.is_none() => {
                return find_aside(dir, reference, history, warnings, None).ok_or(e);
            }
            Err(e) => return Err(e),
        }
    };
    let c = &cands[&rel];
    let snap_time = c.snap.as_ref().map(|(i, _)| snaps[*i].time);
    let use_trash = match (&c.trash, snap_time) {
        (Some((_, t)), Some(s)) => *t >= s,
        (Some(_), None) => true,
        (None, _) => false,
    };
    if use_trash {
        let (file, time) = c.trash.clone().unwrap_or_default();
        return from_trash(&rel, &file, time);
    }
    let (Some(s), Some((i, f))) = (&store, &c.snap) else {
        return Err(not_found(dir, reference, at));
    };
    let snap = snaps[*i];
    let bytes = s.blob(f.oid)?;
    let state = s.state(snap.id)?;
    let cover = dir.covering(&rel);
    let index_rel = cover
        .index
        .strip_prefix(dir.main())
        .map(|p| p.as_os_str().as_bytes().to_vec())
        .unwrap_or_else(|_| b"MEMORY.md".to_vec());
    let index_text = match state.files.get(&index_rel) {
        Some(x) if !x.link => Some(String::from_utf8_lossy(&s.blob(x.oid)?).into_owned()),
        _ => None,
    };
    let lines = index_text
        .as_deref()
        .map(|t| linking_lines(t, &cover.local))
        .unwrap_or_default();
    Ok(Source {
        rel,
        bytes,
        link: f.link,
        mtime_ns: f.mtime_ns,
        lines,
        index_text,
        origin: Origin::Snapshot {
            id: snap.short(),
            time: snap.time,
        },
    })
}

/// The newest copy of the memory `reference` names (path, stem or name, SPEC
/// §3.2) in the set-aside stores of the dir, with a warning naming the store.
/// With `only`, in that snapshot alone (`--at`).
fn find_aside(
    dir: &MemoryDir,
    reference: &str,
    history: &Settings,
    warnings: &mut Vec<String>,
    only: Option<gix::ObjectId>,
) -> Option<Source> {
    let mut snaps = crate::history::aside::snapshots(history, dir.main());
    snaps.retain(|a| only.is_none_or(|id| a.snap.id == id));
    // Each memory's newest copy: the snapshot and its path in the store.
    let mut newest: BTreeMap<String, (usize, Vec<u8>)> = BTreeMap::new();
    for (i, a) in snaps.iter().enumerate() {
        for srel in a.state.files.keys() {
            if let Some(rel) = local_rel(dir, srel) {
                newest.entry(rel).or_insert_with(|| (i, srel.clone()));
            }
        }
    }
    let with_md = if reference.ends_with(".md") {
        reference.to_string()
    } else {
        format!("{reference}.md")
    };
    let rel = if newest.contains_key(&with_md) {
        with_md
    } else {
        let mems: Vec<Memory> = newest
            .iter()
            .map(|(rel, (i, srel))| {
                let a = &snaps[*i];
                let bytes = a.blob(a.state.files[srel].oid).unwrap_or_default();
                Memory::from_text(rel, &String::from_utf8_lossy(&bytes))
            })
            .collect();
        crate::memory::resolve_ref(reference, &mems, &dir.shown())
            .ok()?
            .rel
            .clone()
    };
    let (i, srel) = newest.get(&rel)?;
    let a = &snaps[*i];
    let f = &a.state.files[srel];
    let bytes = a.blob(f.oid).ok()?;
    let cover = dir.covering(&rel);
    let index_rel = cover
        .index
        .strip_prefix(dir.main())
        .map(|p| p.as_os_str().as_bytes().to_vec())
        .unwrap_or_else(|_| b"MEMORY.md".to_vec());
    let index_text = match a.state.files.get(&index_rel) {
        Some(x) if !x.link => Some(String::from_utf8_lossy(&a.blob(x.oid).ok()?).into_owned()),
        _ => None,
    };
    let lines = index_text
        .as_deref()
        .map(|t| linking_lines(t, &cover.local))
        .unwrap_or_default();
    warnings.push(format!(
        "{rel} was found in the history store set aside as unreadable: {} (snapshot {})",
        a.store.display(),
        a.snap.short()
    ));
    Some(Source {
        rel,
        bytes,
        link: f.link,
        mtime_ns: f.mtime_ns,
        lines,
        index_text,
        origin: Origin::Snapshot {
            id: a.snap.short(),
            time: a.snap.time,
        },
    })
}

fn not_found(dir: &MemoryDir, reference: &str, at: Option<&str>) -> Error {
    let err = match at {
        Some(a) => Error::new(Kind::NotFound, format!("no memory named `{reference}` in snapshot {a}")),
        None => Error::new(
            Kind::NotFound,
            format!("no copy of `{reference}` in history or in {}.trash/", dir.shown()),
        ),
    };
    err.hint("`memctl history` lists the snapshots and the files they changed")
}

/// Steps 2–4 of SPEC §3.2 (stem, name, name in any case) over every copy.
fn resolve(
    dir: &MemoryDir,
    reference: &str,
    cands: &BTreeMap<String, Candidate>,
    store: Option<&Store>,
    at: Option<&str>,
) -> Result<String, Error> {
    let now = if at.is_none() {
        scan::scan(dir.dir()).memories
    } else {
        Vec::new()
    };
    let mut mems: Vec<Memory> = Vec::new();
    for (rel, c) in cands {
        if let Some(m) = now.iter().find(|m| &m.rel == rel) {
            mems.push(m.clone());
            continue;
        }
        let bytes = match (&c.snap, store, &c.trash) {
            (Some((_, f)), Some(s), _) => s.blob(f.oid).unwrap_or_default(),
            (_, _, Some((file, _))) => crate::fsread::read_regular(file, 1 << 20).unwrap_or_default(),
            _ => Vec::new(),
        };
        mems.push(Memory::from_text(rel, &String::from_utf8_lossy(&bytes)));
    }
    match crate::memory::resolve_ref(reference, &mems, &dir.shown()) {
        Ok(m) => Ok(m.rel.clone()),
        Err(e) if e.kind == Kind::NotFound => Err(not_found(dir, reference, at)),
        Err(e) => Err(e),
    }
}

/// The `.deleted` files below `<dir>.trash/<stamp>/`, newest stamp first: the
/// memory's path, the file, the stamp's time.
fn trash_copies(dir: &Path) -> Vec<(String, PathBuf, i64)> {
    let Ok(rd) = std::fs::read_dir(dir.join(".trash")) else {
        return Vec::new();
    };
    let mut stamps: Vec<PathBuf> = rd
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .collect();
    stamps.sort();
    stamps.reverse();
    let mut out = Vec::new();
    for s in stamps {
        let name = s
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let time = chrono::NaiveDateTime::parse_from_str(name.get(..16).unwrap_or(""), "%Y%m%dT%H%M%SZ")
            .map_or(0, |t| t.and_utc().timestamp());
        let mut stack = vec![s.clone()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
                let p = e.path();
                match e.file_type() {
                    Ok(t) if t.is_dir() => stack.push(p),
                    Ok(_) => {
                        let Ok(rel) = p.strip_prefix(&s) else { continue };
                        let Some(rel) = rel.to_str().and_then(|r| r.strip_suffix(".deleted")) else {
                            continue;
                        };
                        if rel.ends_with(".md") {
                            out.push((rel.to_string(), p.clone(), time));
                        }
                    }
                    Err(_) => {}
                }
            }
        }
    }
    out
}

fn from_trash(rel: &str, file: &Path, time: i64) -> Result<Source, Error> {
    let entry = read_entry(file)?.ok_or_else(|| io(file, "it is gone"))?;
    let notes = file.with_file_name(format!("{}.index-lines", rel.rsplit('/').next().unwrap_or(rel)));
    let text = crate::fsread::read_regular(&notes, crate::store::MAX_INDEX_BYTES).unwrap_or_default();
    let lines = String::from_utf8_lossy(&text)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| (0, l.to_string()))
        .collect();
    let dir = file
        .ancestors()
        .nth(rel.split('/').count())
        .map(Path::to_path_buf)
        .unwrap_or_default();
    Ok(Source {
        rel: rel.to_string(),
        bytes: entry.bytes,
        link: entry.link,
        mtime_ns: entry.mtime_ns,
        lines,
        index_text: None,
        origin: Origin::Trash { dir, time },
    })
}

/// The lines of `text` that link `local` (1-based numbers, without line ends).
fn linking_lines(text: &str, local: &str) -> Vec<(usize, String)> {
    let raw: Vec<&str> = text.split_inclusive('\n').collect();
    let mut out: Vec<(usize, String)> = Vec::new();
    for l in index::extract_links(text) {
        if l.memory_target() == Some(local) && out.last().is_none_or(|x| x.0 != l.line) {
            let t = raw.get(l.line - 1).map_or("", |s| s.trim_end_matches(['\n', '\r']));
            out.push((l.line, t.to_string()));
        }
    }
    out
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
        let (text, lines, w) = place_lines(&old_index, &source, &cover.local, &cover.label);
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

/// The index `text` with the source's lines back: beside their old neighbours when
/// that keeps them loaded, else by SPEC §10.2; a canonical line when a snapshot's
/// index had none. Warns with the entries Claude Code would not load.
fn place_lines(text: &str, source: &Source, local: &str, label: &str) -> (String, Vec<(usize, String)>, Vec<String>) {
    let mut lines = source.lines.clone();
    if lines.is_empty() && source.index_text.is_some() && !source.link {
        lines.push((0, canonical_line(source, local)));
    }
    let ty = memory_type(&source.bytes);
    let mut cur = text.to_string();
    let mut placed: Vec<(usize, String)> = Vec::new();
    for (n, line) in &lines {
        if cur
            .split_inclusive('\n')
            .any(|l| l.trim_end_matches(['\n', '\r']) == line)
        {
            continue;
        }
        let anchored = source
            .index_text
            .as_deref()
            .filter(|_| *n > 0)
            .and_then(|was| place::place_where_it_was(&cur, line, was, *n))
            .filter(|(t, at)| !is_cut(t, *at) && in_its_section(t, *at, ty));
        let (next, at) = anchored.unwrap_or_else(|| place::place_by_type(&cur, line, ty));
        for p in &mut placed {
            if p.0 >= at {
                p.0 += 1;
            }
        }
        placed.push((at, line.clone()));
        cur = next;
    }
    placed.sort();
    // Never a refusal (SPEC §3.14): each entry now past the cut, named with its
    // file, line and text.
    let warnings = crate::index::place::cut_warnings(
        label,
        &crate::index::place::cut_entries(text, &cur),
        "memctl index rebuild",
    );
    (cur, placed, warnings)
}

/// Whether line `at` (1-based) of `text` stands where SPEC §10.2 puts a line of
/// type `ty`: inside the section for its type when the index has one; else in no
/// other type's section (issue 32 point 8: never beside an old neighbour that
/// now lies in another type's section).
fn in_its_section(text: &str, at: usize, ty: Option<MemoryType>) -> bool {
    let i = at.saturating_sub(1);
    let inside =
        |t: MemoryType| crate::index::place::type_section(text, t.as_str()).map(|(start, end)| start < i && i < end);
    if let Some(own) = ty.and_then(inside) {
        return own;
    }
    MemoryType::ALL
        .into_iter()
        .filter(|t| Some(*t) != ty)
        .all(|t| inside(t) != Some(true))
}

fn is_cut(text: &str, line: usize) -> bool {
    index::load::load(text).dropped.iter().any(|d| d.line == line)
}

fn memory_type(bytes: &[u8]) -> Option<MemoryType> {
    let text = String::from_utf8_lossy(bytes);
    let (fm, _) = frontmatter::parse_document(&text);
    MemoryType::of(frontmatter::Fields::from(&fm).type_raw.as_ref())
}

/// `- [name](file) — description` from the copy's frontmatter.
fn canonical_line(source: &Source, local: &str) -> String {
    Memory::from_text(&source.rel, &String::from_utf8_lossy(&source.bytes)).index_line(local)
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
            let (text, lines, _) = place_lines(fresh, &plan.source, &cover.local, &cover.label);
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

/// One entry of `restored` (SPEC §8.3): the file, what happened to it, its mtime
/// now (null when it was removed).
#[derive(Serialize)]
pub struct Restored {
    pub file: String,
    pub change: ChangeKind,
    pub mtime: Option<String>,
}

#[derive(Serialize)]
pub struct IndexLine {
    pub line: usize,
    pub text: String,
}

#[derive(Serialize)]
pub struct Conflict {
    pub file: String,
    pub reason: String,
}

/// The JSON document of `restore` and `undo` (SPEC §8.3).
#[derive(Serialize)]
pub struct Report {
    /// The snapshot restored from (`restore`) or undone (`undo`); null for a copy
    /// from `.trash/`.
    pub snapshot: Option<String>,
    pub restored: Vec<Restored>,
    pub index_lines: Vec<IndexLine>,
    pub conflicts: Vec<Conflict>,
    pub dry_run: bool,
}

impl Plan {
    pub fn report(&self, index_lines: &[(usize, String)], dry_run: bool) -> Report {
        Report {
            snapshot: self.source.snapshot_id().map(str::to_string),
            restored: match (self.change, &self.conflict) {
                (Some(c), None) => vec![Restored {
                    file: self.source.rel.clone(),
                    change: c,
                    mtime: Some(mtime_text(self.source.mtime_ns)),
                }],
                _ => Vec::new(),
            },
            index_lines: index_lines
                .iter()
                .map(|(line, text)| IndexLine {
                    line: *line,
                    text: text.clone(),
                })
                .collect(),
            conflicts: self
                .conflict
                .iter()
                .map(|r| Conflict {
                    file: self.source.rel.clone(),
                    reason: r.clone(),
                })
                .collect(),
            dry_run,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mtimes_keep_their_nanoseconds() {
        assert_eq!(mtime_text(1_773_144_000_123_456_789), "2026-03-10T12:00:00.123456789Z");
        assert_eq!(mtime_text(-1), "1969-12-31T23:59:59.999999999Z");
    }

    #[test]
    fn linking_lines_are_found_once_per_line() {
        let t = "# I\n- [A](a.md) and [a](a.md)\n- [B](b.md)\r\n- [A2](a.md)\n";
        assert_eq!(
            linking_lines(t, "a.md"),
            vec![
                (2, "- [A](a.md) and [a](a.md)".to_string()),
                (4, "- [A2](a.md)".to_string())
            ]
        );
    }
}
