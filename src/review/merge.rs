//! Merges (SPEC §12): §3.11's duplicate clusters of two or more memories, private
//! and team apart; the newest member is kept and takes the others' lines.

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::dream::{Cluster, ClusterReason, exact_clusters, similar_clusters};
use crate::memory::Memory;

use super::propose::rule_evidence;
use super::{Detail, Kind, MERGE_THRESHOLD, Proposal, tokens};

/// A memory as merges read it: only the memory, whether it is a team memory, and
/// its rule's first line (its line and text).
pub(super) struct Item<'a> {
    pub memory: &'a Memory,
    pub team: bool,
    pub line: usize,
    pub first_line: String,
}

fn memory_evidence(it: &Item, now_ms: f64) -> super::Evidence {
    rule_evidence(it.memory, it.line, &it.first_line, now_ms)
}

/// The merge proposals, private clusters first.
pub(super) fn merges(items: &[Item], now_ms: f64) -> Vec<Proposal> {
    let by_rel: HashMap<&str, &Item> = items.iter().map(|i| (i.memory.rel.as_str(), i)).collect();
    let mut out = Vec::new();
    for team in [false, true] {
        for c in clusters(items, team) {
            let found: Vec<&Item> = c.files.iter().filter_map(|f| by_rel.get(f.as_str()).copied()).collect();
            if let Some(keep) = kept(&found) {
                out.push(proposal(&c, &found, keep, now_ms));
            }
        }
    }
    out
}

/// The distinct clusters (by their sorted files) of two or more of the private
/// or the team memories: same name or description, then similar.
fn clusters(items: &[Item], team: bool) -> Vec<Cluster> {
    let members: Vec<&Memory> = items.iter().filter(|i| i.team == team).map(|i| i.memory).collect();
    if members.len() < 2 {
        return Vec::new();
    }
    let mut clusters: Vec<Cluster> = exact_clusters(&members, &BTreeMap::new());
    clusters.extend(similar_clusters(&members));
    let mut seen: HashSet<Vec<String>> = HashSet::new();
    clusters
        .into_iter()
        .filter_map(|mut c| {
            c.files.sort();
            (c.files.len() >= 2 && seen.insert(c.files.clone())).then_some(c)
        })
        .collect()
}

/// The member kept: the newest, the first by path among equals.
fn kept<'a, 'b>(found: &[&'b Item<'a>]) -> Option<&'b Item<'a>> {
    found
        .iter()
        .max_by(|a, b| {
            a.memory
                .mtime_ms
                .total_cmp(&b.memory.mtime_ms)
                .then_with(|| b.memory.rel.cmp(&a.memory.rel))
        })
        .copied()
}

/// The proposal to fold cluster `c`'s other members into `keep`.
fn proposal(c: &Cluster, found: &[&Item], keep: &Item, now_ms: f64) -> Proposal {
    let others: Vec<String> = c.files.iter().filter(|f| **f != keep.memory.rel).cloned().collect();
    let (score, threshold) = match c.reason {
        ClusterReason::Similar(s) => (s, format!(" ≥ {MERGE_THRESHOLD:.2}")),
        _ => (1.0, String::new()),
    };
    let mut evidence = vec![memory_evidence(keep, now_ms)];
    evidence.extend(
        found
            .iter()
            .filter(|i| i.memory.rel != keep.memory.rel)
            .map(|i| memory_evidence(i, now_ms)),
    );
    Proposal {
        n: 0,
        kind: Kind::Merge,
        // The memories folded in; the target is the one kept.
        memory: others.join(", "),
        target: Some(keep.memory.rel.clone()),
        reason: format!(
            "{} memories with {}: {}; score {:.2}{threshold} (the name and description tokens, as dream --dry-run clusters them)",
            c.files.len(),
            match c.reason {
                ClusterReason::Similar(_) => "similar names and descriptions".to_string(),
                r => r.to_string(),
            },
            c.files.join(", "),
            score
        ),
        action: format!(
            "keep {} (the newest), add the lines only {} hold{}, then forget {}",
            keep.memory.rel,
            others.join(", "),
            if others.len() == 1 { "s" } else { "" },
            others.join(", ")
        ),
        evidence,
        score: Some(tokens::round2(score)),
        detail: Detail {
            others,
            ..Detail::default()
        },
    }
}
