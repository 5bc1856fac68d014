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
//!
//! The seams: `record` (what changed since the last snapshot, recorded first),
//! `pick` (the snapshots to undo), `revert` (each file put back or a conflict),
//! `apply` (the writes); [`plan`] here.

mod apply;
mod pick;
mod record;
mod revert;

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use crate::error::{Error, Kind};
use crate::history::aside;
use crate::history::{ChangeKind, Reader, Settings, Snap, Store, changes};
use crate::memdir::{MemoryDir, Scope};
use crate::ops::restore::{Conflict, Entry, Report, Restored, mtime_text};
use revert::Revert;

pub use apply::apply;
pub use record::{record_outside, record_pending};

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

/// Plan the undo from the store (read, then closed again: the Writer opens it).
pub fn plan(main: &Path, history: &Settings, target: Target, force: bool, now: DateTime<Utc>) -> Result<Plan, Error> {
    let mut store = Store::open_existing(history, main, now)?;
    let log = store.log()?;
    // The stores set aside as unreadable (SPEC v3 §8.1): a change recorded only
    // there is found too; they are older than every snapshot of this store.
    let asides = aside::open_all(history, main);
    let (snaps, from_aside) = pick::snapshots(&store, &log, &asides, target, now)?;
    let (newest, oldest) = (&snaps[0], &snaps[snaps.len() - 1]);
    let Some(parent) = oldest.parent else {
        return Err(Error::new(Kind::InvalidInput, "the baseline cannot be undone"));
    };
    let (now_state, fresh) = store.state_now(main)?;
    let mut warnings = std::mem::take(&mut store.warnings);
    let (src, parent_snap): (&dyn Reader, Option<&Snap>) = match from_aside {
        Some(a) => {
            warnings.push(format!(
                "{} was found in the history store set aside as unreadable: {}",
                newest.short(),
                a.path.display()
            ));
            (a, a.get(parent).map(|(s, _)| s))
        }
        None => (&store, log.iter().find(|s| s.id == parent)),
    };
    let unsettled = revert::unsettled(parent_snap);
    let revert = Revert {
        main,
        src,
        now: &now_state,
        fresh: &fresh,
        unreadable: &store.unreadable,
        unsettled: &unsettled,
        newest: newest.short(),
        force,
    };
    let (actions, conflicts) = revert.files(&changes(&src.state(parent)?, &src.state(newest.id)?), &mut warnings)?;
    revert::refuse_half_undo(&actions, &conflicts)?;
    let outside = revert::plan_outside(src, &snaps, &mut warnings)?;
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

#[cfg(test)]
mod tests {
    use std::fs;
    use std::path::PathBuf;

    use super::*;
    use crate::store::{Recording, Writer};

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
