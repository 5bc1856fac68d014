//! `memctl list` (SPEC §3.4) and the scan it shows (§2.5, §2.6).

use crate::support::{Env, iso_hours_before_now};

fn fm(ty: &str, desc: &str) -> String {
    format!("---\ntype: {ty}\ndescription: {desc}\n---\n")
}

/// The directory of Appendix A.9.
fn a9() -> Env {
    let late = format!("---\n{}description: late\n---\n", "# filler\n".repeat(30));
    let at30 = format!("---\ndescription: just fits\n{}---\n", "# c\n".repeat(27));
    let env = Env::new()
        .index("- [a](a.md) — alpha\n")
        .memory_aged("team/MEMORY.md", "- [t](t.md) — team\n", 1.0)
        .memory_aged("sub/deeper/c.md", &fm("project", "nested"), 2.4)
        .memory_aged("b.md", "no frontmatter\n", 24.0)
        .memory_aged(".dot.md", &fm("reference", "dot file"), 48.0)
        .memory_aged(".hidden/h.md", &fm("reference", "hidden dir"), 48.0)
        .memory_aged("a.md", &fm("feedback", "alpha"), 72.0)
        .memory_aged("late.md", &late, 84.0)
        .memory_aged("at30.md", &at30, 96.0)
        .memory_aged("team/t.md", &fm("user", "team note"), 120.0)
        .memory_aged("bad.md", "---\ndescription: - dash\ntype: user\n---\n", 144.0)
        .memory_aged("UPPER.MD", &fm("user", "upper"), 1.0)
        .memory_aged("notes.txt", "x", 1.0);
    std::fs::create_dir(env.dir().join("dir.md")).unwrap();
    env
}

#[test]
fn manifest_matches_appendix_a9() {
    a9().args(["list", "--format", "manifest"])
        .run()
        .success()
        .stdout(
            "- [project] sub/deeper/c.md (2026-03-10T09:36:00.000Z): nested
- b.md (2026-03-09T12:00:00.000Z)
- [feedback] a.md (2026-03-07T12:00:00.000Z): alpha
- late.md (2026-03-07T00:00:00.000Z)
- at30.md (2026-03-06T12:00:00.000Z): just fits
- [user] team/t.md (2026-03-05T12:00:00.000Z): team note
- bad.md (2026-03-04T12:00:00.000Z)
",
        )
        .stderr(
            "memctl: warning: dir.md: is a directory, not a memory file; Claude Code drops it\n\
             memctl: note: 2 files under paths Claude Code does not scan are not shown (use --all)\n",
        );
}

#[test]
fn piped_table_is_tab_separated_records() {
    a9().args(["list"]).run().success().stdout(
        "project\tsub/deeper/c.md\t0\tno\t-\tnested
-\tb.md\t1\tno\t-\t-
feedback\ta.md\t3\tyes\t-\talpha
-\tlate.md\t3\tno\t-\t-
-\tat30.md\t4\tno\t-\tjust fits
user\tteam/t.md\t5\tno\t-\tteam note
-\tbad.md\t6\tno\t-\t-
",
    );
}

#[test]
fn json_reports_statuses_and_index_lines() {
    let run = a9().args(["list", "--json"]).run().success().stderr("");
    let doc = run.json();
    // (2.1.332) `.dot.md` and `.hidden/h.md` are not in Claude Code's scan.
    assert_eq!(doc["total"], 7);
    assert_eq!(doc["shown"], 7);
    assert_eq!(doc["excluded_by_scan"], 2);
    assert_eq!(doc["cap"], 200);
    assert_eq!(doc["capped"], false);
    assert_eq!(
        doc["warnings"],
        serde_json::json!([
            "dir.md: is a directory, not a memory file; Claude Code drops it",
            "note: 2 files under paths Claude Code does not scan are not shown (use --all)"
        ])
    );
    let entries = doc["entries"].as_array().unwrap();
    let by = |f: &str| entries.iter().find(|e| e["file"] == f).unwrap().clone();
    assert_eq!(by("late.md")["frontmatter_status"], "beyond-window");
    assert_eq!(by("bad.md")["frontmatter_status"], "failed");
    assert_eq!(by("b.md")["frontmatter_status"], "none");
    let a = by("a.md");
    assert_eq!(a["indexed"], true);
    assert_eq!(a["index_lines"], serde_json::json!([1]));
    assert_eq!(a["type"], "feedback");
    assert_eq!(a["claude_type"], "feedback");
    assert_eq!(a["type_source"], "flat");
    assert_eq!(a["mtime"], iso_hours_before_now(72.0));
    assert_eq!(a["age_days"], 3);
    assert_eq!(a["age"], "3 days ago");
    assert_eq!(a["in_claude_view"], true);
    assert!(a["path"].as_str().unwrap().ends_with("/mem/a.md"));
    assert_eq!(
        doc["memory_dir"].as_str().unwrap(),
        a["path"].as_str().unwrap().trim_end_matches("a.md")
    );
    // Without a team store, Claude Code 2.1.332 never loads team/MEMORY.md: the
    // team file is indexed only by a line of the main MEMORY.md (SPEC §2.13).
    assert_eq!(by("team/t.md")["index_lines"], serde_json::json!([]));
    assert_eq!(by("team/t.md")["indexed"], false);
}

#[test]
fn nested_types_are_claude_codes_types_in_the_manifest() {
    // (2.1.332) `metadata.type` is the type Claude Code reads (SPEC §2.4.1).
    let nested = "---\nname: n\ndescription: d\nmetadata:\n  type: feedback\n---\n";
    let env = Env::new().memory("n.md", nested);
    env.args(["list", "--format", "manifest"])
        .run()
        .success()
        .stdout("- [feedback] n.md (2026-03-09T12:00:00.000Z): d\n");
    let run = Env::new()
        .memory("n.md", nested)
        .args(["list", "--json"])
        .run()
        .success();
    let e = &run.json()["entries"][0];
    assert_eq!(e["type"], "feedback");
    assert_eq!(e["type_source"], "nested");
    assert_eq!(e["claude_type"], "feedback");
}

#[test]
fn type_filter_matches_resolved_type_and_none() {
    let env = Env::new()
        .memory_aged("u.md", &fm("user", "u"), 1.0)
        .memory_aged("f.md", &fm("feedback", "f"), 2.0)
        .memory_aged("x.md", "plain\n", 3.0)
        .memory_aged("n.md", "---\nmetadata:\n  type: user\n---\n", 4.0);
    let d = env.dir_shown();
    env.args(["list", "--type", "user", "--type", "none", "--format", "paths"])
        .run()
        .success()
        .stdout(&format!("{d}u.md\n{d}x.md\n{d}n.md\n"));
}

#[test]
fn manifest_type_filter_uses_claude_type() {
    Env::new()
        .memory_aged("u.md", &fm("user", "u"), 1.0)
        .memory_aged("n.md", "---\nmetadata:\n  type: user\n---\n", 4.0)
        .args(["list", "--type", "user", "--format", "manifest"])
        .run()
        .success()
        .stdout("- [user] u.md (2026-03-10T11:00:00.000Z): u\n- [user] n.md (2026-03-10T08:00:00.000Z)\n");
}

#[test]
fn r14_type_in_another_case_is_read_with_a_note_and_short_flags_work() {
    Env::new()
        .memory_aged("u.md", "---\ndescription: u\ntype: user\n---\n", 1.0)
        .args(["list", "-t", "User", "-f", "manifest"])
        .run()
        .success()
        .stderr("memctl: note: --type `User` read as `user`\n")
        .stdout("- [user] u.md (2026-03-10T11:00:00.000Z): u\n");
}

#[test]
fn invalid_type_is_invalid_input_with_a_hint() {
    Env::new()
        .args(["list", "--type", "feedbak"])
        .run()
        .code(2)
        .stdout("")
        .stderr("memctl: invalid type `feedbak`: expected one of user, feedback, project, reference, none\nhint: did you mean `feedback`?\n");
}

#[test]
fn cap_keeps_the_200_newest_and_says_so() {
    let mut env = Env::new();
    for i in 0..203 {
        env = env.memory_aged(&format!("m{i:03}.md"), "---\ntype: user\n---\n", f64::from(i));
    }
    let run = env.args(["list", "--format", "manifest"]).run().success();
    assert_eq!(run.stdout.lines().count(), 200);
    assert!(run.stdout.ends_with("m199.md (2026-03-02T05:00:00.000Z)\n"));
    assert_eq!(
        run.stderr,
        "memctl: note: 3 more files are not shown: Claude Code sees only the 200 most recently modified (use --all)\n"
    );
}

#[test]
fn all_lifts_the_cap_and_marks_files_claude_cannot_see() {
    let mut env = Env::new();
    for i in 0..202 {
        env = env.memory_aged(&format!("m{i:03}.md"), "---\ntype: user\n---\n", f64::from(i));
    }
    let run = env.args(["list", "--all", "--json"]).run().success();
    let doc = run.json();
    assert_eq!(doc["total"], 202);
    assert_eq!(doc["shown"], 202);
    assert_eq!(doc["capped"], false);
    assert_eq!(doc["entries"][199]["in_claude_view"], true);
    assert_eq!(doc["entries"][200]["in_claude_view"], false);
    assert_eq!(
        doc["warnings"],
        serde_json::json!([
            "note: 2 of these files are not seen by Claude Code: it sees only the 200 most recently modified"
        ])
    );
}

#[test]
fn missing_resolved_dir_lists_nothing() {
    Env::new()
        .resolved()
        .args(["list"])
        .run()
        .success()
        .stdout("")
        .stderr("");
    Env::new()
        .resolved()
        .args(["list", "--format", "manifest"])
        .run()
        .success()
        .stdout("");
}

#[test]
fn descriptions_that_are_not_strings_print_as_javascript_does() {
    Env::new()
        .memory_aged("a.md", "---\ndescription: [1, [2, 3], null, a]\n---\n", 1.0)
        .memory_aged("b.md", "---\ndescription: {a: 1}\n---\n", 2.0)
        .memory_aged("c.md", "---\ndescription: |\n  two\n  lines\n---\n", 3.0)
        .memory_aged("d.md", "---\ndescription: 0\n---\n", 4.0)
        .args(["list", "--format", "manifest"])
        .run()
        .success()
        // (2.1.332) A non-string description is dropped; a multi-line one is printed.
        .stdout("- a.md (2026-03-10T11:00:00.000Z)\n- b.md (2026-03-10T10:00:00.000Z)\n- c.md (2026-03-10T09:00:00.000Z): two\nlines\n\n- d.md (2026-03-10T08:00:00.000Z)\n");
}

#[test]
fn records_replace_tabs_and_newlines_in_values() {
    Env::new()
        .memory(
            "a.md",
            "---\nname: \"tab\\there\"\ndescription: |\n  two\n  lines\n---\n",
        )
        .args(["list"])
        .run()
        .success()
        .stdout("-\ta.md\t1\tno\ttab here\ttwo lines \n");
}

#[test]
fn unreadable_entries_warn_and_are_dropped() {
    let env = Env::new().memory("ok.md", "---\ntype: user\n---\n");
    std::os::unix::fs::symlink(env.root().join("nowhere"), env.dir().join("gone.md")).unwrap();
    env.args(["list", "--format", "manifest"])
        .run()
        .success()
        .stdout("- [user] ok.md (2026-03-09T12:00:00.000Z)\n")
        .stderr("memctl: warning: gone.md: dangling symlink; Claude Code drops it\n");
}

#[test]
fn non_utf8_names_are_warned_with_escapes() {
    use std::os::unix::ffi::OsStrExt;
    let env = Env::new();
    std::fs::write(env.dir().join(std::ffi::OsStr::from_bytes(b"bad\xff.md")), "x").unwrap();
    env.args(["list"]).run().success().stdout("").stderr(
        "memctl: warning: bad\\xff.md: file name is not valid UTF-8; Claude Code cannot open it (rename it with mv)\n",
    );
}

#[test]
fn symlinked_directories_are_followed_and_cycles_skipped() {
    let env = Env::new().file("elsewhere/x.md", b"---\ntype: user\n---\n");
    std::os::unix::fs::symlink(env.root().join("elsewhere"), env.dir().join("linked")).unwrap();
    std::os::unix::fs::symlink(env.dir(), env.dir().join("loop")).unwrap();
    let run = env.args(["list", "--format", "manifest"]).run().success();
    assert!(run.stdout.contains("[user] linked/x.md"), "{}", run.stdout);
    assert_eq!(run.stderr, "memctl: warning: loop: symlink cycle, skipped\n");
}

#[test]
fn team_flag_lists_the_team_dir_with_its_own_index() {
    Env::new()
        .memory("x.md", "---\ntype: user\n---\n")
        .memory("team/t.md", "---\ntype: project\n---\n")
        .memory("team/MEMORY.md", "- [t](t.md) — team\n")
        .args(["--team", "list"])
        .run()
        .success()
        .stdout("project\tt.md\t1\tyes\t-\t-\n");
}

#[test]
fn non_utf8_memory_dir_marks_json_lossy() {
    use std::os::unix::ffi::OsStrExt;
    let env = Env::new();
    let dir = env.root().join(std::ffi::OsStr::from_bytes(b"m\xffem"));
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("a.md"), "---\ntype: user\n---\n").unwrap();
    let doc = env
        .arg("--dir")
        .arg(&dir)
        .args(["list", "--json"])
        .run()
        .success()
        .json();
    assert_eq!(doc["lossy"], true);
    assert!(doc["entries"][0]["path"].as_str().unwrap().contains("m\u{fffd}em/a.md"));
    let plain = Env::new().args(["list", "--json"]).run().success().json();
    assert_eq!(plain.get("lossy"), None);
}

/// Issue 12 §2: `modified_field` follows `origin_session_id`; a string, else null.
#[test]
fn json_entries_carry_the_modified_field() {
    let run = Env::new()
        .memory_aged("a.md", "---\nname: A\nmodified: 2026-07-21T13:53:16.297Z\n---\n", 1.0)
        .memory_aged(
            "b.md",
            "---\nname: B\nmetadata:\n  type: user\n  modified: '2026-07-20'\n---\n",
            2.0,
        )
        .memory_aged("c.md", "---\nname: C\nmodified: 20260721\n---\n", 3.0)
        .memory_aged("d.md", "---\nname: D\n---\n", 4.0)
        .args(["list", "--json"])
        .run()
        .success();
    let doc = run.json();
    let got: Vec<_> = doc["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["file"].clone(), e["modified_field"].clone()))
        .collect();
    assert_eq!(
        got,
        [
            ("a.md".into(), "2026-07-21T13:53:16.297Z".into()),
            ("b.md".into(), "2026-07-20".into()),
            ("c.md".into(), serde_json::Value::Null),
            ("d.md".into(), serde_json::Value::Null),
        ]
    );
    let keys: Vec<_> = doc["entries"][0].as_object().unwrap().keys().cloned().collect();
    let at = keys.iter().position(|k| k == "origin_session_id").unwrap();
    assert_eq!(keys[at + 1], "modified_field");
}

/// The visible width of each line of a terminal screen (SGR codes and CRs removed).
fn screen_widths(screen: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for line in screen.split('\n') {
        let mut plain = String::new();
        let mut chars = line.chars();
        while let Some(c) = chars.next() {
            if c == '\x1b' {
                for c in chars.by_ref() {
                    if c.is_ascii_alphabetic() {
                        break;
                    }
                }
            } else if c != '\r' {
                plain.push(c);
            }
        }
        out.push((plain.chars().count(), plain));
    }
    out
}

fn wide_dir() -> Env {
    let long = |ty: &str, n: usize| {
        format!(
            "---\nname: {ty}-{n}-discogs-cover-art-complete\ndescription: Issue {n} shipped, Discogs albums got their cover art from the release page and the fallback\ntype: {ty}\n---\nbody\n"
        )
    };
    Env::new()
        .memory_aged("project_1200_discogs_cover_art_complete.md", &long("project", 1200), 1.0)
        .memory_aged("reference_829_spectral_calibration_notes.md", &long("reference", 829), 2.0)
        .memory_aged(
            "feedback_nested_type.md",
            "---\nname: A title that says more than the file name\ndescription: nested\nmetadata:\n  type: feedback\n---\n",
            3.0,
        )
        .index("- [P](project_1200_discogs_cover_art_complete.md) — p\n")
}

/// Issue 14 point 1: at 40, 60 and 80 columns the table was 101 columns wide.
#[test]
fn table_fits_the_terminal_at_40_60_and_80_columns() {
    for cols in ["40", "60", "80"] {
        let env = wide_dir().env("COLUMNS", cols);
        let screen = crate::support::run_in_pty(&env, &["list"], &[]);
        let width: usize = cols.parse().unwrap();
        for (w, line) in screen_widths(&screen) {
            assert!(w <= width, "{cols} columns: {w} wide: {line:?}\n{screen}");
        }
        assert!(screen.contains("TYPE"), "{screen}");
        // The description stays readable: at least its first words.
        assert!(screen.contains("Issue 1200 shipped"), "{cols}:\n{screen}");
        // FILE keeps its start and its extension.
        assert!(
            screen.lines().any(|l| l.contains("project_") && l.contains(".md")),
            "{cols}:\n{screen}"
        );
        // A name that only spells the stem is not repeated.
        assert!(!screen.contains("project-1200"), "{cols}:\n{screen}");
    }
}

/// Issue 14 point 2: an entry past the cut showed IDX `yes` and `"indexed": true` only.
#[test]
fn entries_past_the_cut_show_cut_and_are_not_loaded() {
    let index = format!(
        "- [A](a.md) — {}\n- [B](b.md) — {}\n- [C](c.md) — c\n",
        "x".repeat(15_000),
        "y".repeat(15_000)
    );
    let env = || {
        Env::new()
            .memory_aged("a.md", "---\ndescription: a\ntype: user\n---\n", 1.0)
            .memory_aged("c.md", "---\ndescription: c\ntype: user\n---\n", 2.0)
            .memory_aged("d.md", "---\ndescription: d\ntype: user\n---\n", 3.0)
            .index(&index)
    };
    let run = env().args(["list", "--json"]).run().success();
    let entries = run.json()["entries"].as_array().unwrap().clone();
    let got: Vec<(String, bool, bool)> = entries
        .iter()
        .map(|e| {
            (
                e["file"].as_str().unwrap().to_string(),
                e["indexed"].as_bool().unwrap(),
                e["loaded"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("a.md".into(), true, true),
            ("c.md".into(), true, false),
            ("d.md".into(), false, false)
        ]
    );
    let keys: Vec<&String> = entries[0].as_object().unwrap().keys().collect();
    // (2.1.332) `excluded_by` and `description_raw` are appended after `loaded`.
    assert_eq!(keys[keys.len() - 3..], ["loaded", "excluded_by", "description_raw"]);
    // Piped records keep yes|no.
    let run = env().args(["list"]).run().success();
    assert!(run.stdout.contains("user\tc.md\t0\tyes\t"), "{}", run.stdout);
    // A terminal shows `cut`, in colour.
    let screen = crate::support::run_in_pty(&env(), &["list", "--color", "always"], &[]);
    let c_line = screen.lines().find(|l| l.contains("c.md")).unwrap();
    assert!(c_line.contains("\x1b[33mcut\x1b[0m"), "{screen:?}");
    let a_line = screen.lines().find(|l| l.contains("a.md")).unwrap();
    assert!(a_line.contains("yes"), "{screen:?}");
}

/// Issue 14 point 23; (2.1.332) a nested type is a type: `none` is untyped only.
#[test]
fn type_none_is_what_claude_code_reads_as_untyped() {
    let env = Env::new()
        .memory_aged("u.md", &fm("user", "u"), 1.0)
        .memory_aged("x.md", "plain\n", 3.0)
        .memory_aged("n.md", "---\nmetadata:\n  type: user\n---\n", 4.0);
    let d = env.dir_shown();
    env.args(["list", "--type", "none", "--format", "paths"])
        .run()
        .success()
        .stdout(&format!("{d}x.md\n"));
    let env = Env::new().memory_aged("u.md", &fm("user", "u"), 1.0).memory_aged(
        "n.md",
        "---\nmetadata:\n  type: user\n---\n",
        4.0,
    );
    let run = env.args(["list", "--type", "none", "--json"]).run().success();
    let files: Vec<&str> = run.json()["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["file"].as_str().unwrap().to_owned().leak() as &str)
        .collect();
    assert!(files.is_empty(), "{files:?}");
}

/// Issue 14 point 9: empty states said nothing on a terminal.
#[test]
fn empty_states_say_something_on_a_terminal_only() {
    let env = Env::new().resolved();
    let screen = crate::support::run_in_pty(&env, &["list"], &[]);
    assert!(screen.contains("no memories yet in "), "{screen}");
    assert!(
        screen.contains("memory/ — Claude Code creates it on the first save"),
        "{screen}"
    );
    let screen = crate::support::run_in_pty(&Env::new(), &["list"], &[]);
    assert!(screen.starts_with("no memories yet in "), "{screen}");
    assert!(!screen.contains("TYPE"), "{screen}");
    let env = Env::new().memory_aged("u.md", &fm("user", "u"), 1.0);
    let screen = crate::support::run_in_pty(&env, &["list", "--type", "feedback"], &[]);
    assert!(
        screen.starts_with("no memory of type feedback in ") && screen.contains("(1 memory of other types)"),
        "{screen}"
    );
    // Piped output stays empty, on both streams.
    Env::new()
        .memory_aged("u.md", &fm("user", "u"), 1.0)
        .args(["list", "--type", "feedback"])
        .run()
        .success()
        .stdout("")
        .stderr("");
}

/// Issue 14 point 10: `list` did not say that auto memory is disabled.
#[test]
fn disabled_auto_memory_is_noted_once() {
    let run = Env::new()
        .resolved()
        .env("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "1")
        .args(["list"])
        .run()
        .success();
    assert_eq!(
        run.stderr,
        "memctl: note: auto memory is disabled (env CLAUDE_CODE_DISABLE_AUTO_MEMORY=1): Claude Code loads none of these memories\n"
    );
}
