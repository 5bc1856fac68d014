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
use crate::history::tracked;

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
    let mut body = head(commit, stamp.ns, url, targets.len());
    for (t, read) in targets {
        target_line(&mut body, t);
        let mut names = Vec::with_capacity(read.len());
        let mut links = false;
        walk(t, &mut |rel, md, link| {
            links |= link;
            file_record(&mut body, rel, md);
            names.push(rel.to_vec());
            true
        });
        body.push(b'E');
        names.sort_unstable();
        if links || names.len() != read.len() || names.iter().zip(read.keys()).any(|(a, b)| a != b.as_bytes()) {
            return abandon(stamp);
        }
    }
    let done = fs::write(&stamp.tmp, &body).is_ok() && fs::rename(&stamp.tmp, stamp.tmp.with_file_name(CACHE)).is_ok();
    if !done {
        abandon(stamp);
    }
}

/// Whether the cache vouches that a full sync of `targets` (in this order) at
/// `commit` from `url` would change nothing: written for that commit, remote
/// and these targets, and every file walked now stat-equal to its record and
/// older than the stamp, none missing. One pass over the cache's bytes as the
/// dirs are walked: nothing hashed, sorted or kept.
pub(super) fn vouches(repo: &Path, commit: ObjectId, url: &str, targets: &[&Target]) -> bool {
    let Ok(file) = crate::fsread::open_regular(&repo.join(CACHE)) else {
        return false;
    };
    let Ok(bytes) = crate::fsread::read_bounded(file, 256 << 20) else {
        return false;
    };
    let Some(stamp) = stamp_of(&bytes) else { return false };
    let want = head(commit, stamp, url, targets.len());
    let Some(mut rest) = bytes.strip_prefix(want.as_slice()) else {
        return false;
    };
    let mut buf = Vec::with_capacity(256);
    for t in targets {
        buf.clear();
        target_line(&mut buf, t);
        let Some(r) = rest.strip_prefix(buf.as_slice()) else {
            return false;
        };
        rest = r;
        let same = walk(t, &mut |rel, md, link| {
            buf.clear();
            let racy = tracked::mtime_ns(md) >= stamp || ctime_ns(md) >= stamp;
            file_record(&mut buf, rel, md);
            match rest.strip_prefix(buf.as_slice()) {
                Some(r) if !link && !racy => {
                    rest = r;
                    true
                }
                _ => false,
            }
        });
        let Some(r) = rest.strip_prefix(b"E").filter(|_| same) else {
            return false;
        };
        rest = r;
    }
    rest.is_empty()
}

/// The first lines: the format, then `commit  stamp  remote (hex)  targets`.
fn head(commit: ObjectId, stamp: i128, url: &str, targets: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(64 * 1024);
    out.extend_from_slice(HEADER);
    out.extend_from_slice(format!("\n{}\t{stamp}\t", commit.to_hex()).as_bytes());
    push_hex(&mut out, url.as_bytes());
    out.extend_from_slice(format!("\t{targets}\n").as_bytes());
    out
}

/// The stamp in the cache's second line.
fn stamp_of(bytes: &[u8]) -> Option<i128> {
    let line = bytes.strip_prefix(HEADER)?.strip_prefix(b"\n")?;
    let mut fields = line.splitn(3, |b| *b == b'\t');
    fields.next()?;
    std::str::from_utf8(fields.next()?).ok()?.parse().ok()
}

fn ctime_ns(md: &fs::Metadata) -> i128 {
    use std::os::unix::fs::MetadataExt;
    i128::from(md.ctime()) * 1_000_000_000 + i128::from(md.ctime_nsec())
}

/// The files of the target as a full sync's walk ([`tracked::walk`]) finds them
/// (the team dir's only, for a team target), in the order the dirs list them:
/// `each` gets the path, the `lstat` and whether it is a symlink, and stops the
/// walk by returning `false` (then `false`).
fn walk(t: &Target, each: &mut dyn FnMut(&[u8], &fs::Metadata, bool) -> bool) -> bool {
    let prefix = t.prefix().as_bytes();
    let mut stack: Vec<(PathBuf, Vec<u8>)> = vec![(t.dir.clone(), Vec::new())];
    while let Some((dir, at)) = stack.pop() {
        let Ok(rd) = fs::read_dir(&dir) else { continue };
        for e in rd.flatten() {
            let name = e.file_name();
            let name = name.as_bytes();
            let Ok(ft) = e.file_type() else { continue };
            let mut rel = Vec::with_capacity(at.len() + 1 + name.len());
            rel.extend_from_slice(&at);
            if !rel.is_empty() {
                rel.push(b'/');
            }
            rel.extend_from_slice(name);
            if ft.is_dir() {
                if name != b".trash" && name != b".memctl" {
                    stack.push((e.path(), rel));
                }
                continue;
            }
            if !name.ends_with(b".md") || !(ft.is_file() || ft.is_symlink()) || !rel.starts_with(prefix) {
                continue;
            }
            let Ok(md) = e.metadata() else { continue };
            if !each(&rel, &md, ft.is_symlink()) {
                return false;
            }
        }
    }
    true
}

/// `T  team  identity  dir` (identity and dir in hex), a line.
fn target_line(out: &mut Vec<u8>, t: &Target) {
    out.extend_from_slice(if t.team { b"T\t1\t" } else { b"T\t0\t" });
    push_hex(out, t.identity.as_bytes());
    out.push(b'\t');
    push_hex(out, t.dir.as_os_str().as_bytes());
    out.push(b'\n');
}

/// One file: `F`, the path's length (u32) and the path, then size, mtime,
/// ctime and inode (little-endian; the times in ns as i128). Compared whole.
fn file_record(out: &mut Vec<u8>, rel: &[u8], md: &fs::Metadata) {
    use std::os::unix::fs::MetadataExt;
    out.push(b'F');
    out.extend_from_slice(&(rel.len() as u32).to_le_bytes());
    out.extend_from_slice(rel);
    out.extend_from_slice(&md.len().to_le_bytes());
    out.extend_from_slice(&tracked::mtime_ns(md).to_le_bytes());
    out.extend_from_slice(&ctime_ns(md).to_le_bytes());
    out.extend_from_slice(&md.ino().to_le_bytes());
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
        let mut newest = 0;
        walk(&t, &mut |_, md, _| {
            newest = newest.max(tracked::mtime_ns(md)).max(ctime_ns(md));
            true
        });
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
}
