//! `memctl sync` (SPEC §11.3), basics: two fake homes whose checkouts share an
//! `origin` URL at different paths, synced through a `file://` bare remote.
//! (The multi-machine scenario matrix lives in sync_machines.rs.)

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::support::{Env, bare_git, checkout, git};

const ORIGIN: &str = "https://github.com/Alice/App.git";

/// A home with a git checkout at `<root>/<name>` (origin set), and its memory dir.
fn machine(name: &str) -> (Env, PathBuf, PathBuf) {
    let env = Env::new().resolved();
    let proj = env.root().join(name);
    checkout(&proj, ORIGIN);
    let (_, out, _) = memctl(&env, &proj, name, &["path"]);
    (env, proj, PathBuf::from(out.trim()))
}

fn memctl(env: &Env, cwd: &Path, machine: &str, args: &[&str]) -> (i32, String, String) {
    let mut cmd = env.command();
    cmd.current_dir(cwd)
        .args(args)
        .env("MEMCTL_MACHINE", machine)
        .stdin(std::process::Stdio::null());
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn bare_remote(env: &Env) -> String {
    let remote = env.root().join("remote.git");
    git(
        env.root().as_path(),
        &["init", "-q", "--bare", remote.to_str().unwrap()],
    );
    format!("file://{}", remote.display())
}

fn memory(name: &str, ty: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: d\ntype: {ty}\n---\n{body}\n")
}

fn write(mem: &Path, rel: &str, text: &str) {
    fs::create_dir_all(mem).unwrap();
    fs::write(mem.join(rel), text).unwrap();
}

#[test]
fn first_sync_carries_memories_with_their_mtimes_to_a_second_machine() {
    let (lap, lp, lm) = machine("laptop");
    let (desk, dp, dm) = machine("desk");
    let url = bare_remote(&lap);
    write(&lm, "user_a.md", &memory("a", "user", "alpha"));
    write(&lm, "MEMORY.md", "- [A](user_a.md) — alpha\n");
    crate::support::set_age(&lm.join("user_a.md"), 48.0);
    let (code, out, err) = memctl(&lap, &lp, "laptop", &["sync", "--remote", &url]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("github.com/Alice/App: 2 sent; 0 added"), "{out}");
    assert!(out.contains("pushed "), "{out}");
    // The desk has no memory dir yet: the first sync creates it.
    let (code, out, err) = memctl(&desk, &dp, "desk", &["sync", "--remote", &url, "--json"]);
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let p = &doc["projects"][0];
    assert_eq!(p["identity"], "github.com/Alice/App");
    assert_eq!(p["added"], serde_json::json!(["user_a.md", "MEMORY.md"]));
    assert_eq!(doc["dry_run"], false);
    assert_eq!(
        fs::read_to_string(dm.join("user_a.md")).unwrap(),
        memory("a", "user", "alpha")
    );
    assert_eq!(
        fs::read_to_string(dm.join("MEMORY.md")).unwrap(),
        "- [A](user_a.md) — alpha\n"
    );
    let mt = |p: &Path| fs::metadata(p).unwrap().mtime();
    assert_eq!(
        mt(&dm.join("user_a.md")),
        mt(&lm.join("user_a.md")),
        "the mtime travels"
    );
    // Nothing changed: both are up to date and nothing is pushed.
    let (code, out, _) = memctl(&lap, &lp, "laptop", &["sync"]);
    assert_eq!(code, 0);
    assert!(out.contains("up to date"), "{out}");
    let (_, out, _) = memctl(&desk, &dp, "desk", &["sync"]);
    assert!(out.contains("up to date"), "{out}");
}

#[test]
fn only_memory_files_travel() {
    let (lap, lp, lm) = machine("laptop");
    let url = bare_remote(&lap);
    write(&lm, "user_a.md", &memory("a", "user", "alpha"));
    write(&lm, ".consolidate-lock", "4242");
    write(&lm, "notes.txt", "not a memory");
    fs::create_dir_all(lm.join(".trash/x")).unwrap();
    write(&lm.join(".trash/x"), "old.md.deleted", "gone");
    let (code, _, err) = memctl(&lap, &lp, "laptop", &["sync", "--remote", &url]);
    assert_eq!(code, 0, "{err}");
    let remote = Path::new(url.trim_start_matches("file://"));
    let names = bare_git(remote, &["ls-tree", "-r", "--name-only", "main"]).unwrap_or_default();
    assert_eq!(
        names.lines().collect::<Vec<_>>(),
        [
            "projects/github.com__Alice__App/.memctl/mtimes",
            "projects/github.com__Alice__App/user_a.md"
        ],
        "{names}"
    );
}

#[test]
fn a_conflict_is_kept_beside_the_file_listed_refused_and_resolved() {
    let (lap, lp, lm) = machine("laptop");
    let (desk, dp, dm) = machine("desk");
    let url = bare_remote(&lap);
    write(&lm, "user_a.md", &memory("a", "user", "alpha"));
    assert_eq!(memctl(&lap, &lp, "laptop", &["sync", "--remote", &url]).0, 0);
    assert_eq!(memctl(&desk, &dp, "desk", &["sync", "--remote", &url]).0, 0);
    write(&lm, "user_a.md", &memory("a", "user", "laptop's"));
    write(&dm, "user_a.md", &memory("a", "user", "desk's"));
    assert_eq!(memctl(&lap, &lp, "laptop", &["sync"]).0, 0);
    let (code, out, err) = memctl(&desk, &dp, "desk", &["sync"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("1 conflict"), "{out}");
    let kept = "user_a.md.conflict-laptop-20260310";
    assert_eq!(
        fs::read_to_string(dm.join("user_a.md")).unwrap(),
        memory("a", "user", "desk's")
    );
    assert_eq!(
        fs::read_to_string(dm.join(kept)).unwrap(),
        memory("a", "user", "laptop's")
    );
    // Listed (exit 1), and a sync is refused while it is unresolved.
    let (code, out, _) = memctl(&desk, &dp, "desk", &["sync", "--status"]);
    assert_eq!(code, 1);
    assert!(out.contains(kept), "{out}");
    let (code, _, err) = memctl(&desk, &dp, "desk", &["sync"]);
    assert_eq!(code, 2);
    assert!(err.contains("unresolved sync conflict"), "{err}");
    // Resolved keeping the local version: the incoming copy goes to the trash.
    let (code, out, err) = memctl(&desk, &dp, "desk", &["sync", "--resolve", kept]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("resolved: user_a.md kept"), "{out}");
    assert!(!dm.join(kept).exists());
    assert_eq!(memctl(&desk, &dp, "desk", &["sync", "--status"]).0, 0);
    assert_eq!(memctl(&desk, &dp, "desk", &["sync"]).0, 0);
    // The desk's choice reaches the laptop.
    assert_eq!(memctl(&lap, &lp, "laptop", &["sync"]).0, 0);
    assert_eq!(
        fs::read_to_string(lm.join("user_a.md")).unwrap(),
        memory("a", "user", "desk's")
    );
}

#[test]
fn dry_run_writes_and_pushes_nothing() {
    let (lap, lp, lm) = machine("laptop");
    let (desk, dp, dm) = machine("desk");
    let url = bare_remote(&lap);
    write(&lm, "user_a.md", &memory("a", "user", "alpha"));
    assert_eq!(memctl(&lap, &lp, "laptop", &["sync", "--remote", &url]).0, 0);
    let (code, out, err) = memctl(&desk, &dp, "desk", &["sync", "--remote", &url, "--dry-run"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("1 added") && out.contains("dry run"), "{out}");
    assert!(!dm.join("user_a.md").exists());
}

#[test]
fn the_first_sync_needs_a_remote() {
    let (lap, lp, lm) = machine("laptop");
    write(&lm, "user_a.md", &memory("a", "user", "alpha"));
    let (code, _, err) = memctl(&lap, &lp, "laptop", &["sync"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no sync remote is configured"), "{err}");
    assert!(err.contains("--remote URL"), "{err}");
}

#[test]
fn without_git_on_path_sync_is_a_config_error_naming_git_and_writes_nothing() {
    let (lap, lp, lm) = machine("laptop");
    let url = bare_remote(&lap);
    write(&lm, "user_a.md", &memory("a", "user", "alpha"));
    let empty = lap.root().join("no-git-bin");
    fs::create_dir_all(&empty).unwrap();
    let out = lap
        .command()
        .current_dir(&lp)
        .args(["sync", "--remote", &url])
        .env("MEMCTL_MACHINE", "laptop")
        .env("PATH", &empty)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("sync needs the `git` binary"), "{err}");
    assert!(err.contains("hint: install git"), "{err}");
    let listed: Vec<_> = fs::read_dir(&lm).unwrap().flatten().map(|e| e.file_name()).collect();
    assert_eq!(listed, ["user_a.md"], "nothing written into the memory dir");
}

#[test]
fn a_local_mass_deletion_is_refused_without_the_flag() {
    let (lap, lp, lm) = machine("laptop");
    let url = bare_remote(&lap);
    for n in ["a", "b", "c"] {
        write(&lm, &format!("user_{n}.md"), &memory(n, "user", n));
    }
    assert_eq!(memctl(&lap, &lp, "laptop", &["sync", "--remote", &url]).0, 0);
    fs::remove_file(lm.join("user_a.md")).unwrap();
    fs::remove_file(lm.join("user_b.md")).unwrap();
    let (code, _, err) = memctl(&lap, &lp, "laptop", &["sync"]);
    assert_eq!(code, 2);
    assert!(err.contains("delete 2 of 3 memories"), "{err}");
    let (code, _, err) = memctl(&lap, &lp, "laptop", &["sync", "--allow-mass-delete"]);
    assert_eq!(code, 0, "{err}");
    let remote = Path::new(url.trim_start_matches("file://"));
    let log = bare_git(remote, &["log", "-1", "--format=%B", "main"]).unwrap_or_default();
    assert!(log.contains("Mass-Delete-Approved: github.com/Alice/App"), "{log}");
}

/// SPEC §3.14 "Budget refusals" (issue 32): a sync whose merged index puts an
/// entry past Claude Code's cut syncs, then names that entry (file, line, text)
/// and suggests `index rebuild`; `--json` lists it in `cut_entries`.
#[test]
fn a_sync_that_cuts_the_index_names_each_entry_past_the_cut() {
    let (lap, lp, lm) = machine("laptop");
    let (desk, dp, dm) = machine("desk");
    let url = bare_remote(&lap);
    write(&lm, "user_a.md", &memory("a", "user", "alpha"));
    write(&lm, "MEMORY.md", "- [A](user_a.md) — alpha\n");
    let (code, _, err) = memctl(&lap, &lp, "laptop", &["sync", "--remote", &url]);
    assert_eq!(code, 0, "{err}");
    let filler: String = (0..200).map(|i| format!("- [E{i}](e{i}.md) — e\n")).collect();
    write(&dm, "MEMORY.md", &filler);
    let (code, out, err) = memctl(&desk, &dp, "desk", &["sync", "--remote", &url, "--json"]);
    assert_eq!(code, 0, "{err}");
    assert!(dm.join("user_a.md").is_file());
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        doc["projects"][0]["cut_entries"],
        serde_json::json!([{"file": "user_a.md", "line": 201, "text": "- [A](user_a.md) — alpha"}]),
        "{out}"
    );
    let warnings: Vec<&str> = doc["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|w| w.as_str())
        .collect();
    assert!(
        warnings.contains(
            &"github.com/Alice/App: MEMORY.md:201: past Claude Code's cut, it does not load: - [A](user_a.md) — alpha"
        ),
        "{warnings:?}"
    );
    assert!(
        warnings.iter().any(|w| w
            .starts_with("1 entry is past Claude Code's cut in github.com/Alice/App: MEMORY.md: run `memctl --dir ")),
        "{warnings:?}"
    );
}
