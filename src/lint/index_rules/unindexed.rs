//! The index rules that need the scanned topic files: ML203 (a file the index does
//! not link, info when another indexed memory links it) and ML213 (no index).

use std::collections::{BTreeMap, HashSet};

use crate::lint::{Finding, RuleId, Severity};
use crate::memory::Memory;

use super::{Reach, Scope, Targets};

/// The index rules on the scope's topic files, once they are known: ML203 with
/// the index's `targets`, ML213 when there was no readable index.
pub fn check_files(
    scope: &Scope,
    memories: &[Memory],
    targets: Option<&Targets>,
    reach: &Reach,
    out: &mut Vec<Finding>,
) {
    match targets {
        Some(targets) => check_unindexed(scope, memories, targets, reach, out),
        None => check_missing(scope, memories, out),
    }
}

/// ML213: topic files but no index (for a scope whose index could not be read).
fn check_missing(scope: &Scope, memories: &[Memory], out: &mut Vec<Finding>) {
    let owned = memories.iter().filter(|m| scope.owns(&m.rel)).count();
    let idx = &scope.index;
    if owned > 0 && std::fs::symlink_metadata(idx).is_err() {
        out.push(Finding::file(
            RuleId::ML213,
            idx,
            format!("{owned} topic files but no MEMORY.md: Claude Code loads no memory; create the index"),
        ));
    }
}

/// ML203: files the index does not link.
fn check_unindexed(scope: &Scope, memories: &[Memory], targets: &Targets, reach: &Reach, out: &mut Vec<Finding>) {
    let owned: Vec<&Memory> = memories.iter().filter(|m| scope.owns(&m.rel)).collect();
    unindexed(scope, &owned, targets, reach, out);
}

fn unindexed(
    scope: &Scope,
    owned: &[&Memory],
    targets: &BTreeMap<String, Vec<usize>>,
    reach: &Reach,
    out: &mut Vec<Finding>,
) {
    let indexed: HashSet<&str> = owned
        .iter()
        .filter(|m| targets.contains_key(scope.local(&m.rel)))
        .map(|m| m.rel.as_str())
        .collect();
    let reachable = reach.from(&indexed);
    let index_name = if scope.prefix.is_empty() {
        "MEMORY.md".to_string()
    } else {
        format!("{}/MEMORY.md", scope.prefix)
    };
    for m in owned {
        if indexed.contains(m.rel.as_str()) {
            continue;
        }
        if reachable.contains(m.rel.as_str()) {
            out.push(
                Finding::file(
                    RuleId::ML203,
                    &m.path,
                    format!("not in {index_name}, but linked from an indexed memory"),
                )
                .with_severity(Severity::Info),
            );
        } else {
            out.push(Finding::file(
                RuleId::ML203,
                &m.path,
                format!("not in {index_name}: Claude Code never loads it; add an index line (`memctl lint --fix`)"),
            ));
        }
    }
}
