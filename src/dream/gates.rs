//! The five auto-dream gates of SPEC §2.11 in Claude Code's order, as memctl can see
//! them (§3.11), and the verdict they add up to.

use serde::Serialize;

use crate::lock::{self, LockInfo, State};
use crate::sessions::Session;
use crate::text::to_fixed1;

/// What the gates look at.
pub struct GateInput<'a> {
    pub memory_enabled: bool,
    pub memory_lever: &'a str,
    /// `CLAUDE_CODE_REMOTE` is truthy (a remote session).
    pub remote: bool,
    pub auto_dream: Option<bool>,
    pub auto_dream_lever: &'a str,
    pub lock: &'a LockInfo,
    /// `None` without a project (`--dir` without `--project`).
    pub sessions: Option<&'a [Session]>,
    pub min_hours: f64,
    pub min_sessions: usize,
    pub now_ms: f64,
}

/// A gate of SPEC §2.11, in the order they run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum GateName {
    #[serde(rename = "enabled")]
    Enabled,
    #[serde(rename = "time")]
    Time,
    #[serde(rename = "scan throttle")]
    ScanThrottle,
    #[serde(rename = "sessions")]
    Sessions,
    #[serde(rename = "lock")]
    Lock,
}

impl GateName {
    pub fn as_str(self) -> &'static str {
        match self {
            GateName::Enabled => "enabled",
            GateName::Time => "time",
            GateName::ScanThrottle => "scan throttle",
            GateName::Sessions => "sessions",
            GateName::Lock => "lock",
        }
    }
}

/// How a gate stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum GateStatus {
    #[serde(rename = "pass")]
    Pass,
    #[serde(rename = "closed")]
    Closed,
    /// memctl cannot tell (a server-side default, no project, an unreadable lock).
    #[serde(rename = "unknown")]
    Unknown,
    /// Per Claude Code process (the scan throttle); counts as a pass.
    #[serde(rename = "n/a")]
    NotApplicable,
}

impl GateStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            GateStatus::Pass => "pass",
            GateStatus::Closed => "closed",
            GateStatus::Unknown => "unknown",
            GateStatus::NotApplicable => "n/a",
        }
    }
}

/// A status equals its name in the JSON contract.
impl PartialEq<&str> for GateStatus {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// One row of the gate table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Gate {
    pub gate: GateName,
    pub status: GateStatus,
    pub detail: String,
}

/// What the gates add up to (SPEC §3.11 "Verdict").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    WouldFire,
    /// The enabled gate is unknown, every other gate passes.
    WouldFireIfEnabled,
    /// The first closed gate.
    ClosedAt(GateName),
    /// No gate closed, and this one (time, sessions or lock) is unknown.
    UnknownAt(GateName),
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        use GateName as G;
        match self {
            Verdict::WouldFire => "would fire",
            Verdict::WouldFireIfEnabled => "would fire if auto-dream is enabled",
            Verdict::ClosedAt(g) => match g {
                G::Enabled => "closed at enabled",
                G::Time => "closed at time",
                G::ScanThrottle => "closed at scan throttle",
                G::Sessions => "closed at sessions",
                G::Lock => "closed at lock",
            },
            Verdict::UnknownAt(g) => match g {
                G::Enabled => "unknown at enabled",
                G::Time => "unknown at time",
                G::ScanThrottle => "unknown at scan throttle",
                G::Sessions => "unknown at sessions",
                G::Lock => "unknown at lock",
            },
        }
    }
}

/// A verdict equals its text in the JSON contract.
impl PartialEq<&str> for Verdict {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl Serialize for Verdict {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// The gates and their outcome.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Gates {
    pub gates: Vec<Gate>,
    pub verdict: Verdict,
    pub would_fire: Option<bool>,
    pub log_line: Option<String>,
    pub hours_since: f64,
    pub sessions_counted: Option<usize>,
    /// The thresholds the time and sessions gates used.
    pub min_hours: f64,
    pub min_sessions: usize,
}

fn gate(gate: GateName, status: GateStatus, detail: impl Into<String>) -> Gate {
    Gate {
        gate,
        status,
        detail: detail.into(),
    }
}

/// Evaluate the five gates of SPEC §2.11 as memctl can see them.
pub fn gates(i: &GateInput) -> Gates {
    let h = lock::hours_since(i.lock, i.now_ms);
    let counted = i.sessions.map(|s| s.iter().filter(|x| x.counted).count());
    let all = vec![
        enabled_gate(i),
        time_gate(h, i.min_hours, i.lock.mtime_ms.is_none()),
        gate(
            GateName::ScanThrottle,
            GateStatus::NotApplicable,
            "per Claude Code process: at most one session scan every 10 minutes",
        ),
        sessions_gate(counted, i.min_sessions),
        lock_gate(i.lock, i.now_ms),
    ];
    let n = counted.unwrap_or(0);
    let (verdict, would_fire, log_line) = if let Some(g) = all.iter().find(|g| g.status == GateStatus::Closed) {
        let log = if g.gate == GateName::Sessions {
            format!(
                "[autoDream] skip — {n} sessions since last consolidation, need {}",
                i.min_sessions
            )
        } else {
            "silent".to_string()
        };
        (Verdict::ClosedAt(g.gate), Some(false), Some(log))
    } else if let Some(g) = all
        .iter()
        .find(|g| g.status == GateStatus::Unknown && g.gate != GateName::Enabled)
    {
        (Verdict::UnknownAt(g.gate), None, None)
    } else {
        let firing = format!(
            "[autoDream] firing — {}h since last, {n} sessions to review",
            to_fixed1(h)
        );
        if all[0].status == GateStatus::Unknown {
            (Verdict::WouldFireIfEnabled, None, Some(firing))
        } else {
            (Verdict::WouldFire, Some(true), Some(firing))
        }
    };
    Gates {
        gates: all,
        verdict,
        would_fire,
        log_line,
        hours_since: h,
        sessions_counted: counted,
        min_hours: i.min_hours,
        min_sessions: i.min_sessions,
    }
}

fn enabled_gate(i: &GateInput) -> Gate {
    let (status, detail) = if !i.memory_enabled {
        (
            GateStatus::Closed,
            format!("auto memory is disabled ({})", i.memory_lever),
        )
    } else if i.remote {
        (GateStatus::Closed, "a remote session (CLAUDE_CODE_REMOTE)".to_string())
    } else {
        match i.auto_dream {
            Some(true) => (GateStatus::Pass, format!("auto memory on; {}", i.auto_dream_lever)),
            Some(false) => (GateStatus::Closed, format!("auto-dream off: {}", i.auto_dream_lever)),
            None => (
                GateStatus::Unknown,
                "autoDreamEnabled is unset: Claude Code uses a server-side default".to_string(),
            ),
        }
    };
    gate(GateName::Enabled, status, detail)
}

fn time_gate(hours_since: f64, min_hours: f64, never: bool) -> Gate {
    let hs = to_fixed1(hours_since);
    let min_h = crate::text::js_number(min_hours);
    if never {
        // Claude Code reads a missing lock as "last consolidated at time 0".
        gate(GateName::Time, GateStatus::Pass, "never consolidated (no lock file)")
    } else if hours_since >= min_hours {
        gate(
            GateName::Time,
            GateStatus::Pass,
            format!("{hs} h since the last consolidation ≥ {min_h} h"),
        )
    } else {
        gate(
            GateName::Time,
            GateStatus::Closed,
            format!("{hs} h since the last consolidation < {min_h} h"),
        )
    }
}

fn sessions_gate(counted: Option<usize>, min_sessions: usize) -> Gate {
    match counted {
        None => gate(
            GateName::Sessions,
            GateStatus::Unknown,
            "no project: pass --project to count its sessions",
        ),
        Some(n) if n >= min_sessions => gate(
            GateName::Sessions,
            GateStatus::Pass,
            format!("{n} sessions since the last consolidation ≥ {min_sessions}"),
        ),
        Some(n) => gate(
            GateName::Sessions,
            GateStatus::Closed,
            format!("{n} sessions since the last consolidation < {min_sessions}"),
        ),
    }
}

fn lock_gate(l: &LockInfo, now_ms: f64) -> Gate {
    if l.unreadable.is_some() {
        gate(
            GateName::Lock,
            GateStatus::Unknown,
            "the lock file exists but cannot be read; Claude Code's acquire would fail",
        )
    } else if l.state == State::Held {
        let ago = ((now_ms - l.mtime_ms.unwrap_or(now_ms)) / 1000.0).round();
        let pid = l.pid.unwrap_or_default();
        gate(
            GateName::Lock,
            GateStatus::Closed,
            format!("held by live PID {pid} ([autoDream] lock held by live PID {pid} (mtime {ago}s ago))"),
        )
    } else {
        let what = match l.state {
            State::Absent => "acquire creates it".to_string(),
            _ => format!("acquire reclaims it ({})", l.state.as_str()),
        };
        gate(GateName::Lock, GateStatus::Pass, what)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dream::{MIN_HOURS, MIN_SESSIONS};
    use crate::lock::PidStatus;
    use crate::sessions::Reason;
    use std::path::PathBuf;

    fn lock_at(mtime: Option<f64>) -> LockInfo {
        LockInfo {
            path: PathBuf::from("/m/.consolidate-lock"),
            exists: mtime.is_some(),
            unreadable: None,
            body: mtime.map(|_| "999999999".into()),
            pid: None,
            pid_status: PidStatus::Dead,
            mtime_ms: mtime,
            state: if mtime.is_some() {
                State::Reclaimable
            } else {
                State::Absent
            },
        }
    }

    fn sess(n: usize) -> Vec<Session> {
        (0..n)
            .map(|i| Session {
                name: format!("{i}.jsonl"),
                id: None,
                mtime_ms: Some(0),
                counted: true,
                reason: Reason::Counted,
            })
            .collect()
    }

    fn run(lock: &LockInfo, sessions: Option<&[Session]>, dream: Option<bool>, now: f64) -> Gates {
        gates(&GateInput {
            memory_enabled: true,
            memory_lever: "default",
            remote: false,
            auto_dream: dream,
            auto_dream_lever: "autoDreamEnabled=true in /s (user)",
            lock,
            sessions,
            min_hours: MIN_HOURS,
            min_sessions: MIN_SESSIONS,
            now_ms: now,
        })
    }

    const N: f64 = 1_773_144_000_000.0;
    const H: f64 = 3_600_000.0;

    #[test]
    fn walkthroughs_of_appendix_a11() {
        let g = run(&lock_at(Some(N - 23.0 * H)), Some(&sess(9)), Some(true), N);
        assert_eq!(
            (g.verdict.as_str(), g.log_line.as_deref()),
            ("closed at time", Some("silent"))
        );
        let g = run(&lock_at(Some(N - 25.0 * H)), Some(&sess(4)), Some(true), N);
        assert_eq!(g.verdict, "closed at sessions");
        assert_eq!(
            g.log_line.as_deref(),
            Some("[autoDream] skip — 4 sessions since last consolidation, need 5")
        );
        let g = run(&lock_at(Some(N - 25.0 * H)), Some(&sess(5)), Some(true), N);
        assert_eq!((g.verdict.as_str(), g.would_fire), ("would fire", Some(true)));
        assert_eq!(
            g.log_line.as_deref(),
            Some("[autoDream] firing — 25.0h since last, 5 sessions to review")
        );
        assert_eq!(g.gates[2].status, "n/a");
        let g = run(&lock_at(None), Some(&sess(3)), Some(true), N);
        assert_eq!(g.gates[1].status, "pass");
        assert!(g.hours_since > 4.9e5);
        assert_eq!(
            g.log_line.as_deref(),
            Some("[autoDream] skip — 3 sessions since last consolidation, need 5")
        );
        let g = run(&lock_at(Some(N - 25.0 * H)), Some(&sess(5)), None, N);
        assert_eq!(
            (g.verdict.as_str(), g.would_fire),
            ("would fire if auto-dream is enabled", None)
        );
        let g = run(&lock_at(Some(N - 25.0 * H)), None, Some(true), N);
        assert_eq!((g.verdict.as_str(), g.log_line.clone()), ("unknown at sessions", None));
    }

    #[test]
    fn a_held_lock_closes_the_last_gate() {
        let mut l = lock_at(Some(N - 25.0 * H));
        l.state = State::Held;
        l.pid = Some(42);
        let g = run(&l, Some(&sess(5)), Some(true), N);
        assert_eq!(g.verdict, "closed at lock");
        assert_eq!(g.log_line.as_deref(), Some("silent"));
    }

    fn json(v: impl Serialize) -> String {
        serde_json::to_value(v).unwrap().as_str().unwrap().to_string()
    }

    #[test]
    fn names_serialize_to_their_text() {
        use GateName as G;
        for g in [G::Enabled, G::Time, G::ScanThrottle, G::Sessions, G::Lock] {
            assert_eq!(json(g), g.as_str());
            for v in [Verdict::ClosedAt(g), Verdict::UnknownAt(g)] {
                assert_eq!(json(v), v.as_str());
            }
        }
        for v in [Verdict::WouldFire, Verdict::WouldFireIfEnabled] {
            assert_eq!(json(v), v.as_str());
        }
        use GateStatus as S;
        for s in [S::Pass, S::Closed, S::Unknown, S::NotApplicable] {
            assert_eq!(json(s), s.as_str());
        }
    }
}
