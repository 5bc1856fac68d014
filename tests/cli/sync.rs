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
    // Done, but a conflict needs the user: exit 1 (SPEC v3 §3.14), named.
    let (code, out, err) = memctl(&desk, &dp, "desk", &["sync"]);
    assert_eq!(code, 1, "{err}");
    assert!(out.contains("1 conflict"), "{out}");
    assert!(out.contains("conflict  user_a.md"), "{out}");
    assert!(err.contains("1 conflict file needs you"), "{err}");
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
    // Refused while it is open: exit 1 too (the user has to act; 2 is a typo's).
    let (code, _, err) = memctl(&desk, &dp, "desk", &["sync"]);
    assert_eq!(code, 1);
    assert!(err.contains("unresolved sync conflict"), "{err}");
    let (code, _, err) = memctl(&desk, &dp, "desk", &["sync", "--json"]);
    assert_eq!(code, 1);
    assert!(err.contains("\"kind\":\"unresolved_conflicts\""), "{err}");
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

/// Issue 34 point 10 (review finding 11): a machine that only received printed
/// "1 sent" (its index differed from the remote's before the merge) and then
/// "up to date". "sent" is what the push carries.
#[test]
fn a_sync_that_only_receives_sends_nothing() {
    let (lap, lp, lm) = machine("laptop");
    let (desk, dp, dm) = machine("desk");
    let url = bare_remote(&lap);
    write(&lm, "user_a.md", &memory("a", "user", "alpha"));
    write(&lm, "MEMORY.md", "- [A](user_a.md) — alpha\n");
    assert_eq!(memctl(&lap, &lp, "laptop", &["sync", "--remote", &url]).0, 0);
    assert_eq!(memctl(&desk, &dp, "desk", &["sync", "--remote", &url]).0, 0);
    // The laptop adds a memory and its index line; the desk changed nothing.
    write(&lm, "user_b.md", &memory("b", "user", "beta"));
    write(&lm, "MEMORY.md", "- [A](user_a.md) — alpha\n- [B](user_b.md) — beta\n");
    let (code, out, err) = memctl(&lap, &lp, "laptop", &["sync"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("github.com/Alice/App: 2 sent;"), "{out}");
    let (code, out, err) = memctl(&desk, &dp, "desk", &["sync"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("github.com/Alice/App: 0 sent; 1 added, 1 updated, 0 deleted, 0 conflicts\n"),
        "{out}"
    );
    assert!(out.contains("up to date"), "{out}");
    assert_eq!(
        fs::read_to_string(dm.join("MEMORY.md")).unwrap(),
        "- [A](user_a.md) — alpha\n- [B](user_b.md) — beta\n"
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

/// Issue 32 point 19: `sync --strict` refused without naming where the secret is;
/// `import`/`sync` refusing for a live dream hinted `--force`, which neither has;
/// `sync --all-projects` told a row without an identity to run `export --as ID`.
#[test]
fn refusals_name_the_secret_the_right_retry_and_sync_as() {
    let (lap, lp, lm) = machine("laptop");
    let url = bare_remote(&lap);
    write(
        &lm,
        "user_a.md",
        &memory("a", "user", "token ghp_abcdefghijklmnopqrstuvwxyz0123456789"),
    );
    let (code, _, err) = memctl(&lap, &lp, "laptop", &["sync", "--strict", "--remote", &url]);
    assert_ne!(code, 0, "{err}");
    assert!(
        err.contains("user_a.md:6: ML121"),
        "the file and line are named:\n{err}"
    );
    // A live dream: wait, then run the command again (no --force to pass).
    fs::remove_file(lm.join("user_a.md")).unwrap();
    write(&lm, "user_b.md", &memory("b", "user", "beta"));
    let lock = lm.join(".consolidate-lock");
    crate::support::write_aged(&lock, std::process::id().to_string().as_bytes(), 0.1);
    let (code, _, err) = memctl(&lap, &lp, "laptop", &["sync", "--remote", &url]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("hint: wait for it to finish, then run `memctl sync` again"),
        "{err}"
    );
    assert!(!err.contains("--force"), "{err}");
    fs::remove_file(&lock).unwrap();
    let bundle = lap.root().join("b.tar.gz");
    let (code, _, err) = memctl(&lap, &lp, "laptop", &["export", "-o", bundle.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    fs::remove_file(lm.join("user_b.md")).unwrap();
    crate::support::write_aged(&lock, std::process::id().to_string().as_bytes(), 0.1);
    let (code, _, err) = memctl(&lap, &lp, "laptop", &["import", "--yes", bundle.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("hint: wait for it to finish, then run `memctl import` again"),
        "{err}"
    );
    assert!(!err.contains("--force"), "{err}");
    fs::remove_file(&lock).unwrap();
    // A project that is no git repository has no identity.
    let plain = lap.root().join("plain");
    fs::create_dir_all(&plain).unwrap();
    let (_, out, _) = memctl(&lap, &plain, "laptop", &["path"]);
    let pm = PathBuf::from(out.trim());
    write(&pm, "user_p.md", &memory("p", "user", "plain"));
    let (_, _, err) = memctl(&lap, &lp, "laptop", &["sync", "--all-projects", "--remote", &url]);
    let want = format!(
        "has no identity: not synced (sync it alone with `memctl --dir {}",
        pm.display()
    );
    assert!(err.contains(want.trim_end_matches('/')), "{err}");
    assert!(err.contains(" sync --as ID`)"), "{err}");
    assert!(!err.contains("export --as"), "{err}");
}

/// Issue 32 point 20: the index merge replaced the other machine's wording of a
/// line, and dropped its free text, silently. Each is now reported (text and
/// `index_replaced`), and the other wording stays in the sync repository.
#[test]
fn the_index_merge_reports_the_other_machines_lines_it_replaced_or_dropped() {
    let (lap, lp, lm) = machine("laptop");
    let (desk, dp, dm) = machine("desk");
    let url = bare_remote(&lap);
    write(&lm, "user_a.md", &memory("a", "user", "alpha"));
    write(&lm, "MEMORY.md", "- [A](user_a.md) — alpha\n");
    assert_eq!(memctl(&lap, &lp, "laptop", &["sync", "--remote", &url]).0, 0);
    assert_eq!(memctl(&desk, &dp, "desk", &["sync", "--remote", &url]).0, 0);
    // Both reword the hook and add a note under it.
    write(
        &lm,
        "MEMORY.md",
        "- [A](user_a.md) — alpha, see the laptop runbook\nlaptop: ask before deploys\n",
    );
    write(
        &dm,
        "MEMORY.md",
        "- [A](user_a.md) — alpha, desk wording\ndesk: staging first\n",
    );
    let (code, _, err) = memctl(&lap, &lp, "laptop", &["sync"]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = memctl(&desk, &dp, "desk", &["sync"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        fs::read_to_string(dm.join("MEMORY.md")).unwrap(),
        "- [A](user_a.md) — alpha, desk wording\ndesk: staging first\n",
        "the local wording and free text win (SPEC §11.3)"
    );
    assert!(
        out.contains(
            "  replaced  MEMORY.md:1 of the other machine: - [A](user_a.md) — alpha, see the laptop runbook\n            by this machine's - [A](user_a.md) — alpha, desk wording\n"
        ),
        "{out}"
    );
    assert!(
        out.contains("  dropped   MEMORY.md:2 of the other machine: laptop: ask before deploys\n"),
        "{out}"
    );
    // The recovery command printed works: the laptop's wording is in the history.
    let show = out
        .lines()
        .find(|l| l.contains("git --git-dir"))
        .expect("a recovery line");
    let args: Vec<&str> = show.split(": git ").nth(1).unwrap().split(' ').collect();
    let got = std::process::Command::new("git").args(&args).output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&got.stdout),
        "- [A](user_a.md) — alpha, see the laptop runbook\nlaptop: ask before deploys\n"
    );
    // JSON: the same lines, on the next merge of a reworded line.
    write(&lm, "MEMORY.md", "- [A](user_a.md) — laptop again\n");
    write(&dm, "MEMORY.md", "- [A](user_a.md) — desk again\n");
    assert_eq!(memctl(&lap, &lp, "laptop", &["sync"]).0, 0);
    let (code, out, err) = memctl(&desk, &dp, "desk", &["sync", "--json"]);
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let e = &doc["projects"][0]["index_replaced"][0];
    assert_eq!(e["line"], 1);
    assert_eq!(e["text"], "- [A](user_a.md) — laptop again");
    assert_eq!(e["replaced_by"], "- [A](user_a.md) — desk again");
    assert_eq!(e["commit"].as_str().map(str::len), Some(40), "{e}");
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

/// The commits reachable from any ref of the bare repo `remote`, and every
/// object they reach.
fn reachable(remote: &Path) -> (Vec<String>, String) {
    let commits = bare_git(remote, &["rev-list", "--all"]).unwrap_or_default();
    let objects = bare_git(remote, &["rev-list", "--objects", "--all"]).unwrap_or_default();
    (commits.lines().map(str::to_string).collect(), objects)
}

/// Issue 34 point 4 (SPEC v3 §11.3): a secret-like token is refused by default
/// (exit 2, file and line named, nothing pushed), pushed only with
/// `--allow-secrets`; after `forget` and a sync the remote's history still held
/// it: `sync --purge FILE` rewrites the history without it, force-pushes it, and
/// warns about clones that fetched it. The other machine is told the remote was
/// rewritten and takes it with `--accept-remote`.
#[test]
fn a_secret_is_refused_and_purge_removes_it_from_every_remote_commit() {
    let (lap, lp, lm) = machine("laptop");
    let (desk, dp, dm) = machine("desk");
    let url = bare_remote(&lap);
    let remote = PathBuf::from(url.trim_start_matches("file://"));
    let secret = memory("t", "user", "token ghp_abcdefghijklmnopqrstuvwxyz0123456789");
    write(&lm, "user_a.md", &memory("a", "user", "alpha"));
    write(&lm, "user_b.md", &memory("b", "user", "beta"));
    write(&lm, "user_t.md", &secret);
    let blob = {
        let f = lap.root().join("secret-copy");
        fs::write(&f, &secret).unwrap();
        git(&lap.root(), &["hash-object", f.to_str().unwrap()])
    };
    // Refused by default, naming file and line; nothing pushed.
    let (code, _, err) = memctl(&lap, &lp, "laptop", &["sync", "--remote", &url]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("sync refused: what it would push holds 1 secret-like token (ML121), nothing written or pushed"),
        "{err}"
    );
    assert!(err.contains("github.com/Alice/App: user_t.md:6: ML121"), "{err}");
    assert!(err.contains("--allow-secrets"), "{err}");
    assert!(reachable(&remote).0.is_empty(), "nothing pushed");
    // Pushed when asked for; the desk gets it.
    let (code, _, err) = memctl(&lap, &lp, "laptop", &["sync", "--remote", &url, "--allow-secrets"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(memctl(&desk, &dp, "desk", &["sync", "--remote", &url]).0, 0);
    assert!(dm.join("user_t.md").exists());
    // Purge refuses while the file is still here (the next sync would send it).
    let (code, _, err) = memctl(&lap, &lp, "laptop", &["sync", "--purge", "user_t.md"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("user_t.md is still in the memory dir"), "{err}");
    // Forgotten and synced: the remote's tip lacks it, its history holds it.
    let (code, _, err) = memctl(&lap, &lp, "laptop", &["forget", "--yes", "user_t.md"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(memctl(&lap, &lp, "laptop", &["sync"]).0, 0);
    assert_eq!(memctl(&desk, &dp, "desk", &["sync"]).0, 0);
    assert!(!dm.join("user_t.md").exists());
    let (commits, objects) = reachable(&remote);
    assert!(objects.contains(&blob), "the history holds the token before the purge");
    // The purge: every reachable commit of the remote is without the file.
    let (code, out, err) = memctl(&lap, &lp, "laptop", &["sync", "--purge", "user_t.md"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("purged user_t.md from "), "{out}");
    assert!(
        err.contains("every clone that fetched it before still does") && err.contains("revoke the secret"),
        "{err}"
    );
    let (after, objects) = reachable(&remote);
    assert_eq!(after.len(), commits.len(), "the same history, rewritten");
    assert!(
        !objects.contains(&blob),
        "no reachable commit of the remote holds the token"
    );
    for c in &after {
        let names = bare_git(&remote, &["ls-tree", "-r", "--name-only", c]).unwrap();
        assert!(!names.contains("user_t.md"), "{c}: {names}");
        assert!(names.contains("user_a.md"), "{c}: the other files stay");
    }
    // Nor does this machine's sync repository keep it.
    let local = lap.root().join("state/memctl/sync.git");
    assert!(bare_git(&local, &["cat-file", "-e", &blob]).is_none());
    // This machine syncs on normally; the desk is told the remote was rewritten.
    let (code, out, err) = memctl(&lap, &lp, "laptop", &["sync"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("up to date"), "{out}");
    let (code, _, err) = memctl(&desk, &dp, "desk", &["sync"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("rolled back or rewritten"), "{err}");
    let (code, _, err) = memctl(&desk, &dp, "desk", &["sync", "--accept-remote"]);
    assert_eq!(code, 0, "{err}");
    assert!(!reachable(&remote).1.contains(&blob));
    assert!(dm.join("user_a.md").exists() && dm.join("user_b.md").exists());
}
