//! `--all-projects` on `list`, `lint`, `truncate-check` and `search` (SPEC §9): a
//! fake home with two projects, one clean and one whose index Claude Code cuts and
//! links a missing file.

use std::fs;
use std::path::{Path, PathBuf};

use memctl::paths::sanitize::sanitize;
use serde_json::Value;

use crate::support::{Env, write_aged};

fn key(p: &Path) -> String {
    sanitize(&p.to_string_lossy()).key
}

/// A transcript whose first line names `cwd`, so each row has its project path.
fn transcript(home: &Path, cwd: &Path) {
    let p = home
        .join(".claude/projects")
        .join(key(cwd))
        .join("11111111-1111-1111-1111-111111111111.jsonl");
    let line = format!("{{\"cwd\":{:?}}}\n", cwd.display().to_string());
    write_aged(&p, line.as_bytes(), 1.0);
}

struct Home {
    env: Env,
    alpha: PathBuf,
    beta: PathBuf,
}

/// `src/alpha`: two clean memories (the newer dir). `src/beta`: one memory about
/// deploys, an index of 210 lines (cut) whose first line links a missing file.
fn home() -> Home {
    let env = Env::new().resolved();
    let home = env.home();
    let projects = home.join(".claude/projects");
    let alpha = home.join("src/alpha");
    let beta = home.join("src/beta");
    for p in [&alpha, &beta] {
        fs::create_dir_all(p).unwrap();
        transcript(&home, p);
    }
    let a = projects.join(key(&alpha)).join("memory");
    for n in ["alpha_one", "alpha_two"] {
        let text = format!("---\nname: {n}\ndescription: about {n}\ntype: project\n---\nAlpha body.\n");
        write_aged(&a.join(format!("{n}.md")), text.as_bytes(), 2.0);
    }
    write_aged(
        &a.join("MEMORY.md"),
        b"- [alpha_one](alpha_one.md) \xe2\x80\x94 about alpha_one\n- [alpha_two](alpha_two.md) \xe2\x80\x94 about alpha_two\n",
        2.0,
    );
    let b = projects.join(key(&beta)).join("memory");
    let text = "---\nname: beta_deploy\ndescription: how deploys run\ntype: feedback\n---\nDeploy freeze on Fridays.\n";
    write_aged(&b.join("beta_deploy.md"), text.as_bytes(), 30.0);
    let mut index = String::from("- [gone](gone.md) — a file that is not there\n");
    index.push_str("- [beta_deploy](beta_deploy.md) — how deploys run\n");
    for i in 0..208 {
        index.push_str(&format!("note {i}\n"));
    }
    write_aged(&b.join("MEMORY.md"), index.as_bytes(), 30.0);
    Home { env, alpha, beta }
}

fn run(env: &Env, args: &[&str]) -> (String, String, i32) {
    let out = env.command().args(args).output().unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

fn json(env: &Env, args: &[&str]) -> (Value, i32) {
    let (stdout, stderr, code) = run(env, args);
    let doc = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}\n{stderr}"));
    (doc, code)
}

/// The `project.project_path` of each document under `projects`, in order.
fn order(doc: &Value) -> Vec<String> {
    doc["projects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["project"]["project_path"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn lint_groups_by_project_and_fails_when_one_has_findings() {
    let h = home();
    let (alpha, beta) = (h.alpha.display().to_string(), h.beta.display().to_string());
    let (text, _, code) = run(&h.env, &["lint", "--all-projects"]);
    assert_eq!(code, 1, "{text}");
    let headers: Vec<&str> = text.lines().filter(|l| l.starts_with("== ")).collect();
    assert_eq!(
        headers,
        [
            format!("== {alpha}  ({})", key(&h.alpha)),
            format!("== {beta}  ({})", key(&h.beta))
        ]
    );
    // beta's finding sits under beta's header, not alpha's.
    let at = text.find(&format!("== {beta}")).unwrap();
    assert!(!text[..at].contains("gone.md"), "{text}");
    assert!(text[at..].contains("gone.md"), "{text}");

    let (doc, code) = json(&h.env, &["lint", "--all-projects", "--json"]);
    assert_eq!(code, 1);
    assert_eq!(order(&doc), [alpha.clone(), beta.clone()]);
    let docs = doc["projects"].as_array().unwrap();
    let errors = |d: &Value| {
        d["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["severity"] == "error")
            .count()
    };
    assert_eq!(errors(&docs[0]), 0, "{doc:#}");
    assert!(
        docs[1]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["id"] == "ML201"),
        "{doc:#}"
    );
    assert_eq!(docs[1]["project"]["key"], key(&h.beta));
    assert_eq!(docs[1]["project"]["project_path_source"], "transcript");
    assert!(doc["warnings"].is_array());

    // Only alpha: clean, exit 0.
    fs::remove_dir_all(h.env.home().join(".claude/projects").join(key(&h.beta))).unwrap();
    let (_, _, code) = run(&h.env, &["lint", "--all-projects"]);
    assert_eq!(code, 0);
}

#[test]
fn lint_sarif_and_github_are_one_document_naming_each_project() {
    let h = home();
    let (sarif, _, code) = run(&h.env, &["lint", "--all-projects", "--format", "sarif"]);
    assert_eq!(code, 1);
    let doc: Value = serde_json::from_str(&sarif).expect("one SARIF document");
    let runs = doc["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1);
    let uris: Vec<String> = runs[0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].as_str())
        .map(String::from)
        .collect();
    assert!(uris.iter().any(|u| u.contains(&key(&h.beta))), "{uris:?}");

    let (stream, _, code) = run(&h.env, &["lint", "--all-projects", "--format", "github"]);
    assert_eq!(code, 1);
    assert!(!stream.contains("== "), "{stream}");
    let beta_line = stream.lines().find(|l| l.contains("ML201")).unwrap();
    assert!(beta_line.contains(&key(&h.beta)), "{beta_line}");
}

#[test]
fn list_and_truncate_check_run_on_every_project() {
    let h = home();
    let (doc, code) = json(&h.env, &["list", "--all-projects", "--json"]);
    assert_eq!(code, 0);
    assert_eq!(
        order(&doc),
        [h.alpha.display().to_string(), h.beta.display().to_string()]
    );
    let files = |d: &Value| -> Vec<String> {
        d["entries"]
            .as_array()
            .unwrap_or_else(|| panic!("{d:#}"))
            .iter()
            .map(|e| e["file"].as_str().unwrap().to_string())
            .collect()
    };
    let mut alpha_files = files(&doc["projects"][0]);
    alpha_files.sort();
    assert_eq!(alpha_files, ["alpha_one.md", "alpha_two.md"]);
    assert_eq!(files(&doc["projects"][1]), ["beta_deploy.md"]);

    let (text, _, code) = run(&h.env, &["list", "--all-projects", "--format", "paths"]);
    assert_eq!(code, 0);
    assert_eq!(text.lines().filter(|l| l.starts_with("== ")).count(), 2, "{text}");
    assert_eq!(text.lines().filter(|l| l.ends_with(".md")).count(), 3, "{text}");

    // beta's index is cut at 200 lines: exit 1, and its document says so.
    let (doc, code) = json(&h.env, &["truncate-check", "--all-projects", "--json"]);
    assert_eq!(code, 1);
    let docs = doc["projects"].as_array().unwrap();
    assert_eq!(docs[0]["truncated"], false, "{doc:#}");
    assert_eq!(docs[1]["truncated"], true, "{doc:#}");
}

#[test]
fn search_ranks_across_projects_and_labels_their_files() {
    let h = home();
    let (doc, code) = json(&h.env, &["search", "--all-projects", "--json", "deploy"]);
    assert_eq!(code, 0);
    let results = doc["results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "{doc:#}");
    assert_eq!(results[0]["file"], "beta_deploy.md");
    assert!(results[0]["memory_dir"].as_str().unwrap().contains(&key(&h.beta)));
    let (doc, _) = json(&h.env, &["search", "--all-projects", "--json", "about"]);
    assert_eq!(doc["results"].as_array().unwrap().len(), 2, "{doc:#}");
    // Without --all-projects, from outside any project: nothing found there.
    let (_, _, code) = run(&h.env, &["--project", h.alpha.to_str().unwrap(), "search", "deploy"]);
    assert_eq!(code, 1);
}

#[test]
fn all_projects_with_one_dir_named_is_a_usage_error_naming_both() {
    // issue 32, SPEC §3.14: `--all-projects` with `--dir`, `MEMCTL_DIR` or `--project`.
    let h = home();
    let dir = h.env.root().join("mem");
    let alpha = h.alpha.to_string_lossy().into_owned();
    let cases: [(&[&str], Option<&Path>, &str); 5] = [
        (
            &["--dir", dir.to_str().unwrap(), "list", "--all-projects"],
            None,
            "--dir",
        ),
        (&["lint", "--all-projects"], Some(&dir), "MEMCTL_DIR"),
        (
            &["--project", &alpha, "search", "--all-projects", "deploy"],
            None,
            "--project",
        ),
        (&["truncate-check", "--all-projects"], Some(&dir), "MEMCTL_DIR"),
        (
            &["export", "--all-projects", "-o", "b.tar.gz"],
            Some(&dir),
            "MEMCTL_DIR",
        ),
    ];
    for (args, memctl_dir, what) in cases {
        let mut cmd = h.env.command();
        if let Some(d) = memctl_dir {
            cmd.env("MEMCTL_DIR", d);
        }
        let out = cmd.args(args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.starts_with(&format!(
                "memctl: --all-projects cannot be combined with {what}: {what} names one memory dir\nhint: "
            )),
            "{args:?}: {stderr}"
        );
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn all_projects_with_team_uses_each_team_dir_and_counts_the_others() {
    // issue 32, SPEC §3.14: `--team --all-projects` works on each project's team dir.
    let h = home();
    let team = h
        .env
        .home()
        .join(".claude/projects")
        .join(key(&h.alpha))
        .join("memory/team");
    let text = "---\nname: team_rule\ndescription: the team's rule\ntype: feedback\n---\nReview every PR.\n";
    write_aged(&team.join("team_rule.md"), text.as_bytes(), 1.0);
    write_aged(
        &team.join("MEMORY.md"),
        "- [team_rule](team_rule.md) — the team's rule\n".as_bytes(),
        1.0,
    );
    let (stdout, stderr, code) = run(&h.env, &["--team", "--json", "list", "--all-projects"]);
    assert_eq!(code, 0, "{stderr}");
    let doc: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(order(&doc), [h.alpha.display().to_string()]);
    assert!(stdout.contains("team_rule.md"), "{stdout}");
    assert!(!stdout.contains("alpha_one.md"), "{stdout}");
    assert_eq!(
        doc["warnings"],
        serde_json::json!(["--team: 1 project without a team dir skipped"])
    );
    let (stdout, _, code) = run(&h.env, &["--team", "search", "--all-projects", "review"]);
    assert_eq!(code, 0);
    assert!(stdout.contains("team_rule.md"), "{stdout}");
}

#[test]
fn lint_fix_runs_on_every_project() {
    // issue 32, SPEC §3.14: `lint --fix --all-projects` is an option, not a refusal.
    let h = home();
    let alpha = h.env.home().join(".claude/projects").join(key(&h.alpha)).join("memory");
    let text = "---\nname: alpha_three\ndescription: about alpha_three\ntype: project\n---\nAlpha body.\n";
    write_aged(&alpha.join("alpha_three.md"), text.as_bytes(), 2.0);
    let (stdout, stderr, code) = run(&h.env, &["lint", "--fix", "--all-projects"]);
    assert_ne!(code, 2, "{stdout}{stderr}");
    assert!(stdout.contains(&format!("== {}", h.beta.display())), "{stdout}");
    assert!(
        fs::read_to_string(alpha.join("MEMORY.md"))
            .unwrap()
            .contains("(alpha_three.md)"),
        "{stdout}{stderr}"
    );
}

/// SPEC §3.14: `snapshot` takes `--all-projects` like the other commands: one
/// snapshot per project (a baseline the first time, nothing new the second), and
/// with `--dir` it is a usage error naming both.
#[test]
fn snapshot_runs_on_every_project() {
    let h = home();
    let (doc, code) = json(&h.env, &["snapshot", "--all-projects", "--json"]);
    assert_eq!(code, 0, "{doc:#}");
    assert_eq!(
        order(&doc),
        [h.alpha.display().to_string(), h.beta.display().to_string()]
    );
    for d in doc["projects"].as_array().unwrap() {
        assert_eq!(d["trigger"], "baseline", "{d:#}");
    }
    let (doc, code) = json(&h.env, &["snapshot", "--all-projects", "--json"]);
    assert_eq!(code, 0);
    for d in doc["projects"].as_array().unwrap() {
        assert_eq!(d["id"], Value::Null, "nothing changed: {d:#}");
    }
    let dir = h.alpha.display().to_string();
    let (_, err, code) = run(&h.env, &["--dir", &dir, "snapshot", "--all-projects"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--all-projects cannot be combined with --dir"), "{err}");
}
