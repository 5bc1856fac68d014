//! `memctl projects` (SPEC §9): a fake home with several projects, each flag on
//! its case and quiet on the others.

use std::fs;
use std::path::{Path, PathBuf};

use memctl::paths::sanitize::sanitize;
use serde_json::Value;

use crate::support::{Env, git, run_in_pty, write_aged};

fn key(p: &Path) -> String {
    sanitize(&p.to_string_lossy()).key
}

const MEM: &str = "---\nname: {n}\ndescription: about {n}\ntype: project\n---\nBody of {n}.\n";

/// A memory dir with `names` as memories (indexed), `hours` old.
fn memories(dir: &Path, names: &[&str], hours: f64) {
    let mut index = String::new();
    for n in names {
        write_aged(&dir.join(format!("{n}.md")), MEM.replace("{n}", n).as_bytes(), hours);
        index.push_str(&format!("- [{n}]({n}.md) — about {n}\n"));
    }
    write_aged(&dir.join("MEMORY.md"), index.as_bytes(), hours);
}

/// A transcript in `<config home>/projects/<key>/` whose first line has `cwd`.
fn transcript(env: &Env, key: &str, n: u8, cwd: &Path, hours: f64) {
    let p = env
        .home()
        .join(".claude/projects")
        .join(key)
        .join(format!("{n}{n}{n}{n}{n}{n}{n}{n}-1111-1111-1111-111111111111.jsonl"));
    let first = "{\"type\":\"summary\",\"summary\":\"s\"}\n".to_string();
    let line = format!(
        "{{\"parentUuid\":null,\"cwd\":{:?},\"message\":{{\"cwd\":\"/nested\"}}}}\n",
        cwd.display().to_string()
    );
    write_aged(&p, format!("{first}{line}").as_bytes(), hours);
}

fn repo(dir: &Path) {
    fs::create_dir_all(dir).unwrap();
    git(dir, &["init", "-q"]);
    // Content of its own: two repositories with one root commit are one project
    // (SPEC §11.1), and commits made in the same second would otherwise be equal.
    fs::write(dir.join("README"), format!("{}\n", dir.display())).unwrap();
    git(dir, &["add", "README"]);
    git(dir, &["commit", "-qm", "init"]);
}

struct Home {
    env: Env,
    src: PathBuf,
    long: PathBuf,
}

/// The fake home:
/// - `src/app` (a git repo) with `src/app-wt`, a worktree keyed on its own with memories: split;
/// - `old/tool` moved to `src/tool` (whose memory dir is empty): orphaned and moved;
/// - `old/my_lib.v2`, whose namesake in `src/` holds memories: orphaned only;
/// - `src/my_lib.v2`: a path with `_` and `.`, no flag;
/// - `src/redir` whose local settings send memory to `elsewhere/`: redirected;
/// - `src/off` with auto memory off in its local settings: disabled;
/// - a long path with memories under both hash variants of its key: split;
/// - `src/a_b` and `src/a-b`, which share a key: shared-key.
fn home() -> Home {
    let env = Env::new().resolved();
    let root = env.root();
    let projects = env.home().join(".claude/projects");
    let src = env.home().join("src");

    let app = src.join("app");
    repo(&app);
    let wt = src.join("app-wt");
    git(&app, &["worktree", "add", "-q", wt.to_str().unwrap()]);
    memories(&projects.join(key(&app)).join("memory"), &["app_one", "app_two"], 2.0);
    transcript(&env, &key(&app), 1, &app, 1.0);
    memories(&projects.join(key(&wt)).join("memory"), &["wt_note"], 30.0);
    transcript(&env, &key(&wt), 1, &wt, 3.0);

    let old = env.home().join("old/tool");
    let tool = src.join("tool");
    repo(&tool);
    memories(
        &projects.join(key(&old)).join("memory"),
        &["tool_a", "tool_b"],
        24.0 * 40.0,
    );
    transcript(&env, &key(&old), 1, &old, 24.0 * 41.0);
    transcript(&env, &key(&tool), 1, &tool, 5.0);

    let lib = src.join("my_lib.v2");
    repo(&lib);
    memories(&projects.join(key(&lib)).join("memory"), &["lib_note"], 48.0);
    transcript(&env, &key(&lib), 1, &lib, 47.0);
    // Its old place: orphaned, but not moved (the live dir holds memories).
    let old_lib = env.home().join("old/my_lib.v2");
    memories(&projects.join(key(&old_lib)).join("memory"), &["old_lib"], 24.0 * 50.0);
    transcript(&env, &key(&old_lib), 1, &old_lib, 24.0 * 50.0);

    let redir = src.join("redir");
    fs::create_dir_all(redir.join(".claude")).unwrap();
    let elsewhere = root.join("elsewhere");
    fs::write(
        redir.join(".claude/settings.local.json"),
        format!("{{\"autoMemoryDirectory\": {:?}}}", elsewhere.display().to_string()),
    )
    .unwrap();
    memories(&elsewhere, &["redir_new"], 10.0);
    memories(
        &projects.join(key(&redir)).join("memory"),
        &["redir_x", "redir_y", "redir_z"],
        24.0 * 9.0,
    );
    transcript(&env, &key(&redir), 1, &redir, 9.0);

    let off = src.join("off");
    fs::create_dir_all(off.join(".claude")).unwrap();
    fs::write(
        off.join(".claude/settings.local.json"),
        "{\"autoMemoryEnabled\": false}",
    )
    .unwrap();
    memories(&projects.join(key(&off)).join("memory"), &["off_note"], 24.0 * 3.0);
    transcript(&env, &key(&off), 1, &off, 24.0 * 3.0);

    let long = src.join(format!("deep/{}/project", "long-directory-name".repeat(11)));
    fs::create_dir_all(&long).unwrap();
    let k = sanitize(&long.to_string_lossy());
    assert_ne!(k.wyhash, k.key);
    memories(&projects.join(&k.wyhash).join("memory"), &["long_native"], 6.0);
    transcript(&env, &k.wyhash, 1, &long, 6.0);
    memories(&projects.join(&k.key).join("memory"), &["long_node"], 24.0 * 20.0);
    transcript(&env, &k.key, 1, &long, 24.0 * 20.0);

    let ab = src.join("a_b");
    let a_dash_b = src.join("a-b");
    fs::create_dir_all(&ab).unwrap();
    fs::create_dir_all(&a_dash_b).unwrap();
    assert_eq!(key(&ab), key(&a_dash_b));
    memories(&projects.join(key(&ab)).join("memory"), &["shared"], 12.0);
    transcript(&env, &key(&ab), 1, &ab, 11.0);
    transcript(&env, &key(&ab), 2, &a_dash_b, 13.0);

    let long_cwd = long.clone();
    Home {
        env: env.cwd(root),
        src,
        long: long_cwd,
    }
}

fn rows(doc: &Value) -> &Vec<Value> {
    doc["projects"].as_array().unwrap()
}

fn row<'a>(doc: &'a Value, project: &Path) -> &'a Value {
    rows(doc)
        .iter()
        .find(|r| r["project_path"] == project.display().to_string() && r["key"].is_string())
        .unwrap_or_else(|| panic!("no row for {}: {doc:#}", project.display()))
}

fn flags(r: &Value) -> Vec<String> {
    r["flags"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["flag"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn each_flag_fires_on_its_case_and_stays_quiet_otherwise() {
    let h = home();
    let (src, long) = (h.src.clone(), h.long.clone());
    let home_dir = h.env.home();
    let run = h.env.args(["projects", "--json", "--all"]).run().success();
    let doc = run.json();
    assert_eq!(doc["config_home"], home_dir.join(".claude").display().to_string());

    let app = row(&doc, &src.join("app"));
    assert_eq!(flags(app), ["split"]);
    assert_eq!(app["flags"][0]["evidence"]["reason"], "worktree");
    assert_eq!(
        app["flags"][0]["related"],
        serde_json::json!([key(&src.join("app-wt"))])
    );
    assert_eq!(app["project_path_source"], "transcript");
    assert_eq!(app["memories"], 2);
    assert_eq!(
        app["index"],
        serde_json::json!({"lines": 2, "units": app["index"]["units"], "truncated": false})
    );
    assert_eq!(app["lint"], serde_json::json!({"errors": 0, "warnings": 0}));
    let wt = row(&doc, &src.join("app-wt"));
    assert_eq!(flags(wt), ["split"]);

    let old = row(&doc, &home_dir.join("old/tool"));
    assert_eq!(flags(old), ["orphaned", "moved"]);
    let moved = &old["flags"][1];
    assert_eq!(moved["evidence"]["by"], "directory_name");
    assert_eq!(
        moved["evidence"]["live_project"],
        src.join("tool").display().to_string()
    );
    assert_eq!(moved["related"], serde_json::json!([key(&src.join("tool"))]));
    // The live project has no memory dir: a row only with --all, and no flag.
    assert_eq!(flags(row(&doc, &src.join("tool"))), Vec::<String>::new());

    assert_eq!(flags(row(&doc, &src.join("my_lib.v2"))), Vec::<String>::new());
    assert_eq!(flags(row(&doc, &home_dir.join("old/my_lib.v2"))), ["orphaned"]);

    let redir = row(&doc, &src.join("redir"));
    assert_eq!(flags(redir), ["redirected"]);
    let ev = &redir["flags"][0]["evidence"];
    assert_eq!(ev["stranded"], 3);
    assert_eq!(
        ev["reads"],
        format!("{}/", h_root(&home_dir).join("elsewhere").display())
    );
    let settings_row = rows(&doc)
        .iter()
        .find(|r| r["key"].is_null())
        .expect("the autoMemoryDirectory dir is a row");
    assert_eq!(settings_row["project_path_source"], "settings");
    assert_eq!(settings_row["project_path"], src.join("redir").display().to_string());
    assert_eq!(flags(settings_row), Vec::<String>::new());

    let off = row(&doc, &src.join("off"));
    assert_eq!(flags(off), ["disabled"]);
    assert!(
        off["flags"][0]["evidence"]["lever"]
            .as_str()
            .unwrap()
            .starts_with("autoMemoryEnabled=false in ")
    );

    let k = sanitize(&long.to_string_lossy());
    let long_rows: Vec<&Value> = rows(&doc)
        .iter()
        .filter(|r| r["project_path"] == long.display().to_string())
        .collect();
    assert_eq!(long_rows.len(), 2);
    for r in long_rows {
        assert_eq!(flags(r), ["split"]);
        let ev = &r["flags"][0]["evidence"];
        assert_eq!(ev["reason"], "hash");
        let variant = if r["key"] == k.wyhash.as_str() {
            "wyhash"
        } else {
            "djb2"
        };
        assert_eq!(ev["variant"], variant);
    }

    let shared = row(&doc, &src.join("a_b"));
    assert_eq!(flags(shared), ["shared-key"]);
    assert_eq!(
        shared["flags"][0]["related"],
        serde_json::json!([
            src.join("a_b").display().to_string(),
            src.join("a-b").display().to_string()
        ])
    );
}

fn h_root(home: &Path) -> PathBuf {
    home.parent().unwrap().to_path_buf()
}

#[test]
fn rows_are_newest_first_and_empty_dirs_need_all() {
    let h = home();
    let src = h.src.clone();
    let run = h.env.args(["projects", "--json"]).run().success();
    let doc = run.json();
    let changes: Vec<&str> = rows(&doc).iter().map(|r| r["last_change"].as_str().unwrap()).collect();
    let mut sorted = changes.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(changes, sorted);
    assert!(rows(&doc).iter().all(|r| r["memories"].as_u64().unwrap() > 0));
    assert!(
        !rows(&doc)
            .iter()
            .any(|r| r["project_path"] == src.join("tool").display().to_string())
    );
}

#[test]
fn piped_output_is_one_record_per_row() {
    let h = home();
    let src = h.src.clone();
    let run = h.env.args(["projects"]).run().success();
    let app = run
        .stdout
        .lines()
        .find(|l| l.starts_with(&format!("{}\t", key(&src.join("app")))))
        .unwrap();
    assert_eq!(
        app,
        format!(
            "{}\t{}\t2\t2\tfalse\t0\t0\tsplit",
            key(&src.join("app")),
            src.join("app").display()
        )
    );
    let lib = run.stdout.lines().find(|l| l.contains("my_lib.v2")).unwrap();
    assert!(lib.ends_with("\t1\t1\tfalse\t0\t0\t-"), "{lib}");
    assert!(run.stdout.lines().all(|l| l.split('\t').count() == 8));
}

#[test]
fn a_key_without_transcripts_gets_a_marked_guess() {
    let env = Env::new().resolved();
    let real = env.root().join("some_where");
    fs::create_dir_all(&real).unwrap();
    let projects = env.home().join(".claude/projects");
    memories(&projects.join(key(&real)).join("memory"), &["g"], 1.0);
    // A Windows key and its `_` variant, no transcripts: guesses that match nothing.
    memories(&projects.join("C--Users-x-my_proj").join("memory"), &["w1"], 2.0);
    memories(&projects.join("C--Users-x-my-proj").join("memory"), &["w2"], 3.0);
    let run = env.args(["projects", "--json"]).run().success();
    let doc = run.json();
    let r = &rows(&doc)[0];
    assert_eq!(r["project_path"], real.display().to_string());
    assert_eq!(r["project_path_source"], "guess");
    assert_eq!(flags(r), Vec::<String>::new());
    for r in &rows(&doc)[1..] {
        assert_eq!(flags(r), ["orphaned", "split"]);
        assert_eq!(r["flags"][1]["evidence"]["reason"], "underscore");
    }
}

#[test]
fn a_fifo_transcript_never_blocks() {
    let env = Env::new().resolved();
    let dir = env.home().join(".claude/projects/-x-y");
    memories(&dir.join("memory"), &["f"], 1.0);
    let fifo = dir.join("11111111-1111-1111-1111-111111111111.jsonl");
    rustix::fs::mkfifoat(rustix::fs::CWD, &fifo, rustix::fs::Mode::from_raw_mode(0o600)).unwrap();
    let run = env.args(["projects", "--json"]).run().success();
    assert_eq!(rows(&run.json())[0]["project_path_source"], "guess");
}

#[test]
fn the_history_store_names_dirs_and_identities() {
    let env = Env::new().resolved();
    let mem = env.root().join("kept");
    memories(&mem, &["h"], 1.0);
    let store = env.root().join("state/memctl/history/kept-0000.git");
    fs::create_dir_all(&store).unwrap();
    fs::write(
        store.join("config"),
        format!(
            "[core]\n\tbare = true\n[memctl]\n\tformat = 1\n\tmemoryDir = {:?}\n\tprojectRoot = \"/gone/app\"\n\tidentity = github.com/alice/app\n",
            mem.display().to_string()
        ),
    )
    .unwrap();
    let run = env.args(["projects", "--json"]).run().success();
    let doc = run.json();
    let r = &rows(&doc)[0];
    assert_eq!(r["memory_dir"], format!("{}/", mem.display()));
    assert_eq!(r["project_path_source"], "history");
    assert_eq!(r["identity"], "github.com/alice/app");
    assert_eq!(flags(r), ["orphaned"]);
}

#[test]
fn the_terminal_table_fits_40_60_and_80_columns() {
    for width in [40, 60, 80] {
        let h = home();
        let env = h.env.env("COLUMNS", width.to_string()).env("NO_COLOR", "1");
        let out = run_in_pty(&env, &["projects"], &[]);
        let lines = crate::support::pty_lines(&out);
        assert!(lines[0].starts_with("PROJECT"), "{out}");
        for l in &lines {
            assert!(crate::support::fits(l, width), "wider than {width}: {l:?}\n{out}");
        }
        assert!(out.contains("redirected: 3 memories stranded"), "{out}");
    }
}

#[test]
fn path_explain_warns_of_another_key_for_the_same_repository() {
    let h = home();
    let src = h.src.clone();
    let explain = |project: &Path| {
        let out = h
            .env
            .command()
            .args(["--project", project.to_str().unwrap(), "path", "--explain"])
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    // The worktree's own key holds a memory of src/app's repository.
    let app = explain(&src.join("app"));
    assert!(
        app.contains(&format!(
            "another key holds memories for this repository: {}",
            key(&src.join("app-wt"))
        )),
        "{app}"
    );
    assert!(app.contains("memctl projects merge --"), "{app}");
    // old/tool moved to src/tool: its memories wait under the old key.
    let tool = explain(&src.join("tool"));
    assert!(
        tool.contains(&format!(
            "this project looks moved: {}",
            key(&h.env.home().join("old/tool"))
        )),
        "{tool}"
    );
    // A project with no twin: quiet.
    let lib = explain(&src.join("my_lib.v2"));
    assert!(!lib.contains("another key") && !lib.contains("looks moved"), "{lib}");
}

/// v3 (SPEC §2.13, §2.14; memctl choice): `projects --json` lists the agent memory
/// dirs that exist (user scope under the memory base, project and local scopes under
/// each known project) and what CLAUDE_MEMORY_STORES configures, with recall mode.
#[test]
fn agent_memory_dirs_and_memory_stores_are_listed() {
    let env = Env::new();
    let proj = env.root().join("app");
    fs::create_dir_all(proj.join(".claude/agent-memory/reviewer")).unwrap();
    fs::write(
        proj.join(".claude/agent-memory/reviewer/MEMORY.md"),
        "- [a](a.md) — a\n",
    )
    .unwrap();
    fs::write(proj.join(".claude/agent-memory/reviewer/a.md"), "---\nname: a\n---\n").unwrap();
    let user_agent = env.home().join(".claude/agent-memory/planner");
    fs::create_dir_all(&user_agent).unwrap();
    let k = key(&proj);
    memories(
        &env.home().join(".claude/projects").join(&k).join("memory"),
        &["one"],
        2.0,
    );
    transcript(&env, &k, 1, &proj, 1.0);
    let doc = env
        .env(
            "CLAUDE_MEMORY_STORES",
            r#"["/orgs/acme/shared", {"path": "/u/me", "scope": "user", "mode": "ro"}]"#,
        )
        .args(["projects", "--json"])
        .run()
        .success()
        .json();
    let agents: Vec<(String, String, u64, bool)> = doc["agent_memory_dirs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["scope"].as_str().unwrap().to_string(),
                a["agent"].as_str().unwrap().to_string(),
                a["memories"].as_u64().unwrap(),
                a["has_index"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        agents,
        [
            ("user".to_string(), "planner".to_string(), 0, false),
            ("project".to_string(), "reviewer".to_string(), 1, true)
        ]
    );
    assert_eq!(
        doc["agent_memory_dirs"][1]["dir"],
        format!("{}/.claude/agent-memory/reviewer/", proj.display())
    );
    let stores = &doc["memory_stores"];
    assert_eq!(stores["set"], true);
    assert_eq!(stores["error"], Value::Null);
    assert_eq!(stores["stores"][0]["mount"], "shared");
    assert_eq!(stores["stores"][0]["scope"], "team");
    assert_eq!(stores["stores"][1]["mode"], "ro");
    assert_eq!(
        stores["recall_mode"],
        serde_json::json!({"value": true, "lever": "env CLAUDE_MEMORY_STORES"})
    );
}

/// An invalid CLAUDE_MEMORY_STORES is a warning, set but store-less (SPEC §2.13).
#[test]
fn an_invalid_store_list_is_a_warning() {
    let doc = Env::new()
        .env("CLAUDE_MEMORY_STORES", r#"["/a/x", "/b/x"]"#)
        .args(["projects", "--json"])
        .run()
        .success()
        .json();
    assert_eq!(
        doc["memory_stores"]["error"],
        "CLAUDE_MEMORY_STORES has duplicate mount: x"
    );
    assert_eq!(doc["memory_stores"]["recall_mode"]["value"], true);
    assert!(
        doc["warnings"][0].as_str().unwrap().contains("duplicate mount: x"),
        "{}",
        doc["warnings"]
    );
    let doc = Env::new().args(["projects", "--json"]).run().success().json();
    assert_eq!(
        doc["memory_stores"],
        serde_json::json!({"set": false, "stores": [], "error": null, "recall_mode": {"value": false, "lever": null}})
    );
    assert_eq!(doc["agent_memory_dirs"], serde_json::json!([]));
}

#[test]
fn a_live_repo_with_an_origin_has_its_identity_before_memctl_wrote_to_it() {
    // issue 32 point 14, SPEC §9 and §11.1: the live identity is derived, so an
    // orphaned row whose history recorded the same identity is flagged `moved`.
    let env = Env::new().resolved();
    let projects = env.home().join(".claude/projects");
    let app = env.home().join("src/app");
    crate::support::checkout(&app, "git@github.com:alice/app.git");
    memories(&projects.join(key(&app)).join("memory"), &["live_note"], 2.0);
    transcript(&env, &key(&app), 1, &app, 1.0);
    let old = env.root().join("kept");
    memories(&old, &["old_note"], 24.0 * 30.0);
    let store = env.root().join("state/memctl/history/kept-0000.git");
    fs::create_dir_all(&store).unwrap();
    fs::write(
        store.join("config"),
        format!(
            "[core]\n\tbare = true\n[memctl]\n\tformat = 1\n\tmemoryDir = {:?}\n\tprojectRoot = \"/gone/app\"\n\tidentity = github.com/alice/app\n",
            old.display().to_string()
        ),
    )
    .unwrap();
    let run = env.args(["projects", "--json"]).run().success();
    let doc = run.json();
    assert_eq!(row(&doc, &app)["identity"], "github.com/alice/app", "{doc:#}");
    let orphan = rows(&doc).iter().find(|r| r["project_path"] == "/gone/app").unwrap();
    assert_eq!(flags(orphan), ["orphaned", "moved"], "{doc:#}");
    let moved = &orphan["flags"][1];
    assert_eq!(moved["related"][0], key(&app));
}

#[test]
fn two_real_directories_that_differ_in_case_are_not_a_split() {
    // issue 32 point 16, SPEC §9: `~/Src/App` and `~/src/app` on a case-sensitive
    // filesystem are two projects; a case variant whose path is gone still is one.
    let env = Env::new().resolved();
    let projects = env.home().join(".claude/projects");
    let upper = env.home().join("Src/App");
    let lower = env.home().join("src/app");
    fs::create_dir_all(&upper).unwrap();
    fs::create_dir_all(&lower).unwrap();
    if fs::metadata(env.home().join("SRC/app")).is_ok() {
        return; // a case-insensitive filesystem: one directory
    }
    for (p, n) in [(&upper, "upper"), (&lower, "lower")] {
        memories(&projects.join(key(p)).join("memory"), &[n], 2.0);
        transcript(&env, &key(p), 1, p, 1.0);
    }
    let gone = env.home().join("SRC/APP");
    memories(&projects.join(key(&gone)).join("memory"), &["gone"], 3.0);
    transcript(&env, &key(&gone), 1, &gone, 3.0);
    let run = env.args(["projects", "--json"]).run().success();
    let doc = run.json();
    assert_eq!(flags(row(&doc, &upper)), ["split"], "{doc:#}");
    assert_eq!(
        row(&doc, &upper)["flags"][0]["related"],
        serde_json::json!([key(&gone)])
    );
    assert_eq!(flags(row(&doc, &lower)), ["split"], "{doc:#}");
    assert_eq!(
        row(&doc, &lower)["flags"][0]["related"],
        serde_json::json!([key(&gone)])
    );
    let g = row(&doc, &gone);
    assert_eq!(flags(g), ["orphaned", "split"], "{doc:#}");
    assert_eq!(g["flags"][1]["evidence"]["reason"], "case");
}

#[test]
fn a_user_memory_dir_redirects_rows_whose_path_is_a_guess() {
    // issue 32 point 17, SPEC §9: with a user-level autoMemoryDirectory, a keyed dir
    // with memories and no transcript (its project path a guess) is stranded.
    let env = Env::new().resolved();
    let projects = env.home().join(".claude/projects");
    let m3 = env.home().join("m3");
    memories(&m3, &["new_note"], 1.0);
    let user = env.home().join(".claude/settings.json");
    fs::create_dir_all(user.parent().unwrap()).unwrap();
    fs::write(&user, "{\"autoMemoryDirectory\": \"~/m3\"}\n").unwrap();
    let gone = env.home().join("src/gone");
    memories(&projects.join(key(&gone)).join("memory"), &["a", "b"], 5.0);
    let run = env.args(["projects", "--json"]).run().success();
    let doc = run.json();
    let r = rows(&doc)
        .iter()
        .find(|r| r["key"] == key(&gone))
        .unwrap_or_else(|| panic!("{doc:#}"));
    assert_eq!(r["project_path_source"], "guess");
    assert!(flags(r).contains(&"redirected".to_string()), "{doc:#}");
    let f = r["flags"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["flag"] == "redirected")
        .unwrap();
    assert_eq!(f["related"], serde_json::json!([format!("{}/", m3.display())]));
    assert_eq!(
        f["detail"],
        format!(
            "2 memories stranded: Claude Code reads {}/ instead (autoMemoryDirectory ~/m3 in {})",
            m3.display(),
            user.display()
        )
    );
}

#[test]
fn two_clones_of_one_remote_are_a_split_by_identity() {
    // issue 32 point 14: two clones of one remote (memctl never wrote to either).
    let env = Env::new().resolved();
    let projects = env.home().join(".claude/projects");
    let a = env.home().join("src/app");
    let b = env.home().join("work/app-copy");
    for (p, n) in [(&a, "note_a"), (&b, "note_b")] {
        crate::support::checkout(p, "https://github.com/alice/app.git");
        memories(&projects.join(key(p)).join("memory"), &[n], 2.0);
        transcript(&env, &key(p), 1, p, 1.0);
    }
    let run = env.args(["projects", "--json"]).run().success();
    let doc = run.json();
    for (p, other) in [(&a, &b), (&b, &a)] {
        let r = row(&doc, p);
        assert_eq!(r["identity"], "github.com/alice/app");
        assert_eq!(flags(r), ["split"], "{doc:#}");
        assert_eq!(r["flags"][0]["related"], serde_json::json!([key(other)]));
        assert_eq!(r["flags"][0]["evidence"]["reason"], "identity");
    }
}
