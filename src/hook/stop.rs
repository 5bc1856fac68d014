//! `Stop` and `SubagentStop` (SPEC §7.3): the end of the model's turn. A history
//! snapshot catches what the turn did through the shell (an `rm` no Write/Edit
//! hook sees); then the memory files of the turn list ([`super::turn`]) are
//! checked once — not indexed, past the load cut, unreadable, an invalid type —
//! and the stop is blocked with one message listing each with its fix.

use std::path::PathBuf;

use super::payload::Payload;
use super::react::{fix_for, unindexed};
use super::render::{AIM, HookOutput, Item, render};
use super::{Call, Snapshot, Written, locate, record_snapshot, resolve, turn};
use crate::error::Error;
use crate::index::load;
use crate::lint::{self, RuleId};

pub fn stop(p: &Payload, call: &Call) -> Result<Option<HookOutput>, Error> {
    let res = resolve(p, call.env)?;
    let by = if p.event() == "Stop" {
        "hook:Stop"
    } else {
        "hook:SubagentStop"
    };
    record_snapshot(&Snapshot::of(p, &res, by, call));
    // The model is already continuing because of a stop hook: say nothing, so a
    // turn is stopped once at most.
    if p.stop_hook_active.0 {
        return Ok(None);
    }
    let Some(dir) = turn::dir(call.env) else {
        return Ok(None);
    };
    let session = p.session_id.get().unwrap_or("");
    let agent = p.agent_id.get().unwrap_or("");
    let files = turn::take(&dir, session, agent, call.now);
    if files.is_empty() {
        return Ok(None);
    }
    let base = p.cwd.get().map(PathBuf::from).unwrap_or_else(|| call.env.cwd.clone());
    let mounts: Vec<String> = crate::paths::stores::Stores::from_env(call.env)
        .team()
        .map(|s| s.mount.clone())
        .collect();
    // Recall mode (the index is not injected, SPEC §2.13): no index line to ask for.
    let recall = crate::index::check::recall_mode_lever(call.env, res.global_config.as_deref()).is_some();
    let written: Vec<Written> = files
        .iter()
        .filter_map(|f| locate(f, &base, res.memdir.main(), &mounts))
        .collect();
    // An index written in this turn had its newly cut entries reported at that
    // write (PostToolUse): the Stop does not say it twice.
    let cut_reported: Vec<PathBuf> = written
        .iter()
        .filter(|w| w.is_index())
        .map(|w| w.memdir.index_path())
        .collect();
    let mut items = Vec::new();
    let mut files_with_problems = 0;
    // Each index with the lines suggested so far placed in it.
    let mut pending: std::collections::HashMap<PathBuf, String> = std::collections::HashMap::new();
    for w in written.iter().filter(|w| !w.is_index()) {
        let cut_known = cut_reported.contains(&w.memdir.index_path());
        let found = check(w, recall, cut_known, &mut pending);
        files_with_problems += usize::from(!found.is_empty());
        items.extend(found);
    }
    if items.is_empty() {
        return Ok(None);
    }
    let n = files_with_problems;
    let reason = format!(
        "memctl: {} written in this turn {} not visible to Claude Code in later sessions; fix {} before you finish:\n{}",
        if n == 1 {
            "a memory".to_string()
        } else {
            format!("{n} memories")
        },
        if n == 1 { "is" } else { "are" },
        if n == 1 { "it" } else { "them" },
        render(&items, AIM - 200)
    );
    Ok(Some(HookOutput {
        decision: Some("block"),
        reason: Some(reason),
        ..HookOutput::default()
    }))
}

/// What keeps one written memory from being loaded, each with its fix.
fn check(
    w: &Written,
    recall: bool,
    cut_known: bool,
    pending: &mut std::collections::HashMap<PathBuf, String>,
) -> Vec<Item> {
    let mut out = Vec::new();
    if !w.path.is_file() {
        // Deleted later in the turn (or never a regular file): nothing to load.
        return out;
    }
    let label = w.label();
    for f in lint::file_findings(&w.path) {
        if !matches!(f.id, RuleId::ML101 | RuleId::ML102 | RuleId::ML104 | RuleId::ML108) {
            continue;
        }
        let at = format!("{label}:{}", f.line);
        out.push(Item::new(if f.message.contains(": write `") {
            format!("{at}: {}", f.message)
        } else {
            format!("{at}: {} — fix: {}", f.message, fix_for(f.id))
        }));
    }
    // The index is not injected in recall mode, nor read from disk for a team
    // store (SPEC §2.13): no index line to ask for there.
    if recall || w.memdir.mount().is_some() {
        return out;
    }
    if let Some(item) = index_problem(w, cut_known, pending) {
        out.push(item);
    }
    out
}

/// Not indexed (the canonical line to add), or indexed only past the load cut
/// (unless `cut_known`: reported when this turn wrote the index).
fn index_problem(
    w: &Written,
    cut_known: bool,
    pending: &mut std::collections::HashMap<PathBuf, String>,
) -> Option<Item> {
    let path = w.memdir.index_path();
    let index = crate::index::read_index_text(&path);
    let lines: Vec<usize> = crate::index::extract_links(&index)
        .iter()
        .filter(|l| l.memory_target() == Some(w.rel.as_str()))
        .map(|l| l.line)
        .collect();
    if lines.is_empty() {
        let planned = pending.get(&path).map_or(index.as_str(), String::as_str);
        let (item, next) = unindexed(w, planned)?;
        pending.insert(path, next);
        return Some(item);
    }
    if cut_known {
        return None;
    }
    let l = load::load(&index);
    let cut: std::collections::BTreeSet<usize> = l.dropped.iter().map(|d| d.line).collect();
    if !lines.iter().all(|n| cut.contains(n)) {
        return None;
    }
    let index_label = w.memdir.index_label();
    Some(Item::new(format!(
        "{}: its line {index_label}:{} is past the load cut, so Claude Code never loads it: run `memctl index rebuild` to bring every entry back within the load",
        w.label(),
        lines[0]
    )))
}
