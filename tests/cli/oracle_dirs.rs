//! memctl against the real Claude Code 2.1.332: which memory dir it uses and whether
//! auto memory is on (SPEC §2.2, §2.3), row by row from
//! `tests/golden/claude-code-2.1.332/dirs.jsonl` (recorded by `scripts/cc-oracle
//! dirs`; each row is a setup and what the client did, nothing from memctl).
//!
//! Each setup is rebuilt here in a temp dir (git repositories, worktrees, settings
//! files, the fake home) and `memctl path --json` runs with the row's environment.
//! Long project paths get a key that depends on the whole path, so those rows are
//! also checked with `memctl path --key-for` on the exact path the client saw.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const GOLDEN: &str = include_str!("../golden/claude-code-2.1.332/dirs.jsonl");

/// Setups where memctl knowingly differs from the client, each with its reason.
/// Empty: memctl agrees with every recorded setup.
const KNOWN_DIFFERENCES: &[(&str, &str)] = &[];

use crate::support::git;

fn units(s: &str) -> usize {
    s.encode_utf16().count()
}

fn sanitized(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

fn substitute(v: &Value, run: &str) -> Value {
    match v {
        Value::String(s) => Value::String(s.replace("$RUN", run)),
        Value::Object(m) => Value::Object(m.iter().map(|(k, x)| (k.clone(), substitute(x, run))).collect()),
        Value::Array(a) => Value::Array(a.iter().map(|x| substitute(x, run)).collect()),
        other => other.clone(),
    }
}

fn write(path: &Path, content: &Value) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    match content {
        Value::String(raw) => fs::write(path, raw).unwrap(),
        json => fs::write(path, json.to_string()).unwrap(),
    }
}

/// The project dir name that makes `<run>/<name>` exactly `total` units (as the
/// generator does).
fn long_name(run: &str, spec: &Value) -> String {
    let head = spec["head"].as_str().unwrap_or("project-");
    let total = spec["total"].as_u64().unwrap() as usize;
    let need = total - units(&format!("{run}/")) - units(head);
    let fill = spec["fill"].as_str().unwrap();
    let filler: String = fill.repeat(need).chars().take(need).collect();
    format!("{head}{filler}")
}

/// Build the setup under `run`; returns (project root as started, cwd).
fn build(run: &Path, spec: &Value) -> (PathBuf, PathBuf) {
    let run_s = run.to_str().unwrap();
    let layout = spec["layout"].as_str().unwrap_or("git");
    let project = match layout {
        "git" | "plain" => {
            let p = run.join("project");
            fs::create_dir_all(&p).unwrap();
            if layout == "git" {
                git(&p, &["init", "-q"]);
            }
            p
        }
        "long" => {
            let p = run.join(long_name(run_s, spec));
            fs::create_dir_all(&p).unwrap();
            git(&p, &["init", "-q"]);
            p
        }
        "symlink" => {
            let real = run.join("real-project");
            fs::create_dir_all(&real).unwrap();
            git(&real, &["init", "-q"]);
            std::os::unix::fs::symlink("real-project", run.join("link")).unwrap();
            run.join("link")
        }
        "worktree" | "worktree-rel" => {
            let app = run.join("app");
            fs::create_dir_all(&app).unwrap();
            git(&app, &["init", "-q"]);
            git(&app, &["commit", "-q", "--allow-empty", "-m", "init"]);
            git(&app, &["worktree", "add", "-q", "../app-wt"]);
            let wt = run.join("app-wt");
            if layout == "worktree-rel" {
                fs::write(wt.join(".git"), "gitdir: ../app/.git/worktrees/app-wt\n").unwrap();
                fs::write(app.join(".git/worktrees/app-wt/gitdir"), "../../../../app-wt/.git\n").unwrap();
            }
            wt
        }
        "bare-worktree" => {
            let bare = run.join("bare.git");
            git(run, &["init", "-q", "--bare", "bare.git"]);
            let tree = git(&bare, &["hash-object", "-w", "-t", "tree", "/dev/null"]);
            let commit = git(&bare, &["commit-tree", &tree, "-m", "init"]);
            git(&bare, &["update-ref", "refs/heads/main", &commit]);
            git(&bare, &["worktree", "add", "-q", "../bwt", "main"]);
            run.join("bwt")
        }
        other => panic!("unknown layout {other}"),
    };
    let cwd = project.join(spec["cwd"].as_str().unwrap_or(""));
    fs::create_dir_all(&cwd).unwrap();
    fs::create_dir_all(run.join("home/.claude")).unwrap();
    if let Some(files) = spec["files"].as_object() {
        for (rel, content) in files {
            write(&run.join(rel), &substitute(content, run_s));
        }
    }
    if let Some(user) = spec.get("user") {
        write(&run.join("home/.claude/settings.json"), &substitute(user, run_s));
    }
    if let Some(global) = spec["global"].as_object() {
        let projects: serde_json::Map<String, Value> = global
            .iter()
            .map(|(k, v)| (format!("{run_s}/{k}"), v.clone()))
            .collect();
        write(
            &run.join("home/.claude/.claude.json"),
            &serde_json::json!({ "projects": projects }),
        );
    }
    (project, cwd)
}

/// The environment the harness gave the client, then the row's `env` and `unset`.
fn memctl(run: &Path, cwd: &Path, spec: &Value, args: &[&str]) -> Value {
    let run_s = run.to_str().unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_memctl"));
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", run.join("home"))
        .env("CLAUDE_CONFIG_DIR", run.join("home/.claude"))
        .env("XDG_STATE_HOME", run.join("xdg/state"))
        .env("TMPDIR", run.join("tmp"))
        .env("LANG", "C.UTF-8")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("DISABLE_AUTOUPDATER", "1")
        .env("DISABLE_TELEMETRY", "1")
        .env("MEMCTL_HISTORY", "off")
        .env("MEMCTL_NOW", crate::support::NOW);
    if let Some(env) = spec["env"].as_object() {
        for (k, v) in env {
            cmd.env(k, v.as_str().unwrap().replace("$RUN", run_s));
        }
    }
    for k in spec["unset"].as_array().into_iter().flatten() {
        cmd.env_remove(k.as_str().unwrap());
    }
    let out = cmd.args(args).current_dir(cwd).output().expect("memctl runs");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "memctl {args:?}: no JSON ({e}); stderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

fn key_for(path: &str) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_memctl"))
        .args(["path", "--json", "--key-for", path])
        .env_clear()
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["key"], doc["key_djb2"]);
    doc["key"].as_str().unwrap().to_string()
}

/// One row: `None` when memctl agrees, else what differs.
fn check(row: &Value) -> Option<String> {
    let name = row["setup"].as_str().unwrap();
    let spec = &row["input"];
    let observed = &row["observed"];
    let tmp = tempfile::tempdir().unwrap();
    let run = fs::canonicalize(tmp.path())
        .unwrap()
        .join(name.chars().take(8).collect::<String>());
    fs::create_dir_all(&run).unwrap();
    let run_s = run.to_str().unwrap().to_string();
    let (project, cwd) = build(&run, spec);
    let doc = memctl(&run, &cwd, spec, &["path", "--json"]);
    let mine = if doc["enabled"]["value"] == Value::Bool(true) {
        doc["memory_dir"].as_str().map(str::to_string)
    } else {
        None
    };
    let mut diffs = Vec::new();
    if spec["layout"] == "long" {
        // The client's key of the exact path it ran in, then the same rule here.
        let client_key = observed["memory_key"].as_str().unwrap();
        let recorded = observed["project_path"].as_str().unwrap();
        if key_for(recorded) != client_key {
            diffs.push(format!(
                "key-for {recorded}: memctl {} client {client_key}",
                key_for(recorded)
            ));
        }
        let cwd_path = observed["cwd_path"].as_str().unwrap();
        let client_tkey = observed["transcripts_key"].as_str().unwrap_or_default();
        if !client_tkey.is_empty() && key_for(cwd_path) != client_tkey {
            diffs.push(format!("transcripts key-for {cwd_path}: memctl {}", key_for(cwd_path)));
        }
        let here = fs::canonicalize(&project).unwrap();
        let want = format!(
            "{run_s}/home/.claude/projects/{}/memory/",
            key_for(here.to_str().unwrap())
        );
        if mine.as_deref() != Some(want.as_str()) {
            diffs.push(format!("memory dir: memctl {mine:?}, want {want}"));
        }
        // sanitizePath keeps the length in units: past 200 the key has the djb2 suffix.
        let variant = if units(here.to_str().unwrap()) > 200 {
            Value::from("djb2")
        } else {
            Value::Null
        };
        if doc["hash_variant"] != variant {
            diffs.push(format!("hash_variant {}", doc["hash_variant"]));
        }
    } else {
        let key = sanitized(&run_s);
        let expand = |v: &Value| v.as_str().map(|s| s.replace("$RUN_KEY", &key).replace("$RUN", &run_s));
        let want = expand(&observed["memory_dir"]);
        if mine != want {
            diffs.push(format!("memory dir: memctl {mine:?}, client {want:?}"));
        }
        if let Some(t) = expand(&observed["transcripts_dir"])
            && doc["transcripts_dir"].as_str() != Some(t.as_str())
        {
            diffs.push(format!("transcripts: memctl {}, client {t}", doc["transcripts_dir"]));
        }
    }
    drop(tmp);
    (!diffs.is_empty()).then(|| format!("{name}: {}", diffs.join("; ")))
}

#[test]
fn every_recorded_setup_resolves_as_claude_code_does() {
    let rows: Vec<Value> = GOLDEN.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(rows.len() >= 40, "{} rows", rows.len());
    for r in &rows {
        assert_eq!(r["claude_version"], "2.1.332");
        assert_eq!(r["rc"], 0, "{}: the client failed", r["setup"]);
    }
    let mut unexpected = Vec::new();
    for row in &rows {
        let name = row["setup"].as_str().unwrap();
        match (check(row), KNOWN_DIFFERENCES.iter().find(|(n, _)| *n == name)) {
            (Some(d), None) => unexpected.push(d),
            (Some(_), Some(_)) => {}
            (None, Some((n, _))) => unexpected.push(format!("{n}: listed as a known difference but agrees now")),
            (None, None) => {}
        }
    }
    assert!(
        unexpected.is_empty(),
        "{} of {} setups differ from Claude Code 2.1.332:\n{}",
        unexpected.len(),
        rows.len(),
        unexpected.join("\n")
    );
}
