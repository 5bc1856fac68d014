//! `memctl lint --fix` (SPEC §3.9.4, §3.13): `--dry-run` predicts the real run
//! exactly, on every combination of fixable rules, and the ML109 fix on real
//! nested-shape corpus dirs.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::*;

/// One kind of fixture: files for the memory dir and its index lines.
struct Kind {
    name: &'static str,
    files: Vec<(String, Vec<u8>)>,
    index: Vec<String>,
}

fn kind(name: &'static str, file: &str, text: &str, indexed: Option<(&str, &str)>) -> Kind {
    Kind {
        name,
        files: vec![(file.to_string(), text.as_bytes().to_vec())],
        index: indexed
            .map(|(title, hook)| vec![format!("- [{title}]({file}) — {hook}")])
            .unwrap_or_default(),
    }
}

fn dead_pid() -> u32 {
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    pid
}

/// Every fixable rule (ML102, ML111, ML109, ML203, ML132) alone and in each
/// combination that one file can have, plus the skips: no description, an index
/// full to the line cap.
fn kinds() -> Vec<Kind> {
    let banner = "<!-- banner -->\n---\nname: Banner\ndescription: banner hook\ntype: user\n---\nbody\n";
    let colon = "---\nname: Context: SS\ndescription: colon hook\ntype: project\n---\nb\n";
    let nested = "---\nname: Nested\ndescription: \"nested hook\"\nmetadata: \n  node_type: memory\n  type: feedback\n  originSessionId: 14a82ccb\n  modified: 2026-03-01T10:00:00.000Z\n---\n\nbody\n";
    let both = "---\nname: Both: here\ndescription: both hook\nmetadata:\n  type: reference\n---\nb\n";
    let crlf =
        "---\r\nname: Crlf\r\ndescription: |\r\n  crlf hook\r\n  two\r\nmetadata:\r\n  type: user\r\n---\r\nbody\r\n";
    let crlf_new =
        "---\r\nname: Crlf new\r\ndescription: crlf new hook\r\nmetadata:\r\n  type: project\r\n---\r\nbody\r\n";
    let banner_nested =
        "<!-- banner -->\n---\nname: Hidden\ndescription: hidden hook\nmetadata:\n  type: user\n---\nbody\n";
    let banner_both = "<!-- banner -->\n---\nname: Hidden: both\ndescription: hidden both hook\nmetadata:\n  type: project\n---\nbody\n";
    let plain = "---\nname: Plain\ndescription: plain hook\ntype: user\n---\nb\n";
    let nodesc = "---\nname: Nodesc\ntype: user\n---\nb\n";
    let target = "---\nname: Target\ndescription: target hook\ntype: user\n---\nb\n";
    vec![
        kind("ML102", "banner.md", banner, Some(("Banner", "banner hook"))),
        kind("ML102+ML203", "banner_new.md", banner, None),
        kind("ML111", "colon.md", colon, Some(("Context: SS", "colon hook"))),
        kind("ML111+ML203", "colon_new.md", colon, None),
        kind("ML109", "nested.md", nested, Some(("Nested", "nested hook"))),
        kind("ML109+ML203", "nested_new.md", nested, None),
        kind("ML111+ML109", "both.md", both, Some(("Both: here", "both hook"))),
        kind("ML111+ML109+ML203", "both_new.md", both, None),
        kind("ML109 CRLF block scalar", "crlf.md", crlf, Some(("Crlf", "crlf hook"))),
        kind("ML109+ML203 CRLF", "crlf_new.md", crlf_new, None),
        kind(
            "ML102 revealing ML109",
            "banner_nested.md",
            banner_nested,
            Some(("Hidden", "hidden hook")),
        ),
        kind(
            "ML102 revealing ML111+ML109, ML203",
            "banner_both_new.md",
            banner_both,
            None,
        ),
        kind("ML203", "plain_new.md", plain, None),
        kind("ML203 skipped (no description)", "nodesc_new.md", nodesc, None),
        Kind {
            name: "ML132",
            files: vec![(format!(".MEMORY.md.{}.0123abcd.tmp", dead_pid()), b"partial".to_vec())],
            index: Vec::new(),
        },
        Kind {
            name: "ML203 skipped (index at the line cap)",
            files: vec![("target.md".into(), target.as_bytes().to_vec())],
            index: vec!["- [Target](target.md) — target hook".to_string(); 200],
        },
    ]
}

/// A memory dir holding `kinds`, its files a day old (temp files two hours).
fn fixture(kinds: &[&Kind]) -> Env {
    let mut env = Env::new();
    let mut index = String::from("# Memory\n");
    for k in kinds {
        for (rel, bytes) in &k.files {
            let hours = if rel.ends_with(".tmp") { 2.0 } else { 24.0 };
            write_aged(&env.dir().join(rel), bytes, hours);
        }
        for l in &k.index {
            index.push_str(l);
            index.push('\n');
        }
    }
    env = env.index(&index);
    env
}

/// Every file under `dir` but memctl's own (`.trash/`, the write lock), by path.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for e in fs::read_dir(dir).unwrap() {
            let e = e.unwrap();
            let p = e.path();
            let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
            if rel == ".trash" || rel == ".memctl.lock" {
                continue;
            }
            if e.file_type().unwrap().is_dir() {
                walk(root, &p, out);
            } else {
                out.insert(rel, fs::read(&p).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

fn mtimes(dir: &Path) -> BTreeMap<String, std::time::SystemTime> {
    snapshot(dir)
        .into_keys()
        .filter(|rel| rel != "MEMORY.md")
        .map(|rel| {
            let t = fs::metadata(dir.join(&rel)).unwrap().modified().unwrap();
            (rel, t)
        })
        .collect()
}

/// `old` with the unified diff `diff` (memctl's `--dry-run` form) applied.
#[track_caller]
fn patch(old: &str, diff: &str) -> String {
    let a: Vec<&str> = old.split_inclusive('\n').collect();
    let d: Vec<&str> = diff.split_inclusive('\n').collect();
    let mut out = String::new();
    let mut at = 0; // next line of `a` to copy
    let mut i = 2; // after the `---`/`+++` header
    assert!(
        d.len() > 2 && d[0].starts_with("--- a/") && d[1].starts_with("+++ b/"),
        "{diff}"
    );
    while i < d.len() {
        let header = d[i]
            .strip_prefix("@@ -")
            .unwrap_or_else(|| panic!("no hunk at {:?}", d[i]));
        let old_range = header.split(' ').next().unwrap();
        let (start, len) = match old_range.split_once(',') {
            Some((s, l)) => (s.parse::<usize>().unwrap(), l.parse::<usize>().unwrap()),
            None => (old_range.parse::<usize>().unwrap(), 1),
        };
        let first = if len == 0 { start } else { start - 1 };
        assert!(first >= at, "hunks out of order in {diff}");
        out.push_str(&a[at..first].concat());
        at = first;
        i += 1;
        while i < d.len() && !d[i].starts_with("@@ ") {
            let (mark, mut body) = d[i].split_at(1);
            if d.get(i + 1).is_some_and(|n| n.starts_with('\\')) {
                body = body.strip_suffix('\n').unwrap();
                i += 1;
            }
            match mark {
                " " | "-" => {
                    assert_eq!(
                        a.get(at).copied(),
                        Some(body),
                        "context or removed line differs in {diff}"
                    );
                    at += 1;
                    if mark == " " {
                        out.push_str(body);
                    }
                }
                "+" => out.push_str(body),
                _ => panic!("bad diff line {:?}", d[i]),
            }
            i += 1;
        }
    }
    out.push_str(&a[at..].concat());
    out
}

/// The fixable-rule findings, as (id, path).
fn fixable_findings(doc: &Value) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["fixable"] == true)
        .map(|f| {
            (
                f["id"].as_str().unwrap().into(),
                f["path"].as_str().unwrap_or("").into(),
            )
        })
        .collect();
    v.sort();
    v
}

/// Runs `lint --fix --dry-run --json`, then `lint --fix --json` on the same dir,
/// and checks that the preview was the run: the same fixes (id, path, skip reason)
/// in the same order, the files exactly the preview's after-text, the moves where
/// the preview said, the same fixable findings left, the same exit code, and every
/// topic file's mtime kept. Returns the real run's document.
#[track_caller]
fn preview_is_the_run(env: &Env, what: &str) -> Value {
    let dir = env.dir();
    let run = |args: &[&str]| {
        let out = env.command().args(args).output().unwrap();
        let doc: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{what}: {e}: {}", String::from_utf8_lossy(&out.stderr)));
        (doc, out.status.code())
    };
    let before = snapshot(&dir);
    let times = mtimes(&dir);
    let (preview, preview_code) = run(&["lint", "--fix", "--dry-run", "--json"]);
    assert_eq!(snapshot(&dir), before, "{what}: --dry-run wrote");
    let (done, done_code) = run(&["lint", "--fix", "--json"]);

    let key = |f: &Value| {
        (
            f["id"].as_str().unwrap().to_string(),
            f["path"].as_str().unwrap().to_string(),
            f["skipped"].as_str().map(str::to_string),
        )
    };
    let predicted: Vec<_> = preview["fixes"].as_array().unwrap().iter().map(key).collect();
    let made: Vec<_> = done["fixes"].as_array().unwrap().iter().map(key).collect();
    assert_eq!(predicted, made, "{what}: the preview's fixes are not the run's");
    for f in done["fixes"].as_array().unwrap() {
        assert_eq!(f["applied"], f["skipped"].is_null(), "{what}: {f}");
    }

    let mut expected = before.clone();
    let mut moved = Vec::new();
    for f in preview["fixes"].as_array().unwrap() {
        assert_eq!(f["applied"], false, "{what}: {f}");
        let Some(diff) = f["diff"].as_str() else {
            assert!(f["skipped"].is_string(), "{what}: neither a diff nor a reason: {f}");
            continue;
        };
        let rel = f["path"].as_str().unwrap();
        if let Some(m) = diff.strip_prefix("moved: ") {
            let (from, to) = m.trim_end().split_once(" -> ").unwrap();
            assert_eq!(from, rel);
            moved.push((to.to_string(), expected.remove(rel).unwrap()));
        } else {
            let old = String::from_utf8(expected[rel].clone()).unwrap();
            expected.insert(rel.to_string(), patch(&old, diff).into_bytes());
        }
    }
    let after = snapshot(&dir);
    for (rel, bytes) in &expected {
        assert_eq!(
            String::from_utf8_lossy(&after[rel]),
            String::from_utf8_lossy(bytes),
            "{what}: {rel} is not the preview's after-text"
        );
    }
    assert_eq!(after, expected, "{what}: the files are not the preview's");
    for (to, bytes) in moved {
        assert_eq!(fs::read(dir.join(&to)).ok(), Some(bytes), "{what}: not moved to {to}");
    }
    assert_eq!(
        fixable_findings(&preview),
        fixable_findings(&done),
        "{what}: the preview leaves other fixable findings than the run"
    );
    assert_eq!(preview_code, done_code, "{what}: exit codes differ");
    let kept: BTreeMap<_, _> = mtimes(&dir)
        .into_iter()
        .filter(|(rel, _)| times.contains_key(rel))
        .collect();
    let had: BTreeMap<_, _> = times.into_iter().filter(|(rel, _)| kept.contains_key(rel)).collect();
    assert_eq!(kept, had, "{what}: a fix changed a topic file's mtime");
    done
}

#[test]
fn r12_the_dry_run_predicts_the_fix_on_every_combination_of_fixable_rules() {
    let kinds = kinds();
    for (i, a) in kinds.iter().enumerate() {
        for b in &kinds[i..] {
            let pair: Vec<&Kind> = if a.name == b.name { vec![a] } else { vec![a, b] };
            let what = pair.iter().map(|k| k.name).collect::<Vec<_>>().join(" + ");
            preview_is_the_run(&fixture(&pair), &what);
        }
    }
    let all: Vec<&Kind> = kinds.iter().collect();
    let done = preview_is_the_run(&fixture(&all), "every kind");
    // Everything is fixed but the two ML203 skips (and the entries they concern).
    let left = fixable_findings(&done);
    assert!(left.iter().all(|(id, _)| id == "ML203"), "{left:?}");
    let skipped: Vec<&str> = done["fixes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["skipped"].as_str())
        .collect();
    assert!(
        !skipped.is_empty() && skipped.len() == left.len(),
        "{skipped:?} {left:?}"
    );
}

#[test]
fn r12_a_file_with_ml102_and_ml203_is_fixed_in_both_the_preview_and_the_run() {
    let env = Env::new().index("# Memory\n").memory(
        "a.md",
        "<!-- banner -->\n---\nname: A\ndescription: a hook\ntype: user\n---\nbody\n",
    );
    let run = env.args(["lint", "--fix", "--dry-run"]).run().success();
    assert!(!run.stderr.contains("not fixed"), "{}", run.stderr);
    assert!(
        run.stdout
            .ends_with("--- a/MEMORY.md\n+++ b/MEMORY.md\n@@ -1 +1,2 @@\n # Memory\n+- [A](a.md) — a hook\n"),
        "{}",
        run.stdout
    );
}

/// (2.1.332) Claude Code reads `metadata.type`: ML109 no longer fires on a nested
/// type, and `lint --fix` writes no top-level type (SPEC §3.9.4).
#[test]
fn v3_a_nested_type_gets_no_top_level_copy() {
    let text = "---\r\nname: n\r\ndescription: >-\r\n  folded\r\n  hook\r\nmetadata: \r\n  node_type: memory\r\n  type: feedback\r\n---\r\n\r\nbody\r\n";
    let env = Env::new().index("- [n](n.md) — folded hook\n").memory("n.md", text);
    let d = env.dir();
    let run = env.args(["lint", "--fix", "--json"]).run();
    let doc = run.json();
    assert_eq!(read(&d, "n.md"), text);
    assert!(
        !doc["findings"].as_array().unwrap().iter().any(|f| f["id"] == "ML109"),
        "{doc}"
    );
}

#[test]
fn r22_a_nested_type_that_is_not_one_of_the_four_is_left_alone() {
    let text = "---\nname: n\ndescription: d\nmetadata:\n  type: preference\n---\nbody\n";
    let env = Env::new().index("- [n](n.md) — d\n").memory("n.md", text);
    let d = env.dir();
    let run = env.args(["lint", "--fix", "--json"]).run();
    let doc = run.json();
    assert_eq!(read(&d, "n.md"), text);
    assert_eq!(doc["fixes"], serde_json::json!([]));
    let ids: Vec<&str> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&"ML108") && !ids.contains(&"ML109"), "{ids:?}");
}

/// Copy a corpus memory dir into the env's memory dir.
fn copy_corpus(env: &Env, rel: &str) -> PathBuf {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/corpus")
        .join(rel);
    let src = if src.exists() {
        src
    } else {
        Path::new("/work/shared/corpus").join(rel)
    };
    if !src.exists() {
        return src;
    }
    for e in fs::read_dir(&src).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_file() {
            fs::copy(e.path(), env.dir().join(e.file_name())).unwrap();
        }
    }
    src
}

#[test]
fn r22_on_nested_corpus_dirs_there_is_no_ml109_and_list_shows_the_type_claude_code_sees() {
    for rel in [
        "0WAQ__gsim-ops/.claude/memory",
        "abl030__cratedigger/.claude/memory",
        "AnotherSava__bga-assistant/.claude/memory",
        "Gundry-Consultancy__usbip-hil-controller/.claude/memory",
    ] {
        let env = Env::new();
        let src = copy_corpus(&env, rel);
        if !src.exists() {
            continue; // no corpus on this machine
        }
        let d = env.dir();
        let nested: Vec<String> = fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| read(&d, n).contains("\nmetadata:"))
            .collect();
        assert!(!nested.is_empty(), "{rel}");
        let done = preview_is_the_run(&env, rel);
        assert!(
            !done["findings"].as_array().unwrap().iter().any(|f| f["id"] == "ML109"),
            "{rel}: ML109 left"
        );
        let out = env.command().args(["list", "--json"]).output().unwrap();
        let list: Value = serde_json::from_slice(&out.stdout).unwrap();
        let mut seen = 0;
        for m in list["entries"].as_array().unwrap() {
            if nested.iter().any(|n| m["file"] == n.as_str()) {
                seen += 1;
                assert!(m["claude_type"].is_string(), "{rel}: {m}");
                assert_eq!(m["claude_type"], m["type"], "{rel}: {m}");
                assert_eq!(m["type_source"], "nested", "{rel}: {m}");
            }
        }
        assert_eq!(seen, nested.len(), "{rel}");
        // (2.1.332) No fix touches a nested file.
        for n in &nested {
            assert_eq!(
                fs::read(d.join(n)).unwrap(),
                fs::read(src.join(n)).unwrap(),
                "{rel}/{n}"
            );
        }
    }
}

/// Without a team store, Claude Code 2.1.332 loads only the main `MEMORY.md` and
/// scans `team/<file>.md` as a personal memory (SPEC §2.13): ML203 asks for a line
/// in the main index, and `--fix` writes it there (it read `team/MEMORY.md`, found
/// the file linked and skipped it as "already indexed"). With a team store the
/// team index covers it and nothing is reported.
#[test]
fn a_team_file_is_indexed_in_the_main_index_without_a_team_store() {
    const T: &str =
        "---\nname: release-checklist\ndescription: steps before a release\nmetadata:\n  type: project\n---\nbody\n";
    let env = Env::new()
        .memory("team/release.md", T)
        .memory("team/MEMORY.md", "- [Release](release.md) — steps\n")
        .index("# Index\n");
    let d = env.dir();
    let run = env.args(["lint", "--fix", "--json"]).run();
    let doc = run.json();
    let fixes = doc["fixes"].as_array().unwrap();
    assert!(
        fixes
            .iter()
            .any(|f| f["id"] == "ML203" && f["applied"] == true && f["path"] == "MEMORY.md"),
        "{fixes:?}"
    );
    assert!(
        read(&d, "MEMORY.md").contains("](team/release.md) — steps before a release\n"),
        "{}",
        read(&d, "MEMORY.md")
    );
    assert_eq!(read(&d, "team/MEMORY.md"), "- [Release](release.md) — steps\n");

    let env = Env::new()
        .env("CLAUDE_MEMORY_STORES", r#"[{"path":"/team/app","scope":"team"}]"#)
        .memory("team/release.md", T)
        .memory("team/MEMORY.md", "- [Release](release.md) — steps\n")
        .index("# Index\n");
    let run = env.args(["lint", "--json"]).run();
    let doc = run.json();
    let ids: Vec<&str> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_str().unwrap())
        .collect();
    assert!(!ids.contains(&"ML203"), "{ids:?}");
}
