//! Every write memctl makes (SPEC §4): atomic replacement through a temp file in the
//! same directory, the write lock, respect for a running auto-dream, physical
//! containment inside the memory dir, and the trash.
//!
//! [`Writer`] is the one door into a memory dir: a command opens it once on a
//! [`MemoryDir`]; it takes the write lock, checks the dream lock once, and offers
//! create, replace, update and remove-to-trash. Files outside a memory dir (settings,
//! CLAUDE.md) go through [`write_outside`], with the same atomicity; a CLAUDE file
//! a command changes goes through [`Writer::replace_outside`], which records its
//! previous bytes in the command's history snapshot.

mod atomic;
mod lock;
mod outside;
pub mod settle;
mod trash;
mod update;
mod writer;

#[cfg(test)]
mod tests;

use std::fs;
use std::path::{Path, PathBuf};

use crate::error::{Error, Kind};

pub use atomic::{Stamp, create_new, parse_temp_name, random_hex, stamp, temp_name, write_atomic, write_checked};
pub use lock::{WRITE_LOCK, WriteLock, ensure_no_dream, ensure_no_dream_for, lock, lock_within, open_lock};
pub use outside::{outside_real, read_outside};
pub use trash::{move_entry, trash_dir};
pub use update::{
    MAX_INDEX_BYTES, Updated, ensure_updatable, keep_original_bytes, read_for_update, update, update_raw,
};
pub use writer::{Recording, Writer};

pub(super) fn io_err(what: &str, path: &Path, e: std::io::Error) -> Error {
    Error::new(Kind::Io, format!("{what} {}: {e}", path.display()))
        .hint("check the directory's permissions and free space")
}

/// The real path of `dir`, for containment checks.
pub(super) fn real(dir: &Path) -> Result<PathBuf, Error> {
    fs::canonicalize(dir).map_err(|e| io_err("cannot resolve", dir, e))
}

/// Require the real parent of `target` (and `target`, if it exists) to lie inside
/// the real `root` (SPEC §4.4).
pub fn ensure_contained(root: &Path, target: &Path) -> Result<(), Error> {
    let root_real = real(root)?;
    let parent = target.parent().unwrap_or(root);
    let escapes = |p: &Path| {
        Error::new(
            Kind::Containment,
            format!("write target resolves outside the memory dir: {}", p.display()),
        )
        .hint("memctl does not write through symlinks that leave the memory dir; edit the target directly")
    };
    if !real(parent)?.starts_with(&root_real) {
        return Err(escapes(target));
    }
    if fs::symlink_metadata(target).is_ok() {
        match fs::canonicalize(target) {
            Ok(t) if !t.starts_with(&root_real) => return Err(escapes(target)),
            _ => {}
        }
    }
    Ok(())
}

/// Require the nearest existing ancestor of `target` to lie inside the real `root`,
/// before any directory on the way is created (SPEC §4.4).
pub fn ensure_ancestor_contained(root: &Path, target: &Path) -> Result<(), Error> {
    let root_real = real(root)?;
    let mut at = target.parent();
    while let Some(p) = at {
        if fs::symlink_metadata(p).is_ok() {
            if real(p)?.starts_with(&root_real) {
                return Ok(());
            }
            return Err(Error::new(
                Kind::Containment,
                format!("write target resolves outside the memory dir: {}", target.display()),
            )
            .hint("memctl does not write through symlinks that leave the memory dir; edit the target directly"));
        }
        at = p.parent();
    }
    Ok(())
}

/// Create a directory (and parents) with mode 0700.
pub fn create_dir(dir: &Path) -> Result<(), Error> {
    use std::os::unix::fs::DirBuilderExt;
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|e| match dir.ancestors().find(|a| fs::metadata(a).is_ok_and(|m| !m.is_dir())) {
            Some(file) => Error::new(Kind::InvalidInput, format!("not a directory: {}", file.display()))
                .hint("a memory dir (--dir, MEMCTL_DIR or the resolved one) must be a directory; move the file away or name another path"),
            None => io_err("cannot create", dir, e),
        })
}

/// Replace a file outside any memory dir (a settings file, CLAUDE.md) atomically:
/// temp file beside it, fsync, permissions kept, rename, directory fsync.
pub fn write_outside(target: &Path, content: &[u8]) -> Result<(), Error> {
    let dir = target.parent().unwrap_or(Path::new("."));
    create_dir(dir)?;
    write_checked(dir, target, content, None).map(|_| ())
}

/// [`write_outside`] only if `still_ok()` holds right before the rename (a
/// settings file re-checked against what was read); whether it wrote.
pub fn write_outside_if(target: &Path, content: &[u8], still_ok: &dyn Fn() -> bool) -> Result<bool, Error> {
    let dir = target.parent().unwrap_or(Path::new("."));
    create_dir(dir)?;
    atomic::write_checked_with(dir, target, content, still_ok)
}

/// The test hook between a writer's two snapshots (debug builds only): with
/// `MEMCTL_TEST_BETWEEN_SNAPSHOTS=CMD`, `sh -c CMD` runs right after the
/// before-snapshot, under the lock, as another program changing the dir then
/// would: tests see what each snapshot records, by order rather than by timing.
pub(crate) fn between_snapshots() {
    #[cfg(debug_assertions)]
    if let Some(cmd) = std::env::var_os("MEMCTL_TEST_BETWEEN_SNAPSHOTS") {
        let _ = std::process::Command::new("sh").arg("-c").arg(cmd).status();
    }
}

/// The test fault hook (debug builds only): with `MEMCTL_TEST_KILL_AFTER=N`, memctl
/// kills itself with `SIGKILL` right after its N-th file operation through a
/// [`Writer`] (a file created, replaced or removed), as a `kill -9` landing between
/// two writes would. Tests use it to stop a command at each of its steps
/// deterministically, by count rather than by timing (issue 29 point 12).
pub(crate) fn fault_point() {
    #[cfg(debug_assertions)]
    {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static DONE: AtomicUsize = AtomicUsize::new(0);
        let Some(n) = std::env::var("MEMCTL_TEST_KILL_AFTER")
            .ok()
            .and_then(|v| v.parse::<usize>().ok())
        else {
            return;
        };
        if DONE.fetch_add(1, Ordering::SeqCst) + 1 >= n {
            let _ = rustix::process::kill_process(rustix::process::getpid(), rustix::process::Signal::KILL);
            std::process::abort();
        }
    }
}
