//! Issue 29 point 20 (SPEC v3 §3.14): piped output keeps one record a line when a
//! file name holds a newline, a tab or a backslash: they are written `\n`, `\t`,
//! `\\`; `list --format paths -0` prints the exact names, NUL-separated.

use std::fs;
use std::process::Output;

use crate::support::Env;

/// The file name on disk, and as piped records write it.
const ODD: &str = "user_odd\nname\tx\\y.md";
const SHOWN: &str = "user_odd\\nname\\tx\\\\y.md";

fn memory(name: &str) -> String {
    format!("---\nname: {name}\ndescription: about {name}\ntype: user\n---\nsearchable {name}\n")
}

/// A dir with the odd memory, a plain one, and an index linking the plain one.
fn odd_dir() -> Env {
    Env::new()
        .memory(ODD, &memory("odd"))
        .memory("user_ok.md", &memory("ok"))
        .index("# I\n- [ok](user_ok.md) — ok\n")
}

fn run(env: &Env, args: &[&str]) -> Output {
    env.command().args(args).output().unwrap()
}

/// stdout as lines; each must be one record.
#[track_caller]
fn lines(out: &Output) -> Vec<String> {
    let text = String::from_utf8(out.stdout.clone()).unwrap();
    text.lines().map(str::to_string).collect()
}

/// The one line of `out` that names the odd file, escaped; no line holds a piece
/// of the raw name.
#[track_caller]
fn one_escaped_line(what: &str, out: &Output) -> String {
    let ls = lines(out);
    let hits: Vec<&String> = ls.iter().filter(|l| l.contains(SHOWN)).collect();
    assert_eq!(
        hits.len(),
        1,
        "{what}: the escaped name on one line:\n{}\nstderr: {}",
        ls.join("\n"),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        !ls.iter().any(|l| l.starts_with("name\t") || l.starts_with("name")),
        "{what}: a record broken at the newline:\n{}",
        ls.join("\n")
    );
    hits[0].clone()
}

#[test]
fn list_records_and_paths_escape_odd_names_and_paths_0_prints_them_exactly() {
    let env = odd_dir();
    let out = run(&env, &["list"]);
    let line = one_escaped_line("list", &out);
    assert_eq!(line.split('\t').count(), 6, "{line}");
    assert_eq!(lines(&out).len(), 2);

    let out = run(&env, &["list", "--format", "paths"]);
    let line = one_escaped_line("list --format paths", &out);
    assert_eq!(line, format!("{}/{SHOWN}", env.dir().display()));
    assert_eq!(lines(&out).len(), 2);

    for args in [&["list", "--format", "paths", "-0"][..], &["list", "--null"][..]] {
        let out = run(&env, args);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let names: Vec<&[u8]> = out.stdout.split(|&b| b == 0).collect();
        assert_eq!(names.len(), 3, "{:?}", String::from_utf8_lossy(&out.stdout));
        assert_eq!(names[2], b"");
        let want = format!("{}/{ODD}", env.dir().display());
        assert!(
            names.contains(&want.as_bytes()),
            "{:?}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    let out = run(&env, &["list", "--format", "table", "-0"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn lint_search_history_diff_and_snapshot_escape_odd_names() {
    let env = odd_dir();
    // ML203 for the odd file (unindexed).
    let out = run(&env, &["lint"]);
    let line = one_escaped_line("lint", &out);
    assert!(line.starts_with(&format!("mem/{SHOWN}:1:1: warning[ML203")), "{line}");

    let out = run(&env, &["search", "searchable", "odd"]);
    let line = one_escaped_line("search", &out);
    assert!(line.ends_with(":6:searchable odd"), "{line}");

    let out = run(&env, &["snapshot"]);
    assert!(out.status.success());
    fs::write(env.dir().join(ODD), memory("odd changed")).unwrap();
    let out = run(&env, &["snapshot"]);
    let line = one_escaped_line("snapshot", &out);
    assert!(line.contains(r#""change":"modified""#), "{line}");

    let out = run(&env, &["history"]);
    let ls = lines(&out);
    assert_eq!(ls.len(), 2, "one record a snapshot:\n{}", ls.join("\n"));
    for l in &ls {
        assert_eq!(l.split('\t').count(), 12, "{l}");
    }
    assert!(ls[0].split('\t').nth(10) == Some("-"), "no message: {}", ls[0]);

    fs::write(env.dir().join(ODD), memory("odd again")).unwrap();
    let out = run(&env, &["diff", "--stat"]);
    let line = one_escaped_line("diff --stat", &out);
    assert_eq!(line, format!("{SHOWN}\tmodified\t3\t3"));
    let out = run(&env, &["diff"]);
    let ls = lines(&out);
    assert_eq!(ls[0], format!("--- \"a/{SHOWN}\""), "{}", ls.join("\n"));
    assert_eq!(ls[1], format!("+++ \"b/{SHOWN}\""));
}

#[test]
fn forget_restore_and_undo_escape_odd_names() {
    let env = odd_dir();
    let out = run(&env, &["forget", "--yes", "odd"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let ls = lines(&out);
    assert_eq!(ls[0], format!("forgot {SHOWN} (0 index lines)"), "{}", ls.join("\n"));
    // The restore command stays on one line and names the file exactly.
    assert!(
        ls.iter()
            .any(|l| l == "  restore: memctl restore $'user_odd\\nname\\tx\\\\y.md'"),
        "{}",
        ls.join("\n")
    );
    assert_eq!(ls.len(), 3, "{}", ls.join("\n"));

    let out = run(&env, &["restore", ODD]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let line = one_escaped_line("restore", &out);
    assert!(line.starts_with(&format!("{SHOWN}\tadded\t")), "{line}");
    assert!(env.dir().join(ODD).exists());

    let out = run(&env, &["undo", "--yes"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let line = one_escaped_line("undo", &out);
    assert!(line.starts_with(&format!("{SHOWN}\tdeleted")), "{line}");
}

/// Found with point 20: `lint --fix` (ML203) and `index rebuild` wrote the link of
/// a name with a newline raw, tearing the index line in two (a dangling link and
/// a stray line). The name is percent-encoded in the link now, so the line stays
/// whole and links the file.
#[test]
fn an_index_line_for_an_odd_name_stays_one_line_and_links_it() {
    let odd = "user_odd\nname\tx.md";
    for args in [&["lint", "--fix"][..], &["index", "rebuild", "--yes"][..]] {
        let env = Env::new()
            .memory(odd, &memory("odd"))
            .memory("user_ok.md", &memory("ok"))
            .index("# I\n- [ok](user_ok.md) — ok\n");
        let out = run(&env, args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let index = fs::read_to_string(env.dir().join("MEMORY.md")).unwrap();
        assert!(
            index
                .lines()
                .any(|l| l == "- [odd](user_odd%0Aname%09x.md) — about odd"),
            "{args:?}:\n{index}"
        );
        let out = run(&env, &["lint", "--format", "json"]);
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            doc["findings"].as_array().map(Vec::len),
            Some(0),
            "{args:?}: {doc}\n{index}"
        );
    }
}

/// A backslash in a file name is percent-encoded in the index line memctl writes
/// (`%5C`; a bare `\` in a link is read as a separator), so the line links the file
/// and `forget` finds and removes it.
#[test]
fn a_backslash_in_a_file_name_is_linked_and_forgotten() {
    let odd = "user_bs\\x.md";
    let env = Env::new().memory(odd, &memory("bs")).index("# I\n");
    let out = run(&env, &["lint", "--fix"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let index = fs::read_to_string(env.dir().join("MEMORY.md")).unwrap();
    assert!(
        index.lines().any(|l| l == "- [bs](user_bs%5Cx.md) — about bs"),
        "{index}"
    );
    let out = run(&env, &["lint", "--format", "json"]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["findings"].as_array().map(Vec::len), Some(0), "{doc}\n{index}");
    let out = run(&env, &["forget", "--yes", odd]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let index = fs::read_to_string(env.dir().join("MEMORY.md")).unwrap();
    assert!(!index.contains("user_bs"), "the line goes with the file:\n{index}");
}
