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
    let edges = similar_pairs(&toks);
    for &(a, b, _) in &edges {
        let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
        parent[ra.max(rb)] = ra.min(rb);
    }
    let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for i in 0..memories.len() {
        let r = find(&mut parent, i);
        groups.entry(r).or_default().push(i);
    }
    // The highest similarity within a group is always one of its edges (≥ 0.5).
    let mut best: BTreeMap<usize, f64> = BTreeMap::new();
    for &(a, _, sim) in &edges {
        let r = find(&mut parent, a);
        let e = best.entry(r).or_insert(0.0);
        *e = e.max(sim);
    }
    let mut out = Vec::new();
    for (root, members) in groups.into_iter().filter(|(_, g)| g.len() > 1) {
        let sim = best.get(&root).copied().unwrap_or(0.0);
        let mut files: Vec<String> = members.iter().map(|&i| memories[i].rel.clone()).collect();
        files.sort();
        out.push(Cluster::new(ClusterReason::Similar(sim), files, vec![]));
    }
    out
}

/// Every pair (a < b) with a Jaccard similarity ≥ 0.5, and that similarity, without
/// comparing every pair: prefix filtering. Order each set's tokens rarest first; two
/// sets with J ≥ 0.5 must share a token among the first |A| − ⌈|A|/2⌉ + 1 of each, so
/// only pairs sharing such a token are compared (exact, near-linear on real memories).
fn similar_pairs(toks: &[BTreeSet<String>]) -> Vec<(usize, usize, f64)> {
    let mut freq: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for t in toks.iter().flatten() {
        *freq.entry(t.as_str()).or_default() += 1;
    }
    let mut postings: std::collections::HashMap<&str, Vec<usize>> = std::collections::HashMap::new();
    let mut candidates: BTreeSet<(usize, usize)> = BTreeSet::new();
    for (i, set) in toks.iter().enumerate() {
        let mut ordered: Vec<&str> = set.iter().map(String::as_str).collect();
        ordered.sort_by_key(|t| (freq[t], *t));
        let prefix = set.len() - set.len().div_ceil(2) + 1;
        for t in ordered.into_iter().take(prefix.min(set.len())) {
            let list = postings.entry(t).or_default();
            for &j in list.iter() {
                candidates.insert((j, i));
            }
            list.push(i);
        }
    }
    candidates
        .into_iter()
        .filter_map(|(a, b)| {
            let sim = jaccard(&toks[a], &toks[b]);
            (sim >= 0.5).then_some((a, b, sim))
        })
        .collect()
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
    fn prefix_filtering_finds_exactly_the_pairs_of_the_quadratic_scan() {
        let texts = [
            "deploy staging cluster with helm",
            "deploy staging cluster helm charts",
            "testing policy real database",
            "integration tests hit real database",
            "real database testing policy always",
            "one two three four",
            "four three two one five six seven eight",
            "",
            "日本語のテキスト",
            "日本語のテキスト追加",
        ];
        let toks: Vec<BTreeSet<String>> = texts.iter().map(|t| tokens(t)).collect();
        let mut slow = Vec::new();
        for a in 0..toks.len() {
            for b in a + 1..toks.len() {
                let j = jaccard(&toks[a], &toks[b]);
                if j >= 0.5 {
                    slow.push((a, b, j));
                }
            }
        }
        assert!(!slow.is_empty());
        assert_eq!(similar_pairs(&toks), slow);
    }

    #[test]
    fn prefix_filtering_agrees_with_the_quadratic_scan_on_random_sets() {
        // A small deterministic generator: sets of 0–7 tokens from a 12-word vocabulary.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        for _ in 0..200 {
            let toks: Vec<BTreeSet<String>> = (0..30)
                .map(|_| (0..next(8)).map(|_| format!("w{}", next(12))).collect())
                .collect();
            let mut slow = Vec::new();
            for a in 0..toks.len() {
                for b in a + 1..toks.len() {
                    let j = jaccard(&toks[a], &toks[b]);
                    if j >= 0.5 {
                        slow.push((a, b, j));
                    }
                }
            }
            assert_eq!(similar_pairs(&toks), slow);
        }
    }

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
