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
pub mod truncate_check;

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

use serde_json::{Value, json};

use crate::age;
use crate::memory::Memory;
use crate::text::iso_ms;

/// The JSON fields `list` and `show` share for one memory (SPEC §3.4, §3.5).
pub(crate) fn memory_json(m: &Memory, index_lines: &[usize], now_ms: f64) -> serde_json::Map<String, Value> {
    let days = age::age_days(now_ms, m.mtime_ms);
    let v = json!({
        "file": m.rel,
        "path": m.path.to_string_lossy(),
        "name": m.name(),
        "description": m.fields.description.as_ref().map(crate::yaml::Value::to_json),
        "type": m.memory_type(),
        "type_raw": m.fields.type_raw.as_ref().map(crate::yaml::Value::to_json),
        "type_source": m.fields.type_source,
        "claude_type": m.claude_type(),
        "frontmatter_status": m.frontmatter.status,
        "origin_session_id": m.fields.origin_session_id.as_ref().map(crate::yaml::Value::to_json),
        "mtime": iso_ms(m.mtime_ms),
        "mtime_ms": m.mtime_ms,
        "age_days": days,
        "age": age::age_text(days),
        "size_bytes": m.size,
        "indexed": !index_lines.is_empty(),
        "index_lines": index_lines,
    });
    match v {
        Value::Object(map) => map,
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
