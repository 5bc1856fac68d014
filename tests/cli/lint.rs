//! `memctl lint` (SPEC §3.9): every rule fires on a fixture made for it and stays
//! quiet on its corrected twin; the output formats, options and `--fix`.

use std::fs;

use crate::support::{Env, set_age};

const GOOD: &str = "---\nname: good\ndescription: A good memory\ntype: user\n---\n\nBody.\n";
const GOOD_INDEX: &str = "- [Good](good.md) — A good memory\n";

/// A dir with one good, indexed memory.
fn good() -> Env {
    Env::new().memory("good.md", GOOD).index(GOOD_INDEX)
}

/// A dir whose only memory is `text` (indexed as `m.md`).
fn one(text: &str) -> Env {
    Env::new().memory("m.md", text).index("- [M](m.md) — m\n")
}

fn ids(env: Env) -> Vec<String> {
    let run = env.args(["lint", "--json"]).run();
    assert!(run.code == 0 || run.code == 1, "exit {}: {}", run.code, run.stderr);
    run.json()["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_str().unwrap().to_string())
        .collect()
}

fn severity_of(env: Env, id: &str) -> String {
    let doc = env.args(["lint", "--json", "--rule", id]).run().json();
    doc["findings"][0]["severity"].as_str().unwrap_or("none").to_string()
}

#[track_caller]
fn case(id: &str, fires: Env, quiet: Env) {
    let hit = ids(fires);
    assert!(hit.iter().any(|x| x == id), "{id} should fire, got {hit:?}");
    let miss = ids(quiet);
    assert!(!miss.iter().any(|x| x == id), "{id} should stay quiet, got {miss:?}");
}

fn with_fm(fields: &str, body: &str) -> String {
    format!("---\n{fields}---\n\n{body}")
}

#[test]
fn frontmatter_rules() {
    case("ML101", one("---\ndescription: - dash\ntype: user\n---\n"), good());
    case("ML101", one("---\n- a\n- b\n---\n"), good());
    case(
        "ML102",
        one("<!-- banner -->\n---\nname: x\ndescription: d\ntype: user\n---\nbody\n"),
        good(),
    );
    case("ML103", one("just text\n"), good());
    case("ML103", one("---\n---\nbody\n"), good());
    let late = format!("---\nname: n\n{}description: d\ntype: user\n---\n", "# c\n".repeat(30));
    case("ML104", one(&late), good());
    case("ML105", one(&with_fm("name: n\ntype: user\n", "b\n")), good());
    case(
        "ML105",
        one(&with_fm("name: n\ndescription: \"\"\ntype: user\n", "b\n")),
        good(),
    );
    // (2.1.332) A non-string description is ML106's, not ML105's.
    case(
        "ML106",
        one(&with_fm("name: n\ndescription: [a, b]\ntype: user\n", "b\n")),
        good(),
    );
    case(
        "ML106",
        one(&with_fm("name: n\ndescription: 42\ntype: user\n", "b\n")),
        good(),
    );
    case(
        "ML106",
        one(&with_fm("name: n\ndescription: |\n  two\n  lines\ntype: user\n", "b\n")),
        good(),
    );
    case("ML107", one(&with_fm("name: n\ndescription: d\n", "b\n")), good());
    case(
        "ML108",
        one(&with_fm("name: n\ndescription: d\ntype: User\n", "b\n")),
        good(),
    );
    // (2.1.332) A top-level type that `metadata.type` overrides; a nested type
    // alone is the shape Claude Code writes and gets no finding.
    case(
        "ML109",
        one(&with_fm(
            "name: n\ndescription: d\ntype: user\nmetadata:\n  type: project\n",
            "b\n",
        )),
        one(&with_fm("name: n\ndescription: d\nmetadata:\n  type: user\n", "b\n")),
    );
    case(
        "ML109",
        one(&with_fm(
            "name: n\ndescription: d\ntype: user\nmetadata:\n  type:\n",
            "b\n",
        )),
        one(&with_fm(
            "name: n\ndescription: d\ntype: user\nmetadata:\n  type: user\n",
            "b\n",
        )),
    );
    case(
        "ML137",
        one(&with_fm("name: Testing policy\ndescription: d\ntype: user\n", "b\n")),
        one(&with_fm(
            "name: Testing policy\ndescription: d\nmetadata:\n  type: user\n  originSessionId: abc\n",
            "b\n",
        )),
    );
    case(
        "ML136",
        Env::new()
            .memory("logs/x.md", GOOD)
            .memory(".hidden/y.md", GOOD)
            .index("- [x](logs/x.md) — x\n- [y](.hidden/y.md) — y\n"),
        Env::new()
            .memory("sub/logs/x.md", GOOD)
            .index("- [x](sub/logs/x.md) — x\n"),
    );
    case("ML110", one(&with_fm("description: d\ntype: user\n", "b\n")), good());
    case(
        "ML111",
        one(&with_fm(
            "name: Project Context: SS\ndescription: d\ntype: user\n",
            "b\n",
        )),
        one(&with_fm(
            "name: \"Project Context: SS\"\ndescription: d\ntype: user\n",
            "b\n",
        )),
    );
    case(
        "ML112",
        one(&with_fm("name: n\ndescription: use C# #tags\ntype: user\n", "b\n")),
        one(&with_fm("name: n\ndescription: \"use C# #tags\"\ntype: user\n", "b\n")),
    );
    case(
        "ML113",
        one(&with_fm("name: a\nname: b\ndescription: d\ntype: user\n", "b\n")),
        good(),
    );
    case(
        "ML126",
        one("---\nname: n\ndescription: x\n  ---\ntype: user\n---\nb\n"),
        good(),
    );
    case(
        "ML126",
        one("---\nname: n\ndescription: a---b\ntype: user\n---\nb\n"),
        good(),
    );
}

#[test]
fn problems_after_a_parse_failure_are_not_reported_twice() {
    let hit = ids(one("---\ndescription: - dash\ntype: user\n---\n"));
    assert!(
        !hit.iter().any(|x| x == "ML105" || x == "ML107" || x == "ML110"),
        "{hit:?}"
    );
    let empty = ids(one("---\n---\nbody\n"));
    assert!(
        !empty.iter().any(|x| x == "ML105" || x == "ML107" || x == "ML110"),
        "{empty:?}"
    );
}

#[test]
fn type_and_content_rules() {
    let fb = |body: &str| with_fm("name: n\ndescription: d\ntype: feedback\n", body);
    let why_how = "Rule.\n\n**Why:** w\n**How to apply:** h\n";
    case(
        "ML114",
        Env::new()
            .memory("user_x.md", &fb(why_how))
            .index("- [X](user_x.md) — x\n"),
        Env::new()
            .memory("feedback_x.md", &fb(why_how))
            .index("- [X](feedback_x.md) — x\n"),
    );
    case("ML115", one(&fb("Rule only.\n")), one(&fb(why_how)));
    case(
        "ML116",
        one(&fb(&format!("Ship tomorrow.\n{why_how}"))),
        one(&fb(&format!("Ship 2026-03-11.\n{why_how}"))),
    );
    let code = format!("```\n{}```\n", "let x = 1;\n".repeat(6));
    case(
        "ML117",
        one(&with_fm("name: n\ndescription: d\ntype: user\n", &code)),
        good(),
    );
    let commits = "a1b2c3d4 fixed it\nthen 0f9e8d7c broke it\nreverted in 1234abcd\n";
    case(
        "ML118",
        one(&with_fm("name: n\ndescription: d\ntype: user\n", commits)),
        good(),
    );
    case(
        "ML120",
        one(&with_fm("name: WIP auth refactor\ndescription: d\ntype: user\n", "b\n")),
        good(),
    );
    case(
        "ML121",
        one(&with_fm(
            "name: n\ndescription: d\ntype: user\n",
            &format!("token ghp_{}\n", "a".repeat(30)),
        )),
        good(),
    );
    case(
        "ML122",
        one(&with_fm("name: n\ndescription: d\ntype: user\n", &"word ".repeat(1000))),
        good(),
    );
    case(
        "ML125",
        one(&with_fm("name: n\ndescription: d\ntype: user\n", "body\n</content>\n")),
        good(),
    );
}

#[test]
fn relative_dates_are_warnings_in_project_memories_and_infos_elsewhere() {
    let project = with_fm("name: n\ndescription: d\ntype: project\n", "Due tomorrow.\n");
    assert_eq!(severity_of(one(&project), "ML116"), "warning");
    let user = with_fm("name: n\ndescription: d\ntype: user\n", "Due tomorrow.\n");
    assert_eq!(severity_of(one(&user), "ML116"), "info");
}

#[test]
fn secret_findings_name_the_kind_of_token_on_its_line() {
    let body = format!("intro\nkey AKIA{}\n", "A".repeat(16));
    let doc = one(&with_fm("name: n\ndescription: d\ntype: user\n", &body))
        .args(["lint", "--json", "--rule", "ML121"])
        .run()
        .json();
    let f = &doc["findings"][0];
    assert_eq!(f["line"], 8, "{doc}");
    assert_eq!(
        f["message"],
        "looks like an AWS access key; memory is loaded into model context: remove it"
    );
}

/// ML119 on a varied fixture (issue 31: the CLAUDE.md texts are indexed once per
/// run instead of searched for every body line): whitespace collapsed on both
/// sides, a line across two CLAUDE.md lines, each of the three files, a line across
/// two files (no hit), a short line (never), non-ASCII text and whitespace, CRLF,
/// the first hit of a file only. The findings are the ones the per-line search gave.
#[test]
fn content_in_claude_md_findings_on_a_varied_fixture() {
    let fm = "name: n\ndescription: d\ntype: user\n";
    let mut claude = String::from("# Rules\n\n");
    for i in 0..300 {
        claude.push_str(&format!(
            "- Rule {i}: run `cargo test -p crate{i}` before pushing; keep it formatted\n"
        ));
    }
    claude.push_str("Configuração padrão:\u{a0}não é necessário revisão antes do deploy em produção.\n");
    claude.push_str("The end of the root file, which continues in the other one");
    let env = Env::new()
        .memory("a.md", &with_fm(fm, "intro\n\trun  `cargo test -p crate7`   before pushing; keep it formatted\n"))
        .memory("b.md", &with_fm(fm, "keep it formatted - Rule 12: run `cargo test -p crate12` before\r\nlater\n"))
        .memory("c.md", &with_fm(fm, "Rule 7: run `cargo test -p crate8` before pushing; keep it formatted\n"))
        .memory("d.md", &with_fm(fm, "Configuração padrão: não é necessário revisão antes do deploy\n"))
        .memory("e.md", &with_fm(fm, "continues in the other one. Local rules for this checkout\n"))
        .memory("f.md", &with_fm(fm, "Local rules for this checkout: never push on Fridays, ever.\n"))
        .memory("g.md", &with_fm(fm, "Only in the dot-claude file: the staging database is shared\n"))
        .memory("h.md", &with_fm(fm, "short: `cargo test -p crate7`\nRule 9: run `cargo test -p crate9` before\nRule 10: run `cargo test -p crate10` before\n"))
        .memory("i.md", &with_fm(fm, &"x".repeat(200)))
        .index("- [A](a.md) — a\n")
        .file("proj/CLAUDE.md", claude.as_bytes())
        .file("proj/.claude/CLAUDE.md", b"Local rules for this checkout: never push on Fridays, ever.\n\nOnly in the dot-claude file:   the staging\n database is shared.\n");
    let proj = env.root().join("proj");
    let doc = env
        .arg("--project")
        .arg(&proj)
        .args(["lint", "--json", "--rule", "ML119"])
        .run()
        .json();
    let hits: Vec<String> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            format!(
                "{}:{}",
                f["path"].as_str().unwrap().rsplit('/').next().unwrap(),
                f["line"]
            )
        })
        .collect();
    assert_eq!(
        hits,
        ["a.md:8", "b.md:7", "d.md:7", "f.md:7", "g.md:7", "h.md:8"],
        "{doc}"
    );
}

#[test]
fn content_in_claude_md_needs_a_project() {
    let line = "Always run the integration suite against the staging database first.";
    let env = one(&with_fm("name: n\ndescription: d\ntype: user\n", &format!("{line}\n")))
        .file("proj/CLAUDE.md", format!("# Rules\n\n{line}\n").as_bytes());
    let proj = env.root().join("proj");
    let hit = ids(env.arg("--project").arg(&proj));
    assert!(hit.contains(&"ML119".to_string()), "{hit:?}");
    let env = one(&with_fm(
        "name: n\ndescription: d\ntype: user\n",
        "Something else entirely that is long enough to count.\n",
    ))
    .file("proj/CLAUDE.md", format!("{line}\n").as_bytes());
    let proj = env.root().join("proj");
    assert!(!ids(env.arg("--project").arg(&proj)).contains(&"ML119".to_string()));
    let run = one("x\n").args(["lint"]).run();
    run.stderr_has("memctl: note: ML119 skipped: no project");
}

#[test]
fn byte_level_rules() {
    case(
        "ML123",
        Env::new()
            .file(
                "mem/m.md",
                b"---\nname: n\ndescription: d\ntype: user\n---\n\xff\xfe bad\n",
            )
            .index("- [M](m.md) — m\n"),
        good(),
    );
    case("ML124", one(&format!("\u{feff}{GOOD}")), good());
    case(
        "ML133",
        Env::new().file("mem/m.md", b"bin\0ary\n").index("- [M](m.md) — m\n"),
        good(),
    );
}

#[test]
fn walk_rules() {
    let mut many = Env::new();
    let mut index = String::new();
    for i in 0..201 {
        many = many.memory_aged(&format!("m{i:03}.md"), GOOD, f64::from(i));
        index.push_str(&format!("- [M](m{i:03}.md) — m\n"));
    }
    case("ML127", many.index(&index), good());
    use std::os::unix::ffi::OsStrExt;
    let bad_name = good();
    fs::write(bad_name.dir().join(std::ffi::OsStr::from_bytes(b"x\xff.md")), GOOD).unwrap();
    case("ML128", bad_name, good());
    case("ML129", good().memory("upper.MD", GOOD), good());
    let escaping = good().file("outside/x.md", GOOD.as_bytes());
    std::os::unix::fs::symlink(escaping.root().join("outside/x.md"), escaping.dir().join("x.md")).unwrap();
    case("ML130", escaping, good());
    let dangling = good();
    std::os::unix::fs::symlink(dangling.root().join("nowhere.md"), dangling.dir().join("gone.md")).unwrap();
    case("ML131", dangling, good());
    let dir_md = good();
    fs::create_dir(dir_md.dir().join("dir.md")).unwrap();
    assert_eq!(severity_of(dir_md, "ML131"), "info");
}

/// A PID that no longer runs: a child that has exited and been reaped.
fn dead_pid() -> u32 {
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    pid
}

#[test]
fn stale_temp_files() {
    let pid = dead_pid();
    let stale = good();
    let tmp = stale.dir().join(format!(".MEMORY.md.{pid}.0123abcd.tmp"));
    fs::write(&tmp, "partial").unwrap();
    set_age(&tmp, 2.0);
    let fresh = good();
    let tmp2 = fresh.dir().join(format!(".MEMORY.md.{pid}.0123abcd.tmp"));
    fs::write(&tmp2, "partial").unwrap();
    set_age(&tmp2, 0.5);
    case("ML132", stale, fresh);
    let live = good();
    let tmp3 = live
        .dir()
        .join(format!(".MEMORY.md.{}.0123abcd.tmp", std::process::id()));
    fs::write(&tmp3, "partial").unwrap();
    set_age(&tmp3, 2.0);
    assert!(!ids(live).contains(&"ML132".to_string()));
}

#[test]
fn index_link_rules() {
    case(
        "ML201",
        good().index(&format!("{GOOD_INDEX}- [Gone](gone.md) — x\n")),
        good(),
    );
    let run = good()
        .index("- [Good](GOOD.md) — case\n")
        .args(["lint", "--json", "--rule", "ML201"])
        .run()
        .json();
    assert!(
        run["findings"][0]["message"]
            .as_str()
            .unwrap()
            .ends_with("case differs from good.md"),
        "{run}"
    );
    case(
        "ML202",
        good().index(&format!("{GOOD_INDEX}- [Up](../up.md) — x\n")),
        good(),
    );
    case("ML203", good().memory("extra.md", GOOD), good());
    case(
        "ML209",
        good().index(&format!("{GOOD_INDEX}- [Again](good.md) — again\n")),
        good(),
    );
    case("ML210", good().index("- **[Good](good.md)** — bold\n"), good());
    case(
        "ML211",
        good().index(&format!("# Index\n{GOOD_INDEX}Remember to always deploy on Fridays.\n")),
        good().index(&format!("# Index\n\n> quote\n---\n<!-- note -->\n{GOOD_INDEX}")),
    );
    case(
        "ML212",
        good().index(&format!("{GOOD_INDEX}<!-- never closed\n")),
        good().index(&format!("{GOOD_INDEX}<!-- closed -->\n")),
    );
    case("ML213", Env::new().memory("good.md", GOOD), good());
    case(
        "ML214",
        good().index(&format!("{GOOD_INDEX}- [Code](src/main.rs) — x\n")),
        good(),
    );
    case("ML215", good().index(&GOOD_INDEX.replace('\n', "\r\n")), good());
    case(
        "ML208",
        good().index(&format!("---\ntitle: idx\n---\n{GOOD_INDEX}")),
        good(),
    );
}

#[test]
fn unindexed_files_reachable_from_indexed_ones_are_infos() {
    let linked = with_fm(
        "name: good\ndescription: d\ntype: user\n",
        "See [extra](extra.md) and [[Wiki Target]].\n",
    );
    let env = Env::new()
        .memory("good.md", &linked)
        .memory("extra.md", GOOD)
        .memory(
            "wiki.md",
            &with_fm("name: Wiki Target\ndescription: d\ntype: user\n", "b\n"),
        )
        .memory("lonely.md", GOOD)
        .index(GOOD_INDEX);
    let doc = env.args(["lint", "--json", "--rule", "ML203"]).run().json();
    let sev: Vec<(String, String)> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().rsplit('/').next().unwrap().to_string(),
                f["severity"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        sev,
        vec![
            ("extra.md".into(), "info".into()),
            ("lonely.md".into(), "warning".into()),
            ("wiki.md".into(), "info".into())
        ]
    );
}

#[test]
fn team_files_belong_to_the_team_index_only_with_a_team_store() {
    const TEAM_STORE: &str = r#"[{"path": "/org/team", "scope": "team"}]"#;
    let env = good()
        .memory("team/t.md", GOOD)
        .memory("team/MEMORY.md", "- [T](t.md) — t\n")
        .memory("logs/2026/03/2026-03-05.md", "log\n")
        .env("CLAUDE_MEMORY_STORES", TEAM_STORE);
    let hit = ids(env);
    assert!(!hit.contains(&"ML203".to_string()), "{hit:?}");
    let env = good()
        .memory("team/t.md", GOOD)
        .memory("team/MEMORY.md", "# nothing\n")
        .env("CLAUDE_MEMORY_STORES", TEAM_STORE);
    let doc = env.args(["lint", "--json", "--rule", "ML203"]).run().json();
    assert_eq!(
        doc["findings"][0]["message"],
        "not in team/MEMORY.md: Claude Code never loads it; add an index line (`memctl lint --fix`)"
    );
    // Without a team store (SPEC §2.13) Claude Code 2.1.332 never loads
    // team/MEMORY.md (ML217) and team/t.md is a memory of the main index.
    let env = good()
        .memory("team/t.md", GOOD)
        .memory("team/MEMORY.md", "- [T](t.md) — t\n");
    let doc = env
        .args(["lint", "--json", "--rule", "ML203", "--rule", "ML217"])
        .run()
        .json();
    let found: Vec<(&str, &str)> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["id"].as_str().unwrap(), f["path"].as_str().unwrap()))
        .collect();
    assert_eq!(
        found,
        [("ML217", "mem/team/MEMORY.md"), ("ML203", "mem/team/t.md")],
        "{doc}"
    );
    let team = good()
        .memory("team/MEMORY.md", "- [T](t.md) — t\n")
        .args(["--team", "lint", "--json", "--rule", "ML217"])
        .run()
        .json();
    assert_eq!(team["findings"], serde_json::json!([]), "not with --team");
}

#[test]
fn an_oversize_index_loads_nothing() {
    // SPEC §2.7 step 1: Claude Code skips a MEMORY.md over 4 194 304 bytes.
    let line = "- [Good](good.md) — a line of the oversize index\n";
    let big: String = line.repeat((4 << 20) / line.len() + 1);
    let doc = good()
        .index(&big)
        .args(["lint", "--json", "--rule", "ML216"])
        .run()
        .code(1)
        .json();
    assert_eq!(doc["findings"][0]["severity"], "error", "{doc}");
    assert!(
        doc["findings"][0]["message"]
            .as_str()
            .unwrap()
            .contains("(limit: 4 194 304)")
    );
    let fits = big[..(4 << 20) - 100].to_string();
    let doc = good()
        .index(&fits)
        .args(["lint", "--json", "--rule", "ML216"])
        .run()
        .json();
    assert_eq!(doc["findings"], serde_json::json!([]));
}

#[test]
fn a_frontmatter_block_that_swallows_entries_is_an_error() {
    // SPEC §2.4.2: the block ends at the first `---` anywhere.
    let doc = good()
        .index("---\n- [A](a.md) — a\n- [B](b.md) — b --- c\n- [Good](good.md) — c\n")
        .args(["lint", "--json", "--rule", "ML208"])
        .run()
        .json();
    assert_eq!(doc["findings"][0]["severity"], "error", "{doc}");
    let doc = good()
        .index("---\nname: idx\n---\n- [Good](good.md) — g\n")
        .args(["lint", "--json", "--rule", "ML208"])
        .run()
        .json();
    assert_eq!(doc["findings"][0]["severity"], "warning", "{doc}");
}

#[test]
fn index_size_rules() {
    let long = format!("- [Good](good.md) — {}\n", "x".repeat(140));
    assert_eq!(severity_of(good().index(&long), "ML204"), "info");
    let longer = format!("- [Good](good.md) — {}\n", "x".repeat(200));
    assert_eq!(severity_of(good().index(&longer), "ML204"), "warning");
    assert!(!ids(good()).contains(&"ML204".to_string()));
    let lines = |n: usize| (0..n).map(|_| GOOD_INDEX).collect::<String>();
    case("ML205", good().index(&lines(201)), good().index(&lines(150)));
    let big = format!(
        "{GOOD_INDEX}{}",
        format!("- [Good](good.md) — {}\n", "y".repeat(150)).repeat(170)
    );
    case("ML206", good().index(&big), good());
    case("ML207", good().index(&lines(185)), good().index(&lines(170)));
    let quiet = good()
        .index(&lines(185))
        .args(["lint", "--json", "--warn-at", "95"])
        .run()
        .json();
    assert!(!quiet["findings"].as_array().unwrap().iter().any(|f| f["id"] == "ML207"));
}

#[test]
fn over_lines_message_lists_the_dropped_entries() {
    let index: String = (1..=202).map(|i| format!("- [M{i}](good.md) — m\n")).collect();
    let doc = good()
        .index(&index)
        .args(["lint", "--json", "--rule", "ML205"])
        .run()
        .code(1)
        .json();
    assert_eq!(
        doc["findings"][0]["message"],
        "202 lines (limit: 200): entries after line 200 are not loaded: lines 201, 202"
    );
    assert_eq!(doc["findings"][0]["line"], 201);
}

#[test]
fn lock_rules() {
    let future = good();
    let lock = future.dir().join(".consolidate-lock");
    fs::write(&lock, dead_pid().to_string()).unwrap();
    set_age(&lock, -2.0);
    case("ML301", future, good());
    let rolled = good();
    fs::write(rolled.dir().join(".consolidate-lock"), "").unwrap();
    case("ML302", rolled, good());
}

fn project_env(local: Option<&str>, project: Option<&str>, user: Option<&str>) -> Env {
    let env = good();
    if let Some(l) = local {
        fs::create_dir_all(env.root().join("proj/.claude")).unwrap();
        fs::write(env.root().join("proj/.claude/settings.local.json"), l).unwrap();
    }
    if let Some(p) = project {
        fs::create_dir_all(env.root().join("proj/.claude")).unwrap();
        fs::write(env.root().join("proj/.claude/settings.json"), p).unwrap();
    }
    if let Some(u) = user {
        fs::create_dir_all(env.home().join(".claude")).unwrap();
        fs::write(env.home().join(".claude/settings.json"), u).unwrap();
    }
    fs::create_dir_all(env.root().join("proj")).unwrap();
    let proj = env.root().join("proj");
    env.arg("--project").arg(proj)
}

#[test]
fn configuration_rules() {
    case(
        "ML401",
        project_env(None, Some(r#"{"autoMemoryDirectory": "/elsewhere"}"#), None),
        project_env(None, None, None),
    );
    case(
        "ML402",
        project_env(
            Some(r#"{"autoMemoryDirectory": "relative"}"#),
            None,
            Some(r#"{"autoMemoryDirectory": "~/mem"}"#),
        ),
        project_env(None, None, Some(r#"{"autoMemoryDirectory": "~/mem"}"#)),
    );
    case(
        "ML403",
        project_env(None, None, None).env("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "1"),
        project_env(None, None, None),
    );
    let doc = project_env(None, None, None)
        .env("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "1")
        .args(["lint", "--json", "--rule", "ML403"])
        .run()
        .json();
    assert_eq!(doc["findings"][0]["path"], serde_json::Value::Null);
    assert_eq!(doc["findings"][0]["line"], serde_json::Value::Null);
    let text = project_env(None, None, None)
        .env("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "1")
        .args(["lint", "--rule", "ML403"])
        .run();
    assert_eq!(
        text.stdout,
        "-:1:1: info[ML403/memory-disabled]: auto memory is disabled (env CLAUDE_CODE_DISABLE_AUTO_MEMORY=1): Claude Code loads and saves nothing\n"
    );
    let run = good().args(["lint"]).run();
    assert!(run.stderr.contains("ML401–ML403 skipped: no project"));
}

#[test]
fn a_clean_dir_is_clean() {
    good().args(["lint"]).run().success().stdout("").stderr(
        "memctl: note: ML119 skipped: no project (pass --project with --dir to compare with its CLAUDE.md)\nmemctl: note: ML401–ML403 skipped: no project (pass --project with --dir to check the settings)\n0 errors, 0 warnings, 0 infos in 2 files\n",
    );
}

#[test]
fn text_format_and_summary() {
    let env = good()
        .memory("m.md", "---\nname: n\ndescription: d\ntype: User\n---\nb\n")
        .index(&format!("{GOOD_INDEX}- [M](m.md) — m\n"));
    let run = env
        .cwd(Env::new().root())
        .args(["lint", "--rule", "ML108"])
        .run()
        .code(1);
    assert!(run.stdout.ends_with("/mem/m.md:4:1: error[ML108/type-invalid]: type `User` is not one of user, feedback, project, reference (case-sensitive): write `type: user`\n"), "{}", run.stdout);
    assert!(
        run.stdout.starts_with('/'),
        "outside the cwd the path is absolute: {}",
        run.stdout
    );
    assert!(
        run.stderr.ends_with("1 error, 0 warnings, 0 infos in 3 files\n"),
        "{}",
        run.stderr
    );
    let env = good().memory("m.md", "---\nname: n\ndescription: d\ntype: User\n---\nb\n");
    let run = env.args(["lint", "--rule", "ML108"]).run().code(1);
    assert_eq!(
        run.stdout,
        "mem/m.md:4:1: error[ML108/type-invalid]: type `User` is not one of user, feedback, project, reference (case-sensitive): write `type: user`\n"
    );
}

#[test]
fn json_format_fields() {
    let env = good().index(&format!("{GOOD_INDEX}- [Gone](gone.md) — x\n"));
    let d = env.dir_shown();
    let doc = env.args(["lint", "--format", "json"]).run().code(1).json();
    assert_eq!(doc["memory_dir"], d);
    assert_eq!(
        doc["summary"],
        serde_json::json!({"errors": 1, "warnings": 0, "infos": 0, "files": 2})
    );
    let f = &doc["findings"][0];
    assert_eq!(f["id"], "ML201");
    assert_eq!(f["name"], "index-dangling");
    assert_eq!(f["severity"], "error");
    assert_eq!(f["path"], "mem/MEMORY.md");
    assert_eq!(f["abs_path"], format!("{d}MEMORY.md"));
    assert_eq!((f["line"].as_u64(), f["col"].as_u64()), (Some(2), Some(3)));
    assert_eq!(f["message"], "link target gone.md does not exist");
    assert_eq!(f["consequence"], "the model follows a pointer to nothing");
    assert_eq!(f["fixable"], false);
    assert_eq!(doc["fixes"], serde_json::json!([]));
    assert!(
        doc["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w.as_str().unwrap().starts_with("note: ML119 skipped"))
    );
}

#[test]
fn sarif_has_the_required_fields() {
    let env = good()
        .index(&format!("{GOOD_INDEX}- [Gone](gone.md) — x\n"))
        .memory("m.md", "plain\n");
    let run = env.args(["lint", "--format", "sarif"]).run().code(1);
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(doc["version"], "2.1.0");
    assert!(doc["$schema"].as_str().unwrap().contains("sarif-2.1.0"));
    let runs = doc["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1);
    let driver = &runs[0]["tool"]["driver"];
    assert_eq!(driver["name"], "memctl");
    assert_eq!(driver["version"], env!("CARGO_PKG_VERSION"));
    let rules = driver["rules"].as_array().unwrap();
    assert_eq!(rules.len(), memctl::lint::RULES.len());
    for r in rules {
        assert!(r["id"].is_string() && r["name"].is_string());
        assert!(r["shortDescription"]["text"].is_string() && r["fullDescription"]["text"].is_string());
        assert!(["error", "warning", "note"].contains(&r["defaultConfiguration"]["level"].as_str().unwrap()));
    }
    let results = runs[0]["results"].as_array().unwrap();
    assert!(!results.is_empty());
    for r in results {
        let idx = r["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[idx]["id"], r["ruleId"]);
        assert!(["error", "warning", "note"].contains(&r["level"].as_str().unwrap()));
        assert!(r["message"]["text"].is_string());
        let loc = &r["locations"][0]["physicalLocation"];
        assert!(loc["artifactLocation"]["uri"].as_str().unwrap().starts_with("mem/"));
        assert!(loc["region"]["startLine"].as_u64().unwrap() >= 1);
        assert!(loc["region"]["startColumn"].as_u64().unwrap() >= 1);
    }
}

#[test]
fn github_format_escapes() {
    let env = good().index(&format!("{GOOD_INDEX}- [Gone](gone,1%.md) — x\n"));
    let run = env
        .args(["lint", "--format", "github", "--rule", "ML201"])
        .run()
        .code(1);
    assert_eq!(
        run.stdout,
        "::error file=mem/MEMORY.md,line=2,col=3,title=ML201 index-dangling::link target gone,1%25.md does not exist\n"
    );
}

#[test]
fn strict_min_severity_rule_and_disable() {
    let env = || good().memory("extra.md", GOOD);
    env().args(["lint"]).run().success();
    env().args(["lint", "--strict"]).run().code(1);
    env().args(["lint", "--strict", "--disable", "ML203"]).run().success();
    let doc = env()
        .args(["lint", "--json", "--min-severity", "error"])
        .run()
        .success()
        .json();
    assert_eq!(doc["findings"], serde_json::json!([]));
    let doc = env()
        .args(["lint", "--json", "--rule", "ML203", "--rule", "ML201"])
        .run()
        .json();
    assert_eq!(doc["findings"].as_array().unwrap().len(), 1);
}

#[test]
fn unknown_rules_are_usage_errors() {
    good()
        .args(["lint", "--rule", "ML999"])
        .run()
        .code(2)
        .stderr("memctl: unknown rule `ML999` given to --rule\nhint: did you mean `ML109`?\n");
}

#[test]
fn fix_moves_frontmatter_to_the_top() {
    let env = one("<!-- banner -->\n---\nname: x\ndescription: d\ntype: user\n---\nbody\n");
    let d = env.dir();
    let _run = env.args(["lint", "--fix", "--rule", "ML102"]).run().success();
    assert_eq!(
        fs::read_to_string(d.join("m.md")).unwrap(),
        "---\nname: x\ndescription: d\ntype: user\n---\n<!-- banner -->\nbody\n"
    );
}

#[test]
fn fix_quotes_values_that_need_the_retry() {
    let env = one("---\nname: Project Context: SS\ndescription: d\ntype: user\n---\nb\n");
    let d = env.dir();
    let run = env.args(["lint", "--fix", "--rule", "ML111"]).run().success();
    run.stderr_has("memctl: note: fixed ML111 in m.md");
    assert_eq!(
        fs::read_to_string(d.join("m.md")).unwrap(),
        "---\nname: \"Project Context: SS\"\ndescription: d\ntype: user\n---\nb\n"
    );
}

#[test]
fn fix_indexes_unindexed_files() {
    let env = good().memory(
        "extra.md",
        "---\nname: Extra [x]\ndescription: An extra memory\ntype: user\n---\nb\n",
    );
    let d = env.dir();
    let _run = env.args(["lint", "--fix", "--rule", "ML203"]).run().success();
    assert_eq!(
        fs::read_to_string(d.join("MEMORY.md")).unwrap(),
        format!("{GOOD_INDEX}- [Extra \\[x\\]](extra.md) — An extra memory\n")
    );
}

#[test]
fn fix_skips_files_without_a_string_description() {
    let env = good().memory("extra.md", "---\nname: Extra\ntype: user\n---\nb\n");
    let d = env.dir();
    let run = env.args(["lint", "--fix", "--rule", "ML203"]).run().success();
    run.stderr_has("not fixed: ML203 extra.md: no string description to use as the hook");
    assert_eq!(fs::read_to_string(d.join("MEMORY.md")).unwrap(), GOOD_INDEX);
}

/// SPEC §3.14 (issue 32, "Budget refusals"): `lint --fix` never skips a line
/// for the budget; it places it by §10.2 and names the entry now past the cut.
#[test]
fn fix_indexes_past_the_cut_and_names_the_entry() {
    let full: String = (0..200).map(|_| GOOD_INDEX).collect();
    let env = good().index(&full).memory("extra.md", GOOD);
    let d = env.dir();
    let run = env.args(["lint", "--fix", "--rule", "ML203"]).run();
    run.stderr_has("fixed ML203 in MEMORY.md");
    run.stderr_has(
        "memctl: warning: MEMORY.md:201: past Claude Code's cut, it does not load: - [good](extra.md) — A good memory\n",
    );
    run.stderr_has(
        "1 entry is past Claude Code's cut in MEMORY.md: run `memctl index rebuild` to fit the index and keep every entry",
    );
    assert!(!run.stderr.contains("not fixed"), "{}", run.stderr);
    assert_eq!(
        fs::read_to_string(d.join("MEMORY.md")).unwrap(),
        format!("{full}- [good](extra.md) — A good memory\n")
    );
}

/// `--dry-run` names the same entries, and writes nothing.
#[test]
fn fix_dry_run_names_the_entries_past_the_cut() {
    let full: String = (0..200).map(|_| GOOD_INDEX).collect();
    let env = good().index(&full).memory("extra.md", GOOD);
    let d = env.dir();
    let run = env.args(["lint", "--fix", "--dry-run", "--rule", "ML203"]).run();
    run.stderr_has("MEMORY.md:201: past Claude Code's cut, it does not load: - [good](extra.md) — A good memory");
    assert_eq!(fs::read_to_string(d.join("MEMORY.md")).unwrap(), full);
}

#[test]
fn fix_moves_stale_temp_files_to_the_trash() {
    let env = good();
    let name = format!(".MEMORY.md.{}.0123abcd.tmp", dead_pid());
    let tmp = env.dir().join(&name);
    fs::write(&tmp, "partial").unwrap();
    set_age(&tmp, 2.0);
    let d = env.dir();
    let _run = env.args(["lint", "--fix", "--rule", "ML132"]).run().success();
    assert!(!tmp.exists());
    assert_eq!(
        fs::read_to_string(d.join(".trash/20260310T120000Z").join(format!("{name}.deleted"))).unwrap(),
        "partial"
    );
}

#[test]
fn dry_run_diff_has_a_hunk_per_change_and_keeps_unchanged_lines_as_context() {
    let fm = "---\nname: Project Context: SS\na: 1\nb: 2\nc: 3\nd: 4\ne: 5\nf: 6\ng: 7\ndescription: Plan: ship it\ntype: user\n---\nb\n";
    let _run = one(fm).args(["lint", "--fix", "--dry-run", "--rule", "ML111"]).run().success().stdout(
        "--- a/m.md\n+++ b/m.md\n\
         @@ -1,5 +1,5 @@\n ---\n-name: Project Context: SS\n+name: \"Project Context: SS\"\n a: 1\n b: 2\n c: 3\n\
         @@ -7,7 +7,7 @@\n e: 5\n f: 6\n g: 7\n-description: Plan: ship it\n+description: \"Plan: ship it\"\n type: user\n ---\n b\n",
    );
}

#[test]
fn dry_run_prints_diffs_and_writes_nothing() {
    let env = good().memory("extra.md", GOOD);
    let d = env.dir();
    let run = env.args(["lint", "--fix", "--dry-run"]).run().success();
    assert!(run.stdout.starts_with("--- a/MEMORY.md\n+++ b/MEMORY.md\n@@ -1 +1,2 @@\n - [Good](good.md) — A good memory\n+- [good](extra.md) — A good memory\n"), "{}", run.stdout);
    assert_eq!(fs::read_to_string(d.join("MEMORY.md")).unwrap(), GOOD_INDEX);
    let doc = good()
        .memory("extra.md", GOOD)
        .args(["lint", "--fix", "--dry-run", "--json"])
        .run()
        .success()
        .json();
    assert_eq!(doc["fixes"][0]["id"], "ML203");
    assert_eq!(doc["fixes"][0]["applied"], false);
    assert!(doc["fixes"][0]["diff"].as_str().unwrap().starts_with("--- a/MEMORY.md"));
    assert_eq!(doc["findings"], serde_json::json!([]));
}

#[test]
fn fix_respects_a_live_dream_unless_forced() {
    let env = good().memory("extra.md", GOOD);
    let lock = env.dir().join(".consolidate-lock");
    fs::write(&lock, std::process::id().to_string()).unwrap();
    set_age(&lock, 0.2);
    let d = env.dir();
    let run = env.args(["lint", "--fix"]).run().code(2);
    assert!(run.stderr.starts_with(&format!("memctl: auto-dream lock taken 12 min ago by live PID {}; a consolidation may still be running\nhint: wait for it to finish, or pass --force\n", std::process::id())), "{}", run.stderr);
    assert_eq!(fs::read_to_string(d.join("MEMORY.md")).unwrap(), GOOD_INDEX);
    let env = good().memory("extra.md", GOOD);
    let lock = env.dir().join(".consolidate-lock");
    fs::write(&lock, std::process::id().to_string()).unwrap();
    set_age(&lock, 0.2);
    let d = env.dir();
    let _run = env.args(["lint", "--fix", "--force"]).run().success();
    assert!(fs::read_to_string(d.join("MEMORY.md")).unwrap().contains("(extra.md)"));
}

#[test]
fn exit_code_reflects_what_remains_after_fix() {
    let env = one("<!-- banner -->\n---\nname: x\ndescription: d\ntype: user\n---\nbody\n");
    let _run = env
        .args(["lint", "--fix", "--dry-run", "--rule", "ML102"])
        .run()
        .success();
    one("<!-- banner -->\n---\nname: x\ndescription: d\ntype: user\n---\nbody\n")
        .args(["lint", "--rule", "ML102"])
        .run()
        .code(1);
}

#[test]
fn r14_rules_are_named_in_any_case_by_name_or_in_comma_lists() {
    let two = || {
        Env::new()
            .memory("a.md", "---\nname: a\ndescription: d\ntype: user\n---\nb\n")
            .memory("b.md", "---\nname: b\ndescription: d\ntype: user\n---\nb\n")
            .index("- [b](b.md) — d\n")
    };
    let env = two();
    let by_id = env.args(["lint", "--json", "--rule", "ml203,ML201"]).run().json();
    let env = two();
    let by_name = env
        .args(["lint", "--json", "--rule", "index-unindexed", "--warn-at", "90%"])
        .run()
        .json();
    assert_eq!(by_id["findings"][0]["id"], "ML203");
    let ids = |d: &serde_json::Value| {
        d["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["id"].clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(ids(&by_id), ids(&by_name));
    Env::new()
        .args(["lint", "--rule", "ML999"])
        .run()
        .code(2)
        .stderr_starts("memctl: unknown rule `ML999` given to --rule\n");
}

#[test]
fn r14_list_rules_prints_the_rule_table() {
    let run = Env::new().args(["lint", "--list-rules"]).run().success();
    let line = run
        .stdout
        .lines()
        .find(|l| l.starts_with("ML203 "))
        .expect("ML203 listed");
    assert!(
        line.contains("index-unindexed") && line.contains("warning") && line.contains("fix"),
        "{line}"
    );
    assert!(run.stdout.lines().count() >= 30);
}

/// A modification time with nanoseconds, `days` before memctl's `NOW`.
fn mtime_days_ago(days: u64) -> std::time::SystemTime {
    let now = std::time::UNIX_EPOCH + std::time::Duration::from_millis(crate::support::NOW_MS);
    now - std::time::Duration::from_secs(days * 86_400) - std::time::Duration::from_nanos(123_456_789)
}

#[test]
fn mechanical_fixes_keep_the_mtime_to_the_nanosecond() {
    for (rule, text) in [
        (
            "ML111",
            "---\nname: Project Context: SS\ndescription: d\ntype: user\n---\nb\n",
        ),
        (
            "ML102",
            "<!-- banner -->\n---\nname: x\ndescription: d\ntype: user\n---\nbody\n",
        ),
    ] {
        let env = one(text);
        let p = env.dir().join("m.md");
        let old = mtime_days_ago(183);
        fs::File::options()
            .write(true)
            .open(&p)
            .unwrap()
            .set_modified(old)
            .unwrap();
        let run = env.args(["lint", "--fix", "--rule", rule]).run().success();
        run.stderr_has(&format!("memctl: note: fixed {rule} in m.md"));
        assert_ne!(fs::read_to_string(&p).unwrap(), text, "{rule} rewrote nothing");
        assert_eq!(
            fs::metadata(&p).unwrap().modified().unwrap(),
            old,
            "{rule} moved the mtime"
        );
    }
}

#[test]
fn secrets_in_the_index_files_are_found_and_never_echoed() {
    let token = format!("github_pat_11ABCDEFG0_{}", "q".repeat(59));
    let env = good()
        .index(&format!("{GOOD_INDEX}- note: {token}\n"))
        .memory("team/t.md", GOOD)
        .memory(
            "team/MEMORY.md",
            "- [T](t.md) — t\nkey AIzaSyA1b2C3d4E5f6G7h8I9j0K_L-mNoPqRsTu\n",
        )
        // team/MEMORY.md is an index only with a team store (SPEC §2.13).
        .env("CLAUDE_MEMORY_STORES", r#"["/org/team"]"#);
    let doc = env.args(["lint", "--json", "--rule", "ML121"]).run().json();
    let found: Vec<(String, u64, String)> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap(),
                f["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(found.len(), 2, "{doc}");
    assert!(
        found[0].0.ends_with("MEMORY.md") && !found[0].0.contains("team"),
        "{found:?}"
    );
    assert_eq!(found[0].1, 2);
    assert_eq!(
        found[0].2,
        "looks like a GitHub token; memory is loaded into model context: remove it"
    );
    assert!(found[1].0.ends_with("team/MEMORY.md"), "{found:?}");
    assert_eq!(found[1].1, 2);
    assert!(found[1].2.starts_with("looks like a Google API key"), "{found:?}");
    let text = doc.to_string();
    assert!(!text.contains(&token) && !text.contains("AIzaSy"), "{text}");
}

#[test]
fn each_new_secret_kind_fires_in_a_topic_file_and_near_misses_do_not() {
    let fm = "name: n\ndescription: d\ntype: user\n";
    for (hit, miss) in [
        (
            "AIzaSyA1b2C3d4E5f6G7h8I9j0K_L-mNoPqRsTu",
            "AIzaSyA1b2C3d4E5f6G7h8I9j0K_L-mNoPqRsT",
        ),
        ("glpat-xYz12AbC3dEf4GhI5jKl", "glpat-xYz12AbC3dEf4GhI5jK"),
        ("sk_live_51HabcdEFGhijKLmnoPQrs", "sk_test_51HabcdEFGhijKLmnoPQrs"),
        ("rk_live_51HabcdEFGhijKLmnoPQrs", "rk_live_51HabcdEFGhijKLmnoP"),
        (
            "npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
            "npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R",
        ),
        ("github_pat_11ABCDEFG0_abcdefghijklmnop", "github_pat_short"),
    ] {
        case(
            "ML121",
            one(&with_fm(fm, &format!("token {hit}\n"))),
            one(&with_fm(fm, &format!("token {miss}\n"))),
        );
    }
}

#[test]
fn index_frontmatter_is_ml208_not_content() {
    let env = good().index(&format!("---\nname: index\ndescription: d\n---\n{GOOD_INDEX}"));
    let hit = ids(env);
    assert!(hit.contains(&"ML208".to_string()), "{hit:?}");
    assert!(!hit.contains(&"ML211".to_string()), "{hit:?}");
    // Content after the block still counts.
    let env = good().index(&format!("---\nname: index\n---\n{GOOD_INDEX}Some prose.\n"));
    let doc = env.args(["lint", "--json", "--rule", "ML211"]).run().json();
    assert_eq!(doc["findings"][0]["line"], 5, "{doc}");
}

#[test]
fn only_an_underscore_makes_a_type_prefix() {
    let project = "---\nname: n\ndescription: d\ntype: project\n---\n\n**Why:** x\n**How to apply:** y\n";
    let env = |file: &str| Env::new().memory(file, project).index(&format!("- [N]({file}) — d\n"));
    case("ML114", env("user_management.md"), env("user-management-service.md"));
}

#[test]
fn links_to_missing_memories_are_dangling() {
    let body = "See [there](there.md) and [gone](gone.md).\n\
                `[span](span.md)` is code.\n\
                <!-- [comment](comment.md) -->\n\
                ```\n[fenced](fenced.md)\n```\n\
                \n    [indented](indented.md)\n\n\
                [web](https://example.com/x.md) [up](sub/../../out.md) [notes](notes.txt)\n\
                [deep](sub/missing.md)\n";
    let env = good()
        .memory("m.md", &with_fm("name: m\ndescription: d\ntype: user\n", body))
        .memory("there.md", GOOD)
        .index(&format!("{GOOD_INDEX}- [M](m.md) — d\n- [T](there.md) — t\n"));
    let doc = env.args(["lint", "--json", "--rule", "ML134"]).run().json();
    let found: Vec<(u64, u64, String, String)> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["line"].as_u64().unwrap(),
                f["col"].as_u64().unwrap(),
                f["severity"].as_str().unwrap().to_string(),
                f["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            (
                7,
                27,
                "warning".into(),
                "link target gone.md does not exist in the memory dir".into()
            ),
            (
                17,
                1,
                "warning".into(),
                "link target sub/missing.md does not exist in the memory dir".into()
            ),
        ],
        "{doc}"
    );
}

#[test]
fn a_block_closed_on_line_4_of_a_2_mb_file_is_read() {
    let text = format!(
        "---\ndescription: early\ntype: user\n---\n{}",
        format!("{}\n", "y".repeat(100_000)).repeat(20)
    );
    let env = Env::new().memory("big.md", &text).index("- [Big](big.md) — early\n");
    let doc = env.args(["list", "--json"]).run().success().json();
    assert_eq!(doc["entries"][0]["frontmatter_status"], "ok", "{doc}");
    assert_eq!(doc["entries"][0]["description"], "early");
    assert_eq!(doc["warnings"], serde_json::json!([]));
    let env = Env::new().memory("big.md", &text).index("- [Big](big.md) — early\n");
    let hit = ids(env);
    assert!(!hit.contains(&"ML104".to_string()), "{hit:?}");
}

#[test]
fn parallel_fixes_add_one_index_line() {
    let env = good().memory("extra.md", GOOD);
    let d = env.dir();
    // Hold the write lock while six fixes lint the dir, so that all of them plan
    // from findings made before any of them wrote.
    let lock = fs::File::create(d.join(".memctl.lock")).unwrap();
    lock.lock().unwrap();
    let children: Vec<_> = (0..6)
        .map(|_| {
            let mut cmd = env.command();
            cmd.args(["lint", "--fix", "--rule", "ML203"])
                .env("MEMCTL_TEST_LOCK_WAIT_SECS", "3600")
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped());
            cmd.spawn().unwrap()
        })
        .collect();
    std::thread::sleep(std::time::Duration::from_secs(2));
    lock.unlock().unwrap();
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let index = fs::read_to_string(d.join("MEMORY.md")).unwrap();
    assert_eq!(index.matches("(extra.md)").count(), 1, "{index}");
}

// ---- Issue 14: lint for daily use ----

/// A dir with 7 long index lines (info), one unindexed memory (warning).
fn long_lines() -> Env {
    let mut env = Env::new();
    let mut index = String::new();
    for i in 0..7 {
        let rel = format!("m{i}.md");
        env = env.memory(&rel, GOOD);
        index.push_str(&format!("- [M{i}]({rel}) — {}\n", "x".repeat(150 + i)));
    }
    env.memory("loose.md", GOOD).index(&index)
}

#[test]
fn terminal_layout_groups_aggregates_and_prints_the_summary_last() {
    let env = long_lines();
    let screen = crate::support::run_in_pty(&env, &["--color", "never", "lint"], &[]);
    let screen = screen.replace("\r\n", "\n");
    // The header names the dir relative to the cwd (the temp root); the paths are
    // relative to the dir; the warning's file comes before the info's; the summary
    // line is last.
    let expected = "memory dir: mem/\n\
         \n\
         loose.md:1:1: warning[ML203/index-unindexed]: not in MEMORY.md: Claude Code never loads it; add an index line (`memctl lint --fix`)\n\
         \n\
         MEMORY.md:1:1: info[ML204/index-line-long]: 7 index lines over 150 chars (lines 1–7; longest 172)\n\
         memctl: note: a rule firing on more than 5 lines of a file is shown once; pipe the output or use --json to see every finding\n\
         0 errors, 1 warning, 7 infos in 9 files\n";
    let start = screen.find("memory dir:").expect("a header");
    assert_eq!(&screen[start..], expected);
}

#[test]
fn piped_output_keeps_one_line_per_finding() {
    let run = long_lines().args(["lint"]).run();
    assert_eq!(run.stdout.lines().count(), 8, "{}", run.stdout);
    assert!(run.stdout.lines().all(|l| l.starts_with("mem/")), "{}", run.stdout);
    assert!(!run.stdout.contains("memory dir:"));
    let doc = long_lines().args(["lint", "--json"]).run().json();
    assert_eq!(doc["findings"].as_array().unwrap().len(), 8);
}

#[test]
fn summary_prints_counts_by_rule_only() {
    long_lines()
        .args(["lint", "--summary"])
        .run()
        .success()
        .stdout("1  warning  ML203  index-unindexed\n7  info     ML204  index-line-long\n");
    long_lines()
        .args(["lint", "--summary", "--json"])
        .run()
        .code(2)
        .stderr_has("--summary is a text view");
}

#[test]
fn ml127_is_one_finding_per_run() {
    let mut many = Env::new();
    let mut index = String::new();
    for i in 0..203 {
        many = many.memory_aged(&format!("m{i:03}.md"), GOOD, f64::from(i));
        index.push_str(&format!("- [M](m{i:03}.md) — m\n"));
    }
    let doc = many
        .index(&index)
        .args(["lint", "--json", "--rule", "ML127"])
        .run()
        .json();
    let found = doc["findings"].as_array().unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0]["path"], "mem/m200.md");
    assert_eq!(
        found[0]["message"],
        "3 of 203 files are not among the 200 most recently modified; Claude Code's manifest does not list them: m200.md, m201.md, m202.md"
    );
}

#[test]
fn lint_says_once_that_auto_memory_is_disabled() {
    let run = good()
        .env("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "1")
        .args(["lint"])
        .run()
        .success();
    let warning = "memctl: warning: auto memory is disabled (env CLAUDE_CODE_DISABLE_AUTO_MEMORY=1): Claude Code will not read or write this directory\n";
    assert_eq!(run.stderr.matches(warning).count(), 1, "{}", run.stderr);
}

#[test]
fn ml203_hint_offers_fix_past_the_cut() {
    let mut index = String::new();
    for i in 0..200 {
        index.push_str(&format!("- [G{i}](good.md) — g\n"));
    }
    let full = good().memory("loose.md", GOOD).index(&index);
    let doc = full.args(["lint", "--json", "--rule", "ML203"]).run().json();
    let msg = doc["findings"][0]["message"].as_str().unwrap().to_string();
    assert_eq!(
        msg,
        "not in MEMORY.md: Claude Code never loads it; add an index line (`memctl lint --fix`)"
    );
    // And --fix adds it, naming the entry past the cut (SPEC §3.14).
    let run = good()
        .memory("loose.md", GOOD)
        .index(&index)
        .args(["lint", "--fix", "--rule", "ML203"])
        .run();
    assert!(!run.stderr.contains("not fixed: ML203 loose.md"), "{}", run.stderr);
    run.stderr_has("MEMORY.md:201: past Claude Code's cut, it does not load: - [good](loose.md) — A good memory");
    // Without a description, the hint says to add one first.
    let doc = good()
        .memory("bare.md", "---\nname: b\ntype: user\n---\nbody\n")
        .args(["lint", "--json", "--rule", "ML203"])
        .run()
        .json();
    assert!(
        doc["findings"][0]["message"]
            .as_str()
            .unwrap()
            .contains("give it a one-line `description:`"),
        "{doc}"
    );
}

#[test]
fn explain_takes_any_id_form_and_refuses_unknown_ones() {
    let by_id = Env::new().args(["lint", "--explain", "ML203"]).run().success();
    assert!(
        by_id
            .stdout
            .starts_with("ML203 index-unindexed (warning, fixable with `memctl lint --fix`)\n")
    );
    for section in ["What Claude Code does:", "Why it matters:", "How to fix:"] {
        assert!(by_id.stdout.contains(section), "{}", by_id.stdout);
    }
    for form in ["ml203", "index-unindexed", "INDEX-UNINDEXED"] {
        let run = Env::new().args(["lint", "--explain", form]).run().success();
        assert_eq!(run.stdout, by_id.stdout, "{form}");
    }
    let doc = Env::new()
        .args(["lint", "--explain", "ML109", "--json"])
        .run()
        .success()
        .json();
    assert_eq!(doc["id"], "ML109");
    assert!(doc["fix"].as_str().unwrap().contains("top-level `type:`"));
    Env::new()
        .args(["lint", "--explain", "ML2O3"])
        .run()
        .code(2)
        .stderr_has("unknown rule `ML2O3` given to --explain")
        .stderr_has("hint: did you mean `ML203`?");
}

#[test]
fn lint_notes_memctl_files_a_git_work_tree_does_not_ignore() {
    let env = good();
    crate::support::git(&env.root(), &["init", "-q"]);
    let root = env.root().display().to_string();
    let run = env.args(["lint"]).run().success();
    let note = format!(
        "memctl: note: the memory dir is inside the git work tree {root}, which does not ignore memctl's own files; add to {root}/.gitignore:\n  /mem/.memctl.lock\n  /mem/.trash/\n"
    );
    assert_eq!(run.stderr.matches(&note).count(), 1, "{}", run.stderr);
    // Once ignored, nothing is said.
    let env = good();
    crate::support::git(&env.root(), &["init", "-q"]);
    fs::write(env.root().join(".gitignore"), "/mem/.memctl.lock\n.trash/\n").unwrap();
    let run = env.args(["lint"]).run().success();
    assert!(!run.stderr.contains("git work tree"), "{}", run.stderr);
    // Without git on PATH, nothing is said and nothing fails.
    let env = good();
    crate::support::git(&env.root(), &["init", "-q"]);
    let run = env.env("PATH", "/nonexistent").args(["lint"]).run().success();
    assert!(!run.stderr.contains("git work tree"), "{}", run.stderr);
}

#[test]
fn messages_count_in_the_singular() {
    let big = format!("---\nname: n\ndescription: d\ntype: user\n---\n{}", "x".repeat(5000));
    let doc = one(&big).args(["lint", "--json", "--rule", "ML122"]).run().json();
    let msg = doc["findings"][0]["message"].as_str().unwrap().to_string();
    assert!(
        msg.contains(" bytes, 6 lines:") || msg.contains(" bytes, 1 line:"),
        "{msg}"
    );
    let oneline = "x".repeat(5000);
    let doc = one(&oneline).args(["lint", "--json", "--rule", "ML122"]).run().json();
    let msg = doc["findings"][0]["message"].as_str().unwrap().to_string();
    assert_eq!(
        msg,
        "5000 bytes, 1 line: relevance recall reads only 200 lines / 4096 bytes"
    );
    let doc = Env::new()
        .memory("m.md", GOOD)
        .args(["lint", "--json", "--rule", "ML213"])
        .run()
        .json();
    assert_eq!(
        doc["findings"][0]["message"],
        "1 topic file but no MEMORY.md: Claude Code writes one from them at its next session start (1 line, newest first); `memctl index rebuild` writes it yourself"
    );
    assert_eq!(doc["findings"][0]["severity"], "info");
    // SPEC §2.7.4: not when the environment override is set.
    let doc = Env::new()
        .memory("m.md", GOOD)
        .env("CLAUDE_COWORK_MEMORY_INDEX_CONTENT", "x")
        .args(["lint", "--json", "--rule", "ML213"])
        .run()
        .json();
    assert_eq!(doc["findings"][0]["severity"], "warning", "{doc}");
}

#[test]
fn list_rules_fits_80_columns_on_a_terminal_and_keeps_one_line_per_rule_piped() {
    let env = Env::new().env("COLUMNS", "80");
    let out = crate::support::run_in_pty(&env, &["lint", "--list-rules"], &[]);
    let lines = crate::support::pty_lines(&out);
    assert!(lines.iter().any(|l| l.starts_with("ML203  index-unindexed")), "{out}");
    for l in &lines {
        assert!(l.chars().count() <= 80, "{} columns: {l}", l.chars().count());
    }
    let piped = Env::new().args(["lint", "--list-rules"]).run().success();
    assert_eq!(piped.stdout.lines().count(), memctl::lint::RULES.len());
}

/// ML135 (SPEC §11.2): every `<file>.conflict-<machine>-<YYYYMMDD>[-N]` in the dir
/// and in `team/`, naming the memory it conflicts with, the machine and the way out;
/// never a memory itself (not `.md`: no topic rule, not counted as a file).
#[test]
fn sync_conflict_files_are_reported_with_their_memory_and_the_way_out() {
    let env = good()
        .file("mem/good.md.conflict-bob-s-mac.local-20261201", GOOD.as_bytes())
        .file("mem/team/x.md.conflict-laptop-20261201-2", b"no frontmatter at all\n")
        .file("mem/sub/deep.md.conflict-m-20260101", b"x")
        // Near misses: a memory, a counter of 1, a bad date, a temp-like name.
        .file("mem/n.md.conflict-laptop-20261301", b"x")
        .file("mem/n.md.conflict-laptop-20261201-1", b"x")
        .file("mem/n.md.conflicted", b"x");
    let d = env.dir_shown();
    let doc = env.args(["lint", "--json", "--rule", "ML135"]).run().json();
    let found: Vec<(String, String, String)> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let p = f["abs_path"].as_str().unwrap();
            let s = |v: &serde_json::Value| v.as_str().unwrap().to_string();
            (
                p.strip_prefix(&d).unwrap_or(p).to_string(),
                s(&f["severity"]),
                s(&f["message"]),
            )
        })
        .collect();
    let rels: Vec<&str> = found.iter().map(|f| f.0.as_str()).collect();
    assert_eq!(
        rels,
        [
            "good.md.conflict-bob-s-mac.local-20261201",
            "sub/deep.md.conflict-m-20260101",
            "team/x.md.conflict-laptop-20261201-2",
        ],
        "{doc:#}"
    );
    assert!(found.iter().all(|f| f.1 == "warning"));
    assert_eq!(
        found[0].2,
        "sync conflict: the version of `good.md` from machine `bob-s-mac.local` (2026-12-01); merge it into \
         `good.md` by hand and delete this file, or run `memctl sync --resolve \
         good.md.conflict-bob-s-mac.local-20261201` to keep the local version"
    );
    assert!(
        found[2].2.contains("the version of `team/x.md` from machine `laptop`"),
        "{}",
        found[2].2
    );
    assert!(
        found[2]
            .2
            .contains("memctl sync --resolve team/x.md.conflict-laptop-20261201-2")
    );
    // Conflict files are not memories: no topic rule looks at them.
    let all = good()
        .file("mem/good.md.conflict-laptop-20261201", b"no frontmatter\n")
        .args(["lint", "--json"])
        .run();
    let doc = all.json();
    let ids: Vec<&str> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["ML135"], "{}", all.stdout);
    assert_eq!(all.code, 0, "a warning, as every warning, fails only --strict");
    assert_eq!(doc["summary"]["files"], 2, "{}", all.stdout);
    case(
        "ML135",
        good().file("mem/good.md.conflict-laptop-20261201", b"x"),
        good(),
    );
}

#[test]
fn sync_conflict_is_explained_and_listed() {
    let run = Env::new().args(["lint", "--explain", "sync-conflict"]).run().success();
    assert!(
        run.stdout.starts_with("ML135 sync-conflict (warning)\n"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("memctl sync --resolve FILE"), "{}", run.stdout);
    let list = Env::new().args(["lint", "--list-rules"]).run().success();
    assert!(
        list.stdout
            .lines()
            .any(|l| l.starts_with("ML135 ") && l.contains("sync-conflict"))
    );
    let sarif = good()
        .file("mem/good.md.conflict-laptop-20261201", b"x")
        .args(["lint", "--format", "sarif"])
        .run()
        .json();
    let rules = sarif["runs"][0]["tool"]["driver"]["rules"].as_array().unwrap();
    assert!(rules.iter().any(|r| r["id"] == "ML135" && r["name"] == "sync-conflict"));
    assert_eq!(sarif["runs"][0]["results"][0]["ruleId"], "ML135");
}

/// The sections of a golden file captured from the binary before the rule texts
/// moved to `rules/` (issue 35): `==> ID <==` then that rule's output, verbatim.
fn golden_sections(name: &str) -> Vec<(String, String)> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden/lint-explain")
        .join(name);
    let text = fs::read_to_string(&path).unwrap();
    let mut out: Vec<(String, String)> = Vec::new();
    for line in text.split_inclusive('\n') {
        if let Some(id) = line.strip_prefix("==> ").and_then(|l| l.strip_suffix(" <==\n")) {
            out.push((id.to_string(), String::new()));
        } else {
            out.last_mut().expect("a section header first").1.push_str(line);
        }
    }
    out
}

/// `--explain` prints, for every rule, the bytes it printed before the rule texts
/// became the pages under `rules/` (text and `--json`); `--list-rules` likewise.
#[test]
fn explain_and_list_rules_print_the_golden_bytes_for_every_rule() {
    let ids: Vec<&str> = memctl::lint::RULES.iter().map(|r| r.id.as_str()).collect();
    for (file, json) in [("explain.txt", false), ("explain.json.txt", true)] {
        let golden = golden_sections(file);
        let golden_ids: Vec<&str> = golden.iter().map(|(id, _)| id.as_str()).collect();
        assert_eq!(golden_ids, ids, "{file}");
        for (id, expected) in &golden {
            let mut env = Env::new().args(["lint", "--explain", id]);
            if json {
                env = env.arg("--json");
            }
            env.run().success().stdout(expected);
        }
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/lint-explain");
    let list = fs::read_to_string(dir.join("list-rules.txt")).unwrap();
    Env::new().args(["lint", "--list-rules"]).run().success().stdout(&list);
    let list = fs::read_to_string(dir.join("list-rules.json")).unwrap();
    Env::new()
        .args(["lint", "--list-rules", "--json"])
        .run()
        .success()
        .stdout(&list);
}

/// The rule table of docs/lint.md is generated from the pages under `rules/`
/// (issue 35); `MEMCTL_BLESS=1` rewrites it.
#[test]
fn docs_rule_table_is_generated_from_the_rule_pages() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/lint.md");
    let doc = fs::read_to_string(&path).unwrap();
    let fresh = memctl::lint::explain::docs_with_table(&doc).expect("docs/lint.md has the table's marker lines");
    if std::env::var_os("MEMCTL_BLESS").is_some_and(|v| v == "1") {
        fs::write(&path, fresh).unwrap();
        return;
    }
    assert!(
        doc == fresh,
        "the rule table in docs/lint.md is stale; run `MEMCTL_BLESS=1 cargo test --test cli generated`"
    );
}

/// A file's own findings and the rules across files' at the same path, a file
/// that sorts before the index and one after it.
fn mixed() -> Env {
    Env::new()
        .memory("A.md", "just text\n")
        .memory("b.md", "---\nname: B b\ndescription: d\ntype: user\n---\n\nBody.\n")
        .memory("c.md", GOOD)
        .index("- [Gone](gone.md) — x\n- [C](c.md) — c\n")
}

/// Each finding of `lint ARGS` as `path:line:col ID`: from the piped text, from
/// `--json`, and the exit code.
fn places(args: &[&str]) -> (Vec<String>, Vec<String>, i32) {
    let run = mixed().args([&["lint"][..], args].concat()).run();
    let text = run
        .stdout
        .lines()
        .map(|l| {
            let (at, rest) = l.split_once(": ").unwrap();
            let id = &rest[rest.find('[').unwrap() + 1..rest.find('/').unwrap()];
            format!("{at} {id}")
        })
        .collect();
    let doc = mixed().args([&["lint", "--json"][..], args].concat()).run().json();
    let json = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let path = f["path"].as_str().unwrap();
            format!("{path}:{}:{} {}", f["line"], f["col"], f["id"].as_str().unwrap())
        })
        .collect();
    (text, json, run.code)
}

#[test]
fn a_files_own_findings_and_the_rules_across_files_share_one_order() {
    let (text, json, code) = places(&[]);
    let expected = [
        "mem/A.md:1:1 ML103",
        "mem/A.md:1:1 ML203",
        "mem/MEMORY.md:1:3 ML201",
        "mem/b.md:1:1 ML203",
        "mem/b.md:2:1 ML137",
    ];
    assert_eq!(text, expected);
    assert_eq!(json, expected);
    assert_eq!(code, 1, "ML201 is an error");
    let (text, json, code) = places(&["--min-severity", "warning", "--disable", "ML201"]);
    assert_eq!(text, ["mem/A.md:1:1 ML103", "mem/A.md:1:1 ML203", "mem/b.md:1:1 ML203"]);
    assert_eq!(json, text);
    assert_eq!(code, 0, "no error is shown");
}
