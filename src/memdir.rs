//! A memory dir: the main dir, the scope a command works in (main or team), and for
//! any file the index that covers it with its label. This is the one place that
//! knows `team/` files belong to `team/MEMORY.md` (SPEC §1.2, §2.7).

use std::path::{Path, PathBuf};

/// The index file name Claude Code loads (SPEC §2.7).
pub const INDEX: &str = "MEMORY.md";
/// The team dir below the main dir (SPEC §1.2).
pub const TEAM: &str = "team";

/// Which part of a memory dir a command works in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// The main dir; files under `team/` belong to `team/MEMORY.md`.
    Main,
    /// The team dir (`--team`); the write lock and dream lock stay the main dir's.
    Team,
}

/// A memory dir as memctl works on it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryDir {
    main: PathBuf,
    dir: PathBuf,
    scope: Scope,
    /// Whether a team store is configured (`CLAUDE_MEMORY_STORES`, SPEC §2.13):
    /// only then is `team/` team memory, its files covered by `team/MEMORY.md`.
    /// Without one, Claude Code 2.1.332 scans `team/<file>.md` as a personal
    /// memory that the main `MEMORY.md` must link, and never loads
    /// `team/MEMORY.md`.
    team_store: bool,
}

/// The index that covers one file: where it is, how memctl names it, and the file's
/// path as that index links it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Covering {
    pub index: PathBuf,
    pub label: &'static str,
    /// The file relative to the index's own dir (`team/x.md` → `x.md` under `team/MEMORY.md`).
    pub local: String,
}

impl MemoryDir {
    /// A memory dir from a path alone (no project, no settings).
    pub fn open(main: impl Into<PathBuf>, scope: Scope) -> MemoryDir {
        let main = main.into();
        let dir = match scope {
            Scope::Main => main.clone(),
            Scope::Team => main.join(TEAM),
        };
        MemoryDir {
            main,
            dir,
            scope,
            team_store: false,
        }
    }

    /// The same dir, knowing whether a team store is configured (SPEC §2.13).
    pub fn with_team_store(mut self, team_store: bool) -> MemoryDir {
        self.team_store = team_store;
        self
    }

    /// Whether a team store makes `team/` team memory with its own index.
    pub fn team_store(&self) -> bool {
        self.team_store
    }

    /// The main memory dir (never the team dir): it holds the write and dream locks.
    pub fn main(&self) -> &Path {
        &self.main
    }

    /// The dir the command operates on: the team dir under [`Scope::Team`].
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn scope(&self) -> Scope {
        self.scope
    }

    pub fn is_team(&self) -> bool {
        self.scope == Scope::Team
    }

    /// The team dir below the main dir.
    pub fn team_dir(&self) -> PathBuf {
        self.main.join(TEAM)
    }

    /// The index of the dir the command operates on.
    pub fn index_path(&self) -> PathBuf {
        self.dir.join(INDEX)
    }

    /// How memctl names that index in messages: `MEMORY.md` or `team/MEMORY.md`.
    pub fn index_label(&self) -> &'static str {
        match self.scope {
            Scope::Main => INDEX,
            Scope::Team => "team/MEMORY.md",
        }
    }

    /// Whether the team index is checked together with the main one: working in the
    /// main dir, with a team dir present and a team store configured.
    pub fn covers_team(&self) -> bool {
        self.scope == Scope::Main && self.team_store && self.team_dir().is_dir()
    }

    /// For a file `rel` that `team/MEMORY.md` covers while working in the main dir
    /// (with a team store), its path below `team/`; `None` for a file the
    /// operated-on index covers (without a team store, every file in the main dir).
    pub fn in_team<'r>(&self, rel: &'r str) -> Option<&'r str> {
        match self.scope {
            Scope::Main if self.team_store => rel.strip_prefix("team/"),
            _ => None,
        }
    }

    /// The index covering `rel` (relative to [`dir`](Self::dir), `/`-separated).
    pub fn covering(&self, rel: &str) -> Covering {
        match self.in_team(rel) {
            Some(inner) => Covering {
                index: self.team_dir().join(INDEX),
                label: "team/MEMORY.md",
                local: inner.to_string(),
            },
            _ => Covering {
                index: self.index_path(),
                label: self.index_label(),
                local: rel.to_string(),
            },
        }
    }

    /// The operated-on index covering `rel` whatever its dir: a `team/` file as
    /// the main `MEMORY.md` links it when no team store makes `team/` team memory
    /// (SPEC §2.13).
    pub fn covering_main(&self, rel: &str) -> Covering {
        Covering {
            index: self.index_path(),
            label: self.index_label(),
            local: rel.to_string(),
        }
    }

    /// For a `team/` file, the main `MEMORY.md` and the file's path as that index
    /// links it (`team/x.md`): Claude Code 2.1.332 loads only the main index, so
    /// that is where a team memory's line is seen (SPEC §2.13, §3.7). `None` for a
    /// file outside `team/`.
    pub fn loaded_by(&self, rel: &str) -> Option<Covering> {
        let inner = match self.scope {
            // Without a team store the main index already covers it.
            Scope::Main => self.in_team(rel)?,
            Scope::Team => rel,
        };
        Some(Covering {
            index: self.main.join(INDEX),
            label: INDEX,
            local: format!("{TEAM}/{inner}"),
        })
    }

    /// The label of the index covering `rel`, without building paths.
    pub fn label_for(&self, rel: &str) -> &'static str {
        match self.in_team(rel) {
            Some(_) => "team/MEMORY.md",
            None => self.index_label(),
        }
    }

    /// The operated-on dir for display, with one trailing separator.
    pub fn shown(&self) -> String {
        crate::paths::with_sep(&self.dir)
    }

    /// Every `<config home>/projects/*/memory/` dir that exists, sorted by path
    /// (for the all-projects view).
    pub fn discover(config_home: &Path) -> Vec<MemoryDir> {
        let Ok(entries) = std::fs::read_dir(config_home.join("projects")) else {
            return Vec::new();
        };
        let mut dirs: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path().join("memory"))
            .filter(|p| p.is_dir())
            .collect();
        dirs.sort();
        dirs.into_iter().map(|d| MemoryDir::open(d, Scope::Main)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_a_team_store_team_files_belong_to_the_main_index() {
        // Claude Code 2.1.332 never loads team/MEMORY.md without a team store
        // (SPEC §2.13): the main index must link `team/x.md`.
        let d = MemoryDir::open("/m", Scope::Main);
        let c = d.covering("team/x.md");
        assert_eq!(c.index, PathBuf::from("/m/MEMORY.md"));
        assert_eq!((c.label, c.local.as_str()), ("MEMORY.md", "team/x.md"));
        assert_eq!(d.label_for("team/x.md"), "MEMORY.md");
        assert!(d.loaded_by("team/x.md").is_none(), "covered once");
    }

    #[test]
    fn team_files_belong_to_the_team_index_in_the_main_scope() {
        let d = MemoryDir::open("/m", Scope::Main).with_team_store(true);
        let c = d.covering("team/x.md");
        assert_eq!(c.index, PathBuf::from("/m/team/MEMORY.md"));
        assert_eq!((c.label, c.local.as_str()), ("team/MEMORY.md", "x.md"));
        let c = d.covering("sub/y.md");
        assert_eq!((c.index, c.label), (PathBuf::from("/m/MEMORY.md"), "MEMORY.md"));
        assert_eq!(d.label_for("team/x.md"), "team/MEMORY.md");
    }

    #[test]
    fn the_team_scope_works_in_the_team_dir_with_the_main_locks() {
        let d = MemoryDir::open("/m", Scope::Team);
        assert_eq!(d.dir(), Path::new("/m/team"));
        assert_eq!(d.main(), Path::new("/m"));
        assert_eq!(d.index_label(), "team/MEMORY.md");
        let c = d.covering("team/x.md");
        assert_eq!(
            (c.index, c.local.as_str()),
            (PathBuf::from("/m/team/MEMORY.md"), "team/x.md")
        );
    }

    #[test]
    fn discover_lists_project_memory_dirs() {
        let home = tempfile::tempdir().unwrap();
        for k in ["-b", "-a", "-c"] {
            std::fs::create_dir_all(
                home.path()
                    .join("projects")
                    .join(k)
                    .join(if k == "-c" { "x" } else { "memory" }),
            )
            .unwrap();
        }
        let found: Vec<_> = MemoryDir::discover(home.path())
            .iter()
            .map(|d| d.main().strip_prefix(home.path()).unwrap().to_path_buf())
            .collect();
        assert_eq!(
            found,
            [PathBuf::from("projects/-a/memory"), PathBuf::from("projects/-b/memory")]
        );
    }
}
