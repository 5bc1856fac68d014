//! A memory dir kept in a git repository (several real projects keep `memory/`
//! in theirs through a symlink): memctl's own files there, `.memctl.lock` and
//! `.trash/`, should be ignored, or they get committed (issue 14).
//!
//! The work tree is found by walking up for `.git` (a file or a dir) from the
//! memory dir's real path; nothing is run when there is none. Whether a path is
//! ignored is asked of `git check-ignore`: .gitignore semantics (nested files,
//! negations, `.git/info/exclude`, `core.excludesFile`) are git's, and a cheap
//! reader of our own would be wrong in exactly the cases that matter. git is run
//! only inside a work tree, with no network and a deadline; when it is missing,
//! fails or does not answer in time, nothing is said.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};

/// memctl's own entries in a memory dir, as `.gitignore` lines relative to it;
/// the probe is the path asked about (a directory pattern matches what is in it).
const OWN: [(&str, &str); 2] = [(".memctl.lock", ".memctl.lock"), (".trash/", ".trash/x.deleted")];

/// The note to print when `dir` is inside a git work tree that does not ignore
/// memctl's own files: the exact `.gitignore` lines, or `None`.
pub fn untracked_own_files_note(dir: &Path) -> Option<String> {
    let real = std::fs::canonicalize(dir).ok()?;
    let root = crate::paths::git::find_git_root(&real.to_string_lossy())?;
    let root = Path::new(&root);
    let rel = real.strip_prefix(root).ok()?.to_string_lossy().into_owned();
    let prefix = if rel.is_empty() {
        String::new()
    } else {
        format!("{rel}/")
    };
    let probes: Vec<String> = OWN.iter().map(|(_, probe)| format!("{prefix}{probe}")).collect();
    let ignored = check_ignore(root, &probes)?;
    let missing: Vec<String> = OWN
        .iter()
        .zip(&probes)
        .filter(|(_, probe)| !ignored.contains(probe))
        .map(|((line, _), _)| format!("/{prefix}{line}"))
        .collect();
    if missing.is_empty() {
        return None;
    }
    let gitignore = root.join(".gitignore");
    let mut note = format!(
        "the memory dir is inside the git work tree {}, which does not ignore memctl's own files; add to {}:",
        root.display(),
        gitignore.display()
    );
    for line in &missing {
        note.push_str("\n  ");
        note.push_str(line);
    }
    let lock = format!("{prefix}.memctl.lock");
    if missing
        .iter()
        .any(|l| l.ends_with("/.memctl.lock") || l == "/.memctl.lock")
        && crate::paths::git::is_tracked(root, &lock) == Some(true)
    {
        note.push_str(&format!(
            "\n(.memctl.lock is already committed: `git rm --cached {lock}`)"
        ));
    }
    Some(note)
}

/// The `paths` (relative to `root`) that git ignores; `None` when git cannot say.
fn check_ignore(root: &Path, paths: &[String]) -> Option<Vec<String>> {
    let mut child = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["check-ignore", "--stdin", "-z"])
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut input = Vec::new();
    for p in paths {
        input.extend_from_slice(p.as_bytes());
        input.push(0);
    }
    // A few short paths: the pipe's buffer holds them, so this write cannot block.
    let mut stdin = child.stdin.take()?;
    let wrote = stdin.write_all(&input).is_ok();
    drop(stdin);
    let status = crate::paths::git::wait_bounded(&mut child)?;
    // Exit 0: some are ignored; 1: none is; anything else: git could not say.
    if !wrote || !matches!(status.code(), Some(0 | 1)) {
        return None;
    }
    let mut out = Vec::new();
    child.stdout.take()?.read_to_end(&mut out).ok()?;
    Some(
        out.split(|b| *b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| String::from_utf8_lossy(p).into_owned())
            .collect(),
    )
}
