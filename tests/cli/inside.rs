//! Inside a memory dir (SPEC v3 §3.14; issue 34 point 6): after
//! `cd "$(memctl path)"`, every command but `hook` uses that dir and says so once.

use std::fs;
use std::path::{Path, PathBuf};

use memctl::paths::sanitize::sanitize;

use crate::support::Env;

const NOTE: &str = "memctl: using the memory dir you are in: ";

/// An env with the project `<root>/proj` (a git root) and its memory dir
/// `~/.claude/projects/<key>/memory/` holding `feedback_x.md`, indexed.
fn project_with_memory() -> (Env, PathBuf, PathBuf) {
    let env = Env::new().resolved();
    let proj = env.root().join("proj");
    fs::create_dir_all(proj.join(".git")).unwrap();
    let key = sanitize(&proj.to_string_lossy()).key;
    let mem = env.home().join(".claude/projects").join(key).join("memory");
    fs::create_dir_all(mem.join("sub")).unwrap();
    fs::write(
        mem.join("feedback_x.md"),
        "---\nname: feedback_x\ndescription: keep answers short\ntype: feedback\n---\nBe brief.\n",
    )
    .unwrap();
    fs::write(
        mem.join("MEMORY.md"),
        "- [feedback_x](feedback_x.md) — keep answers short\n",
    )
    .unwrap();
    (env, proj, mem)
}

fn run(env: &Env, cwd: &Path, args: &[&str]) -> (String, String, i32) {
    let out = env.command().current_dir(cwd).args(args).output().unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

#[test]
fn commands_run_inside_a_memory_dir_use_it_and_say_so_once() {
    let (env, _proj, mem) = project_with_memory();
    let note = format!("{NOTE}{}/\n", mem.display());
    for cwd in [mem.clone(), mem.join("sub")] {
        let (out, err, code) = run(&env, &cwd, &["path"]);
        assert_eq!(
            (code, out.as_str()),
            (0, format!("{}/\n", mem.display()).as_str()),
            "{err}"
        );
        assert_eq!(err, note);

        let (out, err, code) = run(&env, &cwd, &["show", "feedback_x"]);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains("Be brief."), "{out}");
        assert_eq!(err.matches(NOTE).count(), 1, "{err}");
    }
    let (out, err, code) = run(&env, &mem, &["--json", "path"]);
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["source"], "inside_memory_dir", "{out}");

    // `add` writes into the dir it runs in, not into a new project dir for it.
    let projects = env.home().join(".claude/projects");
    let before: Vec<_> = fs::read_dir(&projects)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    let (_, err, code) = run(
        &env,
        &mem,
        &[
            "add",
            "--name",
            "role",
            "--type",
            "user",
            "--description",
            "a data scientist",
            "--body",
            "Role.",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(err.matches(NOTE).count(), 1, "{err}");
    assert!(mem.join("user_role.md").is_file());
    assert!(
        fs::read_to_string(mem.join("MEMORY.md"))
            .unwrap()
            .contains("user_role.md")
    );
    let after: Vec<_> = fs::read_dir(&projects)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(before, after);
}

/// `--dir`, `MEMCTL_DIR` and `--project` still decide; `hook` never takes the
/// current directory as its memory dir.
#[test]
fn a_named_dir_or_project_wins_over_the_dir_you_are_in() {
    let (env, proj, mem) = project_with_memory();
    let other = env.dir();
    let (out, err, _) = run(&env, &mem, &["--dir", &other.to_string_lossy(), "path"]);
    assert_eq!(out, format!("{}/\n", other.display()));
    assert!(!err.contains(NOTE), "{err}");
    let out = env
        .command()
        .current_dir(&mem)
        .env("MEMCTL_DIR", &other)
        .arg("path")
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), format!("{}/\n", other.display()));
    let (out, err, _) = run(&env, &mem, &["--project", &proj.to_string_lossy(), "path"]);
    assert_eq!(out, format!("{}/\n", mem.display()));
    assert!(!err.contains(NOTE), "{err}");
    let (_, err, _) = run(&env, &mem, &["hook", "status"]);
    assert!(!err.contains(NOTE), "{err}");
}

/// A project whose root merely holds a `MEMORY.md` is not a memory dir.
#[test]
fn a_project_root_holding_memory_md_is_not_a_memory_dir() {
    let (env, proj, mem) = project_with_memory();
    fs::write(proj.join("MEMORY.md"), "- [a](a.md) — a\n").unwrap();
    let (out, err, code) = run(&env, &proj, &["path"]);
    assert_eq!((code, out), (0, format!("{}/\n", mem.display())), "{err}");
    assert!(!err.contains(NOTE), "{err}");
}

/// Inside the dir that resolution gives (an `autoMemoryDirectory`): that dir,
/// said once.
#[test]
fn inside_an_auto_memory_directory_says_so() {
    let env = Env::new().resolved();
    let notes = env.root().join("notes");
    fs::create_dir_all(&notes).unwrap();
    fs::create_dir_all(env.home().join(".claude")).unwrap();
    fs::write(
        env.home().join(".claude/settings.json"),
        format!("{{\"autoMemoryDirectory\": \"{}\"}}\n", notes.display()),
    )
    .unwrap();
    let (out, err, code) = run(&env, &notes, &["path"]);
    assert_eq!((code, out), (0, format!("{}/\n", notes.display())), "{err}");
    assert_eq!(err, format!("{NOTE}{}/\n", notes.display()));
}

/// Completion inside a memory dir offers that dir's memories.
#[test]
fn completion_inside_a_memory_dir_offers_its_memories() {
    let (env, _proj, mem) = project_with_memory();
    let (out, err, code) = run(
        &env,
        &mem,
        &["__complete", "--shell", "bash", "--", "memctl", "show", "fee"],
    );
    assert_eq!((code, out.as_str()), (0, "feedback_x\n"), "{err}");
}
