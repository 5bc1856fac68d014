//! The survey cache of `add` and `forget` (issue 31): in memctl's state dir,
//! validated by stat; whatever happens to the memory dir or to the cache behind
//! memctl's back, the warnings are those of reading every file, and a cache that
//! cannot be read or written changes nothing but the time taken.

use std::fs;
use std::path::{Path, PathBuf};

use crate::support::Env;

/// Run memctl on `env`'s dir with history on and the cache keeping even files
/// changed just now (a debug build's knob; the racy rule still holds).
fn memctl(env: &Env, args: &[&str]) -> (i32, String, String) {
    memctl_with(env, &[], args)
}

fn memctl_with(env: &Env, vars: &[(&str, &Path)], args: &[&str]) -> (i32, String, String) {
    let mut cmd = env.command();
    cmd.env("MEMCTL_DEBUG_SURVEY_YOUNG_MS", "0");
    for (k, v) in vars {
        cmd.env(k, v);
    }
    cmd.args(args);
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn add(env: &Env, name: &str) -> (i32, String, String) {
    memctl(env, &["add", "--type", "user", "--name", name, "--description", "d"])
}

fn dup(file: &str, name: &str) -> String {
    format!(
        "memctl: warning: `{file}` already has the name `{name}`: Claude Code prefers updating a memory to adding a duplicate (`memctl edit {file}`)\n"
    )
}

/// The cache files of `env` (one per memory dir).
fn caches(env: &Env) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(env.root().join("state/memctl/survey"))
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    v.sort();
    v
}

/// Rewrite `path` with `text` of the same size, its mtime put back as it was
/// (`touch -r`): only its ctime tells.
fn edit_in_place(path: &Path, text: &str) {
    let before = fs::metadata(path).unwrap();
    assert_eq!(before.len(), text.len() as u64, "an edit of the same size");
    fs::write(path, text).unwrap();
    let f = fs::File::options().write(true).open(path).unwrap();
    f.set_modified(before.modified().unwrap()).unwrap();
    let after = fs::metadata(path).unwrap();
    assert_eq!(
        (after.len(), after.modified().unwrap()),
        (before.len(), before.modified().unwrap())
    );
}

fn three() -> Env {
    Env::new()
        .memory("a.md", "---\nname: Alpha\n---\nsee [b](b.md)\n")
        .memory("b.md", "---\nname: Bravo\n---\n")
        .memory("x.md", "---\nname: Xray\n---\n")
        .index("- [A](a.md) — a\n- [B](b.md) — b\n- [X](x.md) — x\n")
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        // The writer's lock (SPEC §4.1) is memctl's own.
        .filter(|n| n != ".memctl.lock")
        .collect();
    v.sort();
    v
}

#[test]
fn a_file_edited_behind_memctls_back_with_its_mtime_put_back_is_read_again() {
    let env = three();
    let d = env.dir();
    let (code, _, err) = add(&env, "Zulu");
    assert_eq!((code, err.as_str()), (0, ""));
    assert_eq!(caches(&env).len(), 1, "the cache is written in the state dir");
    let (_, _, err) = add(&env, "Alpha one");
    assert_eq!(err, "", "no memory is named Alpha one");
    // The name and the link change, the size and mtime do not.
    edit_in_place(&d.join("a.md"), "---\nname: Delta\n---\nsee [b](x.md)\n");
    let (code, _, err) = add(&env, "delta");
    assert_eq!((code, err), (0, dup("a.md", "Delta")));
    let (code, _, err) = memctl(&env, &["forget", "--yes", "b"]);
    assert_eq!((code, err.as_str()), (0, ""), "a.md no longer links b.md");
    let (code, _, err) = memctl(&env, &["forget", "--yes", "x"]);
    assert_eq!(
        (code, err.as_str()),
        (0, "memctl: warning: x.md is still linked from a.md (not changed)\n")
    );
    let left = names(&d);
    assert!(
        left.iter()
            .all(|n| n == "MEMORY.md" || n == "a.md" || n.starts_with("user_")),
        "nothing of the cache in the memory dir: {left:?}"
    );
}

#[test]
fn files_added_removed_and_renamed_behind_memctls_back_are_seen() {
    let env = three().memory("sub/c.md", "---\nname: Charlie\n---\n[x](../x.md)\n");
    let d = env.dir();
    let (code, _, err) = add(&env, "Zulu");
    assert_eq!((code, err.as_str()), (0, ""));
    fs::write(d.join("n.md"), "---\nname: Novel\n---\n").unwrap();
    fs::remove_file(d.join("a.md")).unwrap();
    fs::rename(d.join("sub/c.md"), d.join("sub/renamed.md")).unwrap();
    let (_, _, err) = add(&env, "Novel");
    assert_eq!(err, dup("n.md", "Novel"));
    let (_, _, err) = add(&env, "Alpha");
    assert_eq!(err, "", "a.md is gone");
    let (code, _, err) = memctl(&env, &["forget", "--yes", "x"]);
    assert_eq!(
        (code, err.as_str()),
        (
            0,
            "memctl: warning: x.md is still linked from sub/renamed.md (not changed)\n"
        )
    );
    let (code, _, err) = memctl(&env, &["forget", "--yes", "b"]);
    assert_eq!((code, err.as_str()), (0, ""), "its only backlink was a.md");
}

#[test]
fn a_garbage_or_truncated_cache_is_ignored() {
    for damage in ["garbage", "truncated", "empty", "directory"] {
        let env = three();
        let (code, _, _) = add(&env, "Zulu");
        assert_eq!(code, 0);
        let cache = caches(&env).pop().expect("a cache");
        let bytes = fs::read(&cache).unwrap();
        match damage {
            "garbage" => fs::write(&cache, b"memctl survey cache\n\x01\x00\x00\x00 not a cache").unwrap(),
            "truncated" => fs::write(&cache, &bytes[..bytes.len() / 2]).unwrap(),
            "empty" => fs::write(&cache, b"").unwrap(),
            _ => {
                fs::remove_file(&cache).unwrap();
                fs::create_dir(&cache).unwrap();
            }
        }
        let (code, _, err) = add(&env, "ALPHA");
        assert_eq!((code, err), (0, dup("a.md", "Alpha")), "{damage}");
        let (code, _, err) = memctl(&env, &["forget", "--yes", "b"]);
        assert_eq!(
            (code, err.as_str()),
            (0, "memctl: warning: b.md is still linked from a.md (not changed)\n"),
            "{damage}"
        );
    }
}

#[test]
fn an_unwritable_state_dir_fails_nothing() {
    let env = three();
    // The cache's dir cannot be made: a file holds its name. History lives
    // elsewhere and works.
    let state = env.root().join("state/memctl");
    fs::create_dir_all(&state).unwrap();
    fs::write(state.join("survey"), "in the way").unwrap();
    let history = env.root().join("history");
    let vars = [("MEMCTL_HISTORY_DIR", history.as_path())];
    let add = ["add", "--type", "user", "--name", "alpha", "--description", "d"];
    let (code, _, err) = memctl_with(&env, &vars, &add);
    assert_eq!((code, err), (0, dup("a.md", "Alpha")));
    let (code, _, err) = memctl_with(&env, &vars, &["forget", "--yes", "b"]);
    assert_eq!(
        (code, err.as_str()),
        (0, "memctl: warning: b.md is still linked from a.md (not changed)\n")
    );
    assert_eq!(fs::read_to_string(state.join("survey")).unwrap(), "in the way");
    assert_eq!(names(&env.dir()), ["MEMORY.md", "a.md", "user_alpha.md", "x.md"]);
}

#[test]
fn history_off_and_dry_runs_keep_no_cache() {
    let env = three();
    let (code, _, _) = memctl(
        &env,
        &[
            "--no-history",
            "add",
            "--type",
            "user",
            "--name",
            "Zulu",
            "--description",
            "d",
        ],
    );
    assert_eq!(code, 0);
    let (code, _, _) = memctl(&env, &["forget", "--dry-run", "b"]);
    assert_eq!(code, 0);
    let (code, _, _) = memctl(
        &env,
        &[
            "add",
            "--dry-run",
            "--type",
            "user",
            "--name",
            "Yankee",
            "--description",
            "d",
        ],
    );
    assert_eq!(code, 0);
    assert!(caches(&env).is_empty());
}
