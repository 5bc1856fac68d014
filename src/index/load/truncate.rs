//! §2.7.1 on the whole processed text: the counts, the cut at 200 lines or at the
//! last line break within 25 000 UTF-16 units, the appended warning, and the lines
//! not loaded in full. [`super::stream`] reuses the cut on the head it keeps.

use super::clean::clean;
use super::{Cut, Dropped, Load, MAX_LINES, MAX_UNITS, Mapped, is_js_blank};
use crate::text::{count_byte, format_file_size, is_js_space, js_trim, utf16_len};

impl Load {
    /// A load of `line_count` lines and `unit_count` units, not yet cut.
    pub(super) fn counted(
        line_count: usize,
        unit_count: usize,
        utf8_bytes: usize,
        frontmatter_stripped: bool,
        html_comments_stripped: bool,
    ) -> Load {
        Load {
            line_count,
            unit_count,
            utf8_bytes,
            line_truncated: line_count > MAX_LINES,
            unit_truncated: unit_count > MAX_UNITS,
            warning: None,
            reason: None,
            loaded: String::new(),
            injected: String::new(),
            cut: None,
            kept_units: unit_count,
            kept_lines: line_count,
            dropped: Vec::new(),
            frontmatter_stripped,
            html_comments_stripped,
            processed: Mapped::default(),
        }
    }

    /// The loaded text of a load that is not cut.
    pub(super) fn whole(&mut self, text: &str) {
        self.loaded = text.to_string();
        self.injected = js_trim(&clean(text)).to_string();
    }

    /// The loaded text, warning and reason of a truncated load that keeps `kept`.
    /// `next`: the processed line after the kept text when the cut fell on a line
    /// break, `None` when it fell inside line 1.
    pub(super) fn cut(&mut self, kept: &str, lone_high: bool, next: Option<&str>) {
        let reason = match (self.line_truncated, self.unit_truncated) {
            (false, _) => format!(
                "{} (limit: {}) — index entries are too long",
                format_file_size(self.unit_count),
                format_file_size(MAX_UNITS)
            ),
            (true, false) => format!("{} lines (limit: {MAX_LINES})", self.line_count),
            (true, true) => format!("{} lines and {}", self.line_count, format_file_size(self.unit_count)),
        };
        self.kept_units = utf16_len(kept) + usize::from(lone_high);
        let (cut, detail) = match next {
            Some(line) => {
                let kept_lines = count_byte(kept.as_bytes(), b'\n') + 1;
                let lines = self.line_count - kept_lines;
                let first = kept_lines + 1;
                let quoted = js_trim(line);
                let quote = if quoted.is_empty() {
                    String::new()
                } else {
                    format!(" (\"{}\")", shorten(quoted, 80))
                };
                (
                    Cut::Lines { lines, first },
                    format!(
                        "{lines} of {} lines were cut off, starting at line {first}{quote}",
                        self.line_count
                    ),
                )
            }
            None => (
                Cut::InsideLine1 { units: self.kept_units },
                format!(
                    "everything after the first {} characters of line 1 was cut off",
                    self.kept_units
                ),
            ),
        };
        let warning = warning_line(&reason, &detail);
        self.loaded = format!("{kept}{}\n\n{warning}", if lone_high { "\u{fffd}" } else { "" });
        // The lone surrogate is removed by the clean-up.
        self.injected = js_trim(&clean(&format!("{kept}\n\n{warning}"))).to_string();
        self.cut = Some(cut);
        self.warning = Some(warning);
        self.reason = Some(reason);
    }
}

/// The line Claude Code 2.1.332 appends to a cut index (without its two leading
/// LFs): `reason` says which cap, `detail` what was cut (§2.7.1 steps 7–9).
pub fn warning_line(reason: &str, detail: &str) -> String {
    format!(
        "> WARNING: MEMORY.md is {reason}. Only part of it was loaded: {detail}. Keep index entries to one line under ~200 chars; move detail into topic files."
    )
}

/// Claude Code's `shorten(s, n)` (§2.7.1 step 8): `s` when at most `n` units,
/// else its first `n − 1` units (an astral char that does not fit is dropped),
/// cut back before its last whitespace when more than `n / 2` units remain
/// there, trailing whitespace removed, and `…` appended.
pub fn shorten(s: &str, n: usize) -> String {
    if utf16_len(s) <= n {
        return s.to_string();
    }
    let mut units = 0;
    let mut end = 0;
    for (i, c) in s.char_indices() {
        units += c.len_utf16();
        if units > n - 1 {
            break;
        }
        end = i + c.len_utf8();
    }
    let mut head = &s[..end];
    if let Some((i, _)) = head.char_indices().rev().find(|(_, c)| is_js_space(*c))
        && utf16_len(&head[..i]) > n / 2
    {
        head = &head[..i];
    }
    format!("{}…", head.trim_end_matches(is_js_space))
}

/// The processed lines (`lines`, with their file lines `origin`) not loaded in
/// full when the first `kept_len` bytes are kept, and how many are loaded in full.
/// A line is loaded in full when it ends inside the kept prefix.
pub(super) fn dropped_lines<'a>(
    lines: impl Iterator<Item = &'a str>,
    origin: &[usize],
    kept_len: usize,
) -> (Vec<Dropped>, usize) {
    let mut dropped = Vec::new();
    let mut offset = 0;
    let mut fully_kept = 0;
    for (i, l) in lines.enumerate() {
        let end = offset + l.len();
        if end <= kept_len {
            fully_kept = i + 1;
        } else if !is_js_blank(l) {
            dropped.push(Dropped {
                line: origin[i],
                index: i,
                span: offset..end,
            });
        }
        offset = end + 1;
    }
    (dropped, fully_kept)
}

/// §2.7.1 on trimmed text.
pub(super) fn truncate(t: Mapped, frontmatter_stripped: bool, html_comments_stripped: bool) -> Load {
    let line_count = count_byte(t.text.as_bytes(), b'\n') + 1;
    let mut load = Load::counted(
        line_count,
        utf16_len(&t.text),
        t.text.len(),
        frontmatter_stripped,
        html_comments_stripped,
    );
    if !load.truncated() {
        load.whole(&t.text);
        load.processed = t;
        return load;
    }
    // The first 200 lines, joined by their LFs: a prefix of the text.
    let k = if load.line_truncated {
        let end = t
            .text
            .match_indices('\n')
            .nth(MAX_LINES - 1)
            .map_or(t.text.len(), |(i, _)| i);
        &t.text[..end]
    } else {
        &t.text
    };
    let (kept, lone_high) = cut_units(k);
    let (dropped, fully_kept) = dropped_lines(t.text.split('\n'), &t.origin, kept.len());
    load.dropped = dropped;
    load.kept_lines = fully_kept;
    let next = next_line(&t.text, kept.len());
    load.cut(kept, lone_high, next);
    load.processed = t;
    load
}

/// The line after a kept prefix of `kept_len` bytes, when an LF follows it.
pub(super) fn next_line(text: &str, kept_len: usize) -> Option<&str> {
    let rest = text.get(kept_len..)?.strip_prefix('\n')?;
    Some(rest.split('\n').next().unwrap_or(rest))
}

/// Cut `k` at the last LF at a unit position ≤ 25 000, or at 25 000 units. Returns
/// the kept text and whether the cut split a surrogate pair (a lone high surrogate
/// that Claude Code keeps).
pub(super) fn cut_units(k: &str) -> (&str, bool) {
    if utf16_len(k) <= MAX_UNITS {
        return (k, false);
    }
    let mut units = 0;
    let mut last_lf = None;
    for (i, c) in k.char_indices() {
        if units > MAX_UNITS {
            break;
        }
        if c == '\n' {
            last_lf = Some((i, units));
        }
        units += c.len_utf16();
    }
    if let Some((i, pos)) = last_lf
        && pos > 0
    {
        return (&k[..i], false);
    }
    let mut units = 0;
    for (i, c) in k.char_indices() {
        let w = c.len_utf16();
        if units + w > MAX_UNITS {
            return (&k[..i], units < MAX_UNITS);
        }
        units += w;
    }
    (k, false)
}

#[cfg(test)]
mod tests {
    use super::super::{Dropped, load};

    const TAIL: &str = ". Keep index entries to one line under ~200 chars; move detail into topic files.";

    #[test]
    fn line_cap_matches_appendix_a6() {
        let text: String = (1..=250).map(|n| format!("- [T{n}](t{n}.md) — hook {n}\n")).collect();
        let l = load(&text);
        assert_eq!(l.unit_count, 6925);
        assert!(l.line_truncated && !l.unit_truncated);
        let kept: Vec<String> = (1..=200).map(|n| format!("- [T{n}](t{n}.md) — hook {n}")).collect();
        assert_eq!(
            l.loaded,
            format!(
                "{}\n\n> WARNING: MEMORY.md is 250 lines (limit: 200). Only part of it was loaded: 50 of 250 lines were cut off, starting at line 201 (\"- [T201](t201.md) — hook 201\"){TAIL}",
                kept.join("\n")
            )
        );
        assert_eq!(l.dropped.len(), 50);
        assert_eq!(
            (l.dropped[0].line, l.dropped_text(&l.dropped[0])),
            (201, "- [T201](t201.md) — hook 201")
        );
        assert_eq!(l.kept_lines, 200);
    }

    #[test]
    fn exactly_200_lines_then_blank_lines_are_not_cut() {
        let text = format!("{}\n\n\n", vec!["x"; 200].join("\n"));
        let l = load(&text);
        assert_eq!(l.line_count, 200);
        assert!(!l.truncated());
        assert_eq!(l.warning, None);
        assert_eq!(l.loaded, vec!["x"; 200].join("\n"));
        assert_eq!(load(&vec!["x"; 201].join("\n")).line_count, 201);
        assert!(load(&vec!["x"; 201].join("\n")).line_truncated);
        assert!(!load(&vec!["x"; 199].join("\n")).truncated());
    }

    #[test]
    fn unit_cap_cuts_at_the_last_line_break() {
        let text = vec!["x".repeat(2999); 10].join("\n");
        let l = load(&text);
        assert_eq!(l.unit_count, 29_999);
        assert_eq!(l.kept_units, 23_999);
        assert_eq!(
            l.warning.as_deref(),
            Some(&*format!(
                "> WARNING: MEMORY.md is 29.3KB (limit: 24.4KB) — index entries are too long. Only part of it was loaded: 2 of 10 lines were cut off, starting at line 9 (\"{}…\"){TAIL}",
                "x".repeat(79)
            ))
        );
        assert_eq!(l.kept_lines, 8);
        assert_eq!(l.dropped.iter().map(|d| d.line).collect::<Vec<_>>(), vec![9, 10]);
    }

    #[test]
    fn both_caps() {
        let text: String = (0..300)
            .map(|n| format!("{n}{}", "x".repeat(203)))
            .collect::<Vec<_>>()
            .join("\n");
        let l = load(&text);
        assert_eq!(l.unit_count, 61_989);
        assert_eq!(l.kept_lines, 121);
        assert_eq!(l.kept_units, 24_936);
        assert_eq!(
            l.warning.as_deref(),
            Some(&*format!(
                "> WARNING: MEMORY.md is 300 lines and 60.5KB. Only part of it was loaded: 179 of 300 lines were cut off, starting at line 122 (\"121{}…\"){TAIL}",
                "x".repeat(76)
            ))
        );
    }

    #[test]
    fn one_long_line_keeps_the_first_25000_units() {
        let l = load(&"y".repeat(30_000));
        assert_eq!(l.kept_units, 25_000);
        assert!(
            l.loaded
                .starts_with(&format!("{}\n\n> WARNING: MEMORY.md is 29.3KB", "y".repeat(25_000)))
        );
        assert_eq!(
            l.dropped,
            vec![Dropped {
                line: 1,
                index: 0,
                span: 0..30_000
            }]
        );
        assert_eq!(l.dropped_text(&l.dropped[0]), "y".repeat(30_000));
        let l = load(&format!("a\n{}", "b".repeat(30_000)));
        assert!(l.loaded.starts_with("a\n\n> WARNING: MEMORY.md is 29.3KB"));
        assert_eq!(l.dropped.len(), 1);
    }

    #[test]
    fn crlf_is_kept_and_counted_without_comments() {
        let text: String = (0..201).map(|n| format!("l{n}")).collect::<Vec<_>>().join("\r\n");
        let l = load(&text);
        assert_eq!(
            l.warning.as_deref(),
            Some(&*format!(
                "> WARNING: MEMORY.md is 201 lines (limit: 200). Only part of it was loaded: 1 of 201 lines were cut off, starting at line 201 (\"l200\"){TAIL}"
            ))
        );
        assert!(l.loaded.contains("\nl199\r\n\n> WARNING"));
        assert!(!l.injected.contains('\r'));
    }

    #[test]
    fn shorten_matches_appendix_a6() {
        use super::shorten;
        assert_eq!(
            shorten(
                "- [Very long title here](very_long_file_name.md) — this hook goes on and on and on well past eighty characters",
                80
            ),
            "- [Very long title here](very_long_file_name.md) — this hook goes on and on…"
        );
        assert_eq!(shorten(&"y".repeat(100), 80), format!("{}…", "y".repeat(79)));
        assert_eq!(shorten(&"y".repeat(80), 80), "y".repeat(80));
        // An astral char that does not fit in 79 units is dropped whole.
        assert_eq!(
            shorten(&format!("{}😀😀", "a".repeat(78)), 80),
            format!("{}…", "a".repeat(78))
        );
    }

    #[test]
    fn a_cut_inside_line_1_and_the_lone_surrogate() {
        let l = load(&format!("x{}", "😀".repeat(12_600)));
        assert_eq!(
            l.warning.as_deref(),
            Some(&*format!(
                "> WARNING: MEMORY.md is 24.6KB (limit: 24.4KB) — index entries are too long. Only part of it was loaded: everything after the first 25000 characters of line 1 was cut off{TAIL}"
            ))
        );
        assert!(l.loaded.starts_with(&format!("x{}\u{fffd}\n\n", "😀".repeat(12_499))));
        assert!(l.injected.starts_with(&format!("x{}\n\n", "😀".repeat(12_499))));
        assert_eq!(l.cut, Some(super::super::Cut::InsideLine1 { units: 25_000 }));
    }

    #[test]
    fn units_not_bytes_and_strict_greater_than() {
        let l = load(&"é".repeat(20_000));
        assert_eq!((l.unit_count, l.utf8_bytes), (20_000, 40_000));
        assert!(!l.truncated());
        assert!(!load(&"x".repeat(25_000)).truncated());
        assert!(load(&"x".repeat(25_001)).unit_truncated);
    }

    #[test]
    fn newline_exactly_at_unit_25000() {
        let text = format!("{}\n{}", "a".repeat(25_000), "b".repeat(10));
        let l = load(&text);
        assert_eq!(l.kept_units, 25_000);
        assert_eq!(l.kept_lines, 1);
        assert_eq!(
            l.dropped,
            vec![Dropped {
                line: 2,
                index: 1,
                span: 25_001..25_011
            }]
        );
        assert_eq!(l.dropped_text(&l.dropped[0]), "b".repeat(10));
    }

    #[test]
    fn astral_char_cut_at_the_boundary_prints_a_replacement() {
        let text = format!("{}😀tail", "a".repeat(24_999));
        let l = load(&text);
        assert_eq!(l.kept_units, 25_000);
        assert!(
            l.loaded
                .starts_with(&format!("{}\u{fffd}\n\n> WARNING", "a".repeat(24_999)))
        );
        assert_eq!(l.dropped.len(), 1);
    }
}
