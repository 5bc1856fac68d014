//! The bad-input table of SPEC §5: one test per row, each asserting the message,
//! the exit code and what stays on disk. Fixtures are generated here.

use std::fs;
use std::os::unix::ffi::OsStrExt;

use crate::support::{Env, read};

const GOOD: &str = "---\nname: Good\ndescription: d\ntype: user\n---\nbody\n";

fn ids(env: Env) -> Vec<String> {
    let run = env.args(["lint", "--json"]).run();
    run.json()["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_str().unwrap().to_string())
        .collect()
}

/// Peak RSS (KiB) of a memctl run, through GNU time (on this machine kind).
fn peak_rss_kib(env: &Env, args: &[&str]) -> u64 {
    let mut cmd = env.command();
    cmd.args(args);
    let mut time = std::process::Command::new("/usr/bin/time");
    time.arg("-f")
        .arg("%M")
        .arg(cmd.get_program())
        .args(cmd.get_args())
        .env_clear()
        .current_dir(cmd.get_current_dir().unwrap());
    for (k, v) in cmd.get_envs() {
        if let Some(v) = v {
            time.env(k, v);
        }
    }
    let out = time.output().expect("GNU time runs");
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .last()
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

/// An env whose memory dir holds `name`: `head`, then zeros up to `len` bytes
/// (a sparse file: no disk space used).
fn sparse(name: &str, head: impl AsRef<[u8]>, len: u64) -> Env {
    let env = Env::new();
    let p = env.dir().join(name);
    fs::write(&p, head).unwrap();
    fs::OpenOptions::new()
        .write(true)
        .open(&p)
        .unwrap()
        .set_len(len)
        .unwrap();
    env
}

#[test]
fn binary_file() {
    let bytes = b"\x00\x01binary\xff\xfe\n";
    let env = Env::new().file("mem/bin.md", bytes);
    let run = env.args(["list"]).run().success();
    assert_eq!(
        run.stdout,
        "-\tbin.md\t1\tno\t-\t-\n".replace("\t1\t", &format!("\t{}\t", run.stdout.split('\t').nth(2).unwrap()))
    );
    run.stderr_has("bin.md: binary content (NUL bytes); Claude Code reads it as text");
    let found = ids(Env::new().file("mem/bin.md", bytes));
    assert!(
        found.contains(&"ML133".to_string()) && found.contains(&"ML123".to_string()),
        "{found:?}"
    );
    let env = Env::new().file("mem/bin.md", bytes);
    let out = env.command().args(["show", "--raw", "bin"]).output().unwrap();
    assert_eq!(out.stdout, bytes, "--raw prints the exact bytes");
    // On a terminal, `show` prints the header but not the binary body.
    let env = Env::new().file("mem/bin.md", bytes);
    let screen = crate::support::run_in_pty(&env, &["show", "bin"], &[]);
    assert!(
        screen.contains("bin.md contains NUL bytes and is not printed to a terminal; use --raw"),
        "{screen}"
    );
    assert!(!screen.contains("binary"), "the body stays off the terminal: {screen}");
    assert_eq!(
        fs::read(env.dir().join("bin.md")).unwrap(),
        bytes,
        "nothing changed on disk"
    );
    // `edit` works on a draft: the editor's change lands, the NUL bytes survive.
    let env = Env::new().file("mem/bin.md", bytes);
    let editor = crate::support::script(&env, "append.sh", "printf 'added\\n' >> \"$1\"");
    let d = env.dir();
    let _run = env.env("EDITOR", &editor).args(["edit", "bin"]).run().success();
    assert_eq!(fs::read(d.join("bin.md")).unwrap(), [&bytes[..], b"added\n"].concat());
    let env = Env::new().file("mem/MEMORY.md", b"- [A](a.md) \x00 x\n");
    let run = env.args(["truncate-check"]).run().success();
    run.stderr_has("MEMORY.md is binary (NUL bytes); modelled on its text as Claude Code reads it");
}

#[test]
fn non_utf8_file_name() {
    let env = Env::new();
    fs::write(env.dir().join(std::ffi::OsStr::from_bytes(b"caf\xe9.md")), GOOD).unwrap();
    let run = env.args(["list", "--format", "paths"]).run().success().stdout("");
    assert_eq!(
        run.stderr,
        "memctl: warning: caf\\xe9.md: file name is not valid UTF-8; Claude Code cannot open it (rename it with mv)\n"
    );
    let env = Env::new();
    fs::write(env.dir().join(std::ffi::OsStr::from_bytes(b"caf\xe9.md")), GOOD).unwrap();
    assert!(ids(env).contains(&"ML128".to_string()));
    let env = Env::new();
    fs::write(env.dir().join(std::ffi::OsStr::from_bytes(b"caf\xe9.md")), GOOD).unwrap();
    let run = env.args(["show", "caf"]).run().code(2);
    run.stderr_starts("memctl: no memory named `caf`");
}

#[test]
fn non_utf8_content() {
    let bytes = b"---\nname: caf\xe9\ndescription: d\n---\nbody \xff here\n";
    let run = Env::new().file("mem/x.md", bytes).args(["show", "x"]).run().success();
    assert!(run.stdout.contains("  name:         caf\u{fffd}\n"), "{}", run.stdout);
    assert!(run.stdout.ends_with("body \u{fffd} here\n"));
    let env = Env::new().file("mem/x.md", bytes);
    let out = env.command().args(["show", "--raw", "x"]).output().unwrap();
    assert_eq!(out.stdout, bytes);
    let doc = Env::new()
        .file("mem/x.md", bytes)
        .args(["lint", "--json", "--rule", "ML123"])
        .run()
        .json();
    assert_eq!(
        doc["findings"][0]["message"],
        "invalid UTF-8 at byte 13; Claude Code reads U+FFFD there"
    );
    let doc = Env::new()
        .file("mem/MEMORY.md", b"caf\xe9\n")
        .args(["truncate-check", "--json"])
        .run()
        .success()
        .json();
    assert_eq!(doc["byte_count"], 4, "counted after lossy decoding");
    let warning = "memctl: warning: MEMORY.md is not valid UTF-8; modelled on the lossily decoded text";
    let run = Env::new()
        .file("mem/MEMORY.md", b"caf\xe9\n")
        .args(["truncate-check"])
        .run()
        .success();
    run.stderr_has(warning);
    // A U+FFFD written in the file is valid UTF-8.
    let run = Env::new()
        .file("mem/MEMORY.md", "caf\u{fffd}\n".as_bytes())
        .args(["truncate-check"])
        .run()
        .success();
    assert!(!run.stderr.contains("not valid UTF-8"), "{}", run.stderr);
}

#[test]
fn crlf_line_endings() {
    let text = GOOD.replace('\n', "\r\n");
    let run = Env::new().memory("c.md", &text).args(["show", "c"]).run().success();
    assert!(run.stdout.contains("  name:         Good\n"));
    assert!(run.stdout.ends_with("body\r\n"), "body shown as is");
    let doc = Env::new()
        .memory("c.md", &text)
        .index("- [C](c.md) — c\r\n")
        .args(["lint", "--json", "--rule", "ML215"])
        .run()
        .json();
    assert_eq!(doc["findings"][0]["severity"], "info");
    let doc = Env::new()
        .index("a\r\nb\r\n")
        .args(["truncate-check", "--json"])
        .run()
        .success()
        .json();
    assert_eq!(doc["byte_count"], 4, "the CR between the lines is kept and counted");
}

#[test]
fn utf8_bom() {
    let text = format!("\u{feff}{GOOD}");
    let run = Env::new()
        .memory("b.md", &text)
        .args(["list", "--format", "manifest"])
        .run()
        .success();
    assert!(run.stdout.contains("[user] b.md"), "{}", run.stdout);
    let env = Env::new().memory("b.md", &text);
    let out = env.command().args(["show", "--raw", "b"]).output().unwrap();
    assert!(out.stdout.starts_with("\u{feff}".as_bytes()));
    assert!(ids(Env::new().memory("b.md", &text)).contains(&"ML124".to_string()));
    let doc = Env::new()
        .index("\u{feff}abc")
        .args(["truncate-check", "--json"])
        .run()
        .success()
        .json();
    assert_eq!(doc["byte_count"], 3);
}

#[test]
fn a_100_mb_file_is_read_in_bounded_amounts() {
    use std::io::Write;
    let env = Env::new();
    let p = env.dir().join("huge.md");
    let mut f = fs::File::create(&p).unwrap();
    f.write_all(b"---\nname: Huge\ndescription: a very large memory\ntype: reference\n---\n")
        .unwrap();
    let chunk = "a line of notes that goes on for a while\n".repeat(1 << 15);
    for _ in 0..(100 << 20) / chunk.len() {
        f.write_all(chunk.as_bytes()).unwrap();
    }
    drop(f);
    let list = peak_rss_kib(&env, &["list", "--format", "manifest"]);
    assert!(list < 30 * 1024, "list read too much: {list} KiB peak");
    let show = peak_rss_kib(&env, &["show", "huge"]);
    assert!(show < 40 * 1024, "show must stream the body: {show} KiB peak");
    let run = env.args(["list", "--format", "manifest"]).run().success();
    assert!(run.stdout.contains("[reference] huge.md"), "{}", run.stdout);
}

#[test]
fn a_100_mb_line_after_the_block_is_not_read_and_changes_nothing() {
    // Line 6 is 100 MB of NUL bytes: the block closed on line 5, so Claude Code
    // sees it whatever follows (SPEC §2.5 step 3).
    let env = sparse(
        "huge.md",
        "---\nname: Huge\ndescription: d\ntype: reference\n---\n",
        100 << 20,
    );
    let list = peak_rss_kib(&env, &["list", "--format", "manifest"]);
    assert!(list < 30 * 1024, "list read too much: {list} KiB peak");
    let run = env.args(["list", "--json"]).run().success();
    let doc = run.json();
    assert_eq!(doc["entries"][0]["frontmatter_status"], "ok", "{doc}");
    assert_eq!(doc["entries"][0]["description"], "d");
}

#[test]
fn a_100_mb_file_is_refused_by_edit_and_large_for_lint() {
    let env = sparse("huge.md", GOOD, 100 << 20);
    let lint_rss = peak_rss_kib(&env, &["lint"]);
    assert!(
        lint_rss < 60 * 1024,
        "lint reads at most 16 MiB of a file: {lint_rss} KiB"
    );
    let doc = env.args(["lint", "--json", "--rule", "ML122"]).run().json();
    assert_eq!(doc["findings"][0]["id"], "ML122");
    let env = sparse("huge.md", GOOD, 100 << 20);
    let run = env.env("EDITOR", "true").args(["edit", "huge"]).run().code(2);
    run.stderr_starts("memctl: file larger than 10 MiB");
}

#[test]
fn truncate_check_refuses_above_256_mib() {
    let env = sparse("MEMORY.md", "- [A](a.md) — a\n", (256 << 20) + 1);
    let run = env.args(["truncate-check"]).run().code(2);
    run.stderr_starts("memctl: index larger than 256 MiB");
}

#[test]
fn yaml_alias_bomb() {
    let mut y = String::from("---\nname: bomb\ndescription: boom\na: &a [x, x, x, x, x, x, x, x, x, x]\n");
    // Keys made of letters only, so the quote-retry rewrites every line (§2.4.4).
    let keys = ["a", "ba", "bb", "bc", "bd", "be", "bf"];
    for pair in keys.windows(2) {
        let (prev, key) = (pair[0], pair[1]);
        y.push_str(&format!(
            "{key}: &{key} [*{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}]\n"
        ));
    }
    y.push_str("type: user\n---\nbody\n");
    let doc = Env::new()
        .memory("bomb.md", &y)
        .args(["list", "--json"])
        .run()
        .success()
        .json();
    assert_eq!(
        doc["entries"][0]["frontmatter_status"], "retried",
        "the retry turns the aliased values into strings"
    );
    assert_eq!(doc["entries"][0]["type"], "user");
    let run = Env::new().memory("bomb.md", &y).args(["show", "bomb"]).run().success();
    assert!(
        run.stdout.contains(
            "  frontmatter:  retried — parsed only by the quote-retry after exceeding memctl's YAML limits (ML101)"
        ),
        "{}",
        run.stdout
    );
    let doc = Env::new()
        .memory("bomb.md", &y)
        .args(["lint", "--json", "--rule", "ML101"])
        .run()
        .code(1)
        .json();
    assert!(
        doc["findings"][0]["message"]
            .as_str()
            .unwrap()
            .contains("exceeds memctl's YAML limits")
    );
}

#[test]
fn deeply_nested_yaml() {
    let flow = format!(
        "---\ndescription: {}{}\ntype: user\n---\n",
        "[".repeat(500),
        "]".repeat(500)
    );
    let doc = Env::new()
        .memory("flow.md", &flow)
        .args(["list", "--json"])
        .run()
        .success()
        .json();
    assert_eq!(
        doc["entries"][0]["description"],
        format!("{}{}", "[".repeat(500), "]".repeat(500))
    );
    // 300 levels of block sequences on one line, inside the 30-line window.
    let block = format!("---\ndescription: d\ntype: user\nx:\n  {}y\n---\n", "- ".repeat(300));
    let doc = Env::new()
        .memory("block.md", &block)
        .args(["list", "--json"])
        .run()
        .success()
        .json();
    assert_eq!(doc["entries"][0]["frontmatter_status"], "failed");
    assert_eq!(
        doc["entries"][0]["type"],
        serde_json::Value::Null,
        "block nesting: no fields"
    );
    let doc = Env::new()
        .memory("block.md", &block)
        .args(["lint", "--json", "--rule", "ML101"])
        .run()
        .code(1)
        .json();
    assert!(
        doc["findings"][0]["message"]
            .as_str()
            .unwrap()
            .contains("exceeds memctl's YAML limits"),
        "{doc}"
    );
}

#[test]
fn dangling_symlink() {
    let mk = || {
        let env = Env::new().memory("ok.md", GOOD);
        std::os::unix::fs::symlink(env.root().join("gone"), env.dir().join("dangling.md")).unwrap();
        env
    };
    mk().args(["list", "--format", "paths"])
        .run()
        .success()
        .stderr("memctl: warning: dangling.md: dangling symlink; Claude Code drops it\n");
    let run = mk().args(["show", "dangling"]).run().code(2);
    run.stderr_starts("memctl: no memory named `dangling`");
    // History off: forget moves the link to the trash (SPEC §3.13).
    let env = mk().env("MEMCTL_HISTORY", "off");
    let d = env.dir();
    let _run = env.args(["forget", "--yes", "dangling"]).run().success();
    assert!(fs::symlink_metadata(d.join(".trash/20260310T120000Z/dangling.md.deleted")).is_ok());
    let doc = mk().args(["lint", "--json", "--rule", "ML131"]).run().code(1).json();
    assert_eq!(doc["findings"][0]["severity"], "error");
    let env = Env::new();
    let p = env.root().join("nowhere/MEMORY.md");
    let run = env.arg("truncate-check").arg(&p).run().code(2);
    run.stderr_has(": no such file or directory\n");
}

#[test]
fn symlink_escaping_the_dir() {
    let mk = || {
        let env = Env::new().file("outside/x.md", GOOD.as_bytes());
        std::os::unix::fs::symlink(env.root().join("outside/x.md"), env.dir().join("x.md")).unwrap();
        env
    };
    let run = mk().args(["list", "--format", "manifest"]).run().success();
    assert!(run.stdout.contains("[user] x.md"), "listed: Claude Code reads it");
    mk().args(["show", "x"]).run().success();
    let env = mk();
    let ed = crate::support::script(&env, "ed.sh", "echo x >> \"$1\"");
    let run = env.env("EDITOR", ed).args(["edit", "x"]).run().code(2);
    assert!(
        run.stderr
            .starts_with("memctl: write target resolves outside the memory dir")
    );
    let env = mk().env("MEMCTL_HISTORY", "off");
    let (d, root) = (env.dir(), env.root());
    let _run = env.args(["forget", "--yes", "x"]).run().success();
    assert!(
        fs::symlink_metadata(d.join(".trash/20260310T120000Z/x.md.deleted"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(
        fs::read_to_string(root.join("outside/x.md")).unwrap(),
        GOOD,
        "the target is untouched"
    );
    assert!(ids(mk()).contains(&"ML130".to_string()));
    let env = Env::new().file("outside/MEMORY.md", b"- [A](a.md) \xe2\x80\x94 a\n");
    std::os::unix::fs::symlink(env.root().join("outside/MEMORY.md"), env.dir().join("MEMORY.md")).unwrap();
    let run = env.args(["truncate-check"]).run().success();
    run.stderr_has("MEMORY.md is a symlink leaving the memory dir");
}

#[test]
fn directory_named_like_a_memory() {
    let mk = || {
        let env = Env::new().memory("ok.md", GOOD);
        fs::create_dir(env.dir().join("dir.md")).unwrap();
        env
    };
    mk().args(["list", "--format", "paths"])
        .run()
        .success()
        .stderr("memctl: warning: dir.md: is a directory, not a memory file; Claude Code drops it\n");
    mk().args(["show", "dir"]).run().code(2);
    let doc = mk().args(["lint", "--json", "--rule", "ML131"]).run().success().json();
    assert_eq!(doc["findings"][0]["severity"], "info");
    let env = Env::new();
    fs::create_dir(env.dir().join("MEMORY.md")).unwrap();
    let run = env.args(["truncate-check"]).run().code(2);
    run.stderr_starts("memctl: is a directory, not an index file");
}

#[test]
fn unreadable_file() {
    use std::os::unix::fs::PermissionsExt;
    let mk = || {
        let env = Env::new().memory("ok.md", GOOD).memory("secret.md", GOOD);
        fs::set_permissions(env.dir().join("secret.md"), fs::Permissions::from_mode(0o000)).unwrap();
        env
    };
    // As root (CI runs as root) every file is readable, so the EACCES behaviour
    // cannot be produced; only that assertion is skipped then.
    let root = fs::metadata("/proc/self")
        .map(|m| std::os::unix::fs::MetadataExt::uid(&m) == 0)
        .unwrap_or(false);
    let run = mk().args(["list", "--format", "paths"]).run().success();
    if !root {
        assert!(
            run.stderr.contains("secret.md: cannot be read (Permission denied"),
            "{}",
            run.stderr
        );
        let doc = mk().args(["lint", "--json", "--rule", "ML131"]).run().code(1).json();
        assert_eq!(doc["findings"][0]["severity"], "error");
    }
    let env = mk();
    let d = env.dir();
    let _kept = env.args(["list"]).run();
    assert_eq!(
        fs::metadata(d.join("secret.md")).unwrap().permissions().mode() & 0o777,
        0,
        "nothing is changed"
    );
}

#[test]
fn traversal_names() {
    let names = [
        "../x",
        "../escape.md",
        "/etc/passwd",
        "a/../../b.md",
        "x\u{1}y.md",
        "x\ny",
        "a\nb.md",
    ];
    for bad in names {
        let env = Env::new();
        let d = env.dir();
        let run = env.args(crate::support::add_file_args(bad)).run().code(2);
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
fn a_block_still_open_after_1_mib() {
    // The block closes on line 29, after more than 1 MiB.
    let text = format!(
        "---\ndescription: {}\ntype: user\n{}---\nbody\n",
        "x".repeat(200),
        format!("# {}\n", "y".repeat(50_000)).repeat(25)
    );
    let run = Env::new()
        .memory("big.md", &text)
        .args(["list", "--json"])
        .run()
        .success();
    let doc = run.json();
    assert_eq!(doc["entries"][0]["frontmatter_status"], "beyond-window");
    assert_eq!(
        doc["warnings"][0],
        "big.md: frontmatter block exceeds 1 MiB; memctl treats it as no frontmatter"
    );
    let d = Env::new()
        .memory("big.md", &text)
        .args(["lint", "--json", "--rule", "ML104"])
        .run()
        .code(1)
        .json();
    assert_eq!(
        d["findings"][0]["message"],
        "frontmatter block exceeds 1 MiB: memctl treats it as no frontmatter; shorten the block"
    );
    let run = Env::new().memory("big.md", &text).args(["show", "big"]).run().success();
    assert!(
        run.stdout
            .contains("frontmatter:  failed — exceeds memctl's YAML limits"),
        "a block this large exceeds the YAML limit: {}",
        &run.stdout[..run.stdout.len().min(300)]
    );
    run.stderr_has(
        "Claude Code's scan reads only the first 30 lines (64 KiB) of big.md and sees: frontmatter beyond-window",
    );
    // Closed on line 3, then 2.5 MB in 27 lines: seen.
    let small = format!(
        "---\ndescription: d\n---\n{}",
        format!("{}\n", "y".repeat(100_000)).repeat(25)
    );
    let doc = Env::new()
        .memory("ok.md", &small)
        .args(["list", "--json"])
        .run()
        .success()
        .json();
    assert_eq!(
        doc["entries"][0]["frontmatter_status"], "ok",
        "closed within 1 MiB: seen"
    );
}

#[test]
fn surrogate_pair_cut_at_the_limit() {
    let index = format!("{}😀 tail", "a".repeat(24_999));
    // The model reads the text without the lone surrogate (SPEC §2.7.3); `loaded`
    // shows U+FFFD in its place.
    let run = Env::new()
        .index(&index)
        .args(["truncate-check", "--print-loaded"])
        .run()
        .success();
    assert!(run.stdout.starts_with(&format!("{}\n\n> WARNING", "a".repeat(24_999))));
    let doc = Env::new().index(&index).args(["truncate-check", "--json"]).run().json();
    assert!(
        doc["loaded"]
            .as_str()
            .unwrap()
            .starts_with(&format!("{}\u{fffd}\n\n> WARNING", "a".repeat(24_999)))
    );
}

#[test]
fn empty_file() {
    let run = Env::new()
        .memory("empty.md", "")
        .args(["list", "--json"])
        .run()
        .success();
    assert_eq!(run.json()["entries"][0]["frontmatter_status"], "none");
    let run = Env::new()
        .memory("empty.md", "")
        .args(["show", "empty"])
        .run()
        .success();
    assert!(run.stdout.starts_with("empty.md\n"));
    assert!(ids(Env::new().memory("empty.md", "")).contains(&"ML103".to_string()));
    let doc = Env::new()
        .index("")
        .args(["truncate-check", "--json"])
        .run()
        .success()
        .json();
    assert_eq!(
        (
            doc["line_count"].as_u64(),
            doc["byte_count"].as_u64(),
            doc["loaded"].as_str()
        ),
        (Some(1), Some(0), Some(""))
    );
    let _ = read;
}

/// Inputs the property tests found to panic (fixed); kept as end-to-end checks.
#[test]
fn fuzz_regressions_do_not_crash() {
    let index = "- [x](aѨ)\n- item\n\té text\n<!-- note -->\n";
    let run = Env::new().index(index).args(["lint", "--json"]).run();
    assert_ne!(run.code, 2, "{}", run.stderr);
    let doc = Env::new()
        .index(index)
        .args(["truncate-check", "--json"])
        .run()
        .success()
        .json();
    assert_eq!(doc["line_count"], 3, "the comment line is stripped");
}

/// Run memctl with a generous deadline as a hang detector (never a timing
/// assertion): the exit code and stderr. stdin is closed.
fn run_within(env: &Env, args: &[&str]) -> (i32, String) {
    use std::io::Read;
    use std::process::Stdio;
    let mut child = env
        .command()
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    // A hang detector on the CPU time memctl itself used (from /proc, user + system),
    // not on the wall clock: a loaded machine slows a run down without adding to its
    // CPU time. A debug build needs well under a CPU second per 1 MB input here; a
    // quadratic parser needs hours.
    const CPU_BUDGET_TICKS: u64 = 60 * 100; // 60 s at USER_HZ = 100
    let stat = format!("/proc/{}/stat", child.id());
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if cpu_ticks(&stat).is_some_and(|t| t > CPU_BUDGET_TICKS) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("memctl {args:?} used over a minute of CPU: not linear");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    (status.code().unwrap_or(-1), reader.join().unwrap())
}

/// User + system CPU time of a running process, in clock ticks (`/proc/<pid>/stat`
/// fields 14 and 15, after the parenthesised command name).
fn cpu_ticks(stat: &str) -> Option<u64> {
    let text = fs::read_to_string(stat).ok()?;
    let rest = &text[text.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // `rest` starts at field 3 (state): utime is field 14, stime field 15.
    Some(fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?)
}

/// A FIFO or a `/dev/zero` symlink at `rel` (below the temp root).
fn special(env: &Env, rel: &str, fifo: bool) {
    let p = env.root().join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    let _ = fs::remove_file(&p);
    if fifo {
        let ok = std::process::Command::new("mkfifo").arg(&p).status().unwrap().success();
        assert!(ok, "mkfifo");
    } else {
        std::os::unix::fs::symlink("/dev/zero", &p).unwrap();
    }
}

/// The topic files in the memory dir (MEMORY.md aside).
fn md_files(env: &Env) -> usize {
    fs::read_dir(env.dir())
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.file_name() != "MEMORY.md" && e.file_name().to_string_lossy().ends_with(".md"))
        .count()
}

const ADD: [&str; 9] = [
    "add",
    "--name",
    "N",
    "--description",
    "d",
    "--type",
    "user",
    "--body",
    "b",
];

fn special_env() -> Env {
    let env = Env::new().memory("a.md", GOOD).index("- [Good](a.md) — d\n");
    let proj = env.root().join("proj");
    fs::create_dir_all(&proj).unwrap();
    crate::support::git(&proj, &["init", "-q"]);
    env
}

#[test]
fn special_settings_files_are_ignored_not_read() {
    for fifo in [true, false] {
        for rel in [
            "home/.claude/settings.json",
            "proj/.claude/settings.json",
            "proj/.claude/settings.local.json",
        ] {
            for args in [&["path"][..], &["list"], &["lint", "--project", "proj"], &ADD] {
                let env = special_env();
                special(&env, rel, fifo);
                let (code, err) = run_within(&env, args);
                assert!(code == 0 || code == 1, "{rel} {args:?}: {code} {err}");
            }
        }
    }
}

#[test]
fn a_special_dream_lock_refuses_writes_and_is_unreadable() {
    for fifo in [true, false] {
        let env = special_env();
        special(&env, "mem/.consolidate-lock", fifo);
        let (code, err) = run_within(&env, &ADD);
        assert_eq!(code, 2, "{err}");
        assert!(err.starts_with("memctl: cannot read the auto-dream lock"), "{err}");
        assert_eq!(md_files(&env), 1, "a refused add writes nothing");
        let (code, err) = run_within(&env, &["lock", "status"]);
        assert_eq!(code, 0, "{err}");
        let (_, err) = run_within(&env, &["lint"]);
        assert!(err.contains("in "), "{err}");
        let (code, err) = run_within(&env, &["dream", "--dry-run"]);
        assert!(code == 0 || code == 1, "{err}");
    }
}

#[test]
fn a_special_write_lock_is_refused() {
    for fifo in [true, false] {
        let env = special_env();
        special(&env, "mem/.memctl.lock", fifo);
        let (code, err) = run_within(&env, &ADD);
        assert_eq!(code, 2, "{err}");
        assert!(err.starts_with("memctl: the write lock is not a regular file"), "{err}");
        assert_eq!(md_files(&env), 1, "a refused add writes nothing");
    }
}

#[test]
fn a_special_index_is_never_read() {
    for fifo in [true, false] {
        for args in [
            &["list"][..],
            &["show", "a"],
            &["dream", "--dry-run"],
            &["truncate-check"],
        ] {
            let env = special_env();
            special(&env, "mem/MEMORY.md", fifo);
            let (code, err) = run_within(&env, args);
            assert!(code <= 2, "{args:?}: {err}");
        }
        let env = special_env();
        special(&env, "mem/MEMORY.md", fifo);
        let (code, err) = run_within(&env, &["lint"]);
        assert_eq!(code, 1, "{err}");
        let env = special_env();
        special(&env, "mem/MEMORY.md", fifo);
        let (code, err) = run_within(&env, &ADD);
        assert_eq!(code, 2, "{err}");
        // A FIFO is not a regular file; a link to /dev/zero also leaves the dir.
        assert!(
            err.contains("not a regular file") || err.contains("outside the memory dir"),
            "{err}"
        );
        let env = special_env();
        special(&env, "mem/MEMORY.md", fifo);
        let (code, err) = run_within(&env, &["forget", "a", "--yes"]);
        assert_eq!(code, 2, "{err}");
    }
}

#[test]
fn a_special_claude_md_is_skipped_with_a_note() {
    for fifo in [true, false] {
        let env = special_env();
        special(&env, "proj/CLAUDE.md", fifo);
        let (_, err) = run_within(&env, &["lint", "--project", "proj"]);
        assert!(err.contains("ML119 does not compare with"), "{err}");
        assert!(err.contains("not a regular file"), "{err}");
        let env = special_env();
        special(&env, "proj/CLAUDE.md", fifo);
        let (code, err) = run_within(&env, &["dream", "--dry-run", "--project", "proj"]);
        assert!(code == 0 || code == 1, "{err}");
    }
}

#[test]
fn a_special_topic_file_is_unreadable_in_every_command() {
    // Works as root too (unlike chmod 000): the same path as an unreadable file.
    for fifo in [true, false] {
        let env = special_env();
        special(&env, "mem/f.md", fifo);
        let (code, err) = run_within(&env, &["list"]);
        assert_eq!(code, 0);
        assert!(err.contains("f.md: cannot be read ("), "{err}");
        // `forget` moves a symlink without reading it (SPEC §5), so only the FIFO.
        let forget: &[&str] = if fifo {
            &["forget", "f", "--yes"]
        } else {
            &["show", "f"]
        };
        for args in [&["show", "f"][..], forget] {
            let (code, err) = run_within(&env, args);
            assert_eq!(code, 2, "{err}");
            assert!(err.starts_with("memctl: cannot read "), "{args:?}: {err}");
        }
        let doc = special_env();
        special(&doc, "mem/f.md", fifo);
        let json = doc.args(["lint", "--json", "--rule", "ML131"]).run().code(1).json();
        assert_eq!(json["findings"][0]["severity"], "error");
    }
}

#[test]
fn an_unreadable_index_is_a_lint_error() {
    // A directory or a dangling symlink as MEMORY.md behaves like an unreadable one
    // and works as root (chmod 000 does not deny root).
    let env = Env::new().memory("a.md", GOOD);
    fs::create_dir(env.dir().join("MEMORY.md")).unwrap();
    let doc = env.args(["lint", "--json"]).run().code(1).json();
    let f = doc["findings"].as_array().unwrap();
    // SPEC §2.7 step 1: not a regular file, so Claude Code loads nothing (ML216).
    assert!(
        f.iter().any(|f| f["id"] == "ML216" && f["severity"] == "error"),
        "{doc}"
    );
    let env = Env::new().memory("a.md", GOOD);
    std::os::unix::fs::symlink("nowhere.md", env.dir().join("MEMORY.md")).unwrap();
    let run = env.args(["lint"]).run().code(1);
    assert!(run.stdout.contains("ML131"), "{}", run.stdout);
}

#[test]
fn whitespace_only_editor_variables_are_unset() {
    let env = Env::new().memory("a.md", GOOD);
    let bin = env.root().join("bin");
    fs::create_dir_all(&bin).unwrap();
    let vi = crate::support::script(&env, "bin/vi", "exit 0");
    assert!(vi.exists());
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let run = env
        .env("VISUAL", "   ")
        .env("EDITOR", " \t ")
        .env("PATH", path)
        .args(["edit", "a"])
        .run();
    // Unset, so no editor of memctl's choosing without a terminal (not a
    // "cannot be split" or "not an executable" error about the blank value).
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("neither $VISUAL nor $EDITOR is set"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_closed_stderr_changes_nothing() {
    use std::process::Stdio;
    let spawn = |env: &Env, args: &[&str]| {
        let mut child = env
            .command()
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stderr.take());
        child.wait().unwrap().code()
    };
    let env = Env::new().index("");
    assert_eq!(spawn(&env, &ADD), Some(0));
    assert_eq!(md_files(&env), 1, "add wrote its file");
    assert!(read(&env.dir(), "MEMORY.md").contains("[N]"), "and its index line");
    let env = Env::new().memory("a.md", GOOD).index("");
    // The summary and notes go to the closed stderr; fixes are on disk, exit as usual.
    let code = spawn(&env, &["lint", "--fix"]);
    assert!(code == Some(0) || code == Some(1), "{code:?}");
    assert!(read(&env.dir(), "MEMORY.md").contains("a.md"));
}

/// Issue 13 point 11: a 1 MB line of link-like syntax in `MEMORY.md`, in a topic
/// body and in a frontmatter value; every parser on it is linear, so each command
/// ends well within the hang detector's deadline (the quadratic parser took
/// minutes).
#[test]
fn a_1_mb_line_of_link_syntax_is_read_in_linear_time() {
    const MB: usize = 1 << 20;
    for pattern in [
        "[",
        "[[",
        "[](",
        "[a](",
        "- [",
        "<!--",
        "- [a](b.md)",
        "`` ` ",
        "a/b/`c",
    ] {
        let line: String = pattern.repeat(MB / pattern.len() + 1)[..MB].to_string();
        let topic = format!("---\nname: B\ndescription: \"{line}\"\ntype: user\n---\n{line}\n");
        let env = Env::new()
            .memory("a.md", GOOD)
            .memory("b.md", &topic)
            .index(&format!("- [Good](a.md) — d\n- [B](b.md) — b\n{line}\n"));
        for args in [
            &["list"][..],
            &["lint"],
            &["show", "b"],
            &["dream"],
            &["forget", "--dry-run", "b"],
        ] {
            let (code, stderr) = run_within(&env, args);
            assert!(
                (0..=2).contains(&code) && !stderr.contains("panicked"),
                "{pattern:?} {args:?}: exit {code}: {stderr}"
            );
        }
        assert!(
            read(&env.dir(), "MEMORY.md").ends_with(&format!("{line}\n")),
            "nothing changed"
        );
    }
}

#[test]
fn a_fifo_given_to_truncate_check_is_refused_not_read() {
    let env = Env::new();
    let fifo = env.root().join("fifo.md");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let mut cmd = env.command();
    cmd.args(["truncate-check"])
        .arg(&fifo)
        .stdin(std::process::Stdio::null());
    let child = cmd
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let (out, opened) = crate::support::wait_never_opening(child, &fifo);
    assert!(!opened, "truncate-check opened the FIFO (it would block on it)");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("a FIFO, not a regular file") && err.contains("or - to read standard input"),
        "{err}"
    );
}
