//! `memctl index rebuild` (SPEC §10.1): every step, the budget, pins, hubs, safety.

use std::fs;
use std::path::Path;

use crate::support::*;

fn memory(ty: &str, name: &str, desc: &str) -> String {
    format!("---\nname: {name}\ndescription: {desc}\ntype: {ty}\n---\nBody of {name}.\n")
}

/// A dir of `n` memories (types cycling project/user/feedback), all indexed with
/// long lines, so the index is over 70 % of the unit cap.
fn crowded(n: usize) -> (Env, String) {
    let mut env = Env::new();
    let mut index = String::from("# Memory\n\nKeep these in mind.\n\n");
    for i in 0..n {
        let ty = ["project", "user", "feedback"][i % 3];
        let file = format!("{ty}_{i:03}.md");
        let desc = format!("note {i} {}", "words that make this line long ".repeat(4));
        env = env.memory_aged(&file, &memory(ty, &format!("Note {i}"), desc.trim()), (n - i) as f64);
        index.push_str(&format!("- [Note {i}]({file}) — {}\n", desc.trim()));
    }
    let env = env.index(&index);
    (env, index)
}

/// One run on `env`'s dir, keeping `env` for the next: (stdout, stderr, code).
fn on(env: &Env, args: &[&str]) -> (String, String, i32) {
    let out = env.command().args(args).output().expect("memctl runs");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).expect("one JSON document")
}

fn linked(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| {
            l.split_once("](")
                .map(|(_, r)| r.split(')').next().unwrap_or("").to_string())
        })
        .collect()
}

#[test]
fn rebuild_fits_the_budget_and_loses_no_memory() {
    let (env, before) = crowded(150);
    let d = env.dir();
    let (stdout, _, code) = on(&env, &["index", "rebuild", "--yes"]);
    assert_eq!(code, 0);
    assert!(
        stdout.contains("entries moved to reference_memory_index_archive.md"),
        "{stdout}"
    );
    assert!(stdout.ends_with("rebuilt MEMORY.md\n"), "{stdout}");
    let index = read(&d, "MEMORY.md");
    assert!(
        index.starts_with("# Memory\n\nKeep these in mind.\n\n"),
        "free text and headings kept"
    );
    let hub = read(&d, "reference_memory_index_archive.md");
    assert!(hub.starts_with("---\nname: memory-index-archive\n"));
    assert!(hub.contains("\nmetadata:\n  type: reference\n  memctl-hub: true\n"));
    assert!(hub.contains("memctl-hub: true\n"));
    let mut all = linked(&index);
    all.extend(linked(&hub));
    for f in linked(&before) {
        assert!(all.contains(&f), "{f} lost");
    }
    assert!(linked(&index).contains(&"reference_memory_index_archive.md".to_string()));
    // Project entries move first, oldest first.
    assert!(!linked(&hub).iter().any(|f| f.starts_with("user_")), "users move last");
    assert_eq!(on(&env, &["truncate-check"]).2, 0, "loads whole");
    let (lint, _, _) = on(&env, &["--json", "lint", "--rule", "ML203,ML122"]);
    assert_eq!(json(&lint)["findings"].as_array().unwrap().len(), 0, "{lint}");
    // A rebuild of a rebuilt index changes nothing.
    let (again, _, code) = on(&env, &["index", "rebuild", "--yes"]);
    assert_eq!(code, 0);
    assert!(again.contains("already fits 70% of Claude Code's caps"), "{again}");
    assert_eq!(read(&d, "MEMORY.md"), index);
}

#[test]
fn dry_run_prints_the_diff_and_writes_nothing() {
    let (env, before) = crowded(150);
    let d = env.dir();
    let run = env.args(["index", "rebuild", "--dry-run"]).run().success();
    assert!(
        run.stdout.starts_with("--- a/MEMORY.md\n+++ b/MEMORY.md\n"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("+++ b/reference_memory_index_archive.md\n"));
    assert_eq!(read(&d, "MEMORY.md"), before);
    assert!(!d.join("reference_memory_index_archive.md").exists());
}

#[test]
fn on_a_terminal_the_diff_comes_before_the_question() {
    let (env, before) = crowded(150);
    let d = env.dir();
    let out = crate::support::run_in_pty(&env, &["index", "rebuild"], &[("Rewrite", "n\r")]);
    let diff = out.find("+++ b/MEMORY.md").expect("the diff is shown");
    let question = out.find("Rewrite MEMORY.md?").expect("the question is asked");
    assert!(diff < question, "{out:?}");
    assert_eq!(read(&d, "MEMORY.md"), before, "answered no: nothing written");
}

#[test]
fn without_a_terminal_it_needs_yes() {
    let (env, before) = crowded(150);
    let d = env.dir();
    let _run = env.args(["index", "rebuild"]).run().code(2).stderr(
        "memctl: index rebuild rewrites MEMORY.md and needs confirmation, and there is no terminal to ask\nhint: pass --yes to rebuild without asking, or --dry-run to see the diff\n",
    );
    assert_eq!(read(&d, "MEMORY.md"), before);
}

#[test]
fn pins_stay_and_json_names_every_change() {
    let (env, _) = crowded(150);
    let d = env.dir();
    let (stdout, _, code) = on(
        &env,
        &[
            "--json",
            "index",
            "rebuild",
            "--yes",
            "--budget",
            "40%",
            "--pin",
            "project_000",
            "--pin",
            "project_003.md",
        ],
    );
    assert_eq!(code, 0, "{stdout}");
    let doc = json(&stdout);
    let keys: Vec<&str> = doc.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "index_path",
            "hub",
            "before",
            "after",
            "moved",
            "shortened",
            "dropped",
            "added",
            "diff",
            "dry_run",
            "warnings"
        ]
    );
    assert_eq!(doc["before"]["truncated"], false);
    let moved: Vec<&str> = doc["moved"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["file"].as_str().unwrap())
        .collect();
    assert!(!moved.contains(&"project_000.md") && !moved.contains(&"project_003.md"));
    assert!(moved.contains(&"project_006.md"));
    let index = read(&d, "MEMORY.md");
    assert!(index.contains("](project_000.md)") && index.contains("](project_003.md)"));
    let load = json(&on(&env, &["--json", "truncate-check"]).0);
    assert!(load["byte_count"].as_u64().unwrap() <= 10_000, "{load}");
    assert!(load["line_count"].as_u64().unwrap() <= 80);
}

#[test]
fn drops_gone_and_repeated_lines_and_adds_the_unindexed_under_their_type() {
    let env = Env::new()
        .memory("feedback_a.md", &memory("feedback", "A", "a rule"))
        .memory("user_b.md", &memory("user", "B", "who"))
        .index("## Feedback\r\n- [A](feedback_a.md) — mine\r\n- [A again](feedback_a.md) — dup\r\n- [Gone](gone.md) — x\r\n");
    let d = env.dir();
    let run = env.args(["index", "rebuild", "--yes"]).run().success();
    assert!(
        run.stderr
            .contains("MEMORY.md:3: dropped (another line links the same file)"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("MEMORY.md:4: dropped (the file it links is gone)"));
    assert_eq!(
        read(&d, "MEMORY.md"),
        "## Feedback\r\n- [A](feedback_a.md) — mine\r\n\r\n## User\r\n- [B](user_b.md) — who\r\n"
    );
}

#[test]
fn pins_and_free_text_over_the_budget_are_refused() {
    let mut index = "free text line\n".repeat(150);
    index.push_str("- [A](feedback_a.md) — a <!-- pin -->\n");
    let env = Env::new()
        .memory("feedback_a.md", &memory("feedback", "A", "a"))
        .index(&index);
    let d = env.dir();
    let run = env.args(["index", "rebuild", "--yes"]).run().code(1);
    let want = "memctl: the pinned entries (feedback_a.md) and the free text alone need 151 lines and ";
    assert!(run.stderr.starts_with(want), "{}", run.stderr);
    assert!(
        run.stderr.contains("over the budget of 140 lines and 17"),
        "{}",
        run.stderr
    );
    assert_eq!(read(&d, "MEMORY.md"), index);
}

#[test]
fn an_existing_hub_is_merged_into_and_keeps_its_frontmatter() {
    let (env, _) = crowded(150);
    let hub = "---\nname: My archive\ndescription: kept by hand\ntype: reference\nmemctl-hub: true\n---\n- [Old](reference_old.md) — old\n";
    let env = env
        .memory("reference_memory_index_archive.md", hub)
        .memory("reference_old.md", &memory("reference", "Old", "old"));
    let d = env.dir();
    let _run = env.args(["index", "rebuild", "--yes"]).run().success();
    let after = read(&d, "reference_memory_index_archive.md");
    assert!(after.starts_with(hub), "{after}");
    assert!(after.len() > hub.len());
}

#[test]
fn team_rebuilds_the_team_index() {
    let mut env = Env::new();
    let mut index = String::new();
    for i in 0..150 {
        let file = format!("project_{i:03}.md");
        let desc = format!("team note {i} {}", "long words for the line ".repeat(5));
        env = env.memory(
            &format!("team/{file}"),
            &memory("project", &format!("T{i}"), desc.trim()),
        );
        index.push_str(&format!("- [T{i}]({file}) — {}\n", desc.trim()));
    }
    let env = env.file("team/MEMORY.md", index.as_bytes()).index("- [X](x.md) — x\n");
    let d = env.dir();
    let _run = env.args(["--team", "index", "rebuild", "--yes"]).run().success();
    assert!(d.join("team/reference_memory_index_archive.md").is_file());
    assert_eq!(
        read(&d, "MEMORY.md"),
        "- [X](x.md) — x\n",
        "the main index is not touched"
    );
    assert!(read(&d, "team/MEMORY.md").contains("](reference_memory_index_archive.md)"));
}

#[allow(dead_code)]
fn exists(d: &Path, rel: &str) -> bool {
    fs::symlink_metadata(d.join(rel)).is_ok()
}

#[test]
fn a_dropped_line_names_the_snapshot_that_still_has_its_file() {
    let env = Env::new()
        .memory("feedback_a.md", &memory("feedback", "A", "a rule"))
        .memory("feedback_b.md", &memory("feedback", "B", "b rule"))
        .index("- [A](feedback_a.md) — a\n- [B](feedback_b.md) — b\n");
    let d = env.dir();
    assert_eq!(on(&env, &["snapshot"]).2, 0);
    // Deleted by hand (not by forget): the index still links it.
    fs::remove_file(d.join("feedback_b.md")).unwrap();
    let (out, err, code) = on(&env, &["--json", "index", "rebuild", "--yes"]);
    assert_eq!(code, 0, "{err}");
    let doc = json(&out);
    let id = doc["dropped"][0]["snapshot"].as_str().unwrap().to_string();
    assert_eq!(id.len(), 8);
    assert!(
        doc["warnings"][0]
            .as_str()
            .unwrap()
            .ends_with(&format!("memctl restore feedback_b.md --at {id}")),
        "{doc}"
    );
    let (_, err, code) = on(&env, &["restore", "feedback_b.md", "--at", &id]);
    assert_eq!(code, 0, "{err}");
    assert!(d.join("feedback_b.md").is_file());
}

/// How many lines of the index and of the hub link `file`.
fn links_to(env: &Env, file: &str) -> usize {
    let d = env.dir();
    ["MEMORY.md", "reference_memory_index_archive.md"]
        .iter()
        .map(|f| {
            linked(&fs::read_to_string(d.join(f)).unwrap_or_default())
                .iter()
                .filter(|l| *l == file)
                .count()
        })
        .sum()
}

/// A dir whose index was rebuilt into a hub: `project_a.md` and `project_b.md`
/// are linked only from the hub.
fn rebuilt_into_a_hub() -> Env {
    let mut env = Env::new();
    let mut index = String::from("# Index\n");
    for (i, x) in ["a", "b", "c", "d"].iter().enumerate() {
        let file = format!("project_{x}.md");
        env = env.memory_aged(
            &file,
            &memory("project", x, &format!("memory {x} with a description long enough")),
            (10 - i) as f64,
        );
        index.push_str(&format!("- [{x}]({file}) — {x}\n"));
    }
    let env = env.index(&index);
    let (_, err, code) = on(&env, &["index", "rebuild", "--yes", "--budget", "2"]);
    assert_eq!(code, 0, "{err}");
    let hub = fs::read_to_string(env.dir().join("reference_memory_index_archive.md")).unwrap();
    assert_eq!(linked(&hub), ["project_a.md", "project_b.md"], "{hub}");
    assert_eq!(links_to(&env, "project_a.md"), 1);
    env
}

/// Issue 29 point 15: `forget` of a memory linked only from a hub removes the hub
/// line too (and says so); a later `restore` links it exactly once.
#[test]
fn forget_of_a_memory_linked_from_a_hub_removes_the_hub_line_and_restore_links_it_once() {
    let env = rebuilt_into_a_hub();
    let (out, err, code) = on(&env, &["forget", "--yes", "--json", "project_a"]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("still linked"), "{err}");
    let doc = json(&out);
    let removed = &doc["forgotten"][0]["removed_index_lines"];
    assert_eq!(removed[0]["index"], "reference_memory_index_archive.md", "{doc}");
    assert_eq!(removed[0]["line"], 8, "{doc}");
    assert_eq!(links_to(&env, "project_a.md"), 0, "a dangling hub line is left");
    assert_eq!(links_to(&env, "project_b.md"), 1, "the other hub entry stays");
    let (_, err, code) = on(&env, &["restore", "project_a.md"]);
    assert_eq!(code, 0, "{err}");
    assert!(env.dir().join("project_a.md").exists());
    assert_eq!(links_to(&env, "project_a.md"), 1, "restore links it exactly once");
}

/// Issue 29 point 15: a hub line whose file is gone (removed by hand, or by a
/// forget of an earlier version) is dropped by `index rebuild`, and named.
#[test]
fn rebuild_drops_a_dangling_hub_line() {
    let env = rebuilt_into_a_hub();
    fs::remove_file(env.dir().join("project_a.md")).unwrap();
    let (out, err, code) = on(&env, &["index", "rebuild", "--yes", "--json"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(links_to(&env, "project_a.md"), 0, "the dangling hub line is kept");
    assert_eq!(links_to(&env, "project_b.md"), 1);
    let doc = json(&out);
    let dropped = doc["dropped"].as_array().unwrap();
    assert_eq!(dropped.len(), 1, "{doc}");
    assert_eq!(dropped[0]["hub"], "reference_memory_index_archive.md");
    assert_eq!(dropped[0]["line"], 8);
    assert_eq!(dropped[0]["reason"], "the file it links is gone");
    assert!(
        doc["warnings"]
            .to_string()
            .contains("reference_memory_index_archive.md:8: dropped (the file it links is gone)"),
        "{doc}"
    );
    // Nothing left to do: a rebuild of the rebuilt index changes nothing.
    let (out, err, code) = on(&env, &["index", "rebuild", "--yes"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("nothing to do"), "{out}\n{err}");
}

/// Issue 32 point 9: with a team store, a line of the main `MEMORY.md` that links
/// a `team/` memory is loaded by Claude Code (`list` says so): a rebuild keeps
/// it, never drops it as "the file it links is gone".
#[test]
fn rebuild_keeps_main_index_lines_that_link_team_memories() {
    let index = "# Memory\n- [Team fact](team/project_t.md) — shared\n- [Gone](gone.md) — x\n";
    let env = Env::new()
        .memory("team/project_t.md", &memory("project", "T", "team fact"))
        .memory("team/MEMORY.md", "- [T](project_t.md) — team fact\n")
        .index(index)
        .env("CLAUDE_MEMORY_STORES", r#"["/org/acme"]"#);
    let d = env.dir();
    let (stdout, stderr, code) = on(&env, &["--json", "index", "rebuild", "--yes"]);
    assert_eq!(code, 0, "{stderr}");
    let doc = json(&stdout);
    let dropped: Vec<&str> = doc["dropped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["text"].as_str().unwrap())
        .collect();
    assert_eq!(dropped, ["- [Gone](gone.md) — x"], "{stdout}");
    assert_eq!(
        read(&d, "MEMORY.md"),
        "# Memory\n- [Team fact](team/project_t.md) — shared\n"
    );
    assert!(!stderr.contains("team/project_t.md"), "{stderr}");
}

/// Issue 32 point 11: `--hub` naming an ordinary memory is refused before
/// anything is written, with a hint about --hub (not about `add`'s --file/--name).
#[test]
fn hub_naming_an_ordinary_memory_is_refused_with_a_hint_about_hub() {
    let (env, before) = crowded(150);
    let env = env.memory("notes.md", &memory("reference", "Notes", "my notes"));
    let d = env.dir();
    let (stdout, stderr, code) = on(&env, &["index", "rebuild", "--hub", "notes.md", "--yes"]);
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(
        stderr.contains("memctl: not a hub, but the rebuild would write its entries there: ")
            && stderr.contains("notes.md\nhint: notes.md is not a hub (no `memctl-hub: true` in its frontmatter); pass --hub with a new file name"),
        "{stderr}"
    );
    assert!(!stderr.contains("--name"), "{stderr}");
    assert_eq!(read(&d, "MEMORY.md"), before, "nothing written");
    assert_eq!(read(&d, "notes.md"), memory("reference", "Notes", "my notes"));
}

/// A hub made with `--hub NAME` keeps its name and its link when a later rebuild
/// uses another `--hub` (or the default): nothing is unlinked, no link points at a
/// hub that does not exist (SPEC §10.1: no memory is ever unlinked).
#[test]
fn a_later_rebuild_with_another_hub_name_keeps_the_first_hub_linked() {
    let (env, _) = crowded(150);
    let d = env.dir();
    let (_, err, code) = on(
        &env,
        &["index", "rebuild", "--budget", "20", "--hub", "archive.md", "--yes"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(d.join("archive.md").is_file());
    for args in [
        &["index", "rebuild", "--budget", "10", "--yes"][..],
        &["index", "rebuild", "--budget", "5", "--hub", "hub2.md", "--yes"][..],
    ] {
        let (_, err, code) = on(&env, args);
        assert_eq!(code, 0, "{args:?}: {err}");
        let index = read(&d, "MEMORY.md");
        let links = linked(&index);
        assert!(
            links.iter().any(|l| l == "archive.md"),
            "{args:?}: the first hub stays linked:\n{index}"
        );
        for l in &links {
            assert!(
                d.join(l).is_file(),
                "{args:?}: {l} is linked but does not exist:\n{index}"
            );
        }
        let (out, _, _) = on(&env, &["lint", "--format", "json"]);
        let doc = json(&out);
        let bad: Vec<&serde_json::Value> = doc["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["rule"] == "ML201" || f["rule"] == "ML203")
            .collect();
        assert!(bad.is_empty(), "{args:?}: {bad:?}\n{index}");
    }
}
