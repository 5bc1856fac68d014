//! The git root and the canonical root through worktrees and bare repositories
//! (SPEC §2.2.6). Every I/O failure falls back to the git root, as Claude Code does.

use std::fs;
use std::path::Path;

use super::validate::{join, nfc, normalize};
use crate::text::js_trim;

/// Why the canonical root is what it is (`canonical_reason` in `path --json`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reason {
    /// Not a repository: the project root is used.
    None,
    Checkout,
    /// A worktree of the given common dir.
    Worktree(String),
    Bare(String),
    /// A `.git` file whose worktree link failed a check.
    Rejected(String),
}

impl Reason {
    pub fn code(&self) -> &'static str {
        match self {
            Reason::None => "none",
            Reason::Checkout => "checkout",
            Reason::Worktree(_) => "worktree",
            Reason::Bare(_) => "bare",
            Reason::Rejected(_) => "rejected",
        }
    }

    pub fn describe(&self) -> String {
        match self {
            Reason::None => "not a repository".into(),
            Reason::Checkout => "checkout".into(),
            Reason::Worktree(common) => format!("worktree of {common}"),
            Reason::Bare(_) => "bare repository worktree".into(),
            Reason::Rejected(why) => format!("rejected worktree link: {why}"),
        }
    }
}

/// `findGitRoot(start)`: the nearest ancestor holding a `.git` directory or file.
pub fn find_git_root(start: &str) -> Option<String> {
    let mut current = normalize(start);
    loop {
        let trimmed = if current.len() > 1 {
            current.trim_end_matches('/')
        } else {
            current.as_str()
        };
        let candidate = if trimmed == "/" {
            "/.git".to_string()
        } else {
            format!("{trimmed}/.git")
        };
        if let Ok(meta) = fs::metadata(&candidate)
            && (meta.is_dir() || meta.is_file())
            && link_ok(&candidate)
        {
            return Some(trimmed.to_string());
        }
        if trimmed == "/" {
            return None;
        }
        current = match Path::new(trimmed).parent() {
            Some(p) => p.to_string_lossy().into_owned(),
            None => return None,
        };
    }
}

/// A `.git` that is a symlink counts only when its link text names no network or
/// device path (SPEC §2.2.6, 2.1.332).
fn link_ok(dot_git: &str) -> bool {
    match fs::read_link(dot_git) {
        Ok(target) => !network_or_device(&target.to_string_lossy()),
        Err(_) => true,
    }
}

/// A path Claude Code refuses to follow: UNC or device namespace, `/dev/...`, or a
/// network automount (SPEC §2.2.4).
fn network_or_device(p: &str) -> bool {
    let b = p.as_bytes();
    (b.len() >= 2 && matches!(b[0], b'/' | b'\\') && matches!(b[1], b'/' | b'\\'))
        || p.starts_with("/??/")
        || p.starts_with("/dev/")
        || super::validate::validate_memory_path(Some(&normalize(p)), false, None)
            .err()
            .is_some_and(|why| why.starts_with("a network automount"))
}

/// A regular file (not a symlink or special file) of at most 64 KiB, as text.
fn read_plain(path: &str) -> Option<String> {
    let meta = fs::symlink_metadata(path).ok()?;
    if !meta.file_type().is_file() {
        return None;
    }
    crate::fsread::read_small_text(Path::new(path))
}

fn resolve(base: &str, p: &str) -> String {
    if p.starts_with('/') {
        normalize(p)
    } else {
        join(&[base, p])
    }
}

fn realpath(p: &str) -> Option<String> {
    fs::canonicalize(p).ok().map(|r| r.to_string_lossy().into_owned())
}

fn parent(p: &str) -> String {
    Path::new(p)
        .parent()
        .map(|x| x.to_string_lossy().into_owned())
        .unwrap_or_else(|| p.to_string())
}

/// `resolveCanonicalRoot(gitRoot)` with the reason. A relative back-link in the
/// worktree's `gitdir` file is resolved against the worktree git dir (2.1.332: git
/// ≥ 2.48 writes such links with `worktree.useRelativePaths`).
pub fn canonical_root(git_root: &str) -> (String, Reason) {
    let checkout = || (git_root.to_string(), Reason::Checkout);
    let Some(dot_git) = crate::fsread::read_small_text(std::path::Path::new(&format!("{git_root}/.git"))) else {
        return checkout();
    };
    let content = js_trim(&dot_git);
    let Some(link) = content.strip_prefix("gitdir:") else {
        return checkout();
    };
    let rejected = |why: &str| (git_root.to_string(), Reason::Rejected(why.into()));
    let link = js_trim(link);
    if network_or_device(link) {
        return rejected("the .git file names a network or device path");
    }
    let worktree_git_dir = resolve(git_root, link);
    let Some(commondir) = read_plain(&format!("{worktree_git_dir}/commondir")) else {
        return checkout();
    };
    let common_dir = resolve(&worktree_git_dir, js_trim(&commondir));
    if [git_root, &worktree_git_dir, &common_dir]
        .iter()
        .any(|p| p.contains('\\'))
    {
        return rejected("a backslash in a worktree path");
    }
    if normalize(&parent(&worktree_git_dir)) != join(&[&common_dir, "worktrees"]) {
        return rejected("the gitdir is not inside <common dir>/worktrees");
    }
    let Some(back) = read_plain(&format!("{worktree_git_dir}/gitdir")) else {
        return rejected("the worktree's gitdir file cannot be read");
    };
    if back.contains('\\') {
        return rejected("a backslash in the worktree's back-link");
    }
    let back = resolve(&worktree_git_dir, js_trim(&back));
    let (Some(back_real), Some(root_real)) = (realpath(&back), realpath(git_root)) else {
        return rejected("the worktree's back-link does not resolve");
    };
    if back_real != join(&[&root_real, ".git"]) {
        return rejected("the worktree's back-link points to another checkout");
    }
    if Path::new(&common_dir).file_name().is_some_and(|n| n == ".git") {
        (nfc(&parent(&common_dir)), Reason::Worktree(common_dir))
    } else if fs::metadata(format!("{common_dir}/.git")).is_ok_and(|m| m.is_dir() || m.is_file()) {
        rejected("the common dir is not named .git but holds a .git entry")
    } else {
        (nfc(&common_dir), Reason::Bare(common_dir.clone()))
    }
}
/// How long [`is_tracked`] waits for git before giving up.
const GIT_DEADLINE: std::time::Duration = std::time::Duration::from_secs(5);

/// Wait for a `git` child for at most [`GIT_DEADLINE`] (a hung git, say on a
/// network filesystem, must not hang memctl); past it the child is killed and
/// reaped: `None`. Used by every short `git` query memctl runs.
pub fn wait_bounded(child: &mut std::process::Child) -> Option<std::process::ExitStatus> {
    let started = std::time::Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) if started.elapsed() < GIT_DEADLINE => std::thread::sleep(std::time::Duration::from_millis(5)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
}

/// Whether git tracks `rel` (a path relative to `root`): one `git ls-files
/// --error-unmatch` in `root`, no network, bounded by [`GIT_DEADLINE`]. `None` when
/// git is missing, `root` is not in a repository, or git does not answer in time.
pub fn is_tracked(root: &Path, rel: &str) -> Option<bool> {
    use std::process::{Command, Stdio};
    let mut child = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["ls-files", "--error-unmatch", "--"])
        .arg(rel)
        .env("GIT_OPTIONAL_LOCKS", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let status = wait_bounded(&mut child)?;
    match status.code() {
        Some(0) => Some(true),
        Some(1) => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git(dir: &Path, args: &[&str]) {
        let out = std::process::Command::new("git")
            .args([
                "-c",
                "user.email=t@t",
                "-c",
                "user.name=t",
                "-c",
                "init.defaultBranch=main",
            ])
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", dir)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }

    /// `<tmp>/app` with a commit and the worktree `<tmp>/app-wt`.
    fn worktree() -> (tempfile::TempDir, String) {
        let tmp = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(tmp.path()).unwrap().to_string_lossy().into_owned();
        let app = Path::new(&root).join("app");
        fs::create_dir_all(&app).unwrap();
        git(&app, &["init", "-q"]);
        git(&app, &["commit", "-q", "--allow-empty", "-m", "x"]);
        git(&app, &["worktree", "add", "-q", "../app-wt"]);
        (tmp, root)
    }

    #[test]
    fn worktrees_with_absolute_and_relative_links_share_the_main_checkout() {
        let (_tmp, root) = worktree();
        let wt = format!("{root}/app-wt");
        assert_eq!(find_git_root(&format!("{wt}/")).as_deref(), Some(wt.as_str()));
        let (canonical, reason) = canonical_root(&wt);
        assert_eq!(canonical, format!("{root}/app"));
        assert_eq!(reason.code(), "worktree");
        // git >= 2.48 with worktree.useRelativePaths (SPEC A.4, 2.1.332 client).
        fs::write(format!("{wt}/.git"), "gitdir: ../app/.git/worktrees/app-wt\n").unwrap();
        fs::write(
            format!("{root}/app/.git/worktrees/app-wt/gitdir"),
            "../../../../app-wt/.git\n",
        )
        .unwrap();
        assert_eq!(canonical_root(&wt).0, format!("{root}/app"));
        // A back-link to another checkout is rejected.
        fs::write(format!("{root}/app/.git/worktrees/app-wt/gitdir"), "/elsewhere/.git\n").unwrap();
        assert_eq!(
            canonical_root(&wt),
            (
                wt.clone(),
                Reason::Rejected("the worktree's back-link does not resolve".into())
            )
        );
    }

    #[test]
    fn a_symlinked_commondir_or_a_submodule_file_keys_the_dir_itself() {
        let (_tmp, root) = worktree();
        let wt = format!("{root}/app-wt");
        let commondir = format!("{root}/app/.git/worktrees/app-wt/commondir");
        fs::rename(&commondir, format!("{commondir}.real")).unwrap();
        std::os::unix::fs::symlink(format!("{commondir}.real"), &commondir).unwrap();
        assert_eq!(canonical_root(&wt), (wt.clone(), Reason::Checkout));
        // A submodule-style .git file without commondir.
        let sub = format!("{root}/sub");
        fs::create_dir_all(format!("{root}/modules/sub")).unwrap();
        fs::create_dir_all(&sub).unwrap();
        fs::write(format!("{sub}/.git"), "gitdir: ../modules/sub\n").unwrap();
        assert_eq!(canonical_root(&sub), (sub.clone(), Reason::Checkout));
    }

    #[test]
    fn a_bare_repository_keys_its_worktrees_unless_it_holds_a_git_entry() {
        let tmp = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(tmp.path()).unwrap().to_string_lossy().into_owned();
        let bare = format!("{root}/bare.git");
        git(Path::new(&root), &["init", "-q", "--bare", "bare.git"]);
        fs::create_dir_all(format!("{bare}/worktrees/bwt")).unwrap();
        fs::write(format!("{bare}/worktrees/bwt/commondir"), "../..\n").unwrap();
        fs::write(format!("{bare}/worktrees/bwt/gitdir"), format!("{root}/bwt/.git\n")).unwrap();
        fs::create_dir_all(format!("{root}/bwt")).unwrap();
        fs::write(format!("{root}/bwt/.git"), format!("gitdir: {bare}/worktrees/bwt\n")).unwrap();
        let wt = format!("{root}/bwt");
        assert_eq!(canonical_root(&wt), (bare.clone(), Reason::Bare(bare.clone())));
        fs::create_dir_all(format!("{bare}/.git")).unwrap();
        assert_eq!(canonical_root(&wt).0, wt);
    }
}
