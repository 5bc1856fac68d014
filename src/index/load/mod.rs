//! What Claude Code loads from `MEMORY.md` (SPEC §2.7): frontmatter stripped,
//! block-level HTML comments removed (§2.7.2), then trimmed and truncated at
//! 200 lines or 25 000 UTF-16 units (§2.7.1). Every line of the processed text keeps
//! the number of the line it came from in the file, so dropped entries are reported
//! by file line.
//!
//! This module holds the result types and the pipeline ([`load`]); the steps live
//! in their own modules: [`comments`] strips the comment blocks (deciding where a
//! block can start with the CommonMark context of [`blocks`]), [`truncate`] is the
//! cut of §2.7.1 on the whole text, and [`stream`] models the same load of a large
//! index read piece by piece.

mod blocks;
pub mod clean;
mod comments;
mod stream;
pub(crate) mod truncate;

pub use stream::{Streamed, load_stream};

use serde::Serialize;

use crate::text::{count_byte, is_js_space};

/// `MAX_ENTRYPOINT_LINES`.
pub const MAX_LINES: usize = 200;
/// `MAX_ENTRYPOINT_BYTES`: compared with the length in UTF-16 units.
pub const MAX_UNITS: usize = 25_000;

/// Text whose lines (LF-split) each remember their 1-based line in the file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mapped {
    pub text: String,
    /// `origin[k]` is the file line of line `k` of `text`.
    pub origin: Vec<usize>,
}

impl Mapped {
    pub(super) fn from_lines(lines: Vec<(String, usize)>) -> Mapped {
        let origin = lines.iter().map(|(_, o)| *o).collect();
        let text = lines.into_iter().map(|(l, _)| l).collect::<Vec<_>>().join("\n");
        Mapped { text, origin }
    }

    pub(super) fn lines(&self) -> Vec<(String, usize)> {
        self.text
            .split('\n')
            .map(str::to_string)
            .zip(self.origin.iter().copied())
            .collect()
    }
}

/// The result of modelling one load.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Load {
    /// Lines of the trimmed text (an empty text counts as 1).
    pub line_count: usize,
    /// UTF-16 units of the trimmed text.
    pub unit_count: usize,
    /// UTF-8 bytes of the trimmed text.
    pub utf8_bytes: usize,
    pub line_truncated: bool,
    pub unit_truncated: bool,
    /// The appended warning line (without its two leading LFs), if truncated.
    pub warning: Option<String>,
    /// Why it is truncated (`203 lines (limit: 200)` …), if it is.
    pub reason: Option<String>,
    /// §2.7.1's result (content plus warning), before the clean-up of §2.7.3; a
    /// lone high surrogate left by the cut is shown as U+FFFD.
    pub loaded: String,
    /// Exactly the text the model reads after the `Contents of …:` header: the
    /// result cleaned (§2.7.3) and trimmed. Empty when nothing is injected.
    pub injected: String,
    /// Claude Code's own figures in the warning (§2.7.1 step 8).
    pub cut: Option<Cut>,
    /// Units of the kept content (before the warning).
    pub kept_units: usize,
    /// The number of kept lines, counting a partly kept line.
    pub kept_lines: usize,
    /// Non-blank processed lines not loaded in full.
    pub dropped: Vec<Dropped>,
    pub frontmatter_stripped: bool,
    pub html_comments_stripped: bool,
    /// The trimmed text with its line mapping (lint and dream reuse it).
    #[serde(skip)]
    pub processed: Mapped,
}

/// Where the cut fell, as Claude Code's warning says it (§2.7.1 step 8).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Cut {
    /// On a line break: `lines` of the processed lines were cut off, starting at
    /// processed line `first` (1-based).
    Lines { lines: usize, first: usize },
    /// Inside line 1, after its first `units` units.
    InsideLine1 { units: usize },
}

/// A line Claude Code does not load in full.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Dropped {
    /// 1-based line in the file.
    pub line: usize,
    /// 0-based line of the processed (trimmed) text: ≥ 200 means cut by the line cap.
    pub index: usize,
    /// Where the processed line is in `Load::processed.text` (see [`Load::dropped_text`]).
    #[serde(skip)]
    pub span: std::ops::Range<usize>,
}

impl Load {
    pub fn truncated(&self) -> bool {
        self.line_truncated || self.unit_truncated
    }

    /// The processed text of a dropped line.
    pub fn dropped_text(&self, d: &Dropped) -> &str {
        self.processed.text.get(d.span.clone()).unwrap_or_default()
    }
}

/// Model Claude Code's load of an index whose content is `text` (already decoded).
pub fn load(text: &str) -> Load {
    let (body, start_line, frontmatter_stripped) = strip_frontmatter(text);
    load_body(body.to_string(), start_line, frontmatter_stripped)
}

/// [`load`] on a text the caller gives up: its body becomes the processed text
/// without a copy of the whole.
pub fn load_owned(mut text: String) -> Load {
    let (body, start_line, frontmatter_stripped) = strip_frontmatter(&text);
    // The body is a suffix of the text.
    let skip = text.len() - body.len();
    text.drain(..skip);
    load_body(text, start_line, frontmatter_stripped)
}

/// The load of a text Claude Code takes from `CLAUDE_COWORK_MEMORY_INDEX_CONTENT`:
/// no frontmatter or comment stripping (§2.7 step 0), only the cut and clean-up.
pub fn load_override(text: &str) -> Load {
    let n = count_byte(text.as_bytes(), b'\n') + 1;
    truncate::truncate(
        trim(Mapped {
            text: text.to_string(),
            origin: (1..=n).collect(),
        }),
        false,
        false,
    )
}

fn load_body(body: String, start_line: usize, frontmatter_stripped: bool) -> Load {
    // Line k of the body is file line start_line + k: no per-line copies.
    let n = count_byte(body.as_bytes(), b'\n') + 1;
    let mut mapped = Mapped {
        text: body,
        origin: (start_line..start_line + n).collect(),
    };
    let mut html_comments_stripped = false;
    if mapped.text.contains("<!--") {
        // Only when a block is removed or rewritten does the text change (line
        // endings included, §2.7.2 rule 2).
        let (stripped, changed) = comments::strip_comments(&comments::normalize_line_endings(&mapped));
        if changed {
            mapped = stripped;
            html_comments_stripped = true;
        }
    }
    truncate::truncate(trim(mapped), frontmatter_stripped, html_comments_stripped)
}

/// The file lines (ascending) of the index `bytes` that Claude Code loads in full:
/// the processed lines kept by the cut, less a line the unit cap cuts in the
/// middle (its link may be lost). The streamed model keeps only the head of a
/// large index; what it declines (not UTF-8, comments, frontmatter), the
/// whole-text model of the text decoded lossily does.
pub fn loaded_lines(bytes: &[u8]) -> Vec<usize> {
    let l = match stream::load_stream_lines(&mut &bytes[..]) {
        Ok(Some(s)) => s.load,
        _ => load(&String::from_utf8_lossy(bytes)),
    };
    kept_lines(&l).collect()
}

/// What [`loaded_lines`] keeps of a load: the processed lines kept by the cut,
/// less the one the unit cap cuts in the middle.
pub fn kept_lines(l: &Load) -> impl Iterator<Item = usize> + '_ {
    let kept = l.kept_lines.min(l.processed.origin.len());
    // `dropped` is in line order: only its head can be a partly kept line.
    let partly: Vec<usize> = l
        .dropped
        .iter()
        .take_while(|d| d.index < kept)
        .map(|d| d.line)
        .collect();
    l.processed.origin[..kept]
        .iter()
        .copied()
        .filter(move |line| !partly.contains(line))
}

/// §2.4.2 on the index (§2.7 step 2): the content after a frontmatter block,
/// the file line it starts on, and whether a block was found. The block ends at
/// the first `---` anywhere after the opening line; without a block the text is
/// kept whole, a leading BOM included (the trim of step 4 removes it).
pub(crate) fn strip_frontmatter(text: &str) -> (&str, usize, bool) {
    let Some(body) = frontmatter_body(text) else {
        return (text, 1, false);
    };
    let start_line = 1 + count_byte(&text.as_bytes()[..text.len() - body.len()], b'\n');
    (body, start_line, true)
}

/// The content after the frontmatter block of `text`, if it has one (§2.4.2).
fn frontmatter_body(text: &str) -> Option<&str> {
    let s = text.strip_prefix('\u{feff}').unwrap_or(text);
    let after_open = s.strip_prefix("---")?;
    // The opening: `---`, then only whitespace up to and including a line break.
    let ws = after_open.len() - after_open.trim_start_matches(is_js_space).len();
    let lf = after_open[..ws].rfind('\n')?;
    let yaml = &after_open[lf + 1..];
    let close = yaml.find("---")?;
    Some(yaml[close + 3..].trim_start_matches(is_js_space))
}

/// Whether the text could open a frontmatter block (a stream leaves it to the
/// whole-text model).
pub(super) fn may_open_frontmatter(first_line: &str) -> bool {
    first_line
        .strip_prefix('\u{feff}')
        .unwrap_or(first_line)
        .starts_with("---")
}

/// Only Claude Code's whitespace; most lines are decided by their first byte.
pub(super) fn is_js_blank(l: &str) -> bool {
    match l.as_bytes().first() {
        None => true,
        Some(b) if b.is_ascii_graphic() => false,
        _ => l.chars().all(is_js_space),
    }
}

/// A line without its LF and one CR before it.
pub(super) fn strip_cr(l: &str) -> &str {
    let l = l.strip_suffix('\n').unwrap_or(l);
    l.strip_suffix('\r').unwrap_or(l)
}

/// Claude Code's `trim` on mapped text: leading lines that vanish are dropped.
fn trim(mut m: Mapped) -> Mapped {
    let start = m.text.len() - m.text.trim_start_matches(is_js_space).len();
    let end = m.text.trim_end_matches(is_js_space).len().max(start);
    // Lines wholly inside the trimmed head and tail lose their origins; only the
    // ends of the text are counted (`origin` has one entry per line).
    let skipped = count_byte(&m.text.as_bytes()[..start], b'\n');
    let cut_tail = count_byte(&m.text.as_bytes()[end..], b'\n');
    m.text.truncate(end);
    m.text.drain(..start);
    let n = m.origin.len().saturating_sub(skipped + cut_tail);
    m.origin.drain(..skipped.min(m.origin.len()));
    m.origin.truncate(n);
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by the property tests: a tab-indented list continuation holding a
    /// multi-byte char was sliced by columns as if they were bytes.
    #[test]
    fn tab_indented_list_continuation_with_multibyte_text() {
        let l = load("- item\n\té text\n<!-- note -->\nafter\n");
        assert_eq!(l.processed.text, "- item\n\té text\nafter");
        assert_eq!(l.processed.origin, vec![1, 2, 4]);
    }

    #[test]
    fn owned_and_borrowed_loads_agree() {
        for t in [
            "",
            "\u{feff}---\nname: x\n---\n\n- [A](a.md)\n",
            "---\nx\n---",
            "\n a <!-- b -->\n- [A](a.md)\n",
        ] {
            let (a, b) = (load(t), load_owned(t.to_string()));
            assert_eq!(
                (a.processed.text, a.processed.origin),
                (b.processed.text, b.processed.origin)
            );
            assert_eq!(
                (a.loaded, a.line_count, a.frontmatter_stripped),
                (b.loaded, b.line_count, b.frontmatter_stripped)
            );
        }
    }

    /// The stream without the cut's texts keeps the lines the full stream keeps.
    #[test]
    fn the_kept_lines_need_no_texts() {
        let many: String = (0..300).map(|i| format!("- [M{i}](m{i}.md) — hook {i}\n")).collect();
        let wide: String = (0..150)
            .map(|i| format!("- [W{i}](w{i}.md) {}\n", "é".repeat(200)))
            .collect();
        for text in [
            many.clone(),
            format!("\n\n  {many}\n\n"),
            format!("\u{feff}{wide}"),
            format!("{}\n{many}", "x".repeat(30_000)),
            many.replace('\n', "\r\n"),
            "😀".repeat(13_000) + "\nb\n",
        ] {
            let full = load_stream(&mut text.as_bytes(), 1).unwrap().unwrap();
            let lines = stream::load_stream_lines(&mut text.as_bytes()).unwrap().unwrap();
            assert_eq!(
                kept_lines(&full.load).collect::<Vec<_>>(),
                kept_lines(&lines.load).collect::<Vec<_>>()
            );
            assert_eq!(full.load.processed, lines.load.processed);
            assert_eq!(full.load.dropped, lines.load.dropped);
            assert_eq!(
                loaded_lines(text.as_bytes()),
                kept_lines(&full.load).collect::<Vec<_>>()
            );
        }
    }

    #[test]
    fn trim_and_counts() {
        let l = load("\n\n  hello\nworld  \n\n");
        assert_eq!(l.loaded, "hello\nworld");
        assert_eq!((l.line_count, l.unit_count), (2, 11));
        assert!(!l.truncated());
        assert_eq!(l.processed.origin, vec![3, 4]);
        let e = load("");
        assert_eq!((e.line_count, e.unit_count, e.loaded.as_str()), (1, 0, ""));
    }

    #[test]
    fn bom_and_frontmatter_are_stripped() {
        let l = load("\u{feff}---\nname: x\n---\n\n- [A](a.md) — a\n");
        assert!(l.frontmatter_stripped);
        assert_eq!(l.loaded, "- [A](a.md) — a");
        assert_eq!(l.processed.origin, vec![5]);
        assert_eq!(load("\u{feff}hello").loaded, "hello");
    }

    #[test]
    fn frontmatter_ends_at_the_first_dashes_anywhere() {
        let l = load("---\ndescription: a---b\n---\n- [A](a.md) — a");
        assert_eq!(l.loaded, "b\n---\n- [A](a.md) — a");
        assert_eq!(l.processed.origin, vec![2, 3, 4]);
        let l = load("---\n- [A](a.md) — a\n- [B](b.md) — b --- c\n- [C](c.md) — c");
        assert_eq!((l.loaded.as_str(), l.line_count), ("c\n- [C](c.md) — c", 2));
        // No block: the BOM stays, so a comment after it is no comment block.
        let l = load("\u{feff}<!-- c -->\n- [A](a.md)\n");
        assert_eq!(l.injected, "<!-- c -->\n- [A](a.md)");
        assert!(!l.frontmatter_stripped && !l.html_comments_stripped);
        assert_eq!(load("--- x\nname: y\n---\nz").loaded, "--- x\nname: y\n---\nz");
        assert_eq!(load("---\nname: y\n--- trailing\nz").loaded, "trailing\nz");
    }

    #[test]
    fn comments_change_nothing_unless_a_block_goes() {
        let l = load("x\r\na <!-- inline --> b\r\n");
        assert_eq!((l.unit_count, l.html_comments_stripped), (22, false));
        let l = load("- [A](a.md) — a\n<details>\n<!-- c -->\n</details>\n");
        assert_eq!((l.unit_count, l.html_comments_stripped), (47, false));
    }

    #[test]
    fn comment_stripping_keeps_file_line_numbers() {
        let l = load("# T\n<!-- a\nb -->\n\n- [A](a.md) — a\n<!-- c --> tail\nz\r\n");
        assert_eq!(l.processed.text, "# T\n- [A](a.md) — a\n tail\nz");
        assert_eq!(l.processed.origin, vec![1, 5, 6, 7]);
        assert!(l.html_comments_stripped);
    }
}
