//! Auto-dream insight (SPEC §2.11, §3.11): the gates in Claude Code's order, a
//! deterministic consolidation plan, and the `dream --dry-run` report that holds
//! both. Pure: the command gathers the facts (lock, sessions, scan, texts, lint
//! findings) and passes `now`.
//!
//! - `gates`: the seven gates and the verdict.
//! - `plan`: the four phases of the plan.
//! - `duplicates`, `citations`: the plan's duplicate clusters, superseded memories
//!   and project-file citations.
//! - `caps`: the index against its caps (the truncation report).
//! - `permission`: the Write/Edit deny and ask rules of the permission gate.
//! - `record`: what the plan keeps of each memory.
//! - `render`: the text form.

mod caps;
mod citations;
mod duplicates;
mod gates;
mod permission;
mod plan;
mod record;
mod render;
mod similar;

use serde::Serialize;

use crate::lock;
use crate::paths::Resolution;
use crate::paths::flags::OnyxPloverReport;
use crate::sessions::Session;
use crate::text::IsoMs;

pub use caps::Caps;
pub use citations::{Cited, Shape, citations};
pub use duplicates::{
    Cluster, ClusterReason, Superseded, exact_clusters, jaccard, similar_clusters, superseded, tokens,
};
pub use gates::{
    Gate, GateInput, GateName, GateStatus, Gates, Organization, Permission, Rule, SDK_ENTRYPOINTS, Verdict, gates,
};
pub use permission::permission;
pub use plan::{
    BodyFacts, ByType, Consolidate, Dated, Gather, IndexFinding, IndexPart, MissingCitation, Orient, PLAN_RULES, Plan,
    PlanInput, PruneAndIndex, Recent, RelativeDate, plan,
};
pub use record::Record;
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
    /// A whole number is written as an integer (`5`), as Claude Code's JSON would.
    #[serde(serialize_with = "js_num")]
    pub min_sessions: f64,
    /// Every `*.jsonl` entry of the transcripts dir and whether it counts.
    pub sessions: Vec<Session>,
    /// The `lock status` object.
    pub lock: lock::Status,
    pub plan: Plan,
    /// (2.1.332) The fields appended after `warnings` (see [`DryRun::to_json`]).
    #[serde(skip)]
    pub tail: Tail,
}

/// (2.1.332) `dream --json`'s fields appended after `warnings` (SPEC §3.11).
#[derive(Clone, Debug, Serialize)]
pub struct Tail {
    /// The `auto_dream.flag` object of `path --json`.
    pub flag: OnyxPloverReport,
    /// Where `min_hours`/`min_sessions` came from.
    pub thresholds_source: ThresholdsSource,
    /// Always true: Claude Code dreams only in interactive sessions.
    pub interactive_only: bool,
}

/// Where the thresholds came from: the options, the cached flag, or the defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ThresholdsSource {
    Options,
    Flag,
    Default,
}

/// A number as JavaScript prints it: whole numbers as integers.
fn js_num<S: serde::Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
    if x.fract() == 0.0 && x.abs() < 9_007_199_254_740_992.0 {
        s.serialize_i64(*x as i64)
    } else {
        s.serialize_f64(*x)
    }
}

/// The thresholds for the time and sessions gates (SPEC §2.11, §3.11): each option
/// given wins; else the cached flag's `minHours`/`minSessions` when a positive
/// finite number; else 24 and 5. The source is `options` when any option was given, else
/// `flag` when the flag supplied either value, else `default`.
pub fn thresholds(
    min_hours: Option<f64>,
    min_sessions: Option<f64>,
    flag: Option<&crate::paths::flags::OnyxPlover>,
) -> (f64, f64, ThresholdsSource) {
    let fh = flag.and_then(|f| f.min_hours);
    let fs = flag.and_then(|f| f.min_sessions);
    let source = if min_hours.is_some() || min_sessions.is_some() {
        ThresholdsSource::Options
    } else if fh.is_some() || fs.is_some() {
        ThresholdsSource::Flag
    } else {
        ThresholdsSource::Default
    };
    (
        min_hours.or(fh).unwrap_or(MIN_HOURS),
        min_sessions.or(fs).unwrap_or(MIN_SESSIONS as f64),
        source,
    )
}

impl DryRun {
    /// The report on the main memory dir of `res` from its gates, the transcripts
    /// dir's entries, the lock and the plan.
    pub fn new(
        res: &Resolution,
        gates: Gates,
        sessions: Vec<Session>,
        lock: lock::Status,
        plan: Plan,
        tail: Tail,
    ) -> DryRun {
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
            tail,
        }
    }

    /// The `--json` document: the fields in contract order, an empty `warnings`
    /// (filled in place by the output) and the appended 2.1.332 fields after it.
    pub fn to_json(&self) -> serde_json::Result<serde_json::Value> {
        let mut v = serde_json::to_value(self)?;
        if let (serde_json::Value::Object(map), serde_json::Value::Object(tail)) =
            (&mut v, serde_json::to_value(&self.tail)?)
        {
            map.insert("warnings".into(), serde_json::Value::Array(Vec::new()));
            map.extend(tail);
        }
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::paths::flags::OnyxPlover;

    #[test]
    fn thresholds_come_from_the_options_the_flag_or_the_defaults() {
        assert_eq!(thresholds(None, None, None), (24.0, 5.0, ThresholdsSource::Default));
        let f = OnyxPlover {
            enabled: true,
            available: false,
            min_hours: Some(12.0),
            min_sessions: None,
        };
        assert_eq!(thresholds(None, None, Some(&f)), (12.0, 5.0, ThresholdsSource::Flag));
        assert_eq!(
            thresholds(Some(1.0), None, Some(&f)),
            (1.0, 5.0, ThresholdsSource::Options)
        );
        let none = OnyxPlover { min_hours: None, ..f };
        assert_eq!(
            thresholds(None, None, Some(&none)),
            (24.0, 5.0, ThresholdsSource::Default)
        );
    }
}
