//! `memctl undo` (SPEC §8.3): revert a snapshot or the last dream run.

use std::fs;
use std::path::Path;
use std::time::{Duration, UNIX_EPOCH};

use crate::restore::{files, on, set_ns};
use crate::support::{Env, read};

const A: &str = "---\nname: Alpha\ndescription: first\ntype: feedback\n---\nA body\n";
const B: &str = "---\nname: Beta\ndescription: second\ntype: user\n---\nB body\n";
const C: &str = "---\nname: Gamma\ndescription: third\ntype: project\n---\nC body\n";
const INDEX: &str = "# Index\n- [Alpha](a.md) — first\n- [Beta](b.md) — second\n- [Gamma](c.md) — third\n";

fn dir() -> Env {
    let env = Env::new()
        .memory("a.md", A)
        .memory("b.md", B)
        .memory("c.md", C)
        .index(INDEX);
    let d = env.dir();
    set_ns(&d.join("a.md"), 1_773_000_000, 123_456_789);
    set_ns(&d.join("b.md"), 1_773_000_100, 987_654_321);
    set_ns(&d.join("c.md"), 1_773_000_200, 5);
    set_ns(&d.join("MEMORY.md"), 1_773_000_300, 42);
    let lock = d.join(".consolidate-lock");
    fs::write(&lock, "4242").unwrap();
    set_ns(&lock, 1_772_000_000, 0);
    env
}

fn run_in(d: &Path, args: &[&str]) -> crate::support::Run {
    on(d).args(args.iter().copied()).run()
}

/// What an auto-dream does: deletes two memories, rewrites one, adds one, rewrites
/// the index, and moves the consolidation lock's mtime (SPEC §2.12).
fn dream(d: &Path) {
    fs::remove_file(d.join("a.md")).unwrap();
    fs::remove_file(d.join("c.md")).unwrap();
    fs::write(
        d.join("b.md"),
        "---\nname: Beta\ndescription: merged\ntype: user\n---\nB and A\n",
    )
    .unwrap();
    fs::write(
        d.join("merged.md"),
        "---\nname: Merged\ndescription: new\ntype: project\n---\nM\n",
    )
    .unwrap();
    fs::write(
        d.join("MEMORY.md"),
        "# Index\n- [Beta](b.md) — merged\n- [Merged](merged.md) — new\n",
    )
    .unwrap();
    // The dream finished a while ago: an index that shrank within the last second
    // would be recorded as unsettled (SPEC v3 §8.1).
    set_ns(&d.join("MEMORY.md"), 1_773_140_000, 7);
    set_ns(&d.join(".consolidate-lock"), 1_773_140_000, 0);
}

fn lock_mtime(d: &Path) -> std::time::SystemTime {
    fs::metadata(d.join(".consolidate-lock")).unwrap().modified().unwrap()
}

#[test]
fn undoing_a_dream_gives_back_every_byte_and_mtime() {
    // The dream seen by the next memctl command (here `snapshot`), or by undo itself.
    for recorded in [true, false] {
        let env = dir();
        let d = env.dir();
        run_in(&d, &["snapshot"]).success();
        let manifest = run_in(&d, &["list", "--format", "manifest"]).success().stdout;
        let before = files(&d);
        dream(&d);
        let moved = lock_mtime(&d);
        if recorded {
            let doc = run_in(&d, &["snapshot", "--json"]).success().json();
            assert_eq!(doc["trigger"], "dream");
        }
        let run = run_in(&d, &["undo", "--dream", "--yes", "--json"]).success();
        let doc = run.json();
        let changes: Vec<(String, String)> = doc["restored"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r["file"].as_str().unwrap().into(), r["change"].as_str().unwrap().into()))
            .collect();
        assert_eq!(
            changes,
            [
                ("MEMORY.md".into(), "modified".into()),
                ("a.md".into(), "added".into()),
                ("b.md".into(), "modified".into()),
                ("c.md".into(), "added".into()),
                ("merged.md".into(), "deleted".into()),
            ]
        );
        assert_eq!(doc["restored"][4]["mtime"], serde_json::Value::Null);
        assert_eq!(doc["restored"][1]["mtime"], "2026-03-08T20:00:00.123456789Z");
        assert_eq!(doc["conflicts"], serde_json::json!([]));
        assert_eq!(run_in(&d, &["list", "--format", "manifest"]).success().stdout, manifest);
        assert_eq!(files(&d), before, "every file's bytes and mtime (ns)");
        // The lock is Claude Code's dream clock: left where the dream put it.
        assert_eq!(lock_mtime(&d), moved);
        // The added file's copy stays in history: restore brings it back.
        run_in(&d, &["restore", "merged"]).success();
        assert!(d.join("merged.md").exists());
        drop(env);
    }
}

#[test]
fn files_changed_again_since_are_conflicts_unless_forced() {
    let env = dir();
    let d = env.dir();
    run_in(&d, &["snapshot"]).success();
    dream(&d);
    run_in(&d, &["snapshot"]).success();
    fs::write(d.join("b.md"), "edited after the dream\n").unwrap();
    let run = run_in(&d, &["undo", "--dream", "--yes", "--json"]).code(1);
    let doc = run.json();
    assert_eq!(doc["conflicts"][0]["file"], "b.md");
    assert!(
        doc["conflicts"][0]["reason"]
            .as_str()
            .unwrap()
            .starts_with("changed since "),
        "{doc}"
    );
    assert_eq!(read(&d, "b.md"), "edited after the dream\n", "left alone");
    assert_eq!(read(&d, "a.md"), A, "the rest is undone");
    assert!(!d.join("merged.md").exists());
    // Now only b.md differs from before the dream; --force reverts it too.
    let run = run_in(&d, &["undo", "--dream", "--yes", "--force", "--json"]).success();
    assert_eq!(run.json()["restored"][0]["file"], "b.md");
    assert_eq!(read(&d, "b.md"), B);
}

/// Issue 29 point 16: the dream added `merged.md` and its index line; the user
/// then edited `MEMORY.md`. Undoing the dream must not remove `merged.md` and leave
/// its line: the whole undo is refused and writes nothing (SPEC §8.3 keeps a
/// conflicting index untouched, so a partial undo cannot stay consistent);
/// `--force` reverts the index too.
#[test]
fn undo_of_a_dream_with_a_conflicting_index_is_refused_whole() {
    let env = dir();
    let d = env.dir();
    run_in(&d, &["snapshot"]).success();
    dream(&d);
    run_in(&d, &["snapshot"]).success();
    let edited = "# Index\n- [Beta](b.md) — merged\n- [Merged](merged.md) — new\nMy own note.\n";
    fs::write(d.join("MEMORY.md"), edited).unwrap();
    let before = files(&d);
    let run = run_in(&d, &["undo", "--dream", "--yes"]).code(2);
    run.stderr_has("undo refused, nothing was written")
        .stderr_has("remove merged.md")
        .stderr_has("MEMORY.md is a conflict");
    assert_eq!(files(&d), before, "a refused undo writes nothing");
    // The dry run says the same.
    run_in(&d, &["undo", "--dream", "--dry-run"])
        .code(2)
        .stderr_has("undo refused");
    // With --force the index goes back with the memories: consistent again.
    run_in(&d, &["undo", "--dream", "--yes", "--force"]).success();
    assert!(!d.join("merged.md").exists());
    assert_eq!(read(&d, "MEMORY.md"), INDEX);
    assert_eq!(read(&d, "a.md"), A);
}

#[test]
fn undo_never_targets_the_baseline() {
    let env = dir();
    let d = env.dir();
    let base = run_in(&d, &["snapshot", "--json"]).success().json()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let run = run_in(&d, &["undo", "--yes"]).code(2);
    run.stderr_starts("memctl: nothing to undo: history holds only the baseline");
    let run = run_in(&d, &["undo", "--yes", &base]).code(2);
    run.stderr_starts(&format!("memctl: {base} is the baseline"));
    assert_eq!(read(&d, "a.md"), A);
    // The default is the newest other snapshot, whatever made it.
    run_in(&d, &["forget", "--yes", "a"]).success();
    let run = run_in(&d, &["undo", "--yes"]).success();
    assert_eq!(
        run.stdout,
        "MEMORY.md\tmodified\t2026-03-08T20:05:00.000000042Z\na.md\tadded\t2026-03-08T20:00:00.123456789Z\n"
    );
    assert_eq!(files(&d).len(), 4);
    assert_eq!(read(&d, "MEMORY.md"), INDEX);
}

#[test]
fn without_a_terminal_undo_needs_yes_and_a_dry_run_writes_nothing() {
    let env = dir();
    let d = env.dir();
    run_in(&d, &["snapshot"]).success();
    dream(&d);
    let after_dream = files(&d);
    let run = run_in(&d, &["undo", "--dream"]).code(2);
    run.stderr_starts("memctl: undo needs confirmation, and there is no terminal to ask: it would revert snapshot ");
    run.stderr_has("hint: pass --yes");
    assert_eq!(files(&d), after_dream);
    let run = run_in(&d, &["undo", "--dream", "--dry-run", "--json"]).success();
    let doc = run.json();
    assert_eq!(doc["dry_run"], true);
    assert_eq!(doc["restored"].as_array().unwrap().len(), 5);
    assert_eq!(files(&d), after_dream);
    assert!(!d.join("a.md").exists());
}

#[test]
fn a_terminal_confirmation_names_what_is_undone() {
    let env = dir();
    let d = env.dir();
    run_in(&d, &["snapshot"]).success();
    dream(&d);
    let env = on(&d);
    let out = crate::support::run_in_pty(&env, &["undo", "--dream"], &[("? [y/N]", "n\r")]);
    assert!(out.contains("Undo snapshot "), "{out}");
    assert!(out.contains("(dream, "), "{out}");
    assert!(
        out.contains("bring back 2 files, remove 1 file, revert 2 files?"),
        "{out}"
    );
    assert!(out.contains("nothing undone"), "{out}");
    assert!(!d.join("a.md").exists());
    let out = crate::support::run_in_pty(&env, &["undo", "--dream"], &[("? [y/N]", "y\r")]);
    assert!(out.contains("undid snapshot "), "{out}");
    assert_eq!(read(&d, "a.md"), A);
}

#[test]
fn with_history_off_undo_fails_with_history_off() {
    let env = dir().env("MEMCTL_HISTORY", "off");
    let run = env.args(["--json", "undo", "--yes"]).run().code(2);
    assert_eq!(run.stderr_json()["error"]["kind"], "history_off");
}

#[test]
fn an_undo_can_itself_be_undone() {
    let env = dir();
    let d = env.dir();
    run_in(&d, &["snapshot"]).success();
    run_in(&d, &["forget", "--yes", "c"]).success();
    run_in(&d, &["undo", "--yes"]).success();
    assert_eq!(read(&d, "c.md"), C);
    run_in(&d, &["undo", "--yes"]).success();
    assert!(!d.join("c.md").exists());
    assert_eq!(
        fs::metadata(d.join("a.md")).unwrap().modified().unwrap(),
        UNIX_EPOCH + Duration::new(1_773_000_000, 123_456_789)
    );
}

/// `memctl undo` of a snapshot that changed the project's CLAUDE files (what a
/// `review --apply` records, made here through the library's Writer, SPEC §12):
/// they are put back and listed by path; a second undo writes them again.
#[test]
fn undo_puts_back_claude_files_a_snapshot_changed() {
    use memctl::history::Settings;
    use memctl::memdir::{MemoryDir, Scope};
    use memctl::store::{Recording, Writer};

    let env = dir();
    let d = env.dir();
    let project = env.root().join("project");
    fs::create_dir_all(&project).unwrap();
    let claude = project.join("CLAUDE.md");
    fs::write(&claude, "# Project\r\n").unwrap();
    let rec = Recording {
        settings: Settings::On {
            root: d.parent().unwrap().join("state/memctl/history"),
        },
        command: "review",
        project: Some(project.clone()),
    };
    {
        let now = crate::support::NOW.parse().unwrap();
        let mut w = Writer::open(&MemoryDir::open(&d, Scope::Main), now, false, &rec).unwrap();
        let old = fs::read(&claude).unwrap();
        let new = memctl::claude_md::append_from_memory(Some(&old), &["A body".to_string()]);
        w.replace_outside(&project, &claude, Some(&old), &new).unwrap();
        w.remove(&d.join("a.md")).unwrap();
        assert!(w.finish().is_empty());
    }
    let reviewed = fs::read(&claude).unwrap();
    assert_eq!(reviewed, b"# Project\r\n\r\n## From memory\r\n\r\n- A body\r\n");

    let r = run_in(&d, &["undo", "--yes", "--json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let doc: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let restored: Vec<(&str, &str)> = doc["restored"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["file"].as_str().unwrap(), f["change"].as_str().unwrap()))
        .collect();
    assert_eq!(restored, [("a.md", "added"), (claude.to_str().unwrap(), "modified")]);
    assert_eq!(fs::read(&claude).unwrap(), b"# Project\r\n");
    assert_eq!(read(&d, "a.md"), A);

    // The undo is a change like any other: undoing it writes the review's bytes again.
    let r = run_in(&d, &["undo", "--yes"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains(&format!("{}\tmodified", claude.display())),
        "{}",
        r.stdout
    );
    assert_eq!(fs::read(&claude).unwrap(), reviewed);
    assert!(!d.join("a.md").exists());

    // Edited by hand since: left as it is, with a warning naming it.
    fs::write(&claude, "hand edit\n").unwrap();
    let r = run_in(&d, &["undo", "--yes"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains(&format!("{}: changed since", claude.display())),
        "{}",
        r.stderr
    );
    assert_eq!(fs::read(&claude).unwrap(), b"hand edit\n");
    assert_eq!(read(&d, "a.md"), A);
}

/// A file whose mtime alone moved since (a `touch`, an editor saving the same
/// bytes) is not "changed again": `undo --dream` still reverts the whole dream, and
/// a plain `undo` reverts the last change of content, not the touch (SPEC §8.3).
#[test]
fn a_touch_since_is_not_a_change() {
    let env = dir();
    let d = env.dir();
    run_in(&d, &["snapshot"]).success();
    let before = fs::read(d.join("MEMORY.md")).unwrap();
    dream(&d);
    run_in(&d, &["snapshot"]).success();
    let dreamt = fs::read(d.join("MEMORY.md")).unwrap();
    set_ns(&d.join("MEMORY.md"), 1_773_141_000, 0);
    let run = run_in(&d, &["undo", "--dream", "--yes", "--json"]).success();
    assert_eq!(run.json()["conflicts"], serde_json::json!([]), "{}", run.stderr);
    assert_eq!(fs::read(d.join("MEMORY.md")).unwrap(), before);
    assert!(d.join("a.md").exists() && !d.join("merged.md").exists());
    assert_ne!(before, dreamt);

    // add, then a touch of the index: undo takes the add back.
    let env = dir();
    let d = env.dir();
    run_in(&d, &["snapshot"]).success();
    run_in(
        &d,
        &[
            "add",
            "--type",
            "user",
            "--name",
            "fresh",
            "--description",
            "new one",
            "--body",
            "b",
        ],
    )
    .success();
    let index = read(&d, "MEMORY.md");
    assert!(index.contains("fresh"), "{index}");
    set_ns(&d.join("MEMORY.md"), 1_773_141_000, 0);
    run_in(&d, &["undo", "--yes"]).success();
    let index = read(&d, "MEMORY.md");
    assert!(!index.contains("fresh"), "the add is undone:\n{index}");
    assert!(
        !fs::read_dir(&d)
            .unwrap()
            .flatten()
            .any(|e| e.file_name().to_string_lossy().contains("fresh")),
        "the added file is gone"
    );
}
