//! `--team` follows a configured team store (SPEC §2.13, issue 28): with one team
//! store it works in `<memdir>team/<mount>/`, with several it cannot choose, and
//! without one it keeps the plain `team/`.

use crate::support::Env;

const ONE: &str = r#"["/org/acme"]"#;
const TWO: &str = r#"["/org/acme", {"path": "/org/b", "mount": "beta"}]"#;
const MEM: &str =
    "---\nname: t\ndescription: team fact\nmetadata:\n  type: project\n---\nfact\n**Why:** w\n**How to apply:** h\n";

fn store_env(stores: &str) -> Env {
    Env::new()
        .memory("team/acme/t.md", MEM)
        .memory("team/acme/MEMORY.md", "- [t](t.md) — team fact\n")
        .memory(
            "team/plain.md",
            "---\nname: p\ndescription: plain\nmetadata:\n  type: user\n---\n",
        )
        .env("CLAUDE_MEMORY_STORES", stores)
}

#[test]
fn team_list_with_one_team_store_lists_its_mount() {
    store_env(ONE)
        .args(["--team", "list"])
        .run()
        .success()
        .stdout("project\tt.md\t1\tyes\tt\tteam fact\n");
}

#[test]
fn team_add_with_one_team_store_writes_into_its_mount_and_names_its_index() {
    let env = store_env(ONE);
    let dir = env.dir();
    let run = env
        .args([
            "--team",
            "add",
            "--name",
            "n",
            "--type",
            "user",
            "--description",
            "new one",
            "--body",
            "b",
        ])
        .run()
        .success();
    assert_eq!(run.stdout, "created user_n.md\nindexed in team/acme/MEMORY.md:2\n");
    assert!(dir.join("team/acme/user_n.md").is_file());
    assert!(!dir.join("team/user_n.md").exists());
    assert_eq!(
        std::fs::read_to_string(dir.join("team/acme/MEMORY.md")).unwrap(),
        "- [t](t.md) — team fact\n- [n](user_n.md) — new one\n"
    );
    assert!(!dir.join("team/MEMORY.md").exists());
    // The write lock stays in the main dir.
    assert!(dir.join(".memctl.lock").exists());
    assert!(!dir.join("team/acme/.memctl.lock").exists());
}

#[test]
fn team_lint_with_one_team_store_judges_the_mount_against_its_own_index() {
    let env = store_env(ONE).memory(
        "team/acme/u.md",
        "---\nname: u\ndescription: unindexed\nmetadata:\n  type: user\n---\n",
    );
    let run = env.args(["--team", "lint"]).run();
    assert!(
        run.stdout
            .contains("mem/team/acme/u.md:1:1: info[ML203/index-unindexed]: not in team/acme/MEMORY.md"),
        "{}",
        run.stdout
    );
    // Only the mount is linted: the plain team/ file is not part of it.
    assert!(!run.stdout.contains("plain.md"), "{}", run.stdout);
    assert!(!run.stdout.contains("t.md:"), "{}", run.stdout);
}

#[test]
fn team_forget_with_one_team_store_trashes_inside_the_mount() {
    let env = store_env(ONE);
    let dir = env.dir();
    let run = env
        .args(["--no-history", "--team", "forget", "t", "--yes"])
        .run()
        .success();
    assert!(run.stdout.starts_with("forgot t.md (1 index line)"), "{}", run.stdout);
    assert!(!dir.join("team/acme/t.md").exists());
    assert!(dir.join("team/acme/.trash").is_dir());
    assert!(!dir.join("team/.trash").exists() && !dir.join(".trash").exists());
    assert_eq!(std::fs::read_to_string(dir.join("team/acme/MEMORY.md")).unwrap(), "");
}

#[test]
fn path_json_team_dir_is_the_dir_team_uses() {
    let env = store_env(ONE);
    let shown = env.dir_shown();
    let doc = env.args(["path", "--json"]).run().success().json();
    assert_eq!(doc["team_dir"], format!("{shown}team/acme/"));
    assert_eq!(doc["memory_dir"], shown);
    let env = store_env(ONE);
    let shown = env.dir_shown();
    let run = env.args(["--team", "path", "--explain"]).run().success();
    assert!(
        run.stdout.contains(&format!(
            "{shown}team/acme/ (team memory: the team store mounted at acme"
        )),
        "{}",
        run.stdout
    );
    // Without a team store: the plain team/, and Claude Code does not treat it as team memory.
    let env = store_env("[]");
    let shown = env.dir_shown();
    let run = env.args(["path", "--explain"]).run().success();
    assert!(
        run.stdout
            .contains(&format!("{shown}team/ (a plain subdir for Claude Code: no team store")),
        "{}",
        run.stdout
    );
}

#[test]
fn team_with_two_team_stores_is_a_usage_error_naming_the_mounts() {
    for cmd in [
        &["--team", "list"][..],
        &[
            "--team",
            "add",
            "--name",
            "x",
            "--type",
            "user",
            "--description",
            "d",
            "--body",
            "b",
        ],
        &["--team", "lint"],
    ] {
        let env = store_env(TWO);
        let shown = env.dir_shown();
        let run = env.args(cmd).run().code(2);
        assert_eq!(
            run.stderr,
            format!(
                "memctl: --team is ambiguous: CLAUDE_MEMORY_STORES has 2 team stores: acme, beta\nhint: pass --dir {shown}team/acme/ (or the dir of another mount) instead of --team\n"
            ),
            "{cmd:?}"
        );
    }
    // Without --team nothing changes; the team dir shown is team/ itself.
    let env = store_env(TWO);
    let shown = env.dir_shown();
    let doc = env.args(["path", "--json"]).run().success().json();
    assert_eq!(doc["team_dir"], format!("{shown}team/"));
}

#[test]
fn team_without_a_team_store_keeps_the_plain_team_dir() {
    // A user store only: no team store, so --team is `team/` as before.
    let env = store_env(r#"[{"path": "/u/me", "scope": "user"}]"#);
    let dir = env.dir();
    let run = env
        .args([
            "--team",
            "add",
            "--name",
            "n",
            "--type",
            "user",
            "--description",
            "d",
            "--body",
            "b",
        ])
        .run()
        .success();
    assert_eq!(run.stdout, "created user_n.md\nindexed in team/MEMORY.md:1\n");
    assert!(dir.join("team/user_n.md").is_file());
    let run = Env::new()
        .memory(
            "team/plain.md",
            "---\nname: p\ndescription: plain\nmetadata:\n  type: user\n---\n",
        )
        .memory("team/MEMORY.md", "# Team\n")
        .args(["--team", "lint"])
        .run();
    assert!(
        run.stdout
            .contains("mem/team/plain.md:1:1: warning[ML203/index-unindexed]: not in team/MEMORY.md"),
        "{}",
        run.stdout
    );
}
