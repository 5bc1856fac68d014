//! Atomic replacement and creation: a temp file in the same directory, fsync,
//! rename or hard link, directory fsync (SPEC §4.1).

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

pub use crate::tmpname::{parse_temp_name, random_hex, temp_name};

use super::{ensure_contained, io_err, real};
use crate::error::{Error, Kind};

/// A fresh temp-file path beside `target` (same directory, SPEC §4.1 name).
pub(super) fn temp_beside(target: &Path, root: &Path) -> PathBuf {
    let dir = target.parent().unwrap_or(root);
    let base = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    dir.join(temp_name(&base))
}

#[cfg(unix)]
pub(super) fn set_mode(f: &File, mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    f.set_permissions(fs::Permissions::from_mode(mode))
}

#[cfg(unix)]
pub(super) fn sync_dir(dir: &Path) -> std::io::Result<()> {
    File::open(dir)?.sync_all()
}

/// A file's size and mtime, to notice a change by another writer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stamp(Option<(u64, std::time::SystemTime)>);

/// The stamp of `path` now (`None` inside when it does not exist).
pub fn stamp(path: &Path) -> Stamp {
    Stamp(
        fs::metadata(path)
            .ok()
            .and_then(|m| Some((m.len(), m.modified().ok()?))),
    )
}

/// Replace `target` with `content` atomically: temp file in the same directory,
/// fsync, permission bits copied, rename, directory fsync. A symlinked target is
/// written through to its (contained) real path.
pub fn write_atomic(root: &Path, target: &Path, content: &[u8]) -> Result<(), Error> {
    write_checked(root, target, content, None).map(|_| ())
}

/// Like [`write_atomic`], but when `expect` is given, renames only if the target
/// still has that stamp right before the rename. Returns whether it wrote.
pub fn write_checked(root: &Path, target: &Path, content: &[u8], expect: Option<Stamp>) -> Result<bool, Error> {
    write_checked_with(root, target, content, &|| expect.is_none_or(|e| e == stamp(target)))
}

/// Replace `target` atomically if `still_ok()` holds right before the rename.
pub(super) fn write_checked_with(
    root: &Path,
    target: &Path,
    content: &[u8],
    still_ok: &dyn Fn() -> bool,
) -> Result<bool, Error> {
    write_checked_at(root, target, content, still_ok, None)
}

/// Like [`write_checked_with`]; with `mtime`, the new file gets that modification
/// time (set on the temp file before the rename, so the target never shows another).
pub(super) fn write_checked_at(
    root: &Path,
    target: &Path,
    content: &[u8],
    still_ok: &dyn Fn() -> bool,
    mtime: Option<std::time::SystemTime>,
) -> Result<bool, Error> {
    write_checked_mode(root, target, content, still_ok, mtime, 0o600)
}

/// [`write_checked_at`] giving a new file the permission bits `new_mode` (an
/// existing file keeps its own).
pub(super) fn write_checked_mode(
    root: &Path,
    target: &Path,
    content: &[u8],
    still_ok: &dyn Fn() -> bool,
    mtime: Option<std::time::SystemTime>,
    new_mode: u32,
) -> Result<bool, Error> {
    ensure_contained(root, target)?;
    let target = match fs::symlink_metadata(target) {
        Ok(m) if m.file_type().is_symlink() => real(target)?,
        _ => target.to_path_buf(),
    };
    let dir = target.parent().unwrap_or(root);
    let tmp = temp_beside(&target, root);
    let result = (|| -> std::io::Result<bool> {
        let mut f = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        set_mode(&f, 0o600)?;
        f.write_all(content)?;
        if new_mode != 0o600 && fs::symlink_metadata(&target).is_err() {
            set_mode(&f, new_mode)?;
        }
        if let Some(t) = mtime {
            f.set_modified(t)?;
        }
        f.sync_all()?;
        if let Ok(meta) = fs::metadata(&target) {
            f.set_permissions(meta.permissions())?;
        }
        drop(f);
        if !still_ok() {
            fs::remove_file(&tmp)?;
            return Ok(false);
        }
        fs::rename(&tmp, &target)?;
        sync_dir(dir)?;
        Ok(true)
    })();
    result.map_err(|e| {
        let _ = fs::remove_file(&tmp);
        io_err("cannot write", &target, e)
    })
}

/// Put a new file at `target` (whose directory the caller checked is contained)
/// as [`write_checked_at`] does, renaming only if `still_ok()` holds right before,
/// but without the directory fsync: the caller syncs each directory once after
/// its last file (an import of thousands). Until then a crash can lose a file's
/// rename, never tear a file: the temp file is complete and fsynced before it is
/// renamed (SPEC §4.1). Returns whether it wrote.
pub(super) fn write_new_unsynced_dir(
    target: &Path,
    content: &[u8],
    still_ok: &dyn Fn() -> bool,
    mtime: std::time::SystemTime,
) -> Result<bool, Error> {
    let tmp = temp_beside(target, Path::new("."));
    let result = (|| -> std::io::Result<bool> {
        let mut f = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        set_mode(&f, 0o600)?;
        f.write_all(content)?;
        f.set_modified(mtime)?;
        f.sync_all()?;
        drop(f);
        if !still_ok() {
            fs::remove_file(&tmp)?;
            return Ok(false);
        }
        fs::rename(&tmp, target)?;
        Ok(true)
    })();
    result.map_err(|e| {
        let _ = fs::remove_file(&tmp);
        io_err("cannot write", target, e)
    })
}

/// Create `target` with `content`, never overwriting (`exists` if present): the
/// fsynced temp file is hard-linked to the target, or, where the filesystem has no
/// hard links, renamed after an existence check under the write lock.
pub fn create_new(root: &Path, target: &Path, content: &[u8]) -> Result<(), Error> {
    ensure_contained(root, target)?;
    let dir = target.parent().unwrap_or(root);
    let tmp = temp_beside(target, root);
    let exists = || {
        Error::new(Kind::Exists, format!("file exists: {}", target.display()))
            .hint("pass --file with another name, or choose another --name")
    };
    let result = (|| -> Result<(), Error> {
        let mut f = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .map_err(|e| io_err("cannot create", &tmp, e))?;
        set_mode(&f, 0o600).map_err(|e| io_err("cannot set the mode of", &tmp, e))?;
        f.write_all(content)
            .and_then(|()| f.sync_all())
            .map_err(|e| io_err("cannot write", &tmp, e))?;
        drop(f);
        match fs::hard_link(&tmp, target) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => return Err(exists()),
            Err(_) if fs::symlink_metadata(target).is_ok() => return Err(exists()),
            Err(_) => fs::rename(&tmp, target).map_err(|e| io_err("cannot create", target, e))?,
        }
        sync_dir(dir).map_err(|e| io_err("cannot sync", dir, e))
    })();
    let _ = fs::remove_file(&tmp);
    result
}
