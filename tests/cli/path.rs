//! `memctl path` (SPEC §3.3) and resolution end to end (§2.2, Appendix A.4), on
//! real git checkouts, worktrees and bare repositories made in a temp dir.

use std::fs;
use std::path::{Path, PathBuf};

use memctl::paths::sanitize::sanitize;

use crate::support::{Env, git};

fn key(p: &Path) -> String {
    sanitize(&p.to_string_lossy()).key
}

/// `<root>/src/app` (a checkout with one commit) and its worktree `<root>/src/app-wt`.
fn repo_with_worktree(env: &Env) -> (PathBuf, PathBuf) {
    let app = env.root().join("src/app");
    fs::create_dir_all(&app).unwrap();
    git(&app, &["init", "-q"]);
    git(&app, &["commit", "-q", "--allow-empty", "-m", "init"]);
    git(&app, &["worktree", "add", "-q", "../app-wt"]);
    (app, env.root().join("src/app-wt"))
}

fn resolved_path(env: Env) -> String {
    env.resolved().arg("path").run().success().stdout
}

#[test]
fn worktrees_share_the_main_checkouts_memory() {
    let env = Env::new();
    let (app, wt) = repo_with_worktree(&env);
    let home = env.home();
    let run = env
        .resolved()
        .arg("--project")
        .arg(&wt)
        .args(["path", "--json"])
        .run()
        .success();
    let doc = run.json();
    assert_eq!(
        doc["memory_dir"],
        format!("{}/.claude/projects/{}/memory/", home.display(), key(&app))
    );
    assert_eq!(
        doc["transcripts_dir"],
        format!("{}/.claude/projects/{}", home.display(), key(&wt))
    );
    assert_eq!(doc["canonical_root"], app.to_string_lossy().as_ref());
    assert_eq!(doc["git_root"], wt.to_string_lossy().as_ref());
    assert_eq!(doc["canonical_reason"], "worktree");
    assert_eq!(doc["source"], "default");
    assert_eq!(doc["exists"], false);
    assert_eq!(doc["hash_variant"], serde_json::Value::Null);
    assert_eq!(doc["enabled"]["value"], true);
    assert_eq!(doc["enabled"]["lever"], "default");
    assert_eq!(
        doc["auto_dream"],
        serde_json::json!({"value": null, "lever": "flag absent", "flag": {"source": "absent", "enabled": null, "available": null, "min_hours": null, "min_sessions": null}, "setting": null})
    );
}

#[test]
fn plain_path_prints_the_dir_with_one_trailing_separator() {
    let env = Env::new();
    let (app, wt) = repo_with_worktree(&env);
    let home = env.home();
    let out = resolved_path(env.cwd(wt.join("")));
    assert_eq!(
        out,
        format!("{}/.claude/projects/{}/memory/\n", home.display(), key(&app))
    );
}

#[test]
fn subdirectories_use_the_repository_key_for_memory_and_their_own_for_transcripts() {
    let env = Env::new();
    let (app, _) = repo_with_worktree(&env);
    let sub = app.join("sub/dir");
    fs::create_dir_all(&sub).unwrap();
    let home = env.home();
    let doc = env
        .resolved()
        .arg("--project")
        .arg(&sub)
        .args(["path", "--json"])
        .run()
        .success()
        .json();
    assert_eq!(
        doc["memory_dir"],
        format!("{}/.claude/projects/{}/memory/", home.display(), key(&app))
    );
    assert_eq!(
        doc["transcripts_dir"],
        format!("{}/.claude/projects/{}", home.display(), key(&sub))
    );
    assert_eq!(doc["canonical_reason"], "checkout");
}

#[test]
fn bare_repository_worktrees_are_keyed_by_the_bare_dir() {
    let env = Env::new();
    let (app, _) = repo_with_worktree(&env);
    let root = env.root();
    git(&root, &["clone", "-q", "--bare", &app.to_string_lossy(), "bare.git"]);
    git(&root.join("bare.git"), &["worktree", "add", "-q", "../bwt"]);
    let doc = env
        .resolved()
        .arg("--project")
        .arg(root.join("bwt"))
        .args(["path", "--json"])
        .run()
        .success()
        .json();
    assert_eq!(doc["key"], key(&root.join("bare.git")));
    assert_eq!(doc["canonical_reason"], "bare");
}

#[test]
fn forged_and_submodule_git_files_are_keyed_by_their_own_dir() {
    let env = Env::new();
    let (app, _) = repo_with_worktree(&env);
    let forged = env.root().join("forged");
    fs::create_dir_all(&forged).unwrap();
    fs::write(
        forged.join(".git"),
        format!("gitdir: {}/.git/worktrees/app-wt\n", app.display()),
    )
    .unwrap();
    let doc = env
        .resolved()
        .arg("--project")
        .arg(&forged)
        .args(["path", "--json"])
        .run()
        .success()
        .json();
    assert_eq!(doc["key"], key(&forged));
    assert_eq!(doc["canonical_reason"], "rejected");
    let env = Env::new();
    let sub = env.root().join("submod");
    fs::create_dir_all(env.root().join("modules/x")).unwrap();
    fs::create_dir_all(&sub).unwrap();
    fs::write(sub.join(".git"), "gitdir: ../modules/x\n").unwrap();
    let doc = env
        .resolved()
        .arg("--project")
        .arg(&sub)
        .args(["path", "--json"])
        .run()
        .success()
        .json();
    assert_eq!(doc["key"], key(&sub));
    assert_eq!(doc["canonical_reason"], "checkout");
}

#[test]
fn config_dir_and_remote_memory_dir_move_the_memory() {
    let env = Env::new();
    let proj = env.root().join("proj");
    fs::create_dir_all(&proj).unwrap();
    let root = env.root();
    let doc = env
        .resolved()
        .env("CLAUDE_CONFIG_DIR", root.join("cfg"))
        .env("CLAUDE_CODE_REMOTE_MEMORY_DIR", root.join("mnt"))
        .arg("--project")
        .arg(&proj)
        .args(["path", "--json"])
        .run()
        .success()
        .json();
    assert_eq!(
        doc["memory_dir"],
        format!("{}/mnt/projects/{}/memory/", root.display(), key(&proj))
    );
    assert_eq!(
        doc["transcripts_dir"],
        format!("{}/cfg/projects/{}", root.display(), key(&proj))
    );
}

fn user_settings(env: &Env, json: &str) {
    let dir = env.home().join(".claude");
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("settings.json"), json).unwrap();
}

/// The warning for a project `autoMemoryDirectory` that decides (lint ML401).
fn ml401_warning(proj: &Path, value: &str) -> String {
    format!(
        "memctl: warning: {}/.claude/settings.json sets autoMemoryDirectory to \"{value}\": this checked-in file decides where every user's memory is written (Claude Code 2.1.332 honours it in print mode without trust and in every trusted interactive session; lint ML401); move it to .claude/settings.local.json (untracked) or the user settings\n",
        proj.display()
    )
}

/// SPEC A.4 (2.1.332 client): a project value is used over a valid user value with
/// no trust record; `CLAUDE_CODE_IGNORE_PERSISTED_TRUST=1` skips it.
#[test]
fn a_project_setting_moves_memory_over_a_user_setting_without_trust() {
    let env = Env::new();
    let proj = env.root().join("proj");
    fs::create_dir_all(proj.join(".claude")).unwrap();
    user_settings(&env, r#"{"autoMemoryDirectory": "~/mymem"}"#);
    fs::write(
        proj.join(".claude/settings.json"),
        r#"{"autoMemoryDirectory": "/proj/evil"}"#,
    )
    .unwrap();
    let home = env.home();
    let cmd = env.resolved().arg("--project").arg(&proj).arg("path");
    let out = cmd.command().output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "/proj/evil/\n");
    assert_eq!(String::from_utf8_lossy(&out.stderr), ml401_warning(&proj, "/proj/evil"));
    let run = cmd
        .env("CLAUDE_CODE_IGNORE_PERSISTED_TRUST", "1")
        .arg("--json")
        .run()
        .success();
    let doc = run.json();
    assert_eq!(doc["memory_dir"], format!("{}/mymem/", home.display()));
    assert_eq!(step(&doc, "settings.project")["status"], "skipped_ignore_trust");
    assert_eq!(doc["warnings"], serde_json::json!([]));
}

#[test]
fn an_invalid_local_setting_masks_a_valid_user_setting() {
    let env = Env::new();
    let proj = env.root().join("proj");
    fs::create_dir_all(proj.join(".claude")).unwrap();
    user_settings(&env, r#"{"autoMemoryDirectory": "~/mymem"}"#);
    fs::write(
        proj.join(".claude/settings.local.json"),
        r#"{"autoMemoryDirectory": "relative"}"#,
    )
    .unwrap();
    let home = env.home();
    let doc = env
        .resolved()
        .arg("--project")
        .arg(&proj)
        .args(["path", "--json"])
        .run()
        .success()
        .json();
    assert_eq!(
        doc["memory_dir"],
        format!("{}/.claude/projects/{}/memory/", home.display(), key(&proj))
    );
    let local = doc["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["step"] == "settings.local")
        .unwrap()
        .clone();
    assert_eq!(local["status"], "rejected");
    let user = doc["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["step"] == "settings.user")
        .unwrap()
        .clone();
    assert_eq!(user["status"], "shadowed");
}

#[test]
fn cowork_override_wins_and_never_expands_tilde() {
    let env = Env::new();
    let proj = env.root().join("proj");
    fs::create_dir_all(&proj).unwrap();
    let root = env.root();
    let out = env
        .resolved()
        .env("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", root.join("cowork/mem"))
        .arg("--project")
        .arg(&proj)
        .arg("path")
        .run()
        .success()
        .stdout;
    assert_eq!(out, format!("{}/cowork/mem/\n", root.display()));
    let env = Env::new();
    let proj = env.root().join("proj");
    fs::create_dir_all(&proj).unwrap();
    let home = env.home();
    let doc = env
        .resolved()
        .env("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", "~/x")
        .arg("--project")
        .arg(&proj)
        .args(["path", "--json"])
        .run()
        .success()
        .json();
    assert_eq!(
        doc["memory_dir"],
        format!("{}/.claude/projects/{}/memory/", home.display(), key(&proj))
    );
    assert_eq!(doc["steps"][0]["status"], "rejected");
}

#[test]
fn key_for_matches_appendix_a1_including_long_keys() {
    Env::new()
        .args(["path", "--key-for", "/home/a/my repo"])
        .run()
        .success()
        .stdout("-home-a-my-repo\n");
    let long = format!("/home/user/{}", "a".repeat(195));
    let prefix = format!("-home-user-{}", "a".repeat(189));
    Env::new()
        .args(["path", "--key-for", &long])
        .run()
        .success()
        .stdout(&format!("{prefix}-odqgte\n"));
    let run = Env::new().args(["path", "--json", "--key-for", &long]).run().success();
    let doc = run.json();
    assert_eq!(doc["key"], format!("{prefix}-odqgte"));
    assert_eq!(doc["key_djb2"], format!("{prefix}-odqgte"));
    assert_eq!(doc["key_wyhash"], format!("{prefix}-16jaymsy6oeq3"));
    assert_eq!(doc["units"], 206);
    assert_eq!(doc["input"], long);
    assert_eq!(
        doc["warnings"][0],
        format!(
            "longer than 200 units: Claude Code 2.1.332 uses the djb2 key; older native builds used {prefix}-16jaymsy6oeq3"
        )
    );
    for (input, suffix) in [
        (format!("/{}", "b".repeat(200)), "-86ms41"),
        (format!("/tmp/\u{fc}ber/{}", "c".repeat(200)), "-8imqff"),
        (format!("/tmp/😀{}", "d".repeat(200)), "-oh45h2"),
    ] {
        let doc = Env::new()
            .args(["path", "--json", "--key-for", &input])
            .run()
            .success()
            .json();
        assert!(
            doc["key"].as_str().unwrap().ends_with(suffix),
            "{input}: {}",
            doc["key"]
        );
    }
    Env::new()
        .args(["path", "--key-for", "/tmp/u\u{308}ber"])
        .run()
        .success()
        .stdout("-tmp-u-ber\n");
}

#[test]
fn a_long_key_is_the_djb2_one_and_a_legacy_wyhash_dir_is_named() {
    let env = Env::new();
    let proj = env.root().join(format!("p{}", "x".repeat(210)));
    fs::create_dir_all(&proj).unwrap();
    let k = sanitize(&proj.to_string_lossy());
    let home = env.home();
    let legacy = home.join(".claude/projects").join(&k.wyhash).join("memory");
    fs::create_dir_all(&legacy).unwrap();
    fs::write(
        legacy.join("note.md"),
        "---\nname: note\ndescription: d\ntype: user\n---\nbody\n",
    )
    .unwrap();
    let run = env
        .resolved()
        .arg("--project")
        .arg(&proj)
        .args(["path", "--json"])
        .run()
        .success();
    let doc = run.json();
    assert_eq!(doc["hash_variant"], "djb2");
    assert_eq!(doc["key"], k.key.as_str());
    assert_eq!(
        doc["memory_dir"],
        format!("{}/.claude/projects/{}/memory/", home.display(), k.key)
    );
    let command = format!("memctl projects merge -- {} {}", k.wyhash, k.key);
    assert_eq!(
        doc["warnings"][0],
        format!(
            "{} holds 1 memories written under the key of an older Claude Code build; Claude Code 2.1.332 reads {}: move them with `{command}`",
            k.wyhash, k.key
        )
    );
    assert_eq!(doc["legacy_dirs"][0]["key"], k.wyhash.as_str());
    assert_eq!(doc["legacy_dirs"][0]["memories"], 1);
    assert_eq!(doc["legacy_dirs"][0]["command"], command.as_str());
    assert_eq!(doc["claude_code_version"], "2.1.332");
}

#[test]
fn transcripts_need_a_project_under_dir() {
    Env::new().args(["path", "--transcripts"]).run().code(2).stderr("memctl: no project: the transcripts dir is keyed by the project root\nhint: pass --project with --dir or MEMCTL_DIR\n");
}

#[test]
fn index_and_team_paths() {
    let env = Env::new();
    let d = env.dir_shown();
    Env::new();
    env.args(["path", "--index"])
        .run()
        .success()
        .stdout(&format!("{d}MEMORY.md\n"));
    let env = Env::new();
    let d = env.dir_shown();
    env.args(["--team", "path"])
        .run()
        .success()
        .stdout(&format!("{d}team/\n"));
}

#[test]
fn disabled_memory_still_prints_the_path_with_a_warning() {
    let env = Env::new();
    let d = env.dir_shown();
    env.env("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "1")
        .arg("path")
        .run()
        .success()
        .stdout(&format!("{d}\n"))
        .stderr("memctl: warning: auto memory is disabled (env CLAUDE_CODE_DISABLE_AUTO_MEMORY=1): Claude Code will not read or write this directory\n");
}

#[test]
fn local_setting_disables_memory_and_explain_names_the_lever() {
    let env = Env::new();
    let proj = env.root().join("proj");
    fs::create_dir_all(proj.join(".claude")).unwrap();
    fs::write(
        proj.join(".claude/settings.local.json"),
        r#"{"autoMemoryEnabled": false, "autoDreamEnabled": true}"#,
    )
    .unwrap();
    let home = env.home();
    let run = env
        .resolved()
        .arg("--project")
        .arg(&proj)
        .args(["path", "--explain"])
        .run()
        .success();
    let lever = format!(
        "autoMemoryEnabled=false in {}/.claude/settings.local.json (local)",
        proj.display()
    );
    assert!(
        run.stdout.contains(&format!("auto memory         disabled ({lever})")),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains(&format!(
            "auto-dream          unknown (flag absent)\n                    tengu_onyx_plover not cached in {}/.claude/.claude.json: memctl cannot know the server's value\n                    autoDreamEnabled=true (autoDreamEnabled=true in {}/.claude/settings.local.json (local))",
            home.display(),
            proj.display()
        )),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("not visible to memctl"));
    assert!(run.stderr.contains("auto memory is disabled"));
}

#[test]
fn missing_project_path_is_not_found() {
    let env = Env::new();
    let missing = env.root().join("missing");
    let run = env.resolved().arg("--project").arg(&missing).arg("path").run().code(2);
    assert_eq!(
        run.stderr,
        format!(
            "memctl: project path does not exist: {}\nhint: pass an existing directory to --project\n",
            missing.display()
        )
    );
}

/// The account's home directory from the passwd database, as the test sees it.
fn account_home() -> String {
    let out = std::process::Command::new("sh")
        .args(["-c", "getent passwd \"$(id -u)\" | cut -d: -f6"])
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

#[test]
fn r14_an_empty_home_falls_back_to_the_accounts_home_directory() {
    // `~` in a local setting needs the home; the real home is never read (the
    // config home is the test's).
    let env = Env::new();
    let proj = env.root().join("proj");
    fs::create_dir_all(proj.join(".claude")).unwrap();
    fs::write(
        proj.join(".claude/settings.local.json"),
        r#"{"autoMemoryDirectory": "~/mem-r14"}"#,
    )
    .unwrap();
    let home = account_home();
    let run = env
        .resolved()
        .env("HOME", "")
        .arg("--project")
        .arg(&proj)
        .arg("path")
        .run()
        .success();
    assert_eq!(run.stdout, format!("{home}/mem-r14/\n"));
}

#[test]
fn r14_an_empty_memctl_dir_counts_as_unset() {
    let env = Env::new();
    let proj = env.root().join("proj");
    fs::create_dir_all(&proj).unwrap();
    let expected = format!("{}/.claude/projects/{}/memory/\n", env.home().display(), key(&proj));
    env.resolved()
        .env("MEMCTL_DIR", "")
        .arg("--project")
        .arg(&proj)
        .arg("path")
        .run()
        .success()
        .stderr("")
        .stdout(&expected);
}

#[test]
fn r14_explain_aligns_every_value_past_the_longest_label() {
    let env = Env::new();
    let proj = env.root().join("proj");
    fs::create_dir_all(&proj).unwrap();
    let run = env
        .resolved()
        .arg("--project")
        .arg(&proj)
        .args(["path", "--explain"])
        .run()
        .success();
    let rows: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| {
            !l.starts_with("note:") && !l.starts_with("      ") && !l.starts_with("modelled Claude Code build:")
        })
        .collect();
    // The value column: where `settings.project`'s value starts.
    let project = rows
        .iter()
        .find(|l| l.trim_start().starts_with("settings.project"))
        .unwrap();
    let column = project.find("  settings.project").unwrap() + "  settings.project".len() + 2;
    for row in &rows {
        let (label, value) = row.split_at(column);
        assert!(label.ends_with("  "), "label runs into its value: {row:?}");
        assert!(!value.starts_with(' '), "value not at the column: {row:?}");
    }
    assert!(run.stdout.contains("  cowork_override   unset\n"), "{}", run.stdout);
}

#[test]
fn r14_an_empty_claude_config_dir_says_so_in_words() {
    let env = Env::new();
    let proj = env.root().join("proj");
    fs::create_dir_all(&proj).unwrap();
    let run = env
        .resolved()
        .env("CLAUDE_CONFIG_DIR", "")
        .arg("--project")
        .arg(&proj)
        .arg("path")
        .run()
        .success();
    assert_eq!(
        run.stderr,
        format!(
            "memctl: warning: CLAUDE_CONFIG_DIR is set but empty: Claude Code then keeps memory, settings and transcripts under the project root {}\n",
            proj.display()
        )
    );
}

/// `<root>/proj` with `autoMemoryDirectory` in its checked-in settings.
fn project_with_setting(env: &Env, dir: &str) -> PathBuf {
    let proj = env.root().join("proj");
    fs::create_dir_all(proj.join(".claude")).unwrap();
    fs::write(
        proj.join(".claude/settings.json"),
        format!(r#"{{"autoMemoryDirectory": "{dir}"}}"#),
    )
    .unwrap();
    proj
}

/// The global config (`$CLAUDE_CONFIG_DIR/.claude.json` in these tests).
fn global_config(env: &Env, json: &str) -> PathBuf {
    let file = env.home().join(".claude/.claude.json");
    fs::create_dir_all(file.parent().unwrap()).unwrap();
    fs::write(&file, json).unwrap();
    file
}

fn trusting(dir: &Path, accepted: bool) -> String {
    format!(
        r#"{{"numStartups": 9, "projects": {{"/elsewhere": {{"hasTrustDialogAccepted": true}}, {}: {{"history": [{{"display": "x"}}], "hasTrustDialogAccepted": {accepted}}}}}}}"#,
        serde_json::Value::String(dir.to_string_lossy().into_owned())
    )
}

fn step<'a>(doc: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    doc["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["step"] == name)
        .unwrap()
}

#[test]
fn a_trusted_project_setting_moves_memory_and_explain_names_the_record() {
    let env = Env::new();
    let proj = project_with_setting(&env, "~/projmem");
    user_settings(&env, r#"{"autoMemoryDirectory": "~/usermem"}"#);
    let config = global_config(&env, &trusting(&proj, true));
    let home = env.home();
    let record = format!(
        "projects[\"{}\"].hasTrustDialogAccepted in {}",
        proj.display(),
        config.display()
    );
    let doc = env
        .resolved()
        .arg("--project")
        .arg(&proj)
        .args(["path", "--json"])
        .run()
        .success()
        .json();
    assert_eq!(doc["warnings"].as_array().unwrap().len(), 1, "{}", doc["warnings"]);
    assert_eq!(doc["memory_dir"], format!("{}/projmem/", home.display()));
    assert_eq!(doc["source"], "setting:project");
    let project = step(&doc, "settings.project");
    assert_eq!(project["status"], "used");
    assert_eq!(project["detail"], record.as_str());
    assert_eq!(step(&doc, "settings.user")["status"], "shadowed");
    let order: Vec<&str> = doc["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["step"].as_str().unwrap())
        .collect();
    assert_eq!(
        order,
        [
            "cowork_override",
            "settings.policy",
            "settings.flag",
            "settings.local",
            "settings.project",
            "settings.user",
            "default"
        ]
    );

    let env = Env::new();
    let proj = project_with_setting(&env, "~/projmem");
    let config = global_config(&env, &trusting(&proj, true));
    let text = env
        .resolved()
        .arg("--project")
        .arg(&proj)
        .args(["path", "--explain"])
        .run()
        .success()
        .stdout;
    let line = text.lines().find(|l| l.starts_with("  settings.project")).unwrap();
    assert_eq!(
        line,
        format!(
            "  settings.project  {}/.claude/settings.json: used `~/projmem` (consulted: Claude Code 2.1.332 reads it in print/SDK mode without trust and in every interactive session; projects[\"{}\"].hasTrustDialogAccepted in {})",
            proj.display(),
            proj.display(),
            config.display()
        )
    );
}

#[test]
fn trust_of_a_parent_dir_counts_and_a_local_setting_still_wins() {
    let env = Env::new();
    let proj = project_with_setting(&env, "/proj/mem");
    let root = env.root();
    global_config(&env, &trusting(&root, true));
    let doc = env
        .resolved()
        .arg("--project")
        .arg(&proj)
        .args(["path", "--json"])
        .run()
        .success()
        .json();
    assert_eq!(doc["memory_dir"], "/proj/mem/");
    let detail = step(&doc, "settings.project")["detail"].as_str().unwrap().to_string();
    assert!(
        detail.starts_with(&format!("projects[\"{}\"]", root.display())),
        "{detail}"
    );

    let env = Env::new();
    let proj = project_with_setting(&env, "/proj/mem");
    fs::write(
        proj.join(".claude/settings.local.json"),
        r#"{"autoMemoryDirectory": "/local/mem"}"#,
    )
    .unwrap();
    global_config(&env, &trusting(&proj, true));
    let doc = env
        .resolved()
        .arg("--project")
        .arg(&proj)
        .args(["path", "--json"])
        .run()
        .success()
        .json();
    assert_eq!(doc["memory_dir"], "/local/mem/");
    assert_eq!(step(&doc, "settings.project")["status"], "shadowed");
}

#[test]
fn an_untrusted_workspace_still_uses_the_project_setting() {
    // hasTrustDialogAccepted: false (2.1.332 client: the value is used in print mode)
    let env = Env::new();
    let proj = project_with_setting(&env, "/proj/evil");
    let config = global_config(&env, &trusting(&proj, false));
    let run = env
        .resolved()
        .arg("--project")
        .arg(&proj)
        .args(["path", "--json"])
        .run()
        .success();
    let doc = run.json();
    assert_eq!(
        format!("memctl: warning: {}\n", doc["warnings"][0].as_str().unwrap()),
        ml401_warning(&proj, "/proj/evil")
    );
    assert_eq!(doc["memory_dir"], "/proj/evil/");
    assert_eq!(step(&doc, "settings.project")["status"], "used");
    assert_eq!(
        step(&doc, "settings.project")["detail"],
        format!(
            "no trust record in {} (print mode needs none; an interactive start asks first)",
            config.display()
        )
    );
    // A config that is not JSON: no record, with a second warning.
    let env = Env::new();
    let proj = project_with_setting(&env, "/proj/evil");
    let config = global_config(&env, "{\"projects\": ");
    let run = env.resolved().arg("--project").arg(&proj).arg("path").run().success();
    assert_eq!(run.stdout, "/proj/evil/\n");
    assert!(
        run.stderr.starts_with(&ml401_warning(&proj, "/proj/evil")),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains(&format!(
        "memctl: warning: the global config {} is not valid JSON",
        config.display()
    )));
}

#[test]
fn a_fifo_as_global_config_is_untrusted_without_blocking() {
    let env = Env::new();
    let proj = project_with_setting(&env, "/proj/evil");
    let fifo = env.home().join(".claude/.claude.json");
    fs::create_dir_all(fifo.parent().unwrap()).unwrap();
    rustix::fs::mkfifoat(rustix::fs::CWD, &fifo, rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR).unwrap();
    let env = env.resolved().arg("--project").arg(&proj).arg("path");
    // A generous deadline only detects a hang.
    let out = crate::support::output_within(env.command(), std::time::Duration::from_secs(60));
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("the global config {} is not a regular file", fifo.display())),
        "{stderr}"
    );
}

#[test]
fn without_claude_config_dir_trust_is_read_from_home() {
    let env = Env::new();
    let proj = project_with_setting(&env, "/proj/mem");
    fs::write(env.home().join(".claude.json"), trusting(&proj, true)).unwrap();
    let doc = env
        .resolved()
        .env_remove("CLAUDE_CONFIG_DIR")
        .arg("--project")
        .arg(&proj)
        .args(["path", "--json"])
        .run()
        .success()
        .json();
    assert_eq!(doc["memory_dir"], "/proj/mem/");
}

#[test]
fn a_named_key_moves_memory_and_transcripts() {
    let env = Env::new();
    let proj = env.root().join("proj");
    fs::create_dir_all(&proj).unwrap();
    let home = env.home();
    let run = env
        .resolved()
        .env("CLAUDE_CODE_PROJECT_DIR_NAME", "my-proj_2")
        .arg("--project")
        .arg(&proj)
        .args(["path", "--json"])
        .run()
        .success();
    let doc = run.json();
    assert_eq!(doc["warnings"], serde_json::json!([]));
    assert_eq!(
        doc["memory_dir"],
        format!("{}/.claude/projects/my-proj_2/memory/", home.display())
    );
    assert_eq!(
        doc["transcripts_dir"],
        format!("{}/.claude/projects/my-proj_2", home.display())
    );
    assert_eq!(doc["key"], "my-proj_2");
    assert_eq!(doc["key_source"], "named");

    let env = Env::new();
    let proj = env.root().join("proj");
    fs::create_dir_all(&proj).unwrap();
    let text = env
        .resolved()
        .env("CLAUDE_CODE_PROJECT_DIR_NAME", "my-proj_2")
        .arg("--project")
        .arg(&proj)
        .args(["path", "--explain"])
        .run()
        .success()
        .stdout;
    assert!(
        text.contains("\nkey                 my-proj_2 (9 units, named by CLAUDE_CODE_PROJECT_DIR_NAME; it keys the transcripts dir too)\n"),
        "{text}"
    );
}

#[test]
fn a_named_key_moves_transcripts_also_when_a_setting_moves_memory() {
    let env = Env::new();
    let proj = env.root().join("proj");
    fs::create_dir_all(&proj).unwrap();
    user_settings(&env, r#"{"autoMemoryDirectory": "~/mymem"}"#);
    let home = env.home();
    let doc = env
        .resolved()
        .env("CLAUDE_CODE_PROJECT_DIR_NAME", "named")
        .arg("--project")
        .arg(&proj)
        .args(["path", "--json"])
        .run()
        .success()
        .json();
    assert_eq!(doc["memory_dir"], format!("{}/mymem/", home.display()));
    assert_eq!(
        doc["transcripts_dir"],
        format!("{}/.claude/projects/named", home.display())
    );
}

#[test]
fn an_invalid_named_key_or_one_without_claude_config_dir_is_ignored_with_a_warning() {
    for (value, why) in [
        ("CON", "a Windows device name"),
        ("com1", "a Windows device name"),
        ("", "it is empty"),
        ("a.b", "only A-Z, a-z, 0-9, `_` and `-` are allowed"),
        (&"x".repeat(65), "longer than 64 characters"),
    ] {
        let env = Env::new();
        let proj = env.root().join("proj");
        fs::create_dir_all(&proj).unwrap();
        let home = env.home();
        let run = env
            .resolved()
            .env("CLAUDE_CODE_PROJECT_DIR_NAME", value)
            .arg("--project")
            .arg(&proj)
            .args(["path", "--json"])
            .run()
            .success();
        let doc = run.json();
        assert_eq!(
            doc["warnings"],
            serde_json::json!([format!(
                "CLAUDE_CODE_PROJECT_DIR_NAME `{value}` is ignored ({why}); Claude Code keys this project by its path"
            )])
        );
        assert_eq!(doc["key_source"], "sanitized");
        assert_eq!(
            doc["transcripts_dir"],
            format!("{}/.claude/projects/{}", home.display(), key(&proj))
        );
    }
    let env = Env::new();
    let proj = env.root().join("proj");
    fs::create_dir_all(&proj).unwrap();
    let home = env.home();
    let run = env
        .resolved()
        .env_remove("CLAUDE_CONFIG_DIR")
        .env("CLAUDE_CODE_PROJECT_DIR_NAME", "named")
        .arg("--project")
        .arg(&proj)
        .arg("path")
        .run()
        .success();
    assert_eq!(
        run.stdout,
        format!("{}/.claude/projects/{}/memory/\n", home.display(), key(&proj))
    );
    assert!(
        run.stderr
            .contains("`named` is ignored (it counts only when CLAUDE_CONFIG_DIR is set and not empty)")
    );
}

#[test]
fn a_named_key_keys_only_the_transcripts_under_a_remote_memory_dir() {
    let env = Env::new();
    let proj = env.root().join("proj");
    fs::create_dir_all(&proj).unwrap();
    let (home, root) = (env.home(), env.root());
    let doc = env
        .resolved()
        .env("CLAUDE_CODE_PROJECT_DIR_NAME", "my_proj-1")
        .env("CLAUDE_CODE_REMOTE_MEMORY_DIR", root.join("r"))
        .arg("--project")
        .arg(&proj)
        .args(["path", "--json"])
        .run()
        .success()
        .json();
    assert_eq!(
        doc["memory_dir"],
        format!("{}/r/projects/{}/memory/", root.display(), key(&proj))
    );
    assert_eq!(doc["key_source"], "sanitized");
    assert_eq!(
        doc["transcripts_dir"],
        format!("{}/.claude/projects/my_proj-1", home.display())
    );
}

/// Issue 13 §16: a `settings.local.json` that sets `autoMemoryDirectory` and that
/// git tracks moves every clone's memory: `path --explain` and `lint` say so; an
/// untracked one (or no repository) gets no warning.
#[test]
fn a_tracked_local_setting_is_warned_about() {
    let env = Env::new().resolved();
    let proj = env.root().join("proj");
    fs::create_dir_all(proj.join(".claude")).unwrap();
    fs::write(
        proj.join(".claude/settings.local.json"),
        r#"{"autoMemoryDirectory": "~/mem"}"#,
    )
    .unwrap();
    fs::create_dir_all(env.home().join("mem")).unwrap();
    let warning = format!(
        "memctl: warning: {}/.claude/settings.local.json sets autoMemoryDirectory to \"~/mem\", and git tracks it: Claude Code honours it as local settings, so every clone of the repository writes its memory there; untrack it (`git rm --cached .claude/settings.local.json`) and add it to .gitignore\n",
        proj.display()
    );
    let stderr = |args: &[&str]| {
        let out = env.command().arg("--project").arg(&proj).args(args).output().unwrap();
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    // No repository, then an untracked file: no warning.
    assert!(!stderr(&["path", "--explain"]).contains("git tracks"));
    git(&proj, &["init", "-q"]);
    assert!(!stderr(&["path", "--explain"]).contains("git tracks"));
    assert!(!stderr(&["lint"]).contains("git tracks"));
    git(&proj, &["add", "-f", ".claude/settings.local.json"]);
    let e = stderr(&["path", "--explain"]);
    assert!(e.contains(&warning), "{e}");
    let e = stderr(&["lint"]);
    assert!(e.contains(&warning), "{e}");
}

#[test]
fn explain_wraps_its_values_to_80_columns_on_a_terminal() {
    let env = Env::new().env("COLUMNS", "80");
    let out = crate::support::run_in_pty(&env, &["path", "--explain"], &[]);
    let lines = crate::support::pty_lines(&out);
    assert!(lines.iter().any(|l| l.starts_with("note: flag settings")), "{out}");
    for l in &lines {
        assert!(crate::support::fits(l, 80), "{} columns: {l}", l.chars().count());
    }
}

/// SPEC §2.3 row 7: memctl cannot know the session's model, so a cached model switch
/// is listed in `enabled.conditions`, never decisive.
#[test]
fn a_cached_model_switch_is_listed_in_the_conditions() {
    let doc = |umber: &str| {
        let env = Env::new();
        let proj = env.root().join("proj");
        fs::create_dir_all(&proj).unwrap();
        fs::create_dir_all(env.home().join(".claude")).unwrap();
        fs::write(
            env.home().join(".claude/.claude.json"),
            format!(
                r#"{{"cachedGrowthBookFeatures": {{"tengu_sepia_cormorant": ["claude-opus-*", "claude-x"], "tengu_umber_petrel": {umber}}}}}"#
            ),
        )
        .unwrap();
        env.resolved()
            .arg("--project")
            .arg(&proj)
            .args(["path", "--json"])
            .run()
            .success()
            .json()
    };
    let on = doc("true");
    assert_eq!(on["enabled"]["value"], true);
    assert_eq!(
        on["enabled"]["conditions"].as_array().unwrap().last().unwrap(),
        "model switch: claude-opus-*, claude-x"
    );
    let off = doc("false");
    assert_eq!(off["enabled"]["conditions"].as_array().unwrap().len(), 5);
}

/// An invalid `CLAUDE_MEMORY_STORES` still turns recall mode on in Claude Code and
/// syncs no store (SPEC §2.13): `path` says so (only `projects` did).
#[test]
fn an_invalid_store_list_is_a_warning() {
    let run = Env::new()
        .resolved()
        .env("CLAUDE_MEMORY_STORES", "not json")
        .args(["path", "--json"])
        .run()
        .success();
    let doc = run.json();
    let warnings = doc["warnings"].to_string();
    assert!(
        warnings.contains("CLAUDE_MEMORY_STORES is not valid JSON") && warnings.contains("recall mode on"),
        "{warnings}"
    );
}
