//! `memctl add` (SPEC §3.6).

use std::fs;

use crate::support::{Env, read, script, set_age};

fn feedback(env: Env) -> Env {
    env.args([
        "add",
        "--type",
        "feedback",
        "--name",
        "Testing policy",
        "--description",
        "Integration tests hit a real DB",
        "--body",
        "Use the real DB.",
        "--why",
        "mocks hid a bug",
        "--how",
        "use the fixture",
    ])
}

#[test]
fn creates_the_file_and_its_index_line() {
    let env = Env::new().index("# Index\n");
    let d = env.dir();
    let _run = feedback(env)
        .run()
        .success()
        .stderr("")
        .stdout("created feedback_testing_policy.md\nindexed in MEMORY.md:2\n");
    assert_eq!(
        read(&d, "feedback_testing_policy.md"),
        "---\nname: testing-policy\ndescription: Integration tests hit a real DB\nmetadata:\n  type: feedback\n---\n\nUse the real DB.\n\n**Why:** mocks hid a bug\n**How to apply:** use the fixture\n"
    );
    assert_eq!(
        read(&d, "MEMORY.md"),
        "# Index\n- [Testing policy](feedback_testing_policy.md) — Integration tests hit a real DB\n"
    );
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        fs::metadata(d.join("feedback_testing_policy.md"))
            .unwrap()
            .permissions()
            .mode()
            & 0o777,
        0o600
    );
}

#[test]
fn missing_values_without_a_terminal_name_the_flags() {
    Env::new().args(["add", "--type", "feedback"]).run().code(2).stderr(
        "memctl: missing --name, --description, --body (no terminal to ask)\nhint: pass the values as flags, e.g. --type feedback --name \"Testing policy\" --description \"…\" --body \"…\"\n",
    );
    Env::new().args(["add"]).run().code(2).stderr(
        "memctl: missing --type, --name, --description (no terminal to ask)\nhint: pass the values as flags, e.g. --type feedback --name \"Testing policy\" --description \"…\" --body \"…\"\n",
    );
}

#[test]
fn type_is_validated_exactly_with_a_case_hint() {
    let env = Env::new();
    let d = env.dir();
    let _run = env.args(["add", "--type", "User", "--name", "n", "--description", "d"]).run().code(2).stderr(
        "memctl: invalid type `User`: expected one of user, feedback, project, reference\nhint: types are case-sensitive: did you mean `user`?\n",
    );
    assert_eq!(fs::read_dir(&d).unwrap().count(), 0);
}

#[test]
fn never_overwrites() {
    let env = Env::new().memory("user_me.md", "original\n");
    let d = env.dir();
    let run = env
        .args(["add", "--type", "user", "--name", "Me", "--description", "d"])
        .run()
        .code(2);
    run.stderr_starts("memctl: file exists: ");
    assert!(
        run.stderr
            .ends_with("hint: pass --file with another name, or choose another --name; memctl never overwrites\n")
    );
    assert_eq!(read(&d, "user_me.md"), "original\n");
}

#[test]
fn file_names_follow_the_name_rules() {
    for bad in ["../x.md", "/etc/x.md", "a/../../b.md", "x.txt", "a\nb.md"] {
        let run = Env::new().args(crate::support::add_file_args(bad)).run().code(2);
        assert!(
            run.stderr.starts_with("memctl: invalid memory file name"),
            "{bad:?}: {}",
            run.stderr
        );
    }
    let env = Env::new();
    let d = env.dir();
    let _run = env.args(crate::support::add_file_args("sub/me.md")).run().success();
    assert!(read(&d, "sub/me.md").starts_with("---\nname: n\n"));
    assert_eq!(read(&d, "MEMORY.md"), "- [n](sub/me.md) — d\n");
}

#[test]
fn names_and_descriptions_must_be_single_lines() {
    let run = Env::new()
        .args(["add", "--type", "user", "--name", "a\nb", "--description", "d"])
        .run()
        .code(2);
    run.stderr_starts("memctl: --name must be a single line");
    let run = Env::new()
        .args([
            "add",
            "--type",
            "user",
            "--name",
            &"x".repeat(101),
            "--description",
            "d",
        ])
        .run()
        .code(2);
    run.stderr_starts("memctl: --name must be 1–100 characters");
}

#[test]
fn why_and_how_only_for_feedback_and_project() {
    Env::new().args(["add", "--type", "user", "--name", "n", "--description", "d", "--why", "w"]).run().code(2).stderr(
        "memctl: --why and --how are for feedback and project memories, not `user`\nhint: drop --why/--how, or put the text in --body\n",
    );
}

#[test]
fn values_that_need_quoting_are_quoted_and_parse_back() {
    let env = Env::new();
    let d = env.dir();
    let _run = env
        .args([
            "add",
            "--type",
            "project",
            "--name",
            "Project Context: SS",
            "--description",
            "use C# #tags",
            "--body",
            "b",
            "--why",
            "w",
            "--how",
            "h",
        ])
        .run()
        .success();
    let text = read(&d, "project_project_context_ss.md");
    assert!(
        text.starts_with(
            "---\nname: project-context-ss\ndescription: \"use C# #tags\"\nmetadata:\n  type: project\n---\n"
        ),
        "{text}"
    );
    let doc = Env::new()
        .arg("--dir")
        .arg(&d)
        .args(["show", "--json", "Project Context: SS"])
        .run()
        .success()
        .json();
    assert_eq!(doc["frontmatter_status"], "ok");
    assert_eq!(doc["description"], "use C# #tags");
}

#[test]
fn long_index_lines_are_shortened_to_150_chars() {
    let env = Env::new();
    let d = env.dir();
    let desc = "word ".repeat(80);
    let _run = env
        .args(["add", "--type", "user", "--name", "Long", "--description", desc.trim()])
        .run()
        .success();
    let line = read(&d, "MEMORY.md");
    assert!(line.trim_end().chars().count() <= 150, "{line}");
    assert!(line.trim_end().ends_with("word…"), "{line}");
}

#[test]
fn refuses_a_line_that_would_fall_past_the_cut_and_writes_nothing() {
    let index: String = (1..=200).map(|i| format!("- [E{i}](e{i}.md) — e\n")).collect();
    let env = Env::new().index(&index);
    let d = env.dir();
    let _run = env
        .args(["add", "--type", "user", "--name", "New one", "--description", "d"])
        .run()
        .code(1)
        .stderr(
            "memctl: its index line would fall past Claude Code's cut of MEMORY.md: user_new_one.md\nhint: make room with `memctl index rebuild`, add it with --no-index, or pass --force to add it anyway (the cut entries are named)\n",
        );
    assert_eq!(read(&d, "MEMORY.md"), index);
    assert!(!d.join("user_new_one.md").exists());
}

/// `add --force` of a user memory "New one" (its line past the cut in the tests below).
const FORCED_ADD: [&str; 8] = [
    "add",
    "--force",
    "--type",
    "user",
    "--name",
    "New one",
    "--description",
    "d",
];

#[test]
fn force_adds_past_the_cut_and_warns_with_the_entries_that_would_fall_past_it() {
    let index: String = (1..=200).map(|i| format!("- [E{i}](e{i}.md) — e\n")).collect();
    let run = Env::new().index(&index).args(FORCED_ADD).run().success();
    run.stderr_has(
            "memctl: warning: Claude Code would truncate MEMORY.md: 201 lines (limit: 200)\nThese entries would not be loaded:\n  MEMORY.md:201: - [New one](user_new_one.md) — d   ← the new entry\nhint: shorten or remove index lines (memctl lint), or move detail into topic files\n"
        );
}

#[test]
fn a_long_cut_is_warned_with_its_first_fifty_entries_a_count_and_the_new_entry() {
    // 260 lines: 60 past the cut, the new entry the 61st. The warning lists the
    // first 50 as truncate-check does, counts the other 10, and still names the
    // new entry; `--json` keeps every one in `truncation`.
    let index: String = (1..=260).map(|i| format!("- [E{i}](e{i}.md) — e\n")).collect();
    let run = Env::new().index(&index).args(FORCED_ADD).run().success();
    let listed: String = (201..=250)
        .map(|i| format!("\n  MEMORY.md:{i}: - [E{i}](e{i}.md) — e"))
        .collect();
    run.stderr_has(&format!(
        "memctl: warning: Claude Code would truncate MEMORY.md: 261 lines (limit: 200)\nThese entries would not be loaded:{listed}\n  … and 10 more\n  MEMORY.md:261: - [New one](user_new_one.md) — d   ← the new entry\nhint: shorten or remove index lines (memctl lint), or move detail into topic files\n"
    ));
    let env = Env::new().index(&index);
    let json = env.args(["--json"]).args(FORCED_ADD).run().success().json();
    assert_eq!(
        json["truncation"]["dropped_entries"].as_array().map(Vec::len),
        Some(61),
        "{json}"
    );
}

#[test]
fn the_line_goes_into_its_types_section_or_to_the_top() {
    let index = "# Memory\n\n## Feedback\n- [F](feedback_f.md) — f\n\n## User profile\n- [U](user_u.md) — u\n";
    let env = Env::new().index(index);
    let d = env.dir();
    let _run = env
        .args([
            "add",
            "--type",
            "feedback",
            "--name",
            "Terse",
            "--description",
            "short answers",
            "--body",
            "Be terse.",
            "--why",
            "w",
            "--how",
            "h",
        ])
        .run()
        .success()
        .stdout("created feedback_terse.md\nindexed in MEMORY.md:5\n");
    assert_eq!(
        read(&d, "MEMORY.md"),
        "# Memory\n\n## Feedback\n- [F](feedback_f.md) — f\n- [Terse](feedback_terse.md) — short answers\n\n## User profile\n- [U](user_u.md) — u\n"
    );
}

#[test]
fn at_top_puts_the_line_before_the_first_entry() {
    let env = Env::new().index("# Memory\n\n- [F](feedback_f.md) — f\n");
    let d = env.dir();
    let _run = env
        .args([
            "add",
            "--at-top",
            "--type",
            "reference",
            "--name",
            "Dash",
            "--description",
            "grafana",
        ])
        .run()
        .success()
        .stdout("created reference_dash.md\nindexed in MEMORY.md:3\n");
    assert_eq!(
        read(&d, "MEMORY.md"),
        "# Memory\n\n- [Dash](reference_dash.md) — grafana\n- [F](feedback_f.md) — f\n"
    );
}

#[test]
fn strict_refuses_on_any_warning_and_writes_nothing() {
    let env = Env::new();
    let d = env.dir();
    let _run = env.args(["add", "--strict", "--type", "project", "--name", "Ship", "--description", "ship tomorrow", "--body", "b", "--why", "w", "--how", "h"]).run().code(1).stderr(
        "memctl: refusing to write because of a warning (--strict): relative date `tomorrow` in the description: write 2026-03-11\nhint: resolve the warning, or drop --strict\n",
    );
    let names: Vec<String> = fs::read_dir(&d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, vec![".memctl.lock"], "only memctl's own lock file may exist");
}

#[test]
fn relative_dates_get_the_absolute_date_suggested() {
    let run = Env::new()
        .args([
            "add",
            "--type",
            "user",
            "--name",
            "n",
            "--description",
            "d",
            "--body",
            "Deploy happened yesterday; retro next week.",
        ])
        .run()
        .success();
    assert_eq!(
        run.stderr,
        "memctl: warning: relative date `yesterday` in the body: write 2026-03-09\nmemctl: warning: relative date `next week` in the body: write the absolute date\n"
    );
}

#[test]
fn missing_why_or_how_is_a_warning() {
    let run = Env::new()
        .args([
            "add",
            "--type",
            "feedback",
            "--name",
            "n",
            "--description",
            "d",
            "--body",
            "rule",
            "--why",
            "w",
        ])
        .run()
        .success();
    assert_eq!(
        run.stderr,
        "memctl: warning: no **How to apply:** line: Claude Code asks for one in feedback memories (pass --how)\n"
    );
}

#[test]
fn duplicate_names_are_warned() {
    let run = Env::new()
        .memory("other.md", "---\nname: TESTING policy\n---\n")
        .args([
            "add",
            "--type",
            "user",
            "--name",
            "Testing policy",
            "--description",
            "d",
        ])
        .run()
        .success();
    assert_eq!(
        run.stderr,
        "memctl: warning: `other.md` already has the name `TESTING policy`: Claude Code prefers updating a memory to adding a duplicate (`memctl edit other.md`)\n"
    );
}

#[test]
fn dry_run_prints_the_file_and_the_index_diff() {
    let env = Env::new().index("# I\n");
    let d = env.dir();
    let _run = env.args(["add", "--dry-run", "--type", "user", "--name", "Me", "--description", "d", "--body", "hello"]).run().success().stdout(
        "would create user_me.md:\n---\nname: me\ndescription: d\nmetadata:\n  type: user\n---\n\nhello\n--- a/MEMORY.md\n+++ b/MEMORY.md\n@@ -1 +1,2 @@\n # I\n+- [Me](user_me.md) — d\n",
    );
    assert_eq!(read(&d, "MEMORY.md"), "# I\n");
    assert!(!d.join("user_me.md").exists());
}

#[test]
fn no_index_leaves_memory_md_alone() {
    let env = Env::new().index("# I\n");
    let d = env.dir();
    let _run = env
        .args([
            "add",
            "--no-index",
            "--type",
            "user",
            "--name",
            "Me",
            "--description",
            "d",
        ])
        .run()
        .success()
        .stdout("created user_me.md\n");
    assert_eq!(read(&d, "MEMORY.md"), "# I\n");
    assert_eq!(
        read(&d, "user_me.md"),
        "---\nname: me\ndescription: d\nmetadata:\n  type: user\n---\n"
    );
}

#[test]
fn json_reports_the_file_line_and_truncation() {
    let env = Env::new();
    let d = env.dir_shown();
    let doc = env
        .args(["add", "--json", "--type", "user", "--name", "Me", "--description", "d"])
        .run()
        .success()
        .json();
    assert_eq!(doc["file"], "user_me.md");
    assert_eq!(doc["path"], format!("{d}user_me.md"));
    assert_eq!(doc["index_path"], format!("{d}MEMORY.md"));
    assert_eq!(doc["index_line"], "- [Me](user_me.md) — d");
    assert_eq!(doc["index_line_number"], 1);
    assert_eq!(doc["dry_run"], false);
    assert_eq!(doc["content"], serde_json::Value::Null);
    assert_eq!(doc["truncation"]["line_count"], 1);
    assert_eq!(doc["truncation"]["truncated"], false);
    assert_eq!(doc["warnings"], serde_json::json!([]));
}

#[test]
fn body_from_stdin_and_crlf_index() {
    let env = Env::new().index("# I\r\n- [A](a.md) — a\r\n");
    let d = env.dir();
    let _run = env
        .stdin("from stdin\n\n\n")
        .args([
            "add",
            "--type",
            "user",
            "--name",
            "Me",
            "--description",
            "d",
            "--body-file",
            "-",
        ])
        .run()
        .success();
    assert_eq!(
        read(&d, "user_me.md"),
        "---\nname: me\ndescription: d\nmetadata:\n  type: user\n---\n\nfrom stdin\n"
    );
    assert_eq!(
        read(&d, "MEMORY.md"),
        "# I\r\n- [A](a.md) — a\r\n- [Me](user_me.md) — d\r\n"
    );
}

#[test]
fn body_composed_in_the_editor() {
    let env = Env::new();
    let ed = script(&env, "ed.sh", "printf 'written in the editor\\n' > \"$1\"");
    let d = env.dir();
    let _run = env
        .env("EDITOR", &ed)
        .args(["add", "--edit", "--type", "user", "--name", "Me", "--description", "d"])
        .run()
        .success();
    assert_eq!(
        read(&d, "user_me.md"),
        "---\nname: me\ndescription: d\nmetadata:\n  type: user\n---\n\nwritten in the editor\n"
    );
}

#[test]
fn creates_a_missing_resolved_dir() {
    let env = Env::new().resolved();
    let proj = env.root().join("proj");
    fs::create_dir_all(&proj).unwrap();
    let home = env.home();
    let run = env
        .arg("--project")
        .arg(&proj)
        .args(["add", "--type", "user", "--name", "Me", "--description", "d"])
        .run()
        .success();
    assert_eq!(run.stdout, "created user_me.md\nindexed in MEMORY.md:1\n");
    let key = memctl::paths::sanitize::sanitize(&proj.to_string_lossy()).key;
    let dir = home.join(".claude/projects").join(key).join("memory");
    assert!(dir.join("user_me.md").is_file());
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(fs::metadata(&dir).unwrap().permissions().mode() & 0o777, 0o700);
}

#[test]
fn team_memories_go_to_the_team_index() {
    let env = Env::new();
    let d = env.dir();
    let _run = env
        .args([
            "--team",
            "add",
            "--type",
            "reference",
            "--name",
            "Runbook",
            "--description",
            "d",
        ])
        .run()
        .success()
        .stdout("created reference_runbook.md\nindexed in team/MEMORY.md:1\n");
    assert!(d.join("team/reference_runbook.md").is_file());
    assert_eq!(read(&d, "team/MEMORY.md"), "- [Runbook](reference_runbook.md) — d\n");
    assert!(d.join(".memctl.lock").exists(), "the write lock lives in the main dir");
}

#[test]
fn a_live_dream_refuses_and_force_overrides() {
    let env = Env::new();
    let lock = env.dir().join(".consolidate-lock");
    fs::write(&lock, std::process::id().to_string()).unwrap();
    set_age(&lock, 0.5);
    let d = env.dir();
    let run = env
        .args(["add", "--type", "user", "--name", "Me", "--description", "d"])
        .run()
        .code(2);
    run.stderr_starts("memctl: auto-dream lock taken 30 min ago by live PID");
    assert!(!d.join("user_me.md").exists());
    let env = Env::new();
    let lock = env.dir().join(".consolidate-lock");
    fs::write(&lock, std::process::id().to_string()).unwrap();
    set_age(&lock, 0.5);
    env.args(["add", "--force", "--type", "user", "--name", "Me", "--description", "d"])
        .run()
        .success();
}

#[test]
fn prompts_on_a_terminal() {
    let env = Env::new();
    let d = env.dir();
    let out = crate::support::run_in_pty(
        &env,
        &["add", "--type", "feedback"],
        &[
            ("Name", "Prompted\rA prompted memory\rThe rule\rbecause\rlike so\r"),
            ("Write it? [Y/n]", "\r"),
        ],
    );
    assert!(out.contains("created feedback_prompted.md"), "{out}");
    assert_eq!(
        read(&d, "feedback_prompted.md"),
        "---\nname: prompted\ndescription: A prompted memory\nmetadata:\n  type: feedback\n---\n\nThe rule\n\n**Why:** because\n**How to apply:** like so\n"
    );
}

#[test]
fn r14_the_type_picker_says_what_each_type_is_for_and_ctrl_c_shows_the_cursor() {
    let env = Env::new();
    let d = env.dir();
    let (out, status) = crate::support::run_in_pty_status(&env, &["add"], &[("reference", "\x03")]);
    assert_eq!(status.code(), Some(130), "{out:?}");
    assert!(
        out.contains("feedback   how to work: guidance or corrections"),
        "{out:?}"
    );
    let hidden = out.rfind("\x1b[?25l").expect("the picker hides the cursor");
    let shown = out.rfind("\x1b[?25h").expect("the cursor is shown again");
    assert!(shown > hidden, "{out:?}");
    assert_eq!(fs::read_dir(&d).unwrap().count(), 0, "nothing written");
}

#[test]
fn r14_an_empty_why_is_asked_again_with_the_reason_and_the_summary_is_confirmed() {
    let env = Env::new();
    let d = env.dir();
    let out = crate::support::run_in_pty(
        &env,
        &["add", "--type", "feedback"],
        &[
            ("Name", "Mocks\rNo mocks\rNever mock the database\r"),
            ("Why", "\r"),
            ("Enter again to skip", "a mocked test hid a broken migration\r"),
            ("How to apply", "in tests/\r"),
            ("Write it? [Y/n]", "n\r"),
        ],
    );
    assert!(
        out.contains("Claude Code asks for the reason behind a feedback memory"),
        "{out}"
    );
    assert!(out.contains("feedback_mocks.md will be:"), "{out}");
    assert!(out.contains("  **Why:** a mocked test hid a broken migration"), "{out}");
    assert!(
        out.contains("line 1 of MEMORY.md:\r\n  - [Mocks](feedback_mocks.md) — No mocks"),
        "{out}"
    );
    assert!(!out.contains("pass --why"), "{out}");
    assert!(out.contains("nothing written"), "{out}");
    assert!(!d.join("feedback_mocks.md").exists());
    assert!(!d.join("MEMORY.md").exists());
}

#[test]
fn r14_add_edit_opens_a_template_whose_guidance_is_removed() {
    let env = Env::new();
    let d = env.dir();
    let seen = env.root().join("seen.md");
    let ed = script(
        &env,
        "ed.sh",
        &format!(
            "cp \"$1\" '{}'; sed -i '1s/^/Never mock the database./; s/^\\*\\*Why:\\*\\* $/**Why:** it hid a bug/' \"$1\"",
            seen.display()
        ),
    );
    let _run = env
        .env("EDITOR", ed)
        .args([
            "add",
            "--type",
            "feedback",
            "--name",
            "Mocks",
            "--description",
            "d",
            "--edit",
            "--how",
            "in tests/",
        ])
        .run()
        .success();
    let template = fs::read_to_string(&seen).unwrap();
    assert!(
        template.starts_with(
            "\n\n**Why:** \n**How to apply:** in tests/\n\n------------------------ >8 ------------------------\n"
        ),
        "{template}"
    );
    assert_eq!(
        read(&d, "feedback_mocks.md"),
        "---\nname: mocks\ndescription: d\nmetadata:\n  type: feedback\n---\n\nNever mock the database.\n\n**Why:** it hid a bug\n**How to apply:** in tests/\n"
    );
}

#[test]
fn r14_messages_read_as_words() {
    let run = Env::new()
        .args([
            "add",
            "--type",
            "feedbak",
            "--name",
            "x",
            "--description",
            "d",
            "--body",
            "b",
        ])
        .run()
        .code(2);
    assert_eq!(
        run.stderr,
        "memctl: invalid type `feedbak`: expected one of user, feedback, project, reference\nhint: did you mean `feedback`?\n"
    );
    let run = Env::new()
        .args([
            "add",
            "--type",
            "user",
            "--name",
            "x",
            "--description",
            "d",
            "--body-file",
            "/nonexistent/b.md",
        ])
        .run()
        .code(2);
    assert_eq!(
        run.stderr,
        "memctl: cannot read the body file /nonexistent/b.md: no such file or directory\nhint: check the path given to --body-file\n"
    );
}

/// Issue 34 point 11: Ctrl-D at a prompt ends the input: nothing written, no
/// `\u{4}` anywhere, and the error names the prompt, not a flag never typed.
#[test]
fn ctrl_d_at_a_prompt_aborts_cleanly() {
    let env = Env::new();
    let d = env.dir();
    let (out, status) = crate::support::run_in_pty_status(
        &env,
        &["add", "--type", "user"],
        &[("Name", "Me\r"), ("Description", "\x04")],
    );
    assert_eq!(status.code(), Some(2), "{out:?}");
    assert!(
        out.contains("memctl: input ended (Ctrl-D) at the prompt `Description`; nothing written"),
        "{out:?}"
    );
    assert!(!out.contains("--description") && !out.contains("\\u{4}"), "{out:?}");
    assert_eq!(fs::read_dir(&d).unwrap().count(), 0, "nothing written");
}

/// Issue 34 point 11: Left/Right move the cursor in a prompt (typing goes where
/// the cursor is; Backspace and Delete too), and a description that is too long
/// is asked again naming the prompt.
#[test]
fn the_arrow_keys_edit_a_prompt_line() {
    let env = Env::new();
    let d = env.dir();
    let long = "x".repeat(501);
    let out = crate::support::run_in_pty(
        &env,
        &["add", "--type", "user"],
        &[
            // "Mxe", Left, Backspace, "a" → "Mae"; Home, Delete, "J" → "Jae"
            ("Name", "Mxe\x1b[D\x7fa\x1b[H\x1b[3~J\r"),
            ("Description", &format!("{long}\r")),
            // "a scientst", Left Left, "i"; Home, Right Right, Delete, "S"
            (
                "`\r\nDescription: ",
                "a scientst\x1b[D\x1b[Di\x1b[H\x1b[C\x1b[C\x1b[3~S\r",
            ),
            ("Content", "\r"),
            ("Write it? [Y/n]", "\r"),
        ],
    );
    assert!(
        out.contains("memctl: the description must be 1–500 characters, got 501"),
        "{out:?}"
    );
    assert!(!out.contains("--description"), "{out:?}");
    let text = read(&d, "user_jae.md");
    assert!(text.starts_with("---\nname: jae\ndescription: a Scientist\n"), "{text}");
}

/// Issue 34 point 4: a token in a new memory gave no warning; `add` names the
/// file and line of each secret-like token (lint ML121) and still writes.
#[test]
fn warns_on_a_secret_naming_file_and_line() {
    let env = Env::new();
    let d = env.dir();
    let run = env
        .args([
            "add",
            "--type",
            "user",
            "--name",
            "Token",
            "--description",
            "d",
            "--body",
            "line one\ntoken ghp_abcdefghijklmnopqrstuvwxyz0123456789",
        ])
        .run()
        .success();
    assert!(
        run.stderr.contains("user_token.md:9: ML121 looks like a GitHub token"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("refuse it without --allow-secrets"),
        "{}",
        run.stderr
    );
    assert!(d.join("user_token.md").exists());
}
