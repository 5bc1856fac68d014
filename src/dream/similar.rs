//! Rule (c)'s search (SPEC §3.11 phase 3): the token sets of many texts and the
//! groups of those with a Jaccard similarity ≥ 0.5, exactly, without comparing
//! every pair.

/// The similarity step's maps are keyed by token ranks and short tokens of the
/// user's own memories: FxHash ([`crate::fx`]) instead of SipHash, which was a
/// fifth of the step.
use crate::fx::HashMap;

use super::duplicates::for_each_token;

/// The token sets of many texts, each token numbered once (an id per distinct
/// token, no string per set): what the similarity step compares. The sets are
/// held back to back in one list (at 20 000 files, not 20 000 allocations).
pub(super) struct TokenSets {
    /// Every text's token ids, sorted, without repeats, one set after another.
    pub(super) ids: Vec<u32>,
    /// Where each set ends in `ids`.
    pub(super) ends: Vec<u32>,
    /// Each id's token.
    pub(super) vocab: Vec<String>,
}

impl TokenSets {
    pub(super) fn of<S: AsRef<str>>(texts: impl Iterator<Item = S>) -> TokenSets {
        let mut index: HashMap<String, u32> = HashMap::default();
        let (mut ids, mut ends) = (Vec::new(), Vec::new());
        for text in texts {
            let start = ids.len();
            for_each_token(text.as_ref(), |t| {
                let id = match index.get(t) {
                    Some(&id) => id,
                    None => {
                        let id = index.len() as u32;
                        index.insert(t.to_string(), id);
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
        // Each token's string moved out of the map, not held twice.
        let mut vocab = vec![String::new(); index.len()];
        for (t, id) in index {
            vocab[id as usize] = t;
        }
        TokenSets { ids, ends, vocab }
    }

    /// Each set's ids, in order.
    #[cfg(test)]
    pub(super) fn sets(&self) -> impl Iterator<Item = &[u32]> + '_ {
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
pub(super) fn similar_groups(toks: TokenSets) -> Vec<(Vec<usize>, f64)> {
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
/// similarity, and the posting lists per (token, root). The lists and their
/// entries live in two arenas, linked by index (at 20 000 files a map of vectors
/// and two lists of lists were 4 MB with their allocations; these are ~2).
struct Components<'s> {
    sets: &'s Sets,
    parent: Vec<u32>,
    /// Each root's best similarity ([`Ratio`]'s two counts).
    best: Vec<(u32, u32)>,
    /// Entries held per root, to merge the smaller into the larger.
    held: Vec<u32>,
    /// The list of each live (token, root).
    lists: HashMap<(u32, u32), u32>,
    /// Every list made, live or emptied by a merge.
    arena: Vec<List>,
    /// Every entry, each linked to the next of its list.
    entries: Vec<Link>,
    /// Each token's first list (its lists are linked; emptied ones are unlinked
    /// when met).
    tok_first: Vec<u32>,
    /// Each root's first list (linked through [`List::next_of_root`]).
    root_first: Vec<u32>,
    /// Per set, the last prober that met it.
    seen: Vec<u32>,
}

/// No list or entry.
const NIL: u32 = u32::MAX;

/// A posting list: its entries (first and last), its token and root ([`NIL`]
/// once merged into another), and the next list of the same token and root.
struct List {
    first: u32,
    last: u32,
    tok: u32,
    root: u32,
    next_of_tok: u32,
    next_of_root: u32,
}

/// An [`Entry`] and the next entry of its list.
struct Link {
    entry: Entry,
    next: u32,
}

/// How many of a set's `la` tokens [`Components::index`] indexes: its first
/// |A| − ⌈2|A|/3⌉ + 1.
fn indexed_len(la: usize) -> usize {
    if la == 0 { 0 } else { la - (2 * la).div_ceil(3) + 1 }
}

impl<'s> Components<'s> {
    fn new(sets: &'s Sets) -> Components<'s> {
        let n = sets.len();
        let ntok = (0..n)
            .flat_map(|i| sets.get(i).ranks.last().copied())
            .max()
            .map_or(0, |r| r as usize + 1);
        let entries = (0..n).map(|i| indexed_len(sets.get(i).len())).sum();
        Components {
            sets,
            parent: (0..n as u32).collect(),
            best: vec![(0, 1); n],
            held: vec![0; n],
            lists: HashMap::default(),
            arena: Vec::new(),
            entries: Vec::with_capacity(entries),
            tok_first: vec![NIL; ntok],
            root_first: vec![NIL; n],
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
    /// other component holding a set it is similar to. A list merged into
    /// another, or moved to another root, joined `i`'s component: skipped.
    fn probe(&mut self, i: usize) {
        let a = self.sets.get(i);
        for (pos_a, &tok) in a.ranks[..prefix_len(a.len())].iter().enumerate() {
            let t = tok as usize;
            let (mut prev, mut at) = (NIL, self.tok_first[t]);
            while at != NIL {
                let List { root, next_of_tok, .. } = self.arena[at as usize];
                if root == NIL {
                    match prev {
                        NIL => self.tok_first[t] = next_of_tok,
                        p => self.arena[p as usize].next_of_tok = next_of_tok,
                    }
                    at = next_of_tok;
                    continue;
                }
                prev = at;
                let (r, ri) = (root as usize, self.find(i));
                if r != ri
                    && let Some(sim) = self.meet(i, pos_a, at)
                {
                    self.union(r, ri, sim);
                }
                at = next_of_tok;
            }
        }
    }

    /// The first set of list `list` similar to set `i` (met at its `pos_a`-th
    /// token), with the similarity.
    fn meet(&mut self, i: usize, pos_a: usize, list: u32) -> Option<Ratio> {
        let a = self.sets.get(i);
        let la = a.len();
        let mut at = self.arena[list as usize].first;
        while at != NIL {
            let Link { entry: ref e, next } = self.entries[at as usize];
            at = next;
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
    /// other's lists merged into its own (appended) or moved to it.
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
        let mut at = std::mem::replace(&mut self.root_first[gone], NIL);
        while at != NIL {
            let List {
                first,
                last,
                tok,
                next_of_root,
                ..
            } = self.arena[at as usize];
            self.lists.remove(&(tok, gone as u32));
            match self.lists.get(&(tok, keep as u32)) {
                Some(&k) => {
                    let into = &mut self.arena[k as usize];
                    self.entries[into.last as usize].next = first;
                    into.last = last;
                    self.arena[at as usize].root = NIL;
                }
                None => {
                    self.lists.insert((tok, keep as u32), at);
                    let moved = &mut self.arena[at as usize];
                    moved.root = keep as u32;
                    moved.next_of_root = self.root_first[keep];
                    self.root_first[keep] = at;
                }
            }
            at = next_of_root;
        }
    }

    /// Index set `i` under its first |A| − ⌈2|A|/3⌉ + 1 tokens, in its root's lists.
    fn index(&mut self, i: usize) {
        let a = self.sets.get(i);
        let ri = self.find(i);
        for (pos, &tok) in a.ranks[..indexed_len(a.len())].iter().enumerate() {
            let link = self.entries.len() as u32;
            self.entries.push(Link {
                entry: Entry {
                    set: i as u32,
                    pos: pos as u32,
                },
                next: NIL,
            });
            match self.lists.entry((tok, ri as u32)) {
                std::collections::hash_map::Entry::Occupied(o) => {
                    let list = &mut self.arena[*o.get() as usize];
                    self.entries[list.last as usize].next = link;
                    list.last = link;
                }
                std::collections::hash_map::Entry::Vacant(v) => {
                    let id = self.arena.len() as u32;
                    v.insert(id);
                    self.arena.push(List {
                        first: link,
                        last: link,
                        tok,
                        root: ri as u32,
                        next_of_tok: self.tok_first[tok as usize],
                        next_of_root: self.root_first[ri],
                    });
                    self.tok_first[tok as usize] = id;
                    self.root_first[ri] = id;
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
