//! SPEC §11.3 step 4, the writing half: one project's plan carried out through
//! its memory dir's [`Writer`] (atomic, locked, history). Each file is re-checked
//! right before it is replaced: a file changed meanwhile becomes a conflict (or
//! stays, for a deletion or the index), never an overwrite.

use std::path::{Path, PathBuf};

use gix::ObjectId;

use super::plan::{Act, NewIndex, Plan};
use super::repo::SyncRepo;
use super::{MAX_FILE_BYTES, Options, ProjectReport};
use crate::error::{Error, Kind};
use crate::ops::import::{Conflict, conflict_name, conflict_suffix};
use crate::store::Writer;

/// Carry out one plan through its Writer: its files, then its index.
pub(super) fn apply(r: &SyncRepo, plan: &mut Plan, w: &mut Writer, opts: &Options, machine: &str) -> Result<(), Error> {
    let dir = plan.target.dir.clone();
    let suffix = conflict_suffix(machine, opts.now);
    let mut trash: Option<PathBuf> = None;
    for a in &plan.acts {
        match a {
            Act::Take {
                rel,
                old,
                oid,
                mtime_ns,
            } => {
                let take = (rel.as_str(), old.as_deref(), *oid, *mtime_ns);
                write_taken(r, w, &dir, take, &suffix, &mut plan.report)?;
            }
            Act::Delete { rel, old } => delete_here(w, &dir, rel, old, &mut trash, &mut plan.report)?,
            Act::Keep { rel, oid, mtime_ns } => keep_beside(r, w, &dir.join(rel), *oid, *mtime_ns)?,
        }
    }
    if let Some(index) = &plan.index {
        write_index(w, &dir, plan.target.index(), index, &mut plan.report)?;
    }
    w.discard_empty_trash();
    Ok(())
}

/// Write the remote's version of a file over the local bytes `old` (or as a new
/// file). A file changed (or created) meanwhile stays; the remote's version is
/// kept beside it as a conflict file.
fn write_taken(
    r: &SyncRepo,
    w: &mut Writer,
    dir: &Path,
    (rel, old, oid, mtime_ns): (&str, Option<&[u8]>, ObjectId, i128),
    suffix: &str,
    report: &mut ProjectReport,
) -> Result<(), Error> {
    let bytes = r.blob(oid)?;
    let path = dir.join(rel);
    let done = match old {
        Some(old) => w.replace_holding(&path, old, &bytes, mtime_ns)?,
        None => created(w.create_at(&path, &bytes, mtime_ns))?,
    };
    if done {
        return Ok(());
    }
    report.added.retain(|f| f != rel);
    report.updated.retain(|f| f != rel);
    if let Some((name, new)) = conflict_name(dir, rel, suffix, &bytes) {
        if new {
            w.create_at(&dir.join(&name), &bytes, mtime_ns)?;
        }
        report.conflicts.push(Conflict {
            file: rel.to_string(),
            kept_as: name,
            reason: "changed here while sync was writing it",
        });
    }
    Ok(())
}

/// `Ok(false)` for a file that was there already (not created), other errors as they are.
fn created(result: Result<(), Error>) -> Result<bool, Error> {
    match result {
        Ok(()) => Ok(true),
        Err(e) if e.kind == Kind::Exists => Ok(false),
        Err(e) => Err(e),
    }
}

/// Remove a file the remote deleted, when it still holds `old`: its copy stays
/// in history, or in `.trash/` (one dir per sync, made on first use) when history
/// does not hold it. A file changed meanwhile stays, reported as skipped.
fn delete_here(
    w: &mut Writer,
    dir: &Path,
    rel: &str,
    old: &[u8],
    trash: &mut Option<PathBuf>,
    report: &mut ProjectReport,
) -> Result<(), Error> {
    let path = dir.join(rel);
    let now = crate::fsread::read_regular(&path, MAX_FILE_BYTES).ok();
    if now.as_deref() != Some(old) {
        report.deleted.retain(|f| f != rel);
        report.skipped.push(rel.to_string());
        return Ok(());
    }
    if w.history_holds(&path, old, false) {
        return w.remove(&path);
    }
    let t = match trash {
        Some(t) => t.clone(),
        None => trash.insert(w.trash_dir()?).clone(),
    };
    w.trash(&t, rel, &path).map(|_| ())
}

/// Write a conflict file with the remote's version (one already there stays).
fn keep_beside(r: &SyncRepo, w: &mut Writer, path: &Path, oid: ObjectId, mtime_ns: i128) -> Result<(), Error> {
    let bytes = r.blob(oid)?;
    created(w.create_at(path, &bytes, mtime_ns)).map(|_| ())
}

/// Write the merged index over the one read (or as a new file). An index changed
/// meanwhile is left as it is now, reported as skipped: the next sync merges it.
fn write_index(
    w: &mut Writer,
    dir: &Path,
    name: &str,
    index: &NewIndex,
    report: &mut ProjectReport,
) -> Result<(), Error> {
    let path = dir.join(name);
    match &index.before {
        Some(old) => match w.replace_expecting(&path, old.as_bytes(), index.after.as_bytes()) {
            Ok(_) => {}
            Err(e) if e.kind == Kind::Conflict => {
                report.updated.retain(|f| f != name);
                report.skipped.push(name.to_string());
            }
            Err(e) => return Err(e),
        },
        None => {
            if !created(w.create(&path, index.after.as_bytes()))? {
                report.added.retain(|f| f != name);
                report.skipped.push(name.to_string());
            }
        }
    }
    Ok(())
}
