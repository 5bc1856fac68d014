//! The walk's listing (`memctl-walk` in the store, like git's untracked cache):
//! every dir the last full walk entered, with its (mtime, ctime, inode) as
//! `stat`ed just before it was read, and every tracked file it found. While no
//! dir has moved, the dir's entries are the ones read then (POSIX moves a dir's
//! mtime whenever an entry is created, removed or renamed in it), so a snapshot
//! `lstat`s the listed files by name and reads no dir: at 20 000 files the
//! walk's `getdents64` and its 20 000 entries made and sorted are most of what a
//! hook on a memory write spends besides the `lstat`s themselves.
//!
//! A dir whose mtime is within [`SETTLED_NS`] of the clock when it was walked is
//! not listed (the racy rule of the stat cache, for dirs): a coarse clock gives
//! an entry made in the same tick the mtime already kept, so only a dir older
//! than any file system's tick (FAT's is two seconds) vouches for its entries.
//! Any doubt (a dir moved, a listed file gone or no longer a file or link, a
//! listing that does not parse) and the snapshot walks the dir as before.

use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use super::super::tracked::{DirSeen, OnDisk};

const LISTING: &str = "memctl-walk";
const MAGIC: &[u8] = b"memctl-walk 1\n";
/// The largest listing read: a larger one is no listing.
const MAX_BYTES: u64 = 256 << 20;
/// How much older than the walk's clock a dir's mtime must be to be listed.
pub(super) const SETTLED_NS: i128 = 3_000_000_000;

/// The listing's bytes, `None` when there is none or it cannot be read. Regular
/// files only, bounded: a FIFO put in its place never blocks a snapshot.
pub(super) fn load(store: &Path) -> Option<Vec<u8>> {
    let file = crate::fsread::open_regular(&store.join(LISTING)).ok()?;
    crate::fsread::read_bounded(file, MAX_BYTES).ok()
}

/// Whether every dir of a walk may be listed: each one's mtime older than
/// [`SETTLED_NS`] before `now_ns` (the clock after the walk, in ns).
pub(super) fn settled(dirs: &[DirSeen], now_ns: i128) -> bool {
    dirs.iter().all(|d| d.mtime_ns < now_ns - SETTLED_NS)
}

/// The listing of a walk: its dirs and its files (each sorted by path).
pub(super) fn render(dirs: &[DirSeen], files: &[OnDisk]) -> Vec<u8> {
    let mut dirs: Vec<&DirSeen> = dirs.iter().collect();
    dirs.sort_unstable_by(|a, b| a.rel.cmp(&b.rel));
    let size: usize = files.iter().map(|f| f.rel.len() + 2).sum();
    let mut out = Vec::with_capacity(MAGIC.len() + dirs.len() * 64 + size);
    out.extend_from_slice(MAGIC);
    for d in dirs {
        out.extend_from_slice(format!("d{}\t{}\t{}\t", d.mtime_ns, d.ctime_ns, d.ino).as_bytes());
        out.extend_from_slice(&d.rel);
        out.push(0);
    }
    for f in files {
        out.push(b'f');
        out.extend_from_slice(&f.rel);
        out.push(0);
    }
    out
}

/// A listing as parsed: its dirs (sorted, unique) and its files' paths (sorted,
/// unique, each a `.md` name in a listed dir).
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Listing<'a> {
    pub(super) dirs: Vec<DirSeen>,
    pub(super) files: Vec<&'a [u8]>,
}

/// `bytes` as a listing; `None` when anything in it is not as [`render`] writes.
pub(super) fn parse(bytes: &[u8]) -> Option<Listing<'_>> {
    let mut rest = bytes.strip_prefix(MAGIC)?;
    let mut dirs: Vec<DirSeen> = Vec::new();
    let mut files: Vec<&[u8]> = Vec::new();
    while !rest.is_empty() {
        let end = memchr::memchr(0, rest)?;
        let (record, tail) = (&rest[..end], &rest[end + 1..]);
        rest = tail;
        match record.split_first()? {
            (b'd', fields) if files.is_empty() => {
                let mut f = fields.splitn(4, |&b| b == b'\t');
                let mut num = || std::str::from_utf8(f.next()?).ok()?.parse::<i128>().ok();
                let (mtime_ns, ctime_ns, ino) = (num()?, num()?, u64::try_from(num()?).ok()?);
                let rel = f.next()?.to_vec();
                if dirs.last().is_some_and(|last| last.rel >= rel) || !(rel.is_empty() || plain(&rel)) {
                    return None;
                }
                dirs.push(DirSeen {
                    rel,
                    mtime_ns,
                    ctime_ns,
                    ino,
                });
            }
            (b'f', rel) => {
                let listed_dir = dir_of(&dirs, rel).is_some();
                if files.last().is_some_and(|last| *last >= rel) || !plain(rel) || !rel.ends_with(b".md") || !listed_dir
                {
                    return None;
                }
                files.push(rel);
            }
            _ => return None,
        }
    }
    dirs.first()
        .is_some_and(|root| root.rel.is_empty())
        .then_some(Listing { dirs, files })
}

/// The index in `dirs` (sorted, the root first) of the dir holding the file
/// `rel`, and where its name starts in `rel`.
fn dir_of(dirs: &[DirSeen], rel: &[u8]) -> Option<(usize, usize)> {
    match memchr::memrchr(b'/', rel) {
        // At the root: the first dir (no search of 20 000 files' dirs).
        None => dirs.first().is_some_and(|d| d.rel.is_empty()).then_some((0, 0)),
        Some(i) => {
            let at = dirs.binary_search_by(|d| d.rel.as_slice().cmp(&rel[..i])).ok()?;
            Some((at, i + 1))
        }
    }
}

/// A relative path as a walk makes one: `/`-separated names, none empty, `.`
/// or `..`.
fn plain(rel: &[u8]) -> bool {
    rel.split(|&b| b == b'/')
        .all(|n| !n.is_empty() && n != b"." && n != b"..")
}

/// The walk of `main` the listing `bytes` vouches for, each listed file
/// `lstat`ed now (sorted by path, as [`super::super::tracked::walk`] gives
/// them); `None` when it vouches for nothing: a dir moved, a file is gone or is
/// no longer a file or a link, or the listing does not parse.
pub(super) fn walk_listed(main: &Path, bytes: &[u8]) -> Option<Vec<OnDisk>> {
    let listing = parse(bytes)?;
    imp::walk_listed(main, &listing)
}

/// Write the listing `bytes` into the store, whole or not at all.
pub(super) fn write(store: &Path, bytes: &[u8]) {
    let tmp = store.join(format!("{LISTING}.{}.tmp", std::process::id()));
    if fs::write(&tmp, bytes).is_ok() {
        let _ = fs::rename(&tmp, store.join(LISTING));
    } else {
        let _ = fs::remove_file(&tmp);
    }
}

/// Remove the store's listing (a walk found a dir it cannot vouch for).
pub(super) fn remove(store: &Path) {
    let _ = fs::remove_file(store.join(LISTING));
}

/// The dir at `rel` below `main`.
fn dir_path(main: &Path, rel: &[u8]) -> std::path::PathBuf {
    if rel.is_empty() {
        main.to_path_buf()
    } else {
        main.join(OsStr::from_bytes(rel))
    }
}

#[cfg(target_os = "linux")]
mod imp {
    use std::os::unix::ffi::OsStrExt;

    use rustix::fd::{AsFd, OwnedFd};
    use rustix::fs::{AtFlags, FileType, OFlags, StatxFlags};

    use super::{Listing, Path, dir_path};
    use crate::history::tracked::OnDisk;

    fn ns(t: rustix::fs::StatxTimestamp) -> i128 {
        i128::from(t.tv_sec) * 1_000_000_000 + i128::from(t.tv_nsec)
    }

    /// Each listed dir opened and checked against the listing (by its handle:
    /// the dir checked is the one whose files are `lstat`ed), then each file
    /// `lstat`ed by its dir's handle, on every core when they are many.
    pub(super) fn walk_listed(main: &Path, listing: &Listing) -> Option<Vec<OnDisk>> {
        let mut fds: Vec<OwnedFd> = Vec::with_capacity(listing.dirs.len());
        for d in &listing.dirs {
            let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC | OFlags::NONBLOCK;
            let fd = rustix::fs::open(dir_path(main, &d.rel), flags, rustix::fs::Mode::empty()).ok()?;
            let st = rustix::fs::statx(&fd, "", AtFlags::EMPTY_PATH, StatxFlags::BASIC_STATS).ok()?;
            let same = ns(st.stx_mtime) == d.mtime_ns && ns(st.stx_ctime) == d.ctime_ns && st.stx_ino == d.ino;
            if !same {
                return None;
            }
            fds.push(fd);
        }
        let stat = |rel: &[u8]| -> Option<OnDisk> {
            let (dir, name_at) = super::dir_of(&listing.dirs, rel)?;
            let name = std::ffi::OsStr::from_bytes(&rel[name_at..]);
            let st = rustix::fs::statx(
                fds[dir].as_fd(),
                name,
                AtFlags::SYMLINK_NOFOLLOW,
                StatxFlags::BASIC_STATS,
            )
            .ok()?;
            let kind = FileType::from_raw_mode(u32::from(st.stx_mode));
            if kind != FileType::RegularFile && kind != FileType::Symlink {
                return None;
            }
            Some(OnDisk {
                rel: rel.to_vec(),
                link: kind == FileType::Symlink,
                size: st.stx_size,
                mtime_ns: ns(st.stx_mtime),
                ctime_ns: ns(st.stx_ctime),
                ino: st.stx_ino,
            })
        };
        let files = &listing.files;
        let threads = if files.len() >= crate::fsread::PARALLEL_FROM {
            std::thread::available_parallelism().map_or(1, |n| n.get()).min(8)
        } else {
            1
        };
        if threads < 2 {
            return files.iter().map(|rel| stat(rel)).collect();
        }
        let each = files.len().div_ceil(threads);
        let stat = &stat;
        std::thread::scope(|s| {
            let mut parts = files.chunks(each);
            let first = parts.next().unwrap_or_default();
            let others: Vec<_> = parts
                .map(|part| {
                    let spawned =
                        std::thread::Builder::new().spawn_scoped(s, move || part.iter().map(|r| stat(r)).collect());
                    (part, spawned.ok())
                })
                .collect();
            let mut out: Vec<OnDisk> = Vec::with_capacity(files.len());
            for rel in first {
                out.push(stat(rel)?);
            }
            for (part, h) in others {
                // No thread (a process limit): stat'ed here.
                let got: Option<Vec<OnDisk>> = match h {
                    Some(h) => super::super::joined(h),
                    None => part.iter().map(|r| stat(r)).collect(),
                };
                out.extend(got?);
            }
            Some(out)
        })
    }
}

/// No listing outside Linux: every snapshot walks.
#[cfg(not(target_os = "linux"))]
mod imp {
    use super::{Listing, Path};
    use crate::history::tracked::OnDisk;

    pub(super) fn walk_listed(_: &Path, _: &Listing) -> Option<Vec<OnDisk>> {
        None
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, SystemTime};

    use super::*;
    use crate::history::tracked::{self, walk_seen};

    /// Every dir below and at `d` (not `.trash`) set a day into the past: its
    /// mtime older than any tick (the ctime moves to now, as it would).
    fn age_dirs(d: &Path) {
        let day_ago = SystemTime::now() - Duration::from_secs(86_400);
        let mut stack = vec![d.to_path_buf()];
        while let Some(dir) = stack.pop() {
            for e in fs::read_dir(&dir).unwrap().flatten() {
                if e.file_type().unwrap().is_dir() {
                    stack.push(e.path());
                }
            }
            fs::File::open(&dir).unwrap().set_modified(day_ago).unwrap();
        }
    }

    fn now_ns() -> i128 {
        i128::try_from(
            SystemTime::now()
                .duration_since(SystemTime::UNIX_EPOCH)
                .unwrap()
                .as_nanos(),
        )
        .unwrap()
    }

    /// A listing of `d` as the snapshot writes one: walked, every dir settled.
    fn listed(d: &Path) -> Vec<u8> {
        let (files, dirs) = walk_seen(d, &mut Vec::new());
        let dirs = dirs.expect("every dir seen");
        assert!(settled(&dirs, now_ns()), "aged dirs are settled");
        render(&dirs, &files)
    }

    fn walk(d: &Path) -> Vec<OnDisk> {
        tracked::walk(d, &mut Vec::new())
    }

    #[test]
    fn a_listing_gives_what_a_walk_finds_until_a_dir_moves() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path().join("memory");
        fs::create_dir_all(d.join(".trash")).unwrap();
        // More than a block of files, links, other files and subdirs holding
        // memories: the listed files are stat'ed on every core.
        crate::fsread::more_than_a_block(&d, "");
        fs::write(d.join(".trash/gone.md"), "x").unwrap();
        age_dirs(&d);
        let bytes = listed(&d);
        assert_eq!(walk_listed(&d, &bytes), Some(walk(&d)));
        // A file changed in place (no dir moves): its new stat is listed.
        fs::write(d.join("m00007.md"), "changed in place, longer than before").unwrap();
        let got = walk_listed(&d, &bytes).expect("no dir moved");
        assert_eq!(got, walk(&d));
        assert_eq!(got.iter().find(|f| f.rel == b"m00007.md").unwrap().size, 36);
        // A file made in a subdir moves that dir alone: the listing vouches no more.
        fs::write(d.join("d97/new.md"), "new").unwrap();
        assert_eq!(walk_listed(&d, &bytes), None);
        // A change under .trash/ (not walked) leaves it vouching.
        fs::remove_file(d.join("d97/new.md")).unwrap();
        age_dirs(&d);
        let bytes = listed(&d);
        fs::write(d.join(".trash/more.md"), "x").unwrap();
        assert_eq!(walk_listed(&d, &bytes), Some(walk(&d)));
    }

    #[test]
    fn a_file_made_removed_renamed_or_retyped_at_the_root_moves_it() {
        type Change = fn(&Path);
        let changes: [(&str, Change); 5] = [
            ("made", |d| fs::write(d.join("b.md"), "b").unwrap()),
            ("removed", |d| fs::remove_file(d.join("a.md")).unwrap()),
            ("renamed", |d| fs::rename(d.join("a.md"), d.join("c.md")).unwrap()),
            ("renamed over", |d| fs::rename(d.join("x.txt"), d.join("a.md")).unwrap()),
            ("retyped", |d| {
                fs::remove_file(d.join("a.md")).unwrap();
                std::os::unix::fs::symlink("x.txt", d.join("a.md")).unwrap();
            }),
        ];
        for (what, change) in changes {
            let t = tempfile::tempdir().unwrap();
            let d = t.path();
            fs::write(d.join("a.md"), "a").unwrap();
            fs::write(d.join("x.txt"), "x").unwrap();
            age_dirs(d);
            let bytes = listed(d);
            assert!(walk_listed(d, &bytes).is_some(), "{what}: vouches before");
            change(d);
            assert_eq!(walk_listed(d, &bytes), None, "{what}");
        }
    }

    #[test]
    fn a_dir_changed_lately_or_a_memctl_dir_is_not_listed() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        fs::write(d.join("a.md"), "a").unwrap();
        let (_, dirs) = walk_seen(d, &mut Vec::new());
        assert!(!settled(&dirs.unwrap(), now_ns()), "made just now: racy");
        fs::create_dir_all(d.join("sub/.memctl")).unwrap();
        age_dirs(d);
        let mut skipped = Vec::new();
        let (files, dirs) = walk_seen(d, &mut skipped);
        assert_eq!(dirs, None, "a .memctl dir: its files are counted on every walk");
        assert_eq!(files, walk(d));
    }

    #[test]
    fn a_listing_parses_only_as_rendered() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        fs::create_dir_all(d.join("sub")).unwrap();
        fs::write(d.join("a\tb.md"), "a").unwrap();
        fs::write(d.join("sub/c\nd.md"), "c").unwrap();
        age_dirs(d);
        let bytes = listed(d);
        let l = parse(&bytes).unwrap();
        assert_eq!(
            l.dirs.iter().map(|x| x.rel.as_slice()).collect::<Vec<_>>(),
            [&b""[..], b"sub"]
        );
        assert_eq!(l.files, [&b"a\tb.md"[..], b"sub/c\nd.md"]);
        let root = format!("d{}\t{}\t{}\t\0", l.dirs[0].mtime_ns, l.dirs[0].ctime_ns, l.dirs[0].ino);
        let bad: [Vec<u8>; 9] = [
            bytes[1..].to_vec(),
            bytes[..bytes.len() - 1].to_vec(),
            b"memctl-walk 1\n".to_vec(),
            format!("memctl-walk 1\n{root}fb.md\0fa.md\0").into_bytes(),
            format!("memctl-walk 1\n{root}fa.md\0fa.md\0").into_bytes(),
            format!("memctl-walk 1\n{root}fsub/a.md\0").into_bytes(),
            format!("memctl-walk 1\n{root}fa.txt\0").into_bytes(),
            format!("memctl-walk 1\n{root}f../a.md\0").into_bytes(),
            format!("memctl-walk 1\n{root}fa.md\0d1\t2\t3\tsub\0").into_bytes(),
        ];
        for b in bad {
            assert_eq!(parse(&b), None, "{}", String::from_utf8_lossy(&b));
            assert_eq!(walk_listed(d, &b), None);
        }
        assert!(parse(format!("memctl-walk 1\n{root}fa.md\0").as_bytes()).is_some());
    }

    /// A store's snapshots with a listing: each change is recorded as a walk
    /// would record it, the listing written once the dirs settle and removed when
    /// a walk finds one that has not.
    #[test]
    fn snapshots_through_the_listing_record_every_change() {
        use crate::history::{Request, Settings, Store, read};
        let t = tempfile::tempdir().unwrap();
        let mem = t.path().join("memory");
        fs::create_dir_all(mem.join("sub")).unwrap();
        fs::write(mem.join("MEMORY.md"), "- [A](a.md) — a\n").unwrap();
        fs::write(mem.join("a.md"), "a\n").unwrap();
        fs::write(mem.join("sub/b.md"), "b\n").unwrap();
        age_dirs(&mem);
        let settings = Settings::On {
            root: t.path().join("state"),
        };
        let now = "2026-03-10T12:00:00Z".parse().unwrap();
        let req = Request {
            trigger: None,
            recorded_by: "snapshot",
            message: None,
            details: &[],
            claude: false,
            now,
        };
        let mut s = Store::open(&settings, &mem, None, true, now).unwrap().unwrap();
        let files = |s: &Store, id| -> Vec<(String, String)> {
            let st = read::load_state(&s.repo, id).unwrap();
            st.files
                .iter()
                .map(|(p, f)| (String::from_utf8_lossy(p).into_owned(), f.oid.to_hex().to_string()))
                .collect()
        };
        s.snapshot(&mem, &req).unwrap().unwrap();
        s.settle();
        let listing = s.path().join(LISTING);
        assert!(listing.is_file(), "settled dirs: listed");
        // In place: through the listing.
        fs::write(mem.join("sub/b.md"), "b, longer\n").unwrap();
        let r = s.snapshot(&mem, &req).unwrap().expect("a change");
        assert_eq!(r.changes.len(), 1);
        // A new file moves the dir: walked, recorded, and the listing removed
        // (the dir changed just now).
        fs::write(mem.join("c.md"), "c\n").unwrap();
        let r = s.snapshot(&mem, &req).unwrap().expect("a change");
        s.settle();
        assert_eq!(r.changes.len(), 1);
        assert!(!listing.exists(), "a racy dir: no listing");
        let all = files(&s, r.id);
        assert_eq!(
            all.iter().map(|(p, _)| p.as_str()).collect::<Vec<_>>(),
            ["MEMORY.md", "a.md", "c.md", "sub/b.md"]
        );
        // Settled again: listed again, and a removal is seen.
        age_dirs(&mem);
        assert!(s.snapshot(&mem, &req).unwrap().is_none(), "nothing changed");
        s.settle();
        assert!(listing.is_file());
        fs::remove_file(mem.join("sub/b.md")).unwrap();
        let r = s.snapshot(&mem, &req).unwrap().expect("a change");
        assert_eq!(files(&s, r.id).len(), 3);
    }
}
