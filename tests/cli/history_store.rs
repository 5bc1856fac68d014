//! The history store under damage (issue 29, SPEC v3 §8.1): a store that lost a
//! repairable piece is repaired, never reinitialised over its objects; `undo` and
//! `restore` refuse when they cannot record their own snapshot; an unreadable
//! memory is not recorded as deleted. Every store lives under the test's own
//! `XDG_STATE_HOME`.

use std::fs;
use std::path::{Path, PathBuf};

use crate::support::*;

struct Out {
    stdout: String,
    stderr: String,
    code: i32,
}

impl Out {
    #[track_caller]
    fn ok(self) -> Out {
        assert_eq!(self.code, 0, "stdout:\n{}\nstderr:\n{}", self.stdout, self.stderr);
        self
    }

    #[track_caller]
    fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", self.stdout))
    }
}

fn memctl(env: &Env, args: &[&str]) -> Out {
    let out = env.command().args(args).output().expect("memctl runs");
    Out {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code().unwrap_or(-1),
    }
}

fn history_root(env: &Env) -> PathBuf {
    env.root().join("state/memctl/history")
}

fn store(env: &Env) -> PathBuf {
    history_root(env).join(format!("{}.git", memctl::history::key(&env.dir())))
}

/// The loose objects of a store (memctl writes no packs).
fn object_count(store: &Path) -> usize {
    fs::read_dir(store.join("objects"))
        .unwrap()
        .flatten()
        .filter(|d| d.file_name().len() == 2)
        .map(|d| fs::read_dir(d.path()).unwrap().count())
        .sum()
}

fn memory_text(name: &str) -> String {
    format!("---\nname: {name}\ndescription: about {name}\ntype: user\n---\nThe {name} fact.\n")
}

fn with_memories() -> Env {
    Env::new()
        .memory("alpha.md", &memory_text("Alpha"))
        .memory("beta.md", &memory_text("Beta"))
        .index("- [Alpha](alpha.md) — about Alpha\n- [Beta](beta.md) — about Beta\n")
}

fn add(env: &Env, name: &str) -> Out {
    memctl(
        env,
        &[
            "add",
            "--type",
            "user",
            "--name",
            name,
            "--description",
            "d",
            "--body",
            "b",
        ],
    )
}

fn set_aside_stores(env: &Env) -> Vec<String> {
    fs::read_dir(history_root(env))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".git.corrupt-"))
        .collect()
}

/// Issue 29 point 4: after `forget` ("kept in history"), `rm HEAD`, then `add`, the
/// store was reinitialised over its objects (21 → 12) and `restore` found nothing.
#[test]
fn a_store_that_lost_its_head_is_repaired_not_reinitialised() {
    for broken in ["missing", "garbage", "a directory"] {
        let env = with_memories();
        let forgot = memctl(&env, &["forget", "--yes", "alpha"]).ok();
        assert!(forgot.stdout.contains("kept in history"), "{}", forgot.stdout);
        assert!(!env.dir().join("alpha.md").exists());
        let s = store(&env);
        let before = object_count(&s);
        let head = s.join("HEAD");
        fs::remove_file(&head).unwrap();
        match broken {
            "garbage" => fs::write(&head, b"\0\x01not a ref").unwrap(),
            "a directory" => fs::create_dir(&head).unwrap(),
            _ => {}
        }
        let added = add(&env, "Gamma").ok();
        assert!(
            added.stderr.contains("pointed back at its branch"),
            "{broken}: a warning names the repair: {}",
            added.stderr
        );
        assert!(set_aside_stores(&env).is_empty(), "{broken}: nothing set aside");
        assert!(
            object_count(&s) >= before,
            "{broken}: objects {} < {before}",
            object_count(&s)
        );
        let snaps = memctl(&env, &["history", "--json"]).ok().json()["snapshots"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["trigger"].as_str().unwrap().to_string())
            .collect::<Vec<_>>();
        assert_eq!(snaps, ["add", "forget", "baseline"], "{broken}");
        memctl(&env, &["restore", "alpha"]).ok();
        assert_eq!(read(&env.dir(), "alpha.md"), memory_text("Alpha"), "{broken}");
    }
}

/// A store whose objects remain but whose branch is gone cannot be repaired: it is
/// set aside with its objects, never emptied, and a new store starts.
#[test]
fn a_store_without_its_branch_is_set_aside_with_its_objects() {
    let env = with_memories();
    memctl(&env, &["forget", "--yes", "alpha"]).ok();
    let s = store(&env);
    let before = object_count(&s);
    fs::remove_file(s.join("refs/heads/main")).unwrap();
    fs::remove_file(s.join("HEAD")).unwrap();
    let added = add(&env, "Gamma").ok();
    let aside = set_aside_stores(&env);
    assert_eq!(aside.len(), 1, "{aside:?}\n{}", added.stderr);
    assert!(added.stderr.contains(&aside[0]), "{}", added.stderr);
    assert_eq!(object_count(&history_root(&env).join(&aside[0])), before);
    let listed = memctl(&env, &["history"]).ok();
    assert!(
        listed.stdout.contains(&aside[0]),
        "history lists its snapshots with it: {}",
        listed.stdout
    );
    // `restore` looks into the set-aside store (SPEC v3 §8.1).
    let restored = memctl(&env, &["restore", "alpha"]).ok();
    assert!(restored.stderr.contains(&aside[0]), "{}", restored.stderr);
    assert_eq!(read(&env.dir(), "alpha.md"), memory_text("Alpha"));
    assert!(
        read(&env.dir(), "MEMORY.md").contains("](alpha.md)"),
        "its index line is back"
    );
}

/// Every file below the memory dir (not the write lock) with its bytes.
fn dir_files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if e.file_type().unwrap().is_dir() {
                stack.push(p);
            } else if e.file_name() != ".memctl.lock" {
                out.push((p.clone(), fs::read(&p).unwrap_or_default()));
            }
        }
    }
    out.sort();
    out
}

/// Make the store unable to record a snapshot, also for root (tests run as root in
/// CI, where a read-only dir stops nothing): a directory where the branch's lock
/// file goes makes every ref update fail, as a full disk does.
fn break_store(env: &Env) {
    fs::create_dir_all(store(env).join("refs/heads/main.lock")).unwrap();
}

/// Issue 29 point 6: with the history disk full, `undo` reverted an older command
/// (deleted `user_m3.md` instead of undoing the last `add`) and recorded nothing.
#[test]
fn undo_refuses_when_the_last_change_could_not_be_recorded() {
    let env = with_memories();
    memctl(&env, &["snapshot"]).ok();
    add(&env, "M3").ok();
    break_store(&env);
    let m4 = add(&env, "M4").ok();
    assert!(m4.stderr.contains("history"), "the add warns: {}", m4.stderr);
    assert!(env.dir().join("user_m4.md").is_file());
    let before = dir_files(&env.dir());
    let undo = memctl(&env, &["undo", "--yes"]);
    assert_eq!(undo.code, 2, "stdout:\n{}\nstderr:\n{}", undo.stdout, undo.stderr);
    assert!(undo.stderr.starts_with("memctl: undo refused"), "{}", undo.stderr);
    assert_eq!(dir_files(&env.dir()), before, "nothing written");
    assert!(env.dir().join("user_m3.md").is_file(), "the older add is not reverted");
}

/// The same when the store breaks after the last change was recorded: the undo's
/// own snapshot could not be written, so it is not made.
#[test]
fn undo_and_restore_refuse_when_their_own_snapshot_cannot_be_written() {
    let env = with_memories();
    memctl(&env, &["snapshot"]).ok();
    add(&env, "M3").ok();
    memctl(&env, &["forget", "--yes", "alpha"]).ok();
    break_store(&env);
    let before = dir_files(&env.dir());
    let undo = memctl(&env, &["undo", "--yes"]);
    assert_eq!(undo.code, 2, "stdout:\n{}\nstderr:\n{}", undo.stdout, undo.stderr);
    assert!(undo.stderr.starts_with("memctl: undo refused"), "{}", undo.stderr);
    assert_eq!(dir_files(&env.dir()), before, "undo wrote nothing");
    let restore = memctl(&env, &["restore", "alpha"]);
    assert_eq!(
        restore.code, 2,
        "stdout:\n{}\nstderr:\n{}",
        restore.stdout, restore.stderr
    );
    assert!(
        restore.stderr.starts_with("memctl: restore refused"),
        "{}",
        restore.stderr
    );
    assert_eq!(dir_files(&env.dir()), before, "restore wrote nothing");
    // Once the store works again, both do.
    fs::remove_dir(store(&env).join("refs/heads/main.lock")).unwrap();
    memctl(&env, &["restore", "alpha"]).ok();
    assert_eq!(read(&env.dir(), "alpha.md"), memory_text("Alpha"));
    memctl(&env, &["undo", "--yes"]).ok();
    assert!(!env.dir().join("alpha.md").exists(), "the restore was undoable");
}

fn mkfifo(path: &Path) {
    rustix::fs::mknodat(
        rustix::fs::CWD,
        path,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
}

fn is_root() -> bool {
    fs::metadata("/proc/self")
        .map(|m| std::os::unix::fs::MetadataExt::uid(&m) == 0)
        .unwrap_or(false)
}

/// Issue 29 point 14: a snapshot recorded an unreadable memory as deleted, and once
/// it was readable again the next one recorded it as added, which `undo` then
/// proposed to delete. A FIFO where the memory was (unreadable for root too) and,
/// when not root, mode 000.
#[test]
fn an_unreadable_memory_is_not_recorded_as_deleted() {
    let ways: &[&str] = if is_root() { &["fifo"] } else { &["fifo", "mode 000"] };
    for how in ways {
        let env = with_memories();
        memctl(&env, &["snapshot"]).ok();
        let beta = env.dir().join("beta.md");
        let edited = memory_text("Beta").replace("fact", "edited fact");
        write_aged(&beta, edited.as_bytes(), 2.0);
        memctl(&env, &["snapshot"]).ok();
        add(&env, "Gamma").ok();
        match *how {
            "fifo" => {
                fs::remove_file(&beta).unwrap();
                mkfifo(&beta);
            }
            _ => {
                use std::os::unix::fs::PermissionsExt;
                fs::set_permissions(&beta, fs::Permissions::from_mode(0o000)).unwrap();
            }
        }
        let snap = memctl(&env, &["snapshot", "--json"]).ok().json();
        assert!(snap["id"].is_null(), "{how}: nothing recorded: {snap}");
        let warned = snap["warnings"].as_array().unwrap();
        assert!(
            warned
                .iter()
                .any(|w| w.as_str().unwrap().starts_with("beta.md: cannot be read")),
            "{how}: {snap}"
        );
        // While it cannot be read, undo leaves it alone, even with --force.
        let plan = memctl(&env, &["undo", "--dry-run", "--json", "--force", "@~1"]).json();
        let conflicts = plan["conflicts"].as_array().unwrap();
        assert!(
            conflicts
                .iter()
                .any(|c| c["file"] == "beta.md" && c["reason"].as_str().unwrap().contains("cannot be read")),
            "{how}: {plan}"
        );
        assert!(
            !plan["restored"]
                .as_array()
                .unwrap()
                .iter()
                .any(|r| r["file"] == "beta.md"),
            "{how}: {plan}"
        );
        // Readable again, as it was: nothing changed, and undo names the add.
        match *how {
            "fifo" => {
                fs::remove_file(&beta).unwrap();
                write_aged(&beta, edited.as_bytes(), 2.0);
            }
            _ => {
                use std::os::unix::fs::PermissionsExt;
                fs::set_permissions(&beta, fs::Permissions::from_mode(0o600)).unwrap();
            }
        }
        memctl(&env, &["snapshot"]).ok();
        let history = memctl(&env, &["history", "--json"]).ok().json();
        let beta_changes: Vec<&str> = history["snapshots"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|s| s["changes"].as_array().unwrap())
            .filter(|c| c["file"] == "beta.md")
            .map(|c| c["change"].as_str().unwrap())
            .collect();
        assert_eq!(
            beta_changes,
            ["modified", "added"],
            "{how}: only the hand edit and the baseline: {history}"
        );
        let plan = memctl(&env, &["undo", "--dry-run", "--json"]).ok().json();
        let files: Vec<&str> = plan["restored"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["file"].as_str().unwrap())
            .collect();
        assert_eq!(files, ["MEMORY.md", "user_gamma.md"], "{how}: {plan}");
    }
}

/// A memory of 1 MiB or more is hashed and stored as a stream (issue 29 point 7);
/// `diff` of it against the dir now still shows only what changed, and `undo`
/// brings the recorded bytes back.
#[test]
fn a_large_memory_diffs_and_undoes_like_a_small_one() {
    let body: String = (0..40_000).map(|i| format!("Line {i} of a long memory.\n")).collect();
    let text = format!("---\nname: Big\ndescription: d\ntype: user\n---\n{body}");
    assert!(text.len() > 1 << 20);
    let env = with_memories().memory("big.md", &text);
    memctl(&env, &["snapshot"]).ok();
    let grown = format!("{text}One more line.\n");
    write_aged(&env.dir().join("big.md"), grown.as_bytes(), 1.0);
    let diff = memctl(&env, &["diff", "--json"]).ok().json();
    let files = diff["files"].as_array().unwrap();
    assert_eq!(files.len(), 1, "{diff}");
    let d = files[0]["diff"].as_str().unwrap();
    let changed: Vec<&str> = d
        .lines()
        .filter(|l| (l.starts_with('+') || l.starts_with('-')) && !l.starts_with("+++") && !l.starts_with("---"))
        .collect();
    assert_eq!(changed, ["+One more line."], "{d}");
    memctl(&env, &["snapshot"]).ok();
    memctl(&env, &["undo", "--yes"]).ok();
    assert_eq!(read(&env.dir(), "big.md"), text);
}

/// Break the store so that it cannot be repaired (no branch, no `HEAD`): the next
/// command sets it aside with its objects (SPEC v3 §8.1).
fn lose_the_branch(env: &Env) {
    let s = store(env);
    fs::remove_file(s.join("refs/heads/main")).unwrap();
    fs::remove_file(s.join("HEAD")).unwrap();
}

/// Issue 29 point 4 (rest): `history` lists the snapshots of a set-aside store
/// too, marked as such, with ids `restore --at`, `diff` and `undo` accept; a
/// deleted memory recorded only there is found by `history REF`.
#[test]
fn history_lists_the_snapshots_of_a_set_aside_store() {
    let env = with_memories();
    memctl(&env, &["forget", "--yes", "alpha"]).ok();
    lose_the_branch(&env);
    add(&env, "Gamma").ok();
    let aside = set_aside_stores(&env);
    assert_eq!(aside.len(), 1, "{aside:?}");
    let aside_path = history_root(&env).join(&aside[0]);
    let doc = memctl(&env, &["history", "--json"]).ok().json();
    let snaps = doc["snapshots"].as_array().unwrap();
    let rows: Vec<(String, Option<String>)> = snaps
        .iter()
        .map(|s| {
            (
                s["trigger"].as_str().unwrap().to_string(),
                s["set_aside_store"].as_str().map(str::to_string),
            )
        })
        .collect();
    let there = Some(aside_path.display().to_string());
    assert_eq!(
        rows,
        [
            ("add".to_string(), None),
            ("baseline".to_string(), None),
            ("forget".to_string(), there.clone()),
            ("baseline".to_string(), there.clone()),
        ],
        "{doc}"
    );
    let forget = &snaps[2];
    let forget_id = forget["id"].as_str().unwrap().to_string();
    let files: Vec<&str> = forget["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["file"].as_str().unwrap())
        .collect();
    assert_eq!(files, ["MEMORY.md", "alpha.md"], "{forget}");
    // On a terminal-less pipe the record says where the snapshot comes from.
    let piped = memctl(&env, &["history"]).ok();
    let line = piped.stdout.lines().find(|l| l.starts_with(&forget_id)).unwrap();
    assert!(line.ends_with(&format!("\t{}", aside_path.display())), "{line}");
    // `history REF` finds the deleted memory's snapshots there.
    let alpha = memctl(&env, &["history", "--json", "alpha"]).ok().json();
    let ids: Vec<&str> = alpha["snapshots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids.first(), Some(&forget_id.as_str()), "{alpha}");
    // `diff --from` and `restore --at` accept the id.
    let diff = memctl(&env, &["diff", "--json", "--from", &forget_id]).ok().json();
    let changed: Vec<&str> = diff["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["file"].as_str().unwrap())
        .collect();
    assert!(changed.contains(&"user_gamma.md"), "{diff}");
    let baseline_id = snaps[3]["id"].as_str().unwrap();
    let restored = memctl(&env, &["restore", "alpha", "--at", baseline_id]).ok();
    assert!(restored.stderr.contains(&aside[0]), "{}", restored.stderr);
    assert_eq!(read(&env.dir(), "alpha.md"), memory_text("Alpha"));
}

/// Issue 29 point 4 (rest): `undo` finds a change recorded only in a set-aside
/// store: the newest one (the new store holds only its baseline), one named by
/// its id, and the last dream run.
#[test]
fn undo_finds_a_change_recorded_only_in_a_set_aside_store() {
    // The newest change: the forget, recorded only in the store set aside.
    let env = with_memories();
    memctl(&env, &["forget", "--yes", "alpha"]).ok();
    lose_the_branch(&env);
    let undo = memctl(&env, &["undo", "--yes"]).ok();
    let aside = set_aside_stores(&env);
    assert_eq!(aside.len(), 1, "{aside:?}");
    assert!(
        undo.stderr.contains(&aside[0]),
        "the undo names the store: {}",
        undo.stderr
    );
    assert_eq!(read(&env.dir(), "alpha.md"), memory_text("Alpha"));
    assert!(
        read(&env.dir(), "MEMORY.md").contains("](alpha.md)"),
        "its index line is back"
    );
    // The undo itself is recorded in the new store: undoing it forgets alpha again.
    memctl(&env, &["undo", "--yes"]).ok();
    assert!(!env.dir().join("alpha.md").exists());

    // A snapshot named by its id.
    let env = with_memories();
    memctl(&env, &["forget", "--yes", "beta"]).ok();
    let id = memctl(&env, &["history", "--json"]).ok().json()["snapshots"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    lose_the_branch(&env);
    memctl(&env, &["snapshot"]).ok();
    memctl(&env, &["undo", &id, "--yes"]).ok();
    assert_eq!(read(&env.dir(), "beta.md"), memory_text("Beta"));

    // The last dream run.
    let env = with_memories();
    memctl(&env, &["snapshot"]).ok();
    fs::write(env.dir().join("beta.md"), memory_text("Beta, consolidated")).unwrap();
    fs::write(env.dir().join(".consolidate-lock"), "").unwrap();
    set_age(&env.dir().join(".consolidate-lock"), 1.0);
    let dream = memctl(&env, &["snapshot", "--json"]).ok().json();
    assert_eq!(dream["trigger"], "dream", "{dream}");
    lose_the_branch(&env);
    memctl(&env, &["snapshot"]).ok();
    memctl(&env, &["undo", "--dream", "--yes"]).ok();
    assert_eq!(read(&env.dir(), "beta.md"), memory_text("Beta"));
}
