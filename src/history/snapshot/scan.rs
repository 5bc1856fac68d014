//! Scanning the dir for a snapshot: each tracked file's blob id, from the stat
//! cache when it vouches for the file, else hashed (large files as streams).

use std::collections::HashMap;
use std::fs;
use std::path::Path;

use gix::ObjectId;

use super::super::Store;
use super::super::read::{FileState, State};
use super::super::tracked::{self, OnDisk};
use super::cache;
use super::io;
use crate::error::Error;

impl Store {
    /// The dir `main` now: its tracked files (as walked), their state, and the
    /// bytes of the files the cache could not vouch for (hashed, not yet stored).
    /// A file that cannot be read (permissions, a read error, a FIFO or other
    /// special file where a memory was) is not deleted: it keeps its entry of
    /// `prev`, the last snapshot (or stays out when `prev` lacks it), is named in
    /// [`Store::unreadable`] and a warning, and is never cached (issue 29 point 14).
    #[allow(clippy::type_complexity)]
    pub(in crate::history) fn scan(
        &mut self,
        main: &Path,
        head: Option<ObjectId>,
        prev: &State,
        walked: Option<(Vec<OnDisk>, Vec<String>)>,
    ) -> Result<(Vec<OnDisk>, State, HashMap<Vec<u8>, Vec<u8>>), Error> {
        self.settle();
        let loaded = head.and_then(|_| cache::load(&self.path));
        let lines = cache::parse(loaded.as_ref(), head, false).0;
        let mut at = cache::Cursor::default();
        self.scan_cached(main, &mut |f| lines.vouched(&mut at, f), prev, walked)
    }

    /// [`Store::scan`] with the stat cache already read (`known`: the blob id
    /// it vouches for a walked file with, asked in walk order): (1) each walked
    /// file's blob id, (2) the recorded files that became special files, (3)
    /// the unreadable ones kept as last recorded.
    #[allow(clippy::type_complexity)]
    pub(super) fn scan_cached(
        &mut self,
        main: &Path,
        known: &mut dyn FnMut(&OnDisk) -> Option<ObjectId>,
        prev: &State,
        walked: Option<(Vec<OnDisk>, Vec<String>)>,
    ) -> Result<(Vec<OnDisk>, State, HashMap<Vec<u8>, Vec<u8>>), Error> {
        let (mut files, skipped) = walked.unwrap_or_else(|| super::walk(main));
        self.warnings.extend(skipped);
        let mut unreadable: Vec<(Vec<u8>, String)> = Vec::new();
        self.streamed.clear();
        let mut fresh: HashMap<Vec<u8>, Vec<u8>> = HashMap::new();
        // `files` is sorted by path: the state is built from the sorted list at
        // once, not searched for each insert.
        let lock = match self.keep_lock {
            true => prev.lock.clone(),
            false => tracked::lock_state(main),
        };
        let mut now: Vec<(Vec<u8>, FileState)> = Vec::with_capacity(files.len());
        for f in &files {
            match self.blob_id(main, f, known(f), &mut fresh)? {
                Found::Oid(oid) => now.push((
                    f.rel.clone(),
                    FileState {
                        oid,
                        link: f.link,
                        mtime_ns: f.mtime_ns,
                    },
                )),
                Found::Gone => {}
                Found::Unreadable(why) => unreadable.push((f.rel.clone(), why)),
            }
        }
        let mut state = State {
            files: now.into_iter().collect(),
            lock,
        };
        unreadable.extend(special_files(main, prev, &state, &files));
        self.keep_unreadable(prev, &mut state, unreadable);
        files.retain(|f| !self.unreadable.contains(&f.rel));
        Ok((files, state, fresh))
    }

    /// The blob id of the walked file `f`: `cached`, the one the stat cache
    /// vouches for it with, else hashed as a stream (large files, named in
    /// [`Store::streamed`]) or read whole (its bytes put in `fresh`).
    fn blob_id(
        &mut self,
        main: &Path,
        f: &OnDisk,
        cached: Option<ObjectId>,
        fresh: &mut HashMap<Vec<u8>, Vec<u8>>,
    ) -> Result<Found, Error> {
        if let Some(oid) = cached {
            return Ok(Found::Oid(oid));
        }
        if streams(f) {
            return Ok(match stream_hash(main, f, self.repo.object_hash()) {
                Ok(oid) => {
                    self.streamed.insert(f.rel.clone());
                    Found::Oid(oid)
                }
                Err(e) => failed(main, f, e),
            });
        }
        let bytes = match tracked::read(main, f) {
            Ok(b) => b,
            Err(e) => return Ok(failed(main, f, e.to_string())),
        };
        let oid = gix::objs::compute_hash(self.repo.object_hash(), gix::objs::Kind::Blob, &bytes)
            .map_err(|e| io(self, &e.to_string()))?;
        fresh.insert(f.rel.clone(), bytes);
        Ok(Found::Oid(oid))
    }

    /// The files that cannot be read keep their entry of `prev` in `state` (or
    /// stay out of it), each with a warning; [`Store::unreadable`] names them.
    fn keep_unreadable(&mut self, prev: &State, state: &mut State, unreadable: Vec<(Vec<u8>, String)>) {
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
    }
}

/// What the scan found of one walked file.
#[derive(Debug, PartialEq)]
enum Found {
    Oid(ObjectId),
    /// It vanished between the walk and the read: it is not tracked.
    Gone,
    /// It is there but cannot be read, for this reason.
    Unreadable(String),
}

/// A read of `f` failed with `why`: it is gone when nothing is at its path now,
/// else unreadable.
fn failed(main: &Path, f: &OnDisk, why: String) -> Found {
    use std::os::unix::ffi::OsStrExt;
    if fs::symlink_metadata(main.join(std::ffi::OsStr::from_bytes(&f.rel))).is_err() {
        Found::Gone
    } else {
        Found::Unreadable(why)
    }
}

/// The recorded memories (in `prev`) that are now a FIFO, socket or device: the
/// walk leaves those out, and they cannot be read either. Both key lists are
/// sorted: one pass.
fn special_files(main: &Path, prev: &State, state: &State, files: &[OnDisk]) -> Vec<(Vec<u8>, String)> {
    use std::os::unix::ffi::OsStrExt;
    let mut out = Vec::new();
    let mut keys = state.files.keys().peekable();
    for rel in prev.files.keys() {
        while keys.next_if(|k| *k < rel).is_some() {}
        if keys.peek() == Some(&rel) || files.iter().any(|f| &f.rel == rel) {
            continue;
        }
        if fs::symlink_metadata(main.join(std::ffi::OsStr::from_bytes(rel)))
            .is_ok_and(|m| !m.is_dir() && !m.is_file() && !m.file_type().is_symlink())
        {
            out.push((rel.clone(), "not a regular file".into()));
        }
    }
    out
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
    pub(super) fn write_stream(&self, main: &Path, f: &OnDisk, oid: ObjectId) -> Result<(), Error> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn on_disk(rel: &str, size: u64) -> OnDisk {
        OnDisk {
            rel: rel.as_bytes().to_vec(),
            link: false,
            size,
            mtime_ns: 10,
            ctime_ns: 20,
            ino: 30,
        }
    }

    #[test]
    fn the_cache_vouches_only_for_identical_stats_and_an_older_ctime() {
        let oid = ObjectId::null(gix::hash::Kind::Sha1);
        let f = on_disk("a.md", 5);
        let hex = b"612e6d64".as_slice();
        let vouched = |entry, vouches| {
            let mut lines = cache::Lines::default();
            lines.push(b"5f2e6d64", (5, 10, 20, 30, false, oid), true);
            lines.push(hex, entry, vouches);
            lines.push(b"622e6d64", (5, 10, 20, 30, false, oid), true);
            lines.vouched(&mut cache::Cursor::default(), &f)
        };
        assert_eq!(vouched((5, 10, 20, 30, false, oid), true), Some(oid));
        assert_eq!(vouched((5, 10, 20, 30, false, oid), false), None, "racy");
        let differing = [
            (6, 10, 20, 30, false),
            (5, 11, 20, 30, false),
            (5, 10, 21, 30, false),
            (5, 10, 20, 31, false),
            (5, 10, 20, 30, true),
        ];
        for (size, mtime, ctime, ino, link) in differing {
            assert_eq!(vouched((size, mtime, ctime, ino, link, oid), true), None);
        }
        assert_eq!(cache::Lines::default().vouched(&mut cache::Cursor::default(), &f), None);
    }

    #[test]
    fn large_files_but_no_index_or_link_stream() {
        assert!(!streams(&on_disk("a.md", STREAM_MIN - 1)));
        assert!(streams(&on_disk("a.md", STREAM_MIN)));
        assert!(!streams(&on_disk("MEMORY.md", STREAM_MIN)));
        assert!(!streams(&on_disk("team/MEMORY.md", STREAM_MIN)));
        let mut link = on_disk("l.md", STREAM_MIN);
        link.link = true;
        assert!(!streams(&link));
    }

    #[test]
    fn a_failed_read_is_gone_only_when_nothing_is_there() {
        let t = tempfile::tempdir().unwrap();
        fs::write(t.path().join("here.md"), "x").unwrap();
        assert_eq!(failed(t.path(), &on_disk("gone.md", 1), "e".into()), Found::Gone);
        assert_eq!(
            failed(t.path(), &on_disk("here.md", 1), "e".into()),
            Found::Unreadable("e".into())
        );
    }
}
