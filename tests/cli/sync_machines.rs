//! `memctl sync` across machines (SPEC §11.3, issue 19 point 5): two or three fake
//! machines — each its own HOME, CLAUDE_CONFIG_DIR, XDG_STATE_HOME, MEMCTL_MACHINE and
//! MEMCTL_NOW, each with a checkout of the same project (one `origin` URL, so one
//! identity) at a different path, one of them under a Windows-style key — synced
//! through one `file://` bare remote. No network, no real home; `git` from PATH.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;
use tempfile::TempDir;

use crate::support::{self, NOW, git, set_age};

const ORIGIN: &str = "https://github.com/Alice/App.git";
const IDENTITY: &str = "github.com/Alice/App";
/// The project's dir in the sync tree (SPEC §11.3: `/` as `__`).
const MEMBER: &str = "projects/github.com__Alice__App";
/// The conflict files' date part for `NOW`.
const DAY: &str = "20260310";

fn memory(name: &str, ty: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: {name} memory\ntype: {ty}\n---\n{body}\n")
}

/// One sync world: a temp root holding the bare remote and the machines.
struct World {
    tmp: TempDir,
    remote: PathBuf,
    url: String,
}

/// The output of one memctl run.
struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Out {
    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}\n{}", self.stdout, self.stderr))
    }
}

impl std::fmt::Debug for Out {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "exit {}\n--- stdout\n{}--- stderr\n{}",
            self.code, self.stdout, self.stderr
        )
    }
}

/// One fake machine.
struct Machine {
    name: String,
    root: PathBuf,
    checkout: PathBuf,
    mem: PathBuf,
    /// Extra environment (a PATH with the git wrapper, its hook dir).
    vars: Vec<(String, String)>,
}

impl World {
    fn new() -> World {
        let tmp = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(tmp.path()).unwrap();
        let remote = root.join("remote.git");
        git(&root, &["init", "-q", "--bare", remote.to_str().unwrap()]);
        let url = format!("file://{}", remote.display());
        World { tmp, remote, url }
    }

    fn root(&self) -> PathBuf {
        fs::canonicalize(self.tmp.path()).unwrap()
    }

    /// A machine whose checkout is `<root>/<name>/<checkout>`; with `windows_key`, its
    /// memory dir is the one Claude Code on Windows would use for `C:\Users\bob\app`
    /// (`~/.claude/projects/C--Users-bob-app/memory`), named by autoMemoryDirectory.
    fn machine(&self, name: &str, checkout: &str, windows_key: bool) -> Machine {
        let root = self.root().join(name);
        let checkout = root.join(checkout);
        support::checkout(&checkout, ORIGIN);
        fs::create_dir_all(root.join("home/.claude")).unwrap();
        if windows_key {
            let dir = root.join("home/.claude/projects/C--Users-bob-app/memory");
            let settings = serde_json::json!({ "autoMemoryDirectory": dir });
            fs::write(root.join("home/.claude/settings.json"), settings.to_string()).unwrap();
        }
        let mut m = Machine {
            name: name.to_string(),
            root,
            checkout,
            mem: PathBuf::new(),
            vars: Vec::new(),
        };
        let out = m.run(&["path"]);
        assert_eq!(out.code, 0, "{out:?}");
        m.mem = PathBuf::from(out.stdout.trim());
        if windows_key {
            assert!(m.mem.ends_with("C--Users-bob-app/memory"), "{}", m.mem.display());
        }
        let id = m.run(&["path", "--json"]).json();
        assert_eq!(id["identity"], IDENTITY, "{id}");
        m
    }

    /// The remote's files on `main` (empty when nothing was pushed).
    fn tree(&self) -> Vec<String> {
        let out = support::bare_git(&self.remote, &["ls-tree", "-r", "--name-only", "main"]);
        out.unwrap_or_default().lines().map(String::from).collect()
    }

    /// Every path any object of the remote was ever stored at (all commits).
    fn every_path(&self) -> Vec<String> {
        let out = support::bare_git(&self.remote, &["rev-list", "--objects", "--all"]);
        out.unwrap_or_default()
            .lines()
            .filter_map(|l| l.split_once(' ').map(|(_, p)| p.to_string()))
            .filter(|p| !p.is_empty())
            .collect()
    }

    /// The remote's `main` commit, if any.
    fn tip(&self) -> Option<String> {
        support::bare_git(&self.remote, &["rev-parse", "--verify", "-q", "main"]).map(|s| s.trim().to_string())
    }

    /// A file of the project on the remote's `main`.
    fn remote_file(&self, rel: &str) -> Option<String> {
        support::bare_git(&self.remote, &["show", &format!("main:{MEMBER}/{rel}")])
    }
}

impl Machine {
    fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_memctl"));
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.root.join("home"))
            .env("CLAUDE_CONFIG_DIR", self.root.join("home/.claude"))
            .env("XDG_STATE_HOME", self.root.join("state"))
            .env("MEMCTL_MACHINE", &self.name)
            .env("MEMCTL_NOW", NOW)
            .env("GIT_CONFIG_NOSYSTEM", "1");
        for (k, v) in &self.vars {
            cmd.env(k, v);
        }
        cmd.current_dir(&self.checkout).args(args).stdin(Stdio::null());
        cmd
    }

    #[track_caller]
    fn run(&self, args: &[&str]) -> Out {
        let out = self.command(args).output().expect("memctl runs");
        Out {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    /// `memctl sync` (with `--remote` the first time), which must succeed.
    #[track_caller]
    fn sync_ok(&self, w: &World, extra: &[&str]) -> Out {
        let mut args = vec!["sync", "--remote", &w.url];
        args.extend_from_slice(extra);
        let out = self.run(&args);
        assert_eq!(out.code, 0, "{} sync: {out:?}", self.name);
        out
    }

    /// `memctl sync` that is done but leaves conflict files for the user: exit 1
    /// (SPEC v3 §3.14, issue 34 point 10).
    #[track_caller]
    fn sync_conflict(&self, w: &World, extra: &[&str]) -> Out {
        let mut args = vec!["sync", "--remote", &w.url];
        args.extend_from_slice(extra);
        let out = self.run(&args);
        assert_eq!(out.code, 1, "{} sync: {out:?}", self.name);
        out
    }

    fn write(&self, rel: &str, text: &str) {
        let p = self.mem.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }

    fn read(&self, rel: &str) -> Option<String> {
        fs::read_to_string(self.mem.join(rel)).ok()
    }

    /// Every file of the memory dir but memctl's own (`.memctl.lock`, `.trash/`):
    /// relative path → bytes.
    fn files(&self) -> BTreeMap<String, Vec<u8>> {
        fn walk(dir: &Path, root: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
            let Ok(rd) = fs::read_dir(dir) else { return };
            for e in rd.flatten() {
                let p = e.path();
                let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
                if rel == ".trash" || rel == ".memctl.lock" {
                    continue;
                }
                if p.is_dir() {
                    walk(&p, root, out);
                } else {
                    out.insert(rel, fs::read(&p).unwrap());
                }
            }
        }
        let mut out = BTreeMap::new();
        walk(&self.mem, &self.mem, &mut out);
        out
    }

    /// The memory files (`.md`) only.
    fn memories(&self) -> BTreeMap<String, Vec<u8>> {
        self.files().into_iter().filter(|(k, _)| k.ends_with(".md")).collect()
    }

    /// This machine's memctl as one shell command line (for a git hook script).
    fn shell_line(&self, args: &[&str]) -> String {
        let q = |s: &str| format!("'{}'", s.replace('\'', r"'\''"));
        let mut s = format!("cd {} && env -i", q(self.checkout.to_str().unwrap()));
        for (k, v) in [
            ("PATH", std::env::var("PATH").unwrap_or_default()),
            ("HOME", self.root.join("home").display().to_string()),
            (
                "CLAUDE_CONFIG_DIR",
                self.root.join("home/.claude").display().to_string(),
            ),
            ("XDG_STATE_HOME", self.root.join("state").display().to_string()),
            ("MEMCTL_MACHINE", self.name.clone()),
            ("MEMCTL_NOW", NOW.to_string()),
            ("GIT_CONFIG_NOSYSTEM", "1".to_string()),
        ] {
            s.push_str(&format!(" {k}={}", q(&v)));
        }
        s.push(' ');
        s.push_str(&q(env!("CARGO_BIN_EXE_memctl")));
        for a in args {
            s.push(' ');
            s.push_str(&q(a));
        }
        s
    }

    /// Put a `git` wrapper first on this machine's PATH: before (and after) a
    /// `fetch` or a `push`, it runs `<hooks>/before-<verb>` (`after-<verb>`) once,
    /// then the real git. Returns the hook dir.
    fn wrap_git(&mut self) -> PathBuf {
        let bin = self.root.join("wrapper-bin");
        let hooks = self.root.join("wrapper-hooks");
        fs::create_dir_all(&bin).unwrap();
        fs::create_dir_all(&hooks).unwrap();
        let real = String::from_utf8(
            Command::new("sh")
                .args(["-c", "command -v git"])
                .output()
                .unwrap()
                .stdout,
        )
        .unwrap()
        .trim()
        .to_string();
        let script = format!(
            "#!/bin/sh\nverb=\nfor a in \"$@\"; do case \"$a\" in fetch|push) verb=$a; break;; esac; done\n\
             if [ -n \"$verb\" ] && [ -f '{h}'/before-$verb ]; then mv '{h}'/before-$verb '{h}'/ran-before-$verb; sh '{h}'/ran-before-$verb; fi\n\
             '{real}' \"$@\"; rc=$?\n\
             if [ -n \"$verb\" ] && [ -f '{h}'/after-$verb ]; then mv '{h}'/after-$verb '{h}'/ran-after-$verb; sh '{h}'/ran-after-$verb; fi\n\
             exit $rc\n",
            h = hooks.display()
        );
        let git = bin.join("git");
        fs::write(&git, script).unwrap();
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&git, fs::Permissions::from_mode(0o755)).unwrap();
        let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
        self.vars.push(("PATH".into(), path));
        hooks
    }
}

/// Three machines as issue 19 asks: a laptop and a desktop with the checkout at
/// different paths, and a "Windows" machine under a `C--Users-bob-app` key.
fn three(w: &World) -> (Machine, Machine, Machine) {
    (
        w.machine("laptop", "src/app", false),
        w.machine("desk", "work/projects/app-clone", false),
        w.machine("winbox", "Users/bob/app", true),
    )
}

/// laptop and desk with `a.md` (indexed) synced on both.
fn synced_pair(w: &World) -> (Machine, Machine) {
    let lap = w.machine("laptop", "src/app", false);
    let desk = w.machine("desk", "work/projects/app-clone", false);
    lap.write("user_a.md", &memory("a", "user", "alpha"));
    lap.write("MEMORY.md", "- [A](user_a.md) — alpha\n");
    lap.sync_ok(w, &[]);
    desk.sync_ok(w, &[]);
    assert_eq!(
        desk.read("user_a.md").as_deref(),
        Some(memory("a", "user", "alpha").as_str())
    );
    (lap, desk)
}

fn strs(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap_or_else(|| panic!("not an array: {v}"))
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn m1_first_sync_of_machines_with_no_memories() {
    let w = World::new();
    let (lap, desk, win) = three(&w);
    // The very first sync anywhere, from a machine without a memory dir: fine, and
    // it creates no memory dir out of nothing to sync.
    let out = desk.sync_ok(&w, &["--json"]);
    let doc = out.json();
    assert_eq!(doc["dry_run"], false, "{doc}");
    assert!(doc["warnings"].is_array(), "{doc}");
    assert!(
        w.tree().iter().all(|p| !p.ends_with(".md")),
        "nothing to push: {:?}",
        w.tree()
    );
    // The laptop has memories: they go up.
    lap.write("user_a.md", &memory("a", "user", "alpha"));
    lap.write(
        "sub/project_b.md",
        &memory("b", "project", "beta\n**Why:** w\n**How to apply:** h"),
    );
    lap.write(
        "MEMORY.md",
        "- [A](user_a.md) — alpha\n- [B](sub/project_b.md) — beta\n",
    );
    set_age(&lap.mem.join("user_a.md"), 72.0);
    lap.sync_ok(&w, &[]);
    let tree = w.tree();
    assert!(tree.contains(&format!("{MEMBER}/user_a.md")), "{tree:?}");
    assert!(tree.contains(&format!("{MEMBER}/sub/project_b.md")), "{tree:?}");
    // The desk and the Windows-keyed machine, with no memories, receive them, mtimes kept.
    for m in [&desk, &win] {
        let doc = m.sync_ok(&w, &["--json"]).json();
        let p = &doc["projects"][0];
        assert_eq!(p["identity"], IDENTITY, "{doc}");
        let mut added = strs(&p["added"]);
        added.sort();
        assert_eq!(added, ["MEMORY.md", "sub/project_b.md", "user_a.md"], "{doc}");
        assert_eq!(m.memories(), lap.memories(), "{}", m.name);
        let mt = |mm: &Machine| fs::metadata(mm.mem.join("user_a.md")).unwrap().modified().unwrap();
        assert_eq!(mt(m), mt(&lap), "the mtime travels to {}", m.name);
    }
    // Once in step, a second round changes nothing anywhere.
    let tip = w.tip();
    for m in [&lap, &desk, &win] {
        let out = m.sync_ok(&w, &[]);
        assert!(out.stdout.contains("up to date"), "{}: {out:?}", m.name);
    }
    assert_eq!(w.tip(), tip, "nothing pushed when nothing changed");
}

#[test]
fn m2_machines_adding_different_memories_get_all_of_them() {
    let w = World::new();
    let (lap, desk, win) = three(&w);
    lap.write("user_a.md", &memory("a", "user", "alpha"));
    lap.write("MEMORY.md", "- [A](user_a.md) — alpha\n");
    for m in [&lap, &desk, &win] {
        m.sync_ok(&w, &[]);
    }
    lap.write("user_b.md", &memory("b", "user", "from the laptop"));
    lap.write("MEMORY.md", "- [A](user_a.md) — alpha\n- [B](user_b.md) — laptop\n");
    desk.write("feedback_c.md", &memory("c", "feedback", "from the desk"));
    desk.write("MEMORY.md", "- [A](user_a.md) — alpha\n- [C](feedback_c.md) — desk\n");
    win.write("reference_d.md", &memory("d", "reference", "from windows"));
    win.write(
        "MEMORY.md",
        "- [A](user_a.md) — alpha\n- [D](reference_d.md) — windows\n",
    );
    for m in [&lap, &desk, &win, &lap, &desk] {
        m.sync_ok(&w, &[]);
    }
    let want = lap.memories();
    assert_eq!(
        want.keys().collect::<Vec<_>>(),
        ["MEMORY.md", "feedback_c.md", "reference_d.md", "user_a.md", "user_b.md"]
    );
    for m in [&desk, &win] {
        assert_eq!(m.memories(), want, "{} differs from the laptop", m.name);
    }
    let index = lap.read("MEMORY.md").unwrap();
    for target in ["user_a.md", "user_b.md", "feedback_c.md", "reference_d.md"] {
        assert_eq!(
            index.matches(&format!("]({target})")).count(),
            1,
            "{target} once:\n{index}"
        );
    }
    for m in [&lap, &desk, &win] {
        assert_eq!(m.run(&["sync", "--status"]).code, 0, "{}: no conflicts", m.name);
    }
}

#[test]
fn m3_the_same_edit_on_both_machines_is_no_conflict() {
    let w = World::new();
    let (lap, desk) = synced_pair(&w);
    let edited = memory("a", "user", "alpha, edited the same way");
    lap.write("user_a.md", &edited);
    desk.write("user_a.md", &edited);
    lap.sync_ok(&w, &[]);
    let doc = desk.sync_ok(&w, &["--json"]).json();
    assert_eq!(doc["projects"][0]["conflicts"], serde_json::json!([]), "{doc}");
    for m in [&lap, &desk] {
        assert_eq!(m.read("user_a.md").as_deref(), Some(edited.as_str()));
        assert!(
            m.files().keys().all(|k| !k.contains(".conflict-")),
            "{:?}",
            m.files().keys()
        );
        assert_eq!(m.run(&["sync", "--status"]).code, 0);
    }
    assert_eq!(w.remote_file("user_a.md").as_deref(), Some(edited.as_str()));
}

#[test]
fn m4_different_edits_keep_a_conflict_file_until_resolved() {
    let w = World::new();
    let (lap, desk) = synced_pair(&w);
    let mine = memory("a", "user", "the desk's version");
    let theirs = memory("a", "user", "the laptop's version");
    lap.write("user_a.md", &theirs);
    desk.write("user_a.md", &mine);
    lap.sync_ok(&w, &[]);
    let doc = desk.sync_conflict(&w, &["--json"]).json();
    // The JSON shape of SPEC §11.2, plus sync's `index_replaced` (issue 32 point 20).
    let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    let mut top = keys(&doc);
    top.sort();
    assert_eq!(top, ["dry_run", "projects", "warnings"], "{doc}");
    let p = &doc["projects"][0];
    let mut pk = keys(p);
    pk.sort();
    assert_eq!(
        pk,
        [
            "added",
            "conflicts",
            "cut_entries",
            "deleted",
            "identity",
            "index_replaced",
            "memory_dir",
            "skipped",
            "updated"
        ],
        "{doc}"
    );
    let kept = format!("user_a.md.conflict-laptop-{DAY}");
    assert_eq!(p["conflicts"][0]["file"], "user_a.md", "{doc}");
    assert_eq!(p["conflicts"][0]["kept_as"], kept.as_str(), "{doc}");
    assert!(p["conflicts"][0]["reason"].is_string(), "{doc}");
    // The local file stays; the incoming one is beside it, not `.md`.
    assert_eq!(desk.read("user_a.md").as_deref(), Some(mine.as_str()));
    assert_eq!(desk.read(&kept).as_deref(), Some(theirs.as_str()));
    assert!(!kept.ends_with(".md"));
    // Conflict files never travel.
    assert!(
        w.every_path().iter().all(|p| !p.contains(".conflict-")),
        "{:?}",
        w.every_path()
    );
    // Listed by --status (exit 1, also as JSON), reported by lint and the hook.
    let st = desk.run(&["sync", "--status"]);
    assert_eq!(st.code, 1, "{st:?}");
    assert!(st.stdout.contains(&kept), "{st:?}");
    let st = desk.run(&["sync", "--status", "--json"]);
    assert_eq!(st.code, 1, "{st:?}");
    assert_eq!(st.json()["projects"][0]["conflicts"][0]["kept_as"], kept.as_str());
    let lint = desk.run(&["lint", "--json", "--rule", "ML135"]).json();
    assert_eq!(lint["findings"].as_array().unwrap().len(), 1, "{lint}");
    let payload = serde_json::json!({"hook_event_name": "SessionStart", "source": "startup", "cwd": desk.checkout});
    let mut hook = desk.command(&["hook"]);
    hook.stdin(Stdio::piped()).stdout(Stdio::piped());
    let mut child = hook.spawn().unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), payload.to_string().as_bytes()).unwrap();
    let hook_out = child.wait_with_output().unwrap();
    let hook_doc: Value = serde_json::from_slice(&hook_out.stdout).unwrap();
    assert_eq!(
        hook_doc["systemMessage"], "memctl: 1 unresolved sync conflict (memctl sync --status)",
        "{hook_doc}"
    );
    // A sync is refused meanwhile and writes nothing.
    let tip = w.tip();
    let before = desk.files();
    let refused = desk.run(&["sync"]);
    assert_eq!(refused.code, 1, "the user has to act (SPEC v3 §3.14): {refused:?}");
    assert!(refused.stderr.contains("unresolved sync conflict"), "{refused:?}");
    assert_eq!((w.tip(), desk.files()), (tip, before));
    // --resolve keeps the local version and clears it; the next syncs carry it over.
    let res = desk.run(&["sync", "--resolve", &kept]);
    assert_eq!(res.code, 0, "{res:?}");
    assert!(desk.read(&kept).is_none());
    assert_eq!(desk.run(&["sync", "--status"]).code, 0);
    desk.sync_ok(&w, &[]);
    lap.sync_ok(&w, &[]);
    assert_eq!(lap.read("user_a.md").as_deref(), Some(mine.as_str()));
    assert_eq!(lap.memories(), desk.memories());
}

#[test]
fn m5_deleted_on_one_machine_and_edited_on_the_other_is_kept_and_reported() {
    // The deletion syncs first, then the edit.
    let w = World::new();
    let (lap, desk) = synced_pair(&w);
    lap.write("user_keep.md", &memory("k", "user", "keep"));
    lap.write("MEMORY.md", "- [A](user_a.md) — alpha\n- [K](user_keep.md) — keep\n");
    lap.sync_ok(&w, &[]);
    desk.sync_ok(&w, &[]);
    let edited = memory("a", "user", "edited on the desk");
    fs::remove_file(lap.mem.join("user_a.md")).unwrap();
    lap.write("MEMORY.md", "- [K](user_keep.md) — keep\n");
    desk.write("user_a.md", &edited);
    lap.sync_ok(&w, &[]);
    let out = desk.sync_ok(&w, &["--json"]);
    assert_eq!(desk.read("user_a.md").as_deref(), Some(edited.as_str()), "kept");
    let doc = out.json();
    let reported = strs(&doc["projects"][0]["skipped"]).contains(&"user_a.md".to_string())
        || doc["warnings"].to_string().contains("user_a.md");
    assert!(reported, "the kept file is reported: {doc}");
    assert!(strs(&doc["projects"][0]["deleted"]).is_empty(), "{doc}");
    // The edit wins everywhere, and the kept file stays in the index of both.
    lap.sync_ok(&w, &[]);
    assert_eq!(lap.read("user_a.md").as_deref(), Some(edited.as_str()));
    for m in [&lap, &desk] {
        let index = m.read("MEMORY.md").unwrap();
        assert!(index.contains("(user_a.md)"), "{}: {index}", m.name);
    }

    // The edit syncs first, then the deletion: the deleting machine gets it back.
    let w = World::new();
    let (lap, desk) = synced_pair(&w);
    lap.write("user_keep.md", &memory("k", "user", "keep"));
    lap.write("MEMORY.md", "- [A](user_a.md) — alpha\n- [K](user_keep.md) — keep\n");
    lap.sync_ok(&w, &[]);
    desk.sync_ok(&w, &[]);
    desk.write("user_a.md", &edited);
    desk.sync_ok(&w, &[]);
    fs::remove_file(lap.mem.join("user_a.md")).unwrap();
    let out = lap.sync_ok(&w, &[]);
    assert_eq!(lap.read("user_a.md").as_deref(), Some(edited.as_str()), "{out:?}");
    assert!(out.stderr.contains("user_a.md"), "reported: {out:?}");
    assert!(lap.read("MEMORY.md").unwrap().contains("(user_a.md)"), "indexed again");
}

#[test]
fn m13_another_remote_is_a_first_sync_and_a_dry_run_does_not_switch_to_it() {
    let w = World::new();
    let (lap, _desk) = synced_pair(&w);
    let empty = w.root().join("empty.git");
    git(&w.root(), &["init", "-q", "--bare", empty.to_str().unwrap()]);
    let url = format!("file://{}", empty.display());
    let before = lap.memories();
    // A dry run against the new remote deletes nothing and does not remember it.
    let out = lap.run(&["sync", "--dry-run", "--json", "--remote", &url]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(strs(&out.json()["projects"][0]["deleted"]).is_empty(), "{out:?}");
    let state = lap.root.join("state/memctl/sync.git");
    let configured = support::bare_git(&state, &["config", "remote.origin.url"]).unwrap_or_default();
    assert_eq!(configured.trim(), w.url);
    // The switch itself: nothing here is deleted, everything is pushed there.
    let out = lap.run(&["sync", "--json", "--remote", &url]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(strs(&out.json()["projects"][0]["deleted"]).is_empty(), "{out:?}");
    assert!(out.stdout.contains("sync remote changed"), "{out:?}");
    assert_eq!(lap.memories(), before);
    let pushed = support::bare_git(&empty, &["ls-tree", "-r", "--name-only", "main"]).unwrap_or_default();
    assert!(pushed.contains("user_a.md"), "{pushed}");
}

#[test]
fn m14_a_memory_that_cannot_travel_is_not_deleted_elsewhere() {
    let w = World::new();
    let (lap, desk) = synced_pair(&w);
    // The laptop's copy becomes a symlink (into a cloud drive, say): not synced.
    let elsewhere = lap.root.join("drive-user_a.md");
    fs::rename(lap.mem.join("user_a.md"), &elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, lap.mem.join("user_a.md")).unwrap();
    let out = lap.sync_ok(&w, &[]);
    assert!(out.stderr.contains("user_a.md"), "the skipped file is named: {out:?}");
    assert!(w.remote_file("user_a.md").is_some(), "still on the remote");
    desk.sync_ok(&w, &[]);
    assert!(desk.read("user_a.md").is_some(), "the desk keeps its copy");
    assert!(desk.read("MEMORY.md").unwrap().contains("(user_a.md)"));
}

#[test]
fn m15_a_refused_mass_deletion_leaves_the_sync_repository_as_it_was() {
    let w = World::new();
    let lap = w.machine("laptop", "src/app", false);
    for i in 0..4 {
        lap.write(&format!("user_{i}.md"), &memory(&format!("m{i}"), "user", "x"));
    }
    lap.sync_ok(&w, &[]);
    let state = lap.root.join("state/memctl/sync.git");
    let head = || {
        support::bare_git(&state, &["rev-parse", "main"])
            .unwrap_or_default()
            .trim()
            .to_string()
    };
    let before = head();
    for i in 0..3 {
        fs::remove_file(lap.mem.join(format!("user_{i}.md"))).unwrap();
    }
    let out = lap.run(&["sync"]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("--allow-mass-delete"), "{out:?}");
    assert_eq!(head(), before, "no local commit of the refused state");
}

#[test]
fn m16_a_conflict_file_names_the_machine_that_wrote_the_incoming_version() {
    let w = World::new();
    let (lap, desk, win) = three(&w);
    lap.write("user_a.md", &memory("a", "user", "alpha"));
    lap.sync_ok(&w, &[]);
    desk.sync_ok(&w, &[]);
    win.sync_ok(&w, &[]);
    // The laptop edits and syncs; then winbox syncs something else (the remote's
    // tip is now winbox's); then the desk's different edit meets the laptop's.
    lap.write("user_a.md", &memory("a", "user", "alpha from the laptop"));
    lap.sync_ok(&w, &[]);
    win.write("user_w.md", &memory("w", "user", "windows"));
    win.sync_ok(&w, &[]);
    desk.write("user_a.md", &memory("a", "user", "alpha from the desk"));
    let out = desk.sync_conflict(&w, &["--json"]);
    let doc = out.json();
    let kept = doc["projects"][0]["conflicts"][0]["kept_as"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert_eq!(kept, format!("user_a.md.conflict-laptop-{DAY}"), "{doc}");
}

#[test]
fn m6_an_unchanged_memory_deleted_elsewhere_is_deleted_with_a_copy_in_history() {
    let w = World::new();
    let (lap, desk) = synced_pair(&w);
    let b = memory("b", "user", "beta");
    lap.write("user_b.md", &b);
    lap.write("user_c.md", &memory("c", "user", "gamma"));
    lap.write(
        "MEMORY.md",
        "- [A](user_a.md) — alpha\n- [B](user_b.md) — beta\n- [C](user_c.md) — gamma\n",
    );
    lap.sync_ok(&w, &[]);
    desk.sync_ok(&w, &[]);
    assert_eq!(desk.read("user_b.md").as_deref(), Some(b.as_str()));
    fs::remove_file(lap.mem.join("user_b.md")).unwrap();
    lap.write("MEMORY.md", "- [A](user_a.md) — alpha\n- [C](user_c.md) — gamma\n");
    lap.sync_ok(&w, &[]);
    let doc = desk.sync_ok(&w, &["--json"]).json();
    assert_eq!(strs(&doc["projects"][0]["deleted"]), ["user_b.md"], "{doc}");
    assert!(desk.read("user_b.md").is_none());
    assert!(
        !desk.read("MEMORY.md").unwrap().contains("user_b.md"),
        "its index line goes too"
    );
    // The copy is in the desk's history: restore brings the same bytes back.
    let r = desk.run(&["restore", "user_b.md"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(desk.read("user_b.md").as_deref(), Some(b.as_str()));
}

#[test]
fn m7_an_index_the_merge_pushes_past_the_cut_is_a_warning() {
    let w = World::new();
    let lap = w.machine("laptop", "src/app", false);
    let desk = w.machine("desk", "work/projects/app-clone", false);
    // 185 lines of notes and one entry: each machine's own additions fit, both do not.
    let mut base = String::from("- [A](user_a.md) — alpha\n");
    for i in 0..185 {
        base.push_str(&format!("note {i}: kept in the index on purpose\n"));
    }
    lap.write("user_a.md", &memory("a", "user", "alpha"));
    lap.write("MEMORY.md", &base);
    lap.sync_ok(&w, &[]);
    desk.sync_ok(&w, &[]);
    for (m, side) in [(&lap, "lap"), (&desk, "desk")] {
        let mut index = base.clone();
        for i in 0..10 {
            let f = format!("user_{side}_{i}.md");
            m.write(&f, &memory(&format!("{side} {i}"), "user", "x"));
            index.push_str(&format!("- [{side} {i}]({f}) — x\n"));
        }
        m.write("MEMORY.md", &index);
        let own = m.run(&["lint", "--json", "--rule", "ML205"]).json();
        assert_eq!(own["findings"], serde_json::json!([]), "each side alone fits");
    }
    lap.sync_ok(&w, &[]);
    let out = desk.sync_ok(&w, &[]);
    assert!(
        out.stderr.contains("MEMORY.md is cut") || out.stderr.contains("MEMORY.md") && out.stderr.contains("cut"),
        "a warning about the cut: {out:?}"
    );
    let index = desk.read("MEMORY.md").unwrap();
    assert!(
        index.lines().count() > 200,
        "the merge still keeps every line:\n{index}"
    );
    for i in 0..10 {
        assert!(index.contains(&format!("(user_lap_{i}.md)")), "{index}");
        assert!(index.contains(&format!("(user_desk_{i}.md)")), "{index}");
    }
}

/// Push a commit to the remote by hand that deletes `names` from the project
/// (and from its mtimes), with no `Mass-Delete-Approved` trailer.
fn push_unapproved_deletion(w: &World, names: &[&str]) {
    push_deletion(w, names, "");
}

/// Push a commit to the remote by hand that deletes `names` from the project (and
/// from its mtimes), its message ending in `trailers`.
fn push_deletion(w: &World, names: &[&str], trailers: &str) {
    let wt = w.root().join("by-hand");
    git(&w.root(), &["clone", "-q", &w.url, wt.to_str().unwrap()]);
    for n in names {
        git(&wt, &["rm", "-q", &format!("{MEMBER}/{n}")]);
    }
    let mtimes = wt.join(MEMBER).join(".memctl/mtimes");
    if let Ok(text) = fs::read_to_string(&mtimes) {
        let kept: String = text
            .lines()
            .filter(|l| !names.iter().any(|n| l.ends_with(&format!("\t{n}"))))
            .map(|l| format!("{l}\n"))
            .collect();
        fs::write(&mtimes, kept).unwrap();
        git(&wt, &["add", "-A"]);
    }
    git(
        &wt,
        &[
            "commit",
            "-q",
            "-m",
            &format!("sync: merge from elsewhere\n\nMachine: elsewhere\n{trailers}"),
        ],
    );
    git(&wt, &["push", "-q", "origin", "HEAD:main"]);
}

#[test]
fn m8_mass_deletion_is_refused_unless_approved_and_applied_where_received() {
    let w = World::new();
    let (lap, desk) = synced_pair(&w);
    let names = ["user_b.md", "user_c.md", "user_d.md"];
    let mut index = String::from("- [A](user_a.md) — alpha\n");
    for n in names {
        lap.write(n, &memory(n, "user", n));
        index.push_str(&format!("- [{n}]({n}) — x\n"));
    }
    lap.write("MEMORY.md", &index);
    lap.sync_ok(&w, &[]);
    desk.sync_ok(&w, &[]);
    assert_eq!(desk.memories().len(), 5);
    for n in names {
        fs::remove_file(lap.mem.join(n)).unwrap();
    }
    lap.write("MEMORY.md", "- [A](user_a.md) — alpha\n");
    let tip = w.tip();
    let before = lap.files();
    let refused = lap.run(&["sync"]);
    assert_eq!(refused.code, 2, "{refused:?}");
    assert!(refused.stderr.contains("3 of 4"), "{refused:?}");
    assert!(refused.stderr.contains("--allow-mass-delete"), "{refused:?}");
    assert_eq!(
        (w.tip(), lap.files()),
        (tip, before),
        "refused: nothing written or pushed"
    );
    lap.sync_ok(&w, &["--allow-mass-delete"]);
    // The laptop's approval is the laptop's: the desk gives its own (SPEC v3 §11.3).
    let tip = w.tip();
    let before = desk.files();
    let refused = desk.run(&["sync"]);
    assert_eq!(refused.code, 2, "{refused:?}");
    assert!(refused.stderr.contains("3 of 4"), "{refused:?}");
    assert_eq!((w.tip(), desk.files()), (tip, before), "refused: nothing written");
    let doc = desk.sync_ok(&w, &["--json", "--allow-mass-delete"]).json();
    let mut deleted = strs(&doc["projects"][0]["deleted"]);
    deleted.sort();
    assert_eq!(deleted, names, "{doc}");
    assert_eq!(desk.memories().keys().collect::<Vec<_>>(), ["MEMORY.md", "user_a.md"]);
}

#[test]
fn m8b_a_received_mass_deletion_without_approval_is_refused() {
    let w = World::new();
    let (lap, desk) = synced_pair(&w);
    let names = ["user_b.md", "user_c.md", "user_d.md"];
    for n in names {
        lap.write(n, &memory(n, "user", n));
    }
    lap.sync_ok(&w, &[]);
    desk.sync_ok(&w, &[]);
    push_unapproved_deletion(&w, &names);
    let tip = w.tip();
    let before = desk.files();
    let refused = desk.run(&["sync"]);
    assert_eq!(refused.code, 2, "{refused:?}");
    assert!(refused.stderr.contains("3 of 4"), "{refused:?}");
    assert_eq!(
        (w.tip(), desk.files()),
        (tip, before),
        "refused: nothing written or pushed"
    );
    // Accepted by hand, it is applied.
    desk.sync_ok(&w, &["--allow-mass-delete"]);
    assert_eq!(desk.memories().keys().collect::<Vec<_>>(), ["MEMORY.md", "user_a.md"]);
}

#[test]
fn m9_a_push_race_between_two_machines_is_retried() {
    let w = World::new();
    let (mut lap, desk) = synced_pair(&w);
    lap.write("user_b.md", &memory("b", "user", "from the laptop"));
    desk.write("user_c.md", &memory("c", "user", "from the desk"));
    // Right before the laptop pushes, the desk syncs (and pushes) in between.
    let hooks = lap.wrap_git();
    let desk_log = w.root().join("desk-sync.log");
    fs::write(
        hooks.join("before-push"),
        format!("{} > '{}' 2>&1\n", desk.shell_line(&["sync"]), desk_log.display()),
    )
    .unwrap();
    let out = lap.sync_ok(&w, &[]);
    let desk_said = fs::read_to_string(&desk_log).unwrap_or_default();
    assert!(hooks.join("ran-before-push").exists(), "the race ran: {out:?}");
    assert!(desk_said.contains("pushed"), "the desk pushed first: {desk_said}");
    assert!(out.stdout.contains("after 1 rejected push"), "{out:?}");
    assert!(lap.read("user_c.md").is_some(), "the retry merged the desk's memory");
    let tree = w.tree();
    for f in ["user_a.md", "user_b.md", "user_c.md"] {
        assert!(tree.contains(&format!("{MEMBER}/{f}")), "{f}: {tree:?}");
    }
    desk.sync_ok(&w, &[]);
    assert_eq!(desk.memories(), lap.memories());
}

/// A kill -9 of a running sync (its process group: memctl and its git), at a hook
/// point of the git wrapper or after `delay`.
enum Cut {
    /// While this wrapper hook (e.g. `before-fetch`, `after-push`) sleeps.
    At(&'static str),
    After(Duration),
}

/// Sync the laptop and kill it at `cut`; then check that every memory file is the
/// old or the new version, never torn, and that the next sync completes.
fn interrupted(cut: Cut) {
    let w = World::new();
    let (mut lap, desk) = synced_pair(&w);
    // The desk changes and adds memories; the laptop adds one of its own (no conflict).
    let mut index = String::from("- [A](user_a.md) — alpha\n");
    desk.write("user_a.md", &memory("a", "user", &"alpha, longer now. ".repeat(2000)));
    for i in 0..20 {
        let f = format!("user_d{i}.md");
        desk.write(&f, &memory(&f, "user", &format!("{i} ").repeat(3000)));
        index.push_str(&format!("- [{f}]({f}) — x\n"));
    }
    desk.write("MEMORY.md", &index);
    desk.sync_ok(&w, &[]);
    lap.write("user_l.md", &memory("l", "user", "the laptop's own"));
    let old = lap.memories();
    let new = desk.memories();
    let hooks = lap.wrap_git();
    let reached = w.root().join("reached");
    if let Cut::At(point) = cut {
        fs::write(hooks.join(point), format!("touch '{}'\nsleep 60\n", reached.display())).unwrap();
    }
    let mut cmd = lap.command(&["sync"]);
    cmd.stdout(Stdio::null()).stderr(Stdio::null()).process_group(0);
    let mut child = cmd.spawn().unwrap();
    match cut {
        Cut::At(point) => {
            // No deadline: the sync either reaches the point or ends (a failure).
            while !reached.exists() {
                if let Ok(Some(status)) = child.try_wait() {
                    panic!("the sync ended ({status}) before {point}");
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        Cut::After(d) => std::thread::sleep(d),
    }
    let pgid = child.id().to_string();
    let _ = Command::new("kill").args(["-9", "--", &format!("-{pgid}")]).status();
    let _ = child.wait();
    // Never torn: each memory is the laptop's old bytes or the desk's new ones.
    for (rel, bytes) in lap.memories() {
        let ok = old.get(&rel) == Some(&bytes) || new.get(&rel) == Some(&bytes);
        assert!(ok || rel == "MEMORY.md", "{rel} is torn ({} bytes)", bytes.len());
    }
    // The next sync completes, and both machines end in step.
    lap.vars.clear();
    let out = lap.run(&["sync"]);
    assert_eq!(out.code, 0, "the sync after the kill: {out:?}");
    desk.sync_ok(&w, &[]);
    let got = lap.memories();
    for (rel, bytes) in &new {
        if rel != "MEMORY.md" {
            assert_eq!(got.get(rel), Some(bytes), "{rel} after the next sync");
        }
    }
    assert_eq!(got.get("user_l.md"), old.get("user_l.md"));
    assert_eq!(desk.memories(), got, "in step after the next syncs");
    let index = String::from_utf8_lossy(&got["MEMORY.md"]).into_owned();
    for i in 0..20 {
        assert_eq!(index.matches(&format!("(user_d{i}.md)")).count(), 1, "{index}");
    }
    assert!(
        lap.files().keys().all(|k| !k.contains(".conflict-")),
        "{:?}",
        lap.files().keys()
    );
}

#[test]
fn m10_a_sync_killed_while_fetching_is_redone() {
    interrupted(Cut::At("before-fetch"));
}

#[test]
fn m10_a_sync_killed_before_its_push_is_redone() {
    interrupted(Cut::At("before-push"));
}

#[test]
fn m10_a_sync_killed_after_its_push_is_redone() {
    interrupted(Cut::At("after-push"));
}

#[test]
fn m10_a_sync_killed_at_random_moments_is_never_torn() {
    // A small deterministic spread of delays (no clock-dependent assertion: each
    // kill lands wherever it lands, the checks hold at every point).
    let mut x: u64 = std::process::id() as u64 | 1;
    for _ in 0..4 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        interrupted(Cut::After(Duration::from_millis(x % 120)));
    }
}

/// A sync killed while `git fetch` updated the remote-tracking ref (or while a
/// ref of memctl's own was written) leaves git's lock files in the sync
/// repository; the next sync removes them instead of failing on every run with
/// "cannot lock ref ... File exists".
#[test]
fn m10_the_lock_files_of_a_killed_git_do_not_stop_the_next_sync() {
    let w = World::new();
    let (lap, desk) = synced_pair(&w);
    desk.write("user_n.md", &memory("n", "user", "new on the desk"));
    desk.sync_ok(&w, &[]);
    let state = lap.root.join("state/memctl/sync.git");
    let left = [
        "refs/remotes/origin/main.lock",
        "refs/heads/main.lock",
        "packed-refs.lock",
        "index.lock",
    ];
    for rel in left {
        fs::create_dir_all(state.join(rel).parent().unwrap()).unwrap();
        fs::write(state.join(rel), "").unwrap();
    }
    let out = lap.run(&["sync"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(lap.read("user_n.md").is_some(), "the desk's memory arrived: {out:?}");
    for rel in left {
        assert!(!state.join(rel).exists(), "{rel} is still there");
    }
    assert!(state.join("memctl.lock").exists(), "memctl's own lock file stays");
}

#[test]
fn m11_a_fresh_dream_lock_refuses_and_writes_nothing() {
    let w = World::new();
    let (lap, desk) = synced_pair(&w);
    lap.write("user_b.md", &memory("b", "user", "beta"));
    lap.sync_ok(&w, &[]);
    desk.write("user_c.md", &memory("c", "user", "gamma"));
    // A dream is running on the desk: the lock holds a live PID and is fresh.
    desk.write(".consolidate-lock", &std::process::id().to_string());
    set_age(&desk.mem.join(".consolidate-lock"), 0.1);
    let tip = w.tip();
    let before = desk.files();
    let history = fs::read_dir(desk.root.join("state/memctl/history"))
        .map(|d| d.count())
        .unwrap_or(0);
    let refused = desk.run(&["sync"]);
    assert_eq!(refused.code, 2, "{refused:?}");
    assert!(refused.stderr.contains("dream"), "{refused:?}");
    assert_eq!(w.tip(), tip, "nothing pushed");
    assert_eq!(desk.files(), before, "nothing written into the memory dir");
    assert!(desk.read("user_b.md").is_none());
    let after = fs::read_dir(desk.root.join("state/memctl/history"))
        .map(|d| d.count())
        .unwrap_or(0);
    assert_eq!(after, history);
    // Once the dream is over (the lock is old), the sync goes through.
    set_age(&desk.mem.join(".consolidate-lock"), 30.0);
    desk.sync_ok(&w, &[]);
    assert!(desk.read("user_b.md").is_some());
}

#[test]
fn m12_only_tracked_memory_files_ever_reach_the_remote() {
    let w = World::new();
    let (lap, desk) = synced_pair(&w);
    // Everything that must stay on the machine, beside the memories.
    for (m, who) in [(&lap, "laptop"), (&desk, "desk")] {
        m.write(".consolidate-lock", "424242424242");
        set_age(&m.mem.join(".consolidate-lock"), 30.0);
        m.write("notes.txt", "LEAK-NOTES");
        m.write(&format!("user_{who}.md"), &memory(who, "user", who));
        let key_dir = m.mem.parent().unwrap().to_path_buf();
        fs::write(key_dir.join("session-1.jsonl"), "{\"LEAK\":\"TRANSCRIPT\"}\n").unwrap();
        fs::write(m.root.join("home/.claude/settings.local.json"), "{\"LEAK\":1}").unwrap();
    }
    // A conflict on the desk: its file stays there.
    lap.write("user_a.md", &memory("a", "user", "laptop"));
    desk.write("user_a.md", &memory("a", "user", "desk"));
    lap.sync_ok(&w, &[]);
    desk.sync_conflict(&w, &[]);
    assert!(desk.read(&format!("user_a.md.conflict-laptop-{DAY}")).is_some());
    // A forget (history, .trash) on the laptop.
    let forget = lap.run(&["forget", "user_laptop.md", "--yes"]);
    assert_eq!(forget.code, 0, "{forget:?}");
    lap.sync_ok(&w, &[]);
    let every = w.every_path();
    assert!(!every.is_empty());
    for p in &every {
        assert!(
            p.starts_with(&format!("{MEMBER}/")) || p == "projects" || p == MEMBER,
            "outside the project: {p}"
        );
        let rel = p.strip_prefix(&format!("{MEMBER}/")).unwrap_or("");
        assert!(
            rel.is_empty() || rel.ends_with(".md") || rel.starts_with(".memctl"),
            "not a memory file: {p} (all: {every:?})"
        );
        for bad in [
            ".conflict-",
            ".memctl.lock",
            ".consolidate-lock",
            ".trash",
            "history",
            ".jsonl",
            "settings",
        ] {
            assert!(!p.contains(bad), "{p} reached the remote");
        }
    }
    // No byte of what stays behind is anywhere in the remote's objects.
    let dump = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "git --git-dir '{}' rev-list --objects --all | cut -d' ' -f1 | git --git-dir '{}' cat-file --batch",
            w.remote.display(),
            w.remote.display()
        ))
        .output()
        .unwrap();
    let dump = String::from_utf8_lossy(&dump.stdout);
    for leak in ["LEAK-NOTES", "TRANSCRIPT", "\"LEAK\":1", "424242424242"] {
        assert!(!dump.contains(leak), "{leak} reached the remote");
    }
}

#[test]
fn m8c_a_forged_mass_delete_approval_in_the_remote_deletes_nothing() {
    let w = World::new();
    let (lap, desk) = synced_pair(&w);
    let names = ["user_b.md", "user_c.md", "user_d.md"];
    for n in names {
        lap.write(n, &memory(n, "user", n));
    }
    lap.sync_ok(&w, &[]);
    desk.sync_ok(&w, &[]);
    // Someone with push access writes the approval memctl itself writes.
    push_deletion(&w, &names, &format!("Mass-Delete-Approved: {IDENTITY}\n"));
    let tip = w.tip();
    for m in [&desk, &lap] {
        let before = m.files();
        let refused = m.run(&["sync"]);
        assert_eq!(refused.code, 2, "{refused:?}");
        assert!(refused.stderr.contains("deletes 3 of 4"), "{refused:?}");
        assert!(refused.stderr.contains("--allow-mass-delete"), "{refused:?}");
        assert_eq!((w.tip(), m.files()), (tip.clone(), before), "nothing written or pushed");
        assert_eq!(m.memories().len(), 5, "no memory deleted");
    }
}

/// laptop and desk with 9 memories synced on both, the 4 newest added by a later
/// sync; returns the remote's commit from before those 4.
fn nine_synced(w: &World) -> (Machine, Machine, String) {
    let lap = w.machine("laptop", "src/app", false);
    let desk = w.machine("desk", "work/projects/app-clone", false);
    let mut index = String::new();
    for i in 0..9 {
        if i == 5 {
            lap.write("MEMORY.md", &index);
            lap.sync_ok(w, &[]);
            desk.sync_ok(w, &[]);
        }
        let f = format!("user_{i}.md");
        lap.write(&f, &memory(&format!("m{i}"), "user", &format!("memory {i}")));
        index.push_str(&format!("- [m{i}]({f}) — memory {i}\n"));
    }
    let old = w.tip().unwrap();
    lap.write("MEMORY.md", &index);
    lap.sync_ok(w, &[]);
    desk.sync_ok(w, &[]);
    assert_eq!(desk.memories().len(), 10, "9 memories and the index");
    assert_eq!(lap.memories(), desk.memories());
    (lap, desk, old)
}

fn roll_back(w: &World, to: &str) -> String {
    support::bare_git(&w.remote, &["update-ref", "refs/heads/main", to]).unwrap();
    w.tip().unwrap()
}

#[test]
fn m17_a_rolled_back_remote_deletes_nothing_until_the_user_decides() {
    let w = World::new();
    let (lap, desk, old) = nine_synced(&w);
    let newer = w.tip().unwrap();
    let tip = roll_back(&w, &old);
    for m in [&desk, &lap] {
        let before = m.files();
        let out = m.run(&["sync"]);
        assert_eq!(out.code, 2, "{} {out:?}", m.name);
        assert!(out.stderr.contains("rolled back or rewritten"), "{out:?}");
        assert!(out.stderr.contains(&old[..8]), "names the remote's commit: {out:?}");
        assert!(out.stderr.contains(&newer[..8]), "names the last synced one: {out:?}");
        assert!(out.stderr.contains("--accept-remote"), "{out:?}");
        assert!(out.stderr.contains("--push-local"), "{out:?}");
        assert_eq!(
            (w.tip(), m.files()),
            (Some(tip.clone()), before),
            "nothing written or pushed"
        );
        // A dry run says the same.
        assert_eq!(m.run(&["sync", "--dry-run"]).code, 2);
    }
    // `--accept-remote --dry-run` shows the deletions first, writes nothing.
    let before = desk.files();
    let look = desk.run(&["sync", "--accept-remote", "--dry-run"]);
    assert_eq!(look.code, 0, "{look:?}");
    for i in 5..9 {
        assert!(look.stdout.contains(&format!("delete    user_{i}.md")), "{look:?}");
    }
    assert_eq!(desk.files(), before);
    // The desk restores the remote from itself; the laptop then syncs as usual.
    let out = desk.sync_ok(&w, &["--push-local"]);
    assert!(out.stdout.contains("pushed"), "{out:?}");
    assert!(
        out.stdout.contains(": 5 sent; 0 added"),
        "4 memories and the index: {out:?}"
    );
    for i in 0..9 {
        assert!(
            w.remote_file(&format!("user_{i}.md")).is_some(),
            "user_{i}.md on the remote"
        );
    }
    lap.sync_ok(&w, &[]);
    assert_eq!(lap.memories().len(), 10, "nothing deleted on the laptop");
    assert_eq!(lap.memories(), desk.memories());
}

#[test]
fn m17b_accept_remote_takes_the_rolled_back_remote_with_copies_in_history() {
    let w = World::new();
    let (lap, desk, old) = nine_synced(&w);
    let gone = desk.read("user_7.md").unwrap();
    roll_back(&w, &old);
    let doc = desk.sync_ok(&w, &["--accept-remote", "--json"]).json();
    let mut deleted = strs(&doc["projects"][0]["deleted"]);
    deleted.sort();
    assert_eq!(deleted, ["user_5.md", "user_6.md", "user_7.md", "user_8.md"], "{doc}");
    assert_eq!(desk.memories().len(), 6, "5 memories and the index");
    let r = desk.run(&["restore", "user_7.md"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(desk.read("user_7.md").as_deref(), Some(gone.as_str()));
    // The laptop has not decided: still refused, still 9.
    assert_eq!(lap.run(&["sync"]).code, 2);
    assert_eq!(lap.memories().len(), 10);
}

/// `git --git-dir <remote> args` with `stdin`, which must succeed; its stdout, trimmed.
fn in_remote(w: &World, args: &[&str], stdin: &[u8]) -> String {
    use std::io::Write as _;
    let mut child = Command::new("git")
        .arg("--git-dir")
        .arg(&w.remote)
        .args(["-c", "user.email=t@example.com", "-c", "user.name=t"])
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// A tree object in the remote from `ls-tree`-style lines (`mode type oid\tname`).
fn mktree(w: &World, lines: &[String]) -> String {
    let mut text = lines.join("\n");
    text.push('\n');
    in_remote(w, &["mktree"], text.as_bytes())
}

/// A blob object in the remote.
fn blob(w: &World, bytes: &[u8]) -> String {
    in_remote(w, &["hash-object", "-w", "--stdin"], bytes)
}

/// The entries (`ls-tree` lines) of `main:<path>` in the remote.
fn entries(w: &World, path: &str) -> Vec<String> {
    in_remote(w, &["ls-tree", &format!("main:{path}")], b"")
        .lines()
        .map(String::from)
        .collect()
}

/// Replace the entry `name` of `lines` (or add it) with `line`.
fn put(lines: &mut Vec<String>, name: &str, line: String) {
    lines.retain(|l| l.split_once('\t').map(|(_, n)| n) != Some(name));
    lines.push(line);
}

/// Commit on the remote's `main` (as a child of its tip, so it descends from what
/// every machine synced) a project tree whose top-level entries are `member`
/// (`ls-tree` lines), written object by object: no checkout, no transfer.
fn push_member(w: &World, member: &[String]) {
    let tree = mktree(w, member);
    let mut projects = entries(w, "projects");
    put(
        &mut projects,
        "github.com__Alice__App",
        format!("040000 tree {tree}\tgithub.com__Alice__App"),
    );
    let projects = mktree(w, &projects);
    let mut root = entries(w, "");
    put(&mut root, "projects", format!("040000 tree {projects}\tprojects"));
    let root = mktree(w, &root);
    let tip = w.tip().unwrap();
    let c = in_remote(
        w,
        &[
            "commit-tree",
            &root,
            "-p",
            &tip,
            "-m",
            "sync: merge from elsewhere\n\nMachine: elsewhere",
        ],
        b"",
    );
    in_remote(w, &["update-ref", "refs/heads/main", &c], b"");
}

/// The desk syncs the remote as `push_member` left it: refused, exit 2, with
/// `want` in the message, nothing written here or pushed.
#[track_caller]
fn refused_incoming(w: &World, desk: &Machine, want: &str) -> Out {
    let (tip, before) = (w.tip(), desk.files());
    let out = desk.run(&["sync"]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains(want), "wanted {want:?}: {out:?}");
    assert!(out.stderr.contains("nothing was written or pushed"), "{out:?}");
    assert_eq!((w.tip(), desk.files()), (tip, before), "nothing written or pushed");
    out
}

#[test]
fn m18_a_tree_bomb_from_the_remote_is_refused_while_walking() {
    let w = World::new();
    let (_lap, desk) = synced_pair(&w);
    // 17 levels of two entries pointing to the same subtree: 18 small objects,
    // 2^17 = 131 072 files once expanded.
    let mut t = mktree(&w, &[format!("100644 blob {}\tx.md", blob(&w, b"boom\n"))]);
    for _ in 0..17 {
        t = mktree(&w, &[format!("040000 tree {t}\ta"), format!("040000 tree {t}\tb")]);
    }
    let mut member = entries(&w, MEMBER);
    member.push(format!("040000 tree {t}\tbomb"));
    push_member(&w, &member);
    refused_incoming(&w, &desk, "more than 100000 paths");
    assert!(!desk.mem.join("bomb").exists());
    // Dirs nested 40 deep holding one file: past the depth limit.
    let mut t = mktree(&w, &[format!("100644 blob {}\tx.md", blob(&w, b"deep\n"))]);
    for _ in 0..40 {
        t = mktree(&w, &[format!("040000 tree {t}\td")]);
    }
    let mut member = entries(&w, MEMBER);
    put(&mut member, "bomb", format!("040000 tree {t}\tbomb"));
    push_member(&w, &member);
    refused_incoming(&w, &desk, "nest more than 32 deep");
    assert!(!desk.mem.join("bomb").exists());
}

#[test]
fn m19_a_file_over_64_mib_from_the_remote_is_refused() {
    let w = World::new();
    let (_lap, desk) = synced_pair(&w);
    let big = vec![b'\n'; (64 << 20) + 1];
    let mut member = entries(&w, MEMBER);
    member.push(format!("100644 blob {}\tuser_big.md", blob(&w, &big)));
    push_member(&w, &member);
    refused_incoming(
        &w,
        &desk,
        "user_big.md is 67108865 bytes, over the limit of 64 MiB per file",
    );
    assert!(desk.read("user_big.md").is_none());
}

#[test]
fn m20_dot_paths_from_the_remote_are_refused() {
    let w = World::new();
    let (lap, desk) = synced_pair(&w);
    let base = entries(&w, MEMBER);
    let evil = blob(&w, memory("evil", "user", "x").as_bytes());
    let file = |name: &str| mktree(&w, &[format!("100644 blob {evil}\t{name}")]);
    let memctl_dir = {
        let mut m = entries(&w, &format!("{MEMBER}/.memctl"));
        m.push(format!("100644 blob {evil}\tevil.md"));
        mktree(&w, &m)
    };
    let cases = [
        (".memctl", format!("040000 tree {memctl_dir}\t.memctl"), "`.memctl/`"),
        (".trash", format!("040000 tree {}\t.trash", file("x.md")), "`.trash/`"),
        (".git", format!("040000 tree {}\t.git", file("x.md")), "`.git/`"),
        (".hidden.md", format!("100644 blob {evil}\t.hidden.md"), "`.hidden.md`"),
    ];
    for (name, line, want) in cases {
        let mut member = base.clone();
        put(&mut member, name, line);
        push_member(&w, &member);
        let out = refused_incoming(&w, &desk, want);
        assert!(out.stderr.contains("--push-local"), "{out:?}");
    }
    let listed = desk.run(&["list", "--format", "paths"]);
    assert_eq!(listed.code, 0, "{listed:?}");
    assert!(!listed.stdout.contains("evil"), "{listed:?}");
    // The way out the hint names: the remote restored from this machine, which
    // reads none of it; then both machines sync as before.
    desk.sync_ok(&w, &["--push-local"]);
    assert!(
        !w.tree()
            .iter()
            .any(|p| p.contains("/.") && !p.ends_with("/.memctl/mtimes")),
        "{:?}",
        w.tree()
    );
    lap.sync_ok(&w, &[]);
    desk.sync_ok(&w, &[]);
}

#[test]
fn m21_remote_mtimes_are_clamped_and_a_missing_one_is_now() {
    let w = World::new();
    let (lap, desk) = synced_pair(&w);
    let mut member = entries(&w, MEMBER);
    let mut mtimes = in_remote(&w, &["cat-file", "-p", &format!("main:{MEMBER}/.memctl/mtimes")], b"");
    mtimes.push('\n');
    let year_2446: i128 = 15_000_000_000 * 1_000_000_000;
    let year_1901: i128 = -2_177_452_800 * 1_000_000_000;
    for (name, mtime) in [
        ("user_future.md", Some(year_2446)),
        ("user_old.md", Some(year_1901)),
        ("user_zero.md", Some(0)),
        ("user_unlisted.md", None),
    ] {
        let b = blob(&w, memory(name, "user", name).as_bytes());
        member.push(format!("100644 blob {b}\t{name}"));
        if let Some(t) = mtime {
            mtimes.push_str(&format!("{t}\t{name}\n"));
        }
    }
    let m = mktree(&w, &[format!("100644 blob {}\tmtimes", blob(&w, mtimes.as_bytes()))]);
    put(&mut member, ".memctl", format!("040000 tree {m}\t.memctl"));
    push_member(&w, &member);
    let out = desk.sync_ok(&w, &[]);
    let secs = |f: &str| {
        use std::os::unix::fs::MetadataExt;
        fs::metadata(desk.mem.join(f)).unwrap().mtime()
    };
    let now = 1_773_144_000; // support::NOW
    assert_eq!(secs("user_future.md"), now + 86_400, "now + 1 day");
    assert_eq!(secs("user_old.md"), 86_400, "1970-01-02");
    assert_eq!(secs("user_zero.md"), 86_400, "1970-01-02");
    assert_eq!(secs("user_unlisted.md"), now, "no mtime: now");
    assert!(
        out.stderr
            .contains("3 incoming files had an mtime outside 1970-01-02 … now + 1 day")
            && out.stderr.contains("user_future.md (2445-05-01 → 2026-03-11)"),
        "{out:?}"
    );
    assert!(
        out.stderr
            .contains("1 incoming file had no mtime and got the current time: user_unlisted.md"),
        "{out:?}"
    );
    // The desk lists the mtime it gave the unlisted file; the laptop gets that one.
    lap.sync_ok(&w, &[]);
    use std::os::unix::fs::MetadataExt;
    let lap_secs = |f: &str| fs::metadata(lap.mem.join(f)).unwrap().mtime();
    assert_eq!(lap_secs("user_unlisted.md"), now, "as the desk listed it");
    assert_eq!(lap_secs("user_old.md"), 86_400);
}

/// `--push-local` and `--accept-remote` resolve a rolled-back remote only: against a
/// remote that moved forward normally they are the ordinary sync, with a note, and
/// neither the other machine's new memory nor this machine's unsynced one is lost.
#[test]
fn m17c_the_rollback_flags_on_a_remote_that_moved_forward_lose_nothing() {
    let w = World::new();
    let (lap, desk, _) = nine_synced(&w);
    // The laptop adds a memory and syncs; the desk has one of its own, unsynced.
    lap.write("user_lap.md", &memory("lap", "user", "from the laptop"));
    lap.sync_ok(&w, &[]);
    desk.write("user_desk.md", &memory("desk", "user", "from the desk"));
    let out = desk.sync_ok(&w, &["--push-local"]);
    assert!(out.stderr.contains("--push-local ignored, synced normally"), "{out:?}");
    assert!(
        desk.read("user_lap.md").is_some(),
        "the laptop's memory arrives: {out:?}"
    );
    assert!(w.remote_file("user_lap.md").is_some(), "and stays on the remote");
    assert!(w.remote_file("user_desk.md").is_some(), "the desk's goes out");
    lap.write("user_lap2.md", &memory("lap2", "user", "second from the laptop"));
    desk.write("user_desk2.md", &memory("desk2", "user", "second from the desk"));
    lap.sync_ok(&w, &[]);
    let out = desk.sync_ok(&w, &["--accept-remote"]);
    assert!(
        out.stderr.contains("--accept-remote ignored, synced normally"),
        "{out:?}"
    );
    assert!(
        desk.read("user_desk2.md").is_some(),
        "the desk's unsynced memory stays: {out:?}"
    );
    assert!(desk.read("user_lap2.md").is_some());
    lap.sync_ok(&w, &[]);
    assert_eq!(lap.memories(), desk.memories());
}
