//! `memctl forget` (SPEC §3.7).

use std::fs;

use crate::support::{Env, read};

const M: &str = "---\nname: Testing policy\ndescription: d\ntype: feedback\n---\nbody\n";

fn dir_with_links() -> Env {
    Env::new()
        .memory("feedback_testing.md", M)
        .memory("other.md", "---\nname: Other\n---\n")
        .index("# Index\n- [Testing](feedback_testing.md) — canonical\n- **[feedback_testing.md](feedback_testing.md)** — bold\n- [Other](other.md) — o\n- 🔔 [Both](feedback_testing.md) and [o](other.md)\n")
}

#[test]
fn removes_the_file_and_every_linking_line_and_keeps_a_copy() {
    let env = dir_with_links().env("MEMCTL_HISTORY", "off");
    let d = env.dir();
    let run = env
        .args(["forget", "--yes", "--force", "feedback_testing"])
        .run()
        .success();
    assert_eq!(
        run.stdout,
        format!(
            "forgot feedback_testing.md (3 index lines)\n  kept in .trash/20260310T120000Z/\n  restore: memctl restore feedback_testing.md\n"
        )
    );
    assert_eq!(
        run.stderr,
        "memctl: warning: other.md loses its index line (MEMORY.md:5) with feedback_testing.md\n"
    );
    assert!(!d.join("feedback_testing.md").exists());
    assert_eq!(read(&d, "MEMORY.md"), "# Index\n- [Other](other.md) — o\n");
    assert_eq!(read(&d, ".trash/20260310T120000Z/feedback_testing.md.deleted"), M);
    assert_eq!(
        read(&d, ".trash/20260310T120000Z/feedback_testing.md.index-lines"),
        "- [Testing](feedback_testing.md) — canonical\n- **[feedback_testing.md](feedback_testing.md)** — bold\n- 🔔 [Both](feedback_testing.md) and [o](other.md)\n"
    );
}

#[test]
fn the_printed_restore_command_works_when_pasted() {
    // With history on (the copy in a snapshot) and off (the copy in .trash/).
    for history in ["on", "off"] {
        let env = dir_with_links().env("MEMCTL_HISTORY", history);
        let d = env.dir();
        let before = read(&d, "MEMORY.md");
        let mtime = fs::metadata(d.join("feedback_testing.md")).unwrap().modified().unwrap();
        let run = env
            .args(["forget", "--yes", "--force", "--json", "Testing policy"])
            .run()
            .success();
        let restore = run.json()["forgotten"][0]["restore"].as_str().unwrap().to_string();
        assert_eq!(restore, "memctl restore feedback_testing.md");
        let args: Vec<&str> = restore.split(' ').skip(1).collect();
        let again = crate::restore::on(&d).env("MEMCTL_HISTORY", history).args(args).run();
        assert_eq!(again.code, 0, "{history}: {}", again.stderr);
        assert_eq!(read(&d, "feedback_testing.md"), M);
        assert_eq!(
            fs::metadata(d.join("feedback_testing.md")).unwrap().modified().unwrap(),
            mtime
        );
        let after = read(&d, "MEMORY.md");
        let mut a: Vec<&str> = after.lines().collect();
        let mut b: Vec<&str> = before.lines().collect();
        a.sort();
        b.sort();
        assert_eq!(a, b, "{history}: every index line is back");
        drop(run);
    }
}

#[test]
fn json_lists_what_was_forgotten() {
    let env = dir_with_links().env("MEMCTL_HISTORY", "off");
    let shown = env.dir_shown();
    let doc = env
        .args(["forget", "--yes", "--force", "--json", "feedback_testing.md"])
        .run()
        .success()
        .json();
    let f = &doc["forgotten"][0];
    assert_eq!(f["file"], "feedback_testing.md");
    assert_eq!(f["trash_dir"], format!("{shown}.trash/20260310T120000Z/"));
    assert_eq!(
        f["trash_file"],
        format!("{shown}.trash/20260310T120000Z/feedback_testing.md.deleted")
    );
    assert_eq!(
        f["removed_index_lines"][0],
        serde_json::json!({"index": "MEMORY.md", "line": 2, "text": "- [Testing](feedback_testing.md) — canonical"})
    );
    assert_eq!(doc["dry_run"], false);
    assert_eq!(
        doc["warnings"][0],
        "other.md loses its index line (MEMORY.md:5) with feedback_testing.md"
    );
}

#[test]
fn needs_yes_without_a_terminal() {
    let env = dir_with_links();
    let d = env.dir();
    let _run = env.args(["forget", "--force", "feedback_testing"]).run().code(2).stderr("memctl: forget needs confirmation, and there is no terminal to ask\nhint: pass --yes to forget without asking\n");
    assert!(d.join("feedback_testing.md").exists());
    let run = dir_with_links()
        .args(["--json", "forget", "--force", "feedback_testing"])
        .run()
        .code(2);
    assert_eq!(run.stderr_json()["error"]["kind"], "usage");
}

#[test]
fn dry_run_changes_nothing() {
    let env = dir_with_links().env("MEMCTL_HISTORY", "off");
    let d = env.dir();
    let before = read(&d, "MEMORY.md");
    let run = env
        .args(["forget", "--dry-run", "--force", "feedback_testing"])
        .run()
        .success();
    assert!(run.stdout.starts_with("would move feedback_testing.md to .trash/<stamp>/feedback_testing.md.deleted\n--- a/MEMORY.md\n+++ b/MEMORY.md\n"), "{}", run.stdout);
    assert!(run.stdout.contains("\n-- [Testing](feedback_testing.md) — canonical\n"));
    assert_eq!(read(&d, "MEMORY.md"), before);
    assert!(d.join("feedback_testing.md").exists());
    assert!(!d.join(".trash").exists());
}

#[test]
fn several_refs_are_all_or_nothing() {
    let env = dir_with_links();
    let d = env.dir();
    let _run = env.args(["forget", "--yes", "feedback_testing", "nope"]).run().code(2);
    assert!(d.join("feedback_testing.md").exists());
    let env = dir_with_links().env("MEMCTL_HISTORY", "off");
    let d = env.dir();
    let _run = env
        .args(["forget", "--yes", "feedback_testing", "other"])
        .run()
        .success();
    assert_eq!(read(&d, "MEMORY.md"), "# Index\n");
    assert_eq!(
        read(&d, ".trash/20260310T120000Z/other.md.index-lines"),
        "- [Other](other.md) — o\n"
    );
}

#[test]
fn backlinks_from_other_memories_are_warned() {
    let run = Env::new()
        .memory("a.md", M)
        .memory("b.md", "---\nname: B\n---\nsee [a](a.md)\n")
        .index("- [A](a.md) — a\n")
        .args(["forget", "--yes", "a"])
        .run()
        .success();
    assert_eq!(
        run.stderr,
        "memctl: warning: a.md is still linked from b.md (not changed)\n"
    );
}

#[test]
fn symlinks_are_moved_as_links() {
    let env = Env::new().file("outside/target.md", b"outside\n");
    std::os::unix::fs::symlink(env.root().join("outside/target.md"), env.dir().join("link.md")).unwrap();
    std::os::unix::fs::symlink(env.root().join("nowhere.md"), env.dir().join("dangling.md")).unwrap();
    let d = env.dir();
    let root = env.root();
    let _run = env
        .env("MEMCTL_HISTORY", "off")
        .args(["forget", "--yes", "link", "dangling"])
        .run()
        .success();
    assert!(
        fs::symlink_metadata(d.join(".trash/20260310T120000Z/link.md.deleted"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(
        fs::symlink_metadata(d.join(".trash/20260310T120000Z/dangling.md.deleted"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(fs::read_to_string(root.join("outside/target.md")).unwrap(), "outside\n");
}

#[test]
fn team_files_lose_their_team_index_lines() {
    let env = Env::new()
        .env("MEMCTL_HISTORY", "off")
        .env("CLAUDE_MEMORY_STORES", r#"[{"path":"/team/app","scope":"team"}]"#)
        .memory("team/t.md", M)
        .memory("team/MEMORY.md", "- [T](t.md) — t\n- [U](u.md) — u\n");
    let d = env.dir();
    let _run = env.args(["forget", "--yes", "team/t.md"]).run().success();
    assert_eq!(read(&d, "team/MEMORY.md"), "- [U](u.md) — u\n");
    assert!(d.join(".trash/20260310T120000Z/team/t.md.deleted").exists());
}

#[test]
fn a_team_file_also_loses_its_line_in_the_main_index_claude_code_loads() {
    // Claude Code 2.1.332 loads only the main MEMORY.md (SPEC §2.13), so a team
    // memory (with a team store) is seen through its `team/…` line there: forget removes both.
    let env = Env::new()
        .env("MEMCTL_HISTORY", "off")
        .env("CLAUDE_MEMORY_STORES", r#"[{"path":"/team/app","scope":"team"}]"#)
        .memory("team/t.md", M)
        .memory("team/MEMORY.md", "- [T](t.md) — t\n- [U](u.md) — u\n")
        .index("# Index\n- [Team T](team/t.md) — shared t\n- [Team U](team/u.md) — shared u\n");
    let d = env.dir();
    let run = env.args(["forget", "--yes", "--json", "team/t.md"]).run().success();
    let doc = run.json();
    assert_eq!(read(&d, "team/MEMORY.md"), "- [U](u.md) — u\n");
    assert_eq!(read(&d, "MEMORY.md"), "# Index\n- [Team U](team/u.md) — shared u\n");
    assert_eq!(
        doc["forgotten"][0]["removed_index_lines"],
        serde_json::json!([
            {"index": "MEMORY.md", "line": 2, "text": "- [Team T](team/t.md) — shared t"},
            {"index": "team/MEMORY.md", "line": 1, "text": "- [T](t.md) — t"}
        ])
    );
    let trash = d.join(".trash/20260310T120000Z/team");
    assert_eq!(
        fs::read_to_string(trash.join("t.md.index-lines")).unwrap(),
        "- [T](t.md) — t\n"
    );
    assert_eq!(
        fs::read_to_string(trash.join("t.md.main-index-lines")).unwrap(),
        "- [Team T](team/t.md) — shared t\n"
    );
}

#[test]
fn under_team_the_main_index_line_goes_too_and_is_named_from_the_team_dir() {
    // No team store: `--team` is the plain team/ dir, whose files the main index
    // (the only one Claude Code loads) links as `team/…`.
    let env = Env::new()
        .memory("team/t.md", M)
        .memory("team/MEMORY.md", "- [T](t.md) — t\n")
        .index("- [Team T](team/t.md) — shared t\n- [Other](other.md) — o\n")
        .memory("other.md", M);
    let d = env.dir();
    let out = env
        .command()
        .args(["--team", "forget", "--dry-run", "t.md"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("--- a/../MEMORY.md\n"), "{stdout}");
    assert!(stdout.contains("-- [Team T](team/t.md) — shared t\n"), "{stdout}");
    assert_eq!(
        read(&d, "MEMORY.md"),
        "- [Team T](team/t.md) — shared t\n- [Other](other.md) — o\n"
    );
    let _run = env.args(["--team", "forget", "--yes", "t.md"]).run().success();
    assert_eq!(read(&d, "MEMORY.md"), "- [Other](other.md) — o\n");
    assert_eq!(read(&d, "team/MEMORY.md"), "");
}

#[test]
fn the_index_and_traversal_are_refused() {
    dir_with_links()
        .args(["forget", "--yes", "MEMORY.md"])
        .run()
        .code(2)
        .stderr(
            "memctl: `MEMORY.md` is the index, not a memory\nhint: use `memctl edit --index` to change the index\n",
        );
    let run = dir_with_links().args(["forget", "--yes", "../x"]).run().code(2);
    run.stderr_starts("memctl: invalid memory file name `../x`");
}

#[test]
fn trash_stamps_do_not_collide() {
    let env = Env::new()
        .env("MEMCTL_HISTORY", "off")
        .memory("a.md", M)
        .memory("b.md", M);
    let d = env.dir();
    let _run = env.args(["forget", "--yes", "a"]).run().success();
    let _run2 = Env::new()
        .env("MEMCTL_HISTORY", "off")
        .arg("--dir")
        .arg(&d)
        .args(["forget", "--yes", "b"])
        .run()
        .success();
    assert!(d.join(".trash/20260310T120000Z/a.md.deleted").exists());
    assert!(d.join(".trash/20260310T120000Z-2/b.md.deleted").exists());
}

#[test]
fn asks_on_a_terminal() {
    let env = dir_with_links();
    let d = env.dir();
    let out = crate::support::run_in_pty(
        &env,
        &["forget", "--force", "other"],
        &[("Forget other.md and 2 index lines? [y/N]", "n\r")],
    );
    assert!(out.contains("nothing forgotten"), "{out}");
    assert!(d.join("other.md").exists());
    // A key alone does nothing: the answer takes Enter.
    let out = crate::support::run_in_pty(
        &env,
        &["forget", "--force", "other"],
        &[("Forget other.md and 2 index lines? [y/N]", "y"), ("y", "\r")],
    );
    assert!(out.contains("forgot other.md (2 index lines)"), "{out}");
    assert!(!d.join("other.md").exists());
}

#[test]
fn r14_the_confirmation_needs_enter_and_is_drawn_once_when_it_wraps() {
    let mut env = Env::new().index("");
    let mut refs = Vec::new();
    for i in 0..4 {
        let rel = format!("project_a_rather_long_memory_name_{i}.md");
        env = env.memory(&rel, "---\nname: x\n---\n");
        refs.push(rel);
    }
    let d = env.dir();
    let mut args = vec!["forget"];
    args.extend(refs.iter().map(String::as_str));
    let question = "Forget project_a_rather_long_memory_name_0.md and 0 index lines";
    // `y` without Enter, then `x` and Enter (asked again), then `n` and Enter.
    let out = crate::support::run_in_pty(&env, &args, &[(question, "y"), ("y", "x\r"), ("answer y or n", "n\r")]);
    assert!(out.contains("nothing forgotten"), "{out}");
    assert_eq!(out.matches(question).count(), 2, "once per asking: {out}");
    assert!(d.join(&refs[0]).exists());
}

#[test]
fn r14_a_line_that_also_links_another_memory_refuses_without_force() {
    let env = dir_with_links();
    let d = env.dir();
    let before = read(&d, "MEMORY.md");
    let run = env.args(["forget", "--yes", "feedback_testing"]).run().code(2);
    assert_eq!(
        run.stderr,
        "memctl: the index line of feedback_testing.md (MEMORY.md:5) also links other.md: forgetting feedback_testing.md would unindex it\nhint: link the other memories on lines of their own first (memctl edit --index), or pass --force to remove the whole line\n"
    );
    assert_eq!(read(&d, "MEMORY.md"), before);
    assert!(d.join("feedback_testing.md").exists());
    assert!(!d.join(".trash").exists());
    let run = dir_with_links()
        .args(["--json", "forget", "--yes", "feedback_testing"])
        .run()
        .code(2);
    assert_eq!(run.stderr_json()["error"]["kind"], "invalid_input");
    // Forgetting both memories of the line, or a dangling second link, is no refusal.
    let _run = dir_with_links()
        .args(["forget", "--yes", "feedback_testing", "other"])
        .run()
        .success();
    let _run = Env::new()
        .memory("a.md", "---\nname: a\n---\n")
        .index("- [A](a.md) [gone](gone.md)\n")
        .args(["forget", "--yes", "a"])
        .run()
        .success();
}

#[test]
fn r14_trash_paths_have_no_stray_dot() {
    let env = Env::new().memory("a.md", "---\nname: a\n---\n").index("");
    let dot = format!("{}/.", env.dir().display());
    let run = env.args(["--dir", &dot, "forget", "--yes", "a"]).run().success();
    assert!(!run.stdout.contains("/./"), "{}", run.stdout);
}

#[test]
fn r14_ctrl_c_at_the_confirmation_shows_the_cursor_again() {
    let env = dir_with_links();
    let d = env.dir();
    let (out, status) = crate::support::run_in_pty_status(&env, &["forget", "--force", "other"], &[("[y/N]", "\x03")]);
    assert_eq!(status.code(), Some(130), "{out}");
    assert!(out.ends_with("\x1b[?25h\r\n") || out.contains("\x1b[?25h"), "{out:?}");
    assert!(d.join("other.md").exists());
}

#[test]
fn with_history_on_the_copy_stays_in_history_and_nothing_goes_to_the_trash() {
    let env = dir_with_links();
    let d = env.dir();
    let run = env
        .args(["forget", "--yes", "--force", "--json", "feedback_testing"])
        .run()
        .success();
    let doc = run.json();
    let f = &doc["forgotten"][0];
    assert_eq!(f["kept_in"], "history");
    assert_eq!(f["trash_dir"], serde_json::Value::Null);
    assert_eq!(f["trash_file"], serde_json::Value::Null);
    assert_eq!(f["index_lines_file"], serde_json::Value::Null);
    assert_eq!(f["restore"], "memctl restore feedback_testing.md");
    let id = f["snapshot"].as_str().unwrap();
    assert_eq!(id.len(), 8);
    assert!(!d.join(".trash").exists());
    assert!(!d.join("feedback_testing.md").exists());
    assert_eq!(read(&d, "MEMORY.md"), "# Index\n- [Other](other.md) — o\n");
    // The snapshot named holds the file.
    let doc = crate::restore::on(&d)
        .args(["restore", "--dry-run", "--json", "--at", id, "feedback_testing"])
        .run()
        .success()
        .json();
    assert_eq!(doc["restored"][0]["change"], "added");
}

#[test]
fn the_restore_line_repeats_the_global_options_given() {
    let env = Env::new().memory("a.md", M).index("- [A](a.md) — a\n");
    let d = env.dir();
    let run = Env::new()
        .arg("--dir")
        .arg(&d)
        .args(["forget", "--yes", "a"])
        .run()
        .success();
    let id = run
        .stdout
        .split("snapshot ")
        .nth(1)
        .unwrap()
        .split(')')
        .next()
        .unwrap()
        .to_string();
    assert_eq!(
        run.stdout,
        format!(
            "forgot a.md (1 index line)\n  kept in history (snapshot {id})\n  restore: memctl --dir {} restore a.md\n",
            d.display()
        )
    );
    drop(env);
}

#[test]
fn a_dry_run_with_history_on_says_the_copy_stays_in_history() {
    let env = dir_with_links();
    let d = env.dir();
    let run = env
        .args(["forget", "--dry-run", "--force", "feedback_testing"])
        .run()
        .success();
    assert!(
        run.stdout
            .starts_with("would remove feedback_testing.md (its copy stays in history)\n--- a/MEMORY.md\n"),
        "{}",
        run.stdout
    );
    assert!(d.join("feedback_testing.md").exists());
}

#[test]
fn with_history_on_symlinks_are_removed_as_links_and_come_back_as_links() {
    let env = Env::new().file("outside/target.md", b"outside\n");
    std::os::unix::fs::symlink(env.root().join("outside/target.md"), env.dir().join("link.md")).unwrap();
    std::os::unix::fs::symlink(env.root().join("nowhere.md"), env.dir().join("dangling.md")).unwrap();
    let d = env.dir();
    let root = env.root();
    let _run = env.args(["forget", "--yes", "link", "dangling"]).run().success();
    assert!(fs::symlink_metadata(d.join("link.md")).is_err());
    assert!(!d.join(".trash").exists());
    assert_eq!(fs::read_to_string(root.join("outside/target.md")).unwrap(), "outside\n");
    crate::restore::on(&d).args(["restore", "dangling.md"]).run().success();
    let back = fs::symlink_metadata(d.join("dangling.md")).unwrap();
    assert!(back.file_type().is_symlink());
    assert_eq!(fs::read_link(d.join("dangling.md")).unwrap(), root.join("nowhere.md"));
}

/// Issue 32 point 21: `forget --help` and the man pages said the copy goes to
/// `.trash/`; with history on (the default) it is kept in the history snapshot
/// (SPEC v3 §3.13), `.trash/` only with history off or failing.
#[test]
fn help_and_man_say_where_forget_keeps_the_copy() {
    let help = Env::new().args(["forget", "--help"]).run().success().stdout;
    assert!(
        help.contains("keeping a copy in history (.trash/ with history off)"),
        "{help}"
    );
    assert!(!help.contains("would move to .trash/"), "{help}");
    let man = Env::new().args(["man", "forget"]).run().success().stdout;
    assert!(!man.contains("keeping a copy in .trash/"), "{man}");
    assert!(man.contains("when history is off"), "{man}");
    let global = Env::new().args(["--help"]).run().success().stdout;
    assert!(global.contains("--no-history"), "{global}");
}
