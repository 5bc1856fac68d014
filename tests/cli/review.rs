//! `memctl review` (SPEC §12): each proposal kind on a fixture made for it and quiet
//! on its twin, applying and undoing, and CLAUDE files in odd shapes.

use std::fs;

use crate::support::{Env, Run};

fn memory(ty: &str, name: &str, desc: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: {desc}\ntype: {ty}\n---\n\n{body}\n")
}

/// An Env whose project is `<root>/proj` (with `--project`).
fn project() -> Env {
    let env = Env::new();
    fs::create_dir_all(env.root().join("proj")).unwrap();
    let p = env.root().join("proj");
    env.arg("--project").arg(p)
}

fn review(env: Env, extra: &[&str]) -> Run {
    env.arg("review").args(extra.iter().copied()).run()
}

/// Run memctl again on the dir and project of an Env that is still alive at `root`.
fn again(root: &std::path::Path, args: &[&str]) -> std::process::Output {
    let other = Env::new();
    let mut c = other.command();
    c.env("MEMCTL_DIR", root.join("mem"))
        .env("HOME", root.join("home"))
        .env("CLAUDE_CONFIG_DIR", root.join("home/.claude"))
        .env("XDG_STATE_HOME", root.join("state"))
        .current_dir(root);
    c.arg("--project").arg(root.join("proj")).args(args);
    c.output().unwrap()
}

fn kinds(run: &Run) -> Vec<(String, String)> {
    run.json()["proposals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["kind"].as_str().unwrap().to_string(),
                p["memory"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
}

const TDD: &str = "Write the failing test first, then the code.\n\n**Why:** regressions slipped through twice.";

#[test]
fn needs_a_project_under_dir() {
    let run = Env::new().args(["review"]).run().code(2);
    run.stderr_has("memctl: review needs a project");
}

#[test]
fn promote_fires_on_a_convention_and_stays_quiet_on_a_project_fact() {
    let run = review(
        project().memory("tdd.md", &memory("feedback", "tdd", "tests first", TDD)),
        &["--json"],
    )
    .success();
    assert_eq!(kinds(&run), pairs(&[("promote", "tdd.md")]));
    let p = &run.json()["proposals"][0];
    assert_eq!(p["target"], "CLAUDE.md");
    assert_eq!(p["evidence"][0]["line"], 7);
    let twin = review(
        project().memory(
            "parser.md",
            &memory(
                "project",
                "parser",
                "where the parser is",
                "The parser lives in src/yaml.",
            ),
        ),
        &["--json"],
    )
    .success();
    assert_eq!(kinds(&twin), pairs(&[]));
}

#[test]
fn user_memories_go_to_claude_local_and_editor_preferences_nowhere() {
    let run = review(
        project()
            .memory("me.md", &memory("user", "me", "background", "Senior Go developer."))
            .memory(
                "vim.md",
                &memory("feedback", "vim", "editor", "The user edits in Neovim."),
            ),
        &["--json"],
    )
    .success();
    assert_eq!(kinds(&run), pairs(&[("promote", "me.md")]));
    assert_eq!(run.json()["proposals"][0]["target"], "CLAUDE.local.md");
}

#[test]
fn branch_practices_are_ambiguous_and_need_a_target() {
    let env = project().memory(
        "pr.md",
        &memory("feedback", "prs", "how to open PRs", "Open every PR as a draft first."),
    );
    let run = review(env, &["--json"]).success();
    assert_eq!(kinds(&run), pairs(&[("ambiguous", "pr.md")]));
    assert!(run.json()["proposals"][0]["target"].is_null());
    let env = project().memory(
        "pr.md",
        &memory("feedback", "prs", "how to open PRs", "Open every PR as a draft first."),
    );
    let run = review(env, &["--apply", "1", "--yes"]).code(2);
    run.stderr_has("has no default target");
}

#[test]
fn a_promotion_to_team_places_its_line_by_type_and_a_fifo_index_is_refused() {
    let pr = memory("feedback", "prs", "how to open PRs", "Open every PR as a draft first.");
    let index = "# Team\n\n## Feedback\n- [Fmt](fmt.md) — format first\n\n## Reference\n- [Ports](ports.md) — ports\n";
    let fmt = memory(
        "feedback",
        "fmt",
        "format first",
        "Run the formatter before committing.",
    );
    let env = project()
        .memory("pr.md", &pr)
        .memory("team/fmt.md", &fmt)
        .memory("team/MEMORY.md", index);
    let d = env.dir();
    let _run = review(env, &["--apply", "1=team", "--yes"]).success();
    assert_eq!(fs::read_to_string(d.join("team/pr.md")).unwrap(), pr);
    assert_eq!(
        fs::read_to_string(d.join("team/MEMORY.md")).unwrap(),
        "# Team\n\n## Feedback\n- [Fmt](fmt.md) — format first\n- [prs](pr.md) — how to open PRs\n\n## Reference\n- [Ports](ports.md) — ports\n",
        "under its type's heading (SPEC §10.2), not appended"
    );
    assert!(!d.join("pr.md").exists(), "forgotten from the private dir");

    // A FIFO for team/MEMORY.md: refused, not waited on, nothing written.
    let env = project().memory("pr.md", &pr).memory("team/fmt.md", &fmt);
    let d = env.dir();
    let fifo = d.join("team/MEMORY.md");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let run = review(env, &["--apply", "1=team", "--yes"]).code(2);
    run.stderr_has("team/MEMORY.md");
    assert!(d.join("pr.md").exists());
    assert!(!d.join("team/pr.md").exists());
}

#[test]
fn remove_fires_on_what_claude_md_says_and_not_on_its_twin() {
    let mem = memory("feedback", "tests", "tests", "Run the unit tests before every commit.");
    let run = review(
        project()
            .file(
                "proj/CLAUDE.md",
                b"# Rules\n\n- Run the unit tests before every commit\n",
            )
            .memory("t.md", &mem),
        &["--json"],
    )
    .success();
    assert_eq!(kinds(&run), pairs(&[("remove", "t.md")]));
    let p = &run.json()["proposals"][0];
    assert_eq!(p["evidence"][1]["file"], "CLAUDE.md");
    assert_eq!(p["evidence"][1]["line"], 3);
    assert_eq!(p["score"], 1.0);
    let twin = review(
        project()
            .file("proj/CLAUDE.md", b"# Rules\n\n- Deploys happen on Fridays only\n")
            .memory("t.md", &mem),
        &["--json"],
    )
    .success();
    assert_eq!(kinds(&twin), pairs(&[("promote", "t.md")]));
}

#[test]
fn update_fires_when_the_commands_differ() {
    let claude = b"- Run `npm test` before pushing to main\n";
    let run = review(
        project().file("proj/CLAUDE.md", claude).memory(
            "b.md",
            &memory("feedback", "bun", "tests", "Run `bun test` before pushing changes."),
        ),
        &["--json"],
    )
    .success();
    assert_eq!(kinds(&run), pairs(&[("update", "b.md")]));
    let reason = run.json()["proposals"][0]["reason"].as_str().unwrap().to_string();
    assert!(
        reason.contains("`bun`") && reason.contains("`npm`") && reason.contains("≥ 0.50"),
        "{reason}"
    );
    let twin = review(
        project().file("proj/CLAUDE.md", claude).memory(
            "b.md",
            &memory(
                "feedback",
                "npm",
                "tests",
                "Run `npm test` before pushing changes upstream to GitHub.",
            ),
        ),
        &["--json"],
    )
    .success();
    // The same command: the line says it.
    assert_eq!(kinds(&twin), pairs(&[("remove", "b.md")]));
}

#[test]
fn merge_and_its_twin() {
    let run = review(
        project()
            .memory_aged(
                "a.md",
                &memory("reference", "deploy notes", "how deploys run", "Old."),
                48.0,
            )
            .memory("b.md", &memory("reference", "deploy notes", "deploys", "New.")),
        &["--json"],
    )
    .success();
    assert_eq!(kinds(&run), pairs(&[("merge", "a.md")]));
    assert_eq!(run.json()["proposals"][0]["target"], "b.md");
    let text = review(
        project()
            .memory_aged(
                "a.md",
                &memory("reference", "deploy notes", "how deploys run", "Old."),
                48.0,
            )
            .memory("b.md", &memory("reference", "deploy notes", "deploys", "New.")),
        &[],
    )
    .success();
    assert!(text.stdout.contains("1. merge a.md into b.md\n"), "{}", text.stdout);
    let twin = review(
        project()
            .memory("a.md", &memory("reference", "deploy notes", "how deploys run", "Old."))
            .memory("b.md", &memory("reference", "grafana", "dashboards", "New.")),
        &["--json"],
    )
    .success();
    assert_eq!(kinds(&twin), pairs(&[]));
}

#[test]
fn conflict_between_private_feedback_and_team() {
    let team = memory(
        "feedback",
        "fmt",
        "formatting",
        "Format Python code with `ruff` before review.",
    );
    let run = review(
        project().memory("team/fmt.md", &team).memory(
            "mine.md",
            &memory(
                "feedback",
                "fmt",
                "formatting",
                "Format Python code with `black` before review.",
            ),
        ),
        &["--json"],
    )
    .success();
    assert!(
        kinds(&run).contains(&("conflict".to_string(), "mine.md".to_string())),
        "{:?}",
        kinds(&run)
    );
    let twin = review(
        project().memory("team/fmt.md", &team).memory(
            "mine.md",
            &memory(
                "feedback",
                "fmt",
                "formatting",
                "Format Python code with `ruff` before a review.",
            ),
        ),
        &["--json"],
    )
    .success();
    assert!(!kinds(&twin).iter().any(|k| k.0 == "conflict"), "{:?}", kinds(&twin));
}

#[test]
fn apply_without_a_terminal_needs_yes_and_writes_nothing() {
    let env = project().memory("tdd.md", &memory("feedback", "tdd", "tests first", TDD));
    let dir = env.dir();
    let root = env.root();
    let run = review(env, &["--apply", "1"]).code(2);
    run.stderr_has("pass --yes");
    assert!(dir.join("tdd.md").exists());
    assert!(!root.join("proj/CLAUDE.md").exists());
}

#[test]
fn promote_apply_and_undo_round_trip_with_crlf_bom_and_no_final_newline() {
    let original: &[u8] = b"\xef\xbb\xbf# Project\r\n\r\nUse the make targets.";
    let env = project()
        .file("proj/CLAUDE.md", original)
        .memory("tdd.md", &memory("feedback", "tdd", "tests first", TDD));
    let dir = env.dir();
    let root = env.root();
    let _keep = env;
    let cmd = |args: &[&str]| again(&root, args);
    assert!(cmd(&["snapshot"]).status.success());
    let out = cmd(&["review", "--apply", "1", "--yes", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["applied"][0]["kind"], "promote");
    assert_eq!(
        doc["applied"][0]["files_changed"],
        serde_json::json!(["CLAUDE.md", "tdd.md"])
    );
    let after = fs::read(root.join("proj/CLAUDE.md")).unwrap();
    assert_eq!(
        String::from_utf8_lossy(&after),
        "\u{feff}# Project\r\n\r\nUse the make targets.\r\n\r\n## From memory\r\n\r\n- Write the failing test first, then the code.\r\n  **Why:** regressions slipped through twice.\r\n"
    );
    assert!(!dir.join("tdd.md").exists());
    let out = cmd(&["undo", "--yes"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(fs::read(root.join("proj/CLAUDE.md")).unwrap(), original);
    assert!(dir.join("tdd.md").exists());
}

#[test]
fn missing_claude_md_is_created_and_undo_removes_it() {
    let env = project().memory("tdd.md", &memory("feedback", "tdd", "tests first", TDD));
    let dir = env.dir();
    let root = env.root();
    let run = review(env, &["--apply", "1", "--yes"]).success();
    assert!(run.stdout.contains("+## From memory"), "{}", run.stdout);
    assert_eq!(
        fs::read_to_string(root.join("proj/CLAUDE.md")).unwrap(),
        "## From memory\n\n- Write the failing test first, then the code.\n  **Why:** regressions slipped through twice.\n"
    );
    let out = again(&root, &["undo", "--yes"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!root.join("proj/CLAUDE.md").exists());
    assert!(dir.join("tdd.md").exists());
}

#[test]
fn claude_md_symlink_into_the_project_is_followed_and_one_outside_refused() {
    let env = project()
        .file("proj/docs/rules.md", b"- Run the unit tests before every commit\n")
        .memory(
            "t.md",
            &memory("feedback", "tests", "tests", "Run the unit tests before every commit."),
        );
    std::os::unix::fs::symlink("docs/rules.md", env.root().join("proj/CLAUDE.md")).unwrap();
    let run = review(env, &["--json"]).success();
    assert_eq!(kinds(&run), pairs(&[("remove", "t.md")]));
    let env = project()
        .file("outside.md", b"- x\n")
        .memory("t.md", &memory("feedback", "tests", "tests", "Run the tests."));
    std::os::unix::fs::symlink(env.root().join("outside.md"), env.root().join("proj/CLAUDE.md")).unwrap();
    let run = review(env, &[]).code(2);
    run.stderr_has("leaves the project");
}

#[test]
fn remove_apply_forgets_and_an_update_is_not_applied_with_other_kinds() {
    let env = project()
        .file(
            "proj/CLAUDE.md",
            b"- Run the unit tests before every commit\n- Run `npm test` before pushing to main\n",
        )
        .memory(
            "t.md",
            &memory("feedback", "tests", "tests", "Run the unit tests before every commit."),
        )
        .memory(
            "u.md",
            &memory("feedback", "bun", "tests", "Run `bun test` before pushing changes."),
        );
    let dir = env.dir();
    let run = review(env, &["--apply", "1,2", "--yes", "--json"]).success();
    let doc = run.json();
    assert_eq!(doc["applied"][0]["kind"], "remove");
    assert_eq!(doc["skipped"][0]["kind"], "update");
    assert!(!dir.join("t.md").exists());
    assert!(dir.join("u.md").exists());
}

#[test]
fn a_dot_claude_dir_leaving_the_project_is_refused_before_anything_is_shown() {
    let env = project()
        .file("elsewhere/CLAUDE.md", b"- Run the unit tests before every commit\n")
        .memory(
            "t.md",
            &memory("feedback", "tests", "tests", "Run the unit tests before every commit."),
        );
    std::os::unix::fs::symlink(env.root().join("elsewhere"), env.root().join("proj/.claude")).unwrap();
    let run = review(env, &[]).code(2);
    run.stderr_has("leaves the project");
    assert!(!run.stdout.contains("unit tests"), "{}", run.stdout);
    assert!(!run.stderr.contains("changed while review ran"), "{}", run.stderr);
}

#[test]
fn apply_json_lists_every_file_changed_index_included() {
    let env = project()
        .file("proj/CLAUDE.md", b"- Run the unit tests before every commit\n")
        .memory(
            "t.md",
            &memory("feedback", "tests", "tests", "Run the unit tests before every commit."),
        )
        .memory("tdd.md", &memory("feedback", "tdd", "tests first", TDD))
        .memory_aged(
            "a.md",
            &memory("reference", "deploy notes", "how deploys run", "Old."),
            48.0,
        )
        .memory("b.md", &memory("reference", "deploy notes", "deploys", "New."))
        .index(
            "- [tests](t.md) — tests\n- [tdd](tdd.md) — tests first\n- [a](a.md) — deploys\n- [b](b.md) — deploys\n",
        );
    let dir = env.dir();
    let listed = review(env, &["--json"]).success();
    assert_eq!(
        kinds(&listed),
        pairs(&[("promote", "tdd.md"), ("remove", "t.md"), ("merge", "a.md")])
    );
    let root = dir.parent().unwrap().to_path_buf();
    let out = again(&root, &["review", "--apply", "1,2,3", "--yes", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let files: Vec<serde_json::Value> = doc["applied"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["files_changed"].clone())
        .collect();
    assert_eq!(
        files,
        [
            serde_json::json!(["CLAUDE.md", "tdd.md", "MEMORY.md"]),
            serde_json::json!(["t.md", "MEMORY.md"]),
            serde_json::json!(["b.md", "a.md", "MEMORY.md"]),
        ]
    );
    assert_eq!(
        fs::read_to_string(dir.join("MEMORY.md")).unwrap(),
        "- [b](b.md) — deploys\n"
    );
}

/// A memory whose rule, why-line and evidence run far past 80 columns.
fn long_memory() -> String {
    memory(
        "feedback",
        "tdd",
        "tests first",
        &format!(
            "Write the failing test first, then the code, for every change to the build, the release scripts and the test harness {}.",
            "and the fixtures ".repeat(8)
        ),
    )
}

#[test]
fn on_a_terminal_the_text_fits_80_columns_and_piped_it_stays_whole() {
    let env = project().memory("tdd.md", &long_memory()).env("COLUMNS", "80");
    let out = crate::support::run_in_pty(&env, &["review"], &[("Apply which", "\r")]);
    let lines = crate::support::pty_lines(&out);
    assert!(
        lines.iter().any(|l| l.starts_with("   tdd.md:7 (") && l.ends_with('…')),
        "{out}"
    );
    for l in lines
        .iter()
        .filter(|l| !l.starts_with("memory dir:") && !l.starts_with("CLAUDE") && !l.starts_with("AGENTS"))
    {
        assert!(crate::support::fits(l, 80), "{} columns: {l}", l.chars().count());
    }
    let piped = review(project().memory("tdd.md", &long_memory()), &[]).success();
    assert!(
        piped
            .stdout
            .contains("and the fixtures and the fixtures and the fixtures ."),
        "{}",
        piped.stdout
    );
    for l in piped.stdout.lines().filter(|l| !l.starts_with("   ")) {
        assert!(crate::support::fits(l, 80), "{} columns: {l}", l.chars().count());
    }
    let none = review(project(), &[]).success();
    for l in none
        .stdout
        .lines()
        .filter(|l| !l.starts_with("memory dir:") && !l.starts_with("CLAUDE") && !l.starts_with("AGENTS"))
    {
        assert!(crate::support::fits(l, 80), "{} columns: {l}", l.chars().count());
    }
}

/// Set a project file's mtime `days` before `NOW` (a CLAUDE line's age is its file's).
fn age_file(env: &Env, rel: &str, days: f64) {
    crate::support::set_age(&env.root().join(rel), days * 24.0);
}

#[test]
fn issue_33_npm_to_bun_is_an_update_and_indentation_a_remove_never_a_promotion() {
    // Issue 33, "Done when": CLAUDE.md says `npm test` and 4-space indentation; a
    // newer memory moved to `bun test`, another repeats the indentation rule.
    let env = project()
        .file(
            "proj/CLAUDE.md",
            b"Run tests with npm test.\nUse 4-space indentation in Python.\n",
        )
        .memory(
            "feedback_bun.md",
            &memory(
                "feedback",
                "bun",
                "tests run with bun",
                "Run tests with `bun test`, not npm",
            ),
        )
        .memory(
            "feedback_indent.md",
            &memory(
                "feedback",
                "indentation",
                "python indentation",
                "Use 4-space indentation in Python",
            ),
        );
    age_file(&env, "proj/CLAUDE.md", 30.0);
    let root = env.root();
    let _keep = env;
    let out = again(&root, &["review"]);
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    println!("{text}");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("1. remove feedback_indent.md\n"), "{text}");
    assert!(text.contains("2. update feedback_bun.md → CLAUDE.md\n"), "{text}");
    assert!(!text.contains("promote") && !text.contains("ambiguous"), "{text}");
    // Both lines with their ages, the newer (the memory) proposed as the winner.
    assert!(
        text.contains("   CLAUDE.md:1 (30 days ago): Run tests with npm test."),
        "{text}"
    );
    assert!(
        text.contains("   feedback_bun.md:7 (yesterday): Run tests with `bun test`, not npm"),
        "{text}"
    );
    assert!(text.contains("the memory is newer"), "{text}");
    assert!(
        text.contains("   CLAUDE.md:2 (30 days ago): Use 4-space indentation in Python."),
        "{text}"
    );
    let out = again(&root, &["review", "--json"]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let got: Vec<(&str, &str)> = doc["proposals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["kind"].as_str().unwrap(), p["memory"].as_str().unwrap()))
        .collect();
    assert_eq!(got, [("remove", "feedback_indent.md"), ("update", "feedback_bun.md")]);
    assert_eq!(doc["proposals"][1]["evidence"][1]["age_days"], 30);
    assert_eq!(doc["proposals"][1]["evidence"][0]["age_days"], 1);
}

/// Copy the cratedigger-like fixture (corpus memories, CLAUDE files written for
/// them) into an Env's memory dir and project.
fn cratedigger() -> Env {
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/review/cratedigger");
    let mut env = project();
    for e in fs::read_dir(data.join("memory")).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_str().unwrap().to_string();
        env = env.memory(&name, &fs::read_to_string(&p).unwrap());
    }
    for f in ["CLAUDE.md", "CLAUDE.local.md"] {
        env = env.file(&format!("proj/{f}"), &fs::read(data.join(f)).unwrap());
        age_file(&env, &format!("proj/{f}"), 60.0);
    }
    env
}

#[test]
fn issue_33_cratedigger_no_promotion_of_what_claude_md_or_claude_local_md_holds() {
    let run = review(cratedigger(), &["--json"]).success();
    let got = kinds(&run);
    println!("{}", review(cratedigger(), &[]).success().stdout);
    for stated in [
        "feedback_tdd.md",
        "feedback_finish_the_job.md",
        "feedback_brainstorm_no_question_tool.md",
        "feedback_discogs_mirror_indexes.md",
    ] {
        assert!(
            !got.iter()
                .any(|(k, m)| m == stated && (k == "promote" || k == "ambiguous")),
            "{stated} promoted: {got:?}"
        );
    }
    for expected in [
        ("remove", "feedback_tdd.md"),
        ("remove", "feedback_finish_the_job.md"),
        ("remove", "feedback_brainstorm_no_question_tool.md"),
        ("update", "feedback_discogs_mirror_indexes.md"),
    ] {
        assert!(
            got.contains(&(expected.0.to_string(), expected.1.to_string())),
            "{expected:?} missing: {got:?}"
        );
    }
    // The removal cites the line of the file that holds it.
    let doc = run.json();
    let brainstorm = doc["proposals"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["memory"] == "feedback_brainstorm_no_question_tool.md")
        .unwrap();
    assert_eq!(brainstorm["evidence"][1]["file"], "CLAUDE.local.md");
    assert_eq!(brainstorm["evidence"][1]["line"], 3);
}

#[test]
fn a_memory_in_conflict_with_a_team_memory_is_never_also_promoted() {
    // Issue 33: one memory got both "promote" and "conflict"; applying the
    // promotion would write the disputed rule into CLAUDE.md.
    let run = review(
        project()
            .memory(
                "team/fmt.md",
                &memory(
                    "feedback",
                    "fmt",
                    "formatting",
                    "Run `ruff format` on Python code before every commit.",
                ),
            )
            .memory(
                "fmt.md",
                &memory(
                    "feedback",
                    "fmt",
                    "formatting before commit",
                    "Run `black` on Python code before every commit.",
                ),
            ),
        &["--json"],
    )
    .success();
    let got = kinds(&run);
    assert!(got.contains(&("conflict".into(), "fmt.md".into())), "{got:?}");
    assert!(
        !got.iter()
            .any(|(k, m)| m == "fmt.md" && (k == "promote" || k == "ambiguous")),
        "{got:?}"
    );
}

#[test]
fn agents_md_is_read_compared_and_promoted_into_when_it_is_the_projects_file() {
    let tdd = memory("feedback", "tdd", "tests first", TDD);
    // Only AGENTS.md: a convention goes there; a rule it states is a remove citing it.
    let env = project()
        .file(
            "proj/AGENTS.md",
            b"# Agents\n\n- Run the unit tests before every commit.\n",
        )
        .memory("tdd.md", &tdd)
        .memory(
            "t.md",
            &memory("feedback", "tests", "tests", "Run the unit tests before every commit."),
        );
    let root = env.root();
    let run = review(env, &["--json"]).success();
    assert_eq!(kinds(&run), pairs(&[("promote", "tdd.md"), ("remove", "t.md")]));
    let doc = run.json();
    assert_eq!(doc["proposals"][0]["target"], "AGENTS.md");
    assert_eq!(doc["proposals"][1]["evidence"][1]["file"], "AGENTS.md");
    assert_eq!(doc["agents_md"], root.join("proj/AGENTS.md").display().to_string());

    let env = project()
        .file("proj/AGENTS.md", b"# Agents\n\n- Keep modules small.\n")
        .memory("tdd.md", &tdd);
    let root = env.root();
    let _keep = env;
    let out = again(&root, &["review", "--apply", "1", "--yes"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        fs::read_to_string(root.join("proj/AGENTS.md")).unwrap(),
        "# Agents\n\n- Keep modules small.\n\n## From memory\n\n- Write the failing test first, then the code.\n  **Why:** regressions slipped through twice.\n"
    );
    assert!(
        !root.join("proj/CLAUDE.md").exists(),
        "no CLAUDE.md created beside AGENTS.md"
    );
    let out = again(&root, &["undo", "--yes"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        fs::read_to_string(root.join("proj/AGENTS.md")).unwrap(),
        "# Agents\n\n- Keep modules small.\n"
    );
}

#[test]
fn with_both_claude_md_and_agents_md_a_convention_is_ambiguous_and_apply_names_the_file() {
    let env = project()
        .file("proj/CLAUDE.md", b"# Project\n")
        .file("proj/AGENTS.md", b"# Agents\n")
        .memory("tdd.md", &memory("feedback", "tdd", "tests first", TDD));
    let root = env.root();
    let _keep = env;
    let out = again(&root, &["review", "--json"]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["proposals"][0]["kind"], "ambiguous");
    assert!(doc["proposals"][0]["target"].is_null());
    let action = doc["proposals"][0]["action"].as_str().unwrap();
    assert!(action.contains("1=claude, 1=agents or 1=local"), "{action}");
    // Without a target it is refused, naming the choices; `1=agents` answers.
    let out = again(&root, &["review", "--apply", "1", "--yes"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--apply 1=claude, 1=agents, 1=local"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = again(&root, &["review", "--apply", "1=agents", "--yes"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        fs::read_to_string(root.join("proj/AGENTS.md"))
            .unwrap()
            .contains("## From memory")
    );
    assert_eq!(fs::read_to_string(root.join("proj/CLAUDE.md")).unwrap(), "# Project\n");
}

#[test]
fn an_update_applied_on_its_own_rewrites_the_older_line_or_forgets_the_older_memory() {
    // SPEC §12 (v3): `--apply N` of an update replaces the older statement with
    // the newer one (diff first, undoable); with other kinds it is skipped.
    let env = project()
        .file(
            "proj/CLAUDE.md",
            b"# Rules\r\n- Run tests with npm test.\r\n- Use 4-space indentation in Python.\r\n",
        )
        .memory(
            "feedback_bun.md",
            &memory(
                "feedback",
                "bun",
                "tests run with bun",
                "Run tests with `bun test`, not npm",
            ),
        );
    age_file(&env, "proj/CLAUDE.md", 30.0);
    let root = env.root();
    let dir = env.dir();
    let _keep = env;
    let out = again(&root, &["review", "--json"]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["proposals"][0]["kind"], "update");
    assert!(
        doc["proposals"][0]["action"].as_str().unwrap().contains("--apply 1)"),
        "{}",
        doc["proposals"][0]["action"]
    );
    assert!(again(&root, &["snapshot"]).status.success());
    let out = again(&root, &["review", "--apply", "1", "--yes"]);
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        text.contains("-- Run tests with npm test.") && text.contains("+- Run tests with `bun test`, not npm"),
        "{text}"
    );
    assert_eq!(
        fs::read_to_string(root.join("proj/CLAUDE.md")).unwrap(),
        "# Rules\r\n- Run tests with `bun test`, not npm\r\n- Use 4-space indentation in Python.\r\n"
    );
    assert!(dir.join("feedback_bun.md").exists(), "the newer memory stays");
    let out = again(&root, &["undo", "--yes"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        fs::read_to_string(root.join("proj/CLAUDE.md"))
            .unwrap()
            .contains("npm test.")
    );

    // The CLAUDE line is the newer side: applying forgets the older memory.
    let env = project()
        .file("proj/CLAUDE.md", b"- Run tests with `bun test`.\n")
        .memory_aged(
            "old.md",
            &memory("feedback", "npm", "tests", "Run tests with `npm test`, not bun."),
            24.0 * 90.0,
        );
    age_file(&env, "proj/CLAUDE.md", 2.0);
    let dir = env.dir();
    let root = env.root();
    let before = fs::read(root.join("proj/CLAUDE.md")).unwrap();
    let run = review(env, &["--apply", "1", "--yes", "--json"]).success();
    assert_eq!(run.json()["applied"][0]["kind"], "update");
    assert!(!dir.join("old.md").exists());
    assert_eq!(fs::read(root.join("proj/CLAUDE.md")).unwrap(), before);
}

/// A report longer than the pieces the text is written in (16 KiB): every
/// proposal once, in order, as `--json` lists them, then the closing lines; the
/// JSON document's fields in their order, `warnings` last.
#[test]
fn a_long_report_is_whole_in_text_and_in_json() {
    let mut env = project();
    let mut json_env = project();
    for i in 0..150 {
        let m = memory(
            "feedback",
            &format!("tdd {i}"),
            "tests first",
            &format!(
                "Write the failing test first, then the code of module m{i}.\n\n**Why:** regressions slipped through."
            ),
        );
        env = env.memory(&format!("tdd_{i:03}.md"), &m);
        json_env = json_env.memory(&format!("tdd_{i:03}.md"), &m);
    }
    let text = review(env, &[]).success();
    let json = review(json_env, &["--json"]).success();
    let doc = json.json();
    let keys: Vec<&str> = doc.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "memory_dir",
            "claude_md",
            "claude_local_md",
            "agents_md",
            "proposals",
            "warnings"
        ]
    );
    let proposals = doc["proposals"].as_array().unwrap();
    assert!(proposals.len() >= 150, "{}", proposals.len());
    assert!(text.stdout.len() > 16 << 10, "{}", text.stdout.len());
    let headers: Vec<&str> = text
        .stdout
        .lines()
        .filter(|l| l.split_once(". ").is_some_and(|(n, _)| n.parse::<usize>().is_ok()))
        .collect();
    assert_eq!(headers.len(), proposals.len());
    for (h, p) in headers.iter().zip(proposals) {
        let start = format!(
            "{}. {} {}",
            p["n"],
            p["kind"].as_str().unwrap(),
            p["memory"].as_str().unwrap()
        );
        assert!(h.starts_with(&start), "{h} / {start}");
    }
    let n = proposals.len();
    assert!(
        text.stdout.ends_with(&format!(
            "\n\n{n} proposals; apply with `memctl review --apply N,... --yes`\n(pick a target as N=claude, N=local)\n"
        )),
        "{}",
        &text.stdout[text.stdout.len() - 200..]
    );
}

/// The words a reason names as matched are in the order review first meets
/// them, the newest memory first, also when that memory shares too little with
/// any CLAUDE line to be compared (review keeps none of its statements then,
/// only the order of its words): `pushing, staging` from `new.md`, not `deploy,
/// staging, pushing` as `old.md` says them (each word shown as the CLAUDE line
/// writes it).
#[test]
fn matched_words_are_in_first_met_order_across_memories_that_match_nothing() {
    let line = "Deploy staging before pushing the release with the nightly build and the smoke tests on every runner.";
    let env = project()
        .memory_aged(
            "new.md",
            &memory(
                "project",
                "ops",
                "ops notes",
                "Pushing to staging needs a green dashboard, an owner on call and a rollback plan.",
            ),
            1.0,
        )
        .memory_aged("old.md", &memory("feedback", "ship", "shipping", line), 48.0);
    fs::write(env.root().join("proj/CLAUDE.md"), format!("- {line}\n")).unwrap();
    let run = review(env, &["--json"]).success();
    let proposals = run.json()["proposals"].as_array().unwrap().clone();
    let removal = proposals.iter().find(|p| p["kind"] == "remove").unwrap();
    assert_eq!(removal["memory"], "old.md");
    let reason = removal["reason"].as_str().unwrap();
    assert!(
        reason.contains("matched pushing, staging, deploy, release, nightly, build, smoke, tests, …;"),
        "{reason}"
    );
}
