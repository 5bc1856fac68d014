//! What a snapshot tracks (SPEC §8.1): every regular file and symlink below the
//! memory dir whose name ends in `.md`, not followed through symlinked dirs, not
//! under `.trash/` or `.memctl/`, plus the `.consolidate-lock` state.

use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use crate::fsread::{self, BLOCK, Lstat};

/// One tracked file as it is on disk now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OnDisk {
    /// The path below the memory dir, `/`-separated, as raw bytes.
    pub rel: Vec<u8>,
    pub link: bool,
    pub size: u64,
    pub mtime_ns: i128,
    /// The inode's change time: every write and every `utime` moves it, so a
    /// same-size rewrite that puts the old mtime back is still seen.
    pub ctime_ns: i128,
    pub ino: u64,
}

impl OnDisk {
    /// The file at `rel` as its `lstat` says.
    fn of(rel: Vec<u8>, md: &Lstat) -> OnDisk {
        OnDisk {
            rel,
            link: md.is_symlink(),
            size: md.size,
            mtime_ns: md.mtime_ns,
            ctime_ns: md.ctime_ns,
            ino: md.ino,
        }
    }
}

/// The `.consolidate-lock` file: its mtime in ns and its body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockState {
    pub mtime_ns: i128,
    pub body: Vec<u8>,
}

/// The tracked files below `root`, sorted by path bytes; `skipped` gets the memory
/// files under a `.memctl/` dir (not tracked: the store's namespace).
pub fn walk(root: &Path, skipped: &mut Vec<String>) -> Vec<OnDisk> {
    walk_visiting(root, skipped, &mut |_, _, _, _| {})
}

/// A caller's look at each entry the walk reads (another check that walks the
/// same dir, the SessionStart hook's): the entry, its path below `root` (raw
/// bytes, `/`-separated), its type and its `lstat` when the walk took one. Every
/// entry of every dir the walk enters is shown once, so that one walk and one
/// `stat` per file serve both.
pub type Visit<'a> = dyn FnMut(&Entered, &[u8], Kind, Option<&Lstat>) + 'a;

/// An entry of a dir the walk read: the dir's path, its handle and the entry's name.
pub struct Entered<'a> {
    dir: &'a Path,
    handle: Handle<'a>,
    name: &'a [u8],
}

/// How an entry's `lstat` is taken: by the dir's handle, either way.
#[derive(Clone, Copy)]
enum Handle<'a> {
    Fd(rustix::fd::BorrowedFd<'a>),
    Std(&'a fs::DirEntry),
}

impl<'a> Entered<'a> {
    /// The entry `e` of the dir `dir`, read by std.
    pub fn of_std(dir: &'a Path, e: &'a fs::DirEntry, name: &'a [u8]) -> Entered<'a> {
        Entered {
            dir,
            handle: Handle::Std(e),
            name,
        }
    }

    /// The entry's name in its dir.
    pub fn name(&self) -> &[u8] {
        self.name
    }

    pub fn path(&self) -> std::path::PathBuf {
        self.dir.join(std::ffi::OsStr::from_bytes(self.name))
    }

    /// The entry's `lstat`, taken now (the walk took none for it) by the dir's
    /// handle: one name looked up, not the path.
    pub fn lstat(&self) -> Option<Lstat> {
        match self.handle {
            Handle::Fd(fd) => Lstat::at(fd, &std::ffi::CString::new(self.name).ok()?),
            Handle::Std(e) => e.metadata().ok().map(|m| Lstat::of(&m)),
        }
    }
}

/// An entry's type as its dir gives it (`lstat`'s when the dir does not).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    File,
    Dir,
    Symlink,
    /// A FIFO, a socket, a device.
    Other,
}

impl Kind {
    pub fn is_file(self) -> bool {
        self == Kind::File
    }

    pub fn is_dir(self) -> bool {
        self == Kind::Dir
    }

    pub fn is_symlink(self) -> bool {
        self == Kind::Symlink
    }

    fn of(md: &Lstat) -> Kind {
        if md.is_file() {
            Kind::File
        } else if md.is_dir() {
            Kind::Dir
        } else if md.is_symlink() {
            Kind::Symlink
        } else {
            Kind::Other
        }
    }
}

/// [`walk`], showing each entry to `visit` too.
///
/// A dir is read in blocks of [`BLOCK`] entries; a block with many files to
/// `lstat` has them stat'ed on every core the process may run on (20 000 files:
/// the walk's 20 000 `statx` are most of a snapshot's system time), then its
/// entries are taken in the order read, as one thread would: the same entries
/// shown, the same files found, an entry whose `lstat` failed (gone since the
/// dir was read) skipped as before. The dir is read by `getdents` and each file
/// `statx`ed by the dir's handle and its name (rustix: no `DirEntry` nor
/// `Metadata` built per file; 20 000 files on one core: 41 → 35 ms).
pub fn walk_visiting(root: &Path, skipped: &mut Vec<String>, visit: &mut Visit) -> Vec<OnDisk> {
    walk_threads(root, skipped, visit, None)
}

/// [`walk_visiting`] on `threads` threads (`None`: the cores the process may
/// run on, asked when a block is first large enough).
fn walk_threads(root: &Path, skipped: &mut Vec<String>, visit: &mut Visit, mut threads: Option<usize>) -> Vec<OnDisk> {
    let mut out = Vec::new();
    let mut stack: Vec<(std::path::PathBuf, Vec<u8>)> = vec![(root.to_path_buf(), Vec::new())];
    let mut block: Vec<Entry> = Vec::new();
    let mut stats: Vec<Option<Option<Lstat>>> = Vec::new();
    while let Some((dir, prefix)) = stack.pop() {
        let Some((fd, mut rd)) = open_listing(&dir) else {
            continue;
        };
        let fd = rustix::fd::AsFd::as_fd(&fd);
        // As glibc's `readdir` lists: an entry that cannot be read ends the
        // listing, no entry of inode 0, nothing read after the end.
        let mut entries = std::iter::from_fn(|| rd.read().and_then(Result::ok))
            .fuse()
            .filter(|e| e.ino() != 0 && !matches!(e.file_name().to_bytes(), b"." | b".."));
        loop {
            // On one core each entry is taken as it is read (no block held).
            let take = if threads == Some(1) { 1 } else { BLOCK };
            block.extend(entries.by_ref().filter_map(|e| Entry::new(fd, &e, &prefix)).take(take));
            if block.is_empty() {
                break;
            }
            fsread::stat_block(
                &block,
                |x| x.stated,
                |x| Lstat::at(fd, x.c_name()),
                &mut stats,
                &mut threads,
            );
            for (i, x) in block.drain(..).enumerate() {
                let here;
                let md = match stats.get(i) {
                    _ if !x.stated => None,
                    Some(Some(md)) => md.as_ref(),
                    _ => {
                        // By the directory's handle: one name looked up, not the
                        // path (here, unless a thread of `stat_block` took it).
                        here = Lstat::at(fd, x.c_name());
                        here.as_ref()
                    }
                };
                let Entry {
                    mut rel, kind, name_at, ..
                } = x;
                rel.pop(); // the name's NUL
                let name = &rel[name_at..];
                let e = Entered {
                    dir: &dir,
                    handle: Handle::Fd(fd),
                    name,
                };
                if kind.is_dir() {
                    visit(&e, &rel, kind, None);
                    if name == b".trash" {
                        continue;
                    }
                    if name == b".memctl" {
                        note_skipped(&e.path(), skipped);
                        continue;
                    }
                    let sub = e.path();
                    stack.push((sub, rel));
                    continue;
                }
                let Some(md) = md else {
                    visit(&e, &rel, kind, None);
                    continue;
                };
                visit(&e, &rel, kind, Some(md));
                out.push(OnDisk::of(rel, md));
            }
        }
    }
    // Paths are unique: the unstable sort gives the one order, for less.
    out.sort_unstable_by(|a, b| a.rel.cmp(&b.rel));
    out
}

/// The dir `dir` opened: its handle (the `lstat`s are taken by it) and its
/// listing, read by a copy of the handle (`Dir::read_from` opens the dir again,
/// which needs the search permission a listing does not).
fn open_listing(dir: &Path) -> Option<(rustix::fd::OwnedFd, rustix::fs::Dir)> {
    use rustix::fs::{Mode, OFlags};
    let fd = rustix::fs::open(dir, OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC, Mode::empty()).ok()?;
    let listing = rustix::io::dup(&fd).and_then(rustix::fs::Dir::new).ok()?;
    Some((fd, listing))
}

/// An entry of a dir as read: its path below the root (raw bytes,
/// `/`-separated, then the NUL that ends its name for `statx`), its type and
/// whether the walk takes its `lstat` (a memory file).
struct Entry {
    rel: Vec<u8>,
    kind: Kind,
    /// Where the entry's own name starts in `rel`.
    name_at: usize,
    stated: bool,
}

impl Entry {
    /// `None`: an entry whose type cannot be had (skipped, as it always was).
    fn new(dir: rustix::fd::BorrowedFd<'_>, e: &rustix::fs::DirEntry, prefix: &[u8]) -> Option<Entry> {
        use rustix::fs::FileType;
        let cname = e.file_name();
        let kind = match e.file_type() {
            FileType::RegularFile => Kind::File,
            FileType::Directory => Kind::Dir,
            FileType::Symlink => Kind::Symlink,
            // A file system that gives no type in its listing: the `lstat`'s.
            FileType::Unknown => Kind::of(&Lstat::at(dir, cname)?),
            _ => Kind::Other,
        };
        let name = cname.to_bytes_with_nul();
        // Sized once: a path is the one allocation a walked file needs.
        let mut rel = Vec::with_capacity(prefix.len() + 1 + name.len());
        rel.extend_from_slice(prefix);
        if !rel.is_empty() {
            rel.push(b'/');
        }
        let name_at = rel.len();
        rel.extend_from_slice(name);
        let name = &name[..name.len() - 1];
        let stated = !kind.is_dir() && name.ends_with(b".md") && (kind.is_file() || kind.is_symlink());
        Some(Entry {
            rel,
            kind,
            name_at,
            stated,
        })
    }

    /// The entry's name, as `statx` takes it.
    fn c_name(&self) -> &std::ffi::CStr {
        std::ffi::CStr::from_bytes_with_nul(&self.rel[self.name_at..]).unwrap_or_default()
    }
}

fn note_skipped(dir: &Path, skipped: &mut Vec<String>) {
    let mut n = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).into_iter().flatten().flatten() {
            match e.file_type() {
                Ok(t) if t.is_dir() => stack.push(e.path()),
                _ if e.file_name().as_bytes().ends_with(b".md") => n += 1,
                _ => {}
            }
        }
    }
    if n > 0 {
        skipped.push(format!(
            "{n} memory file(s) under {} are not tracked: .memctl/ is the history's own namespace",
            dir.display()
        ));
    }
}

pub fn mtime_ns(md: &fs::Metadata) -> i128 {
    i128::from(md.mtime()) * 1_000_000_000 + i128::from(md.mtime_nsec())
}

/// `files`, a [`walk`] of `root` (sorted), brought up to date for the paths
/// `touched` (below `root`, raw bytes, `/`-separated), each `lstat`ed again:
/// what the walk would find now if nothing else changed (a writer knows every
/// path it wrote or removed, SPEC v3 §8.2). Returns the entries of `files` it
/// replaced (the touched paths as walked before, sorted); `None` when a path's
/// place in the walk cannot be told this way (a symlink, a file or a `.memctl`
/// dir on its way, a directory, an error other than absence): the caller walks
/// again.
pub fn patch(root: &Path, files: &mut Vec<OnDisk>, touched: &[Vec<u8>]) -> Option<Vec<OnDisk>> {
    let mut rels: Vec<&[u8]> = touched.iter().map(Vec::as_slice).collect();
    rels.sort_unstable();
    rels.dedup();
    let mut found = Vec::new();
    for rel in &rels {
        match lstat_tracked(root, rel) {
            Err(()) => return None,
            Ok(Some(f)) => found.push(f),
            Ok(None) => {}
        }
    }
    let replaced: Vec<OnDisk> = files.extract_if(.., |f| is_among(&rels, &f.rel)).collect();
    if found.len() <= 16 {
        for f in found {
            let at = files.partition_point(|x| x.rel < f.rel);
            files.insert(at, f);
        }
        return Some(replaced);
    }
    // Many (an import): one merge of the two sorted lists.
    let mut out = Vec::with_capacity(files.len() + found.len());
    let mut add = found.into_iter().peekable();
    for f in files.drain(..) {
        while let Some(n) = add.next_if(|n| n.rel < f.rel) {
            out.push(n);
        }
        out.push(f);
    }
    out.extend(add);
    *files = out;
    Some(replaced)
}

/// Whether `rel` is one of the sorted `rels`: a few are compared one by one
/// (lengths first: most paths of a walk are told apart without a `memcmp`).
pub(crate) fn is_among<T: AsRef<[u8]> + Ord>(rels: &[T], rel: &[u8]) -> bool {
    if rels.len() <= 8 {
        return rels.iter().any(|r| r.as_ref() == rel);
    }
    rels.binary_search_by(|r| r.as_ref().cmp(rel)).is_ok()
}

/// The walk's entry for `rel` below `root` as it is now: `Ok(None)` when the
/// walk would list none there (absent, not a memory file, under a `.trash`
/// dir), `Err` when only a walk can tell (see [`patch`]).
fn lstat_tracked(root: &Path, rel: &[u8]) -> Result<Option<OnDisk>, ()> {
    let name_at = rel.iter().rposition(|&b| b == b'/').map_or(0, |i| i + 1);
    let name = &rel[name_at..];
    let normal = |c: &[u8]| !c.is_empty() && c != b"." && c != b"..";
    if !normal(name) {
        return Err(());
    }
    let mut path = root.to_path_buf();
    for dir in rel[..name_at.saturating_sub(1)]
        .split(|&b| b == b'/')
        .filter(|_| name_at > 0)
    {
        if !normal(dir) {
            return Err(());
        }
        path.push(std::ffi::OsStr::from_bytes(dir));
        match fs::symlink_metadata(&path) {
            // Only a real dir is entered; `.memctl` makes a warning of its own.
            Ok(m) if m.is_dir() && dir != b".memctl" => {}
            Ok(_) => return Err(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(_) => return Err(()),
        }
        if dir == b".trash" {
            return Ok(None);
        }
    }
    path.push(std::ffi::OsStr::from_bytes(name));
    let md = match fs::symlink_metadata(&path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(_) => return Err(()),
    };
    let md = Lstat::of(&md);
    if md.is_dir() {
        return Err(());
    }
    if !name.ends_with(b".md") || !(md.is_file() || md.is_symlink()) {
        return Ok(None);
    }
    Ok(Some(OnDisk::of(rel.to_vec(), &md)))
}

/// The lock's state, `None` when there is no lock file. The body is read bounded
/// and only from a regular file (never blocks on a FIFO).
pub fn lock_state(main: &Path) -> Option<LockState> {
    let p = main.join(".consolidate-lock");
    let md = fs::symlink_metadata(&p).ok()?;
    let body = if md.is_file() {
        crate::fsread::read_regular(&p, 4096).unwrap_or_default()
    } else {
        Vec::new()
    };
    Some(LockState {
        mtime_ns: mtime_ns(&md),
        body,
    })
}

/// The bytes of a tracked file: the file's content, or a symlink's target.
pub fn read(root: &Path, f: &OnDisk) -> std::io::Result<Vec<u8>> {
    let p = root.join(std::ffi::OsStr::from_bytes(&f.rel));
    if f.link {
        return Ok(fs::read_link(&p)?.as_os_str().as_bytes().to_vec());
    }
    crate::fsread::read_regular(&p, 1 << 40).map_err(|e| std::io::Error::other(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fsread::PARALLEL_FROM;
    use std::ffi::OsStr;

    /// A walk patched with the paths changed since is the walk taken now: over
    /// random rounds of creates, rewrites, removals, links, nested files, files
    /// in `.trash/`, other files, a few paths at a time and many (an import).
    #[test]
    fn a_patched_walk_is_the_walk_taken_again() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        fs::create_dir_all(d.join("sub/deep")).unwrap();
        fs::create_dir_all(d.join(".trash/x")).unwrap();
        let names = [
            "a.md",
            "b.md",
            "MEMORY.md",
            "sub/c.md",
            "sub/deep/d.md",
            ".trash/x/e.md",
            "f.txt",
            "sub/g.md",
            "h.md",
        ];
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let mut before = walk(d, &mut Vec::new());
        for round in 0..300 {
            let mut touched: Vec<Vec<u8>> = Vec::new();
            let many = round % 50 == 49;
            for _ in 0..if many { 40 } else { 1 + next(3) } {
                let rel = if many {
                    format!("sub/m{}.md", next(60))
                } else {
                    names[next(names.len())].to_string()
                };
                let p = d.join(&rel);
                let _ = fs::remove_file(&p);
                match next(4) {
                    0 => {}
                    1 => std::os::unix::fs::symlink("a.md", &p).unwrap(),
                    _ => fs::write(&p, "x".repeat(next(40))).unwrap(),
                }
                touched.push(rel.into_bytes());
            }
            let was = before.clone();
            let replaced = patch(d, &mut before, &touched);
            let now = walk(d, &mut Vec::new());
            assert_eq!(before, now, "round {round}");
            // What it replaced: the touched paths as walked before.
            let touched_before: Vec<OnDisk> = was.into_iter().filter(|f| touched.contains(&f.rel)).collect();
            assert_eq!(replaced, Some(touched_before), "round {round}");
            before = now;
        }
    }

    /// Where only a walk can tell what changed, the patch says so.
    #[test]
    fn a_patch_refuses_paths_only_a_walk_can_place() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        fs::create_dir_all(d.join("real")).unwrap();
        fs::write(d.join("real/a.md"), "a").unwrap();
        std::os::unix::fs::symlink("real", d.join("via")).unwrap();
        fs::create_dir_all(d.join(".memctl")).unwrap();
        fs::create_dir_all(d.join("dir.md")).unwrap();
        let files = walk(d, &mut Vec::new());
        for rel in ["via/a.md", ".memctl/m.md", "dir.md", "../a.md", "real/../a.md", ""] {
            let mut f = files.clone();
            assert!(patch(d, &mut f, &[rel.as_bytes().to_vec()]).is_none(), "{rel}");
        }
        // Gone, in `.trash/`, under a dir that is gone, not a memory file: none.
        let mut f = files.clone();
        let none = ["gone.md", ".trash/a.md", "nodir/a.md", "real/a.txt"];
        assert_eq!(patch(d, &mut f, &none.map(|r| r.as_bytes().to_vec())), Some(Vec::new()));
        assert_eq!(f, files);
    }

    #[test]
    fn is_among_finds_exactly_the_listed_paths() {
        for n in [0usize, 1, 3, 8, 9, 40] {
            let rels: Vec<Vec<u8>> = (0..n).map(|i| format!("m{:03}.md", 2 * i).into_bytes()).collect();
            for i in 0..2 * n + 2 {
                let rel = format!("m{i:03}.md").into_bytes();
                assert_eq!(is_among(&rels, &rel), i % 2 == 0 && i < 2 * n, "{n} {i}");
            }
            assert!(!is_among(&rels, b""));
        }
    }

    #[test]
    fn tracks_md_files_and_links_but_not_trash_or_the_namespace() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        fs::write(d.join("MEMORY.md"), "x").unwrap();
        fs::write(d.join("a.md"), "a").unwrap();
        fs::write(d.join("notes.txt"), "n").unwrap();
        fs::create_dir_all(d.join("team")).unwrap();
        fs::write(d.join("team/b.md"), "b").unwrap();
        fs::create_dir_all(d.join(".trash/x")).unwrap();
        fs::write(d.join(".trash/x/a.md.deleted"), "a").unwrap();
        fs::write(d.join(".trash/c.md"), "c").unwrap();
        fs::create_dir_all(d.join(".memctl")).unwrap();
        fs::write(d.join(".memctl/m.md"), "m").unwrap();
        std::os::unix::fs::symlink("a.md", d.join("l.md")).unwrap();
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("o.md"), "o").unwrap();
        std::os::unix::fs::symlink(outside.path(), d.join("linked")).unwrap();
        let mut skipped = Vec::new();
        let got: Vec<String> = walk(d, &mut skipped)
            .iter()
            .map(|f| String::from_utf8_lossy(&f.rel).into_owned())
            .collect();
        assert_eq!(got, ["MEMORY.md", "a.md", "l.md", "team/b.md"]);
        assert_eq!(skipped.len(), 1, "{skipped:?}");
    }

    /// What a walk showed and found: each visit (path, type, the `lstat`'s size
    /// and mtime when one was taken) in order, the files and the warnings.
    type Seen = (Vec<(Vec<u8>, bool, Option<(u64, i128)>)>, Vec<OnDisk>, Vec<String>);

    fn walk_seen(root: &Path, threads: usize) -> Seen {
        let mut shown = Vec::new();
        let mut skipped = Vec::new();
        let files = walk_threads(
            root,
            &mut skipped,
            &mut |_, rel, ft, md| shown.push((rel.to_vec(), ft.is_dir(), md.map(|m| (m.size, m.mtime_ns)))),
            Some(threads),
        );
        (shown, files, skipped)
    }

    #[test]
    fn stats_taken_on_several_threads_are_the_ones_one_thread_takes() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        // More than a block in the top dir (two blocks of files stat'ed on
        // threads); links, other files and dirs between them.
        crate::fsread::more_than_a_block(d, ".md");
        fs::create_dir_all(d.join(".memctl")).unwrap();
        fs::write(d.join(".memctl/m.md"), "m").unwrap();
        let one = walk_seen(d, 1);
        assert_eq!(one.1.len(), BLOCK + 700 + 2 * 50, "every file, link and nested file");
        assert!(
            one.1
                .iter()
                .all(|f| f.size == fs::symlink_metadata(d.join(OsStr::from_bytes(&f.rel))).unwrap().len())
        );
        for threads in [2, 3] {
            assert_eq!(walk_seen(d, threads), one, "{threads} threads");
        }
    }

    #[test]
    fn a_file_gone_before_its_stat_is_skipped_as_one_thread_skips_it() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        for i in 0..PARALLEL_FROM + 10 {
            fs::write(d.join(format!("m{i:04}.md")), "x").unwrap();
        }
        let fd = rustix::fs::open(d, rustix::fs::OFlags::DIRECTORY, rustix::fs::Mode::empty()).unwrap();
        let fd = rustix::fd::AsFd::as_fd(&fd);
        let mut rd = rustix::fs::Dir::read_from(fd).unwrap();
        let block: Vec<Entry> = std::iter::from_fn(|| rd.read())
            .flatten()
            .filter_map(|e| Entry::new(fd, &e, b""))
            .filter(|x| x.rel.ends_with(b".md\0"))
            .collect();
        let stat_block = |block: &[Entry], stats: &mut Vec<_>, threads: &mut Option<usize>| {
            crate::fsread::stat_block(block, |x| x.stated, |x| Lstat::at(fd, x.c_name()), stats, threads);
        };
        // Gone between the dir's read and the stats, as another program may do.
        let gone = block.iter().rposition(|x| x.rel == b"m0007.md\0").unwrap();
        fs::remove_file(d.join("m0007.md")).unwrap();
        let mut stats = Vec::new();
        stat_block(&block, &mut stats, &mut Some(2));
        assert_eq!(stats.len(), block.len());
        assert!(matches!(stats[gone], Some(None)), "its stat failed: {:?}", stats[gone]);
        assert_eq!(
            stats.iter().filter(|s| matches!(s, Some(Some(_)))).count(),
            block.len() - 1
        );
        // Too few files for threads, or one core: left to the walk.
        stat_block(&block[..PARALLEL_FROM - 1], &mut stats, &mut Some(2));
        assert!(stats.is_empty());
        stat_block(&block, &mut stats, &mut Some(1));
        assert!(stats.is_empty());
    }
}
