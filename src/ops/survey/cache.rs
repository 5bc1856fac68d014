//! The survey cache file, like git's index: for each memory of one dir its stat
//! (device, inode, size, mtime, ctime, mode) and what the survey read of it
//! ([`Facts`]). Binary, little-endian, ending with a hash of everything before
//! it: a torn, truncated or foreign file reads as no cache.
//!
//! Git's racy rule: the stamp is the mtime of the new cache's temp file, made
//! before any memory is stat'ed or read; an entry is kept only if its ctime and
//! mtime are older than the stamp, so any write after the read moves its ctime
//! past what is cached (no `touch -r` puts a ctime back). Files changed in the
//! last [`YOUNG_NS`] are not kept either: they are the ones likely to change
//! again (the file just added), and keeping them would rewrite the cache for
//! nothing.

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
        Stat {
            dev: m.dev(),
            ino: m.ino(),
            size: m.size(),
            mode: m.mode(),
            mtime_ns: i128::from(m.mtime()) * 1_000_000_000 + i128::from(m.mtime_nsec()),
            ctime_ns: i128::from(m.ctime()) * 1_000_000_000 + i128::from(m.ctime_nsec()),
        }
    }

    /// Whether a cache stamped `stamp` may keep it: the racy rule, and a ctime
    /// older than `young` before it.
    pub(super) fn keepable(&self, stamp: i128, young: i128) -> bool {
        self.mtime_ns < stamp && self.ctime_ns < stamp - young
    }
}

/// A cached entry: the stat it was read with and what was read.
pub(super) struct Cached {
    pub(super) stat: Stat,
    pub(super) facts: Facts,
}

/// The cache of one dir, read: relative path → entry.
pub(super) type Entries = crate::fx::HashMap<String, Cached>;

/// The temp file the new cache is written into, made before anything is read;
/// its mtime is the stamp.
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

/// Write the cache of `dir` (its real path) into the stamp's temp file and put
/// it in place. Failures are ignored: the cache only saves work.
pub(super) fn write<'a>(
    stamp: Stamp,
    path: &Path,
    dir: &[u8],
    entries: impl Iterator<Item = (&'a str, &'a Stat, &'a Facts)>,
) {
    let mut b = Vec::with_capacity(1 << 20);
    b.extend_from_slice(MAGIC);
    put_u32(&mut b, FORMAT);
    put_bytes(&mut b, env!("CARGO_PKG_VERSION").as_bytes());
    put_bytes(&mut b, dir);
    let count_at = b.len();
    put_u32(&mut b, 0);
    let mut n: u32 = 0;
    for (rel, s, f) in entries {
        n += 1;
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
    if fs::write(&stamp.tmp, &b).is_err() || fs::rename(&stamp.tmp, path).is_err() {
        abandon(stamp);
    }
}

/// The entries of the cache `path` written for `dir` (its real path); empty when
/// there is none or it is not whole.
pub(super) fn read(path: &Path, dir: &[u8]) -> Entries {
    let Ok(file) = crate::fsread::open_regular(path) else {
        return Entries::default();
    };
    let Ok(bytes) = crate::fsread::read_bounded(file, MAX_BYTES) else {
        return Entries::default();
    };
    parse(&bytes, dir).unwrap_or_default()
}

fn parse(bytes: &[u8], dir: &[u8]) -> Option<Entries> {
    let (body, sum) = bytes.split_at_checked(bytes.len().checked_sub(8)?)?;
    if u64::from_le_bytes(sum.try_into().ok()?) != checksum(body) {
        return None;
    }
    let mut r = Reader(body.strip_prefix(MAGIC)?);
    if r.u32()? != FORMAT || r.bytes()? != env!("CARGO_PKG_VERSION").as_bytes() || r.bytes()? != dir {
        return None;
    }
    let n = r.u32()? as usize;
    let mut out = Entries::default();
    // Bounded by the body: an entry is more than 60 bytes.
    out.reserve(n.min(body.len() / 60));
    for _ in 0..n {
        let rel = r.string()?;
        let stat = Stat {
            dev: r.u64()?,
            ino: r.u64()?,
            size: r.u64()?,
            mode: u32::try_from(r.u64()?).ok()?,
            mtime_ns: r.i128()?,
            ctime_ns: r.i128()?,
        };
        let name = match r.byte()? {
            0 => None,
            1 => Some(r.string()?),
            _ => return None,
        };
        let hub = match r.byte()? {
            0 => false,
            1 => true,
            _ => return None,
        };
        let k = r.u32()? as usize;
        let mut links = Vec::with_capacity(k.min(r.0.len() / 4));
        for _ in 0..k {
            links.push(r.string()?);
        }
        out.insert(
            rel,
            Cached {
                stat,
                facts: Facts { name, hub, links },
            },
        );
    }
    r.0.is_empty().then_some(out)
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

    fn string(&mut self) -> Option<String> {
        std::str::from_utf8(self.bytes()?).ok().map(str::to_string)
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
            [("a.md", &stat, &a), ("s/b\n.md", &stat, &b)].into_iter(),
        );
        let read_back = read(&path, b"/d");
        assert_eq!(read_back.len(), 2);
        assert_eq!(read_back["a.md"].facts, a);
        assert_eq!(read_back["s/b\n.md"].facts, b);
        assert_eq!(read_back["a.md"].stat, stat);
        assert!(read(&path, b"/other").is_empty(), "another dir's cache");
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
        assert!(read(&path, b"/d").is_empty());
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
