//! `memctl show REF` (SPEC §3.2, §3.5).

use crate::support::Env;

const TESTING: &str = "---\nname: Testing policy\ndescription: Integration tests hit a real DB\ntype: feedback\n---\n\nUse the real DB.\n\n**Why:** mocks hid a bug.\n";

const FRESHNESS: &str = "This memory is 47 days old. Memories are point-in-time observations, not live state — claims about code behavior or file:line citations may be outdated. Verify against current code before asserting as fact.";

#[test]
fn shows_header_freshness_and_body() {
    let env = Env::new()
        .memory_aged("feedback_testing.md", TESTING, 47.0 * 24.0)
        .index("# Index\n- [Testing](feedback_testing.md) — x\n");
    let d = env.dir_shown();
    env.args(["show", "feedback_testing"])
        .run()
        .success()
        .stderr("")
        .stdout(&format!(
            "feedback_testing.md
  name:         Testing policy
  type:         feedback (top-level type)
  description:  Integration tests hit a real DB
  modified:     2026-01-22T12:00:00.000Z (47 days ago)
  indexed:      MEMORY.md:2
  path:         {d}feedback_testing.md

what the model sees first (Claude Code's freshness note):
  {FRESHNESS}

Use the real DB.

**Why:** mocks hid a bug.
"
        ));
}

#[test]
fn fresh_memories_have_no_freshness_paragraph() {
    let run = Env::new()
        .memory_aged("a.md", "---\nname: A\n---\nbody\n", 30.0)
        .args(["show", "a.md"])
        .run()
        .success();
    assert!(run.stdout.contains("  indexed:      no\n"));
    assert!(run.stdout.ends_with("\n\nbody\n"), "{}", run.stdout);
    assert!(!run.stdout.contains("days old"));
}

#[test]
fn resolves_by_name_case_insensitively() {
    let run = Env::new()
        .memory("feedback_testing.md", TESTING)
        .args(["show", "testing POLICY"])
        .run()
        .success();
    assert!(run.stdout.starts_with("feedback_testing.md\n"));
}

#[test]
fn ambiguous_names_list_every_candidate() {
    let env = Env::new()
        .memory("a.md", "---\nname: Same\n---\n")
        .memory("b.md", "---\nname: Same\n---\n");
    let d = env.dir_shown();
    env.args(["show", "Same"]).run().code(2).stdout("").stderr(&format!(
        "memctl: `Same` matches several memories in {d}: a.md (Same), b.md (Same)\nhint: name the file instead, e.g. its relative path\n"
    ));
}

#[test]
fn unknown_names_suggest_near_ones() {
    let env = Env::new().memory("deploy-note.md", "x\n");
    let d = env.dir_shown();
    env.args(["show", "deploy-notes"]).run().code(2).stderr(&format!(
        "memctl: no memory named `deploy-notes` in {d}\nhint: did you mean `deploy-note`?\n"
    ));
}

#[test]
fn traversal_is_rejected_before_any_access() {
    for bad in ["../x", "/etc/passwd", "a/../../b.md", "a\nb"] {
        let run = Env::new().args(["show", bad]).run().code(2);
        assert!(
            run.stderr.contains("must be a relative path inside the memory dir")
                || run.stderr.contains("control characters"),
            "{bad:?}: {}",
            run.stderr
        );
        run.stderr_starts("memctl: invalid memory file name");
    }
}

#[test]
fn the_index_is_not_a_memory() {
    Env::new().index("x\n").args(["show", "MEMORY.md"]).run().code(2).stderr(
        "memctl: `MEMORY.md` is the index, not a memory\nhint: use `memctl truncate-check --print-loaded` to see what Claude Code loads, or `memctl edit --index` to change it\n",
    );
}

#[test]
fn raw_prints_the_bytes_unchanged() {
    let bytes = "\u{feff}---\r\nname: A\r\n---\r\nbody\r\n";
    Env::new()
        .memory("a.md", bytes)
        .args(["show", "--raw", "a"])
        .run()
        .success()
        .stdout(bytes)
        .stderr("");
}

#[test]
fn raw_with_json_is_a_usage_error() {
    let run = Env::new()
        .memory("a.md", "x")
        .args(["--json", "show", "--raw", "a"])
        .run()
        .code(2);
    assert_eq!(run.stderr_json()["error"]["kind"], "usage");
}

#[test]
fn json_carries_frontmatter_and_body() {
    let env = Env::new().memory_aged("feedback_testing.md", TESTING, 47.0 * 24.0);
    let d = env.dir_shown();
    let run = env.args(["show", "--json", "Testing policy"]).run().success();
    let doc = run.json();
    assert_eq!(doc["file"], "feedback_testing.md");
    assert_eq!(
        doc["frontmatter"],
        serde_json::json!({"name": "Testing policy", "description": "Integration tests hit a real DB", "type": "feedback"})
    );
    assert_eq!(doc["frontmatter_status"], "ok");
    assert_eq!(doc["body"], "Use the real DB.\n\n**Why:** mocks hid a bug.\n");
    assert_eq!(doc["age_days"], 47);
    assert_eq!(doc["freshness_text"], FRESHNESS);
    assert_eq!(
        doc["recall_header"],
        format!("{FRESHNESS}\n\nMemory: {d}feedback_testing.md:")
    );
    assert_eq!(doc["indexed"], false);
    assert_eq!(doc["size_bytes"], TESTING.len());
    assert_eq!(doc["warnings"], serde_json::json!([]));
}

#[test]
fn retried_frontmatter_is_flagged() {
    let run = Env::new()
        .memory("p.md", "---\nname: Project Context: SS\ntype: project\n---\n")
        .args(["show", "p"])
        .run()
        .success();
    assert!(run.stdout.contains("  name:         Project Context: SS\n"));
    assert!(
        run.stdout
            .contains("  frontmatter:  retried — parsed only thanks to Claude Code's quote-retry (ML111)\n"),
        "{}",
        run.stdout
    );
}

#[test]
fn notes_when_the_scan_window_sees_less() {
    let text = format!(
        "---\n{}description: late\ntype: user\n---\nbody\n",
        "# filler\n".repeat(30)
    );
    let run = Env::new()
        .memory("late.md", &text)
        .args(["show", "late"])
        .run()
        .success();
    assert!(run.stdout.contains("  description:  late\n"));
    assert_eq!(
        run.stderr,
        "memctl: note: Claude Code's scan reads only the first 30 lines (64 KiB) of late.md and sees: frontmatter beyond-window, no description, untyped\n"
    );
}

#[test]
fn files_with_nul_bytes_print_when_piped() {
    Env::new()
        .memory("bin.md", "a\0b\n")
        .args(["show", "bin"])
        .run()
        .success();
}

/// Issue 12 §2: the frontmatter's `modified` in the JSON and as its own text row.
#[test]
fn modified_field_in_json_and_text() {
    let text = "---\nname: A\nmetadata:\n  modified: 2026-03-03T12:00:00.000Z\n---\nbody\n";
    let env = Env::new().memory_aged("a.md", text, 1.0);
    let run = env.args(["show", "a.md", "--json"]).run().success();
    assert_eq!(run.json()["modified_field"], "2026-03-03T12:00:00.000Z");
    let run = Env::new()
        .memory_aged("a.md", text, 1.0)
        .args(["show", "a.md"])
        .run()
        .success();
    assert!(
        run.stdout.contains(
            "  modified:               2026-03-10T11:00:00.000Z (today)\n  modified (frontmatter): 2026-03-03T12:00:00.000Z (7 days ago)\n  indexed:                no\n"
        ),
        "{}",
        run.stdout
    );
    let run = Env::new()
        .memory_aged("a.md", "---\nname: A\nmodified: 42\n---\n", 1.0)
        .args(["show", "a.md"])
        .run()
        .success();
    assert!(
        run.stdout
            .contains("  modified (frontmatter): 42 (not a string; not used)\n"),
        "{}",
        run.stdout
    );
    let run = Env::new()
        .memory_aged("a.md", "---\nname: A\nmodified: 42\n---\n", 1.0)
        .args(["show", "a.md", "--json"])
        .run()
        .success();
    assert_eq!(run.json()["modified_field"], serde_json::Value::Null);
    let run = Env::new()
        .memory_aged("a.md", "---\nname: A\n---\n", 1.0)
        .args(["show", "a.md"])
        .run()
        .success();
    assert!(!run.stdout.contains("frontmatter)"), "{}", run.stdout);
}

/// An index of 3 lines whose third line is past the 25 000-unit cut.
fn cut_index() -> String {
    format!(
        "- [A](a.md) — {}\n- [B](b.md) — {}\n- [C](c.md) — c\n",
        "x".repeat(15_000),
        "y".repeat(15_000)
    )
}

/// Issue 14 point 2: an entry past the cut was shown as plainly indexed.
#[test]
fn entries_past_the_cut_are_not_loaded() {
    let env = || {
        Env::new()
            .memory_aged("a.md", "---\nname: A\n---\na\n", 1.0)
            .memory_aged("c.md", "---\nname: C\n---\nc\n", 1.0)
            .index(&cut_index())
    };
    let run = env().args(["show", "c"]).run().success();
    assert!(
        run.stdout
            .contains("  indexed:      MEMORY.md:3 (past the cut: not loaded)\n"),
        "{}",
        run.stdout
    );
    let run = env().args(["show", "a"]).run().success();
    assert!(run.stdout.contains("  indexed:      MEMORY.md:1\n"), "{}", run.stdout);
    let doc = env().args(["show", "c", "--json"]).run().success().json();
    assert_eq!(
        (doc["indexed"].clone(), doc["loaded"].clone()),
        (true.into(), false.into())
    );
    let keys: Vec<&String> = doc.as_object().unwrap().keys().collect();
    assert_eq!(keys[keys.len() - 2..], ["loaded", "warnings"]);
    let doc = env().args(["show", "a", "--json"]).run().success().json();
    assert_eq!(doc["loaded"], true);
}

/// (2.1.332) The type line names where Claude Code reads the type, and a top-level
/// type that `metadata.type` overrides (SPEC §3.5).
#[test]
fn type_line_names_where_claude_code_reads_it() {
    let run = Env::new()
        .memory_aged("n.md", "---\nname: N\nmetadata:\n  type: feedback\n---\nn\n", 1.0)
        .args(["show", "n"])
        .run()
        .success();
    assert!(
        run.stdout.contains("  type:         feedback (metadata.type)\n"),
        "{}",
        run.stdout
    );
    let run = Env::new()
        .memory_aged(
            "b.md",
            "---\nname: b\ndescription: 42\ntype: user\nmetadata:\n  type: project\n---\nb\n",
            1.0,
        )
        .args(["show", "b"])
        .run()
        .success();
    assert!(
        run.stdout
            .contains("  type:         project (metadata.type; top-level type user ignored: ML109)\n"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("  description:  (none: 42 is not a string)\n"),
        "{}",
        run.stdout
    );
}

/// Issue 14 point 23: the freshness text stood unlabelled between header and body.
#[test]
fn freshness_text_is_labelled_as_what_the_model_sees() {
    let run = Env::new()
        .memory_aged("feedback_testing.md", TESTING, 47.0 * 24.0)
        .args(["show", "feedback_testing"])
        .run()
        .success();
    assert!(
        run.stdout.contains(&format!(
            "\nwhat the model sees first (Claude Code's freshness note):\n  {FRESHNESS}\n\nUse the real DB."
        )),
        "{}",
        run.stdout
    );
    let env = Env::new()
        .memory_aged("feedback_testing.md", TESTING, 47.0 * 24.0)
        .env("COLUMNS", "80");
    let screen = crate::support::run_in_pty(&env, &["show", "feedback_testing"], &[]);
    assert!(
        screen.contains("what the model sees first (Claude Code's freshness note):\r\n  This memory is 47 days old."),
        "{screen:?}"
    );
    assert!(
        screen.lines().all(|l| l.trim_end_matches('\r').chars().count() <= 80),
        "{screen}"
    );
}

/// How many memories other than `user_3.md` `memctl show REF` opens in a dir of
/// `n` memories (strace; `None` without it), and what it prints.
fn show_opens(n: usize, reference: &str) -> Option<(usize, String)> {
    let mut env = Env::new();
    for i in 0..n {
        env = env.memory(
            &format!("user_{i}.md"),
            &format!("---\nname: m{i}\ndescription: d\ntype: user\n---\nbody {i}\n"),
        );
    }
    let env = env.index("# Index\n- [M0](user_0.md) — m\n");
    let trace = env.root().join("trace");
    let cmd = env.command();
    let mut strace = std::process::Command::new("strace");
    strace
        .args(["-f", "-e", "trace=open,openat", "-o"])
        .arg(&trace)
        .arg(cmd.get_program())
        .args(cmd.get_args())
        .args(["show", reference])
        .stdin(std::process::Stdio::null());
    for (k, v) in cmd.get_envs() {
        match v {
            Some(v) => strace.env(k, v),
            None => strace.env_remove(k),
        };
    }
    let out = strace.output().ok()?;
    if !trace.exists() {
        return None;
    }
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&trace).unwrap();
    // Memories other than the one shown.
    let opens = text
        .lines()
        .filter(|l| l.contains("user_") && !l.contains("user_3.md"))
        .count();
    let root = env.root().display().to_string();
    Some((opens, String::from_utf8_lossy(&out.stdout).replace(&root, "<root>")))
}

/// Issue 31, SPEC §3.2: `show` of an exact relative path opens that file, not
/// every memory of the dir (the whole dir was scanned before resolving it); a
/// name still scans. Counted with strace (skipped without it).
#[test]
fn show_of_an_exact_path_opens_only_that_file() {
    let (Some((exact, text)), Some((name, by_name))) = (show_opens(12, "user_3.md"), show_opens(12, "m3")) else {
        eprintln!("strace is not installed: skipped");
        return;
    };
    assert!(text.starts_with("user_3.md\n  name:         m3\n"), "{text}");
    assert_eq!(text, by_name);
    assert_eq!(exact, 0, "other memories opened for show user_3.md");
    assert!(name >= 11, "show m3 reads every memory: {name}");
}

/// Review finding 12: `show .hidden.md` found the file through the exact-path
/// shortcut while `list` leaves it out, and said nothing about it. Resolution
/// considers every `.md` file, also those Claude Code's scan skips (SPEC §3.2),
/// by each step alike (exact path, stem, name); `show` now says the file is never
/// scanned, as `list` does.
#[test]
fn a_file_claude_code_never_scans_is_shown_by_every_step_and_says_so() {
    let text = "---\nname: Hidden rule\ndescription: d\ntype: user\n---\nbody\n";
    let env = || {
        Env::new().memory_aged(".hidden.md", text, 30.0).memory_aged(
            "logs/x.md",
            text.replace("Hidden", "Log").as_str(),
            30.0,
        )
    };
    let mut outs = Vec::new();
    for r in [".hidden.md", ".hidden", "Hidden rule"] {
        let run = env().args(["show", r]).run().success();
        outs.push(run.stdout.replace(&run_dir(&run), "<dir>/"));
    }
    assert!(
        outs[0].contains(
            "  scanned:      no — under a dot-named path: Claude Code never scans it (`memctl list` shows it only with --all)\n"
        ),
        "{}",
        outs[0]
    );
    assert!(outs.iter().all(|o| *o == outs[0]), "{outs:#?}");
    let run = env().args(["show", "logs/x.md"]).run().success();
    assert!(
        run.stdout
            .contains("  scanned:      no — under logs/: Claude Code never scans it"),
        "{}",
        run.stdout
    );
    let list = env().args(["list"]).run().success();
    assert!(
        !list.stdout.contains(".hidden.md") && !list.stdout.contains("logs/x.md"),
        "{}",
        list.stdout
    );
}

/// The memory dir a run used, as printed in `path:`.
fn run_dir(run: &crate::support::Run) -> String {
    run.stdout
        .lines()
        .find_map(|l| l.trim_start().strip_prefix("path:"))
        .map(|p| {
            let p = p.trim();
            let cut = p.rfind(".hidden.md").unwrap_or(p.len());
            p[..cut].to_string()
        })
        .unwrap_or_default()
}
