//! Auto-dream insight (SPEC §2.11, §3.11): the gates in Claude Code's order, a
//! deterministic consolidation plan, and the `dream --dry-run` report that holds
//! both. Pure: the command gathers the facts (lock, sessions, scan, texts, lint
//! findings) and passes `now`.
//!
//! - `gates`: the five gates and the verdict.
//! - `plan`: the four phases of the plan.
//! - `duplicates`, `citations`: the plan's duplicate clusters, superseded memories
//!   and project-file citations.
//! - `caps`: the index against its caps (the truncation report).
//! - `render`: the text form.

mod caps;
mod citations;
mod duplicates;
mod gates;
mod plan;
mod render;

use serde::Serialize;

use crate::lock;
use crate::paths::Resolution;
use crate::sessions::Session;
use crate::text::IsoMs;

pub use caps::Caps;
pub use citations::{Cited, Shape, citations};
pub use duplicates::{
    Cluster, ClusterReason, Superseded, exact_clusters, jaccard, similar_clusters, superseded, tokens,
};
pub use gates::{Gate, GateInput, GateName, GateStatus, Gates, Verdict, gates};
pub use plan::{
    BodyFacts, ByType, Consolidate, Dated, Gather, IndexFinding, MissingCitation, Orient, Plan, PlanInput,
    PruneAndIndex, Recent, RelativeDate, plan,
};
pub use render::render_text;

/// Claude Code's defaults.
pub const MIN_HOURS: f64 = 24.0;
pub const MIN_SESSIONS: usize = 5;
/// The plan's "near the caps" threshold (ML207's default `--warn-at`), in percent.
pub const WARN_AT: f64 = 90.0;

/// `memctl dream --dry-run`: the document of `--json` (without `warnings`), field
/// for field in the contract's order, and what the text form is rendered from.
#[derive(Debug, Serialize)]
pub struct DryRun {
    /// The main memory dir, with its trailing separator.
    pub memory_dir: String,
    pub transcripts_dir: Option<String>,
    pub gates: Vec<Gate>,
    pub verdict: Verdict,
    /// `None` when the verdict is unknown or hangs on auto-dream being enabled.
    pub would_fire: Option<bool>,
    /// What Claude Code would log; `None` with `unknown at <gate>`.
    pub log_line: Option<String>,
    pub last_consolidated_at: Option<IsoMs>,
    pub hours_since: f64,
    pub min_hours: f64,
    pub min_sessions: usize,
    /// Every `*.jsonl` entry of the transcripts dir and whether it counts.
    pub sessions: Vec<Session>,
    /// The `lock status` object.
    pub lock: lock::Status,
    pub plan: Plan,
}

impl DryRun {
    /// The report on the main memory dir of `res` from its gates, the transcripts
    /// dir's entries, the lock and the plan.
    pub fn new(res: &Resolution, gates: Gates, sessions: Vec<Session>, lock: lock::Status, plan: Plan) -> DryRun {
        DryRun {
            memory_dir: crate::paths::with_sep(res.memdir.main()),
            transcripts_dir: res.transcripts_dir.clone(),
            gates: gates.gates,
            verdict: gates.verdict,
            would_fire: gates.would_fire,
            log_line: gates.log_line,
            last_consolidated_at: lock.info.mtime_ms.map(IsoMs),
            hours_since: gates.hours_since,
            min_hours: gates.min_hours,
            min_sessions: gates.min_sessions,
            sessions,
            lock,
            plan,
        }
    }
}
