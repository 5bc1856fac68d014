//! FROM and INTO as memory dirs (SPEC §9: a dir first, then a key, then a
//! project path), and the check that they are two distinct dirs.

use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};

use crate::error::{Error, Kind};
use crate::fsread;
use crate::memdir::{INDEX, MemoryDir, Scope};
use crate::paths::{self, Env, Request};

/// How FROM or INTO was understood (SPEC §9: a dir first, then a key, then a
/// project path).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Named {
    /// An existing directory, taken as the memory dir itself.
    Dir,
    /// A key under `<config home>/projects/`.
    Key(String),
    /// A project path, resolved as Claude Code does.
    Project(PathBuf),
}

/// FROM or INTO as a memory dir.
#[derive(Clone, Debug)]
pub struct Located {
    pub dir: MemoryDir,
    pub named: Named,
    /// The project root, recorded in a new history store.
    pub project: Option<PathBuf>,
}

impl Located {
    /// A directory taken as the memory dir itself (`--into-dir`, or a missing INTO).
    pub fn dir(path: &Path) -> Located {
        Located {
            dir: MemoryDir::open(path, Scope::Main),
            named: Named::Dir,
            project: None,
        }
    }

    /// How the argument was understood, for the text output.
    pub fn how(&self) -> String {
        match &self.named {
            Named::Dir => "a memory dir".to_string(),
            Named::Key(k) => format!("key {k}"),
            Named::Project(p) => format!("memory dir of project {}", p.display()),
        }
    }
}

/// Resolve FROM or INTO: an existing memory directory, then a key under
/// `<config home>/projects/`, then a project path (its memory dir resolved as
/// Claude Code does). An existing directory that is a project (a git work tree, or
/// one holding `.claude/` or `CLAUDE.md`) and holds no `MEMORY.md` counts as a
/// project path: `~/src/app` names the project, not a memory dir.
pub fn locate(arg: &OsStr, env: &Env) -> Result<Located, Error> {
    locate_in(arg, env, false)
}

/// [`locate`] for the destination: a key (`-…`, no `/`) whose dir does not exist
/// yet names the memory dir the merge creates (SPEC §3.14: the destination may be
/// missing), as `path` suggests for a legacy Wyhash dir whose djb2 dir Claude Code
/// has not created yet (§2.2.7).
pub fn locate_into(arg: &OsStr, env: &Env) -> Result<Located, Error> {
    locate_in(arg, env, true)
}

fn locate_in(arg: &OsStr, env: &Env, new_key: bool) -> Result<Located, Error> {
    if arg.is_empty() {
        return Err(Error::new(Kind::Usage, "FROM and INTO must not be empty")
            .hint("give a memory dir, a key (after --) or a project path"));
    }
    // memctl's own override does not apply: Claude Code does not know it.
    let mut env = env.clone();
    env.vars.remove("MEMCTL_DIR");
    let path = env.cwd.join(arg);
    let config_home = config_home(&env);
    let home = config_home.as_deref();
    if path.is_dir() && !is_project(&path, home) {
        return as_memory_dir(&path, home, new_key);
    }
    let text = arg.to_string_lossy();
    if let Some(found) = as_key(arg, &path, home, new_key) {
        return Ok(found);
    }
    if path.is_dir() {
        return as_project(path, &env);
    }
    if text.contains('/')
        && let Some(found) = as_gone_project(&path, home)
    {
        return Ok(found);
    }
    // SPEC §3.14: a missing destination is the memory dir the merge creates.
    if new_key && fs::symlink_metadata(&path).is_err() {
        return Ok(Located::dir(&path));
    }
    Err(Error::new(
        Kind::NotFound,
        format!(
            "not a memory dir, a key or a project path: {}",
            path.display()
        ),
    )
    .hint("give an existing memory dir, a key under <config home>/projects/ (after --), or a project path; `memctl projects` lists them"))
}

/// An existing directory that is not a project: the memory dir itself; as the
/// destination, only one that may receive memories ([`memory_destination`]).
fn as_memory_dir(path: &Path, config_home: Option<&str>, new_key: bool) -> Result<Located, Error> {
    if new_key && !memory_destination(path, config_home) {
        return Err(Error::new(
            Kind::InvalidInput,
            format!(
                "not a memory dir (it holds files but no memories) nor a project: {}",
                path.display()
            ),
        )
        .hint(format!(
            "merging would write memories among its files; to use it anyway, pass `--into-dir {}`",
            path.display()
        )));
    }
    Ok(Located::dir(path))
}

/// A key under `<config home>/projects/` (no `/`, not `.` or `..`) whose dir
/// exists; as the destination, also a `-…` key whose dir does not exist yet.
fn as_key(arg: &OsStr, path: &Path, config_home: Option<&str>, new_key: bool) -> Option<Located> {
    let text = arg.to_string_lossy();
    let home = config_home?;
    if text.contains('/') || text == "." || text == ".." {
        return None;
    }
    let key_dir = Path::new(home).join("projects").join(arg);
    if key_dir.is_dir() || (new_key && text.starts_with('-') && !path.exists()) {
        return Some(Located {
            dir: MemoryDir::open(key_dir.join("memory"), Scope::Main),
            named: Named::Key(text.into_owned()),
            project: None,
        });
    }
    None
}

/// An existing project directory: its memory dir resolved as Claude Code does.
fn as_project(path: PathBuf, env: &Env) -> Result<Located, Error> {
    let req = Request {
        dir: None,
        project: Some(path.clone()),
        team: false,
    };
    let res = paths::resolve(&req, env)?;
    let root = res.project.as_ref().map(|p| PathBuf::from(&p.canonical_root));
    let shown = res.project.as_ref().map_or(path, |p| PathBuf::from(&p.root));
    Ok(Located {
        dir: MemoryDir::open(res.memdir.main(), Scope::Main),
        named: Named::Project(shown),
        project: root,
    })
}

/// A project path that is gone (the repository moved): its key, lexically (the
/// djb2 key, then the legacy Wyhash one), when that key's dir exists.
fn as_gone_project(path: &Path, config_home: Option<&str>) -> Option<Located> {
    let home = config_home?;
    let lexical = paths::validate::normalize(&path.to_string_lossy());
    let key = paths::sanitize::sanitize(&lexical);
    [&key.key, &key.wyhash].into_iter().find_map(|k| {
        let key_dir = Path::new(home).join("projects").join(k);
        key_dir.is_dir().then(|| Located {
            dir: MemoryDir::open(key_dir.join("memory"), Scope::Main),
            named: Named::Project(PathBuf::from(&lexical)),
            project: None,
        })
    })
}

/// The config home (SPEC §2.2.2) as resolution finds it.
fn config_home(env: &Env) -> Option<String> {
    let req = Request {
        dir: Some(env.cwd.clone().into_os_string()),
        project: None,
        team: false,
    };
    paths::resolve(&req, env).ok()?.config_home
}

/// Whether an existing directory that is not a project may receive a merge as a
/// memory dir (SPEC §3.14): it is under `<config home>/projects/*/memory/`, it is
/// empty, or it already holds memory files (`.md` files with frontmatter, or a
/// `MEMORY.md`). A plain directory of other files is not.
fn memory_destination(dir: &Path, config_home: Option<&str>) -> bool {
    let real = fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    if let Some(h) = config_home
        && let Ok(projects) = fs::canonicalize(Path::new(h).join("projects"))
        && let Ok(rest) = real.strip_prefix(&projects)
        && rest.components().nth(1).is_some_and(|c| c.as_os_str() == "memory")
    {
        return true;
    }
    let Ok(entries) = fs::read_dir(dir) else {
        return false;
    };
    let mut empty = true;
    for e in entries.filter_map(Result::ok) {
        empty = false;
        let name = e.file_name();
        if name == INDEX {
            return true;
        }
        let is_file = e.file_type().is_ok_and(|t| t.is_file());
        if is_file
            && Path::new(&name).extension().is_some_and(|x| x == "md")
            && fsread::read_small_text(&e.path()).is_some_and(|t| t.starts_with("---"))
        {
            return true;
        }
    }
    empty
}

/// Whether an existing directory names a project rather than a memory dir.
fn is_project(dir: &Path, config_home: Option<&str>) -> bool {
    let marked_memory = dir.join(INDEX).exists()
        || dir.file_name().is_some_and(|n| n == "memory")
        || config_home.is_some_and(|h| {
            let real = fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
            let projects = fs::canonicalize(Path::new(h).join("projects")).unwrap_or_default();
            !projects.as_os_str().is_empty() && real.starts_with(&projects) && real != projects
        });
    if marked_memory {
        return false;
    }
    dir.join(".claude").is_dir()
        || dir.join("CLAUDE.md").is_file()
        || paths::git::find_git_root(&dir.to_string_lossy()).is_some()
}

/// The real path of `p`, or of its nearest existing ancestor with the rest
/// appended (INTO may not exist yet).
pub fn real_path(p: &Path) -> PathBuf {
    let mut rest = Vec::new();
    let mut at = p;
    loop {
        if let Ok(r) = fs::canonicalize(at) {
            return rest.iter().rev().fold(r, |acc: PathBuf, c: &&OsStr| acc.join(c));
        }
        match (at.parent(), at.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name);
                at = parent;
            }
            _ => return p.to_path_buf(),
        }
    }
}

/// FROM must be an existing dir, distinct from INTO and neither inside the other.
pub fn ensure_distinct(from: &Located, into: &Located) -> Result<(), Error> {
    let f = from.dir.main();
    if !f.is_dir() {
        return Err(Error::new(
            Kind::NotFound,
            format!("FROM has no memory dir: {}", paths::with_sep(f)),
        )
        .hint("`memctl projects` lists the memory dirs of this machine"));
    }
    let (rf, ri) = (real_path(f), real_path(into.dir.main()));
    if rf == ri {
        return Err(Error::new(
            Kind::Usage,
            format!("FROM and INTO are the same memory dir: {}", paths::with_sep(&rf)),
        )
        .hint("name two different memory dirs; `memctl projects` lists them"));
    }
    if ri.starts_with(&rf) || rf.starts_with(&ri) {
        let (outer, inner) = if ri.starts_with(&rf) {
            ("FROM", "INTO")
        } else {
            ("INTO", "FROM")
        };
        return Err(Error::new(
            Kind::InvalidInput,
            format!(
                "{inner} lies inside {outer}: {} and {}",
                paths::with_sep(&rf),
                paths::with_sep(&ri)
            ),
        )
        .hint("a memory dir cannot be merged into a dir inside it, or the other way round"));
    }
    Ok(())
}
