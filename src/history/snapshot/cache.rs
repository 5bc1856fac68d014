//! The stat cache (`memctl-cache` in the store, like git's index): each tracked
//! file's size, mtime, ctime, inode, link flag and blob as last seen on disk, so a
//! snapshot hashes only the files that differ; with its `complete` line it is the
//! whole state of the snapshot it was written for.

use std::path::Path;

use gix::ObjectId;

use super::super::read::{FileState, State};
use super::super::tracked::{self, OnDisk};

mod fields;

use fields::{dec_i128, dec_u64, line_vouched};
#[cfg(test)]
use fields::{line_vouched_by_fields, line_vouches};

const CACHE: &str = "memctl-cache";
/// The largest cache read: a larger one is no cache.
const MAX_BYTES: u64 = 256 << 20;

/// A ctime no `stat` gives (seconds and nanoseconds of any file time make a
/// far smaller number): an entry with it never matches a file on disk.
pub(super) const SMUDGED: i128 = i128::MIN;

pub(super) type CacheEntry = (u64, i128, i128, u64, bool, ObjectId);

/// The (size, mtime, ctime, inode, link, blob) of a file as last seen on disk.
/// An entry whose ctime is not older than the cache itself vouches for nothing
/// (git's "racy" rule): the kernel's clock is coarse, so a write in the same
/// tick as the cache would leave the file's times as they were cached.
/// The cache file's bytes and its mtime (the stamp of the racy rule), read once
/// for a snapshot: [`vouches`] and [`parse_full`] look at the same bytes.
pub(in crate::history) struct Loaded {
    bytes: Vec<u8>,
    written: i128,
}

/// The cache file of the store, `None` when there is none or it cannot be read.
/// Regular files only, bounded: a FIFO put in its place never blocks a snapshot.
pub(in crate::history) fn load(store: &Path) -> Option<Loaded> {
    let file = crate::fsread::open_regular(&store.join(CACHE)).ok()?;
    let md = file.metadata().ok()?;
    let bytes = crate::fsread::read_bounded(file, MAX_BYTES).ok()?;
    Some(Loaded {
        bytes,
        written: tracked::mtime_ns(&md),
    })
}

/// The state of the snapshot `head` when the stat cache is complete for it.
pub(in crate::history) fn read_cache_full(store: &Path, head: Option<ObjectId>) -> Option<State> {
    parse_full(load(store).as_ref(), head).1
}

/// One line of the stat cache, read in place: the path it names (in hex, as
/// written), what was seen of that file, whether it vouches for it (git's racy
/// rule: its ctime older than the cache) and, when rendering its entry gives
/// exactly its bytes again, the line itself (copied into the next cache).
#[derive(Clone, Copy, Debug)]
pub(super) struct Line<'a> {
    hex: &'a [u8],
    pub(super) entry: CacheEntry,
    pub(super) vouches: bool,
    canonical: Option<&'a [u8]>,
}

/// The cache's lines in the order written, the walk's (by path bytes; hex keeps
/// that order); a line out of that order is left out. Looked up by a walk in
/// the same order in one pass, with a [`Cursor`]: no map, no path copied.
#[derive(Default)]
pub(super) struct Lines<'a> {
    lines: Vec<Line<'a>>,
}

/// A position in [`Lines`] for one pass in path order.
#[derive(Default)]
pub(super) struct Cursor(usize);

impl<'a> Lines<'a> {
    /// The line of the path `rel` when the cache has one; the lines before it
    /// are passed for good (the next lookup is for a later path).
    pub(super) fn find(&self, at: &mut Cursor, rel: &[u8]) -> Option<&Line<'a>> {
        use std::cmp::Ordering;
        while let Some(l) = self.lines.get(at.0) {
            // Mostly the same path, as written: a compare of two digits at a time.
            let order = if same_hex(l.hex, rel) {
                Ordering::Equal
            } else {
                cmp_hex(l.hex, rel)
            };
            match order {
                Ordering::Less => at.0 += 1,
                Ordering::Equal => {
                    at.0 += 1;
                    return Some(l);
                }
                Ordering::Greater => return None,
            }
        }
        None
    }

    /// The blob id the cache vouches for `f` with: its size, mtime, ctime,
    /// inode and link flag are the cached ones, its ctime older than the cache.
    pub(super) fn vouched(&self, at: &mut Cursor, f: &OnDisk) -> Option<ObjectId> {
        let l = self.find(at, &f.rel)?;
        let c = &l.entry;
        (l.vouches && c.0 == f.size && c.1 == f.mtime_ns && c.2 == f.ctime_ns && c.3 == f.ino && c.4 == f.link)
            .then_some(c.5)
    }

    /// The files of the cache's snapshot as a walk would find them if none had
    /// changed since, in walk order: each line's path and stat. A line that
    /// does not vouch (racy: its file may have changed in the tick the cache
    /// was written) gets a ctime no file has ([`SMUDGED`]), so that a cache
    /// written from these files does not vouch for it either (git smudges
    /// racily clean entries the same way). `None` when a path is no hex.
    pub(super) fn as_walked(&self) -> Option<Vec<OnDisk>> {
        let mut out = Vec::with_capacity(self.lines.len());
        let mut rel = Vec::new();
        for l in &self.lines {
            if !unhex_into(l.hex, &mut rel) {
                return None;
            }
            let (size, mtime_ns, ctime_ns, ino, link, _) = l.entry;
            out.push(OnDisk {
                rel: rel.clone(),
                link,
                size,
                mtime_ns,
                ctime_ns: if l.vouches { ctime_ns } else { SMUDGED },
                ino,
            });
        }
        Some(out)
    }

    #[cfg(test)]
    pub(super) fn push(&mut self, hex: &'a [u8], entry: CacheEntry, vouches: bool) {
        self.lines.push(Line {
            hex,
            entry,
            vouches,
            canonical: None,
        });
    }
}

/// The hex path `hex` (valid digits of either case, even length: as parsed) against the path `rel`, in
/// the order of their bytes.
fn cmp_hex(hex: &[u8], rel: &[u8]) -> std::cmp::Ordering {
    let n = hex.len() / 2;
    let mut i = 0;
    while i < n && i < rel.len() {
        let b = (UNHEX[usize::from(hex[2 * i])] & 15) << 4 | (UNHEX[usize::from(hex[2 * i + 1])] & 15);
        if b != rel[i] {
            return b.cmp(&rel[i]);
        }
        i += 1;
    }
    n.cmp(&rel.len())
}

/// The line `l` without the `\r` [`str::lines`] would drop, and whether there was one.
fn strip_cr(l: &[u8]) -> (&[u8], bool) {
    match l.strip_suffix(b"\r") {
        Some(l) => (l, true),
        None => (l, false),
    }
}

/// One stat-cache line, `size mtime ctime ino link oid rel` (tab-separated, the
/// path in hex, decoded into `rel`); `None` when it does not parse. `cr`: it
/// ended in `\r\n`.
fn parse_line<'a>(l: &'a [u8], cr: bool, written: i128, rel: &mut Vec<u8>) -> Option<Line<'a>> {
    let [size, mtime, ctime, ino, link, oid, hex] = seven_fields(l)?;
    let entry = (
        dec_u64(size)?,
        dec_i128(mtime)?,
        dec_i128(ctime)?,
        dec_u64(ino)?,
        link == b"1",
        ObjectId::from_hex(oid).ok()?,
    );
    if !unhex_into(hex, rel) {
        return None;
    }
    // The oid's and the path's digits are checked against the rendered ones
    // where a line is copied ([`render_cache_body`]).
    let canonical = !cr && [size, mtime, ctime, ino].iter().all(|d| canonical_dec(d)) && (link == b"0" || link == b"1");
    Some(Line {
        hex,
        entry,
        vouches: entry.2 < written,
        canonical: canonical.then_some(l),
    })
}

/// Whether the digits `d` (that parse) are written as [`push_dec`] writes them:
/// no sign but `-`, no leading zero.
fn canonical_dec(d: &[u8]) -> bool {
    matches!(d, b"0" | [b'1'..=b'9', ..] | [b'-', b'1'..=b'9', ..])
}

/// `rel` set to the bytes of the hex `hex` (digits of either case); `false`
/// when it is no hex.
fn unhex_into(hex: &[u8], rel: &mut Vec<u8>) -> bool {
    rel.clear();
    if !hex.len().is_multiple_of(2) {
        return false;
    }
    rel.reserve(hex.len() / 2);
    let mut bad = 0u8;
    let mut i = 0;
    while i + 1 < hex.len() {
        let (hi, lo) = (UNHEX[usize::from(hex[i])], UNHEX[usize::from(hex[i + 1])]);
        bad |= hi | lo;
        rel.push((hi & 15) << 4 | (lo & 15));
        i += 2;
    }
    bad < 16
}

/// The stat cache's lines for the snapshot `head` (none when it was written for
/// another), and that snapshot's state when the cache is complete for it (its
/// `complete` line: every file of the snapshot, and the lock); racy entries
/// count for the state, not as a stat match.
pub(in crate::history) fn parse_full(loaded: Option<&Loaded>, head: Option<ObjectId>) -> (Lines<'_>, Option<State>) {
    parse(loaded, head, true)
}

/// [`parse_full`], the state made only when `want_state` (a caller that holds
/// the state already needs only the lines: no copy of 20 000 paths).
pub(in crate::history) fn parse(
    loaded: Option<&Loaded>,
    head: Option<ObjectId>,
    want_state: bool,
) -> (Lines<'_>, Option<State>) {
    let mut out = Lines::default();
    let (Some(head), Some(loaded)) = (head, loaded) else {
        return (out, None);
    };
    if std::str::from_utf8(&loaded.bytes).is_err() {
        return (out, None);
    }
    let written = loaded.written;
    let mut rest = loaded.bytes.as_slice();
    if strip_cr(next_line(&mut rest)).0 != head.to_hex().to_string().as_bytes() {
        return (out, None);
    }
    // `complete\tN\tlock`: the lines below are the snapshot's N files.
    let mut complete = None;
    if let Some(l) = {
        let mut peek = rest;
        let l = strip_cr(next_line(&mut peek)).0;
        l.starts_with(b"complete\t").then(|| {
            rest = peek;
            l
        })
    } {
        complete = std::str::from_utf8(l).ok().and_then(|l| {
            let mut c = l.split('\t').skip(1);
            let n: usize = c.next()?.parse().ok()?;
            let lock = parse_lock_field(c.next()?)?;
            c.next().is_none().then_some((n, lock))
        });
    }
    let mut files: Vec<(Vec<u8>, FileState)> = Vec::new();
    let mut whole = complete.is_some();
    // Sized once for the files the `complete` line counts (bounded by the
    // cache's own size: a line is more than 12 bytes).
    if let Some((n, _)) = &complete {
        let n = (*n).min(loaded.bytes.len() / 12);
        if want_state {
            files.reserve(n);
        }
        out.lines.reserve(n);
    }
    // The last line's path and this one's, decoded: the lines' order is checked.
    let (mut last, mut rel): (Vec<u8>, Vec<u8>) = Default::default();
    while !rest.is_empty() {
        let (l, cr) = strip_cr(next_line(&mut rest));
        let Some(line) = parse_line(l, cr, written, &mut rel) else {
            whole = false;
            continue;
        };
        if !out.lines.is_empty() && last >= rel {
            whole = false;
            continue;
        }
        std::mem::swap(&mut last, &mut rel);
        if whole && want_state {
            files.push((
                last.clone(),
                FileState {
                    oid: line.entry.5,
                    link: line.entry.4,
                    mtime_ns: line.entry.1,
                },
            ));
        }
        out.lines.push(line);
    }
    let state = match complete {
        Some((n, lock)) if want_state && whole && files.len() == n => Some(State {
            files: files.into_iter().collect(),
            lock,
        }),
        _ => None,
    };
    (out, state)
}
pub(super) fn write_cache(store: &Path, head: Option<ObjectId>, files: &[OnDisk], state: &State, old: &Lines) {
    write_cache_body(store, head, render_cache_body(files, state, old), state);
}

/// The cache's lines below its head (the files of `state` as walked in `files`),
/// and how many they are: independent of the commit, so a snapshot renders them
/// while it writes its objects. A file whose line in the `old` cache holds the
/// same stat and blob gets that line's bytes (they are the ones rendered).
pub(super) fn render_cache_body(files: &[OnDisk], state: &State, old: &Lines) -> (Vec<u8>, usize) {
    // Sized for the usual line: the path in hex, four decimals (two of them
    // 19-digit times), the flag, the blob id and seven separators (20 000 files
    // at 160 bytes a line was too little: 3.2 MB grown, and copied, to 6.4).
    let mut body: Vec<u8> = Vec::with_capacity(files.iter().map(|f| 2 * f.rel.len() + 110).sum());
    let mut n = 0;
    // Both lists are sorted by path: each file's state is the next of the map's
    // (a lookup only if the walk were ever out of order).
    let mut states = state.files.iter().peekable();
    let mut at = Cursor::default();
    for f in files {
        let Some(s) = in_step(&mut states, &f.rel).or_else(|| state.files.get(&f.rel)) else {
            continue;
        };
        n += 1;
        if let Some(l) = old.find(&mut at, &f.rel)
            && let Some(bytes) = l.canonical
            && l.entry == (f.size, f.mtime_ns, f.ctime_ns, f.ino, f.link, s.oid)
            && same_hex(l.hex, &f.rel)
            && bytes.len() > l.hex.len() + 41
            && same_hex(&bytes[bytes.len() - l.hex.len() - 41..][..40], s.oid.as_bytes())
        {
            body.extend_from_slice(bytes);
            body.push(b'\n');
            continue;
        }
        // By hand, not `write!`: 20 000 lines at a time (the same bytes).
        for v in [i128::from(f.size), f.mtime_ns, f.ctime_ns, i128::from(f.ino)] {
            push_dec(&mut body, v);
            body.push(b'\t');
        }
        body.extend_from_slice(if f.link { b"1\t" } else { b"0\t" });
        push_hex(&mut body, s.oid.as_bytes());
        body.push(b'\t');
        push_hex(&mut body, &f.rel);
        body.push(b'\n');
    }
    (body, n)
}

/// The entry of `rel` among `states`, a map's entries in order, passed in step
/// with paths asked in that order: those before `rel` are passed, the one of
/// `rel` taken; one compare of each path (20 000 files at a time). `None` when
/// the next entry is after `rel` (a path not there, or one asked out of order:
/// the caller looks it up then).
pub(super) fn in_step<'m, V>(
    states: &mut std::iter::Peekable<std::collections::btree_map::Iter<'m, Vec<u8>, V>>,
    rel: &[u8],
) -> Option<&'m V> {
    use std::cmp::Ordering;
    while let Some((r, v)) = states.peek() {
        match r.as_slice().cmp(rel) {
            Ordering::Less => {
                states.next();
            }
            Ordering::Equal => {
                let v = *v;
                states.next();
                return Some(v);
            }
            Ordering::Greater => return None,
        }
    }
    None
}

/// Write the cache for the snapshot `head` from its [`render_cache_body`].
pub(super) fn write_cache_body(store: &Path, head: Option<ObjectId>, body: (Vec<u8>, usize), state: &State) {
    if let Some(write) = cache_writer(store, head, body, state) {
        write();
    }
}

/// [`write_cache_body`] as a job to run later (on another thread): what it
/// writes is made now, from `state`.
pub(super) fn cache_writer(
    store: &Path,
    head: Option<ObjectId>,
    (body, n): (Vec<u8>, usize),
    state: &State,
) -> Option<impl FnOnce() + Send + 'static> {
    let head = head?;
    let mut text = format!("{}\n", head.to_hex());
    // Every file of the snapshot is in the cache, in walk order: a later walk
    // that matches it line by line (and the same lock) is that snapshot
    // ([`cache_vouches`]). Readers of the plain cache skip this line.
    if n == state.files.len() {
        text.push_str(&format!("complete\t{n}\t{}\n", lock_field(state.lock.as_ref())));
    }
    let dest = store.join(CACHE);
    Some(move || {
        // The cache only saves hashing: a failed or torn write costs a rehash.
        // The head lines and the body are written one after the other, not
        // copied into one buffer first (20 000 files: 3 MB of memory touched
        // once more).
        let _ = super::write_cache(&dest, &[text.as_bytes(), &body]);
    })
}

/// `n` in decimal, as `Display` writes it: two digits per division (60 000
/// numbers of up to 19 digits per 20 000-file snapshot).
pub(super) fn push_dec(out: &mut Vec<u8>, n: i128) {
    let Ok(mut v) = u64::try_from(n) else {
        out.extend_from_slice(n.to_string().as_bytes());
        return;
    };
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    while v >= 100 {
        let pair = 2 * (v % 100) as usize;
        v /= 100;
        i -= 2;
        buf[i] = DEC_PAIRS[pair];
        buf[i + 1] = DEC_PAIRS[pair + 1];
    }
    if v >= 10 {
        let pair = 2 * v as usize;
        i -= 2;
        buf[i] = DEC_PAIRS[pair];
        buf[i + 1] = DEC_PAIRS[pair + 1];
    } else {
        i -= 1;
        buf[i] = b'0' + v as u8;
    }
    out.extend_from_slice(&buf[i..]);
}

/// `00` to `99`, two bytes each.
const DEC_PAIRS: [u8; 200] = {
    let mut t = [0u8; 200];
    let mut k = 0;
    while k < 100 {
        t[2 * k] = b'0' + (k / 10) as u8;
        t[2 * k + 1] = b'0' + (k % 10) as u8;
        k += 1;
    }
    t
};

/// `bytes` in lower-case hex.
fn push_hex(out: &mut Vec<u8>, bytes: &[u8]) {
    out.reserve(2 * bytes.len());
    for &b in bytes {
        out.extend_from_slice(&HEX_PAIRS[usize::from(b)].to_ne_bytes());
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
/// [`Line::vouches`]). One pass over both lists, comparing the cache's bytes in
/// place: no map, no state loaded, nothing allocated per line.
#[cfg(test)]
pub(in crate::history) fn cache_vouches(store: &Path, head: ObjectId, files: &[OnDisk], main: &Path) -> bool {
    let whole = load(store).is_some_and(|l| vouches(&l, head, files, main));
    assert_eq!(
        file_vouches(store, head, files, main, 7),
        whole,
        "read in pieces or whole"
    );
    whole
}

/// [`cache_vouches`] of the cache `loaded`.
#[cfg(test)]
pub(in crate::history) fn vouches(loaded: &Loaded, head: ObjectId, files: &[OnDisk], main: &Path) -> bool {
    matches!(
        vouch_lines(
            &mut loaded.bytes.as_slice(),
            loaded.written,
            head,
            files,
            main,
            false,
            false
        ),
        Vouch::All(_)
    )
}

/// [`cache_vouches`] reading the store's cache file `piece` bytes at a time
/// into one buffer (an unchanged snapshot looks at each line once: at 20 000
/// files no 3.5 MB copy of the file), as [`load`] reads it: a regular file of
/// at most 256 MiB, its mtime the racy rule's stamp.
#[cfg(test)]
pub(in crate::history) fn file_vouches(
    store: &Path,
    head: ObjectId,
    files: &[OnDisk],
    main: &Path,
    piece: usize,
) -> bool {
    matches!(
        file_vouched(store, head, files, main, piece, false, false),
        Vouch::All(_)
    )
}

/// What the stat cache says of a walk ([`file_vouched`]).
#[derive(Debug, PartialEq)]
pub(in crate::history) enum Vouch {
    /// It does not vouch, and says nothing more (no cache, another head, a
    /// file added or removed, the lock changed, a line that does not parse).
    No,
    /// It vouches for every file; the snapshot's state when it was wanted
    /// and [`parse_full`] would make one.
    All(Option<State>),
    /// Every walked file has its line, in order, and the lock is the same,
    /// but the lines of these walked files (sorted paths) do not vouch for
    /// them: the snapshot's state, as [`parse_full`] makes it from the same
    /// cache, and the files to hash (a write into a dir: one file changed).
    Except(State, Vec<Vec<u8>>),
    /// A line did not vouch while the state was not being made: ask again
    /// with `want_state`.
    Again,
}

/// [`file_vouches`], and when it vouches and `want_state`, the state of the
/// snapshot `head` as [`parse_full`] would make it from the same cache (the
/// cache read once: a writer's before-snapshot needs that state for its
/// after-snapshot). With `except`, a file whose line names it but does not
/// vouch for it is noted ([`Vouch::Except`]) instead of ending the check: the
/// scan then hashes just those, the cache not read and parsed again.
pub(in crate::history) fn file_vouched(
    store: &Path,
    head: ObjectId,
    files: &[OnDisk],
    main: &Path,
    piece: usize,
    want_state: bool,
    except: bool,
) -> Vouch {
    let Some(file) = crate::fsread::open_regular(&store.join(CACHE)).ok() else {
        return Vouch::No;
    };
    let Some(md) = file.metadata().ok().filter(|md| md.len() <= MAX_BYTES) else {
        return Vouch::No;
    };
    let written = tracked::mtime_ns(&md);
    vouch_lines(
        &mut crate::fsread::Lines::new(file, MAX_BYTES, piece),
        written,
        head,
        files,
        main,
        want_state,
        except,
    )
}

/// Lines one at a time, as [`next_line`] cuts them.
trait NextLine {
    fn next_line(&mut self) -> &[u8];
    /// Whether the lines taken are all there is.
    fn at_end(&mut self) -> bool;
}

impl NextLine for &[u8] {
    fn next_line(&mut self) -> &[u8] {
        next_line(self)
    }
    fn at_end(&mut self) -> bool {
        self.is_empty()
    }
}

impl NextLine for crate::fsread::Lines {
    fn next_line(&mut self) -> &[u8] {
        crate::fsread::Lines::next_line(self)
    }
    fn at_end(&mut self) -> bool {
        crate::fsread::Lines::at_end(self)
    }
}

/// Whether the cache's `lines`, written at `written`, vouch for `files`: its
/// head line, its `complete` line and one line per file; with `want_state`,
/// the snapshot's state too, and with `except`, the files whose lines do not
/// vouch ([`file_vouched`]).
fn vouch_lines(
    lines: &mut impl NextLine,
    written: i128,
    head: ObjectId,
    files: &[OnDisk],
    main: &Path,
    want_state: bool,
    except: bool,
) -> Vouch {
    if lines.next_line() != head.to_hex().to_string().as_bytes() {
        return Vouch::No;
    }
    let Ok(complete) = std::str::from_utf8(lines.next_line()) else {
        return Vouch::No;
    };
    let mut c = complete.split('\t');
    if c.next() != Some("complete") || c.next() != Some(files.len().to_string().as_str()) {
        return Vouch::No;
    }
    let lock = tracked::lock_state(main);
    if c.next() != Some(lock_field(lock.as_ref()).as_str()) {
        return Vouch::No;
    }
    // The state as [`parse`] makes it: the `complete` line has no more fields,
    // every blob id parses, nothing follows the files' lines.
    let mut state = (want_state && c.next().is_none()).then(|| Vec::with_capacity(files.len()));
    let mut changed: Vec<Vec<u8>> = Vec::new();
    // A line missing reads as empty, which vouches for nothing. Plain loops
    // here and below: at 20 000 lines they are the unchanged snapshot's cost.
    for f in files {
        let l = lines.next_line();
        let (oid, link, mtime_ns) = match line_vouched(l, f, written) {
            Some(oid) => (ObjectId::from_hex(oid).ok(), f.link, f.mtime_ns),
            None if !except => return Vouch::No,
            None if state.is_none() => return if want_state { Vouch::No } else { Vouch::Again },
            // Its line must name it and parse, as [`parse`] reads it.
            None => match line_naming(l, f, written) {
                Some(e) => {
                    changed.push(f.rel.clone());
                    (Some(e.5), e.4, e.1)
                }
                None => return Vouch::No,
            },
        };
        if let Some(s) = state.as_mut() {
            match oid {
                Some(oid) => s.push((f.rel.clone(), FileState { oid, link, mtime_ns })),
                None => state = None,
            }
        }
    }
    let state = match state {
        Some(s) if lines.at_end() => Some(State {
            files: s.into_iter().collect(),
            lock,
        }),
        _ => None,
    };
    match (state, changed.is_empty()) {
        (state, true) => Vouch::All(state),
        (Some(state), false) => Vouch::Except(state, changed),
        (None, false) => Vouch::No,
    }
}

/// The entry of a line that names the walked `f` (its path in lower-case hex)
/// and parses as [`parse`] reads it; `None` otherwise.
fn line_naming(l: &[u8], f: &OnDisk, written: i128) -> Option<CacheEntry> {
    let (l, cr) = strip_cr(l);
    let mut rel = Vec::new();
    let line = parse_line(l, cr, written, &mut rel)?;
    (rel == f.rel).then_some(line.entry)
}

/// The text up to the next `\n` of `rest` (all of it when there is none), and
/// `rest` moved past that `\n`; empty once `rest` is.
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

/// Each byte's two lower-case hex digits, as one `u16` in memory order.
const HEX_PAIRS: [u16; 256] = {
    let mut t = [0u16; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = u16::from_ne_bytes([HEX[b >> 4], HEX[b & 15]]);
        b += 1;
    }
    t
};

/// Whether `hex` is `rel` in lower-case hex, as the cache writes paths.
fn same_hex(hex: &[u8], rel: &[u8]) -> bool {
    if hex.len() != 2 * rel.len() {
        return false;
    }
    let mut same = true;
    let mut i = 0;
    while i < rel.len() {
        same &= u16::from_ne_bytes([hex[2 * i], hex[2 * i + 1]]) == HEX_PAIRS[usize::from(rel[i])];
        i += 1;
    }
    same
}

/// Lower-case hex digits, for the cache's paths.
const HEX: &[u8; 16] = b"0123456789abcdef";

/// Each byte's value as a hex digit (either case), 16 when it is none.
const UNHEX: [u8; 256] = {
    let mut t = [16u8; 256];
    let mut i = 0;
    while i < 10 {
        t[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        t[b'a' as usize + i] = 10 + i as u8;
        t[b'A' as usize + i] = 10 + i as u8;
        i += 1;
    }
    t
};

fn unhex(s: &str) -> Option<Vec<u8>> {
    let s = s.as_bytes();
    if !s.len().is_multiple_of(2) {
        return None;
    }
    // A table per digit into a sized list: once per cached path, 20 000 at a time.
    let mut bad = 0u8;
    let out: Vec<u8> = s
        .chunks_exact(2)
        .map(|pair| {
            let (hi, lo) = (UNHEX[usize::from(pair[0])], UNHEX[usize::from(pair[1])]);
            bad |= hi | lo;
            hi << 4 | (lo & 15)
        })
        .collect();
    (bad < 16).then_some(out)
}

/// A stat-cache line's exactly seven tab-separated fields, split without a list
/// per line; `None` for any other count.
fn seven_fields(l: &[u8]) -> Option<[&[u8]; 7]> {
    let mut fields: [&[u8]; 7] = [b""; 7];
    let mut rest = l;
    for f in fields.iter_mut().take(6) {
        let i = memchr::memchr(b'\t', rest)?;
        *f = &rest[..i];
        rest = &rest[i + 1..];
    }
    if memchr::memchr(b'\t', rest).is_some() {
        return None;
    }
    fields[6] = rest;
    Some(fields)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Asked in order, each path's entry is found and the ones between are
    /// passed; a path not there, or asked again or out of order, is `None`
    /// (the callers look it up) and passes nothing the next path needs.
    #[test]
    fn in_step_finds_each_entry_of_paths_asked_in_order() {
        let map: std::collections::BTreeMap<Vec<u8>, u32> =
            [(b"a.md".to_vec(), 1), (b"b.md".to_vec(), 2), (b"d.md".to_vec(), 4)].into();
        let mut states = map.iter().peekable();
        assert_eq!(in_step(&mut states, b"a.md"), Some(&1));
        assert_eq!(in_step(&mut states, b"a.md"), None, "asked again");
        assert_eq!(in_step(&mut states, b"c.md"), None, "not there, after b.md");
        assert_eq!(in_step(&mut states, b"b.md"), None, "out of order: passed");
        assert_eq!(in_step(&mut states, b"d.md"), Some(&4));
        assert_eq!(in_step(&mut states, b"e.md"), None);
        let mut states = map.iter().peekable();
        assert_eq!(in_step(&mut states, b"b.md"), Some(&2), "a.md passed on the way");
        assert_eq!(in_step(&mut states, b"d.md"), Some(&4));
    }
    use std::fs;

    #[test]
    fn decimals_read_as_str_parse_reads_them() {
        for s in [
            "0",
            "7",
            "+7",
            "-7",
            "",
            "+",
            "-",
            "1a",
            " 1",
            "18446744073709551615",
            "18446744073709551616",
        ] {
            assert_eq!(dec_u64(s.as_bytes()), s.parse().ok(), "{s:?}");
        }
        let max = i128::MAX.to_string();
        let min = i128::MIN.to_string();
        for s in [
            "0",
            "-0",
            "+12",
            "-12",
            "",
            "-",
            "--1",
            "1-",
            max.as_str(),
            min.as_str(),
            "170141183460469231731687303715884105728",
        ] {
            assert_eq!(dec_i128(s.as_bytes()), s.parse().ok(), "{s:?}");
        }
    }

    #[test]
    fn a_line_vouches_only_for_the_same_stats_path_and_an_older_ctime() {
        let f = OnDisk {
            rel: b"a/b.md".to_vec(),
            link: false,
            size: 5,
            mtime_ns: 10,
            ctime_ns: 20,
            ino: 30,
        };
        let oid = "0".repeat(40);
        let line = |s: &str| format!("{s}\t{oid}\t612f622e6d64");
        assert!(line_vouches(line("5\t10\t20\t30\t0").as_bytes(), &f, 21));
        assert!(!line_vouches(line("5\t10\t20\t30\t0").as_bytes(), &f, 20), "racy");
        for other in [
            "6\t10\t20\t30\t0",
            "5\t11\t20\t30\t0",
            "5\t10\t19\t30\t0",
            "5\t10\t20\t31\t0",
            "5\t10\t20\t30\t1",
            "5\t10\t20\t30",
        ] {
            assert!(!line_vouches(line(other).as_bytes(), &f, 21), "{other}");
        }
        assert!(!line_vouches(
            format!("{}\tx", line("5\t10\t20\t30\t0")).as_bytes(),
            &f,
            21
        ));
        assert!(
            !line_vouches(b"5\t10\t20\t30\t0\t\xff\t612f622e6d64", &f, 21),
            "not UTF-8"
        );
        assert!(!line_vouches(b"", &f, 21));
    }

    /// The one-pass reading of a plain line decides as the reading by fields:
    /// lines as written and mangled (signs, leading zeros, long numbers, tabs
    /// and other bytes put in or taken out anywhere).
    #[test]
    fn a_plain_line_read_in_one_pass_vouches_as_read_by_fields() {
        let mut rng = Rng(0x1234_5678_9abc_def1);
        let oid = "3f".repeat(20);
        let mut decided = 0;
        for round in 0..20_000 {
            let f = OnDisk {
                rel: b"a/b.md".to_vec(),
                link: rng.next(2) == 0,
                size: rng.next(3),
                mtime_ns: rng.next(3) as i128 * 1_000_000_000_000_000_000 / 2,
                ctime_ns: rng.next(3) as i128,
                ino: rng.next(3) * 9_999_999_999,
            };
            let pick = |rng: &mut Rng, v: i128| match rng.next(8) {
                0 => format!("+{v}"),
                1 => format!("0{v}"),
                2 => format!("-{v}"),
                3 => (v + 1).to_string(),
                _ => v.to_string(),
            };
            let mut line = format!(
                "{}\t{}\t{}\t{}\t{}\t{oid}\t612f622e6d64",
                pick(&mut rng, i128::from(f.size)),
                pick(&mut rng, f.mtime_ns),
                pick(&mut rng, f.ctime_ns),
                pick(&mut rng, i128::from(f.ino)),
                u8::from(f.link ^ (rng.next(9) == 0)),
            )
            .into_bytes();
            for _ in 0..rng.next(3) {
                let at = rng.next(line.len() as u64 + 1) as usize;
                match rng.next(4) {
                    0 => line.insert(at, b'\t'),
                    1 => line.insert(at, [b'0', b'9', b'x', 0xff][rng.next(4) as usize]),
                    _ if at < line.len() => {
                        line.remove(at);
                    }
                    _ => {}
                }
            }
            let written = rng.next(4) as i128;
            let want = line_vouched_by_fields(&line, &f, written);
            assert_eq!(
                line_vouched(&line, &f, written),
                want,
                "round {round}: {:?}",
                String::from_utf8_lossy(&line)
            );
            decided += usize::from(want.is_some());
        }
        assert!(decided > 100, "{decided} lines vouched");
    }

    #[test]
    fn seven_fields_and_unhex_read_as_before() {
        let want: [&[u8]; 7] = [b"a", b"b", b"", b"d", b"e", b"f", b"g"];
        assert_eq!(seven_fields(b"a\tb\t\td\te\tf\tg"), Some(want));
        assert_eq!(seven_fields(b"a\tb\tc\td\te\tf"), None);
        assert_eq!(seven_fields(b"a\tb\tc\td\te\tf\tg\th"), None);
        assert_eq!(unhex("4d2F"), Some(vec![0x4d, 0x2f]));
        assert_eq!(unhex(""), Some(vec![]));
        assert_eq!(unhex("4d2"), None);
        assert_eq!(unhex("4g"), None);
    }

    #[test]
    fn numbers_and_hex_are_written_as_display_writes_them() {
        for n in [
            0i128,
            7,
            10,
            99,
            100,
            101,
            999,
            1000,
            12_345,
            1_796_222_550_220_893_272,
            i128::from(u64::MAX),
            i128::from(u64::MAX) + 1,
            -1,
            i128::MIN,
        ] {
            let mut out = Vec::new();
            push_dec(&mut out, n);
            assert_eq!(out, n.to_string().as_bytes());
        }
        let mut out = Vec::new();
        push_hex(&mut out, &[0x00, 0x4d, 0xff]);
        assert_eq!(out, b"004dff");
        let oid = ObjectId::from_hex(b"914716ddee9345d19caecc4dc66706f2b3da4a77").unwrap();
        let mut out = Vec::new();
        push_hex(&mut out, oid.as_bytes());
        assert_eq!(out, oid.to_hex().to_string().as_bytes());
    }

    /// The cache's lines found by one pass over the walk and the state are the
    /// ones a lookup per file found: files missing from the state (unreadable,
    /// torn) are left out, and a walk out of order still finds each state.
    #[test]
    fn the_cache_body_is_the_looked_up_one() {
        let on_disk = |rel: &str, size: u64| OnDisk {
            rel: rel.as_bytes().to_vec(),
            link: size == 3,
            size,
            mtime_ns: -i128::from(size),
            ctime_ns: 20,
            ino: size * 7,
        };
        let files: Vec<OnDisk> = ["MEMORY.md", "a-b.md", "a.md", "a/b.md", "a0.md", "gone.md", "z.md"]
            .iter()
            .zip(1u64..)
            .map(|(r, n)| on_disk(r, n))
            .collect();
        let mut state = State::default();
        for (f, n) in files.iter().zip(0u8..) {
            if f.rel != b"gone.md" {
                let oid = ObjectId::from_bytes_or_panic(&[n; 20]);
                state.files.insert(
                    f.rel.clone(),
                    FileState {
                        oid,
                        link: f.link,
                        mtime_ns: f.mtime_ns,
                    },
                );
            }
        }
        state
            .files
            .insert(b"only-in-state.md".to_vec(), state.files[b"a.md".as_slice()].clone());
        let by_lookup = |files: &[OnDisk]| {
            let mut body = Vec::new();
            let mut n = 0;
            for f in files {
                if let Some(s) = state.files.get(&f.rel) {
                    n += 1;
                    let line = format!(
                        "{}\t{}\t{}\t{}\t{}\t{}\t",
                        f.size,
                        f.mtime_ns,
                        f.ctime_ns,
                        f.ino,
                        u8::from(f.link),
                        s.oid.to_hex()
                    );
                    body.extend_from_slice(line.as_bytes());
                    for b in &f.rel {
                        body.extend_from_slice(format!("{b:02x}").as_bytes());
                    }
                    body.push(b'\n');
                }
            }
            (body, n)
        };
        assert_eq!(render_cache_body(&files, &state, &Lines::default()), by_lookup(&files));
        assert_eq!(render_cache_body(&files, &state, &Lines::default()).1, 6);
        let mut shuffled = files.clone();
        shuffled.swap(1, 4);
        shuffled.swap(0, 6);
        assert_eq!(
            render_cache_body(&shuffled, &state, &Lines::default()),
            by_lookup(&shuffled)
        );
        assert_eq!(render_cache_body(&[], &state, &Lines::default()), (Vec::new(), 0));
    }

    /// A tiny deterministic generator for the property tests.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
    }

    /// The cache body of `files` and `state` written with the lines of an
    /// `old` cache copied where they hold the same entry is byte for byte the
    /// one rendered without them: random dirs under random changes (stat, blob,
    /// link, files added and removed), old caches with lines written otherwise
    /// (`+`, leading zeros, upper-case hex, `\r\n`, garbage, out of order).
    #[test]
    fn a_cache_read_in_pieces_vouches_as_the_whole_one_does() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let head = ObjectId::from_bytes_or_panic(&[9; 20]);
        let store = tempfile::tempdir().unwrap();
        let main = tempfile::tempdir().unwrap();
        let mut vouched = 0;
        for round in 0..60 {
            let n = 1 + rng.next(300) as usize;
            let (files, state) = random_dir(&mut rng, n, |rng| {
                let m = rng.next(1 << 60) as i128;
                (m, rng.next(1 << 60) as i128)
            });
            let mut text = cache_text(head, &files, &state);
            // Whole, cut anywhere, a line changed, lines added at the end.
            let at = rng.next(text.len() as u64) as usize;
            match round % 4 {
                0 => {}
                1 => text.truncate(at),
                2 => text.insert(at, [b'\r', b'\n', b'x', b'\t'][rng.next(4) as usize]),
                _ => text.extend_from_slice(b"more\n\nlines"),
            }
            write_cache(store.path(), &text);
            let whole = load(store.path()).is_some_and(|l| vouches(&l, head, &files, main.path()));
            for piece in [1, 7, 100, 64 << 10] {
                assert_eq!(
                    file_vouches(store.path(), head, &files, main.path(), piece),
                    whole,
                    "round {round}, {piece}-byte pieces"
                );
            }
            // The state made while vouching is the one the cache parses to.
            let parsed = parse_full(load(store.path()).as_ref(), Some(head)).1;
            for piece in [1, 7, 64 << 10] {
                if let Vouch::All(state) = file_vouched(store.path(), head, &files, main.path(), piece, true, false) {
                    assert_eq!(state, parsed, "round {round}, {piece}-byte pieces");
                    assert!(
                        round % 4 != 3 || state.is_none(),
                        "round {round}: lines after the files"
                    );
                    assert!(round % 4 != 0 || state.is_some(), "round {round}: the cache as written");
                }
            }
            vouched += usize::from(whole);
            if round % 4 == 0 {
                assert!(whole, "round {round}: the cache as written vouches");
            }
        }
        assert!(vouched < 60, "some mangled caches vouch for nothing");
    }

    /// A check that notes the files whose lines do not vouch ([`Vouch::Except`])
    /// gives the state [`parse_full`] makes of the same cache and exactly the
    /// files [`Lines::vouched`] finds no blob id for: random dirs, some files
    /// changed in place (size, mtime, ctime, inode, link), caches whole, cut,
    /// with a line changed or lines added.
    #[test]
    fn a_check_past_changed_files_finds_what_the_parsed_cache_finds() {
        let mut rng = Rng(0x5851_f42d_4c95_7f2d);
        let head = ObjectId::from_bytes_or_panic(&[3; 20]);
        let store = tempfile::tempdir().unwrap();
        let main = tempfile::tempdir().unwrap();
        let mut excepted = 0;
        for round in 0..80 {
            let n = 1 + rng.next(200) as usize;
            let (mut files, state) = random_dir(&mut rng, n, |rng| {
                let m = rng.next(1 << 60) as i128;
                (m, rng.next(1 << 60) as i128)
            });
            let mut text = cache_text(head, &files, &state);
            let at = rng.next(text.len() as u64) as usize;
            match round % 5 {
                0 | 1 => {}
                2 => text.truncate(at),
                3 => text.insert(at, [b'\r', b'\n', b'x', b'\t', b'A'][rng.next(5) as usize]),
                _ => text.extend_from_slice(b"more\n"),
            }
            write_cache(store.path(), &text);
            // Some files changed in place since the cache was written.
            for f in files.iter_mut() {
                match rng.next(if round % 5 == 1 { 40 } else { 6 }) {
                    0 => f.size += 1,
                    1 => f.mtime_ns += 1,
                    2 => f.ctime_ns += 1,
                    3 => f.ino += 1,
                    4 => f.link = !f.link,
                    _ => {}
                }
            }
            let loaded = load(store.path()).unwrap();
            let (lines, parsed) = parse_full(Some(&loaded), Some(head));
            let mut at = Cursor::default();
            let unvouched: Vec<Vec<u8>> = files
                .iter()
                .filter(|f| lines.vouched(&mut at, f).is_none())
                .map(|f| f.rel.clone())
                .collect();
            for piece in [1, 7, 64 << 10] {
                let check = |want| file_vouched(store.path(), head, &files, main.path(), piece, want, true);
                match check(true) {
                    Vouch::Except(state, changed) => {
                        assert_eq!(Some(state), parsed, "round {round}");
                        assert_eq!(changed, unvouched, "round {round}");
                        assert_eq!(check(false), Vouch::Again, "round {round}");
                        excepted += 1;
                    }
                    Vouch::All(state) => {
                        assert!(unvouched.is_empty(), "round {round}");
                        assert!(state.is_none() || state == parsed, "round {round}");
                    }
                    Vouch::No | Vouch::Again => assert_ne!(check(false), Vouch::All(None), "round {round}"),
                }
            }
        }
        assert!(excepted > 30, "{excepted} checks went past a changed file");
    }

    /// The cache memctl writes for `files` and `state` after commit `head`.
    fn cache_text(head: ObjectId, files: &[OnDisk], state: &State) -> Vec<u8> {
        let (body, count) = render_cache_body(files, state, &Lines::default());
        let mut text = format!("{}\ncomplete\t{count}\t-\n", head.to_hex()).into_bytes();
        text.extend_from_slice(&body);
        text
    }

    /// Write `text` as the stat cache of the store at `store`, its mtime later
    /// than every file's ctime (the racy rule).
    fn write_cache(store: &Path, text: &[u8]) {
        let path = store.join(CACHE);
        fs::write(&path, text).unwrap();
        fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(5))
            .unwrap();
    }

    /// `n` random files (sorted, names unique) and a state giving each a random
    /// blob; `times` draws a file's (mtime, ctime).
    fn random_dir(rng: &mut Rng, n: usize, times: impl Fn(&mut Rng) -> (i128, i128)) -> (Vec<OnDisk>, State) {
        let mut files: Vec<OnDisk> = (0..n)
            .map(|i| {
                let rel = format!("{}{i}.md", ["a", "a/b", "z\t", "\u{e9}"][rng.next(4) as usize]).into_bytes();
                let link = rng.next(5) == 0;
                let size = rng.next(3000);
                let (mtime_ns, ctime_ns) = times(rng);
                OnDisk {
                    rel,
                    link,
                    size,
                    mtime_ns,
                    ctime_ns,
                    ino: rng.next(1 << 40),
                }
            })
            .collect();
        files.sort_by(|a, b| a.rel.cmp(&b.rel));
        files.dedup_by(|a, b| a.rel == b.rel);
        let mut state = State::default();
        for f in &files {
            let oid = ObjectId::from_bytes_or_panic(&[rng.next(256) as u8; 20]);
            let fs = FileState {
                oid,
                link: f.link,
                mtime_ns: f.mtime_ns,
            };
            state.files.insert(f.rel.clone(), fs);
        }
        (files, state)
    }

    #[test]
    fn copied_lines_are_the_rendered_ones() {
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let head = ObjectId::from_bytes_or_panic(&[7; 20]);
        for round in 0..300 {
            let n = rng.next(40) as usize;
            let (files, mut state) = random_dir(&mut rng, n, |rng| {
                let m = rng.next(1 << 62) as i128 - if rng.next(9) == 0 { 1 << 63 } else { 0 };
                (m, rng.next(1 << 62) as i128)
            });
            let (body, count) = render_cache_body(&files, &state, &Lines::default());
            let mut text = format!("{}\ncomplete\t{count}\t-\n", head.to_hex()).into_bytes();
            for line in body.split_inclusive(|b| *b == b'\n') {
                let mut line = line.to_vec();
                match rng.next(12) {
                    0 => line.insert(0, b'+'),
                    1 => line.insert(0, b'0'),
                    2 => line.make_ascii_uppercase(),
                    3 => line.insert(line.len() - 1, b'\r'),
                    4 => line.insert(0, b'x'),
                    5 => text.extend_from_slice(&line.clone()),
                    _ => {}
                }
                text.extend_from_slice(&line);
            }
            let loaded = Loaded {
                bytes: text,
                written: 1 << 62,
            };
            let (old, _) = parse_full(Some(&loaded), Some(head));
            // The next walk: some files changed, some gone, some new.
            let mut next: Vec<OnDisk> = Vec::new();
            for f in &files {
                let mut f = f.clone();
                match rng.next(8) {
                    0 => continue,
                    1 => f.size += 1,
                    2 => f.mtime_ns -= 1,
                    3 => f.ctime_ns += 1,
                    4 => f.ino ^= 1,
                    5 => f.link = !f.link,
                    6 => {
                        let s = state.files.get_mut(&f.rel).unwrap();
                        s.oid = ObjectId::from_bytes_or_panic(&[round as u8; 20]);
                    }
                    _ => {}
                }
                next.push(f);
            }
            for i in 0..rng.next(3) {
                let f = OnDisk {
                    rel: format!("new{round}-{i}.md").into_bytes(),
                    link: false,
                    size: 1,
                    mtime_ns: 2,
                    ctime_ns: 3,
                    ino: 4,
                };
                let oid = ObjectId::from_bytes_or_panic(&[1; 20]);
                let fs = FileState {
                    oid,
                    link: false,
                    mtime_ns: 2,
                };
                state.files.insert(f.rel.clone(), fs);
                next.push(f);
            }
            next.sort_by(|a, b| a.rel.cmp(&b.rel));
            let want = render_cache_body(&next, &state, &Lines::default());
            assert_eq!(render_cache_body(&next, &state, &old), want, "round {round}");
            // Unchanged: every line copied, the same bytes.
            assert_eq!(render_cache_body(&files, &state, &old).1, count.min(files.len()));
        }
    }

    #[test]
    fn lines_split_at_newlines_and_read_empty_past_the_end() {
        let mut rest: &[u8] = b"a\n\nb";
        assert_eq!(next_line(&mut rest), b"a");
        assert_eq!(next_line(&mut rest), b"");
        assert_eq!(next_line(&mut rest), b"b");
        assert_eq!(next_line(&mut rest), b"");
    }
}
