//! Every memory dir of this machine (SPEC §9): where they are found, what each row
//! shows, and the flags that say something is off. `discover` finds the dirs and
//! measures each (scan window, index, lock, one transcript line); `transcript`
//! reads project paths; `stores` reads the history stores' config; `flags` decides
//! the flags from all rows together.

pub mod agents;
mod discover;
pub mod each;
mod flags;
pub mod sources;
mod stores;
pub mod transcript;

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::paths::{self, DirSource, Request};
use crate::text::IsoMs;

pub use discover::discover;
pub use flags::{Evidence, Flag, FlagDoc};

/// Where a row's project path came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PathSource {
    /// The `cwd` of a transcript line.
    Transcript,
    /// Decoded from the key (lossy); shown with `?`.
    Guess,
    /// The project whose settings name this dir (`autoMemoryDirectory`).
    Settings,
    /// The project root a history store recorded.
    History,
}

/// The index against Claude Code's caps (SPEC §2.7).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct IndexStats {
    pub lines: usize,
    pub units: usize,
    pub truncated: bool,
}

/// Findings of the index rules and the frontmatter windows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LintCounts {
    pub errors: usize,
    pub warnings: usize,
}

/// One memory dir of this machine (an entry of `projects` in `projects --json`).
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// The key under `<base>/projects/`; `None` for a dir elsewhere.
    pub key: Option<String>,
    #[serde(serialize_with = "dir_str")]
    pub memory_dir: PathBuf,
    #[serde(serialize_with = "opt_path_str")]
    pub project_path: Option<PathBuf>,
    pub project_path_source: PathSource,
    /// The identity (SPEC §11.1): the live project's, derived from its repository
    /// now, else the one the history store recorded for this dir.
    pub identity: Option<String>,
    pub memories: usize,
    pub size_bytes: u64,
    pub index: IndexStats,
    pub lint: LintCounts,
    pub last_change: Option<IsoMs>,
    pub last_consolidated_at: Option<IsoMs>,
    /// Sessions touched since the last consolidation; `None` without transcripts.
    pub sessions_since: Option<usize>,
    pub flags: Vec<FlagDoc>,
    /// Whether the project path exists (for a guess: whether it names an existing dir).
    #[serde(skip)]
    pub project_exists: bool,
    /// The transcripts dir that gave the project path.
    #[serde(skip)]
    pub transcripts_dir: Option<PathBuf>,
    /// The distinct `cwd`s of the newest transcripts (for `shared-key`).
    #[serde(skip)]
    cwds: Vec<String>,
    #[serde(skip)]
    last_change_ms: Option<f64>,
}

/// What `discover` found.
#[derive(Clone, Debug)]
pub struct Discovery {
    pub config_home: PathBuf,
    /// Sorted by last change, newest first.
    pub rows: Vec<Row>,
    /// (v3) The agent memory dirs that exist (SPEC §2.14).
    pub agent_dirs: Vec<agents::AgentDir>,
    /// (v3) `CLAUDE_MEMORY_STORES` and recall mode (SPEC §2.13).
    pub stores: agents::StoresDoc,
    pub warnings: Vec<String>,
}

impl Row {
    /// The request that runs a one-dir command on this row: the memory dir, and the
    /// project when its path came from a transcript, settings or history and exists.
    pub fn request(&self) -> Request {
        let project = self
            .project_path
            .clone()
            .filter(|_| self.project_path_source != PathSource::Guess && self.project_exists);
        Request {
            dir: Some(self.memory_dir.clone().into_os_string()),
            project,
            team: false,
        }
    }

    /// The key, else the memory dir: how a row is named in text and in `related`.
    pub fn name(&self) -> String {
        self.key.clone().unwrap_or_else(|| paths::with_sep(&self.memory_dir))
    }

    /// The identity (SPEC §11.1): the one history recorded, else the live
    /// project's, computed from its path.
    pub fn identity_now(&self) -> Option<String> {
        self.identity.clone().or_else(|| {
            let p = self.project_path.as_ref().filter(|_| self.project_exists)?;
            let root = std::fs::canonicalize(p).ok()?;
            crate::identity::of_project(&root, None).map(|i| i.id)
        })
    }

    pub fn has(&self, flag: Flag) -> bool {
        self.flags.iter().any(|f| f.flag == flag)
    }
}

fn dir_str<S: serde::Serializer>(p: &Path, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&paths::with_sep(p))
}

fn opt_path_str<S: serde::Serializer>(p: &Option<PathBuf>, s: S) -> Result<S::Ok, S::Error> {
    match p {
        Some(p) => s.serialize_str(&p.to_string_lossy()),
        None => s.serialize_none(),
    }
}

/// What resolution says about a live project path.
#[derive(Clone, Debug)]
pub(crate) struct Live {
    pub canonical_root: String,
    /// The memory dir Claude Code uses for it.
    pub memdir: PathBuf,
    pub source: DirSource,
    /// The setting that moved it: (file, value).
    pub setting: Option<(String, String)>,
    pub enabled: bool,
    pub lever: String,
}

/// A path without its trailing separator (resolution gives dirs with one).
fn strip_sep(p: &Path) -> PathBuf {
    let s = p.to_string_lossy();
    let t = s.trim_end_matches('/');
    PathBuf::from(if t.is_empty() { "/" } else { t })
}

/// The real path when it resolves, else the path as given.
fn real(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| strip_sep(p))
}

#[cfg(test)]
impl Row {
    /// A row of `memories` memories under `key` (`None`: a dir elsewhere) at `dir`.
    pub(crate) fn for_test(key: Option<&str>, dir: &str, memories: usize) -> Row {
        Row {
            key: key.map(str::to_string),
            memory_dir: PathBuf::from(dir),
            project_path: None,
            project_path_source: PathSource::Guess,
            identity: None,
            memories,
            size_bytes: 0,
            index: IndexStats::default(),
            lint: LintCounts::default(),
            last_change: None,
            last_consolidated_at: None,
            sessions_since: None,
            flags: Vec::new(),
            project_exists: false,
            transcripts_dir: None,
            cwds: Vec::new(),
            last_change_ms: None,
        }
    }
}
