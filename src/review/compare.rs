//! What review compares: the memories (their rules and rule statements), the
//! CLAUDE/AGENTS statements, and the inverted index through which a memory
//! statement meets only the statements that share a token with it.

use crate::memory::{Memory, MemoryType};

use super::Input;
use super::classify::Topic;
use super::rule::{self, Rule};
use super::statement::{self, Cuts, Cutter, Interner, Relation, Stmt, Thresholds, Vocab};

/// A memory as compared: its rule, its statements and its promotion topic.
pub(super) struct Item<'a> {
    pub memory: &'a Memory,
    pub rule: Rule,
    /// Its rule statements, without their texts ([`Item::statement_text`]).
    pub statements: Vec<Stmt>,
    /// Per statement, its sentence's place among the rule's sentences.
    sentences: Box<[u32]>,
    pub team: bool,
    /// Its topic and the words that decided it ([`super::promote::topic`]).
    pub topic: Option<(Topic, Vec<String>)>,
}

/// What review reads of one memory, taken from the memory and its text alone
/// (so on the scan's reader threads): its rule, the rule's statements cut but
/// not yet interned, its promotion topic.
pub struct Prepared {
    rule: Rule,
    toks: Toks,
    topic: Option<(Topic, Vec<String>)>,
}

/// A prepared memory's statements.
enum Toks {
    /// Cut, to be interned and compared.
    Cut(Cuts),
    /// None can meet a CLAUDE/AGENTS statement ([`Only`]): only the tokens it
    /// would intern first, by the local ids of the cutter `cutter`.
    Unmet { cutter: u32, firsts: Box<[u32]> },
}

/// What a memory that cannot meet a CLAUDE/AGENTS statement keeps: when no
/// team memory is compared (the command checks), a memory none of whose
/// statements can reach a CLAUDE/AGENTS statement ([`Cutter::meets`]) is never
/// updated or removed, so it keeps none of its statements and, when `rules` is
/// false (nothing is applied), not its rule's paragraph either.
pub struct Only {
    /// The CLAUDE/AGENTS statements ([`vocab`]).
    pub vocab: Vocab,
    /// Keep every rule's paragraph and `**Why:**` line (a promotion applies them).
    pub rules: bool,
}

/// The CLAUDE/AGENTS statements as [`Only`] reads them; `related`: the
/// threshold at which two statements relate.
pub fn vocab(claude: &[super::ClaudeFile], related: f64) -> Vocab {
    let mut cutter = Cutter::default();
    let mut cuts = cutter.scratch();
    let mut n = 0;
    claude_sentences(claude, |_, _, sentence| {
        if statement::cut_into(sentence, &mut cutter, &mut cuts) {
            cuts.number(n);
        }
        n += 1;
    });
    let cuts = cutter.keep(cuts);
    Vocab::new(cutter, cuts, related)
}

/// `memory`'s [`Prepared`] from its whole `text`; `None` for a hub or a blank
/// rule (review skips them). `cutter`: one per thread.
pub fn prepare(memory: &Memory, text: &str, cutter: &mut Cutter) -> Option<Prepared> {
    prepare_only(memory, text, cutter, None)
}

/// [`prepare`], keeping of a memory that cannot meet a CLAUDE/AGENTS statement
/// only what `only` says (`None`: everything).
pub fn prepare_only(memory: &Memory, text: &str, cutter: &mut Cutter, only: Option<&Only>) -> Option<Prepared> {
    let mut rule = rule::of_memory(text).compared()?;
    if memory.is_hub() {
        return None;
    }
    let cuts = rule_cuts(&rule, cutter);
    // Only these types may be promoted: any other's topic is none or editor,
    // which promote nowhere ([`super::promote::promotion`]).
    let promotable = matches!(
        memory.memory_type(),
        Some(MemoryType::Feedback | MemoryType::User | MemoryType::Project)
    );
    let topic = if promotable {
        super::promote::topic(memory, &rule)
    } else {
        None
    };
    let toks = match only {
        Some(only) if !cutter.meets(&cuts, &only.vocab) => {
            if !only.rules {
                rule.paragraph = String::new();
                rule.why = None;
            }
            Toks::Unmet {
                cutter: cuts.cutter(),
                firsts: cutter.firsts(&cuts),
            }
        }
        _ => Toks::Cut(cuts),
    };
    Some(Prepared { rule, toks, topic })
}

impl Item<'_> {
    /// The text of statement `k` (as written, trimmed), found again in the rule
    /// it was cut from (its statements keep no text: most are never shown);
    /// empty once the item is shed.
    pub fn statement_text(&self, k: usize) -> String {
        self.sentences
            .get(k)
            .map_or_else(String::new, |&n| nth_sentence(&self.rule.paragraph, n))
    }

    /// Drop what only the comparison reads (the statements) once the memory is
    /// classified, and give its proposal the first paragraph and `**Why:**` line
    /// when it is a promotion (its [`super::Detail`]; moved, not copied), else
    /// drop them too.
    pub fn shed(&mut self, proposal: Option<&mut super::Proposal>) {
        self.statements = Vec::new();
        self.sentences = Box::default();
        let (paragraph, why) = (std::mem::take(&mut self.rule.paragraph), self.rule.why.take());
        if let Some(p) = proposal.filter(|p| matches!(p.kind, super::Kind::Promote | super::Kind::Ambiguous)) {
            p.detail.paragraph = paragraph;
            p.detail.why = why;
        }
    }
}

/// A CLAUDE/AGENTS statement as compared: the file it is in, its line.
pub(super) struct Unit {
    pub file: usize,
    pub line: usize,
    pub stmt: Stmt,
}

/// The memories [`items`] keeps, as merges read them.
pub(super) fn merge_items<'a>(input: &Input<'a>, prepared: &[Option<Prepared>]) -> Vec<super::merge::Item<'a>> {
    input
        .memories
        .iter()
        .enumerate()
        .zip(prepared)
        .filter_map(|((i, m), p)| {
            p.as_ref().map(|p| super::merge::Item {
                memory: m,
                team: input.team.get(i).copied().unwrap_or(false),
                line: p.rule.line,
                first_line: p.rule.first_line.clone(),
            })
        })
        .collect()
}

/// The memories that have a rule (hubs and unreadable ones skipped), their
/// statements interned first, in the order of the memories. `prepared`: each
/// memory's [`prepare`] (`None`: it could not be read, it is a hub or its rule
/// is blank), in that order.
pub(super) fn items<'a>(input: &Input<'a>, prepared: Vec<Option<Prepared>>, names: &mut Interner) -> Vec<Item<'a>> {
    let mut items = Vec::new();
    for ((i, m), p) in input.memories.iter().enumerate().zip(prepared) {
        let Some(p) = p else {
            continue;
        };
        let (statements, sentences) = match &p.toks {
            Toks::Cut(cuts) => {
                let mut statements: Vec<Stmt> = names.stmts(cuts);
                statements.shrink_to_fit();
                (statements, cuts.numbers().into())
            }
            Toks::Unmet { cutter, firsts } => {
                names.touch(*cutter, firsts);
                (Vec::new(), Box::default())
            }
        };
        items.push(Item {
            memory: m,
            rule: p.rule,
            statements,
            sentences,
            team: input.team.get(i).copied().unwrap_or(false),
            topic: p.topic,
        });
    }
    items
}

/// Every sentence of the CLAUDE/AGENTS files' statements, on the line it starts
/// on. `cut`: those sentences as [`vocab`] cut them (numbered in this order),
/// interned rather than cut again; `None`: each cut here.
pub(super) fn units(claude: &[super::ClaudeFile], cut: Option<&Cuts>, names: &mut Interner) -> Vec<Unit> {
    let mut units: Vec<Unit> = Vec::new();
    let (mut n, mut k) = (0, 0);
    claude_sentences(claude, |f, s, sentence| {
        let stmt = match cut {
            Some(cuts) if cuts.numbers().get(k) == Some(&n) => {
                k += 1;
                names.stmt_of(cuts, k - 1, sentence.trim().to_string())
            }
            Some(_) => statement::Stmt::default(),
            None => statement::statement(sentence, names),
        };
        n += 1;
        if !stmt.is_empty() {
            // The line the sentence starts on (a paragraph's lines are joined).
            let offset = (sentence.as_ptr() as usize).saturating_sub(s.text.as_ptr() as usize);
            units.push(Unit {
                file: f,
                line: s.line_at(offset),
                stmt,
            });
        }
    });
    units
}

/// Each sentence of each statement of the CLAUDE/AGENTS files, in order, with
/// its file's number and its statement.
fn claude_sentences<'a>(
    claude: &'a [super::ClaudeFile],
    mut each: impl FnMut(usize, &'a crate::claude_md::Statement, &'a str),
) {
    for (f, c) in claude.iter().enumerate() {
        for s in &c.statements {
            for sentence in statement::sentences(&s.text) {
                each(f, s, sentence);
            }
        }
    }
}

/// A memory's rule statements, cut: [`rule_sentences`], the empty ones dropped,
/// each numbered with its place among them ([`Cuts::number`]).
fn rule_cuts(rule: &Rule, cutter: &mut Cutter) -> Cuts {
    let mut cuts = cutter.scratch();
    let mut n = 0;
    rule_sentences(&rule.paragraph, |sentence| {
        if statement::cut_into(sentence, cutter, &mut cuts) {
            cuts.number(n);
        }
        n += 1;
    });
    cutter.keep(cuts)
}

/// Sentence `n` (from 0) of [`rule_sentences`], trimmed: the text of the
/// statement numbered `n` by [`rule_cuts`].
fn nth_sentence(paragraph: &str, n: u32) -> String {
    let (mut text, mut i) = (String::new(), 0);
    rule_sentences(paragraph, |s| {
        if i == n {
            text = s.trim().to_string();
        }
        i += 1;
    });
    text
}

/// Each sentence of a memory's rule, in order: its first paragraph up to its
/// `**Why:**` or `**How to apply:**` line (they explain rather than state), each
/// bullet or paragraph of it split into sentences.
fn rule_sentences(paragraph: &str, mut each: impl FnMut(&str)) {
    let lines: Vec<crate::claude_md::Line> = paragraph
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
    for s in crate::claude_md::statements(&lines) {
        for sentence in statement::sentences(&s.text) {
            each(sentence);
        }
    }
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
        for (o, shared) in postings.candidates(ms, others, th.related) {
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

/// An inverted index of statements' tokens: for a probe, the statements that
/// share enough tokens with it to reach the related threshold.
///
/// A statement `o` is compared with a probe `m` only when 2 × shared ≥ related ×
/// min(weight m, weight o) (a shared token weighs at most 2). The probe's tokens
/// are taken rarest first and each list is kept lightest first: a statement first
/// met at the probe's `p`-th token shares at most the `k − p` tokens left, so a
/// list is read only up to the first statement too heavy to reach the threshold
/// with that many (prefix filtering, exact); the statements met get their shared
/// count by a merge of the two token lists.
pub(super) struct Postings {
    /// Per token, `(weight, statement)` of the statements holding it, lightest first.
    lists: crate::fx::HashMap<u32, Vec<(u32, u32)>>,
    /// Per statement, the last probe that met it (a probe's number, from 1).
    seen: std::cell::RefCell<(u32, Vec<u32>)>,
}

impl Postings {
    pub fn new(stmts: &[&Stmt]) -> Postings {
        Postings {
            lists: statement::token_lists(stmts),
            seen: std::cell::RefCell::new((0, vec![0; stmts.len()])),
        }
    }

    /// The statements of `stmts` (those indexed) sharing a token with `probe` and
    /// enough of them for `related`, with how many they share, in statement order.
    pub fn candidates(&self, probe: &Stmt, stmts: &[&Stmt], related: f64) -> Vec<(usize, u32)> {
        let wm = probe.weight();
        let reaches = |shared: usize, wo: u32| f64::from(2 * shared as u32) >= related * f64::from(wm.min(wo));
        let mut lists: Vec<&[(u32, u32)]> = probe
            .ids()
            .filter_map(|t| self.lists.get(&t).map(Vec::as_slice))
            .collect();
        lists.sort_by_key(|l| l.len());
        let mut guard = self.seen.borrow_mut();
        let (probe_no, seen) = &mut *guard;
        *probe_no += 1;
        let k = lists.len();
        let mut met = Vec::new();
        for (p, list) in lists.iter().enumerate() {
            for &(wo, i) in list.iter() {
                if !reaches(k - p, wo) {
                    break;
                }
                if seen[i as usize] != *probe_no {
                    seen[i as usize] = *probe_no;
                    met.push(i as usize);
                }
            }
        }
        met.sort_unstable();
        met.into_iter()
            .filter_map(|i| {
                let shared = statement::shared_count(probe, stmts[i]);
                reaches(shared as usize, stmts[i].weight()).then_some((i, shared))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every statement sharing a token with the probe, with the count, kept when
    /// it reaches `related`: what the index must return.
    fn brute(probe: &Stmt, stmts: &[&Stmt], related: f64) -> Vec<(usize, u32)> {
        (0..stmts.len())
            .map(|i| (i, statement::shared_count(probe, stmts[i])))
            .filter(|&(i, s)| s > 0 && f64::from(2 * s) >= related * f64::from(probe.weight().min(stmts[i].weight())))
            .collect()
    }

    /// A rule's statements keep no text: the one found again from the rule by its
    /// number is the sentence it was cut from (the text [`statement::statement`]
    /// keeps, with the same tokens), and the sentences without a token have none.
    #[test]
    fn rule_statements_find_their_text_again() {
        for paragraph in [
            "Run `cargo test` before pushing. Never use npm, e.g. `npm i`; use bun.",
            "- Deploy on Mondays.\n- the a of\n  - Keep 4-space indentation!\n**Why:** CI. Runs.",
            "  Tests live in src/api/.  —  Use yarn?\n\nx",
            "é `a. b` c. d\r\n* e.g. this one\n",
            "",
        ] {
            let rule = Rule {
                paragraph: paragraph.to_string(),
                ..Rule::default()
            };
            let mut cutter = Cutter::default();
            let cuts = rule_cuts(&rule, &mut cutter);
            let mut all = Vec::new();
            rule_sentences(paragraph, |s| all.push(s.to_string()));
            let (mut names, mut alone) = (Interner::default(), Interner::default());
            names.adopt([cutter]);
            let got = names.stmts(&cuts);
            let want: Vec<Stmt> = all
                .iter()
                .map(|s| statement::statement(s, &mut alone))
                .filter(|s| !s.is_empty())
                .collect();
            let texts: Vec<String> = cuts.numbers().iter().map(|&n| nth_sentence(paragraph, n)).collect();
            assert_eq!(
                texts,
                want.iter().map(|s| s.text.clone()).collect::<Vec<_>>(),
                "{paragraph:?}"
            );
            let ids = |i: &Interner, s: &Stmt| s.ids().map(|t| i.name(t).to_string()).collect::<Vec<_>>();
            let got: Vec<_> = got.iter().map(|s| (ids(&names, s), s.weight())).collect();
            let want: Vec<_> = want.iter().map(|s| (ids(&alone, s), s.weight())).collect();
            assert_eq!(got, want, "{paragraph:?}");
        }
        assert_eq!(nth_sentence("One. Two.", 5), "");
    }

    /// Memories prepared keeping only what can meet the CLAUDE statements give
    /// the ids the whole preparation gives (an unmet memory's tokens interned in
    /// its place: the first memory's `push` and `deploy` come before the second's
    /// words), the same statements for the memories kept, and none of the memories
    /// left without statements relates to a CLAUDE statement.
    #[test]
    fn memories_that_cannot_meet_keep_only_their_first_tokens() {
        use crate::claude_md::{Line, statements};
        let lines: Vec<Line> = [
            "- Run `cargo test` before pushing.",
            "- Never deploy on Fridays with npm.",
        ]
        .iter()
        .enumerate()
        .map(|(i, t)| Line {
            number: i + 1,
            text: t.to_string(),
        })
        .collect();
        let claude = [super::super::ClaudeFile {
            layer: super::super::Layer::Claude,
            label: "CLAUDE.md".into(),
            statements: statements(&lines),
            mtime_ms: 0.0,
        }];
        let texts = [
            "Keep the staging cache warm before pushing. Deploy the dashboard weekly on staging hosts.\n",
            "Run `cargo test` before pushing the release branch.\n",
            "Rollback with `deploy.sh --undo` when the staging cache breaks.\n",
            "Never deploy on Fridays, use npm.\n",
        ];
        let memories: Vec<Memory> = texts
            .iter()
            .enumerate()
            .map(|(i, t)| Memory::from_text(&format!("m{i}.md"), &format!("---\ntype: feedback\n---\n{t}")))
            .collect();
        let input = Input {
            memories: &memories,
            texts: &[],
            team: &[],
            claude: &claude,
            team_dir: false,
            thresholds: super::super::THRESHOLDS,
            now_ms: 0.0,
        };
        let only = Only {
            vocab: vocab(&claude, input.thresholds.related),
            rules: false,
        };
        let prepared = |only: Option<&Only>| {
            let mut cutter = Cutter::default();
            let p: Vec<Option<Prepared>> = memories
                .iter()
                .zip(texts)
                .map(|(m, t)| prepare_only(m, &format!("---\ntype: feedback\n---\n{t}"), &mut cutter, only))
                .collect();
            (p, cutter)
        };
        let (whole, whole_cutter) = prepared(None);
        let (kept, kept_cutter) = prepared(Some(&only));
        let unmet: Vec<bool> = kept
            .iter()
            .map(|p| matches!(p.as_ref().map(|p| &p.toks), Some(Toks::Unmet { .. })))
            .collect();
        assert_eq!(unmet, [true, false, true, false]);
        let (mut names_whole, mut names_kept) = (Interner::default(), Interner::default());
        names_whole.adopt([whole_cutter]);
        names_kept.adopt([kept_cutter]);
        let items_whole = items(&input, whole, &mut names_whole);
        let items_kept = items(&input, kept, &mut names_kept);
        let units_whole = units(&claude, None, &mut names_whole);
        units(&claude, None, &mut names_kept);
        // The CLAUDE statements as the check cut them intern as cut again.
        let (cuts, cutter) = only.vocab.into_cuts();
        names_kept.adopt(cutter);
        let units_kept = units(&claude, Some(&cuts), &mut names_kept);
        let unit = |u: &Unit| {
            (
                u.file,
                u.line,
                u.stmt.text.clone(),
                u.stmt.ids().collect::<Vec<_>>(),
                u.stmt.weight(),
            )
        };
        assert_eq!(units_whole.len(), 2);
        assert_eq!(
            units_whole.iter().map(unit).collect::<Vec<_>>(),
            units_kept.iter().map(unit).collect::<Vec<_>>()
        );
        let all = |i: Interner| i.into_parts().0;
        let stmts: Vec<&Stmt> = units_whole.iter().map(|u| &u.stmt).collect();
        let postings = Postings::new(&stmts);
        for ((w, k), unmet) in items_whole.iter().zip(&items_kept).zip(&unmet) {
            let ids = |s: &Stmt| (s.ids().collect::<Vec<_>>(), s.weight());
            if *unmet {
                assert!(k.statements.is_empty() && k.rule.paragraph.is_empty());
                let f = find(w, &stmts, &postings, &input.thresholds, &names_whole);
                assert!(f.contradiction.is_none() && f.same.is_none(), "{}", w.memory.rel);
            } else {
                let (a, b): (Vec<_>, Vec<_>) = (
                    w.statements.iter().map(ids).collect(),
                    k.statements.iter().map(ids).collect(),
                );
                assert_eq!(a, b);
                assert_eq!(w.rule, k.rule);
            }
        }
        assert_eq!(all(names_whole), all(names_kept));
    }

    #[test]
    fn candidates_are_those_of_the_full_scan() {
        const WORDS: &[&str] = &[
            "deploy",
            "database",
            "testing",
            "review",
            "release",
            "cache",
            "`cargo test`",
            "staging",
            "npm",
            "bun",
            "rollback",
            "schema",
            "`src/api/`",
            "--frozen-lockfile",
            "never",
            "always",
            "owner",
            "4",
        ];
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = |n: usize| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % n as u64) as usize
        };
        let mut names = Interner::default();
        let texts: Vec<String> = (0..300)
            .map(|_| {
                let n = 1 + next(12);
                (0..n).map(|_| WORDS[next(WORDS.len())]).collect::<Vec<_>>().join(" ")
            })
            .collect();
        let all: Vec<Stmt> = texts.iter().map(|t| statement::statement(t, &mut names)).collect();
        let (indexed, probes) = all.split_at(200);
        let stmts: Vec<&Stmt> = indexed.iter().filter(|s| !s.is_empty()).collect();
        let postings = Postings::new(&stmts);
        for related in [0.3, 0.5, 0.7] {
            for p in probes.iter().filter(|s| !s.is_empty()) {
                assert_eq!(
                    postings.candidates(p, &stmts, related),
                    brute(p, &stmts, related),
                    "{}",
                    p.text
                );
            }
        }
    }
}
