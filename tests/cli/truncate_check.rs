//! `memctl truncate-check` (SPEC §3.10) on generated indexes around every boundary.

use crate::support::Env;

const TAIL: &str = ". Keep index entries to one line under ~200 chars; move detail into topic files.";

fn entries(n: usize) -> String {
    (1..=n).map(|i| format!("- [T{i}](t{i}.md) — hook {i}\n")).collect()
}

#[test]
fn reports_line_cap_with_file_line_numbers() {
    let index = format!("---\nname: idx\n---\n{}", entries(203));
    let run = Env::new().index(&index).args(["truncate-check"]).run().code(1);
    let loaded = entries(203);
    let units = loaded.trim_end().chars().count();
    let bytes = loaded.trim_end().len();
    let g = |n: usize| {
        if n >= 1000 {
            format!("{} {:03}", n / 1000, n % 1000)
        } else {
            n.to_string()
        }
    };
    let pct = format!("{:.1}", 100.0 * units as f64 / 25_000.0);
    assert_eq!(
        run.stdout,
        format!(
            "MEMORY.md: 203 lines, {} / 25 000 units ({pct}%), {} UTF-8 bytes
truncated: yes (line cap); loaded lines 4–203
dropped entries (3):
  204: - [T201](t201.md) — hook 201
  205: - [T202](t202.md) — hook 202
  206: - [T203](t203.md) — hook 203
Claude Code appends:
  > WARNING: MEMORY.md is 203 lines (limit: 200). Only part of it was loaded: 3 of 203 lines were cut off, starting at line 201 (\"- [T201](t201.md) — hook 201\"){TAIL}
headroom: -3 lines, {} units
",
            g(units),
            g(bytes),
            g(25_000 - units)
        )
    );
}

#[test]
fn line_boundaries_199_200_201() {
    for (n, code) in [(199, 0), (200, 0), (201, 1)] {
        let run = Env::new()
            .index(&entries(n))
            .args(["truncate-check", "--json"])
            .run()
            .code(code);
        let doc = run.json();
        assert_eq!(doc["line_count"], n);
        assert_eq!(doc["line_truncated"], n > 200);
        assert_eq!(doc["headroom_lines"], 200 - n as i64);
    }
}

fn units_index(total: usize) -> String {
    // Lines of 199 units plus LF (200 units each), then a last line to reach `total`.
    let full = (total - 1) / 200;
    let mut s: String = (0..full).map(|_| format!("{}\n", "x".repeat(199))).collect();
    s.push_str(&"y".repeat(total - full * 200));
    s
}

#[test]
fn unit_boundaries_24999_25000_25001() {
    for (n, truncated) in [(24_999, false), (25_000, false), (25_001, true)] {
        let doc = Env::new()
            .index(&units_index(n))
            .args(["truncate-check", "--json"])
            .run()
            .code(i32::from(truncated))
            .json();
        assert_eq!(doc["byte_count"], n, "{n}");
        assert_eq!(doc["byte_truncated"], truncated);
        assert_eq!(doc["headroom_bytes"], 25_000 - n as i64);
    }
}

#[test]
fn newline_exactly_at_unit_25000_keeps_the_whole_first_line() {
    let index = format!("{}\n{}\n", "a".repeat(25_000), "b".repeat(5));
    let run = Env::new()
        .index(&index)
        .args(["truncate-check", "--print-loaded"])
        .run()
        .success();
    assert_eq!(
        run.stdout,
        format!(
            "{}\n\n> WARNING: MEMORY.md is 24.4KB (limit: 24.4KB) — index entries are too long. Only part of it was loaded: 1 of 2 lines were cut off, starting at line 2 (\"bbbbb\"){TAIL}",
            "a".repeat(25_000)
        )
    );
}

#[test]
fn crlf_counts_the_carriage_returns() {
    let index = entries(3).replace('\n', "\r\n");
    let doc = Env::new()
        .index(&index)
        .args(["truncate-check", "--json"])
        .run()
        .success()
        .json();
    assert_eq!(doc["line_count"], 3);
    assert_eq!(doc["byte_count"], index.trim_end().chars().count());
}

#[test]
fn bom_does_not_count() {
    let doc = Env::new()
        .index("\u{feff}- [A](a.md) — a\n")
        .args(["truncate-check", "--json"])
        .run()
        .success()
        .json();
    assert_eq!(doc["byte_count"], "- [A](a.md) — a".chars().count());
}

#[test]
fn html_comments_are_stripped_before_counting() {
    let index = "# Index\n<!-- - [Example](example.md) — an example entry -->\n- [A](a.md) — a\n";
    let doc = Env::new()
        .index(index)
        .args(["truncate-check", "--json"])
        .run()
        .success()
        .json();
    assert_eq!(doc["html_comments_stripped"], true);
    assert_eq!(doc["line_count"], 2);
    assert_eq!(doc["loaded"], "# Index\n- [A](a.md) — a");
}

#[test]
fn print_loaded_is_exactly_the_loaded_text() {
    Env::new()
        .index("\n\n- [A](a.md) — a\n\n")
        .args(["truncate-check", "--print-loaded"])
        .run()
        .success()
        .stdout("- [A](a.md) — a");
}

#[test]
fn print_loaded_with_json_is_a_usage_error() {
    let run = Env::new()
        .args(["--json", "truncate-check", "--print-loaded"])
        .run()
        .code(2);
    assert_eq!(run.stderr_json()["error"]["kind"], "usage");
}

#[test]
fn stdin_is_read_with_dash() {
    let run = Env::new()
        .stdin(entries(201))
        .args(["truncate-check", "-"])
        .run()
        .code(1);
    assert!(run.stdout.starts_with("<stdin>: 201 lines"), "{}", run.stdout);
}

#[test]
fn explicit_path_outside_the_dir() {
    let env = Env::new().file("elsewhere/INDEX.md", entries(2).as_bytes());
    let p = env.root().join("elsewhere/INDEX.md");
    let run = env.arg("truncate-check").arg(&p).run().success();
    assert!(run.stdout.starts_with(&format!("{}: 2 lines", p.display())));
}

#[test]
fn missing_default_index_loads_nothing() {
    Env::new()
        .args(["truncate-check"])
        .run()
        .success()
        .stdout("MEMORY.md: does not exist; nothing is loaded\n");
    let doc = Env::new().args(["truncate-check", "--json"]).run().success().json();
    assert_eq!(doc["exists"], false);
    assert_eq!(doc["truncated"], false);
}

#[test]
fn missing_explicit_path_is_not_found() {
    let env = Env::new();
    let p = env.root().join("nope.md");
    let run = env.arg("truncate-check").arg(&p).run().code(2);
    assert!(
        run.stderr.starts_with(&format!(
            "memctl: cannot read {}: no such file or directory\n",
            p.display()
        )),
        "{}",
        run.stderr
    );
}

#[test]
fn a_directory_is_an_io_error() {
    let env = Env::new();
    std::fs::create_dir(env.dir().join("MEMORY.md")).unwrap();
    let d = env.dir_shown();
    env.args(["truncate-check"]).run().code(2).stderr(&format!(
        "memctl: is a directory, not an index file: {d}MEMORY.md\nhint: pass the MEMORY.md file itself\n"
    ));
}

#[test]
fn warn_at_exits_1_near_the_cap() {
    let run = Env::new()
        .index(&entries(185))
        .args(["truncate-check", "--warn-at", "90"])
        .run()
        .code(1);
    assert!(
        run.stdout
            .contains("truncated: no\nover --warn-at 90%: 185 of 200 lines, 20.2% of 25 000 units\n"),
        "{}",
        run.stdout
    );
    Env::new()
        .index(&entries(179))
        .args(["truncate-check", "--warn-at", "90"])
        .run()
        .success();
    let doc = Env::new()
        .index(&entries(185))
        .args(["truncate-check", "--warn-at", "92.5", "--json"])
        .run()
        .code(1)
        .json();
    assert_eq!(doc["over_threshold"], true);
    assert_eq!(doc["warn_at"], 92.5);
}

#[test]
fn warn_at_out_of_range_is_a_usage_error() {
    for bad in ["0", "101", "abc", "-5"] {
        let run = Env::new()
            .args(["truncate-check", &format!("--warn-at={bad}")])
            .run()
            .code(2);
        assert!(run.stderr.starts_with("memctl: invalid value"), "{bad}: {}", run.stderr);
    }
}

#[test]
fn long_dropped_lines_are_cut_in_text_but_full_in_json() {
    let long = format!("- [Long](long.md) — {}", "z".repeat(120));
    let index = format!("{}{long}\n", entries(200));
    let env = Env::new().index(&index);
    let run = env.args(["truncate-check"]).run().code(1);
    let line = run.stdout.lines().find(|l| l.starts_with("  201: ")).unwrap();
    assert_eq!(line.chars().count(), 78);
    assert!(line.ends_with('…'));
    let doc = Env::new()
        .index(&index)
        .args(["truncate-check", "--json"])
        .run()
        .code(1)
        .json();
    assert_eq!(doc["dropped_entries"], serde_json::json!([{"line": 201, "text": long}]));
}

#[test]
fn team_flag_checks_the_team_index() {
    let run = Env::new()
        .memory("team/MEMORY.md", &entries(2))
        .args(["--team", "truncate-check"])
        .run()
        .success();
    assert!(run.stdout.starts_with("team/MEMORY.md: 2 lines"));
    // Claude Code 2.1.332 never reads it from disk (SPEC §2.13): said, not hidden.
    assert!(
        run.stderr
            .contains("Claude Code 2.1.332 does not load team/MEMORY.md from disk"),
        "{}",
        run.stderr
    );
}

/// A large index (streamed: over 256 KiB): BOM and blank lines before it, a
/// blank line inside, CRLF entries, blank space after.
fn large_index() -> String {
    let mut s = String::from("\u{feff}\n\n");
    for i in 1..=12_000 {
        let cr = if i % 7 == 0 { "\r" } else { "" };
        s.push_str(&format!("- [T{i}](t{i}.md) — hook {i}{cr}\n"));
        if i == 5000 {
            s.push('\n');
        }
    }
    s.push_str("   \n\n");
    s
}

#[test]
fn a_large_index_is_reported_in_full() {
    let index = large_index();
    assert!(index.len() > 256 << 10);
    let trimmed = index.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
    // Every char is in the BMP: one unit each.
    let units = trimmed.chars().count();
    let line = |i: usize| i + 2 + usize::from(i > 5000);
    let entry = |i: usize| format!("- [T{i}](t{i}.md) — hook {i}");
    let run = Env::new().index(&index).args(["truncate-check"]).run().code(1);
    let mut lines = run.stdout.lines();
    assert_eq!(
        lines.next().unwrap(),
        format!(
            "MEMORY.md: 12 001 lines, {} {:03} / 25 000 units ({:.1}%), {} {:03} UTF-8 bytes",
            units / 1000,
            units % 1000,
            100.0 * units as f64 / 25_000.0,
            trimmed.len() / 1000,
            trimmed.len() % 1000
        )
    );
    assert_eq!(
        lines.next().unwrap(),
        "truncated: yes (line and unit caps); loaded lines 3–202"
    );
    assert_eq!(lines.next().unwrap(), "dropped entries (11 800):");
    for i in 201..=250 {
        assert_eq!(lines.next().unwrap(), format!("  {}: {}", line(i), entry(i)));
    }
    assert_eq!(lines.next().unwrap(), "  … and 11 750 more");
    let doc = Env::new()
        .index(&index)
        .args(["truncate-check", "--json"])
        .run()
        .code(1)
        .json();
    assert_eq!(doc["dropped_entries_total"], 11_800);
    let dropped = doc["dropped_entries"].as_array().unwrap();
    assert_eq!(dropped.len(), 10_000);
    // Entry 10 200, after the blank line, ended by CRLF (the CR is not quoted).
    assert_eq!(dropped[9_999]["line"], line(10_200));
    assert_eq!(dropped[9_999]["text"], entry(10_200));
    let loaded = Env::new()
        .index(&index)
        .args(["truncate-check", "--print-loaded"])
        .run()
        .success()
        .stdout;
    // The model reads no CR (SPEC §2.7.3): --print-loaded prints that text.
    let first: Vec<String> = (1..=200).map(entry).collect();
    assert!(loaded.starts_with(&format!(
        "{}\n\n> WARNING: MEMORY.md is 12001 lines and ",
        first.join("\n")
    )));
}

#[test]
fn a_large_file_reads_as_the_same_text_on_stdin() {
    // A file this large is streamed; standard input is read whole.
    let index = large_index();
    let env = Env::new().index(&index);
    let path = env.dir().join("MEMORY.md");
    for flags in [&[][..], &["--json"][..], &["--print-loaded"][..]] {
        let from_file = Env::new()
            .arg("truncate-check")
            .args(flags.iter().copied())
            .arg(&path)
            .run();
        let from_stdin = Env::new()
            .stdin(index.clone())
            .arg("truncate-check")
            .args(flags.iter().copied())
            .arg("-")
            .run();
        assert_eq!(from_file.code, from_stdin.code);
        let shown = path.display().to_string();
        let expected = from_stdin.stdout.replacen("<stdin>", &shown, 1).replacen(
            "\"path\": \"-\"",
            &format!("\"path\": {:?}", shown),
            1,
        );
        assert!(from_file.stdout == expected, "{flags:?} differs");
    }
}

/// Issue 14 point 8: `1 lines` in the report.
#[test]
fn counts_of_one_are_singular() {
    let run = Env::new()
        .stdin("- [a](a.md)\n".repeat(199))
        .args(["truncate-check", "-"])
        .run()
        .success();
    assert!(
        run.stdout.ends_with("headroom: 1 line, 22 613 units\n"),
        "{}",
        run.stdout
    );
    let run = Env::new().stdin("x").args(["truncate-check", "-"]).run().success();
    assert!(
        run.stdout
            .starts_with("<stdin>: 1 line, 1 / 25 000 units (0.0%), 1 UTF-8 byte\n"),
        "{}",
        run.stdout
    );
}

#[test]
fn statuses_where_claude_code_loads_nothing() {
    // SPEC §3.10 (2.1.332): a FIFO as the dir's MEMORY.md is not read (it would
    // block) and Claude Code skips it.
    let env = Env::new();
    let fifo = env.dir().join("MEMORY.md");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let run = env.args(["truncate-check"]).run().success();
    assert_eq!(
        run.stdout,
        "MEMORY.md: 0 lines, 0 / 25 000 units (0.0%), 0 UTF-8 bytes\nloaded: nothing (not a regular file)\nheadroom: 200 lines, 25 000 units\n"
    );
    // Recall mode: the counts describe the file, nothing is injected.
    let doc = Env::new()
        .index("- [A](a.md) — a\n")
        .env("CLAUDE_MEMORY_STORES", r#"[{"path":"/me","scope":"user"}]"#)
        .args(["truncate-check", "--json"])
        .run()
        .success()
        .json();
    assert_eq!(
        (&doc["load_status"], &doc["injected"], &doc["line_count"]),
        (&"recall_mode".into(), &serde_json::Value::Null, &1.into())
    );
    // --print-loaded prints nothing when nothing is injected.
    let run = Env::new()
        .index("- [A](a.md) — a\n")
        .env("CLAUDE_COWORK_MEMORY_INDEX_CONTENT", "")
        .args(["truncate-check", "--print-loaded"])
        .run()
        .success();
    assert_eq!(run.stdout, "");
}
