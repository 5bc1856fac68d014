//! Writing Claude Code settings files safely (issue 29 points 3, 8, 11, 19): a
//! file read mid-rewrite is never taken as `{}`, memctl's own edits are
//! serialised, a project's settings symlink never leads out of the project, the
//! memory dir is never the home or Claude config dir, non-UTF-8 bytes survive.

use std::fs;
use std::io::Write;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use crate::support::Env;
use crate::torn::{InPlaceWriter, run_on_test_clock};

const SETTINGS: &str =
    "{\n  \"permissions\": {\n    \"deny\": [\n      \"Bash(rm:*)\"\n    ]\n  },\n  \"model\": \"opus\"\n}\n";

fn user_settings(env: &Env) -> PathBuf {
    let p = env.home().join(".claude/settings.json");
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    p
}

fn project() -> (Env, PathBuf) {
    let env = Env::new().resolved();
    let p = env.root().join("proj");
    fs::create_dir_all(p.join(".git")).unwrap();
    fs::create_dir_all(p.join(".claude")).unwrap();
    (env.cwd(&p), p)
}

/// Point 3: `hook install` while another program rewrites settings.json in place
/// (truncated, then written at memctl's first pause) keeps the user's keys, and
/// the backup is not empty.
#[test]
fn hook_install_during_a_settings_rewrite_keeps_every_key() {
    let env = Env::new();
    let f = user_settings(&env);
    fs::write(&f, SETTINGS).unwrap();
    let writer = Arc::new(Mutex::new(InPlaceWriter::truncate(&f, SETTINGS)));
    let (code, stderr, _) = {
        let writer = Arc::clone(&writer);
        run_on_test_clock(
            &env,
            &["hook", "install"],
            Box::new(move |_| writer.lock().unwrap().write()),
        )
    };
    writer.lock().unwrap().write();
    let text = fs::read_to_string(&f).unwrap();
    assert!(
        text.contains("Bash(rm:*)") && text.contains("\"model\": \"opus\""),
        "exit {code}, {stderr}\nsettings now:\n{text}"
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(text.contains("memctl hook"), "{text}");
    let backup = f.with_file_name("settings.json.memctl-backup");
    assert_eq!(fs::read_to_string(backup).unwrap(), SETTINGS);
}

/// Point 3: a settings file another program keeps rewriting (empty or cut at
/// every look) is a conflict after the deadline, never `{}`: nothing is written,
/// no backup.
#[test]
fn a_settings_file_that_keeps_being_rewritten_is_a_conflict() {
    let env = Env::new();
    let f = user_settings(&env);
    fs::write(&f, "").unwrap();
    let g = f.clone();
    let mut n = 0usize;
    let (code, stderr, pauses) = run_on_test_clock(
        &env,
        &["config", "set", "autoDreamEnabled", "false"],
        Box::new(move |_| {
            // Truncate and write a first piece, in place, at every pause.
            n += 1;
            let mut h = fs::File::create(&g).unwrap();
            h.write_all(&SETTINGS.as_bytes()[..n % 20]).unwrap();
        }),
    );
    assert_eq!(code, 2, "pauses {pauses:?}: {stderr}");
    assert!(stderr.contains("being rewritten"), "{stderr}");
    assert!(pauses.last().is_some_and(|&ms| ms >= 4_900), "{pauses:?}");
    assert!(!fs::read_to_string(&f).unwrap().contains("autoDreamEnabled"));
    assert!(!f.with_file_name("settings.json.memctl-backup").exists());
}

/// Point 3: memctl's own settings edits are serialised by a lock in its state dir
/// (never in the user's repository). Here another memctl holds it while it edits:
/// the second waits, then edits the other's result, and neither edit is lost.
#[test]
fn settings_edits_are_serialised_by_a_lock_in_the_state_dir() {
    let env = Env::new();
    let f = user_settings(&env);
    fs::write(&f, SETTINGS).unwrap();
    let out = env
        .command()
        .args(["config", "set", "autoMemoryEnabled", "true"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let locks = env.root().join("state/memctl/settings-locks");
    let lock: Vec<PathBuf> = fs::read_dir(&locks).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(lock.len(), 1, "{lock:?}");
    assert!(!env.home().join(".claude").read_dir().unwrap().any(|e| {
        let n = e.unwrap().file_name();
        n.to_string_lossy().contains("lock")
    }));
    // "The other memctl": holds the lock, has read the file, writes its edit later.
    let held = fs::File::options().write(true).open(&lock[0]).unwrap();
    held.try_lock().unwrap();
    let read_before = fs::read_to_string(&f).unwrap();
    let other = {
        let f = f.clone();
        move || {
            let edited = read_before.replacen("{\n", "{\n  \"theme\": \"dark\",\n", 1);
            let tmp = f.with_extension("other-tmp");
            fs::write(&tmp, edited).unwrap();
            fs::rename(&tmp, &f).unwrap();
        }
    };
    let other = Arc::new(Mutex::new(Some((other, held))));
    let (code, stderr, _) = {
        let other = Arc::clone(&other);
        run_on_test_clock(
            &env,
            &["config", "set", "autoDreamEnabled", "false"],
            Box::new(move |_| {
                if let Some((edit, held)) = other.lock().unwrap().take() {
                    edit();
                    drop(held);
                }
            }),
        )
    };
    // Had memctl not waited, the other memctl finishes now.
    if let Some((edit, held)) = other.lock().unwrap().take() {
        edit();
        drop(held);
    }
    assert_eq!(code, 0, "{stderr}");
    let text = fs::read_to_string(&f).unwrap();
    assert!(
        text.contains("\"theme\": \"dark\"") && text.contains("\"autoDreamEnabled\": false"),
        "an edit was lost:\n{text}"
    );
}

/// Point 8: a project's settings symlink that leaves the project is refused by
/// `hook install` and `config set`, and nothing is written there.
#[test]
fn a_settings_symlink_leaving_the_project_is_refused() {
    let (env, proj) = project();
    let victim = env.root().join("victim.json");
    fs::write(&victim, "{\"mine\": true}\n").unwrap();
    std::os::unix::fs::symlink("../../victim.json", proj.join(".claude/settings.local.json")).unwrap();
    std::os::unix::fs::symlink("../../victim.json", proj.join(".claude/settings.json")).unwrap();
    for args in [
        &["hook", "install", "--scope", "local"][..],
        &["hook", "install", "--scope", "project"][..],
        &["config", "set", "autoDreamEnabled", "false", "--scope", "local"][..],
        &["config", "set", "autoDreamEnabled", "false", "--scope", "project"][..],
    ] {
        let out = env.command().args(args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("outside the project"), "{args:?}: {stderr}");
        assert_eq!(fs::read_to_string(&victim).unwrap(), "{\"mine\": true}\n", "{args:?}");
        assert!(!env.root().join("victim.json.memctl-backup").exists(), "{args:?}");
    }
    // A symlink inside the project is still written through.
    fs::remove_file(proj.join(".claude/settings.local.json")).unwrap();
    fs::write(proj.join("shared.json"), "{}\n").unwrap();
    std::os::unix::fs::symlink("../shared.json", proj.join(".claude/settings.local.json")).unwrap();
    let out = env
        .command()
        .args(["hook", "install", "--scope", "local"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(fs::read_to_string(proj.join("shared.json")).unwrap().contains("memctl"));
}

/// Point 11: the home dir (as `~/` or as an absolute path), the Claude config dir
/// and its parents are refused as the memory dir; a dir holding keys is warned about.
#[test]
fn the_memory_dir_is_never_home_or_the_claude_config_dir() {
    let (env, _) = project();
    let home = env.home();
    fs::create_dir_all(home.join(".claude")).unwrap();
    let ssh = home.join(".ssh");
    fs::create_dir_all(&ssh).unwrap();
    fs::write(ssh.join("authorized_keys"), "ssh-ed25519 AAAA\n").unwrap();
    let user = home.join(".claude/settings.json");
    for v in [
        home.display().to_string(),
        format!("{}/", home.display()),
        home.join(".claude").display().to_string(),
        "~/.claude".to_string(),
        env.root().display().to_string(),
    ] {
        let out = env
            .command()
            .args(["config", "set", "autoMemoryDirectory", &v])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{v}: {stderr}");
        assert!(stderr.contains("the memory dir would be"), "{v}: {stderr}");
        assert!(!user.exists(), "{v}");
    }
    let out = env
        .command()
        .args(["config", "set", "autoMemoryDirectory", "~/.ssh"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("authorized_keys") && stderr.contains("not memories"),
        "{stderr}"
    );
    let out = env
        .command()
        .args(["config", "set", "autoMemoryDirectory", "~/notes/memory"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(!String::from_utf8_lossy(&out.stderr).contains("not memories"));
}

/// Point 19: a value memctl does not touch keeps its bytes, UTF-8 or not.
#[test]
fn rewriting_settings_keeps_non_utf8_bytes() {
    let env = Env::new();
    let f = user_settings(&env);
    let mut before = b"{\n  \"statusLine\": \"caf".to_vec();
    before.push(0xe9);
    before.extend_from_slice(b" \xff\xfe\",\n  \"model\": \"opus\"\n}\n");
    fs::File::create(&f).unwrap().write_all(&before).unwrap();
    let out = env
        .command()
        .args(["config", "set", "autoDreamEnabled", "false"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let after = fs::read(&f).unwrap();
    let want = b"\"statusLine\": \"caf\xe9 \xff\xfe\"";
    assert!(
        after.windows(want.len()).any(|w| w == want),
        "{}",
        String::from_utf8_lossy(&after)
    );
    assert!(!after.windows(3).any(|w| w == "\u{fffd}".as_bytes()), "U+FFFD written");
    assert_eq!(
        fs::read(f.with_file_name("settings.json.memctl-backup")).unwrap(),
        before
    );
}

/// A hand-formatted settings file: one-line arrays and objects, a blank line,
/// aligned values (issue 34 point 8).
const HAND: &str = "{\n  \"permissions\": {\"allow\": [\"Bash(ls)\", \"Read\"], \"deny\": [\"Bash(rm:*)\"]},\n\n  \"model\":   \"opus\",\n  \"env\": { \"FOO\": \"1\" }\n}\n";

/// Issue 34 point 8: `hook install` edits the text in place (every line of the
/// user's file stays as it was, the new member indented like its neighbours),
/// `uninstall` gives back the same bytes, the first backup keeps the user's
/// original and the output says where it is.
#[test]
fn hook_install_then_uninstall_gives_back_a_hand_formatted_file_byte_for_byte() {
    let env = Env::new();
    let f = user_settings(&env);
    fs::write(&f, HAND).unwrap();
    let backup = f.with_file_name("settings.json.memctl-backup");
    let out = env.command().args(["hook", "install"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(&format!("(your original file is kept in {})", backup.display())),
        "{stdout}"
    );
    let installed = fs::read_to_string(&f).unwrap();
    let head = "{\n  \"permissions\": {\"allow\": [\"Bash(ls)\", \"Read\"], \"deny\": [\"Bash(rm:*)\"]},\n\n  \"model\":   \"opus\",\n  \"env\": { \"FOO\": \"1\" },\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\n        \"matcher\": \"Write|Edit\",\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": ";
    assert!(installed.starts_with(head), "{installed}");
    assert!(installed.ends_with("\n    ]\n  }\n}\n"), "{installed}");
    assert_eq!(fs::read_to_string(&backup).unwrap(), HAND);

    // A later change keeps the first backup (the user's original).
    let out = env
        .command()
        .args(["config", "set", "autoDreamEnabled", "false"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(&format!("(your original file is kept in {})", backup.display())),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(fs::read_to_string(&backup).unwrap(), HAND);
    let out = env
        .command()
        .args(["config", "unset", "autoDreamEnabled"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(fs::read_to_string(&f).unwrap(), installed);

    let out = env.command().args(["hook", "uninstall"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(fs::read_to_string(&f).unwrap(), HAND);
    assert_eq!(fs::read_to_string(&backup).unwrap(), HAND);
}

/// Issue 34 point 8: `config set` changes only its member: a new key is added
/// in the style of its neighbours, an existing one is changed where it stands,
/// and `unset` takes it out with its comma.
#[test]
fn config_set_edits_only_its_member_byte_for_byte() {
    let env = Env::new();
    let f = user_settings(&env);
    fs::write(&f, HAND).unwrap();
    let run = |args: &[&str]| {
        let out = env.command().args(args).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    };
    run(&["config", "set", "autoMemoryEnabled", "false"]);
    let added = "{\n  \"permissions\": {\"allow\": [\"Bash(ls)\", \"Read\"], \"deny\": [\"Bash(rm:*)\"]},\n\n  \"model\":   \"opus\",\n  \"env\": { \"FOO\": \"1\" },\n  \"autoMemoryEnabled\": false\n}\n";
    assert_eq!(fs::read_to_string(&f).unwrap(), added);
    run(&["config", "set", "autoMemoryEnabled", "true"]);
    assert_eq!(fs::read_to_string(&f).unwrap(), added.replace("false", "true"));
    run(&["config", "unset", "autoMemoryEnabled"]);
    assert_eq!(fs::read_to_string(&f).unwrap(), HAND);
    assert_eq!(
        fs::read_to_string(f.with_file_name("settings.json.memctl-backup")).unwrap(),
        HAND
    );
}
