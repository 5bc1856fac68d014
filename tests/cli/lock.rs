//! `memctl lock status` (SPEC §3.12) on the vectors of Appendix A.10, with real
//! processes for live PIDs and a reaped child's PID for a dead one.

use std::fs;

use crate::support::{Env, set_age};

/// A PID that no longer runs: a child that has exited and been reaped.
fn dead_pid() -> u32 {
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    pid
}

/// A live process other than the test itself; killed on drop.
struct Live(std::process::Child);

impl Live {
    fn new() -> Live {
        Live(std::process::Command::new("sleep").arg("30").spawn().unwrap())
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn status(body: Option<&str>, hours: f64) -> serde_json::Value {
    let env = Env::new();
    if let Some(b) = body {
        let p = env.dir().join(".consolidate-lock");
        fs::write(&p, b).unwrap();
        set_age(&p, hours);
    }
    env.args(["lock", "status", "--json"]).run().success().json()
}

#[test]
fn vectors_of_appendix_a10() {
    let live = Live::new();
    let p = live.0.id().to_string();
    let dead = dead_pid().to_string();
    let me = std::process::id().to_string();
    let cases: Vec<(Option<String>, f64, &str, &str, &str)> = vec![
        (None, 0.0, "absent", "none", "create"),
        (Some(p.clone()), 0.0, "held", "alive", "refuse"),
        (Some(me.clone()), 0.0, "held", "alive", "refuse"),
        (Some(dead.clone()), 10.0 / 60.0, "reclaimable", "dead", "reclaim"),
        (Some("garbage".into()), 0.0, "reclaimable", "none", "reclaim"),
        (Some("1".into()), 0.0, "reclaimable", "invalid", "reclaim"),
        (Some(String::new()), 0.0, "rolled-back", "none", "reclaim"),
        (Some(String::new()), 100.0, "rolled-back", "none", "reclaim"),
        (Some(format!("  {p} abc\n")), 0.0, "held", "alive", "refuse"),
        (Some(p.clone()), 3601.0 / 3600.0, "stale", "alive", "reclaim"),
        (Some(dead.clone()), -2.0, "reclaimable", "dead", "reclaim"),
    ];
    for (body, hours, state, pid_status, action) in cases {
        let doc = status(body.as_deref(), hours);
        assert_eq!(doc["state"], state, "{body:?}");
        assert_eq!(doc["pid_status"], pid_status, "{body:?}");
        assert_eq!(doc["next_acquire"]["action"], action, "{body:?}");
    }
    for b in ["0", "1", "-5", "99999999999"] {
        assert_eq!(status(Some(b), 0.0)["pid_status"], "invalid", "{b}");
    }
}

#[test]
fn a_future_mtime_closes_the_time_gate_and_lint_reports_it() {
    let doc = status(Some(&dead_pid().to_string()), -2.0);
    assert_eq!(doc["time_gate"]["passes"], false);
    assert_eq!(doc["time_gate"]["hours_since"], -2.0);
}

#[test]
fn rollback_leaves_an_empty_lock_with_the_prior_mtime() {
    let env = Env::new();
    let p = env.dir().join(".consolidate-lock");
    fs::write(&p, "").unwrap();
    let f = fs::File::options().write(true).open(&p).unwrap();
    f.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_millis(1_700_000_000_000))
        .unwrap();
    let doc = env.args(["lock", "status", "--json"]).run().success().json();
    assert_eq!(doc["state"], "rolled-back");
    assert_eq!(doc["mtime"], "2023-11-14T22:13:20.000Z");
    assert_eq!(doc["last_consolidated_at"], "2023-11-14T22:13:20.000Z");
    assert_eq!(doc["body"], "");
    assert_eq!(doc["next_acquire"]["prior_mtime_ms"], 1_700_000_000_000.0);
}

#[test]
fn text_form() {
    let dead = dead_pid();
    let env = Env::new();
    let p = env.dir().join(".consolidate-lock");
    fs::write(&p, dead.to_string()).unwrap();
    set_age(&p, 25.0);
    env.args(["lock", "status"]).run().success().stdout(&format!(
        ".consolidate-lock: stale\n  body:     {dead} (PID dead: no such process)\n  mtime:    2026-03-09T11:00:00.000Z (25.0 h ago) = last consolidated\n  next acquire: reclaims (older than 1 h); time gate passes (25.0 h ≥ 24 h)\n"
    ));
    let absent = Env::new().args(["lock", "status"]).run().success();
    assert!(
        absent
            .stdout
            .starts_with(".consolidate-lock: absent\n  last consolidated: never\n"),
        "{}",
        absent.stdout
    );
}

#[test]
fn json_fields() {
    let live = Live::new();
    let doc = status(Some(&live.0.id().to_string()), 0.5);
    for key in [
        "path",
        "state",
        "exists",
        "body",
        "pid",
        "pid_status",
        "mtime",
        "mtime_ms",
        "age_seconds",
        "stale_after_seconds",
        "last_consolidated_at",
        "next_acquire",
        "time_gate",
        "warnings",
    ] {
        assert!(doc.get(key).is_some(), "missing {key}");
    }
    assert_eq!(doc["age_seconds"], 1800.0);
    assert_eq!(doc["stale_after_seconds"], 3600);
    assert_eq!(doc["pid"], live.0.id());
    assert_eq!(doc["time_gate"]["min_hours"], 24.0);
}

#[test]
fn team_is_ignored_with_a_note() {
    let run = Env::new().args(["--team", "lock", "status"]).run().success();
    assert_eq!(
        run.stderr,
        "memctl: note: --team is ignored: the dream lock lives in the main memory dir\n"
    );
}

#[test]
fn another_users_process_is_reclaimable_with_eperm() {
    use std::os::unix::fs::MetadataExt;
    // Signal 0 answers EPERM only to an unprivileged caller. As root (as CI runs)
    // it succeeds for every process, so this test has nothing to check there and
    // returns; the EPERM mapping itself is unit-tested in src/lock.rs.
    let me = fs::metadata("/proc/self").map(|m| m.uid()).unwrap_or(0);
    if me == 0 {
        return;
    }
    let other = fs::read_dir("/proc")
        .unwrap()
        .filter_map(Result::ok)
        .filter_map(|e| {
            let pid: u32 = e.file_name().to_str()?.parse().ok()?;
            (pid > 1 && e.metadata().ok()?.uid() != me).then_some(pid)
        })
        .next();
    let Some(pid) = other else { return };
    let doc = status(Some(&pid.to_string()), 0.0);
    assert_eq!(doc["pid_status"], "eperm");
    assert_eq!(doc["state"], "reclaimable");
}

#[test]
fn r14_bare_lock_shows_the_status() {
    let a = Env::new().args(["lock", "--json"]).run().success().json();
    let b = Env::new().args(["lock", "status", "--json"]).run().success().json();
    assert_eq!(a["state"], b["state"]);
    assert_eq!(a["state"], "absent");
}

#[test]
fn r14_no_lock_reads_never_consolidated_not_hours_since_1970() {
    let run = Env::new().args(["lock"]).run().success();
    assert!(
        run.stdout.contains("time gate passes (never consolidated)"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains(" h ago"), "{}", run.stdout);
    let doc = Env::new().args(["dream", "--json"]).run().success().json();
    assert_eq!(doc["gates"][1]["detail"], "never consolidated (no lock file)");
}

/// SPEC v3 §2.11: the time gate's threshold is the cached flag's `minHours` when
/// Claude Code would read it (§2.16), else 24.
#[test]
fn the_time_gate_uses_the_cached_flag_threshold() {
    let env = Env::new();
    let claude = env.home().join(".claude");
    fs::create_dir_all(&claude).unwrap();
    fs::write(
        claude.join(".claude.json"),
        r#"{"cachedGrowthBookFeatures": {"tengu_onyx_plover": {"enabled": true, "minHours": 72}}}"#,
    )
    .unwrap();
    let p = env.dir().join(".consolidate-lock");
    fs::write(&p, dead_pid().to_string()).unwrap();
    set_age(&p, 48.0);
    let doc = env.args(["lock", "status", "--json"]).run().success().json();
    assert_eq!(doc["time_gate"]["min_hours"], 72.0);
    assert_eq!(doc["time_gate"]["passes"], false);
    let env = Env::new();
    let claude = env.home().join(".claude");
    fs::create_dir_all(&claude).unwrap();
    fs::write(
        claude.join(".claude.json"),
        r#"{"cachedGrowthBookFeatures": {"tengu_onyx_plover": {"enabled": true, "minHours": 72}}}"#,
    )
    .unwrap();
    let doc = env
        .env("DISABLE_GROWTHBOOK", "1")
        .args(["lock", "status", "--json"])
        .run()
        .success()
        .json();
    assert_eq!(doc["time_gate"]["min_hours"], 24.0);
}
