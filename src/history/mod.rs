//! The history store (SPEC §8): one bare git repository per memory dir, outside
//! it, written and read with `gix` (no `git` binary needed, no process spawned per
//! snapshot). Snapshots are commits whose trees hold the tracked files byte-exact,
//! `.memctl/mtimes` and `.memctl/consolidate-lock`; trailers name the trigger.

pub mod aside;
mod lookup;
mod outside;
mod read;
mod snapshot;
pub mod tracked;

use std::fs::{self, File};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use crate::error::{Error, Kind};
use crate::paths::Env;

pub use lookup::{frontmatter_name, resolve_ref, scope_prefix};
pub use outside::{OutsideChange, OutsideFile};
pub use read::{Change, ChangeDoc, ChangeKind, FileState, Snap, State, change_doc, changes};
pub use read::{blob as read_blob, parse_mtimes, render_mtimes};
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

fn store_err(what: &str, p: &Path, e: &std::io::Error) -> Error {
    Error::new(Kind::Io, format!("{what}: {}: {}", p.display(), e))
}

/// `<store>/memctl.lock`: the store dir is made first (empty until a store is
/// moved in), so the lock exists before the store does.
fn take_lock(store: &Path, wait_ms: u64) -> Result<File, Error> {
    fs::create_dir_all(store).map_err(|e| store_err("cannot create the history store", store, &e))?;
    let lock_path = store.join("memctl.lock");
    // Never blocks: a FIFO or a symlink put there is refused (issue 29 point 10).
    let f = crate::store::open_lock(&lock_path, "the history lock")?;
    let wait = std::time::Duration::from_millis(wait_ms);
    match crate::store::lock_within(&f, wait, std::time::Duration::from_millis(5)) {
        Ok(true) => Ok(f),
        Ok(false) => Err(Error::new(
            Kind::Busy,
            format!(
                "the history store is locked by another process: {}",
                lock_path.display()
            ),
        )),
        Err(e) => Err(store_err("cannot lock the history store", &lock_path, &e)),
    }
}

/// A ref's `.lock` file left by a process killed while it updated the ref would
/// block every later snapshot. Every memctl writer holds `memctl.lock` first, so
/// with it held any such file is stale.
fn clear_stale_ref_locks(store: &Path) {
    for rel in ["refs/heads/main.lock", "HEAD.lock", "packed-refs.lock", "config.lock"] {
        let p = store.join(rel);
        if fs::symlink_metadata(&p).is_ok_and(|m| m.is_file()) {
            let _ = fs::remove_file(&p);
        }
    }
}

/// Why [`open_or_init`] gave no store.
enum Unusable {
    /// A store is there but cannot be read or repaired: it is set aside.
    Unreadable(String),
    /// No store could be made.
    Create(String),
}

impl std::fmt::Display for Unusable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unusable::Unreadable(s) | Unusable::Create(s) => f.write_str(s),
        }
    }
}

const HEAD_TEXT: &str = "ref: refs/heads/main\n";

/// Whether the store's branch exists (a loose ref, or one packed by `git gc`).
fn has_branch(path: &Path) -> bool {
    fs::symlink_metadata(path.join("refs/heads/main")).is_ok_and(|m| m.is_file())
        || crate::fsread::read_regular(&path.join("packed-refs"), 64 << 20)
            .is_ok_and(|t| t.split(|b| *b == b'\n').any(|l| l.ends_with(b" refs/heads/main")))
}

/// Whether the store holds any object (loose or packed): snapshots may be in it.
fn has_objects(path: &Path) -> bool {
    let objects = path.join("objects");
    let Ok(rd) = fs::read_dir(&objects) else { return false };
    rd.flatten().any(|e| {
        let name = e.file_name();
        let name = name.to_string_lossy();
        match name.as_ref() {
            "info" => false,
            "pack" => fs::read_dir(e.path())
                .into_iter()
                .flatten()
                .flatten()
                .any(|p| p.file_name().to_string_lossy().ends_with(".pack")),
            n if n.len() == 2 => fs::read_dir(e.path()).into_iter().flatten().next().is_some(),
            _ => false,
        }
    })
}

/// Open the store at `path`, repairing what can be repaired (SPEC v3 §8.1): a
/// missing or broken `HEAD` is pointed back at `refs/heads/main` when that branch
/// is there, with a warning. A store with objects but no branch cannot be repaired
/// (`Unreadable`: the caller sets it aside); a store is created only where there
/// are no objects (nothing, or an init killed before its `HEAD` moved in): it is
/// never made over objects (issue 29 point 4).
fn open_or_init(
    path: &Path,
    dir: &Path,
    project: Option<&Path>,
    warnings: &mut Vec<String>,
) -> Result<gix::Repository, Unusable> {
    let head = path.join("HEAD");
    let branch = has_branch(path);
    let head_ok = crate::fsread::read_regular(&head, 4096).is_ok_and(|t| t == HEAD_TEXT.as_bytes());
    let head_there = fs::symlink_metadata(&head).is_ok();
    if !head_ok && branch {
        if head_there {
            let _ = fs::remove_file(&head).or_else(|_| fs::remove_dir_all(&head));
        }
        let tmp = path.join(format!("HEAD.memctl-{}", std::process::id()));
        fs::write(&tmp, HEAD_TEXT)
            .and_then(|()| fs::rename(&tmp, &head))
            .map_err(|e| Unusable::Unreadable(format!("its HEAD is missing and cannot be written: {e}")))?;
        warnings.push(format!(
            "the history store {} had {} HEAD; it was pointed back at its branch refs/heads/main",
            path.display(),
            if head_there { "a broken" } else { "no" }
        ));
    } else if !branch && has_objects(path) {
        return Err(Unusable::Unreadable(
            "it has objects but no branch (refs/heads/main)".into(),
        ));
    }
    if fs::symlink_metadata(&head).is_ok() {
        return gix::open(path).map_err(|e| Unusable::Unreadable(e.to_string()));
    }
    init(path, dir, project).map_err(Unusable::Create)
}

/// Create a new store at `path`, which holds no objects.
fn init(path: &Path, dir: &Path, project: Option<&Path>) -> Result<gix::Repository, String> {
    // Build the new store beside its final place and move it in, `HEAD` last:
    // a store without `HEAD` never held a snapshot, whatever killed the process.
    let tmp = path.with_extension(format!("git.new-{}", std::process::id()));
    let _ = fs::remove_dir_all(&tmp);
    gix::init_bare(&tmp).map_err(|e| e.to_string())?;
    let config = tmp.join("config");
    let mut text = crate::fsread::read_small_text(&config).unwrap_or_default();
    text.push_str("[memctl]\n\tformat = 1\n");
    text.push_str(&format!("\tmemoryDir = {}\n", quote_config(&dir.to_string_lossy())));
    if let Some(p) = project {
        text.push_str(&format!("\tprojectRoot = {}\n", quote_config(&p.to_string_lossy())));
    }
    fs::write(&config, text).map_err(|e| e.to_string())?;
    fs::write(tmp.join("HEAD"), HEAD_TEXT).map_err(|e| e.to_string())?;
    // What an init killed half-way left (no objects: checked by the caller).
    for e in fs::read_dir(path).map_err(|e| e.to_string())?.flatten() {
        if e.file_name() != "memctl.lock" {
            let p = e.path();
            let _ = fs::remove_dir_all(&p).or_else(|_| fs::remove_file(&p));
        }
    }
    for e in fs::read_dir(&tmp).map_err(|e| e.to_string())?.flatten() {
        if e.file_name() != "HEAD" {
            fs::rename(e.path(), path.join(e.file_name())).map_err(|e| e.to_string())?;
        }
    }
    fs::rename(tmp.join("HEAD"), path.join("HEAD")).map_err(|e| e.to_string())?;
    let _ = fs::remove_dir(&tmp);
    gix::open(path).map_err(|e| e.to_string())
}

/// A git config value in double quotes, `"` and `\` escaped.
fn quote_config(v: &str) -> String {
    let mut out = String::from("\"");
    for c in v.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Move a store that cannot be read to `<key>.git.corrupt-<stamp>` (all but the
/// lock this process holds, which stays for the new store).
fn set_aside(path: &Path, now: DateTime<Utc>) -> Result<PathBuf, Error> {
    let stamp = now.format("%Y%m%dT%H%M%SZ");
    let mut aside = path.with_extension(format!("git.corrupt-{stamp}"));
    let mut n = 1;
    while aside.exists() {
        n += 1;
        aside = path.with_extension(format!("git.corrupt-{stamp}-{n}"));
    }
    let err = |e: std::io::Error| store_err("cannot set the corrupt history store aside", path, &e);
    fs::create_dir(&aside).map_err(err)?;
    for e in fs::read_dir(path).map_err(err)?.flatten() {
        if e.file_name() != "memctl.lock" {
            fs::rename(e.path(), aside.join(e.file_name())).map_err(err)?;
        }
    }
    // A store set aside without a readable `HEAD` gets one, so that it opens as a
    // repository: `restore` reads its snapshots object by object ([`aside`]).
    let head = aside.join("HEAD");
    if !crate::fsread::read_regular(&head, 4096).is_ok_and(|t| t.starts_with(b"ref: ")) {
        let _ = fs::remove_file(&head);
        let _ = fs::write(&head, HEAD_TEXT);
    }
    Ok(aside)
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
        let stored = read::load_state(&s.repo, second.id).unwrap();
        let (_, cached) = super::snapshot::read_cache_full(s.path(), Some(second.id));
        assert_eq!(cached.as_ref(), Some(&stored));
        assert_eq!(stored.files.len(), 4);
        assert!(
            super::snapshot::read_cache_full(s.path(), Some(gix::ObjectId::null(gix::hash::Kind::Sha1)))
                .1
                .is_none()
        );
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
        assert!(super::snapshot::read_cache_full(s.path(), Some(second.id)).1.is_none());
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

/// Reading a store: the log, states, blobs, and the revision forms of SPEC §8.3.
impl Store {
    /// Open the store of `main` for reading: `history_off` when history is off or
    /// the dir has none yet.
    pub fn open_existing(settings: &Settings, main: &Path, now: DateTime<Utc>) -> Result<Store, Error> {
        let off = || {
            Error::new(
                Kind::HistoryOff,
                format!("no history for {}", crate::paths::with_sep(main)),
            )
        };
        match settings {
            Settings::Off => Err(off().hint(
                "history is off (--no-history or MEMCTL_HISTORY=off); unset it, and memctl records a snapshot on every write",
            )),
            Settings::On { .. } => Store::open(settings, main, None, false, now)?
                .ok_or_else(|| off().hint("memctl records history from its first write here; `memctl snapshot` starts it now")),
        }
    }

    /// Every snapshot, newest first.
    pub fn log(&self) -> Result<Vec<Snap>, Error> {
        read::log(&self.repo, self.head_id()).map_err(|e| self.read_err(&e))
    }

    /// The states of the `n` newest snapshots of `log` (all when `n` exceeds it),
    /// newest first.
    pub fn states(&self, log: &[Snap], n: usize) -> Result<Vec<State>, Error> {
        log.iter().take(n).map(|s| self.state(s.id)).collect()
    }

    /// The files and lock a snapshot recorded.
    pub fn state(&self, id: gix::ObjectId) -> Result<State, Error> {
        read::load_state(&self.repo, id).map_err(|e| self.read_err(&e))
    }

    /// The dir `main` now, as a state (nothing is stored), with the bytes of the
    /// files that were read.
    pub fn state_now(&mut self, main: &Path) -> Result<(State, Fresh), Error> {
        let head = self.head_id();
        let prev = match (head, &self.head) {
            (Some(h), Some((id, st))) if *id == h => st.clone(),
            (Some(h), _) => self.state(h)?,
            (None, _) => State::default(),
        };
        let (files, state, mut fresh) = self.scan(main, head, &prev, None)?;
        // The readers of a state now (diff, undo's plan) need the bytes of the large
        // files the scan only hashed (nothing is stored for them here).
        for f in files.iter().filter(|f| self.streamed.contains(&f.rel)) {
            let stored = state
                .files
                .get(&f.rel)
                .is_some_and(|s| gix::objs::Exists::exists(&self.repo.objects, &s.oid));
            if !stored && let Ok(bytes) = tracked::read(main, f) {
                fresh.insert(f.rel.clone(), bytes);
            }
        }
        Ok((state, fresh))
    }

    /// The report items of `changes`: line counts from the stored blobs (a file
    /// read now but not stored yet comes from `fresh`).
    pub fn change_docs(&self, changes: &[Change], fresh: &Fresh) -> Vec<ChangeDoc> {
        changes
            .iter()
            .map(|c| {
                change_doc(c, &mut |id| {
                    self.blob(id).unwrap_or_else(|_| {
                        c.after
                            .as_ref()
                            .filter(|a| a.oid == id)
                            .and_then(|_| fresh.get(&c.rel).cloned())
                            .unwrap_or_default()
                    })
                })
            })
            .collect()
    }

    /// Whether the newest snapshot holds `rel` (below the main dir) with exactly
    /// these bytes (a link's target for a symlink): its copy is safe there.
    pub fn holds(&self, rel: &[u8], bytes: &[u8], link: bool) -> bool {
        let Some(head) = self.head_id() else { return false };
        let loaded;
        let state = match &self.head {
            Some((id, st)) if *id == head => st,
            _ => match read::load_state(&self.repo, head) {
                Ok(st) => {
                    loaded = st;
                    &loaded
                }
                Err(_) => return false,
            },
        };
        let Some(f) = state.files.get(rel) else { return false };
        let oid = gix::objs::compute_hash(self.repo.object_hash(), gix::objs::Kind::Blob, bytes);
        f.link == link && oid.is_ok_and(|o| o == f.oid)
    }

    /// The files outside the memory dir that the snapshot `id` recorded changing
    /// (SPEC §12: a review's CLAUDE files), with their previous bytes; empty for
    /// most snapshots.
    pub fn outside(&self, id: gix::ObjectId) -> Result<Vec<OutsideFile>, Error> {
        self.read_outside(id).map_err(|e| self.read_err(&e))
    }

    fn read_outside(&self, id: gix::ObjectId) -> Result<Vec<OutsideFile>, String> {
        read_outside(&self.repo, id)
    }

    /// Whether `bytes` are the blob `id` (what a snapshot recorded, by hash).
    pub fn is_blob(&self, id: gix::ObjectId, bytes: &[u8]) -> bool {
        gix::objs::compute_hash(self.repo.object_hash(), gix::objs::Kind::Blob, bytes).is_ok_and(|o| o == id)
    }

    /// A stored blob's bytes.
    pub fn blob(&self, id: gix::ObjectId) -> Result<Vec<u8>, Error> {
        read::blob(&self.repo, id).map_err(|e| self.read_err(&e))
    }

    fn read_err(&self, e: &str) -> Error {
        Error::new(
            Kind::Io,
            format!("cannot read the history store {}: {e}", self.path.display()),
        )
    }

    /// A snapshot named by an id (7 or more hex digits), `@~N` (`@~0` the newest),
    /// or a time (`2026-03-10` = midnight UTC, RFC 3339, `3h`/`2d`/`30m`/`1w`
    /// before now): the newest snapshot at or before it.
    pub fn resolve(&self, spec: &str, log: &[Snap], now: DateTime<Utc>) -> Result<gix::ObjectId, Error> {
        let spec = spec.trim();
        let none =
            |what: String| Error::new(Kind::NotFound, what).hint("`memctl history` lists the snapshots and their ids");
        if let Some(n) = spec.strip_prefix("@~").or(if spec == "@" { Some("0") } else { None }) {
            let n: usize = n.parse().map_err(|_| {
                Error::new(Kind::Usage, format!("not a snapshot: {spec}")).hint("write @~N with a number N")
            })?;
            return log
                .get(n)
                .map(|s| s.id)
                .ok_or_else(|| none(format!("there are only {} snapshots: {spec}", log.len())));
        }
        if spec.len() >= 7 && spec.bytes().all(|b| b.is_ascii_hexdigit()) {
            let lower = spec.to_ascii_lowercase();
            let hits: Vec<&Snap> = log
                .iter()
                .filter(|s| s.id.to_hex().to_string().starts_with(&lower))
                .collect();
            return match hits.as_slice() {
                [one] => Ok(one.id),
                [] => Err(none(format!("no snapshot with id {spec}"))),
                _ => Err(
                    Error::new(Kind::Ambiguous, format!("more than one snapshot starts with {spec}"))
                        .hint("give more digits of the id"),
                ),
            };
        }
        let at = parse_time(spec, now).ok_or_else(|| {
            Error::new(Kind::Usage, format!("not a snapshot: {spec}"))
                .hint("give a snapshot id (7+ hex digits), @~N, a date (2026-03-10), a time (2026-03-10T12:00:00Z) or an age (3h, 2d)")
        })?;
        log.iter()
            .find(|s| s.time <= at.timestamp())
            .map(|s| s.id)
            .ok_or_else(|| {
                none(format!(
                    "no snapshot at or before {}",
                    at.format("%Y-%m-%d %H:%M:%S UTC")
                ))
            })
    }
}

/// The outside files a commit recorded (see [`Store::outside`]).
fn read_outside(repo: &gix::Repository, id: gix::ObjectId) -> Result<Vec<OutsideFile>, String> {
    let commit = repo.find_commit(id).map_err(|e| e.to_string())?;
    let tree = commit.tree().map_err(|e| e.to_string())?;
    let entry = |tree: &gix::Tree<'_>, name: &[u8]| -> Result<Option<gix::ObjectId>, String> {
        let decoded = tree.decode().map_err(|e| e.to_string())?;
        Ok(decoded
            .entries
            .iter()
            .find(|e| e.filename == name)
            .map(|e| e.oid.to_owned()))
    };
    let Some(meta) = entry(&tree, b".memctl")? else {
        return Ok(Vec::new());
    };
    let meta = repo.find_tree(meta).map_err(|e| e.to_string())?;
    let Some(dir) = entry(&meta, outside::DIR)? else {
        return Ok(Vec::new());
    };
    let dir = repo.find_tree(dir).map_err(|e| e.to_string())?;
    let Some(list) = entry(&dir, outside::LIST)? else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for l in outside::parse(&read::blob(repo, list)?) {
        let before = match (l.before_mtime, entry(&dir, l.name.as_bytes())?) {
            (Some(ns), Some(id)) => Some((read::blob(repo, id)?, ns)),
            _ => None,
        };
        out.push(OutsideFile {
            name: l.name,
            path: l.path,
            root: l.root,
            before,
            after: l.after,
        });
    }
    Ok(out)
}

/// What `undo`, `diff` and `restore` read from a snapshot, whether it is in the
/// store of the dir or in one set aside as unreadable ([`aside::Aside`]).
pub trait Reader {
    /// The files and lock a snapshot recorded.
    fn state(&self, id: gix::ObjectId) -> Result<State, Error>;
    /// A stored blob's bytes.
    fn blob(&self, id: gix::ObjectId) -> Result<Vec<u8>, Error>;
    /// The files outside the memory dir the snapshot recorded changing.
    fn outside(&self, id: gix::ObjectId) -> Result<Vec<OutsideFile>, Error>;
    /// Whether `bytes` are the blob `id`.
    fn is_blob(&self, id: gix::ObjectId, bytes: &[u8]) -> bool;
}

impl Reader for Store {
    fn state(&self, id: gix::ObjectId) -> Result<State, Error> {
        Store::state(self, id)
    }

    fn blob(&self, id: gix::ObjectId) -> Result<Vec<u8>, Error> {
        Store::blob(self, id)
    }

    fn outside(&self, id: gix::ObjectId) -> Result<Vec<OutsideFile>, Error> {
        Store::outside(self, id)
    }

    fn is_blob(&self, id: gix::ObjectId, bytes: &[u8]) -> bool {
        Store::is_blob(self, id, bytes)
    }
}

/// `2026-03-10`, an RFC 3339 time, or an age (`30m`, `3h`, `2d`, `1w`) before now.
fn parse_time(spec: &str, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    if let Ok(t) = DateTime::parse_from_rfc3339(spec) {
        return Some(t.with_timezone(&Utc));
    }
    if let Ok(d) = chrono::NaiveDate::parse_from_str(spec, "%Y-%m-%d") {
        return Some(d.and_hms_opt(0, 0, 0)?.and_utc());
    }
    let unit = spec.chars().last()?;
    let n: i64 = spec[..spec.len() - unit.len_utf8()].parse().ok()?;
    let secs = match unit {
        's' => 1,
        'm' => 60,
        'h' => 3600,
        'd' => 86_400,
        'w' => 7 * 86_400,
        _ => return None,
    };
    now.checked_sub_signed(chrono::TimeDelta::try_seconds(n.checked_mul(secs)?)?)
}
