//! Memories that may say the same thing (SPEC §3.11 phase 3): duplicate clusters by
//! index line, name, description and Jaccard similarity, and superseded memories.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::memory::Memory;
use crate::yaml::Value;

/// Tokens for the Jaccard rule (SPEC §3.11): lower-cased runs of word chars; runs
/// without chars ≥ U+2E80 count from 3 chars; others give their char bigrams.
pub fn tokens(s: &str) -> BTreeSet<String> {
    let lower = s.to_lowercase();
    let is_word = |c: char| c.is_alphanumeric() || c == '_' || ('\u{300}'..='\u{36f}').contains(&c);
    let mut out = BTreeSet::new();
    for run in lower.split(|c: char| !is_word(c)).filter(|r| !r.is_empty()) {
        let chars: Vec<char> = run.chars().collect();
        if chars.iter().any(|c| *c >= '\u{2e80}') {
            if chars.len() == 1 {
                out.insert(run.to_string());
            } else {
                for w in chars.windows(2) {
                    out.insert(w.iter().collect());
                }
            }
        } else if chars.len() >= 3 {
            out.insert(run.to_string());
        }
    }
    out
}

/// |A ∩ B| / |A ∪ B| (0 for two empty sets).
pub fn jaccard(a: &BTreeSet<String>, b: &BTreeSet<String>) -> f64 {
    let union = a.union(b).count();
    if union == 0 {
        0.0
    } else {
        a.intersection(b).count() as f64 / union as f64
    }
}

/// Why memories are grouped into a cluster.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ClusterReason {
    /// (a) Several index lines point to one file.
    IndexLines,
    /// (b) The same `name` (case-insensitive, whitespace collapsed).
    SameName,
    /// (b) The same description.
    SameDescription,
    /// (c) The highest Jaccard similarity within the group (≥ 0.5).
    Similar(f64),
}

impl std::fmt::Display for ClusterReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ClusterReason::IndexLines => f.write_str("index lines"),
            ClusterReason::SameName => f.write_str("same name"),
            ClusterReason::SameDescription => f.write_str("same description"),
            ClusterReason::Similar(sim) => write!(f, "similar (Jaccard {sim:.2})"),
        }
    }
}

/// `index lines`, `same name`, `same description` or `similar (Jaccard 0.54)`.
impl Serialize for ClusterReason {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// A group of memories that may say the same thing.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Cluster {
    pub reason: ClusterReason,
    pub files: Vec<String>,
    /// Where the plan points: `MEMORY.md` for `index lines`, else the first file.
    pub file: String,
    /// The first index line, or 1.
    pub line: usize,
    /// The index lines, for `index lines` clusters.
    pub lines: Vec<usize>,
}

impl Cluster {
    fn new(reason: ClusterReason, files: Vec<String>, lines: Vec<usize>) -> Cluster {
        let file = if reason == ClusterReason::IndexLines {
            "MEMORY.md".to_string()
        } else {
            files[0].clone()
        };
        Cluster {
            reason,
            line: lines.first().copied().unwrap_or(1),
            file,
            files,
            lines,
        }
    }
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
}

/// Duplicate clusters: (a) index lines pointing to one file, (b) the same name or
/// description, (c) Jaccard similarity ≥ 0.5, grouped transitively.
pub fn duplicate_clusters(memories: &[Memory], index_targets: &BTreeMap<String, Vec<usize>>) -> Vec<Cluster> {
    let mut out: Vec<Cluster> = index_targets
        .iter()
        .filter(|(_, l)| l.len() > 1)
        .map(|(f, l)| Cluster::new(ClusterReason::IndexLines, vec![f.clone()], l.clone()))
        .collect();
    for reason in [ClusterReason::SameName, ClusterReason::SameDescription] {
        let mut groups: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for m in memories {
            let v = if reason == ClusterReason::SameName {
                m.name()
            } else {
                m.fields.description.as_ref().map(Value::js_string)
            };
            if let Some(v) = v.map(|v| collapse(&v)).filter(|v| !v.is_empty()) {
                groups.entry(v).or_default().push(m.rel.clone());
            }
        }
        out.extend(
            groups
                .into_values()
                .filter(|g| g.len() > 1)
                .map(|files| Cluster::new(reason, files, vec![])),
        );
    }
    out.extend(similar_clusters(memories));
    out
}

/// Rule (c): pairs with a Jaccard similarity ≥ 0.5 of name + description tokens,
/// grouped transitively (union-find).
fn similar_clusters(memories: &[Memory]) -> Vec<Cluster> {
    let toks: Vec<BTreeSet<String>> = memories
        .iter()
        .map(|m| {
            tokens(&format!(
                "{} {}",
                m.name().unwrap_or_default(),
                m.fields.description.as_ref().map(Value::js_string).unwrap_or_default()
            ))
        })
        .collect();
    let mut parent: Vec<usize> = (0..memories.len()).collect();
    fn find(p: &mut [usize], x: usize) -> usize {
        let mut r = x;
        while p[r] != r {
            r = p[r];
        }
        p[x] = r;
        r
    }
    for a in 0..memories.len() {
        for b in a + 1..memories.len() {
            if jaccard(&toks[a], &toks[b]) >= 0.5 {
                let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
                parent[ra.max(rb)] = ra.min(rb);
            }
        }
    }
    let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for i in 0..memories.len() {
        let r = find(&mut parent, i);
        groups.entry(r).or_default().push(i);
    }
    let mut out = Vec::new();
    for members in groups.into_values().filter(|g| g.len() > 1) {
        let mut sim: f64 = 0.0;
        for (k, &a) in members.iter().enumerate() {
            for &b in &members[k + 1..] {
                sim = sim.max(jaccard(&toks[a], &toks[b]));
            }
        }
        let mut files: Vec<String> = members.iter().map(|&i| memories[i].rel.clone()).collect();
        files.sort();
        out.push(Cluster::new(ClusterReason::Similar(sim), files, vec![]));
    }
    out
}

/// A memory that says it is superseded, or supersedes another.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Superseded {
    pub file: String,
    pub line: usize,
    pub detail: String,
}

/// `supersedes:` pointing at a file, `status: superseded…`, or a description
/// starting with `SUPERSEDED`.
pub fn superseded(memories: &[Memory]) -> Vec<Superseded> {
    let mut out = Vec::new();
    for m in memories {
        let get = |k: &str| {
            m.frontmatter
                .get(k)
                .cloned()
                .or_else(|| m.frontmatter.get("metadata").and_then(|x| x.get(k)).cloned())
        };
        if let Some(v) = get("supersedes") {
            out.push(Superseded {
                file: m.rel.clone(),
                line: 1,
                detail: format!("supersedes {}", v.js_string()),
            });
        }
        if let Some(v) = get("status")
            .map(|v| v.js_string())
            .filter(|s| s.to_lowercase().starts_with("superseded"))
        {
            out.push(Superseded {
                file: m.rel.clone(),
                line: 1,
                detail: format!("status: {v}"),
            });
        }
        if let Some(d) = m
            .fields
            .description
            .as_ref()
            .map(Value::js_string)
            .filter(|d| d.starts_with("SUPERSEDED"))
        {
            out.push(Superseded {
                file: m.rel.clone(),
                line: 1,
                detail: format!("description: {}", crate::text::ellipsize(&d, 80)),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokenizer_and_similarity() {
        assert_eq!(
            tokens("The DB is a real DB!"),
            ["real", "the"].iter().map(|s| s.to_string()).collect()
        );
        assert_eq!(
            tokens("因子状态机"),
            ["因子", "子状", "状态", "态机"].iter().map(|s| s.to_string()).collect()
        );
        assert_eq!(tokens("机 x"), ["机"].iter().map(|s| s.to_string()).collect());
        let a = tokens("concurrent sessions write memory");
        let b = tokens("multi session writes memory");
        assert!((jaccard(&a, &b) - 1.0 / 7.0).abs() < 1e-9);
    }
}
