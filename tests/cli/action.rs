//! The GitHub Action's script (`scripts/action/run.sh`, issue 36 point 3, SPEC v3
//! §13) on a temporary git repository that tracks a memory dir: the findings are
//! workflow annotations, and the exit status follows the fail level.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{Env, NOW};

const BAD_TYPE: &str =
    "---\nname: bad\ndescription: a note\ntype: preference\n---\n\nBody.\n\n**Why:** x\n**How to apply:** y\n";
const GOOD: &str =
    "---\nname: good\ndescription: a note\ntype: feedback\n---\n\nBody.\n\n**Why:** x\n**How to apply:** y\n";

/// A git repository in the Env's temp dir; `files` are written and staged (`git add`).
fn repo(env: &Env, files: &[(&str, &str)]) -> PathBuf {
    let root = env.root().join("repo");
    fs::create_dir_all(&root).unwrap();
    git(&root, &["init", "-q", "."]);
    for (rel, text) in files {
        let p = root.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }
    git(&root, &["add", "-A"]);
    root
}

fn git(root: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .args(args)
        .current_dir(root)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", root)
        .status()
        .unwrap()
        .success();
    assert!(ok, "git {args:?}");
}

struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

/// The Action's script in `root`, as its second step runs it.
fn action(env: &Env, root: &Path, vars: &[(&str, &str)]) -> Out {
    let mut c = Command::new("bash");
    c.arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/action/run.sh"))
        .current_dir(root)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", env.home())
        .env("CLAUDE_CONFIG_DIR", env.home().join(".claude"))
        .env("XDG_STATE_HOME", env.root().join("state"))
        .env("MEMCTL_NOW", NOW)
        .env("MEMCTL_BIN", env!("CARGO_BIN_EXE_memctl"));
    for (k, v) in vars {
        c.env(k, v);
    }
    let o = c.output().unwrap();
    Out {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

#[test]
fn r36_action_annotates_a_bad_memory_and_fails_at_the_error_level() {
    let env = Env::new();
    let root = repo(
        &env,
        &[
            (".claude/memory/MEMORY.md", "- [Bad](feedback_bad.md) — a note\n"),
            (".claude/memory/feedback_bad.md", BAD_TYPE),
        ],
    );
    let o = action(&env, &root, &[]);
    assert_eq!(o.code, 1, "{}\n{}", o.stdout, o.stderr);
    assert!(
        o.stdout.contains(
            "::error file=.claude/memory/feedback_bad.md,line=4,col=1,title=ML108 type-invalid::type `preference` is not one of user, feedback, project, reference (case-sensitive): write `type: feedback`\n"
        ),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout.starts_with("::group::memctl lint .claude/memory\n"),
        "{}",
        o.stdout
    );
    assert!(o.stdout.contains("::group::memctl truncate-check .claude/memory\n"));
    // never: the same annotations, exit 0.
    let o = action(&env, &root, &[("INPUT_FAIL_LEVEL", "never")]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stdout.contains("title=ML108 type-invalid::"));
}

#[test]
fn r36_action_fails_on_warnings_only_at_the_warning_level() {
    let env = Env::new();
    // An unindexed memory: a warning (ML203), no error.
    let root = repo(
        &env,
        &[
            ("docs/memory/MEMORY.md", "- [Good](feedback_good.md) — a note\n"),
            ("docs/memory/feedback_good.md", GOOD),
            ("docs/memory/feedback_more.md", &GOOD.replace("good", "more")),
        ],
    );
    let o = action(&env, &root, &[]);
    assert_eq!(o.code, 0, "{}\n{}", o.stdout, o.stderr);
    assert!(
        o.stdout
            .contains("::warning file=docs/memory/feedback_more.md,line=1,col=1,title=ML203 index-unindexed::"),
        "{}",
        o.stdout
    );
    let o = action(&env, &root, &[("INPUT_FAIL_LEVEL", "warning")]);
    assert_eq!(o.code, 1, "{}\n{}", o.stdout, o.stderr);
    let o = action(&env, &root, &[("INPUT_FAIL_LEVEL", "fatal")]);
    assert_eq!(
        (o.code, o.stderr.as_str()),
        (
            2,
            "memctl-action: fail-level must be error, warning or never, not `fatal`\n"
        )
    );
}

#[test]
fn r36_action_reports_a_memory_md_claude_code_would_cut() {
    let env = Env::new();
    let mut index = String::new();
    for i in 0..201 {
        index.push_str(&format!("- [Note {i}](note_{i}.md) — one note\n"));
    }
    let mut files: Vec<(String, String)> = (0..201)
        .map(|i| {
            (
                format!("mem/note_{i}.md"),
                GOOD.replace("name: good", &format!("name: note-{i}")),
            )
        })
        .collect();
    files.push(("mem/MEMORY.md".into(), index));
    let refs: Vec<(&str, &str)> = files.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    let root = repo(&env, &refs);
    // Only named paths are checked when the input names them.
    let o = action(&env, &root, &[("INPUT_PATHS", "mem/")]);
    assert_eq!(o.code, 1, "{}\n{}", o.stdout, o.stderr);
    let line = o
        .stdout
        .lines()
        .find(|l| l.starts_with("::error file=mem/MEMORY.md,title=memctl truncate-check::"))
        .unwrap_or_else(|| panic!("{}", o.stdout));
    assert!(
        line.contains("Claude Code would not load all of this MEMORY.md:%0AMEMORY.md: 201 lines"),
        "{line}"
    );
    assert!(!line.contains('\n'));
}

#[test]
fn r36_action_checks_only_tracked_memory_and_says_when_there_is_none() {
    let env = Env::new();
    let root = repo(&env, &[("README.md", "hi\n")]);
    // Present but not tracked: not the repository's memory.
    fs::create_dir_all(root.join(".claude/memory")).unwrap();
    fs::write(root.join(".claude/memory/feedback_bad.md"), BAD_TYPE).unwrap();
    let o = action(&env, &root, &[]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(
        o.stdout,
        "::notice title=memctl::no tracked memory dir (no MEMORY.md or .claude/memory/ in git); set the paths input to check others\n"
    );
}

/// `scripts/action/install.sh` (the Action's first step) for a Linux x64 runner,
/// with the release archives at `base` and `fake_cargo` first on PATH.
fn install(env: &Env, base: &Path) -> Out {
    let fake = env.root().join("fake-bin");
    fs::create_dir_all(&fake).unwrap();
    let cargo = fake.join("cargo");
    fs::write(&cargo, "#!/bin/sh\necho \"cargo $*\" >> \"$FAKE_CARGO_LOG\"\n").unwrap();
    let mut perms = fs::metadata(&cargo).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    fs::set_permissions(&cargo, perms).unwrap();
    let path = format!("{}:{}", fake.display(), std::env::var("PATH").unwrap_or_default());
    let o = Command::new("bash")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/action/install.sh"))
        .env_clear()
        .env("PATH", path)
        .env("HOME", env.home())
        .env("RUNNER_OS", "Linux")
        .env("RUNNER_ARCH", "X64")
        .env("RUNNER_TEMP", env.root().join("runner"))
        .env("GITHUB_PATH", env.root().join("github_path"))
        .env("MEMCTL_DOWNLOAD_BASE", format!("file://{}", base.display()))
        .env("FAKE_CARGO_LOG", env.root().join("cargo.log"))
        .output()
        .unwrap();
    Out {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

/// A release dir as the release workflow publishes it, for one target.
fn release(env: &Env, target: &str) -> PathBuf {
    let base = env.root().join("release");
    let name = format!("memctl-{target}");
    fs::create_dir_all(base.join(&name)).unwrap();
    fs::copy(env!("CARGO_BIN_EXE_memctl"), base.join(&name).join("memctl")).unwrap();
    let ok = Command::new("tar")
        .args(["-czf", &format!("{name}.tar.gz"), &name])
        .current_dir(&base)
        .status()
        .unwrap()
        .success();
    assert!(ok);
    let sum = Command::new("sha256sum")
        .arg(format!("{name}.tar.gz"))
        .current_dir(&base)
        .output()
        .unwrap();
    fs::write(base.join(format!("{name}.tar.gz.sha256")), sum.stdout).unwrap();
    fs::remove_dir_all(base.join(&name)).unwrap();
    base
}

#[test]
fn r36_action_installs_the_release_archive_checked_against_its_checksum() {
    let env = Env::new();
    let base = release(&env, "x86_64-unknown-linux-musl");
    let o = install(&env, &base);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let dir = env.root().join("runner/memctl-bin/memctl-x86_64-unknown-linux-musl");
    assert_eq!(o.stdout, format!("{}/memctl\n", dir.display()));
    assert_eq!(
        fs::read_to_string(env.root().join("github_path")).unwrap(),
        format!("{}\n", dir.display())
    );
    let v = Command::new(dir.join("memctl")).arg("--version").output().unwrap();
    assert!(String::from_utf8_lossy(&v.stdout).starts_with("memctl "));
    assert!(!env.root().join("cargo.log").exists());
}

#[test]
fn r36_action_refuses_an_archive_that_does_not_match_and_builds_when_there_is_none() {
    let env = Env::new();
    let base = release(&env, "x86_64-unknown-linux-musl");
    let sum = base.join("memctl-x86_64-unknown-linux-musl.tar.gz.sha256");
    let text = fs::read_to_string(&sum).unwrap();
    fs::write(&sum, format!("{}{}", "0".repeat(64), &text[64..])).unwrap();
    let o = install(&env, &base);
    assert_eq!(o.code, 2, "{}", o.stdout);
    assert!(
        o.stderr.ends_with(
            "memctl-action: memctl-x86_64-unknown-linux-musl.tar.gz does not match memctl-x86_64-unknown-linux-musl.tar.gz.sha256; nothing installed\n"
        ),
        "{}",
        o.stderr
    );
    assert!(!env.root().join("cargo.log").exists());
    // No archive for this runner: cargo install, into the runner's temp dir.
    let env = Env::new();
    let empty = env.root().join("empty");
    fs::create_dir_all(&empty).unwrap();
    let o = install(&env, &empty);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let root = env.root().join("runner/memctl-bin");
    assert_eq!(o.stdout, format!("{}/bin/memctl\n", root.display()));
    assert_eq!(
        fs::read_to_string(env.root().join("cargo.log")).unwrap(),
        format!("cargo install --locked --root {} memctl\n", root.display())
    );
}

/// The pre-commit entry (`scripts/pre-commit/memctl-hook`, issue 36 point 4) as
/// pre-commit runs it: the check, then the staged files that match `files`.
fn pre_commit(env: &Env, root: &Path, args: &[&str]) -> Out {
    let o = Command::new("bash")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/pre-commit/memctl-hook"))
        .args(args)
        .current_dir(root)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", env.home())
        .env("CLAUDE_CONFIG_DIR", env.home().join(".claude"))
        .env("XDG_STATE_HOME", env.root().join("state"))
        .env("MEMCTL_NOW", NOW)
        .env("MEMCTL_BIN", env!("CARGO_BIN_EXE_memctl"))
        .output()
        .unwrap();
    Out {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

#[test]
fn r36_pre_commit_refuses_a_bad_memory_and_a_cut_index_in_its_memory_dir() {
    let env = Env::new();
    let mut index = String::from("- [Bad](feedback_bad.md) — a note\n");
    let root = repo(
        &env,
        &[
            (".claude/memory/MEMORY.md", &index),
            (".claude/memory/feedback_bad.md", BAD_TYPE),
            ("docs/memory/MEMORY.md", "- [Good](feedback_good.md) — a note\n"),
            ("docs/memory/feedback_good.md", GOOD),
        ],
    );
    // A staged file in a subfolder is checked with its memory dir's index.
    let o = pre_commit(&env, &root, &["lint", ".claude/memory/feedback_bad.md"]);
    assert_eq!(o.code, 1, "{}", o.stderr);
    assert_eq!(
        o.stdout,
        ".claude/memory/feedback_bad.md:4:1: error[ML108/type-invalid]: type `preference` is not one of user, feedback, project, reference (case-sensitive): write `type: feedback`\n"
    );
    let o = pre_commit(&env, &root, &["lint", "docs/memory/feedback_good.md"]);
    assert_eq!(o.code, 0, "{}{}", o.stdout, o.stderr);
    let o = pre_commit(&env, &root, &["truncate-check", ".claude/memory/MEMORY.md"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    for i in 0..200 {
        index.push_str(&format!("- [Bad {i}](feedback_bad.md) — again\n"));
    }
    fs::write(root.join(".claude/memory/MEMORY.md"), &index).unwrap();
    let o = pre_commit(&env, &root, &["truncate-check", ".claude/memory/MEMORY.md"]);
    assert_eq!(o.code, 1, "{}", o.stderr);
    assert!(o.stdout.starts_with("MEMORY.md: 201 lines"), "{}", o.stdout);
    let o = pre_commit(&env, &root, &["nope"]);
    assert_eq!(
        (o.code, o.stderr.as_str()),
        (2, "memctl-hook: usage: memctl-hook lint|truncate-check FILE...\n")
    );
}
