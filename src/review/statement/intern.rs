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
    /// Per cutter (its [`Cutter::id`]), its prose tokens' local ids to ids
    /// ([`NO_ID`] until met): a prose token is looked up by its local id, not
    /// hashed again.
    locals: Vec<(u32, Vec<u32>)>,
    /// The cutter of [`super::statement`].
    cutter: Cutter,
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

    /// The text of a token.
    pub fn name(&self, id: u32) -> &str {
        self.names.get(id as usize).map_or("", String::as_str)
    }

    /// The statements of `cuts`, in order ([`Interner::stmt`] of each), without
    /// their texts (empty: [`Cuts`] keeps none).
    pub fn stmts(&mut self, cuts: &Cuts) -> Vec<Stmt> {
        (0..cuts.len()).map(|k| self.stmt(cuts, k, String::new())).collect()
    }

    /// The statement of cut `k` of `cuts`, with `text`: its tokens interned in the
    /// order they were found, then sorted by id and merged.
    fn stmt(&mut self, cuts: &Cuts, k: usize, text: String) -> Stmt {
        let (mut start, raw) = cuts.get(k);
        let mut toks = std::mem::take(&mut self.toks);
        toks.clear();
        let mut locals = std::mem::take(&mut self.locals);
        let at = match locals.iter().position(|(c, _)| *c == cuts.cutter) {
            Some(k) => k,
            None => {
                locals.push((cuts.cutter, Vec::new()));
                locals.len() - 1
            }
        };
        let map = &mut locals[at].1;
        for r in raw {
            let end = r.end as usize;
            let name = &cuts.names[start..end];
            let local = r.local as usize;
            let id = match map.get(local) {
                _ if r.local == NO_ID => self.id(name),
                Some(&id) if id != NO_ID => id,
                _ => {
                    let id = self.id(name);
                    if map.len() <= local {
                        map.resize(local + 1, NO_ID);
                    }
                    map[local] = id;
                    id
                }
            };
            start = end;
            toks.push(Tok {
                id,
                weight: r.weight,
                tool: r.tool,
                number: r.number,
                pos: !r.neg,
                neg: r.neg,
            });
        }
        toks.sort_by_key(|t| t.id);
        // Merged in place in the scratch, then copied at their exact length (a
        // statement lives as long as the analysis).
        toks.dedup_by(|t, m| {
            let same = m.id == t.id;
            if same {
                m.weight = m.weight.max(t.weight);
                m.tool |= t.tool;
                m.number |= t.number;
                m.pos |= t.pos;
                m.neg |= t.neg;
            }
            same
        });
        let merged = toks.to_vec();
        self.toks = toks;
        self.locals = locals;
        let weight = merged.iter().map(|t| u32::from(t.weight)).sum();
        Stmt {
            text,
            toks: merged,
            weight,
        }
    }

    /// [`super::statement`].
    pub(super) fn statement(&mut self, text: &str) -> Stmt {
        let mut cuts = self.cutter.scratch();
        let s = if cut_into(text, &mut self.cutter, &mut cuts) {
            self.stmt(&cuts, 0, text.trim().to_string())
        } else {
            Stmt {
                text: text.trim().to_string(),
                toks: Vec::new(),
                weight: 0,
            }
        };
        self.cutter.cuts = cuts;
        s
    }
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
        let got = arena.stmts(&cutter.keep(cuts));
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
}
