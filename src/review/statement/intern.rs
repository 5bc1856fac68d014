//! Interning: the tokens of cut statements ([`Cuts`]) to small ids, shared by
//! every statement of one analysis.

use crate::fx::HashMap;

use super::{Cuts, Cutter, NO_ID, Stmt, Tok, cut_into};

/// Token strings to small ids, shared by every statement of one analysis. Ids
/// are given in the order tokens are first interned ([`Interner::stmts`] of each
/// [`Cuts`] in turn): where the cuts were made does not change them.
#[derive(Default)]
pub struct Interner {
    ids: HashMap<String, u32>,
    names: Vec<String>,
    /// The cutters whose cuts it interns ([`Interner::adopt`]), each with its
    /// tokens' local ids to ids ([`NO_ID`] until met): a token is looked up by
    /// its local id, its text read from its cutter and hashed only the first
    /// time. The first is the cutter of [`super::statement`].
    cutters: Vec<(Cutter, Vec<u32>)>,
    /// Scratch for a statement's tokens.
    toks: Vec<Tok>,
}

impl Interner {
    fn id(&mut self, s: &str) -> u32 {
        if let Some(&i) = self.ids.get(s) {
            return i;
        }
        let i = self.names.len() as u32;
        self.ids.insert(s.to_string(), i);
        self.names.push(s.to_string());
        i
    }

    /// Every token text, by id, and the cutters adopted ([`Interner::adopt`]),
    /// in order.
    pub fn into_parts(self) -> (Vec<String>, Vec<Cutter>) {
        let cutters = self.cutters.into_iter().skip(1).map(|(c, _)| c).collect();
        (self.names, cutters)
    }

    /// The statement of cut `k` of `cuts`, with `text` ([`Interner::stmts`]).
    pub fn stmt_of(&mut self, cuts: &Cuts, k: usize, text: String) -> Stmt {
        self.stmt(cuts, k, text)
    }

    /// The text of a token.
    pub fn name(&self, id: u32) -> &str {
        self.names.get(id as usize).map_or("", String::as_str)
    }

    /// Take the cutters that cut what it will intern (their token texts).
    pub fn adopt(&mut self, cutters: impl IntoIterator<Item = Cutter>) {
        self.own();
        self.cutters.extend(cutters.into_iter().map(|c| (c, Vec::new())));
    }

    /// Its own cutter (the first), made on first use.
    fn own(&mut self) -> &mut Cutter {
        if self.cutters.is_empty() {
            self.cutters.push((Cutter::default(), Vec::new()));
        }
        &mut self.cutters[0].0
    }

    /// Intern the tokens numbered `locals` by the cutter `cutter`, in that order
    /// (a memory without statements to compare, [`super::Cutter::firsts`]): the
    /// ids interning its statements would have given, nothing kept.
    pub fn touch(&mut self, cutter: u32, locals: &[u32]) {
        let mut cutters = std::mem::take(&mut self.cutters);
        if let Some((cutter, map)) = cutters.iter_mut().find(|(c, _)| c.id == cutter) {
            for &local in locals {
                self.global(cutter, map, local);
            }
        }
        self.cutters = cutters;
    }

    /// The id of the token numbered `local` by `cutter` (`map`: its local ids
    /// to ids), interned the first time.
    fn global(&mut self, cutter: &Cutter, map: &mut Vec<u32>, local: u32) -> u32 {
        let l = local as usize;
        match map.get(l) {
            Some(&id) if id != NO_ID => id,
            _ => {
                let id = self.id(cutter.name(local));
                if map.len() <= l {
                    map.resize(l + 1, NO_ID);
                }
                map[l] = id;
                id
            }
        }
    }

    /// The statements of `cuts`, in order ([`Interner::stmt`] of each), without
    /// their texts (empty: [`Cuts`] keeps none).
    pub fn stmts(&mut self, cuts: &Cuts) -> Vec<Stmt> {
        (0..cuts.len()).map(|k| self.stmt(cuts, k, String::new())).collect()
    }

    /// The statement of cut `k` of `cuts`, with `text`: its tokens interned in the
    /// order they were found, then sorted by id and merged.
    fn stmt(&mut self, cuts: &Cuts, k: usize, text: String) -> Stmt {
        let raw = cuts.get(k);
        let mut toks = std::mem::take(&mut self.toks);
        toks.clear();
        let mut cutters = std::mem::take(&mut self.cutters);
        // A cut of a cutter not adopted has no token texts: none of its tokens is
        // interned (never so in memctl: every cutter is adopted).
        let Some((cutter, map)) = cutters.iter_mut().find(|(c, _)| c.id == cuts.cutter) else {
            self.cutters = cutters;
            self.toks = toks;
            return Stmt {
                text,
                toks: Vec::new(),
                weight: 0,
            };
        };
        for r in raw {
            let id = self.global(cutter, map, r.local);
            toks.push(Tok {
                id,
                weight: r.weight,
                tool: r.tool,
                number: r.number,
                seen: if r.neg { super::NEG } else { super::POS },
            });
        }
        // Merged in place in the scratch, then copied at their exact length (a
        // statement lives as long as the analysis).
        merge(&mut toks);
        let merged = toks.to_vec();
        self.toks = toks;
        self.cutters = cutters;
        let weight = merged.iter().map(|t| u32::from(t.weight)).sum();
        Stmt {
            text,
            toks: merged,
            weight,
        }
    }

    /// [`super::statement`].
    pub(super) fn statement(&mut self, text: &str) -> Stmt {
        let cutter = self.own();
        let mut cuts = cutter.scratch();
        let s = if cut_into(text, cutter, &mut cuts) {
            self.stmt(&cuts, 0, text.trim().to_string())
        } else {
            Stmt {
                text: text.trim().to_string(),
                toks: Vec::new(),
                weight: 0,
            }
        };
        self.own().cuts = cuts;
        s
    }
}

/// A statement's tokens sorted by id, those of one id merged into one (the
/// largest weight, every kind and clause they were seen in).
pub(super) fn merge(toks: &mut Vec<Tok>) {
    toks.sort_by_key(|t| t.id);
    toks.dedup_by(|t, m| {
        let same = m.id == t.id;
        if same {
            m.weight = m.weight.max(t.weight);
            m.tool |= t.tool;
            m.number |= t.number;
            m.seen |= t.seen;
        }
        same
    });
}

#[cfg(test)]
mod tests {
    use super::super::{Cutter, cut_into, statement};
    use super::*;

    /// Sentences cut one after the other into one [`Cuts`] and interned give the
    /// statements [`statement`] gives each (token ids, kinds, weights; not their
    /// texts, which the arena does not keep); the ones without a token are left out.
    #[test]
    fn cuts_in_one_arena_intern_as_each_statement_alone() {
        const SENTENCES: &[&str] = &[
            "  Run `cargo test -p core` before pushing.  ",
            "—",
            "Never deploy on Fridays; use `bun install --frozen-lockfile` instead of npm.",
            "the a of",
            "Tests live in src/api/ and `__tests__`: keep 4-space indentation.",
            "Deploying needs the staging tests, not the cache.",
            "Run cargo test before pushing the deploy.",
        ];
        let (mut arena, mut alone) = (Interner::default(), Interner::default());
        let mut cutter = Cutter::default();
        let mut cuts = cutter.scratch();
        let kept: Vec<bool> = SENTENCES.iter().map(|s| cut_into(s, &mut cutter, &mut cuts)).collect();
        assert_eq!(kept, [true, false, true, false, true, true, true]);
        let kept = cutter.keep(cuts);
        arena.adopt([cutter]);
        let got = arena.stmts(&kept);
        let want: Vec<Stmt> = SENTENCES
            .iter()
            .map(|s| statement(s, &mut alone))
            .filter(|s| !s.is_empty())
            .collect();
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(&want) {
            assert_eq!((&g.toks, g.weight), (&w.toks, w.weight));
            assert!(g.text.is_empty());
            let names = |i: &Interner, s: &Stmt| s.ids().map(|t| i.name(t).to_string()).collect::<Vec<_>>();
            assert_eq!(names(&arena, g), names(&alone, w));
        }
        // The same words give the same ids in later statements.
        assert!(got[4].ids().any(|t| got[0].ids().any(|u| u == t)));
    }

    /// Statements cut by two cutters (two reader threads), their token texts
    /// known only to the cutter that cut them (a word met in prose by one and in
    /// code by the other), interned in a fixed order, give the ids one
    /// interner gives them alone in that order.
    #[test]
    fn cuts_of_several_cutters_intern_in_the_order_given() {
        const SENTENCES: &[&str] = &[
            "Run `cargo test -p core` before pushing.",
            "Tests need cargo; never deploy on Fridays.",
            "Use `deploy.sh` to deploy, not `make deploy`.",
            "Keep 4-space indentation in src/api/ and the tests.",
        ];
        let mut cutters = [Cutter::default(), Cutter::default()];
        let cuts: Vec<Cuts> = SENTENCES
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let c = &mut cutters[(i + 1) % 2];
                let mut cuts = c.scratch();
                assert!(cut_into(s, c, &mut cuts));
                c.keep(cuts)
            })
            .collect();
        let (mut arena, mut alone) = (Interner::default(), Interner::default());
        arena.adopt(cutters);
        for (c, s) in cuts.iter().zip(SENTENCES) {
            let (g, w) = (arena.stmts(c), statement(s, &mut alone));
            assert_eq!(g.len(), 1);
            assert_eq!((&g[0].toks, g[0].weight), (&w.toks, w.weight), "{s}");
        }
        assert_eq!(arena.names, alone.names);
    }
}
