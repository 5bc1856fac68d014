//! `memctl dream --dry-run` (SPEC §3.11) on the walk-throughs of Appendix A.11.

use std::fs;
use std::path::PathBuf;

use memctl::paths::sanitize::sanitize;

use crate::support::{Env, set_age};

fn uuid(i: u32) -> String {
    let d = char::from_digit(i % 10, 10).unwrap().to_string();
    format!(
        "{}-{}-{}-{}-{}",
        d.repeat(8),
        d.repeat(4),
        d.repeat(4),
        d.repeat(4),
        d.repeat(12)
    )
}

/// The A.11 walk-throughs' server flag: auto-dream available, cached (SPEC §2.16).
const AVAILABLE: &str = r#"{"enabled": false, "available": true}"#;

/// A project, its transcripts dir, `autoDreamEnabled` in the user settings, and the
/// server flag cached as available (the A.11 walk-throughs).
fn setup(dream: Option<bool>) -> (Env, PathBuf) {
    setup_with(dream, Some(AVAILABLE))
}

/// As [`setup`], with `tengu_onyx_plover` cached as `flag` (JSON), or not cached.
fn setup_with(dream: Option<bool>, flag: Option<&str>) -> (Env, PathBuf) {
    let env = Env::new();
    if let Some(f) = flag {
        // CLAUDE_CONFIG_DIR is set in tests: the global config is <config home>/.claude.json.
        let claude = env.home().join(".claude");
        fs::create_dir_all(&claude).unwrap();
        fs::write(
            claude.join(".claude.json"),
            format!("{{\"numStartups\": 3, \"cachedGrowthBookFeatures\": {{\"tengu_onyx_plover\": {f}}}}}"),
        )
        .unwrap();
    }
    let proj = env.root().join("proj");
    fs::create_dir_all(&proj).unwrap();
    let claude = env.home().join(".claude");
    let transcripts = claude.join("projects").join(sanitize(&proj.to_string_lossy()).key);
    fs::create_dir_all(&transcripts).unwrap();
    if let Some(d) = dream {
        fs::write(claude.join("settings.json"), format!("{{\"autoDreamEnabled\": {d}}}")).unwrap();
    }
    let env = env.arg("--project").arg(&proj);
    (env, transcripts)
}

fn session(dir: &std::path::Path, name: &str, hours: f64) {
    let p = dir.join(name);
    fs::write(&p, "{}\n").unwrap();
    set_age(&p, hours);
}

fn lock(env: &Env, hours: f64) {
    let mut c = std::process::Command::new("true").spawn().unwrap();
    let pid = c.id();
    c.wait().unwrap();
    let p = env.dir().join(".consolidate-lock");
    fs::write(&p, pid.to_string()).unwrap();
    set_age(&p, hours);
}

fn dream(env: Env) -> serde_json::Value {
    env.args(["dream", "--dry-run", "--json"]).run().success().json()
}

#[test]
fn lock_23_hours_old_is_closed_at_time_and_silent() {
    let (env, t) = setup(Some(true));
    lock(&env, 23.0);
    for i in 1..=6 {
        session(&t, &format!("{}.jsonl", uuid(i)), 1.0);
    }
    let doc = dream(env);
    assert_eq!(doc["verdict"], "closed at time");
    assert_eq!(doc["log_line"], "silent");
    assert_eq!(doc["would_fire"], false);
    assert_eq!(doc["gates"][1]["status"], "closed");
}

#[test]
fn lock_25_hours_old_with_4_sessions_skips() {
    let (env, t) = setup(Some(true));
    lock(&env, 25.0);
    for i in 1..=4 {
        session(&t, &format!("{}.jsonl", uuid(i)), 1.0);
    }
    let doc = dream(env);
    assert_eq!(doc["verdict"], "closed at sessions");
    assert_eq!(
        doc["log_line"],
        "[autoDream] skip — 4 sessions since last consolidation, need 5"
    );
}

#[test]
fn lock_25_hours_old_with_5_sessions_fires() {
    let (env, t) = setup(Some(true));
    lock(&env, 25.0);
    for i in 1..=5 {
        session(&t, &format!("{}.jsonl", uuid(i)), 1.0);
    }
    let doc = dream(env);
    assert_eq!(doc["verdict"], "would fire");
    assert_eq!(doc["would_fire"], true);
    assert_eq!(
        doc["log_line"],
        "[autoDream] firing — 25.0h since last, 5 sessions to review"
    );
    assert_eq!(
        doc["gates"][2],
        serde_json::json!({"gate": "scan throttle", "status": "n/a", "detail": "per Claude Code process: at most one session scan every 10 minutes"})
    );
    assert_eq!(doc["gates"][4]["status"], "pass");
}

#[test]
fn no_lock_file_counts_every_transcript() {
    let (env, t) = setup(Some(true));
    for i in 1..=3 {
        session(&t, &format!("{}.jsonl", uuid(i)), 1000.0 * f64::from(i));
    }
    let doc = dream(env);
    assert_eq!(doc["gates"][1]["status"], "pass");
    assert!(doc["hours_since"].as_f64().unwrap() > 4.9e5);
    assert_eq!(doc["last_consolidated_at"], serde_json::Value::Null);
    assert_eq!(doc["verdict"], "closed at sessions");
    assert_eq!(
        doc["log_line"],
        "[autoDream] skip — 3 sessions since last consolidation, need 5"
    );
}

/// A.11's last walk-through: `autoDreamEnabled` unset and the flag not cached.
#[test]
fn unset_auto_dream_without_the_flag_would_fire_if_the_server_enables_it() {
    let (env, t) = setup_with(None, None);
    lock(&env, 25.0);
    for i in 1..=5 {
        session(&t, &format!("{}.jsonl", uuid(i)), 1.0);
    }
    let doc = dream(env);
    assert_eq!(doc["verdict"], "would fire if the server enables auto-dream");
    assert_eq!(doc["would_fire"], serde_json::Value::Null);
    assert_eq!(doc["gates"][0]["status"], "unknown");
}

/// A transcripts dir with six sessions since a 48-hour-old lock of a dead PID (the
/// A.16 setup).
fn a16(dream: Option<bool>, flag: Option<&str>) -> Env {
    let (env, t) = setup_with(dream, flag);
    lock(&env, 48.0);
    for i in 1..=6 {
        session(&t, &format!("{}.jsonl", uuid(i)), 1.0);
    }
    env
}

/// SPEC §3.11 (2.1.332): `autoDreamEnabled: true` does nothing without the server
/// flag; with the flag not cached memctl cannot know it.
#[test]
fn auto_dream_true_without_a_cached_flag_would_fire_if_the_server_enables_it() {
    let doc = dream(a16(Some(true), None));
    assert_eq!(doc["verdict"], "would fire if the server enables auto-dream");
    assert_eq!(doc["would_fire"], serde_json::Value::Null);
    assert_eq!(
        doc["log_line"],
        "[autoDream] firing — 48.0h since last, 6 sessions to review"
    );
    assert_eq!(doc["gates"][0]["status"], "unknown");
    assert_eq!(
        doc["flag"],
        serde_json::json!({"source": "absent", "enabled": null, "available": null, "min_hours": null, "min_sessions": null})
    );
    assert_eq!(doc["thresholds_source"], "default");
    assert_eq!(doc["interactive_only"], true);
    let text = a16(Some(true), None)
        .args(["dream", "--dry-run"])
        .run()
        .success()
        .stdout;
    assert!(
        text.contains("Claude Code dreams only in interactive sessions: `claude -p` and SDK never do.\n"),
        "{text}"
    );
    assert!(
        text.contains("verdict: would fire if the server enables auto-dream\n"),
        "{text}"
    );
}

/// SPEC §2.3, A.16: a cached flag with neither `enabled` nor `available` closes
/// auto-dream whatever `autoDreamEnabled` says.
#[test]
fn a_cached_flag_that_is_off_closes_the_enabled_gate() {
    let off = r#"{"enabled": false, "available": false}"#;
    let doc = dream(a16(Some(true), Some(off)));
    assert_eq!(doc["verdict"], "closed at enabled");
    assert_eq!(doc["would_fire"], false);
    assert_eq!(doc["log_line"], "silent");
    assert_eq!(doc["gates"][0]["status"], "closed");
    assert_eq!(doc["flag"]["source"], "cached");
    assert_eq!(doc["flag"]["available"], false);
}

/// SPEC §2.16, A.16: with non-essential traffic off Claude Code reads the cached
/// flag only when CLAUDE_CODE_GB_DISK_CACHE_WHEN_TELEMETRY_OFF is truthy.
#[test]
fn telemetry_off_hides_the_cached_flag_unless_the_disk_cache_switch_is_set() {
    let on = r#"{"enabled": true, "available": true}"#;
    let doc = dream(a16(Some(true), Some(on)).env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"));
    assert_eq!(doc["verdict"], "closed at enabled");
    assert_eq!(doc["flag"]["source"], "disabled");
    assert!(
        doc["gates"][0]["detail"]
            .as_str()
            .unwrap()
            .contains("disabled by CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"),
        "{}",
        doc["gates"][0]
    );
    let doc = dream(
        a16(Some(true), Some(on))
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("CLAUDE_CODE_GB_DISK_CACHE_WHEN_TELEMETRY_OFF", "1"),
    );
    assert_eq!(doc["verdict"], "would fire");
    assert_eq!(
        doc["log_line"],
        "[autoDream] firing — 48.0h since last, 6 sessions to review"
    );
    // A cached flag with the switch off is absent here: not cached means unknown.
    let doc = dream(a16(Some(true), None).env("CLAUDE_CODE_GB_DISK_CACHE_WHEN_TELEMETRY_OFF", "1"));
    assert_eq!(doc["verdict"], "would fire if the server enables auto-dream");
    let doc = dream(a16(Some(true), Some(on)).env("CLAUDE_CODE_ENTRYPOINT", "sdk-py"));
    assert_eq!(doc["verdict"], "closed at enabled");
}

/// SPEC §2.11: the thresholds come from the cached flag when it has them.
#[test]
fn the_cached_flag_sets_the_thresholds() {
    let flag = r#"{"enabled": true, "minHours": 72, "minSessions": 2}"#;
    let doc = dream(a16(None, Some(flag)));
    assert_eq!(doc["verdict"], "closed at time");
    assert_eq!(
        (doc["min_hours"].as_f64(), doc["min_sessions"].as_f64()),
        (Some(72.0), Some(2.0))
    );
    assert_eq!(doc["thresholds_source"], "flag");
    let doc = a16(None, Some(flag))
        .args(["dream", "--dry-run", "--json", "--min-hours", "1"])
        .run()
        .success()
        .json();
    assert_eq!(doc["verdict"], "would fire");
    assert_eq!(doc["thresholds_source"], "options");
}

/// SPEC §2.11 gates 5 and 7: a deny rule on Edit closes the permission gate with
/// Claude Code's log line; a marked transcript leaves the organization unknown.
#[test]
fn the_permission_and_organization_gates() {
    let env = a16(Some(true), Some(AVAILABLE));
    let settings = env.home().join(".claude/settings.json");
    fs::write(
        &settings,
        r#"{"autoDreamEnabled": true, "permissions": {"deny": ["Edit"], "ask": ["Write(/x/**)"]}}"#,
    )
    .unwrap();
    let doc = dream(env);
    assert_eq!(doc["verdict"], "closed at permission");
    assert_eq!(
        doc["log_line"],
        "[autoDream] skip — the deny rule \"Edit\" would refuse memory writes"
    );
    let names: Vec<&str> = doc["gates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["gate"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "enabled",
            "time",
            "scan throttle",
            "sessions",
            "permission",
            "lock",
            "organization"
        ]
    );
    let (env, t) = setup(Some(true));
    lock(&env, 48.0);
    for i in 1..=6 {
        session(&t, &format!("{}.jsonl", uuid(i)), 1.0);
    }
    fs::write(
        t.join(format!("{}.jsonl", uuid(7))),
        "{\"type\":\"hybrid-organization\",\"organizationUuid\":\"x\"}\n",
    )
    .unwrap();
    let doc = dream(env);
    assert_eq!(doc["gates"][6]["status"], "unknown");
    assert_eq!(doc["verdict"], "unknown at organization");
    assert_eq!(doc["log_line"], serde_json::Value::Null);
}

#[test]
fn session_entries_are_classified_as_in_appendix_a11() {
    let (env, t) = setup(Some(true));
    lock(&env, 24.0);
    session(&t, "11111111-1111-1111-1111-111111111111.jsonl", 1.0);
    session(&t, "22222222-2222-2222-2222-222222222222.jsonl", 30.0);
    session(&t, "AAAAAAAA-AAAA-AAAA-AAAA-AAAAAAAAAAAA.jsonl", 2.0);
    session(&t, "agent-33333333-3333-3333-3333-333333333333.jsonl", 1.0);
    session(&t, "not-a-uuid.jsonl", 1.0);
    session(&t, "44444444-4444-4444-4444-444444444444.json", 1.0);
    fs::create_dir(t.join("55555555-5555-5555-5555-555555555555")).unwrap();
    let dir66 = t.join("66666666-6666-6666-6666-666666666666.jsonl");
    fs::create_dir(&dir66).unwrap();
    set_age(&dir66, 1.0);
    let doc = dream(env);
    let got: Vec<(String, bool, String)> = doc["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap().to_string(),
                s["counted"].as_bool().unwrap(),
                s["reason"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let want = vec![
        ("11111111-1111-1111-1111-111111111111.jsonl", true, "counted"),
        ("22222222-2222-2222-2222-222222222222.jsonl", false, "older"),
        ("66666666-6666-6666-6666-666666666666.jsonl", true, "counted"),
        ("AAAAAAAA-AAAA-AAAA-AAAA-AAAAAAAAAAAA.jsonl", true, "counted"),
        (
            "agent-33333333-3333-3333-3333-333333333333.jsonl",
            false,
            "agent transcript",
        ),
        ("not-a-uuid.jsonl", false, "not a session id"),
    ];
    let want: Vec<(String, bool, String)> = want
        .into_iter()
        .map(|(a, b, c)| (a.to_string(), b, c.to_string()))
        .collect();
    assert_eq!(got, want);
}

#[test]
fn current_session_and_what_if_thresholds() {
    let (env, t) = setup(Some(true));
    lock(&env, 25.0);
    for i in 1..=5 {
        session(&t, &format!("{}.jsonl", uuid(i)), 1.0);
    }
    let doc = env
        .args([
            "dream",
            "--dry-run",
            "--json",
            "--current-session",
            &uuid(3),
            "--min-hours",
            "30",
            "--min-sessions",
            "2",
        ])
        .run()
        .success()
        .json();
    assert_eq!(doc["verdict"], "closed at time");
    assert_eq!(doc["min_hours"], 30.0);
    assert_eq!(doc["min_sessions"], 2);
    let current: Vec<&serde_json::Value> = doc["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["reason"] == "current session")
        .collect();
    assert_eq!(current.len(), 1);
}

#[test]
fn without_a_project_the_sessions_gate_is_unknown() {
    let env = Env::new();
    lock(&env, 25.0);
    let doc = env.args(["dream", "--dry-run", "--json"]).run().success().json();
    assert_eq!(doc["gates"][3]["status"], "unknown");
    assert_eq!(doc["log_line"], serde_json::Value::Null);
    assert_eq!(doc["verdict"], "unknown at sessions");
    assert_eq!(doc["would_fire"], serde_json::Value::Null);
}

#[test]
fn r14_bare_dream_is_the_dry_run() {
    let (env, _) = setup(Some(true));
    let bare = env.args(["dream", "--json"]).run().success().stdout;
    let (env, _) = setup(Some(true));
    let explicit = env.args(["dream", "--dry-run", "--json"]).run().success().stdout;
    let strip = |s: &str| {
        s.lines()
            .filter(|l| !l.contains("transcripts_dir") && !l.contains("/tmp"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(strip(&bare), strip(&explicit));
}

#[test]
fn r14_dream_run_is_unsupported_with_one_prefix() {
    Env::new().args(["dream", "--run"]).run().code(2).stderr(
        "memctl: cannot consolidate memories: merging and rewriting them needs a model\nhint: run `memctl dream` for the plan, `memctl lint --fix` for the mechanical fixes, or let Claude Code's auto-dream run\n",
    );
}

#[test]
fn the_plan_names_files_and_lines() {
    let (env, _) = setup(Some(true));
    let proj = env.root().join("proj");
    fs::create_dir_all(proj.join("src")).unwrap();
    fs::write(proj.join("src/real.rs"), "").unwrap();
    let env = env
        .memory_aged("feedback_concurrent.md", "---\nname: Concurrent sessions corrupt memory writes\ndescription: Never let two sessions write memory files at once\ntype: feedback\n---\nSee `src/real.rs:3` and `src/gone.rs:10`.\nDecided yesterday.\n", 48.0)
        .memory_aged("feedback_multi.md", "---\nname: Multiple sessions memory writes\ndescription: Two sessions must never write memory files together\ntype: feedback\n---\nb\n", 24.0)
        .memory_aged("old.md", "---\nname: Old\ndescription: SUPERSEDED by feedback_multi\n---\n", 24.0)
        .index("- [A](feedback_concurrent.md) — a\n- [B](feedback_multi.md) — b\n- [Again](feedback_multi.md) — again\n- [Gone](gone.md) — g\n");
    let doc = dream(env);
    let plan = &doc["plan"];
    assert_eq!(
        plan["gather"]["missing_citations"],
        serde_json::json!([{"file": "feedback_concurrent.md", "line": 6, "citation": "src/gone.rs:10", "path": "src/gone.rs"}])
    );
    assert_eq!(
        plan["consolidate"]["relative_dates"],
        serde_json::json!([{"file": "feedback_concurrent.md", "line": 7, "col": 9, "phrase": "yesterday", "suggestion": "2026-03-07", "based_on": "mtime"}])
    );
    let clusters = plan["consolidate"]["duplicate_clusters"].as_array().unwrap();
    assert!(
        clusters
            .iter()
            .any(|c| c["reason"] == "index lines" && c["lines"] == serde_json::json!([2, 3])),
        "{clusters:?}"
    );
    assert!(
        clusters
            .iter()
            .any(|c| c["reason"].as_str().unwrap().starts_with("similar")
                && c["files"] == serde_json::json!(["feedback_concurrent.md", "feedback_multi.md"])),
        "{clusters:?}"
    );
    assert_eq!(plan["consolidate"]["superseded"][0]["file"], "old.md");
    assert_eq!(plan["prune_and_index"]["dangling"][0]["file"], "MEMORY.md");
    assert_eq!(plan["prune_and_index"]["dangling"][0]["line"], 4);
    assert_eq!(plan["prune_and_index"]["unindexed"][0]["file"], "old.md");
    assert_eq!(plan["prune_and_index"]["duplicate_targets"][0]["line"], 3);
    assert_eq!(plan["prune_and_index"]["caps"]["line_count"], 4);
    assert_eq!(plan["orient"]["by_type"]["feedback"], 2);
    assert_eq!(plan["orient"]["by_type"]["untyped"], 1);
}

#[test]
fn text_output_has_the_gate_table_and_the_four_phases() {
    let (env, t) = setup(Some(true));
    lock(&env, 25.0);
    session(&t, &format!("{}.jsonl", uuid(1)), 1.0);
    let run = env.args(["dream", "--dry-run"]).run().success();
    for needle in [
        "gates:\n  enabled        pass",
        "  time           pass     25.0 h since the last consolidation ≥ 24 h\n",
        "verdict: closed at sessions\nlog: [autoDream] skip — 1 sessions since last consolidation, need 5\n",
        "Phase 1 — Orient",
        "Phase 2 — Gather recent signal",
        "Phase 3 — Consolidate",
        "Phase 4 — Prune and index",
    ] {
        assert!(run.stdout.contains(needle), "missing {needle:?} in\n{}", run.stdout);
    }
}

/// Issue 12 §2: relative dates count from the frontmatter's `modified` when it is a
/// time, else from the mtime, and say which.
#[test]
fn relative_dates_count_from_the_modified_field() {
    let (env, _) = setup(Some(true));
    let env = env
        .memory_aged(
            "project_a.md",
            "---\nname: A\ndescription: a\ntype: project\nmodified: 2026-01-10T08:00:00.000Z\n---\nDecided yesterday.\n",
            48.0,
        )
        .memory_aged(
            "project_b.md",
            "---\nname: B\ndescription: b\ntype: project\nmetadata:\n  modified: not a time\n---\nDecided yesterday.\n",
            72.0,
        )
        .index("- [A](project_a.md) — a\n- [B](project_b.md) — b\n");
    let doc = dream(env);
    assert_eq!(
        doc["plan"]["consolidate"]["relative_dates"],
        serde_json::json!([
            {"file": "project_a.md", "line": 7, "col": 9, "phrase": "yesterday", "suggestion": "2026-01-09", "based_on": "modified"},
            {"file": "project_b.md", "line": 8, "col": 9, "phrase": "yesterday", "suggestion": "2026-03-06", "based_on": "mtime"}
        ])
    );
}

/// Issue 14 §4: prose with slashes (`green/green`, `N/A`, `1/2`, `38/38`,
/// `React/ReactDOM`) and tokens garbled by emphasis are not citations; a token
/// whose first segment exists in the project, an extension or a leading `./` is.
#[test]
fn r14_only_tokens_that_look_like_paths_are_citations() {
    let (env, _) = setup(Some(true));
    let proj = env.root().join("proj");
    fs::create_dir_all(proj.join("src")).unwrap();
    fs::create_dir_all(proj.join("harness")).unwrap();
    let env = env
        .memory_aged(
            "project_a.md",
            "---\nname: A\ndescription: a\ntype: project\n---\nred/green green/green N/A 1/2 38/38 React/ReactDOM\n**`harness/`** is here; **`gone/`** is prose\n`src/gone/` and src/real/ and ./run.sh and docs/x.md\n",
            24.0,
        )
        .index("- [A](project_a.md) — a\n");
    let doc = dream(env);
    let got: Vec<&str> = doc["plan"]["gather"]["missing_citations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["citation"].as_str().unwrap())
        .collect();
    assert_eq!(got, ["src/gone/", "src/real/", "./run.sh", "docs/x.md"]);
}

/// Issue 14 §4: the text lists at most 20 missing citations per memory, then
/// `… and N more`; JSON keeps them all.
#[test]
fn r14_missing_citations_are_capped_per_memory_in_text() {
    let make = || {
        let (env, _) = setup(Some(true));
        let body: String = (0..25).map(|i| format!("see src/gone{i}.rs\n")).collect();
        env.memory_aged(
            "project_a.md",
            &format!("---\nname: A\ndescription: a\ntype: project\n---\n{body}"),
            24.0,
        )
        .index("- [A](project_a.md) — a\n")
    };
    let json = make().args(["dream", "--json"]).run().success().json();
    let env = make();
    assert_eq!(
        json["plan"]["gather"]["missing_citations"].as_array().unwrap().len(),
        25
    );
    let run = env.args(["dream"]).run().success();
    assert!(run.stdout.contains("  cited files not found (25):\n"), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("project_a.md:25: src/gone19.rs\n    … and 5 more in project_a.md\n"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("src/gone20.rs"), "{}", run.stdout);
}

/// Issue 14 §4: a relative-date suggestion says in text what it counts from.
#[test]
fn r14_relative_date_text_says_what_it_is_based_on() {
    let (env, _) = setup(Some(true));
    let env = env
        .memory_aged("project_a.md", "---\nname: A\ndescription: a\ntype: project\nmodified: 2026-01-10T08:00:00.000Z\n---\nDecided yesterday.\n", 48.0)
        .memory_aged("project_b.md", "---\nname: B\ndescription: b\ntype: project\n---\nDecided yesterday.\n", 48.0)
        .index("- [A](project_a.md) — a\n- [B](project_b.md) — b\n");
    let run = env.args(["dream"]).run().success();
    assert!(
        run.stdout
            .contains("project_a.md:7:9: `yesterday` → 2026-01-09 (from modified)\n"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("project_b.md:6:9: `yesterday` → 2026-03-07 (from mtime)\n"),
        "{}",
        run.stdout
    );
}

/// Issue 14 §8: the session list under the sessions gate is aligned in columns.
#[test]
fn r14_session_list_is_aligned() {
    let (env, t) = setup(Some(true));
    lock(&env, 25.0);
    session(&t, &format!("{}.jsonl", uuid(1)), 1.0);
    session(&t, "not-a-uuid.jsonl", 1.0);
    let run = env.args(["dream"]).run().success();
    let rows: Vec<&str> = run.stdout.lines().filter(|l| l.contains(".jsonl")).collect();
    assert_eq!(rows.len(), 2, "{}", run.stdout);
    let col = |l: &str, needle: &str| l.find(needle).unwrap();
    assert_eq!(col(rows[0], "20"), col(rows[1], "20"), "{}", run.stdout);
    assert_eq!(
        col(rows[0], "counted"),
        col(rows[1], "not a session id"),
        "{}",
        run.stdout
    );
}

#[test]
fn gate_details_wrap_to_80_columns_on_a_terminal() {
    let (env, _) = setup_with(None, None);
    let env = env.env("COLUMNS", "80");
    let out = crate::support::run_in_pty(&env, &["dream"], &[]);
    let lines = crate::support::pty_lines(&out);
    assert!(
        lines.iter().any(|l| l.starts_with("  enabled        unknown  ")),
        "{out}"
    );
    for l in lines.iter().take_while(|l| !l.starts_with("verdict:")) {
        assert!(crate::support::fits(l, 80), "{} columns: {l}", l.chars().count());
    }
}

#[test]
fn orient_says_the_index_lines_and_the_caps_apart() {
    let (env, _) = setup(Some(true));
    let env = env
        .memory("a.md", "---\nname: a\ndescription: d\ntype: user\n---\nx\n")
        .index("# Index\n- [a](a.md) — d\n\n");
    let run = env.arg("dream").run().success();
    assert!(
        run.stdout
            .contains("  1 topic file: 1 user, 0 feedback, 0 project, 0 reference, 0 untyped\n    (0 typed only under metadata:)\n  MEMORY.md: 1 memory link on 4 lines\n    caps, after trimming: 2 of 200 lines, "),
        "{}",
        run.stdout
    );
}

/// Issue 34 point 9: `memctl dream` printed ~250 lines on a 108-line index. A
/// summary comes first; on a terminal each list shows its first items, then
/// `… N more`, and every line fits 80 columns; piped and `--json` keep them all.
#[test]
fn a_summary_first_and_lists_cut_on_a_terminal() {
    let (env, _) = setup(Some(true));
    let mut index = String::from("# Index\n");
    for i in 0..60 {
        index.push_str(&format!(
            "- [Gone {i}](gone_{i}.md) — a memory the dream removed long ago, still linked here\n"
        ));
    }
    let mut env = env.index(&index);
    for i in 0..12 {
        env = env.memory(
            &format!("user_{i:02}.md"),
            &format!("---\nname: u{i}\ndescription: d\ntype: user\n---\nYesterday we said {i}.\n"),
        );
    }
    let env = env.env("COLUMNS", "80");
    let screen = crate::support::run_in_pty(&env, &["dream"], &[]);
    let lines = crate::support::pty_lines(&screen);
    let at = |prefix: &str| {
        lines
            .iter()
            .position(|l| l.starts_with(prefix))
            .unwrap_or_else(|| panic!("no line starting {prefix:?}:\n{screen}"))
    };
    assert_eq!(at("auto-dream for "), 0, "{screen}");
    assert!(
        lines[1].starts_with("summary: closed at sessions; MEMORY.md 61 of 200 lines"),
        "{screen}"
    );
    assert!(
        lines[2].starts_with("  to review: 60 dangling index lines, 12 unindexed files, 12 relative dates"),
        "{screen}"
    );
    assert!(at("summary: ") < at("gates:"), "the summary comes before the gates");
    let dangling = lines.iter().filter(|l| l.contains("link target gone_")).count();
    assert_eq!(dangling, 5, "{screen}");
    assert!(screen.contains("    … 55 more\r\n"), "{screen}");
    assert!(screen.contains("    … 7 more\r\n"), "{screen}");
    for l in &lines {
        assert!(crate::support::fits(l, 80), "{} columns: {l}", l.chars().count());
    }
    assert!(lines.len() < 80, "{} lines:\n{screen}", lines.len());
    // Piped: every item; --json: every item.
    let out = env.command().arg("dream").output().unwrap();
    assert!(out.status.success());
    let piped = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(piped.matches("link target gone_").count(), 60, "{piped}");
    assert!(!piped.contains(" more\n"), "{piped}");
    assert!(piped.starts_with("auto-dream for "), "{piped}");
    let out = env.command().args(["dream", "--json"]).output().unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["plan"]["prune_and_index"]["dangling"].as_array().unwrap().len(), 60);
}

/// The plan's caps are `truncate-check`'s: `--json` quotes every dropped index
/// entry (the text form counts them), though the model behind them is freed as
/// soon as the figures are taken.
#[test]
fn the_caps_quote_the_dropped_index_entries_in_json() {
    let (env, _) = setup(Some(true));
    let mut index = String::from("# Index\n");
    for i in 0..205 {
        index.push_str(&format!("- [n{i}](n{i}.md) — hook {i}\n"));
    }
    let env = env
        .memory("n0.md", "---\nname: n0\ndescription: d\ntype: user\n---\nx\n")
        .index(&index);
    let text = env.arg("dream").run().success().stdout;
    assert!(text.contains(", 6 entries not loaded"), "{text}");
    assert!(
        text.contains("  caps: 206 / 200 lines, 5 622 / 25 000 units; truncated, 6 entries dropped"),
        "{text}"
    );
    let (env, _) = setup(Some(true));
    let env = env
        .memory("n0.md", "---\nname: n0\ndescription: d\ntype: user\n---\nx\n")
        .index(&index);
    let caps = dream(env)["plan"]["prune_and_index"]["caps"].clone();
    assert_eq!(caps["dropped_entries_total"], 6);
    let quoted = caps["dropped_entries"].as_array().unwrap();
    assert_eq!(quoted.len(), 6, "{caps}");
    assert_eq!(
        quoted[0],
        serde_json::json!({"line": 201, "text": "- [n199](n199.md) — hook 199"})
    );
    assert_eq!(quoted[5]["line"], 206);
}
