//! The no-op sync's stat cache (issue 31): a sync whose refs and files are as a
//! full sync that changed nothing left them reads nothing, and it is never taken
//! when something may have changed. The cache, `memctl-sync-cache` in the sync
//! repository, is rewritten by every full sync that changed nothing (a new
//! stamp) and left alone by the short cut: a sync that leaves it as it was took
//! the short cut.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::support::{Env, bare_git, checkout, git};

const ORIGIN: &str = "https://github.com/Alice/App.git";
const MEMBER: &str = "projects/github.com__Alice__App";

struct Machine {
    env: Env,
    proj: PathBuf,
    mem: PathBuf,
    name: &'static str,
}

impl Machine {
    fn new(name: &'static str) -> Machine {
        let env = Env::new().resolved();
        let proj = env.root().join(name);
        checkout(&proj, ORIGIN);
        let mut m = Machine {
            env,
            proj,
            mem: PathBuf::new(),
            name,
        };
        let (_, out, _) = m.run(&["path"]);
        m.mem = PathBuf::from(out.trim());
        m
    }

    fn run(&self, args: &[&str]) -> (i32, String, String) {
        let mut cmd = self.env.command();
        cmd.current_dir(&self.proj)
            .args(args)
            .env("MEMCTL_MACHINE", self.name)
            .stdin(std::process::Stdio::null());
        let out = cmd.output().unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    #[track_caller]
    fn sync(&self) -> String {
        let (code, out, err) = self.run(&["sync"]);
        assert_eq!(code, 0, "{out}{err}");
        out
    }

    fn cache_path(&self) -> PathBuf {
        self.env.root().join("state/memctl/sync.git/memctl-sync-cache")
    }

    fn cache(&self) -> Option<Vec<u8>> {
        fs::read(self.cache_path()).ok()
    }

    /// Sync until a sync leaves the cache as it was (the short cut taken): a
    /// full sync writes it with a stamp that vouches only for files older than
    /// it, so files written just before need one more.
    #[track_caller]
    fn settle(&self) {
        let mut last = None;
        for _ in 0..50 {
            let out = self.sync();
            assert!(out.contains("up to date"), "{out}");
            let now = self.cache();
            if now.is_some() && now == last {
                return;
            }
            last = now;
        }
        panic!("the sync cache never settled");
    }

    fn write(&self, rel: &str, text: &str) {
        let p = self.mem.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }
}

fn memory(name: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: d\ntype: user\n---\n{body}\n")
}

fn bare_remote(root: &Path) -> (PathBuf, String) {
    let remote = root.join("remote.git");
    git(root, &["init", "-q", "--bare", remote.to_str().unwrap()]);
    let url = format!("file://{}", remote.display());
    (remote, url)
}

fn remote_file(remote: &Path, rel: &str) -> Option<String> {
    bare_git(remote, &["show", &format!("main:{MEMBER}/{rel}")])
}

/// A machine with three memories and an index, synced and settled.
fn settled_machine() -> (Machine, PathBuf, String) {
    let m = Machine::new("laptop");
    let (remote, url) = bare_remote(&m.env.root());
    for n in ["a", "b", "c"] {
        m.write(&format!("user_{n}.md"), &memory(n, &format!("{n} body")));
    }
    m.write(
        "MEMORY.md",
        "- [A](user_a.md) — a\n- [B](user_b.md) — b\n- [C](user_c.md) — c\n",
    );
    let (code, _, err) = m.run(&["sync", "--remote", &url]);
    assert_eq!(code, 0, "{err}");
    m.settle();
    (m, remote, url)
}

/// Rewrite `rel` with other bytes of the same length, then put its mtime back
/// (`touch -r` of its old self): size and mtime as the cache holds them.
fn edit_keeping_size_and_mtime(m: &Machine, rel: &str, text: &str) {
    let p = m.mem.join(rel);
    let md = fs::metadata(&p).unwrap();
    let mtime: SystemTime = md.modified().unwrap();
    assert_eq!(md.len(), text.len() as u64, "same size");
    fs::write(&p, text).unwrap();
    let f = fs::File::options().write(true).open(&p).unwrap();
    f.set_modified(mtime).unwrap();
    let after = fs::metadata(&p).unwrap();
    assert_eq!((after.len(), after.modified().unwrap()), (md.len(), mtime));
}

#[test]
fn a_settled_sync_reports_as_the_full_sync_does() {
    let (m, _, _) = settled_machine();
    let fast = m.run(&["sync"]);
    let fast_json = m.run(&["sync", "--json"]);
    assert!(m.cache().is_some());
    fs::remove_file(m.cache_path()).unwrap();
    let full = m.run(&["sync"]);
    fs::remove_file(m.cache_path()).unwrap();
    let full_json = m.run(&["sync", "--json"]);
    assert_eq!(fast, full);
    assert_eq!(fast_json, full_json);
    assert_eq!(fast.0, 0);
    assert!(
        fast.1.contains("0 sent; 0 added, 0 updated, 0 deleted, 0 conflicts"),
        "{fast:?}"
    );
}

#[test]
fn a_same_size_edit_with_its_mtime_put_back_is_sent() {
    let (m, remote, _) = settled_machine();
    let before = memory("a", "a body");
    let after = memory("a", "A BODY");
    assert_eq!(before.len(), after.len());
    edit_keeping_size_and_mtime(&m, "user_a.md", &after);
    let out = m.sync();
    assert!(out.contains("1 sent"), "{out}");
    assert!(out.contains("pushed "), "{out}");
    assert_eq!(remote_file(&remote, "user_a.md").as_deref(), Some(after.as_str()));
}

#[test]
fn an_edit_right_after_a_sync_is_sent_by_the_next() {
    // Edited within the same second as the sync before (and the cache it may
    // have written), its size and mtime put back.
    let (m, remote, _) = settled_machine();
    fs::remove_file(m.cache_path()).unwrap();
    assert!(m.sync().contains("up to date"));
    let after = memory("b", "B BODY");
    edit_keeping_size_and_mtime(&m, "user_b.md", &after);
    let out = m.sync();
    assert!(out.contains("1 sent"), "{out}");
    assert_eq!(remote_file(&remote, "user_b.md").as_deref(), Some(after.as_str()));
}

#[test]
fn a_remote_that_moved_on_is_merged() {
    let (lap, _, url) = settled_machine();
    let desk = Machine::new("desk");
    let (code, _, err) = desk.run(&["sync", "--remote", &url]);
    assert_eq!(code, 0, "{err}");
    desk.write("user_d.md", &memory("d", "from the desk"));
    assert!(desk.sync().contains("pushed "));
    let out = lap.sync();
    assert!(out.contains("1 added"), "{out}");
    assert_eq!(
        fs::read_to_string(lap.mem.join("user_d.md")).unwrap(),
        memory("d", "from the desk")
    );
}

#[test]
fn a_file_added_or_removed_here_is_sent() {
    let (m, remote, _) = settled_machine();
    m.write("user_n.md", &memory("n", "new"));
    let out = m.sync();
    assert!(out.contains("1 sent"), "{out}");
    assert_eq!(remote_file(&remote, "user_n.md"), Some(memory("n", "new")));
    m.settle();
    fs::remove_file(m.mem.join("user_c.md")).unwrap();
    let out = m.sync();
    assert!(out.contains("pushed "), "{out}");
    assert_eq!(remote_file(&remote, "user_c.md"), None);
}

#[test]
fn a_missing_or_corrupt_cache_falls_back_to_the_full_sync() {
    let (m, remote, _) = settled_machine();
    let good = m.cache().unwrap();
    let half = good[..good.len() / 2].to_vec();
    // The last file's size one digit longer: that stat no longer the file's.
    let last = good[..good.len() - 1].iter().rposition(|b| *b == b'\n').unwrap() + 1;
    let off = [&good[..last], b"1", &good[last..]].concat();
    let variants: Vec<(&str, Option<Vec<u8>>)> = vec![
        ("missing", None),
        ("garbage", Some(b"\xff\x00 not a cache\n".to_vec())),
        ("truncated", Some(half)),
        ("numbers off", Some(off)),
        ("empty", Some(Vec::new())),
    ];
    for (i, (what, bytes)) in variants.into_iter().enumerate() {
        let _ = fs::remove_file(m.cache_path());
        if let Some(b) = &bytes {
            fs::write(m.cache_path(), b).unwrap();
        }
        // Nothing changed: up to date, and the cache is written again.
        let out = m.sync();
        assert!(out.contains("up to date"), "{what}: {out}");
        assert!(m.cache().is_some_and(|c| Some(&c) != bytes.as_ref()), "{what}");
        // Changed behind a cache as it was: the change is sent.
        m.settle();
        if let Some(b) = &bytes {
            fs::write(m.cache_path(), b).unwrap();
        } else {
            fs::remove_file(m.cache_path()).unwrap();
        }
        let text = memory("a", &format!("edit {i:02}"));
        let old = fs::read_to_string(m.mem.join("user_a.md")).unwrap();
        let text = format!("{text}{}", " ".repeat(old.len().saturating_sub(text.len())));
        m.write("user_a.md", &text);
        let out = m.sync();
        assert!(out.contains("1 sent"), "{what}: {out}");
        assert_eq!(
            remote_file(&remote, "user_a.md").as_deref(),
            Some(text.as_str()),
            "{what}"
        );
        m.settle();
    }
    // A dir where the cache goes: no cache, the sync as ever.
    fs::remove_file(m.cache_path()).unwrap();
    fs::create_dir(m.cache_path()).unwrap();
    assert!(m.sync().contains("up to date"));
}
