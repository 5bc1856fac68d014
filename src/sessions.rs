//! Session transcripts (SPEC §2.10): which `<uuid>.jsonl` entries of the transcripts
//! dir count as touched since the last consolidation, and why others do not.

use std::path::Path;

use serde::Serialize;

/// Why an entry counts as a session touched since the last consolidation, or not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Reason {
    #[serde(rename = "counted")]
    Counted,
    /// Not touched since the last consolidation.
    #[serde(rename = "older")]
    Older,
    #[serde(rename = "not a session id")]
    NotASessionId,
    /// `agent-*.jsonl`: a subagent's transcript.
    #[serde(rename = "agent transcript")]
    AgentTranscript,
    #[serde(rename = "stat failed")]
    StatFailed,
    /// The session named by `--current-session`.
    #[serde(rename = "current session")]
    CurrentSession,
}

impl Reason {
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Counted => "counted",
            Reason::Older => "older",
            Reason::NotASessionId => "not a session id",
            Reason::AgentTranscript => "agent transcript",
            Reason::StatFailed => "stat failed",
            Reason::CurrentSession => "current session",
        }
    }
}

/// A reason equals its text in the JSON contract.
impl PartialEq<&str> for Reason {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// One `*.jsonl` entry of the transcripts dir. It serializes to an entry of
/// `sessions` in `dream --dry-run --json` (`mtime` as an ISO time).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Session {
    /// The entry's name.
    pub name: String,
    /// The session id (the name without `.jsonl`) when it is one.
    pub id: Option<String>,
    /// Modification time in whole milliseconds (truncated), when it could be stat'ed.
    #[serde(rename = "mtime", serialize_with = "iso_mtime")]
    pub mtime_ms: Option<i64>,
    pub counted: bool,
    pub reason: Reason,
}

impl Session {
    /// The mtime as an ISO time (`Date.prototype.toISOString`).
    pub fn mtime(&self) -> Option<crate::text::IsoMs> {
        self.mtime_ms.map(|m| crate::text::IsoMs(m as f64))
    }
}

fn iso_mtime<S: serde::Serializer>(mtime_ms: &Option<i64>, s: S) -> Result<S::Ok, S::Error> {
    mtime_ms.map(|m| crate::text::IsoMs(m as f64)).serialize(s)
}

/// `^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`, case-insensitive.
pub fn is_session_id(s: &str) -> bool {
    let parts: Vec<&str> = s.split('-').collect();
    parts.len() == 5
        && parts
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(p, n)| p.len() == n && p.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Classify one entry given its name and (whole-millisecond) mtime.
pub fn classify(name: &str, mtime_ms: Option<i64>, since_ms: f64, current: Option<&str>) -> Session {
    let stem = name.strip_suffix(".jsonl").unwrap_or(name);
    let make = |counted, reason, id: Option<&str>| Session {
        name: name.to_string(),
        id: id.map(str::to_string),
        mtime_ms,
        counted,
        reason,
    };
    if !is_session_id(stem) {
        let reason = if stem.starts_with("agent-") {
            Reason::AgentTranscript
        } else {
            Reason::NotASessionId
        };
        return make(false, reason, None);
    }
    let Some(m) = mtime_ms else {
        return make(false, Reason::StatFailed, Some(stem));
    };
    if (m as f64) <= since_ms {
        return make(false, Reason::Older, Some(stem));
    }
    if current.is_some_and(|c| c.eq_ignore_ascii_case(stem)) {
        return make(false, Reason::CurrentSession, Some(stem));
    }
    make(true, Reason::Counted, Some(stem))
}

/// Every `*.jsonl` entry of `dir` (non-recursive), sorted by name; a missing dir
/// gives none.
pub fn list(dir: &Path, since_ms: f64, current: Option<&str>) -> Vec<Session> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<Session> = entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            if !name.ends_with(".jsonl") {
                return None;
            }
            // Following symlinks; a directory named `<uuid>.jsonl` counts too.
            let mtime = std::fs::metadata(e.path())
                .ok()
                .and_then(|m| m.modified().ok())
                .map(|t| match t.duration_since(std::time::UNIX_EPOCH) {
                    Ok(d) => d.as_millis() as i64,
                    Err(e) => -(e.duration().as_millis() as i64),
                });
            Some(classify(&name, mtime, since_ms, current))
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// The mark Claude Code's organization gate looks for (SPEC §2.11 gate 7).
pub const ORGANIZATION_MARK: &[u8] = br#""type":"hybrid-organization""#;

/// What a search of the transcripts dir for [`ORGANIZATION_MARK`] found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Organization {
    /// Names of the transcript files holding the mark.
    pub marked: Vec<String>,
    /// Files that could not be searched, with why.
    pub failed: Vec<String>,
}

/// Search the regular files of `dir` whose name matches `*.jsonl*` (non-recursive)
/// for [`ORGANIZATION_MARK`], streamed in one pass each (linear; a FIFO or device is
/// never opened). A missing dir gives nothing found.
pub fn organization_marks(dir: &Path) -> Organization {
    let mut out = Organization::default();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.contains(".jsonl"))
        .collect();
    names.sort();
    for name in names {
        let path = dir.join(&name);
        match std::fs::metadata(&path) {
            Ok(m) if m.is_file() => {}
            Ok(_) => continue,
            Err(e) => {
                out.failed.push(format!("{name}: {}", crate::error::io_words(&e)));
                continue;
            }
        }
        match std::fs::File::open(&path).and_then(|f| contains(f, ORGANIZATION_MARK)) {
            Ok(true) => out.marked.push(name),
            Ok(false) => {}
            Err(e) => out.failed.push(format!("{name}: {}", crate::error::io_words(&e))),
        }
    }
    out
}

/// Whether `needle` (non-empty) occurs in what `r` yields, in one streamed pass.
fn contains(mut r: impl std::io::Read, needle: &[u8]) -> std::io::Result<bool> {
    let keep = needle.len() - 1;
    let mut buf = vec![0u8; 64 * 1024 + keep];
    let mut have = 0;
    loop {
        let n = match r.read(&mut buf[have..]) {
            Ok(0) => return Ok(false),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        have += n;
        if buf[..have].windows(needle.len()).any(|w| w == needle) {
            return Ok(true);
        }
        let tail = have.min(keep);
        buf.copy_within(have - tail..have, 0);
        have = tail;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: i64 = 3_600_000;

    #[test]
    fn classification_matches_appendix_a11() {
        let n: i64 = 1_773_144_000_000;
        let since = (n - 24 * H) as f64;
        let c = |name: &str, m: i64, since: f64| classify(name, Some(m), since, None);
        assert!(c("11111111-1111-1111-1111-111111111111.jsonl", n - H, since).counted);
        assert_eq!(
            c("22222222-2222-2222-2222-222222222222.jsonl", n - 30 * H, since).reason,
            "older"
        );
        assert!(c("22222222-2222-2222-2222-222222222222.jsonl", n - 30 * H, 0.0).counted);
        assert!(c("AAAAAAAA-AAAA-AAAA-AAAA-AAAAAAAAAAAA.jsonl", n - 2 * H, since).counted);
        assert_eq!(
            c("agent-33333333-3333-3333-3333-333333333333.jsonl", n - H, 0.0).reason,
            "agent transcript"
        );
        assert_eq!(c("not-a-uuid.jsonl", n - H, 0.0).reason, "not a session id");
        assert_eq!(
            classify("55555555-5555-5555-5555-555555555555.jsonl", None, 0.0, None).reason,
            "stat failed"
        );
        let cur = classify(
            "11111111-1111-1111-1111-111111111111.jsonl",
            Some(n),
            0.0,
            Some("11111111-1111-1111-1111-111111111111"),
        );
        assert_eq!(cur.reason, "current session");
    }

    #[test]
    fn whole_milliseconds_are_compared_with_a_fractional_last() {
        assert!(!classify("11111111-1111-1111-1111-111111111111.jsonl", Some(1000), 1000.5, None).counted);
        assert!(classify("11111111-1111-1111-1111-111111111111.jsonl", Some(1001), 1000.5, None).counted);
    }

    /// The A.11 table on a real transcripts dir.
    #[test]
    fn listing_matches_appendix_a11() {
        let dir = tempfile::tempdir().unwrap();
        let n: i64 = 1_773_144_000_000;
        let at = |p: &Path, ms: i64| {
            let t = std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms as u64);
            std::fs::File::open(p).unwrap().set_modified(t).unwrap();
        };
        for (name, ago) in [
            ("11111111-1111-1111-1111-111111111111.jsonl", H),
            ("22222222-2222-2222-2222-222222222222.jsonl", 30 * H),
            ("AAAAAAAA-AAAA-AAAA-AAAA-AAAAAAAAAAAA.jsonl", 2 * H),
            ("agent-33333333-3333-3333-3333-333333333333.jsonl", H),
            ("not-a-uuid.jsonl", H),
            ("44444444-4444-4444-4444-444444444444.json", H),
        ] {
            let p = dir.path().join(name);
            std::fs::write(&p, "{}\n").unwrap();
            at(&p, n - ago);
        }
        for name in [
            "55555555-5555-5555-5555-555555555555",
            "66666666-6666-6666-6666-666666666666.jsonl",
        ] {
            let p = dir.path().join(name);
            std::fs::create_dir(&p).unwrap();
            at(&p, n - H);
        }
        let counted = |since: f64| -> Vec<String> {
            list(dir.path(), since, None)
                .into_iter()
                .filter(|s| s.counted)
                .map(|s| s.name[..8].to_string())
                .collect()
        };
        assert_eq!(counted((n - 24 * H) as f64), ["11111111", "66666666", "AAAAAAAA"]);
        assert_eq!(counted(0.0), ["11111111", "22222222", "66666666", "AAAAAAAA"]);
    }

    #[test]
    fn the_organization_mark_is_found_across_read_boundaries() {
        let dir = tempfile::tempdir().unwrap();
        let mut big = vec![b'x'; 64 * 1024 - 5];
        big.extend_from_slice(br#"{"type":"hybrid-organization","organizationUuid":"o"}"#);
        std::fs::write(dir.path().join("a.jsonl"), &big).unwrap();
        std::fs::write(dir.path().join("b.jsonl.bak"), br#"{"type": "hybrid-organization"}"#).unwrap();
        std::fs::write(dir.path().join("c.jsonl"), br#"{"type":"user"}"#).unwrap();
        std::fs::write(dir.path().join("d.txt"), br#"{"type":"hybrid-organization"}"#).unwrap();
        std::fs::create_dir(dir.path().join("e.jsonl")).unwrap();
        let o = organization_marks(dir.path());
        assert_eq!(o.marked, ["a.jsonl"]);
        assert!(o.failed.is_empty());
        std::fs::write(dir.path().join("b.jsonl.bak"), br#"x{"type":"hybrid-organization"}"#).unwrap();
        assert_eq!(organization_marks(dir.path()).marked, ["a.jsonl", "b.jsonl.bak"]);
        assert_eq!(organization_marks(&dir.path().join("none")), Organization::default());
    }

    #[test]
    fn reasons_serialize_to_their_text() {
        use Reason as R;
        for r in [
            R::Counted,
            R::Older,
            R::NotASessionId,
            R::AgentTranscript,
            R::StatFailed,
            R::CurrentSession,
        ] {
            assert_eq!(serde_json::to_value(r).unwrap(), r.as_str());
        }
    }
}
