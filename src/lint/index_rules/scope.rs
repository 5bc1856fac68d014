//! Which index file covers which topic files when linting: the dir's `MEMORY.md`,
//! and `team/MEMORY.md` for the files under `team/` when linting the main dir.

use std::path::{Path, PathBuf};

use crate::memdir::{INDEX, MemoryDir, TEAM};

/// An index file and the topic files it is expected to link.
pub struct Scope {
    pub index: PathBuf,
    /// The linted dir (the scanned files' paths are relative to it).
    pub(super) root: PathBuf,
    /// The directory the index's links resolve in.
    pub(super) base: PathBuf,
    /// The index's dir relative to the linted dir (`""` or `team`).
    pub prefix: String,
    /// Files under `team/` belong to another scope.
    pub(super) exclude_team: bool,
    /// How memctl names the index: `MEMORY.md`, `team/MEMORY.md` or
    /// `team/<mount>/MEMORY.md` (SPEC §2.13).
    pub label: String,
    /// A team index (`team/MEMORY.md`, or the dir `--team` works in).
    pub team: bool,
}

impl Scope {
    /// An index file checked on its own, its links resolved in `base`.
    pub fn single(index: &Path, base: &Path) -> Scope {
        Scope {
            index: index.to_path_buf(),
            root: base.to_path_buf(),
            base: base.to_path_buf(),
            prefix: String::new(),
            exclude_team: false,
            label: INDEX.into(),
            team: false,
        }
    }

    /// Whether a scanned file (relative to the linted dir) belongs to this index.
    pub(super) fn owns(&self, rel: &str) -> bool {
        if rel.starts_with("logs/") {
            return false;
        }
        match self.prefix.as_str() {
            "" => !(self.exclude_team && rel.starts_with("team/")),
            p => rel.strip_prefix(p).is_some_and(|r| r.starts_with('/')),
        }
    }

    /// `rel` as the index sees it (relative to the index's dir).
    pub(super) fn local<'a>(&self, rel: &'a str) -> &'a str {
        if self.prefix.is_empty() {
            rel
        } else {
            rel.strip_prefix(&self.prefix)
                .map_or(rel, |r| r.trim_start_matches('/'))
        }
    }
}

/// The index files lint checks: the dir's `MEMORY.md`, and `team/MEMORY.md` when
/// linting the main dir with a team dir present and a team store configured
/// (`team_store`, SPEC §2.13). Without a team store Claude Code 2.1.332 never
/// loads `team/MEMORY.md` (ML217) and `team/<file>.md` belongs to the main index.
pub fn scopes(memdir: &MemoryDir, team_store: bool) -> Vec<Scope> {
    let team = memdir.covers_team() && team_store;
    let dir = memdir.dir();
    let mut out = vec![Scope {
        index: memdir.index_path(),
        root: dir.to_path_buf(),
        base: dir.to_path_buf(),
        prefix: String::new(),
        exclude_team: team,
        label: memdir.index_label().to_string(),
        team: memdir.is_team(),
    }];
    if team {
        out.push(Scope {
            index: memdir.team_dir().join(INDEX),
            root: dir.to_path_buf(),
            base: memdir.team_dir(),
            prefix: TEAM.into(),
            exclude_team: false,
            label: crate::memdir::TEAM_INDEX.into(),
            team: true,
        });
    }
    out
}
