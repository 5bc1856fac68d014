//! The no-op sync's short cut (issue 31), like git's index: `memctl-sync-cache`
//! in the sync repository remembers, for the commit every ref agreed on, each
//! synced file's size, mtime, ctime and inode as a full sync that changed nothing
//! saw them. The next sync whose refs are all still at that commit (the remote's
//! branch after the fetch, the local branch, every target's merge base), with
//! the same targets and every local file stat-equal to the cache, would plan the
//! same inputs to the same nothing: it reads, hashes and writes nothing and
//! reports each project up to date. Anything else runs the full sync.
//!
//! Git's racy rule: the stamp is the mtime of a file made *before* the full sync
//! read anything; a file whose mtime or ctime is not older than it may have
//! changed within the same clock tick after it was read, and vouches for nothing.
//! A write moves the ctime (no `touch -r` can put it back), so a stat-equal file
//! older than the stamp holds the bytes that sync read.

use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use gix::ObjectId;

use super::Target;
use super::repo::Files;
use crate::history::tracked::{self, OnDisk};

const CACHE: &str = "memctl-sync-cache";
const HEADER: &[u8] = b"memctl sync cache 1";

/// A full sync that may leave the cache: the stamp file, made before any local
/// file was read, and its mtime.
pub(super) struct Stamp {
    tmp: PathBuf,
    ns: i128,
}

/// Make the stamp (before the full sync reads the memory dirs); `None` when it
/// cannot be made (no cache is written then).
pub(super) fn begin(repo: &Path) -> Option<Stamp> {
    let tmp = repo.join(format!("{CACHE}.new"));
    let _ = fs::remove_file(&tmp);
    let f = fs::OpenOptions::new().write(true).create_new(true).open(&tmp).ok()?;
    let ns = tracked::mtime_ns(&f.metadata().ok()?);
    Some(Stamp { tmp, ns })
}

/// Drop a stamp that leads to no cache.
pub(super) fn abandon(stamp: Stamp) {
    let _ = fs::remove_file(&stamp.tmp);
}

/// After a full sync that changed nothing and left every ref at `commit`: the
/// cache of the targets' files (`read`: the files each target's plan read, in
/// the order of `targets`). Not written when a walk now sees other files than
/// were read (one deleted meanwhile leaves no ctime to catch), or a symlink.
/// The cache only saves work: a failed write leaves no cache, never a wrong one.
pub(super) fn record(stamp: Stamp, commit: ObjectId, url: &str, targets: &[(&Target, &Files)]) {
    let mut body = Vec::with_capacity(64 * 1024);
    body.extend_from_slice(HEADER);
    body.push(b'\n');
    body.extend_from_slice(format!("{}\t{}\t", commit.to_hex(), stamp.ns).as_bytes());
    push_hex(&mut body, url.as_bytes());
    body.extend_from_slice(format!("\t{}\n", targets.len()).as_bytes());
    for (t, read) in targets {
        let walked = walk(t);
        let same_names =
            walked.len() == read.len() && walked.iter().zip(read.keys()).all(|(f, k)| f.rel == k.as_bytes());
        if !same_names || walked.iter().any(|f| f.link) {
            return abandon(stamp);
        }
        target_line(&mut body, t, walked.len());
        for f in &walked {
            file_line(&mut body, f);
        }
    }
    let done = fs::write(&stamp.tmp, &body).is_ok() && fs::rename(&stamp.tmp, stamp.tmp.with_file_name(CACHE)).is_ok();
    if !done {
        abandon(stamp);
    }
}

/// Whether the cache vouches that a full sync of `targets` (in this order) at
/// `commit` from `url` would change nothing: written for that commit, remote
/// and these targets, and every file walked now stat-equal to its line and
/// older than the stamp. One pass over the cache's bytes, nothing hashed.
pub(super) fn vouches(repo: &Path, commit: ObjectId, url: &str, targets: &[&Target]) -> bool {
    let Ok(file) = crate::fsread::open_regular(&repo.join(CACHE)) else {
        return false;
    };
    let Ok(bytes) = crate::fsread::read_bounded(file, 256 << 20) else {
        return false;
    };
    let mut rest = bytes.as_slice();
    if next_line(&mut rest) != HEADER {
        return false;
    }
    let mut head = Vec::new();
    head.extend_from_slice(format!("{}\t", commit.to_hex()).as_bytes());
    let line = next_line(&mut rest);
    let Some(stamp) = line.strip_prefix(head.as_slice()).and_then(stamp_of) else {
        return false;
    };
    let mut want = Vec::new();
    push_dec(&mut want, stamp);
    want.push(b'\t');
    push_hex(&mut want, url.as_bytes());
    want.extend_from_slice(format!("\t{}", targets.len()).as_bytes());
    if line[head.len()..] != want[..] {
        return false;
    }
    let mut buf = Vec::with_capacity(256);
    for t in targets {
        let walked = walk(t);
        buf.clear();
        target_line(&mut buf, t, walked.len());
        if next_line(&mut rest) != &buf[..buf.len() - 1] {
            return false;
        }
        for f in &walked {
            if f.link || f.mtime_ns >= stamp || f.ctime_ns >= stamp {
                return false;
            }
            buf.clear();
            file_line(&mut buf, f);
            if next_line(&mut rest) != &buf[..buf.len() - 1] {
                return false;
            }
        }
    }
    rest.is_empty()
}

/// The stamp at the start of the cache's second line.
fn stamp_of(line: &[u8]) -> Option<i128> {
    let end = memchr::memchr(b'\t', line)?;
    std::str::from_utf8(&line[..end]).ok()?.parse().ok()
}

/// The files of the target as a full sync walks them (the team dir's only, for
/// a team target), sorted by path.
fn walk(t: &Target) -> Vec<OnDisk> {
    let mut skipped = Vec::new();
    let mut files = tracked::walk(&t.dir, &mut skipped);
    if t.team {
        files.retain(|f| f.rel.starts_with(t.prefix().as_bytes()));
    }
    files
}

/// `T  team  files  identity  dir` (identity and dir in hex).
fn target_line(out: &mut Vec<u8>, t: &Target, files: usize) {
    out.extend_from_slice(if t.team { b"T\t1\t" } else { b"T\t0\t" });
    push_dec(out, files as i128);
    out.push(b'\t');
    push_hex(out, t.identity.as_bytes());
    out.push(b'\t');
    push_hex(out, t.dir.as_os_str().as_bytes());
    out.push(b'\n');
}

/// `size  mtime  ctime  inode  path` (a path that travels holds no control
/// character, so no tab or newline).
fn file_line(out: &mut Vec<u8>, f: &OnDisk) {
    for v in [i128::from(f.size), f.mtime_ns, f.ctime_ns, i128::from(f.ino)] {
        push_dec(out, v);
        out.push(b'\t');
    }
    out.extend_from_slice(&f.rel);
    out.push(b'\n');
}

/// The text up to the next `\n` of `rest`, and `rest` moved past it.
fn next_line<'a>(rest: &mut &'a [u8]) -> &'a [u8] {
    match memchr::memchr(b'\n', rest) {
        Some(i) => {
            let (l, r) = rest.split_at(i);
            *rest = &r[1..];
            l
        }
        None => std::mem::take(rest),
    }
}

fn push_dec(out: &mut Vec<u8>, v: i128) {
    if v < 0 {
        out.push(b'-');
    }
    let mut n = v.unsigned_abs();
    let mut digits = [0u8; 40];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[i..]);
}

fn push_hex(out: &mut Vec<u8>, bytes: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for b in bytes {
        out.push(HEX[usize::from(b >> 4)]);
        out.push(HEX[usize::from(b & 15)]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_written_in_decimal_with_their_sign() {
        let mut out = Vec::new();
        for v in [0, 7, -42, 1_700_000_000_123_456_789] {
            push_dec(&mut out, v);
            out.push(b' ');
        }
        assert_eq!(out, b"0 7 -42 1700000000123456789 ");
    }

    fn target(dir: &Path) -> Target {
        Target {
            identity: "github.com/alice/app".into(),
            dir: dir.to_path_buf(),
            project: None,
            team: false,
        }
    }

    fn read(names: &[&str]) -> Files {
        let b = super::super::repo::Blob {
            oid: ObjectId::null(gix::hash::Kind::Sha1),
            mtime_ns: 0,
            listed: true,
        };
        names.iter().map(|n| (n.to_string(), b.clone())).collect()
    }

    #[test]
    fn a_file_not_older_than_the_stamp_vouches_for_nothing() {
        let repo = tempfile::tempdir().unwrap();
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("a.md"), "a").unwrap();
        fs::write(dir.path().join("b.md"), "b").unwrap();
        let t = target(dir.path());
        let newest = walk(&t).iter().map(|f| f.ctime_ns.max(f.mtime_ns)).max().unwrap();
        let c = ObjectId::from_bytes_or_panic(&[7; 20]);
        let files = read(&["a.md", "b.md"]);
        let at = |ns: i128| {
            let st = begin(repo.path()).unwrap();
            record(Stamp { ns, ..st }, c, "u", &[(&t, &files)]);
        };
        // Changed in the same tick as the stamp: it may have changed after it was read.
        at(newest);
        assert!(!vouches(repo.path(), c, "u", &[&t]));
        at(newest + 1);
        assert!(vouches(repo.path(), c, "u", &[&t]));
        // Another commit, remote or list of targets: not this cache's.
        let other = ObjectId::from_bytes_or_panic(&[8; 20]);
        assert!(!vouches(repo.path(), other, "u", &[&t]));
        assert!(!vouches(repo.path(), c, "v", &[&t]));
        assert!(!vouches(repo.path(), c, "u", &[&t, &t]));
        assert!(!vouches(
            repo.path(),
            c,
            "u",
            &[&Target {
                team: true,
                ..t.clone()
            }]
        ));
        // A file added: not vouched for.
        fs::write(dir.path().join("c.md"), "c").unwrap();
        assert!(!vouches(repo.path(), c, "u", &[&t]));
        fs::remove_file(dir.path().join("c.md")).unwrap();
        assert!(vouches(repo.path(), c, "u", &[&t]));
        fs::remove_file(dir.path().join("b.md")).unwrap();
        assert!(!vouches(repo.path(), c, "u", &[&t]));
    }

    #[test]
    fn no_cache_is_left_when_the_files_read_are_not_the_files_there() {
        let repo = tempfile::tempdir().unwrap();
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("a.md"), "a").unwrap();
        let t = target(dir.path());
        let c = ObjectId::from_bytes_or_panic(&[7; 20]);
        // `gone.md` was read, then deleted: no ctime tells, so no cache.
        let st = begin(repo.path()).unwrap();
        record(
            Stamp { ns: i128::MAX, ..st },
            c,
            "u",
            &[(&t, &read(&["a.md", "gone.md"]))],
        );
        assert!(!repo.path().join(CACHE).exists());
        assert!(!repo.path().join(format!("{CACHE}.new")).exists());
    }

    #[test]
    fn a_file_line_holds_its_stat_and_path() {
        let f = OnDisk {
            rel: b"team/a.md".to_vec(),
            link: false,
            size: 12,
            mtime_ns: 5,
            ctime_ns: 6,
            ino: 99,
        };
        let mut out = Vec::new();
        file_line(&mut out, &f);
        assert_eq!(out, b"12\t5\t6\t99\tteam/a.md\n");
        let mut rest: &[u8] = b"a\nb";
        assert_eq!(next_line(&mut rest), b"a");
        assert_eq!(next_line(&mut rest), b"b");
        assert_eq!(next_line(&mut rest), b"");
    }
}
