//! The `.consolidate-lock` model (SPEC §2.12): JavaScript `parseInt` of the body,
//! PID liveness by signal 0, and the five states in their precedence. `now` is a
//! parameter; reading the file and probing the PID are the only I/O.

use std::path::{Path, PathBuf};

use serde::Serialize;

/// `HOLDER_STALE_MS`: a lock older than this is reclaimed whatever its PID.
pub const HOLDER_STALE_MS: f64 = 3_600_000.0;
/// The dream lock's file name in the main memory dir.
pub const LOCK_FILE: &str = ".consolidate-lock";

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum State {
    Absent,
    RolledBack,
    Stale,
    Held,
    Reclaimable,
}

impl State {
    pub fn as_str(self) -> &'static str {
        match self {
            State::Absent => "absent",
            State::RolledBack => "rolled-back",
            State::Stale => "stale",
            State::Held => "held",
            State::Reclaimable => "reclaimable",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PidStatus {
    /// Signal 0 succeeded.
    Alive,
    /// ESRCH: no such process.
    Dead,
    /// The process exists but belongs to another user (Claude Code: dead).
    Eperm,
    /// Parsed, but ≤ 1 or too large for a PID.
    Invalid,
    /// No digits, an empty body, or an unreadable file.
    None,
}

/// What memctl knows about the lock file.
#[derive(Clone, Debug, PartialEq)]
pub struct LockInfo {
    pub path: PathBuf,
    pub exists: bool,
    /// The file exists but could not be read.
    pub unreadable: Option<String>,
    pub body: Option<String>,
    pub pid: Option<i64>,
    pub pid_status: PidStatus,
    pub mtime_ms: Option<f64>,
    pub state: State,
}

impl LockInfo {
    /// Fresh (younger than an hour) at `now_ms`.
    pub fn is_fresh(&self, now_ms: f64) -> bool {
        self.mtime_ms.is_some_and(|m| now_ms - m < HOLDER_STALE_MS)
    }
}

/// JavaScript's `parseInt(s, 10)` after Claude Code's trim: `None` for NaN.
pub fn parse_int(body: &str) -> Option<f64> {
    let t = crate::text::js_trim(body);
    let (sign, rest) = match t.as_bytes().first() {
        Some(b'-') => (-1.0, &t[1..]),
        Some(b'+') => (1.0, &t[1..]),
        _ => (1.0, t),
    };
    let digits: &str = &rest[..rest.bytes().take_while(u8::is_ascii_digit).count()];
    if digits.is_empty() {
        return None;
    }
    digits.parse::<f64>().ok().map(|n| sign * n)
}

/// Probe a PID with signal 0: `kill(pid, 0)` checks existence and permission
/// and sends nothing. EPERM means the process exists under another user.
pub fn liveness(pid: i64) -> PidStatus {
    use rustix::process::{Pid, test_kill_process};
    let pid = i32::try_from(pid).ok().filter(|p| *p > 1).and_then(Pid::from_raw);
    let Some(pid) = pid else {
        return PidStatus::Invalid;
    };
    match test_kill_process(pid) {
        Ok(()) => PidStatus::Alive,
        Err(rustix::io::Errno::PERM) => PidStatus::Eperm,
        Err(_) => PidStatus::Dead,
    }
}

/// Whether a live PID is known to run Claude Code: its `/proc/<pid>/comm` or the
/// base name of its first two arguments is `claude` (the CLI, or node running
/// it), or its command line names `claude-code`. `false` when it cannot be told
/// (no `/proc`, another user's process, a PID that is gone).
pub fn is_claude_code(pid: i64) -> bool {
    let proc = Path::new("/proc").join(pid.to_string());
    let read = |name: &str| crate::fsread::read_prefix(&proc.join(name), 4096).ok();
    let is_claude = |arg: &[u8]| {
        let base = arg.rsplit(|b| *b == b'/').next().unwrap_or_default();
        base == b"claude" || arg.windows(11).any(|w| w == b"claude-code")
    };
    if read("comm").is_some_and(|c| c.trim_ascii() == b"claude") {
        return true;
    }
    read("cmdline").is_some_and(|c| c.split(|b| *b == 0).take(2).any(is_claude))
}

/// `PID 4242 (Claude Code)` when the holder is known to be Claude Code, else
/// `PID 4242`: a lock's PID can be any process (a reused PID, another tool).
pub fn holder(pid: i64) -> String {
    if is_claude_code(pid) {
        format!("PID {pid} (Claude Code)")
    } else {
        format!("PID {pid}")
    }
}

/// The state by SPEC §2.12's precedence.
pub fn state_of(exists: bool, body_empty: bool, mtime_ms: Option<f64>, pid_status: PidStatus, now_ms: f64) -> State {
    if !exists {
        return State::Absent;
    }
    if body_empty {
        return State::RolledBack;
    }
    match mtime_ms {
        Some(m) if now_ms - m >= HOLDER_STALE_MS => State::Stale,
        _ if pid_status == PidStatus::Alive => State::Held,
        _ => State::Reclaimable,
    }
}

fn mtime_ms(meta: &std::fs::Metadata) -> Option<f64> {
    let t = meta.modified().ok()?;
    Some(match t.duration_since(std::time::UNIX_EPOCH) {
        Ok(d) => d.as_secs_f64() * 1000.0,
        Err(e) => -e.duration().as_secs_f64() * 1000.0,
    })
}

/// The most of a `.consolidate-lock` memctl reads.
const MAX_BODY_BYTES: u64 = 4096;

/// Read `<main_dir>.consolidate-lock` and classify it.
pub fn inspect(main_dir: &Path, now_ms: f64) -> LockInfo {
    let path = main_dir.join(LOCK_FILE);
    let meta = std::fs::metadata(&path);
    let Ok(meta) = meta else {
        return LockInfo {
            path,
            exists: false,
            unreadable: None,
            body: None,
            pid: None,
            pid_status: PidStatus::None,
            mtime_ms: None,
            state: State::Absent,
        };
    };
    let mtime = mtime_ms(&meta);
    // Never opened unless regular (a FIFO blocks, `/dev/zero` never ends), and
    // bounded: a PID has a few digits; what lies beyond cannot make one valid.
    let (body, unreadable) = match crate::fsread::read_prefix(&path, MAX_BODY_BYTES) {
        Ok(b) => (Some(String::from_utf8_lossy(&b).into_owned()), None),
        Err(e) => (None, Some(e.to_string())),
    };
    let parsed = body.as_deref().and_then(parse_int);
    let (pid, pid_status) = match parsed {
        None => (None, PidStatus::None),
        Some(p) if p <= 1.0 || p > f64::from(i32::MAX) => (Some(p as i64), PidStatus::Invalid),
        Some(p) => (Some(p as i64), liveness(p as i64)),
    };
    let body_empty = body.as_deref().is_some_and(str::is_empty);
    let state = state_of(true, body_empty, mtime, pid_status, now_ms);
    LockInfo {
        path,
        exists: true,
        unreadable,
        body,
        pid,
        pid_status,
        mtime_ms: mtime,
        state,
    }
}

/// What Claude Code's next acquire does with the lock file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// No lock file: acquire writes one.
    Create,
    /// Rolled back, stale, or the holder is not live: acquire takes it over.
    Reclaim,
    /// A fresh lock held by a live PID: acquire gives up ("blocked").
    Refuse,
}

impl Action {
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Create => "create",
            Action::Reclaim => "reclaim",
            Action::Refuse => "refuse",
        }
    }
}

/// An action equals its name in the JSON contract.
impl PartialEq<&str> for Action {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// What Claude Code's next acquire would do.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NextAcquire {
    pub action: Action,
    pub reason: String,
    /// The mtime acquire returns for rollback (0 without a lock).
    pub prior_mtime_ms: f64,
}

/// The time gate as the lock decides it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TimeGate {
    pub hours_since: f64,
    pub min_hours: f64,
    pub passes: bool,
}

/// `memctl lock status` (SPEC §3.12): the lock as read and what follows from it.
/// It serializes to the JSON object of SPEC §3.12 (without `warnings`), which is
/// also the `lock` of `dream --dry-run --json`.
#[derive(Clone, Debug, PartialEq)]
pub struct Status {
    pub info: LockInfo,
    pub now_ms: f64,
    pub next_acquire: NextAcquire,
    pub time_gate: TimeGate,
}

/// `(now − last) / 1 h`, where `last` is the lock's mtime or 0.
pub fn hours_since(info: &LockInfo, now_ms: f64) -> f64 {
    (now_ms - info.mtime_ms.unwrap_or(0.0)) / 3_600_000.0
}

/// Describe the lock for `lock status` and `dream`.
pub fn status(info: LockInfo, now_ms: f64, min_hours: f64) -> Status {
    let prior = info.mtime_ms.unwrap_or(0.0);
    let next_acquire = match info.state {
        State::Absent => NextAcquire {
            action: Action::Create,
            reason: "no lock file".into(),
            prior_mtime_ms: 0.0,
        },
        State::RolledBack => NextAcquire {
            action: Action::Reclaim,
            reason: "empty body (rolled back)".into(),
            prior_mtime_ms: prior,
        },
        State::Stale => NextAcquire {
            action: Action::Reclaim,
            reason: "older than 1 h".into(),
            prior_mtime_ms: prior,
        },
        State::Held => NextAcquire {
            action: Action::Refuse,
            reason: format!("held by live {}", holder(info.pid.unwrap_or_default())),
            prior_mtime_ms: prior,
        },
        State::Reclaimable => {
            let why = match info.pid_status {
                PidStatus::Dead => "holder PID is dead",
                PidStatus::Eperm => "holder PID belongs to another user (Claude Code treats it as dead)",
                PidStatus::Invalid => "body is not a valid PID",
                _ => "body holds no PID",
            };
            NextAcquire {
                action: Action::Reclaim,
                reason: why.into(),
                prior_mtime_ms: prior,
            }
        }
    };
    let h = hours_since(&info, now_ms);
    Status {
        time_gate: TimeGate {
            hours_since: h,
            min_hours,
            passes: h >= min_hours,
        },
        next_acquire,
        info,
        now_ms,
    }
}

impl Status {
    /// The text form of SPEC §3.12.
    pub fn to_text(&self) -> String {
        let i = &self.info;
        let h = crate::text::to_fixed1(self.time_gate.hours_since);
        let min = crate::text::js_number(self.time_gate.min_hours);
        let gate = if self.time_gate.passes {
            format!("time gate passes ({h} h ≥ {min} h)")
        } else {
            format!("time gate closed ({h} h < {min} h)")
        };
        let mut s = format!("{}: {}\n", LOCK_FILE, i.state.as_str());
        if !i.exists {
            s.push_str("  last consolidated: never\n");
            s.push_str("  next acquire: creates it; time gate passes (never consolidated)\n");
            return s;
        }
        let pid = match i.pid_status {
            PidStatus::Alive if i.pid.is_some_and(is_claude_code) => "PID alive: Claude Code".to_string(),
            PidStatus::Alive => "PID alive".to_string(),
            PidStatus::Dead => "PID dead: no such process".into(),
            PidStatus::Eperm => "PID exists but belongs to another user; Claude Code treats it as dead".into(),
            PidStatus::Invalid => "not a valid PID".into(),
            PidStatus::None if i.unreadable.is_some() => "unreadable".into(),
            PidStatus::None => "no PID".into(),
        };
        let body = i.body.as_deref().map_or_else(
            || "-".to_string(),
            |b| {
                if b.is_empty() {
                    "(empty)".into()
                } else {
                    b.trim().chars().take(64).collect()
                }
            },
        );
        s.push_str(&format!("  body:     {body} ({pid})\n"));
        if let Some(m) = i.mtime_ms {
            s.push_str(&format!(
                "  mtime:    {} ({h} h ago) = last consolidated\n",
                crate::text::iso_ms(m)
            ));
        }
        let action = match self.next_acquire.action {
            Action::Refuse => format!("refuses ({})", self.next_acquire.reason),
            Action::Create => "creates it".to_string(),
            Action::Reclaim => format!("reclaims ({})", self.next_acquire.reason),
        };
        s.push_str(&format!("  next acquire: {action}; {gate}\n"));
        s
    }
}

/// The JSON object of SPEC §3.12, field for field in the contract's order.
#[derive(Serialize)]
struct StatusJson<'a> {
    path: std::borrow::Cow<'a, str>,
    state: State,
    exists: bool,
    /// At most 64 chars of the body as read.
    body: Option<String>,
    pid: Option<i64>,
    pid_status: PidStatus,
    mtime: Option<crate::text::IsoMs>,
    mtime_ms: Option<f64>,
    age_seconds: Option<f64>,
    stale_after_seconds: u64,
    /// Null when there is no lock file.
    last_consolidated_at: Option<crate::text::IsoMs>,
    next_acquire: &'a NextAcquire,
    time_gate: &'a TimeGate,
}

impl Serialize for Status {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let i = &self.info;
        StatusJson {
            path: i.path.to_string_lossy(),
            state: i.state,
            exists: i.exists,
            body: i.body.as_ref().map(|b| b.chars().take(64).collect()),
            pid: i.pid,
            pid_status: i.pid_status,
            mtime: i.mtime_ms.map(crate::text::IsoMs),
            mtime_ms: i.mtime_ms,
            age_seconds: i.mtime_ms.map(|m| ((self.now_ms - m) / 1000.0).floor()),
            stale_after_seconds: (HOLDER_STALE_MS / 1000.0) as u64,
            last_consolidated_at: i.mtime_ms.filter(|_| i.exists).map(crate::text::IsoMs),
            next_acquire: &self.next_acquire,
            time_gate: &self.time_gate,
        }
        .serialize(serializer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_int_is_javascripts() {
        assert_eq!(parse_int("12345abc"), Some(12345.0));
        assert_eq!(parse_int("0x10"), Some(0.0));
        assert_eq!(parse_int("1e5"), Some(1.0));
        assert_eq!(parse_int("  42 abc\n"), Some(42.0));
        assert_eq!(parse_int("-5"), Some(-5.0));
        assert_eq!(parse_int("garbage"), None);
        assert_eq!(parse_int(""), None);
        assert_eq!(parse_int("-"), None);
    }

    #[test]
    fn states_follow_the_precedence() {
        let now = 10_000_000.0;
        assert_eq!(state_of(false, false, None, PidStatus::None, now), State::Absent);
        assert_eq!(state_of(true, true, Some(now), PidStatus::None, now), State::RolledBack);
        assert_eq!(
            state_of(true, false, Some(now - HOLDER_STALE_MS), PidStatus::Alive, now),
            State::Stale
        );
        assert_eq!(
            state_of(true, false, Some(now - 1.0), PidStatus::Alive, now),
            State::Held
        );
        assert_eq!(
            state_of(true, false, Some(now - 1.0), PidStatus::Dead, now),
            State::Reclaimable
        );
        assert_eq!(
            state_of(true, false, Some(now - 1.0), PidStatus::Eperm, now),
            State::Reclaimable
        );
        assert_eq!(
            state_of(true, false, Some(now + 7_200_000.0), PidStatus::Dead, now),
            State::Reclaimable
        );
    }

    fn info(exists: bool, body: Option<&str>, mtime: Option<f64>, now: f64) -> LockInfo {
        let parsed = body.and_then(parse_int);
        let (pid, pid_status) = match parsed {
            None => (None, PidStatus::None),
            Some(p) => (Some(p as i64), liveness(p as i64)),
        };
        let state = state_of(exists, body.is_some_and(str::is_empty), mtime, pid_status, now);
        LockInfo {
            path: PathBuf::from("/m/.consolidate-lock"),
            exists,
            unreadable: None,
            body: body.map(str::to_string),
            pid,
            pid_status,
            mtime_ms: mtime,
            state,
        }
    }

    #[test]
    fn lock_vectors_of_appendix_a10() {
        let now = 1_773_144_000_000.0;
        let me = std::process::id().to_string();
        let dead = {
            let mut c = std::process::Command::new("true").spawn().unwrap();
            let p = c.id();
            c.wait().unwrap();
            p.to_string()
        };
        let st = |i: LockInfo| status(i, now, 24.0);
        assert_eq!(st(info(false, None, None, now)).next_acquire.action, "create");
        assert_eq!(st(info(true, Some(&me), Some(now), now)).info.state, State::Held);
        assert_eq!(st(info(true, Some(&me), Some(now), now)).next_acquire.action, "refuse");
        assert_eq!(
            st(info(true, Some(&dead), Some(now - 600_000.0), now)).info.state,
            State::Reclaimable
        );
        assert_eq!(
            st(info(true, Some(&dead), Some(now - 600_000.0), now)).info.pid_status,
            PidStatus::Dead
        );
        assert_eq!(
            st(info(true, Some("garbage"), Some(now), now)).info.state,
            State::Reclaimable
        );
        assert_eq!(
            st(info(true, Some("1"), Some(now), now)).info.pid_status,
            PidStatus::Invalid
        );
        assert_eq!(
            st(info(true, Some(""), Some(now - 1.0), now)).info.state,
            State::RolledBack
        );
        assert_eq!(
            st(info(true, Some(&format!("  {me} abc\n")), Some(now), now))
                .info
                .state,
            State::Held
        );
        assert_eq!(
            st(info(true, Some(&me), Some(now - 3_601_000.0), now)).info.state,
            State::Stale
        );
        let future = st(info(true, Some(&dead), Some(now + 7_200_000.0), now));
        assert_eq!(future.info.state, State::Reclaimable);
        assert!(!future.time_gate.passes);
        let never = st(info(false, None, None, now));
        assert!(never.time_gate.passes);
        assert!(never.time_gate.hours_since > 4.9e5);
    }

    #[test]
    fn text_form_matches_the_spec_example() {
        let now = 1_773_144_000_000.0;
        let mut i = info(true, Some("4242"), Some(now - 25.0 * 3_600_000.0), now);
        i.pid_status = PidStatus::Dead;
        i.state = State::Stale;
        let s = status(i, now, 24.0);
        assert_eq!(
            s.to_text(),
            ".consolidate-lock: stale\n  body:     4242 (PID dead: no such process)\n  mtime:    2026-03-09T11:00:00.000Z (25.0 h ago) = last consolidated\n  next acquire: reclaims (older than 1 h); time gate passes (25.0 h ≥ 24 h)\n"
        );
    }

    /// Issue 14 §8: a lock is not "Claude Code's" because its PID is alive.
    #[test]
    fn a_live_pid_is_named_claude_code_only_when_it_is() {
        let me = i64::from(std::process::id());
        assert!(!is_claude_code(me));
        assert_eq!(holder(me), format!("PID {me}"));
        assert!(!is_claude_code(99_999_999));
    }

    #[test]
    fn own_pid_is_alive_and_invalid_pids_are_invalid() {
        assert_eq!(liveness(i64::from(std::process::id())), PidStatus::Alive);
        for p in [0, 1, -5, 99_999_999_999] {
            assert_eq!(liveness(p), PidStatus::Invalid, "{p}");
        }
    }

    #[test]
    fn states_and_actions_serialize_to_their_names() {
        use State as S;
        for s in [S::Absent, S::RolledBack, S::Stale, S::Held, S::Reclaimable] {
            assert_eq!(serde_json::to_value(s).unwrap(), s.as_str());
        }
        for a in [Action::Create, Action::Reclaim, Action::Refuse] {
            assert_eq!(serde_json::to_value(a).unwrap(), a.as_str());
        }
    }
}
