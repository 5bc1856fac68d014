//! The stat cache (`memctl-cache` in the store, like git's index): each tracked
//! file's size, mtime, ctime, inode, link flag and blob as last seen on disk, so a
//! snapshot hashes only the files that differ; with its `complete` line it is the
//! whole state of the snapshot it was written for.

use std::fs;
use std::path::Path;

use gix::ObjectId;

use super::super::read::{FileState, State};
use super::super::tracked::{self, OnDisk};

const CACHE: &str = "memctl-cache";

pub(super) type CacheEntry = (u64, i128, i128, u64, bool, ObjectId);

/// The (size, mtime, ctime, inode, link, blob) of each file at the snapshot
/// `head`, as last seen on disk; empty when it was written for another snapshot.
/// An entry whose ctime is not older than the cache itself is dropped (git's
/// "racy" rule): the kernel's clock is coarse, so a write in the same tick as the
/// cache would leave the file's times as they were cached.
pub(super) fn read_cache(store: &Path, head: Option<ObjectId>) -> crate::fx::HashMap<Vec<u8>, CacheEntry> {
    read_cache_full(store, head).0
}

/// [`read_cache`], and the state of the snapshot `head` when the cache is
/// complete for it (its `complete` line: every file of the snapshot, and the
/// lock); racy entries count for the state, not as a stat match.
pub(in crate::history) fn read_cache_full(
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

pub(super) fn write_cache(store: &Path, head: Option<ObjectId>, files: &[OnDisk], state: &State) {
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
pub(in crate::history) fn cache_vouches(store: &Path, head: ObjectId, files: &[OnDisk], main: &Path) -> bool {
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
