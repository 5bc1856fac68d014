//! `undo` (SPEC §8.3): revert one snapshot's changes, or a whole dream run's, as a
//! new change. Files changed again since are conflicts, left alone unless forced.
//! The `.consolidate-lock` is left alone: it is Claude Code's dream clock, not a
//! memory, and moving it back would let the next session start a dream at once.
//!
//! A snapshot that changed files outside the memory dir (a review's CLAUDE files,
//! SPEC §12) keeps their previous bytes; undo puts them back when a file still
//! holds exactly what the command wrote, and otherwise leaves it with a warning
//! naming it, even with `--force`: its current content is not in history, so
//! overwriting it would lose it.

use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use chrono::{DateTime, Utc};

use crate::error::{Error, Kind};
use crate::history::aside::{self, Aside};
use crate::history::{ChangeKind, FileState, Reader, Settings, Snap, State, Store, changes};
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

/// One file outside the memory dir (a CLAUDE file) the undo puts back.
pub struct OutsideAction {
    /// The path as the command named it.
    pub path: PathBuf,
    /// The project root it was written below (the containment boundary).
    pub root: PathBuf,
    pub change: ChangeKind,
    /// What is there now, bytes and mtime: what the command left (`None`: absent).
    pub now: Option<(Vec<u8>, i128)>,
    /// What the undo puts there: bytes and mtime (`None`: the file is removed).
    pub put: Option<(Vec<u8>, i128)>,
}

/// What `undo` will do.
pub struct Plan {
    pub dir: MemoryDir,
    /// The set-aside store the snapshots undone were found in (SPEC v3 §8.1).
    pub aside: Option<PathBuf>,
    /// The snapshots undone, newest first (one, or a dream run).
    pub snaps: Vec<Snap>,
    pub actions: Vec<Action>,
    /// Files outside the memory dir put back (SPEC §12).
    pub outside: Vec<OutsideAction>,
    pub conflicts: Vec<Conflict>,
    pub warnings: Vec<String>,
}

impl Plan {
    /// Whether the undo writes nothing.
    pub fn is_empty(&self) -> bool {
        self.actions.is_empty() && self.outside.is_empty()
    }

    /// What the undo does to each file, memory files first.
    pub fn changes(&self) -> impl Iterator<Item = ChangeKind> + '_ {
        self.actions
            .iter()
            .map(|a| a.change)
            .chain(self.outside.iter().map(|o| o.change))
    }

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
        let whence = match &self.aside {
            Some(p) => format!(
                ", from the set-aside store {}",
                p.file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default()
            ),
            None => String::new(),
        };
        match self.snaps.as_slice() {
            [one] => format!("snapshot {} ({}, {}{whence})", one.short(), one.trigger(), when(one)),
            [newest, .., oldest] => format!(
                "the dream run of {} snapshots {}..{} ({} to {}{whence})",
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
                .chain(self.outside.iter().map(|o| Restored {
                    file: o.path.display().to_string(),
                    change: o.change,
                    mtime: o.put.as_ref().map(|p| mtime_text(p.1)),
                }))
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
/// is written. A failure refuses the undo (SPEC v3 §8.1): without that snapshot
/// the newest one may be an older command's, which undo would revert instead of
/// the last change (issue 29 point 6).
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
    snapshot_outside(main, history, project, now, "undo").map_err(|e| {
        Error::new(
            Kind::Io,
            format!("undo refused: it cannot record the changes made since the last snapshot: {e}"),
        )
        .hint("nothing was written; free space in the history dir (or fix its permissions) and run undo again")
    })
}

/// Snapshot the changes memctl did not make since the last snapshot (labelled
/// `dream` or `external` by SPEC §8.2), recorded by `command`; no store yet or
/// history off: nothing. `diff --dream` calls it so that a dream that just ran
/// is the last dream run it shows (issue 34 point 7).
pub fn record_outside(
    main: &std::path::Path,
    history: &Settings,
    project: Option<&std::path::Path>,
    now: DateTime<Utc>,
    command: &'static str,
) -> Result<Vec<String>, Error> {
    if !history.is_on() || !main.is_dir() {
        return Ok(Vec::new());
    }
    let _lock = crate::store::lock(main)?;
    snapshot_outside(main, history, project, now, command)
}

/// The snapshot of [`record_outside`], under the caller's write lock.
fn snapshot_outside(
    main: &std::path::Path,
    history: &Settings,
    project: Option<&std::path::Path>,
    now: DateTime<Utc>,
    command: &'static str,
) -> Result<Vec<String>, Error> {
    let Some(mut store) = Store::open(history, main, project, false, now)? else {
        return Ok(Vec::new());
    };
    let req = crate::history::Request {
        trigger: None,
        recorded_by: command,
        message: None,
        details: &[],
        claude: false,
        now,
    };
    store.snapshot(main, &req)?;
    Ok(std::mem::take(&mut store.warnings))
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
    // The stores set aside as unreadable (SPEC v3 §8.1): a change recorded only
    // there is found too; they are older than every snapshot of this store.
    let asides = aside::open_all(history, main);
    let is_baseline = |s: &Snap| s.parent.is_none() || s.trigger() == "baseline";
    let (snaps, from_aside): (Vec<Snap>, Option<&Aside>) = match target {
        Target::Newest => {
            // The newest snapshot that changed some file's content: one that only
            // touched files (an mtime moved, the bytes the same) is not what a user
            // means by "the last change" (SPEC §8.3: conflicts are changed files).
            let here = pick_newest(log.iter().filter(|s| !is_baseline(s)), &|p| store.state(p).ok(), &store);
            let found = match here {
                Some(s) => Some((s.clone(), None)),
                None => asides.iter().find_map(|a| {
                    let cands = a.snaps.iter().map(|(s, _)| s).filter(|s| !is_baseline(s));
                    pick_newest(cands, &|p| a.get(p).map(|(_, st)| st.clone()), a).map(|s| (s.clone(), Some(a)))
                }),
            };
            let (pick, a) = found.ok_or_else(|| {
                Error::new(Kind::NotFound, "nothing to undo: history holds only the baseline")
                    .hint("the baseline records what was there when history started; it is never undone")
            })?;
            (vec![pick], a)
        }
        Target::Named(spec) => {
            let (a, id) = aside::resolve(&store, &log, &asides, spec, now)?;
            let s = match a {
                Some(a) => a.get(id).map(|(s, _)| s.clone()),
                None => log.iter().find(|s| s.id == id).cloned(),
            }
            .ok_or_else(|| Error::new(Kind::NotFound, format!("no snapshot {spec}")))?;
            if is_baseline(&s) {
                return Err(Error::new(
                    Kind::InvalidInput,
                    format!("{} is the baseline: undoing it would delete every memory", s.short()),
                )
                .hint("undo a later snapshot, or restore single memories with `memctl restore REF --at SNAP`"));
            }
            (vec![s], a)
        }
        Target::Dream => match log.iter().position(|s| s.trigger() == "dream") {
            Some(start) => (
                log[start..]
                    .iter()
                    .take_while(|s| s.trigger() == "dream" && !is_baseline(s))
                    .cloned()
                    .collect(),
                None,
            ),
            None => {
                // The newest dream snapshot of a set-aside store, and the dream
                // snapshots before it along its parents.
                let found = asides.iter().find_map(|a| {
                    let (first, _) = a
                        .snaps
                        .iter()
                        .find(|(s, _)| s.trigger() == "dream" && !is_baseline(s))?;
                    let mut run = vec![first.clone()];
                    while let Some((p, _)) = run[run.len() - 1].parent.and_then(|p| a.get(p)) {
                        if p.trigger() != "dream" || is_baseline(p) || run.len() > a.snaps.len() {
                            break;
                        }
                        run.push(p.clone());
                    }
                    Some((run, a))
                });
                let (run, a) = found.ok_or_else(|| {
                    Error::new(Kind::NotFound, "no dream in history")
                        .hint("a dream is recorded when the consolidation lock moved with the files; `memctl history` lists the snapshots")
                })?;
                (run, Some(a))
            }
        },
    };
    let newest = &snaps[0];
    let oldest = &snaps[snaps.len() - 1];
    let Some(parent) = oldest.parent else {
        return Err(Error::new(Kind::InvalidInput, "the baseline cannot be undone"));
    };
    let (now_state, fresh) = store.state_now(main)?;
    let mut warnings = std::mem::take(&mut store.warnings);
    let src: &dyn Reader = match from_aside {
        Some(a) => {
            warnings.push(format!(
                "{} was found in the history store set aside as unreadable: {}",
                newest.short(),
                a.path.display()
            ));
            a
        }
        None => &store,
    };
    let from = src.state(parent)?;
    let to = src.state(newest.id)?;
    let mut actions = Vec::new();
    let mut conflicts = Vec::new();
    let blob = |f: &FileState, rel: &[u8]| -> Result<Vec<u8>, Error> {
        match src.blob(f.oid) {
            Ok(b) => Ok(b),
            Err(e) => fresh.get(rel).cloned().ok_or(e),
        }
    };
    // A file the state to go back to recorded as unsettled (another program was
    // rewriting it; SPEC v3 §8.1) holds an older copy, not what was there: undo
    // never writes it back, not even with --force.
    let parent_snap = match from_aside {
        Some(a) => a.get(parent).map(|(s, _)| s),
        None => log.iter().find(|s| s.id == parent),
    };
    let unsettled: Vec<String> = parent_snap
        .map(|s| {
            s.trailers
                .iter()
                .filter(|(k, _)| k == "Unsettled")
                .map(|(_, v)| v.clone())
                .collect()
        })
        .unwrap_or_default();
    for c in changes(&from, &to) {
        let rel = c.file();
        let current = now_state.files.get(&c.rel);
        // Content decides (SPEC §8.3 "files changed again since"): a file whose
        // mtime alone moved (a `touch`, an editor saving the same bytes) is neither
        // a conflict nor left to revert.
        if same_content(current, c.before.as_ref()) {
            continue; // already as it was
        }
        if store.unreadable.contains(&c.rel) {
            // Its content now is unknown (and not in history): never removed or
            // overwritten, not even with --force (issue 29 point 14).
            conflicts.push(Conflict {
                file: rel,
                reason:
                    "it cannot be read now (permissions, a read error, or not a regular file); memctl leaves it alone"
                        .into(),
            });
            continue;
        }
        if unsettled.contains(&rel) {
            conflicts.push(Conflict {
                file: rel,
                reason: "another program was rewriting it when the state to go back to was recorded (unsettled); memctl does not write that copy back".into(),
            });
            continue;
        }
        if !same_content(current, c.after.as_ref()) {
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
    refuse_half_undo(&actions, &conflicts)?;
    let outside = plan_outside(src, &snaps, &mut warnings)?;
    Ok(Plan {
        dir: MemoryDir::open(main, Scope::Main),
        aside: from_aside.map(|a| a.path.clone()),
        snaps,
        actions,
        outside,
        conflicts,
        warnings,
    })
}

/// The first of `cands` (newest first) that changed some file's content, else
/// the first one; `parent_state` gives a snapshot's parent's state.
fn pick_newest<'a>(
    mut cands: impl Iterator<Item = &'a Snap>,
    parent_state: &dyn Fn(gix::ObjectId) -> Option<State>,
    reader: &dyn Reader,
) -> Option<&'a Snap> {
    let only_touches = |s: &Snap| -> bool {
        let (Some(from), Ok(to)) = (s.parent.and_then(parent_state), reader.state(s.id)) else {
            return false;
        };
        let c = changes(&from, &to);
        !c.is_empty() && c.iter().all(|c| c.kind == ChangeKind::Touched)
    };
    let first = cands.next()?;
    if !only_touches(first) {
        return Some(first);
    }
    Some(cands.find(|s| !only_touches(s)).unwrap_or(first))
}

/// The same bytes (and kind: file or symlink), whatever the mtimes.
fn same_content(a: Option<&FileState>, b: Option<&FileState>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => a.oid == b.oid && a.link == b.link,
        _ => false,
    }
}

/// Issue 29 point 16 (SPEC §8.3, memctl choice): an undo that would bring back
/// or remove a memory while the index that links it is a conflict (changed since,
/// or recorded unsettled) is refused as a whole, and nothing is written. Applying
/// the rest would leave the index linking a file the undo removed, or a memory back
/// without its line; and a conflicting index is "listed, not touched", so the undo
/// cannot fix the line itself. `--force` reverts a changed index too (its current
/// copy stays in history), so the whole undo applies; an unsettled one is refused
/// even then. Other conflicts (a memory changed since) still leave the rest to apply.
fn refuse_half_undo(actions: &[Action], conflicts: &[Conflict]) -> Result<(), Error> {
    let is_index = |rel: &str| rel.rsplit('/').next() == Some(crate::memdir::INDEX);
    let index_conflicts: Vec<&Conflict> = conflicts.iter().filter(|c| is_index(&c.file)).collect();
    if index_conflicts.is_empty() {
        return Ok(());
    }
    let memories: Vec<String> = actions
        .iter()
        .filter(|a| a.rel.ends_with(".md") && !is_index(&a.rel))
        .filter(|a| matches!(a.change, ChangeKind::Added | ChangeKind::Deleted))
        .map(|a| {
            let what = if a.change == ChangeKind::Added {
                "bring back"
            } else {
                "remove"
            };
            format!("{what} {}", a.rel)
        })
        .collect();
    if memories.is_empty() {
        return Ok(());
    }
    let why: Vec<String> = index_conflicts
        .iter()
        .map(|c| format!("{} is a conflict ({})", c.file, c.reason))
        .collect();
    Err(Error::new(
        Kind::Conflict,
        format!(
            "undo refused, nothing was written: it would {} while {}; the index and its memories would no longer match",
            memories.join(", "),
            why.join("; ")
        ),
    )
    .hint("look at the index with `memctl diff`; pass --force to revert it along with the memories (its current copy stays in history), or restore single memories with `memctl restore`"))
}

/// The outside files the undone snapshots changed (oldest first: the first
/// snapshot's previous bytes, the last one's result), each put back when it still
/// holds what the command left; else a warning naming it.
fn plan_outside(store: &dyn Reader, snaps: &[Snap], warnings: &mut Vec<String>) -> Result<Vec<OutsideAction>, Error> {
    let mut files: Vec<(crate::history::OutsideFile, String)> = Vec::new();
    for s in snaps.iter().rev() {
        for f in store.outside(s.id)? {
            match files.iter_mut().find(|(g, _)| g.path == f.path) {
                Some((g, at)) => {
                    g.after = f.after;
                    *at = s.short();
                }
                None => files.push((f, s.short())),
            }
        }
    }
    let mut out = Vec::new();
    for (f, at) in files {
        let shown = f.path.display();
        let now = match crate::store::outside_real(&f.root, &f.path).and_then(|r| crate::store::read_outside(&r)) {
            Ok(now) => now,
            Err(e) => {
                warnings.push(format!("{shown}: left as it is: {e}"));
                continue;
            }
        };
        if now.as_ref().map(|n| n.0.as_slice()) == f.before.as_ref().map(|b| b.0.as_slice()) {
            continue; // already as it was
        }
        let as_left = match (&now, f.after) {
            (None, None) => true,
            (Some((bytes, _)), Some(id)) => store.is_blob(id, bytes),
            _ => false,
        };
        if !as_left {
            warnings.push(format!(
                "{shown}: changed since {at}; left as it is (undo puts a file outside the memory dir back only while it holds what {at} wrote)"
            ));
            continue;
        }
        let change = match (&f.before, &now) {
            (None, _) => ChangeKind::Deleted,
            (Some(_), None) => ChangeKind::Added,
            (Some(_), Some(_)) => ChangeKind::Modified,
        };
        out.push(OutsideAction {
            path: f.path,
            root: f.root,
            change,
            now,
            put: f.before,
        });
    }
    Ok(out)
}

/// Write every action under the lock. A file that changed since the plan is a
/// conflict and nothing more is written; on any failure what was written is put
/// back, so a failed undo leaves the dir as it found it.
pub fn apply(plan: &Plan, w: &mut Writer) -> Result<(), Error> {
    let mut undo = Undo::default();
    let failed = |e: Error| e.hint("nothing was undone: the files written so far were put back");
    for a in &plan.actions {
        let result = check(a).and_then(|()| undo.put(w, &a.path, a.put.as_ref()));
        if let Err(e) = result {
            undo.roll_back(w);
            return Err(failed(e));
        }
    }
    for (i, o) in plan.outside.iter().enumerate() {
        let put = o.put.as_ref().map(|(b, ns)| (b.as_slice(), *ns));
        let now = o.now.as_ref().map(|n| n.0.as_slice());
        if let Err(e) = w.restore_outside(&o.root, &o.path, now, put) {
            for done in plan.outside[..i].iter().rev() {
                let back = done.now.as_ref().map(|(b, ns)| (b.as_slice(), *ns));
                let put = done.put.as_ref().map(|p| p.0.as_slice());
                let _ = w.restore_outside(&done.root, &done.path, put, back);
            }
            undo.roll_back(w);
            return Err(failed(e));
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

#[cfg(test)]
mod tests {
    use std::fs;
    use std::path::PathBuf;

    use super::*;
    use crate::store::Recording;

    struct Fixture {
        _t: tempfile::TempDir,
        root: PathBuf,
        main: PathBuf,
        settings: Settings,
    }

    fn fixture() -> Fixture {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("project");
        let main = t.path().join("memory");
        fs::create_dir_all(&root).unwrap();
        fs::create_dir_all(&main).unwrap();
        fs::write(main.join("MEMORY.md"), "- [A](a.md) — a\n").unwrap();
        fs::write(
            main.join("a.md"),
            "---\nname: a\ntype: feedback\n---\nRun `bun test`.\n",
        )
        .unwrap();
        fs::write(root.join("CLAUDE.md"), "\u{feff}# P\r\n").unwrap();
        Fixture {
            root,
            main,
            settings: Settings::On {
                root: t.path().join("state"),
            },
            _t: t,
        }
    }

    fn now() -> DateTime<Utc> {
        "2026-03-10T12:00:00Z".parse().unwrap()
    }

    fn writer(f: &Fixture, command: &'static str) -> Writer {
        let rec = Recording {
            settings: f.settings.clone(),
            command,
            project: Some(f.root.clone()),
        };
        Writer::open(&MemoryDir::open(&f.main, Scope::Main), now(), false, &rec).unwrap()
    }

    /// What a review apply does: promote `a.md` to CLAUDE.md (and one to
    /// CLAUDE.local.md, which it creates), then remove the memory.
    fn review(f: &Fixture) {
        let claude = f.root.join("CLAUDE.md");
        let old = fs::read(&claude).unwrap();
        let new = crate::claude_md::append_from_memory(Some(&old), &["Run `bun test`.".into()]);
        let mut w = writer(f, "review");
        w.replace_outside(&f.root, &claude, Some(&old), &new).unwrap();
        let local = crate::claude_md::append_from_memory(None, &["I like short answers".into()]);
        w.replace_outside(&f.root, &f.root.join("CLAUDE.local.md"), None, &local)
            .unwrap();
        w.remove(&f.main.join("a.md")).unwrap();
        assert!(w.finish().is_empty());
    }

    fn undo(f: &Fixture, target: Target) -> Plan {
        let plan = plan(&f.main, &f.settings, target, false, now()).unwrap();
        let mut w = writer(f, "undo");
        apply(&plan, &mut w).unwrap();
        assert!(w.finish().is_empty());
        plan
    }

    #[test]
    fn undo_puts_back_the_claude_files_a_review_changed() {
        let f = fixture();
        let claude = f.root.join("CLAUDE.md");
        let local = f.root.join("CLAUDE.local.md");
        let mtime = |p: &std::path::Path| crate::history::tracked::mtime_ns(&fs::metadata(p).unwrap());
        let old_mtime = mtime(&claude);
        review(&f);
        let reviewed = fs::read(&claude).unwrap();
        assert_eq!(
            reviewed,
            "\u{feff}# P\r\n\r\n## From memory\r\n\r\n- Run `bun test`.\r\n".as_bytes()
        );
        assert!(local.exists() && !f.main.join("a.md").exists());

        let plan = undo(&f, Target::Newest);
        assert!(plan.warnings.is_empty(), "{:?}", plan.warnings);
        let kinds: Vec<(String, ChangeKind)> = plan
            .report(false)
            .restored
            .into_iter()
            .map(|r| (r.file, r.change))
            .collect();
        assert_eq!(
            kinds,
            [
                ("a.md".to_string(), ChangeKind::Added),
                (claude.display().to_string(), ChangeKind::Modified),
                (local.display().to_string(), ChangeKind::Deleted),
            ]
        );
        assert_eq!(fs::read(&claude).unwrap(), "\u{feff}# P\r\n".as_bytes());
        assert_eq!(mtime(&claude), old_mtime, "the previous mtime comes back too");
        assert!(!local.exists(), "a file the review created is removed");
        assert!(f.main.join("a.md").exists());

        // The undo recorded what it changed: undoing it writes the review's again.
        undo(&f, Target::Newest);
        assert_eq!(fs::read(&claude).unwrap(), reviewed);
        assert!(local.exists() && !f.main.join("a.md").exists());
    }

    #[test]
    fn a_claude_file_changed_since_is_left_with_a_warning() {
        let f = fixture();
        let claude = f.root.join("CLAUDE.md");
        review(&f);
        fs::write(&claude, "hand edit\n").unwrap();
        let store = Store::open_existing(&f.settings, &f.main, now()).unwrap();
        let id = store.log().unwrap()[0].short();
        drop(store);
        let plan = undo(&f, Target::Named(&id));
        assert_eq!(plan.warnings.len(), 1, "{:?}", plan.warnings);
        assert!(
            plan.warnings[0].contains(&claude.display().to_string()) && plan.warnings[0].contains("changed since"),
            "{}",
            plan.warnings[0]
        );
        assert_eq!(fs::read(&claude).unwrap(), b"hand edit\n");
        // The rest of the snapshot is undone: the memory and the created file.
        assert!(f.main.join("a.md").exists());
        assert!(!f.root.join("CLAUDE.local.md").exists());
    }

    #[test]
    fn a_write_between_plan_and_apply_fails_and_puts_everything_back() {
        let f = fixture();
        let claude = f.root.join("CLAUDE.md");
        review(&f);
        let reviewed = fs::read(&claude).unwrap();
        let plan = plan(&f.main, &f.settings, Target::Newest, false, now()).unwrap();
        fs::write(f.root.join("CLAUDE.local.md"), "changed meanwhile\n").unwrap();
        let mut w = writer(&f, "undo");
        let e = apply(&plan, &mut w).unwrap_err();
        assert_eq!(e.kind, Kind::Conflict);
        drop(w);
        assert_eq!(fs::read(&claude).unwrap(), reviewed, "CLAUDE.md was put back");
        assert!(!f.main.join("a.md").exists(), "the memory was put back (removed again)");
    }
}
