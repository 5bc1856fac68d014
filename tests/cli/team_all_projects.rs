//! `export` and `sync` with `--all-projects --team` (SPEC v3 §3.14, issue 32): each
//! project's team dir travels alone, under `projects/<identity>/team/` in the
//! bundle and the sync repository (where a whole-project sync keeps it too), and
//! lands in that project's team dir on the other machine; its main memory stays.

use std::fs;
use std::path::{Path, PathBuf};

use crate::support::{Env, bare_git, checkout, git, write_aged};

const ORIGIN: &str = "https://github.com/Alice/App.git";
const MEMBER: &str = "projects/github.com__Alice__App";

/// A home with a git checkout at `<root>/<name>` (origin set), a transcript that
/// names it (so `projects` knows its path), and its memory dir.
fn machine(name: &str) -> (Env, PathBuf, PathBuf) {
    let env = Env::new().resolved();
    let proj = env.root().join(name);
    checkout(&proj, ORIGIN);
    let (_, out, _) = memctl(&env, &proj, name, &["path"]);
    let mem = PathBuf::from(out.trim());
    let line = format!("{{\"cwd\":{:?}}}\n", proj.display().to_string());
    let transcript = mem.parent().unwrap().join("11111111-1111-1111-1111-111111111111.jsonl");
    write_aged(&transcript, line.as_bytes(), 1.0);
    (env, proj, mem)
}

fn memctl(env: &Env, cwd: &Path, machine: &str, args: &[&str]) -> (i32, String, String) {
    let out = env
        .command()
        .current_dir(cwd)
        .args(args)
        .env("MEMCTL_MACHINE", machine)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn memory(name: &str, ty: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: d\ntype: {ty}\n---\n{body}\n")
}

fn write(mem: &Path, rel: &str, text: &str) {
    let p = mem.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    write_aged(&p, text.as_bytes(), 2.0);
}

fn read(mem: &Path, rel: &str) -> String {
    fs::read_to_string(mem.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The laptop: a main memory and a team memory, each with its index.
fn laptop() -> (Env, PathBuf, PathBuf) {
    let (env, proj, mem) = machine("laptop");
    write(&mem, "user_a.md", &memory("a", "user", "alpha"));
    write(&mem, "MEMORY.md", "- [A](user_a.md) — alpha\n");
    write(
        &mem,
        "team/team_rule.md",
        &memory("rule", "feedback", "Review every PR."),
    );
    write(&mem, "team/MEMORY.md", "- [Rule](team_rule.md) — review\n");
    (env, proj, mem)
}

/// The files of the remote's project tree.
fn remote_files(remote: &Path) -> Vec<String> {
    bare_git(remote, &["ls-tree", "-r", "--name-only", "main", MEMBER])
        .unwrap_or_default()
        .lines()
        .map(|l| l.trim_start_matches(MEMBER).trim_start_matches('/').to_string())
        .filter(|l| !l.starts_with(".memctl/"))
        .collect()
}

#[test]
fn sync_all_projects_team_moves_each_team_dir_alone() {
    let (lap, lp, lm) = laptop();
    let (desk, dp, dm) = machine("desk");
    write(&dm, "user_d.md", &memory("d", "user", "desk only"));
    write(&dm, "MEMORY.md", "- [D](user_d.md) — desk\n");
    write(
        &dm,
        "team/team_desk.md",
        &memory("desk rule", "feedback", "Pair on Fridays."),
    );
    write(&dm, "team/MEMORY.md", "- [Desk rule](team_desk.md) — pairing\n");
    let remote = lap.root().join("remote.git");
    git(&lap.root(), &["init", "-q", "--bare", remote.to_str().unwrap()]);
    let url = format!("file://{}", remote.display());

    let (code, _, err) = memctl(
        &lap,
        &lp,
        "laptop",
        &["--team", "sync", "--all-projects", "--remote", &url],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        remote_files(&remote),
        ["team/MEMORY.md", "team/team_rule.md"],
        "only the team dir went"
    );

    let (code, out, err) = memctl(
        &desk,
        &dp,
        "desk",
        &["--team", "sync", "--all-projects", "--remote", &url, "--json"],
    );
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        doc["projects"][0]["added"],
        serde_json::json!(["team/team_rule.md"]),
        "{doc}"
    );
    assert_eq!(
        read(&dm, "team/team_rule.md"),
        memory("rule", "feedback", "Review every PR.")
    );
    let index = read(&dm, "team/MEMORY.md");
    assert!(
        index.contains("](team_desk.md)") && index.contains("](team_rule.md)"),
        "{index}"
    );
    assert!(!dm.join("user_a.md").exists(), "the main memory did not move");
    assert_eq!(read(&dm, "MEMORY.md"), "- [D](user_d.md) — desk\n");
    assert_eq!(
        remote_files(&remote),
        ["team/MEMORY.md", "team/team_desk.md", "team/team_rule.md"]
    );

    let (code, _, err) = memctl(&lap, &lp, "laptop", &["--team", "sync", "--all-projects"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        read(&lm, "team/team_desk.md"),
        memory("desk rule", "feedback", "Pair on Fridays.")
    );
    assert_eq!(read(&lm, "team/MEMORY.md"), index, "both indexes agree");

    // A whole-project sync afterwards sends the main memory and keeps the team's.
    let (code, _, err) = memctl(&lap, &lp, "laptop", &["sync"]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = memctl(&desk, &dp, "desk", &["sync"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(read(&dm, "user_a.md"), memory("a", "user", "alpha"));
    assert!(dm.join("user_d.md").is_file() && dm.join("team/team_rule.md").is_file());
}

#[test]
fn export_all_projects_team_bundles_each_team_dir_and_import_puts_it_there() {
    let (lap, lp, lm) = laptop();
    let bundle = lap.root().join("team.tar.gz");
    let (code, out, err) = memctl(
        &lap,
        &lp,
        "laptop",
        &[
            "--team",
            "export",
            "--all-projects",
            "-o",
            bundle.to_str().unwrap(),
            "--json",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["projects"][0]["files"], 2, "{doc}");
    assert!(lm.join("user_a.md").is_file());

    let (desk, dp, dm) = machine("desk");
    write(&dm, "user_d.md", &memory("d", "user", "desk only"));
    write(
        &dm,
        "team/team_desk.md",
        &memory("desk rule", "feedback", "Pair on Fridays."),
    );
    write(&dm, "team/MEMORY.md", "- [Desk rule](team_desk.md) — pairing\n");
    let (code, out, err) = memctl(
        &desk,
        &dp,
        "desk",
        &["import", "--yes", bundle.to_str().unwrap(), "--json"],
    );
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let p = &doc["projects"][0];
    assert_eq!(p["added"], serde_json::json!(["team/team_rule.md"]), "{doc}");
    assert_eq!(p["updated"], serde_json::json!(["team/MEMORY.md"]), "{doc}");
    assert_eq!(
        p["conflicts"],
        serde_json::json!([]),
        "the team index is merged, never a conflict"
    );
    assert_eq!(
        read(&dm, "team/team_rule.md"),
        memory("rule", "feedback", "Review every PR.")
    );
    assert_eq!(
        read(&dm, "team/MEMORY.md"),
        "- [Desk rule](team_desk.md) — pairing\n- [Rule](team_rule.md) — review\n"
    );
    assert!(!dm.join("user_a.md").exists(), "only the team dir was in the bundle");
    assert!(!dm.join("MEMORY.md").exists());
}

/// Projects without a team dir are skipped and counted (SPEC v3 §3.14).
#[test]
fn projects_without_a_team_dir_are_skipped_and_counted() {
    let (lap, lp, lm) = machine("laptop");
    write(&lm, "user_a.md", &memory("a", "user", "alpha"));
    let bundle = lap.root().join("team.tar.gz");
    let (code, _, err) = memctl(
        &lap,
        &lp,
        "laptop",
        &["--team", "export", "--all-projects", "-o", bundle.to_str().unwrap()],
    );
    assert_eq!(code, 2, "nothing to export: {err}");
    assert!(err.contains("--team: 1 project without a team dir skipped"), "{err}");
    assert!(!bundle.exists());
}
