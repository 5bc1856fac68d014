//! `projects merge` (SPEC §9): every memory of one memory dir moves into another.
//! [`locate`] turns FROM and INTO into memory dirs, [`plan`] reads both dirs and
//! decides every move and both indexes (writes nothing), [`apply`] carries the plan
//! out through one [`Writer`](crate::store::Writer) per dir.
//!
//! The seams: `locate` (FROM and INTO as memory dirs), `read` (both dirs read,
//! every move decided), `indexes` (FROM's index lines placed in INTO's, §10.2),
//! `apply` (the writes).

mod apply;
mod indexes;
mod locate;
mod read;

use serde::Serialize;

use crate::memdir::MemoryDir;
use crate::paths;

pub use apply::apply;
pub use indexes::merge_index;
pub use locate::{Located, Named, ensure_distinct, locate, locate_into, real_path};
pub use read::plan;

/// The largest memory file a merge moves (memctl choice; a larger one stays).
const MAX_FILE_BYTES: u64 = 64 << 20;

/// What happened to one memory of FROM.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// INTO had no file of that name.
    Moved,
    /// INTO had the same bytes under that name: the copy in FROM is removed.
    MergedIdentical,
    /// INTO had different bytes under that name: it arrives as `-2`, `-3`, ….
    Renamed,
}

/// One memory of FROM and where it goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Move {
    /// Relative to FROM, `/`-separated.
    pub file: String,
    /// Relative to INTO.
    pub to: String,
    pub action: Action,
    /// Shared, not copied: `import` hands each incoming file's bytes to the
    /// plan, its writes and this merge (issue 31: one copy of a 28 MB bundle,
    /// not five).
    bytes: std::sync::Arc<Vec<u8>>,
    mtime_ns: i128,
}

/// An entry of FROM that stays.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Left {
    pub file: String,
    pub reason: &'static str,
}

/// An index line and its 1-based number.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Line {
    pub line: usize,
    pub text: String,
}

/// Whether INTO's index loads the added lines (SPEC §10.2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cut {
    /// Added lines' files past the cut.
    pub own: Vec<String>,
    /// Entries loaded before that the merge pushes past the cut.
    pub pushed: Vec<String>,
}

/// Everything a merge does, decided from one read of both dirs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    pub from: MemoryDir,
    pub into: MemoryDir,
    pub moves: Vec<Move>,
    pub left: Vec<Left>,
    /// FROM's index as read (`None`: there is none).
    pub source_index: Option<String>,
    /// FROM's index afterwards (`None`: removed, nothing else was left in it).
    pub new_source_index: Option<String>,
    pub target_index: String,
    pub new_target_index: String,
    /// Lines added to INTO's index, numbered there.
    pub added: Vec<Line>,
    /// Lines of FROM's index for moved files that INTO's index already has (by
    /// text or by link), numbered in FROM.
    pub skipped: Vec<Line>,
    /// FROM's other lines (headings, free text, links to files that stay), numbered in FROM.
    pub kept: Vec<Line>,
    /// Moved files that FROM's index did not link.
    pub unindexed: Vec<String>,
    /// `Some` when the added lines would be cut or push entries past the cut.
    pub cut: Option<Cut>,
    /// Each entry of INTO's new index past the cut that its old index loaded or
    /// did not have: named in a warning, never a refusal (SPEC §3.14).
    pub cut_entries: Vec<crate::index::place::CutEntry>,
    pub target_lines: usize,
    pub target_units: usize,
    pub target_truncated: bool,
    pub target_reason: Option<String>,
}

impl Plan {
    /// The plan of moving `moves` from FROM into INTO, with both indexes planned
    /// (§10.2 placement; see [`indexes::plan_indexes`]).
    fn new(
        from: MemoryDir,
        into: MemoryDir,
        moves: Vec<Move>,
        left: Vec<Left>,
        source_index: Option<String>,
        target_index: String,
    ) -> Plan {
        let mut p = Plan {
            from,
            into,
            moves,
            left,
            new_source_index: source_index.clone(),
            source_index,
            new_target_index: target_index.clone(),
            target_index,
            added: Vec::new(),
            skipped: Vec::new(),
            kept: Vec::new(),
            unindexed: Vec::new(),
            cut: None,
            cut_entries: Vec::new(),
            target_lines: 0,
            target_units: 0,
            target_truncated: false,
            target_reason: None,
        };
        indexes::plan_indexes(&mut p);
        p
    }

    pub fn count(&self, a: Action) -> usize {
        self.moves.iter().filter(|m| m.action == a).count()
    }

    pub fn changes_target_index(&self) -> bool {
        self.target_index != self.new_target_index
    }

    pub fn changes_source_index(&self) -> bool {
        self.source_index != self.new_source_index
    }

    /// The `projects merge --json` document.
    pub fn report(&self, dry_run: bool) -> Report<'_> {
        Report {
            from: paths::with_sep(self.from.main()),
            into: paths::with_sep(self.into.main()),
            dry_run,
            moved: self
                .moves
                .iter()
                .map(|m| MovedReport {
                    file: &m.file,
                    to: &m.to,
                    action: m.action,
                })
                .collect(),
            index_lines_added: &self.added,
            index_lines_skipped: &self.skipped,
            source_lines_kept: &self.kept,
            source_index_removed: self.source_index.is_some() && self.new_source_index.is_none(),
            left_behind: &self.left,
            target_index: TargetIndex {
                lines: self.target_lines,
                units: self.target_units,
                truncated: self.target_truncated,
            },
            cut_entries: &self.cut_entries,
        }
    }
}

/// The `projects merge --json` document (docs/json.md).
#[derive(Serialize)]
pub struct Report<'a> {
    pub from: String,
    pub into: String,
    pub dry_run: bool,
    pub moved: Vec<MovedReport<'a>>,
    pub index_lines_added: &'a [Line],
    pub index_lines_skipped: &'a [Line],
    pub source_lines_kept: &'a [Line],
    pub source_index_removed: bool,
    pub left_behind: &'a [Left],
    pub target_index: TargetIndex,
    /// Entries of INTO's index the merge put past the cut (SPEC §3.14).
    pub cut_entries: &'a [crate::index::place::CutEntry],
}

#[derive(Serialize)]
pub struct MovedReport<'a> {
    pub file: &'a str,
    pub to: &'a str,
    pub action: Action,
}

#[derive(Serialize)]
pub struct TargetIndex {
    pub lines: usize,
    pub units: usize,
    pub truncated: bool,
}
