//! Memories that may say the same thing (SPEC §3.11 phase 3): duplicate clusters by
//! index line, name, description and Jaccard similarity, and superseded memories.

use std::collections::{BTreeMap, BTreeSet};

/// The similarity step's maps are keyed by token ranks and short tokens of the
/// user's own memories: FxHash ([`crate::fx`]) instead of SipHash, which was a
/// fifth of the step.
use crate::fx::HashMap;
use serde::Serialize;

use super::record::{Named, Record};
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
fn for_each_token(s: &str, mut f: impl FnMut(&str)) {
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

/// The token sets of many texts, each token numbered once (an id per distinct
/// token, no string per set): what the similarity step compares. The sets are
/// held back to back in one list (at 20 000 files, not 20 000 allocations).
struct TokenSets {
    /// Every text's token ids, sorted, without repeats, one set after another.
    ids: Vec<u32>,
    /// Where each set ends in `ids`.
    ends: Vec<u32>,
    /// Each id's token.
    vocab: Vec<String>,
}

impl TokenSets {
    fn of<S: AsRef<str>>(texts: impl Iterator<Item = S>) -> TokenSets {
        let mut index: HashMap<String, u32> = HashMap::default();
        let (mut ids, mut ends, mut vocab) = (Vec::new(), Vec::new(), Vec::<String>::new());
        for text in texts {
            let start = ids.len();
            for_each_token(text.as_ref(), |t| {
                let id = match index.get(t) {
                    Some(&id) => id,
                    None => {
                        let id = vocab.len() as u32;
                        index.insert(t.to_string(), id);
                        vocab.push(t.to_string());
                        id
                    }
                };
                ids.push(id);
            });
            ids[start..].sort_unstable();
            let kept = dedup_sorted(&mut ids[start..]);
            ids.truncate(start + kept);
            ends.push(ids.len() as u32);
        }
        TokenSets { ids, ends, vocab }
    }

    /// Each set's ids, in order.
    #[cfg(test)]
    fn sets(&self) -> impl Iterator<Item = &[u32]> + '_ {
        let starts = std::iter::once(0).chain(self.ends.iter().map(|&e| e as usize));
        starts.zip(&self.ends).map(|(s, &e)| &self.ids[s..e as usize])
    }
}

/// Moves the distinct values of the sorted `s` to its front; how many there are.
fn dedup_sorted(s: &mut [u32]) -> usize {
    let mut kept = 0;
    for r in 0..s.len() {
        if kept == 0 || s[r] != s[kept - 1] {
            s[kept] = s[r];
            kept += 1;
        }
    }
    kept
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
    if !s.is_ascii() {
        return s.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
    }
    // ASCII: one pass; `char::is_whitespace` of ASCII is tab to CR and space.
    let mut out = String::with_capacity(s.len());
    for word in s.split(|c: char| c.is_whitespace()).filter(|w| !w.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        let at = out.len();
        out.push_str(word);
        out[at..].make_ascii_lowercase();
    }
    out
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
        // Each key's members by position; only groups of two or more are sorted
        // (by key, as the clusters are listed) and named.
        let mut groups: HashMap<String, Vec<u32>> = HashMap::default();
        for (i, m) in memories.iter().enumerate() {
            let v = if reason == ClusterReason::SameName {
                m.name()
            } else {
                m.description()
            };
            if let Some(v) = v.map(|v| collapse(&v)).filter(|v| !v.is_empty()) {
                groups.entry(v).or_default().push(i as u32);
            }
        }
        let mut shared: Vec<(String, Vec<u32>)> = groups.into_iter().filter(|g| g.1.len() > 1).collect();
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
    let toks = token_sets(memories);
    for m in memories.iter_mut() {
        m.forget_description();
    }
    crate::heap::give_back();
    out.extend(similar_clusters_of(toks, memories));
    out
}

/// The token sets of rule (c): the name, a space, the description; one text at
/// a time, none held.
fn token_sets<M: Named>(memories: &[M]) -> TokenSets {
    TokenSets::of(memories.iter().map(|m| {
        format!(
            "{} {}",
            m.name().unwrap_or_default(),
            m.description().unwrap_or_default()
        )
    }))
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

/// A token set as the similarity step reads it: the 64 most common tokens of the
/// whole input as bits, the others as ranks (rarest first), and the rank order.
/// Its ranks are a part of one list that holds every set's; made from [`Sets`]
/// when read.
struct Set<'a> {
    /// Every token's rank, rarest first (the prefix filter's order).
    ranks: &'a [u32],
    /// The ranks below the first common one (a prefix of `ranks`).
    rare: &'a [u32],
    common: u64,
}

impl Set<'_> {
    fn len(&self) -> usize {
        self.ranks.len()
    }

    fn overlap(&self, o: &Set) -> usize {
        let (mut a, mut b, mut n) = (0, 0, (self.common & o.common).count_ones() as usize);
        while a < self.rare.len() && b < o.rare.len() {
            match self.rare[a].cmp(&o.rare[b]) {
                std::cmp::Ordering::Less => a += 1,
                std::cmp::Ordering::Greater => b += 1,
                std::cmp::Ordering::Equal => {
                    n += 1;
                    a += 1;
                    b += 1;
                }
            }
        }
        n
    }
}

/// |A| − ⌈|A|/2⌉ + 1: two sets with J ≥ 0.5 share a token among this many of the
/// rarest of each (prefix filtering).
fn prefix_len(n: usize) -> usize {
    if n == 0 { 0 } else { n - n.div_ceil(2) + 1 }
}

/// The groups of rule (c): the connected components (size > 1) of the graph whose
/// edges are the pairs with a Jaccard similarity ≥ 0.5, each with its highest
/// similarity, in the order of their first member. Exactly what comparing every
/// pair gives (the unit tests check it against that), in two steps that each
/// compare few pairs even on a dir where most memories are alike:
///
/// - [`components`]: which memories are connected. Candidates come from an
///   inverted index of each set's prefix (prefix filtering), kept per token and
///   per component, so that a probing set skips its own component's postings
///   whole and stops at the first match in any other;
/// - [`highest_similarity`]: each component's highest similarity, from the pairs
///   met in the order of the most they can still reach, until none can beat the
///   best found.
fn similar_groups(toks: TokenSets) -> Vec<(Vec<usize>, f64)> {
    let (ranks, ends, first_common) = ranked(toks);
    let sets = Sets::of(ranks, ends, first_common);
    let (mut members, best) = components(&sets);
    let mut out = Vec::new();
    for (group, found) in members.iter_mut().zip(best) {
        if group.len() > 1 {
            let (o, union) = highest_similarity(&sets, group, found);
            out.push((std::mem::take(group), o as f64 / union as f64));
        }
    }
    out
}

/// Every token set's ids turned in place into ranks by the token's frequency in
/// the whole input (rarest first), each set sorted; with where each ends, and
/// the first rank of the 64 most common tokens.
fn ranked(toks: TokenSets) -> (Vec<u32>, Vec<u32>, u32) {
    let mut freq: Vec<usize> = vec![0; toks.vocab.len()];
    for &t in &toks.ids {
        freq[t as usize] += 1;
    }
    let mut order: Vec<u32> = (0..toks.vocab.len() as u32).filter(|&t| freq[t as usize] > 0).collect();
    order.sort_by(|&a, &b| {
        freq[a as usize]
            .cmp(&freq[b as usize])
            .then_with(|| toks.vocab[a as usize].cmp(&toks.vocab[b as usize]))
    });
    let first_common = order.len().saturating_sub(64) as u32;
    let mut rank: Vec<u32> = vec![u32::MAX; toks.vocab.len()];
    for (r, &t) in order.iter().enumerate() {
        rank[t as usize] = r as u32;
    }
    drop(order);
    let TokenSets { mut ids, ends, vocab } = toks;
    drop(vocab);
    // The list grew by doubling (at 20 000 files to 1 MB): its slack goes back
    // before the search's tables grow.
    ids.shrink_to_fit();
    for t in &mut ids {
        *t = rank[*t as usize];
    }
    let mut start = 0;
    for &end in &ends {
        ids[start..end as usize].sort_unstable();
        start = end as usize;
    }
    (ids, ends, first_common)
}

/// Every set of [`ranked`]'s lists, 16 bytes a set beside its ranks (a [`Set`]
/// of slices is 40: 0.5 MB more at 20 000 files).
struct Sets {
    ranks: Vec<u32>,
    /// Where each set ends in `ranks`.
    ends: Vec<u32>,
    /// How many of each set's ranks are below the first common one.
    rare: Vec<u32>,
    /// Each set's common tokens as bits.
    common: Vec<u64>,
}

impl Sets {
    fn of(ranks: Vec<u32>, ends: Vec<u32>, first_common: u32) -> Sets {
        let (mut rare, mut common) = (Vec::with_capacity(ends.len()), Vec::with_capacity(ends.len()));
        let mut start = 0;
        for &end in &ends {
            let set = &ranks[start..end as usize];
            start = end as usize;
            let r = set.partition_point(|&r| r < first_common);
            rare.push(r as u32);
            common.push(set[r..].iter().fold(0u64, |m, &r| m | 1 << (r - first_common)));
        }
        Sets {
            ranks,
            ends,
            rare,
            common,
        }
    }

    fn len(&self) -> usize {
        self.ends.len()
    }

    /// Set `i`.
    fn get(&self, i: usize) -> Set<'_> {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        let ranks = &self.ranks[start..self.ends[i] as usize];
        Set {
            ranks,
            rare: &ranks[..self.rare[i] as usize],
            common: self.common[i],
        }
    }
}

/// A set's entry in a posting list: the set and the token's position in it
/// (what the cheap filter reads of the set is read from the set itself: at
/// 20 000 files the lists were the search's largest table).
struct Entry {
    set: u32,
    pos: u32,
}

/// An upper bound on the overlap of `a` and `b`, met at their first shared token
/// (at `pos_a` in `a`, `pos_b` in `b`): the common tokens counted exactly by
/// their bits, the rare ones at most as many as the smaller set has, and at most
/// the shared token and what follows it in the shorter remainder (positional
/// filtering).
fn overlap_bound(a: &Set, pos_a: usize, b: &Set, pos_b: usize) -> usize {
    let bits = (a.common & b.common).count_ones() as usize + a.rare.len().min(b.rare.len());
    let rest = (a.len() - pos_a).min(b.len() - pos_b);
    bits.min(rest)
}

/// A similarity o / union, compared exactly.
type Ratio = (usize, usize);

fn above(a: Ratio, b: Ratio) -> bool {
    a.0 * b.1 > b.0 * a.1
}

/// The connected components of the pairs with J ≥ 0.5, as their members (in index
/// order, the components in the order of their first member), each with the
/// highest similarity among the pairs this step verified.
///
/// Sets are taken smallest first, so an indexed set is never larger than the one
/// probing and needs only its first |B| − ⌈2|B|/3⌉ + 1 tokens in the index (J ≥ 0.5
/// and |B| ≤ |A| give an overlap ≥ ⌈2|B|/3⌉); the prober looks at its first
/// [`prefix_len`] tokens. Posting lists are kept per (token, component) and merged
/// smaller into larger on a union. A pair is verified only when its sets are in
/// different components at that moment, so every edge of the graph is either
/// verified or already within one component: the components are exact.
fn components(sets: &Sets) -> (Vec<Vec<usize>>, Vec<Ratio>) {
    let mut g = Components::new(sets);
    let mut by_size: Vec<u32> = (0..sets.len() as u32).collect();
    by_size.sort_by_key(|&i| (sets.get(i as usize).len(), i));
    for &i in &by_size {
        let i = i as usize;
        g.probe(i);
        g.index(i);
    }
    g.groups()
}

/// The state of [`components`]: a union-find over the sets, each root's best
/// similarity, and the posting lists per (token, root).
struct Components<'s> {
    sets: &'s Sets,
    parent: Vec<u32>,
    /// Each root's best similarity ([`Ratio`]'s two counts).
    best: Vec<(u32, u32)>,
    /// Entries held per root, to merge the smaller into the larger.
    held: Vec<u32>,
    lists: HashMap<(u32, u32), Vec<Entry>>,
    /// The roots with a list under each token (stale ones dropped when met).
    tok_roots: Vec<Vec<u32>>,
    /// The tokens under which each root has a list.
    root_toks: Vec<Vec<u32>>,
    /// Per set, the last prober that met it.
    seen: Vec<u32>,
}

impl<'s> Components<'s> {
    fn new(sets: &'s Sets) -> Components<'s> {
        let n = sets.len();
        let ntok = (0..n)
            .flat_map(|i| sets.get(i).ranks.last().copied())
            .max()
            .map_or(0, |r| r as usize + 1);
        Components {
            sets,
            parent: (0..n as u32).collect(),
            best: vec![(0, 1); n],
            held: vec![0; n],
            lists: HashMap::default(),
            tok_roots: vec![Vec::new(); ntok],
            root_toks: vec![Vec::new(); n],
            seen: vec![u32::MAX; n],
        }
    }

    /// The root of `x`'s component (paths compressed).
    fn find(&mut self, x: usize) -> usize {
        let p = &mut self.parent;
        let mut r = x;
        while p[r] as usize != r {
            r = p[r] as usize;
        }
        let mut y = x;
        while p[y] as usize != r {
            let next = p[y] as usize;
            p[y] = r as u32;
            y = next;
        }
        r
    }

    /// Set `i` against the components indexed under its prefix: joined with each
    /// other component holding a set it is similar to.
    fn probe(&mut self, i: usize) {
        let a = self.sets.get(i);
        for (pos_a, &tok) in a.ranks[..prefix_len(a.len())].iter().enumerate() {
            let t = tok as usize;
            let mut r_at = 0;
            while r_at < self.tok_roots[t].len() {
                let r = self.tok_roots[t][r_at] as usize;
                if self.parent[r] as usize != r {
                    self.tok_roots[t].swap_remove(r_at);
                    continue;
                }
                r_at += 1;
                let ri = self.find(i);
                if r == ri {
                    continue;
                }
                if let Some(sim) = self.meet(i, pos_a, tok, r) {
                    self.union(r, ri, sim);
                }
            }
        }
    }

    /// The first set under (`tok`, root `r`) similar to set `i` (met at its
    /// `pos_a`-th token), with the similarity.
    fn meet(&mut self, i: usize, pos_a: usize, tok: u32, r: usize) -> Option<Ratio> {
        let a = self.sets.get(i);
        let la = a.len();
        for e in &self.lists[&(tok, r as u32)] {
            let j = e.set as usize;
            // A set is met first at the pair's first shared token, where the
            // positional bound holds; later meetings are skipped.
            if self.seen[j] == i as u32 {
                continue;
            }
            self.seen[j] = i as u32;
            let b = self.sets.get(j);
            let total = la + b.len();
            if 3 * overlap_bound(&a, pos_a, &b, e.pos as usize) < total {
                continue;
            }
            let o = a.overlap(&b);
            if 3 * o >= total {
                return Some((o, total - o));
            }
        }
        None
    }

    /// Join roots `r` and `ri`, the root holding more entries surviving with the
    /// other's lists merged into its own.
    fn union(&mut self, r: usize, ri: usize, sim: Ratio) {
        let (keep, gone) = if self.held[r] >= self.held[ri] {
            (r, ri)
        } else {
            (ri, r)
        };
        self.parent[gone] = keep as u32;
        self.held[keep] += self.held[gone];
        let ratio = |(o, u): (u32, u32)| (o as usize, u as usize);
        for b in [ratio(self.best[gone]), sim] {
            if above(b, ratio(self.best[keep])) {
                self.best[keep] = (b.0 as u32, b.1 as u32);
            }
        }
        for t in std::mem::take(&mut self.root_toks[gone]) {
            let moved = self.lists.remove(&(t, gone as u32)).unwrap_or_default();
            match self.lists.entry((t, keep as u32)) {
                std::collections::hash_map::Entry::Occupied(mut o) => o.get_mut().extend(moved),
                std::collections::hash_map::Entry::Vacant(v) => {
                    v.insert(moved);
                    self.root_toks[keep].push(t);
                    self.tok_roots[t as usize].push(keep as u32);
                }
            }
        }
    }

    /// Index set `i` under its first |A| − ⌈2|A|/3⌉ + 1 tokens, in its root's lists.
    fn index(&mut self, i: usize) {
        let a = self.sets.get(i);
        let la = a.len();
        let ri = self.find(i);
        let indexed = if la == 0 { 0 } else { la - (2 * la).div_ceil(3) + 1 };
        for (pos, &tok) in a.ranks[..indexed].iter().enumerate() {
            let entry = Entry {
                set: i as u32,
                pos: pos as u32,
            };
            match self.lists.entry((tok, ri as u32)) {
                std::collections::hash_map::Entry::Occupied(mut o) => o.get_mut().push(entry),
                std::collections::hash_map::Entry::Vacant(v) => {
                    v.insert(vec![entry]);
                    self.root_toks[ri].push(tok);
                    self.tok_roots[tok as usize].push(ri as u32);
                }
            }
            self.held[ri] += 1;
        }
    }

    /// The components' members (in index order, the components in the order of
    /// their first member), each with its best similarity.
    fn groups(mut self) -> (Vec<Vec<usize>>, Vec<Ratio>) {
        let n = self.sets.len();
        let mut slot: Vec<usize> = vec![usize::MAX; n];
        let (mut members, mut found) = (Vec::new(), Vec::new());
        for i in 0..n {
            let r = self.find(i);
            if slot[r] == usize::MAX {
                slot[r] = members.len();
                members.push(Vec::new());
                let (o, u) = self.best[r];
                found.push((o as usize, u as usize));
            }
            members[slot[r]].push(i);
        }
        (members, found)
    }
}

/// A point in a set's prefix still to be indexed: what any pair first meeting
/// there or later can reach at most, (|A| − k) / |A|.
#[derive(PartialEq, Eq)]
struct Step {
    set: u32,
    k: u32,
    len: u32,
}

impl Ord for Step {
    fn cmp(&self, o: &Step) -> std::cmp::Ordering {
        let (a, b) = (
            (self.len - self.k) as u64 * o.len as u64,
            (o.len - o.k) as u64 * self.len as u64,
        );
        a.cmp(&b).then(o.set.cmp(&self.set)).then(o.k.cmp(&self.k))
    }
}

impl PartialOrd for Step {
    fn partial_cmp(&self, o: &Step) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}

/// The highest similarity among the pairs of one component, at least `found` (a
/// pair of it already verified). Each set's prefix is indexed token by token, the
/// step that can reach the most first; a set whose next step cannot beat the best
/// found stops there. A pair is met when the later of the two steps at its first
/// shared token is taken, and both are taken if it beats the best found before:
/// the result is exact.
fn highest_similarity(sets: &Sets, group: &[usize], mut found: Ratio) -> Ratio {
    use std::collections::BinaryHeap;
    let mut index: HashMap<u32, Vec<Entry>> = HashMap::default();
    let mut heap: BinaryHeap<Step> = group
        .iter()
        .filter(|&&i| !sets.get(i).ranks.is_empty())
        .map(|&i| Step {
            set: i as u32,
            k: 0,
            len: sets.get(i).len() as u32,
        })
        .collect();
    while let Some(step) = heap.pop() {
        let (i, k, la) = (step.set as usize, step.k as usize, step.len as usize);
        if !above((la - k, la), found) {
            continue;
        }
        let a = sets.get(i);
        let tok = a.ranks[k];
        let list = index.entry(tok).or_default();
        for e in list.iter() {
            let b = sets.get(e.set as usize);
            let total = la + b.len();
            let bound = overlap_bound(&a, k, &b, e.pos as usize);
            if !above((bound, total - bound), found) {
                continue;
            }
            let o = a.overlap(&b);
            if above((o, total - o), found) {
                found = (o, total - o);
            }
        }
        list.push(Entry {
            set: i as u32,
            pos: k as u32,
        });
        if k + 1 < prefix_len(la) {
            heap.push(Step {
                set: step.set,
                k: step.k + 1,
                len: step.len,
            });
        }
    }
    found
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
