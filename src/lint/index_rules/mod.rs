//! Rules on `MEMORY.md` (ML201–ML215) and the reachability behind ML203: one
//! module per kind of rule; this one runs them on an index.

mod caps;
mod lines;
mod links;
mod packed;
mod reach;
mod scope;
mod unindexed;

use crate::index::load;
use crate::lint::facts::FileFacts;

use super::{Finding, RuleId, Severity};

pub use reach::{FileLinks, Reach};
pub use scope::{Scope, scopes};
pub use unindexed::check_files;

/// The files an index links (its memory links' targets), sorted: all ML203 asks
/// of them once ML209 has used their lines.
pub struct Targets(packed::Packed);

impl Targets {
    pub fn contains(&self, rel: &str) -> bool {
        self.0.contains(rel)
    }
}

/// Run the index rules for one scope; returns the number of files examined.
pub fn check(scope: &Scope, memories: &[FileFacts], reach: &Reach, warn_at: f64, out: &mut Vec<Finding>) -> usize {
    let (files, targets) = check_index(scope, warn_at, out);
    check_files(scope, memories, targets.as_ref(), reach, out);
    files
}

/// The index rules that need neither the topic files nor reachability (all but
/// ML203 and ML213); returns the number of files examined and the index's targets
/// (`None` when there is no readable index: see [`check_files`]).
pub fn check_index(scope: &Scope, warn_at: f64, out: &mut Vec<Finding>) -> (usize, Option<Targets>) {
    let idx = &scope.index;
    let bytes = match crate::index::read_index(idx) {
        Ok(b) => b,
        // No index at all is ML213's (see `check_files`).
        Err(_) if std::fs::symlink_metadata(idx).is_err() => return (0, None),
        Err(e) => {
            // Claude Code then loads no memory at all: an error, whatever the cause
            // (permission, a dangling symlink, a directory, a FIFO or a device).
            let why = match e {
                crate::fsread::ReadError::NotFound => "a dangling symlink".to_string(),
                e => e.to_string(),
            };
            out.push(Finding::file(
                RuleId::ML131,
                idx,
                format!("the index cannot be read ({why}); Claude Code loads no memory at all"),
            ));
            return (1, None);
        }
    };
    // Valid UTF-8 is used as read, not copied.
    let text = String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    if text.contains("\r\n") {
        out.push(Finding::file(
            RuleId::ML215,
            idx,
            "CRLF line endings; each CR counts toward the 25 000 units",
        ));
    }
    if let Some(pos) = unclosed_comment(&text) {
        let line = crate::text::count_byte(&text.as_bytes()[..pos], b'\n') + 1;
        out.push(Finding::new(
            RuleId::ML212,
            idx,
            line,
            1,
            "`<!--` is never closed: Claude Code loads the rest verbatim",
        ));
    }
    for d in crate::dates::find(&text) {
        out.push(
            Finding::new(
                RuleId::ML116,
                idx,
                d.line,
                d.col,
                format!("relative date `{}` in the index: write the absolute date", d.phrase),
            )
            .with_severity(Severity::Info),
        );
    }
    // Claude Code loads the index into every session: secrets there matter most.
    super::secrets::check(idx, &text, out);
    let (targets, link_lines) = links::check(idx, &scope.base, &text, out);
    lines::check(idx, &text, &link_lines, out);
    drop(link_lines);
    // The line rules may have found one per line (ML204): their list is held to
    // the end of the run, so without the growth slack, before the load is modelled.
    out.shrink_to_fit();
    // The load takes the text over: modelled last, once the link rules' tables are
    // gone (findings are sorted afterwards, so the order they are found in is free).
    let loaded = load::load_owned(text);
    if loaded.frontmatter_stripped {
        out.push(Finding::file(
            RuleId::ML208,
            idx,
            "MEMORY.md has a frontmatter block; Claude Code strips it: remove it",
        ));
    }
    caps::check(idx, &loaded, warn_at, out);
    (1, Some(targets))
}

fn unclosed_comment(text: &str) -> Option<usize> {
    let mut pos = 0;
    while let Some(i) = text[pos..].find("<!--") {
        let start = pos + i;
        match text[start + 4..].find("-->") {
            Some(j) => pos = start + 4 + j + 3,
            None => return Some(start),
        }
    }
    None
}
