//! The truncation report of SPEC §3.10: [`TruncationReport`] serializes to the
//! `truncate-check --json` object (which `add`, `edit` and `dream` embed), and
//! [`render_text`] writes the text form from its fields.

use serde::Serialize;

use super::check::{Checked, LoadStatus};
use super::load::Cut;
use super::load::{MAX_LINES, MAX_UNITS};
use crate::text::{ellipsize, group_digits, js_number, to_fixed1};

/// The text output lists at most this many dropped entries.
pub const LIST_DROPPED: usize = 50;
/// The JSON output holds at most this many dropped entries.
pub const JSON_DROPPED: usize = 10_000;

/// What Claude Code loads from an index file, against its caps. The fields are
/// those of the JSON contract, in its order; `label` and `loaded_lines` are for
/// the text form only.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TruncationReport {
    /// The name shown in text output.
    #[serde(skip)]
    pub label: String,
    /// The file's path, `-` for standard input.
    pub path: String,
    pub exists: bool,
    pub line_count: usize,
    /// UTF-16 units (Claude Code's "bytes").
    pub byte_count: usize,
    pub utf8_bytes: usize,
    pub line_truncated: bool,
    pub byte_truncated: bool,
    pub truncated: bool,
    /// The appended warning line, if truncated.
    pub warning: Option<String>,
    /// §2.7.1's result, warning included, before the clean-up.
    pub loaded: String,
    /// The first dropped entries (as many as the report was asked to quote).
    pub dropped_entries: Vec<DroppedEntry>,
    pub dropped_entries_total: usize,
    /// Negative when over.
    pub headroom_lines: i64,
    pub headroom_bytes: i64,
    pub frontmatter_stripped: bool,
    pub html_comments_stripped: bool,
    pub limits: Limits,
    pub warn_at: Option<f64>,
    pub over_threshold: bool,
    /// Whether and why Claude Code injects the index.
    pub load_status: LoadStatus,
    /// The file's size in bytes (the figure of the 4 MiB rule).
    pub file_bytes: u64,
    /// Exactly the text the model reads after the header; null when nothing is injected.
    pub injected: Option<String>,
    /// The figures of Claude Code's warning: lines cut off and the first of them.
    pub cut_off_lines: Option<usize>,
    pub cut_starts_at_line: Option<usize>,
    pub cut_inside_line_1: Option<bool>,
    /// The file lines of the first and the last line loaded in full, if any.
    #[serde(skip)]
    pub loaded_lines: Option<(usize, usize)>,
}

/// An index entry Claude Code does not load in full.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DroppedEntry {
    /// 1-based line in the file.
    pub line: usize,
    /// The line as the file has it (without its LF and one CR).
    pub text: String,
}

/// The two caps of SPEC §2.7.1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Limits {
    pub lines: usize,
    /// In UTF-16 units.
    pub bytes: usize,
}

impl Checked {
    /// The report on this index, quoting at most `quote` dropped entries
    /// ([`JSON_DROPPED`] for the JSON form, [`LIST_DROPPED`] for the text).
    /// `warn_at`: the `--warn-at` percentage, if any.
    pub fn report(&self, warn_at: Option<f64>, quote: usize) -> TruncationReport {
        TruncationReport {
            label: self.label.clone(),
            warning: self.load.warning.clone(),
            loaded: self.load.loaded.clone(),
            injected: self.status.injects().then(|| self.load.injected.clone()),
            ..self.report_counts(warn_at, quote)
        }
    }

    /// Let go of what a [`Checked::report`] quoting at most `quote` dropped
    /// entries does not read: the processed copy of the text (the file's own
    /// text quotes the dropped lines) and the dropped entries past `quote`
    /// (their total is kept). `add` holds its plan's check through its write
    /// and its snapshot: at 20 000 index lines, 3.3 MB and 10 000 entries.
    pub fn keep_for_report(&mut self, quote: usize) {
        if self.text().is_some() {
            self.load.processed.text = String::new();
        }
        self.load.dropped.truncate(quote);
        self.load.dropped.shrink_to_fit();
    }

    /// [`Checked::report`] that moves the loaded text into the report instead of
    /// copying it.
    pub fn into_report(mut self, warn_at: Option<f64>, quote: usize) -> TruncationReport {
        TruncationReport {
            label: std::mem::take(&mut self.label),
            warning: self.load.warning.take(),
            loaded: std::mem::take(&mut self.load.loaded),
            injected: self.status.injects().then(|| std::mem::take(&mut self.load.injected)),
            ..self.report_counts(warn_at, quote)
        }
    }

    /// The report without its label, warning and loaded text.
    fn report_counts(&self, warn_at: Option<f64>, quote: usize) -> TruncationReport {
        let l = &self.load;
        // A file that was not read (missing, or not a regular file) has no lines.
        let (lines, units, bytes) = if self.exists && self.status != LoadStatus::NotRegular {
            (l.line_count, l.unit_count, l.utf8_bytes)
        } else {
            (0, 0, 0)
        };
        let dropped_entries = l
            .dropped
            .iter()
            .take(quote)
            .map(|d| DroppedEntry {
                line: d.line,
                text: self.file_line(d.line).unwrap_or(l.dropped_text(d)).to_string(),
            })
            .collect();
        let loaded_lines = match (
            l.processed.origin.first(),
            l.kept_lines.checked_sub(1).and_then(|i| l.processed.origin.get(i)),
        ) {
            (Some(&first), Some(&last)) => Some((first, last)),
            _ => None,
        };
        TruncationReport {
            label: String::new(),
            path: self
                .path
                .as_ref()
                .map_or_else(|| "-".to_string(), |p| p.to_string_lossy().into_owned()),
            exists: self.exists,
            line_count: lines,
            byte_count: units,
            utf8_bytes: bytes,
            line_truncated: l.line_truncated,
            byte_truncated: l.unit_truncated,
            // Claude Code loads nothing of a file over 4 MiB: nothing is cut.
            truncated: l.truncated() && self.status != LoadStatus::Oversize,
            warning: None,
            loaded: String::new(),
            dropped_entries,
            dropped_entries_total: self.dropped_total,
            headroom_lines: MAX_LINES as i64 - lines as i64,
            headroom_bytes: MAX_UNITS as i64 - units as i64,
            frontmatter_stripped: l.frontmatter_stripped,
            html_comments_stripped: l.html_comments_stripped,
            limits: Limits {
                lines: MAX_LINES,
                bytes: MAX_UNITS,
            },
            warn_at,
            over_threshold: self.over_threshold(warn_at),
            load_status: self.status,
            file_bytes: self.file_bytes,
            injected: None,
            cut_off_lines: match l.cut {
                Some(Cut::Lines { lines, .. }) => Some(lines),
                _ => None,
            },
            cut_starts_at_line: match l.cut {
                Some(Cut::Lines { first, .. }) => Some(first),
                _ => None,
            },
            cut_inside_line_1: l.cut.map(|c| matches!(c, Cut::InsideLine1 { .. })),
            loaded_lines,
        }
    }
}

impl TruncationReport {
    /// `truncate-check` exits 1: the index is cut, or over `--warn-at`.
    pub fn fails(&self) -> bool {
        (self.exists && self.truncated) || self.load_status == LoadStatus::Oversize || self.over_threshold
    }
}

/// The text report of SPEC §3.10.
pub fn render_text(r: &TruncationReport) -> String {
    if !r.exists {
        return format!("{}: does not exist; nothing is loaded\n", r.label);
    }
    let pct = to_fixed1(100.0 * r.byte_count as f64 / MAX_UNITS as f64);
    let mut s = format!(
        "{}: {}, {} / {} units ({pct}%), {}\n",
        r.label,
        count(r.line_count as i64, "line"),
        g(r.byte_count),
        g(MAX_UNITS),
        count(r.utf8_bytes as i64, "UTF-8 byte")
    );
    if let Some(why) = nothing_loaded(r.load_status) {
        s.push_str(&format!("loaded: nothing ({why})\n"));
    } else if r.truncated {
        render_cut(r, &mut s);
    } else {
        s.push_str("truncated: no\n");
    }
    if let Some(p) = r.warn_at.filter(|_| r.over_threshold) {
        s.push_str(&format!(
            "over --warn-at {}%: {} of 200 lines, {pct}% of 25 000 units\n",
            js_number(p),
            g(r.line_count)
        ));
    }
    s.push_str(&format!(
        "headroom: {}, {}\n",
        count(r.headroom_lines, "line"),
        count(r.headroom_bytes, "unit")
    ));
    s
}

/// Why Claude Code injects nothing of an existing index, if it does not (the
/// lever of a session-level status is in the command's note).
fn nothing_loaded(status: LoadStatus) -> Option<&'static str> {
    Some(match status {
        LoadStatus::Loaded | LoadStatus::EnvContent | LoadStatus::Missing => return None,
        LoadStatus::Empty => "nothing is left after processing",
        LoadStatus::NotRegular => "not a regular file",
        LoadStatus::Oversize => "the file is over 4 MiB (4 194 304 bytes)",
        LoadStatus::Disabled => "auto memory is disabled",
        LoadStatus::RecallMode => "recall mode: Claude Code does not inject MEMORY.md",
        LoadStatus::EnvEmpty => "CLAUDE_COWORK_MEMORY_INDEX_CONTENT is empty",
    })
}

/// The lines of a truncated load: which cap, what is loaded, what is dropped, and
/// the warning Claude Code appends.
fn render_cut(r: &TruncationReport, s: &mut String) {
    let cap = match (r.line_truncated, r.byte_truncated) {
        (true, true) => "line and unit caps",
        (true, false) => "line cap",
        _ => "unit cap",
    };
    let loaded = match r.loaded_lines {
        Some((first, last)) if first == last => format!("loaded line {first}"),
        Some((first, last)) => format!("loaded lines {first}–{last}"),
        None => "no line loaded in full".to_string(),
    };
    s.push_str(&format!("truncated: yes ({cap}); {loaded}\n"));
    s.push_str(&format!("dropped entries ({}):\n", g(r.dropped_entries_total)));
    for d in r.dropped_entries.iter().take(LIST_DROPPED) {
        s.push_str(&ellipsize(&format!("  {}: {}", d.line, d.text), 78));
        s.push('\n');
    }
    if r.dropped_entries_total > LIST_DROPPED {
        s.push_str(&format!("  … and {} more\n", g(r.dropped_entries_total - LIST_DROPPED)));
    }
    s.push_str(&format!(
        "Claude Code appends:\n  {}\n",
        r.warning.as_deref().unwrap_or_default()
    ));
}

/// A count and its noun, plural unless the count is 1 or -1 (`1 line`, `0 lines`,
/// `-500 units`).
fn count(n: i64, noun: &str) -> String {
    let s = if n.abs() == 1 { "" } else { "s" };
    format!("{} {noun}{s}", group_digits(n))
}

/// A count with its digits grouped (`25 000`).
fn g(n: usize) -> String {
    group_digits(n as i64)
}

#[cfg(test)]
mod tests {
    use crate::index::check::checked;

    /// After [`Checked::keep_for_report`] a report quoting as many dropped
    /// entries is the same, word for word: an index cut by both caps (CRLF
    /// lines, a comment and frontmatter, so the processed text is not the
    /// file's), and one cut inside its first line.
    #[test]
    fn a_check_kept_for_its_report_reports_the_same() {
        let mut long = String::from("---\ntitle: x\n---\n<!-- note -->\n");
        for i in 0..400 {
            long.push_str(&format!("- [entry {i}](e{i}.md) — {}\r\n", "w".repeat(i % 90)));
        }
        let one_line = format!("{}\n- [a](a.md)\n", "x".repeat(30_000));
        for text in [long, one_line] {
            for quote in [0, 3, 150, 10_000] {
                let full = checked("MEMORY.md".into(), None, text.clone());
                let want = full.report(Some(50.0), quote);
                assert!(want.dropped_entries_total > 0);
                let mut kept = checked("MEMORY.md".into(), None, text.clone());
                kept.keep_for_report(quote);
                assert_eq!(kept.report(Some(50.0), quote), want, "quote {quote}");
                assert!(kept.load.dropped.len() <= quote);
            }
        }
    }
}
