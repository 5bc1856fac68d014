//! The seven auto-dream gates of SPEC §2.11 in Claude Code 2.1.332's order, as memctl
//! can see them (§3.11), and the verdict they add up to.

use serde::Serialize;

use crate::lock::{self, LockInfo, State};
use crate::paths::flags::{Flag, FlagState, dream_enablement};
use crate::sessions::Session;
use crate::text::to_fixed1;

/// The SDK entrypoints that never dream (`CLAUDE_CODE_ENTRYPOINT`).
pub const SDK_ENTRYPOINTS: [&str; 3] = ["sdk-ts", "sdk-py", "sdk-cli"];

/// What the gates look at.
pub struct GateInput<'a> {
    pub memory_enabled: bool,
    pub memory_lever: &'a str,
    /// `CLAUDE_CODE_REMOTE` is truthy (a remote session).
    pub remote: bool,
    /// `CLAUDE_CODE_ENTRYPOINT`, when set.
    pub entrypoint: Option<&'a str>,
    /// The cached server flag `tengu_onyx_plover` (SPEC §2.16).
    pub flag: &'a Flag,
    /// The merged `autoDreamEnabled` and its lever text, when defined.
    pub setting: Option<(bool, String)>,
    /// The permission rules of the settings sources memctl reads.
    pub permission: &'a Permission,
    /// `None` without a project (no transcripts dir to search).
    pub organization: Option<&'a Organization>,
    pub lock: &'a LockInfo,
    /// `None` without a project (`--dir` without `--project`).
    pub sessions: Option<&'a [Session]>,
    pub min_hours: f64,
    /// A count, or the flag's `minSessions` (any finite number > 0).
    pub min_sessions: f64,
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
    #[serde(rename = "permission")]
    Permission,
    #[serde(rename = "lock")]
    Lock,
    #[serde(rename = "organization")]
    Organization,
}

impl GateName {
    pub fn as_str(self) -> &'static str {
        match self {
            GateName::Enabled => "enabled",
            GateName::Time => "time",
            GateName::ScanThrottle => "scan throttle",
            GateName::Sessions => "sessions",
            GateName::Permission => "permission",
            GateName::Lock => "lock",
            GateName::Organization => "organization",
        }
    }

    /// Every gate, in the order Claude Code runs them.
    pub const ALL: [GateName; 7] = [
        GateName::Enabled,
        GateName::Time,
        GateName::ScanThrottle,
        GateName::Sessions,
        GateName::Permission,
        GateName::Lock,
        GateName::Organization,
    ];
}

/// A permission rule that would refuse (deny) or need approval for (ask) the dream's
/// memory writes (SPEC §2.11 gate 5).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    /// `deny` or `ask`.
    pub kind: &'static str,
    /// The rule as written (`Edit`, `Write(/path/**)`).
    pub rule: String,
    /// The settings source and file (`user: /h/.claude/settings.json`).
    pub source: String,
}

/// The `permissions.deny` and `permissions.ask` rules that concern Write or Edit, in
/// the order memctl found them (deny lists first).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Permission {
    /// Rules naming the Write or Edit tool as a whole.
    pub whole: Vec<Rule>,
    /// Path-scoped `Write(…)`/`Edit(…)` rules: memctl does not match paths.
    pub scoped: Vec<Rule>,
}

pub use crate::sessions::Organization;

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
    /// The enabled gate is unknown only because the flag is not cached; every other
    /// gate passes.
    WouldFireIfServerEnables,
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
            Verdict::WouldFireIfServerEnables => "would fire if the server enables auto-dream",
            Verdict::ClosedAt(g) => match g {
                G::Enabled => "closed at enabled",
                G::Time => "closed at time",
                G::ScanThrottle => "closed at scan throttle",
                G::Sessions => "closed at sessions",
                G::Permission => "closed at permission",
                G::Lock => "closed at lock",
                G::Organization => "closed at organization",
            },
            Verdict::UnknownAt(g) => match g {
                G::Enabled => "unknown at enabled",
                G::Time => "unknown at time",
                G::ScanThrottle => "unknown at scan throttle",
                G::Sessions => "unknown at sessions",
                G::Permission => "unknown at permission",
                G::Lock => "unknown at lock",
                G::Organization => "unknown at organization",
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
    pub min_sessions: f64,
}

fn gate(gate: GateName, status: GateStatus, detail: impl Into<String>) -> Gate {
    Gate {
        gate,
        status,
        detail: detail.into(),
    }
}

/// Evaluate the seven gates of SPEC §2.11 as memctl can see them (§3.11).
pub fn gates(i: &GateInput) -> Gates {
    let h = lock::hours_since(i.lock, i.now_ms);
    let counted = i.sessions.map(|s| s.iter().filter(|x| x.counted).count());
    let (enabled, flag_only) = enabled_gate(i);
    let all = vec![
        enabled,
        time_gate(h, i.min_hours, i.lock.mtime_ms.is_none()),
        gate(
            GateName::ScanThrottle,
            GateStatus::NotApplicable,
            "per Claude Code process: at most one session scan every 10 minutes",
        ),
        sessions_gate(counted, i.min_sessions),
        permission_gate(i.permission),
        lock_gate(i.lock, i.now_ms),
        organization_gate(i.organization),
    ];
    let n = counted.unwrap_or(0);
    let (verdict, would_fire, log_line) = if let Some(g) = all.iter().find(|g| g.status == GateStatus::Closed) {
        let log = match g.gate {
            GateName::Sessions => format!(
                "[autoDream] skip — {n} sessions since last consolidation, need {}",
                crate::text::js_number(i.min_sessions)
            ),
            GateName::Permission => i.permission.whole.first().map_or_else(
                || "silent".to_string(),
                |r| {
                    format!(
                        "[autoDream] skip — the {} rule \"{}\" would refuse memory writes",
                        r.kind, r.rule
                    )
                },
            ),
            _ => "silent".to_string(),
        };
        (Verdict::ClosedAt(g.gate), Some(false), Some(log))
    } else if let Some(g) = all
        .iter()
        .find(|g| g.status == GateStatus::Unknown && !(g.gate == GateName::Enabled && flag_only))
    {
        (Verdict::UnknownAt(g.gate), None, None)
    } else {
        let firing = format!(
            "[autoDream] firing — {}h since last, {n} sessions to review",
            to_fixed1(h)
        );
        if all[0].status == GateStatus::Unknown {
            (Verdict::WouldFireIfServerEnables, None, Some(firing))
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

/// Gate 1 (SPEC §3.11 "enabled"), and whether an `unknown` comes only from the flag
/// not being cached (the verdict then says "would fire if the server enables
/// auto-dream").
fn enabled_gate(i: &GateInput) -> (Gate, bool) {
    let flag = i.flag.describe();
    let closed = |d: String| (gate(GateName::Enabled, GateStatus::Closed, d), false);
    if !i.memory_enabled {
        return closed(format!("auto memory is disabled ({})", i.memory_lever));
    }
    if i.remote {
        return closed("a remote session (CLAUDE_CODE_REMOTE)".to_string());
    }
    if let Some(e) = i.entrypoint.filter(|e| SDK_ENTRYPOINTS.contains(e)) {
        return closed(format!("an SDK run (CLAUDE_CODE_ENTRYPOINT={e}) never dreams"));
    }
    let d = dream_enablement(i.flag, i.setting.clone());
    match (d.value, &i.flag.state) {
        (Some(true), _) => (
            gate(GateName::Enabled, GateStatus::Pass, format!("{}; {flag}", d.lever)),
            false,
        ),
        (Some(false), FlagState::Cached { .. }) if d.lever == "flag off (cached)" => closed(format!(
            "{flag}: neither enabled nor available is true, so autoDreamEnabled has no effect"
        )),
        (Some(false), FlagState::Disabled { .. }) => closed(flag),
        (Some(false), _) => closed(format!("auto-dream off: {}; {flag}", d.lever)),
        (None, _) => (
            gate(
                GateName::Enabled,
                GateStatus::Unknown,
                format!(
                    "{flag}; without the flag Claude Code does not dream, whatever autoDreamEnabled says{}",
                    i.setting
                        .as_ref()
                        .map_or_else(|| " (unset)".to_string(), |(_, l)| format!(" ({l})"))
                ),
            ),
            true,
        ),
    }
}

/// Gate 5 (SPEC §3.11 "permission").
fn permission_gate(p: &Permission) -> Gate {
    if let Some(r) = p.whole.first() {
        let what = if r.kind == "deny" {
            "would refuse the dream's memory writes"
        } else {
            "needs approval for each write, and background saving can't ask"
        };
        gate(
            GateName::Permission,
            GateStatus::Closed,
            format!("the {} rule \"{}\" (from {}) {what}", r.kind, r.rule, r.source),
        )
    } else if let Some(r) = p.scoped.first() {
        gate(
            GateName::Permission,
            GateStatus::Unknown,
            format!(
                "the {} rule \"{}\" (from {}) may cover the memory dir; memctl does not match rule paths",
                r.kind, r.rule, r.source
            ),
        )
    } else {
        gate(
            GateName::Permission,
            GateStatus::Pass,
            "no deny or ask rule for Write or Edit in the settings memctl reads",
        )
    }
}

/// Gate 7 (SPEC §3.11 "organization").
fn organization_gate(o: Option<&Organization>) -> Gate {
    match o {
        None => gate(
            GateName::Organization,
            GateStatus::Unknown,
            "no project: pass --project to search its transcripts",
        ),
        Some(o) if !o.marked.is_empty() => gate(
            GateName::Organization,
            GateStatus::Unknown,
            format!(
                "{} marks \"type\":\"hybrid-organization\": it depends on the signed-in organization",
                o.marked.join(", ")
            ),
        ),
        Some(o) if !o.failed.is_empty() => gate(
            GateName::Organization,
            GateStatus::Unknown,
            format!(
                "the search failed ({}): Claude Code would roll the lock back",
                o.failed.join("; ")
            ),
        ),
        Some(_) => gate(
            GateName::Organization,
            GateStatus::Pass,
            "no transcript marks \"type\":\"hybrid-organization\"",
        ),
    }
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

fn sessions_gate(counted: Option<usize>, min_sessions: f64) -> Gate {
    let min = crate::text::js_number(min_sessions);
    match counted {
        None => gate(
            GateName::Sessions,
            GateStatus::Unknown,
            "no project: pass --project to count its sessions",
        ),
        Some(n) if n as f64 >= min_sessions => gate(
            GateName::Sessions,
            GateStatus::Pass,
            format!("{n} sessions since the last consolidation ≥ {min}"),
        ),
        Some(n) => gate(
            GateName::Sessions,
            GateStatus::Closed,
            format!("{n} sessions since the last consolidation < {min}"),
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

    fn flag(v: Option<serde_json::Value>) -> Flag {
        Flag {
            name: crate::paths::flags::ONYX_PLOVER,
            file: Some("/h/.claude.json".into()),
            state: v.map_or(FlagState::Absent, |value| FlagState::Cached {
                section: crate::paths::flags::SECTION,
                value,
            }),
            warning: None,
        }
    }

    fn available() -> Flag {
        flag(Some(serde_json::json!({"enabled": false, "available": true})))
    }

    fn setting(b: Option<bool>) -> Option<(bool, String)> {
        b.map(|b| (b, format!("autoDreamEnabled={b} in /s (user)")))
    }

    struct Case<'a> {
        flag: Flag,
        setting: Option<bool>,
        entrypoint: Option<&'a str>,
        permission: Permission,
        organization: Option<Organization>,
    }

    impl Default for Case<'_> {
        fn default() -> Self {
            Case {
                flag: available(),
                setting: Some(true),
                entrypoint: None,
                permission: Permission::default(),
                organization: Some(Organization::default()),
            }
        }
    }

    fn eval(c: &Case, lock: &LockInfo, sessions: Option<&[Session]>, now: f64) -> Gates {
        gates(&GateInput {
            memory_enabled: true,
            memory_lever: "default",
            remote: false,
            entrypoint: c.entrypoint,
            flag: &c.flag,
            setting: setting(c.setting),
            permission: &c.permission,
            organization: c.organization.as_ref(),
            lock,
            sessions,
            min_hours: MIN_HOURS,
            min_sessions: MIN_SESSIONS as f64,
            now_ms: now,
        })
    }

    /// The A.11 walk-throughs: the cached flag available and `autoDreamEnabled: true`,
    /// unless `dream` says otherwise (`None`: unset, with the flag not cached).
    fn run(lock: &LockInfo, sessions: Option<&[Session]>, dream: Option<bool>, now: f64) -> Gates {
        let case = match dream {
            Some(b) => Case {
                setting: Some(b),
                ..Case::default()
            },
            None => Case {
                flag: flag(None),
                setting: None,
                ..Case::default()
            },
        };
        eval(&case, lock, sessions, now)
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
            ("would fire if the server enables auto-dream", None)
        );
        assert_eq!(
            g.log_line.as_deref(),
            Some("[autoDream] firing — 25.0h since last, 5 sessions to review")
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

    /// Appendix A.16, the enabled-gate table.
    #[test]
    fn the_enabled_gate_matches_appendix_a16() {
        use serde_json::json;
        let ready = lock_at(Some(N - 48.0 * H));
        let six = sess(6);
        let status = |flag: Flag, s: Option<bool>, entrypoint: Option<&str>| {
            let c = Case {
                flag,
                setting: s,
                entrypoint,
                ..Case::default()
            };
            eval(&c, &ready, Some(&six), N).gates[0].status.as_str()
        };
        type Row<'a> = (Option<serde_json::Value>, &'a [Option<bool>], &'a str);
        let rows: [Row; 8] = [
            (None, &[None, Some(true)], "unknown"),
            (None, &[Some(false)], "closed"),
            (Some(json!({"enabled": true})), &[None, Some(true)], "pass"),
            (Some(json!({"enabled": true})), &[Some(false)], "closed"),
            (
                Some(json!({"enabled": false, "available": true})),
                &[Some(true)],
                "pass",
            ),
            (
                Some(json!({"enabled": false, "available": true})),
                &[None, Some(false)],
                "closed",
            ),
            (
                Some(json!({"enabled": false, "available": false})),
                &[None, Some(true), Some(false)],
                "closed",
            ),
            (Some(json!({})), &[None, Some(true), Some(false)], "closed"),
        ];
        for (v, settings, want) in rows {
            for s in settings {
                assert_eq!(status(flag(v.clone()), *s, None), want, "{v:?} {s:?}");
            }
        }
        let disabled = Flag {
            state: FlagState::Disabled {
                variable: "CLAUDE_CODE_DISABLE_FEATURE_FLAGS=1".into(),
            },
            ..available()
        };
        for s in [None, Some(true)] {
            assert_eq!(status(disabled.clone(), s, None), "closed");
            assert_eq!(status(available(), s.or(Some(true)), Some("sdk-py")), "closed");
        }
        assert_eq!(status(available(), Some(true), Some("cli")), "pass");
    }

    /// Appendix A.16's client runs, as memctl models them in the same environment.
    #[test]
    fn the_client_runs_of_appendix_a16() {
        let ready = lock_at(Some(N - 48.0 * H));
        let six = sess(6);
        let verdict = |flag: Flag| {
            let g = eval(
                &Case {
                    flag,
                    ..Case::default()
                },
                &ready,
                Some(&six),
                N,
            );
            (g.verdict.as_str(), g.log_line)
        };
        let telemetry_off = Flag {
            state: FlagState::Disabled {
                variable: "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1".into(),
            },
            ..available()
        };
        assert_eq!(verdict(telemetry_off), ("closed at enabled", Some("silent".into())));
        let firing = Some("[autoDream] firing — 48.0h since last, 6 sessions to review".to_string());
        let cached = flag(Some(serde_json::json!({"enabled": true, "available": true})));
        assert_eq!(verdict(cached), ("would fire", firing.clone()));
        assert_eq!(
            verdict(flag(None)),
            ("would fire if the server enables auto-dream", firing)
        );
    }

    fn rule(kind: &'static str, r: &str) -> Rule {
        Rule {
            kind,
            rule: r.into(),
            source: "user: /h/.claude/settings.json".into(),
        }
    }

    #[test]
    fn the_permission_and_organization_gates() {
        let ready = lock_at(Some(N - 48.0 * H));
        let six = sess(6);
        let deny = Case {
            permission: Permission {
                whole: vec![rule("deny", "Edit")],
                scoped: vec![rule("ask", "Write(/x/**)")],
            },
            ..Case::default()
        };
        let g = eval(&deny, &ready, Some(&six), N);
        assert_eq!(g.verdict, "closed at permission");
        assert_eq!(
            g.log_line.as_deref(),
            Some("[autoDream] skip — the deny rule \"Edit\" would refuse memory writes")
        );
        let scoped = Case {
            permission: Permission {
                whole: vec![],
                scoped: vec![rule("ask", "Write(/x/**)")],
            },
            ..Case::default()
        };
        let g = eval(&scoped, &ready, Some(&six), N);
        assert_eq!(
            (g.verdict.as_str(), g.log_line.as_deref()),
            ("unknown at permission", None)
        );
        let marked = Case {
            organization: Some(Organization {
                marked: vec!["a.jsonl".into()],
                failed: vec![],
            }),
            ..Case::default()
        };
        assert_eq!(eval(&marked, &ready, Some(&six), N).verdict, "unknown at organization");
        let no_project = Case {
            organization: None,
            ..Case::default()
        };
        let g = eval(&no_project, &ready, None, N);
        assert_eq!(g.verdict, "unknown at sessions");
        assert_eq!(g.gates.iter().map(|g| g.gate).collect::<Vec<_>>(), GateName::ALL);
        // An unknown gate beside an uncached flag: no "if the server enables".
        let both = Case {
            flag: flag(None),
            setting: None,
            ..scoped
        };
        assert_eq!(eval(&both, &ready, Some(&six), N).verdict, "unknown at permission");
    }

    fn json(v: impl Serialize) -> String {
        serde_json::to_value(v).unwrap().as_str().unwrap().to_string()
    }

    #[test]
    fn names_serialize_to_their_text() {
        for g in GateName::ALL {
            assert_eq!(json(g), g.as_str());
            for v in [Verdict::ClosedAt(g), Verdict::UnknownAt(g)] {
                assert_eq!(json(v), v.as_str());
            }
        }
        for v in [Verdict::WouldFire, Verdict::WouldFireIfServerEnables] {
            assert_eq!(json(v), v.as_str());
        }
        use GateStatus as S;
        for s in [S::Pass, S::Closed, S::Unknown, S::NotApplicable] {
            assert_eq!(json(s), s.as_str());
        }
    }
}
