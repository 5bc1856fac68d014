//! The id of a large object a snapshot renders itself (the root tree, the
//! mtimes blob: 2.5 MB at 20 000 files): plain SHA-1 (RustCrypto's `sha1`,
//! on the CPU's SHA extensions when it has them, detected at run time), about
//! ten times fewer instructions than the collision-detecting SHA-1 gix uses
//! (`sha1dc`), the same digest.

use gix::ObjectId;
use sha1::Digest as _;

/// The id (by `hash`) of an object of `kind` whose body is `bytes` (`<kind>
/// <len>\0` then the body), as [`gix::objs::compute_hash`] gives it.
pub(super) fn object_id(hash: gix::hash::Kind, kind: gix::objs::Kind, bytes: &[u8]) -> Result<ObjectId, String> {
    if hash == gix::hash::Kind::Sha1 && bytes.len() >= FAST_FROM {
        // No collision detection here: it changes the outcome only for the
        // crafted blocks of a collision attack, and these bytes are memctl's
        // own rendering of modes, names, blob ids and numbers (the memories
        // themselves are hashed by gix).
        let mut h = sha1::Sha1::new();
        h.update(header(kind, bytes.len()));
        h.update(bytes);
        return Ok(ObjectId::from_bytes_or_panic(&h.finalize()));
    }
    gix::objs::compute_hash(hash, kind, bytes).map_err(|e| e.to_string())
}

/// Objects below this size are hashed by gix (the set-up is not worth it).
const FAST_FROM: usize = 64 << 10;

/// A loose object's header: `<kind> <len>\0`.
fn header(kind: gix::objs::Kind, len: usize) -> Vec<u8> {
    let mut h = kind.as_bytes().to_vec();
    h.push(b' ');
    h.extend_from_slice(len.to_string().as_bytes());
    h.push(0);
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ids are gix's for every length around the block and padding
    /// edges and for large objects of random bytes, both kinds, whole and
    /// fed in pieces.
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
                let mut h = sha1::Sha1::new();
                h.update(header(kind, n));
                for piece in bytes.chunks(1 + n % 97) {
                    h.update(piece);
                }
                assert_eq!(
                    ObjectId::from_bytes_or_panic(&h.finalize()),
                    want,
                    "{n} bytes in pieces"
                );
            }
        }
    }
}
