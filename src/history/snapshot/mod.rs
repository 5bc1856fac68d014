//! Taking a snapshot: compare the dir with the last one cheaply (size, mtime and
//! inode against a cache; only files that differ are hashed), and when anything
//! changed, write the blobs, the trees and one commit.

mod cache;
mod objhash;
mod scan;
mod tree;
mod zchunk;

use std::collections::HashMap;
use std::fs;
use std::path::Path;

use chrono::{DateTime, Utc};
use gix::ObjectId;

use super::Store;
use super::outside::OutsideChange;
use super::read::{self, Change, State};
use super::tracked::{self, OnDisk};
use crate::error::{Error, Kind};
#[cfg(test)]
pub(super) use cache::cache_vouches;
pub(super) use cache::read_cache_full;
pub(crate) use tree::Node;

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
        self.record(main, req, &[], Some(walked), None)
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
        self.record(main, req, outside, None, None)
    }

    /// A writer's after-snapshot ([`Store::snapshot_with`]) when it knows every
    /// path below `main` it wrote, created or removed since its before-snapshot
    /// (`touched`, raw bytes, `/`-separated; `None`: it does not): when the stat
    /// cache vouched for that snapshot's walk, the walk is patched with an
    /// `lstat` of just those paths instead of walked again (20 000 files: 20 000
    /// `statx`). A change another program made meanwhile to a file memctl did
    /// not touch is then recorded by the next snapshot (`external`), not folded
    /// into this one (SPEC v3 §8.2).
    pub fn snapshot_after(
        &mut self,
        main: &Path,
        req: &Request,
        outside: &[OutsideChange],
        touched: Option<&[Vec<u8>]>,
    ) -> Result<Option<Recorded>, Error> {
        let vouched_state = std::mem::take(&mut self.vouched_state);
        let (walked, patched) = match (self.vouched_walk.take(), touched) {
            (Some(mut w), Some(t)) if outside.is_empty() => match tracked::patch(main, &mut w.0, t) {
                // The store holds the state the cache's lines gave for the walk
                // before: the cache is not read again ([`Patched`]).
                Some(replaced) if vouched_state && self.holds_head() => {
                    let mut touched = t.to_vec();
                    touched.sort_unstable();
                    touched.dedup();
                    (Some(w), Some(Patched { replaced, touched }))
                }
                Some(_) => (Some(w), None),
                None => (None, None),
            },
            _ => (None, None),
        };
        self.record(main, req, outside, walked, patched)
    }

    /// The PostToolUse hook's snapshot of the model's write (SPEC v3 §7.3, §8.2):
    /// the last snapshot with only the `touched` paths (below `main`, raw bytes,
    /// `/`-separated) `lstat`ed again, when the stat cache is complete for that
    /// snapshot: no walk of the dir (20 000 files: 20 000 `statx`). What else
    /// changed since the last snapshot is not this write: the next snapshot
    /// that walks (the Stop hook's, SessionEnd's, a memctl write's) records it,
    /// as `external`, or as `dream` when the consolidation lock moved: the lock
    /// is kept as the last snapshot had it, not read. Without such a cache, or
    /// for a path only a walk can place, a snapshot of the whole dir.
    pub fn snapshot_touched(
        &mut self,
        main: &Path,
        req: &Request,
        touched: &[Vec<u8>],
    ) -> Result<Option<Recorded>, Error> {
        self.settle();
        let last = self.head_id().and_then(|h| {
            let loaded = cache::load(&self.path)?;
            let (lines, state) = cache::parse(Some(&loaded), Some(h), true);
            Some((h, state?, lines.as_walked()?))
        });
        let Some((h, state, mut files)) = last else {
            return self.snapshot(main, req);
        };
        if touched.iter().any(|t| may_name_another(&files, t)) {
            return self.snapshot(main, req);
        }
        let Some(replaced) = tracked::patch(main, &mut files, touched) else {
            return self.snapshot(main, req);
        };
        // The state the cache's lines gave: the one `files` are of.
        self.head = Some((h, state));
        let mut touched = touched.to_vec();
        touched.sort_unstable();
        touched.dedup();
        self.keep_lock = true;
        let recorded = self.record(
            main,
            req,
            &[],
            Some((files, Vec::new())),
            Some(Patched { replaced, touched }),
        );
        self.keep_lock = false;
        recorded
    }

    /// Whether the state the store holds is the newest snapshot's.
    fn holds_head(&self) -> bool {
        matches!((self.head_id(), &self.head), (Some(h), Some((id, _))) if *id == h)
    }

    /// The snapshot's steps: (1) done when the stat cache vouches for the walk,
    /// (2) the last snapshot's state, (3) the dir now, its torn files set aside,
    /// (4) done when that equals the last state, else (5) the trigger, (6) the
    /// blobs, (7) the tree and (8) the commit, (9) the cache written for it.
    /// With `patched`, the walk is the vouched one patched and the store holds
    /// the cache's state for it: (1) and (3) take the cache's word from them.
    fn record(
        &mut self,
        main: &Path,
        req: &Request,
        outside: &[OutsideChange],
        walked: Option<(Vec<OnDisk>, Vec<String>)>,
        patched: Option<Patched>,
    ) -> Result<Option<Recorded>, Error> {
        self.settle();
        self.vouched_walk = None;
        self.vouched_state = false;
        let walked = walked.unwrap_or_else(|| walk(main));
        let mut except = None;
        let vouched = match &patched {
            Some(p) => self.patch_vouched(main, &walked, p),
            None if outside.is_empty() => match self.vouched(main, &walked) {
                Checked::Vouched => true,
                Checked::Except(changed) => {
                    except = Some(changed);
                    false
                }
                Checked::No => false,
            },
            None => false,
        };
        if vouched {
            if self.keep_walk {
                self.vouched_walk = Some(walked);
            }
            return Ok(None);
        }
        // Read once for the scan: its lines and its racy rule's stamp are those
        // of the same bytes (20 000 files: a 3.5 MB file). Not read for a
        // patched walk (its files' entries are the walk before and the state
        // held) nor after a check that found which files' lines do not vouch
        // (the state held, made from the same lines).
        let loaded = match (&patched, &except) {
            (None, None) => self.head_id().and_then(|_| cache::load(&self.path)),
            _ => None,
        };
        let (head, prev, cache) = self.last_state(req.now, loaded.as_ref())?;
        let (mut files, mut now_state, mut fresh) = match patched.as_ref().or(except.as_ref()) {
            Some(p) => self.scan_cached(main, &mut p.known(&prev), &prev, Some(walked))?,
            None => {
                let mut at = cache::Cursor::default();
                self.scan_cached(main, &mut |f| cache.vouched(&mut at, f), &prev, Some(walked))?
            }
        };
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
                cache::write_cache(&self.path, head, &files, &now_state, &cache);
            }
            self.head = Some((h, prev));
            return Ok(None);
        }
        let trigger = trigger(head.is_some(), req, &prev, &now_state);
        // The cache's lines do not depend on the commit: rendered on the other
        // core while the objects are written (20 000 files: ~3 MB of text).
        let (id, changes, body) = std::thread::scope(|s| {
            let render = || cache::render_cache_body(&files, &now_state, &cache);
            // No thread (a process limit): rendered here after the commit.
            let body = std::thread::Builder::new().spawn_scoped(s, render).ok();
            let written = (|| {
                self.write_blobs(main, &files, &now_state, &fresh)?;
                // Stored: the bytes read are not needed again, and their memory
                // serves the tree's (20 000 files: a 3.3 MB index).
                fresh = HashMap::new();
                let changes = read::changes(&prev, &now_state);
                let tree = self.write_tree(&now_state, outside)?;
                let mut message = message(trigger, req, &changes, outside);
                message.push_str(&path_trailers(&unsettled, &self.unreadable));
                let id = self.commit(message, tree, head, req.now)?;
                Ok::<_, Error>((id, changes))
            })();
            let body = body.map_or_else(render, joined);
            written.map(|(id, changes)| (id, changes, body))
        })?;
        // Written on another thread while this one goes on (20 000 files: a
        // 3.5 MB file); the store waits for it before a cache is read again and
        // before it lets its lock go ([`Store::settle`]).
        if let Some(write) = cache::cache_writer(&self.path, Some(id), body, &now_state) {
            self.later(write);
        }
        self.head = Some((id, now_state));
        Ok(Some(Recorded { id, trigger, changes }))
    }

    /// Nothing changed, as the stat cache vouches for every file of the last
    /// snapshot: no need to load that snapshot's state from its tree (at 20 000
    /// files most of an unchanged snapshot's time; SPEC v3 §7.2). Then the walk's
    /// warnings are kept and the last scan's findings cleared. The cache is read
    /// in pieces, each line looked at once. A dir whose files are the cached
    /// ones, some changed in place, is [`Checked::Except`]: the state is made
    /// from the lines and only the changed files are hashed. Any other changed
    /// dir's check stops where it differs, and the scan reads the cache whole.
    fn vouched(&mut self, main: &Path, walked: &(Vec<OnDisk>, Vec<String>)) -> Checked {
        let Some(h) = self.head_id() else {
            return Checked::No;
        };
        // A writer's before-snapshot makes the last state from the lines it
        // checks (its `holds` and its after-snapshot need it), and so does a
        // snapshot that expects a change (the scan needs it): the cache is
        // not read and parsed again for it (20 000 files: a 3.5 MB file).
        let held = matches!(&self.head, Some((id, _)) if *id == h);
        let want_state = (self.keep_walk || self.expect_change) && !held;
        // Not held: a line that does not vouch is noted, not the end of the
        // check (the state made from the lines then spares the scan reading
        // and parsing the cache again: a write's snapshot, one file changed).
        let check = |want_state| cache::file_vouched(&self.path, h, &walked.0, main, 64 << 10, want_state, !held);
        let mut said = check(want_state);
        if said == cache::Vouch::Again {
            said = check(true);
        }
        match said {
            cache::Vouch::No | cache::Vouch::Again => return Checked::No,
            cache::Vouch::Except(state, touched) => {
                self.head = Some((h, state));
                // Those files are hashed; the rest have the state's blob ids
                // (what the cache's lines give them).
                let replaced = Vec::new();
                return Checked::Except(Patched { replaced, touched });
            }
            cache::Vouch::All(Some(state)) => {
                self.head = Some((h, state));
                self.vouched_state = true;
            }
            cache::Vouch::All(None) => {}
        }
        self.vouched_done(walked);
        Checked::Vouched
    }

    /// A vouched walk's warnings kept, the last scan's findings cleared.
    fn vouched_done(&mut self, walked: &(Vec<OnDisk>, Vec<String>)) {
        self.warnings.extend(walked.1.iter().cloned());
        self.torn.clear();
        self.unreadable.clear();
        self.streamed.clear();
    }

    /// [`Store::vouched`] of a patched walk: the cache vouched for the walk
    /// before, so it vouches for this one when each touched path is as it was
    /// then (or absent both times) and the lock is the state's.
    fn patch_vouched(&mut self, main: &Path, walked: &(Vec<OnDisk>, Vec<String>), p: &Patched) -> bool {
        let now: Vec<&OnDisk> = p.touched.iter().filter_map(|rel| find(&walked.0, rel)).collect();
        let same = now.len() == p.replaced.len() && now.iter().zip(&p.replaced).all(|(a, b)| *a == b);
        let lock_same = self.keep_lock || matches!(&self.head, Some((_, st)) if st.lock == tracked::lock_state(main));
        if !(same && lock_same) {
            return false;
        }
        self.vouched_done(walked);
        true
    }

    /// The last snapshot's id and state, and the stat cache to scan with. The
    /// state comes from the store's loaded head, else from the cache when it is
    /// complete for it (every file's blob, link flag and mtime, and the lock): at
    /// 20 000 files that spares the tree and the mtimes blob a write's snapshot
    /// would otherwise inflate and parse first (SPEC v3 §7.2: ≤ 60 ms); else from
    /// the store.
    fn last_state<'a>(
        &mut self,
        now: DateTime<Utc>,
        loaded: Option<&'a cache::Loaded>,
    ) -> Result<(Option<ObjectId>, State, cache::Lines<'a>), Error> {
        let opened = self.head_id();
        let mut head = opened;
        // The state loaded already (the before-snapshot's) needs no copy from the cache.
        let held = matches!((head, &self.head), (Some(h), Some((id, _))) if *id == h);
        let (cache, cached_state) = cache::parse(loaded, head, !held);
        let prev = match (head, self.head.take(), cached_state) {
            (Some(h), Some((id, st)), _) if id == h => st,
            (Some(_), _, Some(st)) => st,
            (Some(h), _, None) => match read::load_state(&self.repo, h) {
                Ok(st) => st,
                // Opened without loading it ([`Store::open_for_snapshot`]): a
                // snapshot that cannot be read makes the store corrupt, as when
                // opening loads it.
                Err(_) => {
                    self.start_over(now)?;
                    head = self.head_id();
                    match head {
                        Some(h) => read::load_state(&self.repo, h).map_err(|e| io(self, &e))?,
                        None => State::default(),
                    }
                }
            },
            (None, _, _) => State::default(),
        };
        // A store started over holds none of the blobs the cache names.
        let cache = if head == opened { cache } else { Default::default() };
        Ok((head, prev, cache))
    }

    /// Store the blobs of the new state: the files read whole (`fresh`) and those
    /// hashed as streams that the store does not hold yet.
    fn write_blobs(
        &self,
        main: &Path,
        files: &[OnDisk],
        state: &State,
        fresh: &HashMap<Vec<u8>, Vec<u8>>,
    ) -> Result<(), Error> {
        use gix::objs::Write;
        for (rel, bytes) in fresh {
            // Hashed by the scan already: not again (a 3 MB index at 20 000 files).
            if let Some(s) = state.files.get(rel)
                && !gix::objs::Exists::exists(&self.repo.objects, &s.oid)
            {
                debug_assert_eq!(
                    gix::objs::compute_hash(self.repo.object_hash(), gix::objs::Kind::Blob, bytes).ok(),
                    Some(s.oid),
                    "the scan's blob id is the bytes' own"
                );
                self.repo
                    .objects
                    .write_buf_with_known_id(gix::objs::Kind::Blob, bytes, s.oid)
                    .map_err(|e| io(self, &e.to_string()))?;
            }
        }
        // Most snapshots stream nothing: no lookup per walked file then.
        for f in files.iter().filter(|_| !self.streamed.is_empty()) {
            if self.streamed.contains(&f.rel)
                && let Some(s) = state.files.get(&f.rel)
                && !gix::objs::Exists::exists(&self.repo.objects, &s.oid)
            {
                self.write_stream(main, f, s.oid)?;
            }
        }
        Ok(())
    }

    /// The commit of `tree` on the branch, after `head`, by memctl at `now`.
    fn commit(
        &self,
        message: String,
        tree: ObjectId,
        head: Option<ObjectId>,
        now: DateTime<Utc>,
    ) -> Result<ObjectId, Error> {
        let sig_time = format!("{} +0000", now.timestamp());
        let sig = gix::actor::SignatureRef {
            name: "memctl".into(),
            email: "memctl@localhost".into(),
            time: &sig_time,
        };
        Ok(self
            .repo
            .commit_as(sig, sig, "refs/heads/main", message, tree, head)
            .map_err(|e| io(self, &e.to_string()))?
            .detach())
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
        for f in read_files(files, fresh, &self.streamed) {
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
}

/// What [`Store::vouched`] found of a walk.
enum Checked {
    /// The stat cache vouches for every file: nothing changed.
    Vouched,
    /// It vouches for every file but the ones touched (sorted paths, none
    /// replaced); the store holds the last state, made from the cache's lines.
    Except(Patched),
    /// It does not vouch.
    No,
}

/// A writer's after-snapshot of a patched walk ([`Store::snapshot_after`]):
/// the entries the patch replaced (the touched paths as walked before, which
/// the stat cache vouched for with the rest) and the touched paths, sorted.
struct Patched {
    replaced: Vec<OnDisk>,
    touched: Vec<Vec<u8>>,
}

impl Patched {
    /// The blob id the stat cache vouches for a walked file with, told from
    /// the walk it vouched for and its state `prev` (what
    /// [`cache::Lines::vouched`] answers for the same cache): an untouched file
    /// is as the cache has it; a touched one only when it is as it was walked
    /// before. Asked in walk order: the state's entries are passed once.
    fn known<'a>(&'a self, prev: &'a State) -> impl FnMut(&OnDisk) -> Option<ObjectId> + 'a {
        let mut states = prev.files.iter().peekable();
        move |f| {
            if tracked::is_among(&self.touched, &f.rel) {
                return find(&self.replaced, &f.rel)
                    .filter(|was| *was == f)
                    .and_then(|_| prev.files.get(&f.rel))
                    .map(|s| s.oid);
            }
            // Out of walk order (never, as walked): looked up.
            cache::in_step(&mut states, &f.rel)
                .or_else(|| prev.files.get(&f.rel))
                .map(|s| s.oid)
        }
    }
}

/// Whether `rel`, a path the last snapshot did not have, may be another name
/// of one of its `files` on a file system that folds case or normalises
/// Unicode (macOS): a name with other than ASCII bytes, or one of `files` in
/// another ASCII case. Only a walk tells the name the dir lists then.
fn may_name_another(files: &[OnDisk], rel: &[u8]) -> bool {
    find(files, rel).is_none() && (!rel.is_ascii() || files.iter().any(|f| f.rel.eq_ignore_ascii_case(rel)))
}

/// The entry of `rel` in the sorted `files`.
fn find<'a>(files: &'a [OnDisk], rel: &[u8]) -> Option<&'a OnDisk> {
    files
        .binary_search_by(|f| f.rel.as_slice().cmp(rel))
        .ok()
        .map(|i| &files[i])
}

/// The walked `files` that the scan read (`fresh`, `streamed`), in walk order:
/// each found by its path in the sorted walk, not each walked file looked up
/// in the maps (a write's snapshot reads one or two of 20 000).
fn read_files<'a>(
    files: &'a [OnDisk],
    fresh: &HashMap<Vec<u8>, Vec<u8>>,
    streamed: &std::collections::HashSet<Vec<u8>>,
) -> Vec<&'a OnDisk> {
    let mut at: Vec<usize> = fresh
        .keys()
        .chain(streamed)
        .filter_map(|rel| {
            files
                .binary_search_by(|f| f.rel.cmp(rel))
                .ok()
                .filter(|&i| files[i].rel == *rel)
                .or_else(|| files.iter().position(|f| f.rel == *rel))
        })
        .collect();
    at.sort_unstable();
    at.dedup();
    at.into_iter().map(|i| &files[i]).collect()
}

/// The result of a scoped thread; its panic goes on here.
pub(super) fn joined<T>(h: std::thread::ScopedJoinHandle<'_, T>) -> T {
    h.join().unwrap_or_else(|p| std::panic::resume_unwind(p))
}

/// A cache file of the store written over its spare ([`crate::spare::write`]):
/// every reader and writer of the stat cache and the chunk cache holds the
/// store's lock, so no one reads the spare while it is written.
pub(super) use crate::spare::write as write_cache;

fn io(store: &Store, e: &str) -> Error {
    Error::new(
        Kind::Io,
        format!("cannot record a snapshot in {}: {e}", store.path.display()),
    )
}

/// The tracked files below `main` and the warnings of the walk.
fn walk(main: &Path) -> (Vec<OnDisk>, Vec<String>) {
    let mut skipped = Vec::new();
    (tracked::walk(main, &mut skipped), skipped)
}

/// What made the change from `prev` to `now` (SPEC §8.1): the first snapshot is
/// the baseline; else the request's trigger, `claude` for the hook, `dream` when
/// the lock's mtime moved, `external` otherwise.
fn trigger(has_head: bool, req: &Request, prev: &State, now: &State) -> Trigger {
    let lock_mtime = |s: &State| s.lock.as_ref().map(|l| l.mtime_ns);
    match (has_head, req.trigger) {
        (false, _) => Trigger::Baseline,
        (true, Some(t)) => t,
        (true, None) if req.claude => Trigger::Claude,
        (true, None) if lock_mtime(prev) != lock_mtime(now) => Trigger::Dream,
        (true, None) => Trigger::External,
    }
}

/// The `Unsettled:` and `Unreadable:` trailers naming the files a snapshot kept
/// as last recorded (a newline in a name is a space: a trailer is one line).
fn path_trailers(unsettled: &[Vec<u8>], unreadable: &[Vec<u8>]) -> String {
    let mut out = String::new();
    for (key, rels) in [("Unsettled", unsettled), ("Unreadable", unreadable)] {
        for rel in rels {
            let shown = String::from_utf8_lossy(rel).replace(['\n', '\r'], " ");
            out.push_str(&format!("{key}: {shown}\n"));
        }
    }
    out
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::tracked::LockState;

    fn req(trigger: Option<Trigger>, claude: bool) -> Request<'static> {
        Request {
            trigger,
            recorded_by: "test",
            message: None,
            details: &[],
            claude,
            now: "2026-03-10T12:00:00Z".parse().unwrap(),
        }
    }

    fn locked(mtime_ns: i128) -> State {
        State {
            files: Default::default(),
            lock: Some(LockState {
                mtime_ns,
                body: b"1".to_vec(),
            }),
        }
    }

    #[test]
    fn the_trigger_follows_spec_order() {
        let none = State::default();
        let own = Some(Trigger::Own("add"));
        assert_eq!(trigger(false, &req(own, true), &none, &locked(1)), Trigger::Baseline);
        assert_eq!(trigger(true, &req(own, true), &none, &locked(1)), Trigger::Own("add"));
        assert_eq!(trigger(true, &req(None, true), &none, &locked(1)), Trigger::Claude);
        assert_eq!(trigger(true, &req(None, false), &none, &locked(1)), Trigger::Dream);
        assert_eq!(trigger(true, &req(None, false), &locked(1), &locked(2)), Trigger::Dream);
        assert_eq!(
            trigger(true, &req(None, false), &locked(1), &locked(1)),
            Trigger::External
        );
        assert_eq!(trigger(true, &req(None, false), &none, &none), Trigger::External);
    }

    /// A store whose newest snapshot cannot be read is set aside when the hook's
    /// snapshot needs that state; the stat cache read for it belongs to the old
    /// store: the new baseline must hash every file again and hold every blob it
    /// names, not reuse blob ids the new store lacks.
    #[test]
    fn a_store_started_over_holds_every_blob_of_its_baseline() {
        use std::time::{Duration, SystemTime};
        let t = tempfile::tempdir().unwrap();
        let mem = t.path().join("memory");
        fs::create_dir_all(&mem).unwrap();
        fs::write(mem.join("MEMORY.md"), "- [A](a.md) — a\n").unwrap();
        fs::write(mem.join("a.md"), "a\n").unwrap();
        let settings = crate::history::Settings::On {
            root: t.path().join("state"),
        };
        let now = "2026-03-10T12:00:00Z".parse().unwrap();
        let mut s = Store::open(&settings, &mem, None, true, now).unwrap().unwrap();
        let first = s.snapshot(&mem, &req(None, false)).unwrap().unwrap();
        s.settle();
        // The newest snapshot's mtimes blob goes missing: its state cannot be read.
        let mtimes = {
            let tree = s.repo.find_commit(first.id).unwrap().tree().unwrap();
            let meta = tree.find_entry(".memctl").unwrap().oid().to_owned();
            let meta = s.repo.find_tree(meta).unwrap();
            meta.find_entry("mtimes").unwrap().oid().to_hex().to_string()
        };
        fs::remove_file(s.path().join("objects").join(&mtimes[..2]).join(&mtimes[2..])).unwrap();
        // A cache for it without its `complete` line, its entries not racy.
        let cache = s.path().join("memctl-cache");
        let text = fs::read_to_string(&cache).unwrap();
        let partial: String = text
            .lines()
            .filter(|l| !l.starts_with("complete"))
            .map(|l| format!("{l}\n"))
            .collect();
        fs::write(&cache, partial).unwrap();
        fs::File::options()
            .write(true)
            .open(&cache)
            .unwrap()
            .set_modified(SystemTime::now() + Duration::from_secs(5))
            .unwrap();
        drop(s);
        let mut s = Store::open_for_snapshot(&settings, &mem, None, now, 200)
            .unwrap()
            .unwrap();
        let rec = s.snapshot(&mem, &req(None, false)).unwrap().unwrap();
        assert_eq!(rec.trigger, Trigger::Baseline);
        assert!(s.warnings.iter().any(|w| w.contains("is corrupt")), "{:?}", s.warnings);
        let state = read::load_state(&s.repo, rec.id).unwrap();
        assert_eq!(state.files.len(), 2);
        for f in state.files.values() {
            assert!(
                read::blob(&s.repo, f.oid).is_ok(),
                "every blob of the baseline is stored"
            );
        }
    }

    /// A new path the hook's snapshot cannot place without a walk: another
    /// ASCII case of a recorded file, or any name beyond ASCII (macOS folds
    /// case and normalises Unicode); a recorded path or a plainly new one it can.
    #[test]
    fn a_new_name_that_may_be_another_files_is_left_to_a_walk() {
        let on = |rel: &str| OnDisk {
            rel: rel.as_bytes().to_vec(),
            link: false,
            size: 1,
            mtime_ns: 1,
            ctime_ns: 1,
            ino: 1,
        };
        let files = [on("a.md"), on("caf\u{e9}.md"), on("sub/b.md")];
        for (rel, walk) in [
            ("a.md", false),
            ("c.md", false),
            ("sub/c.md", false),
            ("caf\u{e9}.md", false),
            ("A.md", true),
            ("SUB/b.md", true),
            ("cafe\u{301}.md", true),
            ("\u{e9}t\u{e9}.md", true),
        ] {
            assert_eq!(may_name_another(&files, rel.as_bytes()), walk, "{rel}");
        }
    }

    #[test]
    fn path_trailers_name_unsettled_then_unreadable_files_on_one_line_each() {
        assert_eq!(path_trailers(&[], &[]), "");
        let text = path_trailers(&[b"MEMORY.md".to_vec()], &[b"a\nb.md".to_vec(), b"c\r.md".to_vec()]);
        assert_eq!(text, "Unsettled: MEMORY.md\nUnreadable: a b.md\nUnreadable: c .md\n");
    }
}
