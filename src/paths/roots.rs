//! The roots resolution starts from: the config home and the memory base (SPEC
//! §2.2.2), the project root with its git and canonical roots (§2.2.5, §2.2.6),
//! and the memory dir the current directory is inside (§3.14).

use std::path::{Path, PathBuf};

use super::validate::{join, nfc, normalize};
use super::{Env, Project, git};
use crate::error::{Error, Kind};

/// Absolute against `base` if relative (lexically).
pub(super) fn absolutize(p: &str, base: &str) -> String {
    if p.starts_with('/') {
        p.to_string()
    } else {
        join(&[base, p])
    }
}

/// The config home and the memory base (SPEC §2.2.2) from the environment alone,
/// relative values resolved against the current dir: for the all-projects view,
/// which has no single project.
pub fn bases(env: &Env, warnings: &mut Vec<String>) -> (Option<String>, Option<String>) {
    let home = env.home();
    let base_dir = env.cwd.to_string_lossy().into_owned();
    let config_home = config_home(env, home.as_deref(), &base_dir, warnings);
    let memory_base = memory_base(env, config_home.as_deref(), &base_dir, warnings);
    (config_home, memory_base)
}

pub(super) fn need_home() -> Error {
    Error::new(Kind::Config, "cannot determine the home directory").hint("set HOME or pass --dir")
}

/// The memory dir the current directory is inside, by its place (SPEC v3 §3.14,
/// "Inside a memory dir"): `env.cwd` is `<base>/projects/<key>/memory` or below it,
/// `<base>` being the config home or `CLAUDE_CODE_REMOTE_MEMORY_DIR`, compared as
/// given and through their real paths (a symlinked `~/.claude`). What the directory
/// holds does not matter: a project root that merely holds a `MEMORY.md` is not one.
pub fn memory_dir_around(env: &Env) -> Option<PathBuf> {
    let cwd = &env.cwd;
    let here = cwd.to_string_lossy().into_owned();
    let home = env.home();
    let mut quiet = Vec::new();
    let config_home = config_home(env, home.as_deref(), &here, &mut quiet)?;
    let base = memory_base(env, Some(&config_home), &here, &mut quiet);
    let real_cwd = std::fs::canonicalize(cwd).ok();
    for b in base.iter().chain(std::iter::once(&config_home)) {
        let projects = Path::new(b).join("projects");
        let real = std::fs::canonicalize(&projects).ok();
        for (at, root) in [
            (Some(cwd.as_path()), Some(projects.as_path())),
            (real_cwd.as_deref(), real.as_deref()),
        ] {
            let (Some(at), Some(root)) = (at, root) else { continue };
            let Ok(rest) = at.strip_prefix(root) else { continue };
            let mut parts = rest.components();
            if let (Some(std::path::Component::Normal(key)), Some(std::path::Component::Normal(m))) =
                (parts.next(), parts.next())
                && m == "memory"
            {
                return Some(root.join(key).join("memory"));
            }
        }
    }
    None
}

/// Whether the current directory is `dir` or inside it (as given or by real path).
pub fn cwd_inside(env: &Env, dir: &Path) -> bool {
    if env.cwd.starts_with(dir) {
        return true;
    }
    match (std::fs::canonicalize(&env.cwd), std::fs::canonicalize(dir)) {
        (Ok(c), Ok(d)) => c.starts_with(d),
        _ => false,
    }
}

/// The config home (SPEC §2.2.2), absolute against the project root.
pub(super) fn config_home(env: &Env, home: Option<&str>, base_dir: &str, warnings: &mut Vec<String>) -> Option<String> {
    let from_env = env.get("CLAUDE_CONFIG_DIR");
    let config_home = match &from_env {
        Some(c) => nfc(c),
        None => nfc(&join(&[home?, ".claude"])),
    };
    if config_home.starts_with('/') {
        return Some(config_home);
    }
    warnings.push(match from_env {
        Some(c) if c.is_empty() => format!(
            "CLAUDE_CONFIG_DIR is set but empty: Claude Code then keeps memory, settings and transcripts under the project root {base_dir}"
        ),
        Some(_) => format!(
            "CLAUDE_CONFIG_DIR is relative (`{config_home}`): paths under it are resolved against the project root {base_dir}"
        ),
        None => format!(
            "HOME is relative (`{}`): the config home `{config_home}` is resolved against the project root {base_dir}",
            home.unwrap_or_default()
        ),
    });
    Some(absolutize(&config_home, base_dir))
}

/// The memory base (SPEC §2.2.2): `CLAUDE_CODE_REMOTE_MEMORY_DIR` or the config home.
pub(super) fn memory_base(
    env: &Env,
    config_home: Option<&str>,
    base_dir: &str,
    warnings: &mut Vec<String>,
) -> Option<String> {
    match env.get("CLAUDE_CODE_REMOTE_MEMORY_DIR").filter(|v| !v.is_empty()) {
        Some(m) if m.starts_with('/') => Some(m),
        Some(m) => {
            warnings.push(format!(
                "CLAUDE_CODE_REMOTE_MEMORY_DIR is relative (`{m}`): resolved against the project root {base_dir}"
            ));
            Some(absolutize(&m, base_dir))
        }
        None => config_home.map(str::to_string),
    }
}

pub(super) fn project_root(project: Option<&Path>, env: &Env) -> Result<Project, Error> {
    let given = project.map_or_else(|| env.cwd.clone(), |p| env.cwd.join(p));
    if project.is_some() && !given.exists() {
        return Err(Error::new(
            Kind::NotFound,
            format!("project path does not exist: {}", given.display()),
        )
        .hint("pass an existing directory to --project"));
    }
    // Not NFC-normalized: Claude Code 2.1.332 keys a decomposed (NFD) project path
    // as it is on disk, and finds its git root there (observed on Linux: the oracle
    // row `long-decomposed` of tests/golden/claude-code-2.1.332/dirs.jsonl).
    let (root, realpath_ok) = match std::fs::canonicalize(&given) {
        Ok(r) => (r.to_string_lossy().into_owned(), true),
        Err(_) => (normalize(&given.to_string_lossy()), false),
    };
    let git_root = git::find_git_root(&root);
    let (canonical_root, reason) = match &git_root {
        Some(g) => git::canonical_root(g),
        None => (root.clone(), git::Reason::None),
    };
    Ok(Project {
        root,
        realpath_ok,
        git_root,
        canonical_root,
        reason,
    })
}
