//! The id of a large object a snapshot renders itself (the root tree, the
//! mtimes blob: 2.5 MB at 20 000 files): SHA-1 on the CPU's SHA extensions
//! when it has them, ten times fewer instructions than the collision-detecting
//! SHA-1 gix uses (`sha1dc`), the same digest; else gix's own hash.

use gix::ObjectId;

/// The id (by `hash`) of an object of `kind` whose body is `bytes` (`<kind>
/// <len>\0` then the body), as [`gix::objs::compute_hash`] gives it.
pub(super) fn object_id(hash: gix::hash::Kind, kind: gix::objs::Kind, bytes: &[u8]) -> Result<ObjectId, String> {
    #[cfg(target_arch = "x86_64")]
    if hash == gix::hash::Kind::Sha1 && bytes.len() >= FAST_FROM && has_sha_ni() {
        let mut h = Sha1::new();
        h.update(kind.as_bytes());
        h.update(b" ");
        h.update(bytes.len().to_string().as_bytes());
        h.update(b"\0");
        h.update(bytes);
        let id = ObjectId::from_bytes_or_panic(&h.finish());
        // No collision detection here: it changes the outcome only for the
        // crafted blocks of a collision attack, and these bytes are memctl's
        // own rendering of modes, names, blob ids and numbers.
        return Ok(id);
    }
    gix::objs::compute_hash(hash, kind, bytes).map_err(|e| e.to_string())
}

/// Objects below this size are hashed by gix (the set-up is not worth it).
const FAST_FROM: usize = 64 << 10;

#[cfg(target_arch = "x86_64")]
fn has_sha_ni() -> bool {
    std::arch::is_x86_feature_detected!("sha")
        && std::arch::is_x86_feature_detected!("sse4.1")
        && std::arch::is_x86_feature_detected!("ssse3")
}

/// SHA-1 over whole 64-byte blocks, the tail kept until [`Sha1::finish`].
#[cfg(target_arch = "x86_64")]
struct Sha1 {
    state: [u32; 5],
    buf: [u8; 64],
    buf_len: usize,
    total: u64,
}

#[cfg(target_arch = "x86_64")]
impl Sha1 {
    fn new() -> Sha1 {
        Sha1 {
            state: [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0],
            buf: [0; 64],
            buf_len: 0,
            total: 0,
        }
    }

    fn update(&mut self, mut data: &[u8]) {
        self.total += data.len() as u64;
        if self.buf_len > 0 {
            let take = (64 - self.buf_len).min(data.len());
            self.buf[self.buf_len..self.buf_len + take].copy_from_slice(&data[..take]);
            self.buf_len += take;
            data = &data[take..];
            if self.buf_len < 64 {
                return;
            }
            let block = self.buf;
            self.compress(&block);
            self.buf_len = 0;
        }
        let whole = data.len() / 64 * 64;
        if whole > 0 {
            self.compress(&data[..whole]);
        }
        let rest = &data[whole..];
        self.buf[..rest.len()].copy_from_slice(rest);
        self.buf_len = rest.len();
    }

    fn finish(mut self) -> [u8; 20] {
        let bits = self.total.wrapping_mul(8);
        let mut tail = [0u8; 128];
        tail[..self.buf_len].copy_from_slice(&self.buf[..self.buf_len]);
        tail[self.buf_len] = 0x80;
        let len = if self.buf_len < 56 { 64 } else { 128 };
        tail[len - 8..len].copy_from_slice(&bits.to_be_bytes());
        self.compress(&tail[..len]);
        let mut out = [0u8; 20];
        for (o, s) in out.chunks_exact_mut(4).zip(self.state) {
            o.copy_from_slice(&s.to_be_bytes());
        }
        out
    }

    /// `blocks`: a multiple of 64 bytes.
    fn compress(&mut self, blocks: &[u8]) {
        debug_assert!(blocks.len().is_multiple_of(64));
        // SAFETY: only built when `has_sha_ni` said the CPU has SHA, SSE4.1
        // and SSSE3 (`object_id`); `blocks` is whole 64-byte blocks.
        unsafe { compress_ni(&mut self.state, blocks) }
    }
}

/// The SHA-1 compression of each 64-byte block of `blocks` into `state`, on
/// the SHA extensions: four rounds per `sha1rnds4`, the message schedule by
/// `sha1msg1`/`sha1msg2`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
unsafe fn compress_ni(state: &mut [u32; 5], blocks: &[u8]) {
    use std::arch::x86_64::*;
    // Big-endian words, the first in the top lane.
    let mask = _mm_set_epi64x(0x0001_0203_0405_0607, 0x0809_0a0b_0c0d_0e0f);
    // SAFETY: `state` holds 5 words; the first 4 are read as 16 bytes.
    let mut abcd = _mm_shuffle_epi32(unsafe { _mm_loadu_si128(state.as_ptr().cast()) }, 0x1B);
    let mut e0 = _mm_set_epi32(state[4] as i32, 0, 0, 0);
    for block in blocks.chunks_exact(64) {
        let (abcd_save, e_save) = (abcd, e0);
        let p: *const __m128i = block.as_ptr().cast();
        // SAFETY: `block` is 64 bytes: four unaligned 16-byte loads.
        let mut w = unsafe {
            [
                _mm_shuffle_epi8(_mm_loadu_si128(p), mask),
                _mm_shuffle_epi8(_mm_loadu_si128(p.add(1)), mask),
                _mm_shuffle_epi8(_mm_loadu_si128(p.add(2)), mask),
                _mm_shuffle_epi8(_mm_loadu_si128(p.add(3)), mask),
            ]
        };
        // Twenty groups of four rounds; the previous group's ABCD gives the
        // next group's E.
        let mut prev = abcd;
        let e = _mm_add_epi32(e0, w[0]);
        abcd = _mm_sha1rnds4_epu32::<0>(abcd, e);
        for g in 1..20 {
            if g >= 4 {
                let next = _mm_sha1msg2_epu32(
                    _mm_xor_si128(_mm_sha1msg1_epu32(w[g % 4], w[(g + 1) % 4]), w[(g + 2) % 4]),
                    w[(g + 3) % 4],
                );
                w[g % 4] = next;
            }
            let e = _mm_sha1nexte_epu32(prev, w[g % 4]);
            prev = abcd;
            abcd = match g / 5 {
                0 => _mm_sha1rnds4_epu32::<0>(abcd, e),
                1 => _mm_sha1rnds4_epu32::<1>(abcd, e),
                2 => _mm_sha1rnds4_epu32::<2>(abcd, e),
                _ => _mm_sha1rnds4_epu32::<3>(abcd, e),
            };
        }
        e0 = _mm_sha1nexte_epu32(prev, e_save);
        abcd = _mm_add_epi32(abcd, abcd_save);
    }
    abcd = _mm_shuffle_epi32(abcd, 0x1B);
    // SAFETY: the first 4 words of `state`, written as 16 bytes.
    unsafe { _mm_storeu_si128(state.as_mut_ptr().cast(), abcd) };
    state[4] = _mm_extract_epi32(e0, 3) as u32;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ids are gix's for every length around the block and padding
    /// edges and for large objects of random bytes, both kinds.
    #[test]
    fn ids_are_the_ones_gix_computes() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut bytes = Vec::new();
        for n in (0..300).chain([
            FAST_FROM - 1,
            FAST_FROM,
            FAST_FROM + 55,
            FAST_FROM + 56,
            1 << 20,
            (1 << 20) + 63,
        ]) {
            bytes.clear();
            for _ in 0..n {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                bytes.push(x as u8);
            }
            for kind in [gix::objs::Kind::Tree, gix::objs::Kind::Blob] {
                let want = gix::objs::compute_hash(gix::hash::Kind::Sha1, kind, &bytes).unwrap();
                assert_eq!(
                    object_id(gix::hash::Kind::Sha1, kind, &bytes).unwrap(),
                    want,
                    "{n} bytes"
                );
                #[cfg(target_arch = "x86_64")]
                if has_sha_ni() {
                    let mut h = Sha1::new();
                    h.update(kind.as_bytes());
                    h.update(format!(" {n}\0").as_bytes());
                    for piece in bytes.chunks(1 + n % 97) {
                        h.update(piece);
                    }
                    assert_eq!(ObjectId::from_bytes_or_panic(&h.finish()), want, "{n} bytes in pieces");
                }
            }
        }
    }
}
