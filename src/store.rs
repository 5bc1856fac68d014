//! Every write memctl makes (SPEC §4): atomic replacement through a temp file in the
//! same directory, the write lock, respect for a running auto-dream, physical
//! containment inside the memory dir, and the trash.
//!
//! [`Writer`] is the one door into a memory dir: a command opens it once on a
//! [`MemoryDir`]; it takes the write lock, checks the dream lock once, and offers
//! create, replace, update and remove-to-trash. Files outside a memory dir (settings,
//! CLAUDE.md) go through [`write_outside`], with the same atomicity.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};

use crate::error::{Error, Kind};
use crate::lock::{self, PidStatus};
use crate::memdir::MemoryDir;

/// memctl's write lock, in the main memory dir (never ends in `.md`).
pub const WRITE_LOCK: &str = ".memctl.lock";
/// How long memctl waits for another writer.
const LOCK_WAIT: Duration = Duration::from_secs(10);

fn io_err(what: &str, path: &Path, e: std::io::Error) -> Error {
    Error::new(Kind::Io, format!("{what} {}: {e}", path.display()))
        .hint("check the directory's permissions and free space")
}

/// The held write lock; released when dropped.
pub struct WriteLock {
    _file: File,
}

/// Take `<main_dir>.memctl.lock`, polling for up to 10 seconds.
pub fn lock(main_dir: &Path) -> Result<WriteLock, Error> {
    let path = main_dir.join(WRITE_LOCK);
    // Neither blocks on a FIFO (`O_NONBLOCK`) nor follows a symlink out of the dir
    // (`O_NOFOLLOW`); anything but a regular file is refused.
    use std::os::unix::fs::OpenOptionsExt;
    let flags = rustix::fs::OFlags::NONBLOCK | rustix::fs::OFlags::NOFOLLOW;
    let not_regular = |m: fs::Metadata| {
        let what = if m.is_symlink() {
            "a symlink"
        } else {
            crate::fsread::kind_name(m.file_type())
        };
        Error::new(
            Kind::Io,
            format!(
                "cannot open the write lock {}: {what}, not a regular file",
                path.display()
            ),
        )
        .hint("remove it; memctl creates the lock file itself")
    };
    if let Ok(m) = fs::symlink_metadata(&path)
        && !m.is_file()
    {
        return Err(not_regular(m));
    }
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .custom_flags(flags.bits() as i32)
        .open(&path)
        .map_err(|e| io_err("cannot open the write lock", &path, e))?;
    match file.metadata() {
        Ok(m) if m.is_file() => {}
        Ok(m) => return Err(not_regular(m)),
        Err(e) => return Err(io_err("cannot open the write lock", &path, e)),
    }
    let start = Instant::now();
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(WriteLock { _file: file }),
            Err(fs::TryLockError::WouldBlock) if start.elapsed() < LOCK_WAIT => {
                std::thread::sleep(Duration::from_millis(20))
            }
            Err(fs::TryLockError::WouldBlock) => {
                return Err(Error::new(
                    Kind::Busy,
                    format!("another memctl holds the write lock: {}", path.display()),
                )
                .hint("another memctl is writing; try again when it has finished"));
            }
            Err(fs::TryLockError::Error(e)) => return Err(io_err("cannot lock", &path, e)),
        }
    }
}

/// Refuse to write while a fresh `.consolidate-lock` names a live process (a
/// process of another user counts as live here), unless `force` (SPEC §4.3).
pub fn ensure_no_dream(main_dir: &Path, now: DateTime<Utc>, force: bool) -> Result<(), Error> {
    if force {
        return Ok(());
    }
    let now_ms = crate::text::millis(now);
    let info = lock::inspect(main_dir, now_ms);
    if let Some(why) = &info.unreadable {
        // An unreadable lock (a FIFO, a device, no permission) may hide a running
        // dream: it is never taken as "no lock".
        return Err(Error::new(
            Kind::Io,
            format!("cannot read the auto-dream lock {}: {why}", info.path.display()),
        )
        .hint("memctl cannot tell whether a consolidation is running; remove or fix the file, or pass --force"));
    }
    let live = matches!(info.pid_status, PidStatus::Alive | PidStatus::Eperm);
    if info.exists && info.is_fresh(now_ms) && live && info.body.as_deref().is_some_and(|b| !b.is_empty()) {
        let minutes = ((now_ms - info.mtime_ms.unwrap_or(now_ms)) / 60_000.0).floor().max(0.0);
        return Err(Error::new(
            Kind::DreamRunning,
            format!("auto-dream lock taken {minutes} min ago by live Claude Code PID {}; a consolidation may still be running", info.pid.unwrap_or_default()),
        )
        .hint("wait for it to finish, or pass --force"));
    }
    Ok(())
}

/// The real path of `dir`, for containment checks.
fn real(dir: &Path) -> Result<PathBuf, Error> {
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

/// `n` (at most 16) random lower-case hex digits (std's per-process random hasher keys
/// mixed with the clock; unpredictability is not needed, uniqueness is).
pub fn random_hex(n: usize) -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    h.write_u32(std::process::id());
    let s = format!("{:016x}", h.finish());
    s[..n.min(16)].to_string()
}

/// A fresh temp-file path beside `target` (same directory, SPEC §4.1 name).
fn temp_beside(target: &Path, root: &Path) -> PathBuf {
    let dir = target.parent().unwrap_or(root);
    let base = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    dir.join(temp_name(&base))
}

/// The temp-file name pattern of SPEC §4.1: `.<base>.<pid>.<8 hex>.tmp`.
pub fn temp_name(base: &str) -> String {
    format!(".{base}.{}.{}.tmp", std::process::id(), random_hex(8))
}

/// Parse a memctl temp-file name: the PID it names.
pub fn parse_temp_name(name: &str) -> Option<u32> {
    let rest = name.strip_prefix('.')?.strip_suffix(".tmp")?;
    let (rest, hex) = rest.rsplit_once('.')?;
    let (base, pid) = rest.rsplit_once('.')?;
    if base.is_empty() || hex.len() != 8 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    pid.parse().ok()
}

#[cfg(unix)]
fn set_mode(f: &File, mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    f.set_permissions(fs::Permissions::from_mode(mode))
}

#[cfg(unix)]
fn sync_dir(dir: &Path) -> std::io::Result<()> {
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
fn write_checked_with(root: &Path, target: &Path, content: &[u8], still_ok: &dyn Fn() -> bool) -> Result<bool, Error> {
    write_checked_at(root, target, content, still_ok, None)
}

/// Like [`write_checked_with`]; with `mtime`, the new file gets that modification
/// time (set on the temp file before the rename, so the target never shows another).
fn write_checked_at(
    root: &Path,
    target: &Path,
    content: &[u8],
    still_ok: &dyn Fn() -> bool,
    mtime: Option<std::time::SystemTime>,
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

/// The largest index memctl reads (SPEC §2.5 step 8).
pub const MAX_INDEX_BYTES: u64 = 256 << 20;

/// Read a file memctl is about to rewrite: a missing file reads as empty; anything
/// but a regular file (a FIFO, a device, a directory) is refused without opening it
/// for reading, and the read is bounded.
pub fn read_for_update(target: &Path) -> Result<Vec<u8>, Error> {
    use std::io::Read;
    match fs::metadata(target) {
        Ok(m) if !m.is_file() => {
            return Err(
                Error::new(Kind::InvalidInput, format!("not a regular file: {}", target.display()))
                    .hint("memctl only rewrites regular files; replace it with a file or remove it"),
            );
        }
        Ok(m) if m.len() > MAX_INDEX_BYTES => {
            return Err(Error::new(
                Kind::InvalidInput,
                format!("file larger than 256 MiB: {}", target.display()),
            )
            .hint("shorten it by hand"));
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_err("cannot read", target, e)),
        Ok(_) => {}
    }
    let mut bytes = Vec::new();
    fs::File::open(target)
        .and_then(|f| f.take(MAX_INDEX_BYTES + 1).read_to_end(&mut bytes))
        .map_err(|e| io_err("cannot read", target, e))?;
    Ok(bytes)
}

/// `new` as bytes, keeping the exact bytes of every line of `old` that `new` keeps:
/// memctl edits an index as text, and must not turn bytes that are not UTF-8 into
/// U+FFFD on lines it did not change. Linear: lines are matched through a map.
pub fn keep_original_bytes(old: &[u8], new: &str) -> Vec<u8> {
    if std::str::from_utf8(old).is_ok() {
        return new.as_bytes().to_vec();
    }
    let mut originals: std::collections::HashMap<String, std::collections::VecDeque<&[u8]>> =
        std::collections::HashMap::new();
    for line in old.split_inclusive(|&b| b == b'\n') {
        if std::str::from_utf8(line).is_err() {
            originals
                .entry(String::from_utf8_lossy(line).into_owned())
                .or_default()
                .push_back(line);
        }
    }
    let mut out = Vec::with_capacity(new.len());
    for line in new.split_inclusive('\n') {
        match originals.get_mut(line).and_then(|q| q.pop_front()) {
            Some(bytes) => out.extend_from_slice(bytes),
            None => out.extend_from_slice(line.as_bytes()),
        }
    }
    out
}

/// How long a file must have been left alone before memctl trusts a read of it: a
/// program that truncates and then writes (Node's `writeFileSync`, `open(O_TRUNC)`)
/// leaves a half-written file for a moment, and its mtime moves with every write.
const QUIET: Duration = Duration::from_millis(50);
/// How long memctl keeps trying against a file that keeps changing.
const UPDATE_DEADLINE: Duration = Duration::from_secs(5);

/// Time since `path` was last modified (zero if it is in the future or unknown).
fn since_modified(path: &Path) -> Duration {
    fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| std::time::SystemTime::now().duration_since(t).ok())
        .unwrap_or(QUIET)
}

/// Read-modify-write `target` (a missing file reads as empty): `change` computes
/// the new text from the fresh one (SPEC §4.2). Programs that take no lock (Claude
/// Code's Write tool, editors) must never make memctl derive the new text from a
/// half-written file, so:
/// - a file modified in the last 50 ms is read again once it has been quiet that long,
///   and a read during which the file changed is retried;
/// - `seen` is what the command read when it planned; a file that was not empty
///   then and reads empty now is being rewritten: wait, and if it stays empty give
///   up with `conflict`;
/// - right before the rename the target must still hold the bytes that were read
///   (size, mtime and content), else re-read and re-apply;
/// - lines memctl does not change keep their bytes, valid UTF-8 or not.
///
/// After 5 s of changes, `conflict`. Returns the old and the new text.
pub fn update(
    root: &Path,
    target: &Path,
    seen: Option<&[u8]>,
    mut change: impl FnMut(&str) -> Result<String, Error>,
) -> Result<(String, String), Error> {
    let start = Instant::now();
    while start.elapsed() < UPDATE_DEADLINE {
        let quiet_for = since_modified(target);
        if quiet_for < QUIET {
            std::thread::sleep(QUIET - quiet_for);
            continue;
        }
        let before = stamp(target);
        let old_bytes = read_for_update(target)?;
        if stamp(target) != before {
            continue;
        }
        if old_bytes.is_empty() && seen.is_some_and(|s| !s.is_empty()) {
            std::thread::sleep(QUIET);
            if fs::metadata(target).is_ok_and(|m| m.len() == 0) && start.elapsed() > QUIET * 8 {
                break;
            }
            continue;
        }
        let old = String::from_utf8_lossy(&old_bytes).into_owned();
        let new = change(&old)?;
        if new == old {
            return Ok((old, new));
        }
        let content = keep_original_bytes(&old_bytes, &new);
        if write_if_unchanged(root, target, &content, before, &old_bytes)? {
            return Ok((old, new));
        }
    }
    Err(Error::new(
        Kind::Conflict,
        format!("{} keeps changing while memctl writes it", target.display()),
    )
    .hint("another program (Claude Code?) is writing the index; try again in a moment"))
}

/// Like [`write_checked`], but right before the rename the target must still have
/// the stamp `expect` and the content `expect_bytes`. Returns whether it wrote.
fn write_if_unchanged(
    root: &Path,
    target: &Path,
    content: &[u8],
    expect: Stamp,
    expect_bytes: &[u8],
) -> Result<bool, Error> {
    let unchanged = || stamp(target) == expect && read_for_update(target).is_ok_and(|b| b == expect_bytes);
    write_checked_with(root, target, content, &unchanged)
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

/// Create a directory (and parents) with mode 0700.
pub fn create_dir(dir: &Path) -> Result<(), Error> {
    use std::os::unix::fs::DirBuilderExt;
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|e| io_err("cannot create", dir, e))
}

/// A fresh `<dir>.trash/<UTC stamp>[-n]/` directory.
pub fn trash_dir(dir: &Path, now: DateTime<Utc>) -> Result<PathBuf, Error> {
    use std::os::unix::fs::DirBuilderExt;
    let base = dir.join(".trash");
    create_dir(&base)?;
    let stamp = now.format("%Y%m%dT%H%M%SZ").to_string();
    let mut n = 1;
    loop {
        let name = if n == 1 { stamp.clone() } else { format!("{stamp}-{n}") };
        let candidate = base.join(&name);
        match fs::DirBuilder::new().mode(0o700).create(&candidate) {
            Ok(()) => return Ok(candidate),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => n += 1,
            Err(e) => return Err(io_err("cannot create", &candidate, e)),
        }
    }
}

/// Move `path` (an entry of `root`, handled with lstat semantics) to `dest`.
pub fn move_entry(root: &Path, path: &Path, dest: &Path) -> Result<(), Error> {
    let root_real = real(root)?;
    if let Some(parent) = path.parent()
        && !real(parent)?.starts_with(&root_real)
    {
        return Err(Error::new(
            Kind::Containment,
            format!("entry resolves outside the memory dir: {}", path.display()),
        )
        .hint("move it by hand"));
    }
    if let Some(p) = dest.parent() {
        create_dir(p)?;
    }
    fs::rename(path, dest).map_err(|e| io_err("cannot move", path, e))?;
    if let Some(p) = path.parent() {
        let _ = sync_dir(p);
    }
    Ok(())
}

/// The one handle through which a command writes into a memory dir. Holding it
/// means holding the main dir's write lock; the dream lock was checked once when it
/// was opened (SPEC §4.2, §4.3).
pub struct Writer {
    dir: MemoryDir,
    now: DateTime<Utc>,
    _lock: WriteLock,
    /// Files this writer created, removed again by [`Writer::roll_back`].
    created: Vec<PathBuf>,
}

impl Writer {
    /// Create the dir if missing (mode 0700), take the write lock, and refuse while a
    /// live dream holds the consolidation lock, unless `force`.
    pub fn open(dir: &MemoryDir, now: DateTime<Utc>, force: bool) -> Result<Writer, Error> {
        create_dir(dir.dir())?;
        let held = lock(dir.main())?;
        ensure_no_dream(dir.main(), now, force)?;
        Ok(Writer {
            dir: dir.clone(),
            now,
            _lock: held,
            created: Vec::new(),
        })
    }

    /// Open writers on two memory dirs, taking their locks in the byte order of
    /// their real paths, so two commands that write both never deadlock.
    pub fn open_two(a: &MemoryDir, b: &MemoryDir, now: DateTime<Utc>, force: bool) -> Result<(Writer, Writer), Error> {
        create_dir(a.dir())?;
        create_dir(b.dir())?;
        let key = |d: &MemoryDir| fs::canonicalize(d.main()).unwrap_or_else(|_| d.main().to_path_buf());
        if key(a).as_os_str().as_encoded_bytes() <= key(b).as_os_str().as_encoded_bytes() {
            let wa = Writer::open(a, now, force)?;
            Ok((wa, Writer::open(b, now, force)?))
        } else {
            let wb = Writer::open(b, now, force)?;
            Ok((Writer::open(a, now, force)?, wb))
        }
    }

    pub fn memdir(&self) -> &MemoryDir {
        &self.dir
    }

    /// Create `target` (a new file, never overwriting), with its parent dirs.
    pub fn create(&mut self, target: &Path, content: &[u8]) -> Result<(), Error> {
        ensure_ancestor_contained(self.dir.dir(), target)?;
        if let Some(parent) = target.parent() {
            create_dir(parent)?;
        }
        create_new(self.dir.dir(), target, content)?;
        self.created.push(target.to_path_buf());
        Ok(())
    }

    /// Replace `target` atomically.
    pub fn replace(&mut self, target: &Path, content: &[u8]) -> Result<(), Error> {
        write_checked(self.dir.dir(), target, content, None).map(|_| ())
    }

    /// Replace `target` only if it still holds `old` (read when the command
    /// planned): else `conflict`, and nothing is written. Lines `new` keeps from
    /// `old` keep their bytes.
    pub fn replace_expecting(&mut self, target: &Path, old: &[u8], new: &[u8]) -> Result<(), Error> {
        self.replace_expecting_at(target, old, new, false)
    }

    /// [`Writer::replace_expecting`] for a mechanical rewrite (`lint --fix`): the
    /// file keeps its modification time to the nanosecond, so Claude Code still
    /// sees the memory's age and its place in the scan (SPEC §2.4.1 `modified`).
    pub fn replace_expecting_keep_mtime(&mut self, target: &Path, old: &[u8], new: &[u8]) -> Result<(), Error> {
        self.replace_expecting_at(target, old, new, true)
    }

    fn replace_expecting_at(&mut self, target: &Path, old: &[u8], new: &[u8], keep_mtime: bool) -> Result<(), Error> {
        let mtime = if keep_mtime {
            Some(
                fs::metadata(target)
                    .and_then(|m| m.modified())
                    .map_err(|e| io_err("cannot read the mtime of", target, e))?,
            )
        } else {
            None
        };
        let current = read_for_update(target)?;
        let same = current == old || String::from_utf8_lossy(&current).as_bytes() == old;
        let content = match std::str::from_utf8(new) {
            Ok(text) => keep_original_bytes(&current, text),
            Err(_) => new.to_vec(),
        };
        let unchanged = || read_for_update(target).is_ok_and(|b| b == current);
        if same && write_checked_at(self.dir.dir(), target, &content, &unchanged, mtime)? {
            return Ok(());
        }
        Err(Error::new(
            Kind::Conflict,
            format!("{} changed while memctl was writing it", target.display()),
        )
        .hint("another program changed it; run the command again"))
    }

    /// Replace `target` only if it still has the stamp `expect`; whether it wrote.
    pub fn replace_if(&mut self, target: &Path, content: &[u8], expect: Stamp) -> Result<bool, Error> {
        write_checked(self.dir.dir(), target, content, Some(expect))
    }

    /// Read-modify-write `target` against its fresh content; `seen` is what the
    /// command read when it planned (see [`update`]).
    pub fn update(
        &mut self,
        target: &Path,
        seen: Option<&[u8]>,
        change: impl FnMut(&str) -> Result<String, Error>,
    ) -> Result<(String, String), Error> {
        update(self.dir.dir(), target, seen, change)
    }

    /// A fresh trash dir, `<dir>.trash/<UTC stamp>[-n]/` (SPEC §4.5).
    pub fn trash_dir(&mut self) -> Result<PathBuf, Error> {
        trash_dir(self.dir.dir(), self.now)
    }

    /// Move the entry `path` into `trash` as `<rel>.deleted`, the one trash layout.
    pub fn trash(&mut self, trash: &Path, rel: &str, path: &Path) -> Result<PathBuf, Error> {
        let dest = trash.join(format!("{rel}.deleted"));
        move_entry(self.dir.dir(), path, &dest)?;
        Ok(dest)
    }

    /// Write a side file into `trash` (the removed index lines of a forgotten memory).
    pub fn trash_note(&mut self, trash: &Path, name: &str, content: &[u8]) -> Result<(), Error> {
        let f = trash.join(name);
        if let Some(p) = f.parent() {
            create_dir(p)?;
        }
        fs::write(&f, content).map_err(|e| io_err("cannot write", &f, e))
    }

    /// Remove what this writer created: a command that fails after creating a file
    /// leaves nothing behind.
    pub fn roll_back(&mut self) {
        for p in self.created.drain(..) {
            let _ = fs::remove_file(&p);
        }
    }
}

/// Replace a file outside any memory dir (a settings file, CLAUDE.md) atomically:
/// temp file beside it, fsync, permissions kept, rename, directory fsync.
pub fn write_outside(target: &Path, content: &[u8]) -> Result<(), Error> {
    let dir = target.parent().unwrap_or(Path::new("."));
    create_dir(dir)?;
    write_checked(dir, target, content, None).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temp_names_round_trip_and_never_end_in_md() {
        let n = temp_name("MEMORY.md");
        assert!(n.starts_with(".MEMORY.md.") && n.ends_with(".tmp"));
        assert_eq!(parse_temp_name(&n), Some(std::process::id()));
        assert_eq!(parse_temp_name(".x.md.123.zzzzzzzz.tmp"), None);
        assert_eq!(parse_temp_name("x.md"), None);
    }

    #[test]
    fn atomic_write_replaces_and_keeps_mode() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.md");
        fs::write(&p, "old").unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(0o644)).unwrap();
        write_atomic(dir.path(), &p, b"new").unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "new");
        assert_eq!(fs::metadata(&p).unwrap().permissions().mode() & 0o777, 0o644);
        let leftovers: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty());
    }

    #[test]
    fn writes_through_escaping_symlinks_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("x.md"), "x").unwrap();
        std::os::unix::fs::symlink(outside.path().join("x.md"), dir.path().join("x.md")).unwrap();
        let e = write_atomic(dir.path(), &dir.path().join("x.md"), b"y").unwrap_err();
        assert_eq!(e.kind, Kind::Containment);
        assert_eq!(fs::read_to_string(outside.path().join("x.md")).unwrap(), "x");
    }

    #[test]
    fn create_new_never_overwrites() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.md");
        create_new(dir.path(), &p, b"one").unwrap();
        let e = create_new(dir.path(), &p, b"two").unwrap_err();
        assert_eq!(e.kind, Kind::Exists);
        assert_eq!(fs::read_to_string(&p).unwrap(), "one");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn update_applies_the_change_to_fresh_content() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("MEMORY.md");
        let (old, new) = update(dir.path(), &p, None, |t| Ok(format!("{t}- a\n"))).unwrap();
        assert_eq!((old.as_str(), new.as_str()), ("", "- a\n"));
        update(dir.path(), &p, None, |t| Ok(format!("{t}- b\n"))).unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "- a\n- b\n");
    }

    #[test]
    fn bytes_that_are_not_utf8_survive_on_unchanged_lines() {
        let old = b"- [a](a.md) \xff caf\xe9\n- [b](b.md)\n";
        let text = String::from_utf8_lossy(old).into_owned();
        let new = format!("{text}- [c](c.md)\n").replace("- [b](b.md)\n", "");
        assert_eq!(
            keep_original_bytes(old, &new),
            b"- [a](a.md) \xff caf\xe9\n- [c](c.md)\n"
        );
        assert_eq!(keep_original_bytes(b"plain\n", "plain\nmore\n"), b"plain\nmore\n");
    }

    #[test]
    fn an_index_that_reads_empty_after_it_was_seen_full_is_a_conflict() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("MEMORY.md");
        fs::write(&p, "").unwrap();
        let e = update(dir.path(), &p, Some(b"- [a](a.md)\n"), |t| Ok(format!("{t}- b\n"))).unwrap_err();
        assert_eq!(e.kind, Kind::Conflict);
        assert_eq!(fs::read_to_string(&p).unwrap(), "");
    }

    #[test]
    fn special_files_are_never_read_for_an_update() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("MEMORY.md");
        fs::create_dir(&p).unwrap();
        assert_eq!(read_for_update(&p).unwrap_err().kind, Kind::InvalidInput);
    }

    #[test]
    fn trash_stamps_get_suffixes() {
        let dir = tempfile::tempdir().unwrap();
        let now = DateTime::parse_from_rfc3339("2026-11-30T12:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let a = trash_dir(dir.path(), now).unwrap();
        let b = trash_dir(dir.path(), now).unwrap();
        assert!(a.ends_with(".trash/20261130T120000Z"));
        assert!(b.ends_with(".trash/20261130T120000Z-2"));
    }

    #[test]
    fn write_lock_is_exclusive() {
        let dir = tempfile::tempdir().unwrap();
        let held = lock(dir.path()).unwrap();
        let other = File::options().write(true).open(dir.path().join(WRITE_LOCK)).unwrap();
        assert!(matches!(other.try_lock(), Err(fs::TryLockError::WouldBlock)));
        drop(held);
        assert!(other.try_lock().is_ok());
    }
}
