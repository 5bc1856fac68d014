//! What the undo does to each file the snapshots changed: put back, or a
//! conflict (SPEC §8.3); and to each file outside the memory dir (SPEC §12).

use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use super::{Action, OutsideAction};
use crate::error::{Error, Kind};
use crate::history::{Change, ChangeKind, FileState, Fresh, Reader, Snap, State};
use crate::ops::restore::{Conflict, Entry};

/// What the per-file decision needs: where the files are, the store to read the
/// old bytes from, the dir now.
pub(super) struct Revert<'a> {
    pub main: &'a Path,
    pub src: &'a dyn Reader,
    /// The dir as the store sees it now, and the bytes it read.
    pub now: &'a State,
    pub fresh: &'a Fresh,
    /// Files the scan could not read now.
    pub unreadable: &'a [Vec<u8>],
    /// Files the state to go back to recorded as unsettled.
    pub unsettled: &'a [String],
    /// The newest snapshot undone, short.
    pub newest: String,
    pub force: bool,
}

/// How one changed file is treated.
#[derive(Debug, PartialEq, Eq)]
enum Verdict {
    /// Its content is already as it was.
    AsItWas,
    Conflict(String),
    Revert,
}

impl Revert<'_> {
    /// Each file `changes` names: an action, or a conflict.
    pub fn files(&self, changes: &[Change], warnings: &mut Vec<String>) -> Result<(Vec<Action>, Vec<Conflict>), Error> {
        let mut actions = Vec::new();
        let mut conflicts = Vec::new();
        for c in changes {
            let current = self.now.files.get(&c.rel);
            match self.verdict(c, current, warnings) {
                Verdict::AsItWas => {}
                Verdict::Conflict(reason) => conflicts.push(Conflict { file: c.file(), reason }),
                Verdict::Revert => actions.push(self.action(c, current)?),
            }
        }
        Ok((actions, conflicts))
    }

    fn verdict(&self, c: &Change, current: Option<&FileState>, warnings: &mut Vec<String>) -> Verdict {
        // Content decides (SPEC §8.3 "files changed again since"): a file whose
        // mtime alone moved (a `touch`, an editor saving the same bytes) is neither
        // a conflict nor left to revert.
        if same_content(current, c.before.as_ref()) {
            return Verdict::AsItWas;
        }
        if self.unreadable.contains(&c.rel) {
            // Its content now is unknown (and not in history): never removed or
            // overwritten, not even with --force (issue 29 point 14).
            return Verdict::Conflict(
                "it cannot be read now (permissions, a read error, or not a regular file); memctl leaves it alone"
                    .into(),
            );
        }
        let rel = c.file();
        if self.unsettled.contains(&rel) {
            return Verdict::Conflict("another program was rewriting it when the state to go back to was recorded (unsettled); memctl does not write that copy back".into());
        }
        if !same_content(current, c.after.as_ref()) {
            let reason = changed_since(current.is_some(), c.after.is_some(), &self.newest);
            if !self.force {
                return Verdict::Conflict(format!("{reason}; pass --force to revert it anyway"));
            }
            warnings.push(format!(
                "{rel}: {reason}; reverted anyway (--force), the current copy stays in history"
            ));
        }
        Verdict::Revert
    }

    /// The write that puts `c`'s file back as it was before.
    fn action(&self, c: &Change, current: Option<&FileState>) -> Result<Action, Error> {
        let put = match &c.before {
            Some(b) => Some(Entry {
                bytes: self.blob(b, &c.rel)?,
                link: b.link,
                mtime_ns: b.mtime_ns,
            }),
            None => None,
        };
        Ok(Action {
            path: self.main.join(std::ffi::OsStr::from_bytes(&c.rel)),
            rel: c.file(),
            change: change_kind(c.before.as_ref(), current),
            put,
            seen: current.map(|f| (f.link, f.mtime_ns)),
        })
    }

    /// A file's old bytes: from the store, else (a blob it lacks) as just read.
    fn blob(&self, f: &FileState, rel: &[u8]) -> Result<Vec<u8>, Error> {
        match self.src.blob(f.oid) {
            Ok(b) => Ok(b),
            Err(e) => self.fresh.get(rel).cloned().ok_or(e),
        }
    }
}

/// Why a file that changed again since the snapshot `newest` is a conflict.
fn changed_since(exists: bool, existed_after: bool, newest: &str) -> String {
    match (exists, existed_after) {
        (false, _) => format!("deleted since {newest}"),
        (true, false) => format!("created again since {newest}"),
        (true, true) => format!("changed since {newest}"),
    }
}

/// What putting `before` back does to the file as it is now (`current`).
fn change_kind(before: Option<&FileState>, current: Option<&FileState>) -> ChangeKind {
    match (before, current) {
        (None, _) => ChangeKind::Deleted,
        (Some(_), None) => ChangeKind::Added,
        (Some(b), Some(n)) if b.oid == n.oid && b.link == n.link => ChangeKind::Touched,
        (Some(_), Some(_)) => ChangeKind::Modified,
    }
}

/// The files the snapshot `snap` (the state to go back to) recorded as
/// unsettled: another program was rewriting them (SPEC v3 §8.1), so it holds an
/// older copy, not what was there: undo never writes it back, not even with --force.
pub(super) fn unsettled(snap: Option<&Snap>) -> Vec<String> {
    snap.map(|s| {
        s.trailers
            .iter()
            .filter(|(k, _)| k == "Unsettled")
            .map(|(_, v)| v.clone())
            .collect()
    })
    .unwrap_or_default()
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
pub(super) fn refuse_half_undo(actions: &[Action], conflicts: &[Conflict]) -> Result<(), Error> {
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
pub(super) fn plan_outside(
    store: &dyn Reader,
    snaps: &[Snap],
    warnings: &mut Vec<String>,
) -> Result<Vec<OutsideAction>, Error> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn state(n: u8, link: bool) -> FileState {
        FileState {
            oid: gix::ObjectId::from_hex(format!("{n:040x}").as_bytes()).unwrap(),
            link,
            mtime_ns: i128::from(n),
        }
    }

    #[test]
    fn putting_back_is_named_by_what_is_there_now() {
        let (a, b) = (state(1, false), state(2, false));
        assert_eq!(change_kind(None, Some(&a)), ChangeKind::Deleted);
        assert_eq!(change_kind(None, None), ChangeKind::Deleted);
        assert_eq!(change_kind(Some(&a), None), ChangeKind::Added);
        assert_eq!(change_kind(Some(&a), Some(&a)), ChangeKind::Touched);
        assert_eq!(change_kind(Some(&a), Some(&b)), ChangeKind::Modified);
        assert_eq!(change_kind(Some(&a), Some(&state(1, true))), ChangeKind::Modified);
    }

    #[test]
    fn content_decides_not_mtimes() {
        let a = state(1, false);
        let touched = FileState {
            mtime_ns: 99,
            ..a.clone()
        };
        assert!(same_content(Some(&a), Some(&touched)));
        assert!(same_content(None, None));
        assert!(!same_content(Some(&a), None));
        assert!(!same_content(Some(&a), Some(&state(1, true))));
    }

    #[test]
    fn a_conflict_says_what_happened_since() {
        assert_eq!(changed_since(false, true, "1a2b3c4d"), "deleted since 1a2b3c4d");
        assert_eq!(changed_since(true, false, "1a2b3c4d"), "created again since 1a2b3c4d");
        assert_eq!(changed_since(true, true, "1a2b3c4d"), "changed since 1a2b3c4d");
    }

    #[test]
    fn unsettled_files_come_from_the_trailers() {
        let s = Snap {
            id: state(1, false).oid,
            parent: None,
            time: 0,
            summary: String::new(),
            message: None,
            trailers: vec![
                ("Unsettled".into(), "MEMORY.md".into()),
                ("Trigger".into(), "command".into()),
                ("Unsettled".into(), "team/MEMORY.md".into()),
            ],
        };
        assert_eq!(
            unsettled(Some(&s)),
            vec!["MEMORY.md".to_string(), "team/MEMORY.md".to_string()]
        );
        assert!(unsettled(None).is_empty());
    }
}
