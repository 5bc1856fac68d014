//! The documentation against the binary (issue 34 point 3). Every example in
//! `README.md` and `docs/*.md` is checked:
//!
//! - every `memctl …` command line in a `console` or `sh` block parses with memctl's own
//!   command-line definition (a renamed flag, a removed option or a wrong value fails);
//! - every `console` example that runs on the shipped `examples/memory` dir (its command
//!   names `--dir examples/memory`) is run, piped as written, on a copy of that dir with
//!   its authored mtimes, and prints what the page shows. In the expected text a line
//!   `…` stands for any number of lines, a line ending in `…` for any line with that
//!   beginning, and `/…/` for the directory the copy sits in. An example run on a
//!   terminal (its comment says so) is parsed but not run: a test has no terminal of
//!   that width.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use clap::Parser;

use crate::support::NOW;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// README.md and every page under docs/ (not docs/pending/, notes for later pages).
fn pages() -> Vec<(String, String)> {
    let mut names = vec!["README.md".to_string()];
    let mut docs: Vec<String> = fs::read_dir(repo().join("docs"))
        .expect("docs/ exists")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("docs/{n}"))
        .collect();
    docs.sort();
    names.extend(docs);
    names
        .into_iter()
        .map(|n| {
            let text = fs::read_to_string(repo().join(&n)).unwrap();
            (n, text)
        })
        .collect()
}

#[derive(Debug)]
struct Example {
    page: String,
    line: usize,
    /// The command as written, continuation lines joined, comment kept.
    command: String,
    console: bool,
    output: Vec<String>,
}

fn examples(page: &str, text: &str) -> Vec<Example> {
    let mut out: Vec<Example> = Vec::new();
    let mut fence: Option<String> = None;
    let mut pending: Option<(usize, String)> = None;
    for (i, line) in text.lines().enumerate() {
        if let Some(rest) = line.strip_prefix("```") {
            fence = match fence {
                Some(_) => None,
                None => Some(rest.trim().to_string()),
            };
            continue;
        }
        let Some(lang) = fence.as_deref() else { continue };
        if lang != "console" && lang != "sh" {
            continue;
        }
        if let Some((start, mut cmd)) = pending.take() {
            cmd.push(' ');
            cmd.push_str(line.trim_start());
            if cmd.ends_with('\\') {
                cmd.pop();
                pending = Some((start, cmd.trim_end().to_string()));
            } else {
                out.push(Example {
                    page: page.into(),
                    line: start,
                    command: cmd,
                    console: lang == "console",
                    output: Vec::new(),
                });
            }
            continue;
        }
        let command = match lang {
            "console" => line.strip_prefix("$ "),
            _ => (!line.trim().is_empty() && !line.trim_start().starts_with('#')).then_some(line),
        };
        match command {
            Some(cmd) if cmd.ends_with('\\') => {
                pending = Some((i + 1, cmd[..cmd.len() - 1].trim_end().to_string()));
            }
            Some(cmd) => out.push(Example {
                page: page.into(),
                line: i + 1,
                command: cmd.to_string(),
                console: lang == "console",
                output: Vec::new(),
            }),
            None => {
                if let Some(last) = out.last_mut().filter(|e| e.console && e.page == page) {
                    last.output.push(line.to_string());
                }
            }
        }
    }
    out
}

/// The command without its trailing `# comment` (a `#` that starts a word outside quotes).
fn strip_comment(cmd: &str) -> (&str, &str) {
    let (mut single, mut double) = (false, false);
    let mut prev = ' ';
    for (i, c) in cmd.char_indices() {
        match c {
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '#' if !single && !double && prev.is_whitespace() => return (cmd[..i].trim_end(), &cmd[i..]),
            _ => {}
        }
        prev = c;
    }
    (cmd.trim_end(), "")
}

/// The arguments after `memctl` in each memctl invocation of a shell line (pipelines,
/// `&&` lists and `$(…)` included), redirections removed.
fn memctl_invocations(cmd: &str) -> Vec<Vec<String>> {
    let (cmd, _) = strip_comment(cmd);
    let Ok(words) = shell_words::split(cmd) else {
        return vec![vec!["<unparsable shell line>".into()]];
    };
    let mut found = Vec::new();
    let mut segment: Vec<String> = Vec::new();
    let flush = |segment: &mut Vec<String>, found: &mut Vec<Vec<String>>| {
        if let Some(pos) = segment.iter().position(|w| w == "memctl")
            && segment[..pos].iter().all(|w| w.contains('=') && !w.starts_with('-'))
        {
            found.push(segment[pos + 1..].to_vec());
        }
        segment.clear();
    };
    let mut words = words.into_iter().peekable();
    while let Some(w) = words.next() {
        if let Some(inner) = w.strip_prefix("$(").and_then(|s| s.strip_suffix(')')) {
            found.extend(memctl_invocations(inner));
            continue;
        }
        match w.as_str() {
            "|" | "&&" | "||" | ";" => flush(&mut segment, &mut found),
            ">" | ">>" | "<" | "2>" => {
                words.next();
            }
            _ if w.starts_with('>') || w.starts_with("2>") || w.starts_with('<') => {}
            _ => segment.push(w),
        }
    }
    flush(&mut segment, &mut found);
    found
}

#[test]
fn every_memctl_command_line_in_the_docs_parses() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for (page, text) in pages() {
        for ex in examples(&page, &text) {
            for args in memctl_invocations(&ex.command) {
                checked += 1;
                let argv = std::iter::once("memctl".to_string()).chain(args);
                if let Err(e) = memctl::cli::Cli::try_parse_from(argv) {
                    use clap::error::ErrorKind::*;
                    if !matches!(
                        e.kind(),
                        DisplayHelp | DisplayVersion | DisplayHelpOnMissingArgumentOrSubcommand
                    ) {
                        let first = e.to_string().lines().next().unwrap_or_default().to_string();
                        failures.push(format!("{}:{}: `{}`: {first}", ex.page, ex.line, ex.command));
                    }
                }
            }
        }
    }
    assert!(checked >= 50, "only {checked} memctl command lines found in the docs");
    assert!(
        failures.is_empty(),
        "{} doc command lines do not parse:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// A copy of `examples/memory` with the mtimes `examples/set-mtimes.sh` gives it.
fn example_copy(root: &Path) {
    let dest = root.join("examples");
    fs::create_dir_all(&dest).unwrap();
    let status = Command::new("cp")
        .arg("-R")
        .arg(repo().join("examples/memory"))
        .arg(&dest)
        .status()
        .unwrap();
    assert!(status.success());
    fs::copy(repo().join("examples/set-mtimes.sh"), dest.join("set-mtimes.sh")).unwrap();
    let status = Command::new("sh").arg(dest.join("set-mtimes.sh")).status().unwrap();
    assert!(status.success(), "examples/set-mtimes.sh failed");
}

fn matches(expected: &[String], actual: &[&str]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((e, rest)) if e == "…" => (0..=actual.len()).any(|k| matches(rest, &actual[k..])),
        Some((e, rest)) => match actual.split_first() {
            None => false,
            Some((a, arest)) => {
                let ok = match e.strip_suffix('…') {
                    Some(prefix) => a.starts_with(prefix.trim_end()),
                    None => a == e,
                };
                ok && matches(rest, arest)
            }
        },
    }
}

#[test]
fn console_examples_on_the_example_dir_print_what_the_docs_show() {
    let mut ran = 0;
    let mut failures = Vec::new();
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_memctl")).parent().unwrap().to_path_buf();
    for (page, text) in pages() {
        for ex in examples(&page, &text) {
            let (cmd, comment) = strip_comment(&ex.command);
            if !ex.console || !cmd.contains("--dir examples/memory") || comment.contains("terminal") {
                continue;
            }
            let tmp = tempfile::tempdir().unwrap();
            let root = fs::canonicalize(tmp.path()).unwrap();
            example_copy(&root);
            let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap_or_default());
            let out = Command::new("sh")
                .arg("-c")
                .arg(cmd)
                .env_clear()
                .env("PATH", path)
                .env("HOME", root.join("home"))
                .env("CLAUDE_CONFIG_DIR", root.join("home/.claude"))
                .env("XDG_STATE_HOME", root.join("state"))
                .env("MEMCTL_NOW", NOW)
                .env("TZ", "UTC0")
                .current_dir(&root)
                .output()
                .unwrap();
            ran += 1;
            let stdout = String::from_utf8_lossy(&out.stdout).replace(&format!("{}/", root.display()), "/…/");
            let actual: Vec<&str> = stdout.lines().collect();
            let expected: Vec<String> = ex.output.clone();
            if !matches(&expected, &actual) {
                failures.push(format!(
                    "{}:{}: `{}`\n--- the page shows\n{}\n--- memctl printed (exit {:?})\n{}{}",
                    ex.page,
                    ex.line,
                    cmd,
                    expected.join("\n"),
                    out.status.code(),
                    stdout,
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} doc examples differ:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    assert!(ran >= 5, "only {ran} runnable examples found in the docs");
}

#[test]
fn the_example_parser_reads_commands_outputs_and_continuations() {
    let page = "```console\n$ memctl --dir d add --type user \\\n    --name x\ncreated x.md\n$ git show :MEMORY.md | memctl truncate-check -   # a comment\n```\n```sh\nmemctl path  # where\n```\n";
    let ex = examples("p", page);
    assert_eq!(ex.len(), 3);
    assert_eq!(ex[0].command, "memctl --dir d add --type user --name x");
    assert_eq!(ex[0].output, vec!["created x.md"]);
    assert_eq!(memctl_invocations(&ex[1].command), vec![vec!["truncate-check", "-"]]);
    assert_eq!(
        memctl_invocations("cd \"$(memctl path)\" && memctl list > out.txt"),
        vec![vec!["path"], vec!["list"]]
    );
    assert!(matches(&["a…".into(), "…".into(), "z".into()], &["abc", "x", "y", "z"]));
    assert!(!matches(&["a".into()], &["a", "b"]));
}
