//! History (SPEC §8): the store, the trigger labels of snapshots, `snapshot`,
//! `history`, `diff`, history off, a corrupt store, concurrent writers and a
//! kill -9 campaign. Every store lives under the test's own `XDG_STATE_HOME`.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use crate::support::*;

/// One run of memctl against `env`'s dir, with `extra` environment.
struct Out {
    stdout: String,
    stderr: String,
    code: i32,
}

impl Out {
    #[track_caller]
    fn ok(self) -> Out {
        assert_eq!(self.code, 0, "stdout:\n{}\nstderr:\n{}", self.stdout, self.stderr);
        self
    }

    #[track_caller]
    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", self.stdout))
    }
}

fn memctl_env(env: &Env, extra: &[(&str, &str)], args: &[&str]) -> Out {
    let mut cmd = env.command();
    for (k, v) in extra {
        cmd.env(k, v);
    }
    let out = cmd.args(args).output().expect("memctl runs");
    Out {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code().unwrap_or(-1),
    }
}

fn memctl(env: &Env, args: &[&str]) -> Out {
    memctl_env(env, &[], args)
}

fn history_root(env: &Env) -> PathBuf {
    env.root().join("state/memctl/history")
}

/// The store of the env's memory dir.
fn store(env: &Env) -> PathBuf {
    history_root(env).join(format!("{}.git", memctl::history::key(&env.dir())))
}

/// `history --json`'s snapshots, newest first.
fn snapshots(env: &Env, args: &[&str]) -> Vec<Value> {
    let mut all = vec!["history", "--json", "--limit", "1000"];
    all.extend_from_slice(args);
    memctl(env, &all).ok().json()["snapshots"].as_array().unwrap().clone()
}

fn triggers(env: &Env) -> Vec<String> {
    snapshots(env, &[])
        .iter()
        .map(|s| s["trigger"].as_str().unwrap().to_string())
        .collect()
}

fn changes(snap: &Value) -> Vec<(String, String)> {
    snap["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["file"].as_str().unwrap().into(), c["change"].as_str().unwrap().into()))
        .collect()
}

fn memory_text(name: &str) -> String {
    format!("---\nname: {name}\ndescription: about {name}\ntype: user\n---\nThe {name} fact.\n")
}

fn with_memories() -> Env {
    Env::new()
        .memory("alpha.md", &memory_text("Alpha"))
        .memory("beta.md", &memory_text("Beta"))
        .index("- [Alpha](alpha.md) — about Alpha\n- [Beta](beta.md) — about Beta\n")
}

fn git_available() -> bool {
    std::process::Command::new("git")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn git_out(store: &Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new("git")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", store)
        .arg("--git-dir")
        .arg(store)
        .args(args)
        .output()
        .unwrap()
}

/// Every file below `dir` (not the write lock) with its bytes and mtime.
fn files_of(dir: &Path) -> BTreeMap<PathBuf, (Vec<u8>, i64, i64)> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            let md = fs::symlink_metadata(&p).unwrap();
            if md.is_dir() {
                stack.push(p);
            } else if e.file_name() != ".memctl.lock" {
                let bytes = if md.file_type().is_symlink() {
                    Vec::new()
                } else {
                    fs::read(&p).unwrap()
                };
                out.insert(p, (bytes, md.mtime(), md.mtime_nsec()));
            }
        }
    }
    out
}

#[test]
fn each_trigger_is_labelled() {
    let env = with_memories();
    let first = memctl(&env, &["snapshot", "--json"]).ok().json();
    assert_eq!(first["trigger"], "baseline");
    // A hand edit: external.
    write_aged(&env.dir().join("alpha.md"), memory_text("Alpha2").as_bytes(), 2.0);
    assert_eq!(memctl(&env, &["snapshot", "--json"]).ok().json()["trigger"], "external");
    // Files changed and the lock's mtime moved: dream.
    fs::remove_file(env.dir().join("beta.md")).unwrap();
    write_aged(&env.dir().join(".consolidate-lock"), b"999999999", 1.0);
    assert_eq!(memctl(&env, &["snapshot", "--json"]).ok().json()["trigger"], "dream");
    // The lock alone moving is a change too (the dream clock).
    set_age(&env.dir().join(".consolidate-lock"), 0.5);
    let lock_only = memctl(&env, &["snapshot", "--json"]).ok().json();
    assert_eq!(lock_only["trigger"], "dream");
    assert_eq!(lock_only["changes"], serde_json::json!([]));
    // memctl's own writes: a before-snapshot only when the dir changed, then one after.
    memctl(
        &env,
        &[
            "add",
            "--type",
            "user",
            "--name",
            "Gamma",
            "--description",
            "about Gamma",
            "--body",
            "G.",
        ],
    )
    .ok();
    write_aged(&env.dir().join("delta.md"), memory_text("Delta").as_bytes(), 3.0);
    let editor = script(&env, "editor.sh", "printf 'More.\\n' >> \"$1\"");
    memctl_env(&env, &[("EDITOR", editor.to_str().unwrap())], &["edit", "gamma"]).ok();
    memctl(&env, &["forget", "--yes", "alpha"]).ok();
    memctl(&env, &["lint", "--fix"]);
    let got = triggers(&env);
    assert_eq!(
        got,
        [
            "fix", "forget", "edit", "external", "add", "dream", "dream", "external", "baseline"
        ],
        "{got:?}"
    );
    let snaps = snapshots(&env, &[]);
    assert_eq!(changes(&snaps[3]), [("delta.md".to_string(), "added".to_string())]);
    assert_eq!(snaps[3]["recorded_by"], "edit", "the before-snapshot names who took it");
    assert_eq!(snaps[8]["lock_mtime"], Value::Null);
    assert_eq!(snaps[6]["lock_mtime"], iso_hours_before_now(1.0));
    assert_eq!(snaps[5]["lock_mtime"], iso_hours_before_now(0.5));
    assert!(
        changes(&snaps[0]).iter().any(|(f, _)| f == "MEMORY.md"),
        "lint --fix indexes delta.md: {:?}",
        snaps[0]
    );
}

#[test]
fn snapshot_message_and_an_unchanged_dir() {
    let env = with_memories();
    let base = memctl(&env, &["snapshot", "-m", "first look"]).ok();
    // Piped: one record (SPEC §3.13).
    assert!(base.stdout.contains("\tbaseline\t"), "{}", base.stdout);
    let again = memctl(&env, &["snapshot", "--json"]).ok().json();
    assert_eq!(again["id"], Value::Null);
    assert_eq!(again["changes"], serde_json::json!([]));
    let text = memctl(&env, &["snapshot", "-m", "nothing new"]).ok();
    assert!(text.stderr.contains("nothing changed since "), "{}", text.stderr);
    assert_eq!(text.stdout, "");
    let snaps = snapshots(&env, &[]);
    assert_eq!(snaps.len(), 1, "an unchanged dir records nothing");
    assert_eq!(snaps[0]["message"], "first look");
    assert_eq!(snaps[0]["recorded_by"], "snapshot");
    assert_eq!(snaps[0]["time"], "2026-03-10T12:00:00.000Z");
    // A memctl write into an unchanged dir records its after-snapshot only.
    memctl(&env, &["forget", "--yes", "beta"]).ok();
    assert_eq!(triggers(&env), ["forget", "baseline"]);
}

#[test]
fn history_json_has_the_spec_shape() {
    let env = with_memories();
    memctl(&env, &["snapshot"]).ok();
    let doc = memctl(&env, &["history", "--json"]).ok().json();
    let keys: Vec<&String> = doc.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["memory_dir", "store", "snapshots", "warnings"]);
    assert_eq!(doc["memory_dir"], env.dir_shown());
    assert_eq!(doc["store"], store(&env).display().to_string());
    let snap = &doc["snapshots"][0];
    let keys: Vec<&String> = snap.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "id",
            "time",
            "trigger",
            "session",
            "agent",
            "tool",
            "command",
            "lock_mtime",
            "changes",
            "recorded_by",
            "message",
            "set_aside_store"
        ]
    );
    assert_eq!(snap["set_aside_store"], Value::Null, "the dir's own store");
    assert_eq!(snap["id"].as_str().unwrap().len(), 8);
    assert_eq!(
        snap["changes"][1],
        serde_json::json!({"file": "alpha.md", "change": "added", "lines_added": 6, "lines_removed": 0})
    );
    // Piped: one tab-separated record per snapshot, the fields in that order.
    let piped = memctl(&env, &["history"]).ok();
    let fields: Vec<&str> = piped.stdout.trim_end().split('\t').collect();
    assert_eq!(fields.len(), 12, "{}", piped.stdout);
    assert_eq!(fields[2], "baseline");
    assert_eq!(fields[3], "-");
    assert!(fields[8].starts_with("[{\"file\":\"MEMORY.md\""), "{}", fields[8]);
}

#[test]
fn limit_keeps_the_newest_and_says_how_many_are_left() {
    let env = with_memories();
    for i in 0..4 {
        write_aged(
            &env.dir().join("alpha.md"),
            memory_text(&format!("A{i}")).as_bytes(),
            1.0,
        );
        memctl(&env, &["snapshot"]).ok();
    }
    let out = memctl(&env, &["history", "--json", "--limit", "2"]).ok();
    let doc = out.json();
    assert_eq!(doc["snapshots"].as_array().unwrap().len(), 2);
    assert_eq!(doc["snapshots"][0]["changes"][0]["lines_added"], 3);
    assert!(
        doc["warnings"][0].as_str().unwrap().contains("2 older snapshots"),
        "{doc}"
    );
}

#[test]
fn history_of_a_deleted_memory_by_path_stem_or_name() {
    let env = with_memories();
    memctl(&env, &["snapshot"]).ok();
    write_aged(
        &env.dir().join("beta.md"),
        memory_text("Beta").replace("fact", "truth").as_bytes(),
        2.0,
    );
    memctl(&env, &["snapshot"]).ok();
    write_aged(&env.dir().join("alpha.md"), b"unrelated\n", 1.0);
    fs::remove_file(env.dir().join("beta.md")).unwrap();
    memctl(&env, &["snapshot"]).ok();
    for r in ["beta", "beta.md", "Beta", "beta_lowercase_name_is_not_it"] {
        let out = memctl(&env, &["history", "--json", r]);
        if r.starts_with("beta_") {
            assert_eq!(out.code, 2, "{}", out.stderr);
            assert!(out.stderr.contains("or its history"), "{}", out.stderr);
            continue;
        }
        let snaps = out.ok().json()["snapshots"].as_array().unwrap().clone();
        let got: Vec<Vec<(String, String)>> = snaps.iter().map(changes).collect();
        let one = |c: &str| vec![("beta.md".to_string(), c.to_string())];
        assert_eq!(got, [one("deleted"), one("modified"), one("added")], "{r}");
    }
    // And its diff: the deletion against the dir now is nothing; from before it, the whole file.
    let d = memctl(&env, &["diff", "--json", "beta", "--from", "@~1"]).ok().json();
    assert_eq!(d["to"], Value::Null);
    assert_eq!(d["files"][0]["change"], "deleted");
    assert!(d["files"][0]["diff"].as_str().unwrap().contains("-The Beta truth.\n"));
}

#[test]
fn diff_forms_and_touched_files() {
    let env = with_memories();
    let two_hours_ago = [("MEMCTL_NOW", "2026-03-10T10:00:00Z")];
    let base = memctl_env(&env, &two_hours_ago, &["snapshot", "--json"]).ok().json()["id"]
        .as_str()
        .unwrap()
        .to_string();
    write_aged(
        &env.dir().join("alpha.md"),
        memory_text("Alpha").replace("fact", "rule").as_bytes(),
        2.0,
    );
    set_age(&env.dir().join("beta.md"), 5.0);
    // Default: the newest snapshot against the dir now, `to` null.
    let d = memctl(&env, &["diff", "--json"]).ok().json();
    assert_eq!((d["from"].as_str(), &d["to"]), (Some(base.as_str()), &Value::Null));
    assert_eq!(
        d["files"],
        serde_json::json!([
            {"file": "alpha.md", "change": "modified", "diff": "--- a/alpha.md\n+++ b/alpha.md\n@@ -3,4 +3,4 @@\n description: about Alpha\n type: user\n ---\n-The Alpha fact.\n+The Alpha rule.\n"},
            {"file": "beta.md", "change": "touched", "diff": null}
        ])
    );
    let text = memctl(&env, &["diff"]).ok().stdout;
    assert!(
        text.starts_with("--- a/alpha.md\n+++ b/alpha.md\n@@ -3,4 +3,4 @@\n"),
        "{text}"
    );
    assert!(text.contains("touched beta.md: mtime "), "{text}");
    let second = memctl(&env, &["snapshot", "--json"]).ok().json()["id"]
        .as_str()
        .unwrap()
        .to_string();
    // Nothing changed since: an empty diff, exit 0.
    assert_eq!(memctl(&env, &["diff"]).ok().stdout, "");
    // By id prefix, @~N and time; --to alone: what that snapshot changed.
    for (from, to) in [
        (&base[..7], second.as_str()),
        ("@~1", "@~0"),
        ("2026-03-10T11:00:00Z", "2026-03-11"),
        ("1h", "@"),
        ("2026-03-10T10:00:00Z", "0m"),
    ] {
        let d = memctl(&env, &["diff", "--json", "--from", from, "--to", to])
            .ok()
            .json();
        assert_eq!(d["from"], base.as_str(), "{from}");
        assert_eq!(d["to"], second.as_str());
        assert_eq!(d["files"].as_array().unwrap().len(), 2);
    }
    let d = memctl(&env, &["diff", "--json", "--to", &second]).ok().json();
    assert_eq!(d["from"], base.as_str());
    let d = memctl(&env, &["diff", "--json", "--to", &base]).ok().json();
    assert_eq!((&d["from"], d["files"].as_array().unwrap().len()), (&Value::Null, 3));
    // --stat: counts only (piped: records).
    let stat = memctl(&env, &["diff", "--stat", "--from", "@~1", "--to", "@~0"])
        .ok()
        .stdout;
    assert_eq!(stat, "alpha.md\tmodified\t1\t1\nbeta.md\ttouched\t0\t0\n");
    let d = memctl(&env, &["diff", "--json", "--stat", "--from", "@~1", "--to", "@~0"])
        .ok()
        .json();
    assert_eq!(d["files"][0]["diff"], Value::Null);
    // Bad forms are usage errors; unknown ids are not found.
    assert_eq!(memctl(&env, &["diff", "--from", "yesterday-ish"]).code, 2);
    assert_eq!(memctl(&env, &["diff", "--from", "@~9"]).code, 2);
    assert_eq!(
        memctl(&env, &["diff", "--from", "2026-03-09"]).code,
        2,
        "nothing that old"
    );
}

#[test]
fn diff_dream_spans_the_last_dream_run() {
    let env = with_memories();
    memctl(&env, &["snapshot"]).ok();
    // A first dream, then a hand edit, then a dream of two snapshots.
    write_aged(&env.dir().join(".consolidate-lock"), b"1", 30.0);
    fs::remove_file(env.dir().join("beta.md")).unwrap();
    memctl(&env, &["snapshot"]).ok();
    write_aged(&env.dir().join("hand.md"), memory_text("Hand").as_bytes(), 20.0);
    memctl(&env, &["snapshot"]).ok();
    let before = memctl(&env, &["history", "--json"]).ok().json()["snapshots"][0]["id"].clone();
    set_age(&env.dir().join(".consolidate-lock"), 2.0);
    fs::remove_file(env.dir().join("alpha.md")).unwrap();
    memctl(&env, &["snapshot"]).ok();
    set_age(&env.dir().join(".consolidate-lock"), 1.0);
    write_aged(&env.dir().join("merged.md"), memory_text("Merged").as_bytes(), 1.0);
    memctl(&env, &["snapshot"]).ok();
    // Something after the run does not end it.
    write_aged(&env.dir().join("later.md"), memory_text("Later").as_bytes(), 0.5);
    memctl(&env, &["snapshot"]).ok();
    assert_eq!(
        triggers(&env),
        ["external", "dream", "dream", "external", "dream", "baseline"]
    );
    let d = memctl(&env, &["diff", "--dream", "--json"]).ok().json();
    assert_eq!(d["from"], before);
    assert_eq!(d["to"], snapshots(&env, &[])[1]["id"]);
    let files: Vec<(&str, &str)> = d["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["file"].as_str().unwrap(), f["change"].as_str().unwrap()))
        .collect();
    assert_eq!(files, [("alpha.md", "deleted"), ("merged.md", "added")]);
    assert_eq!(
        memctl(&env, &["diff", "--dream", "--stat"]).ok().stdout,
        "alpha.md\tdeleted\t0\t6\nmerged.md\tadded\t6\t0\n"
    );
    // No dream in history: not found.
    let env = with_memories();
    memctl(&env, &["snapshot"]).ok();
    let out = memctl(&env, &["diff", "--dream"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("no dream run"), "{}", out.stderr);
}

/// Issue 34 point 7: right after a dream (no memctl command since), `diff --dream`
/// records the outside changes first, as `undo --dream` does, and shows that
/// dream, not "no dream run" nor the previous one.
#[test]
fn diff_dream_right_after_a_dream_shows_that_dream() {
    let env = with_memories();
    memctl(&env, &["snapshot"]).ok();
    // The first dream is seen by nothing yet: diff --dream finds it.
    write_aged(&env.dir().join(".consolidate-lock"), b"1", 30.0);
    fs::remove_file(env.dir().join("beta.md")).unwrap();
    let d = memctl(&env, &["diff", "--dream", "--json"]).ok().json();
    let files = |d: &Value| -> Vec<(String, String)> {
        d["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| (f["file"].as_str().unwrap().into(), f["change"].as_str().unwrap().into()))
            .collect()
    };
    assert_eq!(files(&d), [("beta.md".to_string(), "deleted".to_string())]);
    assert_eq!(triggers(&env), ["dream", "baseline"]);
    assert_eq!(snapshots(&env, &[])[0]["recorded_by"], "diff");
    // A hand edit, recorded; then a second dream: diff --dream shows it, not the first.
    write_aged(&env.dir().join("hand.md"), memory_text("Hand").as_bytes(), 20.0);
    memctl(&env, &["snapshot"]).ok();
    set_age(&env.dir().join(".consolidate-lock"), 1.0);
    write_aged(&env.dir().join("merged.md"), memory_text("Merged").as_bytes(), 1.0);
    let d = memctl(&env, &["diff", "--dream", "--json"]).ok().json();
    assert_eq!(files(&d), [("merged.md".to_string(), "added".to_string())]);
    // Asking again records nothing new and shows the same run.
    let again = memctl(&env, &["diff", "--dream", "--json"]).ok().json();
    assert_eq!(again, d);
    assert_eq!(triggers(&env), ["dream", "external", "dream", "baseline"]);
}

#[test]
fn a_symlinked_dir_shares_its_targets_store() {
    let env = with_memories();
    let link = env.root().join("link");
    std::os::unix::fs::symlink(env.dir(), &link).unwrap();
    let via_link = memctl_env(&env, &[("MEMCTL_DIR", link.to_str().unwrap())], &["snapshot", "--json"]).ok();
    assert_eq!(via_link.json()["trigger"], "baseline");
    assert_eq!(memctl(&env, &["snapshot", "--json"]).ok().json()["id"], Value::Null);
    let stores: Vec<_> = fs::read_dir(history_root(&env))
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(stores.len(), 1, "{stores:?}");
    assert!(store(&env).join("HEAD").is_file());
    let h = memctl_env(&env, &[("MEMCTL_DIR", link.to_str().unwrap())], &["history", "--json"]).ok();
    assert_eq!(h.json()["store"], store(&env).display().to_string());
}

#[test]
fn team_files_are_tracked_under_team() {
    let env = with_memories().memory("team/shared.md", &memory_text("Shared"));
    memctl(&env, &["snapshot"]).ok();
    memctl(
        &env,
        &[
            "--team",
            "add",
            "--type",
            "reference",
            "--name",
            "Team ref",
            "--description",
            "a team ref",
        ],
    )
    .ok();
    let all = snapshots(&env, &[]);
    assert!(changes(&all[1]).contains(&("team/shared.md".into(), "added".into())));
    let added = changes(&all[0]);
    assert!(added.iter().all(|(f, _)| f.starts_with("team/")), "{added:?}");
    // --team: only the team dir's files; a REF is relative to the team dir.
    write_aged(&env.dir().join("alpha.md"), b"main only\n", 1.0);
    memctl(&env, &["snapshot"]).ok();
    let team = snapshots(&env, &["--team"]);
    assert_eq!(team.len(), 2, "the main-only snapshot is not the team's");
    let one = memctl(&env, &["--team", "history", "--json", "shared"]).ok().json();
    assert_eq!(
        changes(&one["snapshots"][0]),
        [("team/shared.md".into(), "added".into())]
    );
    let d = memctl(&env, &["--team", "diff", "--json", "--from", "@~2", "--to", "@~0"])
        .ok()
        .json();
    assert!(
        d["files"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["file"].as_str().unwrap().starts_with("team/")),
        "{d}"
    );
}

#[test]
fn history_off_records_nothing_and_the_readers_say_so() {
    let env = with_memories();
    let add = ["add", "--type", "user", "--name", "Off", "--description", "d"];
    let mut no = vec!["--no-history"];
    no.extend_from_slice(&add);
    memctl(&env, &no).ok();
    memctl_env(&env, &[("MEMCTL_HISTORY", "off")], &["forget", "--yes", "off"]).ok();
    assert!(!env.root().join("state").exists(), "no store is created");
    assert!(!env.dir().join("user_off.md").exists());
    assert!(
        env.dir().join(".trash").is_dir(),
        "with history off, forget keeps its copy in .trash/"
    );
    for cmd in [["history", "--json"], ["diff", "--json"]] {
        // No store yet, history on: history_off too.
        let out = memctl(&env, &cmd);
        assert_eq!(out.code, 2, "{}", out.stderr);
        let err: Value = serde_json::from_str(out.stderr.trim()).unwrap();
        assert_eq!(err["error"]["kind"], "history_off", "{err}");
        let mut off = vec!["--no-history"];
        off.extend_from_slice(&cmd);
        let out = memctl(&env, &off);
        assert_eq!(out.code, 2);
        let err: Value = serde_json::from_str(out.stderr.trim()).unwrap();
        assert_eq!(err["error"]["kind"], "history_off");
        assert!(err["error"]["hint"].as_str().unwrap().contains("--no-history"), "{err}");
        let out = memctl_env(&env, &[("MEMCTL_HISTORY", "off")], &cmd);
        assert_eq!(out.code, 2);
    }
    let out = memctl(&env, &["--no-history", "snapshot"]);
    assert_eq!(out.code, 2);
    assert!(!env.root().join("state").exists());
}

#[test]
fn a_corrupt_store_is_set_aside_and_the_write_is_made() {
    for how in ["missing head", "garbage objects"] {
        let env = with_memories();
        memctl(&env, &["snapshot"]).ok();
        let s = store(&env);
        if how == "missing head" {
            fs::write(s.join("refs/heads/main"), "0123456789abcdef0123456789abcdef01234567\n").unwrap();
        } else {
            let objects = s.join("objects");
            for d in fs::read_dir(&objects).unwrap().flatten() {
                if d.file_name().len() == 2 {
                    for f in fs::read_dir(d.path()).unwrap().flatten() {
                        let mut p = fs::metadata(f.path()).unwrap().permissions();
                        #[allow(clippy::permissions_set_readonly_false)]
                        p.set_readonly(false);
                        fs::set_permissions(f.path(), p).unwrap();
                        fs::write(f.path(), b"garbage").unwrap();
                    }
                }
            }
        }
        let out = memctl(
            &env,
            &[
                "add",
                "--type",
                "user",
                "--name",
                "Kept",
                "--description",
                "d",
                "--body",
                "b",
            ],
        )
        .ok();
        assert!(env.dir().join("user_kept.md").is_file(), "{how}: the write is made");
        assert!(out.stderr.contains(".git.corrupt-"), "{how}: {}", out.stderr);
        let aside: Vec<_> = fs::read_dir(history_root(&env))
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains(".git.corrupt-"))
            .collect();
        assert_eq!(aside.len(), 1, "{how}: {aside:?}");
        assert!(
            history_root(&env).join(&aside[0]).join("HEAD").is_file(),
            "kept, not overwritten"
        );
        // The set-aside store's readable snapshots are listed after the new
        // store's (SPEC v3 §8.1): its baseline, when its objects are intact.
        let want: &[&str] = if how == "missing head" {
            &["add", "baseline", "baseline"]
        } else {
            &["add", "baseline"]
        };
        assert_eq!(triggers(&env), want, "{how}");
        // A set-aside store none of whose snapshots can be read is still named.
        let listed = memctl(&env, &["history"]).ok();
        assert_eq!(
            listed
                .stderr
                .contains(&format!("{} (no snapshot in it can be read)", aside[0])),
            how == "garbage objects",
            "{how}: {}",
            listed.stderr
        );
    }
}

#[test]
fn twenty_concurrent_adds_give_twenty_add_snapshots() {
    let env = with_memories();
    memctl(&env, &["snapshot"]).ok();
    let children: Vec<_> = (0..20)
        .map(|i| {
            let mut cmd = env.command();
            cmd.env("MEMCTL_TEST_LOCK_WAIT_SECS", "3600");
            cmd.args([
                "add",
                "--type",
                "user",
                "--name",
                &format!("Parallel {i}"),
                "--description",
                "d",
                "--body",
                "b",
            ]);
            cmd.stdout(std::process::Stdio::null());
            cmd.stderr(std::process::Stdio::piped());
            cmd.spawn().unwrap()
        })
        .collect();
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(
            !String::from_utf8_lossy(&out.stderr).contains("history"),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let got = triggers(&env);
    assert_eq!(got.iter().filter(|t| *t == "add").count(), 20, "{got:?}");
    assert_eq!(
        got.len(),
        21,
        "no before-snapshot: nothing changed outside memctl: {got:?}"
    );
    if git_available() {
        let fsck = git_out(&store(&env), &["fsck", "--strict"]);
        assert!(fsck.status.success(), "{}", String::from_utf8_lossy(&fsck.stderr));
    }
}

#[test]
fn kill_9_during_snapshots_leaves_a_readable_store_and_an_untouched_dir() {
    let env = Env::new();
    for i in 0..60 {
        write_aged(
            &env.dir().join(format!("m{i:02}.md")),
            memory_text(&format!("M{i}")).repeat(20).as_bytes(),
            5.0,
        );
    }
    memctl(&env, &["snapshot"]).ok();
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut killed = 0;
    for round in 0..60 {
        // Change a few files, so that each snapshot has objects to write.
        for k in 0..3 {
            let p = env.dir().join(format!("m{:02}.md", (round * 3 + k) % 60));
            write_aged(&p, format!("round {round}\n").repeat(50).as_bytes(), 1.0);
        }
        if round % 7 == 3 {
            write_aged(&env.dir().join(".consolidate-lock"), b"1", 0.1 * round as f64);
        }
        let before = files_of(&env.dir());
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let delay = Duration::from_micros((seed >> 33) % 50_000);
        let mut child = env
            .command()
            .arg("snapshot")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(delay);
        if child.try_wait().unwrap().is_none() {
            child.kill().unwrap();
            killed += 1;
        }
        child.wait().unwrap();
        assert_eq!(
            files_of(&env.dir()),
            before,
            "round {round}: the memory dir was touched"
        );
    }
    eprintln!("killed {killed} of 60 snapshots");
    // The store opens, records and lists.
    let last = memctl(&env, &["snapshot", "--json"]).ok();
    assert!(
        last.json()["warnings"].as_array().unwrap().is_empty(),
        "{}",
        last.stdout
    );
    let snaps = snapshots(&env, &[]);
    assert!(snaps.len() >= 2);
    assert_eq!(snaps.last().unwrap()["trigger"], "baseline");
    assert_eq!(
        memctl(&env, &["diff"]).ok().stdout,
        "",
        "the newest snapshot is the dir now"
    );
    if git_available() {
        let fsck = git_out(&store(&env), &["fsck"]);
        assert!(fsck.status.success(), "{}", String::from_utf8_lossy(&fsck.stderr));
    }
}

#[test]
fn plain_git_reads_the_store() {
    if !git_available() {
        eprintln!("git is not installed; skipped");
        return;
    }
    let env = with_memories();
    memctl(&env, &["snapshot", "-m", "by hand"]).ok();
    memctl(&env, &["forget", "--yes", "beta"]).ok();
    let s = store(&env);
    let log = git_out(&s, &["log", "--format=%s|%(trailers:key=Trigger,valueonly,separator=)"]);
    assert!(log.status.success(), "{}", String::from_utf8_lossy(&log.stderr));
    let text = String::from_utf8_lossy(&log.stdout);
    assert_eq!(
        text,
        "forget: ~MEMORY.md -beta.md|forget\nbaseline: +MEMORY.md +alpha.md +beta.md|baseline\n"
    );
    let body = git_out(&s, &["log", "-1", "--skip=1", "--format=%b"]);
    assert!(String::from_utf8_lossy(&body.stdout).starts_with("by hand\n"));
    let show = git_out(&s, &["show", "HEAD~1:beta.md"]);
    assert_eq!(String::from_utf8_lossy(&show.stdout), memory_text("Beta"));
    let mtimes = git_out(&s, &["show", "HEAD:.memctl/mtimes"]);
    let md = fs::metadata(env.dir().join("alpha.md")).unwrap();
    let ns = i128::from(md.mtime()) * 1_000_000_000 + i128::from(md.mtime_nsec());
    assert!(
        String::from_utf8_lossy(&mtimes.stdout).contains(&format!("{ns}\talpha.md\n")),
        "{}",
        String::from_utf8_lossy(&mtimes.stdout)
    );
    let config = git_out(&s, &["config", "memctl.memoryDir"]);
    assert_eq!(
        String::from_utf8_lossy(&config.stdout).trim(),
        env.dir().display().to_string()
    );
}

#[test]
fn history_writes_nothing_inside_the_memory_dir() {
    let env = with_memories();
    memctl(&env, &["snapshot"]).ok();
    write_aged(&env.dir().join("alpha.md"), b"changed\n", 1.0);
    memctl(&env, &["add", "--type", "user", "--name", "New", "--description", "d"]).ok();
    memctl(&env, &["history"]).ok();
    memctl(&env, &["diff"]).ok();
    let mut names: Vec<String> = fs::read_dir(env.dir())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [".memctl.lock", "MEMORY.md", "alpha.md", "beta.md", "user_new.md"]
    );
}

/// A store whose recorded memory dir is another one (a state dir copied from
/// elsewhere) is not used: a warning names both dirs, and this dir's history goes
/// to the next free key `<key>-2` — `snapshot` and `history` work, `add` still
/// snapshots (SPEC §8.1; issue 32 point 7).
#[test]
fn a_store_recorded_for_another_dir_gives_a_warning_and_a_new_key() {
    let env = with_memories();
    memctl(&env, &["snapshot"]).ok();
    let old = store(&env);
    let config = old.join("config");
    let text = fs::read_to_string(&config).unwrap();
    let shown = env.dir().display().to_string();
    assert!(text.contains(&shown), "{text}");
    fs::write(&config, text.replace(&shown, "/elsewhere/mem")).unwrap();
    let out = memctl(&env, &["snapshot", "-m", "mine"]).ok();
    assert!(
        out.stderr.contains("/elsewhere/mem") && out.stderr.contains(&shown),
        "{}",
        out.stderr
    );
    let new = history_root(&env).join(format!("{}-2.git", memctl::history::key(&env.dir())));
    assert!(new.join("HEAD").is_file(), "no store at {}", new.display());
    assert_eq!(triggers(&env), ["baseline"]);
    memctl(
        &env,
        &[
            "add",
            "--type",
            "user",
            "--name",
            "Gamma",
            "--description",
            "about Gamma",
        ],
    )
    .ok();
    assert_eq!(triggers(&env), ["add", "baseline"]);
    // The other dir's store is left as it was.
    assert_eq!(
        fs::read_to_string(&config).unwrap(),
        text.replace(&shown, "/elsewhere/mem")
    );
}

/// An index that shrank within the last second is kept as last recorded
/// (unsettled, SPEC v3 §8.1); `snapshot` says so instead of a bare "nothing
/// changed" (review of issue 29). "Within the last second" is forced with the
/// debug-only test clock variable (its socket need not exist: the real clock runs).
#[test]
fn a_snapshot_of_a_shrunk_young_index_says_it_waits_for_it_to_settle() {
    let env = with_memories();
    memctl(&env, &["snapshot"]).ok();
    fs::write(env.dir().join("MEMORY.md"), "- [Alpha](alpha.md) — about Alpha\n").unwrap();
    let out = env
        .command()
        .env("MEMCTL_TEST_CLOCK", env.root().join("no-such-socket"))
        .arg("snapshot")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("MEMORY.md shrank within the last second (another program may be rewriting it): kept as last recorded; it is recorded once it settles"),
        "{err}"
    );
}

/// A write's after-snapshot records what memctl itself wrote (SPEC v3 §8.2): a
/// file another program changes between the two snapshots is recorded by the
/// next snapshot, as `external`, and nothing of it is lost. The change is made
/// by the debug hook `MEMCTL_TEST_BETWEEN_SNAPSHOTS`, right after the
/// before-snapshot, under the lock.
#[test]
fn a_change_by_another_program_between_a_writes_snapshots_is_recorded_next_as_external() {
    let env = with_memories();
    // The baseline's stat cache is written in a later clock tick than the files'
    // ctimes (git's racy rule), so that the before-snapshot of each write is
    // vouched for by it: any delay only widens the gap.
    std::thread::sleep(Duration::from_millis(50));
    memctl(&env, &["snapshot"]).ok();
    let beta = env.dir().join("beta.md");
    let change = format!("printf 'Changed meanwhile.\\n' >> '{}'", beta.display());
    let args = [
        "add",
        "--type",
        "user",
        "--name",
        "Gamma",
        "--description",
        "about Gamma",
        "--body",
        "G.",
    ];
    memctl_env(&env, &[("MEMCTL_TEST_BETWEEN_SNAPSHOTS", &change)], &args).ok();
    assert_eq!(triggers(&env), ["add", "baseline"]);
    own_then_external(&env, ("user_gamma.md", "added"));
    assert_eq!(memctl(&env, &["snapshot", "--json"]).ok().json()["id"], Value::Null);
    // A forget that way too: the change is the next snapshot's. (The cache is
    // first rewritten a tick after the last writes, as above.)
    std::thread::sleep(Duration::from_millis(50));
    memctl(&env, &["snapshot"]).ok();
    let change = format!("printf 'Again.\\n' >> '{}'", beta.display());
    memctl_env(
        &env,
        &[("MEMCTL_TEST_BETWEEN_SNAPSHOTS", &change)],
        &["forget", "--yes", "alpha"],
    )
    .ok();
    own_then_external(&env, ("alpha.md", "deleted"));
}

/// The newest snapshot (the write's own) holds only `MEMORY.md` and `own`; the
/// next `snapshot` records `beta.md`, changed meanwhile, as `external`.
fn own_then_external(env: &Env, own: (&str, &str)) {
    let snaps = snapshots(env, &[]);
    let mut got = changes(&snaps[0]);
    got.sort();
    let mut want = vec![
        ("MEMORY.md".to_string(), "modified".to_string()),
        (own.0.to_string(), own.1.to_string()),
    ];
    want.sort();
    assert_eq!(got, want);
    let next = memctl(env, &["snapshot", "--json"]).ok().json();
    assert_eq!(next["trigger"], "external");
    assert_eq!(changes(&next), [("beta.md".to_string(), "modified".to_string())]);
}
