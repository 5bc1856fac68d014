//! The hook's stdin (SPEC §7.1): one JSON object, at most 64 MiB, of which only the
//! small fields memctl needs are kept. Every field is lenient: a value of an
//! unexpected type counts as absent, so a new or odd payload is never an error;
//! only input that is not a JSON object is.

use std::fmt;
use std::io::Read;

use serde::Deserialize;
use serde::de::{self, IgnoredAny, MapAccess, SeqAccess, Visitor};

use crate::error::{Error, Kind};

/// The most stdin memctl reads (a Write of a large index carries it four times).
pub const MAX_STDIN: u64 = 64 << 20;

/// What memctl keeps of a hook payload.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Payload {
    pub hook_event_name: Text,
    pub tool_name: Text,
    pub tool_input: Object<ToolInput>,
    pub tool_response: Object<ToolResponse>,
    pub session_id: Text,
    pub cwd: Text,
    pub agent_id: Text,
    pub agent_type: Text,
    pub source: Text,
    /// Stop/SubagentStop: the model is already continuing because of a stop hook.
    pub stop_hook_active: Flag,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct ToolInput {
    pub file_path: Text,
    /// The gate (PreToolUse) only: what a Write or an Edit proposes (SPEC §7.3).
    pub content: Text,
    pub old_string: Text,
    pub new_string: Text,
    pub replace_all: Flag,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct ToolResponse {
    #[serde(rename = "originalFile")]
    pub original_file: Original,
}

/// The file before the write, as the payload gives it.
#[derive(Debug, Default, PartialEq, Eq)]
pub enum Original {
    /// No `originalFile` key (or a value of another type): unknown.
    #[default]
    Unknown,
    /// `null`: the write created the file.
    New,
    /// The former content.
    Text(String),
}

/// A string field; anything else reads as `None`.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Text(pub Option<String>);

impl Text {
    pub fn get(&self) -> Option<&str> {
        self.0.as_deref()
    }
}

/// A boolean field; anything else reads as false.
#[derive(Debug, Default, PartialEq, Eq, Clone, Copy)]
pub struct Flag(pub bool);

/// An object field; anything else reads as `None`.
#[derive(Debug)]
pub struct Object<T>(pub Option<T>);

impl<T> Default for Object<T> {
    fn default() -> Self {
        Object(None)
    }
}

impl Payload {
    pub fn event(&self) -> &str {
        self.hook_event_name.get().unwrap_or("")
    }

    pub fn tool(&self) -> &str {
        self.tool_name.get().unwrap_or("")
    }

    pub fn file_path(&self) -> Option<&str> {
        self.tool_input.0.as_ref()?.file_path.get()
    }

    pub fn tool_input(&self) -> Option<&ToolInput> {
        self.tool_input.0.as_ref()
    }

    pub fn original(&self) -> &Original {
        static UNKNOWN: Original = Original::Unknown;
        self.tool_response.0.as_ref().map_or(&UNKNOWN, |r| &r.original_file)
    }
}

/// Read stdin (bounded) and parse it.
pub fn read(stdin: &mut impl Read) -> Result<Payload, Error> {
    let mut buf = Vec::new();
    stdin
        .take(MAX_STDIN + 1)
        .read_to_end(&mut buf)
        .map_err(|e| Error::new(Kind::Io, format!("cannot read the hook payload on stdin: {e}")))?;
    if buf.len() as u64 > MAX_STDIN {
        return Err(
            Error::new(Kind::InvalidInput, "the hook payload on stdin is over 64 MiB")
                .hint("memctl hook reads one Claude Code hook JSON object on stdin"),
        );
    }
    parse(&buf)
}

/// Parse one payload: a JSON object, nothing after it.
pub fn parse(bytes: &[u8]) -> Result<Payload, Error> {
    let not_object = |why: String| {
        Error::new(
            Kind::InvalidInput,
            format!("the hook payload on stdin is not a JSON object: {why}"),
        )
        .hint("memctl hook reads one Claude Code hook JSON object on stdin")
    };
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    if first != Some(&b'{') {
        let why = if first.is_none() {
            "stdin is empty".to_string()
        } else {
            "it does not start with `{`".to_string()
        };
        return Err(not_object(why));
    }
    serde_json::from_slice::<Payload>(bytes).map_err(|e| not_object(e.to_string()))
}

/// Drains whatever value it is given.
struct Skip;

fn drain_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<(), A::Error> {
    while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
    Ok(())
}

fn drain_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element::<IgnoredAny>()?.is_some() {}
    Ok(())
}

/// Visitor methods that turn every other kind of value into `$none`.
macro_rules! others_are {
    ($none:expr) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok($none)
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok($none)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok($none)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok($none)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok($none)
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok($none)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
            drain_seq(seq)?;
            Ok($none)
        }
    };
}

impl<'de> Visitor<'de> for Skip {
    type Value = Text;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Text, E> {
        Ok(Text(Some(v.to_string())))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Text, E> {
        Ok(Text(Some(v)))
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Text, A::Error> {
        drain_map(map)?;
        Ok(Text(None))
    }
    others_are!(Text(None));
}

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(Skip)
    }
}

struct FlagVisitor;

impl<'de> Visitor<'de> for FlagVisitor {
    type Value = Flag;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a boolean")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Flag, E> {
        Ok(Flag(v))
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Flag, E> {
        Ok(Flag(false))
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Flag, A::Error> {
        drain_map(map)?;
        Ok(Flag(false))
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Flag, E> {
        Ok(Flag(false))
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Flag, E> {
        Ok(Flag(false))
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Flag, E> {
        Ok(Flag(false))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Flag, E> {
        Ok(Flag(false))
    }
    fn visit_none<E: de::Error>(self) -> Result<Flag, E> {
        Ok(Flag(false))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Flag, A::Error> {
        drain_seq(seq)?;
        Ok(Flag(false))
    }
}

impl<'de> Deserialize<'de> for Flag {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(FlagVisitor)
    }
}

struct OriginalVisitor;

impl<'de> Visitor<'de> for OriginalVisitor {
    type Value = Original;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string or null")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Original, E> {
        Ok(Original::Text(v.to_string()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Original, E> {
        Ok(Original::Text(v))
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Original, A::Error> {
        drain_map(map)?;
        Ok(Original::Unknown)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Original, E> {
        Ok(Original::New)
    }
    fn visit_none<E: de::Error>(self) -> Result<Original, E> {
        Ok(Original::New)
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Original, E> {
        Ok(Original::Unknown)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Original, E> {
        Ok(Original::Unknown)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Original, E> {
        Ok(Original::Unknown)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Original, E> {
        Ok(Original::Unknown)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Original, A::Error> {
        drain_seq(seq)?;
        Ok(Original::Unknown)
    }
}

impl<'de> Deserialize<'de> for Original {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(OriginalVisitor)
    }
}

struct ObjectVisitor<T>(std::marker::PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for ObjectVisitor<T> {
    type Value = Object<T>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object")
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Object<T>, A::Error> {
        T::deserialize(de::value::MapAccessDeserializer::new(map)).map(|t| Object(Some(t)))
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Object<T>, E> {
        Ok(Object(None))
    }
    others_are!(Object(None));
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Object<T> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ObjectVisitor(std::marker::PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_small_fields_and_ignores_the_rest() {
        let p = parse(
            br#"{"hook_event_name":"PostToolUse","tool_name":"Write","new_key":[1,{"a":2}],
               "tool_input":{"file_path":"/m/a.md","content":"x"},
               "tool_response":{"originalFile":null,"structuredPatch":[]},"cwd":"/p"}"#,
        )
        .unwrap();
        assert_eq!(p.event(), "PostToolUse");
        assert_eq!(p.tool(), "Write");
        assert_eq!(p.file_path(), Some("/m/a.md"));
        assert_eq!(*p.original(), Original::New);
        assert_eq!(p.cwd.get(), Some("/p"));
        let p = parse(br#"{"tool_response":{"originalFile":"old"}}"#).unwrap();
        assert_eq!(*p.original(), Original::Text("old".into()));
        let p = parse(br#"{"tool_response":{}}"#).unwrap();
        assert_eq!(*p.original(), Original::Unknown);
        let p = parse(
            br#"{"stop_hook_active":true,"tool_input":{"file_path":"/m/a.md","old_string":"a","new_string":"b","replace_all":true}}"#,
        )
        .unwrap();
        assert!(p.stop_hook_active.0);
        let ti = p.tool_input().unwrap();
        assert_eq!(
            (ti.old_string.get(), ti.new_string.get(), ti.replace_all.0),
            (Some("a"), Some("b"), true)
        );
        let p = parse(br#"{"stop_hook_active":"yes","tool_input":{"replace_all":[1]}}"#).unwrap();
        assert!(!p.stop_hook_active.0 && !p.tool_input().unwrap().replace_all.0);
    }

    #[test]
    fn odd_types_read_as_absent() {
        let p =
            parse(br#"{"hook_event_name":7,"tool_name":{"x":1},"tool_input":"str","tool_response":[1],"cwd":null}"#)
                .unwrap();
        assert_eq!(p.event(), "");
        assert_eq!(p.tool(), "");
        assert_eq!(p.file_path(), None);
        assert_eq!(*p.original(), Original::Unknown);
        let p = parse(br#"{"tool_input":{"file_path":["a"]},"tool_response":{"originalFile":3}}"#).unwrap();
        assert_eq!(p.file_path(), None);
        assert_eq!(*p.original(), Original::Unknown);
    }

    #[test]
    fn refuses_what_is_not_one_object() {
        for bad in [
            &b""[..],
            b"  ",
            b"[]",
            b"\"x\"",
            b"null",
            b"{",
            b"{} {}",
            b"{\"a\":}",
            b"\xff",
        ] {
            assert_eq!(parse(bad).unwrap_err().kind, Kind::InvalidInput, "{bad:?}");
        }
        // Deep nesting neither overflows the stack nor matters (skipped values).
        let deep = format!("{{\"a\":{}{}}}", "[".repeat(100_000), "]".repeat(100_000));
        assert_eq!(parse(deep.as_bytes()).unwrap().event(), "");
        let deep = format!("{{\"tool_input\":{}{}}}", "[".repeat(100_000), "]".repeat(100_000));
        assert_eq!(parse(deep.as_bytes()).unwrap().file_path(), None);
    }

    #[test]
    fn oversized_stdin_is_refused_without_reading_it_all() {
        let mut big = std::io::repeat(b' ');
        let e = read(&mut big).unwrap_err();
        assert!(e.message.contains("over 64 MiB"), "{}", e.message);
    }
}
