//! memctl's model of the MEMORY.md load against the real Claude Code 2.1.332
//! client (SPEC §2.7, A.6, A.13): every row of
//! `tests/golden/claude-code-2.1.332/load.jsonl` (recorded by `scripts/cc-oracle
//! load`) holds an index and the text the client injected; `truncate-check
//! --json`'s `injected` must be exactly that text. Rows without a MEMORY.md
//! (backfill) check that memctl predicts the file Claude Code writes.

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::support::{Env, write_aged};

const GOLDEN: &str = include_str!("../golden/claude-code-2.1.332/load.jsonl");

/// Known differences between memctl and the client: (case, reason). Empty.
const KNOWN: &[(&str, &str)] = &[];

fn rows() -> Vec<Value> {
    GOLDEN
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("a JSON row"))
        .collect()
}

/// The MEMORY.md bytes of a row: its `input`, or its recipe (the 4 MiB cases:
/// `fill` repeated and cut to exactly `bytes` bytes).
fn input(row: &Value) -> Vec<u8> {
    if let Some(r) = row.get("recipe") {
        let line = r["fill"].as_str().unwrap().as_bytes();
        let n = r["bytes"].as_u64().unwrap() as usize;
        return line.iter().copied().cycle().take(n).collect();
    }
    row["input"].as_str().unwrap_or_default().as_bytes().to_vec()
}

/// What memctl says the client injects for a load row.
fn memctl_injected(row: &Value) -> (Value, Value) {
    let env = row["env"].as_object();
    let run = if let Some(vars) = env {
        // Session-level cases: the dir's own index, the client's environment.
        let mut e = Env::new().index(std::str::from_utf8(&input(row)).unwrap());
        for (k, v) in vars {
            e = e.env(k, v.as_str().unwrap());
        }
        e.args(["truncate-check", "--json"]).run()
    } else {
        Env::new()
            .args(["truncate-check", "-", "--json"])
            .stdin(input(row))
            .run()
    };
    assert!(run.code == 0 || run.code == 1, "{}: {}", row["case"], run.stderr);
    let j = run.json();
    (j["injected"].clone(), j["load_status"].clone())
}

#[test]
fn every_recorded_load_matches_the_client() {
    let mut differ = Vec::new();
    let mut checked = 0;
    for row in rows().iter().filter(|r| r.get("kind").is_none()) {
        let case = row["case"].as_str().unwrap();
        let (injected, status) = memctl_injected(row);
        let expected = &row["observed"]["text"];
        checked += 1;
        if &injected != expected && !KNOWN.iter().any(|(c, _)| *c == case) {
            differ.push(format!(
                "{case} ({status}): client {expected:.200}, memctl {injected:.200}"
            ));
        }
        assert_eq!(
            row["observed"]["loaded"].as_bool().unwrap(),
            !expected.is_null(),
            "{case}"
        );
    }
    assert!(checked >= 200, "{checked} load cases");
    assert!(
        differ.is_empty(),
        "{} of {checked} differ:\n{}",
        differ.len(),
        differ.join("\n")
    );
}

#[test]
fn the_four_mib_rule_is_the_clients() {
    for row in rows().iter().filter(|r| r.get("recipe").is_some()) {
        let (_, status) = memctl_injected(row);
        let over = input(row).len() > 4 << 20;
        assert_eq!(status, if over { "oversize" } else { "loaded" }, "{}", row["case"]);
        // The dir's own index of this size is streamed, not read whole: the same text.
        let doc = Env::new()
            .file("mem/MEMORY.md", &input(row))
            .args(["truncate-check", "--json"])
            .run()
            .json();
        assert_eq!(doc["injected"], row["observed"]["text"], "{}", row["case"]);
        assert_eq!(doc["file_bytes"], input(row).len(), "{}", row["case"]);
    }
}

/// Lay out a backfill row's memory dir: files (aged), links and empty dirs.
fn backfill_dir(row: &Value, env: Env) -> Env {
    let dir = env.dir();
    for d in row["dirs"].as_array().into_iter().flatten() {
        fs::create_dir_all(dir.join(d.as_str().unwrap())).unwrap();
    }
    for f in row["files"].as_array().unwrap() {
        let age = f["age"].as_f64().unwrap();
        write_aged(
            &dir.join(f["path"].as_str().unwrap()),
            f["text"].as_str().unwrap().as_bytes(),
            age / 3600.0,
        );
    }
    for l in row["links"].as_array().into_iter().flatten() {
        let path = dir.join(l["path"].as_str().unwrap());
        if let Some(t) = l["symlink"].as_str() {
            std::os::unix::fs::symlink(t, &path).unwrap();
        } else {
            fs::hard_link(dir.join(l["hardlink"].as_str().unwrap()), &path).unwrap();
        }
    }
    if let Some(index) = row["index"].as_str() {
        fs::write(dir.join("MEMORY.md"), index).unwrap();
    }
    env
}

#[test]
fn a_missing_index_is_written_as_the_client_writes_it() {
    let backfills: Vec<Value> = rows().into_iter().filter(|r| r["kind"] == "backfill").collect();
    assert!(backfills.len() >= 5);
    for row in &backfills {
        let case = row["case"].as_str().unwrap();
        let env = backfill_dir(row, Env::new());
        let dir = env.dir();
        let run = env.args(["truncate-check", "--json"]).run();
        let notes = run.json()["warnings"].to_string();
        let written = row["observed"]["written"].as_str().filter(|w| !w.is_empty());
        let note = "Claude Code will write MEMORY.md from the topic files at its next session start";
        match written {
            Some(w) => {
                let n = w.lines().count();
                let s = if n == 1 { "" } else { "s" };
                assert!(notes.contains(&format!("{note} ({n} line{s})")), "{case}: {notes}");
                // The file it writes, loaded, is what the client injected.
                let check = Env::new()
                    .args(["truncate-check", "-", "--json"])
                    .stdin(w.as_bytes().to_vec())
                    .run();
                assert_eq!(check.json()["injected"], row["observed"]["text"], "{case}");
                assert_written(&dir, case, w);
            }
            None => assert!(!notes.contains(note), "{case}: {notes}"),
        }
    }
}

/// `memctl index rebuild`-free check of the predicted text: lint's ML213 hint
/// quotes nothing, so the prediction is read through `truncate-check`'s note
/// only; the exact text is checked by the unit test of `index::backfill`.
fn assert_written(dir: &Path, case: &str, _written: &str) {
    assert!(!dir.join("MEMORY.md").exists(), "{case}: memctl wrote nothing");
}
