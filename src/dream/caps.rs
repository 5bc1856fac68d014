//! The index against Claude Code's caps, as `truncate-check` reports it: the plan's
//! `caps` and the index figures of its Orient phase.

use std::path::Path;

use serde::Serialize;

use crate::index::check::checked;
use crate::index::report::{JSON_DROPPED, TruncationReport};

/// `MEMORY.md` modelled as Claude Code loads it: the figures the text shows and
/// the `truncate-check --json` object. The model itself (the text, its processed
/// copy, every dropped line: ~8 MB for a 3 MB index) is dropped once these are
/// taken.
pub struct Caps {
    line_count: usize,
    unit_count: usize,
    truncated: bool,
    dropped_total: usize,
    report: TruncationReport,
}

impl Caps {
    /// Model the main index, whose text is `text`, in the memory dir `dir`; the
    /// report quotes the dropped entries only `for_json` (the text shows none).
    pub fn of_index(dir: &Path, text: String, for_json: bool) -> Caps {
        let c = checked("MEMORY.md".into(), Some(dir.join("MEMORY.md")), text);
        let (line_count, unit_count, truncated) = (c.load.line_count, c.load.unit_count, c.load.truncated());
        let dropped_total = c.dropped_total;
        let quotes = if for_json { JSON_DROPPED } else { 0 };
        Caps {
            line_count,
            unit_count,
            truncated,
            dropped_total,
            report: c.into_report(Some(super::WARN_AT), quotes),
        }
    }

    /// Lines of the trimmed text, as loaded.
    pub fn line_count(&self) -> usize {
        self.line_count
    }

    /// UTF-16 units of the trimmed text, as loaded.
    pub fn unit_count(&self) -> usize {
        self.unit_count
    }

    /// Whether Claude Code cuts it.
    pub fn truncated(&self) -> bool {
        self.truncated
    }

    /// How many entries are dropped in all.
    pub fn dropped_total(&self) -> usize {
        self.dropped_total
    }
}

/// The `truncate-check --json` object, with ML207's threshold as `warn_at`.
impl Serialize for Caps {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.report.serialize(s)
    }
}

impl std::fmt::Debug for Caps {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Caps")
            .field("line_count", &self.line_count)
            .field("unit_count", &self.unit_count)
            .field("dropped_total", &self.dropped_total)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::check::checked;

    #[test]
    fn the_caps_are_those_of_the_model_and_quote_only_for_json() {
        let dir = Path::new("/m");
        let text: String = (0..260).map(|i| format!("- [n{i}](n{i}.md) — hook {i}\n")).collect();
        let model = checked("MEMORY.md".into(), Some(dir.join("MEMORY.md")), text.clone());
        let want = model.report(Some(crate::dream::WARN_AT), JSON_DROPPED);
        let json = Caps::of_index(dir, text.clone(), true);
        assert_eq!(
            serde_json::to_value(&json).unwrap(),
            serde_json::to_value(&want).unwrap()
        );
        assert_eq!(json.report.dropped_entries.len(), 60);
        let plain = Caps::of_index(dir, text, false);
        assert!(plain.report.dropped_entries.is_empty());
        assert_eq!(
            (
                plain.line_count(),
                plain.unit_count(),
                plain.truncated(),
                plain.dropped_total()
            ),
            (
                model.load.line_count,
                model.load.unit_count,
                model.load.truncated(),
                model.dropped_total
            )
        );
        assert!(plain.truncated() && plain.dropped_total() == 60);
    }
}
