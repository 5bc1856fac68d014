//! `memctl hook` at the turn level (SPEC v3 §7.3, issue 30 points 1–3): the gate
//! (PreToolUse), quiet on a good save, the turn list and the Stop check, one voice
//! with the client on the index cut. Sessions are replayed from the payloads the
//! shipped client 2.1.332 sent to memctl (tests/golden/claude-code-2.1.332/
//! hook-payloads/, recorded with scripts/hook-sessions/run.py --record), the
//! client's own writes applied to disk between PreToolUse and PostToolUse.

use std::fs;
use std::io::Write;
use std::path::Path;
use std::process::Stdio;

use serde_json::{Value, json};

use crate::support::Env;

const GOOD: &str = "---\nname: a\ndescription: a thing\ntype: user\n---\nbody\n";
const BUILD: &str = "---\nname: Build\ndescription: How to build and test the project\ntype: project\n---\n\nRun `cargo build`, then `cargo test`.\n";
const BUILD_LINE: &str = "- [Build](project_build.md) — how to build and test the project\n";

/// The memory dir (`mem/`) is the one Claude Code resolves (its override).
fn env() -> Env {
    let e = Env::new().resolved();
    let mem = e.dir();
    fs::create_dir_all(e.root().join("proj")).unwrap();
    e.env("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", mem)
}

/// One hook call in `e` (the env can be called again: a session is many calls).
struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Out {
    #[track_caller]
    fn silent(&self) {
        assert_eq!(
            (self.code, self.stdout.as_str(), self.stderr.as_str()),
            (0, "", ""),
            "expected no output"
        );
    }

    #[track_caller]
    fn doc(&self) -> Value {
        assert_eq!(self.code, 0, "stderr: {}", self.stderr);
        assert_eq!(self.stderr, "");
        assert!(self.stdout.encode_utf16().count() < 10_000);
        serde_json::from_str(&self.stdout).unwrap_or_else(|err| panic!("{err}: {:?}", self.stdout))
    }
}

#[track_caller]
fn call(e: &Env, payload: &Value) -> Out {
    let mut c = e.command();
    c.arg("hook")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(&serde_json::to_vec(payload).unwrap())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    Out {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

/// A recorded session's payloads, with the run's paths made this env's.
fn session(e: &Env, name: &str) -> Vec<Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden/claude-code-2.1.332/hook-payloads")
        .join(format!("{name}.jsonl"));
    let mem = e.dir().to_string_lossy().into_owned();
    let proj = e.root().join("proj").to_string_lossy().into_owned();
    let run = e.root().to_string_lossy().into_owned();
    fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let l = l
                .replace("$MEMDIR", &mem)
                .replace("$PROJECT", &proj)
                .replace("$RUN", &run);
            serde_json::from_str(&l).unwrap()
        })
        .collect()
}

/// What the client's tool did to disk, applied before its PostToolUse runs.
fn apply(p: &Value) {
    let file = p["tool_input"]["file_path"].as_str().unwrap();
    match p["tool_name"].as_str().unwrap() {
        "Write" => fs::write(file, p["tool_response"]["content"].as_str().unwrap()).unwrap(),
        _ => {
            let text = fs::read_to_string(file).unwrap();
            let (old, new) = (
                p["tool_input"]["old_string"].as_str().unwrap(),
                p["tool_input"]["new_string"].as_str().unwrap(),
            );
            assert!(text.contains(old));
            fs::write(file, text.replacen(old, new, 1)).unwrap();
        }
    }
}

/// Replay a session: each call's output, by event, in order.
fn replay(e: &Env, payloads: &[Value]) -> Vec<(String, Out)> {
    payloads
        .iter()
        .map(|p| {
            let event = p["hook_event_name"].as_str().unwrap().to_string();
            if event == "PostToolUse" {
                apply(p);
            }
            (event, call(e, p))
        })
        .collect()
}

fn seeded(files: &[(&str, &str)]) -> Env {
    let mut e = env();
    for (rel, text) in files {
        e = if *rel == "MEMORY.md" {
            e.index(text)
        } else {
            e.memory(rel, text)
        };
    }
    e
}

/// (a) The client's two-step save (topic file, then its index line): not a word
/// from memctl, to the model or the user, at any call (issue 30 point 1).
#[test]
fn g1_the_two_step_save_replayed_from_the_client_prints_nothing() {
    let e = seeded(&[("project_build.md", BUILD), ("MEMORY.md", BUILD_LINE)]);
    let calls = replay(&e, &session(&e, "two-step-save"));
    let events: Vec<&str> = calls.iter().map(|(ev, _)| ev.as_str()).collect();
    assert_eq!(
        events,
        [
            "SessionStart",
            "PreToolUse",
            "PostToolUse",
            "PreToolUse",
            "PostToolUse",
            "Stop",
            "SessionEnd"
        ]
    );
    for (ev, out) in &calls {
        assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{ev}");
    }
    // History off: the turn list still works (it lives in the state dir).
    let e = seeded(&[("project_build.md", BUILD), ("MEMORY.md", BUILD_LINE)]).env("MEMCTL_HISTORY", "off");
    for (ev, out) in replay(&e, &session(&e, "two-step-save")) {
        assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{ev}");
    }
}

/// (b) The 201st index line: one memctl message, at that write, naming the
/// dropped entry and the fixing command, with no cap figures of its own (the
/// client's advisory already gives its numbers and targets); the Stop is silent
/// (issue 30 point 2).
#[test]
fn g2_the_201st_index_line_is_one_message_naming_the_entry_in_one_voice() {
    let mut files: Vec<(String, String)> = (1..=200)
        .map(|i| {
            (
                format!("project_note{i}.md"),
                format!("---\nname: Note {i}\ndescription: note number {i}\ntype: project\n---\n\nNote {i}.\n"),
            )
        })
        .collect();
    let index: String = (1..=200)
        .map(|i| format!("- [Note {i}](project_note{i}.md) — note number {i}\n"))
        .collect();
    files.push(("MEMORY.md".into(), index));
    let refs: Vec<(&str, &str)> = files.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    let e = seeded(&refs);
    let calls = replay(&e, &session(&e, "line-201"));
    let spoke: Vec<&(String, Out)> = calls.iter().filter(|(_, o)| !o.stdout.is_empty()).collect();
    assert_eq!(spoke.len(), 1, "one message only");
    let (ev, out) = spoke[0];
    assert_eq!(ev, "PostToolUse");
    let d = out.doc();
    assert_eq!(d["decision"], "block");
    let reason = d["reason"].as_str().unwrap();
    assert!(
        reason.contains("MEMORY.md:201: - [Terse replies](feedback_terse.md) — no recap at the end of a reply"),
        "{reason}"
    );
    assert!(reason.contains("memctl index rebuild"), "{reason}");
    let user = d["systemMessage"].as_str().unwrap();
    assert!(
        user.contains("line 201") && user.contains("memctl index rebuild"),
        "{user}"
    );
    // No figures besides the entry's line: not 200, 140, 201 lines, 25 000 units.
    for text in [reason, user] {
        let without_refs = text.replace("MEMORY.md:201", "").replace("line 201", "");
        assert!(
            !without_refs.chars().any(|c| c.is_ascii_digit()),
            "a number of memctl's own: {text}"
        );
        assert!(d.get("hookSpecificOutput").is_none());
    }
}

/// (c) A turn that ends with an unindexed memory is stopped once with the exact
/// line to add; the model adds it; the next Stop (stop_hook_active) passes, and
/// so does a later Stop with an empty turn list (issue 30 point 1).
#[test]
fn g3_a_turn_ending_with_an_unindexed_memory_is_stopped_once() {
    let e = seeded(&[("project_build.md", BUILD), ("MEMORY.md", BUILD_LINE)]);
    let payloads = session(&e, "unindexed-stop");
    let calls = replay(&e, &payloads);
    let stops: Vec<&Out> = calls.iter().filter(|(ev, _)| ev == "Stop").map(|(_, o)| o).collect();
    assert_eq!(stops.len(), 2);
    let d = stops[0].doc();
    assert_eq!(d["decision"], "block");
    let reason = d["reason"].as_str().unwrap();
    assert!(
        reason.contains(
            "add this line at MEMORY.md:2: - [terse-replies](feedback_terse.md) — No recap of what was just done at the end of a reply"
        ),
        "{reason}"
    );
    assert!(reason.chars().count() <= 2_000);
    stops[1].silent();
    for (ev, out) in calls.iter().filter(|(ev, _)| ev != "Stop") {
        assert_eq!(out.stdout, "", "{ev}");
    }
    // The turn list was cleared: the same Stop again (not active) says nothing.
    let stop = payloads.iter().find(|p| p["hook_event_name"] == "Stop").unwrap();
    call(&e, stop).silent();
    assert!(
        fs::read_to_string(e.dir().join("MEMORY.md"))
            .unwrap()
            .contains("(feedback_terse.md)")
    );
}

/// With `stop_hook_active` the Stop is silent even with problems left: a turn is
/// stopped once at most.
#[test]
fn g3b_stop_hook_active_is_silent_and_keeps_the_list() {
    let e = seeded(&[("project_build.md", BUILD), ("MEMORY.md", BUILD_LINE)]);
    let payloads = session(&e, "unindexed-stop");
    let post = payloads.iter().find(|p| p["hook_event_name"] == "PostToolUse").unwrap();
    apply(post);
    call(&e, post).silent();
    let mut stop = payloads
        .iter()
        .find(|p| p["hook_event_name"] == "Stop")
        .unwrap()
        .clone();
    stop["stop_hook_active"] = json!(true);
    call(&e, &stop).silent();
    stop["stop_hook_active"] = json!(false);
    assert_eq!(call(&e, &stop).doc()["decision"], "block");
    call(&e, &stop).silent();
}

/// A subagent's writes are its own turn: checked at its SubagentStop, not at the
/// main Stop; unreadable frontmatter, an invalid type and an index line past the
/// cut are named with their fixes.
#[test]
fn g4_subagent_stop_checks_the_agents_turn_list_for_each_problem() {
    let full: String = (0..200).map(|i| format!("- [E{i}](e{i}.md) — entry {i}\n")).collect();
    let e = seeded(&[
        ("MEMORY.md", &format!("{full}- [Late](late.md) — late\n")),
        ("late.md", GOOD),
        ("typed.md", &GOOD.replace("type: user", "type: users")),
        (
            "broken.md",
            "---\nname: b\ndescription: \"unclosed\ntype: user\n---\nbody\n",
        ),
    ]);
    // The recorded shapes: a subagent's SubagentStop and the main Stop of that
    // session, and a Write's PostToolUse given that subagent's ids.
    let rec = session(&e, "subagent");
    let find = |ev: &str| rec.iter().find(|p| p["hook_event_name"] == ev).unwrap().clone();
    let (main_stop, sub_stop) = (find("Stop"), find("SubagentStop"));
    let write = session(&e, "two-step-save")
        .into_iter()
        .find(|p| p["hook_event_name"] == "PostToolUse")
        .unwrap();
    let post = |rel: &str| {
        let mut p = write.clone();
        p["session_id"] = sub_stop["session_id"].clone();
        p["agent_id"] = sub_stop["agent_id"].clone();
        p["agent_type"] = sub_stop["agent_type"].clone();
        p["tool_input"]["file_path"] = json!(e.dir().join(rel));
        p["tool_response"]["filePath"] = json!(e.dir().join(rel));
        p
    };
    for rel in ["late.md", "typed.md", "broken.md"] {
        call(&e, &post(rel));
    }
    let stop = |agent: Option<&str>| {
        if agent.is_some() {
            sub_stop.clone()
        } else {
            main_stop.clone()
        }
    };
    call(&e, &stop(None)).silent();
    let d = call(&e, &stop(Some("sub"))).doc();
    assert_eq!(d["decision"], "block");
    let reason = d["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("memctl: 3 memories written in this turn"),
        "{reason}"
    );
    assert!(
        reason.contains("late.md: its line MEMORY.md:201 is past the load cut")
            && reason.contains("memctl index rebuild"),
        "{reason}"
    );
    assert!(reason.contains("typed.md:4: type `users`"), "{reason}");
    assert!(
        reason.contains("broken.md:") && reason.contains("fix: make the frontmatter valid YAML"),
        "{reason}"
    );
    call(&e, &stop(Some("sub"))).silent();
}

/// (d) A Write with unreadable frontmatter over a good memory is denied before
/// it lands (issue 30 point 3).
#[test]
fn g5_the_gate_denies_the_recorded_broken_write() {
    let e = seeded(&[("project_build.md", BUILD), ("MEMORY.md", BUILD_LINE)]);
    let payloads = session(&e, "broken-write");
    let pre = payloads.iter().find(|p| p["hook_event_name"] == "PreToolUse").unwrap();
    let d = call(&e, pre).doc();
    let h = &d["hookSpecificOutput"];
    assert_eq!(
        (&h["hookEventName"], &h["permissionDecision"]),
        (&json!("PreToolUse"), &json!("deny"))
    );
    let why = h["permissionDecisionReason"].as_str().unwrap();
    assert!(
        why.contains("project_build.md:2: frontmatter Claude Code cannot read") && why.contains("fix:"),
        "{why}"
    );
    assert!(d.get("decision").is_none() && d.get("additionalContext").is_none());
    assert_eq!(fs::read_to_string(e.dir().join("project_build.md")).unwrap(), BUILD);
    // The recorded session's other calls say nothing.
    for p in payloads.iter().filter(|p| p["hook_event_name"] != "PreToolUse") {
        call(&e, p).silent();
    }
}

fn pre(e: &Env, tool: &str, rel: &str, input: Value) -> Value {
    let mut ti = input;
    ti["file_path"] = json!(e.dir().join(rel));
    json!({"session_id": "s1", "cwd": e.root().join("proj"), "prompt_id": "p", "permission_mode": "default",
        "effort": {"level": "medium"}, "hook_event_name": "PreToolUse", "tool_name": tool,
        "tool_input": ti, "tool_use_id": "t"})
}

#[track_caller]
fn denied(out: &Out) -> String {
    let d = out.doc();
    assert_eq!(d["hookSpecificOutput"]["permissionDecision"], "deny", "{d}");
    d["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap()
        .to_string()
}

/// The gate on Edit (the replacement applied to the file on disk, `replace_all`),
/// on invalid types, secrets and the index cut; everything else passes silently.
#[test]
fn g6_the_gate_judges_the_file_after_the_write() {
    let e = seeded(&[("a.md", GOOD), ("MEMORY.md", "- [A](a.md) — a thing\n")]);
    // Edit to an invalid type: denied, with the fix.
    let why = denied(&call(
        &e,
        &pre(
            &e,
            "Edit",
            "a.md",
            json!({"old_string": "type: user", "new_string": "type: users", "replace_all": false}),
        ),
    ));
    assert!(why.contains("a.md:4: an invalid type: type `users`"), "{why}");
    // An Edit whose old_string is not there: the tool fails on its own.
    call(
        &e,
        &pre(
            &e,
            "Edit",
            "a.md",
            json!({"old_string": "nowhere", "new_string": "type: [", "replace_all": false}),
        ),
    )
    .silent();
    // replace_all applies every occurrence: `body` twice, then the type.
    let e2 = seeded(&[("b.md", &GOOD.replace("body", "user body user"))]);
    let why = denied(&call(
        &e2,
        &pre(
            &e2,
            "Edit",
            "b.md",
            json!({"old_string": "user", "new_string": "nobody", "replace_all": true}),
        ),
    ));
    assert!(why.contains("type `nobody`"), "{why}");
    // Only the first occurrence without replace_all (the type stays `user`), and a
    // clean write passes.
    call(
        &e2,
        &pre(
            &e2,
            "Edit",
            "b.md",
            json!({"old_string": "user body", "new_string": "x body", "replace_all": false}),
        ),
    )
    .silent();
    call(&e, &pre(&e, "Write", "new.md", json!({"content": GOOD}))).silent();
    // A new file with an invalid type; a new file with a secret.
    let why = denied(&call(
        &e,
        &pre(
            &e,
            "Write",
            "new.md",
            json!({"content": GOOD.replace("type: user", "type: preference")}),
        ),
    ));
    assert!(why.contains("new.md:4: an invalid type"), "{why}");
    let token = format!("ghp_{}", "a1B2c3D4e5F6g7H8i9J0".repeat(2));
    let why = denied(&call(
        &e,
        &pre(
            &e,
            "Write",
            "new.md",
            json!({"content": format!("{GOOD}token {token}\n")}),
        ),
    ));
    assert!(why.contains("new.md:7: a secret") && !why.contains(&token), "{why}");
    // Already unreadable before: an edit of it is not the gate's to refuse.
    let bad = "---\nname: b\ndescription: \"unclosed\ntype: user\n---\nbody\n";
    let e3 = seeded(&[("bad.md", bad)]);
    call(
        &e3,
        &pre(
            &e3,
            "Edit",
            "bad.md",
            json!({"old_string": "body", "new_string": "more", "replace_all": false}),
        ),
    )
    .silent();
    // Outside the memory dir, not a memory, another tool: never.
    let mut p = pre(&e, "Write", "x.md", json!({"content": "---\ntype: [\n---\n"}));
    p["tool_input"]["file_path"] = json!(e.root().join("proj/README.md"));
    call(&e, &p).silent();
    let mut p = pre(&e, "Write", "x.md", json!({"content": "---\ntype: [\n---\n"}));
    p["tool_name"] = json!("NotebookEdit");
    call(&e, &p).silent();
}

/// The gate on the index: a line that pushes loaded entries past the cut is
/// denied naming them; appending past the cut, or removing lines, is not.
#[test]
fn g7_the_gate_denies_an_index_write_that_pushes_loaded_entries_out() {
    let full: String = (0..200).map(|i| format!("- [E{i}](e{i}.md) — entry {i}\n")).collect();
    let e = seeded(&[("MEMORY.md", &full)]);
    let why = denied(&call(
        &e,
        &pre(
            &e,
            "Write",
            "MEMORY.md",
            json!({"content": format!("- [New](new.md) — new\n{full}")}),
        ),
    ));
    assert!(why.contains("MEMORY.md:201: - [E199](e199.md) — entry 199"), "{why}");
    assert!(why.contains("memctl index rebuild"), "{why}");
    call(
        &e,
        &pre(
            &e,
            "Write",
            "MEMORY.md",
            json!({"content": format!("{full}- [New](new.md) — new\n")}),
        ),
    )
    .silent();
    let over = format!("{full}- [X](x.md) — x\n- [Y](y.md) — y\n");
    let e = seeded(&[("MEMORY.md", &over)]);
    call(
        &e,
        &pre(
            &e,
            "Edit",
            "MEMORY.md",
            json!({"old_string": "- [E0](e0.md) — entry 0\n", "new_string": "", "replace_all": false}),
        ),
    )
    .silent();
}

/// A gate that fails itself lets the write through, says nothing, and logs the
/// error in the state dir's hook.log.
#[test]
fn g8_a_failing_gate_is_silent_and_logged() {
    let e = env();
    fs::create_dir_all(e.dir().join("odd.md")).unwrap();
    let p = pre(
        &e,
        "Edit",
        "odd.md",
        json!({"old_string": "a", "new_string": "b", "replace_all": false}),
    );
    call(&e, &p).silent();
    let log = fs::read_to_string(e.root().join("state/memctl/hook.log")).unwrap();
    assert!(log.contains("gate: cannot read") && log.contains("odd.md"), "{log}");
}

/// `hook install` adds the gate, Stop and SubagentStop (SPEC §7.4 v3);
/// `--no-gate` leaves the gate out; `hook status` shows it.
#[test]
fn g9_install_adds_the_gate_and_the_stop_hooks_and_status_shows_the_gate() {
    let e = Env::new();
    let f = e.home().join(".claude/settings.json");
    let run = |args: &[&str]| {
        let mut c = e.command();
        c.args(args);
        let o = c.output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    run(&["hook", "install"]);
    let v: Value = serde_json::from_str(&fs::read_to_string(&f).unwrap()).unwrap();
    let events: Vec<&String> = v["hooks"].as_object().unwrap().keys().collect();
    assert_eq!(
        events,
        [
            "PreToolUse",
            "PostToolUse",
            "Stop",
            "SubagentStop",
            "SessionStart",
            "SessionEnd"
        ]
    );
    assert_eq!(v["hooks"]["PreToolUse"][0]["matcher"], "Write|Edit");
    assert_eq!(v["hooks"]["PostToolUse"][0]["matcher"], "Write|Edit|MultiEdit");
    assert!(v["hooks"]["Stop"][0].get("matcher").is_none());
    assert_eq!(v["hooks"]["SubagentStop"][0]["hooks"][0]["timeout"], 10);
    let text = run(&["hook", "status"]);
    // Piped: one record per scope, the events as JSON (SPEC §3.13).
    assert!(text.lines().next().unwrap().contains(r#"["PreToolUse","#), "{text}");
    let st: Value = serde_json::from_str(&run(&["hook", "status", "--json"])).unwrap();
    let user = &st["scopes"][0];
    assert_eq!(user["installed"], true);
    assert!(user["events"].as_array().unwrap().contains(&json!("PreToolUse")));

    run(&["hook", "install", "--no-gate"]);
    let v: Value = serde_json::from_str(&fs::read_to_string(&f).unwrap()).unwrap();
    assert!(v["hooks"].get("PreToolUse").is_none(), "{v}");
    let text = run(&["hook", "status"]);
    assert!(!text.contains("PreToolUse") && text.contains("PostToolUse"), "{text}");
    let st: Value = serde_json::from_str(&run(&["hook", "status", "--json"])).unwrap();
    assert_eq!(st["scopes"][0]["installed"], true);
    assert!(
        !st["scopes"][0]["events"]
            .as_array()
            .unwrap()
            .contains(&json!("PreToolUse"))
    );
    run(&["hook", "uninstall"]);
    // memctl created the file: it goes again (issue 32 point 4).
    assert!(!f.exists());
}

/// Without `originalFile` (older builds, `MultiEdit`), the last snapshot's copy
/// is the file before the write (SPEC v3 §7.3 PostToolUse step 2): what the write
/// broke is a block, what it did not is not reported.
#[test]
fn g10_without_original_file_the_last_snapshot_is_the_baseline() {
    let bad = "---\nname: a\ndescription: \"unclosed\ntype: user\n---\nbody\n";
    let e = seeded(&[("a.md", GOOD), ("MEMORY.md", "- [A](a.md) — a thing\n")]);
    let mut c = e.command();
    assert!(c.arg("snapshot").output().unwrap().status.success());
    fs::write(e.dir().join("a.md"), bad).unwrap();
    let post = json!({"session_id": "s1", "cwd": e.root().join("proj"), "hook_event_name": "PostToolUse",
        "tool_name": "MultiEdit", "tool_input": {"file_path": e.dir().join("a.md")}, "tool_response": {}});
    let d = call(&e, &post).doc();
    assert_eq!(d["decision"], "block", "{d}");
    assert!(d["reason"].as_str().unwrap().contains("a.md:"), "{d}");
    // Snapshotted broken (the hook's own snapshot above): a later write that
    // leaves it broken is not this write's doing.
    fs::write(e.dir().join("a.md"), format!("{bad}more\n")).unwrap();
    call(&e, &post).silent();
}

/// A turn that wrote many unindexed memories: one Stop message of at most 2 000
/// characters, the rest counted (SPEC v3 §7.3).
#[test]
fn g11_a_long_stop_list_is_cut_with_a_count() {
    let mut e = seeded(&[("MEMORY.md", "# Memory\n")]);
    for i in 0..60 {
        e = e.memory(
            &format!("project_topic{i}.md"),
            &format!(
                "---\nname: Topic {i}\ndescription: {}\ntype: user\n---\nbody\n",
                "a long description ".repeat(6)
            ),
        );
    }
    let write = session(&e, "two-step-save")
        .into_iter()
        .find(|p| p["hook_event_name"] == "PostToolUse")
        .unwrap();
    for i in 0..60 {
        let mut p = write.clone();
        p["tool_input"]["file_path"] = json!(e.dir().join(format!("project_topic{i}.md")));
        call(&e, &p).silent();
    }
    let mut stop = session(&e, "unindexed-stop")
        .into_iter()
        .find(|p| p["hook_event_name"] == "Stop")
        .unwrap();
    stop["session_id"] = write["session_id"].clone();
    let d = call(&e, &stop).doc();
    let reason = d["reason"].as_str().unwrap();
    assert!(reason.chars().count() <= 2_000, "{}", reason.chars().count());
    assert!(
        reason.starts_with("memctl: 60 memories written in this turn"),
        "{reason}"
    );
    assert!(reason.ends_with("more (run memctl lint)"), "{reason}");
}

/// `memory/sub/../a.md` is `memory/a.md` (SPEC §7.1, lexical normalisation of
/// `..`), also when `sub/` does not exist: the gate and PostToolUse judge it
/// (issue 32 point 3).
#[test]
fn g14_dotdot_through_a_missing_subdir_is_inside() {
    let bad = GOOD.replace("type: user", "type: nope");
    let e = seeded(&[("a.md", GOOD), ("MEMORY.md", "- [A](a.md) — a thing\n")]);
    assert!(!e.dir().join("sub").exists());
    let why = denied(&call(
        &e,
        &pre(
            &e,
            "Edit",
            "sub/../a.md",
            json!({"old_string": "type: user", "new_string": "type: users", "replace_all": false}),
        ),
    ));
    assert!(why.contains("a.md:4: an invalid type: type `users`"), "{why}");
    fs::write(e.dir().join("a.md"), &bad).unwrap();
    let post = json!({"session_id": "s1", "cwd": e.root().join("proj"), "hook_event_name": "PostToolUse",
        "tool_name": "Write", "tool_input": {"file_path": e.dir().join("sub/../a.md")},
        "tool_response": {"type": "update", "originalFile": GOOD}});
    let d = call(&e, &post).doc();
    assert_eq!(d["decision"], "block", "{d}");
    assert!(d["reason"].as_str().unwrap().contains("type `nope`"), "{d}");
}

/// Two unindexed memories in one turn: each suggested line names the line it
/// will really take once the one before it is added (review: both said `:2`).
#[test]
fn g15_each_suggested_index_line_names_its_own_line() {
    let mut e = seeded(&[("MEMORY.md", "# Memory\n")]);
    for i in 0..2 {
        e = e.memory(
            &format!("project_topic{i}.md"),
            &format!("---\nname: Topic {i}\ndescription: topic {i}\ntype: user\n---\nbody\n"),
        );
    }
    let write = session(&e, "two-step-save")
        .into_iter()
        .find(|p| p["hook_event_name"] == "PostToolUse")
        .unwrap();
    for i in 0..2 {
        let mut p = write.clone();
        p["tool_input"]["file_path"] = json!(e.dir().join(format!("project_topic{i}.md")));
        call(&e, &p).silent();
    }
    let mut stop = session(&e, "unindexed-stop")
        .into_iter()
        .find(|p| p["hook_event_name"] == "Stop")
        .unwrap();
    stop["session_id"] = write["session_id"].clone();
    let d = call(&e, &stop).doc();
    let reason = d["reason"].as_str().unwrap();
    assert!(reason.contains("add this line at MEMORY.md:2: - [Topic 0]"), "{reason}");
    assert!(reason.contains("add this line at MEMORY.md:3: - [Topic 1]"), "{reason}");
}

/// A new file written through a symlink to the memory dir is inside by its
/// parent's real path (SPEC §7.1 "or by real path"): the gate judges it too.
#[test]
fn g16_a_new_file_through_a_symlinked_memory_dir_is_gated() {
    let e = seeded(&[("a.md", GOOD), ("MEMORY.md", "- [A](a.md) — a thing\n")]);
    let link = e.root().join("mdlink");
    std::os::unix::fs::symlink(e.dir(), &link).unwrap();
    let mut p = pre(
        &e,
        "Write",
        "new.md",
        json!({"content": GOOD.replace("type: user", "type: nope")}),
    );
    p["tool_input"]["file_path"] = json!(link.join("new.md"));
    let why = denied(&call(&e, &p));
    assert!(why.contains("type `nope`"), "{why}");
    assert!(!e.dir().join("new.md").exists());
}
