//! YAML with the semantics of Claude Code's native runtime (SPEC §2.4.3), built on
//! yaml-rust2's event parser only: plain scalars are resolved here with the YAML 1.2
//! core-schema rules, duplicate keys keep the last value, local tags are ignored,
//! and depth, alias expansion and text size are bounded.

use crate::text::js_number;

mod anchors;
mod block_scalar;
mod entries;
mod events;
mod prepare;
mod scalar;
mod simple;

pub(crate) use events::parse_events;
pub use scalar::resolve_plain;
pub use simple::parse_simple;

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

/// Parse YAML text with the semantics of SPEC §2.4.3.
pub fn parse(text: &str) -> Result<Document, Error> {
    // A byte order mark at the start of the stream is not content.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    match parse_simple(text) {
        Some(doc) => Ok(doc),
        None => parse_events(text),
    }
}

#[cfg(test)]
mod oracle;

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
        assert_eq!(field("a: !tag 42", "a"), Value::String("42".into()));
        assert_eq!(field("a: !t true", "a"), Value::String("true".into()));
        assert_eq!(field("a: !tag x", "a"), Value::String("x".into()));
        assert_eq!(field("a: !!str 42", "a"), Value::String("42".into()));
        assert_eq!(field("a: !!int \"3\"", "a"), Value::String("3".into()));
        // The core tags keep the value only when it is of their kind.
        assert_eq!(field("a: !!int 0x1F", "a"), Value::Number(31.0));
        assert_eq!(field("a: !!float 3", "a"), Value::Number(3.0));
        assert_eq!(field("a: !int 3", "a"), Value::Number(3.0));
        assert_eq!(field("a: !!bool .inf", "a"), Value::String(".inf".into()));
        assert_eq!(field("a: !!null ~", "a"), Value::Null);
        assert_eq!(field("a: !!null x", "a"), Value::String("x".into()));
        assert_eq!(field("a: !<tag:yaml.org,2002:int> 3", "a"), Value::String("3".into()));
        // Without content: `!!str` and `!` give "", other tags null.
        assert_eq!(field("a: !!str\n", "a"), Value::String(String::new()));
        assert_eq!(field("a: !\n", "a"), Value::String(String::new()));
        assert_eq!(field("a: !tag\n", "a"), Value::Null);
    }

    /// Bun 1.4 resolves numbers with the YAML 1.2 core schema, plus a sign before
    /// `0x`/`0o` (SPEC §2.4.3 (2.1.332); each case checked against Bun 1.4.5).
    #[test]
    fn numbers_as_the_runtime_resolves_them() {
        for (s, n) in [
            ("+.5", 0.5),
            ("-.5e2", -50.0),
            ("-0x1F", -31.0),
            ("+0x1F", 31.0),
            ("-0o7", -7.0),
            ("5.", 5.0),
            (".5", 0.5),
            ("+12", 12.0),
            ("0x1e", 30.0),
            ("0xAbC", 2748.0),
            ("0o17", 15.0),
            ("007", 7.0),
            ("09.5", 9.5),
            ("1.e3", 1000.0),
            ("1.5e-3", 0.0015),
            ("+.inf", f64::INFINITY),
            (".INF", f64::INFINITY),
            ("1e1000", f64::INFINITY),
            ("-1e400", f64::NEG_INFINITY),
            ("0xFFFFFFFFFFFFFFFF", 18_446_744_073_709_551_615.0),
        ] {
            assert_eq!(field(&format!("a: {s}"), "a"), Value::Number(n), "{s}");
        }
        for s in ["-0", "-0.0", "-0x0"] {
            assert!(
                matches!(field(&format!("a: {s}"), "a"), Value::Number(z) if z == 0.0 && z.is_sign_negative()),
                "{s}"
            );
        }
        assert!(matches!(field("a: .NaN", "a"), Value::Number(n) if n.is_nan()));
        for s in [
            "12e",
            "1-",
            "12-3",
            "1e+",
            "--1",
            "-xInf",
            "-.nan",
            "+.nan",
            "0X1F",
            "0b1",
            "0x",
            "+0x",
            "0o",
            "0o8",
            "0xg",
            "0x_1",
            "0x-1",
            "00x1",
            "1e3e",
            "1a",
            "1_0",
            "1..",
            "1.5.3",
            ".",
            ".e3",
            "-.",
            "+",
            "1-2-3",
            "2026-07-21",
            "0xFFFFFFFFFFFFFFFFF",
            "tRUE",
            "nULL",
            "~x",
            "yes",
            "on",
        ] {
            assert_eq!(field(&format!("a: {s}"), "a"), Value::String(s.into()), "{s}");
        }
    }

    #[test]
    fn merge_keys_add_missing_keys_last_first() {
        let v = root("a: 1\n<<: {p: 1, q: 2, a: 3}\nb: 2\n");
        let keys: Vec<&str> = match &v {
            Value::Map(e) => e.iter().map(|(k, _)| k.as_str()).collect(),
            _ => panic!("{v:?}"),
        };
        assert_eq!(keys, ["a", "q", "p", "b"]);
        assert_eq!(v.get("a"), Some(&Value::Number(1.0)));
        assert_eq!(field("x: &x {m: 1}\n<<: *x\n", "m"), Value::Number(1.0));
        assert_eq!(field("<<: {p: 1}\np: 0\n", "p"), Value::Number(0.0));
    }

    #[test]
    fn aliases_name_complete_nodes_only() {
        assert!(matches!(parse("a: *nope\n"), Err(Error::Syntax(_))));
        // An alias inside its own anchored node: Bun builds a cycle; memctl holds
        // the back-reference as an empty collection of the same kind.
        assert_eq!(
            field("a: &x [1, *x]\n", "a"),
            Value::Seq(vec![Value::Number(1.0), Value::Seq(Vec::new())])
        );
        assert_eq!(field("a: &x\n  p: *x\n", "a").get("p"), Some(&Value::Map(Vec::new())));
        // A name being redefined still means its last complete node.
        let doc = root("a: &x 1\nb: &x\n  p: 1\n  q: *x\n");
        assert_eq!(doc.get("b").and_then(|b| b.get("q")), Some(&Value::Number(1.0)));
    }

    /// SPEC Appendix A.8's whitespace vectors, and the cases.
    #[test]
    fn whitespace_vectors() {
        let s = |v: &str| Value::String(v.into());
        assert_eq!(
            field("description:\tvalue after tab\n", "description"),
            s("value after tab")
        );
        assert_eq!(field("description:\tvalue\n", "description"), s("value"));
        let doc = root("type:\tuser\ndescription:\t\"quoted\"\n");
        assert_eq!(doc.get("type"), Some(&s("user")));
        assert_eq!(doc.get("description"), Some(&s("quoted")));
        assert_eq!(field("description: a\t# comment\n", "description"), s("a"));
        let doc = root("description: a\n\t\ntype: user\n");
        assert_eq!(doc.get("description"), Some(&s("a")));
        assert_eq!(doc.get("type"), Some(&s("user")));
        assert_eq!(field("tags:\n-\tx\n-\ty\n", "tags"), Value::Seq(vec![s("x"), s("y")]));
        assert_eq!(field("tags: [a,\tb]\n", "tags"), Value::Seq(vec![s("a"), s("b")]));
        assert_eq!(field("description: \t42\n", "description"), Value::Number(42.0));
        // (2.1.332) A tab can no longer indent a key (Claude Code's retry reads it).
        assert!(matches!(parse("\tdescription: x\n"), Err(Error::Syntax(_))));
        assert_eq!(
            field("metadata:\n  type:\tuser\n", "metadata").get("type"),
            Some(&s("user"))
        );
        assert!(matches!(parse("description: >-\n\tfolded\n"), Err(Error::Syntax(_))));
        assert!(matches!(
            parse("description: |\n  lit\n\t\n  more\n"),
            Err(Error::Syntax(_))
        ));
    }

    #[test]
    fn tabs_elsewhere_in_a_line() {
        let s = |v: &str| Value::String(v.into());
        // After `?` and `:` of an explicit key, around flow indicators, at the end.
        assert_eq!(field("?\ta\n:\tb\n", "a"), s("b"));
        assert_eq!(field("a: {\tb:\tc\t}\n", "a").get("b"), Some(&s("c")));
        assert_eq!(field("a: [\ta\t,\tb\t]\n", "a"), Value::Seq(vec![s("a"), s("b")]));
        assert_eq!(field("a: 1\t\n", "a"), Value::Number(1.0));
        assert_eq!(field("a:\t\n  b: 1\n", "a").get("b"), Some(&Value::Number(1.0)));
        // A tab inside a plain or quoted scalar is text.
        assert_eq!(field("a: x\ty\n", "a"), s("x\ty"));
        assert_eq!(field("a: \"x\ty\"\n", "a"), s("x\ty"));
        // A tab in the indentation before a key or an entry fails (Bun 1.4);
        // before a scalar it separates.
        for t in [
            "a:\n \t b: 1\n",
            "\t- a\n",
            "- a\n-\tb: 1\n",
            "-\t- a\n",
            "a: x\n\tb: 2\n",
            "a:\n  - x\n  \t- y\n",
        ] {
            assert!(matches!(parse(t), Err(Error::Syntax(_))), "{t:?}");
        }
        assert_eq!(field("a:\n \tb\n", "a"), s("b"));
        assert_eq!(root("- \tx\n"), Value::Seq(vec![s("x")]));
        assert_eq!(field("a: x\n \tb\n", "a"), s("x b"));
    }

    #[test]
    fn tab_led_lines_the_runtime_rejects() {
        // After a comment, a quoted scalar, a flow collection or an empty value, a
        // line led by a tab fails once the mapping is past its first entry (Bun
        // 1.3.14 and 1.4.5 alike).
        for t in [
            "a: 1\nb: 2\n# c\n\t\nc: 3\n",
            "a: 1\nb: 2 # c\n\t\nc: 3\n",
            "a: 1\nb: 'x'\n\t\nc: 2\n",
            "a: 1\nb: [x]\n\t\nc: 2\n",
            "a: 1\nb:\n\t\n  c: 2\n",
        ] {
            assert!(matches!(parse(t), Err(Error::Syntax(_))), "{t:?}");
        }
        // Within the first entry, after a plain scalar, or led by a space: fine.
        for t in [
            "a: 'x'\n\t\nb: 1\n",
            "b:\n\t\n  c: 2\n",
            "# c\n\t\na: 1\n",
            "a: 1\n# c\n\t\nb: 2\n",
            "a: 1\nb: 2\n\t# c\nc: 3\n",
            "a: 1\nb: 2\n \t\nc: 3\n",
            "a: 1\ntags:\n-\tx\n",
        ] {
            assert!(parse(t).is_ok(), "{t:?}");
        }
    }

    #[test]
    fn block_scalars_as_the_runtime_reads_them() {
        let s = |v: &str| Value::String(v.into());
        assert_eq!(
            field("a: >\n  a\n  b\n\n  c\n   d\n  e\n  f\n", "a"),
            s("a b\nc\n d\ne f\n")
        );
        assert_eq!(field("a: >\n  x\n  \ty\n  z\n", "a"), s("x\n\ty\nz\n"));
        assert_eq!(field("a: |+\n  x\n", "a"), s("x\n"));
        assert_eq!(field("a: |+\n\n\nb: 1\n", "a"), s("\n\n"));
        assert_eq!(field("a: |\n  x\n   \n", "a"), s("x\n \n"));
        assert_eq!(field("a: |2\n   x\n", "a"), s(" x\n"));
        assert_eq!(field("a:\n  b: |1\n    x\n", "a").get("b"), Some(&s(" x\n")));
        assert_eq!(field("a: | -\n x\n", "a"), s("x"));
        assert_eq!(field("a: |\n  lit\n  \t\n  more\n", "a"), s("lit\n\t\nmore\n"));
        assert_eq!(field("a: |\n  \t\n  x\n", "a"), s("\t\nx\n"));
        assert_eq!(root("- |\n- x\n"), Value::Seq(vec![s(""), s("x")]));
        assert_eq!(field("a: |\nb: 1\n", "a"), s(""));
        assert_eq!(field("a: |-\n# comment\n", "a"), s(""));
        for t in [
            "a: |\n   \n  y\n",
            "a: |\n\n   x\n  y\n",
            "a: |\n\t\n  x\n",
            "a: |\n  x\n\n\t\n",
            "a: |\n  x\n # c\n  y\n",
            "a: |0\n x\n",
            "a: |--\n x\n",
            "a: | x\n",
        ] {
            assert!(matches!(parse(t), Err(Error::Syntax(_))), "{t:?}");
        }
        // A tab-led line after content ends the scalar.
        assert_eq!(field("a: 1\nc: |\n  x\n\t\nb: 1\n", "c"), s("x\n"));
    }

    /// (2.1.332) `---` and `...` are document markers only at the start of a line.
    #[test]
    fn document_markers_only_at_the_start_of_a_line() {
        let s = |v: &str| Value::String(v.into());
        assert_eq!(
            field("description: Loading... please wait\n", "description"),
            s("Loading... please wait")
        );
        let doc = root("description: wait...\ntype: user\n");
        assert_eq!(doc.get("description"), Some(&s("wait...")));
        assert_eq!(doc.get("type"), Some(&s("user")));
        assert_eq!(field("a: x --- y\n", "a"), s("x --- y"));
        assert_eq!(field("description: a --- b\n", "description"), s("a --- b"));
        assert_eq!(field("a: ...\n", "a"), s("..."));
        assert_eq!(field("a: ---\n", "a"), s("---"));
        assert_eq!(field("  a: ...\n", "a"), s("..."));
        assert_eq!(field("a: x\n  ...\n", "a"), s("x ..."));
        assert_eq!(field("a: x...y\n", "a"), s("x...y"));
        assert_eq!(parse("...\na: 1\n").unwrap().root, None);
        assert_eq!(parse("a: x\n--- b\n").unwrap().root, None);
    }

    /// (2.1.332) A tag or an anchor with no value on its line no longer takes the
    /// next line's key; an empty sequence entry holds null.
    #[test]
    fn properties_alone_leave_the_value_empty() {
        let s = |v: &str| Value::String(v.into());
        let doc = root("a: !!int\nb: 1\n");
        assert_eq!(doc.get("a"), Some(&Value::Null));
        assert_eq!(doc.get("b"), Some(&Value::Number(1.0)));
        assert_eq!(field("a: !!str\nb: 1\n", "a"), s(""));
        assert_eq!(field("a: &x\nb: 1\n", "a"), Value::Null);
        assert_eq!(field("a: !t\n- x\n", "a"), Value::Seq(vec![s("x")]));
        assert_eq!(field("a: !t\n  b: 1\n", "a").get("b"), Some(&Value::Number(1.0)));
        let doc = root("a:\n  -\nb: 1\nc: 2\n");
        assert_eq!(doc.get("a"), Some(&Value::Seq(vec![Value::Null])));
        assert_eq!(doc.get("c"), Some(&Value::Number(2.0)));
        assert!(matches!(parse("a: ? x\n"), Err(Error::Syntax(_))));
        assert!(matches!(parse("a: {q: a: b}\n"), Err(Error::Syntax(_))));
        assert_eq!(field("a: {? k: v}\n", "a").get("k"), Some(&s("v")));
        assert_eq!(
            field("a: [?]\n", "a"),
            Value::Seq(vec![Value::Map(vec![("null".into(), Value::Null)])])
        );
    }

    /// (2.1.332) Double-quoted surrogate pairs decode; a lone half fails.
    #[test]
    fn surrogate_pair_escapes() {
        assert_eq!(
            field("description: \"\\uD83D\\uDE00 quoted\"\n", "description"),
            Value::String("\u{1F600} quoted".into())
        );
        assert_eq!(field("a: \"\\ud83d\\ude00\"\n", "a"), Value::String("\u{1F600}".into()));
        for t in [
            "a: \"\\uD83D\"\n",
            "a: \"\\uDE00\"\n",
            "a: \"\\uD83D\\u0041\"\n",
            "a: \"\\\\uD83D\\uDE00\"\n",
        ] {
            assert!(parse(t).is_err(), "{t:?}");
        }
    }

    /// SPEC Appendix A.8, "YAML text under the Bun 1.4 parser" (2.1.332 oracle).
    #[test]
    fn appendix_a8_bun_1_4_vectors() {
        let s = |v: &str| Value::String(v.into());
        let n = Value::Number;
        let doc = root("description: wait...\ntype: user\n");
        assert_eq!(
            (doc.get("description"), doc.get("type")),
            (Some(&s("wait...")), Some(&s("user")))
        );
        let doc = root("description: Loading... please wait\ntype: user\n");
        assert_eq!(doc.get("description"), Some(&s("Loading... please wait")));
        assert_eq!(doc.get("type"), Some(&s("user")));
        assert_eq!(field("description: +.5\n", "description"), n(0.5));
        assert_eq!(field("description: -.5e2\n", "description"), n(-50.0));
        assert_eq!(field("description: 12e\n", "description"), s("12e"));
        assert_eq!(field("description: ...\n", "description"), s("..."));
        let doc = root("a: 12e\nb: -0x1F\nc: +.5\nd: -.5e2\n");
        assert_eq!(
            doc,
            Value::Map(vec![
                ("a".into(), s("12e")),
                ("b".into(), n(-31.0)),
                ("c".into(), n(0.5)),
                ("d".into(), n(-50.0)),
            ])
        );
        assert_eq!(
            field("description: \"\\uD83D\\uDE00 quoted\"\n", "description"),
            s("\u{1F600} quoted")
        );
        assert_eq!(field("description: a -- b\n", "description"), s("a -- b"));
        assert_eq!(field("description: !tag 42\n", "description"), s("42"));
        // Fails the first parse; the quote-retry reads it (src/frontmatter.rs tests).
        assert!(matches!(
            parse("description: note: has colon space\n"),
            Err(Error::Syntax(_))
        ));
        assert_eq!(
            field("description:\tvalue after tab\n", "description"),
            s("value after tab")
        );
        assert_eq!(
            field("description: first\ndescription: second\n", "description"),
            s("second")
        );
        assert!(matches!(parse("\tdescription: x\n"), Err(Error::Syntax(_))));
        assert_eq!(field("description: a --- b\n", "description"), s("a --- b"));
        // The merge key still merges.
        assert_eq!(field("x: &x {m: 1}\n<<: *x\n", "m"), n(1.0));
    }

    /// The CPU time this thread has used. The linear-time tests compare the CPU
    /// time of two parses, not wall-clock time: another process on a loaded
    /// machine takes the core away from this thread (wall time grows, which failed
    /// a fresh clone's run twice), but not this thread's own CPU time, which counts
    /// only the instructions of the parse (issue 34 point 1).
    fn cpu_time() -> std::time::Duration {
        let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
        std::time::Duration::new(t.tv_sec.max(0) as u64, t.tv_nsec.clamp(0, 999_999_999) as u32)
    }

    /// The least CPU time of three runs of `f` (cache and frequency noise only
    /// ever add time).
    fn fastest(f: impl Fn()) -> std::time::Duration {
        (0..3)
            .map(|_| {
                let start = cpu_time();
                f();
                cpu_time().saturating_sub(start)
            })
            .min()
            .unwrap_or_default()
    }

    #[test]
    fn a_long_mapping_takes_linear_time() {
        let docs = |n: usize| {
            let mut block = String::new();
            let mut flow = String::from("a: {");
            for i in 0..n {
                block.push_str(&format!("k{i}: 1\n"));
                flow.push_str(&format!("k{i}: 1, "));
            }
            flow.push_str("k0: 2}\n");
            (block, flow)
        };
        let (block, flow) = docs(60_000);
        let doc = parse(&block).unwrap();
        assert!(matches!(doc.root, Some(Value::Map(m)) if m.len() == 60_000));
        let doc = parse(&flow).unwrap();
        assert_eq!(doc.duplicate_keys, ["k0"]);
        // Four times the keys: about four times the time when linear, sixteen when
        // quadratic (duplicate detection by scanning the keys seen so far).
        let (small_block, small_flow) = docs(15_000);
        let small = fastest(|| {
            let _ = parse(&small_block);
            let _ = parse(&small_flow);
        });
        let large = fastest(|| {
            let _ = parse(&block);
            let _ = parse(&flow);
        });
        let ratio = large.as_secs_f64() / small.as_secs_f64().max(1e-6);
        assert!(
            ratio < 9.0,
            "4x the keys took {ratio:.1}x the time ({small:?} → {large:?})"
        );
    }

    #[test]
    fn stays_linear_on_one_repeated_piece() {
        let pieces = [
            " ",
            "\t",
            "-",
            ".",
            ":",
            "?",
            "#",
            "[",
            "{",
            "\"",
            "'",
            "|",
            "&",
            "!",
            "*",
            "a",
            "0",
            ",",
            "]",
            "- ",
            "? ",
            "a:",
            "[a,",
            "{a:",
            "&a ",
            "!t ",
            "\t-",
            "-\t",
            "a: ",
            "... ",
            "\n-",
            "\n\t",
            "\n  -\n",
            "\na: &x\n",
        ];
        // Four times the text takes about four times the CPU time when the parse is
        // linear, sixteen times when quadratic (CPU time of this thread: see
        // `cpu_time`). One parse's time still varies with caches, so the test times every piece in every shape at
        // both sizes and compares the totals: the noise averages out, and a
        // quadratic piece, whose parse of the larger text takes seconds, dominates
        // its total. Both sizes are well past the CPU caches (below them the ratio
        // says more about the caches than the parse). No deadline.
        let large_size = MAX_TEXT_BYTES / 2;
        let texts = |piece: &str, size: usize| {
            let line = piece.repeat(size / piece.len());
            [line.clone(), format!("a: {line}\n"), format!("a:\n  -\n{line}\n")]
        };
        let mut per_piece = Vec::new();
        let (mut t_small, mut t_large) = (std::time::Duration::ZERO, std::time::Duration::ZERO);
        for piece in pieces {
            let time = |texts: [String; 3]| {
                let start = cpu_time();
                for t in &texts {
                    let _ = parse(t);
                }
                cpu_time().saturating_sub(start)
            };
            let (small, large) = (time(texts(piece, large_size / 4)), time(texts(piece, large_size)));
            per_piece.push((piece, small, large));
            t_small += small;
            t_large += large;
        }
        let ratio = t_large.as_secs_f64() / t_small.as_secs_f64().max(1e-6);
        assert!(
            ratio < 9.0,
            "4x the text took {ratio:.1}x the time ({t_small:?} → {t_large:?}): {per_piece:?}"
        );
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
        // JavaScript's shortest round-trip form (ryu-js, SPEC §2.1.6).
        for (t, out) in [
            ("-0", "0"),
            ("1.50", "1.5"),
            ("+.5", "0.5"),
            ("1e21", "1e+21"),
            ("1e-7", "1e-7"),
            ("-.5e2", "-50"),
            (".inf", "Infinity"),
            ("0x10", "16"),
        ] {
            assert_eq!(field(&format!("d: {t}"), "d").js_string(), out, "{t}");
        }
    }
}
