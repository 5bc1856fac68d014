//! The survey cache file, like git's index: for each memory of one dir its stat
//! (device, inode, size, mtime, ctime, mode) and what the survey read of it
//! ([`Facts`]). Binary, little-endian, ending with a hash of everything before
//! it: a torn, truncated or foreign file reads as no cache.
//!
//! Git's racy rule: the stamp is the mtime of an empty file made
//! before any memory is stat'ed or read; an entry is kept only if its ctime and
//! mtime are older than the stamp, so any write after the read moves its ctime
//! past what is cached (no `touch -r` puts a ctime back). Files changed in the
//! last [`YOUNG_NS`] are not kept either, when they are few: they are the ones
//! likely to change again (the file just added), and keeping them would
//! rewrite the cache for nothing. Many at once (a copy, a checkout) are kept.

use std::fs::{self, Metadata};
use std::hash::Hasher;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::Facts;

const MAGIC: &[u8] = b"memctl survey cache\n";
/// Bumped whenever [`Facts`] or how they are read changes.
const FORMAT: u32 = 1;
/// A cache larger than this is not read.
const MAX_BYTES: u64 = 256 << 20;
/// Entries whose ctime is this recent (before the stamp) are not kept.
pub(super) const YOUNG_NS: i128 = 5_000_000_000;

/// What a file's metadata must still say for its cached facts to hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Stat {
    dev: u64,
    ino: u64,
    size: u64,
    mode: u32,
    mtime_ns: i128,
    ctime_ns: i128,
}

impl Stat {
    pub(super) fn of(m: &Metadata) -> Stat {
        Stat::of_lstat(&crate::fsread::Lstat::of(m))
    }

    /// The same facts from the snapshot walk's `lstat` (a regular file's).
    pub(super) fn of_lstat(m: &crate::fsread::Lstat) -> Stat {
        Stat {
            dev: m.dev,
            ino: m.ino,
            size: m.size,
            mode: m.mode,
            mtime_ns: m.mtime_ns,
            ctime_ns: m.ctime_ns,
        }
    }

    /// Whether a cache stamped `stamp` may keep it: the racy rule, and a ctime
    /// older than `young` before it.
    pub(super) fn keepable(&self, stamp: i128, young: i128) -> bool {
        self.mtime_ns < stamp && self.ctime_ns < stamp - young
    }
}

/// Where one entry lies in a read cache's bytes: its start (the path's
/// length), its facts (the name's flag) and its end.
#[derive(Clone, Copy)]
struct At {
    start: u32,
    facts: u32,
    end: u32,
}

/// A cache as read: its bytes, every entry checked whole when read (each part
/// decodes, every text is UTF-8) and found by offsets. Nothing is copied out of
/// it: a memory's facts are decoded where they lie when a query asks, and an
/// entry still true is copied into the new cache as its bytes.
#[derive(Default)]
pub(super) struct Old {
    bytes: Vec<u8>,
    ents: Vec<At>,
}

impl Old {
    pub(super) fn len(&self) -> usize {
        self.ents.len()
    }

    fn reader(&self, i: usize) -> Reader<'_> {
        let a = self.ents[i];
        Reader(self.bytes.get(a.start as usize..a.end as usize).unwrap_or_default())
    }

    fn facts_reader(&self, i: usize) -> Reader<'_> {
        let a = self.ents[i];
        Reader(self.bytes.get(a.facts as usize..a.end as usize).unwrap_or_default())
    }

    /// The path of entry `i`, as bytes (checked UTF-8).
    fn rel(&self, i: usize) -> &[u8] {
        self.reader(i).bytes().unwrap_or_default()
    }

    /// The stat entry `i` was read with.
    pub(super) fn stat(&self, i: usize) -> Option<Stat> {
        let mut r = self.reader(i);
        r.bytes()?;
        read_stat(&mut r)
    }

    /// The entry's bytes, exactly as [`write`] writes them for its path, stat
    /// and facts.
    pub(super) fn entry(&self, i: usize) -> &[u8] {
        let a = self.ents[i];
        self.bytes.get(a.start as usize..a.end as usize).unwrap_or_default()
    }

    /// The frontmatter `name` of entry `i` ([`Facts::name`]).
    pub(super) fn name(&self, i: usize) -> Option<&str> {
        let mut r = self.facts_reader(i);
        match r.byte()? {
            1 => std::str::from_utf8(r.bytes()?).ok(),
            _ => None,
        }
    }

    /// The links of entry `i` and its hub flag ([`Facts::links`], [`Facts::hub`]).
    fn rest(&self, i: usize) -> Option<(bool, u32, Reader<'_>)> {
        let mut r = self.facts_reader(i);
        if r.byte()? == 1 {
            r.bytes()?;
        }
        let hub = r.byte()? == 1;
        let k = r.u32()?;
        Some((hub, k, r))
    }

    /// [`Facts::hub`] of entry `i`.
    pub(super) fn hub(&self, i: usize) -> bool {
        self.rest(i).is_some_and(|(hub, _, _)| hub)
    }

    /// Whether entry `i` links `rel` ([`Facts::links`] holds it).
    pub(super) fn links_to(&self, i: usize, rel: &str) -> bool {
        let Some((_, k, mut r)) = self.rest(i) else {
            return false;
        };
        (0..k).any(|_| r.bytes() == Some(rel.as_bytes()))
    }

    /// The facts of entry `i`, owned (the tests compare them).
    #[cfg(test)]
    pub(super) fn facts(&self, i: usize) -> Option<Facts> {
        let (hub, k, mut r) = self.rest(i)?;
        let links = (0..k)
            .map(|_| std::str::from_utf8(r.bytes()?).ok().map(str::to_string))
            .collect::<Option<Vec<String>>>()?;
        Some(Facts {
            name: self.name(i).map(str::to_string),
            hub,
            links,
        })
    }

    /// A merge of the walk's files into the entries (see [`Matcher`]).
    pub(super) fn matcher(&self) -> Matcher<'_> {
        Matcher {
            old: self,
            next: 0,
            by_rel: None,
            matched: 0,
        }
    }
}

/// Finds the entry of each path of a walk. The cache was written in the order a
/// walk of the dir read its files, and the next walk reads them in the same
/// order but for the files added or removed since: the entry after the last one
/// found is tried first, and only a path that is not there is looked up in a
/// map of every entry, made then (a line of the cache is never looked at twice
/// for an unchanged dir).
pub(super) struct Matcher<'a> {
    old: &'a Old,
    next: usize,
    by_rel: Option<crate::fx::HashMap<&'a [u8], usize>>,
    /// How many entries were found (each path of a walk is another).
    pub(super) matched: usize,
}

impl Matcher<'_> {
    /// The entry of the path `rel` (paths asked are distinct).
    pub(super) fn take(&mut self, rel: &str) -> Option<usize> {
        let old = self.old;
        let i = if self.next < old.len() && old.rel(self.next) == rel.as_bytes() {
            self.next
        } else {
            let map = self
                .by_rel
                .get_or_insert_with(|| (0..old.len()).map(|i| (old.rel(i), i)).collect());
            *map.get(rel.as_bytes())?
        };
        self.next = i + 1;
        self.matched += 1;
        Some(i)
    }
}

/// One entry of a cache to write: an old entry's bytes, or a path, its stat and
/// the facts read.
pub(super) enum Out<'a> {
    Same(&'a [u8]),
    New(&'a str, &'a Stat, &'a Facts),
}

/// An empty file made before anything is read, its mtime the stamp; removed
/// once the cache is written (or not).
pub(super) struct Stamp {
    tmp: PathBuf,
    pub(super) ns: i128,
}

/// Make the stamp for the cache `path`; `None` when it cannot be made (the
/// state dir is not writable): the cache is then read but not written.
pub(super) fn begin(path: &Path) -> Option<Stamp> {
    let parent = path.parent()?;
    fs::create_dir_all(parent).ok()?;
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    let _ = fs::remove_file(&tmp);
    let f = fs::OpenOptions::new().write(true).create_new(true).open(&tmp).ok()?;
    let md = f.metadata().ok()?;
    let ns = i128::from(md.mtime()) * 1_000_000_000 + i128::from(md.mtime_nsec());
    Some(Stamp { tmp, ns })
}

/// Drop a stamp whose cache is not written.
pub(super) fn abandon(stamp: Stamp) {
    let _ = fs::remove_file(&stamp.tmp);
}

/// Write the cache of `dir` (its real path) in place. Failures are ignored:
/// the cache only saves work.
pub(super) fn write<'a>(stamp: Stamp, path: &Path, dir: &[u8], entries: impl Iterator<Item = Out<'a>>) {
    let mut b = Vec::with_capacity(1 << 20);
    b.extend_from_slice(MAGIC);
    put_u32(&mut b, FORMAT);
    put_bytes(&mut b, env!("CARGO_PKG_VERSION").as_bytes());
    put_bytes(&mut b, dir);
    let count_at = b.len();
    put_u32(&mut b, 0);
    let mut n: u32 = 0;
    for e in entries {
        n += 1;
        let (rel, s, f) = match e {
            Out::Same(bytes) => {
                b.extend_from_slice(bytes);
                continue;
            }
            Out::New(rel, s, f) => (rel, s, f),
        };
        put_bytes(&mut b, rel.as_bytes());
        for v in [s.dev, s.ino, s.size, u64::from(s.mode)] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        b.extend_from_slice(&s.mtime_ns.to_le_bytes());
        b.extend_from_slice(&s.ctime_ns.to_le_bytes());
        match &f.name {
            Some(name) => {
                b.push(1);
                put_bytes(&mut b, name.as_bytes());
            }
            None => b.push(0),
        }
        b.push(u8::from(f.hub));
        put_u32(&mut b, f.links.len() as u32);
        for l in &f.links {
            put_bytes(&mut b, l.as_bytes());
        }
    }
    b[count_at..count_at + 4].copy_from_slice(&n.to_le_bytes());
    let sum = checksum(&b);
    b.extend_from_slice(&sum.to_le_bytes());
    // Over the cache's spare, not a new file renamed over it: at 20 000 files
    // `add` and `forget` each rewrite 2.9 MB ([`crate::spare::write`]). The
    // stamp's file only gave its mtime.
    let _ = crate::spare::write(path, &[&b]);
    abandon(stamp);
}

/// The cache `path` written for `dir` (its real path); empty when there is
/// none or it is not whole.
pub(super) fn read(path: &Path, dir: &[u8]) -> Old {
    let Ok(file) = crate::fsread::open_regular(path) else {
        return Old::default();
    };
    let Ok(bytes) = crate::fsread::read_bounded(file, MAX_BYTES) else {
        return Old::default();
    };
    match parse(&bytes, dir) {
        Some(ents) => Old { bytes, ents },
        None => Old::default(),
    }
}

/// Where each entry of the cache `bytes` lies, every part checked; `None` for
/// a cache that is not whole, of another format or version, or of another dir.
fn parse(bytes: &[u8], dir: &[u8]) -> Option<Vec<At>> {
    let (body, sum) = bytes.split_at_checked(bytes.len().checked_sub(8)?)?;
    if u64::from_le_bytes(sum.try_into().ok()?) != checksum(body) {
        return None;
    }
    let mut r = Reader(body.strip_prefix(MAGIC)?);
    if r.u32()? != FORMAT || r.bytes()? != env!("CARGO_PKG_VERSION").as_bytes() || r.bytes()? != dir {
        return None;
    }
    let n = r.u32()? as usize;
    let at = |r: &Reader| u32::try_from(body.len() - r.0.len()).ok();
    // Bounded by the body: an entry is more than 60 bytes.
    let mut out = Vec::with_capacity(n.min(body.len() / 60));
    for _ in 0..n {
        let start = at(&r)?;
        r.text()?;
        read_stat(&mut r)?;
        let facts = at(&r)?;
        match r.byte()? {
            0 => {}
            1 => r.text()?,
            _ => return None,
        }
        if r.byte()? > 1 {
            return None;
        }
        for _ in 0..r.u32()? {
            r.text()?;
        }
        out.push(At {
            start,
            facts,
            end: at(&r)?,
        });
    }
    r.0.is_empty().then_some(out)
}

/// A stat as [`write`] puts it.
fn read_stat(r: &mut Reader) -> Option<Stat> {
    Some(Stat {
        dev: r.u64()?,
        ino: r.u64()?,
        size: r.u64()?,
        mode: u32::try_from(r.u64()?).ok()?,
        mtime_ns: r.i128()?,
        ctime_ns: r.i128()?,
    })
}

/// FxHash over the bytes (a guard against a torn or foreign file, not an
/// adversary: the cache lives in the user's own state dir).
fn checksum(b: &[u8]) -> u64 {
    let mut h = crate::fx::Fx::default();
    h.write(b);
    h.write_usize(b.len());
    h.finish()
}

fn put_u32(b: &mut Vec<u8>, v: u32) {
    b.extend_from_slice(&v.to_le_bytes());
}

fn put_bytes(b: &mut Vec<u8>, s: &[u8]) {
    put_u32(b, s.len() as u32);
    b.extend_from_slice(s);
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (a, rest) = self.0.split_at_checked(n)?;
        self.0 = rest;
        Some(a)
    }

    fn byte(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    fn i128(&mut self) -> Option<i128> {
        Some(i128::from_le_bytes(self.take(16)?.try_into().ok()?))
    }

    fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = self.u32()? as usize;
        self.take(n)
    }

    /// Past a length-prefixed UTF-8 text.
    fn text(&mut self) -> Option<()> {
        std::str::from_utf8(self.bytes()?).ok().map(drop)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(name: Option<&str>, hub: bool, links: &[&str]) -> Facts {
        Facts {
            name: name.map(str::to_string),
            hub,
            links: links.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn a_cache_reads_back_and_any_damage_reads_as_none() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("state/survey/key");
        let f = tmp.path().join("f");
        fs::write(&f, "x").unwrap();
        let stat = Stat::of(&fs::metadata(&f).unwrap());
        let a = facts(Some("A é"), true, &["b.md", "sub/c.md"]);
        let b = facts(None, false, &[]);
        let stamp = begin(&path).unwrap();
        write(
            stamp,
            &path,
            b"/d",
            [Out::New("a.md", &stat, &a), Out::New("s/b\n.md", &stat, &b)].into_iter(),
        );
        let read_back = read(&path, b"/d");
        assert_eq!(read_back.len(), 2);
        let mut m = read_back.matcher();
        let (i, j) = (m.take("s/b\n.md").unwrap(), m.take("a.md").unwrap());
        assert_eq!(m.matched, 2);
        assert!(m.take("c.md").is_none());
        assert_eq!(read_back.facts(j).as_ref(), Some(&a));
        assert_eq!(read_back.facts(i).as_ref(), Some(&b));
        assert_eq!(read_back.stat(j), Some(stat));
        assert_eq!(read_back.name(j), Some("A é"));
        assert!(read_back.hub(j) && !read_back.hub(i));
        assert!(read_back.links_to(j, "sub/c.md") && !read_back.links_to(j, "sub"));
        // An entry copied as its bytes is the entry written again.
        let again = tmp.path().join("state/survey/again");
        let stamp = begin(&again).unwrap();
        write(
            stamp,
            &again,
            b"/d",
            [Out::Same(read_back.entry(j)), Out::New("s/b\n.md", &stat, &b)].into_iter(),
        );
        assert_eq!(fs::read(&again).unwrap(), fs::read(&path).unwrap());
        assert_eq!(read(&path, b"/other").len(), 0, "another dir's cache");
        let bytes = fs::read(&path).unwrap();
        for cut in [0, 1, MAGIC.len(), bytes.len() / 2, bytes.len() - 1] {
            assert!(parse(&bytes[..cut], b"/d").is_none(), "truncated at {cut}");
        }
        for at in [MAGIC.len() + 2, bytes.len() / 2, bytes.len() - 9] {
            let mut bad = bytes.clone();
            bad[at] ^= 0x20;
            assert!(parse(&bad, b"/d").is_none(), "a flipped bit at {at}");
        }
        fs::write(&path, b"garbage").unwrap();
        assert_eq!(read(&path, b"/d").len(), 0);
        // Written again over its spare: the stamp's file is gone, the old
        // cache is the spare, and the new one reads back.
        let stamp = begin(&path).unwrap();
        write(stamp, &path, b"/d", [Out::New("a.md", &stat, &a)].into_iter());
        assert_eq!(read(&path, b"/d").len(), 1);
        let mut names: Vec<String> = fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["again", "key", "key.spare"]);
        assert_eq!(fs::read(path.with_extension("spare")).unwrap(), b"garbage");
    }

    #[test]
    fn recent_or_racy_entries_are_not_kept() {
        let tmp = tempfile::tempdir().unwrap();
        let f = tmp.path().join("f");
        fs::write(&f, "x").unwrap();
        let s = Stat::of(&fs::metadata(&f).unwrap());
        assert!(!s.keepable(s.ctime_ns, 0), "same tick as the stamp");
        assert!(!s.keepable(s.ctime_ns + 1, YOUNG_NS), "young");
        assert!(s.keepable(s.ctime_ns.max(s.mtime_ns) + YOUNG_NS + 1, YOUNG_NS));
        let future = Stat {
            mtime_ns: s.ctime_ns + 10 * YOUNG_NS,
            ..s
        };
        assert!(
            !future.keepable(s.ctime_ns + 2 * YOUNG_NS, YOUNG_NS),
            "an mtime past the stamp"
        );
    }
}
