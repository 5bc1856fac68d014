//! What review compares: the memories (their rules and rule statements), the
//! CLAUDE/AGENTS statements, and the inverted index through which a memory
//! statement meets only the statements that share a token with it.

use crate::memory::Memory;

use super::Input;
use super::rule::{self, Rule};
use super::statement::{self, Interner, Relation, Stmt, Thresholds};

/// A memory as compared: its rule, its statements and (for the topic rules) its tokens.
pub(super) struct Item<'a> {
    pub memory: &'a Memory,
    pub rule: Rule,
    pub statements: Vec<Stmt>,
    pub team: bool,
}

/// A CLAUDE/AGENTS statement as compared: the file it is in, its line.
pub(super) struct Unit {
    pub file: usize,
    pub line: usize,
    pub stmt: Stmt,
}

/// The memories that have a rule (hubs and unreadable ones skipped), their
/// statements interned first.
pub(super) fn items<'a>(input: &Input<'a>, names: &mut Interner) -> Vec<Item<'a>> {
    let mut items = Vec::new();
    for (i, m) in input.memories.iter().enumerate() {
        let Some(text) = input.texts.get(i).and_then(|t| t.as_deref()) else {
            continue;
        };
        if m.is_hub() {
            continue;
        }
        let rule = rule::of_memory(text);
        if rule.text.trim().is_empty() {
            continue;
        }
        let statements = rule_statements(&rule, names);
        items.push(Item {
            memory: m,
            rule,
            statements,
            team: input.team.get(i).copied().unwrap_or(false),
        });
    }
    items
}

/// Every sentence of the CLAUDE/AGENTS files' statements, on the line it starts on.
pub(super) fn units(claude: &[super::ClaudeFile], names: &mut Interner) -> Vec<Unit> {
    let mut units: Vec<Unit> = Vec::new();
    for (f, c) in claude.iter().enumerate() {
        for s in &c.statements {
            for sentence in statement::sentences(&s.text) {
                let stmt = statement::statement(sentence, names);
                if !stmt.is_empty() {
                    // The line the sentence starts on (a paragraph's lines are joined).
                    let offset = (sentence.as_ptr() as usize).saturating_sub(s.text.as_ptr() as usize);
                    units.push(Unit {
                        file: f,
                        line: s.line_at(offset),
                        stmt,
                    });
                }
            }
        }
    }
    units
}

/// A memory's rule statements: its first paragraph up to its `**Why:**` or `**How
/// to apply:**` line (they explain rather than state), each bullet or paragraph
/// of it split into sentences.
fn rule_statements(rule: &Rule, names: &mut Interner) -> Vec<Stmt> {
    let lines: Vec<crate::claude_md::Line> = rule
        .paragraph
        .lines()
        .take_while(|l| {
            let t = l.trim_start().trim_start_matches(['-', '*', '+', ' ']);
            !(t.starts_with("**Why") || t.starts_with("**How to apply") || t.starts_with("Why:"))
        })
        .enumerate()
        .map(|(i, l)| crate::claude_md::Line {
            number: i + 1,
            text: l.to_string(),
        })
        .collect();
    let mut out = Vec::new();
    for s in crate::claude_md::statements(&lines) {
        for sentence in statement::sentences(&s.text) {
            let st = statement::statement(sentence, names);
            if !st.is_empty() {
                out.push(st);
            }
        }
    }
    out
}

/// The best relation of a memory's statements with a set of statements (through
/// their postings): the strongest contradiction, and per statement whether some
/// other statement says the same (with the best such pair).
pub(super) struct Found {
    /// `(score, memory statement, other statement, why)`.
    pub contradiction: Option<(f64, usize, usize, String)>,
    /// How many of the memory's statements another states.
    pub covered: usize,
    /// `(score, memory statement, other statement)`.
    pub same: Option<(f64, usize, usize)>,
}

pub(super) fn find(it: &Item, others: &[&Stmt], postings: &Postings, th: &Thresholds, names: &Interner) -> Found {
    let mut f = Found {
        contradiction: None,
        covered: 0,
        same: None,
    };
    for (k, ms) in it.statements.iter().enumerate() {
        let mut covered = false;
        for (o, shared) in postings.candidates(ms) {
            // A shared token weighs at most 2: below the related threshold however
            // the shared ones weigh, the pair is not compared.
            if f64::from(2 * shared) < th.related * f64::from(ms.weight().min(others[o].weight())) {
                continue;
            }
            match statement::relate(ms, others[o], th, names) {
                Some((Relation::Contradicts(why), score)) if f.contradiction.as_ref().is_none_or(|c| score > c.0) => {
                    f.contradiction = Some((score, k, o, why));
                }
                Some((Relation::Contradicts(_), _)) => {}
                Some((Relation::Same, score)) => {
                    covered = true;
                    if f.same.is_none_or(|s| score > s.0) {
                        f.same = Some((score, k, o));
                    }
                }
                None => {}
            }
        }
        if covered {
            f.covered += 1;
        }
    }
    f
}

/// An inverted index of statements' tokens: for a probe, the statements sharing
/// a token with it, each once, in statement order.
pub(super) struct Postings {
    lists: crate::fx::HashMap<u32, Vec<usize>>,
    /// Per statement, how many tokens it shares with the probe being counted (zero
    /// between probes; reused: a probe costs its postings, not a set per probe).
    seen: std::cell::RefCell<(u32, Vec<u32>)>,
}

impl Postings {
    pub fn new(stmts: &[&Stmt]) -> Postings {
        let mut lists: crate::fx::HashMap<u32, Vec<usize>> = Default::default();
        for (i, s) in stmts.iter().enumerate() {
            for t in s.ids() {
                lists.entry(t).or_default().push(i);
            }
        }
        Postings {
            lists,
            seen: std::cell::RefCell::new((0, vec![0; stmts.len()])),
        }
    }

    /// The statements sharing a token with `probe`, with how many they share.
    pub fn candidates(&self, probe: &Stmt) -> Vec<(usize, u32)> {
        let mut guard = self.seen.borrow_mut();
        let (_, counts) = &mut *guard;
        let mut touched = Vec::new();
        for t in probe.ids() {
            for &i in self.lists.get(&t).map_or(&[][..], Vec::as_slice) {
                if counts[i] == 0 {
                    touched.push(i);
                }
                counts[i] += 1;
            }
        }
        touched.sort_unstable();
        touched
            .into_iter()
            .map(|i| (i, std::mem::take(&mut counts[i])))
            .collect()
    }
}
