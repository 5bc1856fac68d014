//! Writes outside the memory dir that history records (SPEC §12): a review's
//! changes to the project's CLAUDE files, and undo putting them back.

use std::fs;
use std::path::{Path, PathBuf};

use super::atomic::write_checked_mode;
use super::writer::system_time;
use super::{Writer, create_dir, io_err};
use crate::error::{Error, Kind};
use crate::history::OutsideChange;

/// The most of an outside file read to compare it (a CLAUDE file's bound).
const MAX_OUTSIDE_BYTES: u64 = crate::claude_md::MAX_BYTES;

impl Writer {
    /// Replace the file `target` below the project root `root` (a CLAUDE file)
    /// with `new`, atomically, if it still holds `expected` (`None`: it must not
    /// exist); else `conflict`, and nothing is written. A symlink is followed when
    /// its real target lies inside the real `root` (the target is written, the link
    /// stays), else `containment`. A new file gets mode 0644 (a project file, not a
    /// memory). With history on, the file's previous bytes (or its absence) go into
    /// this command's after-snapshot, so `memctl undo` can put them back; with
    /// history off the write still happens.
    pub fn replace_outside(
        &mut self,
        root: &Path,
        target: &Path,
        expected: Option<&[u8]>,
        new: &[u8],
    ) -> Result<(), Error> {
        self.put_outside(root, target, expected, Some(new), None)
    }

    /// Put back what a command changed outside the memory dir (`undo`): if
    /// `target` still holds `expected` (what the command left; `None`: absent),
    /// write `previous` (bytes and mtime in ns) there, or remove the file when
    /// `previous` is `None` (the command created it). Recorded like
    /// [`Writer::replace_outside`], so the undo can be undone.
    pub fn restore_outside(
        &mut self,
        root: &Path,
        target: &Path,
        expected: Option<&[u8]>,
        previous: Option<(&[u8], i128)>,
    ) -> Result<(), Error> {
        self.put_outside(root, target, expected, previous.map(|p| p.0), previous.map(|p| p.1))
    }

    fn put_outside(
        &mut self,
        root: &Path,
        target: &Path,
        expected: Option<&[u8]>,
        new: Option<&[u8]>,
        mtime_ns: Option<i128>,
    ) -> Result<(), Error> {
        let real = outside_real(root, target)?;
        // The file may be below the memory dir by another path: walked again.
        self.touched_unknown();
        let current = read_outside(&real)?;
        let changed = || {
            Error::new(
                Kind::Conflict,
                format!("{} changed since memctl read it", target.display()),
            )
            .hint("another program changed it; run the command again")
        };
        if current.as_ref().map(|c| c.0.as_slice()) != expected {
            return Err(changed());
        }
        let still = || read_outside(&real).is_ok_and(|c| c.as_ref().map(|c| c.0.as_slice()) == expected);
        match new {
            Some(bytes) => {
                if let Some(parent) = real.parent()
                    && fs::symlink_metadata(parent).is_err()
                {
                    super::ensure_ancestor_contained(root, &real)?;
                    create_dir(parent)?;
                }
                let mtime = mtime_ns.map(system_time);
                if !write_checked_mode(root, &real, bytes, &still, mtime, 0o644)? {
                    return Err(changed());
                }
            }
            None if current.is_none() => {}
            None => {
                if fs::symlink_metadata(target).is_ok_and(|m| m.file_type().is_symlink()) {
                    // A command created a file here; a link now is someone else's.
                    return Err(changed());
                }
                if !still() {
                    return Err(changed());
                }
                fs::remove_file(&real).map_err(|e| io_err("cannot remove", &real, e))?;
                if let Some(parent) = real.parent() {
                    let _ = super::atomic::sync_dir(parent);
                }
            }
        }
        if self.history.is_some() {
            let after = new.map(<[u8]>::to_vec);
            match self.outside.iter().position(|o| o.path == target) {
                // Back to what it was before the command: nothing to record.
                Some(i) if self.outside[i].before.as_ref().map(|b| &b.0) == after.as_ref() => {
                    self.outside.remove(i);
                }
                Some(i) => self.outside[i].after = after,
                None => self.outside.push(OutsideChange {
                    path: target.to_path_buf(),
                    root: root.to_path_buf(),
                    before: current,
                    after,
                }),
            }
        }
        Ok(())
    }
}

/// Where `target`'s bytes live: the real target of a symlink, which must lie
/// inside the real `root` (else `containment`, naming the file), or `target`
/// itself, whose real parent must lie inside it.
pub fn outside_real(root: &Path, target: &Path) -> Result<PathBuf, Error> {
    let root_real = super::real(root)?;
    let leaves = |to: &Path| {
        Error::new(
            Kind::Containment,
            format!(
                "{} resolves outside the project root {}: {}",
                target.display(),
                root.display(),
                to.display()
            ),
        )
        .hint("memctl writes CLAUDE files only inside the project root; edit the target directly")
    };
    match fs::symlink_metadata(target) {
        Ok(m) if m.file_type().is_symlink() => {
            let to = fs::canonicalize(target).map_err(|e| {
                Error::new(
                    Kind::InvalidInput,
                    format!(
                        "{} is a symlink memctl cannot follow: {}",
                        target.display(),
                        crate::error::io_words(&e)
                    ),
                )
                .hint("point the link at an existing file inside the project, or replace it with a file")
            })?;
            if !to.starts_with(&root_real) {
                return Err(leaves(&to));
            }
            Ok(to)
        }
        _ => {
            let parent = target.parent().unwrap_or(root);
            // A missing parent (`.claude/`) is checked through its nearest ancestor.
            let existing = parent
                .ancestors()
                .find(|a| fs::symlink_metadata(a).is_ok())
                .unwrap_or(parent);
            let real_parent = super::real(existing)?;
            if !real_parent.starts_with(&root_real) {
                return Err(leaves(&real_parent));
            }
            Ok(target.to_path_buf())
        }
    }
}

/// The bytes and mtime (ns) of the regular file at `path` (following a link), or
/// `None` when nothing is there; bounded, never blocking on a FIFO.
pub fn read_outside(path: &Path) -> Result<Option<(Vec<u8>, i128)>, Error> {
    use crate::fsread::{self, ReadError};
    let unreadable = |why: String| {
        Error::new(Kind::InvalidInput, format!("cannot read {}: {why}", path.display()))
            .hint("memctl changes only regular text files of at most 4 MiB outside the memory dir")
    };
    let f = match fsread::open_regular(path) {
        Ok(f) => f,
        Err(ReadError::NotFound) => return Ok(None),
        Err(e) => return Err(unreadable(e.to_string())),
    };
    let ns = f
        .metadata()
        .map(|m| crate::history::tracked::mtime_ns(&m))
        .map_err(|e| unreadable(crate::error::io_words(&e)))?;
    let bytes = fsread::read_bounded(f, MAX_OUTSIDE_BYTES).map_err(|e| unreadable(e.to_string()))?;
    Ok(Some((bytes, ns)))
}
