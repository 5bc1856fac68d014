//! Classifying the bytes and tokens of a line, as Bun's scanner sees them.

use super::Error;

pub(super) fn syntax(line: usize, what: &str) -> Error {
    Error::Syntax(format!("{what} at line {}", line + 1))
}

pub(super) fn is_ws(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// Ends a token: whitespace, a line break, or the end of the line.
pub(super) fn ends_token(b: Option<&u8>) -> bool {
    matches!(b, None | Some(b' ' | b'\t' | b'\r'))
}

pub(super) fn is_flow_indicator(b: u8) -> bool {
    matches!(b, b',' | b'[' | b']' | b'{' | b'}')
}

/// Whether the line's first token, at `j`, is an implicit key (followed by `:` and a
/// space on the line).
pub(super) fn starts_key(b: &[u8], j: usize) -> bool {
    let end = match b[j] {
        b'"' | b'\'' => match close_quote(b, j + 1, b[j] == b'"') {
            Some(e) => e,
            None => return false,
        },
        b'?' => return ends_token(b.get(j + 1)),
        b'[' | b'{' | b'&' | b'!' | b'*' | b'|' | b'>' | b'#' => return false,
        _ => {
            let mut k = j;
            while k < b.len() {
                if b[k] == b':' && ends_token(b.get(k + 1)) {
                    return true;
                }
                if b[k] == b'#' && k > j && is_ws(b[k - 1]) {
                    return false;
                }
                k += 1;
            }
            return false;
        }
    };
    let rest = &b[end..];
    let k = rest.iter().take_while(|c| is_ws(**c)).count();
    rest.get(k) == Some(&b':') && ends_token(rest.get(k + 1))
}

/// Whether the token at `j` starts a block collection's entry: a `-`, `?` or `:`
/// indicator, or an implicit key. Bun 1.4 rejects a tab in the whitespace before
/// one where that whitespace is indentation (SPEC §2.4.3 (2.1.332)).
pub(super) fn starts_block_node(b: &[u8], j: usize) -> bool {
    (matches!(b[j], b'-' | b'?' | b':') && ends_token(b.get(j + 1))) || starts_key(b, j)
}

/// The byte after the quote that closes a scalar opened before `from`, or `None`
/// when it runs past the end of the line.
pub(super) fn close_quote(b: &[u8], from: usize, double: bool) -> Option<usize> {
    let mut j = from;
    while j < b.len() {
        match b[j] {
            b'\\' if double => j += 2,
            b'"' if double => return Some(j + 1),
            b'\'' if !double => {
                if b.get(j + 1) == Some(&b'\'') {
                    j += 2;
                } else {
                    return Some(j + 1);
                }
            }
            _ => j += 1,
        }
    }
    None
}

/// `---` or `...` (as `c`) at `j`, followed by whitespace or the end of the line.
pub(super) fn marker(b: &[u8], j: usize, c: u8) -> bool {
    b.len() >= j + 3 && b[j..j + 3].iter().all(|x| *x == c) && ends_token(b.get(j + 3))
}

/// The length of the UTF-8 sequence that starts with `b` (1 for a stray byte).
pub(super) fn utf8_len(b: u8) -> usize {
    match b {
        0xf0..=0xff => 4,
        0xe0..=0xef => 3,
        0xc0..=0xdf => 2,
        _ => 1,
    }
}

/// Write a piece of a quoted scalar. In a double-quoted one, a surrogate pair
/// written as two `\u` escapes (`\uD83D\uDE00`) becomes the one `\U` escape of its
/// character: Bun 1.4 decodes the pair (SPEC §2.4.3 (2.1.332)), yaml-rust2 rejects
/// each half. A lone half stays, and fails as in Bun.
pub(super) fn push_quoted(out: &mut String, s: &str, double: bool) {
    if !double || !s.contains('\\') {
        out.push_str(s);
        return;
    }
    let b = s.as_bytes();
    let hex4 = |at: usize| -> Option<u32> {
        let h = b.get(at..at + 4)?;
        u32::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok()
    };
    let mut copied = 0;
    let mut k = 0;
    while k < b.len() {
        if b[k] != b'\\' {
            k += 1;
            continue;
        }
        if b.get(k + 1) == Some(&b'u')
            && let Some(hi @ 0xD800..=0xDBFF) = hex4(k + 2)
            && b.get(k + 6..k + 8) == Some(b"\\u")
            && let Some(lo @ 0xDC00..=0xDFFF) = hex4(k + 8)
        {
            out.push_str(&s[copied..k]);
            let c = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
            out.push_str(&format!("\\U{c:08X}"));
            k += 12;
            copied = k;
            continue;
        }
        k += 2;
    }
    out.push_str(&s[copied.min(s.len())..]);
}
