//! The fast path for the frontmatter shape almost every memory file has.

use super::entries::Entries;
use super::{Document, MAX_TEXT_BYTES, Value, resolve_plain};

/// The shape almost every frontmatter has: `key: value` lines, and one level of
/// `key: value` lines indented under a `key:` line, with plain or simply quoted
/// scalars. Parsed directly, without the event parser; anything else (comments,
/// flow collections, block scalars, anchors, tags, escapes, odd indentation, keys
/// or values that need YAML's finer rules) returns `None` and takes the full path.
/// The unit tests and the property tests check both paths agree.
pub fn parse_simple(text: &str) -> Option<Document> {
    let mut top = Entries::default();
    let mut nested: Option<(String, Entries, usize)> = None;
    let mut duplicate_keys = Vec::new();
    fn insert(map: &mut Entries, key: String, v: Value, dups: &mut Vec<String>) {
        if map.set(key.clone(), v) {
            dups.push(key);
        }
    }
    let close = |nested: &mut Option<(String, Entries, usize)>, top: &mut Entries, dups: &mut Vec<String>| {
        if let Some((k, entries, _)) = nested.take() {
            let v = if entries.is_empty() {
                Value::Null
            } else {
                Value::Map(entries.list)
            };
            insert(top, k, v, dups);
        }
    };
    if text.len() > MAX_TEXT_BYTES {
        return None;
    }
    for line in text.split('\n') {
        if line.is_empty() {
            continue;
        }
        let indent = line.bytes().take_while(|b| *b == b' ').count();
        let (key, value) = split_simple_pair(&line[indent..])?;
        if indent == 0 {
            close(&mut nested, &mut top, &mut duplicate_keys);
            match value {
                None => nested = Some((key.to_string(), Entries::default(), 0)),
                Some(v) => insert(&mut top, key.to_string(), simple_scalar(v)?, &mut duplicate_keys),
            }
        } else {
            let (_, entries, width) = nested.as_mut()?;
            if *width == 0 {
                *width = indent;
            }
            if indent != *width {
                return None;
            }
            // A nested key without a value would open a deeper level: not simple.
            let v = simple_scalar(value?)?;
            insert(entries, key.to_string(), v, &mut duplicate_keys);
        }
    }
    close(&mut nested, &mut top, &mut duplicate_keys);
    if top.is_empty() {
        return None;
    }
    Some(Document {
        root: Some(Value::Map(top.list)),
        duplicate_keys,
    })
}

/// `key:` or `key: value` with a plain identifier key; the value is the text after
/// the separating spaces (trailing spaces removed), or `None` for an empty value.
fn split_simple_pair(line: &str) -> Option<(&str, Option<&str>)> {
    let colon = line.find(':')?;
    let key = &line[..colon];
    let b = key.as_bytes();
    if b.is_empty()
        || !(b[0].is_ascii_alphabetic() || b[0] == b'_')
        || !b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_' || *c == b'-')
    {
        return None;
    }
    let rest = &line[colon + 1..];
    if rest.is_empty() || rest.bytes().all(|c| c == b' ') {
        return Some((key, None));
    }
    let value = rest.strip_prefix(' ')?.trim_start_matches(' ').trim_end_matches(' ');
    Some((key, Some(value)))
}

/// A scalar the fast path can resolve exactly, else `None`.
/// Whether a plain value holds `---`, `...`, `: `, ` #` or a tab: one pass over
/// the bytes instead of a substring search for each.
fn needs_full_path(v: &[u8]) -> bool {
    v.iter().enumerate().any(|(i, &b)| match b {
        b'\t' => true,
        b'-' | b'.' => v.get(i + 1) == Some(&b) && v.get(i + 2) == Some(&b),
        b':' => v.get(i + 1) == Some(&b' '),
        b' ' => v.get(i + 1) == Some(&b'#'),
        _ => false,
    })
}

/// A control character, BOM, NEL or line/paragraph separator: the simple path
/// leaves those to the full parser. Printable ASCII (most values) is decided by
/// one byte pass, without decoding chars.
fn has_break_or_control(v: &str) -> bool {
    if v.bytes().all(|b| (0x20..0x7f).contains(&b)) {
        return false;
    }
    v.chars()
        .any(|c| c.is_control() || c == '\u{feff}' || c == '\u{85}' || c == '\u{2028}' || c == '\u{2029}')
}

fn simple_scalar(v: &str) -> Option<Value> {
    if has_break_or_control(v) {
        return None;
    }
    let first = v.chars().next()?;
    if first == '"' {
        let inner = v.strip_prefix('"')?.strip_suffix('"')?;
        return (!inner.contains(['"', '\\'])).then(|| Value::String(inner.to_string()));
    }
    if first == '\'' {
        let inner = v.strip_prefix('\'')?.strip_suffix('\'')?;
        return (!inner.contains('\'')).then(|| Value::String(inner.to_string()));
    }
    if "-?:,[]{}#&*!|>'\"%@`".contains(first) || v.ends_with(':') || needs_full_path(v.as_bytes()) {
        return None;
    }
    Some(resolve_plain(v).unwrap_or_else(|| Value::String(v.to_string())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ascii_pass_agrees_with_the_char_test() {
        let slow = |v: &str| {
            v.chars()
                .any(|c| c.is_control() || c == '\u{feff}' || c == '\u{85}' || c == '\u{2028}' || c == '\u{2029}')
        };
        for v in [
            "plain",
            "",
            "a\tb",
            "a\u{7f}",
            "a\u{85}b",
            "é",
            "a\u{2028}",
            "\u{feff}x",
            "~",
            " ",
            "x\u{1f}",
            "\u{9f}",
        ] {
            assert_eq!(has_break_or_control(v), slow(v), "{v:?}");
        }
        for b in 0u32..0x3000 {
            let Some(c) = char::from_u32(b) else { continue };
            let v = format!("ab{c}");
            assert_eq!(has_break_or_control(&v), slow(&v), "{b:x}");
        }
    }

    #[test]
    fn the_byte_pass_finds_what_the_substring_searches_found() {
        for v in [
            "a---b", "a...", "k: v", "a #c", "a\tb", "a--b", "a..b", "a:b", "a#b", "-.-", "plain", "",
        ] {
            let old =
                v.contains("---") || v.contains("...") || v.contains(": ") || v.contains(" #") || v.contains('\t');
            assert_eq!(needs_full_path(v.as_bytes()), old, "{v:?}");
        }
    }
}
