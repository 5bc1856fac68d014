//! A multiply-rotate hash (FxHash's) for maps keyed by paths below the memory dir
//! on hot paths (the SessionStart hook's record and the history's stat cache,
//! SPEC v3 §7.2): SipHash was a visible share of the hook at 20 000 files. The keys
//! are the user's own file names, not input from the network.

use std::hash::{BuildHasherDefault, Hasher};

/// A `HashMap` with [`Fx`].
pub type HashMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<Fx>>;
/// A `HashSet` with [`Fx`].
pub type HashSet<K> = std::collections::HashSet<K, BuildHasherDefault<Fx>>;

#[derive(Default)]
pub struct Fx(u64);

impl Fx {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for Fx {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().unwrap_or_default()));
        }
        let mut last = [0u8; 8];
        let rest = chunks.remainder();
        last[..rest.len()].copy_from_slice(rest);
        self.add(u64::from_le_bytes(last) ^ ((rest.len() as u64) << 56));
    }
    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }
    fn write_u32(&mut self, n: u32) {
        self.add(u64::from(n));
    }
    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }
    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }
    /// Two words (review's short prose pieces are `u128` keys), not 16 bytes.
    fn write_u128(&mut self, n: u128) {
        self.add(n as u64);
        self.add((n >> 64) as u64);
    }
    /// The product's high bits folded into the low ones: the table picks a
    /// bucket by the low bits, which alone depend only on the low bytes of each
    /// word (names that differ in one digit then collide).
    fn finish(&self) -> u64 {
        self.0 ^ (self.0 >> 32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_that_differ_only_in_length_or_tail_hash_apart() {
        let h = |b: &[u8]| {
            let mut f = Fx::default();
            f.write(b);
            f.finish()
        };
        assert_ne!(h(b"a.md"), h(b"a.md\0"));
        assert_ne!(h(b"abcdefgh"), h(b"abcdefgi"));
        let mut m: HashMap<String, u32> = HashMap::default();
        for i in 0..1000 {
            m.insert(format!("dir/file_{i}.md"), i);
        }
        assert!((0..1000).all(|i| m.get(&format!("dir/file_{i}.md")) == Some(&i)));
    }
}
