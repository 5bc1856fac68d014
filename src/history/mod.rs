//! The history store (SPEC §8): one bare git repository per memory dir, outside
//! it, written and read with `gix` (no `git` binary needed, no process spawned per
//! snapshot). Snapshots are commits whose trees hold the tracked files byte-exact,
//! `.memctl/mtimes` and `.memctl/consolidate-lock`; trailers name the trigger.

pub mod aside;
mod lookup;
mod outside;
mod query;
mod read;
mod repo;
mod snapshot;
pub mod tracked;

use std::fs::{self, File};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use crate::error::{Error, Kind};
use crate::paths::Env;

pub use lookup::{frontmatter_name, resolve_ref, scope_prefix};
pub use outside::{OutsideChange, OutsideFile};
pub use query::Reader;
use query::read_outside;
pub use read::{Change, ChangeDoc, ChangeKind, FileState, Snap, State, change_doc, changes};
pub use read::{blob as read_blob, parse_mtimes, render_mtimes};
use repo::{Unusable, clear_stale_ref_locks, open_or_init, set_aside, store_err, take_lock};
pub(crate) use snapshot::Node as TreeNode;
pub use snapshot::{Recorded, Request, Trigger};

/// The bytes of files read from the dir now but not stored yet, by path.
pub type Fresh = std::collections::HashMap<Vec<u8>, Vec<u8>>;

/// Whether history is on, and where stores live.
#[derive(Clone, Debug)]
pub enum Settings {
    Off,
    On { root: PathBuf },
}

impl Settings {
    /// `--no-history` / `MEMCTL_HISTORY=off` turn it off; `$MEMCTL_HISTORY_DIR`,
    /// else `${XDG_STATE_HOME:-~/.local/state}/memctl/history/`.
    pub fn from_env(env: &Env, no_history: bool) -> Settings {
        let off = env
            .get("MEMCTL_HISTORY")
            .is_some_and(|v| matches!(v.to_ascii_lowercase().as_str(), "off" | "0" | "false" | "no"));
        if no_history || off {
            return Settings::Off;
        }
        let nonempty = |k: &str| env.get_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
        let root = nonempty("MEMCTL_HISTORY_DIR")
            .or_else(|| nonempty("XDG_STATE_HOME").map(|s| s.join("memctl/history")))
            .or_else(|| env.home().map(|h| PathBuf::from(h).join(".local/state/memctl/history")));
        match root {
            Some(root) => Settings::On { root },
            None => Settings::Off,
        }
    }

    pub fn is_on(&self) -> bool {
        matches!(self, Settings::On { .. })
    }
}

/// The store key of a memory dir's real path: `sanitizePath` of it, `-`, and the
/// first 8 hex digits of its SHA-256 (sanitizePath is lossy).
pub fn key(real: &Path) -> String {
    use sha2::Digest;
    use std::os::unix::ffi::OsStrExt;
    let bytes = real.as_os_str().as_bytes();
    let bytes = if bytes.len() > 1 {
        bytes.strip_suffix(b"/").unwrap_or(bytes)
    } else {
        bytes
    };
    let text = String::from_utf8_lossy(bytes);
    let digest = sha2::Sha256::digest(bytes);
    let hex: String = digest.iter().take(4).map(|b| format!("{b:02x}")).collect();
    // memctl's own store name, not a Claude Code project key: it keeps the Wyhash
    // form it always had, so the stores of long memory dir paths keep their names.
    format!("{}-{hex}", crate::paths::sanitize::sanitize(&text).wyhash)
}

/// Where the store of the memory dir `main` lives (it may not exist yet); `None`
/// when history is off.
pub fn store_path(settings: &Settings, main: &Path) -> Option<PathBuf> {
    let Settings::On { root } = settings else {
        return None;
    };
    let dir = fs::canonicalize(main).unwrap_or_else(|_| main.to_path_buf());
    Some(resolve_store(root, &dir, &mut Vec::new()))
}

/// The store of the memory dir `dir` (a real path) under `root`: `<key>.git`,
/// unless that store records another memory dir; then the next `<key>-2.git`,
/// `<key>-3.git`, … that records this dir or none (SPEC §8.1), with a warning in
/// `warnings` naming both dirs.
fn resolve_store(root: &Path, dir: &Path, warnings: &mut Vec<String>) -> PathBuf {
    let base = key(dir);
    let mut n = 1u32;
    loop {
        let name = if n == 1 {
            format!("{base}.git")
        } else {
            format!("{base}-{n}.git")
        };
        let path = root.join(name);
        match recorded_dir(&path) {
            Some(other) if Path::new(&other) != dir && n < 1000 => {
                warnings.push(format!(
                    "the history store {} records another memory dir ({other}), not {}: it is left alone, and this dir's history is kept in the next store",
                    path.display(),
                    dir.display()
                ));
                n += 1;
            }
            _ => {
                if n > 1 {
                    warnings.push(format!("this dir's history store: {}", path.display()));
                }
                return path;
            }
        }
    }
}

/// The memory dir a store records (`memctl.memoryDir`), when it is a store that
/// can be opened and records one.
fn recorded_dir(path: &Path) -> Option<String> {
    if fs::symlink_metadata(path.join("HEAD")).is_err() {
        return None;
    }
    let repo = gix::open(path).ok()?;
    let config = repo.config_snapshot();
    config.string("memctl.memoryDir").map(|v| v.to_string())
}

/// An open store, its lock held for as long as it lives.
pub struct Store {
    repo: gix::Repository,
    path: PathBuf,
    /// The memory dir's real path (the main dir: the team dir shares its store).
    dir: PathBuf,
    _lock: File,
    /// The newest snapshot's id and state, once read (a write reads it for its
    /// check, its before- and after-snapshot and `holds`: once, not each time).
    head: Option<(gix::ObjectId, State)>,
    /// Warnings met on the way (a store set aside, untracked files).
    pub warnings: Vec<String>,
    /// The indexes the latest snapshot set aside as unsettled (shrunk since the
    /// snapshot before and changed within the last second: possibly another
    /// program's half-write), each with that earlier, settled copy: a write of the
    /// index must not derive from a read that lost its lines (issue 29 point 1).
    pub torn: std::collections::HashMap<Vec<u8>, Vec<u8>>,
    /// The tracked files the latest scan could not read (kept as last recorded).
    pub unreadable: Vec<Vec<u8>>,
    /// The tracked files the latest scan hashed as streams (large: their bytes
    /// are not in the scan's `Fresh`).
    streamed: std::collections::HashSet<Vec<u8>>,
    /// Whether a snapshot the stat cache vouched for keeps its walk in
    /// `vouched_walk` (a writer's before-snapshot: its after-snapshot patches it).
    pub(crate) keep_walk: bool,
    /// Whether the next snapshot follows a write memctl did not make (the
    /// PostToolUse hook's): a change is expected, so the stat cache's check
    /// makes the last state from its first line, and the changed file's line
    /// does not send it back to the start to make it.
    pub(crate) expect_change: bool,
    /// The walk of the latest snapshot, kept when `keep_walk` and the stat cache
    /// vouched that it is exactly the newest snapshot.
    vouched_walk: Option<(Vec<tracked::OnDisk>, Vec<String>)>,
    /// Whether `head`'s state is the one the stat cache's lines gave while they
    /// vouched for `vouched_walk` (the after-snapshot of a patched walk then
    /// reads no cache).
    vouched_state: bool,
    /// Whether the snapshot under way keeps the last snapshot's consolidation
    /// lock instead of reading it ([`Store::snapshot_touched`]: a moved lock is
    /// the dream clock, left to the next walk with the dream's other changes).
    keep_lock: bool,
    /// Cache writes still under way on other threads ([`Store::later`]).
    pending: std::sync::Mutex<Vec<std::thread::JoinHandle<()>>>,
}

impl Drop for Store {
    /// The cache writes end before the store's lock is let go.
    fn drop(&mut self) {
        self.settle();
    }
}

/// How long a command waits for another process's snapshot before giving up
/// (history is advisory: the write goes on without it).
const LOCK_WAIT_MS: u64 = 3000;

impl Store {
    /// Open the store of the memory dir `main` (create it when `create`), its lock
    /// taken. `Ok(None)`: history is off, or there is no store and `create` is false.
    pub fn open(
        settings: &Settings,
        main: &Path,
        project: Option<&Path>,
        create: bool,
        now: DateTime<Utc>,
    ) -> Result<Option<Store>, Error> {
        Store::open_waiting(settings, main, project, create, now, LOCK_WAIT_MS)
    }

    /// [`Store::open`] waiting at most `wait_ms` for another process's snapshot
    /// (the hook waits briefly: it runs on every tool call).
    pub fn open_waiting(
        settings: &Settings,
        main: &Path,
        project: Option<&Path>,
        create: bool,
        now: DateTime<Utc>,
        wait_ms: u64,
    ) -> Result<Option<Store>, Error> {
        Store::open_checking(settings, main, project, create, now, wait_ms, true)
    }

    /// [`Store::open_waiting`] for the hook's snapshot (SPEC v3 §7.2 latency):
    /// the newest snapshot's commit is checked at once, its whole state only when
    /// a snapshot needs it ([`Store::snapshot`] sets a store whose state cannot be
    /// read aside then, as opening does). An unchanged dir then costs no read of
    /// the snapshot's trees (20 000 files: a 1.5 MB tree and mtimes blob).
    pub fn open_for_snapshot(
        settings: &Settings,
        main: &Path,
        project: Option<&Path>,
        now: DateTime<Utc>,
        wait_ms: u64,
    ) -> Result<Option<Store>, Error> {
        Store::open_checking(settings, main, project, true, now, wait_ms, false)
    }

    /// [`Store::open`] for a writer (create it when missing): as
    /// [`Store::open_for_snapshot`], the newest snapshot's state is read only
    /// when a snapshot or [`Store::holds`] needs it, from the stat cache when it
    /// is complete for it: a write into a dir the cache vouches for reads no
    /// tree (20 000 files: a 1.3 MB tree and a 1.2 MB mtimes blob).
    pub fn open_for_write(
        settings: &Settings,
        main: &Path,
        project: Option<&Path>,
        now: DateTime<Utc>,
    ) -> Result<Option<Store>, Error> {
        Store::open_for_snapshot(settings, main, project, now, LOCK_WAIT_MS)
    }

    fn open_checking(
        settings: &Settings,
        main: &Path,
        project: Option<&Path>,
        create: bool,
        now: DateTime<Utc>,
        wait_ms: u64,
        load_head: bool,
    ) -> Result<Option<Store>, Error> {
        let Settings::On { root } = settings else {
            return Ok(None);
        };
        let dir = fs::canonicalize(main).unwrap_or_else(|_| main.to_path_buf());
        let mut warnings = Vec::new();
        let path = resolve_store(root, &dir, &mut warnings);
        if !path.exists() && !create {
            return Ok(None);
        }
        fs::create_dir_all(root).map_err(|e| store_err("cannot create the history dir", root, &e))?;
        let lock = take_lock(&path, wait_ms)?;
        clear_stale_ref_locks(&path);
        let repo = match open_or_init(&path, &dir, project, &mut warnings) {
            Ok(repo) => repo,
            Err(Unusable::Unreadable(why)) => {
                let aside = set_aside(&path, now)?;
                warnings.push(format!(
                    "the history store {} could not be read ({why}); it was set aside as {} and a new one started",
                    path.display(),
                    aside.display()
                ));
                open_or_init(&path, &dir, project, &mut warnings).map_err(|e| {
                    Error::new(
                        Kind::Io,
                        format!("cannot create the history store: {}: {e}", path.display()),
                    )
                })?
            }
            Err(Unusable::Create(why)) => {
                return Err(Error::new(
                    Kind::Io,
                    format!("cannot create the history store: {}: {why}", path.display()),
                ));
            }
        };
        let recorded = repo.config_snapshot().string("memctl.memoryDir").map(|v| v.to_string());
        if recorded.as_deref().is_some_and(|r| Path::new(r) != dir) {
            return Err(Error::new(
                Kind::Conflict,
                format!(
                    "the history store {} belongs to another memory dir: {}",
                    path.display(),
                    recorded.unwrap_or_default()
                ),
            ));
        }
        let mut store = Store {
            repo,
            path,
            dir,
            _lock: lock,
            head: None,
            warnings,
            torn: std::collections::HashMap::new(),
            unreadable: Vec::new(),
            streamed: std::collections::HashSet::new(),
            keep_walk: false,
            expect_change: false,
            vouched_walk: None,
            vouched_state: false,
            keep_lock: false,
            pending: Default::default(),
        };
        store.check_head(now, load_head)?;
        if let Some(p) = project {
            store.record_identity(p);
        }
        Ok(Some(store))
    }

    /// Record the project's identity (SPEC §11.1) as `memctl.identity`, and the root
    /// commit it was computed from as `memctl.rootCommit` (the cache), when they
    /// changed: the config is rewritten only then, not at every opening. A project
    /// with no identity now (its checkout moved away, say) keeps the one recorded:
    /// `memctl projects` matches it to find where the repository went.
    fn record_identity(&mut self, project: &Path) {
        use crate::identity::{IDENTITY_KEY, ROOT_COMMIT_KEY};
        let (recorded, cached_root) = {
            let config = self.repo.config_snapshot();
            let get = |k: &str| config.string(k).map(|v| v.to_string());
            (get(IDENTITY_KEY), get(ROOT_COMMIT_KEY))
        };
        let Some(found) = crate::identity::resolve(project, cached_root.as_deref()) else {
            return;
        };
        let mut values = Vec::new();
        if recorded.as_deref() != Some(found.identity.id.as_str()) {
            values.push((IDENTITY_KEY, found.identity.id.as_str()));
        }
        if let Some(root) = found
            .fresh_root
            .as_deref()
            .filter(|r| cached_root.as_deref() != Some(*r))
        {
            values.push((ROOT_COMMIT_KEY, root));
        }
        if values.is_empty() {
            return;
        }
        // This process holds the store's lock: no other writer races the rewrite.
        if let Err(e) = crate::identity::set_store_values(&self.path, &values) {
            self.warnings.push(format!(
                "cannot record the project identity in the history store {}: {e}",
                self.path.display()
            ));
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Run `job` (a cache write: its result is only a cache) on another thread
    /// while this one goes on; here when no thread can be had.
    fn later<F: FnOnce() + Send + 'static>(&self, job: F) {
        use std::sync::{Arc, Mutex};
        let slot = Arc::new(Mutex::new(Some(job)));
        let theirs = Arc::clone(&slot);
        let spawned = std::thread::Builder::new().spawn(move || {
            let job = theirs.lock().ok().and_then(|mut j| j.take());
            if let Some(job) = job {
                job();
            }
        });
        match spawned {
            Ok(h) => {
                if let Ok(mut p) = self.pending.lock() {
                    p.push(h);
                }
            }
            Err(_) => {
                let job = slot.lock().ok().and_then(|mut j| j.take());
                if let Some(job) = job {
                    job();
                }
            }
        }
    }

    /// Wait for the cache writes [`Store::later`] started: before a cache is
    /// read again, and before the store's lock is let go.
    pub(crate) fn settle(&self) {
        let handles = match self.pending.lock() {
            Ok(mut p) => std::mem::take(&mut *p),
            Err(e) => std::mem::take(&mut *e.into_inner()),
        };
        for h in handles {
            let _ = h.join();
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// A `HEAD` that names a commit which cannot be read makes the store corrupt:
    /// set it aside and start a new one.
    /// With `load` false only the commit is read (its state is loaded when a
    /// snapshot needs it, [`Store::start_over`] then).
    fn check_head(&mut self, now: DateTime<Utc>, load: bool) -> Result<(), Error> {
        let Some(head) = self.head_id() else { return Ok(()) };
        if !load {
            if self.repo.find_commit(head).is_ok_and(|c| c.tree_id().is_ok()) {
                return Ok(());
            }
        } else if let Ok(state) = read::load_state(&self.repo, head) {
            self.head = Some((head, state));
            return Ok(());
        }
        self.start_over(now)
    }

    /// Set the store aside as corrupt (its newest snapshot cannot be read) and
    /// start a new one.
    pub(crate) fn start_over(&mut self, now: DateTime<Utc>) -> Result<(), Error> {
        self.head = None;
        let aside = set_aside(&self.path, now)?;
        self.warnings.push(format!(
            "the history store {} is corrupt (its newest snapshot cannot be read); it was set aside as {} and a new one started",
            self.path.display(),
            aside.display()
        ));
        self.repo = open_or_init(&self.path, &self.dir, None, &mut self.warnings).map_err(|e| {
            Error::new(
                Kind::Io,
                format!("cannot create the history store: {}: {e}", self.path.display()),
            )
        })?;
        Ok(())
    }

    /// Whether a snapshot can be written now, without writing one: a 64 KiB temp
    /// object is written and synced in `objects/` (git's own temp name, which git
    /// prunes if it is ever left) and the branch's lock file is created, both
    /// removed again. A full disk, a read-only store or a lock that cannot be taken
    /// fails here, before `undo` or `restore` writes anything (issue 29 point 6).
    pub fn probe_writable(&self) -> Result<(), String> {
        use std::io::Write;
        let probe = self
            .path
            .join("objects")
            .join(format!("tmp_obj_memctl_probe_{}", std::process::id()));
        let wrote = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&probe)
            .and_then(|mut f| {
                f.write_all(&[0u8; 64 << 10])?;
                f.sync_all()
            });
        let _ = fs::remove_file(&probe);
        wrote.map_err(|e| format!("cannot write into {}: {e}", self.path.join("objects").display()))?;
        let lock = self.path.join("refs/heads/main.lock");
        fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&lock)
            .map_err(|e| format!("cannot lock the branch {}: {e}", lock.display()))?;
        let _ = fs::remove_file(&lock);
        Ok(())
    }

    /// The newest snapshot's commit id.
    pub fn head_id(&self) -> Option<gix::ObjectId> {
        let r = self.repo.find_reference("refs/heads/main").ok()?;
        r.target().try_id().map(ToOwned::to_owned)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_differ_where_sanitize_path_collides() {
        let a = key(Path::new("/d/mem-a"));
        let b = key(Path::new("/d/mem_a"));
        assert!(a.starts_with("-d-mem-a-") && b.starts_with("-d-mem-a-"));
        assert_ne!(a, b);
        assert_eq!(key(Path::new("/d/mem-a/")), a);
        assert_eq!(a.len(), "-d-mem-a-".len() + 8);
    }
}

#[cfg(test)]
mod store_tests {
    use super::*;
    use crate::history::snapshot::Request;

    fn req(recorded_by: &str) -> Request<'_> {
        Request {
            trigger: None,
            recorded_by,
            message: None,
            details: &[],
            claude: false,
            now: "2026-03-10T12:00:00Z".parse().unwrap(),
        }
    }

    /// The stat cache of a snapshot is complete: the state it holds is the
    /// snapshot's own (what its tree and mtimes say: blob, link flag, mtime, and
    /// the lock), so a write's snapshot need not load that state from the store;
    /// and an unchanged walk is vouched for line by line, a changed one not
    /// (SPEC v3 §7.2, §8.1).
    #[test]
    fn the_complete_stat_cache_is_the_snapshot() {
        use std::time::{Duration, SystemTime};
        let t = tempfile::tempdir().unwrap();
        let mem = t.path().join("memory");
        fs::create_dir_all(mem.join("sub")).unwrap();
        fs::write(mem.join("MEMORY.md"), "- [A](a.md) — a\n").unwrap();
        fs::write(mem.join("a.md"), "a\n").unwrap();
        fs::write(mem.join("sub/b\tc.md"), "b\n").unwrap();
        std::os::unix::fs::symlink("a.md", mem.join("link.md")).unwrap();
        fs::write(mem.join(".consolidate-lock"), "4242").unwrap();
        let settings = Settings::On {
            root: t.path().join("state"),
        };
        let now = "2026-03-10T12:00:00Z".parse().unwrap();
        let mut s = Store::open(&settings, &mem, None, true, now).unwrap().unwrap();
        s.snapshot(&mem, &req("snapshot")).unwrap().unwrap();
        fs::write(mem.join("a.md"), "a, again\n").unwrap();
        let second = s.snapshot(&mem, &req("snapshot")).unwrap().unwrap();
        s.settle();
        let stored = read::load_state(&s.repo, second.id).unwrap();
        let cached = super::snapshot::read_cache_full(s.path(), Some(second.id));
        assert_eq!(cached.as_ref(), Some(&stored));
        assert_eq!(stored.files.len(), 4);
        assert!(super::snapshot::read_cache_full(s.path(), Some(gix::ObjectId::null(gix::hash::Kind::Sha1))).is_none());
        // The files' ctimes must be older than the cache (git's racy rule).
        let cache = s.path().join("memctl-cache");
        fs::File::options()
            .write(true)
            .open(&cache)
            .unwrap()
            .set_modified(SystemTime::now() + Duration::from_secs(5))
            .unwrap();
        let walk = |mem: &Path| super::tracked::walk(mem, &mut Vec::new());
        assert!(super::snapshot::cache_vouches(s.path(), second.id, &walk(&mem), &mem));
        fs::write(mem.join("sub/b\tc.md"), "b!\n").unwrap();
        assert!(!super::snapshot::cache_vouches(s.path(), second.id, &walk(&mem), &mem));
        fs::write(mem.join("sub/b\tc.md"), "b\n").unwrap();
        fs::remove_file(mem.join("link.md")).unwrap();
        assert!(!super::snapshot::cache_vouches(s.path(), second.id, &walk(&mem), &mem));
        // A cache without its `complete` line (an older memctl's) holds no state.
        let text = fs::read_to_string(&cache).unwrap();
        let old: String = text
            .lines()
            .filter(|l| !l.starts_with("complete"))
            .map(|l| format!("{l}\n"))
            .collect();
        fs::write(&cache, old).unwrap();
        assert!(super::snapshot::read_cache_full(s.path(), Some(second.id)).is_none());
    }

    /// The hook's snapshot of the model's write (SPEC v3 §7.3, §8.2): the last
    /// snapshot with only the written file looked at again. Another program's
    /// change to another file is not in it (it is not the model's), nor a moved
    /// consolidation lock; the next snapshot that walks the dir records them.
    /// An entry of the stat cache that did not vouch (racy) is written
    /// smudged, so the next cache does not vouch for it either; one that
    /// vouched is carried as it is; the written file's entry is its stat now.
    #[test]
    fn a_snapshot_of_the_written_file_leaves_other_changes_to_the_next_walk() {
        use std::time::{Duration, SystemTime};
        let t = tempfile::tempdir().unwrap();
        let mem = t.path().join("memory");
        fs::create_dir_all(&mem).unwrap();
        fs::write(
            mem.join("MEMORY.md"),
            "- [A](a.md) — a\n- [B](b.md) — b\n- [C](c.md) — c\n",
        )
        .unwrap();
        for f in ["a", "b", "c"] {
            fs::write(mem.join(format!("{f}.md")), format!("{f}\n")).unwrap();
        }
        let settings = Settings::On {
            root: t.path().join("state"),
        };
        let now = "2026-03-10T12:00:00Z".parse().unwrap();
        let mut s = Store::open(&settings, &mem, None, true, now).unwrap().unwrap();
        let base = s.snapshot(&mem, &req("snapshot")).unwrap().unwrap();
        s.settle();
        let before = read::load_state(&s.repo, base.id).unwrap();
        let cache = s.path().join("memctl-cache");
        let set_cache_mtime = |at: SystemTime| {
            fs::File::options()
                .write(true)
                .open(&cache)
                .unwrap()
                .set_modified(at)
                .unwrap();
        };
        // Every entry racy: the cache older than every file's ctime.
        set_cache_mtime(SystemTime::UNIX_EPOCH + Duration::from_secs(1));
        fs::write(mem.join("b.md"), "b, by another program\n").unwrap();
        fs::write(mem.join("a.md"), "a, by the model\n").unwrap();
        let mut claude = req("hook:PostToolUse");
        claude.claude = true;
        let rec = s.snapshot_touched(&mem, &claude, &[b"a.md".to_vec()]).unwrap().unwrap();
        assert_eq!(rec.trigger, Trigger::Claude);
        let changed: Vec<String> = rec.changes.iter().map(read::Change::file).collect();
        assert_eq!(changed, ["a.md"]);
        let after = read::load_state(&s.repo, rec.id).unwrap();
        assert_eq!(after.files[b"b.md".as_slice()], before.files[b"b.md".as_slice()]);
        assert_eq!(
            read::blob(&s.repo, after.files[b"a.md".as_slice()].oid).unwrap(),
            b"a, by the model\n"
        );
        s.settle();
        let text = fs::read_to_string(&cache).unwrap();
        let line = |name: &str| {
            let hex: String = name.bytes().map(|b| format!("{b:02x}")).collect();
            text.lines()
                .find(|l| l.ends_with(&format!("\t{hex}")))
                .unwrap()
                .to_string()
        };
        let smudged = format!("\t{}\t", i128::MIN);
        for f in ["MEMORY.md", "b.md", "c.md"] {
            assert!(line(f).contains(&smudged), "{f}: {text}");
        }
        assert!(!line("a.md").contains(&smudged), "{text}");
        // The next walk records the other program's change, as its own.
        let next = s.snapshot(&mem, &req("snapshot")).unwrap().unwrap();
        assert_eq!(next.trigger, Trigger::External);
        let changed: Vec<String> = next.changes.iter().map(read::Change::file).collect();
        assert_eq!(changed, ["b.md"]);
        s.settle();
        // Lines that vouch are carried as they are, and the lock as the last
        // snapshot had it: a lock taken since (a dream starting) and what goes
        // with it are the next walk's, labelled `dream`.
        set_cache_mtime(SystemTime::now() + Duration::from_secs(5));
        fs::write(mem.join(".consolidate-lock"), "4242").unwrap();
        fs::remove_file(mem.join("c.md")).unwrap();
        fs::write(mem.join("a.md"), "a, by the model again\n").unwrap();
        let rec = s.snapshot_touched(&mem, &claude, &[b"a.md".to_vec()]).unwrap().unwrap();
        let changed: Vec<String> = rec.changes.iter().map(read::Change::file).collect();
        assert_eq!(changed, ["a.md"]);
        assert_eq!(read::load_state(&s.repo, rec.id).unwrap().lock, None);
        s.settle();
        let text = fs::read_to_string(&cache).unwrap();
        assert!(!text.contains(&smudged), "{text}");
        let dream = s.snapshot(&mem, &req("snapshot")).unwrap().unwrap();
        assert_eq!(dream.trigger, Trigger::Dream);
        let changed: Vec<String> = dream.changes.iter().map(read::Change::file).collect();
        assert_eq!(changed, ["c.md"]);
    }

    /// Issue 29 point 7: a large memory is hashed and stored as a stream, never
    /// held whole in memory by the snapshot (its bytes are not in the scan's
    /// `Fresh`), and the stored blob is byte-exact.
    #[test]
    fn a_large_memory_is_snapshotted_as_a_stream() {
        let t = tempfile::tempdir().unwrap();
        let mem = t.path().join("memory");
        fs::create_dir_all(&mem).unwrap();
        let big: Vec<u8> = (0..(3usize << 20) + 7).map(|i| b"abcdefghij\n"[i % 11]).collect();
        fs::write(mem.join("big.md"), &big).unwrap();
        fs::write(mem.join("MEMORY.md"), "- [Big](big.md) — b\n").unwrap();
        let settings = Settings::On {
            root: t.path().join("state"),
        };
        let now = "2026-03-10T12:00:00Z".parse().unwrap();
        let mut s = Store::open(&settings, &mem, None, true, now).unwrap().unwrap();
        let (_, state, fresh) = s.scan(&mem, None, &State::default(), None).unwrap();
        assert!(
            !fresh.contains_key(b"big.md".as_slice()),
            "the large file is not held in memory"
        );
        assert!(fresh.contains_key(b"MEMORY.md".as_slice()));
        let want = gix::objs::compute_hash(s.repo.object_hash(), gix::objs::Kind::Blob, &big).unwrap();
        assert_eq!(state.files[b"big.md".as_slice()].oid, want);
        let rec = s.snapshot(&mem, &req("snapshot")).unwrap().unwrap();
        let stored = read::load_state(&s.repo, rec.id).unwrap();
        assert_eq!(stored.files[b"big.md".as_slice()].oid, want);
        assert!(read::blob(&s.repo, want).unwrap() == big, "stored byte-exact");
    }

    #[test]
    fn snapshots_record_changes_once_and_git_reads_them() {
        let t = tempfile::tempdir().unwrap();
        let mem = t.path().join("memory");
        fs::create_dir_all(&mem).unwrap();
        fs::write(mem.join("MEMORY.md"), "- [A](a.md) — a\r\n").unwrap();
        fs::write(mem.join("a.md"), "---\nname: a\n---\nbody\n").unwrap();
        let settings = Settings::On {
            root: t.path().join("state"),
        };
        let now = "2026-03-10T12:00:00Z".parse().unwrap();
        let mut s = Store::open(&settings, &mem, None, true, now).unwrap().unwrap();
        let first = s.snapshot(&mem, &req("snapshot")).unwrap().unwrap();
        assert_eq!(first.trigger, Trigger::Baseline);
        assert_eq!(first.changes.len(), 2);
        assert!(
            s.snapshot(&mem, &req("snapshot")).unwrap().is_none(),
            "unchanged dir records nothing"
        );
        fs::write(mem.join("b.md"), "b").unwrap();
        fs::remove_file(mem.join("a.md")).unwrap();
        fs::write(mem.join(".consolidate-lock"), "123").unwrap();
        let second = s.snapshot(&mem, &req("snapshot")).unwrap().unwrap();
        assert_eq!(second.trigger, Trigger::Dream);
        let kinds: Vec<_> = second.changes.iter().map(|c| (c.file(), c.kind)).collect();
        assert_eq!(
            kinds,
            [("a.md".into(), ChangeKind::Deleted), ("b.md".into(), ChangeKind::Added)]
        );
        let state = read::load_state(&s.repo, second.id).unwrap();
        assert_eq!(state.lock.as_ref().unwrap().body, b"123");
        let idx = &state.files[b"MEMORY.md".as_slice()];
        assert_eq!(read::blob(&s.repo, idx.oid).unwrap(), b"- [A](a.md) \xe2\x80\x94 a\r\n");
        let on_disk = tracked::mtime_ns(&fs::metadata(mem.join("MEMORY.md")).unwrap());
        assert_eq!(idx.mtime_ns, on_disk);
        let path = s.path().to_path_buf();
        drop(s);
        if let Ok(out) = std::process::Command::new("git")
            .arg("--git-dir")
            .arg(&path)
            .args(["log", "--format=%s%n%(trailers:key=Trigger,valueonly)"])
            .output()
        {
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(text.contains("dream: -a.md +b.md"), "{text}");
            assert!(text.contains("baseline"), "{text}");
            let fsck = std::process::Command::new("git")
                .arg("--git-dir")
                .arg(&path)
                .arg("fsck")
                .output()
                .unwrap();
            assert!(fsck.status.success(), "{}", String::from_utf8_lossy(&fsck.stderr));
        }
    }
}
