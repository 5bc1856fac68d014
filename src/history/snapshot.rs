//! Taking a snapshot: compare the dir with the last one cheaply (size, mtime and
//! inode against a cache; only files that differ are hashed), and when anything
//! changed, write the blobs, the trees and one commit.

use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::path::Path;

use chrono::{DateTime, Utc};
use gix::ObjectId;

use super::Store;
use super::outside::{self, OutsideChange};
use super::read::{self, Change, FileState, State};
use super::tracked::{self, OnDisk};
use crate::error::{Error, Kind};

/// What made a change (SPEC §8.1 `Trigger:`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trigger {
    Baseline,
    External,
    Dream,
    Claude,
    /// One of memctl's own writes, by its trigger name (`add`, `forget`, …).
    Own(&'static str),
}

impl Trigger {
    pub fn as_str(self) -> &'static str {
        match self {
            Trigger::Baseline => "baseline",
            Trigger::External => "external",
            Trigger::Dream => "dream",
            Trigger::Claude => "claude",
            Trigger::Own(s) => s,
        }
    }
}

/// What [`Store::snapshot`] recorded.
#[derive(Debug)]
pub struct Recorded {
    pub id: ObjectId,
    pub trigger: Trigger,
    pub changes: Vec<Change>,
}

/// A request for one snapshot.
pub struct Request<'a> {
    /// `None`: changes memctl did not make (`external`, `dream` when the lock's
    /// mtime moved, `claude` when `claude` is set).
    pub trigger: Option<Trigger>,
    pub recorded_by: &'a str,
    pub message: Option<&'a str>,
    pub details: &'a [(&'a str, String)],
    pub claude: bool,
    pub now: DateTime<Utc>,
}

const CACHE: &str = "memctl-cache";

impl Store {
    /// Record the dir `main` if it differs from the last snapshot. `Ok(None)`:
    /// nothing changed.
    pub fn snapshot(&mut self, main: &Path, req: &Request) -> Result<Option<Recorded>, Error> {
        self.snapshot_with(main, req, &[])
    }

    /// [`Store::snapshot`] of what [`tracked::walk`] (or
    /// [`tracked::walk_visiting`]) found below `main` with this store open, and
    /// the warnings it made: a caller that walks the dir for its own check too
    /// walks it once (the SessionStart hook, SPEC v3 §7.2).
    pub fn snapshot_walked(
        &mut self,
        main: &Path,
        req: &Request,
        walked: (Vec<OnDisk>, Vec<String>),
    ) -> Result<Option<Recorded>, Error> {
        self.record(main, req, &[], Some(walked))
    }

    /// [`Store::snapshot`] that also keeps `outside`, the files outside the dir the
    /// command changed, in the snapshot's `.memctl/outside/` (their previous bytes,
    /// for `undo`): a snapshot is taken when only they changed, too.
    pub fn snapshot_with(
        &mut self,
        main: &Path,
        req: &Request,
        outside: &[OutsideChange],
    ) -> Result<Option<Recorded>, Error> {
        self.record(main, req, outside, None)
    }

    fn record(
        &mut self,
        main: &Path,
        req: &Request,
        outside: &[OutsideChange],
        walked: Option<(Vec<OnDisk>, Vec<String>)>,
    ) -> Result<Option<Recorded>, Error> {
        let mut head = self.head_id();
        let walked = walked.unwrap_or_else(|| {
            let mut skipped = Vec::new();
            (tracked::walk(main, &mut skipped), skipped)
        });
        // Nothing changed, as the stat cache vouches for every file of the last
        // snapshot: no need to load that snapshot's state from its tree (at
        // 20 000 files most of an unchanged snapshot's time; SPEC v3 §7.2).
        if let Some(h) = head
            && outside.is_empty()
            && cache_vouches(&self.path, h, &walked.0, main)
        {
            self.warnings.extend(walked.1);
            self.torn.clear();
            self.unreadable.clear();
            self.streamed.clear();
            return Ok(None);
        }
        // The stat cache, and the snapshot's state when the cache is complete for
        // it (every file's blob, link flag and mtime, and the lock): at 20 000
        // files that spares the tree and the mtimes blob a write's snapshot would
        // otherwise inflate and parse first (SPEC v3 §7.2: ≤ 60 ms).
        let (cache, cached_state) = read_cache_full(&self.path, head);
        let prev = match (head, self.head.take(), cached_state) {
            (Some(h), Some((id, st)), _) if id == h => st,
            (Some(_), _, Some(st)) => st,
            (Some(h), _, None) => match read::load_state(&self.repo, h) {
                Ok(st) => st,
                // Opened without loading it ([`Store::open_for_snapshot`]): a
                // snapshot that cannot be read makes the store corrupt, as when
                // opening loads it.
                Err(_) => {
                    self.start_over(req.now)?;
                    head = self.head_id();
                    match head {
                        Some(h) => read::load_state(&self.repo, h).map_err(|e| io(self, &e))?,
                        None => State::default(),
                    }
                }
            },
            (None, _, _) => State::default(),
        };
        let cache = if head == self.head_id() {
            cache
        } else {
            Default::default()
        };
        let (mut files, mut now_state, mut fresh) = self.scan_cached(main, cache, &prev, Some(walked))?;
        // memctl's own after-snapshot follows its own write (under its lock): an
        // index it shrank is not another program's half-write.
        let own = matches!(req.trigger, Some(Trigger::Own(_)));
        self.torn.clear();
        let unsettled = self.set_aside_torn(main, &prev, own, &mut files, &mut now_state, &mut fresh);
        if let Some(h) = head
            && now_state == prev
            && outside.is_empty()
        {
            if !fresh.is_empty() || !self.streamed.is_empty() {
                write_cache(&self.path, head, &files, &now_state);
            }
            self.head = Some((h, prev));
            return Ok(None);
        }
        let trigger = match (head, req.trigger) {
            (None, _) => Trigger::Baseline,
            (Some(_), Some(t)) => t,
            (Some(_), None) if req.claude => Trigger::Claude,
            (Some(_), None)
                if prev.lock.as_ref().map(|l| l.mtime_ns) != now_state.lock.as_ref().map(|l| l.mtime_ns) =>
            {
                Trigger::Dream
            }
            (Some(_), None) => Trigger::External,
        };
        for (rel, bytes) in &fresh {
            if now_state.files.contains_key(rel) {
                self.repo.write_blob(bytes).map_err(|e| io(self, &e.to_string()))?;
            }
        }
        for f in &files {
            if self.streamed.contains(&f.rel)
                && let Some(s) = now_state.files.get(&f.rel)
                && !gix::objs::Exists::exists(&self.repo.objects, &s.oid)
            {
                self.write_stream(main, f, s.oid)?;
            }
        }
        let changes = read::changes(&prev, &now_state);
        let tree = self.write_tree(&now_state, outside)?;
        let mut message = message(trigger, req, &changes, outside);
        for rel in &unsettled {
            message.push_str(&format!(
                "Unsettled: {}\n",
                String::from_utf8_lossy(rel).replace(['\n', '\r'], " ")
            ));
        }
        for rel in &self.unreadable {
            message.push_str(&format!(
                "Unreadable: {}\n",
                String::from_utf8_lossy(rel).replace(['\n', '\r'], " ")
            ));
        }
        let sig_time = format!("{} +0000", req.now.timestamp());
        let sig = gix::actor::SignatureRef {
            name: "memctl".into(),
            email: "memctl@localhost".into(),
            time: &sig_time,
        };
        let id = self
            .repo
            .commit_as(sig, sig, "refs/heads/main", message, tree, head)
            .map_err(|e| io(self, &e.to_string()))?
            .detach();
        write_cache(&self.path, Some(id), &files, &now_state);
        self.head = Some((id, now_state));
        Ok(Some(Recorded { id, trigger, changes }))
    }

    /// A snapshot never records a state that may be torn (SPEC v3 §8.1): a file
    /// whose size or mtime changed while it was read, or a `MEMORY.md` that shrank
    /// since the last snapshot and changed within the last second
    /// ([`crate::store::settle::young`]), is recorded as it was in the last
    /// snapshot (or not at all if it was not in it) and left out of the cache, so
    /// the next snapshot records it once settled (`own`: memctl's after-snapshot,
    /// where only a change during the read counts). Never waits (the hook snapshots
    /// within its latency budget). Returns the unsettled paths.
    fn set_aside_torn(
        &mut self,
        main: &Path,
        prev: &State,
        own: bool,
        files: &mut Vec<OnDisk>,
        state: &mut State,
        fresh: &mut HashMap<Vec<u8>, Vec<u8>>,
    ) -> Vec<Vec<u8>> {
        use std::os::unix::ffi::OsStrExt;
        let mut unsettled = Vec::new();
        for f in files.iter() {
            let bytes = match fresh.get(&f.rel) {
                Some(b) => b.as_slice(),
                None if self.streamed.contains(&f.rel) => &[],
                None => continue,
            };
            let path = main.join(std::ffi::OsStr::from_bytes(&f.rel));
            let moved = fs::symlink_metadata(&path)
                .map(|m| (m.len(), super::tracked::mtime_ns(&m)))
                .ok()
                != Some((f.size, f.mtime_ns));
            let is_index = f.rel == b"MEMORY.md" || f.rel.ends_with(b"/MEMORY.md");
            let shrank = is_index
                && !own
                && prev
                    .files
                    .get(&f.rel)
                    .is_some_and(|p| read::blob(&self.repo, p.oid).is_ok_and(|old| bytes.len() < old.len()))
                && crate::store::settle::young(&path);
            if (moved && !f.link) || shrank {
                unsettled.push(f.rel.clone());
            }
            // The settled copy a write of this index must not lose lines of.
            if is_index
                && (moved || shrank)
                && let Some(p) = prev.files.get(&f.rel)
                && let Ok(old) = read::blob(&self.repo, p.oid)
            {
                self.torn.insert(f.rel.clone(), old);
            }
        }
        for rel in &unsettled {
            fresh.remove(rel);
            self.streamed.remove(rel);
            match prev.files.get(rel) {
                Some(p) => {
                    state.files.insert(rel.clone(), p.clone());
                }
                None => {
                    state.files.remove(rel);
                }
            }
        }
        files.retain(|f| !unsettled.contains(&f.rel));
        unsettled
    }

    /// The dir `main` now: its tracked files (as walked), their state, and the
    /// bytes of the files the cache could not vouch for (hashed, not yet stored).
    /// A file that cannot be read (permissions, a read error, a FIFO or other
    /// special file where a memory was) is not deleted: it keeps its entry of
    /// `prev`, the last snapshot (or stays out when `prev` lacks it), is named in
    /// [`Store::unreadable`] and a warning, and is never cached (issue 29 point 14).
    #[allow(clippy::type_complexity)]
    pub(super) fn scan(
        &mut self,
        main: &Path,
        head: Option<ObjectId>,
        prev: &State,
        walked: Option<(Vec<OnDisk>, Vec<String>)>,
    ) -> Result<(Vec<OnDisk>, State, HashMap<Vec<u8>, Vec<u8>>), Error> {
        self.scan_cached(main, read_cache(&self.path, head), prev, walked)
    }

    /// [`Store::scan`] with the stat cache already read.
    #[allow(clippy::type_complexity)]
    fn scan_cached(
        &mut self,
        main: &Path,
        cache: crate::fx::HashMap<Vec<u8>, CacheEntry>,
        prev: &State,
        walked: Option<(Vec<OnDisk>, Vec<String>)>,
    ) -> Result<(Vec<OnDisk>, State, HashMap<Vec<u8>, Vec<u8>>), Error> {
        use std::os::unix::ffi::OsStrExt;
        let (mut files, skipped) = walked.unwrap_or_else(|| {
            let mut skipped = Vec::new();
            (tracked::walk(main, &mut skipped), skipped)
        });
        self.warnings.extend(skipped);
        let mut unreadable: Vec<(Vec<u8>, String)> = Vec::new();
        self.streamed.clear();
        let mut fresh: HashMap<Vec<u8>, Vec<u8>> = HashMap::new();
        // `files` is sorted by path: the state is built from the sorted list at
        // once, not searched for each insert.
        let lock = tracked::lock_state(main);
        let mut now: Vec<(Vec<u8>, FileState)> = Vec::with_capacity(files.len());
        for f in &files {
            let oid = match cache.get(&f.rel) {
                Some(c) if c.0 == f.size && c.1 == f.mtime_ns && c.2 == f.ctime_ns && c.3 == f.ino && c.4 == f.link => {
                    c.5
                }
                _ if streams(f) => match stream_hash(main, f, self.repo.object_hash()) {
                    Ok(oid) => {
                        self.streamed.insert(f.rel.clone());
                        oid
                    }
                    Err(_) if fs::symlink_metadata(main.join(std::ffi::OsStr::from_bytes(&f.rel))).is_err() => {
                        continue;
                    }
                    Err(e) => {
                        unreadable.push((f.rel.clone(), e.to_string()));
                        continue;
                    }
                },
                _ => {
                    let bytes = match tracked::read(main, f) {
                        Ok(b) => b,
                        // A file that vanished between the walk and the read is not tracked.
                        Err(_) if fs::symlink_metadata(main.join(std::ffi::OsStr::from_bytes(&f.rel))).is_err() => {
                            continue;
                        }
                        Err(e) => {
                            unreadable.push((f.rel.clone(), e.to_string()));
                            continue;
                        }
                    };
                    let oid = gix::objs::compute_hash(self.repo.object_hash(), gix::objs::Kind::Blob, &bytes)
                        .map_err(|e| io(self, &e.to_string()))?;
                    fresh.insert(f.rel.clone(), bytes);
                    oid
                }
            };
            now.push((
                f.rel.clone(),
                FileState {
                    oid,
                    link: f.link,
                    mtime_ns: f.mtime_ns,
                },
            ));
        }
        let mut state = State {
            files: now.into_iter().collect(),
            lock,
        };
        // A recorded memory that is now a FIFO, socket or device (the walk leaves
        // those out) cannot be read either. Both key lists are sorted: one pass.
        let mut keys = state.files.keys().peekable();
        for rel in prev.files.keys() {
            while keys.next_if(|k| *k < rel).is_some() {}
            if keys.peek() == Some(&rel) || files.iter().any(|f| &f.rel == rel) {
                continue;
            }
            if fs::symlink_metadata(main.join(std::ffi::OsStr::from_bytes(rel)))
                .is_ok_and(|m| !m.is_dir() && !m.is_file() && !m.file_type().is_symlink())
            {
                unreadable.push((rel.clone(), "not a regular file".into()));
            }
        }
        self.unreadable.clear();
        for (rel, why) in unreadable {
            let shown = String::from_utf8_lossy(&rel).into_owned();
            match prev.files.get(&rel) {
                Some(p) => {
                    state.files.insert(rel.clone(), p.clone());
                    self.warnings.push(format!(
                        "{shown}: cannot be read ({why}); history keeps it as last recorded, not as deleted"
                    ));
                }
                None => self
                    .warnings
                    .push(format!("{shown}: cannot be read ({why}); it is not recorded")),
            }
            self.unreadable.push(rel);
        }
        files.retain(|f| !self.unreadable.contains(&f.rel));
        Ok((files, state, fresh))
    }

    /// The trees of a state: the files at their paths, `.memctl/` with the mtimes
    /// and the lock.
    fn write_tree(&self, state: &State, outside: &[OutsideChange]) -> Result<ObjectId, Error> {
        let mut root = Node::default();
        for (rel, f) in &state.files {
            let mode = if f.link {
                gix::objs::tree::EntryKind::Link
            } else {
                gix::objs::tree::EntryKind::Blob
            };
            root.insert(rel, mode, f.oid);
        }
        let mtimes: Vec<(Vec<u8>, i128)> = state.files.iter().map(|(r, f)| (r.clone(), f.mtime_ns)).collect();
        let mut meta = Node::default();
        let blob = |bytes: Vec<u8>| {
            self.repo
                .write_blob(bytes)
                .map(|id| id.detach())
                .map_err(|e| io(self, &e.to_string()))
        };
        meta.insert(
            b"mtimes",
            gix::objs::tree::EntryKind::Blob,
            blob(read::render_mtimes(&mtimes))?,
        );
        if let Some(lock) = &state.lock {
            meta.insert(
                b"consolidate-lock",
                gix::objs::tree::EntryKind::Blob,
                blob(read::render_lock(lock))?,
            );
        }
        if !outside.is_empty() {
            let names = outside::names(outside);
            let mut dir = Node::default();
            let mut after = Vec::new();
            for (c, name) in outside.iter().zip(&names) {
                if let Some((bytes, _)) = &c.before {
                    dir.insert(name.as_bytes(), gix::objs::tree::EntryKind::Blob, blob(bytes.clone())?);
                }
                after.push(match &c.after {
                    Some(bytes) => Some(
                        gix::objs::compute_hash(self.repo.object_hash(), gix::objs::Kind::Blob, bytes)
                            .map_err(|e| io(self, &e.to_string()))?,
                    ),
                    None => None,
                });
            }
            dir.insert(
                outside::LIST,
                gix::objs::tree::EntryKind::Blob,
                blob(outside::render(outside, &names, &after))?,
            );
            meta.dirs.insert(outside::DIR.to_vec(), dir);
        }
        root.dirs.insert(b".memctl".to_vec(), meta);
        root.write(&self.repo).map_err(|e| io(self, &e))
    }
}

/// A tree being built: files at `/`-separated paths (a path may name a subtree
/// with the mode `Tree`), written bottom-up. The sync repository builds its trees
/// with it too.
#[derive(Default)]
pub(crate) struct Node {
    files: Vec<(Vec<u8>, gix::objs::tree::EntryKind, ObjectId)>,
    dirs: BTreeMap<Vec<u8>, Node>,
}

impl Node {
    pub(crate) fn insert(&mut self, rel: &[u8], mode: gix::objs::tree::EntryKind, oid: ObjectId) {
        match rel.iter().position(|b| *b == b'/') {
            Some(k) => self
                .dirs
                .entry(rel[..k].to_vec())
                .or_default()
                .insert(&rel[k + 1..], mode, oid),
            None => self.files.push((rel.to_vec(), mode, oid)),
        }
    }

    pub(crate) fn write(self, repo: &gix::Repository) -> Result<ObjectId, String> {
        let mut entries = Vec::new();
        for (name, node) in self.dirs {
            let oid = node.write(repo)?;
            entries.push(gix::objs::tree::Entry {
                mode: gix::objs::tree::EntryKind::Tree.into(),
                filename: name.into(),
                oid,
            });
        }
        for (name, mode, oid) in self.files {
            entries.push(gix::objs::tree::Entry {
                mode: mode.into(),
                filename: name.into(),
                oid,
            });
        }
        entries.sort();
        let tree = gix::objs::Tree { entries };
        repo.write_object(&tree)
            .map(|id| id.detach())
            .map_err(|e| e.to_string())
    }
}

/// Files at least this large are hashed and stored as streams, never held in
/// memory whole (issue 29 point 7: a 500 MB memory cost 1.47 GB per snapshot). An
/// index never is: its torn check compares its bytes with the last snapshot's.
pub(crate) const STREAM_MIN: u64 = 1 << 20;

/// Whether the tracked file `f` is hashed and stored as a stream.
fn streams(f: &OnDisk) -> bool {
    let is_index = f.rel == b"MEMORY.md" || f.rel.ends_with(b"/MEMORY.md");
    !f.link && !is_index && f.size >= STREAM_MIN
}

/// The blob id of the file `f`, read in 64 KiB pieces (the size as walked: a file
/// that shrank meanwhile fails, one that grew is caught by the torn check).
fn stream_hash(main: &Path, f: &OnDisk, kind: gix::hash::Kind) -> Result<ObjectId, String> {
    use std::os::unix::ffi::OsStrExt;
    let path = main.join(std::ffi::OsStr::from_bytes(&f.rel));
    let file = crate::fsread::open_regular(&path).map_err(|e| e.to_string())?;
    let mut reader = std::io::BufReader::with_capacity(64 << 10, file);
    gix::objs::compute_stream_hash(
        kind,
        gix::objs::Kind::Blob,
        &mut reader,
        f.size,
        &mut gix::progress::Discard,
        &std::sync::atomic::AtomicBool::new(false),
    )
    .map_err(|e| e.to_string())
}

impl Store {
    /// Store the file `f` as the blob `oid` by streaming it into the object
    /// database (compressed as it is read). A file that no longer hashes to `oid`
    /// changed while it was recorded: the snapshot fails rather than name a blob
    /// it does not hold.
    fn write_stream(&self, main: &Path, f: &OnDisk, oid: ObjectId) -> Result<(), Error> {
        use gix::objs::Write;
        use std::io::Read;
        use std::os::unix::ffi::OsStrExt;
        let path = main.join(std::ffi::OsStr::from_bytes(&f.rel));
        let file = crate::fsread::open_regular(&path).map_err(|e| io(self, &format!("{}: {e}", path.display())))?;
        let mut reader = std::io::BufReader::with_capacity(64 << 10, file).take(f.size);
        let written = self
            .repo
            .objects
            .write_stream(gix::objs::Kind::Blob, f.size, &mut reader)
            .map_err(|e| io(self, &e.to_string()))?;
        if written != oid {
            return Err(io(self, &format!("{} changed while it was recorded", path.display())));
        }
        Ok(())
    }
}

fn io(store: &Store, e: &str) -> Error {
    Error::new(
        Kind::Io,
        format!("cannot record a snapshot in {}: {e}", store.path.display()),
    )
}

/// The commit message: a summary, the `-m` text, and the trailers.
fn message(trigger: Trigger, req: &Request, changes: &[Change], outside: &[OutsideChange]) -> String {
    let outside_names = outside.iter().map(|o| {
        let mark = match (&o.before, &o.after) {
            (None, _) => '+',
            (Some(_), None) => '-',
            _ => '~',
        };
        let name = o
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        format!("{mark}{name}")
    });
    let all: Vec<String> = changes
        .iter()
        .map(|c| format!("{}{}", c.kind.mark(), c.file()))
        .chain(outside_names)
        // The summary is the commit's first line: a newline in a name must not end
        // it (SPEC v3 §3.14 escapes).
        .map(|n| crate::text::escape_name(&n).into_owned())
        .collect();
    let mut names: Vec<String> = all.iter().take(3).cloned().collect();
    if all.len() > 3 {
        names.push(format!("and {} more", all.len() - 3));
    }
    let what = if all.is_empty() {
        "the consolidation lock".to_string()
    } else {
        names.join(" ")
    };
    let mut m = format!("{}: {what}\n\n", trigger.as_str());
    if let Some(text) = req.message.filter(|t| !t.trim().is_empty()) {
        m.push_str(text.trim());
        m.push_str("\n\n");
    }
    m.push_str(&format!(
        "Trigger: {}\nRecorded-By: {}\n",
        trigger.as_str(),
        req.recorded_by
    ));
    for (k, v) in req.details {
        let v = v.replace(['\n', '\r'], " ");
        m.push_str(&format!("{k}: {v}\n"));
    }
    for o in outside {
        let v = o.path.to_string_lossy().replace(['\n', '\r'], " ");
        m.push_str(&format!("Outside: {v}\n"));
    }
    m
}

type CacheEntry = (u64, i128, i128, u64, bool, ObjectId);

/// The (size, mtime, ctime, inode, link, blob) of each file at the snapshot
/// `head`, as last seen on disk; empty when it was written for another snapshot.
/// An entry whose ctime is not older than the cache itself is dropped (git's
/// "racy" rule): the kernel's clock is coarse, so a write in the same tick as the
/// cache would leave the file's times as they were cached.
fn read_cache(store: &Path, head: Option<ObjectId>) -> crate::fx::HashMap<Vec<u8>, CacheEntry> {
    read_cache_full(store, head).0
}

/// [`read_cache`], and the state of the snapshot `head` when the cache is
/// complete for it (its `complete` line: every file of the snapshot, and the
/// lock); racy entries count for the state, not as a stat match.
pub(super) fn read_cache_full(
    store: &Path,
    head: Option<ObjectId>,
) -> (crate::fx::HashMap<Vec<u8>, CacheEntry>, Option<State>) {
    let mut out = crate::fx::HashMap::default();
    let path = store.join(CACHE);
    // Regular files only, bounded: a FIFO put in its place never blocks a snapshot.
    let Some(head) = head else { return (out, None) };
    let Ok(file) = crate::fsread::open_regular(&path) else {
        return (out, None);
    };
    let Ok(md) = file.metadata() else { return (out, None) };
    let Ok(bytes) = crate::fsread::read_bounded(file, 256 << 20) else {
        return (out, None);
    };
    let Ok(text) = String::from_utf8(bytes) else {
        return (out, None);
    };
    let written = tracked::mtime_ns(&md);
    let mut lines = text.lines().peekable();
    if lines.next() != Some(head.to_hex().to_string().as_str()) {
        return (out, None);
    }
    // `complete\tN\tlock`: the lines below are the snapshot's N files.
    let complete = lines.next_if(|l| l.starts_with("complete\t")).and_then(|l| {
        let mut c = l.split('\t').skip(1);
        let n: usize = c.next()?.parse().ok()?;
        let lock = parse_lock_field(c.next()?)?;
        c.next().is_none().then_some((n, lock))
    });
    let mut files: Vec<(Vec<u8>, FileState)> = Vec::new();
    let mut whole = complete.is_some();
    for l in lines {
        let Some([size, mtime, ctime, ino, link, oid, rel]) = seven_fields(l) else {
            whole = false;
            continue;
        };
        let (Ok(size), Ok(mtime), Ok(ctime), Ok(ino), Ok(oid), Some(rel)) = (
            size.parse(),
            mtime.parse(),
            ctime.parse::<i128>(),
            ino.parse(),
            ObjectId::from_hex(oid.as_bytes()),
            unhex(rel),
        ) else {
            whole = false;
            continue;
        };
        if whole {
            files.push((
                rel.clone(),
                FileState {
                    oid,
                    link: link == "1",
                    mtime_ns: mtime,
                },
            ));
        }
        if ctime < written {
            out.insert(rel, (size, mtime, ctime, ino, link == "1", oid));
        }
    }
    let state = match complete {
        Some((n, lock)) if whole && files.len() == n => Some(State {
            files: files.into_iter().collect(),
            lock,
        }),
        _ => None,
    };
    (out, state)
}

fn write_cache(store: &Path, head: Option<ObjectId>, files: &[OnDisk], state: &State) {
    use std::fmt::Write as _;
    let Some(head) = head else { return };
    let mut body = String::with_capacity(files.len() * 160);
    let mut n = 0;
    for f in files {
        if let Some(s) = state.files.get(&f.rel) {
            n += 1;
            let _ = write!(
                body,
                "{}\t{}\t{}\t{}\t{}\t{}\t",
                f.size,
                f.mtime_ns,
                f.ctime_ns,
                f.ino,
                u8::from(f.link),
                s.oid.to_hex()
            );
            for b in &f.rel {
                body.push(char::from(HEX[usize::from(b >> 4)]));
                body.push(char::from(HEX[usize::from(b & 15)]));
            }
            body.push('\n');
        }
    }
    let mut text = format!("{}\n", head.to_hex());
    // Every file of the snapshot is in the cache, in walk order: a later walk
    // that matches it line by line (and the same lock) is that snapshot
    // ([`cache_vouches`]). Readers of the plain cache skip this line.
    if n == state.files.len() {
        let _ = writeln!(text, "complete\t{n}\t{}", lock_field(state.lock.as_ref()));
    }
    text.push_str(&body);
    // The cache only saves hashing: a failed or torn write costs a rehash.
    let tmp = store.join(format!("{CACHE}.{}.tmp", std::process::id()));
    if fs::write(&tmp, text).is_ok() {
        let _ = fs::rename(&tmp, store.join(CACHE));
    }
}

/// The lock in the cache's `complete` line: `-`, or its mtime and hex body.
fn lock_field(lock: Option<&tracked::LockState>) -> String {
    match lock {
        None => "-".to_string(),
        Some(l) => {
            let mut s = format!("{}:", l.mtime_ns);
            for b in &l.body {
                s.push_str(&format!("{b:02x}"));
            }
            s
        }
    }
}

/// The lock of a [`lock_field`]; `None` when it does not parse.
fn parse_lock_field(s: &str) -> Option<Option<tracked::LockState>> {
    if s == "-" {
        return Some(None);
    }
    let (mtime, body) = s.split_once(':')?;
    Some(Some(tracked::LockState {
        mtime_ns: mtime.parse().ok()?,
        body: unhex(body)?,
    }))
}

/// Whether the stat cache, written complete for the snapshot `head`, vouches
/// that `files` (as walked, sorted) and the lock are exactly that snapshot: the
/// same paths in the same order, each with the cached (size, mtime, ctime,
/// inode, link) and a ctime older than the cache (the racy rule of
/// [`read_cache`]). One pass over both lists; no map, no state loaded.
pub(super) fn cache_vouches(store: &Path, head: ObjectId, files: &[OnDisk], main: &Path) -> bool {
    let Ok(file) = crate::fsread::open_regular(&store.join(CACHE)) else {
        return false;
    };
    let Ok(md) = file.metadata() else { return false };
    let Ok(bytes) = crate::fsread::read_bounded(file, 256 << 20) else {
        return false;
    };
    let written = tracked::mtime_ns(&md);
    let mut lines = bytes.split(|&b| b == b'\n');
    if lines.next() != Some(head.to_hex().to_string().as_bytes()) {
        return false;
    }
    let Some(complete) = lines.next().and_then(|l| std::str::from_utf8(l).ok()) else {
        return false;
    };
    let mut c = complete.split('\t');
    if c.next() != Some("complete") || c.next() != Some(files.len().to_string().as_str()) {
        return false;
    }
    if c.next() != Some(lock_field(tracked::lock_state(main).as_ref()).as_str()) {
        return false;
    }
    let mut n = 0;
    for (f, l) in files.iter().zip(&mut lines) {
        n += 1;
        let Ok(l) = std::str::from_utf8(l) else { return false };
        let Some([size, mtime, ctime, ino, link, _oid, rel]) = seven_fields(l) else {
            return false;
        };
        let same_rel = rel.len() == 2 * f.rel.len()
            && rel
                .as_bytes()
                .chunks_exact(2)
                .zip(&f.rel)
                .all(|(h, b)| h[0] == HEX[usize::from(b >> 4)] && h[1] == HEX[usize::from(b & 15)]);
        if !same_rel
            || size.parse() != Ok(f.size)
            || mtime.parse() != Ok(f.mtime_ns)
            || ctime.parse() != Ok(f.ctime_ns)
            || f.ctime_ns >= written
            || ino.parse() != Ok(f.ino)
            || link != if f.link { "1" } else { "0" }
        {
            return false;
        }
    }
    n == files.len()
}

/// Lower-case hex digits, for the cache's paths.
const HEX: &[u8; 16] = b"0123456789abcdef";

fn unhex(s: &str) -> Option<Vec<u8>> {
    fn digit(c: u8) -> Option<u8> {
        match c {
            b'0'..=b'9' => Some(c - b'0'),
            b'a'..=b'f' => Some(c - b'a' + 10),
            b'A'..=b'F' => Some(c - b'A' + 10),
            _ => None,
        }
    }
    if !s.len().is_multiple_of(2) {
        return None;
    }
    s.as_bytes()
        .chunks_exact(2)
        .map(|h| Some(digit(h[0])? << 4 | digit(h[1])?))
        .collect()
}

/// A stat-cache line's exactly seven tab-separated fields, split without a list
/// per line; `None` for any other count.
fn seven_fields(l: &str) -> Option<[&str; 7]> {
    let mut p = l.split('\t');
    let fields = [
        p.next()?,
        p.next()?,
        p.next()?,
        p.next()?,
        p.next()?,
        p.next()?,
        p.next()?,
    ];
    p.next().is_none().then_some(fields)
}
