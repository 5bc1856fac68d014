//! The global contracts of SPEC §3.1: JSON errors, exit codes, hints, colour,
//! `MEMCTL_NOW`, `--dir`, broken pipes and the panic hook.

use std::io::Read;
use std::process::Stdio;

use crate::support::Env;

#[test]
fn bad_memctl_now_is_invalid_input_naming_the_variable() {
    Env::new()
        .env("MEMCTL_NOW", "yesterday")
        .args(["list"])
        .run()
        .code(2)
        .stdout("")
        .stderr("memctl: MEMCTL_NOW is not an RFC 3339 time: `yesterday`\nhint: set MEMCTL_NOW like 2026-03-10T12:00:00Z, or unset it\n");
}

#[test]
fn errors_are_json_on_stderr_with_json() {
    let env = Env::new();
    let dir = env.dir_shown();
    let run = env.args(["--json", "show", "nothing"]).run().code(2).stdout("");
    let err = run.stderr_json();
    assert_eq!(err["error"]["kind"], "not_found");
    assert_eq!(err["error"]["message"], format!("no memory named `nothing` in {dir}"));
    assert_eq!(err["error"]["hint"], "run `memctl list` to see the memories");
}

#[test]
fn empty_dir_flag_is_a_usage_error() {
    Env::new()
        .args(["--dir", "", "list"])
        .run()
        .code(2)
        .stdout("")
        .stderr("memctl: --dir is empty\nhint: give --dir a directory, or leave it out to resolve the memory dir\n");
}

#[test]
fn missing_explicit_dir_is_not_found() {
    let env = Env::new();
    let missing = env.root().join("nope");
    env.arg("--dir")
        .arg(&missing)
        .arg("list")
        .run()
        .code(2)
        .stderr(&format!("memctl: memory dir does not exist: {}/\nhint: check the path given to --dir, or run `memctl path` to see the resolved dir\n", missing.display()));
}

#[test]
fn dir_flag_wins_over_memctl_dir() {
    let env = Env::new().memory("a.md", "---\ntype: user\n---\n");
    let other = env.root().join("other");
    std::fs::create_dir(&other).unwrap();
    let expected = format!("{}a.md\n", env.dir_shown());
    let mem = env.dir();
    env.env("MEMCTL_DIR", &other)
        .arg("--dir")
        .arg(mem)
        .args(["list", "--format", "paths"])
        .run()
        .success()
        .stdout(&expected);
}

#[test]
fn unknown_flags_are_usage_errors_with_a_hint() {
    Env::new()
        .args(["list", "--jsn"])
        .run()
        .code(2)
        .stdout("")
        .stderr("memctl: unexpected argument `--jsn` found\nhint: a similar argument exists: `--json`; run `memctl list --help` for usage\n");
}

#[test]
fn usage_errors_are_json_with_json() {
    let run = Env::new().args(["--json", "list", "--bogus"]).run().code(2);
    assert_eq!(run.stderr_json()["error"]["kind"], "usage");
}

#[test]
fn color_always_paints_warnings_and_never_does_not() {
    let env = Env::new();
    std::os::unix::fs::symlink(env.root().join("missing"), env.dir().join("gone.md")).unwrap();
    let painted = env.args(["--color", "always", "list"]).run().success();
    assert_eq!(
        painted.stderr,
        "\u{1b}[33mmemctl: warning:\u{1b}[0m gone.md: dangling symlink; Claude Code drops it\n"
    );
    let env = Env::new();
    std::os::unix::fs::symlink(env.root().join("missing"), env.dir().join("gone.md")).unwrap();
    env.env("NO_COLOR", "1")
        .args(["--color", "auto", "list"])
        .run()
        .success()
        .stderr("memctl: warning: gone.md: dangling symlink; Claude Code drops it\n");
}

#[test]
fn json_puts_warnings_in_the_document() {
    let env = Env::new();
    std::os::unix::fs::symlink(env.root().join("missing"), env.dir().join("gone.md")).unwrap();
    let run = env.args(["list", "--json"]).run().success().stderr("");
    assert_eq!(
        run.json()["warnings"],
        serde_json::json!(["gone.md: dangling symlink; Claude Code drops it"])
    );
}

#[test]
fn broken_pipe_exits_zero() {
    let mut env = Env::new();
    for i in 0..300 {
        env = env.memory(
            &format!("m{i:03}.md"),
            &format!("---\ndescription: {}\n---\n", "x".repeat(200)),
        );
    }
    let env = env.args(["list", "--all"]);
    let mut child = env
        .command()
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "stderr: {err}");
    assert!(!err.contains("Broken pipe"), "{err}");
}

#[test]
#[cfg(debug_assertions)]
fn panics_become_internal_errors() {
    let run = Env::new().env("MEMCTL_DEBUG_PANIC", "1").args(["list"]).run().code(2);
    run.stderr_starts("memctl: internal error: ");
    assert!(
        run.stderr
            .ends_with("hint: this is a bug in memctl; please report it with the command you ran\n"),
        "{}",
        run.stderr
    );
    let run = Env::new()
        .env("MEMCTL_DEBUG_PANIC", "1")
        .args(["--json", "list"])
        .run()
        .code(2);
    assert_eq!(run.stderr_json()["error"]["kind"], "internal");
}

#[test]
fn version_and_help_work() {
    let v = Env::new().arg("--version").run().success();
    assert_eq!(
        v.stdout,
        format!("memctl {} (models Claude Code 2.1.332)\n", env!("CARGO_PKG_VERSION"))
    );
    let h = Env::new().arg("--help").run().success();
    assert!(h.stdout.contains("Exit status:"));
}

#[test]
fn a_nested_command_s_usage_error_points_at_its_own_help() {
    Env::new()
        .args(["projects", "merge", "--", "a", "b", "--dry-run"])
        .run()
        .code(2)
        .stderr("memctl: unexpected argument `--dry-run` found\nhint: run `memctl projects merge --help` for usage\n");
    Env::new().args(["config", "set"]).run().code(2).stderr(
        "memctl: missing <KEY>: automemoryenabled, autodreamenabled or automemorydirectory; <VALUE>: true/false for the booleans; a path for automemorydirectory\nhint: run `memctl config set --help` for usage\n",
    );
}

#[test]
fn r14_a_missing_argument_is_named_and_the_hint_points_at_the_subcommand() {
    Env::new().args(["show"]).run().code(2).stdout("").stderr(
        "memctl: missing <REF>: the memory to show, by relative path, file stem or frontmatter name\nhint: run `memctl show --help` for usage\n",
    );
    let run = Env::new().args(["--json", "forget"]).run().code(2);
    let e = run.stderr_json();
    assert_eq!(e["error"]["kind"], "usage");
    assert!(
        e["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("missing <REF>...: the memories to forget")
    );
    assert_eq!(e["error"]["hint"], "run `memctl forget --help` for usage");
}

/// Issue 13 §16: `MEMCTL_DIR` naming a regular file says so, for reads and writes.
#[test]
fn a_memory_dir_that_is_a_file_is_not_a_directory() {
    let env = Env::new();
    let file = env.root().join("file");
    std::fs::write(&file, "x").unwrap();
    let env = env.env("MEMCTL_DIR", &file);
    let out = env.command().arg("list").output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "memctl: not a directory: {}\nhint: MEMCTL_DIR must name a memory directory, not a file\n",
            file.display()
        )
    );
    let out = env
        .command()
        .args([
            "add",
            "--type",
            "user",
            "--name",
            "x",
            "--description",
            "d",
            "--body",
            "b",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "memctl: not a directory: {}\nhint: a memory dir (--dir, MEMCTL_DIR or the resolved one) must be a directory; move the file away or name another path\n",
            file.display()
        )
    );
    assert_eq!(std::fs::read(&file).unwrap(), b"x");
}

/// Issue 13 §16: a relative `HOME` (with `CLAUDE_CONFIG_DIR` unset) is named as HOME.
#[test]
fn a_relative_home_is_named_in_the_warning() {
    let env = Env::new().resolved().env_remove("CLAUDE_CONFIG_DIR").env("HOME", "rel");
    let root = env.root();
    env.arg("path").run().success().stderr(&format!(
        "memctl: warning: HOME is relative (`rel`): the config home `rel/.claude` is resolved against the project root {}\n",
        root.display()
    ));
}

/// Every subcommand, by the words that name it.
fn subcommands() -> Vec<Vec<String>> {
    use clap::CommandFactory;
    let mut cmd = memctl::cli::Cli::command();
    cmd.build();
    let mut out = Vec::new();
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        out.push(vec![sub.get_name().to_string()]);
        for inner in sub.get_subcommands().filter(|s| s.get_name() != "help") {
            out.push(vec![sub.get_name().to_string(), inner.get_name().to_string()]);
        }
    }
    out
}

#[test]
fn r14_every_usage_error_names_what_is_missing_and_hints_the_subcommands_help() {
    for words in subcommands() {
        let hint = format!("run `memctl {} --help` for usage\n", words.join(" "));
        let run = Env::new().args(&words).arg("--bogus").run().code(2);
        let last = run.stderr.lines().last().unwrap_or("");
        assert!(
            last.starts_with("hint: ") && run.stderr.ends_with(&hint),
            "{words:?}: {}",
            run.stderr
        );
    }
    // A missing positional names it and says what it is, text and JSON.
    for (sub, arg) in [
        ("show", "<REF>"),
        ("forget", "<REF>..."),
        ("edit", "<REF>"),
        ("completions", "<SHELL>"),
    ] {
        let run = Env::new().arg(sub).run().code(2);
        let first = run.stderr.lines().next().unwrap().to_string();
        assert!(first.starts_with(&format!("memctl: missing {arg}: the ")), "{first}");
        assert!(
            first.len() > format!("memctl: missing {arg}: the ").len() + 5,
            "{first}"
        );
        assert!(
            run.stderr
                .ends_with(&format!("hint: run `memctl {sub} --help` for usage\n"))
        );
        let run = Env::new().args(["--json", sub]).run().code(2).stdout("");
        let err = run.stderr_json();
        assert_eq!(err["error"]["kind"], "usage");
        assert!(
            err["error"]["message"]
                .as_str()
                .unwrap()
                .starts_with(&format!("missing {arg}: the "))
        );
        assert_eq!(err["error"]["hint"], format!("run `memctl {sub} --help` for usage"));
    }
    // A missing option value has no usage line in clap's message: the subcommand comes
    // from the command line, after global options and their values.
    for (words, sub) in [
        (&["lint", "--rule"][..], "lint"),
        (&["--dir", "lint", "list", "--type"][..], "list"),
        (
            &["--color", "never", "truncate-check", "--warn-at"][..],
            "truncate-check",
        ),
    ] {
        let run = Env::new().args(words).run().code(2);
        assert!(
            run.stderr.starts_with("memctl: a value is required for `"),
            "{}",
            run.stderr
        );
        assert!(
            run.stderr
                .ends_with(&format!("hint: run `memctl {sub} --help` for usage\n")),
            "{words:?}: {}",
            run.stderr
        );
    }
}

#[test]
fn r14_global_options_have_their_own_heading_and_every_command_has_examples() {
    for words in subcommands() {
        for flag in ["-h", "--help"] {
            let run = Env::new().args(&words).arg(flag).run().success();
            let (own, global) = run
                .stdout
                .split_once("\nGlobal options:\n")
                .unwrap_or_else(|| panic!("{words:?} {flag}: no Global options heading:\n{}", run.stdout));
            for g in ["--dir", "--project", "--team", "--json", "--color"] {
                assert!(
                    !own.contains(&format!("  {g}")),
                    "{words:?}: {g} among the command's own options"
                );
                assert!(
                    global.contains(&format!("  {g}")),
                    "{words:?}: {g} missing under Global options"
                );
            }
        }
        let run = Env::new().args(&words).arg("--help").run().success();
        let examples = run
            .stdout
            .split_once("\nExamples:\n")
            .unwrap_or_else(|| panic!("{words:?}: no Examples in --help"))
            .1;
        let commands = examples.lines().filter(|l| l.starts_with("    memctl ")).count();
        assert!((2..=4).contains(&commands), "{words:?}: {commands} example commands");
    }
}

#[test]
fn r14_os_errors_read_as_plain_words() {
    let env = Env::new();
    let dir = env.root();
    let missing = env.root().join("nope/body.md");
    let args = [
        "add",
        "--type",
        "user",
        "--name",
        "n",
        "--description",
        "d",
        "--body-file",
    ];
    Env::new().args(args).arg(&dir).run().code(2).stderr(&format!(
        "memctl: cannot read the body file {}: is a directory\nhint: check the path given to --body-file\n",
        dir.display()
    ));
    Env::new().args(args).arg(&missing).run().code(2).stderr(&format!(
        "memctl: cannot read the body file {}: no such file or directory\nhint: check the path given to --body-file\n",
        missing.display()
    ));
}
