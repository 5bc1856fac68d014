//! `memctl projects merge FROM INTO` (SPEC §9): real fake homes with an orphaned
//! key, a live project, and memory dirs named directly.

use std::fs;
use std::path::{Path, PathBuf};

use memctl::paths::sanitize::sanitize;

use crate::support::{Env, git, read, write_aged};

fn mem(ty: &str, body: &str) -> String {
    format!("---\nname: {body}\ndescription: about {body}\ntype: {ty}\n---\n{body}\n")
}

/// A home with the old key of a moved repository (`-home-alice-old-app`, its path
/// gone) and the live project `src/app` (a git repo), both with memories.
struct Home {
    env: Env,
    old: PathBuf,
    new: PathBuf,
    project: PathBuf,
}

fn home() -> Home {
    let env = Env::new().resolved();
    let projects = env.home().join(".claude/projects");
    let project = env.home().join("src/app");
    fs::create_dir_all(&project).unwrap();
    git(&project, &["init", "-q"]);
    let old = projects.join("-home-alice-old-app/memory");
    let new = projects.join(sanitize(&project.to_string_lossy()).key).join("memory");
    // FROM: one new memory, one the same as INTO's, two that differ.
    write_aged(
        &old.join("feedback_testing.md"),
        mem("feedback", "No mocks").as_bytes(),
        500.0,
    );
    write_aged(&old.join("user_profile.md"), mem("user", "Go dev").as_bytes(), 400.0);
    write_aged(
        &old.join("project_goals.md"),
        mem("project", "Ship v2").as_bytes(),
        300.0,
    );
    write_aged(
        &old.join("reference_board.md"),
        mem("reference", "Old board").as_bytes(),
        200.0,
    );
    write_aged(&old.join("notes.txt"), b"not a memory\n", 10.0);
    write_aged(&old.join("team/shared.md"), mem("user", "Team").as_bytes(), 10.0);
    write_aged(&old.join("logs/2026/03/01.md"), b"log\n", 10.0);
    write_aged(
        &old.join("MEMORY.md"),
        b"# Old app memory\n\n- [No mocks](feedback_testing.md) \xe2\x80\x94 testing\n- [Go dev](user_profile.md) \xe2\x80\x94 profile\n- [Ship v2](project_goals.md) \xe2\x80\x94 goals\n- [Board](reference_board.md) \xe2\x80\x94 board\nRemember to ask about the release.\n",
        10.0,
    );
    // INTO: the same profile, other goals, and two other boards (so -3).
    write_aged(&new.join("user_profile.md"), mem("user", "Go dev").as_bytes(), 50.0);
    write_aged(
        &new.join("project_goals.md"),
        mem("project", "Ship v3").as_bytes(),
        40.0,
    );
    write_aged(
        &new.join("reference_board.md"),
        mem("reference", "New board").as_bytes(),
        30.0,
    );
    write_aged(
        &new.join("reference_board-2.md"),
        mem("reference", "Other board").as_bytes(),
        30.0,
    );
    write_aged(
        &new.join("MEMORY.md"),
        "# Memory\n\n## Feedback\n- [Terse](feedback_terse.md) — terse\n\n## Projects\n- [Ship v3](project_goals.md) — goals\n\n## User\n- [Go dev](user_profile.md) — profile\n\n## References\n- [Board](reference_board.md) — board\n- [Other](reference_board-2.md) — other\n".as_bytes(),
        10.0,
    );
    Home { env, old, new, project }
}

/// Every entry below `dir`: its path, bytes (or link target) and mtime.
fn tree(dir: &Path) -> Vec<(String, Vec<u8>, std::time::SystemTime)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = fs::read_dir(&d) else { continue };
        for e in entries.map(Result::unwrap) {
            let p = e.path();
            let meta = fs::symlink_metadata(&p).unwrap();
            let rel = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
            let bytes = if meta.is_dir() {
                stack.push(p.clone());
                Vec::new()
            } else if meta.file_type().is_symlink() {
                fs::read_link(&p).unwrap().to_string_lossy().into_owned().into_bytes()
            } else {
                fs::read(&p).unwrap()
            };
            out.push((rel, bytes, meta.modified().unwrap()));
        }
    }
    out.sort();
    out
}

/// What one run printed (the home stays with the test).
struct Out {
    stdout: String,
    stderr: String,
    code: i32,
}

impl Out {
    #[track_caller]
    fn code(self, code: i32) -> Out {
        assert_eq!(self.code, code, "stdout:\n{}\nstderr:\n{}", self.stdout, self.stderr);
        self
    }

    #[track_caller]
    fn success(self) -> Out {
        self.code(0)
    }

    #[track_caller]
    fn stderr_starts(&self, prefix: &str) {
        assert!(self.stderr.starts_with(prefix), "stderr:\n{}", self.stderr);
    }

    fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout).unwrap()
    }
}

fn run(h: &Home, args: &[&str]) -> Out {
    let out = h.env.command().args(args).output().unwrap();
    Out {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code().unwrap_or(-1),
    }
}

fn mtime(p: &Path) -> std::time::SystemTime {
    fs::metadata(p).unwrap().modified().unwrap()
}

const INTO_AFTER: &str = "# Memory\n\n## Feedback\n- [Terse](feedback_terse.md) — terse\n- [No mocks](feedback_testing.md) — testing\n\n## Projects\n- [Ship v3](project_goals.md) — goals\n- [Ship v2](project_goals-2.md) — goals\n\n## User\n- [Go dev](user_profile.md) — profile\n\n## References\n- [Board](reference_board.md) — board\n- [Other](reference_board-2.md) — other\n- [Board](reference_board-3.md) — board\n";

#[test]
fn a_moved_repository_is_merged_by_key_into_the_project() {
    let h = home();
    let testing_mtime = mtime(&h.old.join("feedback_testing.md"));
    let goals_mtime = mtime(&h.old.join("project_goals.md"));
    let project = h.project.to_string_lossy().into_owned();
    let r = run(
        &h,
        &["projects", "merge", "--yes", "--", "-home-alice-old-app", &project],
    )
    .success();
    let old = h.old.display();
    let new = h.new.display();
    assert_eq!(
        r.stdout,
        format!(
            "from {old}/ (key -home-alice-old-app)
into {new}/ (memory dir of project {project})
  moved             feedback_testing.md
  renamed           project_goals.md to project_goals-2.md (INTO's differs)
  renamed           reference_board.md to reference_board-3.md (INTO's differs)
  merged identical  user_profile.md (INTO has the same bytes)
  kept              logs/ (logs stay)
  kept              notes.txt (not a memory)
  kept              team/ (team memory stays)
INTO MEMORY.md: 3 lines added, 1 already there; 17 lines, 373 units
FROM MEMORY.md: 2 lines kept (history keeps the whole file)
  1: # Old app memory
  7: Remember to ask about the release.
merged {old}/ into {new}/: 1 moved, 1 identical, 2 renamed
"
        ),
        "stderr: {}",
        r.stderr
    );
    assert_eq!(r.stderr, "");
    // Index lines placed where they load, renamed links rewritten.
    assert_eq!(read(&h.new, "MEMORY.md"), INTO_AFTER);
    // The source keeps its heading and free text, and what is not a memory.
    assert_eq!(
        read(&h.old, "MEMORY.md"),
        "# Old app memory\n\nRemember to ask about the release.\n"
    );
    for gone in [
        "feedback_testing.md",
        "user_profile.md",
        "project_goals.md",
        "reference_board.md",
    ] {
        assert!(!h.old.join(gone).exists(), "{gone} is still in FROM");
    }
    for stays in ["notes.txt", "team/shared.md", "logs/2026/03/01.md"] {
        assert!(h.old.join(stays).exists(), "{stays} left FROM");
    }
    assert_eq!(read(&h.new, "project_goals-2.md"), mem("project", "Ship v2"));
    assert_eq!(read(&h.new, "project_goals.md"), mem("project", "Ship v3"));
    assert_eq!(read(&h.new, "reference_board-3.md"), mem("reference", "Old board"));
    // Moved files keep their mtimes (Claude Code sorts by them).
    assert_eq!(mtime(&h.new.join("feedback_testing.md")), testing_mtime);
    assert_eq!(mtime(&h.new.join("project_goals-2.md")), goals_mtime);
    // Both dirs have a before and an after snapshot.
    for dir in [&h.old, &h.new] {
        let hist = h.env.command().arg("--dir").arg(dir).arg("history").output().unwrap();
        let text = String::from_utf8_lossy(&hist.stdout);
        assert!(hist.status.success(), "{}", String::from_utf8_lossy(&hist.stderr));
        assert_eq!(text.lines().count(), 2, "{text}");
        assert!(text.lines().next().unwrap().contains("\tmerge\t"), "{text}");
    }
}

#[test]
fn memory_dirs_by_path_and_an_emptied_index_is_removed() {
    let h = home();
    fs::write(
        h.old.join("MEMORY.md"),
        "- [No mocks](feedback_testing.md) — testing\n\n- [Go dev](user_profile.md) — profile\n",
    )
    .unwrap();
    let r = run(
        &h,
        &[
            "projects",
            "merge",
            "--yes",
            &h.old.to_string_lossy(),
            &h.new.to_string_lossy(),
        ],
    )
    .success();
    assert!(
        r.stdout
            .starts_with(&format!("from {}/ (a memory dir)\n", h.old.display())),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("FROM MEMORY.md: removed, nothing else left in it\n"),
        "{}",
        r.stdout
    );
    assert!(!h.old.join("MEMORY.md").exists());
    // Files FROM did not index are named, with the fix.
    assert!(
        r.stderr
            .contains("no index line in FROM for project_goals-2.md, reference_board-3.md"),
        "{}",
        r.stderr
    );
}

#[test]
fn the_old_project_path_names_its_orphaned_key() {
    let h = home();
    let gone = h.env.home().join("old/app");
    let key = sanitize(&gone.to_string_lossy()).key;
    let projects = h.env.home().join(".claude/projects");
    fs::rename(projects.join("-home-alice-old-app"), projects.join(&key)).unwrap();
    let old = projects.join(&key).join("memory");
    let r = run(
        &h,
        &[
            "projects",
            "merge",
            "--yes",
            "--json",
            &gone.to_string_lossy(),
            &h.project.to_string_lossy(),
        ],
    )
    .success();
    let doc = r.json();
    assert_eq!(doc["from"], format!("{}/", old.display()));
    assert_eq!(doc["into"], format!("{}/", h.new.display()));
    let moved: Vec<(String, String, String)> = doc["moved"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["file"].as_str().unwrap().into(),
                m["to"].as_str().unwrap().into(),
                m["action"].as_str().unwrap().into(),
            )
        })
        .collect();
    let t = |a: &str, b: &str, c: &str| (a.to_string(), b.to_string(), c.to_string());
    assert_eq!(
        moved,
        vec![
            t("feedback_testing.md", "feedback_testing.md", "moved"),
            t("project_goals.md", "project_goals-2.md", "renamed"),
            t("reference_board.md", "reference_board-3.md", "renamed"),
            t("user_profile.md", "user_profile.md", "merged_identical"),
        ]
    );
    assert_eq!(doc["target_index"]["truncated"], false);
    assert_eq!(doc["index_lines_added"].as_array().unwrap().len(), 3);
    assert_eq!(doc["source_lines_kept"][0]["text"], "# Old app memory");
    assert_eq!(read(&h.new, "MEMORY.md"), INTO_AFTER);
}

#[test]
fn a_dry_run_writes_nothing_and_shows_both_index_diffs() {
    let h = home();
    let before = (tree(&h.old), tree(&h.new));
    let r = run(
        &h,
        &[
            "projects",
            "merge",
            "--dry-run",
            "--",
            "-home-alice-old-app",
            &h.project.to_string_lossy(),
        ],
    )
    .success();
    assert!(
        r.stdout.contains("  move              feedback_testing.md\n"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("+- [Board](reference_board-3.md) — board\n"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("--- a/FROM/MEMORY.md\n"), "{}", r.stdout);
    assert!(r.stdout.ends_with("dry run: nothing written\n"), "{}", r.stdout);
    assert_eq!((tree(&h.old), tree(&h.new)), before);
    assert!(!h.env.root().join("state").exists(), "a dry run records no history");
}

#[test]
fn refusals_write_nothing_in_either_dir() {
    let h = home();
    let before = (tree(&h.old), tree(&h.new));
    let project = h.project.to_string_lossy().into_owned();
    // No terminal, no --yes.
    let r = run(&h, &["projects", "merge", "--", "-home-alice-old-app", &project]).code(2);
    r.stderr_starts("memctl: projects merge moves memories between dirs and needs confirmation");
    assert_eq!((tree(&h.old), tree(&h.new)), before);
    // A live dream in INTO (this test's own PID, taken a minute ago).
    let lock = h.new.join(".consolidate-lock");
    write_aged(&lock, std::process::id().to_string().as_bytes(), 1.0 / 60.0);
    let before = (tree(&h.old), tree(&h.new));
    let r = run(
        &h,
        &["projects", "merge", "--yes", "--", "-home-alice-old-app", &project],
    )
    .code(2);
    r.stderr_starts("memctl: auto-dream lock taken");
    assert_eq!((tree(&h.old), tree(&h.new)), before);
    assert!(!h.env.root().join("state").exists(), "no snapshot either");
}

#[test]
fn the_same_dir_and_nested_dirs_are_refused() {
    let h = home();
    let old = h.old.to_string_lossy().into_owned();
    let r = run(&h, &["projects", "merge", "--yes", "--", "-home-alice-old-app", &old]).code(2);
    r.stderr_starts("memctl: FROM and INTO are the same memory dir");
    let inner = h.old.join("sub/memory");
    fs::create_dir_all(&inner).unwrap();
    let r = run(&h, &["projects", "merge", "--yes", &old, &inner.to_string_lossy()]).code(2);
    r.stderr_starts("memctl: INTO lies inside FROM");
    let r = run(&h, &["projects", "merge", "--yes", "--", "-no-such-key", &old]).code(2);
    r.stderr_starts("memctl: not a memory dir, a key or a project path");
}

#[test]
fn a_symlink_out_of_from_is_left_behind() {
    let h = home();
    let outside = h.env.root().join("outside");
    fs::create_dir_all(&outside).unwrap();
    fs::write(outside.join("secret.md"), mem("user", "Secret")).unwrap();
    std::os::unix::fs::symlink(&outside, h.old.join("linked")).unwrap();
    std::os::unix::fs::symlink(outside.join("secret.md"), h.old.join("user_secret.md")).unwrap();
    let r = run(
        &h,
        &[
            "projects",
            "merge",
            "--yes",
            "--",
            "-home-alice-old-app",
            &h.project.to_string_lossy(),
        ],
    )
    .success();
    assert!(
        r.stdout
            .contains("  kept              linked (symlink (not followed))\n"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("  kept              user_secret.md (symlink (not followed))\n"),
        "{}",
        r.stdout
    );
    assert!(!h.new.join("user_secret.md").exists());
    assert!(!h.new.join("linked").exists());
    assert!(outside.join("secret.md").exists());
}

/// SPEC §3.14 "Budget refusals" (issue 32): a merge never refuses for the
/// budget; it places the lines by §10.2, then names each entry now past the cut
/// (file, line, text) and suggests `index rebuild`; `--json` lists them in
/// `cut_entries`.
#[test]
fn a_merge_that_cuts_the_index_merges_and_names_each_entry_past_the_cut() {
    let h = home();
    let mut index = String::new();
    for i in 0..197 {
        index.push_str(&format!("- [E{i}](e{i}.md) — e\n"));
    }
    fs::write(h.new.join("MEMORY.md"), &index).unwrap();
    let project = h.project.to_string_lossy().into_owned();
    let r = run(
        &h,
        &[
            "--json",
            "projects",
            "merge",
            "--yes",
            "--",
            "-home-alice-old-app",
            &project,
        ],
    )
    .success();
    assert!(h.new.join("reference_board-3.md").is_file(), "merged");
    let doc: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let cut = doc["cut_entries"].as_array().unwrap();
    assert_eq!(cut.len(), 1, "{}", r.stdout);
    assert_eq!(cut[0]["file"], "reference_board-3.md");
    assert_eq!(cut[0]["line"], 201);
    let text = cut[0]["text"].as_str().unwrap().to_string();
    assert!(text.contains("](reference_board-3.md)"), "{text}");
    let warnings: Vec<&str> = doc["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|w| w.as_str())
        .collect();
    assert!(
        warnings
            .iter()
            .any(|w| w.ends_with(&format!(":201: past Claude Code's cut, it does not load: {text}"))),
        "{warnings:?}"
    );
    assert!(
        warnings
            .iter()
            .any(|w| w.starts_with("1 entry is past Claude Code's cut in MEMORY.md in ")
                && w.contains(" index rebuild`")),
        "{warnings:?}"
    );
}

#[test]
fn the_trash_of_from_stays_behind() {
    let h = home();
    write_aged(
        &h.old.join(".trash/forgotten.md"),
        mem("user", "Forgotten").as_bytes(),
        10.0,
    );
    let (old, new) = (
        h.old.to_string_lossy().into_owned(),
        h.new.to_string_lossy().into_owned(),
    );
    let r = run(&h, &["projects", "merge", "--yes", &old, &new]).success();
    assert!(
        r.stdout.contains("kept              .trash/ (forgotten memories stay"),
        "{}",
        r.stdout
    );
    assert!(!h.new.join("forgotten.md").exists());
    assert!(!h.new.join(".trash/forgotten.md").exists());
    assert!(h.old.join(".trash/forgotten.md").exists());
}

/// `path` tells the user to move a legacy Wyhash dir with `projects merge -- <wy>
/// <dj>` (SPEC §2.2.7); Claude Code creates the djb2 dir only on its first save,
/// so the destination key may not exist yet (§3.14: a missing destination is
/// created). It was refused as "not a memory dir, a key or a project path".
#[test]
fn the_suggested_merge_of_a_legacy_dir_into_a_djb2_key_not_created_yet_works() {
    let env = Env::new().resolved();
    let project = env.home().join("src").join("p".repeat(210));
    fs::create_dir_all(&project).unwrap();
    let key = sanitize(&project.to_string_lossy());
    assert_ne!(key.key, key.wyhash);
    let projects = env.home().join(".claude/projects");
    let legacy = projects.join(&key.wyhash).join("memory");
    write_aged(&legacy.join("user_profile.md"), mem("user", "Go dev").as_bytes(), 10.0);
    let out = env
        .command()
        .args(["projects", "merge", "--yes", "--", &key.wyhash, &key.key])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let moved = projects.join(&key.key).join("memory/user_profile.md");
    assert_eq!(read(moved.parent().unwrap(), "user_profile.md"), mem("user", "Go dev"));
    assert!(!legacy.join("user_profile.md").exists());
}

/// The memory files below `dir` (not its index, the lock or temp files): name,
/// bytes and mtime.
fn memories(dir: &Path) -> Vec<(String, String, std::time::SystemTime)> {
    tree(dir)
        .into_iter()
        .filter(|(rel, _, _)| rel.ends_with(".md") && rel != "MEMORY.md" && !rel.starts_with('.'))
        .map(|(rel, bytes, t)| (rel, String::from_utf8_lossy(&bytes).into_owned(), t))
        .collect()
}

/// Issue 29 point 12: `kill -9` during `projects merge`, then a rerun: the rerun
/// finishes what the killed run started. The kill lands right after each of the
/// merge's file operations in turn (`MEMCTL_TEST_KILL_AFTER`, an operation count,
/// not a timing): after every one, a plain rerun leaves both dirs exactly as one
/// uninterrupted merge does — every memory once, under the name the merge gives
/// it, with its mtime and its one index line, and no stray temp file.
#[test]
fn a_merge_killed_after_any_of_its_writes_is_finished_by_a_rerun() {
    let want = {
        let h = home();
        let project = h.project.to_string_lossy().into_owned();
        run(
            &h,
            &["projects", "merge", "--yes", "--", "-home-alice-old-app", &project],
        )
        .success();
        (
            memories(&h.new),
            read(&h.new, "MEMORY.md"),
            memories(&h.old),
            read(&h.old, "MEMORY.md"),
        )
    };
    assert_eq!(want.1, INTO_AFTER);
    let mut killed = 0;
    for n in 1.. {
        let h = home();
        let project = h.project.to_string_lossy().into_owned();
        let args = ["projects", "merge", "--yes", "--", "-home-alice-old-app", &project];
        let out = h
            .env
            .command()
            .env("MEMCTL_TEST_KILL_AFTER", n.to_string())
            .args(args)
            .output()
            .unwrap();
        if out.status.success() {
            break;
        }
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(
            out.status.signal(),
            Some(9),
            "kill after {n}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        killed += 1;
        let again = run(&h, &args);
        assert_eq!(
            again.code, 0,
            "rerun after a kill after {n} operations:\n{}",
            again.stderr
        );
        let got = (
            memories(&h.new),
            read(&h.new, "MEMORY.md"),
            memories(&h.old),
            read(&h.old, "MEMORY.md"),
        );
        assert_eq!(got, want, "rerun after a kill after {n} operations:\n{}", again.stdout);
        let stray: Vec<String> = tree(&h.new)
            .into_iter()
            .chain(tree(&h.old))
            .map(|(rel, _, _)| rel)
            .filter(|rel| rel.ends_with(".tmp"))
            .collect();
        assert!(stray.is_empty(), "after a kill after {n}: {stray:?}");
        assert!(
            !again.stderr.contains("no index line"),
            "after a kill after {n}: {}",
            again.stderr
        );
    }
    // 3 files created, 2 indexes written, 4 files removed.
    assert_eq!(killed, 9, "the merge made {killed} file operations");
}

#[test]
fn a_plain_project_dir_is_not_taken_as_the_memory_dir() {
    // issue 32 point 15, SPEC §3.14: `~/src/notes` (not git, no `.claude/`, files
    // but no memories) is refused with a hint to `--into-dir`; nothing is written.
    let h = home();
    let notes = h.env.home().join("src/notes");
    fs::create_dir_all(&notes).unwrap();
    fs::write(notes.join("todo.txt"), "buy milk\n").unwrap();
    fs::write(notes.join("ideas.md"), "# Ideas\nplain markdown\n").unwrap();
    let key = "-home-alice-old-app";
    let before = (tree(&h.old), tree(&notes));
    let r = run(&h, &["projects", "merge", "--yes", "--", key, &notes.to_string_lossy()]).code(2);
    assert_eq!(
        r.stderr,
        format!(
            "memctl: not a memory dir (it holds files but no memories) nor a project: {n}\nhint: merging would write memories among its files; to use it anyway, pass `--into-dir {n}`\n",
            n = notes.display()
        )
    );
    assert_eq!((tree(&h.old), tree(&notes)), before);
    // `--into-dir` takes it as it is.
    run(
        &h,
        &[
            "projects",
            "merge",
            "--yes",
            "--into-dir",
            &notes.to_string_lossy(),
            "--",
            key,
        ],
    )
    .success();
    assert!(notes.join("feedback_testing.md").is_file());
    assert!(notes.join("todo.txt").is_file());
    // An empty dir, a missing one and a dir that holds memories are memory dirs.
    let h = home();
    let empty = h.env.home().join("empty");
    fs::create_dir_all(&empty).unwrap();
    run(&h, &["projects", "merge", "--yes", "--", key, &empty.to_string_lossy()]).success();
    assert!(empty.join("feedback_testing.md").is_file());
    let h = home();
    let missing = h.env.home().join("m3");
    run(
        &h,
        &["projects", "merge", "--yes", "--", key, &missing.to_string_lossy()],
    )
    .success();
    assert!(missing.join("feedback_testing.md").is_file());
    run(
        &h,
        &[
            "projects",
            "merge",
            "--yes",
            &missing.to_string_lossy(),
            &empty.to_string_lossy(),
        ],
    )
    .success();
    assert!(empty.join("feedback_testing.md").is_file());
}
