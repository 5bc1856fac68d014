//! The large loose objects of a snapshot (the root tree and the mtimes blob:
//! 1.3 and 1.2 MB at 20 000 files) compressed in chunks. Each chunk is cut by
//! its content (a gear hash, so a file added or removed moves one cut, not
//! all of them) and compressed on its own (a fresh raw deflate stream ended by a
//! sync flush); a snapshot that changed a few entries compresses only the chunks
//! that differ from the last snapshot's and copies the others' compressed bytes
//! from the chunk cache (`memctl-zchunks`, beside the stat cache).
//!
//! The object is one zlib stream as git reads it: the header `78 01`, the loose
//! header (`tree 1354214\0`) as a stored block, the chunks' blocks, an empty
//! final block and the Adler-32 of all of it. Its id (SHA-1 of the bytes, by the
//! caller) and its bytes once inflated are exactly what gix wrote; only the
//! compressed bytes differ. A chunk is reused only when its length and two
//! polynomial hashes under the cache's own random keys (mod 2^61 − 1, 7 bytes a
//! term) match: distinct chunks of one length collide with probability below
//! 2^-100, whatever their bytes. The cache is only a cache: one that cannot be
//! read is started again, one that cannot be written costs a full compression.

use std::collections::HashMap;
use std::fs;
use std::io::Write as _;
use std::ops::Range;
use std::path::Path;

use gix::ObjectId;

const FILE: &str = "memctl-zchunks";
const MAGIC: &[u8] = b"memctl-zchunks 1\n";

/// Objects at least this large are written in chunks; smaller ones by gix.
pub(super) const MIN_OBJECT: usize = 64 << 10;

/// A chunk is at least this long (the cut is looked for past it) …
const MIN_CHUNK: usize = 16 << 10;
/// … and at most this long.
const MAX_CHUNK: usize = 128 << 10;
/// A cut where the gear hash's top 14 bits are zero: ~16 KiB past the minimum
/// (each chunk compressed costs a reset of the deflate state's 128 KiB of
/// tables: 75 chunks at 2.5 MB).
const CUT_MASK: u64 = !(u64::MAX >> 14);

/// The Mersenne prime 2^61 − 1 the chunk hashes are taken modulo.
const P: u64 = (1 << 61) - 1;

/// A chunk's length and its two keyed hashes.
type Digest = (u32, u64, u64);

/// The chunks of the last snapshot's large objects: each chunk's digest and
/// where its compressed bytes are in `bytes`.
pub(super) struct Chunks {
    keys: [u64; 2],
    bytes: Vec<u8>,
    known: HashMap<Digest, Range<usize>>,
}

/// A large object compressed: its zlib stream and where each chunk's
/// compressed bytes are in it.
pub(super) struct Compressed {
    pub(super) zlib: Vec<u8>,
    chunks: Vec<(Digest, Range<usize>)>,
}

impl Chunks {
    /// The chunk cache of the store at `store`; empty (with new keys) when it is
    /// missing or does not parse.
    pub(super) fn read(store: &Path) -> Chunks {
        let bytes = crate::fsread::open_regular(&store.join(FILE))
            .ok()
            .and_then(|f| crate::fsread::read_bounded(f, 64 << 20).ok());
        bytes.and_then(parse).unwrap_or_else(|| Chunks {
            keys: new_keys(),
            bytes: Vec::new(),
            known: HashMap::new(),
        })
    }

    /// `body`, the bytes of an object of `kind`, as a zlib stream: the chunks
    /// this cache knows copied, the others compressed.
    pub(super) fn compress(&self, kind: gix::objs::Kind, body: &[u8]) -> Result<Compressed, String> {
        let header = gix::objs::encode::loose_header(kind, body.len() as u64);
        let mut zlib = Vec::with_capacity(body.len() / 2);
        zlib.extend_from_slice(&[0x78, 0x01]);
        // The loose header as a stored block (not final): 3 bits, padded to a byte.
        let n = u16::try_from(header.len()).map_err(|e| e.to_string())?;
        zlib.push(0);
        zlib.extend_from_slice(&n.to_le_bytes());
        zlib.extend_from_slice(&(!n).to_le_bytes());
        zlib.extend_from_slice(&header);
        let mut deflate = None;
        let mut chunks = Vec::new();
        let mut rest = body;
        while !rest.is_empty() {
            let (chunk, after) = rest.split_at(cut(rest));
            rest = after;
            let digest = digest(self.keys, chunk);
            let start = zlib.len();
            match self.known.get(&digest) {
                Some(r) => zlib.extend_from_slice(&self.bytes[r.clone()]),
                None => deflate_chunk(&mut deflate, chunk, &mut zlib)?,
            }
            chunks.push((digest, start..zlib.len()));
        }
        // An empty final block with fixed codes, then the Adler-32 of all bytes.
        zlib.extend_from_slice(&[0x03, 0x00]);
        let adler = zlib_rs::adler32::adler32(zlib_rs::adler32::adler32(1, &header), body);
        zlib.extend_from_slice(&adler.to_be_bytes());
        Ok(Compressed { zlib, chunks })
    }

    /// Keeping the chunks of `objects` (the objects just written) as the
    /// cache, under this cache's keys, as a job to run later (on another
    /// thread). Failures are ignored: the next snapshot compresses again.
    pub(super) fn writer(&self, store: &Path, objects: Vec<Compressed>) -> impl FnOnce() + Send + 'static {
        let keys = self.keys;
        let store = store.to_path_buf();
        move || write_chunks(keys, &store, &objects)
    }
}

/// [`Chunks::writer`]'s job: the cache file of `objects` under `keys`.
fn write_chunks(keys: [u64; 2], store: &Path, objects: &[Compressed]) {
    let mut out = Vec::with_capacity(objects.iter().map(|o| o.zlib.len()).sum::<usize>() + 64);
    out.extend_from_slice(MAGIC);
    for k in keys {
        out.extend_from_slice(&k.to_le_bytes());
    }
    for o in objects {
        for ((len, a, b), r) in &o.chunks {
            out.extend_from_slice(&len.to_le_bytes());
            out.extend_from_slice(&a.to_le_bytes());
            out.extend_from_slice(&b.to_le_bytes());
            out.extend_from_slice(&((r.end - r.start) as u32).to_le_bytes());
            out.extend_from_slice(&o.zlib[r.clone()]);
        }
    }
    // A disk's damage to a kept chunk would be copied into every later
    // object: the file ends with the Adler-32 of all before it.
    let sum = zlib_rs::adler32::adler32(1, &out);
    out.extend_from_slice(&sum.to_le_bytes());
    let _ = super::write_cache(&store.join(FILE), &[&out]);
}

/// Store the zlib stream `zlib` as the loose object `id` in `objects` (the
/// object directory): written to a temp file there, then renamed into place,
/// read-only, as gix writes loose objects.
pub(super) fn store(objects: &Path, id: ObjectId, zlib: &[u8]) -> Result<(), String> {
    use std::os::unix::fs::OpenOptionsExt;
    let hex = id.to_hex().to_string();
    let dir = objects.join(&hex[..2]);
    match fs::create_dir(&dir) {
        Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => return Err(format!("{}: {e}", dir.display())),
        _ => {}
    }
    let tmp = objects.join(format!(
        ".tmp-memctl-{}-{}",
        std::process::id(),
        crate::tmpname::random_hex(8)
    ));
    let written = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o444)
        .open(&tmp)
        .and_then(|mut f| f.write_all(zlib));
    let moved = written.and_then(|()| fs::rename(&tmp, dir.join(&hex[2..])));
    moved.map_err(|e| {
        let _ = fs::remove_file(&tmp);
        format!("{}: {e}", tmp.display())
    })
}

/// Compress `chunk` as a raw deflate stream of its own (level 1, as gix
/// compresses loose objects) ended by a sync flush, onto `out`; `deflate` is
/// the compressor and its output buffer, made by the first chunk.
fn deflate_chunk(
    deflate: &mut Option<(zlib_rs::Deflate, Vec<u8>)>,
    chunk: &[u8],
    out: &mut Vec<u8>,
) -> Result<(), String> {
    let (d, buf) = match deflate {
        Some((d, buf)) => {
            d.reset();
            (d, buf)
        }
        None => {
            // Room for the worst case and the sync flush's empty stored block.
            let room = zlib_rs::compress_bound(MAX_CHUNK) + 64;
            let (d, buf) = deflate.insert((zlib_rs::Deflate::new(1, false, 15), vec![0; room]));
            (d, buf)
        }
    };
    let (in0, out0) = (d.total_in(), d.total_out());
    let status = d.compress(chunk, buf, zlib_rs::DeflateFlush::SyncFlush);
    let (read, written) = ((d.total_in() - in0) as usize, (d.total_out() - out0) as usize);
    if !matches!(status, Ok(zlib_rs::Status::Ok)) || read != chunk.len() || written >= buf.len() {
        return Err("cannot compress an object".to_string());
    }
    out.extend_from_slice(&buf[..written]);
    Ok(())
}

/// The length of the first chunk of `rest`: past [`MIN_CHUNK`], where the gear
/// hash of the bytes so far has its top bits zero, at most [`MAX_CHUNK`].
fn cut(rest: &[u8]) -> usize {
    if rest.len() <= MIN_CHUNK {
        return rest.len();
    }
    let max = rest.len().min(MAX_CHUNK);
    let mut h = 0u64;
    for (i, &b) in rest[..max].iter().enumerate().skip(MIN_CHUNK) {
        h = (h << 1).wrapping_add(GEAR[usize::from(b)]);
        if h & CUT_MASK == 0 {
            return i + 1;
        }
    }
    max
}

/// 256 fixed pseudo-random words for the gear hash (splitmix64).
const GEAR: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut s: u64 = 0x6d65_6d63_746c_2121;
    let mut i = 0;
    while i < 256 {
        s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        t[i] = z ^ (z >> 31);
        i += 1;
    }
    t
};

/// `chunk`'s length and its two polynomial hashes: its 7-byte little-endian
/// terms (the last one zero-padded) evaluated at each key modulo 2^61 − 1.
fn digest(keys: [u64; 2], chunk: &[u8]) -> Digest {
    let (mut a, mut b) = (0u64, 0u64);
    let mut terms = chunk.chunks_exact(7);
    let mut step = |v: u64| {
        a = mulmod(a + v, keys[0]);
        b = mulmod(b + v, keys[1]);
    };
    for t in &mut terms {
        step(u64::from_le_bytes([t[0], t[1], t[2], t[3], t[4], t[5], t[6], 0]));
    }
    let tail = terms.remainder();
    if !tail.is_empty() {
        let mut w = [0u8; 8];
        w[..tail.len()].copy_from_slice(tail);
        step(u64::from_le_bytes(w));
    }
    (chunk.len() as u32, a, b)
}

/// `x · k mod P` for `x` < 2^62 and `k` < `P`, reduced to below `P`.
fn mulmod(x: u64, k: u64) -> u64 {
    let p = u128::from(x) * u128::from(k);
    let s = (p as u64 & P) + (p >> 61) as u64;
    let s = (s & P) + (s >> 61);
    if s >= P { s - P } else { s }
}

/// Two random keys in `1..P` (std's per-process random hasher keys and the clock).
fn new_keys() -> [u64; 2] {
    use std::hash::{BuildHasher, Hasher};
    let mut keys = [0u64; 2];
    for (i, k) in keys.iter_mut().enumerate() {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_usize(i);
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos()),
        );
        *k = h.finish() % (P - 1) + 1;
    }
    keys
}

/// A chunk cache's bytes: the magic line, the two keys, then each chunk's
/// length, hashes, compressed length and compressed bytes; last the Adler-32 of
/// all of that.
fn parse(mut bytes: Vec<u8>) -> Option<Chunks> {
    let end = bytes.len().checked_sub(4)?;
    if !bytes.starts_with(MAGIC) || bytes[end..] != zlib_rs::adler32::adler32(1, &bytes[..end]).to_le_bytes() {
        return None;
    }
    bytes.truncate(end);
    let mut at = MAGIC.len();
    let take = |at: &mut usize, n: usize| -> Option<Range<usize>> {
        let r = *at..at.checked_add(n)?;
        (r.end <= bytes.len()).then(|| {
            *at = r.end;
            r
        })
    };
    let u64_at = |i: usize| u64::from_le_bytes(bytes[i..i + 8].try_into().unwrap_or_default());
    let keys = [u64_at(take(&mut at, 8)?.start), u64_at(take(&mut at, 8)?.start)];
    if keys.iter().any(|k| *k == 0 || *k >= P) {
        return None;
    }
    let mut known = HashMap::new();
    while at < bytes.len() {
        let h = take(&mut at, 24)?.start;
        let word = |i: usize| u32::from_le_bytes([bytes[h + i], bytes[h + i + 1], bytes[h + i + 2], bytes[h + i + 3]]);
        let digest = (word(0), u64_at(h + 4), u64_at(h + 12));
        let body = take(&mut at, word(20) as usize)?;
        known.insert(digest, body);
    }
    Some(Chunks { keys, bytes, known })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read as _;

    fn inflate(zlib: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        flate2::read::ZlibDecoder::new(zlib).read_to_end(&mut out).unwrap();
        out
    }

    fn lines(n: usize, changed: usize) -> Vec<u8> {
        let mut out = Vec::new();
        for i in 0..n {
            let t = if i == changed {
                9
            } else {
                1_700_000_000_000_000_000u64 + i as u64 * 7919
            };
            out.extend_from_slice(format!("{t}\tfile_{i:05}_{}.md\n", i * 31 % 97).as_bytes());
        }
        out
    }

    /// Each stream inflates (Adler-32 checked) to the loose header and the
    /// body, cold and from a cache of an earlier version with a line changed,
    /// added or removed; a cache that was kept reuses most chunks.
    #[test]
    fn the_stream_inflates_to_the_object_cold_and_warm() {
        let t = tempfile::tempdir().unwrap();
        let kind = gix::objs::Kind::Blob;
        let first = lines(20_000, usize::MAX);
        let cold = Chunks::read(t.path());
        assert!(cold.known.is_empty());
        let c = cold.compress(kind, &first).unwrap();
        let mut want = gix::objs::encode::loose_header(kind, first.len() as u64).to_vec();
        want.extend_from_slice(&first);
        assert_eq!(inflate(&c.zlib), want);
        assert!(c.chunks.len() > 10);
        write_chunks(cold.keys, t.path(), std::slice::from_ref(&c));
        let warm = Chunks::read(t.path());
        assert_eq!(warm.keys, cold.keys);
        assert_eq!(warm.known.len(), c.chunks.len());
        let again = warm.compress(kind, &first).unwrap();
        assert_eq!(again.zlib, c.zlib, "every chunk copied");
        let mut added = first.clone();
        added.splice(500_000..500_000, b"1\tnew.md\n".iter().copied());
        let mut removed = first.clone();
        removed.drain(300_000..300_100);
        for body in [lines(20_000, 1234), added, removed, Vec::new(), b"x".to_vec()] {
            let c = warm.compress(kind, &body).unwrap();
            let mut want = gix::objs::encode::loose_header(kind, body.len() as u64).to_vec();
            want.extend_from_slice(&body);
            assert_eq!(inflate(&c.zlib), want);
            let reused = c.chunks.iter().filter(|(d, _)| warm.known.contains_key(d)).count();
            if body.len() > MIN_OBJECT {
                assert!(reused + 3 >= c.chunks.len(), "{reused} of {}", c.chunks.len());
            }
        }
    }

    #[test]
    fn a_cache_that_does_not_parse_starts_again() {
        let t = tempfile::tempdir().unwrap();
        for bytes in [b"".to_vec(), b"memctl-zchunks 1\n".to_vec(), b"garbage".to_vec(), {
            let mut b = MAGIC.to_vec();
            b.extend_from_slice(&[1; 16]);
            b.extend_from_slice(&[0; 23]);
            b
        }] {
            fs::write(t.path().join(FILE), &bytes).unwrap();
            assert!(Chunks::read(t.path()).known.is_empty());
        }
        // A byte of a kept chunk damaged: the whole cache is dropped.
        let cold = Chunks::read(t.path());
        let c = cold.compress(gix::objs::Kind::Blob, &lines(5000, usize::MAX)).unwrap();
        write_chunks(cold.keys, t.path(), std::slice::from_ref(&c));
        assert_eq!(Chunks::read(t.path()).known.len(), c.chunks.len());
        let mut bytes = fs::read(t.path().join(FILE)).unwrap();
        let k = bytes.len() / 2;
        bytes[k] ^= 1;
        fs::write(t.path().join(FILE), &bytes).unwrap();
        assert!(Chunks::read(t.path()).known.is_empty());
    }

    #[test]
    fn digests_differ_for_other_bytes_and_lengths() {
        let keys = new_keys();
        assert!(keys.iter().all(|k| (1..P).contains(k)));
        let d = |b: &[u8]| digest(keys, b);
        assert_ne!(d(b"abcdefgh"), d(b"abcdefgi"));
        assert_ne!(d(b"abc"), d(b"abc\0"));
        assert_eq!(d(b"same bytes"), d(b"same bytes"));
        assert_eq!(mulmod(P - 1, P - 1), 1);
        assert_eq!(mulmod((1 << 62) - 1, 1), ((1u128 << 62) - 1) as u64 % P);
    }
}
