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

/// Probe a PID with signal 0 (Unix).
pub fn liveness(pid: i64) -> PidStatus {
    if pid <= 1 || pid > i64::from(i32::MAX) {
        return PidStatus::Invalid;
    }
    probe(pid as i32)
}

#[cfg(unix)]
fn probe(pid: i32) -> PidStatus {
    unsafe extern "C" {
        fn kill(pid: i32, sig: i32) -> i32;
    }
    // SAFETY: signal 0 performs only the existence and permission checks.
    let rc = unsafe { kill(pid, 0) };
    if rc == 0 {
        return PidStatus::Alive;
    }
    match std::io::Error::last_os_error().raw_os_error() {
        Some(1) => PidStatus::Eperm,
        _ => PidStatus::Dead,
    }
}

#[cfg(not(unix))]
fn probe(_pid: i32) -> PidStatus {
    PidStatus::Dead
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
    let (body, unreadable) = match std::fs::read(&path) {
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

    #[test]
    fn own_pid_is_alive_and_invalid_pids_are_invalid() {
        assert_eq!(liveness(i64::from(std::process::id())), PidStatus::Alive);
        for p in [0, 1, -5, 99_999_999_999] {
            assert_eq!(liveness(p), PidStatus::Invalid, "{p}");
        }
    }
}
