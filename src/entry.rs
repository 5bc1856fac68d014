//! The JSON entry of one memory that `list` and `show` share (SPEC §3.4, §3.5),
//! serialized without building a tree.

use std::borrow::Cow;

use crate::age;
use crate::memory::{Memory, MemoryType};

/// The JSON entry of one memory (SPEC §3.4), serialized without building a tree.
#[derive(serde::Serialize)]
pub struct Entry<'a> {
    pub file: &'a str,
    pub path: Cow<'a, str>,
    pub name: Option<Cow<'a, str>>,
    pub description: Option<&'a crate::yaml::Value>,
    #[serde(rename = "type")]
    pub memory_type: Option<MemoryType>,
    pub type_raw: Option<&'a crate::yaml::Value>,
    pub type_source: crate::frontmatter::TypeSource,
    pub claude_type: Option<MemoryType>,
    pub frontmatter_status: crate::frontmatter::Status,
    pub origin_session_id: Option<&'a crate::yaml::Value>,
    /// The frontmatter's `modified` when it is a string (SPEC §2.4.1), else null.
    pub modified_field: Option<&'a str>,
    pub mtime: crate::text::IsoMs,
    pub mtime_ms: f64,
    pub age_days: u64,
    pub age: Cow<'static, str>,
    pub size_bytes: u64,
    pub indexed: bool,
    pub index_lines: &'a [usize],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub in_claude_view: Option<bool>,
    /// An index line linking the file is among what Claude Code loads (SPEC §3.13).
    /// `list` sets it here, last; `show` writes its own after its document's fields.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loaded: Option<bool>,
    /// (2.1.332) Why Claude Code's scan skips the file (SPEC §3.4), else null.
    pub excluded_by: Option<crate::scan::Exclusion>,
    /// (2.1.332) The parsed `description` whatever its type (SPEC §3.4).
    pub description_raw: Option<&'a crate::yaml::Value>,
}

impl<'a> Entry<'a> {
    pub fn new(m: &'a Memory, index_lines: &'a [usize], now_ms: f64, in_claude_view: Option<bool>) -> Entry<'a> {
        let days = age::age_days(now_ms, m.mtime_ms);
        Entry {
            file: &m.rel,
            path: m.path.to_string_lossy(),
            // (2.1.332) What Claude Code reads: a non-empty string.
            name: m.fields.name_str().map(Cow::Borrowed),
            description: m.fields.description.as_ref(),
            memory_type: m.memory_type(),
            type_raw: m.fields.type_raw.as_ref(),
            type_source: m.fields.type_source,
            claude_type: m.claude_type(),
            frontmatter_status: m.frontmatter.status,
            origin_session_id: m.fields.origin_session_id.as_ref(),
            modified_field: m.fields.modified_str(),
            mtime: crate::text::IsoMs(m.mtime_ms),
            mtime_ms: m.mtime_ms,
            age_days: days,
            age: match days {
                0 => "today".into(),
                1 => "yesterday".into(),
                _ => age::age_text(days).into(),
            },
            size_bytes: m.size,
            indexed: !index_lines.is_empty(),
            index_lines,
            in_claude_view,
            loaded: None,
            excluded_by: None,
            description_raw: m.fields.description_raw.as_ref(),
        }
    }
}
