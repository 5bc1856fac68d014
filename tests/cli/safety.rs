//! The safety claims of SPEC §4 and §6: concurrent writers lose nothing, `kill -9`
//! never tears a file, bad names are refused before any file access.

use std::fs;
use std::process::{Child, Stdio};
use std::time::Duration;

use crate::support::{Env, read};

fn spawn_add(env: &Env, i: usize) -> Child {
    let mut cmd = env.command();
    cmd.args([
        "add",
        "--type",
        "user",
        "--name",
        &format!("Note {i}"),
        "--description",
        &format!("description {i}"),
        "--body",
        &"body text ".repeat(50),
    ]);
    cmd.stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap()
}

#[test]
fn fifty_concurrent_adds_lose_nothing() {
    let env = Env::new();
    let children: Vec<Child> = (0..50).map(|i| spawn_add(&env, i)).collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let d = env.dir();
    let index = read(&d, "MEMORY.md");
    assert_eq!(index.lines().count(), 50, "{index}");
    for i in 0..50 {
        assert!(d.join(format!("user_note_{i}.md")).is_file(), "file {i}");
        assert_eq!(
            index
                .lines()
                .filter(|l| *l == format!("- [Note {i}](user_note_{i}.md) — description {i}"))
                .count(),
            1,
            "line {i}"
        );
    }
}

/// A small deterministic generator for kill delays.
fn delays(seed: u64) -> impl Iterator<Item = u64> {
    let mut x = seed;
    std::iter::from_fn(move || {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        Some((x >> 33) % 4000)
    })
}

/// Every memory file is whole (it parses to exactly what `add` wrote) and every
/// index line is complete; lint reports nothing but unindexed files.
fn assert_consistent(env: &Env) {
    let d = env.dir();
    for e in fs::read_dir(&d).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        if !name.ends_with(".md") || name == "MEMORY.md" {
            continue;
        }
        let text = read(&d, &name);
        let i: String = name
            .trim_start_matches("user_note_")
            .trim_end_matches(".md")
            .to_string();
        let expected = format!(
            "---\nname: Note {i}\ndescription: description {i}\ntype: user\n---\n\n{}\n",
            "body text ".repeat(50)
        );
        assert_eq!(text, expected, "{name} is torn");
    }
    let index = fs::read_to_string(d.join("MEMORY.md")).unwrap_or_default();
    for line in index.lines() {
        let ok = line.starts_with("- [Note ") && line.contains("](user_note_") && line.contains(") — description ");
        assert!(ok, "torn index line: {line:?}");
    }
    assert!(index.is_empty() || index.ends_with('\n'), "the index ends mid-line");
    let doc = Env::new().arg("--dir").arg(&d).args(["lint", "--json"]).run().json();
    for f in doc["findings"].as_array().unwrap() {
        assert!(
            ["ML203", "ML132"].contains(&f["id"].as_str().unwrap()),
            "unexpected finding after kills: {f}"
        );
    }
}

#[test]
fn kill_9_during_add_and_forget_never_tears_a_file() {
    let env = Env::new();
    let mut kills = 0;
    let mut d = delays(7);
    let mut i = 0;
    while kills < 100 && i < 600 {
        i += 1;
        let mut child = if i % 3 == 2 {
            let mut cmd = env.command();
            cmd.args(["forget", "--yes", &format!("user_note_{}", i - 2)])
                .stdout(Stdio::null())
                .stderr(Stdio::null());
            cmd.spawn().unwrap()
        } else {
            spawn_add(&env, i)
        };
        std::thread::sleep(Duration::from_micros(d.next().unwrap_or(0)));
        if child.try_wait().unwrap().is_none() {
            child.kill().unwrap();
            kills += 1;
        }
        child.wait().unwrap();
    }
    assert!(
        kills >= 100,
        "only {kills} processes were still running when killed, in {i} runs"
    );
    assert_consistent(&env);
}

#[test]
fn traversal_and_control_names_are_refused_before_any_access() {
    for bad in ["../escape.md", "/etc/passwd", "a/../../b.md", "x\u{1}y.md", "a\nb.md"] {
        let env = Env::new();
        let d = env.dir();
        let run = env
            .args([
                "add",
                "--type",
                "user",
                "--name",
                "n",
                "--description",
                "d",
                "--file",
                bad,
            ])
            .run()
            .code(2);
        assert!(
            run.stderr.starts_with("memctl: invalid memory file name"),
            "{bad:?}: {}",
            run.stderr
        );
        assert_eq!(
            fs::read_dir(&d).unwrap().count(),
            0,
            "nothing created for {bad:?}, not even the lock"
        );
        for cmd in [vec!["show", bad], vec!["forget", "--yes", bad], vec!["edit", bad]] {
            let run = Env::new().args(cmd.clone()).run().code(2);
            assert!(
                run.stderr.starts_with("memctl: invalid memory file name"),
                "{cmd:?}: {}",
                run.stderr
            );
        }
    }
}

#[test]
fn a_symlinked_memory_dir_is_fine_but_escaping_links_are_refused() {
    let env = Env::new().file("real/x.md", b"");
    let real = env.root().join("real");
    let link = env.root().join("linked");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let _run = env
        .arg("--dir")
        .arg(&link)
        .args(["add", "--type", "user", "--name", "Me", "--description", "d"])
        .run()
        .success();
    assert!(real.join("user_me.md").is_file());
    let env = Env::new().file("outside/dir/keep.txt", b"");
    std::os::unix::fs::symlink(env.root().join("outside/dir"), env.dir().join("sub")).unwrap();
    let root = env.root();
    let run = env
        .args([
            "add",
            "--type",
            "user",
            "--name",
            "Me",
            "--description",
            "d",
            "--file",
            "sub/me.md",
        ])
        .run()
        .code(2);
    assert!(
        run.stderr
            .starts_with("memctl: write target resolves outside the memory dir"),
        "{}",
        run.stderr
    );
    assert!(!root.join("outside/dir/me.md").exists());
}
