//! `memctl edit` (SPEC §3.8), with stub editor scripts that change, break or
//! leave the draft.

use std::fs;

use crate::support::{Env, read, script};

const M: &str = "---\nname: Merge freeze\ndescription: Freeze from 2026-03-05\ntype: project\n---\n\nFreeze.\n";

fn with_editor(body: &str) -> Env {
    let env = Env::new()
        .memory("project_freeze.md", M)
        .index("- [Freeze](project_freeze.md) — f\n");
    let ed = script(&env, "ed.sh", body);
    env.env("EDITOR", ed)
}

fn draft_from(stderr: &str) -> std::path::PathBuf {
    let at = stderr.find("kept in ").expect("draft path printed") + "kept in ".len();
    stderr[at..].lines().next().unwrap().trim().into()
}

#[test]
fn saves_a_valid_edit_atomically_keeping_the_mode() {
    use std::os::unix::fs::PermissionsExt;
    let env = with_editor("sed -i 's/Freeze\\./Freeze until the cut./' \"$1\"");
    let d = env.dir();
    fs::set_permissions(d.join("project_freeze.md"), fs::Permissions::from_mode(0o644)).unwrap();
    let _run = env
        .args(["edit", "Merge freeze"])
        .run()
        .success()
        .stdout("saved project_freeze.md\n");
    assert!(read(&d, "project_freeze.md").ends_with("Freeze until the cut.\n"));
    assert_eq!(
        fs::metadata(d.join("project_freeze.md")).unwrap().permissions().mode() & 0o777,
        0o644
    );
}

#[test]
fn unchanged_drafts_are_no_changes() {
    let env = with_editor("exit 0");
    let _run = env
        .args(["edit", "project_freeze"])
        .run()
        .success()
        .stdout("")
        .stderr("memctl: note: no changes\n");
}

#[test]
fn new_errors_keep_the_draft_and_exit_1() {
    let env = with_editor("printf -- '---\\nname: x\\ndescription: d\\ntype: Project\\n---\\n' > \"$1\"");
    let d = env.dir();
    let run = env.args(["edit", "project_freeze"]).run().code(1);
    run.stderr_has("error[ML108]: type `Project` is not one of");
    let draft = draft_from(&run.stderr);
    assert_eq!(
        fs::read_to_string(&draft).unwrap(),
        "---\nname: x\ndescription: d\ntype: Project\n---\n"
    );
    assert_eq!(read(&d, "project_freeze.md"), M);
    fs::remove_dir_all(draft.parent().unwrap()).unwrap();
}

#[test]
fn errors_the_original_already_had_do_not_block() {
    let env = Env::new().memory("bad.md", "---\nname: x\ntype: User\n---\nold\n");
    let ed = script(&env, "ed.sh", "sed -i 's/old/new/' \"$1\"");
    let d = env.dir();
    let _run = env.env("EDITOR", ed).args(["edit", "bad"]).run().success();
    assert!(read(&d, "bad.md").ends_with("new\n"));
}

#[test]
fn a_failing_editor_keeps_the_draft_and_exits_2() {
    let env = with_editor("echo changed >> \"$1\"; exit 3");
    let d = env.dir();
    let run = env.args(["edit", "project_freeze"]).run().code(2);
    run.stderr_has("memctl: the editor ");
    run.stderr_has("exited with status 3\n");
    run.stderr_has("memctl: note: to save it later: memctl edit project_freeze --from /");
    let draft = draft_from(&run.stderr);
    assert!(fs::read_to_string(&draft).unwrap().ends_with("changed\n"));
    assert_eq!(read(&d, "project_freeze.md"), M);
    fs::remove_dir_all(draft.parent().unwrap()).unwrap();
}

#[test]
fn a_concurrent_change_is_a_conflict_and_nothing_is_lost() {
    let env = Env::new().memory("project_freeze.md", M);
    let target = env.dir().join("project_freeze.md");
    let ed = script(
        &env,
        "ed.sh",
        &format!("echo mine >> \"$1\"; echo theirs >> '{}'", target.display()),
    );
    let d = env.dir();
    let run = env.env("EDITOR", ed).args(["edit", "project_freeze"]).run().code(2);
    run.stderr_has("changed on disk while you were editing it");
    assert_eq!(read(&d, "project_freeze.md"), format!("{M}theirs\n"));
    let draft = draft_from(&run.stderr);
    assert_eq!(fs::read_to_string(&draft).unwrap(), format!("{M}mine\n"));
    fs::remove_dir_all(draft.parent().unwrap()).unwrap();
}

#[test]
fn the_draft_lives_outside_the_memory_dir_with_the_same_base_name() {
    let env = Env::new().memory("project_freeze.md", M);
    let log = env.root().join("draft-path");
    let ed = script(
        &env,
        "ed.sh",
        &format!(
            "echo \"$1\" > '{}'; stat -c %a \"$1\" >> '{}'",
            log.display(),
            log.display()
        ),
    );
    let d = env.dir();
    let _run = env.env("EDITOR", ed).args(["edit", "project_freeze"]).run().success();
    let seen = fs::read_to_string(&log).unwrap();
    let mut lines = seen.lines();
    let path = lines.next().unwrap();
    assert!(
        path.ends_with("/project_freeze.md") && path.contains("/memctl-edit-"),
        "{path}"
    );
    assert!(!path.starts_with(&*d.to_string_lossy()));
    assert_eq!(lines.next(), Some("600"));
    assert!(
        !std::path::Path::new(path).exists(),
        "the draft is deleted when unchanged"
    );
}

#[test]
fn visual_wins_over_editor_and_a_broken_visual_is_an_error() {
    let env = with_editor("exit 1");
    let good = script(&env, "good.sh", "echo edited >> \"$1\"");
    let _run = env
        .env("VISUAL", &good)
        .args(["edit", "project_freeze"])
        .run()
        .success();
    with_editor("exit 0").env("VISUAL", "no-such-editor-here").args(["edit", "project_freeze"]).run().code(2).stderr(
        "memctl: $VISUAL names `no-such-editor-here`, which is not an executable on PATH\nhint: fix $VISUAL, or unset it to let memctl look for an editor\n",
    );
}

#[test]
fn symlinks_leaving_the_dir_are_refused() {
    let env = Env::new().file("outside/x.md", b"---\nname: x\n---\n");
    std::os::unix::fs::symlink(env.root().join("outside/x.md"), env.dir().join("x.md")).unwrap();
    let ed = script(&env, "ed.sh", "echo changed >> \"$1\"");
    let root = env.root();
    let run = env.env("EDITOR", ed).args(["edit", "x"]).run().code(2);
    run.stderr_starts("memctl: write target resolves outside the memory dir");
    assert_eq!(
        fs::read_to_string(root.join("outside/x.md")).unwrap(),
        "---\nname: x\n---\n"
    );
}

#[test]
fn index_edit_reports_truncation_and_strict_exits_1() {
    let env = Env::new().index("# I\n").memory("a.md", M);
    let ed = script(
        &env,
        "ed.sh",
        "i=0; while [ $i -lt 205 ]; do echo \"- [E$i](a.md) — e\" >> \"$1\"; i=$((i+1)); done",
    );
    let d = env.dir();
    let run = env.env("EDITOR", &ed).args(["edit", "--index"]).run().success();
    assert_eq!(run.stdout, "saved MEMORY.md\n");
    run.stderr_has("memctl: warning: Claude Code would truncate MEMORY.md: 206 lines (limit: 200)\n");
    run.stderr_has("MEMORY.md: 206 lines,");
    assert_eq!(read(&d, "MEMORY.md").lines().count(), 206);
    let env = Env::new().index("# I\n").memory("a.md", M);
    let ed = script(
        &env,
        "ed.sh",
        "i=0; while [ $i -lt 205 ]; do echo \"- [E$i](a.md) — e\" >> \"$1\"; i=$((i+1)); done",
    );
    env.env("EDITOR", &ed)
        .args(["edit", "--index", "--strict"])
        .run()
        .code(1);
}

#[test]
fn index_edit_creates_a_missing_index_only_with_yes() {
    let env = Env::new();
    let ed = script(&env, "ed.sh", "echo '- [A](a.md) — a' >> \"$1\"");
    let d = env.dir();
    let expected = format!(
        "memctl: {}/MEMORY.md does not exist, and there is no terminal to confirm creating it\nhint: pass --yes to create it\n",
        d.display()
    );
    let _run = env
        .env("EDITOR", &ed)
        .args(["edit", "--index"])
        .run()
        .code(2)
        .stderr(&expected);
    let env = Env::new().memory("a.md", M);
    let ed = script(&env, "ed.sh", "echo '- [A](a.md) — a' >> \"$1\"");
    let d = env.dir();
    let _run = env
        .env("EDITOR", &ed)
        .args(["edit", "--index", "--yes"])
        .run()
        .success();
    assert_eq!(read(&d, "MEMORY.md"), "- [A](a.md) — a\n");
}

#[test]
fn json_reports_the_outcome() {
    let env = with_editor("echo more >> \"$1\"");
    let d = env.dir_shown();
    let doc = env.args(["edit", "--json", "project_freeze"]).run().success().json();
    assert_eq!(doc["file"], "project_freeze.md");
    assert_eq!(doc["path"], format!("{d}project_freeze.md"));
    assert_eq!(doc["saved"], true);
    assert_eq!(doc["draft_path"], serde_json::Value::Null);
    assert_eq!(doc["findings"], serde_json::json!([]));
    assert_eq!(doc["truncation"], serde_json::Value::Null);
}

#[test]
fn files_over_10_mib_are_refused() {
    let env = Env::new().memory("big.md", &"x".repeat((10 << 20) + 1));
    let ed = script(&env, "ed.sh", "exit 0");
    let run = env.env("EDITOR", ed).args(["edit", "big"]).run().code(2);
    run.stderr_starts("memctl: file larger than 10 MiB");
    assert!(run.stderr.ends_with("hint: edit it directly with your editor\n"));
}

#[test]
fn r13_signals_to_memctl_while_the_editor_runs_do_not_lose_the_edit() {
    for sig in ["INT", "TERM", "HUP"] {
        let env = with_editor(&format!(
            "kill -{sig} $PPID; sleep 0.2; sed -i 's/Freeze\\./Freeze until the cut./' \"$1\""
        ));
        let d = env.dir();
        let run = env.args(["edit", "Merge freeze"]).run();
        assert_eq!(run.code, 0, "SIG{sig}: {}", run.stderr);
        assert!(
            read(&d, "project_freeze.md").ends_with("Freeze until the cut.\n"),
            "SIG{sig}"
        );
    }
}

#[test]
fn r13_the_editor_still_gets_the_signals_memctl_ignores() {
    // The stub dies of its own SIGTERM: memctl's ignoring does not leak into it.
    let env = with_editor("kill -TERM $$; sleep 1; sed -i 's/Freeze\\./Changed./' \"$1\"");
    let d = env.dir();
    let run = env.args(["edit", "Merge freeze"]).run().code(2);
    assert!(run.stderr.contains("kept in "), "{}", run.stderr);
    assert!(read(&d, "project_freeze.md").ends_with("Freeze.\n"));
}

#[test]
fn r13_a_save_refused_at_the_lock_says_where_the_draft_is() {
    let env = with_editor("sed -i 's/Freeze\\./Changed./' \"$1\"");
    let d = env.dir();
    std::os::unix::fs::symlink("/nonexistent/lock", d.join(".memctl.lock")).unwrap();
    let run = env.args(["edit", "Merge freeze"]).run().code(2);
    let draft = draft_from(&run.stderr);
    assert!(fs::read_to_string(draft).unwrap().ends_with("Changed.\n"));
}

/// Issue 12 §2: saving through `edit` sets the frontmatter's `modified` to the write
/// time (MEMCTL_NOW), in the same place and format, keeping every other byte.
#[test]
fn saving_sets_the_modified_field_in_place_and_format() {
    for (before, after) in [
        (
            "---\nname: A\ndescription: d\ntype: user\nmodified: 2026-01-02T03:04:05.678Z\n---\n\nold\n",
            "---\nname: A\ndescription: d\ntype: user\nmodified: 2026-03-10T12:00:00.000Z\n---\n\nnew\n",
        ),
        (
            "---\r\nname: A\r\nmetadata: \r\n  type: user\r\n  modified: '2026-01-02'  # kept\r\n---\r\nold\r\n",
            "---\r\nname: A\r\nmetadata: \r\n  type: user\r\n  modified: '2026-03-10'  # kept\r\n---\r\nnew\r\n",
        ),
        (
            "---\nname: A\nmodified: \"2026-01-02T03:04:05Z\"\n---\nold\n",
            "---\nname: A\nmodified: \"2026-03-10T12:00:00Z\"\n---\nnew\n",
        ),
        // No `modified`, or not a string: nothing is added or changed.
        ("---\nname: A\n---\nold\n", "---\nname: A\n---\nnew\n"),
        (
            "---\nname: A\nmodified: 7\n---\nold\n",
            "---\nname: A\nmodified: 7\n---\nnew\n",
        ),
    ] {
        let env = Env::new().memory("a.md", before);
        let ed = script(&env, "ed.sh", "sed -i 's/old/new/' \"$1\"");
        let d = env.dir();
        let _run = env
            .env("EDITOR", ed)
            .args(["edit", "a.md"])
            .run()
            .success()
            .stdout("saved a.md\n");
        assert_eq!(read(&d, "a.md"), after, "{before:?}");
    }
}

/// Issue 12 §2: a value the user typed in the editor is replaced by the write time too.
#[test]
fn saving_overrides_a_modified_value_the_user_changed() {
    let env = Env::new().memory("a.md", "---\nname: A\nmodified: 2026-01-02T03:04:05.678Z\n---\nold\n");
    let ed = script(&env, "ed.sh", "sed -i 's/2026-01-02/1999-01-01/; s/old/new/' \"$1\"");
    let d = env.dir();
    let _run = env.env("EDITOR", ed).args(["edit", "a.md"]).run().success();
    assert_eq!(
        read(&d, "a.md"),
        "---\nname: A\nmodified: 2026-03-10T12:00:00.000Z\n---\nnew\n"
    );
}

/// Issue 12 §2: `lint --fix` is mechanical: it keeps the `modified` field as it is.
#[test]
fn lint_fix_keeps_the_modified_field() {
    let env = Env::new().memory(
        "a.md",
        "---\nname: Project Context: SS\ndescription: d\ntype: user\nmodified: 2026-01-02T03:04:05.678Z\n---\nb\n",
    );
    let d = env.dir();
    let run = env.args(["lint", "--fix", "--rule", "ML111"]).run();
    run.stderr_has("fixed ML111 in a.md");
    assert_eq!(
        read(&d, "a.md"),
        "---\nname: \"Project Context: SS\"\ndescription: d\ntype: user\nmodified: 2026-01-02T03:04:05.678Z\n---\nb\n"
    );
}

#[test]
fn r14_no_fallback_editor_without_a_terminal() {
    let env = Env::new().memory("project_freeze.md", M);
    let marker = env.root().join("vi-ran");
    fs::create_dir_all(env.root().join("bin")).unwrap();
    let _vi = script(&env, "bin/vi", &format!("touch '{}'", marker.display()));
    // Only the stub on PATH: v1 started the first fallback it found (a real vim
    // would wait on the pipe for ever).
    let path = env.root().join("bin");
    let run = env
        .env_remove("EDITOR")
        .env_remove("VISUAL")
        .env("PATH", path)
        .args(["--json", "edit", "project_freeze"])
        .run()
        .code(2);
    assert_eq!(run.stderr_json()["error"]["kind"], "editor");
    assert!(!marker.exists(), "no editor was started");
}

#[test]
fn r14_a_kept_draft_is_saved_with_from() {
    let env = with_editor("sed -i 's/Freeze\\./Freeze until the cut./' \"$1\"; exit 3");
    let d = env.dir();
    // The same user's TMPDIR for both runs: the draft dir is memctl's own there.
    let tmpdir = env.root().join("tmp");
    let run = env.args(["edit", "project_freeze"]).run().code(2);
    let draft = draft_from(&run.stderr);
    assert_eq!(read(&d, "project_freeze.md"), M);
    let env = Env::new()
        .memory("project_freeze.md", M)
        .env("EDITOR", "/nonexistent")
        .env("TMPDIR", &tmpdir);
    let d = env.dir();
    let _run = env
        .args(["edit", "project_freeze", "--from"])
        .arg(draft.as_os_str())
        .run()
        .success()
        .stdout("saved project_freeze.md\n");
    assert!(read(&d, "project_freeze.md").ends_with("Freeze until the cut.\n"));
    assert!(!draft.exists(), "memctl's own draft dir goes once saved");
}

#[test]
fn r14_a_draft_given_with_from_is_checked_like_an_edit() {
    let env = Env::new().memory("project_freeze.md", M);
    let d = env.dir();
    let draft = env.root().join("draft.md");
    fs::write(&draft, "---\nname: x\ndescription: d\ntype: bogus\n---\n").unwrap();
    let run = env
        .args(["edit", "project_freeze", "--from"])
        .arg(draft.as_os_str())
        .run()
        .code(1);
    run.stderr_has("memctl: the edit adds 1 error:\n  project_freeze.md:4: error[ML108]");
    assert_eq!(read(&d, "project_freeze.md"), M);
    assert!(draft.exists(), "a draft of the user's is never removed");
    let run = Env::new()
        .memory("project_freeze.md", M)
        .args(["edit", "project_freeze", "--from", "/nonexistent/d.md"])
        .run()
        .code(2);
    assert_eq!(
        run.stderr,
        "memctl: cannot read the draft /nonexistent/d.md: no such file or directory\nhint: pass the path memctl printed when it kept the draft\n"
    );
}

/// Issue 34 point 5 (SPEC v3 §3.14): a draft whose editor deleted the opening
/// `---` is not saved without a terminal: kept as a draft, exit 1, the file as it was.
#[test]
fn a_draft_that_lost_its_frontmatter_is_kept_without_a_terminal() {
    let env = with_editor("sed -i '1d' \"$1\"");
    let d = env.dir();
    let run = env.args(["edit", "project_freeze"]).run().code(1);
    run.stderr_has("memctl: the edit loses the frontmatter block: Claude Code would see no type and no description\n");
    run.stderr_has("warning[ML103]");
    run.stderr_has("not saved: the edit lost the frontmatter block; your edit is kept in ");
    let draft = draft_from(&run.stderr);
    assert_eq!(fs::read_to_string(&draft).unwrap(), &M[4..]);
    assert_eq!(read(&d, "project_freeze.md"), M);
    fs::remove_dir_all(draft.parent().unwrap()).unwrap();
}

/// Issue 34 point 5: on a terminal the same choice as a new error; "save anyway"
/// saves the draft as it is.
#[test]
fn a_draft_that_lost_its_frontmatter_can_be_saved_anyway_on_a_terminal() {
    let env = with_editor("sed -i '1d' \"$1\"");
    let d = env.dir();
    let out = crate::support::run_in_pty(&env, &["edit", "project_freeze"], &[("What now", "\x1b[B\r")]);
    assert!(out.contains("the edit loses the frontmatter block"), "{out}");
    assert!(out.contains("saved project_freeze.md"), "{out}");
    assert_eq!(read(&d, "project_freeze.md"), &M[4..]);
}

/// A file that had no frontmatter block loses nothing: its edit is saved.
#[test]
fn a_file_without_frontmatter_is_saved_as_before() {
    let env = Env::new().memory("notes.md", "just notes\n");
    let ed = script(&env, "ed.sh", "sed -i 's/just/some/' \"$1\"");
    let d = env.dir();
    let _run = env.env("EDITOR", ed).args(["edit", "notes"]).run().success();
    assert_eq!(read(&d, "notes.md"), "some notes\n");
}

/// Issue 34 point 4: `edit` that saves a secret-like token names file and line.
#[test]
fn warns_on_a_secret_saved_by_the_edit() {
    let env = with_editor("printf 'key AKIAABCDEFGHIJKLMNOP\\n' >> \"$1\"");
    let run = env.args(["edit", "project_freeze"]).run().success();
    assert!(run.stderr.contains("project_freeze.md:8: ML121"), "{}", run.stderr);
    assert!(run.stdout.contains("saved"), "{}", run.stdout);
}
