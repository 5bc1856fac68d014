//! `memctl config` (SPEC §7.5): show, set, unset through the one settings writer.

use std::fs;

use crate::support::*;

fn on(env: &Env, args: &[&str]) -> (String, String, i32) {
    let out = env.command().args(args).output().expect("memctl runs");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

fn project() -> Env {
    let env = Env::new().resolved();
    let p = env.root().join("proj");
    fs::create_dir_all(p.join(".git")).unwrap();
    env.cwd(p)
}

#[test]
fn set_keeps_other_keys_and_their_order_and_shows_the_source() {
    let env = project();
    let user = env.home().join(".claude/settings.json");
    fs::create_dir_all(user.parent().unwrap()).unwrap();
    fs::write(&user, "{\n  \"theme\": \"dark\",\n  \"hooks\": {}\n}\n").unwrap();
    let (out, err, code) = on(&env, &["config", "set", "autoDreamEnabled", "false"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.ends_with(&format!(
            "set autoDreamEnabled = false in {0} (your original file is kept in {0}.memctl-backup)\n",
            user.display()
        )),
        "{out}"
    );
    assert_eq!(
        fs::read_to_string(&user).unwrap(),
        "{\n  \"theme\": \"dark\",\n  \"hooks\": {},\n  \"autoDreamEnabled\": false\n}\n"
    );
    let (json, _, _) = on(&env, &["--json", "config"]);
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(doc["settings"][1]["key"], "autoDreamEnabled");
    assert_eq!(doc["settings"][1]["value"], false);
    assert_eq!(doc["settings"][1]["file"], user.display().to_string());
    // Unset gives the file back without the key; a second unset changes nothing.
    let (_, _, code) = on(&env, &["config", "unset", "autoDreamEnabled"]);
    assert_eq!(code, 0);
    assert_eq!(
        fs::read_to_string(&user).unwrap(),
        "{\n  \"theme\": \"dark\",\n  \"hooks\": {}\n}\n"
    );
    let (out, _, _) = on(&env, &["config", "unset", "autoDreamEnabled"]);
    assert!(out.ends_with("already says so: nothing to do\n"), "{out}");
}

#[test]
fn memory_directory_is_validated_and_never_written_to_the_project() {
    let env = project();
    let (_, err, code) = on(&env, &["config", "set", "autoMemoryDirectory", "/"]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with("memctl: Claude Code would reject this memory dir"),
        "{err}"
    );
    let (_, err, code) = on(
        &env,
        &["config", "set", "autoMemoryDirectory", "~/m", "--scope", "project"],
    );
    assert_eq!(code, 2);
    assert!(
        err.contains("a checked-in file would redirect every user's memory: Claude Code 2.1.332 honours it"),
        "{err}"
    );
    assert!(!env.root().join("proj/.claude/settings.json").exists());
    let target = env.root().join("elsewhere");
    let (_, err, code) = on(
        &env,
        &[
            "config",
            "set",
            "autoMemoryDirectory",
            target.to_str().unwrap(),
            "--scope",
            "local",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let (path, _, _) = on(&env, &["path"]);
    assert_eq!(path.trim_end(), format!("{}/", target.display()));
}

#[test]
fn unknown_keys_and_values_are_usage_errors_and_dry_run_writes_nothing() {
    let env = project();
    let (_, err, code) = on(&env, &["config", "set", "automemoryenabled", "false"]);
    assert_eq!(
        (code, err.as_str()),
        (
            2,
            "memctl: not a memory setting: automemoryenabled\nhint: did you mean autoMemoryEnabled?\n"
        )
    );
    let (_, _, code) = on(&env, &["config", "set", "autoMemoryEnabled", "no"]);
    assert_eq!(code, 2);
    let (out, _, code) = on(&env, &["config", "set", "autoMemoryEnabled", "false", "--dry-run"]);
    assert_eq!(code, 0);
    assert!(out.contains("+  \"autoMemoryEnabled\": false"), "{out}");
    assert!(!env.home().join(".claude/settings.json").exists());
}

#[test]
fn a_lever_that_decides_otherwise_is_named() {
    let env = project().env("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "1");
    let (_, err, code) = on(&env, &["config", "set", "autoMemoryEnabled", "true"]);
    assert_eq!(code, 0);
    assert!(
        err.contains("memctl: warning: autoMemoryEnabled is still false:"),
        "{err}"
    );
}

/// User settings and local settings both set the keys; local settings decide.
fn user_and_local() -> Env {
    let env = project();
    let user = env.home().join(".claude/settings.json");
    fs::create_dir_all(user.parent().unwrap()).unwrap();
    fs::write(
        &user,
        "{\"autoDreamEnabled\": true, \"autoMemoryDirectory\": \"~/usr\"}\n",
    )
    .unwrap();
    let local = env.root().join("proj/.claude/settings.local.json");
    fs::create_dir_all(local.parent().unwrap()).unwrap();
    fs::write(
        &local,
        "{\"autoDreamEnabled\": false, \"autoMemoryDirectory\": \"~/loc\"}\n",
    )
    .unwrap();
    env
}

#[test]
fn json_names_the_file_that_decides_and_the_levers_themselves() {
    // issue 32 point 5, SPEC §7.5 and §3.14.
    let env = user_and_local().env("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "0");
    let local = env.root().join("proj/.claude/settings.local.json");
    let (json, err, code) = on(&env, &["--json", "config"]);
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(doc["settings"][1]["key"], "autoDreamEnabled");
    assert_eq!(doc["settings"][1]["value"], false);
    assert_eq!(doc["settings"][1]["file"], local.display().to_string());
    assert_eq!(doc["settings"][2]["key"], "autoMemoryDirectory");
    assert_eq!(doc["settings"][2]["value"], format!("{}/loc/", env.home().display()));
    assert_eq!(doc["settings"][2]["file"], local.display().to_string());
    let names: Vec<&str> = doc["levers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "CLAUDE_CODE_SAFE_MODE",
            "CLAUDE_CODE_DISABLE_AUTO_MEMORY",
            "CLAUDE_CODE_SIMPLE",
            "permissions.blockReadsOutsideWorkingDirectories",
            "CLAUDE_CODE_REMOTE",
            "autoMemoryEnabled",
            "default",
        ]
    );
    assert_eq!(doc["levers"][1]["value"], "0");
    assert_eq!(doc["levers"][1]["effect"], "decides");
}

#[test]
fn setting_the_user_memory_dir_warns_when_local_settings_or_cowork_decide() {
    // issue 32 point 6, SPEC §7.5.
    let env = user_and_local();
    let local = env.root().join("proj/.claude/settings.local.json");
    let (_, err, code) = on(&env, &["config", "set", "autoMemoryDirectory", "~/m3"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        err,
        format!(
            "memctl: warning: the memory dir is still {}/loc/: {} (local settings) decides over the file just written\n",
            env.home().display(),
            local.display()
        )
    );
    let cw = env.root().join("cw");
    let env = project().env("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", &cw);
    let (_, err, code) = on(&env, &["config", "set", "autoMemoryDirectory", "~/m3"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        err,
        format!(
            "memctl: warning: the memory dir is still {}/: env CLAUDE_COWORK_MEMORY_PATH_OVERRIDE decides over the file just written\n",
            cw.display()
        )
    );
}

#[test]
fn a_moved_memory_dir_names_projects_merge() {
    // issue 32 point 6, SPEC §7.5: how to move the memories is `memctl projects merge`.
    let env = project();
    let (old, _, _) = on(&env, &["path"]);
    let old = old.trim_end().to_string();
    fs::create_dir_all(&old).unwrap();
    fs::write(
        format!("{old}/a.md"),
        "---\nname: a\ndescription: a\ntype: user\n---\nbody\n",
    )
    .unwrap();
    let (_, err, code) = on(&env, &["config", "set", "autoMemoryDirectory", "~/m3"]);
    assert_eq!(code, 0, "{err}");
    let new = format!("{}/m3/", env.home().display());
    assert_eq!(
        err,
        format!(
            "memctl: note: the memory dir moved to {new}; the old dir {old} still holds 1 memory: move it with `memctl projects merge {old} {new}`\n"
        )
    );
}
