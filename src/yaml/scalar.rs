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

/// The number Bun's parser makes of the whole of `s`, if any: the YAML 1.2 core
/// schema's forms (observed with Bun 1.4.5, SPEC §2.4.3 (2.1.332): `12e` and `1-`
/// are strings, `+.5` is 0.5, `-.5e2` is −50), with one extension the runtime
/// has: a sign may come before a `0x` or `0o` integer too (`-0x1F` → −31). The
/// integer forms hold an unsigned 64-bit value (one more digit is a string);
/// `.nan` takes no sign.
fn bun_number(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    let (neg, body) = match b.first()? {
        b'-' => (true, &b[1..]),
        b'+' => (false, &b[1..]),
        _ => (false, b),
    };
    let n = match body {
        b".inf" | b".Inf" | b".INF" => f64::INFINITY,
        b".nan" | b".NaN" | b".NAN" if body.len() == b.len() => return Some(f64::NAN),
        [b'0', b'x', rest @ ..] => parse_radix(rest, 16)?,
        [b'0', b'o', rest @ ..] => parse_radix(rest, 8)?,
        _ => core_float(body)?,
    };
    Some(if neg { -n } else { n })
}

/// An unsigned 64-bit integer in `radix`, at least one digit.
fn parse_radix(digits: &[u8], radix: u32) -> Option<f64> {
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

/// The core schema's unsigned float (which covers its decimal integers):
/// `( \.[0-9]+ | [0-9]+ ( \.[0-9]* )? ) ( [eE] [-+]? [0-9]+ )?`, read.
fn core_float(t: &[u8]) -> Option<f64> {
    let digits_from = |mut i: usize| {
        while t.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        i
    };
    let int_end = digits_from(0);
    let mut i = int_end;
    if t.get(i) == Some(&b'.') {
        i = digits_from(i + 1);
        if int_end == 0 && i == 1 {
            return None;
        }
    } else if int_end == 0 {
        return None;
    }
    if matches!(t.get(i), Some(b'e' | b'E')) {
        let from = i + 1 + usize::from(matches!(t.get(i + 1), Some(b'+' | b'-')));
        i = digits_from(from);
        if i == from {
            return None;
        }
    }
    if i != t.len() {
        return None;
    }
    std::str::from_utf8(t).ok()?.parse::<f64>().ok()
}
