//! One file per subcommand; this is the dispatch.

mod add;
mod dream;
mod edit;
mod forget;
mod lint;
mod list;
mod lock;
mod path;
mod show;
mod truncate_check;

use std::process::ExitCode;

use anyhow::Result;

use crate::cli::Command;
use crate::context::Context;
use crate::output::Output;

pub fn run(command: &Command, ctx: &Context, out: &mut Output) -> Result<ExitCode> {
    match command {
        Command::Path(args) => path::run(args, ctx, out),
        Command::List(args) => list::run(args, ctx, out),
        Command::Show(args) => show::run(args, ctx, out),
        Command::TruncateCheck(args) => truncate_check::run(args, ctx, out),
        Command::Lint(args) => lint::run(args, ctx, out),
        Command::Add(args) => add::run(args, ctx, out),
        Command::Forget(args) => forget::run(args, ctx, out),
        Command::Edit(args) => edit::run(args, ctx, out),
        Command::Lock(args) => lock::run(args, ctx, out),
        Command::Dream(args) => dream::run(args, ctx, out),
    }
}

use serde_json::Value;

use crate::age;
use crate::memory::Memory;

/// The JSON entry of one memory (SPEC §3.4), serialized without building a tree.
#[derive(serde::Serialize)]
pub(crate) struct Entry<'a> {
    file: &'a str,
    path: std::borrow::Cow<'a, str>,
    name: Option<std::borrow::Cow<'a, str>>,
    description: Option<&'a crate::yaml::Value>,
    #[serde(rename = "type")]
    memory_type: Option<crate::memory::MemoryType>,
    type_raw: Option<&'a crate::yaml::Value>,
    type_source: crate::frontmatter::TypeSource,
    claude_type: Option<crate::memory::MemoryType>,
    frontmatter_status: crate::frontmatter::Status,
    origin_session_id: Option<&'a crate::yaml::Value>,
    mtime: crate::text::IsoMs,
    mtime_ms: f64,
    age_days: u64,
    age: std::borrow::Cow<'static, str>,
    size_bytes: u64,
    indexed: bool,
    index_lines: &'a [usize],
    #[serde(skip_serializing_if = "Option::is_none")]
    in_claude_view: Option<bool>,
}

impl<'a> Entry<'a> {
    pub(crate) fn new(m: &'a Memory, index_lines: &'a [usize], now_ms: f64, in_claude_view: Option<bool>) -> Entry<'a> {
        let days = age::age_days(now_ms, m.mtime_ms);
        Entry {
            file: &m.rel,
            path: m.path.to_string_lossy(),
            name: m.fields.name.as_ref().map(|n| match n {
                crate::yaml::Value::String(s) => std::borrow::Cow::Borrowed(s.as_str()),
                other => std::borrow::Cow::Owned(other.js_string()),
            }),
            description: m.fields.description.as_ref(),
            memory_type: m.memory_type(),
            type_raw: m.fields.type_raw.as_ref(),
            type_source: m.fields.type_source,
            claude_type: m.claude_type(),
            frontmatter_status: m.frontmatter.status,
            origin_session_id: m.fields.origin_session_id.as_ref(),
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
        }
    }
}

/// The JSON fields `list` and `show` share for one memory (SPEC §3.4, §3.5).
pub(crate) fn memory_json(m: &Memory, index_lines: &[usize], now_ms: f64) -> serde_json::Map<String, Value> {
    match serde_json::to_value(Entry::new(m, index_lines, now_ms, None)) {
        Ok(Value::Object(map)) => map,
        _ => serde_json::Map::new(),
    }
}

/// The index file that covers `rel` in `dir` (`team/MEMORY.md` for team files).
pub(crate) fn index_name_for(rel: &str) -> &'static str {
    if rel.starts_with("team/") {
        "team/MEMORY.md"
    } else {
        "MEMORY.md"
    }
}

/// Mark a JSON document `"lossy": true` when `dir` is not valid UTF-8, so its
/// paths were printed with U+FFFD (SPEC §3.1).
pub(crate) fn with_lossy(mut doc: Value, dir: &std::path::Path) -> Value {
    if dir.to_str().is_none()
        && let Value::Object(map) = &mut doc
    {
        map.insert("lossy".into(), Value::Bool(true));
    }
    doc
}
