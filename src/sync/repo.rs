//! The sync repository (SPEC §11.3): a bare git repository outside every memory
//! dir, `${XDG_STATE_HOME:-~/.local/state}/memctl/sync.git`, branch `main`, its
//! remote `origin`. Objects, trees, commits and refs through `gix` (as the history
//! store); fetch and push through the `git` binary ([`super::transport`]).
//!
//! Layout of a commit's tree: `projects/<identity, / as __>/` holds each project's
//! files, and `projects/<…>/.memctl/mtimes` their mtimes (the history store's
//! format), so a file added on one machine keeps its mtime on the others.

use std::collections::BTreeMap;
use std::fs::{self, File};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use gix::ObjectId;

use crate::bundle::{MAX_DEPTH, MAX_FILE_BYTES, MAX_PATHS};
use crate::error::{Error, Kind};
use crate::history::TreeNode;

pub const BRANCH: &str = "refs/heads/main";
pub const REMOTE_BRANCH: &str = "refs/remotes/origin/main";

/// One file of a project in a commit (or on disk): its blob and mtime.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Blob {
    pub oid: ObjectId,
    pub mtime_ns: i128,
    /// Whether the tree's `.memctl/mtimes` lists it (a file on disk: always).
    pub listed: bool,
}

/// A project's files by path below its memory dir.
pub type Files = BTreeMap<String, Blob>;

/// A project's tree as [`SyncRepo::walk`] read it: the files that travel, and the
/// dot paths (`.trash/`, `.memctl/<other than mtimes>`, `.git/`, `.x.md`) with
/// their objects, which memctl never writes into a memory dir (issue 29 point 9).
pub struct Walked {
    pub files: Files,
    pub reserved: BTreeMap<String, ObjectId>,
}

/// A tree past an incoming limit (issue 29 point 7).
fn over_limit(what: String) -> Error {
    Error::new(
        Kind::InvalidInput,
        format!("sync refused: a project tree from the remote is past memctl's limits: {what}; nothing was written or pushed"),
    )
    .hint("a project holds at most 100 000 paths, dirs 32 deep and 64 MiB per file; fix the remote, or restore it from this machine with `memctl sync --push-local`")
}

/// The open sync repository, its lock held while it lives.
pub struct SyncRepo {
    pub repo: gix::Repository,
    pub path: PathBuf,
    _lock: File,
}

fn io(what: &str, p: &Path, e: impl std::fmt::Display) -> Error {
    Error::new(Kind::Io, format!("{what}: {}: {e}", p.display()))
}

/// Where the sync repository lives: `$MEMCTL_SYNC_DIR` (tests, several
/// repositories on one machine), else `${XDG_STATE_HOME:-~/.local/state}/memctl/sync.git`.
pub fn default_path(env: &crate::paths::Env) -> Option<PathBuf> {
    let nonempty = |k: &str| env.get_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    nonempty("MEMCTL_SYNC_DIR")
        .or_else(|| nonempty("XDG_STATE_HOME").map(|s| s.join("memctl/sync.git")))
        .or_else(|| {
            env.home()
                .map(|h| PathBuf::from(h).join(".local/state/memctl/sync.git"))
        })
}

impl SyncRepo {
    /// Open the repository at `path`, creating it (bare, `HEAD` → `main`) when
    /// absent; `<path>/memctl.lock` is taken first (one sync at a time).
    pub fn open(path: &Path) -> Result<SyncRepo, Error> {
        fs::create_dir_all(path).map_err(|e| io("cannot create the sync repository", path, e))?;
        let lock = take_lock(path)?;
        remove_stale_git_locks(path);
        if !path.join("HEAD").exists() {
            init(path)?;
        }
        let repo = gix::open(path).map_err(|e| io("cannot open the sync repository", path, e))?;
        Ok(SyncRepo {
            repo,
            path: path.to_path_buf(),
            _lock: lock,
        })
    }

    /// Read the repository again (after `git fetch` changed refs and packs).
    pub fn reopen(&mut self) -> Result<(), Error> {
        self.repo = gix::open(&self.path).map_err(|e| io("cannot open the sync repository", &self.path, e))?;
        Ok(())
    }

    /// `remote.origin.url`, if set.
    pub fn remote_url(&self) -> Option<String> {
        self.repo
            .config_snapshot()
            .string("remote.origin.url")
            .map(|v| v.to_string())
            .filter(|v| !v.is_empty())
    }

    pub fn ref_id(&self, name: &str) -> Option<ObjectId> {
        let r = self.repo.find_reference(name).ok()?;
        r.target().try_id().map(ToOwned::to_owned)
    }

    /// Point `name` at `id` (the object exists: refs only move after it).
    pub fn set_ref(&self, name: &str, id: ObjectId, why: &str) -> Result<(), Error> {
        use gix::refs::transaction::PreviousValue;
        self.repo
            .reference(name, id, PreviousValue::Any, why)
            .map(|_| ())
            .map_err(|e| io("cannot update a ref of the sync repository", &self.path, e))
    }

    /// The ref holding the commit this machine last brought `identity` to agree with
    /// (the base of the next three-way merge).
    pub fn synced_ref(identity: &str) -> String {
        format!("refs/memctl/synced/{}", crate::bundle::sha256_hex(identity.as_bytes()))
    }

    fn root_entries(&self, commit: ObjectId) -> Result<BTreeMap<String, ObjectId>, Error> {
        let err = |e: &dyn std::fmt::Display| io("cannot read the sync repository", &self.path, e);
        let c = self.repo.find_commit(commit).map_err(|e| err(&e))?;
        let tree = c.tree_id().map_err(|e| err(&e))?.detach();
        let mut out = BTreeMap::new();
        let t = self.repo.find_tree(tree).map_err(|e| err(&e))?;
        let Some(projects) = t
            .decode()
            .map_err(|e| err(&e))?
            .entries
            .iter()
            .find(|e| e.filename == b"projects".as_slice() && e.mode.is_tree())
            .map(|e| e.oid.to_owned())
        else {
            return Ok(out);
        };
        let t = self.repo.find_tree(projects).map_err(|e| err(&e))?;
        for e in &t.decode().map_err(|e| err(&e))?.entries {
            if e.mode.is_tree() {
                out.insert(String::from_utf8_lossy(e.filename).into_owned(), e.oid.to_owned());
            }
        }
        Ok(out)
    }

    /// The member dirs (`github.com__alice__app`) of a commit and their trees.
    pub fn projects(&self, commit: Option<ObjectId>) -> Result<BTreeMap<String, ObjectId>, Error> {
        match commit {
            Some(c) => self.root_entries(c),
            None => Ok(BTreeMap::new()),
        }
    }

    /// The files of one project's tree, with the mtimes of its `.memctl/mtimes`.
    /// Symlinks, names that cannot travel and dot paths are left out.
    pub fn files(&self, tree: ObjectId) -> Result<Files, Error> {
        Ok(self.walk(tree)?.files)
    }

    /// Walk one project's tree within the incoming limits ([`crate::bundle::MAX_PATHS`]
    /// entries, [`crate::bundle::MAX_DEPTH`] nested dirs, [`crate::bundle::MAX_FILE_BYTES`]
    /// per memory file, read from the object header before any byte of it): past
    /// one, the walk stops and the tree is refused. Memory files travel (`.md` blobs
    /// with safe names); dot paths are set aside in [`Walked::reserved`].
    pub fn walk(&self, tree: ObjectId) -> Result<Walked, Error> {
        let mut w = Walk {
            r: self,
            paths: 0,
            blobs: Vec::new(),
            reserved: BTreeMap::new(),
            mtimes: BTreeMap::new(),
        };
        let mut stack = vec![(tree, String::new(), 0usize)];
        while let Some((id, prefix, depth)) = stack.pop() {
            if depth > MAX_DEPTH {
                return Err(over_limit(format!(
                    "its dirs nest more than {MAX_DEPTH} deep ({prefix}/…)"
                )));
            }
            let t = self.repo.find_tree(id).map_err(|e| self.read_err(&e))?;
            // Entry by entry: one huge tree object stops at the limit too.
            for e in t.iter() {
                let e = e.map_err(|e| self.read_err(&e))?.inner;
                w.count()?;
                if let Some((rel, dir)) = w.entry(e, &prefix)? {
                    stack.push((dir, rel, depth + 1));
                }
            }
        }
        Ok(w.done())
    }

    fn read_err(&self, e: &dyn std::fmt::Display) -> Error {
        io("cannot read the sync repository", &self.path, e)
    }

    /// An object's size from its header (nothing of its data is read).
    fn size_of(&self, id: ObjectId) -> Result<u64, Error> {
        self.repo
            .find_header(id)
            .map(|h| h.size())
            .map_err(|e| io("cannot read the sync repository", &self.path, e))
    }

    pub fn blob(&self, id: ObjectId) -> Result<Vec<u8>, Error> {
        crate::history::read_blob(&self.repo, id).map_err(|e| io("cannot read the sync repository", &self.path, e))
    }

    pub fn write_blob(&self, bytes: &[u8]) -> Result<ObjectId, Error> {
        self.repo
            .write_blob(bytes)
            .map(|id| id.detach())
            .map_err(|e| io("cannot write into the sync repository", &self.path, e))
    }

    /// Write one project's tree: its files and `.memctl/mtimes`.
    pub fn write_project(&self, files: &Files) -> Result<ObjectId, Error> {
        let kind = gix::objs::tree::EntryKind::Blob;
        let mut node = TreeNode::default();
        for (rel, b) in files {
            node.insert(rel.as_bytes(), kind, b.oid);
        }
        let mtimes: Vec<(Vec<u8>, i128)> = files.iter().map(|(r, b)| (r.as_bytes().to_vec(), b.mtime_ns)).collect();
        let m = self.write_blob(&crate::history::render_mtimes(&mtimes))?;
        node.insert(b".memctl/mtimes", kind, m);
        node.write(&self.repo)
            .map_err(|e| io("cannot write into the sync repository", &self.path, e))
    }

    /// Write the root tree holding `projects` (member dir → project tree).
    pub fn write_root(&self, projects: &BTreeMap<String, ObjectId>) -> Result<ObjectId, Error> {
        let mut node = TreeNode::default();
        for (m, oid) in projects {
            node.insert(
                format!("projects/{m}").as_bytes(),
                gix::objs::tree::EntryKind::Tree,
                *oid,
            );
        }
        node.write(&self.repo)
            .map_err(|e| io("cannot write into the sync repository", &self.path, e))
    }

    pub fn tree_of(&self, commit: ObjectId) -> Option<ObjectId> {
        self.repo.find_commit(commit).ok()?.tree_id().ok().map(|t| t.detach())
    }

    /// Write a commit with `parents` (objects first; no ref moves).
    pub fn commit(
        &self,
        tree: ObjectId,
        parents: &[ObjectId],
        message: &str,
        now: DateTime<Utc>,
    ) -> Result<ObjectId, Error> {
        let sig = gix::actor::Signature {
            name: "memctl".into(),
            email: "memctl@localhost".into(),
            time: gix::date::Time::new(now.timestamp(), 0),
        };
        let c = gix::objs::Commit {
            tree,
            parents: parents.iter().copied().collect(),
            author: sig.clone(),
            committer: sig,
            encoding: None,
            message: message.into(),
            extra_headers: Vec::new(),
        };
        self.repo
            .write_object(&c)
            .map(|id| id.detach())
            .map_err(|e| io("cannot write into the sync repository", &self.path, e))
    }

    /// The message of a commit.
    pub fn message(&self, id: ObjectId) -> Option<String> {
        let c = self.repo.find_commit(id).ok()?;
        Some(c.message_raw().ok()?.to_string())
    }

    /// The `Machine:` trailer of a commit.
    pub fn machine_of(&self, id: ObjectId) -> Option<String> {
        trailer(&self.message(id)?, "Machine")
    }

    /// The `Machine:` of the commit that brought `oid` as `rel` of project `member`
    /// into `tip`'s history: followed from `tip` through the parents that hold the
    /// same blob, to the first commit none of whose parents does (at most 10 000).
    pub fn machine_that_wrote(&self, tip: ObjectId, member: &str, rel: &str, oid: ObjectId) -> Option<String> {
        let holds = |c: ObjectId| -> bool {
            self.projects(Some(c))
                .ok()
                .and_then(|p| p.get(member).copied())
                .and_then(|tree| self.files(tree).ok())
                .is_some_and(|f| f.get(rel).is_some_and(|b| b.oid == oid))
        };
        let mut at = tip;
        for _ in 0..10_000 {
            let c = self.repo.find_commit(at).ok()?;
            let parents: Vec<ObjectId> = c.parent_ids().map(|p| p.detach()).collect();
            match parents.into_iter().find(|p| holds(*p)) {
                Some(p) => at = p,
                None => return self.machine_of(at),
            }
        }
        None
    }

    /// Drop every project's merge base (the remote changed: its history is
    /// another one, and the next sync is a first sync).
    pub fn forget_synced(&self) -> Result<(), Error> {
        let err = |e: &dyn std::fmt::Display| io("cannot update a ref of the sync repository", &self.path, e);
        let refs = self.repo.references().map_err(|e| err(&e))?;
        let names: Vec<String> = refs
            .prefixed("refs/memctl/synced/")
            .map_err(|e| err(&e))?
            .filter_map(Result::ok)
            .map(|r| r.name().as_bstr().to_string())
            .collect();
        for name in names {
            if let Ok(r) = self.repo.find_reference(name.as_str()) {
                r.delete().map_err(|e| err(&e))?;
            }
        }
        Ok(())
    }

    /// Every project's merge base: the ref names under `refs/memctl/synced/` and
    /// their commits.
    pub fn synced_refs(&self) -> Result<Vec<(String, ObjectId)>, Error> {
        let err = |e: &dyn std::fmt::Display| io("cannot read the refs of the sync repository", &self.path, e);
        let refs = self.repo.references().map_err(|e| err(&e))?;
        let names: Vec<String> = refs
            .prefixed("refs/memctl/synced/")
            .map_err(|e| err(&e))?
            .filter_map(Result::ok)
            .map(|r| r.name().as_bstr().to_string())
            .collect();
        Ok(names
            .into_iter()
            .filter_map(|n| self.ref_id(&n).map(|id| (n, id)))
            .collect())
    }

    /// Whether `ancestor` is `tip` or reachable from it through parents (each
    /// commit looked at once; a commit that cannot be read ends its line).
    pub fn descends(&self, tip: ObjectId, ancestor: ObjectId) -> bool {
        let mut seen = std::collections::HashSet::new();
        let mut stack = vec![tip];
        while let Some(id) = stack.pop() {
            if id == ancestor {
                return true;
            }
            if !seen.insert(id) {
                continue;
            }
            if let Ok(c) = self.repo.find_commit(id) {
                stack.extend(c.parent_ids().map(|p| p.detach()));
            }
        }
        false
    }

    /// The git object id of `bytes` as a blob (nothing written).
    pub fn hash(&self, bytes: &[u8]) -> ObjectId {
        gix::objs::compute_hash(self.repo.object_hash(), gix::objs::Kind::Blob, bytes)
            .unwrap_or_else(|_| ObjectId::null(self.repo.object_hash()))
    }
}

/// A walk of one project's tree under way ([`SyncRepo::walk`]): the paths counted
/// so far, and what it found.
struct Walk<'r> {
    r: &'r SyncRepo,
    paths: usize,
    blobs: Vec<(String, ObjectId)>,
    reserved: BTreeMap<String, ObjectId>,
    mtimes: BTreeMap<Vec<u8>, i128>,
}

impl Walk<'_> {
    /// Count one more path (file or dir): past [`MAX_PATHS`] the tree is refused.
    fn count(&mut self) -> Result<(), Error> {
        self.paths += 1;
        if self.paths > MAX_PATHS {
            return Err(over_limit(format!(
                "it holds more than {MAX_PATHS} paths (files and dirs)"
            )));
        }
        Ok(())
    }

    /// One entry of a dir at `prefix`: a memory file is kept, `.memctl/` read, a
    /// dot path set aside; a dir to walk is returned (its path and tree).
    fn entry(&mut self, e: gix::objs::tree::EntryRef<'_>, prefix: &str) -> Result<Option<(String, ObjectId)>, Error> {
        let Ok(name) = std::str::from_utf8(e.filename) else {
            return Ok(None);
        };
        let rel = if prefix.is_empty() {
            name.to_string()
        } else {
            format!("{prefix}/{name}")
        };
        let oid = e.oid.to_owned();
        if prefix.is_empty() && name == ".memctl" && e.mode.is_tree() {
            self.memctl_dir(oid)?;
        } else if name.starts_with('.') {
            let memoryish = e.mode.is_tree() || (e.mode.is_blob() && name.ends_with(".md"));
            if memoryish {
                self.reserved.insert(rel, oid);
            }
        } else if e.mode.is_tree() {
            return Ok(Some((rel, oid)));
        } else if e.mode.is_blob() && crate::bundle::safe_path(&rel) && name.ends_with(".md") {
            self.check_size(oid, &rel)?;
            self.blobs.push((rel, oid));
        }
        Ok(None)
    }

    /// The project's `.memctl/` dir: its `mtimes` read, memory-like entries set aside.
    fn memctl_dir(&mut self, tree: ObjectId) -> Result<(), Error> {
        let t = self.r.repo.find_tree(tree).map_err(|e| self.r.read_err(&e))?;
        for m in t.iter() {
            let m = m.map_err(|e| self.r.read_err(&e))?.inner;
            self.count()?;
            let Ok(mname) = std::str::from_utf8(m.filename) else {
                continue;
            };
            if mname == "mtimes" && m.mode.is_blob() {
                self.check_size(m.oid.to_owned(), ".memctl/mtimes")?;
                self.mtimes = crate::history::parse_mtimes(&self.r.blob(m.oid.to_owned())?);
            } else if m.mode.is_tree() || mname.ends_with(".md") {
                self.reserved.insert(format!(".memctl/{mname}"), m.oid.to_owned());
            }
        }
        Ok(())
    }

    /// A file past [`MAX_FILE_BYTES`] (read from the object header) is refused.
    fn check_size(&self, oid: ObjectId, rel: &str) -> Result<(), Error> {
        let size = self.r.size_of(oid)?;
        if size > MAX_FILE_BYTES {
            return Err(over_limit(format!(
                "{rel} is {size} bytes, over the limit of {} MiB per file",
                MAX_FILE_BYTES >> 20
            )));
        }
        Ok(())
    }

    /// The files found, each with its mtime when `.memctl/mtimes` lists it.
    fn done(self) -> Walked {
        let mtimes = self.mtimes;
        let files = self
            .blobs
            .into_iter()
            .map(|(rel, oid)| {
                let listed = mtimes.get(rel.as_bytes()).copied();
                let b = Blob {
                    oid,
                    mtime_ns: listed.unwrap_or(0),
                    listed: listed.is_some(),
                };
                (rel, b)
            })
            .collect();
        Walked {
            files,
            reserved: self.reserved,
        }
    }
}

/// The value of `key:` in the trailer lines of a commit message.
pub fn trailer(message: &str, key: &str) -> Option<String> {
    message.lines().rev().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        (k.trim() == key).then(|| v.trim().to_string())
    })
}

fn take_lock(repo: &Path) -> Result<File, Error> {
    let lock_path = repo.join("memctl.lock");
    // Never blocks: a FIFO or a symlink put there is refused (issue 29 point 10).
    let f = crate::store::open_lock(&lock_path, "the sync lock")?;
    let wait = std::time::Duration::from_secs(10);
    match crate::store::lock_within(&f, wait, std::time::Duration::from_millis(20)) {
        Ok(true) => Ok(f),
        Ok(false) => Err(
            Error::new(Kind::Busy, format!("another sync is running: {}", lock_path.display()))
                .hint("wait for it to finish; the lock file is that sync's"),
        ),
        Err(e) => Err(io("cannot lock the sync repository", &lock_path, e)),
    }
}

/// Remove the lock files git and gix leave in the sync repository `path` when a
/// sync is killed while they write (`HEAD.lock`, `config.lock`,
/// `packed-refs.lock`, `index.lock`, `shallow.lock`, and any `refs/**/*.lock`:
/// `git fetch` locks `refs/remotes/origin/main` to update it, memctl's writes its
/// own refs). Only memctl runs git here, under the sync lock the caller holds:
/// whatever lock is left is a killed writer's, and would stop every later sync
/// ("cannot lock ref ... File exists"). Symlinks are not followed.
fn remove_stale_git_locks(path: &Path) {
    let is_file = |p: &Path| fs::symlink_metadata(p).is_ok_and(|m| m.is_file());
    for rel in [
        "HEAD.lock",
        "config.lock",
        "packed-refs.lock",
        "index.lock",
        "shallow.lock",
    ] {
        let p = path.join(rel);
        if is_file(&p) {
            let _ = fs::remove_file(&p);
        }
    }
    // refs/ is memctl's few refs deep; a deeper tree is not walked further.
    let mut dirs = vec![(path.join("refs"), 0)];
    while let Some((dir, depth)) = dirs.pop() {
        let Ok(entries) = fs::read_dir(&dir) else { continue };
        for e in entries.flatten() {
            let Ok(t) = e.file_type() else { continue };
            let p = e.path();
            if t.is_dir() && depth < 8 {
                dirs.push((p, depth + 1));
            } else if t.is_file() && p.extension().is_some_and(|x| x == "lock") {
                let _ = fs::remove_file(&p);
            }
        }
    }
}

/// Make a bare repository at `path` (which holds only the lock so far): built
/// beside it and moved in, `HEAD` last, so a kill leaves no half repository.
fn init(path: &Path) -> Result<(), Error> {
    let err = |e: &dyn std::fmt::Display| io("cannot create the sync repository", path, e);
    let tmp = path.with_extension(format!("git.new-{}", std::process::id()));
    let _ = fs::remove_dir_all(&tmp);
    gix::init_bare(&tmp).map_err(|e| err(&e))?;
    let config = tmp.join("config");
    let mut text = crate::fsread::read_small_text(&config).unwrap_or_default();
    text.push_str("[memctl]\n\tformat = 1\n\tkind = sync\n");
    fs::write(&config, text).map_err(|e| err(&e))?;
    fs::write(tmp.join("HEAD"), "ref: refs/heads/main\n").map_err(|e| err(&e))?;
    for e in fs::read_dir(path).map_err(|e| err(&e))?.flatten() {
        if e.file_name() != "memctl.lock" {
            let p = e.path();
            let _ = fs::remove_dir_all(&p).or_else(|_| fs::remove_file(&p));
        }
    }
    for e in fs::read_dir(&tmp).map_err(|e| err(&e))?.flatten() {
        if e.file_name() != "HEAD" {
            fs::rename(e.path(), path.join(e.file_name())).map_err(|e| err(&e))?;
        }
    }
    fs::rename(tmp.join("HEAD"), path.join("HEAD")).map_err(|e| err(&e))?;
    let _ = fs::remove_dir(&tmp);
    Ok(())
}
