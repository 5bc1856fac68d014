//! The lines of an index (ML204, ML210, ML211): long entries, entries not in the
//! canonical form, and memory content that is not an entry.

use std::path::Path;

use crate::index;
use crate::lint::{Finding, RuleId, Severity};
use crate::text::is_js_space;

/// The line rules on the index `idx` (text `text`); `link_lines` are the lines
/// that hold a memory link.
pub(super) fn check(idx: &Path, text: &str, link_lines: &[usize], out: &mut Vec<Finding>) {
    let lines = index::lines(text);
    let comment = index::comment_lines(text);
    let block = frontmatter_lines(&lines);
    let mut run_start: Option<usize> = None;
    for (i, line) in lines.iter().enumerate() {
        let n = i + 1;
        if i < block {
            // Claude Code strips a leading block (ML208 reports it): not content.
            continue;
        }
        if link_lines.binary_search(&n).is_ok() {
            let len = line.chars().count();
            if len > 200 {
                out.push(
                    Finding::new(
                        RuleId::ML204,
                        idx,
                        n,
                        1,
                        format!("index line is {len} chars (guidance: under ~150; the load warning says ~200)"),
                    )
                    .with_severity(Severity::Warning),
                );
            } else if len > 150 {
                out.push(
                    Finding::new(
                        RuleId::ML204,
                        idx,
                        n,
                        1,
                        format!("index line is {len} chars (guidance: under ~150)"),
                    )
                    .with_severity(Severity::Info),
                );
            }
            if !is_canonical(line) {
                out.push(Finding::new(
                    RuleId::ML210,
                    idx,
                    n,
                    1,
                    "not in the canonical form `- [Title](file.md) — hook`",
                ));
            }
        }
        let t = line.trim();
        let structural = t.is_empty()
            || t.starts_with('#')
            || t.starts_with('>')
            || comment[i]
            || link_lines.binary_search(&n).is_ok()
            || (t.len() >= 3
                && (t.chars().all(|c| c == '-' || c == ' ')
                    || t.chars().all(|c| c == '*' || c == ' ')
                    || t.chars().all(|c| c == '_' || c == ' ')));
        match (structural, run_start) {
            (false, None) => run_start = Some(n),
            (true, Some(s)) => {
                out.push(content_run(idx, s, n - 1));
                run_start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = run_start {
        out.push(content_run(idx, s, lines.len()));
    }
}

/// How many lines a frontmatter block at the top of the index spans (opening and
/// closing delimiters included; 0 without a closed block), as Claude Code strips it.
fn frontmatter_lines(lines: &[&str]) -> usize {
    if !lines.first().is_some_and(|l| crate::frontmatter::is_opening(l)) {
        return 0;
    }
    lines
        .iter()
        .skip(1)
        .position(|l| crate::frontmatter::is_delimiter(l))
        .map_or(0, |i| i + 2)
}

fn content_run(idx: &Path, from: usize, to: usize) -> Finding {
    let what = if from == to {
        format!("line {from} is")
    } else {
        format!("lines {from}–{to} are")
    };
    Finding::new(
        RuleId::ML211,
        idx,
        from,
        1,
        format!("{what} memory content, not index entries; move it into a topic file"),
    )
}

fn is_canonical(line: &str) -> bool {
    // ^- \[(?:[^\]\\]|\\.)+\]\([^)\s]+\.md\) — \S.*$ with JavaScript \s and `.`.
    let Some(rest) = line.strip_prefix("- [") else {
        return false;
    };
    // The title ends at the first `]` not escaped by `\` (which escapes one char).
    // Both are ASCII: no byte of a multi-byte char is one, so stepping over the
    // escape and the first byte of the char it escapes skips that char.
    let b = rest.as_bytes();
    let mut i = 0;
    while i < b.len() && b[i] != b']' {
        i += if b[i] == b'\\' { 2 } else { 1 };
    }
    if i == 0 || i >= b.len() || b.get(i + 1) != Some(&b'(') {
        return false;
    }
    let after = &rest[i + 2..];
    let Some(close) = after.find(')') else { return false };
    let file = &after[..close];
    if file.len() < 4 || !file.ends_with(".md") || file.chars().any(is_js_space) {
        return false;
    }
    let Some(hook) = after[close + 1..].strip_prefix(" — ") else {
        return false;
    };
    // A line terminator is `\n`, `\r` or starts with the byte 0xE2 (U+2028, U+2029).
    let may_end = memchr::memchr3(b'\n', b'\r', 0xE2, hook.as_bytes()).is_some();
    hook.chars().next().is_some_and(|c| !is_js_space(c))
        && !(may_end && hook.chars().any(crate::text::is_js_line_terminator))
}

/// The former implementation, the reference for [`is_canonical`].
#[cfg(test)]
fn is_canonical_chars(line: &str) -> bool {
    let Some(rest) = line.strip_prefix("- [") else {
        return false;
    };
    let chars: Vec<char> = rest.chars().collect();
    let mut i = 0;
    while i < chars.len() && chars[i] != ']' {
        if chars[i] == '\\' {
            i += 1;
        }
        i += 1;
    }
    if i == 0 || i >= chars.len() || chars.get(i + 1) != Some(&'(') {
        return false;
    }
    let after: String = chars[i + 2..].iter().collect();
    let Some(close) = after.find(')') else { return false };
    let file = &after[..close];
    if file.len() < 4 || !file.ends_with(".md") || file.chars().any(is_js_space) {
        return false;
    }
    let Some(hook) = after[close + 1..].strip_prefix(" — ") else {
        return false;
    };
    hook.chars().next().is_some_and(|c| !is_js_space(c)) && !hook.chars().any(crate::text::is_js_line_terminator)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_lines() {
        assert!(is_canonical("- [Title](file.md) — hook"));
        assert!(is_canonical("- [T \\] x](sub/f.md) — h"));
        assert!(!is_canonical("- **[Title](file.md)** — hook"));
        assert!(!is_canonical("- [Title](file.md) - hook"));
        assert!(!is_canonical("- [Title](file.txt) — hook"));
        assert!(!is_canonical("- [Title](file.md) —  "));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 3000, failure_persistence: None, ..Default::default() })]
        /// The byte scan agrees with the former char-vector one on lines made of
        /// the pieces that matter (escapes, brackets, multi-byte chars, spaces).
        #[test]
        fn canonical_agrees_with_the_char_scan(pieces in proptest::collection::vec(proptest::sample::select(vec![
            "- [", "]", "[", "\\", "(", ")", "f.md", ".md", " — ", " ", "\u{a0}", "é", "—", "\u{2028}", "\r", "x", "](", "Title",
        ]), 0..12)) {
            let line = format!("- [{}", pieces.concat());
            proptest::prop_assert_eq!(is_canonical(&line), is_canonical_chars(&line), "{:?}", line);
        }
    }
}
