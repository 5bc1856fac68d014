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

/// How many new files [`create_batch`] has open at once (well below the usual
/// limit of 1 024 descriptors).
const BATCH: usize = 256;
/// How many threads fsync one batch: concurrent fsyncs share the filesystem's
/// journal commits and the disk's cache flushes (ext4 commits a group of them at
/// once), where one after another each waits for its own (issue 31).
const SYNC_THREADS: usize = 16;

/// Put new files in place (`import`; each directory checked contained and created
/// by the caller), never overwriting, without the directory fsync: the caller
/// syncs each directory once after the last file. Files go in batches of
/// [`BATCH`]: every temp file of a batch is written (bytes, mode 0600, `mtime`),
/// then all are fsynced, once each, concurrently, then each is renamed to its
/// target unless the target exists (`exists`: the temp files not renamed are
/// removed, and nothing after it is written). So a crash can lose a rename, never
/// tear a file: a temp file is complete and fsynced before it is renamed (SPEC
/// §4.1); at most one batch of temp files (dot names, never scanned) is left.
/// `done` is told each target as it is renamed into place.
pub(super) fn create_batch(
    files: &[(&Path, &[u8], std::time::SystemTime)],
    done: &mut dyn FnMut(&Path),
) -> Result<(), Error> {
    for chunk in files.chunks(BATCH) {
        let mut temps: Vec<PathBuf> = Vec::with_capacity(chunk.len());
        let result = write_chunk(chunk, &mut temps, done);
        for t in &temps {
            let _ = fs::remove_file(t);
        }
        result?;
    }
    Ok(())
}

/// One batch of [`create_batch`]; `temps` holds the temp files not (yet) renamed.
fn write_chunk(
    chunk: &[(&Path, &[u8], std::time::SystemTime)],
    temps: &mut Vec<PathBuf>,
    done: &mut dyn FnMut(&Path),
) -> Result<(), Error> {
    let mut open: Vec<File> = Vec::with_capacity(chunk.len());
    for (target, content, mtime) in chunk {
        let tmp = temp_beside(target, Path::new("."));
        let mut f = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .map_err(|e| io_err("cannot write", target, e))?;
        temps.push(tmp);
        set_mode(&f, 0o600)
            .and_then(|()| f.write_all(content))
            .and_then(|()| f.set_modified(*mtime))
            .map_err(|e| io_err("cannot write", target, e))?;
        open.push(f);
    }
    sync_all_concurrently(&open).map_err(|(i, e)| io_err("cannot write", chunk[i].0, e))?;
    drop(open);
    let names = std::mem::take(temps);
    for (i, ((target, _, _), tmp)) in chunk.iter().zip(&names).enumerate() {
        if let Err(e) = rename_new(tmp, target) {
            temps.extend_from_slice(&names[i..]);
            return Err(if e.kind() == std::io::ErrorKind::AlreadyExists {
                Error::new(Kind::Exists, format!("file exists: {}", target.display()))
                    .hint("another program created it meanwhile; run the command again")
            } else {
                io_err("cannot write", target, e)
            });
        }
        done(target);
    }
    Ok(())
}

/// fsync every file once, on up to [`SYNC_THREADS`] threads; the first failure
/// (with the file's position).
fn sync_all_concurrently(files: &[File]) -> Result<(), (usize, std::io::Error)> {
    let per = files.len().div_ceil(SYNC_THREADS).max(1);
    std::thread::scope(|s| {
        let handles: Vec<_> = files
            .chunks(per)
            .enumerate()
            .map(|(c, part)| {
                s.spawn(move || {
                    for (i, f) in part.iter().enumerate() {
                        f.sync_all().map_err(|e| (c * per + i, e))?;
                    }
                    Ok(())
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err((0, std::io::Error::other("fsync thread panicked"))))
            })
            .collect::<Result<Vec<()>, _>>()
            .map(|_| ())
    })
}

/// Rename `tmp` to `target` unless `target` exists (`AlreadyExists`): atomically
/// where the kernel and filesystem can (`RENAME_NOREPLACE`), else checked first
/// (under the write lock).
fn rename_new(tmp: &Path, target: &Path) -> std::io::Result<()> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        use rustix::fs::{CWD, RenameFlags, renameat_with};
        match renameat_with(CWD, tmp, CWD, target, RenameFlags::NOREPLACE) {
            Ok(()) => return Ok(()),
            Err(e) if e == rustix::io::Errno::INVAL || e == rustix::io::Errno::NOSYS => {}
            Err(e) => return Err(e.into()),
        }
    }
    if fs::symlink_metadata(target).is_ok() {
        return Err(std::io::Error::from(std::io::ErrorKind::AlreadyExists));
    }
    fs::rename(tmp, target)
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
