//! `memctl review` (SPEC §12), the analysis: from every memory file and the
//! project's CLAUDE files, numbered proposals to promote a memory to the right
//! layer, remove what a CLAUDE file already says, update an older layer that a
//! newer one contradicts, merge duplicate memories and flag conflicts between
//! private and team feedback. Pure: texts and mtimes in, proposals out, `now`
//! passed in; the command reads the files and [`crate::ops::review`] applies.
//!
//! - `compare`: what is compared (the memories' rule statements, the CLAUDE/AGENTS
//!   statements) and the inverted index they meet through;
//! - `propose`: SPEC §12's steps per memory (update, remove, else promotion), the
//!   conflicts with team memories, the numbering;
//! - `promote`: a promotion's kind, target and layers; `merge`: merges;
//! - `statement`: statements, their tokens (words and terms), containment and how
//!   two statements relate (the same, contradicting, merely related);
//! - `tokens`: the words of the topic rules; `words`: the statements' word lists;
//! - `classify`: which layer a memory's topic belongs to;
//! - `rule`: a memory's rule (first paragraph and `**Why:**` line);
//! - `eval` (tests): the labelled evaluation set the thresholds are chosen on.
//!
//! Every comparison goes through an inverted index of the CLAUDE/AGENTS statements
//! (or the team memories'): a memory statement meets only the statements that
//! share a token with it.

use serde::Serialize;

use crate::claude_md::Statement;
use crate::memory::Memory;

pub mod classify;
mod compare;
#[cfg(test)]
mod eval;
mod merge;
mod promote;
mod propose;
pub mod rule;
pub mod statement;
pub mod tokens;
mod words;

pub use compare::{Only, Prepared, prepare, prepare_only, vocab};
pub use statement::{Cuts, Cutter};
use statement::{Interner, Thresholds};

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
    /// A promotion's rule: its first paragraph and its `**Why:**` line, from
    /// which [`Detail::bullet`] is made when the promotion is applied.
    pub paragraph: String,
    pub why: Option<String>,
    /// A merge's members folded in (the target is the one kept).
    pub others: Vec<String>,
    /// An update's two statements.
    pub update: Option<UpdateDetail>,
}

impl Detail {
    /// The bullet a promotion appends: the rule's first paragraph and its
    /// `**Why:**` line when that is not in it ([`crate::claude_md::bullet`]).
    pub fn bullet(&self) -> String {
        crate::claude_md::bullet(
            self.paragraph.trim(),
            self.why.as_deref().filter(|w| !self.paragraph.contains(*w)),
        )
    }
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

/// How a layer is named as a target.
pub fn target_label(l: Layer) -> &'static str {
    match l {
        Layer::Claude => "CLAUDE.md",
        Layer::Agents => "AGENTS.md",
        Layer::Local => "CLAUDE.local.md",
        Layer::Team => "team/",
    }
}

/// The proposals for `input`, numbered from 1 in their listed order: the
/// memories and the CLAUDE/AGENTS statements (interned in that order), the
/// conflicts with team memories, each memory classified (update, remove or
/// promotion), the merges, then the numbering.
pub fn analyze(input: &Input) -> Analysis {
    let mut cutter = Cutter::default();
    let prepared = input
        .memories
        .iter()
        .zip(input.texts)
        .map(|(m, t)| t.as_deref().and_then(|t| prepare(m, t, &mut cutter)))
        .collect();
    analyze_prepared(input, prepared, vec![cutter], None)
}

/// [`analyze`] from each memory's [`prepare`] (`None`: it could not be read)
/// instead of its text (`input.texts` is not read): the command prepares the
/// memories on the scan's reader threads and keeps them, not the whole texts,
/// of a large dir. `cutters`: the cutters that prepared them (the prepared
/// memories' token texts are theirs). `claude`: the CLAUDE/AGENTS statements
/// as [`vocab`] cut them (its cutter among `cutters`), else `None`.
pub fn analyze_prepared(
    input: &Input,
    prepared: Vec<Option<Prepared>>,
    cutters: Vec<Cutter>,
    claude: Option<Cuts>,
) -> Analysis {
    // The merges read only each memory and its rule's first line: they are
    // found on a thread of their own while the statements are compared.
    let members = compare::merge_items(input, &prepared);
    std::thread::scope(|s| {
        let merges = s.spawn(|| merge::merges(&members, input.now_ms));
        let mut out = compared(input, prepared, cutters, claude.as_ref());
        out.extend(merges.join().unwrap_or_else(|e| std::panic::resume_unwind(e)));
        propose::number(&mut out);
        Analysis {
            proposals: out,
            warnings: Vec::new(),
        }
    })
}

/// The conflicts, then each memory's update, removal or promotion.
fn compared(input: &Input, prepared: Vec<Option<Prepared>>, cutters: Vec<Cutter>, cut: Option<&Cuts>) -> Vec<Proposal> {
    let mut names = Interner::default();
    names.adopt(cutters);
    let mut items = compare::items(input, prepared, &mut names);
    let units = compare::units(input.claude, cut, &mut names);
    let claude = propose::Claude::new(input.claude, &units);
    let stale = propose::stale(input.memories);
    let (mut out, in_conflict) = propose::conflicts(&items, &input.thresholds, &names, input.now_ms);
    let cx = propose::Ctx {
        input,
        claude: &claude,
        names: &names,
        stale: &stale,
        in_conflict: &in_conflict,
    };
    for it in &mut items {
        let mut p = propose::classify(it, &cx);
        // The peak is the statements or the proposals, not both.
        it.shed(p.as_mut());
        out.extend(p);
    }
    out
}

#[cfg(test)]
mod tests;
