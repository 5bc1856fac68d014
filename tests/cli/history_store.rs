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
}
