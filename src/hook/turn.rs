//! The turn list (SPEC §7.3 PostToolUse step 1, Stop): the memory files a session's
//! agent wrote since its last `Stop`, so the end of the turn can check them once
//! instead of every write crying about the next step of a correct save. Kept in
//! memctl's state dir, `${XDG_STATE_HOME:-~/.local/state}/memctl/turns/`, one
//! file per session and agent, so it works with history off. Each line is
//! `<unix ms>\t<absolute path>`; entries older than a day are dropped.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use crate::paths::Env;

/// PostToolUse step 1 (SPEC §7.3): add the written memory file to the turn list
/// of the call's session and agent. A failure is logged, never reported: the
/// list only makes the end-of-turn check possible.
pub fn remember(p: &super::payload::Payload, call: &super::Call, w: &super::Written) {
    let Some(dir) = dir(call.env) else {
        return;
    };
    let session = p.session_id.get().unwrap_or("");
    let agent = p.agent_id.get().unwrap_or("");
    if let Err(e) = record(&dir, session, agent, &super::lexical(&w.path), call.now) {
        super::gate::log(call.env, call.now, &format!("turn list: {e}"));
    }
}

/// Entries older than this are dropped.
const MAX_AGE_MS: i64 = 24 * 60 * 60 * 1000;
/// A turn list larger than this is not read (a list is a few lines).
const MAX_BYTES: u64 = 1 << 20;

/// memctl's state dir: `$XDG_STATE_HOME/memctl`, else `~/.local/state/memctl`.
pub fn state_dir(env: &Env) -> Option<PathBuf> {
    let nonempty = |k: &str| env.get_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    nonempty("XDG_STATE_HOME")
        .or_else(|| env.home().map(|h| PathBuf::from(h).join(".local/state")))
        .map(|s| s.join("memctl"))
}

/// The turn lists' dir.
pub fn dir(env: &Env) -> Option<PathBuf> {
    state_dir(env).map(|s| s.join("turns"))
}

/// The file of one session's agent (`agent` empty for the main conversation).
fn list_path(dir: &Path, session: &str, agent: &str) -> PathBuf {
    use sha2::Digest;
    let mut h = sha2::Sha256::new();
    h.update(session.as_bytes());
    h.update([0]);
    h.update(agent.as_bytes());
    let hex: String = h.finalize().iter().take(12).map(|b| format!("{b:02x}")).collect();
    dir.join(format!("{hex}.turn"))
}

/// Parse a turn list: the paths of entries not older than a day, in order,
/// each once; and whether any entry was dropped.
fn parse(text: &str, now_ms: i64) -> (Vec<String>, bool) {
    let mut out: Vec<String> = Vec::new();
    let mut dropped = false;
    for line in text.lines() {
        let Some((ms, path)) = line.split_once('\t') else {
            dropped |= !line.is_empty();
            continue;
        };
        let fresh = ms.parse::<i64>().is_ok_and(|t| now_ms - t <= MAX_AGE_MS);
        if !fresh || path.is_empty() {
            dropped = true;
            continue;
        }
        if !out.iter().any(|p| p == path) {
            out.push(path.to_string());
        }
    }
    (out, dropped)
}

fn read(path: &Path) -> String {
    crate::fsread::read_regular(path, MAX_BYTES)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default()
}

/// Add `file` to the turn list of `session`/`agent`.
pub fn record(dir: &Path, session: &str, agent: &str, file: &Path, now: DateTime<Utc>) -> std::io::Result<()> {
    let Some(file) = file.to_str().filter(|f| !f.contains(['\n', '\r', '\t'])) else {
        return Ok(());
    };
    crate::store::create_dir(dir).map_err(|e| std::io::Error::other(e.message.to_string()))?;
    let path = list_path(dir, session, agent);
    let now_ms = now.timestamp_millis();
    let (paths, dropped) = parse(&read(&path), now_ms);
    let line = format!("{now_ms}\t{file}\n");
    if dropped {
        // Rewrite without the stale entries (atomically: another call may read it).
        let mut text: String = paths
            .iter()
            .filter(|p| *p != file)
            .map(|p| format!("{now_ms}\t{p}\n"))
            .collect();
        text.push_str(&line);
        let tmp = path.with_extension(format!("tmp{}", std::process::id()));
        fs::write(&tmp, text)?;
        return fs::rename(&tmp, &path);
    }
    if paths.iter().any(|p| p == file) {
        return Ok(());
    }
    let mut f = fs::OpenOptions::new().create(true).append(true).open(&path)?;
    f.write_all(line.as_bytes())
}

/// The files in the turn list of `session`/`agent`, and the list cleared. Turn
/// lists of other sessions whose every entry is older than a day are removed.
pub fn take(dir: &Path, session: &str, agent: &str, now: DateTime<Utc>) -> Vec<PathBuf> {
    let path = list_path(dir, session, agent);
    let now_ms = now.timestamp_millis();
    let (paths, _) = parse(&read(&path), now_ms);
    let _ = fs::remove_file(&path);
    prune(dir, now_ms);
    paths.into_iter().map(PathBuf::from).collect()
}

/// Remove turn lists with no entry younger than a day (sessions that never stopped).
fn prune(dir: &Path, now_ms: i64) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten().take(10_000) {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "turn") && parse(&read(&p), now_ms).0.is_empty() {
            let _ = fs::remove_file(&p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn records_each_file_once_and_takes_them_once() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path().join("turns");
        let t0 = Utc.with_ymd_and_hms(2026, 3, 1, 10, 0, 0).unwrap();
        record(&d, "s1", "", Path::new("/m/a.md"), t0).unwrap();
        record(&d, "s1", "", Path::new("/m/b.md"), t0).unwrap();
        record(&d, "s1", "", Path::new("/m/a.md"), t0).unwrap();
        record(&d, "s1", "a1", Path::new("/m/c.md"), t0).unwrap();
        record(&d, "s2", "", Path::new("/m/d.md"), t0).unwrap();
        assert_eq!(
            take(&d, "s1", "", t0),
            vec![PathBuf::from("/m/a.md"), PathBuf::from("/m/b.md")]
        );
        assert!(take(&d, "s1", "", t0).is_empty());
        assert_eq!(take(&d, "s1", "a1", t0), vec![PathBuf::from("/m/c.md")]);
        // A day later the other session's entry is gone, and so is its file.
        let later = t0 + chrono::Duration::hours(25);
        assert!(take(&d, "s9", "", later).is_empty());
        assert_eq!(fs::read_dir(&d).unwrap().count(), 0);
    }

    #[test]
    fn stale_entries_are_dropped_when_a_new_one_is_added() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path().to_path_buf();
        let t0 = Utc.with_ymd_and_hms(2026, 3, 1, 10, 0, 0).unwrap();
        record(&d, "s", "", Path::new("/m/old.md"), t0).unwrap();
        let later = t0 + chrono::Duration::hours(30);
        record(&d, "s", "", Path::new("/m/new.md"), later).unwrap();
        assert_eq!(take(&d, "s", "", later), vec![PathBuf::from("/m/new.md")]);
    }
}
