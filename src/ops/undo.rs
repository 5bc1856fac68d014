//! `undo` (SPEC §8.3): revert one snapshot's changes, or a whole dream run's, as a
//! new change. Files changed again since are conflicts, left alone unless forced.
//! The `.consolidate-lock` is left alone: it is Claude Code's dream clock, not a
//! memory, and moving it back would let the next session start a dream at once.

use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use chrono::{DateTime, Utc};

use crate::error::{Error, Kind};
use crate::history::{ChangeKind, FileState, Settings, Snap, Store, changes};
use crate::memdir::{MemoryDir, Scope};
use crate::ops::restore::{Conflict, Entry, Report, Restored, Undo, mtime_text, read_entry};
use crate::store::Writer;

/// What to undo.
pub enum Target<'a> {
    /// The newest snapshot that is not the baseline.
    Newest,
    /// A snapshot named by id, `@~N` or a time.
    Named(&'a str),
    /// The last dream run.
    Dream,
}

/// One file the undo writes.
pub struct Action {
    /// Below the main memory dir, `/`-separated.
    pub rel: String,
    pub path: PathBuf,
    /// What the undo does to it.
    pub change: ChangeKind,
    /// What it puts there (`None`: the file is removed).
    pub put: Option<Entry>,
    /// The entry's mtime and link-ness as the plan saw it (`None`: absent), checked
    /// again under the lock.
    pub seen: Option<(bool, i128)>,
}

/// What `undo` will do.
pub struct Plan {
    pub dir: MemoryDir,
    /// The snapshots undone, newest first (one, or a dream run).
    pub snaps: Vec<Snap>,
    pub actions: Vec<Action>,
    pub conflicts: Vec<Conflict>,
    pub warnings: Vec<String>,
}

impl Plan {
    /// The newest snapshot undone, short.
    pub fn id(&self) -> String {
        self.snaps.first().map(Snap::short).unwrap_or_default()
    }

    /// `1a2b3c4d (dream, 2026-03-10 11:00 UTC)` or, for a run, `the dream run of 3
    /// snapshots 1a2b3c4d..5e6f7a8b (…)`.
    pub fn describe(&self) -> String {
        let when = |s: &Snap| {
            DateTime::<Utc>::from_timestamp(s.time, 0)
                .map(|t| t.format("%Y-%m-%d %H:%M UTC").to_string())
                .unwrap_or_default()
        };
        match self.snaps.as_slice() {
            [one] => format!("snapshot {} ({}, {})", one.short(), one.trigger(), when(one)),
            [newest, .., oldest] => format!(
                "the dream run of {} snapshots {}..{} ({} to {})",
                self.snaps.len(),
                oldest.short(),
                newest.short(),
                when(oldest),
                when(newest)
            ),
            [] => String::new(),
        }
    }

    pub fn report(&self, dry_run: bool) -> Report {
        Report {
            snapshot: Some(self.id()),
            restored: self
                .actions
                .iter()
                .map(|a| Restored {
                    file: a.rel.clone(),
                    change: a.change,
                    mtime: a.put.as_ref().map(|e| mtime_text(e.mtime_ns)),
                })
                .collect(),
            index_lines: Vec::new(),
            conflicts: self
                .conflicts
                .iter()
                .map(|c| Conflict {
                    file: c.file.clone(),
                    reason: c.reason.clone(),
                })
                .collect(),
            dry_run,
        }
    }
}

/// Record what changed outside memctl since the last snapshot (a dream that just
/// ran, a hand edit), under the write lock, as every write's before-snapshot does:
/// then "the newest snapshot" and "the last dream run" include it. Only the store
/// is written; a failure is a warning.
pub fn record_pending(
    main: &std::path::Path,
    history: &Settings,
    project: Option<&std::path::Path>,
    now: DateTime<Utc>,
) -> Result<Vec<String>, Error> {
    if !history.is_on() || !main.is_dir() {
        return Ok(Vec::new());
    }
    let _lock = crate::store::lock(main)?;
    let mut store = match Store::open(history, main, project, false, now) {
        Ok(Some(s)) => s,
        Ok(None) => return Ok(Vec::new()),
        Err(e) => return Ok(vec![format!("history: {e}")]),
    };
    let req = crate::history::Request {
        trigger: None,
        recorded_by: "undo",
        message: None,
        details: &[],
        claude: false,
        now,
    };
    let taken = store.snapshot(main, &req);
    let mut warnings = std::mem::take(&mut store.warnings);
    if let Err(e) = taken {
        warnings.push(format!("history: {e}"));
    }
    Ok(warnings)
}

/// Plan the undo from the store (read, then closed again: the Writer opens it).
pub fn plan(
    main: &std::path::Path,
    history: &Settings,
    target: Target,
    force: bool,
    now: DateTime<Utc>,
) -> Result<Plan, Error> {
    let mut store = Store::open_existing(history, main, now)?;
    let log = store.log()?;
    let is_baseline = |s: &Snap| s.parent.is_none() || s.trigger() == "baseline";
    let snaps: Vec<Snap> = match target {
        Target::Newest => {
            let s = log.iter().find(|s| !is_baseline(s)).ok_or_else(|| {
                Error::new(Kind::NotFound, "nothing to undo: history holds only the baseline")
                    .hint("the baseline records what was there when history started; it is never undone")
            })?;
            vec![s.clone()]
        }
        Target::Named(spec) => {
            let id = store.resolve(spec, &log, now)?;
            let s = log
                .iter()
                .find(|s| s.id == id)
                .cloned()
                .ok_or_else(|| Error::new(Kind::NotFound, format!("no snapshot {spec}")))?;
            if is_baseline(&s) {
                return Err(Error::new(
                    Kind::InvalidInput,
                    format!("{} is the baseline: undoing it would delete every memory", s.short()),
                )
                .hint("undo a later snapshot, or restore single memories with `memctl restore REF --at SNAP`"));
            }
            vec![s]
        }
        Target::Dream => {
            let start = log.iter().position(|s| s.trigger() == "dream").ok_or_else(|| {
                Error::new(Kind::NotFound, "no dream in history")
                    .hint("a dream is recorded when the consolidation lock moved with the files; `memctl history` lists the snapshots")
            })?;
            log[start..]
                .iter()
                .take_while(|s| s.trigger() == "dream" && !is_baseline(s))
                .cloned()
                .collect()
        }
    };
    let newest = &snaps[0];
    let oldest = &snaps[snaps.len() - 1];
    let Some(parent) = oldest.parent else {
        return Err(Error::new(Kind::InvalidInput, "the baseline cannot be undone"));
    };
    let from = store.state(parent)?;
    let to = store.state(newest.id)?;
    let (now_state, fresh) = store.state_now(main)?;
    let mut warnings = std::mem::take(&mut store.warnings);
    let mut actions = Vec::new();
    let mut conflicts = Vec::new();
    let blob = |f: &FileState, rel: &[u8]| -> Result<Vec<u8>, Error> {
        match store.blob(f.oid) {
            Ok(b) => Ok(b),
            Err(e) => fresh.get(rel).cloned().ok_or(e),
        }
    };
    for c in changes(&from, &to) {
        let rel = c.file();
        let current = now_state.files.get(&c.rel);
        if current == c.before.as_ref() {
            continue; // already as it was
        }
        if current != c.after.as_ref() {
            let reason = match current {
                None => format!("deleted since {}", newest.short()),
                Some(_) if c.after.is_none() => format!("created again since {}", newest.short()),
                Some(_) => format!("changed since {}", newest.short()),
            };
            if !force {
                conflicts.push(Conflict {
                    file: rel,
                    reason: format!("{reason}; pass --force to revert it anyway"),
                });
                continue;
            }
            warnings.push(format!(
                "{rel}: {reason}; reverted anyway (--force), the current copy stays in history"
            ));
        }
        let change = match (&c.before, current) {
            (None, _) => ChangeKind::Deleted,
            (Some(_), None) => ChangeKind::Added,
            (Some(b), Some(n)) if b.oid == n.oid && b.link == n.link => ChangeKind::Touched,
            (Some(_), Some(_)) => ChangeKind::Modified,
        };
        let put = match &c.before {
            Some(b) => Some(Entry {
                bytes: blob(b, &c.rel)?,
                link: b.link,
                mtime_ns: b.mtime_ns,
            }),
            None => None,
        };
        actions.push(Action {
            path: main.join(std::ffi::OsStr::from_bytes(&c.rel)),
            rel,
            change,
            put,
            seen: current.map(|f| (f.link, f.mtime_ns)),
        });
    }
    Ok(Plan {
        dir: MemoryDir::open(main, Scope::Main),
        snaps,
        actions,
        conflicts,
        warnings,
    })
}

/// Write every action under the lock. A file that changed since the plan is a
/// conflict and nothing more is written; on any failure what was written is put
/// back, so a failed undo leaves the dir as it found it.
pub fn apply(plan: &Plan, w: &mut Writer) -> Result<(), Error> {
    let mut undo = Undo::default();
    for a in &plan.actions {
        let result = check(a).and_then(|()| undo.put(w, &a.path, a.put.as_ref()));
        if let Err(e) = result {
            undo.roll_back(w);
            return Err(e.hint("nothing was undone: the files written so far were put back"));
        }
    }
    Ok(())
}

fn check(a: &Action) -> Result<(), Error> {
    let now = read_entry(&a.path)?.map(|e| (e.link, e.mtime_ns));
    if now == a.seen {
        return Ok(());
    }
    Err(Error::new(
        Kind::Conflict,
        format!("{} changed while memctl was undoing", a.rel),
    ))
}
