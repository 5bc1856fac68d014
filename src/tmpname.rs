//! The temp-file names of SPEC §4.1 (`.<base>.<pid>.<8 hex>.tmp`) and the random
//! hex they carry: written by the store, skipped by the scan, so the pattern lives
//! below both.

/// `n` (at most 16) random lower-case hex digits (std's per-process random hasher keys
/// mixed with the clock; unpredictability is not needed, uniqueness is).
pub fn random_hex(n: usize) -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    h.write_u32(std::process::id());
    let s = format!("{:016x}", h.finish());
    s[..n.min(16)].to_string()
}

/// The temp-file name pattern of SPEC §4.1: `.<base>.<pid>.<8 hex>.tmp`.
pub fn temp_name(base: &str) -> String {
    format!(".{base}.{}.{}.tmp", std::process::id(), random_hex(8))
}

/// Parse a memctl temp-file name: the PID it names.
pub fn parse_temp_name(name: &str) -> Option<u32> {
    let rest = name.strip_prefix('.')?.strip_suffix(".tmp")?;
    let (rest, hex) = rest.rsplit_once('.')?;
    let (base, pid) = rest.rsplit_once('.')?;
    if base.is_empty() || hex.len() != 8 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    pid.parse().ok()
}
