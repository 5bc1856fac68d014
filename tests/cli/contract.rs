//! The JSON contract (docs/json.md): every command's `--json` document on one
//! fixture set, compared with documents committed under `tests/contract/`.
//!
//! The committed documents were produced by the binary before the v2 restructure, so a
//! refactor that changes a field name, an order or a value fails here. When an issue
//! changes the contract on purpose, re-bless with
//! `MEMCTL_BLESS=1 cargo test --test cli contract` and review the diff.

use std::fs;
use std::path::{Path, PathBuf};

use memctl::paths::sanitize::sanitize;

use crate::support::{Env, script, set_age, write_aged};

fn bless() -> bool {
    std::env::var_os("MEMCTL_BLESS").is_some_and(|v| v == "1")
}

/// The shipped example dir plus the odd shapes the contract must cover: a nested
/// type, an untyped file, unreadable frontmatter, a dangling and a duplicate index
/// line, a stale dream lock of a dead process, sessions since the last dream.
fn fixture() -> Env {
    let env = Env::new().resolved();
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/memory");
    copy_aged(&examples, &env.dir(), 24.0);
    let mem = env.dir();
    write_aged(
        &mem.join("nested_only.md"),
        b"---\nname: Nested only\ndescription: a type under metadata\nmetadata:\n  type: project\n---\nFact.\n",
        24.0 * 40.0,
    );
    write_aged(
        &mem.join("untyped.md"),
        b"No frontmatter, yesterday we said so.\n",
        24.0 * 3.0,
    );
    write_aged(
        &mem.join("broken.md"),
        b"---\nname: [unclosed\ndescription: x\n---\nBody\n",
        24.0 * 200.0,
    );
    let mut index = fs::read_to_string(mem.join("MEMORY.md")).unwrap();
    index.push_str("- [Gone](gone.md) — a dangling line\n");
    index.push_str("- [User again](user_profile.md) — a duplicate line\n");
    index.push_str(&format!("- [Long](untyped.md) — {}\n", "word ".repeat(60)));
    // An aged index too: the history snapshots (and so their ids) are the same on every run.
    write_aged(&mem.join("MEMORY.md"), index.as_bytes(), 24.0);
    let proj = env.root().join("proj");
    fs::create_dir_all(&proj).unwrap();
    let claude = env.home().join(".claude");
    fs::create_dir_all(&claude).unwrap();
    fs::write(
        claude.join("settings.json"),
        format!(
            "{{\"autoMemoryDirectory\": {:?}, \"autoDreamEnabled\": true}}",
            mem.display().to_string()
        ),
    )
    .unwrap();
    let transcripts = claude.join("projects").join(sanitize(&proj.to_string_lossy()).key);
    fs::create_dir_all(&transcripts).unwrap();
    for (i, hours) in [(1, 30.0), (2, 20.0), (3, 5.0)] {
        let p = transcripts.join(format!("{i}{i}{i}{i}{i}{i}{i}{i}-1111-1111-1111-111111111111.jsonl"));
        fs::write(&p, format!("{{\"cwd\": {:?}}}\n", proj.display().to_string())).unwrap();
        set_age(&p, hours);
    }
    let lock = mem.join(".consolidate-lock");
    fs::write(&lock, "999999999").unwrap();
    set_age(&lock, 48.0);
    env.arg("--project").arg(&proj)
}

fn copy_aged(from: &Path, to: &Path, hours: f64) {
    let mut entries: Vec<_> = fs::read_dir(from).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for (i, p) in entries.iter().enumerate() {
        let dest = to.join(p.file_name().unwrap());
        if p.is_dir() {
            fs::create_dir_all(&dest).unwrap();
            copy_aged(p, &dest, hours);
        } else {
            write_aged(&dest, &fs::read(p).unwrap(), hours * (i + 1) as f64);
        }
    }
}

/// Replace the temp root so documents compare across runs.
fn normalise(text: &str, root: &Path) -> String {
    let key = sanitize(&root.to_string_lossy()).key;
    text.replace(&root.display().to_string(), "$ROOT")
        .replace(&key, "$ROOT_KEY")
}

#[track_caller]
fn check(name: &str, env: Env, args: &[&str]) {
    let root = env.root();
    let run = env.args(args).run();
    let mut doc = format!("exit {}\n", run.code);
    for (what, text) in [("stdout", &run.stdout), ("stderr", &run.stderr)] {
        if !text.is_empty() {
            let value: serde_json::Value = serde_json::from_str(text.trim())
                .unwrap_or_else(|e| panic!("{name}: {what} is not one JSON document ({e}):\n{text}"));
            doc.push_str(&format!("{what}:\n{}\n", serde_json::to_string_pretty(&value).unwrap()));
        }
    }
    let doc = normalise(&doc, &root);
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/contract")
        .join(format!("{name}.json"));
    if bless() {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, &doc).unwrap();
        return;
    }
    let expected = fs::read_to_string(&path).unwrap_or_default();
    assert!(
        doc == expected,
        "{name}: the JSON contract changed ({}); if on purpose, run `MEMCTL_BLESS=1 cargo test --test cli contract`\n--- expected\n{expected}\n--- actual\n{doc}",
        path.display()
    );
}

#[test]
fn read_commands() {
    let cases: &[(&str, &[&str])] = &[
        ("path", &["path", "--json"]),
        ("path-explain", &["path", "--explain", "--json"]),
        ("list", &["list", "--json"]),
        ("list-all", &["list", "--all", "--json"]),
        ("list-team", &["--team", "list", "--json"]),
        ("show", &["show", "--json", "feedback_testing_policy"]),
        ("show-nested", &["show", "--json", "nested_only.md"]),
        ("show-broken", &["show", "--json", "broken.md"]),
        ("show-missing", &["show", "--json", "no_such_memory"]),
        ("truncate-check", &["truncate-check", "--json"]),
        ("truncate-check-team", &["--team", "truncate-check", "--json"]),
        ("lint", &["lint", "--format", "json"]),
        ("lint-sarif", &["lint", "--format", "sarif"]),
        ("lint-team", &["--team", "lint", "--json"]),
        ("dream", &["dream", "--dry-run", "--json"]),
        ("lock", &["lock", "status", "--json"]),
        ("projects", &["projects", "--all", "--json"]),
        ("search", &["search", "--json", "--limit", "5", "pr"]),
        ("search-none", &["search", "--json", "no-such-word"]),
        (
            "add-dry-run",
            &[
                "add",
                "--dry-run",
                "--json",
                "--type",
                "feedback",
                "--name",
                "Contract rule",
                "--description",
                "a rule for the contract",
                "--body",
                "Rule.",
                "--why",
                "w",
                "--how",
                "h",
            ],
        ),
        ("forget-dry-run", &["forget", "--dry-run", "--json", "user_profile"]),
        ("fix-dry-run", &["lint", "--fix", "--dry-run", "--format", "json"]),
    ];
    for (name, args) in cases {
        check(name, fixture(), args);
    }
}

#[test]
fn write_commands() {
    check(
        "add",
        fixture(),
        &[
            "add",
            "--json",
            "--type",
            "project",
            "--name",
            "Contract fact",
            "--description",
            "a fact for the contract",
            "--body",
            "Fact.",
            "--why",
            "w",
            "--how",
            "h",
        ],
    );
    check(
        "add-team",
        fixture(),
        &[
            "--team",
            "add",
            "--json",
            "--type",
            "reference",
            "--name",
            "Team ref",
            "--description",
            "a team reference",
        ],
    );
    check(
        "forget",
        fixture(),
        &["forget", "--yes", "--json", "user_profile", "untyped.md"],
    );
    check("fix", fixture(), &["lint", "--fix", "--format", "json"]);
    // restore of a forgotten memory (its copy in the baseline snapshot).
    let env = fixture();
    let forgot = env
        .command()
        .args(["forget", "--yes", "user_profile"])
        .output()
        .unwrap();
    assert!(forgot.status.success());
    check("restore", env, &["restore", "--json", "user_profile"]);
    // undo of a dream: a memory deleted and the lock moved since the baseline.
    let env = fixture();
    assert!(env.command().arg("snapshot").output().unwrap().status.success());
    fs::remove_file(env.dir().join("untyped.md")).unwrap();
    set_age(&env.dir().join(".consolidate-lock"), 1.0);
    check("undo", env, &["undo", "--dream", "--yes", "--json"]);
    // projects merge of the example dir into a second memory dir that already
    // has one of its files (same bytes) and another under its name (other bytes).
    let env = fixture();
    let into = env.root().join("into");
    write_aged(&into.join("MEMORY.md"), b"# Memory\n\n## User\n", 24.0);
    let first = fs::read_dir(env.dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("user_") && n.ends_with(".md"))
        .min()
        .unwrap();
    fs::copy(env.dir().join(&first), into.join(&first)).unwrap();
    write_aged(&into.join("feedback_testing_policy.md"), b"other bytes\n", 24.0);
    let (from, to) = (env.dir().display().to_string(), into.display().to_string());
    check(
        "projects-merge",
        env,
        &["projects", "merge", "--yes", "--force", "--json", &from, &to],
    );
    let env = fixture();
    let dir = env.dir().display().to_string();
    let bundle = env.root().join("b.tar.gz").display().to_string();
    check(
        "export",
        env,
        &[
            "--dir",
            &dir,
            "export",
            "--as",
            "github.com/alice/app",
            "-o",
            &bundle,
            "--json",
        ],
    );
    let env = fixture();
    let (dir, bundle) = (env.dir(), env.root().join("b.tar.gz"));
    let (d, b) = (dir.display().to_string(), bundle.display().to_string());
    let out = env
        .command()
        .args(["--dir", &d, "export", "--as", "github.com/alice/app", "-o", &b])
        .env("MEMCTL_MACHINE", "laptop")
        .output()
        .unwrap();
    assert!(out.status.success());
    let first = fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("user_") && n.ends_with(".md"))
        .min()
        .unwrap();
    fs::remove_file(dir.join(&first)).unwrap();
    write_aged(&dir.join("feedback_testing_policy.md"), b"changed here\n", 1.0);
    check("import", env, &["import", &b, "--into", &d, "--yes", "--json"]);
    let env = fixture();
    let editor = script(&env, "editor.sh", "printf '\\nEdited.\\n' >> \"$1\"");
    let env = env.env("EDITOR", editor);
    check("edit", env, &["edit", "--json", "feedback_terse_summaries"]);
}

#[test]
fn review_command() {
    // The project's CLAUDE.md states one example memory; AGENTS.md exists too, so
    // conventions are ambiguous between them (SPEC §12, v3).
    let env = fixture();
    let proj = env.root().join("proj");
    write_aged(
        &proj.join("CLAUDE.md"),
        b"# App\n\n- Integration tests must hit a real database, not mocks.\n- Run `npm test` before pushing.\n",
        24.0 * 30.0,
    );
    write_aged(
        &proj.join("AGENTS.md"),
        b"# Agents\n\n- Keep pull requests small.\n",
        24.0 * 30.0,
    );
    check("review", env, &["review", "--json"]);
}
