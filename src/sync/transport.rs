//! Fetch and push through the `git` binary (SPEC §11.3: git libraries in Rust
//! cannot all push). `git` never prompts (`GIT_TERMINAL_PROMPT=0`, stdin closed);
//! a missing `git` is a `config` error; a failure names the remote and shows
//! git's own message.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use crate::error::{Error, Kind};

fn git(repo: &Path) -> Command {
    let mut c = Command::new("git");
    c.arg("--git-dir")
        .arg(repo)
        .env("GIT_TERMINAL_PROMPT", "0")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

fn run(mut c: Command) -> Result<Output, Error> {
    c.output().map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            Error::new(
                Kind::Config,
                "sync needs the `git` binary for fetch and push, and none was found",
            )
            .hint("install git (https://git-scm.com/downloads) and make sure it is on PATH")
        } else {
            Error::new(Kind::Io, format!("cannot run git: {e}"))
        }
    })
}

fn stderr_of(o: &Output) -> String {
    let mut s = String::from_utf8_lossy(&o.stderr).trim().to_string();
    if s.is_empty() {
        s = String::from_utf8_lossy(&o.stdout).trim().to_string();
    }
    s.lines().take(20).collect::<Vec<_>>().join("\n")
}

/// Set `origin` to `url` (adding it when there is none).
pub fn set_remote(repo: &Path, url: &str, had: bool) -> Result<(), Error> {
    let mut c = git(repo);
    if had {
        c.args(["remote", "set-url", "origin", url]);
    } else {
        c.args(["remote", "add", "origin", url]);
    }
    let o = run(c)?;
    if !o.status.success() {
        return Err(Error::new(
            Kind::Config,
            format!("cannot set the sync remote to {url}: {}", stderr_of(&o)),
        ));
    }
    Ok(())
}

/// Fetch the branches of `url` into `refs/remotes/origin/*` (an empty remote is
/// fine). By URL, not by the name `origin`: a `--remote` is only remembered once
/// the sync may write (never by `--dry-run` or a refused sync).
pub fn fetch(repo: &Path, url: &str) -> Result<(), Error> {
    let mut c = git(repo);
    c.args(["fetch", "--quiet", "--no-tags", "--prune", "--end-of-options", url])
        .arg("+refs/heads/*:refs/remotes/origin/*");
    let o = run(c)?;
    if !o.status.success() {
        return Err(Error::new(
            Kind::Io,
            format!("cannot fetch from the sync remote {url}: {}", stderr_of(&o)),
        )
        .hint("check the URL (`memctl sync --remote URL` changes it) and that this machine can reach it"));
    }
    Ok(())
}

/// How a push went.
pub enum Pushed {
    Done,
    /// Someone pushed meanwhile: fetch, merge and try again.
    Rejected,
}

/// Push the commit `id` to `origin`'s `main`.
pub fn push(repo: &Path, url: &str, id: &str) -> Result<Pushed, Error> {
    let mut c = git(repo);
    c.args([
        "push",
        "--quiet",
        "--porcelain",
        "origin",
        &format!("{id}:refs/heads/main"),
    ]);
    let o = run(c)?;
    if o.status.success() {
        return Ok(Pushed::Done);
    }
    let all = format!(
        "{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    if [
        "[rejected]",
        "non-fast-forward",
        "fetch first",
        "stale info",
        "cannot lock ref",
    ]
    .iter()
    .any(|k| all.contains(k))
    {
        return Ok(Pushed::Rejected);
    }
    Err(Error::new(
        Kind::Io,
        format!("cannot push to the sync remote {url}: {}", stderr_of(&o)),
    )
    .hint("the memory dirs are merged already; run `memctl sync` again to push"))
}

/// Force-push the commit `id` to `origin`'s `main`, only while the remote's
/// branch is still `expected` (a lease: another machine's newer sync is not
/// overwritten). Used by `sync --purge` (a rewritten history).
pub fn force_push(repo: &Path, url: &str, id: &str, expected: &str) -> Result<(), Error> {
    let mut c = git(repo);
    c.args([
        "push",
        "--quiet",
        "--porcelain",
        &format!("--force-with-lease=refs/heads/main:{expected}"),
        "origin",
        &format!("{id}:refs/heads/main"),
    ]);
    let o = run(c)?;
    if o.status.success() {
        return Ok(());
    }
    Err(Error::new(
        Kind::Io,
        format!("cannot force-push the rewritten history to the sync remote {url}: {}", stderr_of(&o)),
    )
    .hint("the remote changed meanwhile or refuses a force push (a protected branch): sync first, allow force pushes to `main`, then run the purge again"))
}

/// Drop what no ref reaches any more from the local sync repository (its
/// reflogs expired, its unreachable objects pruned): after a purge, the old
/// commits and the purged blob.
pub fn prune(repo: &Path) -> Result<(), Error> {
    for args in [
        &["reflog", "expire", "--expire=now", "--all"][..],
        &["gc", "--quiet", "--prune=now"][..],
    ] {
        let mut c = git(repo);
        c.args(args);
        let o = run(c)?;
        if !o.status.success() {
            return Err(Error::new(
                Kind::Io,
                format!(
                    "the remote is purged, but the local sync repository still holds the old objects: git {} failed: {}",
                    args.join(" "),
                    stderr_of(&o)
                ),
            )
            .hint(format!("run `git --git-dir {} gc --prune=now`", repo.display())));
        }
    }
    Ok(())
}
