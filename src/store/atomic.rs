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

/// How many new files [`create_batch`] has written and not yet renamed at once
/// (each open until its fsync; well below the usual limit of 1 024 descriptors).
const WINDOW: usize = 256;
/// How many threads fsync: concurrent fsyncs share the filesystem's journal
/// commits and the disk's cache flushes (ext4 commits a group of them at once),
/// where one after another each waits for its own (issue 31). 64 waiting at
/// once took the fsyncs of 5 000 files from 2.6–5.1 s (16) to 2.0–2.9 s here.
const SYNC_THREADS: usize = 64;

/// Put new files in place (`import`; each directory checked contained and created
/// by the caller), never overwriting, without the directory fsync: the caller
/// syncs each directory once after the last file. A pipeline: the calling thread
/// writes each temp file (bytes, mode 0600, `mtime`) and hands it to
/// [`SYNC_THREADS`] threads that fsync it, once; as the files are fsynced, the
/// calling thread renames them to their targets, in order, each unless its target
/// exists (`exists`: the temp files not renamed are removed, and nothing after it
/// is renamed). At most [`WINDOW`] files are between their write and their
/// rename, so the writing of the next files goes on while the disk syncs the
/// last ones. A crash can lose a rename, never tear a file: a temp file is
/// complete and fsynced before it is renamed (SPEC §4.1); at most [`WINDOW`]
/// temp files (dot names, never scanned) are left. `done` is told each target
/// as it is renamed into place.
///
/// On Linux a batch of [`SYNCFS_MIN`] files or more is put in place by
/// [`create_batch_syncfs`] instead: one `syncfs` per group of files in place of
/// an fsync per file.
pub(super) fn create_batch(
    files: &[(&Path, &[u8], std::time::SystemTime)],
    done: &mut dyn FnMut(&Path),
) -> Result<(), Error> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    if files.len() >= SYNCFS_MIN {
        return create_batch_syncfs(files, done);
    }
    create_batch_fsync(files, done)
}

/// From how many files [`create_batch`] syncs the filesystem once per group
/// rather than each file: an fsync waits for a journal commit of its own (or
/// shares one with the fsyncs beside it), 5.7–11.5 s for 20 000 files here,
/// where one `syncfs` after writing them all took 0.2 s (issue 31). Below this,
/// the few fsyncs cost less than flushing whatever else the filesystem holds.
#[cfg(any(target_os = "linux", target_os = "android"))]
const SYNCFS_MIN: usize = 64;
/// At most this many files, or [`SYNCFS_BYTES`] of them, are in one group: the
/// temp files a crash can leave (two groups'), and the writes one flush waits for.
#[cfg(any(target_os = "linux", target_os = "android"))]
const SYNCFS_FILES: usize = 4096;
#[cfg(any(target_os = "linux", target_os = "android"))]
const SYNCFS_BYTES: usize = 64 << 20;
/// The fewest files of a group (but the last): a batch is cut in about eight
/// groups of at least this many, so that the syncs of all but the last are
/// waited for while the next group is written.
#[cfg(any(target_os = "linux", target_os = "android"))]
const SYNCFS_GROUP_MIN: usize = 256;

/// [`create_batch`] by groups: the calling thread writes a group's temp files
/// (bytes, mode 0600, `mtime`; each closed when written, but the first on each
/// filesystem); another thread makes them durable with one `syncfs` of each
/// filesystem the group's directories are on, by that first file (Linux ≥ 5.8
/// reports a write-back error of any of them since it was opened) while this one
/// writes the next group; once that sync returns, the group's files are renamed
/// to their targets in order, each unless its target exists (`exists`: the temp
/// files not renamed are removed, and nothing after it is renamed). As with
/// fsyncs, a temp file is complete and on disk before it is renamed (SPEC §4.1):
/// a crash can lose a rename, never tear a file, and leaves at most two groups'
/// temp files (dot names, never scanned). The cost: `syncfs` also waits for
/// whatever else is dirty on that filesystem. The sync of a group overlapping
/// the writing of the next (issue 31): 2 000 files, one 16-17 ms `syncfs`
/// after the last write; 10 000 files, three taking 78-97 ms between writes.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn create_batch_syncfs(
    files: &[(&Path, &[u8], std::time::SystemTime)],
    done: &mut dyn FnMut(&Path),
) -> Result<(), Error> {
    let writer = BatchTemps::new();
    let per_group = (files.len() / 8).clamp(SYNCFS_GROUP_MIN, SYNCFS_FILES);
    let mut temps: Vec<Option<PathBuf>> = vec![None; files.len()];
    // The files before this one are renamed into place.
    let mut renamed = 0;
    let result = std::thread::scope(|s| -> Result<(), Error> {
        // The group being synced (its files) and the sync's outcome.
        let mut syncing: Option<(std::ops::Range<usize>, Synced<'_>)> = None;
        let mut start = 0;
        while start < files.len() {
            // One open file per filesystem the group's directories are on: the
            // handle `syncfs` needs, the group's first temp file there, opened
            // before the group's writes to it. `syncfs` reports a write-back
            // error that happened after its file was opened (Linux errseq): a
            // handle opened once the group is written would miss an error that
            // another process's sync saw in between.
            let mut dirs: Vec<&Path> = Vec::new();
            let mut handles: Vec<(u64, &Path, File)> = Vec::new();
            let (mut end, mut bytes) = (start, 0);
            while end < files.len() && end - start < per_group && (end == start || bytes < SYNCFS_BYTES) {
                let (target, content, mtime) = files[end];
                let parent = target.parent().unwrap_or(Path::new("."));
                let slot = &mut temps[end];
                let f = writer.write(end, target, content, mtime, &mut |tmp| *slot = Some(tmp))?;
                if !dirs.contains(&parent) {
                    dirs.push(parent);
                    let dev = f.metadata().map_err(|e| io_err("cannot write", target, e))?;
                    let dev = std::os::unix::fs::MetadataExt::dev(&dev);
                    if !handles.iter().any(|(d, _, _)| *d == dev) {
                        handles.push((dev, parent, f));
                    }
                }
                bytes += content.len();
                end += 1;
            }
            // The group before: synced while this one was written.
            let before = match syncing.take() {
                Some((range, sync)) => {
                    sync.wait()?;
                    Some(range)
                }
                None => None,
            };
            syncing = Some((start..end, Synced::start(s, handles)));
            if let Some(range) = before {
                rename_group(files, &temps, range, &mut renamed, done)?;
            }
            start = end;
        }
        if let Some((range, sync)) = syncing {
            sync.wait()?;
            rename_group(files, &temps, range, &mut renamed, done)?;
        }
        Ok(())
    });
    // After a failure, the temp files not renamed (the renamed ones are gone
    // from under their temp names).
    for t in temps.iter().skip(renamed).flatten() {
        let _ = fs::remove_file(t);
    }
    result
}

/// The `syncfs` of a group of [`create_batch_syncfs`]: on a thread of its own, or
/// done here when no thread can be had (a process limit). A panic of that thread
/// goes on in the caller when it waits (none can: it only calls `syncfs`).
#[cfg(any(target_os = "linux", target_os = "android"))]
enum Synced<'s> {
    Thread(std::thread::ScopedJoinHandle<'s, Result<(), Error>>),
    Here(Result<(), Error>),
}

#[cfg(any(target_os = "linux", target_os = "android"))]
impl<'s> Synced<'s> {
    /// `syncfs` of each filesystem of `handles` (a file open on it each), begun.
    fn start<'e>(s: &'s std::thread::Scope<'s, 'e>, handles: Vec<(u64, &'e Path, File)>) -> Synced<'s> {
        // Shared, so that the handles are still here if no thread can be had.
        let handles = std::sync::Arc::new(handles);
        let here = std::sync::Arc::clone(&handles);
        match std::thread::Builder::new().spawn_scoped(s, move || sync_handles(&handles)) {
            Ok(h) => Synced::Thread(h),
            Err(_) => Synced::Here(sync_handles(&here)),
        }
    }

    /// Its outcome, once the syncs returned.
    fn wait(self) -> Result<(), Error> {
        match self {
            Synced::Thread(h) => h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)),
            Synced::Here(r) => r,
        }
    }
}

/// `syncfs` of the filesystem of each handle.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn sync_handles(handles: &[(u64, &Path, File)]) -> Result<(), Error> {
    for (_, dir, f) in handles {
        rustix::fs::syncfs(f).map_err(|e| io_err("cannot sync", dir, e.into()))?;
    }
    Ok(())
}

/// The files `range` of a batch, synced, renamed to their targets in order (see
/// [`create_batch_syncfs`]); `renamed` counts them as they go.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn rename_group(
    files: &[(&Path, &[u8], std::time::SystemTime)],
    temps: &[Option<PathBuf>],
    range: std::ops::Range<usize>,
    renamed: &mut usize,
    done: &mut dyn FnMut(&Path),
) -> Result<(), Error> {
    for i in range {
        let target = files[i].0;
        let Some(tmp) = &temps[i] else {
            return Err(io_err("cannot write", target, std::io::Error::other("no temp file")));
        };
        rename_new(tmp, target).map_err(|e| rename_error(target, e))?;
        *renamed = i + 1;
        done(target);
    }
    Ok(())
}

/// [`create_batch`] with an fsync per file (every platform; small batches on
/// Linux).
fn create_batch_fsync(
    files: &[(&Path, &[u8], std::time::SystemTime)],
    done: &mut dyn FnMut(&Path),
) -> Result<(), Error> {
    let mut temps: Vec<Option<PathBuf>> = vec![None; files.len()];
    let stop = std::sync::atomic::AtomicBool::new(false);
    let (job_tx, job_rx) = std::sync::mpsc::channel::<(usize, File)>();
    let job_rx = std::sync::Mutex::new(job_rx);
    let result = std::thread::scope(|s| {
        let (synced_tx, synced_rx) = std::sync::mpsc::channel::<(usize, std::io::Result<()>)>();
        for _ in 0..SYNC_THREADS.min(files.len()) {
            let (job_rx, synced_tx, stop) = (&job_rx, synced_tx.clone(), &stop);
            s.spawn(move || sync_worker(job_rx, &synced_tx, stop));
        }
        drop(synced_tx);
        let mut line = Line {
            files,
            temps: &mut temps,
            synced: vec![false; files.len()],
            renamed: 0,
            in_flight: 0,
            rx: &synced_rx,
        };
        let result = line.run(&job_tx, done);
        if result.is_err() {
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        drop(job_tx);
        result
    });
    for t in temps.iter().flatten() {
        let _ = fs::remove_file(t);
    }
    result
}

/// One fsync thread of [`create_batch`]: each file it is handed, fsynced (none
/// once `stop` is set) and closed, and the outcome sent back.
fn sync_worker(
    jobs: &std::sync::Mutex<std::sync::mpsc::Receiver<(usize, File)>>,
    synced: &std::sync::mpsc::Sender<(usize, std::io::Result<()>)>,
    stop: &std::sync::atomic::AtomicBool,
) {
    loop {
        let job = match jobs.lock() {
            Ok(rx) => rx.recv(),
            Err(_) => return,
        };
        let Ok((i, f)) = job else { return };
        if stop.load(std::sync::atomic::Ordering::Relaxed) {
            continue;
        }
        let r = f.sync_all();
        drop(f);
        if synced.send((i, r)).is_err() {
            return;
        }
    }
}

/// The calling thread's side of [`create_batch`]: which temp files exist, which
/// are fsynced, how many are renamed.
struct Line<'a, 'f> {
    files: &'a [(&'f Path, &'f [u8], std::time::SystemTime)],
    temps: &'a mut [Option<PathBuf>],
    synced: Vec<bool>,
    renamed: usize,
    in_flight: usize,
    rx: &'a std::sync::mpsc::Receiver<(usize, std::io::Result<()>)>,
}

impl Line<'_, '_> {
    fn run(&mut self, jobs: &std::sync::mpsc::Sender<(usize, File)>, done: &mut dyn FnMut(&Path)) -> Result<(), Error> {
        let writer = BatchTemps::new();
        for (i, (target, content, mtime)) in self.files.iter().enumerate() {
            while self.in_flight >= WINDOW {
                self.wait_one()?;
                self.rename_ready(done)?;
            }
            let slot = &mut self.temps[i];
            let f = writer.write(i, target, content, *mtime, &mut |tmp| *slot = Some(tmp))?;
            jobs.send((i, f))
                .map_err(|_| io_err("cannot write", target, std::io::Error::other("fsync threads gone")))?;
            self.in_flight += 1;
            while let Ok(r) = self.rx.try_recv() {
                self.took(r)?;
            }
            self.rename_ready(done)?;
        }
        while self.renamed < self.files.len() {
            self.wait_one()?;
            self.rename_ready(done)?;
        }
        Ok(())
    }

    /// Wait for one fsync to finish.
    fn wait_one(&mut self) -> Result<(), Error> {
        let r = self
            .rx
            .recv()
            .map_err(|_| Error::new(Kind::Io, "cannot write: the fsync threads stopped"))?;
        self.took(r)
    }

    fn took(&mut self, (i, r): (usize, std::io::Result<()>)) -> Result<(), Error> {
        self.in_flight -= 1;
        r.map_err(|e| io_err("cannot write", self.files[i].0, e))?;
        self.synced[i] = true;
        Ok(())
    }

    /// Rename, in order, every file fsynced and not yet renamed.
    fn rename_ready(&mut self, done: &mut dyn FnMut(&Path)) -> Result<(), Error> {
        while self.renamed < self.files.len() && self.synced[self.renamed] {
            let target = self.files[self.renamed].0;
            let tmp = self.temps[self.renamed].take().unwrap_or_default();
            if let Err(e) = rename_new(&tmp, target) {
                self.temps[self.renamed] = Some(tmp);
                return Err(rename_error(target, e));
            }
            self.renamed += 1;
            done(target);
        }
        Ok(())
    }
}

/// The temp files of one batch ([`create_batch`]): created 0600 (the umask
/// permitting, no `fchmod` a file: issue 31), named as SPEC §4.1 says with the
/// pid and the random part taken once, the random part counted on from there
/// by the file's place in the batch (the base names differ anyway).
struct BatchTemps {
    exact: bool,
    pid: u32,
    seed: u32,
}

impl BatchTemps {
    fn new() -> BatchTemps {
        BatchTemps {
            exact: umask_keeps_0600(),
            pid: std::process::id(),
            seed: u32::from_str_radix(&random_hex(8), 16).unwrap_or(0),
        }
    }

    /// The temp file beside `target` of the batch's `i`-th file, written whole
    /// with `mtime`; `created` is given its path as soon as it exists (to be
    /// removed if anything fails).
    fn write(
        &self,
        i: usize,
        target: &Path,
        content: &[u8],
        mtime: std::time::SystemTime,
        created: &mut dyn FnMut(PathBuf),
    ) -> Result<File, Error> {
        let base = target.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
        let hex = self.seed.wrapping_add(u32::try_from(i).unwrap_or(0));
        let tmp = target
            .parent()
            .unwrap_or(Path::new("."))
            .join(format!(".{base}.{}.{hex:08x}.tmp", self.pid));
        let mut f = new_file(&tmp).map_err(|e| io_err("cannot write", target, e))?;
        created(tmp);
        (if self.exact { Ok(()) } else { set_mode(&f, 0o600) })
            .and_then(|()| f.write_all(content))
            .and_then(|()| f.set_modified(mtime))
            .map_err(|e| io_err("cannot write", target, e))?;
        Ok(f)
    }
}

/// A batch's rename of a temp file to `target` that failed: `exists` when the
/// target appeared meanwhile.
fn rename_error(target: &Path, e: std::io::Error) -> Error {
    if e.kind() == std::io::ErrorKind::AlreadyExists {
        Error::new(Kind::Exists, format!("file exists: {}", target.display()))
            .hint("another program created it meanwhile; run the command again")
    } else {
        io_err("cannot write", target, e)
    }
}

/// A new file (create-new) with mode 0600, the umask permitting.
fn new_file(path: &Path) -> std::io::Result<File> {
    let mut o = OpenOptions::new();
    o.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut o, 0o600);
    o.open(path)
}

/// Whether a file created with mode 0600 gets exactly 0600: the process umask
/// (Linux's `/proc/self/status`, read without changing it) clears none of those
/// bits. Anything unknown says no, and each file is `fchmod`ed as before.
fn umask_keeps_0600() -> bool {
    let Ok(status) = fs::read_to_string("/proc/self/status") else {
        return false;
    };
    status
        .lines()
        .find_map(|l| l.strip_prefix("Umask:"))
        .and_then(|m| u32::from_str_radix(m.trim(), 8).ok())
        .is_some_and(|m| m & 0o600 == 0)
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    type Batch = fn(&[(&Path, &[u8], std::time::SystemTime)], &mut dyn FnMut(&Path)) -> Result<(), Error>;

    /// Each way of putting a batch in place: the fsync per file everywhere, the
    /// `syncfs` per group on Linux (its groups cut by count here).
    fn ways() -> Vec<(&'static str, Batch)> {
        let mut v: Vec<(&'static str, Batch)> = vec![("fsync", create_batch_fsync)];
        #[cfg(any(target_os = "linux", target_os = "android"))]
        v.push(("syncfs", create_batch_syncfs));
        v
    }

    #[test]
    fn a_batch_past_the_window_puts_every_file_in_place_whole_with_its_mtime() {
        for (way, batch) in ways() {
            a_batch_in_place(way, batch, WINDOW * 2 + 7);
        }
        #[cfg(any(target_os = "linux", target_os = "android"))]
        a_batch_in_place("syncfs, several groups", create_batch_syncfs, SYNCFS_FILES * 2 + 3);
    }

    fn a_batch_in_place(way: &str, batch: Batch, n: usize) {
        let t = tempfile::tempdir().unwrap();
        let paths: Vec<PathBuf> = (0..n).map(|i| t.path().join(format!("f{i:04}.md"))).collect();
        let bodies: Vec<Vec<u8>> = (0..n)
            .map(|i| format!("body {i}\n").repeat(i % 50 + 1).into_bytes())
            .collect();
        let mtime = |i: usize| UNIX_EPOCH + Duration::from_secs(1_700_000_000 + i as u64);
        let files: Vec<(&Path, &[u8], std::time::SystemTime)> = (0..n)
            .map(|i| (paths[i].as_path(), bodies[i].as_slice(), mtime(i)))
            .collect();
        let mut order = Vec::new();
        batch(&files, &mut |p| order.push(p.to_path_buf())).unwrap();
        assert!(order == paths, "{way}: renamed in order, each once");
        assert_eq!(names(t.path()).len(), n, "{way}: no temp file left");
        for i in 0..n {
            assert_eq!(fs::read(&paths[i]).unwrap(), bodies[i], "{way}");
            let m = fs::metadata(&paths[i]).unwrap();
            assert_eq!(m.modified().unwrap(), mtime(i), "{way}");
            #[cfg(unix)]
            assert_eq!(std::os::unix::fs::PermissionsExt::mode(&m.permissions()) & 0o777, 0o600);
        }
    }

    #[test]
    fn a_target_that_exists_stops_the_batch_there_and_leaves_no_temp_file() {
        for (way, batch) in ways() {
            an_existing_target_stops(way, batch, WINDOW + 40, WINDOW - 3);
        }
        #[cfg(any(target_os = "linux", target_os = "android"))]
        an_existing_target_stops(
            "syncfs, second group",
            create_batch_syncfs,
            SYNCFS_FILES + 40,
            SYNCFS_FILES + 5,
        );
    }

    fn an_existing_target_stops(way: &str, batch: Batch, n: usize, at: usize) {
        let t = tempfile::tempdir().unwrap();
        let paths: Vec<PathBuf> = (0..n).map(|i| t.path().join(format!("f{i:04}.md"))).collect();
        fs::write(&paths[at], "local\n").unwrap();
        let files: Vec<(&Path, &[u8], std::time::SystemTime)> = paths
            .iter()
            .map(|p| {
                (
                    p.as_path(),
                    &b"incoming\n"[..],
                    UNIX_EPOCH + Duration::from_secs(86_400),
                )
            })
            .collect();
        let mut renamed = 0;
        let e = batch(&files, &mut |_| renamed += 1).unwrap_err();
        assert_eq!(e.kind, Kind::Exists, "{way}: {}", e.message);
        assert_eq!(renamed, at, "{way}");
        assert_eq!(fs::read(&paths[at]).unwrap(), b"local\n");
        let left = names(t.path());
        assert_eq!(left.len(), at + 1, "{way}");
        assert!(left.iter().all(|f| !f.starts_with('.')), "{way}: a temp file left");
    }
}
