//! `memctl review` (SPEC §12), the analysis: from every memory file and the
//! project's CLAUDE files, numbered proposals to promote a memory to the right
//! layer, remove what a CLAUDE file already says, update an older layer that a
//! newer one contradicts, merge duplicate memories and flag conflicts between
//! private and team feedback. Pure: texts and mtimes in, proposals out, `now`
//! passed in; the command reads the files and [`crate::ops::review`] applies.
//!
//! - `statement`: statements, their tokens (words and terms), containment and how
//!   two statements relate (the same, contradicting, merely related);
//! - `tokens`: the words of the topic rules;
//! - `classify`: which layer a memory's topic belongs to;
//! - `rule`: a memory's rule (first paragraph and `**Why:**` line);
//! - `eval` (tests): the labelled evaluation set the thresholds are chosen on.
//!
//! Every comparison goes through an inverted index of the CLAUDE/AGENTS statements
//! (or the team memories'): a memory statement meets only the statements that
//! share a token with it.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::Serialize;

use crate::claude_md::Statement;
use crate::dream::{Cluster, ClusterReason, exact_clusters, similar_clusters};
use crate::memory::{Memory, MemoryType};

pub mod classify;
#[cfg(test)]
mod eval;
pub mod rule;
pub mod statement;
pub mod tokens;

use classify::Topic;
use rule::Rule;
use statement::{Interner, Relation, Stmt, Thresholds};

/// The thresholds chosen on the evaluation set (`src/review/eval.rs`, the figures
/// in the README): a memory statement is stated by a CLAUDE/AGENTS statement at
/// containment ≥ `remove` (and every term it names is there); two statements are
/// on the same subject, so may contradict, at ≥ `related`.
pub const THRESHOLDS: Thresholds = Thresholds {
    remove: 0.7,
    related: 0.5,
};
/// §3.11's similarity for merge clusters (rule (c)).
pub const MERGE_THRESHOLD: f64 = 0.5;

/// The kinds of proposal, in the order they are listed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Promote,
    Ambiguous,
    Remove,
    Update,
    Merge,
    Conflict,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Promote => "promote",
            Kind::Ambiguous => "ambiguous",
            Kind::Remove => "remove",
            Kind::Update => "update",
            Kind::Merge => "merge",
            Kind::Conflict => "conflict",
        }
    }

    /// Whether applying it changes files (conflicts are only shown; an update is
    /// applied only on its own, see [`crate::ops::review::plan`]).
    pub fn applicable(self) -> bool {
        !matches!(self, Kind::Conflict)
    }
}

/// Where a promotion goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Layer {
    /// The project's `CLAUDE.md` (or `.claude/CLAUDE.md`).
    Claude,
    /// The project's `AGENTS.md` (or `.claude/AGENTS.md`).
    Agents,
    /// `CLAUDE.local.md` at the project root.
    Local,
    /// The team memory dir.
    Team,
}

impl Layer {
    /// The word `--apply N=WORD` takes.
    pub fn word(self) -> &'static str {
        match self {
            Layer::Claude => "claude",
            Layer::Agents => "agents",
            Layer::Local => "local",
            Layer::Team => "team",
        }
    }

    pub fn parse(word: &str) -> Option<Layer> {
        match word {
            "claude" | "CLAUDE.md" => Some(Layer::Claude),
            "agents" | "AGENTS.md" => Some(Layer::Agents),
            "local" | "CLAUDE.local.md" => Some(Layer::Local),
            "team" | "team/" => Some(Layer::Team),
            _ => None,
        }
    }
}

/// A CLAUDE file as read: its layer, how it is shown, its lines and mtime.
#[derive(Clone, Debug)]
pub struct ClaudeFile {
    pub layer: Layer,
    /// Relative to the project root: `CLAUDE.md`, `.claude/CLAUDE.md`, `CLAUDE.local.md`,
    /// `AGENTS.md`, `.claude/AGENTS.md`.
    pub label: String,
    /// Its bullets and paragraphs ([`crate::claude_md::statements`]).
    pub statements: Vec<Statement>,
    pub mtime_ms: f64,
}

/// What the analysis reads.
pub struct Input<'a> {
    /// Every memory the scan found (hubs and unreadable ones are skipped).
    pub memories: &'a [Memory],
    /// Each memory's whole text (`None`: it could not be read), in the same order.
    pub texts: &'a [Option<String>],
    /// Whether each memory is in the team dir.
    pub team: &'a [bool],
    /// The CLAUDE and AGENTS files that exist.
    pub claude: &'a [ClaudeFile],
    /// Whether a team dir exists (promotions to `team/` only then).
    pub team_dir: bool,
    /// [`THRESHOLDS`], or others when the evaluation sweeps them.
    pub thresholds: Thresholds,
    pub now_ms: f64,
}

/// A line shown as evidence.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Evidence {
    /// A memory (relative to the memory dir) or a CLAUDE file (relative to the
    /// project root).
    pub file: String,
    pub line: usize,
    pub text: String,
    /// Whole days since the file changed (a CLAUDE line's age is its file's).
    pub age_days: u64,
    /// The file's mtime.
    #[serde(skip)]
    pub mtime_ms: f64,
}

/// One proposal.
#[derive(Clone, Debug, Serialize)]
pub struct Proposal {
    pub n: usize,
    pub kind: Kind,
    /// The memory it is about (relative to the memory dir); for a merge, the
    /// memories folded into the target (`, `-separated when several).
    pub memory: String,
    /// `CLAUDE.md`, `CLAUDE.local.md`, `team/`, the file to update or, for a merge,
    /// the memory kept; `null` for removals, conflicts and ambiguous promotions.
    pub target: Option<String>,
    pub evidence: Vec<Evidence>,
    /// The similarity (two decimals) for removals, updates, merges and conflicts.
    pub score: Option<f64>,
    pub reason: String,
    pub action: String,
    #[serde(skip)]
    pub detail: Detail,
}

/// What applying a proposal needs beyond what is shown.
#[derive(Clone, Debug, Default)]
pub struct Detail {
    /// The default layer of a promotion.
    pub layer: Option<Layer>,
    /// The layers a promotion may go to.
    pub layers: Vec<Layer>,
    /// The bullet a promotion appends: the rule's first paragraph and its
    /// `**Why:**` line ([`crate::claude_md::bullet`]).
    pub bullet: String,
    /// A merge's members folded in (the target is the one kept).
    pub others: Vec<String>,
    /// An update's two statements.
    pub update: Option<UpdateDetail>,
}

/// What applying an update does: rewrite the older CLAUDE/AGENTS statement with
/// the newer memory's, or forget the older memory (SPEC §12).
#[derive(Clone, Debug)]
pub struct UpdateDetail {
    pub memory_newer: bool,
    /// The file of the CLAUDE/AGENTS statement and the line it starts on.
    pub layer: Layer,
    pub line: usize,
    /// The CLAUDE/AGENTS statement (as written) and the memory's.
    pub old: String,
    pub new: String,
}

/// The analysis result.
#[derive(Clone, Debug, Default)]
pub struct Analysis {
    pub proposals: Vec<Proposal>,
    pub warnings: Vec<String>,
}

/// A memory as compared: its rule, its statements and (for the topic rules) its tokens.
struct Item<'a> {
    memory: &'a Memory,
    rule: Rule,
    statements: Vec<Stmt>,
    team: bool,
}

/// A CLAUDE/AGENTS statement as compared: the file it is in, its line.
struct Unit {
    file: usize,
    line: usize,
    stmt: Stmt,
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
struct Found {
    /// `(score, memory statement, other statement, why)`.
    contradiction: Option<(f64, usize, usize, String)>,
    /// How many of the memory's statements another states.
    covered: usize,
    /// `(score, memory statement, other statement)`.
    same: Option<(f64, usize, usize)>,
}

fn find(it: &Item, others: &[&Stmt], postings: &Postings, th: &Thresholds, names: &Interner) -> Found {
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

/// The proposals for `input`, numbered from 1 in their listed order.
pub fn analyze(input: &Input) -> Analysis {
    let th = &input.thresholds;
    let mut names = Interner::default();
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
        let statements = rule_statements(&rule, &mut names);
        items.push(Item {
            memory: m,
            rule,
            statements,
            team: input.team.get(i).copied().unwrap_or(false),
        });
    }
    let mut units: Vec<Unit> = Vec::new();
    for (f, c) in input.claude.iter().enumerate() {
        for s in &c.statements {
            for sentence in statement::sentences(&s.text) {
                let stmt = statement::statement(sentence, &mut names);
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
    let unit_stmts: Vec<&Stmt> = units.iter().map(|u| &u.stmt).collect();
    let claude_index = Postings::new(&unit_stmts);
    // Memories marked superseded (§3.11) are not promoted: they are on their way out.
    let superseded = crate::dream::superseded(input.memories);
    let stale: HashSet<&str> = superseded
        .iter()
        .filter(|s| !s.detail.starts_with("supersedes "))
        .map(|s| s.file.as_str())
        .collect();
    let age = |ms: f64| crate::age::age_days(input.now_ms, ms);
    let unit_evidence = |u: usize| {
        let unit = &units[u];
        let c = &input.claude[unit.file];
        Evidence {
            file: c.label.clone(),
            line: unit.line,
            text: unit.stmt.text.clone(),
            age_days: age(c.mtime_ms),
            mtime_ms: c.mtime_ms,
        }
    };
    let (mut out, in_conflict) = conflicts(&items, th, &names, input.now_ms);
    for it in &items {
        let found = find(it, &unit_stmts, &claude_index, th, &names);
        if let Some((score, k, u, why)) = found.contradiction {
            let ev = unit_evidence(u);
            let memory_newer = it.memory.mtime_ms > ev.mtime_ms;
            let (target, action) = if memory_newer {
                (
                    ev.file.clone(),
                    format!(
                        "replace the statement at {}:{} with the newer memory's (apply it on its own: --apply N), or edit it yourself",
                        ev.file, ev.line
                    ),
                )
            } else {
                (
                    it.memory.rel.clone(),
                    format!(
                        "forget {}: the newer {} says otherwise (apply it on its own: --apply N), or edit it yourself",
                        it.memory.rel, ev.file
                    ),
                )
            };
            out.push(Proposal {
                n: 0,
                kind: Kind::Update,
                memory: it.memory.rel.clone(),
                target: Some(target),
                reason: format!(
                    "{} memory contradicts {}:{}: {why}; matched {}; containment {:.2} ≥ {:.2}; the {} is newer",
                    type_word(it.memory),
                    ev.file,
                    ev.line,
                    statement::shared_words(&it.statements[k], &units[u].stmt, &names),
                    score,
                    th.related,
                    if memory_newer { "memory" } else { "CLAUDE line" }
                ),
                action,
                evidence: vec![statement_evidence(it, k, input.now_ms), ev],
                score: Some(tokens::round2(score)),
                detail: Detail {
                    update: Some(UpdateDetail {
                        memory_newer,
                        layer: input.claude[units[u].file].layer,
                        line: units[u].line,
                        old: units[u].stmt.text.clone(),
                        new: it.statements[k].text.clone(),
                    }),
                    ..Detail::default()
                },
            });
            continue;
        }
        // Stated elsewhere: one of its statements is said by a CLAUDE/AGENTS
        // statement (SPEC §12): promoting it would say it twice; the reason says
        // how many of its statements are stated.
        if let Some((score, k, u)) = found.same {
            let ev = unit_evidence(u);
            out.push(Proposal {
                n: 0,
                kind: Kind::Remove,
                memory: it.memory.rel.clone(),
                target: None,
                reason: format!(
                    "{} memory already stated in {}:{}: matched {}; containment {:.2} ≥ {:.2}; {} of its {} statement{} stated",
                    type_word(it.memory),
                    ev.file,
                    ev.line,
                    statement::shared_words(&it.statements[k], &units[u].stmt, &names),
                    score,
                    th.remove,
                    found.covered,
                    it.statements.len(),
                    if it.statements.len() == 1 { "" } else { "s" }
                ),
                action: format!("forget {} (history keeps it)", it.memory.rel),
                evidence: vec![statement_evidence(it, k, input.now_ms), ev],
                score: Some(tokens::round2(score)),
                detail: Detail::default(),
            });
            continue;
        }
        if !it.team
            && !stale.contains(it.memory.rel.as_str())
            && !in_conflict.contains(it.memory.rel.as_str())
            && let Some(p) = promotion(it, input)
        {
            out.push(p);
        }
    }
    out.extend(merges(&items, input.now_ms));
    out.sort_by(|a, b| {
        (
            a.kind,
            &a.memory,
            &a.target,
            a.evidence.first().map(|e| (&e.file, e.line)),
        )
            .cmp(&(
                b.kind,
                &b.memory,
                &b.target,
                b.evidence.first().map(|e| (&e.file, e.line)),
            ))
    });
    for (i, p) in out.iter_mut().enumerate() {
        p.n = i + 1;
        if p.kind == Kind::Ambiguous {
            p.action = ambiguous_action(p);
        }
        if p.kind == Kind::Update {
            p.action = p.action.replace("--apply N", &format!("--apply {}", p.n));
        }
    }
    Analysis {
        proposals: out,
        warnings: Vec::new(),
    }
}

/// `feedback`, `project`, … or `untyped`.
fn type_word(m: &Memory) -> &'static str {
    m.memory_type().map_or("untyped", MemoryType::as_str)
}

fn words_list(words: &[&str]) -> String {
    let mut s = words.iter().take(8).copied().collect::<Vec<_>>().join(", ");
    if words.len() > 8 {
        s.push_str(", …");
    }
    if s.is_empty() { "no words".into() } else { s }
}

fn memory_evidence(it: &Item, now_ms: f64) -> Evidence {
    Evidence {
        file: it.memory.rel.clone(),
        line: it.rule.line,
        text: it.rule.first_line.clone(),
        age_days: crate::age::age_days(now_ms, it.memory.mtime_ms),
        mtime_ms: it.memory.mtime_ms,
    }
}

/// A memory's statement `k` as evidence: its text, on the rule line it starts on.
fn statement_evidence(it: &Item, k: usize, now_ms: f64) -> Evidence {
    let text = it.statements.get(k).map_or("", |s| s.text.as_str());
    let probe: String = text.chars().take(24).collect();
    let offset = it
        .rule
        .paragraph
        .lines()
        .position(|l| l.contains(probe.as_str()))
        .unwrap_or(0);
    Evidence {
        line: it.rule.line + offset,
        text: text.to_string(),
        ..memory_evidence(it, now_ms)
    }
}

/// A promotion of a private memory, when its topic has a layer: a project
/// convention into the file the project keeps its rules in (`CLAUDE.md` when it
/// exists, else `AGENTS.md` when it exists, else a new `CLAUDE.md`; with both,
/// `ambiguous` between them).
fn promotion(it: &Item, input: &Input) -> Option<Proposal> {
    let team_dir = input.team_dir;
    let ty = it.memory.memory_type();
    let about = format!(
        "{} {}",
        it.memory.name().unwrap_or_default(),
        it.memory.description_text()
    );
    let about_tokens = tokens::tokens(&about);
    let rule_tokens = tokens::tokens(&it.rule.paragraph);
    let (topic, words) = classify::topic(&classify::Subject {
        ty,
        about: &about_tokens,
        rule: &rule_tokens,
        raw_about: &about,
        raw_rule: &it.rule.paragraph,
    })?;
    let has = |l: Layer| input.claude.iter().any(|c| c.layer == l);
    let project_files = match (has(Layer::Claude), has(Layer::Agents)) {
        (false, true) => vec![Layer::Agents],
        (true, true) => vec![Layer::Claude, Layer::Agents],
        _ => vec![Layer::Claude],
    };
    let both = project_files.len() == 2;
    let mut layers = project_files.clone();
    layers.push(Layer::Local);
    if team_dir {
        layers.push(Layer::Team);
    }
    let (kind, layer) = match topic {
        Topic::Editor => return None,
        Topic::Branches => (Kind::Ambiguous, None),
        Topic::Personal => (Kind::Promote, Some(Layer::Local)),
        Topic::Convention if ty == Some(MemoryType::Project) && team_dir => (Kind::Promote, Some(Layer::Team)),
        Topic::Convention if both => (Kind::Ambiguous, None),
        Topic::Convention => (Kind::Promote, Some(project_files[0])),
    };
    let matched = if words.is_empty() {
        String::new()
    } else {
        format!(
            "; matched {}",
            words_list(&words.iter().map(String::as_str).collect::<Vec<_>>())
        )
    };
    let reason = format!(
        "{} memory about {}{matched}; topic rule (no similarity threshold){}",
        type_word(it.memory),
        topic.as_str(),
        if both && topic == Topic::Convention {
            "; the project has both CLAUDE.md and AGENTS.md: pick one"
        } else {
            ""
        }
    );
    let target = layer.map(|l| target_label(l).to_string());
    let action = match layer {
        Some(Layer::Team) => format!("move {} into team/ (shared with the team)", it.memory.rel),
        Some(l) => format!(
            "append its rule under `## From memory` in {}, then forget {}",
            target_label(l),
            it.memory.rel
        ),
        // Named with the proposal's number, known once the proposals are sorted.
        None => String::new(),
    };
    Some(Proposal {
        n: 0,
        kind,
        memory: it.memory.rel.clone(),
        target,
        evidence: vec![memory_evidence(it, input.now_ms)],
        score: None,
        reason,
        action,
        detail: Detail {
            layer,
            layers,
            bullet: crate::claude_md::bullet(
                it.rule.paragraph.trim(),
                it.rule.why.as_deref().filter(|w| !it.rule.paragraph.contains(*w)),
            ),
            others: Vec::new(),
            update: None,
        },
    })
}

/// An ambiguous promotion's action, naming its own number: `apply as 3=claude,
/// 3=local or 3=team …`.
fn ambiguous_action(p: &Proposal) -> String {
    let picks: Vec<String> = p
        .detail
        .layers
        .iter()
        .map(|l| format!("{}={}", p.n, l.word()))
        .collect();
    let picks = match picks.split_last() {
        Some((last, rest)) if rest.len() > 1 => format!("{} or {last}", rest.join(", ")),
        _ => picks.join(", "),
    };
    format!(
        "no default target: apply as {picks} to append its rule there, then forget {}",
        p.memory
    )
}

/// How a layer is named as a target.
pub fn target_label(l: Layer) -> &'static str {
    match l {
        Layer::Claude => "CLAUDE.md",
        Layer::Agents => "AGENTS.md",
        Layer::Local => "CLAUDE.local.md",
        Layer::Team => "team/",
    }
}

/// §3.11's duplicate clusters of two or more memories, private and team apart;
/// the newest member is kept and takes the others' lines.
fn merges(items: &[Item], now_ms: f64) -> Vec<Proposal> {
    let mut out = Vec::new();
    for team in [false, true] {
        let members: Vec<Memory> = items
            .iter()
            .filter(|i| i.team == team)
            .map(|i| i.memory.clone())
            .collect();
        if members.len() < 2 {
            continue;
        }
        let mut clusters: Vec<Cluster> = exact_clusters(&members, &BTreeMap::new());
        clusters.extend(similar_clusters(&members));
        let by_rel: HashMap<&str, &Item> = items.iter().map(|i| (i.memory.rel.as_str(), i)).collect();
        let mut seen: HashSet<Vec<String>> = HashSet::new();
        for mut c in clusters {
            c.files.sort();
            if c.files.len() < 2 || !seen.insert(c.files.clone()) {
                continue;
            }
            let found: Vec<&Item> = c.files.iter().filter_map(|f| by_rel.get(f.as_str()).copied()).collect();
            let Some(keep) = found
                .iter()
                .max_by(|a, b| {
                    a.memory
                        .mtime_ms
                        .total_cmp(&b.memory.mtime_ms)
                        .then_with(|| b.memory.rel.cmp(&a.memory.rel))
                })
                .copied()
            else {
                continue;
            };
            let others: Vec<String> = c.files.iter().filter(|f| **f != keep.memory.rel).cloned().collect();
            let score = match c.reason {
                ClusterReason::Similar(s) => s,
                _ => 1.0,
            };
            let threshold = match c.reason {
                ClusterReason::Similar(_) => format!(" ≥ {MERGE_THRESHOLD:.2}"),
                _ => String::new(),
            };
            let mut evidence = vec![memory_evidence(keep, now_ms)];
            evidence.extend(
                found
                    .iter()
                    .filter(|i| i.memory.rel != keep.memory.rel)
                    .map(|i| memory_evidence(i, now_ms)),
            );
            out.push(Proposal {
                n: 0,
                kind: Kind::Merge,
                // The memories folded in; the target is the one kept.
                memory: others.join(", "),
                target: Some(keep.memory.rel.clone()),
                reason: format!(
                    "{} memories with {}: {}; score {:.2}{threshold} (the name and description tokens, as dream --dry-run clusters them)",
                    c.files.len(),
                    match c.reason {
                        ClusterReason::Similar(_) => "similar names and descriptions".to_string(),
                        r => r.to_string(),
                    },
                    c.files.join(", "),
                    score
                ),
                action: format!(
                    "keep {} (the newest), add the lines only {} hold{}, then forget {}",
                    keep.memory.rel,
                    others.join(", "),
                    if others.len() == 1 { "s" } else { "" },
                    others.join(", ")
                ),
                evidence,
                score: Some(tokens::round2(score)),
                detail: Detail {
                    others,
                    ..Detail::default()
                },
            });
        }
    }
    out
}

/// Private memories against team memories: a private memory one of whose
/// statements contradicts a team memory's is a conflict (and is not promoted).
/// Returns the proposals and the private memories in a conflict.
fn conflicts<'a>(
    items: &'a [Item],
    th: &Thresholds,
    names: &Interner,
    now_ms: f64,
) -> (Vec<Proposal>, HashSet<&'a str>) {
    let mut out = Vec::new();
    let mut involved = HashSet::new();
    let team: Vec<&Item> = items.iter().filter(|i| i.team).collect();
    if team.is_empty() {
        return (out, involved);
    }
    // Every team statement, with the team memory it belongs to.
    let mut owner = Vec::new();
    let mut stmts: Vec<&Stmt> = Vec::new();
    for (t, it) in team.iter().enumerate() {
        for (k, s) in it.statements.iter().enumerate() {
            owner.push((t, k));
            stmts.push(s);
        }
    }
    let index = Postings::new(&stmts);
    for it in items.iter().filter(|i| !i.team) {
        let found = find(it, &stmts, &index, th, names);
        let Some((score, k, o, why)) = found.contradiction else {
            continue;
        };
        let (t, tk) = owner[o];
        let other = team[t];
        involved.insert(it.memory.rel.as_str());
        out.push(Proposal {
            n: 0,
            kind: Kind::Conflict,
            memory: it.memory.rel.clone(),
            target: None,
            reason: format!(
                "private {} memory contradicts team memory {}: {}; matched {}; containment {:.2} ≥ {:.2}",
                type_word(it.memory),
                other.memory.rel,
                why.replace("the other", "the team memory"),
                statement::shared_words(&it.statements[k], stmts[o], names),
                score,
                th.related
            ),
            action: format!(
                "decide which holds and edit or forget {} or {}; not applied automatically",
                it.memory.rel, other.memory.rel
            ),
            evidence: vec![statement_evidence(it, k, now_ms), statement_evidence(other, tk, now_ms)],
            score: Some(tokens::round2(score)),
            detail: Detail::default(),
        });
    }
    (out, involved)
}

/// An inverted index of statements' tokens: for a probe, the statements sharing
/// a token with it, each once, in statement order.
struct Postings {
    lists: crate::fx::HashMap<u32, Vec<usize>>,
    /// Per statement, how many tokens it shares with the probe being counted (zero
    /// between probes; reused: a probe costs its postings, not a set per probe).
    seen: std::cell::RefCell<(u32, Vec<u32>)>,
}

impl Postings {
    fn new(stmts: &[&Stmt]) -> Postings {
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
    fn candidates(&self, probe: &Stmt) -> Vec<(usize, u32)> {
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

#[cfg(test)]
mod tests;
