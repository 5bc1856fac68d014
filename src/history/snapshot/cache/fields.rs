//! Reading one stat-cache line's fields: whether it vouches for a walked
//! file (one pass for a line as written, by fields otherwise) and its
//! numbers as `str::parse` reads them.

use super::super::super::tracked::OnDisk;
use super::same_hex;

/// Whether one line of a complete cache (`size mtime ctime ino link oid rel`,
/// tab-separated, the oid valid UTF-8) is the walked `f`, its ctime older than
/// the cache `written`.
#[cfg(test)]
pub(super) fn line_vouches(l: &[u8], f: &OnDisk, written: i128) -> bool {
    line_vouched(l, f, written).is_some()
}

/// [`line_vouches`]: the line's blob id field (as written) when it vouches.
pub(super) fn line_vouched<'a>(l: &'a [u8], f: &OnDisk, written: i128) -> Option<&'a [u8]> {
    // Most lines as written: four plain numbers, a one-byte link flag and a
    // 40-digit blob id, read in one pass (20 000 lines per check).
    let mut rest = l;
    if let (Some(size), Some(mtime), Some(ctime), Some(ino)) = (
        plain_dec(&mut rest),
        plain_dec(&mut rest),
        plain_dec(&mut rest),
        plain_dec(&mut rest),
    ) && rest.len() > 42
        && rest[1] == b'\t'
        && rest[42] == b'\t'
    {
        let same = size == f.size
            && i128::from(mtime) == f.mtime_ns
            && i128::from(ctime) == f.ctime_ns
            && f.ctime_ns < written
            && ino == f.ino
            && rest[0] == if f.link { b'1' } else { b'0' };
        let oid = &rest[2..42];
        // A tab in the id would end that field (read otherwise below).
        let whole = memchr::memchr(b'\t', oid).is_none() && std::str::from_utf8(oid).is_ok();
        return (same && whole && same_hex(&rest[43..], &f.rel)).then_some(oid);
    }
    line_vouched_by_fields(l, f, written)
}

/// [`line_vouched`] of any line, its fields cut at tabs and read as
/// `str::parse` reads them.
pub(super) fn line_vouched_by_fields<'a>(l: &'a [u8], f: &OnDisk, written: i128) -> Option<&'a [u8]> {
    let mut rest = l;
    let same = dec_u64(field(&mut rest)?) == Some(f.size)
        && dec_i128(field(&mut rest)?) == Some(f.mtime_ns)
        && dec_i128(field(&mut rest)?) == Some(f.ctime_ns)
        && f.ctime_ns < written
        && dec_u64(field(&mut rest)?) == Some(f.ino)
        && field(&mut rest)? == if f.link { b"1" } else { b"0" };
    if !same {
        return None;
    }
    let oid = field(&mut rest).filter(|oid| oid.is_ascii() || std::str::from_utf8(oid).is_ok())?;
    // The rest of the line: a tab in it is no hex digit.
    same_hex(rest, &f.rel).then_some(oid)
}

/// The value of the 1 to 19 plain decimal digits (no sign) that `rest` starts
/// with up to its next tab, and `rest` moved past that tab; `None` (`rest` as
/// it was) for anything else, which [`field`] and [`dec_i128`] then read.
fn plain_dec(rest: &mut &[u8]) -> Option<u64> {
    let mut n = 0u64;
    let mut i = 0;
    while i < rest.len() && i < 19 {
        let c = rest[i].wrapping_sub(b'0');
        if c > 9 {
            break;
        }
        n = n * 10 + u64::from(c);
        i += 1;
    }
    if i == 0 || rest.get(i) != Some(&b'\t') {
        return None;
    }
    *rest = &rest[i + 1..];
    Some(n)
}

/// The text of `rest` up to its next tab, and `rest` moved past that tab;
/// `None` when there is no tab.
fn field<'a>(rest: &mut &'a [u8]) -> Option<&'a [u8]> {
    let i = memchr::memchr(b'\t', rest)?;
    let (f, r) = rest.split_at(i);
    *rest = &r[1..];
    Some(f)
}

/// The value of the decimal digits `d`; up to 19 of them never overflow a
/// `u64`, longer ones are checked.
fn digits(d: &[u8]) -> Option<u128> {
    if d.is_empty() {
        return None;
    }
    if d.len() <= 19 {
        let mut n = 0u64;
        let mut i = 0;
        while i < d.len() {
            let c = d[i].wrapping_sub(b'0');
            if c > 9 {
                return None;
            }
            n = n * 10 + u64::from(c);
            i += 1;
        }
        return Some(u128::from(n));
    }
    d.iter().try_fold(0u128, |n, &c| {
        let c = c.wrapping_sub(b'0');
        (c < 10).then_some(())?;
        n.checked_mul(10)?.checked_add(u128::from(c))
    })
}

/// A decimal `u64` as `str::parse` reads it (an optional `+`, then digits).
pub(super) fn dec_u64(s: &[u8]) -> Option<u64> {
    u64::try_from(digits(s.strip_prefix(b"+").unwrap_or(s))?).ok()
}

/// A decimal `i128` as `str::parse` reads it (an optional sign, then digits).
pub(super) fn dec_i128(s: &[u8]) -> Option<i128> {
    match s {
        [b'-', r @ ..] => 0i128.checked_sub_unsigned(digits(r)?),
        [b'+', r @ ..] => i128::try_from(digits(r)?).ok(),
        _ => i128::try_from(digits(s)?).ok(),
    }
}
