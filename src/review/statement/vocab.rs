//! Which memories can meet a CLAUDE/AGENTS statement at all. A memory
//! statement relates to another only at containment ≥ the related threshold,
//! and the comparison looks only at the statements that share enough tokens
//! with it ([`super::super::compare::Postings`]); a memory none of whose
//! statements reaches one there keeps no statement, only the tokens it would
//! have interned first ([`Cutter::firsts`]): the ids, given in first-interned
//! order, stay the same. Checked on the reader threads, each token's text looked
//! up once per cutter.

use crate::fx::HashMap;

use super::{Cuts, Cutter, NEG, NO_ID, POS, Stmt, Tok, containment, intern::merge};

/// The CLAUDE/AGENTS statements, their tokens numbered by text (ids of their
/// own), and per token the statements holding it, lightest first.
pub struct Vocab {
    ids: HashMap<Box<str>, u32>,
    stmts: Vec<Stmt>,
    lists: HashMap<u32, Vec<(u32, u32)>>,
    related: f64,
    /// The statements as cut, and the cutter that cut them: the analysis
    /// interns these rather than cut them again ([`Vocab::into_cuts`]).
    cuts: Cuts,
    cutter: Option<Cutter>,
}

impl Vocab {
    /// The statements `cuts` cut by `cutter` (numbered, [`Cuts::number`]);
    /// `related`: the threshold at which two statements relate.
    pub fn new(cutter: Cutter, cuts: Cuts, related: f64) -> Vocab {
        let mut names = super::Interner::default();
        names.adopt([cutter]);
        let stmts = names.stmts(&cuts);
        let (names, cutter) = names.into_parts();
        let ids = names
            .into_iter()
            .enumerate()
            .map(|(i, n)| (n.into_boxed_str(), i as u32))
            .collect();
        let lists = token_lists(&stmts);
        Vocab {
            ids,
            stmts,
            lists,
            related,
            cuts,
            cutter: cutter.into_iter().next(),
        }
    }

    /// The statements as cut and the cutter that cut them, to intern.
    pub fn into_cuts(self) -> (Cuts, Option<Cutter>) {
        (self.cuts, self.cutter)
    }

    fn len(&self) -> u32 {
        self.ids.len() as u32
    }
}

/// Per token of `stmts`, `(weight, statement)` of the statements holding it,
/// lightest first: the lists the comparison's prefix filter reads
/// ([`super::super::compare::Postings`] and [`Vocab`]).
pub fn token_lists<S: std::borrow::Borrow<Stmt>>(stmts: &[S]) -> HashMap<u32, Vec<(u32, u32)>> {
    let mut lists: HashMap<u32, Vec<(u32, u32)>> = HashMap::default();
    for (i, s) in stmts.iter().map(std::borrow::Borrow::borrow).enumerate() {
        for t in s.ids() {
            lists.entry(t).or_default().push((s.weight(), i as u32));
        }
    }
    for l in lists.values_mut() {
        l.sort_unstable();
    }
    lists
}

impl Cutter {
    /// Whether a statement of `cuts` (cut by this cutter) may relate to a
    /// statement of `vocab`: it shares a token with one whose weight lets the
    /// shared tokens reach the related threshold (the comparison's own filter,
    /// with all its tokens in the vocabulary counted as shared), and their
    /// containment reaches it.
    pub fn meets(&mut self, cuts: &Cuts, vocab: &Vocab) -> bool {
        let mut probe = Stmt {
            text: String::new(),
            toks: std::mem::take(&mut self.probe),
            weight: 0,
        };
        let mut met = false;
        for k in 0..cuts.len() {
            probe.toks.clear();
            for r in cuts.get(k) {
                let id = self.canonical(r.local, vocab);
                probe.toks.push(Tok {
                    id,
                    weight: r.weight,
                    tool: r.tool,
                    number: r.number,
                    seen: if r.neg { NEG } else { POS },
                });
            }
            merge(&mut probe.toks);
            probe.weight = probe.toks.iter().map(|t| u32::from(t.weight)).sum();
            if self.reaches(&probe, vocab) {
                met = true;
                break;
            }
        }
        self.probe = probe.toks;
        met
    }

    /// Whether `probe` reaches a statement of `vocab` (see [`Cutter::meets`]).
    fn reaches(&mut self, probe: &Stmt, vocab: &Vocab) -> bool {
        let shared = probe.toks.iter().filter(|t| t.id < vocab.len()).count() as u32;
        if shared == 0 {
            return false;
        }
        let stamp = self.next_stamp();
        let mut units = std::mem::take(&mut self.units);
        if units.len() < vocab.stmts.len() {
            units.resize(vocab.stmts.len(), 0);
        }
        let mut found = false;
        'tokens: for t in probe.toks.iter().filter(|t| t.id < vocab.len()) {
            for &(wo, u) in vocab.lists.get(&t.id).map_or(&[][..], Vec::as_slice) {
                if f64::from(2 * shared) < vocab.related * f64::from(probe.weight.min(wo)) {
                    break;
                }
                let seen = &mut units[u as usize];
                if *seen != stamp {
                    *seen = stamp;
                    if containment(probe, &vocab.stmts[u as usize]) >= vocab.related {
                        found = true;
                        break 'tokens;
                    }
                }
            }
        }
        self.units = units;
        found
    }

    /// The id of the token numbered `local` by text: the vocabulary's, else one
    /// above it, the same for the same text.
    fn canonical(&mut self, local: u32, vocab: &Vocab) -> u32 {
        let l = local as usize;
        if let Some(&id) = self.canon.get(l)
            && id != NO_ID
        {
            return id;
        }
        let name = self.name(local);
        let id = match vocab.ids.get(name) {
            Some(&id) => id,
            None => {
                let next = vocab.len() + self.others.len() as u32;
                *self.others.entry(name.into()).or_insert(next)
            }
        };
        if self.canon.len() <= l {
            self.canon.resize(l + 1, NO_ID);
        }
        self.canon[l] = id;
        id
    }

    /// A stamp not used before (the stamps start again, cleared, on wrapping).
    fn next_stamp(&mut self) -> u32 {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.seen.iter_mut().for_each(|s| *s = 0);
            self.units.iter_mut().for_each(|s| *s = 0);
            self.stamp = 1;
        }
        self.stamp
    }

    /// The distinct local ids of `cuts`' tokens, in the order first met: what
    /// interning `cuts` gives new ids to, in that order ([`super::Interner::touch`]).
    pub fn firsts(&mut self, cuts: &Cuts) -> Box<[u32]> {
        let stamp = self.next_stamp();
        let mut seen = std::mem::take(&mut self.seen);
        let mut out = Vec::new();
        for t in cuts.toks.iter() {
            let l = t.local as usize;
            if seen.len() <= l {
                seen.resize(l + 1, 0);
            }
            if seen[l] != stamp {
                seen[l] = stamp;
                out.push(t.local);
            }
        }
        self.seen = seen;
        out.into_boxed_slice()
    }
}
