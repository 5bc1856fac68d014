//! The write lock memctl takes around every write, and the dream check (SPEC §4.2, §4.3).

use std::fs::{self, File, OpenOptions};
use std::path::Path;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};

use super::io_err;
use crate::error::{Error, Kind};
use crate::lock::{self, PidStatus};

/// memctl's write lock, in the main memory dir (never ends in `.md`).
pub const WRITE_LOCK: &str = ".memctl.lock";
/// How long memctl waits for another writer.
const LOCK_WAIT: Duration = Duration::from_secs(10);

/// How long [`lock`] waits: [`LOCK_WAIT`], except in debug builds under
/// `MEMCTL_TEST_LOCK_WAIT_SECS`, which the tests that start many writers at once
/// set so that a loaded machine (writers queued for longer than 10 s) cannot turn
/// "every write lands" into a `busy` refusal. Release builds ignore it.
fn lock_wait() -> Duration {
    #[cfg(debug_assertions)]
    if let Some(secs) = std::env::var("MEMCTL_TEST_LOCK_WAIT_SECS")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    {
        return Duration::from_secs(secs);
    }
    LOCK_WAIT
}

/// The held write lock; released when dropped.
pub struct WriteLock {
    _file: File,
}

/// Take `<main_dir>.memctl.lock`, polling for up to 10 seconds.
pub fn lock(main_dir: &Path) -> Result<WriteLock, Error> {
    let path = main_dir.join(WRITE_LOCK);
    let file = open_lock_file(&path)?;
    match lock_within(&file, lock_wait(), Duration::from_millis(20)) {
        Ok(true) => Ok(WriteLock { _file: file }),
        Ok(false) => Err(Error::new(
            Kind::Busy,
            format!("another memctl holds the write lock: {}", path.display()),
        )
        .hint("another memctl is writing; try again when it has finished")),
        Err(e) => Err(io_err("cannot lock", &path, e)),
    }
}

/// Take an exclusive lock on `file`, trying every `poll` for up to `wait` (never
/// blocking in the kernel, so a stuck holder cannot hang memctl): `Ok(false)` when
/// another process still holds it. Every lock memctl takes (a memory dir's, the
/// history store's, the sync repository's) waits through this.
pub fn lock_within(file: &File, wait: Duration, poll: Duration) -> std::io::Result<bool> {
    let start = Instant::now();
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(true),
            Err(fs::TryLockError::WouldBlock) if start.elapsed() < wait => std::thread::sleep(poll),
            Err(fs::TryLockError::WouldBlock) => return Ok(false),
            Err(fs::TryLockError::Error(e)) => return Err(e),
        }
    }
}

/// Open (or create) the lock file without following a symlink (a symlinked lock
/// would create its target outside the dir) and without blocking on a FIFO; anything
/// but a regular file is refused.
fn open_lock_file(path: &Path) -> Result<File, Error> {
    open_lock(path, "the write lock")
}

/// Open (or create) any lock file memctl takes (`what` names it in errors: the
/// write lock, the history lock, the sync lock): never following a symlink, never
/// blocking on a FIFO (`O_NONBLOCK`), and refusing anything but a regular file.
pub fn open_lock(path: &Path, what: &str) -> Result<File, Error> {
    use std::os::unix::fs::OpenOptionsExt;
    let flags = (rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK | rustix::fs::OFlags::CLOEXEC).bits();
    let not_regular = || {
        Error::new(
            Kind::InvalidInput,
            format!("{what} is not a regular file: {}", path.display()),
        )
        .hint("remove it (memctl recreates it as an empty file)")
    };
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .custom_flags(flags as i32)
        .open(path)
        .map_err(|e| match e.raw_os_error() {
            Some(code) if code == rustix::io::Errno::LOOP.raw_os_error() => not_regular(),
            _ if fs::symlink_metadata(path).is_ok_and(|m| !m.is_file()) => not_regular(),
            _ => io_err(&format!("cannot open {what}"), path, e),
        })?;
    match file.metadata() {
        Ok(m) if m.is_file() => Ok(file),
        Ok(_) => Err(not_regular()),
        Err(e) => Err(io_err(&format!("cannot open {what}"), path, e)),
    }
}

/// Refuse to write while a fresh `.consolidate-lock` names a live process (a
/// process of another user counts as live here), unless `force` (SPEC §4.3).
pub fn ensure_no_dream(main_dir: &Path, now: DateTime<Utc>, force: bool) -> Result<(), Error> {
    if force {
        return Ok(());
    }
    check_dream(main_dir, now, None)
}

/// [`ensure_no_dream`] for a command that has no `--force` (`import`, `sync`):
/// its hints say to run `memctl <command>` again, never to pass `--force`.
pub fn ensure_no_dream_for(main_dir: &Path, now: DateTime<Utc>, command: &str) -> Result<(), Error> {
    check_dream(main_dir, now, Some(command))
}

/// The dream check; `unforced` names a command without `--force`.
fn check_dream(main_dir: &Path, now: DateTime<Utc>, unforced: Option<&str>) -> Result<(), Error> {
    let or_else = |what: &str| match unforced {
        None => format!("{what}, or pass --force"),
        Some(cmd) => format!("{what}, then run `memctl {cmd}` again"),
    };
    let now_ms = crate::text::millis(now);
    let info = lock::inspect(main_dir, now_ms);
    if let Some(why) = &info.unreadable {
        // An unreadable lock (a FIFO, a device, no permission) may hide a running
        // dream: it is never taken as "no lock".
        return Err(Error::new(
            Kind::Io,
            format!("cannot read the auto-dream lock {}: {why}", info.path.display()),
        )
        .hint(or_else(
            "memctl cannot tell whether a consolidation is running; remove or fix the file",
        )));
    }
    let live = matches!(info.pid_status, PidStatus::Alive | PidStatus::Eperm);
    if info.exists && info.is_fresh(now_ms) && live && info.body.as_deref().is_some_and(|b| !b.is_empty()) {
        let minutes = ((now_ms - info.mtime_ms.unwrap_or(now_ms)) / 60_000.0).floor().max(0.0);
        return Err(Error::new(
            Kind::DreamRunning,
            format!(
                "auto-dream lock taken {minutes} min ago by live {}; a consolidation may still be running",
                lock::holder(info.pid.unwrap_or_default())
            ),
        )
        .hint(or_else("wait for it to finish")));
    }
    Ok(())
}
