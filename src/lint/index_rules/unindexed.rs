//! The index rules that need the scanned topic files: ML203 (a file the index does
//! not link, info when another indexed memory links it) and ML213 (no index).

use std::collections::HashSet;

use crate::lint::facts::FileFacts;
use crate::lint::{Finding, RuleId, Severity};

use super::{Reach, Scope, Targets};

/// The index rules on the scope's topic files, once they are known: ML203 with
/// the index's `targets`, ML213 when there was no readable index.
pub fn check_files(
    scope: &Scope,
    memories: &[&FileFacts],
    targets: Option<&Targets>,
    reach: &Reach,
    env: &crate::paths::Env,
    recall: Option<&str>,
    out: &mut Vec<Finding>,
) {
    match targets {
        Some(targets) => check_unindexed(scope, memories, targets, reach, out),
        None => check_missing(scope, memories, env, recall, out),
    }
}

/// ML213: topic files but no index (for a scope whose index could not be read):
/// info when Claude Code writes one itself (SPEC §2.7.4), naming the files it
/// leaves out; a warning when it will not.
/// `recall`: the recall-mode lever, if on (Claude Code then writes no index).
fn check_missing(
    scope: &Scope,
    memories: &[&FileFacts],
    env: &crate::paths::Env,
    recall: Option<&str>,
    out: &mut Vec<Finding>,
) {
    let owned: Vec<&str> = memories.iter().map(|m| m.rel()).filter(|r| scope.owns(r)).collect();
    let idx = &scope.index;
    if owned.is_empty() || std::fs::symlink_metadata(idx).is_ok() {
        return;
    }
    let files = if owned.len() == 1 { "file" } else { "files" };
    let n = owned.len();
    let written = match (&recall, !scope.team) {
        (None, true) => crate::index::backfill::will_backfill(&scope.base, env),
        _ => None,
    };
    let Some(text) = written else {
        let why = match (recall, !scope.team) {
            (_, false) => "Claude Code writes no team index".to_string(),
            (Some(lever), _) => format!("recall mode ({lever})"),
            (None, _) => "Claude Code will not write one".to_string(),
        };
        out.push(Finding::file(
            RuleId::ML213,
            idx,
            format!("{n} topic {files} but no {} and {why}: no memory is loaded; write the index (`memctl index rebuild`)", scope.label),
        ).with_severity(Severity::Warning));
        return;
    };
    let lines = text.lines().count();
    let left_out: Vec<&str> = owned
        .iter()
        .copied()
        .filter(|r| !text.contains(&format!("]({r})")))
        .collect();
    let left = if left_out.is_empty() {
        String::new()
    } else {
        let shown: Vec<&str> = left_out.iter().copied().take(10).collect();
        let more = left_out.len().saturating_sub(10);
        format!(
            "; it leaves out {}{}",
            shown.join(", "),
            if more > 0 {
                format!(" … and {more} more")
            } else {
                String::new()
            }
        )
    };
    out.push(Finding::file(
        RuleId::ML213,
        idx,
        format!(
            "{n} topic {files} but no MEMORY.md: Claude Code writes one from them at its next session start ({lines} line{}, newest first){left}; `memctl index rebuild` writes it yourself",
            if lines == 1 { "" } else { "s" }
        ),
    ));
}

/// ML203: files the index does not link.
fn check_unindexed(scope: &Scope, memories: &[&FileFacts], targets: &Targets, reach: &Reach, out: &mut Vec<Finding>) {
    let owned: Vec<&FileFacts> = memories.iter().copied().filter(|m| scope.owns(m.rel())).collect();
    unindexed(scope, &owned, targets, reach, out);
}

fn unindexed(scope: &Scope, owned: &[&FileFacts], targets: &Targets, reach: &Reach, out: &mut Vec<Finding>) {
    let mut indexed: HashSet<&str> = owned
        .iter()
        .filter(|m| targets.contains(scope.local(m.rel())))
        .map(|m| m.rel())
        .collect();
    // A memory an indexed hub links counts as indexed (SPEC §10.1).
    let via_hubs: Vec<&str> = owned
        .iter()
        .filter(|m| m.hub && indexed.contains(m.rel()))
        .flat_map(|h| reach.direct(h.rel()))
        .filter_map(|t| owned.iter().find(|m| m.rel() == &**t).map(|m| m.rel()))
        .collect();
    indexed.extend(via_hubs);
    // Files reached from the indexed ones (a file in `indexed` is skipped below).
    let reachable = reach.beyond(&indexed);
    let index_name = scope.label.as_str();
    for m in owned {
        if indexed.contains(m.rel()) {
            continue;
        }
        if reachable.contains(m.rel()) {
            out.push(
                Finding::file(
                    RuleId::ML203,
                    &m.path(&scope.root),
                    format!("not in {index_name}, but linked from an indexed memory"),
                )
                .with_severity(Severity::Info),
            );
        } else {
            let edit = if !scope.team {
                "memctl edit --index"
            } else {
                "memctl --team edit --index"
            };
            // `lint --fix` adds a line even past Claude Code's cut and names the
            // entries then past it (SPEC §3.14); only a description is needed.
            let how = if m.has_description() {
                "add an index line (`memctl lint --fix`)".to_string()
            } else {
                format!(
                    "give it a one-line `description:`, then `memctl lint --fix` adds the line (or add it by hand: `{edit}`)"
                )
            };
            out.push(Finding::file(
                RuleId::ML203,
                &m.path(&scope.root),
                format!("not in {index_name}: Claude Code never loads it; {how}"),
            ));
        }
    }
}
