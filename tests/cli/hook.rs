//! `memctl hook` (SPEC §7): the payloads Claude Code sends, what the model and the
//! user see, and install/uninstall/status.

use std::fs;
use std::path::Path;

use serde_json::{Value, json};

use crate::support::{Env, Run};

const GOOD: &str = "---\nname: a\ndescription: a thing\ntype: user\n---\nbody\n";

/// An env whose memory dir (`mem/`) is resolved through Claude Code's override,
/// with `MEMCTL_DIR` pointing elsewhere (the hook must ignore it).
fn env() -> Env {
    let e = Env::new().resolved();
    let mem = e.dir();
    let decoy = e.root().join("decoy");
    fs::create_dir_all(&decoy).unwrap();
    fs::create_dir_all(e.root().join("proj")).unwrap();
    e.env("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", mem)
        .env("MEMCTL_DIR", decoy)
}

fn payload(e: &Env, tool: &str, rel: &str, original: Option<Option<&str>>) -> Vec<u8> {
    let mut p = json!({
        "session_id": "s1", "transcript_path": "/t.jsonl", "cwd": e.root().join("proj"),
        "hook_event_name": "PostToolUse", "tool_name": tool,
        "tool_input": {"file_path": e.dir().join(rel), "content": "ignored"},
        "tool_response": {"type": "update", "structuredPatch": []},
    });
    if let Some(o) = original {
        p["tool_response"]["originalFile"] = o.map_or(Value::Null, |s| Value::String(s.into()));
    }
    serde_json::to_vec(&p).unwrap()
}

#[track_caller]
fn hook(e: Env, stdin: Vec<u8>) -> Run {
    e.arg("hook").stdin(stdin).run()
}

#[track_caller]
fn doc(r: &Run) -> Value {
    assert_eq!(r.code, 0, "stderr: {}", r.stderr);
    assert!(
        r.stdout.ends_with('\n') && r.stdout.trim().lines().count() == 1,
        "{}",
        r.stdout
    );
    let units: usize = r.stdout.encode_utf16().count();
    assert!(units < 10_000, "{units} units");
    serde_json::from_str(&r.stdout).unwrap()
}

#[track_caller]
fn silent(r: &Run) {
    assert_eq!((r.code, r.stdout.as_str(), r.stderr.as_str()), (0, "", ""));
}

fn index_of(n: usize) -> String {
    (0..n).map(|i| format!("- [E{i}](e{i}.md) — entry {i}\n")).collect()
}

#[test]
fn h1_outside_paths_other_tools_and_events_are_silent() {
    let e = env().index("- [A](a.md) — a\n").memory("a.md", GOOD);
    let mut p: Value = serde_json::from_slice(&payload(&e, "Write", "a.md", Some(None))).unwrap();
    p["tool_input"]["file_path"] = json!("/etc/passwd.md");
    silent(&hook(e, serde_json::to_vec(&p).unwrap()));
    let e = env().memory("bad.md", "---\ntype: [\n---\n");
    let p = payload(&e, "Read", "bad.md", Some(None));
    silent(&hook(e, p));
    let e = env();
    silent(&hook(
        e,
        br#"{"hook_event_name":"Notification","message":"x"}"#.to_vec(),
    ));
    let e = env();
    silent(&hook(
        e,
        br#"{"hook_event_name":"SessionEnd","cwd":"/","reason":"exit","new_field":{"a":[1]}}"#.to_vec(),
    ));
    let e = env();
    silent(&hook(
        e,
        br#"{"hook_event_name":"PostToolUse","tool_name":"Write","tool_input":{"file_path":"/x/main.rs"}}"#.to_vec(),
    ));
}

#[test]
fn h2_clean_write_prints_nothing() {
    let e = env().index("- [A](a.md) — a thing\n").memory("a.md", GOOD);
    let p = payload(&e, "Write", "a.md", Some(None));
    silent(&hook(e, p));
}

#[test]
fn h3_unreadable_frontmatter_blocks_only_when_this_write_introduced_it() {
    let bad = "---\nname: a\ndescription: \"unclosed\ntype: user\n---\nbody\n";
    let e = env().index("- [A](a.md) — a\n").memory("a.md", bad);
    let p = payload(&e, "Edit", "a.md", Some(Some(GOOD)));
    let d = doc(&hook(e, p));
    assert_eq!(d["decision"], "block");
    let reason = d["reason"].as_str().unwrap();
    assert!(reason.contains("a.md:") && reason.contains("fix:"), "{reason}");
    assert!(
        d["systemMessage"]
            .as_str()
            .unwrap()
            .starts_with("memctl: a.md: 1 problem to fix")
    );
    // The same text before the write: not this write's.
    let e = env().index("- [A](a.md) — a\n").memory("a.md", bad);
    let p = payload(&e, "Edit", "a.md", Some(Some(bad)));
    silent(&hook(e, p));
    // No originalFile: context, never a block.
    let e = env().index("- [A](a.md) — a\n").memory("a.md", bad);
    let p = payload(&e, "Edit", "a.md", None);
    let d = doc(&hook(e, p));
    assert!(d.get("decision").is_none());
    let ctx = d["hookSpecificOutput"]["additionalContext"].as_str().unwrap();
    assert!(ctx.contains("the file before this write is unknown"), "{ctx}");
}

#[test]
fn h4_invalid_type_blocks_with_the_fix() {
    let e = env()
        .index("- [A](a.md) — a\n")
        .memory("a.md", &GOOD.replace("type: user", "type: users"));
    let p = payload(&e, "Write", "a.md", Some(Some(GOOD)));
    let d = doc(&hook(e, p));
    assert_eq!(d["decision"], "block");
    assert!(d["reason"].as_str().unwrap().contains("a.md:4: type `users`"), "{d}");
}

#[test]
fn h5_a_new_unindexed_file_is_not_reported_at_the_write_its_relative_dates_are() {
    // Step one of the client's two-step save: the index line comes next, and the
    // Stop checks it (SPEC v3 §7.3; tests/cli/hook_gate.rs). Only the relative
    // date is this write's to fix now.
    let text =
        "---\nname: Merge freeze\ndescription: no merges until the release\ntype: user\n---\nDecided yesterday.\n";
    let e = env()
        .index("# Memory\n- [A](a.md) — a\n")
        .memory("a.md", GOOD)
        .memory("freeze.md", text);
    let p = payload(&e, "Write", "freeze.md", Some(None));
    let d = doc(&hook(e, p));
    assert!(d.get("decision").is_none(), "{d}");
    assert_eq!(d["hookSpecificOutput"]["hookEventName"], "PostToolUse");
    let ctx = d["hookSpecificOutput"]["additionalContext"].as_str().unwrap();
    assert!(!ctx.contains("not in MEMORY.md"), "{ctx}");
    assert!(ctx.contains("relative date `yesterday`: write 2026-03-09"), "{ctx}");
    // Its clean twin, unindexed: nothing at all.
    let clean = text.replace("yesterday", "on 2026-03-09");
    let e = env()
        .index("- [A](a.md) — a\n")
        .memory("a.md", GOOD)
        .memory("freeze.md", &clean);
    let p = payload(&e, "Write", "freeze.md", Some(None));
    silent(&hook(e, p));
    // An existing file edited: the old unindexed state is not this write's.
    let e = env().index("").memory("freeze.md", &clean);
    let p = payload(&e, "Edit", "freeze.md", Some(Some(&clean.replace("body", "x"))));
    silent(&hook(e, p));
}

#[test]
fn h6_an_index_write_that_pushes_entries_past_the_cut_names_them() {
    let old = index_of(199);
    let new = format!("{old}- [N1](e1.md) — one\n- [N2](e2.md) — two\n- [N3](e3.md) — three\n");
    let mut e = env().index(&new);
    for i in 0..200 {
        e = e.memory(&format!("e{i}.md"), GOOD);
    }
    let p = payload(&e, "Edit", "MEMORY.md", Some(Some(&old)));
    let d = doc(&hook(e, p));
    assert_eq!(d["decision"], "block");
    let reason = d["reason"].as_str().unwrap();
    assert!(reason.contains("MEMORY.md:201: - [N2](e2.md) — two"), "{reason}");
    assert!(reason.contains("MEMORY.md:202: - [N3](e3.md) — three"), "{reason}");
    assert!(reason.contains("memctl index rebuild"), "{reason}");
    // One voice with the client (SPEC v3 §7.3): the entries and the command, no
    // cap figures of memctl's own.
    assert!(!reason.contains("limit") && !reason.contains("/200"), "{reason}");
    assert_eq!(
        d["systemMessage"],
        "memctl: not loaded from MEMORY.md: line 201, line 202 (fix: memctl index rebuild)"
    );
    // Already cut before the write: nothing new.
    let mut e = env().index(&new);
    for i in 0..200 {
        e = e.memory(&format!("e{i}.md"), GOOD);
    }
    let p = payload(&e, "Edit", "MEMORY.md", Some(Some(&new)));
    silent(&hook(e, p));
}

#[test]
fn h7_dangling_link_added_blocks_an_old_one_does_not() {
    let e = env()
        .index("- [A](a.md) — a\n- [Gone](gone.md) — x\n")
        .memory("a.md", GOOD);
    let p = payload(&e, "Write", "MEMORY.md", Some(Some("- [A](a.md) — a\n")));
    let d = doc(&hook(e, p));
    assert_eq!(d["decision"], "block");
    assert!(
        d["reason"]
            .as_str()
            .unwrap()
            .contains("MEMORY.md:2: link target gone.md does not exist"),
        "{d}"
    );
    let e = env()
        .index("- [A](a.md) — a\n- [Gone](gone.md) — x\n")
        .memory("a.md", GOOD);
    let p = payload(&e, "Write", "MEMORY.md", Some(Some("- [Gone](gone.md) — x\n")));
    silent(&hook(e, p));
}

#[test]
fn h8_near_cap_is_left_to_the_client() {
    // Claude Code itself reports an index from 80 % of a cap, with its own
    // targets (SPEC §2.15): memctl does not add other numbers (SPEC v3 §7.3).
    let old = index_of(170);
    let new = index_of(185);
    let mut e = env().index(&new);
    for i in 0..185 {
        e = e.memory(&format!("e{i}.md"), GOOD);
    }
    let p = payload(&e, "Write", "MEMORY.md", Some(Some(&old)));
    silent(&hook(e, p));
}

#[test]
fn h9_output_stays_small_whatever_the_dir_holds() {
    // 10 000 dropped entries.
    let new = index_of(10_200);
    let e = env().index(&new);
    let p = payload(&e, "Write", "MEMORY.md", Some(None));
    let r = hook(e, p);
    let d = doc(&r);
    assert!(r.stdout.encode_utf16().count() < 4_000, "{}", r.stdout.len());
    assert!(d["reason"].as_str().unwrap().contains("more (run memctl lint)"));
    // 5 000 findings in one file (relative dates).
    let body = "yesterday\n".repeat(5_000);
    let e = env()
        .index("- [A](a.md) — a\n")
        .memory("a.md", &format!("{GOOD}{body}"));
    let p = payload(&e, "Write", "a.md", Some(None));
    let r = hook(e, p);
    doc(&r);
    assert!(r.stdout.encode_utf16().count() < 4_000, "{}", r.stdout.len());
    assert!(r.stdout.contains("more (run memctl lint)"));
}

#[test]
fn h10_bad_stdin_is_exit_1_with_nothing_on_stdout() {
    for bad in [&b"not json"[..], b"", b"[1,2]", b"{\"a\":", b"{} trailing"] {
        let r = hook(env(), bad.to_vec());
        assert_eq!(r.code, 1, "{bad:?}");
        assert_eq!(r.stdout, "");
        assert!(
            r.stderr
                .starts_with("memctl: the hook payload on stdin is not a JSON object"),
            "{}",
            r.stderr
        );
    }
    let mut big = b"{\"x\":\"".to_vec();
    big.resize(65 << 20, b'a');
    let r = hook(env(), big);
    assert_eq!((r.code, r.stdout.as_str()), (1, ""));
    assert!(r.stderr.contains("over 64 MiB"), "{}", r.stderr);
    // A broken MEMCTL_NOW is memctl's own failure: exit 1, never 2.
    let e = env().env("MEMCTL_NOW", "soon");
    let r = hook(e, b"{}".to_vec());
    assert_eq!((r.code, r.stdout.as_str()), (1, ""));
}

#[test]
fn h11_a_large_payload_carrying_the_file_four_times_is_fine() {
    let big = "x".repeat(4 << 20);
    let e = env().index("- [A](a.md) — a thing\n").memory("a.md", GOOD);
    let mut p: Value = serde_json::from_slice(&payload(&e, "Write", "a.md", Some(None))).unwrap();
    p["tool_input"]["content"] = json!(big);
    p["tool_response"]["content"] = json!(big);
    p["tool_response"]["structuredPatch"] = json!([{"lines": [big]}]);
    silent(&hook(e, serde_json::to_vec(&p).unwrap()));
}

#[test]
fn h12_dotdot_symlinked_dir_and_team_files() {
    let bad = GOOD.replace("type: user", "type: nope");
    // `..` in the path.
    let e = env().index("- [A](a.md) — a\n").memory("a.md", &bad);
    let mut p: Value = serde_json::from_slice(&payload(&e, "Write", "a.md", Some(None))).unwrap();
    p["tool_input"]["file_path"] = json!(format!("{}/../mem/./a.md", e.dir().display()));
    assert_eq!(doc(&hook(e, serde_json::to_vec(&p).unwrap()))["decision"], "block");
    // The memory dir reached through a symlink.
    let e = env().index("- [A](a.md) — a\n").memory("a.md", &bad);
    let link = e.root().join("link");
    std::os::unix::fs::symlink(e.dir(), &link).unwrap();
    let mut p: Value = serde_json::from_slice(&payload(&e, "Write", "a.md", Some(None))).unwrap();
    p["tool_input"]["file_path"] = json!(link.join("a.md"));
    assert_eq!(doc(&hook(e, serde_json::to_vec(&p).unwrap()))["decision"], "block");
    // A team file without a team store: Claude Code 2.1.332 scans it as a memory
    // of the main dir and never loads team/MEMORY.md (SPEC §2.13).
    let e = env()
        .index("")
        .memory("team/t.md", GOOD)
        .memory("team/MEMORY.md", "# Team\n");
    let p = payload(&e, "Write", "team/t.md", Some(None));
    let ctx = written_then_stopped(&e, p);
    assert!(ctx.contains("team/t.md is not in MEMORY.md"), "{ctx}");
    assert!(ctx.contains("- [a](team/t.md) — a thing"), "{ctx}");
    // With a team store it is team memory: checked against team/MEMORY.md.
    let e = env()
        .env("CLAUDE_MEMORY_STORES", r#"[{"path":"/team/app","scope":"team"}]"#)
        .index("")
        .memory("team/t.md", GOOD)
        .memory("team/MEMORY.md", "# Team\n");
    let p = payload(&e, "Write", "team/t.md", Some(None));
    // CLAUDE_MEMORY_STORES is recall mode: no index is injected (SPEC §2.13), so
    // the end of the turn asks for no index line.
    let mut c = e.command();
    c.arg("hook");
    assert_eq!(run_with(c, &p), "");
    let mut c = e.command();
    c.arg("hook");
    assert_eq!(run_with(c, &stop_payload(&e)), "");
}

/// (2.1.332) A write under a team store's mount is checked against that mount's
/// own index and named with its mount (SPEC §2.13).
#[test]
fn h12_a_team_store_file_is_checked_against_its_mount_index() {
    let e = env()
        .index("")
        .memory("team/acme/t.md", GOOD)
        .memory("team/acme/MEMORY.md", "# Team\n")
        .env("CLAUDE_MEMORY_STORES", r#"["/org/acme"]"#);
    let p = payload(&e, "Write", "team/acme/t.md", Some(None));
    // A team store's index is fetched from the memory service, not read from disk
    // (SPEC §2.13): the end of the turn asks for no index line there.
    let mut c = e.command();
    c.arg("hook");
    assert_eq!(run_with(c, &p), "");
    let mut c = e.command();
    c.arg("hook");
    assert_eq!(run_with(c, &stop_payload(&e)), "");
}

/// One `memctl hook` call with `stdin`: its stdout (exit 0, nothing on stderr).
fn run_with(mut c: std::process::Command, stdin: &[u8]) -> String {
    use std::io::Write;
    c.stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = c.spawn().unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert!(o.stderr.is_empty(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

fn stop_payload(e: &Env) -> Vec<u8> {
    serde_json::to_vec(&json!({"session_id": "s1", "cwd": e.root().join("proj"),
        "hook_event_name": "Stop", "stop_hook_active": false}))
    .unwrap()
}

/// A write (silent about the index: step one of a save), then the end of the
/// turn: the Stop's block reason.
fn written_then_stopped(e: &Env, post: Vec<u8>) -> String {
    let mut c = e.command();
    c.arg("hook");
    let out = run_with(c, &post);
    assert!(!out.contains("not in"), "{out}");
    let mut c = e.command();
    c.arg("hook");
    let d: Value = serde_json::from_str(&run_with(c, &stop_payload(e))).unwrap();
    assert_eq!(d["decision"], "block");
    d["reason"].as_str().unwrap().to_string()
}

#[test]
fn h13_forked_agent_payloads_are_checked_the_same_way() {
    let bad = GOOD.replace("type: user", "type: nope");
    let e = env().index("- [A](a.md) — a\n").memory("a.md", &bad);
    let mut p: Value = serde_json::from_slice(&payload(&e, "Write", "a.md", Some(None))).unwrap();
    p["agent_id"] = json!("agent-7");
    p["agent_type"] = json!("memory-extraction");
    assert_eq!(doc(&hook(e, serde_json::to_vec(&p).unwrap()))["decision"], "block");
}

#[test]
fn h14_session_start_reports_invisible_memories_and_is_quiet_otherwise() {
    let e = env()
        .index("- [A](a.md) — a\n")
        .memory("a.md", GOOD)
        .memory("lost.md", GOOD);
    let cwd = e.root().join("proj");
    let p = serde_json::to_vec(&json!({"hook_event_name": "SessionStart", "source": "startup", "cwd": cwd})).unwrap();
    let d = doc(&hook(e, p));
    assert_eq!(d["hookSpecificOutput"]["hookEventName"], "SessionStart");
    assert!(
        d["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
            .contains("lost.md")
    );
    assert_eq!(d["systemMessage"], "memctl: 1 unindexed file");
    let e = env().index("- [A](a.md) — a\n").memory("a.md", GOOD);
    let cwd = e.root().join("proj");
    let p = serde_json::to_vec(&json!({"hook_event_name": "SessionStart", "source": "some-new-source", "cwd": cwd}))
        .unwrap();
    silent(&hook(e, p));
}

#[test]
fn h15_memory_dir_from_claude_project_dir_as_memctl_path_resolves_it() {
    let e = Env::new().resolved();
    let proj = e.root().join("proj");
    fs::create_dir_all(&proj).unwrap();
    let out = Env::new().resolved().arg("--project").arg(&proj).arg("path").run();
    // Resolve in the same home: build the path from `memctl path` in this env.
    drop(out);
    let mem = {
        let mut c = e.command();
        c.args(["--project".as_ref(), proj.as_os_str(), "path".as_ref()]);
        String::from_utf8(c.output().unwrap().stdout)
            .unwrap()
            .trim()
            .to_string()
    };
    fs::create_dir_all(&mem).unwrap();
    fs::write(Path::new(&mem).join("a.md"), GOOD.replace("type: user", "type: nope")).unwrap();
    let p = json!({"hook_event_name": "PostToolUse", "tool_name": "MultiEdit", "cwd": "/",
        "tool_input": {"file_path": Path::new(&mem).join("a.md")}, "tool_response": {"originalFile": null}});
    let e = e.env("CLAUDE_PROJECT_DIR", &proj);
    assert_eq!(doc(&hook(e, serde_json::to_vec(&p).unwrap()))["decision"], "block");
}

// ---- install / uninstall / status ----

fn settings(e: &Env) -> std::path::PathBuf {
    e.home().join(".claude/settings.json")
}

const OTHER: &str = r#"{
  "model": "opus",
  "hooks": {
    "PostToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "~/bin/audit.sh"}]}
    ]
  },
  "permissions": {"allow": ["Bash(ls:*)"], "deny": []},
  "zeta": 1
}"#;

#[test]
fn i1_install_keeps_everything_else_and_uninstall_restores_it() {
    let e = Env::new().file("home/.claude/settings.json", OTHER.as_bytes());
    let f = settings(&e);
    let e = e.args(["hook", "install"]).run();
    assert_eq!(e.code, 0, "{}", e.stderr);
    assert!(
        e.stdout.contains("+++ b/") && e.stdout.contains("memctl's hooks installed in"),
        "{}",
        e.stdout
    );
    let v: Value = serde_json::from_str(&fs::read_to_string(&f).unwrap()).unwrap();
    let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["model", "hooks", "permissions", "zeta"]);
    let post = v["hooks"]["PostToolUse"].as_array().unwrap();
    assert_eq!(post[0]["matcher"], "Bash");
    assert_eq!(post[1]["matcher"], "Write|Edit|MultiEdit");
    let cmd = post[1]["hooks"][0]["command"].as_str().unwrap();
    assert!(cmd.ends_with("memctl hook") && cmd.starts_with('/'), "{cmd}");
    assert_eq!(post[1]["hooks"][0]["timeout"], 10);
    assert!(v["hooks"]["SessionStart"][0]["hooks"][0]["command"].is_string());
    assert_eq!(fs::read_to_string(e_backup(&f)).unwrap(), OTHER);
    drop(e);
}

fn e_backup(f: &Path) -> std::path::PathBuf {
    f.with_file_name("settings.json.memctl-backup")
}

#[test]
fn i2_round_trip_twice_and_idempotent() {
    let e = Env::new().file("home/.claude/settings.json", OTHER.as_bytes());
    let root = e.root();
    let f = settings(&e);
    let run = |args: &[&str]| {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_memctl"));
        c.env_clear()
            .env("HOME", root.join("home"))
            .env("CLAUDE_CONFIG_DIR", root.join("home/.claude"))
            .env("XDG_STATE_HOME", root.join("state"))
            .current_dir(&root);
        let o = c.args(args).output().unwrap();
        (
            o.status.code().unwrap(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
        )
    };
    assert_eq!(run(&["hook", "install"]).0, 0);
    let once = fs::read_to_string(&f).unwrap();
    let backup = fs::read_to_string(e_backup(&f)).unwrap();
    let (code, out) = run(&["hook", "install"]);
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            &*format!("memctl's hooks are already installed in {}\n", f.display())
        )
    );
    assert_eq!(fs::read_to_string(&f).unwrap(), once);
    assert_eq!(fs::read_to_string(e_backup(&f)).unwrap(), backup);
    assert_eq!(run(&["hook", "uninstall"]).0, 0);
    let after: Value = serde_json::from_str(&fs::read_to_string(&f).unwrap()).unwrap();
    let before: Value = serde_json::from_str(OTHER).unwrap();
    assert_eq!(
        serde_json::to_string(&after).unwrap(),
        serde_json::to_string(&before).unwrap()
    );
    // Dry run writes nothing and shows the diff.
    let (code, out) = run(&["hook", "install", "--dry-run"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("+      \"SessionEnd\"") || out.contains("SessionEnd"),
        "{out}"
    );
    assert_eq!(
        serde_json::from_str::<Value>(&fs::read_to_string(&f).unwrap()).unwrap(),
        before
    );
    drop(e);
}

#[test]
fn i3_every_shape_claude_code_writes() {
    for text in [
        "",
        "{}",
        "{\"hooks\": {}}",
        "{\"hooks\": {\"SessionEnd\": []}}",
        "{\n  \"env\": {\"A\": \"1\"}\n}\n",
    ] {
        let e = Env::new().file("home/.claude/settings.json", text.as_bytes());
        let f = settings(&e);
        let r = e.args(["hook", "install", "--json"]).run();
        assert_eq!(r.code, 0, "{text}: {}", r.stderr);
        let j = r.json();
        assert_eq!(j["changed"], true);
        assert_eq!(j["file"], f.to_string_lossy().as_ref());
        let v: Value = serde_json::from_str(&fs::read_to_string(&f).unwrap()).unwrap();
        assert_eq!(v["hooks"]["PostToolUse"].as_array().unwrap().len(), 1);
    }
    // No file at all: created.
    let e = Env::new();
    let f = settings(&e);
    let r = e.args(["hook", "install"]).run();
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(f.is_file());
}

#[test]
fn i4_unparsable_settings_are_refused_naming_file_and_line() {
    let bad = "{\n  \"model\": \"opus\",\n  \"hooks\": {,\n}\n";
    let e = Env::new().file("home/.claude/settings.json", bad.as_bytes());
    let f = settings(&e);
    let r = e.args(["hook", "install"]).run();
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .starts_with(&format!("memctl: {}:3: not valid JSON", f.display())),
        "{}",
        r.stderr
    );
    assert_eq!(fs::read_to_string(&f).unwrap(), bad);
    assert!(!e_backup(&f).exists());
}

/// SPEC v3 §7.4: the project form runs memctl found on PATH and is silent for a
/// teammate without it (before: a bare `memctl hook`, exit 127 in every session);
/// `hook status` says when memctl is not on the PATH Claude Code would use.
#[test]
fn i5_project_scope_is_silent_without_memctl_on_path_and_status_says_so() {
    let e = Env::new().resolved();
    let proj = e.root().join("proj");
    fs::create_dir_all(&proj).unwrap();
    let r = e
        .command()
        .arg("--project")
        .arg(&proj)
        .args(["hook", "install", "--scope", "project"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(r.status.success(), "{err}");
    assert!(err.contains("does nothing for a teammate without memctl"), "{err}");
    let v: Value = serde_json::from_str(&fs::read_to_string(proj.join(".claude/settings.json")).unwrap()).unwrap();
    let cmd = v["hooks"]["SessionStart"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(cmd, "command -v memctl >/dev/null 2>&1 || exit 0; memctl hook");
    assert_eq!(v["hooks"]["PostToolUse"][0]["hooks"][0]["command"], cmd.as_str());
    // The command as Claude Code runs it (`sh -c`), on a PATH with and without memctl.
    let bin_dir = e.root().join("bin");
    fs::create_dir_all(&bin_dir).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_memctl"), bin_dir.join("memctl")).unwrap();
    let sh = |path: &Path| {
        let mut c = std::process::Command::new("/bin/sh");
        c.env_clear()
            .env("PATH", path)
            .env("HOME", e.home())
            .args(["-c", &cmd])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let mut child = c.spawn().unwrap();
        // A shell that exits without reading closes the pipe: that is fine.
        let _ = std::io::Write::write_all(&mut child.stdin.take().unwrap(), b"not a payload");
        let o = child.wait_with_output().unwrap();
        (
            o.status.code().unwrap(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let empty = e.root().join("empty");
    fs::create_dir_all(&empty).unwrap();
    assert_eq!(sh(&empty), (0, String::new(), String::new()), "no memctl: silent");
    let (code, out, err) = sh(&bin_dir);
    assert_eq!((code, out.as_str()), (1, ""), "memctl on PATH runs: {err}");
    assert!(
        err.starts_with("memctl: the hook payload on stdin is not a JSON object"),
        "{err}"
    );
    // status: not on this PATH → said, in text and JSON.
    let status = |path: &Path, json: bool| {
        let mut c = e.command();
        c.env("PATH", path).arg("--project").arg(&proj);
        if json {
            c.arg("--json");
        }
        let o = c.args(["hook", "status"]).output().unwrap();
        (
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let (out, err) = status(&empty, false);
    assert!(out.contains("\tmemctl\tfalse\n"), "{out}");
    assert!(err.contains("not on the PATH Claude Code would use"), "{err}");
    let (out, _) = status(&empty, true);
    let j: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["scopes"][1]["scope"], "project");
    assert_eq!(j["scopes"][1]["installed"], true);
    assert_eq!(j["scopes"][1]["binary"], "memctl");
    assert_eq!(j["scopes"][1]["binary_exists"], false);
    assert_eq!(j["warnings"].as_array().unwrap().len(), 1, "{j}");
    let (out, _) = status(&bin_dir, true);
    let j: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["scopes"][1]["binary_exists"], true);
    assert_eq!(j["warnings"], json!([]));
    // Uninstall recognises the project form.
    let r = e
        .command()
        .arg("--project")
        .arg(&proj)
        .args(["hook", "uninstall", "--scope", "project"])
        .output()
        .unwrap();
    assert!(r.status.success());
    // memctl created the file: it goes again (issue 32 point 4).
    assert!(!proj.join(".claude/settings.json").exists());
}

/// Issue 29 point 17, SPEC v3 §7.4: memctl's entries are exactly the commands it
/// writes under the event and matcher it writes; a user's own `memctl hook` under
/// their own matcher (or with their own arguments) survives install and uninstall.
#[test]
fn i7_uninstall_keeps_the_users_own_memctl_hook_entries() {
    let own = r#"{
  "hooks": {
    "PostToolUse": [
      {"matcher": "Write", "hooks": [{"type": "command", "command": "/usr/local/bin/memctl hook"}]}
    ],
    "SessionStart": [
      {"matcher": "startup", "hooks": [{"type": "command", "command": "/usr/local/bin/memctl hook"}]},
      {"hooks": [{"type": "command", "command": "memctl hook --verbose"}]}
    ]
  }
}
"#;
    let e = Env::new().file("home/.claude/settings.json", own.as_bytes());
    let f = settings(&e);
    let root = e.root();
    let run = |args: &[&str]| {
        let o = e.command().args(args).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    run(&["hook", "install"]);
    let v: Value = serde_json::from_str(&fs::read_to_string(&f).unwrap()).unwrap();
    assert_eq!(v["hooks"]["PostToolUse"][0]["matcher"], "Write", "{v}");
    assert_eq!(v["hooks"]["PostToolUse"].as_array().unwrap().len(), 2, "{v}");
    assert_eq!(v["hooks"]["SessionStart"].as_array().unwrap().len(), 3, "{v}");
    run(&["hook", "uninstall"]);
    let after: Value = serde_json::from_str(&fs::read_to_string(&f).unwrap()).unwrap();
    assert_eq!(after, serde_json::from_str::<Value>(own).unwrap());
    drop(root);
}

#[test]
fn i6_status_names_each_scope_a_missing_binary_and_what_blocks() {
    let s = r#"{"disableAllHooks": true, "hooks": {"PostToolUse": [{"matcher": "Write|Edit|MultiEdit", "hooks": [{"type": "command", "command": "/gone/memctl hook", "timeout": 10}]}]}}"#;
    let e = Env::new().file("home/.claude/settings.json", s.as_bytes());
    let r = e.args(["hook", "status", "--json"]).run();
    assert_eq!(r.code, 0, "{}", r.stderr);
    let j = r.json();
    let user = &j["scopes"][0];
    assert_eq!(user["scope"], "user");
    assert_eq!(user["installed"], false);
    assert_eq!(user["events"], json!(["PostToolUse"]));
    assert_eq!(user["binary"], "/gone/memctl");
    assert_eq!(user["binary_exists"], false);
    assert_eq!(j["blocked_by"][0]["setting"], "disableAllHooks");
    let e = Env::new().file("home/.claude/settings.json", s.as_bytes());
    // On a terminal: the report.
    let text = crate::support::run_in_pty(&e, &["hook", "status"], &[]);
    assert!(text.contains("partly installed (PostToolUse)"), "{text}");
    assert!(
        text.contains("Claude Code will not run these hooks: disableAllHooks is true"),
        "{text}"
    );
    // Piped: one record per scope; what blocks them on stderr.
    let r = e.args(["hook", "status"]).run();
    assert!(
        r.stdout.contains("\tfalse\t[\"PostToolUse\"]\t/gone/memctl\tfalse\n"),
        "{}",
        r.stdout
    );
    assert!(
        r.stderr
            .contains("Claude Code will not run these hooks: disableAllHooks is true"),
        "{}",
        r.stderr
    );
}

#[test]
fn h_history_records_the_models_write_as_claude_with_its_session() {
    let e = env().index("- [A](a.md) — a thing\n").memory("a.md", GOOD);
    let p = payload(&e, "Write", "a.md", Some(None));
    let mut cmd = e.command();
    cmd.arg("hook")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), &p).unwrap();
    assert!(child.wait_with_output().unwrap().status.success());
    // The first snapshot of a dir is its baseline; a second write is the model's.
    fs::write(e.dir().join("a.md"), format!("{GOOD}more\n")).unwrap();
    let mut child = e
        .command()
        .arg("hook")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), &p).unwrap();
    assert!(child.wait_with_output().unwrap().status.success());
    let out = e
        .command()
        .arg("--dir")
        .arg(e.dir())
        .args(["--json", "history"])
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let snaps = doc["snapshots"].as_array().unwrap();
    assert_eq!(snaps[0]["trigger"], "claude", "{doc}");
    assert_eq!(snaps[0]["session"], "s1");
    assert_eq!(snaps[0]["recorded_by"], "hook:PostToolUse");
    assert_eq!(snaps[1]["trigger"], "baseline");
}

/// The model's write is recorded alone (SPEC v3 §7.3, §8.2; issue 31: the hook
/// looks at the written file, not at every file): a memory another program
/// changed meanwhile is not the model's, and the Stop hook's snapshot, which
/// walks the dir, records it as `external`. Both snapshots are byte-exact.
#[test]
fn h_the_models_write_is_recorded_alone_and_stop_records_the_rest() {
    let e = env()
        .index("- [A](a.md) — a\n- [B](b.md) — b\n")
        .memory("a.md", GOOD)
        .memory("b.md", GOOD);
    let p = payload(&e, "Write", "a.md", Some(None));
    hook_with(&e, &p);
    let by_hand = format!("{GOOD}edited by hand\n");
    let by_model = format!("{GOOD}written by the model\n");
    fs::write(e.dir().join("b.md"), &by_hand).unwrap();
    fs::write(e.dir().join("a.md"), &by_model).unwrap();
    hook_with(&e, &p);
    hook_with(&e, &stop_payload(&e));
    let got = changes(&e);
    assert_eq!(got.len(), 3, "{got:?}");
    assert_eq!(got[0], ("external".to_string(), vec!["b.md:modified".to_string()]));
    assert_eq!(got[1], ("claude".to_string(), vec!["a.md:modified".to_string()]));
    assert_eq!(got[2].0, "baseline");
    let out = memctl_in(&e, &["--json", "history", "--limit", "1"]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["snapshots"][0]["recorded_by"], "hook:Stop");
    // Each file as it was written, in the snapshot that recorded it.
    let at = |rev: &str, rel: &str| {
        let o = memctl_in(&e, &["diff", "--from", rev, "--to", "@~0", rel]);
        String::from_utf8(o.stdout).unwrap()
    };
    assert_eq!(at("@~1", "a.md"), "", "a.md is the same in both");
    assert!(at("@~1", "b.md").contains("+edited by hand"), "{}", at("@~1", "b.md"));
    assert_eq!(fs::read_to_string(e.dir().join("a.md")).unwrap(), by_model);
}

#[test]
fn h_session_start_reports_what_a_dream_changed_since_the_last_session() {
    let e = env()
        .index("- [A](a.md) — a\n- [B](b.md) — b\n")
        .memory("a.md", GOOD)
        .memory("b.md", GOOD);
    let cwd = e.root().join("proj");
    let p = serde_json::to_vec(&json!({"hook_event_name": "SessionStart", "source": "startup", "cwd": cwd})).unwrap();
    let start = |e: &Env| {
        let mut child = e
            .command()
            .arg("hook")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::io::Write::write_all(&mut child.stdin.take().unwrap(), &p).unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    assert_eq!(start(&e), "", "the first session records the baseline and says nothing");
    // Between sessions a dream rewrites b.md and takes the lock.
    fs::write(e.dir().join("b.md"), format!("{GOOD}merged\n")).unwrap();
    fs::write(e.dir().join(".consolidate-lock"), "99999999").unwrap();
    let out = start(&e);
    let d: Value = serde_json::from_str(&out).unwrap();
    let ctx = d["hookSpecificOutput"]["additionalContext"].as_str().unwrap();
    assert!(ctx.contains("a dream changed 1 file since the last snapshot"), "{ctx}");
    assert!(ctx.contains("memctl diff --dream"), "{ctx}");
    assert_eq!(
        d["systemMessage"],
        "memctl: a dream changed 1 file since the last snapshot"
    );
    assert_eq!(start(&e), "", "nothing new since: quiet");
}

/// SessionStart names unresolved sync conflict files (SPEC §7.3, §11.3): how many,
/// which, and `memctl sync --status`; one JSON line, exit 0, context and message only.
#[test]
fn h_session_start_reports_unresolved_sync_conflicts() {
    let e = env()
        .index("- [A](a.md) — a\n")
        .memory("a.md", GOOD)
        .memory("team/t.md", GOOD)
        .file("mem/team/MEMORY.md", "- [T](t.md) — t\n".as_bytes())
        .file("mem/a.md.conflict-laptop-20261201", GOOD.as_bytes())
        .file("mem/team/t.md.conflict-desk-top-20261202-2", GOOD.as_bytes());
    let cwd = e.root().join("proj");
    let p = serde_json::to_vec(&json!({"hook_event_name": "SessionStart", "source": "startup", "cwd": cwd})).unwrap();
    let r = hook(e, p);
    let d = doc(&r);
    assert_eq!(
        d.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["hookSpecificOutput", "systemMessage"],
        "no decision at SessionStart: {d}"
    );
    assert_eq!(d["hookSpecificOutput"]["hookEventName"], "SessionStart");
    let ctx = d["hookSpecificOutput"]["additionalContext"].as_str().unwrap();
    assert!(
        ctx.contains("2 sync conflict files hold another machine's version"),
        "{ctx}"
    );
    assert!(
        ctx.contains("    a.md.conflict-laptop-20261201 (from laptop, 2026-12-01)\n"),
        "{ctx}"
    );
    assert!(
        ctx.contains("    team/t.md.conflict-desk-top-20261202-2 (from desk-top, 2026-12-02)"),
        "{ctx}"
    );
    assert!(ctx.contains("memctl sync --status"), "{ctx}");
    assert_eq!(
        d["systemMessage"],
        // Without a team store team/t.md belongs to the main index (SPEC §2.13).
        "memctl: 1 unindexed file; 2 unresolved sync conflicts (memctl sync --status)"
    );
}

// ---- dream labelling (issue 30 point 4, SPEC v3 §7.3 PostToolUse 1, §8.2) ----

/// The 2.1.332 PostToolUse payloads of a dream that writes a topic file, then
/// adds its line to `MEMORY.md` (tests/golden/claude-code-2.1.332/dream-hooks.jsonl:
/// a Write and an Edit recorded from the shipped client through the harness's
/// logging wrapper, with the dream fork's `agent_id` = `aauto_dream-` + 16 hex
/// digits and no `agent_type`, SPEC v3 §7.1; the client dreams only interactively
/// behind a server flag). `$MEMDIR`, `$CWD`, `$PROJECTS` are filled in.
fn dream_payloads(e: &Env) -> Vec<Vec<u8>> {
    let text = include_str!("../golden/claude-code-2.1.332/dream-hooks.jsonl");
    let projects = e.home().join(".claude/projects/proj");
    text.lines()
        .map(|l| {
            l.replace("$MEMDIR", &e.dir().to_string_lossy())
                .replace("$CWD", &e.root().join("proj").to_string_lossy())
                .replace("$PROJECTS", &projects.to_string_lossy())
                .into_bytes()
        })
        .collect()
}

/// Run the hook on `stdin` with `e`'s environment; its stdout.
#[track_caller]
fn hook_with(e: &Env, stdin: &[u8]) -> String {
    let mut child = e
        .command()
        .arg("hook")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), stdin).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// `memctl --dir <mem> ARGS` with `e`'s environment.
fn memctl_in(e: &Env, args: &[&str]) -> std::process::Output {
    e.command().arg("--dir").arg(e.dir()).args(args).output().unwrap()
}

/// Each snapshot, newest first: its trigger and its changes as `file:change`, sorted.
fn changes(e: &Env) -> Vec<(String, Vec<String>)> {
    let out = memctl_in(e, &["--json", "history"]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    doc["snapshots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let mut files: Vec<String> = s["changes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| format!("{}:{}", c["file"].as_str().unwrap(), c["change"].as_str().unwrap()))
                .collect();
            files.sort();
            (s["trigger"].as_str().unwrap().to_string(), files)
        })
        .collect()
}

fn triggers(e: &Env) -> Vec<String> {
    let out = memctl_in(e, &["--json", "history"]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    doc["snapshots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["trigger"].as_str().unwrap().to_string())
        .collect()
}

const BUILD_INDEX: &str = "- [Build](project_build.md) — how to build and test the project\n";
const BUILD: &str = "---\nname: Build\ndescription: How to build and test the project\ntype: project\n---\n\nRun `cargo build`, then `cargo test`.\n";

/// A dream deletes through the shell and writes through Write/Edit (SPEC v3
/// §2.14, §8.2): its write's snapshot walks the dir, so the deletion is in the
/// same `dream` snapshot, which `diff --dream` and `undo --dream` take whole. A
/// model's write while a lock moved keeps the last snapshot's lock: the next
/// walk sees the lock moved and labels what changed `dream`.
#[test]
fn h_a_dreams_shell_deletion_is_the_dreams_and_the_models_write_leaves_the_lock() {
    let e = env()
        .index(BUILD_INDEX)
        .memory("project_build.md", BUILD)
        .memory("old.md", GOOD);
    let start = serde_json::to_vec(&json!({"session_id": "7d3e91c2-5b08-4f6a-a1e4-0c9b2f6d8e17",
        "hook_event_name": "SessionStart", "source": "startup", "cwd": e.root().join("proj")}))
    .unwrap();
    hook_with(&e, &start);
    let payloads = dream_payloads(&e);
    fs::write(e.dir().join(".consolidate-lock"), std::process::id().to_string()).unwrap();
    fs::remove_file(e.dir().join("old.md")).unwrap();
    let write: Value = serde_json::from_slice(&payloads[0]).unwrap();
    fs::write(
        e.dir().join("feedback_terse.md"),
        write["tool_response"]["content"].as_str().unwrap(),
    )
    .unwrap();
    hook_with(&e, &payloads[0]);
    let got = changes(&e);
    assert_eq!(
        got[0],
        (
            "dream".to_string(),
            vec!["feedback_terse.md:added".to_string(), "old.md:deleted".to_string()]
        ),
        "{got:?}"
    );
    // The model writes while the lock moves again (another dream starts) and
    // a memory goes: the model's snapshot has its file only, the lock as it was.
    let lock = e.dir().join(".consolidate-lock");
    fs::write(&lock, "0").unwrap();
    crate::support::set_age(&lock, 0.01);
    fs::remove_file(e.dir().join("project_build.md")).unwrap();
    fs::write(e.dir().join("feedback_terse.md"), format!("{GOOD}by the model\n")).unwrap();
    hook_with(&e, &payload(&e, "Write", "feedback_terse.md", Some(None)));
    hook_with(&e, &stop_payload(&e));
    let got = changes(&e);
    assert_eq!(
        got[1],
        ("claude".to_string(), vec!["feedback_terse.md:modified".to_string()]),
        "{got:?}"
    );
    assert_eq!(
        got[0],
        ("dream".to_string(), vec!["project_build.md:deleted".to_string()]),
        "{got:?}"
    );
    let out = memctl_in(&e, &["--json", "history", "--limit", "3"]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let lock_at = |i: usize| doc["snapshots"][i]["lock_mtime"].clone();
    assert_eq!(lock_at(1), lock_at(2), "the model's snapshot keeps the lock: {doc}");
    assert_ne!(lock_at(0), lock_at(1), "the walk records it moved: {doc}");
}

#[test]
fn h_every_write_of_a_dream_is_labelled_dream_and_undo_dream_reverts_them_all() {
    let e = env().index(BUILD_INDEX).memory("project_build.md", BUILD);
    let start = serde_json::to_vec(&json!({"session_id": "7d3e91c2-5b08-4f6a-a1e4-0c9b2f6d8e17",
        "hook_event_name": "SessionStart", "source": "startup", "cwd": e.root().join("proj")}))
    .unwrap();
    assert_eq!(hook_with(&e, &start), "", "the baseline");
    let payloads = dream_payloads(&e);
    // The dream takes the lock (body: the client's PID, here a live one), writes
    // the topic file as Claude Code stores it, then edits the index: each write
    // is followed by its PostToolUse hook.
    fs::write(e.dir().join(".consolidate-lock"), std::process::id().to_string()).unwrap();
    let write: Value = serde_json::from_slice(&payloads[0]).unwrap();
    let topic = write["tool_response"]["content"].as_str().unwrap();
    fs::write(e.dir().join("feedback_terse.md"), topic).unwrap();
    hook_with(&e, &payloads[0]);
    let edit: Value = serde_json::from_slice(&payloads[1]).unwrap();
    let index = BUILD_INDEX.replace(
        edit["tool_input"]["old_string"].as_str().unwrap(),
        edit["tool_input"]["new_string"].as_str().unwrap(),
    );
    fs::write(e.dir().join("MEMORY.md"), &index).unwrap();
    hook_with(&e, &payloads[1]);
    assert_eq!(triggers(&e), ["dream", "dream", "baseline"]);
    let diff = memctl_in(&e, &["diff", "--dream"]);
    let text = String::from_utf8_lossy(&diff.stdout);
    assert!(text.contains("feedback_terse.md"), "{text}");
    assert!(text.contains("+- [Terse replies](feedback_terse.md)"), "{text}");
    // The session that dreamed has ended: the lock keeps its mtime (the dream's
    // start) and names a PID that is gone.
    let lock = e.dir().join(".consolidate-lock");
    let mtime = fs::metadata(&lock).unwrap().modified().unwrap();
    fs::write(&lock, i32::MAX.to_string()).unwrap();
    fs::File::options()
        .write(true)
        .open(&lock)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    let undo = memctl_in(&e, &["undo", "--dream", "--yes"]);
    assert!(undo.status.success(), "{}", String::from_utf8_lossy(&undo.stderr));
    assert!(!e.dir().join("feedback_terse.md").exists());
    assert_eq!(fs::read_to_string(e.dir().join("MEMORY.md")).unwrap(), BUILD_INDEX);
}

/// A forked agent (an `agent_id` without `agent_type`) that writes while a fresh
/// `.consolidate-lock` is held by a live PID is dreaming, for every write; a
/// subagent (with `agent_type`) is the model's, and so is a fork once the lock's
/// holder is gone.
#[test]
fn h_a_forked_agent_writing_under_a_held_lock_is_a_dream_a_subagent_is_not() {
    let e = env().index(BUILD_INDEX).memory("project_build.md", BUILD);
    let start = serde_json::to_vec(&json!({"hook_event_name": "SessionStart", "source": "startup",
        "cwd": e.root().join("proj")}))
    .unwrap();
    hook_with(&e, &start);
    let lock = e.dir().join(".consolidate-lock");
    fs::write(&lock, std::process::id().to_string()).unwrap();
    // Fresh at the tests' fixed now.
    crate::support::set_age(&lock, 0.1);
    let write = |e: &Env, body: &str, agent: Value| {
        fs::write(e.dir().join("project_build.md"), format!("{BUILD}{body}\n")).unwrap();
        let mut p: Value = serde_json::from_slice(&dream_payloads(e)[0]).unwrap();
        p["tool_input"]["file_path"] = json!(e.dir().join("project_build.md"));
        p["tool_response"]["originalFile"] = json!(BUILD);
        let o = p.as_object_mut().unwrap();
        o.remove("agent_id");
        for (k, v) in agent.as_object().unwrap() {
            o.insert(k.clone(), v.clone());
        }
        hook_with(e, &serde_json::to_vec(&p).unwrap());
    };
    write(&e, "one", json!({"agent_id": "aextract_memories-0123456789abcdef"}));
    write(&e, "two", json!({"agent_id": "aextract_memories-0123456789abcdef"}));
    write(
        &e,
        "three",
        json!({"agent_id": "a0123456789abcdef", "agent_type": "general-purpose"}),
    );
    // The holder is gone (PID 0 is never a live holder): the model's write.
    fs::write(&lock, "0").unwrap();
    crate::support::set_age(&lock, 0.1);
    write(&e, "four", json!({"agent_id": "aextract_memories-0123456789abcdef"}));
    write(&e, "five", json!({}));
    assert_eq!(
        triggers(&e),
        ["claude", "claude", "claude", "dream", "dream", "baseline"]
    );
}

// ---- writes into the wrong memory dir (issue 30 point 5, SPEC v3 §7.3) ----

/// The client has known bugs that save a memory under the home dir's key or a
/// subdirectory's key: the hook names the dir Claude Code loads for this project
/// and how to move the memory there. A 2.1.332 Write payload (the recorded shape).
#[test]
fn h_a_write_into_another_projects_memory_dir_names_the_loaded_dir() {
    let e = Env::new().resolved();
    let proj = e.root().join("proj");
    fs::create_dir_all(&proj).unwrap();
    let loaded = {
        let o = e.command().arg("--project").arg(&proj).arg("path").output().unwrap();
        String::from_utf8(o.stdout)
            .unwrap()
            .trim()
            .trim_end_matches('/')
            .to_string()
    };
    let home_key = e.home().to_string_lossy().replace(['/', '.'], "-");
    let other = e.home().join(".claude/projects").join(&home_key).join("memory");
    fs::create_dir_all(&other).unwrap();
    fs::write(other.join("feedback_terse.md"), GOOD).unwrap();
    let mut p: Value = serde_json::from_slice(&dream_payloads(&e)[0]).unwrap();
    let o = p.as_object_mut().unwrap();
    o.remove("agent_id");
    o.insert("cwd".into(), json!(proj));
    p["tool_input"]["file_path"] = json!(other.join("feedback_terse.md"));
    p["tool_response"]["filePath"] = json!(other.join("feedback_terse.md"));
    let out = hook_with(&e, &serde_json::to_vec(&p).unwrap());
    let d: Value = serde_json::from_str(&out).unwrap_or_else(|_| panic!("{out:?}"));
    assert_eq!(d["hookSpecificOutput"]["hookEventName"], "PostToolUse");
    let ctx = d["hookSpecificOutput"]["additionalContext"].as_str().unwrap();
    assert!(
        ctx.starts_with(&format!(
            "memctl: this memory was written to {}/, which Claude Code does not load for this project; it loads {loaded}/. Move it there: `mv {}/feedback_terse.md {loaded}/feedback_terse.md`",
            other.display(),
            other.display()
        )),
        "{ctx}"
    );
    assert!(ctx.contains("memctl projects merge"), "{ctx}");
    assert!(d.get("decision").is_none(), "context, never a block: {d}");
    assert!(
        d["systemMessage"]
            .as_str()
            .unwrap()
            .contains("another project's memory dir")
    );
    // A write into the loaded dir, into a dot-dir of the other one, or outside any
    // memory dir is not this.
    for path in [
        Path::new(&loaded).join("feedback_terse.md"),
        other.join(".trash/feedback_terse.md"),
        e.root().join("notes.md"),
    ] {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, GOOD).unwrap();
        p["tool_input"]["file_path"] = json!(path);
        p["tool_response"]["originalFile"] = json!(GOOD);
        let out = hook_with(&e, &serde_json::to_vec(&p).unwrap());
        assert!(!out.contains("does not load"), "{path:?}: {out}");
    }
}

// ---- SessionStart: what is new since the previous one (issue 30 point 7, SPEC v3 §7.3) ----

/// SessionStart reports each problem once, the session it appears: a
/// long-standing unindexed file, unreadable file, entry past the cut or sync
/// conflict file is not repeated every session (`memctl lint` lists them all);
/// a new one is reported, and one that was fixed and comes back is new again.
#[test]
fn h_session_start_reports_each_problem_once() {
    let e = env()
        .index(&index_of(201))
        .memory("lost.md", GOOD)
        .memory(
            "bad.md",
            "---\nname: a\ndescription: \"unclosed\ntype: user\n---\nbody\n",
        )
        .file("mem/a.md.conflict-laptop-20261201", GOOD.as_bytes())
        // Without history (its snapshots report the changes themselves): the
        // record of what was reported lives in memctl's state dir.
        .env("MEMCTL_HISTORY", "off");
    let p = serde_json::to_vec(&json!({"session_id": "s1", "hook_event_name": "SessionStart",
        "source": "startup", "cwd": e.root().join("proj")}))
    .unwrap();
    let first = hook_with(&e, &p);
    let d: Value = serde_json::from_str(&first).unwrap();
    let ctx = d["hookSpecificOutput"]["additionalContext"].as_str().unwrap();
    for part in [
        "MEMORY.md:201: - [E200](e200.md)",
        "lost.md: not in MEMORY.md",
        "bad.md:2:",
        "a.md.conflict-laptop-20261201 (from laptop, 2026-12-01)",
    ] {
        assert!(ctx.contains(part), "{part}: {ctx}");
    }
    assert_eq!(
        d["systemMessage"],
        "memctl: MEMORY.md 201/200 lines — 1 entry not loaded; 1 file Claude Code cannot read; 2 unindexed files; 1 unresolved sync conflict (memctl sync --status)"
    );
    assert_eq!(hook_with(&e, &p), "", "nothing new since the previous SessionStart");
    // New problems only: a second unindexed file, a second entry past the cut.
    fs::write(e.dir().join("lost2.md"), GOOD).unwrap();
    fs::write(e.dir().join("MEMORY.md"), index_of(202)).unwrap();
    let d: Value = serde_json::from_str(&hook_with(&e, &p)).unwrap();
    let ctx = d["hookSpecificOutput"]["additionalContext"].as_str().unwrap();
    assert!(ctx.contains("lost2.md: not in MEMORY.md"), "{ctx}");
    assert!(ctx.contains("MEMORY.md:202: - [E201](e201.md)"), "{ctx}");
    assert!(
        !ctx.contains("lost.md:") && !ctx.contains("bad.md") && !ctx.contains("E200"),
        "{ctx}"
    );
    assert_eq!(
        d["systemMessage"],
        "memctl: MEMORY.md 202/200 lines — 1 entry not loaded; 1 unindexed file"
    );
    // lost.md indexed, then dropped from the index again: new again.
    fs::write(e.dir().join("MEMORY.md"), "- [L](lost.md) — l\n- [L2](lost2.md) — l\n").unwrap();
    assert_eq!(hook_with(&e, &p), "");
    fs::write(e.dir().join("MEMORY.md"), "- [L2](lost2.md) — l\n").unwrap();
    let d: Value = serde_json::from_str(&hook_with(&e, &p)).unwrap();
    assert_eq!(d["systemMessage"], "memctl: 1 unindexed file");
}

/// SessionStart's record of what it reported keeps a fixed-size key per index
/// line past the cut, not the line's text (issue 31 first row, SPEC v3 §7.2): the
/// bench's 20 000-line index made it 4.9 MB, read and hashed at every session
/// start. Each long-standing cut line is still reported once, a new one at once.
#[test]
fn h_session_start_keeps_cut_lines_as_keys_not_text() {
    let long = "x".repeat(150);
    let index: String = (0..1200)
        .map(|i| format!("- [E{i}](e{i}.md) — entry {i} {long}\n"))
        .collect();
    let e = env().index(&index).env("MEMCTL_HISTORY", "off");
    let p = serde_json::to_vec(&json!({"session_id": "s1", "hook_event_name": "SessionStart",
        "source": "startup", "cwd": e.root().join("proj")}))
    .unwrap();
    let d: Value = serde_json::from_str(&hook_with(&e, &p)).unwrap();
    let summary = d["systemMessage"].as_str().unwrap();
    assert!(summary.contains("entries not loaded"), "{summary}");
    let records: Vec<_> = fs::read_dir(e.root().join("state/memctl/session-start"))
        .unwrap()
        .flatten()
        .collect();
    assert_eq!(records.len(), 1);
    let size = records[0].metadata().unwrap().len();
    // 1 000 cut lines of ~180 bytes: 180 kB as text, ~19 kB as keys.
    assert!(size < 32 << 10, "record of {size} bytes");
    assert_eq!(hook_with(&e, &p), "", "nothing new since the previous SessionStart");
    fs::write(
        e.dir().join("MEMORY.md"),
        format!("{index}- [New](new.md) — the newest entry\n"),
    )
    .unwrap();
    let d: Value = serde_json::from_str(&hook_with(&e, &p)).unwrap();
    let ctx = d["hookSpecificOutput"]["additionalContext"].as_str().unwrap();
    assert!(ctx.contains("MEMORY.md:1201: - [New](new.md)"), "{ctx}");
    assert!(!ctx.contains("[E200]"), "{ctx}");
}

/// `hook install` then `uninstall` on a settings file that did not exist leaves
/// no `{}` behind: the file goes again, and the dir memctl created for it (SPEC
/// §7.4: the result is the state before the install; issue 32 point 4).
#[test]
fn i_uninstall_removes_the_settings_file_and_dir_install_created() {
    let e = Env::new();
    let claude = e.home().join(".claude");
    let f = settings(&e);
    assert!(!claude.exists());
    let run = |args: &[&str]| {
        let o = e.command().args(args).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    run(&["hook", "install"]);
    assert!(f.is_file());
    let out = run(&["hook", "uninstall"]);
    assert!(out.contains("memctl's hooks removed from"), "{out}");
    assert!(
        !f.exists() && !claude.exists(),
        "left behind: {:?}",
        fs::read_to_string(&f)
    );
    // The dir existed (another file in it): only the file goes.
    fs::create_dir_all(&claude).unwrap();
    fs::write(claude.join("CLAUDE.md"), "mine\n").unwrap();
    run(&["hook", "install"]);
    run(&["hook", "uninstall"]);
    assert!(!f.exists(), "left behind: {:?}", fs::read_to_string(&f));
    assert_eq!(fs::read_to_string(claude.join("CLAUDE.md")).unwrap(), "mine\n");
    // A file the user had (even `{}`) stays, as it was.
    fs::write(&f, "{}\n").unwrap();
    run(&["hook", "install"]);
    run(&["hook", "uninstall"]);
    assert_eq!(fs::read_to_string(&f).unwrap(), "{}\n");
    // Something else written into the created file meanwhile: it stays.
    fs::remove_file(&f).unwrap();
    let _ = fs::remove_file(e_backup(&f));
    run(&["hook", "install"]);
    run(&["config", "set", "autoDreamEnabled", "false"]);
    run(&["hook", "uninstall"]);
    let v: Value = serde_json::from_str(&fs::read_to_string(&f).unwrap()).unwrap();
    assert_eq!(v, json!({"autoDreamEnabled": false}));
}

/// A write into a path Claude Code's scan skips (SPEC v3 §2.5 step 2, §7.3) is no
/// memory file: not judged, but the model hears that Claude Code never loads it,
/// as `list` hides it and `lint` says ML136; memctl's own `.trash/` stays silent
/// (issue 32 point 2).
#[test]
fn h_a_write_into_a_scan_excluded_path_says_claude_code_never_loads_it() {
    let bogus = GOOD.replace("type: user", "type: bogus");
    let e = env()
        .index("- [A](a.md) — a\n")
        .memory("a.md", GOOD)
        .memory(".hidden.md", &bogus);
    let mem = e.dir();
    let p = payload(&e, "Write", ".hidden.md", Some(None));
    let d = doc(&hook(e, p));
    assert!(d.get("decision").is_none(), "{d}");
    let ctx = d["hookSpecificOutput"]["additionalContext"].as_str().unwrap();
    assert!(
        ctx.contains(&format!(
            "Claude Code never loads files under {}/ whose names begin with a dot",
            mem.display()
        )),
        "{ctx}"
    );
    assert!(
        ctx.contains(&format!("mv {}/.hidden.md {}/hidden.md", mem.display(), mem.display())),
        "{ctx}"
    );
    // Under `logs/`: the dir is named.
    let e = env().index("").memory("logs/x.md", &bogus);
    let mem = e.dir();
    let p = payload(&e, "Edit", "logs/x.md", None);
    let d = doc(&hook(e, p));
    let ctx = d["hookSpecificOutput"]["additionalContext"].as_str().unwrap();
    assert!(
        ctx.contains(&format!("Claude Code never loads files under {}/logs/ ", mem.display())),
        "{ctx}"
    );
    // The gate lets such a write through (it is no memory file).
    let e = env().index("");
    let mem = e.dir();
    let pre = json!({"session_id": "s1", "cwd": e.root().join("proj"), "hook_event_name": "PreToolUse",
        "tool_name": "Write", "tool_input": {"file_path": mem.join(".hidden.md"), "content": bogus}});
    silent(&hook(e, serde_json::to_vec(&pre).unwrap()));
    // memctl's own trash: silent.
    let e = env().index("").memory(".trash/x.md", &bogus);
    let p = payload(&e, "Write", ".trash/x.md", Some(None));
    silent(&hook(e, p));
    // `list` agrees: not a memory unless --all, marked dot-segment.
    let e = Env::new().memory(".hidden.md", &bogus);
    let r = e.args(["list", "--all", "--json"]).run();
    let v = r.json();
    let entry = v["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["file"] == ".hidden.md")
        .cloned();
    assert_eq!(
        entry.map(|m| m["excluded_by"].clone()),
        Some(json!("dot-segment")),
        "{v}"
    );
}
