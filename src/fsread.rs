//! Bounded reads of regular files only (SPEC §2.5 step 8): memctl never opens a
//! FIFO, a device or a socket for reading (a FIFO blocks forever, `/dev/zero` never
//! ends), and never reads more than the reader needs.

use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// The most of a settings file memctl reads.
pub const MAX_SETTINGS_BYTES: u64 = 4 << 20;
/// The most of a `CLAUDE.md` memctl reads.
pub const MAX_CLAUDE_MD_BYTES: u64 = 16 << 20;

/// Why a file was not read.
#[derive(Debug)]
pub enum ReadError {
    /// Nothing at the path (or a dangling symlink).
    NotFound,
    /// Something that is not a regular file: `what` names it ("a FIFO").
    NotRegular(&'static str),
    /// Longer than the reader's bound.
    TooLarge(u64),
    /// Opening or reading failed.
    Io(io::Error),
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::NotFound => f.write_str("no such file or directory"),
            ReadError::NotRegular(what) => write!(f, "{what}, not a regular file"),
            ReadError::TooLarge(max) => write!(f, "larger than {}", size(*max)),
            ReadError::Io(e) => f.write_str(&crate::error::io_words(e)),
        }
    }
}

impl From<ReadError> for io::Error {
    fn from(e: ReadError) -> io::Error {
        match e {
            ReadError::NotFound => io::Error::from(io::ErrorKind::NotFound),
            ReadError::Io(e) => e,
            e => io::Error::other(e.to_string()),
        }
    }
}

/// A small file read as text (`None` when it is missing, special, too long or not
/// UTF-8): git's `.git`, `commondir` and `gitdir` files.
pub fn read_small_text(path: &Path) -> Option<String> {
    String::from_utf8(read_regular(path, 64 << 10).ok()?).ok()
}

fn size(n: u64) -> String {
    if n >= 1 << 20 && n.is_multiple_of(1 << 20) {
        format!("{} MiB", n >> 20)
    } else {
        format!("{n} bytes")
    }
}

/// What a file type is called in a message.
pub fn kind_name(t: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_file() {
        "a regular file"
    } else {
        "a special file"
    }
}

/// Open `path` (following symlinks) for reading if it is a regular file. The type
/// is checked before opening and again on the open file (a swap in between is
/// caught); the open itself never blocks (`O_NONBLOCK`, which regular files ignore).
pub fn open_regular(path: &Path) -> Result<File, ReadError> {
    let meta = std::fs::metadata(path).map_err(from_io)?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular(kind_name(meta.file_type())));
    }
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
        .open(path)
        .map_err(from_io)?;
    let meta = file.metadata().map_err(ReadError::Io)?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular(kind_name(meta.file_type())));
    }
    Ok(file)
}

fn from_io(e: io::Error) -> ReadError {
    if e.kind() == io::ErrorKind::NotFound {
        ReadError::NotFound
    } else {
        ReadError::Io(e)
    }
}

/// The whole of a regular file of at most `max` bytes.
pub fn read_regular(path: &Path, max: u64) -> Result<Vec<u8>, ReadError> {
    let file = open_regular(path)?;
    read_bounded(file, max)
}

/// At most `max` bytes of `file`; longer is [`ReadError::TooLarge`].
pub fn read_bounded(file: File, max: u64) -> Result<Vec<u8>, ReadError> {
    let hint = file.metadata().map_or(0, |m| m.len()).min(max + 1) as usize;
    let mut bytes = Vec::with_capacity(hint + 1);
    file.take(max + 1).read_to_end(&mut bytes).map_err(ReadError::Io)?;
    if bytes.len() as u64 > max {
        return Err(ReadError::TooLarge(max));
    }
    Ok(bytes)
}

/// The first `max` bytes of a regular file (for readers that need only a prefix).
pub fn read_prefix(path: &Path, max: u64) -> Result<Vec<u8>, ReadError> {
    let file = open_regular(path)?;
    let mut bytes = Vec::new();
    file.take(max).read_to_end(&mut bytes).map_err(ReadError::Io)?;
    Ok(bytes)
}

/// The lines of an open file read in pieces into one buffer, kept and reused
/// (a reader that looks at each line once needs no copy of the whole file: at
/// 20 000 memories the stat cache is 3.5 MB of memory touched, ~900 page faults).
/// At most `max` bytes are read; a read error or more than `max` bytes end the
/// lines early (what is left reads as empty lines).
pub struct Lines {
    file: File,
    /// Bytes read up to `end`; the rest is room for the next piece (zeroed
    /// once, when the buffer grows).
    buf: Vec<u8>,
    end: usize,
    /// Where the next line starts in `buf`, and how far past it no `\n` is.
    start: usize,
    scanned: usize,
    piece: usize,
    left: u64,
    done: bool,
    /// A read failed or went past `max` bytes: the lines ended early.
    cut: bool,
}

impl Lines {
    /// The lines of `file` read `piece` bytes at a time (at least one).
    pub fn new(file: File, max: u64, piece: usize) -> Lines {
        Lines {
            file,
            buf: Vec::new(),
            end: 0,
            start: 0,
            scanned: 0,
            piece: piece.max(1),
            left: max,
            done: false,
            cut: false,
        }
    }

    /// The text up to the next `\n` (all that is left when there is none), as
    /// [`Lines`] reads; empty once the file is read, or after a read failed or
    /// went past `max` bytes (a line cut by that failure is dropped).
    pub fn next_line(&mut self) -> &[u8] {
        loop {
            if let Some(i) = memchr::memchr(b'\n', &self.buf[self.scanned..self.end]) {
                let (s, e) = (self.start, self.scanned + i);
                self.start = e + 1;
                self.scanned = self.start;
                return &self.buf[s..e];
            }
            self.scanned = self.end;
            if self.done {
                let s = std::mem::replace(&mut self.start, self.end);
                return &self.buf[s..self.end];
            }
            self.fill();
        }
    }

    /// Whether every byte of the file was read as a line: nothing is left
    /// past the lines taken, and no read failed or went past `max` bytes.
    pub fn at_end(&mut self) -> bool {
        while self.start == self.end && !self.done {
            self.fill();
        }
        self.start == self.end && !self.cut
    }

    /// Read the next piece after what is held (the file's end, a failure or
    /// more than `max` bytes mark it done).
    fn fill(&mut self) {
        // The lines read are dropped when they are at least half of what
        // is held: each byte is moved at most once on average, whatever
        // the length of a line.
        if self.start > 0 && self.start >= self.end / 2 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.scanned -= self.start;
            self.start = 0;
        }
        let want = (self.piece as u64).min(self.left.saturating_add(1)) as usize;
        if self.buf.len() < self.end + want {
            self.buf.resize(self.end + want, 0);
        }
        match self.file.read(&mut self.buf[self.end..self.end + want]) {
            Ok(n) if n as u64 <= self.left => {
                self.end += n;
                self.left -= n as u64;
                self.done = n == 0;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Ok(_) | Err(_) => {
                // Too much, or failed: nothing more is a line.
                self.end = self.start;
                self.scanned = self.start;
                self.done = true;
                self.cut = true;
            }
        }
    }
}

/// A file's `lstat` as the snapshot's walk takes it: one `statx` by the
/// dir's handle and the entry's name (no path walked, no `Metadata` built).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lstat {
    pub dev: u64,
    pub ino: u64,
    pub size: u64,
    /// The type and permission bits (`st_mode`).
    pub mode: u32,
    pub mtime_ns: i128,
    /// The inode's change time.
    pub ctime_ns: i128,
    /// The modification time as the kernel gives it: whole seconds (before the
    /// epoch, negative) and the nanoseconds after them.
    pub mtime: (i64, u32),
}

const S_IFMT: u32 = 0o170_000;

impl Lstat {
    /// The same facts from std's metadata (a path's `lstat`, or its `stat`).
    pub fn of(m: &std::fs::Metadata) -> Lstat {
        use std::os::unix::fs::MetadataExt;
        let ns = |s: i64, n: i64| i128::from(s) * 1_000_000_000 + i128::from(n);
        Lstat {
            dev: m.dev(),
            ino: m.ino(),
            size: m.size(),
            mode: m.mode(),
            mtime_ns: ns(m.mtime(), m.mtime_nsec()),
            ctime_ns: ns(m.ctime(), m.ctime_nsec()),
            mtime: (m.mtime(), u32::try_from(m.mtime_nsec()).unwrap_or(0)),
        }
    }

    /// The `lstat` of `name` in the dir open as `dir`; `None` when it fails
    /// (gone since the dir was read).
    pub fn at(dir: rustix::fd::BorrowedFd<'_>, name: &std::ffi::CStr) -> Option<Lstat> {
        lstat_at(dir, name)
    }

    pub fn is_file(&self) -> bool {
        self.mode & S_IFMT == 0o100_000
    }

    pub fn is_dir(&self) -> bool {
        self.mode & S_IFMT == 0o040_000
    }

    pub fn is_symlink(&self) -> bool {
        self.mode & S_IFMT == 0o120_000
    }

    /// The modification time in fractional milliseconds since the epoch, as
    /// [`crate::scan::mtime_ms`] gives it from the same file's metadata.
    pub fn mtime_ms(&self) -> f64 {
        let (secs, nanos) = self.mtime;
        let t = if secs >= 0 {
            std::time::UNIX_EPOCH.checked_add(std::time::Duration::new(secs.unsigned_abs(), nanos))
        } else {
            std::time::UNIX_EPOCH
                .checked_sub(std::time::Duration::from_secs(secs.unsigned_abs()))
                .and_then(|t| t.checked_add(std::time::Duration::from_nanos(u64::from(nanos))))
        };
        t.map_or(0.0, system_time_ms)
    }
}

/// A time in fractional milliseconds since the epoch (negative before it): the
/// scan's and the survey's order of memories ([`crate::scan::mtime_ms`]).
pub(crate) fn system_time_ms(t: std::time::SystemTime) -> f64 {
    match t.duration_since(std::time::UNIX_EPOCH) {
        Ok(d) => d.as_secs() as f64 * 1000.0 + f64::from(d.subsec_nanos()) / 1e6,
        Err(before) => {
            let d = before.duration();
            -(d.as_secs() as f64 * 1000.0 + f64::from(d.subsec_nanos()) / 1e6)
        }
    }
}

fn lstat_at(dir: rustix::fd::BorrowedFd<'_>, name: &std::ffi::CStr) -> Option<Lstat> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        use rustix::fs::{AtFlags, StatxFlags};
        let mask = StatxFlags::TYPE
            | StatxFlags::MODE
            | StatxFlags::INO
            | StatxFlags::SIZE
            | StatxFlags::MTIME
            | StatxFlags::CTIME;
        let ns = |t: rustix::fs::StatxTimestamp| i128::from(t.tv_sec) * 1_000_000_000 + i128::from(t.tv_nsec);
        match rustix::fs::statx(dir, name, AtFlags::SYMLINK_NOFOLLOW, mask) {
            Ok(st) => {
                return Some(Lstat {
                    // As std makes `st_dev` of a `statx` (glibc's `makedev`).
                    dev: rustix::fs::makedev(st.stx_dev_major, st.stx_dev_minor),
                    ino: st.stx_ino,
                    size: st.stx_size,
                    mode: u32::from(st.stx_mode),
                    mtime_ns: ns(st.stx_mtime),
                    ctime_ns: ns(st.stx_ctime),
                    mtime: (st.stx_mtime.tv_sec, st.stx_mtime.tv_nsec),
                });
            }
            // No `statx` (a kernel before 4.11, a seccomp filter that denies
            // it): `fstatat`, as std falls back to.
            Err(rustix::io::Errno::NOSYS) => {}
            Err(_) => return None,
        }
    }
    lstat_by_fstatat(dir, name)
}

// `struct stat`'s field types differ between targets (the casts are no-ops on some).
#[allow(clippy::unnecessary_cast, clippy::useless_conversion)]
fn lstat_by_fstatat(dir: rustix::fd::BorrowedFd<'_>, name: &std::ffi::CStr) -> Option<Lstat> {
    let st = rustix::fs::statat(dir, name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW).ok()?;
    let ns = |s: i64, n: i64| i128::from(s) * 1_000_000_000 + i128::from(n);
    let (ms, mn) = (st.st_mtime as i64, st.st_mtime_nsec as i64);
    Some(Lstat {
        dev: st.st_dev as u64,
        ino: st.st_ino as u64,
        size: st.st_size as u64,
        mode: st.st_mode as u32,
        mtime_ns: ns(ms, mn),
        ctime_ns: ns(st.st_ctime as i64, st.st_ctime_nsec as i64),
        mtime: (ms, u32::try_from(mn).unwrap_or(0)),
    })
}

/// Entries of a dir a walk takes at a time: their `lstat`s held at once stay
/// small (about 1 MB of entries and stats, the same memory for every block).
pub const BLOCK: usize = 4096;

/// Files of a block below which one thread stats them (a thread costs tens of
/// µs; a `statx` one to two).
pub const PARALLEL_FROM: usize = 256;

/// `stat` (the walk's `lstat` of an entry by its dir's handle) of each entry of
/// `block` that is `wanted`, at its index in `stats` (`Some(None)`: it failed),
/// taken on every core when the block has many (each thread a contiguous
/// slice). `stats` is left empty, or a slot `None`, where one thread would do
/// as well or a thread could not be had: the walk then stats that entry as it
/// comes to it. `threads` is how many cores the process may run on, asked once
/// per walk and only when a block is large. `wanted` is asked once per entry.
pub fn stat_block<T: Sync, S: Send>(
    block: &[T],
    wanted: impl Fn(&T) -> bool,
    stat: impl Fn(&T) -> Option<S> + Sync,
    stats: &mut Vec<Option<Option<S>>>,
    threads: &mut Option<usize>,
) {
    stats.clear();
    if block.len() < PARALLEL_FROM {
        return;
    }
    let wanted: Vec<bool> = block.iter().map(wanted).collect();
    if wanted.iter().filter(|&&w| w).count() < PARALLEL_FROM {
        return;
    }
    let n = *threads.get_or_insert_with(|| std::thread::available_parallelism().map_or(1, |n| n.get()).min(8));
    if n < 2 {
        return;
    }
    stats.resize_with(block.len(), || None);
    let each = block.len().div_ceil(n);
    let stat = &stat;
    let fill = |entries: &[T], wanted: &[bool], out: &mut [Option<Option<S>>]| {
        for ((x, &w), slot) in entries.iter().zip(wanted).zip(out) {
            if w {
                *slot = Some(stat(x));
            }
        }
    };
    // Every slice on a thread of its own, this one waiting: a thread spawned
    // while its parent keeps running starts on the parent's core and moves only
    // when the scheduler balances, after most of a block's few milliseconds of
    // `statx` (20 000 files on two cores: 37-38 ms with the parent taking a
    // slice, 28-29 ms with none, 41 ms on one thread).
    std::thread::scope(|s| {
        for ((entries, wanted), out) in block.chunks(each).zip(wanted.chunks(each)).zip(stats.chunks_mut(each)) {
            // No thread (a process limit): the walk stats these itself.
            let _ = std::thread::Builder::new().spawn_scoped(s, move || fill(entries, wanted, out));
        }
    });
}

/// A dir of more than a [`BLOCK`] of memory files (each its own size, so that a
/// stat given to the wrong entry shows), with links, other files and a dir
/// `d<i><dir_suffix>` holding a memory between them: the walks' threaded-stat
/// tests.
#[cfg(test)]
pub(crate) fn more_than_a_block(d: &Path, dir_suffix: &str) {
    for i in 0..BLOCK + 700 {
        std::fs::write(d.join(format!("m{i:05}.md")), "x".repeat(i % 977)).unwrap();
        if i % 97 == 0 {
            std::fs::write(d.join(format!("n{i}.txt")), "n").unwrap();
            std::os::unix::fs::symlink(format!("m{i:05}.md"), d.join(format!("l{i}.md"))).unwrap();
            std::fs::create_dir_all(d.join(format!("d{i}{dir_suffix}"))).unwrap();
            std::fs::write(d.join(format!("d{i}{dir_suffix}/in.md")), "in").unwrap();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The walk's `lstat` by the dir's handle says what std's `lstat` of the
    /// path says, for every kind of entry and for times before the epoch.
    #[test]
    fn an_lstat_by_the_dir_handle_is_std_s_lstat() {
        use rustix::fs::{Timespec, Timestamps};
        let d = tempfile::tempdir().unwrap();
        let p = d.path();
        std::fs::write(p.join("a.md"), "hello").unwrap();
        std::fs::write(p.join("old.md"), "x").unwrap();
        std::os::unix::fs::symlink("a.md", p.join("l.md")).unwrap();
        std::fs::create_dir(p.join("sub")).unwrap();
        rustix::fs::mkfifoat(
            rustix::fs::CWD,
            p.join("fifo.md"),
            rustix::fs::Mode::from_raw_mode(0o600),
        )
        .unwrap();
        let fd = rustix::fs::open(p, rustix::fs::OFlags::DIRECTORY, rustix::fs::Mode::empty()).unwrap();
        // 1.5 s and a nanosecond before the epoch, and a time with nanoseconds.
        for (name, sec, nsec) in [("old.md", -2, 499_999_999), ("a.md", 1_790_000_000, 123_456_789)] {
            let t = Timespec {
                tv_sec: sec,
                tv_nsec: nsec,
            };
            let times = Timestamps {
                last_access: t,
                last_modification: t,
            };
            rustix::fs::utimensat(&fd, name, &times, rustix::fs::AtFlags::empty()).unwrap();
        }
        for name in ["a.md", "old.md", "l.md", "sub", "fifo.md"] {
            let c = std::ffi::CString::new(name).unwrap();
            let got = Lstat::at(rustix::fd::AsFd::as_fd(&fd), &c).unwrap();
            let md = std::fs::symlink_metadata(p.join(name)).unwrap();
            assert_eq!(got, Lstat::of(&md), "{name}");
            assert_eq!(got.mtime_ms().to_bits(), crate::scan::mtime_ms(&md).to_bits(), "{name}");
            assert_eq!(
                (got.is_file(), got.is_dir(), got.is_symlink()),
                (md.is_file(), md.is_dir(), md.file_type().is_symlink()),
                "{name}"
            );
        }
        let old = Lstat::at(rustix::fd::AsFd::as_fd(&fd), c"old.md").unwrap();
        assert_eq!(old.mtime, (-2, 499_999_999));
        assert_eq!(old.mtime_ns, -1_500_000_001);
        assert!((old.mtime_ms() + 1500.000001).abs() < 1e-6, "{}", old.mtime_ms());
        assert_eq!(Lstat::at(rustix::fd::AsFd::as_fd(&fd), c"gone.md"), None);
        // Without `statx`, `fstatat` says the same.
        for name in [c"a.md", c"old.md", c"l.md", c"sub", c"fifo.md"] {
            let fd = rustix::fd::AsFd::as_fd(&fd);
            assert_eq!(lstat_by_fstatat(fd, name), Lstat::at(fd, name), "{name:?}");
        }
    }

    #[test]
    fn refuses_dev_zero_and_reads_a_file() {
        assert!(matches!(
            read_regular(Path::new("/dev/zero"), 10),
            Err(ReadError::NotRegular("a character device"))
        ));
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("f");
        std::fs::write(&p, "hello").unwrap();
        assert_eq!(read_regular(&p, 5).unwrap(), b"hello");
        assert!(matches!(read_regular(&p, 4), Err(ReadError::TooLarge(4))));
        assert_eq!(read_prefix(&p, 2).unwrap(), b"he");
        assert!(matches!(
            read_regular(&d.path().join("no"), 4),
            Err(ReadError::NotFound)
        ));
        assert!(matches!(
            read_regular(d.path(), 4),
            Err(ReadError::NotRegular("a directory"))
        ));
    }

    #[test]
    fn refuses_a_fifo_without_blocking() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("fifo");
        rustix::fs::mkfifoat(rustix::fs::CWD, &p, rustix::fs::Mode::from_raw_mode(0o600)).unwrap();
        assert!(matches!(read_regular(&p, 10), Err(ReadError::NotRegular("a FIFO"))));
    }

    /// The lines of `bytes` as one cut of the whole slice gives them, each with
    /// `\n` dropped, the last one whatever follows the last `\n`.
    fn whole_lines(bytes: &[u8]) -> Vec<Vec<u8>> {
        let mut out: Vec<Vec<u8>> = bytes.split(|b| *b == b'\n').map(<[u8]>::to_vec).collect();
        if bytes.ends_with(b"\n") || bytes.is_empty() {
            out.pop();
        }
        out
    }

    fn piece_lines(p: &Path, max: u64, piece: usize, n: usize) -> Vec<Vec<u8>> {
        let mut lines = Lines::new(File::open(p).unwrap(), max, piece);
        (0..n).map(|_| lines.next_line().to_vec()).collect()
    }

    #[test]
    fn lines_read_in_pieces_are_the_lines_of_the_whole_file() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("f");
        let long = "y".repeat(70_000);
        for text in [
            String::new(),
            "\n".into(),
            "\n\n\nabc".into(),
            "one\ntwo\r\nthree".into(),
            "one\ntwo\n".into(),
            format!("a\n{long}\nb\n{long}"),
            format!("{long}{long}\n\nz\n"),
        ] {
            std::fs::write(&p, &text).unwrap();
            let mut want = whole_lines(text.as_bytes());
            // Past the last line: empty lines, as many as asked for.
            want.extend([Vec::new(), Vec::new()]);
            for piece in [0, 1, 2, 3, 7, 64, 65_536] {
                let got = piece_lines(&p, 1 << 20, piece, want.len());
                assert!(got == want, "{piece}-byte pieces of {:?}", &text[..text.len().min(40)]);
            }
        }
        // More than `max` bytes: no line that reaches past them is read, and
        // what is left reads as empty lines (a larger file is refused whole).
        std::fs::write(&p, "ab\ncd\nef\n").unwrap();
        for piece in [1, 4, 100] {
            let got = piece_lines(&p, 7, piece, 4);
            let read = got.iter().take_while(|l| !l.is_empty()).count();
            assert!(read <= 2, "{piece}: {got:?}");
            assert_eq!(got[..read], [&b"ab"[..], b"cd"][..read], "{piece}");
            assert!(got[read..].iter().all(Vec::is_empty), "{piece}: {got:?}");
            assert_eq!(piece_lines(&p, 9, piece, 4), [&b"ab"[..], b"cd", b"ef", b""], "{piece}");
        }
    }

    /// `at_end` after each line: true exactly when the lines taken are all of
    /// the file, false when more bytes follow or the lines were cut by `max`.
    #[test]
    fn at_end_is_true_only_past_every_byte_read_whole() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("f");
        for (text, ends) in [
            ("", vec![true]),
            ("\n", vec![false, true]),
            ("a\nb", vec![false, false, true]),
            ("a\nb\n", vec![false, false, true]),
            ("a\n\n", vec![false, false, true]),
        ] {
            std::fs::write(&p, text).unwrap();
            for piece in [1, 2, 64] {
                let mut lines = Lines::new(File::open(&p).unwrap(), 1 << 20, piece);
                let mut got = vec![lines.at_end()];
                for _ in 1..ends.len() {
                    lines.next_line();
                    got.push(lines.at_end());
                }
                assert_eq!(got, ends, "{text:?} in {piece}-byte pieces");
            }
        }
        std::fs::write(&p, "ab\ncd\n").unwrap();
        for piece in [1, 4, 100] {
            let mut lines = Lines::new(File::open(&p).unwrap(), 5, piece);
            while !lines.next_line().is_empty() {}
            assert!(!lines.at_end(), "cut at 5 bytes, {piece}-byte pieces");
        }
    }
}
