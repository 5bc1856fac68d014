//! YAML with the semantics of Claude Code's native runtime (SPEC §2.4.3), built on
//! yaml-rust2's event parser only: plain scalars are resolved here with the YAML 1.2
//! core-schema rules, duplicate keys keep the last value, local tags are ignored,
//! and depth, alias expansion and text size are bounded.

use std::collections::HashMap;

use yaml_rust2::parser::{Event, Parser, Tag};
use yaml_rust2::scanner::TScalarStyle;

use crate::text::js_number;

/// Nesting deeper than this fails the parse (memctl choice, SPEC §2.4.3).
pub const MAX_DEPTH: usize = 256;
/// Nodes produced by alias expansion beyond this fail the parse.
pub const MAX_ALIAS_NODES: usize = 10_000;
/// YAML text longer than this fails the parse.
pub const MAX_TEXT_BYTES: usize = 1 << 20;

/// A YAML value as JavaScript sees it after parsing.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    Seq(Vec<Value>),
    Map(Vec<(String, Value)>),
}

impl Value {
    /// JavaScript truthiness (SPEC §2.5 step 5).
    pub fn is_truthy(&self) -> bool {
        match self {
            Value::Null => false,
            Value::Bool(b) => *b,
            Value::Number(n) => *n != 0.0 && !n.is_nan(),
            Value::String(s) => !s.is_empty(),
            Value::Seq(_) | Value::Map(_) => true,
        }
    }

    /// JavaScript's `String(value)` (SPEC §2.6).
    pub fn js_string(&self) -> String {
        match self {
            Value::Null => "null".into(),
            Value::Bool(b) => b.to_string(),
            Value::Number(n) => js_number(*n),
            Value::String(s) => s.clone(),
            Value::Seq(items) => items
                .iter()
                .map(|v| match v {
                    Value::Null => String::new(),
                    other => other.js_string(),
                })
                .collect::<Vec<_>>()
                .join(","),
            Value::Map(_) => "[object Object]".into(),
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// Look up a key of a mapping.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Map(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// JSON form; non-finite numbers become null (SPEC §3.4).
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value as J;
        match self {
            Value::Null => J::Null,
            Value::Bool(b) => J::Bool(*b),
            Value::Number(n) => serde_json::Number::from_f64(*n)
                .map(|num| {
                    if n.fract() == 0.0 && n.abs() < 9.007_199_254_740_992e15 {
                        J::Number((*n as i64).into())
                    } else {
                        J::Number(num)
                    }
                })
                .unwrap_or(J::Null),
            Value::String(s) => J::String(s.clone()),
            Value::Seq(items) => J::Array(items.iter().map(Value::to_json).collect()),
            Value::Map(entries) => J::Object(entries.iter().map(|(k, v)| (k.clone(), v.to_json())).collect()),
        }
    }

    fn node_count(&self) -> usize {
        match self {
            Value::Seq(items) => 1 + items.iter().map(Value::node_count).sum::<usize>(),
            Value::Map(entries) => 1 + entries.iter().map(|(_, v)| 1 + v.node_count()).sum::<usize>(),
            _ => 1,
        }
    }
}

/// JSON form without building a `serde_json::Value`: the same numbers, mappings
/// in order, and non-finite numbers as null.
impl serde::Serialize for Value {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap, SerializeSeq};
        match self {
            Value::Null => s.serialize_none(),
            Value::Bool(b) => s.serialize_bool(*b),
            Value::Number(n) if !n.is_finite() => s.serialize_none(),
            Value::Number(n) if n.fract() == 0.0 && n.abs() < 9.007_199_254_740_992e15 => s.serialize_i64(*n as i64),
            Value::Number(n) => s.serialize_f64(*n),
            Value::String(v) => s.serialize_str(v),
            Value::Seq(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for i in items {
                    seq.serialize_element(i)?;
                }
                seq.end()
            }
            Value::Map(entries) => {
                let mut map = s.serialize_map(Some(entries.len()))?;
                for (k, v) in entries {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

/// What a successful parse produced.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    /// The first document's root; `None` for a multi-document stream.
    pub root: Option<Value>,
    /// Keys repeated within one mapping (for lint ML113).
    pub duplicate_keys: Vec<String>,
}

/// Why a parse failed.
#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// The parser rejected the text (the runtime would throw).
    Syntax(String),
    /// memctl's safety limits were hit (SPEC §2.4.3).
    Limit(String),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Syntax(m) => f.write_str(m),
            Error::Limit(m) => write!(f, "exceeds memctl's YAML limits: {m}"),
        }
    }
}

enum Frame {
    Seq(Vec<Value>, usize),
    Map(Vec<(String, Value)>, Option<String>, usize),
}

/// Parse YAML text with the semantics of SPEC §2.4.3.
pub fn parse(text: &str) -> Result<Document, Error> {
    match parse_simple(text) {
        Some(doc) => Ok(doc),
        None => parse_events(text),
    }
}

/// A mapping being built: its entries in order.
type Entries = Vec<(String, Value)>;

/// The shape almost every frontmatter has: `key: value` lines, and one level of
/// `key: value` lines indented under a `key:` line, with plain or simply quoted
/// scalars. Parsed directly, without the event parser; anything else (comments,
/// flow collections, block scalars, anchors, tags, escapes, odd indentation, keys
/// or values that need YAML's finer rules) returns `None` and takes the full path.
/// The unit tests and the property tests check both paths agree.
pub fn parse_simple(text: &str) -> Option<Document> {
    let mut top: Vec<(String, Value)> = Vec::new();
    let mut nested: Option<(String, Entries, usize)> = None;
    let mut duplicate_keys = Vec::new();
    fn insert(map: &mut Vec<(String, Value)>, key: String, v: Value, dups: &mut Vec<String>) {
        if let Some(slot) = map.iter_mut().find(|(k, _)| *k == key) {
            dups.push(key);
            slot.1 = v;
        } else {
            map.push((key, v));
        }
    }
    let close =
        |nested: &mut Option<(String, Entries, usize)>, top: &mut Vec<(String, Value)>, dups: &mut Vec<String>| {
            if let Some((k, entries, _)) = nested.take() {
                let v = if entries.is_empty() {
                    Value::Null
                } else {
                    Value::Map(entries)
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
                None => nested = Some((key.to_string(), Vec::new(), 0)),
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
        root: Some(Value::Map(top)),
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
fn simple_scalar(v: &str) -> Option<Value> {
    if v.chars()
        .any(|c| c.is_control() || c == '\u{feff}' || c == '\u{85}' || c == '\u{2028}' || c == '\u{2029}')
    {
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
    if "-?:,[]{}#&*!|>'\"%@`".contains(first)
        || v.contains(": ")
        || v.contains(" #")
        || v.ends_with(':')
        || v.contains('\t')
    {
        return None;
    }
    Some(resolve_plain(v).unwrap_or_else(|| Value::String(v.to_string())))
}

pub(crate) fn parse_events(text: &str) -> Result<Document, Error> {
    if text.len() > MAX_TEXT_BYTES {
        return Err(Error::Limit(format!("text longer than {MAX_TEXT_BYTES} bytes")));
    }
    let mut parser = Parser::new_from_str(text);
    let mut stack: Vec<Frame> = Vec::new();
    let mut anchors: HashMap<usize, Value> = HashMap::new();
    let mut alias_nodes = 0usize;
    let mut documents = 0usize;
    let mut root: Option<Value> = None;
    let mut duplicate_keys = Vec::new();
    loop {
        let (event, _mark) = parser.next_token().map_err(|e| {
            // yaml-rust2 counts flow nesting in a u8: overflowing it is our depth limit.
            if e.info() == "recursion limit exceeded" {
                Error::Limit(format!("nesting deeper than {MAX_DEPTH} levels"))
            } else {
                Error::Syntax(e.to_string())
            }
        })?;
        let value = match event {
            Event::StreamEnd => break,
            Event::DocumentStart => {
                documents += 1;
                continue;
            }
            Event::StreamStart | Event::DocumentEnd | Event::Nothing => continue,
            Event::SequenceStart(anchor, _) => {
                stack.push(Frame::Seq(Vec::new(), anchor));
                ensure_depth(stack.len())?;
                continue;
            }
            Event::MappingStart(anchor, _) => {
                stack.push(Frame::Map(Vec::new(), None, anchor));
                ensure_depth(stack.len())?;
                continue;
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let (value, anchor) = match stack.pop() {
                    Some(Frame::Seq(items, a)) => (Value::Seq(items), a),
                    Some(Frame::Map(entries, _, a)) => (Value::Map(entries), a),
                    None => return Err(Error::Syntax("unbalanced collection end".into())),
                };
                if anchor > 0 {
                    anchors.insert(anchor, value.clone());
                }
                value
            }
            Event::Scalar(raw, style, anchor, tag) => {
                let value = resolve_scalar(raw, style, tag.as_ref());
                if anchor > 0 {
                    anchors.insert(anchor, value.clone());
                }
                value
            }
            Event::Alias(id) => {
                let value = anchors.get(&id).cloned().unwrap_or(Value::Null);
                alias_nodes += value.node_count();
                if alias_nodes > MAX_ALIAS_NODES {
                    return Err(Error::Limit(format!("alias expansion beyond {MAX_ALIAS_NODES} nodes")));
                }
                value
            }
        };
        match stack.last_mut() {
            None => {
                if root.is_none() {
                    root = Some(value);
                }
            }
            Some(Frame::Seq(items, _)) => items.push(value),
            Some(Frame::Map(entries, pending, _)) => match pending.take() {
                None => *pending = Some(value.js_string()),
                Some(key) => {
                    if let Some(slot) = entries.iter_mut().find(|(k, _)| *k == key) {
                        duplicate_keys.push(key);
                        slot.1 = value;
                    } else {
                        entries.push((key, value));
                    }
                }
            },
        }
    }
    Ok(Document {
        root: if documents > 1 {
            None
        } else {
            Some(root.unwrap_or(Value::Null))
        },
        duplicate_keys,
    })
}

fn ensure_depth(depth: usize) -> Result<(), Error> {
    if depth > MAX_DEPTH {
        return Err(Error::Limit(format!("nesting deeper than {MAX_DEPTH} levels")));
    }
    Ok(())
}

fn resolve_scalar(raw: String, style: TScalarStyle, tag: Option<&Tag>) -> Value {
    if style != TScalarStyle::Plain {
        return Value::String(raw);
    }
    if let Some(tag) = tag
        && (tag.handle == "tag:yaml.org,2002:" || tag.handle == "!!")
        && tag.suffix == "str"
    {
        return Value::String(raw);
    }
    resolve_plain(&raw).unwrap_or(Value::String(raw))
}

/// The YAML 1.2 core schema's resolution of a plain scalar; `None` means string.
pub fn resolve_plain(s: &str) -> Option<Value> {
    match s {
        "" | "~" | "null" | "Null" | "NULL" => return Some(Value::Null),
        "true" | "True" | "TRUE" => return Some(Value::Bool(true)),
        "false" | "False" | "FALSE" => return Some(Value::Bool(false)),
        ".nan" | ".NaN" | ".NAN" => return Some(Value::Number(f64::NAN)),
        _ => {}
    }
    let (sign, unsigned) = match s.as_bytes()[0] {
        b'-' => (-1.0, &s[1..]),
        b'+' => (1.0, &s[1..]),
        _ => (1.0, s),
    };
    if matches!(unsigned, ".inf" | ".Inf" | ".INF") {
        return Some(Value::Number(sign * f64::INFINITY));
    }
    if let Some(oct) = s.strip_prefix("0o") {
        return radix(oct, 8).map(Value::Number);
    }
    if let Some(hex) = s.strip_prefix("0x") {
        return radix(hex, 16).map(Value::Number);
    }
    if is_core_float(unsigned) {
        return unsigned.parse::<f64>().ok().map(|n| Value::Number(sign * n));
    }
    None
}

fn radix(digits: &str, base: u32) -> Option<f64> {
    if digits.is_empty() {
        return None;
    }
    digits.chars().try_fold(0.0f64, |acc, c| {
        c.to_digit(base).map(|d| acc * f64::from(base) + f64::from(d))
    })
}

/// `(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?` (covers the integer form too).
fn is_core_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - start
    };
    if b.first() == Some(&b'.') {
        i = 1;
        if digits(&mut i) == 0 {
            return false;
        }
    } else {
        if digits(&mut i) == 0 {
            return false;
        }
        if b.get(i) == Some(&b'.') {
            i += 1;
            digits(&mut i);
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root(text: &str) -> Value {
        parse(text).expect("parses").root.expect("single document")
    }

    fn field(text: &str, key: &str) -> Value {
        root(text).get(key).cloned().expect("key present")
    }

    #[test]
    fn core_schema_scalars() {
        assert_eq!(field("a: ~", "a"), Value::Null);
        assert_eq!(field("a: NULL", "a"), Value::Null);
        assert_eq!(field("a:", "a"), Value::Null);
        assert_eq!(field("a: True", "a"), Value::Bool(true));
        assert_eq!(field("a: 017", "a"), Value::Number(17.0));
        assert_eq!(field("a: 0o17", "a"), Value::Number(15.0));
        assert_eq!(field("a: 0x1F", "a"), Value::Number(31.0));
        assert_eq!(field("a: 1e3", "a"), Value::Number(1000.0));
        assert_eq!(field("a: -.inf", "a"), Value::Number(f64::NEG_INFINITY));
        for s in [
            "yes",
            "no",
            "on",
            "off",
            "1_000",
            "12:30",
            "2026-07-21",
            "inf",
            "nan",
            "infinity",
        ] {
            assert_eq!(field(&format!("a: {s}"), "a"), Value::String(s.into()), "{s}");
        }
        assert_eq!(
            field("modified: 2026-07-21T13:53:16.297Z", "modified"),
            Value::String("2026-07-21T13:53:16.297Z".into())
        );
    }

    #[test]
    fn duplicate_keys_keep_the_last_value() {
        let doc = parse("a: 1\na: 2\n").unwrap();
        assert_eq!(doc.root.unwrap().get("a"), Some(&Value::Number(2.0)));
        assert_eq!(doc.duplicate_keys, vec!["a".to_string()]);
    }

    #[test]
    fn tags() {
        assert_eq!(field("a: !tag 42", "a"), Value::Number(42.0));
        assert_eq!(field("a: !tag x", "a"), Value::String("x".into()));
        assert_eq!(field("a: !!str 42", "a"), Value::String("42".into()));
        assert_eq!(field("a: !!int \"3\"", "a"), Value::String("3".into()));
    }

    #[test]
    fn comments_and_document_end() {
        assert_eq!(
            field("description: use C# #tags", "description"),
            Value::String("use C#".into())
        );
        assert_eq!(field("description: x\n...\n", "description"), Value::String("x".into()));
        assert_eq!(parse("description: x\n...\ntype: user\n").unwrap().root, None);
    }

    #[test]
    fn scalar_and_sequence_roots_are_not_mappings() {
        assert_eq!(root("just text"), Value::String("just text".into()));
        assert_eq!(root("- a"), Value::Seq(vec![Value::String("a".into())]));
    }

    #[test]
    fn syntax_errors_fail() {
        for t in [
            "description: note: has colon space",
            "description: [unclosed",
            "description: - dash\ntype: user",
            "description: @x",
            "description: `x`",
        ] {
            assert!(matches!(parse(t), Err(Error::Syntax(_))), "{t}");
        }
    }

    #[test]
    fn limits_are_enforced() {
        let deep = format!("description: {}{}", "[".repeat(300), "]".repeat(300));
        assert!(matches!(parse(&deep), Err(Error::Limit(_))));
        let mut bomb = String::from("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 0..6 {
            let prev = if i == 0 { "a".to_string() } else { format!("b{}", i - 1) };
            bomb.push_str(&format!("b{i}: &b{i} [*{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}]\n"));
        }
        assert!(matches!(parse(&bomb), Err(Error::Limit(_))));
        assert!(matches!(parse(&"a".repeat(MAX_TEXT_BYTES + 1)), Err(Error::Limit(_))));
    }

    #[test]
    fn the_fast_path_agrees_with_the_event_parser() {
        let cases = [
            "name: Testing policy\ndescription: Integration tests hit a real DB\ntype: feedback\n",
            "name: n\nmetadata: \n  node_type: memory\n  type: feedback\n  originSessionId: 14a82ccb-8561-4527-8fab-6175f28bf954\n  modified: 2026-07-21T13:53:16.297Z\n",
            "a: 1\na: 2\n",
            "d: \"quoted: yes\"\ne: 'single'\n",
            "d: yes\ne: ~\nf: 0x1F\ng: .inf\nh: 017\ni: 1e3\nj: true\nk:\n",
            "d: use C#\ne: x,y [z] {w}\nf: a-b_c\n",
            "empty:\nnext: 1\n",
            "k-e_y1: v\n_x: y\n",
            "d: trailing   \n",
            "metadata:\n  type: user\n\nname: after blank\n",
            "d: é 因子 ✓\n",
            "d: \"\"\n",
        ];
        for c in cases {
            let fast = parse_simple(c).unwrap_or_else(|| panic!("fast path declined {c:?}"));
            assert_eq!(Some(fast), parse_events(c).ok(), "{c:?}");
        }
        for c in [
            "d: a: b\n",
            "d: [a]\n",
            "d: |\n  x\n",
            "# c\nd: x\n",
            "d: &a x\n",
            "d: !t x\n",
            "  d: x\n",
            "m:\n  n:\n    o: 1\n",
            "d: x #c\n",
            "d: \"a\\\"b\"\n",
            "d:\tx\n",
            "just text\n",
            "- a\n",
            "d: x\n...\n",
            "m:\n  a: 1\n   b: 2\n",
        ] {
            assert_eq!(parse_simple(c), None, "{c:?}");
        }
    }

    #[test]
    fn serialize_matches_to_json() {
        let v = root("a: 1\nb: 1.5\nc: .nan\nd: [x, ~, true]\ne: {f: g}\n");
        assert_eq!(serde_json::to_value(&v).unwrap(), v.to_json());
    }

    #[test]
    fn js_string_conversion() {
        let v = field("d: [1, [2, 3], null, \"a\"]", "d");
        assert_eq!(v.js_string(), "1,2,3,,a");
        assert_eq!(field("d: {a, b}", "d").js_string(), "[object Object]");
        assert_eq!(field("d: 42", "d").js_string(), "42");
    }
}
