//! `memctl review` (SPEC §12), the analysis: from every memory file and the
//! project's CLAUDE files, numbered proposals to promote a memory to the right
//! layer, remove what a CLAUDE file already says, update an older layer that a
//! newer one contradicts, merge duplicate memories and flag conflicts between
//! private and team feedback. Pure: texts and mtimes in, proposals out, `now`
//! passed in; the command reads the files and [`crate::ops::review`] applies.
//!
//! - `tokens`: the words compared, Jaccard similarity, the commands a text names;
//! - `classify`: which layer a memory's topic belongs to;
//! - `rule`: a memory's rule (first paragraph and `**Why:**` line) and a CLAUDE
//!   file's lines and bullets.
//!
//! Every comparison goes through an inverted index of the CLAUDE units (or the
//! team memories): a memory meets only the units that share a token with it.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::Serialize;

use crate::claude_md::Statement;
use crate::dream::{Cluster, ClusterReason, exact_clusters, similar_clusters};
use crate::memory::{Memory, MemoryType};

pub mod classify;
pub mod rule;
pub mod tokens;

use classify::Topic;
use rule::Rule;
use tokens::Tokens;

/// Duplicated by a CLAUDE line: token-set Jaccard at or above this.
pub const REMOVE_THRESHOLD: f64 = 0.6;
/// Update candidate (and conflict): similarity at or above this, and the two name
/// different commands or tools.
pub const UPDATE_THRESHOLD: f64 = 0.3;
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

    /// Whether applying it changes files (updates and conflicts are only shown).
    pub fn applicable(self) -> bool {
        !matches!(self, Kind::Update | Kind::Conflict)
    }
}

/// Where a promotion goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Layer {
    /// The project's `CLAUDE.md` (or `.claude/CLAUDE.md`).
    Claude,
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
            Layer::Local => "local",
            Layer::Team => "team",
        }
    }

    pub fn parse(word: &str) -> Option<Layer> {
        match word {
            "claude" | "CLAUDE.md" => Some(Layer::Claude),
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
    /// Relative to the project root: `CLAUDE.md`, `.claude/CLAUDE.md`, `CLAUDE.local.md`.
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
    pub claude: &'a [ClaudeFile],
    /// Whether a team dir exists (promotions to `team/` only then).
    pub team_dir: bool,
    /// The executables on `PATH` ([`tokens::path_executables`]).
    pub executables: &'a HashSet<String>,
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
    /// The file's mtime (a CLAUDE line's age is its file's).
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
}

/// The analysis result.
#[derive(Clone, Debug, Default)]
pub struct Analysis {
    pub proposals: Vec<Proposal>,
    pub warnings: Vec<String>,
}

/// A CLAUDE statement as compared.
struct Unit {
    line: usize,
    text: String,
    tokens: Tokens,
}

impl Unit {
    fn new(s: &Statement) -> Unit {
        Unit {
            line: s.line,
            text: s.text.clone(),
            tokens: tokens::tokens(&s.text),
        }
    }
}

/// A memory as compared: its rule, tokens and commands.
struct Item<'a> {
    memory: &'a Memory,
    rule: Rule,
    tokens: Tokens,
    commands: std::collections::BTreeSet<String>,
    team: bool,
}

/// The proposals for `input`, numbered from 1 in their listed order.
pub fn analyze(input: &Input) -> Analysis {
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
        let tokens = tokens::tokens(&rule.text);
        // The rule's paragraph only: a `**Why:**` line often names the tool it replaced.
        let commands = tokens::commands(&rule.paragraph, input.executables);
        items.push(Item {
            memory: m,
            rule,
            tokens,
            commands,
            team: input.team.get(i).copied().unwrap_or(false),
        });
    }
    let units: Vec<(usize, Unit)> = input
        .claude
        .iter()
        .enumerate()
        .flat_map(|(f, c)| c.statements.iter().map(move |s| (f, Unit::new(s))))
        .filter(|(_, u)| !u.tokens.is_empty())
        .collect();
    let claude_index = Postings::new(units.iter().map(|(_, u)| &u.tokens));
    let unit_commands: Vec<_> = units
        .iter()
        .map(|(_, u)| tokens::commands(&u.text, input.executables))
        .collect();
    // Memories marked superseded (§3.11) are not promoted: they are on their way out.
    let superseded = crate::dream::superseded(input.memories);
    let stale: HashSet<&str> = superseded
        .iter()
        .filter(|s| !s.detail.starts_with("supersedes "))
        .map(|s| s.file.as_str())
        .collect();
    let mut out = Vec::new();
    for it in &items {
        let mut best_remove: Option<(f64, usize)> = None;
        let mut best_update: Option<(f64, usize)> = None;
        for (u, overlap) in claude_index.overlaps(&it.tokens) {
            let sim = tokens::jaccard_of(it.tokens.len(), units[u].1.tokens.len(), overlap);
            // Two lines naming different commands contradict each other however
            // many words they share: an update candidate, never a removal (which
            // would forget the newer correction).
            if tokens::differ(&it.commands, &unit_commands[u]) {
                if sim >= UPDATE_THRESHOLD && best_update.is_none_or(|(s, _)| sim > s) {
                    best_update = Some((sim, u));
                }
            } else if sim >= REMOVE_THRESHOLD && best_remove.is_none_or(|(s, _)| sim > s) {
                best_remove = Some((sim, u));
            }
        }
        let unit_evidence = |u: usize| {
            let (f, unit) = &units[u];
            let c = &input.claude[*f];
            Evidence {
                file: c.label.clone(),
                line: unit.line,
                text: unit.text.clone(),
                mtime_ms: c.mtime_ms,
            }
        };
        if let Some((sim, u)) = best_remove {
            let ev = unit_evidence(u);
            let shared = shared_words(&it.tokens, &units[u].1.tokens);
            out.push(Proposal {
                n: 0,
                kind: Kind::Remove,
                memory: it.memory.rel.clone(),
                target: None,
                reason: format!(
                    "{} memory already stated in {}:{}: matched {}; similarity {:.2} ≥ {REMOVE_THRESHOLD:.2}",
                    type_word(it.memory),
                    ev.file,
                    ev.line,
                    shared,
                    sim
                ),
                action: format!("forget {} (history keeps it)", it.memory.rel),
                evidence: vec![memory_evidence(it), ev],
                score: Some(tokens::round2(sim)),
                detail: Detail::default(),
            });
            continue;
        }
        if let Some((sim, u)) = best_update {
            let ev = unit_evidence(u);
            let mine = &it.commands;
            let theirs = &unit_commands[u];
            let memory_newer = it.memory.mtime_ms > ev.mtime_ms;
            let (target, action) = if memory_newer {
                (
                    ev.file.clone(),
                    format!(
                        "update {}:{} to what the newer memory says, or forget the memory; not applied automatically",
                        ev.file, ev.line
                    ),
                )
            } else {
                (
                    it.memory.rel.clone(),
                    format!(
                        "update or forget {}: the newer {} says otherwise; not applied automatically",
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
                    "{} memory names {} where {}:{} names {}; matched {}; similarity {:.2} ≥ {UPDATE_THRESHOLD:.2}; the {} is newer",
                    type_word(it.memory),
                    list(mine.difference(theirs)),
                    ev.file,
                    ev.line,
                    list(theirs.difference(mine)),
                    shared_words(&it.tokens, &units[u].1.tokens),
                    sim,
                    if memory_newer { "memory" } else { "CLAUDE line" }
                ),
                action,
                evidence: vec![memory_evidence(it), ev],
                score: Some(tokens::round2(sim)),
                detail: Detail::default(),
            });
            continue;
        }
        if !it.team
            && !stale.contains(it.memory.rel.as_str())
            && let Some(p) = promotion(it, input.team_dir)
        {
            out.push(p);
        }
    }
    out.extend(merges(&items));
    out.extend(conflicts(&items));
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

fn list<'a>(words: impl Iterator<Item = &'a String>) -> String {
    let v: Vec<String> = words.map(|w| format!("`{w}`")).collect();
    if v.is_empty() { "nothing".into() } else { v.join(", ") }
}

/// The shared words, comma-separated (at most 8, then `…`).
fn shared_words(a: &Tokens, b: &Tokens) -> String {
    let shared: Vec<&str> = a.intersection(b).map(String::as_str).collect();
    words_list(&shared)
}

fn words_list(words: &[&str]) -> String {
    let mut s = words.iter().take(8).copied().collect::<Vec<_>>().join(", ");
    if words.len() > 8 {
        s.push_str(", …");
    }
    if s.is_empty() { "no words".into() } else { s }
}

fn memory_evidence(it: &Item) -> Evidence {
    Evidence {
        file: it.memory.rel.clone(),
        line: it.rule.line,
        text: it.rule.first_line.clone(),
        mtime_ms: it.memory.mtime_ms,
    }
}

/// A promotion of a private memory, when its topic has a layer.
fn promotion(it: &Item, team_dir: bool) -> Option<Proposal> {
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
    let mut layers = vec![Layer::Claude, Layer::Local];
    if team_dir {
        layers.push(Layer::Team);
    }
    let (kind, layer) = match topic {
        Topic::Editor => return None,
        Topic::Branches => (Kind::Ambiguous, None),
        Topic::Personal => (Kind::Promote, Some(Layer::Local)),
        Topic::Convention if ty == Some(MemoryType::Project) && team_dir => (Kind::Promote, Some(Layer::Team)),
        Topic::Convention => (Kind::Promote, Some(Layer::Claude)),
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
        "{} memory about {}{matched}; topic rule (no similarity threshold)",
        type_word(it.memory),
        topic.as_str()
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
        evidence: vec![memory_evidence(it)],
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
        Layer::Local => "CLAUDE.local.md",
        Layer::Team => "team/",
    }
}

/// §3.11's duplicate clusters of two or more memories, private and team apart;
/// the newest member is kept and takes the others' lines.
fn merges(items: &[Item]) -> Vec<Proposal> {
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
            let mut evidence = vec![memory_evidence(keep)];
            evidence.extend(
                found
                    .iter()
                    .filter(|i| i.memory.rel != keep.memory.rel)
                    .map(|i| memory_evidence(i)),
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

/// Private feedback memories against team memories on the same subject
/// (similarity ≥ [`UPDATE_THRESHOLD`]) that name different commands or tools.
fn conflicts(items: &[Item]) -> Vec<Proposal> {
    let team: Vec<&Item> = items.iter().filter(|i| i.team).collect();
    if team.is_empty() {
        return Vec::new();
    }
    let index = Postings::new(team.iter().map(|i| &i.tokens));
    let mut out = Vec::new();
    for it in items
        .iter()
        .filter(|i| !i.team && i.memory.memory_type() == Some(MemoryType::Feedback))
    {
        let mut best: Option<(f64, usize)> = None;
        for (t, overlap) in index.overlaps(&it.tokens) {
            let sim = tokens::jaccard_of(it.tokens.len(), team[t].tokens.len(), overlap);
            if sim >= UPDATE_THRESHOLD
                && tokens::differ(&it.commands, &team[t].commands)
                && best.is_none_or(|(s, _)| sim > s)
            {
                best = Some((sim, t));
            }
        }
        let Some((sim, t)) = best else { continue };
        let other = team[t];
        out.push(Proposal {
            n: 0,
            kind: Kind::Conflict,
            memory: it.memory.rel.clone(),
            target: None,
            reason: format!(
                "private feedback names {} where team memory {} names {}; matched {}; similarity {:.2} ≥ {UPDATE_THRESHOLD:.2}",
                list(it.commands.difference(&other.commands)),
                other.memory.rel,
                list(other.commands.difference(&it.commands)),
                shared_words(&it.tokens, &other.tokens),
                sim
            ),
            action: format!(
                "decide which holds and edit or forget {} or {}; not applied automatically",
                it.memory.rel, other.memory.rel
            ),
            evidence: vec![memory_evidence(it), memory_evidence(other)],
            score: Some(tokens::round2(sim)),
            detail: Detail::default(),
        });
    }
    out
}

/// An inverted index of token sets: for a probe, the sets sharing a token and how
/// many they share, visiting only the postings of the probe's tokens.
struct Postings {
    lists: HashMap<String, Vec<usize>>,
    /// Per set, its overlap with the probe being counted (zero between probes),
    /// reused: a probe costs its postings, not a map or a vector per probe.
    counts: std::cell::RefCell<Vec<u32>>,
}

impl Postings {
    fn new<'a>(sets: impl Iterator<Item = &'a Tokens>) -> Postings {
        let mut lists: HashMap<String, Vec<usize>> = HashMap::new();
        let mut n = 0;
        for (i, s) in sets.enumerate() {
            n = i + 1;
            for t in s {
                lists.entry(t.clone()).or_default().push(i);
            }
        }
        Postings {
            lists,
            counts: std::cell::RefCell::new(vec![0; n]),
        }
    }

    /// `(set, overlap)` for every set sharing a token with `probe`, in set order.
    fn overlaps(&self, probe: &Tokens) -> Vec<(usize, usize)> {
        let mut counts = self.counts.borrow_mut();
        let mut touched = Vec::new();
        for t in probe {
            for &i in self.lists.get(t).map_or(&[][..], Vec::as_slice) {
                if counts[i] == 0 {
                    touched.push(i);
                }
                counts[i] += 1;
            }
        }
        touched.sort_unstable();
        touched
            .into_iter()
            .map(|i| (i, std::mem::take(&mut counts[i]) as usize))
            .collect()
    }
}

#[cfg(test)]
mod tests;
