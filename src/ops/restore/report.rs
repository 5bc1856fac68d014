//! The JSON document of `restore` and `undo` (SPEC §8.3).

use serde::Serialize;

use super::{Plan, mtime_text};
use crate::history::ChangeKind;

/// One entry of `restored` (SPEC §8.3): the file, what happened to it, its mtime
/// now (null when it was removed).
#[derive(Serialize)]
pub struct Restored {
    pub file: String,
    pub change: ChangeKind,
    pub mtime: Option<String>,
}

#[derive(Serialize)]
pub struct IndexLine {
    pub line: usize,
    pub text: String,
}

#[derive(Serialize)]
pub struct Conflict {
    pub file: String,
    pub reason: String,
}

/// The JSON document of `restore` and `undo` (SPEC §8.3).
#[derive(Serialize)]
pub struct Report {
    /// The snapshot restored from (`restore`) or undone (`undo`); null for a copy
    /// from `.trash/`.
    pub snapshot: Option<String>,
    pub restored: Vec<Restored>,
    pub index_lines: Vec<IndexLine>,
    pub conflicts: Vec<Conflict>,
    pub dry_run: bool,
}

impl Plan {
    pub fn report(&self, index_lines: &[(usize, String)], dry_run: bool) -> Report {
        Report {
            snapshot: self.source.snapshot_id().map(str::to_string),
            restored: match (self.change, &self.conflict) {
                (Some(c), None) => vec![Restored {
                    file: self.source.rel.clone(),
                    change: c,
                    mtime: Some(mtime_text(self.source.mtime_ns)),
                }],
                _ => Vec::new(),
            },
            index_lines: index_lines
                .iter()
                .map(|(line, text)| IndexLine {
                    line: *line,
                    text: text.clone(),
                })
                .collect(),
            conflicts: self
                .conflict
                .iter()
                .map(|r| Conflict {
                    file: self.source.rel.clone(),
                    reason: r.clone(),
                })
                .collect(),
            dry_run,
        }
    }
}
