//! Memories that may say the same thing (SPEC §3.11 phase 3): duplicate clusters by
//! index line, name, description and Jaccard similarity, and superseded memories.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::record::{Named, Record};
use super::similar::{TokenSets, similar_groups};
use crate::memory::Memory;
use crate::yaml::Value;

/// Tokens for the Jaccard rule (SPEC §3.11): lower-cased runs of word chars; runs
/// without chars ≥ U+2E80 count from 3 chars; others give their char bigrams.
pub fn tokens(s: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for_each_token(s, |t| {
        if !out.contains(t) {
            out.insert(t.to_string());
        }
    });
    out
}

/// Each token of `s` as [`tokens`] has them, in order, repeats included.
pub(super) fn for_each_token(s: &str, mut f: impl FnMut(&str)) {
    if s.is_ascii() {
        // ASCII (most names and descriptions): word chars are letters, digits and
        // `_`, lower case is ASCII's, and a run counts from 3 bytes.
        let mut run = String::new();
        for word in s.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
            if word.len() >= 3 {
                run.clear();
                run.push_str(word);
                run.make_ascii_lowercase();
                f(&run);
            }
        }
        return;
    }
    each_token_general(s, f);
}

/// [`for_each_token`] for any text.
fn each_token_general(s: &str, mut f: impl FnMut(&str)) {
    let lower = s.to_lowercase();
    let is_word = |c: char| c.is_alphanumeric() || c == '_' || ('\u{300}'..='\u{36f}').contains(&c);
    let mut pair = String::new();
    for run in lower.split(|c: char| !is_word(c)).filter(|r| !r.is_empty()) {
        // ASCII (most runs): no char ≥ U+2E80, and one char per byte.
        if run.is_ascii() {
            if run.len() >= 3 {
                f(run);
            }
            continue;
        }
        let chars: Vec<char> = run.chars().collect();
        if chars.iter().any(|c| *c >= '\u{2e80}') {
            if chars.len() == 1 {
                f(run);
            } else {
                for w in chars.windows(2) {
                    pair.clear();
                    pair.extend(w);
                    f(&pair);
                }
            }
        } else if chars.len() >= 3 {
            f(run);
        }
    }
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

/// `s` lower-cased with its whitespace runs collapsed to one space and trimmed.
fn collapse(s: &str) -> String {
    let mut out = String::new();
    collapse_into(s, &mut out);
    out
}

/// [`collapse`] into `out` (cleared first).
fn collapse_into(s: &str, out: &mut String) {
    out.clear();
    if !s.is_ascii() {
        out.push_str(&s.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase());
        return;
    }
    // ASCII: one pass; `char::is_whitespace` of ASCII is tab to CR and space.
    for word in s.split(|c: char| c.is_whitespace()).filter(|w| !w.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        let at = out.len();
        out.push_str(word);
        out[at..].make_ascii_lowercase();
    }
}

/// Duplicate clusters, rules (a) and (b): index lines pointing to one file, the
/// same name or description ([`similar_clusters`] adds rule (c)).
pub fn exact_clusters<M: Named>(memories: &[M], index_targets: &BTreeMap<String, Vec<usize>>) -> Vec<Cluster> {
    let mut out: Vec<Cluster> = index_targets
        .iter()
        .filter(|(_, l)| l.len() > 1)
        .map(|(f, l)| Cluster::new(ClusterReason::IndexLines, vec![f.clone()], l.clone()))
        .collect();
    for reason in [ClusterReason::SameName, ClusterReason::SameDescription] {
        // Only groups of two or more are sorted (by key, as the clusters are
        // listed) and named.
        let mut shared = shared_keys(memories, reason == ClusterReason::SameName);
        shared.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        out.extend(shared.into_iter().map(|(_, members)| {
            let files = members
                .iter()
                .map(|&i| memories[i as usize].rel().to_string())
                .collect();
            Cluster::new(reason, files, vec![])
        }));
    }
    out
}

/// A memory's `name` (`by_name`) or `description`.
fn key_of<M: Named>(m: &M, by_name: bool) -> Option<Cow<'_, str>> {
    if by_name { m.name() } else { m.description() }
}

/// The names (`by_name`) or descriptions (collapsed, non-empty) two memories or
/// more share, each with its members by position. Every key is hashed, not kept: only the memories whose
/// hashes meet have their keys collapsed again and compared (at 20 000 files a
/// map of every collapsed description was 3 MB).
fn shared_keys<M: Named>(memories: &[M], by_name: bool) -> Vec<(String, Vec<u32>)> {
    use std::hash::BuildHasher;
    let hasher = std::hash::BuildHasherDefault::<crate::fx::Fx>::default();
    let mut buf = String::new();
    let mut hashed: Vec<(u64, u32)> = Vec::new();
    for (i, m) in memories.iter().enumerate() {
        if let Some(v) = key_of(m, by_name) {
            collapse_into(&v, &mut buf);
            if !buf.is_empty() {
                hashed.push((hasher.hash_one(&buf), i as u32));
            }
        }
    }
    // By hash, then by position: each group's members in order.
    hashed.sort_unstable();
    let mut shared = Vec::new();
    for run in hashed.chunk_by(|a, b| a.0 == b.0).filter(|run| run.len() > 1) {
        let mut groups: Vec<(String, Vec<u32>)> = Vec::new();
        for &(_, i) in run {
            let k = collapse(&key_of(&memories[i as usize], by_name).unwrap_or_default());
            match groups.iter_mut().find(|g| g.0 == k) {
                Some(g) => g.1.push(i),
                None => groups.push((k, vec![i])),
            }
        }
        shared.extend(groups.into_iter().filter(|g| g.1.len() > 1));
    }
    shared
}

/// Rule (c): pairs with a Jaccard similarity ≥ 0.5 of name + description tokens,
/// grouped transitively, each group with its highest similarity.
pub fn similar_clusters<M: Named>(memories: &[M]) -> Vec<Cluster> {
    similar_clusters_of(token_sets(memories), memories)
}

/// Every duplicate cluster of dream's records (rules (a), (b) and (c), as
/// [`exact_clusters`] then [`similar_clusters`]). The records' descriptions are
/// let go once their tokens are taken ([`Record::forget_description`]) and the
/// freed memory given back, before the similarity search's tables grow: at
/// 20 000 files the descriptions are 2 MB, most of them in a reader thread's
/// malloc arena, where this thread would not reuse them.
pub fn record_clusters(memories: &mut [Record], index_targets: BTreeMap<String, Vec<usize>>) -> Vec<Cluster> {
    let mut out = exact_clusters(memories, &index_targets);
    drop(index_targets);
    // Each description goes as soon as its tokens are taken, while the token
    // tables grow.
    let toks = TokenSets::of(memories.iter_mut().map(|m| {
        let text = token_text(&*m);
        m.forget_description();
        text
    }));
    crate::heap::give_back();
    out.extend(similar_clusters_of(toks, memories));
    out
}

/// The token sets of rule (c): the name, a space, the description; one text at
/// a time, none held.
fn token_sets<M: Named>(memories: &[M]) -> TokenSets {
    TokenSets::of(memories.iter().map(token_text))
}

/// What rule (c) takes the tokens of: the name, a space, the description.
fn token_text<M: Named>(m: &M) -> String {
    format!(
        "{} {}",
        m.name().unwrap_or_default(),
        m.description().unwrap_or_default()
    )
}

/// [`similar_clusters`] from the sets [`token_sets`] took of `memories`.
fn similar_clusters_of<M: Named>(toks: TokenSets, memories: &[M]) -> Vec<Cluster> {
    let mut out = Vec::new();
    for (members, sim) in similar_groups(toks) {
        let mut files: Vec<String> = members.iter().map(|&i| memories[i].rel().to_string()).collect();
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
        out.extend(superseded_details(m).into_iter().map(|detail| Superseded {
            file: m.rel.clone(),
            line: 1,
            detail,
        }));
    }
    out
}

/// The details [`superseded`] gives for one memory, in order (most have none).
pub fn superseded_details(m: &Memory) -> Vec<String> {
    let mut out = Vec::new();
    let get = |k: &str| {
        m.frontmatter
            .get(k)
            .cloned()
            .or_else(|| m.frontmatter.get("metadata").and_then(|x| x.get(k)).cloned())
    };
    if let Some(v) = get("supersedes") {
        out.push(format!("supersedes {}", v.js_string()));
    }
    if let Some(v) = get("status")
        .map(|v| v.js_string())
        .filter(|s| s.to_lowercase().starts_with("superseded"))
    {
        out.push(format!("status: {v}"));
    }
    if let Some(d) = m
        .fields
        .description
        .as_ref()
        .map(Value::js_string)
        .filter(|d| d.starts_with("SUPERSEDED"))
    {
        out.push(format!("description: {}", crate::text::ellipsize(&d, 80)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sets as [`TokenSets`], each distinct string an id.
    fn sets(toks: &[BTreeSet<String>]) -> TokenSets {
        let mut vocab: Vec<String> = toks.iter().flatten().cloned().collect();
        vocab.sort();
        vocab.dedup();
        let (mut ids, mut ends) = (Vec::new(), Vec::new());
        for s in toks {
            ids.extend(s.iter().map(|t| vocab.binary_search(t).unwrap() as u32));
            ends.push(ids.len() as u32);
        }
        TokenSets { ids, ends, vocab }
    }

    /// `count` random ASCII strings of up to `max` chars, a char of `often` in
    /// every `every` picks (so runs and edges are met), any ASCII char otherwise.
    fn ascii_strings(seed: u64, count: usize, max: u64, often: &[char], every: usize) -> Vec<String> {
        let mut seed = seed;
        (0..count)
            .map(|_| {
                let len = (seed % max) as usize;
                (0..len)
                    .map(|_| {
                        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                        let pick = (seed >> 33) as usize;
                        if pick.is_multiple_of(every) {
                            often[pick % often.len()]
                        } else {
                            char::from((pick % 128) as u8)
                        }
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn collapsing_ascii_is_collapsing_by_the_general_rule() {
        let general = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
        let spaces = [' ', '\t', '\n', '\x0b', '\x0c', '\r', '\x1c'];
        for s in ascii_strings(7, 2000, 24, &spaces, 3) {
            assert_eq!(collapse(&s), general(&s), "{s:?}");
        }
        assert_eq!(collapse("  Ünï  Code\u{a0}X "), general("  Ünï  Code\u{a0}X "));
    }

    #[test]
    fn ascii_tokens_are_those_of_the_general_rule() {
        let collect = |s: &str, general: bool| {
            let mut v = Vec::new();
            if general {
                each_token_general(s, |t| v.push(t.to_string()));
            } else {
                for_each_token(s, |t| v.push(t.to_string()));
            }
            v
        };
        let word = ['a', 'B', 'z', 'Q', '_', '7', ' ', '-'];
        for s in ascii_strings(11, 3000, 40, &word, 2) {
            assert_eq!(collect(&s, false), collect(&s, true), "{s:?}");
        }
    }

    #[test]
    fn token_ids_are_the_tokens_of_each_text() {
        let texts = [
            "The DB is a real DB! the db",
            "因子状态机 x 机",
            "Ünïcode ΟΔΟΣ'Α straße a_b_c e\u{301}t\u{301}e",
            "",
            "concurrent sessions write memory; multi session writes memory",
            "ASCII_only: Mixed-Case words, x1 y22 z333 __ ___ a-b-c\tTAB",
        ];
        let ts = TokenSets::of(texts.iter().copied());
        assert_eq!(ts.sets().count(), texts.len());
        for (text, ids) in texts.iter().zip(ts.sets()) {
            let got: BTreeSet<String> = ids.iter().map(|&i| ts.vocab[i as usize].clone()).collect();
            assert_eq!(got, tokens(text), "{text}");
            assert_eq!(ids.len(), got.len(), "{text}: ids repeat");
        }
    }

    /// What comparing every pair gives: the groups (union-find over the pairs with
    /// J ≥ 0.5, roots the smallest member) and each group's highest similarity.
    fn brute_force(toks: &[BTreeSet<String>]) -> Vec<(Vec<usize>, f64)> {
        let n = toks.len();
        let mut parent: Vec<usize> = (0..n).collect();
        let root = |p: &Vec<usize>, mut x: usize| {
            while p[x] != x {
                x = p[x];
            }
            x
        };
        let mut edges = Vec::new();
        for a in 0..n {
            for b in a + 1..n {
                let j = jaccard(&toks[a], &toks[b]);
                if j >= 0.5 {
                    edges.push((a, j));
                    let (ra, rb) = (root(&parent, a), root(&parent, b));
                    parent[ra.max(rb)] = ra.min(rb);
                }
            }
        }
        let mut groups: BTreeMap<usize, (Vec<usize>, f64)> = BTreeMap::new();
        for i in 0..n {
            groups.entry(root(&parent, i)).or_default().0.push(i);
        }
        for (a, j) in edges {
            let g = groups.get_mut(&root(&parent, a)).unwrap();
            g.1 = g.1.max(j);
        }
        groups.into_values().filter(|g| g.0.len() > 1).collect()
    }

    #[test]
    fn similar_groups_are_those_of_the_quadratic_scan() {
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
        let slow = brute_force(&toks);
        assert!(!slow.is_empty());
        assert_eq!(similar_groups(sets(&toks)), slow);
    }

    #[test]
    fn similar_groups_agree_with_the_quadratic_scan_on_random_sets() {
        // A small deterministic generator. Vocabularies from 6 to 200 words (more
        // than the 64 that become bits), sets of 0–24 tokens, a skewed choice of
        // words so that some are very common, and near-copies of earlier sets so
        // that groups grow large and their maximum has to be found among many.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n.max(1)
        };
        for round in 0..300 {
            let vocab = [6, 12, 40, 90, 200][round % 5];
            let size = [8, 14, 25][round % 3];
            let count = 20 + next(60) as usize;
            let mut toks: Vec<BTreeSet<String>> = Vec::new();
            for _ in 0..count {
                let set: BTreeSet<String> = if !toks.is_empty() && next(3) == 0 {
                    let mut s = toks[next(toks.len() as u64) as usize].clone();
                    for _ in 0..next(3) {
                        s.insert(format!("w{}", next(vocab)));
                    }
                    if let Some(f) = s.iter().next().cloned().filter(|_| next(2) == 0) {
                        s.remove(&f);
                    }
                    s
                } else {
                    (0..next(size))
                        .map(|_| {
                            let k = next(vocab) + 1;
                            format!("w{}", next(k))
                        })
                        .collect()
                };
                toks.push(set);
            }
            assert_eq!(similar_groups(sets(&toks)), brute_force(&toks), "round {round}");
        }
    }

    #[test]
    fn similar_groups_agree_with_the_quadratic_scan_on_dense_sets() {
        // The bench's shape: few words, so that almost every set is a candidate of
        // every other, one large group forms early and its highest similarity has
        // to be found among many pairs; plus a unique token per set (an id) and a
        // few sets with no id (that can be equal). Every pair the quadratic scan
        // connects must be connected here, with the same maximum.
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = move |n: u64| {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            x.wrapping_mul(0x2545_f491_4f6c_dd1d) % n.max(1)
        };
        for round in 0..60 {
            let vocab = [8, 20, 30][round % 3];
            let count = 50 + next(250) as usize;
            let toks: Vec<BTreeSet<String>> = (0..count)
                .map(|i| {
                    let mut s: BTreeSet<String> = (0..4 + next(12)).map(|_| format!("w{}", next(vocab))).collect();
                    if next(10) != 0 {
                        s.insert(format!("id{i}"));
                    }
                    s
                })
                .collect();
            assert_eq!(similar_groups(sets(&toks)), brute_force(&toks), "round {round}");
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
