//! `memctl sync` (SPEC §11.3): keep projects' memory in step across machines
//! through a git remote. [`repo`] is the local sync repository (gix), [`transport`]
//! fetch and push (the `git` binary), [`merge`] the pure per-file and index merges.
//! A sync ([`run()`]) commits what is here, fetches, plans each project against the
//! last synced state (`plan`: the per-file merge of step 2, the index of step 3),
//! writes through each dir's [`Writer`](crate::store::Writer) (`apply`), records
//! the merge (`record`) and pushes (retried when rejected). This module holds the
//! types they share.
//!
//! Safe against `kill -9` anywhere: memory files are replaced atomically; refs of
//! the sync repository move only after their objects exist; a project's synced
//! ref (the merge base) moves only after its memory dir was written, so a sync cut
//! short is redone by the next one.

mod apply;
pub mod merge;
mod plan;
pub mod purge;
mod read;
mod record;
pub mod repo;
mod run;
pub mod transport;
mod unchanged;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::memdir::{INDEX, TEAM, TEAM_INDEX};
use crate::ops::import::Conflict;
use repo::SyncRepo;

pub use run::run;

/// The largest memory file sync carries.
const MAX_FILE_BYTES: u64 = 64 << 20;

/// One project to sync: its identity and this machine's memory dir for it.
#[derive(Clone, Debug)]
pub struct Target {
    pub identity: String,
    pub dir: PathBuf,
    pub project: Option<PathBuf>,
    /// Only the team dir (`--all-projects --team`, SPEC v3 §3.14): the files under
    /// `team/` of the project's tree, which a whole-project sync carries at the
    /// same place; the rest of the tree is left as it is, on both sides.
    pub team: bool,
}

impl Target {
    /// Its dir in the sync tree: `<identity, / as __>`.
    pub fn member(&self) -> String {
        member(&self.identity)
    }

    /// The ref of the last commit this target was synced at (its merge base).
    /// The team dir has its own: a team sync merges only `team/`, so its commit
    /// is no base for the rest of the project.
    fn synced_ref(&self) -> String {
        if self.team {
            SyncRepo::synced_ref(&format!("{}\0{}", self.identity, TEAM))
        } else {
            SyncRepo::synced_ref(&self.identity)
        }
    }

    /// The files of the project this target moves: all, or the team dir's.
    fn prefix(&self) -> &'static str {
        if self.team { "team/" } else { "" }
    }

    /// The index it merges by lines (SPEC §11.3 step 3).
    fn index(&self) -> &'static str {
        if self.team { TEAM_INDEX } else { INDEX }
    }

    /// Keep only the files this target moves.
    fn only_mine<T>(&self, files: &mut BTreeMap<String, T>) {
        if self.team {
            files.retain(|k, _| k.starts_with(self.prefix()));
        }
    }
}

/// The dir of a project in the sync repository, under `projects/`.
pub fn member_of(identity: &str) -> String {
    member(identity)
}

fn member(identity: &str) -> String {
    let m = crate::bundle::member_dir(identity);
    m.strip_prefix("projects/").unwrap_or(&m).to_string()
}

/// How a sync takes the remote's branch (SPEC v3 §11.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The per-file three-way merge against the last synced commit; a remote that
    /// does not descend from that commit (rolled back, rewritten) is refused.
    Merge,
    /// `--accept-remote`: this machine takes each project as the remote holds it
    /// (what the remote no longer holds is deleted here, its copy in history).
    AcceptRemote,
    /// `--push-local`: the remote is restored from this machine (nothing incoming).
    PushLocal,
}

pub struct Options {
    pub repo: PathBuf,
    pub remote: Option<String>,
    pub dry_run: bool,
    /// Approval of a mass deletion, given on this machine (never read from the remote).
    pub allow_mass_delete: bool,
    pub mode: Mode,
    pub strict: bool,
    /// `--allow-secrets`: push memories with secret-like tokens (refused by default).
    pub allow_secrets: bool,
    pub machine: String,
    pub now: DateTime<Utc>,
    pub history: crate::history::Settings,
}

/// One project in the report (`sync --json`, the shape of `import --json`).
#[derive(Clone, Debug, Default, Serialize)]
pub struct ProjectReport {
    pub identity: String,
    pub memory_dir: Option<String>,
    pub added: Vec<String>,
    pub updated: Vec<String>,
    pub deleted: Vec<String>,
    /// Files not written: kept against a deletion, changed meanwhile, or unable to travel.
    pub skipped: Vec<String>,
    pub conflicts: Vec<Conflict>,
    /// The other machine's `MEMORY.md` lines the index merge replaced or dropped.
    pub index_replaced: Vec<merge::Replaced>,
    /// Entries the merged index put past Claude Code's cut (SPEC §3.14): named in
    /// warnings, never a refusal.
    pub cut_entries: Vec<crate::index::place::CutEntry>,
    /// Files whose local change goes to the remote (text output only: the JSON
    /// shape is import's, SPEC §11.2).
    #[serde(skip)]
    pub sent: Vec<String>,
}

impl ProjectReport {
    /// An empty report for a target.
    fn of(t: &Target) -> ProjectReport {
        ProjectReport {
            identity: t.identity.clone(),
            memory_dir: Some(crate::paths::with_sep(&t.dir)),
            ..Default::default()
        }
    }
}

/// The `sync --json` document.
#[derive(Serialize)]
pub struct Report {
    pub projects: Vec<ProjectReport>,
    pub dry_run: bool,
}

/// How the push went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PushResult {
    /// Nothing new for the remote.
    UpToDate,
    Pushed {
        commit: String,
        retries: usize,
    },
    /// `--dry-run`: would push when `true`.
    DryRun(bool),
}

/// What a sync did.
pub struct Outcome {
    pub remote: String,
    pub projects: Vec<ProjectReport>,
    pub warnings: Vec<String>,
    pub notes: Vec<String>,
    pub push: PushResult,
}

/// The unresolved conflict files below a memory dir (the names lint's ML135
/// reports, [`crate::scan::conflict`]),
/// with the file each belongs to, sorted.
pub fn conflict_files(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![(dir.to_path_buf(), String::new())];
    while let Some((d, prefix)) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else { continue };
        for e in rd.flatten() {
            let name = e.file_name();
            let Some(name) = name.to_str() else { continue };
            let Ok(ft) = e.file_type() else { continue };
            // The path is made only for a dir or a conflict file: a memory dir
            // is mostly neither (issue 31: a no-op sync walks it first).
            let rel = || {
                if prefix.is_empty() {
                    name.to_string()
                } else {
                    format!("{prefix}/{name}")
                }
            };
            if ft.is_dir() {
                if name != ".trash" && name != ".memctl" && out.len() < 10_000 {
                    stack.push((e.path(), rel()));
                }
            } else if let Some(c) = crate::scan::conflict::parse_conflict_name(name) {
                let rel = rel();
                out.push((format!("{}{}", &rel[..rel.len() - name.len()], c.original), rel));
            }
        }
    }
    out.sort();
    out
}
