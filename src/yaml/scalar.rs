//! Scalar resolution: tags, the core-schema keywords and numbers as Bun scans them.

use yaml_rust2::parser::Tag;
use yaml_rust2::scanner::TScalarStyle;

use super::Value;

/// How Bun's parser treats a tag on a plain scalar (SPEC §2.4.3): `!!bool`,
/// `!!int`, `!!float` and `!!null` (also written with one `!`) keep the scalar's
/// value only when it resolves to that kind; every other tag keeps the text as a
/// string.
#[derive(Clone, Copy, PartialEq)]
enum TagKind {
    None,
    /// `!` alone.
    NonSpecific,
    /// `!<...>`.
    Verbatim,
    Bool,
    Number,
    Null,
    Str,
    Other,
}

fn tag_kind(tag: Option<&Tag>) -> TagKind {
    let Some(tag) = tag else { return TagKind::None };
    match (tag.handle.as_str(), tag.suffix.as_str()) {
        ("", "!") => TagKind::NonSpecific,
        ("", _) => TagKind::Verbatim,
        ("!" | "tag:yaml.org,2002:", name) => match name {
            "bool" => TagKind::Bool,
            "int" | "float" => TagKind::Number,
            "null" => TagKind::Null,
            "str" => TagKind::Str,
            _ => TagKind::Other,
        },
        _ => TagKind::Other,
    }
}

pub(super) fn resolve_scalar(raw: String, style: TScalarStyle, tag: Option<&Tag>) -> Value {
    if style != TScalarStyle::Plain {
        return Value::String(raw);
    }
    let kind = tag_kind(tag);
    if raw.is_empty() {
        // A node with properties but no content.
        return match kind {
            TagKind::Str | TagKind::NonSpecific => Value::String(raw),
            _ => Value::Null,
        };
    }
    match (kind, resolve_plain(&raw)) {
        (TagKind::None, Some(v))
        | (TagKind::Bool, Some(v @ Value::Bool(_)))
        | (TagKind::Number, Some(v @ Value::Number(_)))
        | (TagKind::Null, Some(v @ Value::Null)) => v,
        _ => Value::String(raw),
    }
}

/// How Bun's parser resolves a whole plain scalar; `None` means string. The
/// keywords are the YAML 1.2 core schema's (`yes`, `on` stay strings); numbers follow
/// the runtime's own scanner, which departs from the core schema (SPEC §2.4.3).
pub fn resolve_plain(s: &str) -> Option<Value> {
    match s {
        "" | "~" | "null" | "Null" | "NULL" => Some(Value::Null),
        "true" | "True" | "TRUE" => Some(Value::Bool(true)),
        "false" | "False" | "FALSE" => Some(Value::Bool(false)),
        _ => bun_number(s).map(Value::Number),
    }
}

/// The number Bun's plain-scalar scanner makes of the whole of `s`, if any
/// (observed with Bun 1.3.14: `12e` → 12, `-0x1F` → −31, `1-` → 1, `+.5` and
/// `-.5e2` stay strings, `.inf`, `+.inf`, `.NaN` are numbers, `-.nan` is not).
///
/// The scanner walks the characters after an optional sign, accepting digits,
/// `e`/`E`, the hex letters, one `x`, one `o`, one `.`, `+` (not after an `x`) and
/// one `-`; it must reach the end of the scalar. With an `x`, an `o` or a hex
/// letter the text is an unsigned 64-bit integer with an optional `0x`/`0o`/`0b`
/// prefix; otherwise the longest decimal prefix counts, so trailing junk such as
/// `e` or `-3` is ignored. After a sign, `.inf` is recognised from the second
/// character on (the runtime does not check the first, so `-xInf` is −∞ too).
fn bun_number(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    match *b.first()? {
        b'0'..=b'9' => number_walk(b, 1, false),
        b'.' => match b.get(1) {
            Some(b'n' | b'N' | b'i' | b'I') => match &b[1..] {
                b"nan" | b"NaN" | b"NAN" => Some(f64::NAN),
                b"inf" | b"Inf" | b"INF" => Some(f64::INFINITY),
                _ => None,
            },
            _ => number_walk(b, 1, false),
        },
        sign @ (b'-' | b'+') => {
            let body = &b[1..];
            let n = if body.len() >= 2 && ((body[0] == b'.' && body[1] == b'i') || body[1] == b'I') {
                matches!(&body[1..], b"inf" | b"Inf" | b"INF").then_some(f64::INFINITY)?
            } else {
                number_walk(body, 0, true)?
            };
            Some(if sign == b'-' { -n } else { n })
        }
        _ => None,
    }
}

/// The character walk of [`bun_number`] over `t`, whose first `from` bytes the
/// scanner has already taken; `signed` when a sign came before `t`.
fn number_walk(t: &[u8], from: usize, signed: bool) -> Option<f64> {
    let mut decimal = t.first() == Some(&b'.');
    let (mut x, mut o, mut e, mut hex, mut minus) = (false, false, false, false, false);
    let mut first = true;
    for (i, &c) in t.iter().enumerate().skip(from) {
        match c {
            b'0' if first && matches!(t.get(i + 1), Some(b'b' | b'B')) => return None,
            b'0'..=b'9' => {}
            b'e' | b'E' => {
                hex |= e;
                e = true;
            }
            b'b' | b'B' if first => return None,
            b'a'..=b'd' | b'f' | b'A'..=b'D' | b'F' => hex = true,
            b'x' if !x => x = true,
            b'o' if !o => o = true,
            b'.' if !decimal => decimal = true,
            b'+' if !x => {}
            b'-' if !minus => minus = true,
            _ => return None,
        }
        first = false;
    }
    if first && signed {
        return None;
    }
    if x || o || hex {
        parse_unsigned(t)
    } else {
        decimal_prefix(t)
    }
}

/// An unsigned 64-bit integer, decimal or with a `0x`, `0o` or `0b` prefix.
fn parse_unsigned(t: &[u8]) -> Option<f64> {
    let (digits, radix) = match t {
        [b'0', p, rest @ ..] if !rest.is_empty() => match p.to_ascii_lowercase() {
            b'x' => (rest, 16),
            b'o' => (rest, 8),
            b'b' => (rest, 2),
            _ => (t, 10),
        },
        _ => (t, 10),
    };
    if digits.is_empty() {
        return None;
    }
    let mut n: u64 = 0;
    for &c in digits {
        let d = char::from(c).to_digit(radix)?;
        n = n.checked_mul(u64::from(radix))?.checked_add(u64::from(d))?;
    }
    Some(n as f64)
}

/// The longest prefix of `t` that reads as a decimal floating-point number
/// (`[+-]? (digits (. digits*)? | . digits) ([eE] [+-]? digits)?`), read.
fn decimal_prefix(t: &[u8]) -> Option<f64> {
    let digits_from = |mut i: usize| {
        while t.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        i
    };
    let mut i = usize::from(matches!(t.first(), Some(b'+' | b'-')));
    let int_end = digits_from(i);
    let mut end = int_end;
    if t.get(end) == Some(&b'.') {
        let frac_end = digits_from(end + 1);
        if int_end > i || frac_end > end + 1 {
            end = frac_end;
        }
    }
    if end == int_end && int_end == i {
        return None;
    }
    i = end;
    if matches!(t.get(i), Some(b'e' | b'E')) {
        let sign = usize::from(matches!(t.get(i + 1), Some(b'+' | b'-')));
        let exp_end = digits_from(i + 1 + sign);
        if exp_end > i + 1 + sign {
            end = exp_end;
        }
    }
    std::str::from_utf8(&t[..end]).ok()?.parse::<f64>().ok()
}
