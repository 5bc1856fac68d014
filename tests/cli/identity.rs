//! Project identity (SPEC §11.1) end to end: `path --json`'s `identity`, the
//! `identity` line of `path --explain`, and `memctl.identity` in the history store,
//! on real git repositories made in a temp dir.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::{Env, git};

/// git's stdout in `dir`, trimmed.
fn git_out(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// `<root>/src/app`, a repository; with one commit when `commit`.
fn repo(env: &Env, commit: bool) -> PathBuf {
    let app = env.root().join("src/app");
    fs::create_dir_all(&app).unwrap();
    git(&app, &["init", "-q"]);
    if commit {
        git(&app, &["commit", "-q", "--allow-empty", "-m", "init"]);
    }
    app
}

fn with_origin(env: &Env, url: &str) -> PathBuf {
    let app = repo(env, true);
    git(&app, &["remote", "add", "origin", url]);
    app
}

fn path_json(env: Env, project: &Path) -> Value {
    env.resolved()
        .arg("--project")
        .arg(project)
        .args(["path", "--json"])
        .run()
        .success()
        .json()
}

/// The `identity` line of `path --explain` for `project`.
fn explain_line(env: Env, project: &Path) -> String {
    let out = env
        .resolved()
        .arg("--project")
        .arg(project)
        .args(["path", "--explain"])
        .run()
        .success()
        .stdout;
    out.lines()
        .find(|l| l.starts_with("identity "))
        .unwrap_or_else(|| panic!("no identity line in:\n{out}"))
        .to_string()
}

#[test]
fn https_origin_loses_credentials_and_suffix_and_lowers_only_the_host() {
    let env = Env::new();
    let app = with_origin(&env, "https://alice:s3cret@GitHub.COM/Alice/App.git");
    let doc = path_json(env, &app);
    assert_eq!(doc["identity"], "github.com/Alice/App");
    assert!(!doc.to_string().contains("s3cret"));
}

#[test]
fn explain_names_the_identity_and_its_source() {
    let env = Env::new();
    let app = with_origin(&env, "https://github.com/alice/app.git/");
    let line = explain_line(env, &app);
    assert_eq!(
        line.split_whitespace().collect::<Vec<_>>(),
        ["identity", "github.com/alice/app", "(remote", "origin)"]
    );
}

#[test]
fn ssh_origin_drops_the_default_port_and_keeps_another() {
    let env = Env::new();
    let app = with_origin(&env, "ssh://git@github.com:22/alice/app.git");
    assert_eq!(path_json(env, &app)["identity"], "github.com/alice/app");
    let env = Env::new();
    let app = with_origin(&env, "ssh://git@Git.Example.com:2222/team/app");
    assert_eq!(path_json(env, &app)["identity"], "git.example.com:2222/team/app");
}

#[test]
fn scp_style_origin_meets_the_https_form() {
    let env = Env::new();
    let app = with_origin(&env, "git@github.com:alice/app.git");
    assert_eq!(path_json(env, &app)["identity"], "github.com/alice/app");
}

#[test]
fn local_and_file_origins_give_the_real_path() {
    let env = Env::new();
    let bare = env.root().join("srv/git/app.git");
    fs::create_dir_all(&bare).unwrap();
    git(&bare, &["init", "-q", "--bare"]);
    std::os::unix::fs::symlink(env.root().join("srv"), env.root().join("srv-link")).unwrap();
    let want = format!("local:{}", bare.display());
    let app = with_origin(&env, &format!("file://{}/", bare.display()));
    assert_eq!(path_json(env, &app)["identity"], want.as_str());

    let env = Env::new();
    let bare = env.root().join("srv/git/app.git");
    fs::create_dir_all(&bare).unwrap();
    std::os::unix::fs::symlink(env.root().join("srv"), env.root().join("srv-link")).unwrap();
    let app = with_origin(&env, "../../srv-link/git/app.git");
    assert_eq!(
        path_json(env, &app)["identity"],
        format!("local:{}", bare.display()).as_str()
    );
}

#[test]
fn without_origin_the_root_commit_names_the_project() {
    let env = Env::new();
    let app = repo(&env, true);
    git(&app, &["commit", "-q", "--allow-empty", "-m", "second"]);
    let root = git_out(&app, &["rev-list", "--max-parents=0", "HEAD"]);
    assert_eq!(root.len(), 40);
    let line = explain_line(Env::new(), &app);
    assert!(
        line.contains(&format!("root:{root} (root commit; no remote origin)")),
        "{line}"
    );
    assert_eq!(path_json(env, &app)["identity"], format!("root:{root}").as_str());
}

#[test]
fn a_repository_without_commits_has_none() {
    let env = Env::new();
    let app = repo(&env, false);
    let line = explain_line(Env::new(), &app);
    assert!(line.ends_with("none (no remote origin and no commit)"), "{line}");
    assert_eq!(path_json(env, &app)["identity"], Value::Null);
}

#[test]
fn a_directory_outside_git_has_none() {
    let env = Env::new();
    let plain = env.root().join("plain");
    fs::create_dir_all(&plain).unwrap();
    let line = explain_line(Env::new(), &plain);
    assert!(line.ends_with("none (not a git repository)"), "{line}");
    assert_eq!(path_json(env, &plain)["identity"], Value::Null);
}

#[test]
fn a_worktree_has_its_main_checkouts_identity() {
    for origin in [Some("git@github.com:alice/app.git"), None] {
        let env = Env::new();
        let app = repo(&env, true);
        if let Some(url) = origin {
            git(&app, &["remote", "add", "origin", url]);
        }
        git(&app, &["worktree", "add", "-q", "../app-wt"]);
        let wt = env.root().join("src/app-wt");
        git(&wt, &["commit", "-q", "--allow-empty", "-m", "on the worktree"]);
        let main_id = path_json(Env::new(), &app)["identity"].clone();
        assert!(main_id.is_string(), "{main_id}");
        assert_eq!(path_json(env, &wt)["identity"], main_id, "origin {origin:?}");
    }
}

#[test]
fn no_project_has_no_identity() {
    let env = Env::new();
    let doc = env.args(["path", "--json"]).run().success().json();
    assert_eq!(doc.get("identity"), Some(&Value::Null), "{doc}");
    let env = Env::new();
    let text = env.args(["path", "--explain"]).run().success().stdout;
    assert!(!text.lines().any(|l| l.starts_with("identity ")), "{text}");
}

/// The one history store under `env`'s state dir.
fn store(env: &Env) -> PathBuf {
    let dir = env.root().join("state/memctl/history");
    let mut stores: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "git"))
        .collect();
    assert_eq!(stores.len(), 1, "{stores:?}");
    stores.pop().unwrap()
}

fn store_config(store: &Path, key: &str) -> Option<String> {
    let out = std::process::Command::new("git")
        .args(["config", "--file"])
        .arg(store.join("config"))
        .args(["--get", key])
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("git runs");
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn snapshot(env: &Env, project: &Path) {
    let mut cmd = env.command();
    cmd.env_remove("MEMCTL_DIR")
        .arg("--project")
        .arg(project)
        .arg("snapshot");
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

fn memory_dir(env: &Env, project: &Path) -> PathBuf {
    let mut cmd = env.command();
    cmd.env_remove("MEMCTL_DIR").arg("--project").arg(project).arg("path");
    PathBuf::from(String::from_utf8_lossy(&cmd.output().unwrap().stdout).trim())
}

#[test]
fn the_history_store_records_the_identity_and_follows_a_new_origin() {
    use std::os::unix::fs::MetadataExt;
    let env = Env::new();
    let app = repo(&env, true);
    let root = git_out(&app, &["rev-list", "--max-parents=0", "HEAD"]);
    let mem = memory_dir(&env, &app);
    fs::create_dir_all(&mem).unwrap();
    fs::write(mem.join("a.md"), "---\nname: a\n---\nbody\n").unwrap();
    snapshot(&env, &app);
    let store = store(&env);
    assert_eq!(store_config(&store, "memctl.identity"), Some(format!("root:{root}")));
    assert_eq!(store_config(&store, "memctl.rootCommit"), Some(root.clone()));
    assert_eq!(
        store_config(&store, "memctl.memoryDir").map(PathBuf::from),
        Some(fs::canonicalize(&mem).unwrap())
    );

    // Unchanged: the config is not rewritten (a rewrite is a rename: a new inode).
    let inode = fs::metadata(store.join("config")).unwrap().ino();
    fs::write(mem.join("b.md"), "---\nname: b\n---\nbody\n").unwrap();
    snapshot(&env, &app);
    assert_eq!(fs::metadata(store.join("config")).unwrap().ino(), inode);

    // A remote added later: the recorded identity follows it.
    git(
        &app,
        &["remote", "add", "origin", "https://tok@GitHub.com/Alice/App.git"],
    );
    fs::write(mem.join("c.md"), "---\nname: c\n---\nbody\n").unwrap();
    snapshot(&env, &app);
    assert_eq!(
        store_config(&store, "memctl.identity").as_deref(),
        Some("github.com/Alice/App")
    );
    assert!(!fs::read_to_string(store.join("config")).unwrap().contains("tok"));
    // The project moved away: the identity recorded stays for `memctl projects`.
    fs::rename(&app, env.root().join("src/gone")).unwrap();
    fs::create_dir_all(&app).unwrap();
    fs::write(mem.join("d.md"), "---\nname: d\n---\nbody\n").unwrap();
    snapshot(&env, &app);
    assert_eq!(
        store_config(&store, "memctl.identity").as_deref(),
        Some("github.com/Alice/App")
    );
}

#[test]
fn the_root_commit_is_cached_in_an_existing_store_and_checked_against_the_repository() {
    let env = Env::new();
    let app = repo(&env, true);
    let root = git_out(&app, &["rev-list", "--max-parents=0", "HEAD"]);
    let mem = memory_dir(&env, &app);
    fs::create_dir_all(&mem).unwrap();
    fs::write(mem.join("a.md"), "---\nname: a\n---\nbody\n").unwrap();
    snapshot(&env, &app);
    let store = store(&env);
    // A cache that names no commit of this repository is not believed.
    let set = |v: &str| {
        git_out(&store, &["config", "--file", "config", "memctl.rootCommit", v]);
    };
    set("0123456789abcdef0123456789abcdef01234567");
    let mut cmd = env.command();
    cmd.env_remove("MEMCTL_DIR")
        .arg("--project")
        .arg(&app)
        .args(["path", "--json"]);
    let doc: Value = serde_json::from_slice(&cmd.output().unwrap().stdout).unwrap();
    assert_eq!(doc["identity"], format!("root:{root}").as_str());
    // `path` repaired the cache (its lock was free).
    assert_eq!(store_config(&store, "memctl.rootCommit"), Some(root));
}

#[test]
fn a_fifo_in_the_repository_does_not_block() {
    let env = Env::new();
    let app = with_origin(&env, "git@github.com:alice/app.git");
    fs::remove_file(app.join(".git/config")).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(app.join(".git/config"))
        .status()
        .unwrap();
    assert!(made.success());
    assert_eq!(path_json(env, &app)["identity"], Value::Null);
}
