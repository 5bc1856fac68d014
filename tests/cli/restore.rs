//! `memctl restore` (SPEC §8.3): one memory back from history or `.trash/`.

use std::fs;
use std::path::Path;
use std::time::{Duration, UNIX_EPOCH};

use crate::support::{Env, read};

const A: &str = "---\nname: Alpha rule\ndescription: first\ntype: feedback\n---\nA body\n";
const B: &str = "---\nname: Beta\ndescription: second\ntype: user\n---\nB body\n";
const C: &str = "---\nname: Gamma\ndescription: third\ntype: user\n---\nC body\n";
const INDEX: &str =
    "# Index\n## Feedback\n- [Alpha](a.md) — first\n## User\n- [Beta](b.md) — second\n- [Gamma](c.md) — third\n";

/// Give `path` an mtime with nanoseconds (no filesystem rounds these away).
pub fn set_ns(path: &Path, secs: u64, nanos: u32) {
    let f = fs::File::options().write(true).open(path).unwrap();
    f.set_modified(UNIX_EPOCH + Duration::new(secs, nanos)).unwrap();
}

/// Every tracked file's bytes and mtime (ns), by name.
pub fn files(d: &Path) -> Vec<(String, Vec<u8>, u128)> {
    let mut out: Vec<_> = fs::read_dir(d)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".md"))
        .map(|e| {
            let m = fs::symlink_metadata(e.path()).unwrap();
            let ns = m.modified().unwrap().duration_since(UNIX_EPOCH).unwrap().as_nanos();
            (
                e.file_name().to_string_lossy().into_owned(),
                fs::read(e.path()).unwrap(),
                ns,
            )
        })
        .collect();
    out.sort();
    out
}

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
    env
}

/// A fresh environment on the memory dir `d` of another one, sharing its history
/// store (the default place under that environment's home).
pub fn on(d: &Path) -> Env {
    Env::new()
        .env("MEMCTL_DIR", d)
        .env("MEMCTL_HISTORY_DIR", d.parent().unwrap().join("state/memctl/history"))
}

fn run_in(d: &Path, args: &[&str]) -> crate::support::Run {
    on(d).args(args.iter().copied()).run()
}

fn manifest(d: &Path) -> String {
    run_in(d, &["list", "--format", "manifest"]).success().stdout
}

#[test]
fn a_forgotten_memory_comes_back_exactly() {
    for history in ["on", "off"] {
        let env = dir();
        let d = env.dir();
        let manifest_before = manifest(&d);
        let before = files(&d);
        on(&d)
            .env("MEMCTL_HISTORY", history)
            .args(["forget", "--yes", "b"])
            .run()
            .success();
        assert_ne!(files(&d), before);
        let run = on(&d)
            .env("MEMCTL_HISTORY", history)
            .args(["restore", "--json", "Beta"])
            .run()
            .success();
        let doc = run.json();
        assert_eq!(doc["restored"][0]["file"], "b.md");
        assert_eq!(doc["restored"][0]["change"], "added");
        assert_eq!(doc["restored"][0]["mtime"], "2026-03-08T20:01:40.987654321Z");
        assert_eq!(doc["index_lines"][0]["text"], "- [Beta](b.md) — second");
        assert_eq!(doc["conflicts"], serde_json::json!([]));
        assert_eq!(doc["snapshot"].is_string(), history == "on", "{doc}");
        assert_eq!(manifest(&d), manifest_before, "{history}");
        // Every memory's bytes and mtime, and the index's bytes (the line is back
        // between its old neighbours).
        let after = files(&d);
        for (x, y) in before.iter().zip(&after) {
            assert_eq!(x.0, y.0);
            if x.0 == "MEMORY.md" && history == "off" {
                // `.index-lines` keeps no place: the line goes to the end of its
                // type's section (§10.2).
                let lines = |b: &[u8]| {
                    let mut l: Vec<String> = String::from_utf8_lossy(b).lines().map(str::to_string).collect();
                    l.sort();
                    l
                };
                assert_eq!(lines(&x.1), lines(&y.1));
                continue;
            }
            assert_eq!(x.1, y.1, "{history}: {}", x.0);
            if x.0 != "MEMORY.md" {
                assert_eq!(x.2, y.2, "{history}: mtime of {}", x.0);
            }
        }
        assert_eq!(after.len(), before.len());
        drop(env);
    }
}

#[test]
fn restore_from_a_version_1_trash_dir_works_with_history_off() {
    let env = dir().env("MEMCTL_HISTORY", "off");
    let d = env.dir();
    let trash = d.join(".trash/20260101T000000Z");
    fs::create_dir_all(&trash).unwrap();
    fs::rename(d.join("a.md"), trash.join("a.md.deleted")).unwrap();
    fs::write(trash.join("a.md.index-lines"), "- [Alpha](a.md) — first\n").unwrap();
    fs::write(
        d.join("MEMORY.md"),
        "# Index\n## Feedback\n## User\n- [Beta](b.md) — second\n",
    )
    .unwrap();
    let run = env.args(["restore", "a"]).run().success();
    assert_eq!(run.stdout, "a.md\tadded\t2026-03-08T20:00:00.123456789Z\n");
    assert_eq!(read(&d, "a.md"), A);
    assert_eq!(
        fs::metadata(d.join("a.md")).unwrap().modified().unwrap(),
        UNIX_EPOCH + Duration::new(1_773_000_000, 123_456_789)
    );
    // No old neighbour to stand beside: the line goes to its type's section (§10.2).
    assert_eq!(
        read(&d, "MEMORY.md"),
        "# Index\n## Feedback\n- [Alpha](a.md) — first\n## User\n- [Beta](b.md) — second\n"
    );
}

#[test]
fn different_content_is_a_conflict_unless_forced() {
    let env = dir();
    let d = env.dir();
    run_in(&d, &["snapshot"]).success();
    fs::write(d.join("c.md"), "changed by hand\n").unwrap();
    let run = run_in(&d, &["restore", "--json", "c"]).code(1);
    let doc = run.json();
    assert_eq!(doc["restored"], serde_json::json!([]));
    assert_eq!(doc["conflicts"][0]["file"], "c.md");
    assert!(doc["conflicts"][0]["reason"].as_str().unwrap().contains("--force"));
    assert_eq!(read(&d, "c.md"), "changed by hand\n", "untouched");
    let run = run_in(&d, &["restore", "--force", "c"]).success();
    assert!(run.stdout.starts_with("c.md\tmodified\t"), "{}", run.stdout);
    assert_eq!(read(&d, "c.md"), C);
    // The hand edit is kept in history: restoring it back is possible.
    assert!(
        run.stderr.contains("the current content stays in history"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_file_deleted_outside_memctl_is_found_by_its_name_in_history() {
    let env = dir();
    let d = env.dir();
    run_in(&d, &["snapshot"]).success();
    fs::remove_file(d.join("a.md")).unwrap();
    run_in(&d, &["snapshot"]).success();
    let run = run_in(&d, &["restore", "--json", "alpha rule"]).success();
    assert_eq!(run.json()["restored"][0]["file"], "a.md");
    assert_eq!(read(&d, "a.md"), A);
    // The index still linked it: nothing added.
    assert_eq!(run.json()["index_lines"], serde_json::json!([]));
    assert_eq!(read(&d, "MEMORY.md"), INDEX);
    let run = run_in(&d, &["restore", "zeta"]).code(2);
    run.stderr_starts("memctl: no copy of `zeta` in history or in ");
}

#[test]
fn at_names_an_older_copy() {
    let env = dir();
    let d = env.dir();
    let first = run_in(&d, &["snapshot", "--json"]).success().json()["id"]
        .as_str()
        .unwrap()
        .to_string();
    fs::write(d.join("b.md"), "new b\n").unwrap();
    run_in(&d, &["snapshot"]).success();
    run_in(&d, &["restore", "--at", &first, "b"]).code(1);
    let run = run_in(&d, &["restore", "--json", "--force", "--at", "@~1", "b"]).success();
    assert_eq!(run.json()["snapshot"], first.as_str());
    assert_eq!(read(&d, "b.md"), B);
    assert_eq!(
        fs::metadata(d.join("b.md")).unwrap().modified().unwrap(),
        UNIX_EPOCH + Duration::new(1_773_000_100, 987_654_321)
    );
    // --at needs history.
    let run = on(&d)
        .env("MEMCTL_HISTORY", "off")
        .args(["restore", "--at", "@~1", "b"])
        .run()
        .code(2);
    run.stderr_starts("memctl: no history for");
}

#[test]
fn a_dry_run_writes_nothing() {
    let env = dir();
    let d = env.dir();
    run_in(&d, &["forget", "--yes", "a"]).success();
    let before = files(&d);
    let run = run_in(&d, &["restore", "--dry-run", "--json", "a"]).success();
    let doc = run.json();
    assert_eq!(doc["dry_run"], true);
    assert_eq!(doc["restored"][0]["change"], "added");
    assert_eq!(doc["index_lines"][0]["line"], 3);
    assert_eq!(files(&d), before);
    assert!(!d.join("a.md").exists());
}

#[test]
fn a_memory_as_it_was_is_nothing_to_restore() {
    let env = dir();
    let d = env.dir();
    run_in(&d, &["snapshot"]).success();
    let run = run_in(&d, &["restore", "--json", "a"]).success();
    assert_eq!(run.json()["restored"], serde_json::json!([]));
    // Same bytes, other mtime: only the mtime comes back (no --force needed).
    set_ns(&d.join("a.md"), 1_773_100_000, 0);
    let run = run_in(&d, &["restore", "--json", "a"]).success();
    assert_eq!(run.json()["restored"][0]["change"], "touched");
    assert_eq!(
        fs::metadata(d.join("a.md")).unwrap().modified().unwrap(),
        UNIX_EPOCH + Duration::new(1_773_000_000, 123_456_789)
    );
    let run = run_in(&d, &["restore", "MEMORY.md"]).code(2);
    run.stderr_starts("memctl: `MEMORY.md` is the index, not a memory");
}

/// SPEC §3.14 "Budget refusals" (issue 32): a restore whose line pushes an entry
/// past Claude Code's cut restores, then names that entry (file, line, text) and
/// suggests `memctl index rebuild`.
#[test]
fn a_restore_that_cuts_the_index_names_each_entry_past_the_cut() {
    let env = dir();
    let d = env.dir();
    run_in(&d, &["forget", "--yes", "b"]).success();
    let mut index = read(&d, "MEMORY.md");
    assert_eq!(index.lines().count(), 5, "{index}");
    for i in 0..195 {
        index.push_str(&format!("- [E{i}](e{i}.md) — e\n"));
    }
    fs::write(d.join("MEMORY.md"), &index).unwrap();
    let run = run_in(&d, &["restore", "Beta"]).success();
    assert!(d.join("b.md").is_file());
    let after = read(&d, "MEMORY.md");
    assert_eq!(after.lines().nth(200), Some("- [E194](e194.md) — e"), "{after}");
    assert!(
        run.stderr
            .contains("MEMORY.md:201: past Claude Code's cut, it does not load: - [E194](e194.md) — e\n"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("1 entry is past Claude Code's cut in MEMORY.md: run `memctl index rebuild`"),
        "{}",
        run.stderr
    );
}

/// The old neighbour of the restored line now stands in another type's section:
/// the line goes to its own type's section (SPEC §10.2), not beside it (issue 32
/// point 8).
#[test]
fn the_line_goes_to_its_types_section_not_beside_a_moved_neighbour() {
    let env = dir().index(
        "# Index\n## User\n- [Beta](b.md) — second\n- [Gamma](c.md) — third\n## Feedback\n- [Alpha](a.md) — first\n",
    );
    let d = env.dir();
    run_in(&d, &["forget", "--yes", "c"]).success();
    // The user moves Beta's line under Feedback.
    fs::write(
        d.join("MEMORY.md"),
        "# Index\n## User\n## Feedback\n- [Alpha](a.md) — first\n- [Beta](b.md) — second\n",
    )
    .unwrap();
    run_in(&d, &["restore", "c"]).success();
    assert_eq!(
        read(&d, "MEMORY.md"),
        "# Index\n## User\n- [Gamma](c.md) — third\n## Feedback\n- [Alpha](a.md) — first\n- [Beta](b.md) — second\n"
    );
    drop(env);
}
