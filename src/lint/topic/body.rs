//! The rules on a topic file's body and bytes (ML115–ML125, ML133), and the
//! token finders behind ML118 and ML120 (ML121's are in `lint::secrets`).

use std::path::Path;

use crate::dates;
use crate::lint::claude_text::ClaudeText;
use crate::lint::{FileText, Finding, RuleId, Severity};
use crate::memory::{Memory, MemoryType};

use super::Whole;

/// The body rules on `m`, whose text (BOM removed) is `text`; the relative dates
/// ML116 found are returned (for `dream`'s plan, which lists them).
pub(super) fn check(
    m: &Memory,
    t: &FileText,
    text: &str,
    whole: &Whole,
    claude_md: Option<&ClaudeText>,
    out: &mut Vec<Finding>,
) -> Vec<dates::DateMatch> {
    let p = &m.path;
    let body = whole.body;
    let body_start = crate::text::count_byte(&text.as_bytes()[..text.len() - body.len()], b'\n');
    let lines = BodyLines::scan(m, body, body_start, claude_md);
    why_how(m, &lines, out);
    let dates = relative_dates(m, text, out);
    code_heavy(p, &lines, out);
    git_history(p, &lines, out);
    if let Some(line) = lines.in_claude_md {
        out.push(Finding::new(
            RuleId::ML119,
            p,
            line,
            1,
            "this line is already in CLAUDE.md",
        ));
    }
    ephemeral(p, &whole.labels, out);
    crate::lint::secrets::check(p, text, out);
    shape(p, t, text, m.is_hub(), out);
    dates
}

/// What the line rules (ML115, ML117, ML118, ML119) need of a body, gathered in
/// one pass over its lines (no line list is built).
#[derive(Debug, Default, PartialEq)]
struct BodyLines {
    /// A line starting (after indentation) with `**Why:**`, with `**How to apply:**`;
    /// looked for only in feedback and project memories.
    why: bool,
    how: bool,
    /// Non-blank lines, and those inside fenced code (ML117).
    nonblank: usize,
    code: usize,
    /// Lines citing a commit hash: how many, and the first (1-based in the file).
    commit_lines: usize,
    first_commit: usize,
    /// The first long line already in CLAUDE.md (1-based in the file).
    in_claude_md: Option<usize>,
}

impl BodyLines {
    /// One pass over the lines of `body` (which starts after `body_start` lines of
    /// the file). A commit hash needs a digit: a vectorized search finds the next
    /// digit, and lines before it are not tokenized.
    fn scan(m: &Memory, body: &str, body_start: usize, claude: Option<&ClaudeText>) -> BodyLines {
        let want_why_how = matches!(m.memory_type(), Some(MemoryType::Feedback | MemoryType::Project));
        let bytes = body.as_bytes();
        let mut s = BodyLines::default();
        let mut in_fence = false;
        let mut next_digit = first_digit(bytes, 0);
        let mut start = 0;
        let mut collapsed_buf = String::new();
        for (i, raw) in split_lf(body).enumerate() {
            let end = start + raw.len();
            let l = raw.strip_suffix('\r').unwrap_or(raw);
            let tl = l.trim_start();
            if want_why_how {
                s.why |= tl.starts_with("**Why:**");
                s.how |= tl.starts_with("**How to apply:**");
            }
            let is_fence = tl.starts_with("```") || tl.starts_with("~~~");
            // `tl` starts with a non-space char unless the line is blank.
            if !tl.is_empty() {
                s.nonblank += 1;
                if in_fence && !is_fence {
                    s.code += 1;
                }
            }
            if is_fence {
                in_fence = !in_fence;
            }
            if next_digit.is_some_and(|d| d < end) {
                if has_commit_token(l) {
                    if s.commit_lines == 0 {
                        s.first_commit = body_start + i + 1;
                    }
                    s.commit_lines += 1;
                }
                next_digit = first_digit(bytes, end);
            }
            // Forty chars need forty bytes.
            if let Some(claude) = claude
                && s.in_claude_md.is_none()
                && l.len() >= 40
                && !claude.first_window_absent(l)
            {
                let collapsed = collapse(l, &mut collapsed_buf);
                if collapsed.chars().count() >= 40 && claude.contains(collapsed) {
                    s.in_claude_md = Some(body_start + i + 1);
                }
            }
            start = end + 1;
        }
        s
    }
}

/// The pieces of `s` between its `\n`s, as `s.split('\n')` gives them, found with
/// memchr's vectorized search (the per-line cost of the split was a tenth of the
/// body rules).
fn split_lf(s: &str) -> impl Iterator<Item = &str> {
    let b = s.as_bytes();
    let mut start = 0;
    memchr::memchr_iter(b'\n', b)
        .map(Some)
        .chain(std::iter::once(None))
        .map(move |lf| {
            let end = lf.unwrap_or(b.len());
            let piece = &s[start..end];
            start = end + 1;
            piece
        })
}

/// `l` with its whitespace collapsed (`split_whitespace` joined by one space):
/// `l` itself when that changes nothing (most lines), else built in `buf`.
fn collapse<'a>(l: &'a str, buf: &'a mut String) -> &'a str {
    let b = l.as_bytes();
    // ASCII, no whitespace but single spaces between words, none at either end.
    let plain = b.first().is_some_and(|c| *c != b' ')
        && b.last().is_some_and(|c| *c != b' ')
        && b.iter()
            .all(|&c| c.is_ascii() && (c == b' ' || !(c.is_ascii_whitespace() || c == 0x0b)))
        && memchr::memmem::find(b, b"  ").is_none();
    if plain {
        return l;
    }
    buf.clear();
    for w in l.split_whitespace() {
        if !buf.is_empty() {
            buf.push(' ');
        }
        buf.push_str(w);
    }
    buf
}

/// The offset of the first ASCII digit in `b` at or after `from`, found a block
/// of 32 bytes at a time (a branch-free test the compiler vectorizes).
fn first_digit(b: &[u8], from: usize) -> Option<usize> {
    let rest = b.get(from..)?;
    let mut at = 0;
    for chunk in rest.chunks(32) {
        if chunk.iter().fold(false, |any, c| any | c.is_ascii_digit()) {
            return chunk.iter().position(u8::is_ascii_digit).map(|k| from + at + k);
        }
        at += chunk.len();
    }
    None
}

/// ML115: a feedback or project memory without **Why:** or **How to apply:**.
fn why_how(m: &Memory, lines: &BodyLines, out: &mut Vec<Finding>) {
    if matches!(m.memory_type(), Some(MemoryType::Feedback | MemoryType::Project)) {
        let missing: Vec<&str> = [(lines.why, "**Why:**"), (lines.how, "**How to apply:**")]
            .into_iter()
            .filter(|(has, _)| !has)
            .map(|(_, x)| x)
            .collect();
        if !missing.is_empty() {
            out.push(Finding::file(
                RuleId::ML115,
                &m.path,
                format!(
                    "{} memory without a {} line",
                    m.memory_type().map_or("", MemoryType::as_str),
                    missing.join(" or a ")
                ),
            ));
        }
    }
}

/// ML116: relative dates (a warning in a project memory).
fn relative_dates(m: &Memory, text: &str, out: &mut Vec<Finding>) -> Vec<dates::DateMatch> {
    let date_sev = if m.memory_type() == Some(MemoryType::Project) {
        Severity::Warning
    } else {
        Severity::Info
    };
    let found = dates::find(text);
    for d in &found {
        out.push(
            Finding::new(
                RuleId::ML116,
                &m.path,
                d.line,
                d.col,
                format!("relative date `{}`: write the absolute date", d.phrase),
            )
            .with_severity(date_sev),
        );
    }
    found
}

/// ML117: code-heavy bodies.
fn code_heavy(p: &Path, lines: &BodyLines, out: &mut Vec<Finding>) {
    let (code, nonblank) = (lines.code, lines.nonblank);
    if code >= 5 && code * 2 >= nonblank {
        out.push(Finding::file(
            RuleId::ML117,
            p,
            format!("{code} of {nonblank} body lines are code; code patterns are derivable from the code"),
        ));
    }
}

/// ML118: bodies that cite commit hashes.
fn git_history(p: &Path, lines: &BodyLines, out: &mut Vec<Finding>) {
    if lines.commit_lines >= 3 {
        out.push(Finding::new(
            RuleId::ML118,
            p,
            lines.first_commit,
            1,
            format!(
                "{} lines cite commit hashes; git history belongs to git",
                lines.commit_lines
            ),
        ));
    }
}

/// ML120: a name or description that says the memory is ephemeral.
fn ephemeral(p: &Path, labels: &[Option<String>; 2], out: &mut Vec<Finding>) {
    if let Some(w) = labels
        .iter()
        .flatten()
        .find_map(|s| has_word(s, &["wip", "in progress", "todo", "session plan", "today's", "today’s"]))
    {
        out.push(Finding::file(
            RuleId::ML120,
            p,
            format!("name or description says `{w}`: ephemeral task details do not belong in memory"),
        ));
    }
}

/// ML122–ML125 and ML133: the file's size, bytes and last line.
fn shape(p: &Path, t: &FileText, text: &str, hub: bool, out: &mut Vec<Finding>) {
    // `text` is `t.text` without the BOM: the same line breaks, counted once.
    let breaks = crate::text::count_byte(text.as_bytes(), b'\n');
    let pieces = breaks + 1 - usize::from(text.ends_with('\n'));
    // A hub of `index rebuild` is an index, not a memory recall reads (SPEC §10.1).
    if !hub && (t.size > 4096 || pieces > 200) {
        out.push(Finding::file(
            RuleId::ML122,
            p,
            format!(
                "{} bytes, {pieces} {}: relevance recall reads only 200 lines / 4096 bytes",
                t.size,
                if pieces == 1 { "line" } else { "lines" }
            ),
        ));
    }
    if let Some(at) = t.invalid_utf8_at {
        out.push(Finding::file(
            RuleId::ML123,
            p,
            format!("invalid UTF-8 at byte {at}; Claude Code reads U+FFFD there"),
        ));
    }
    if t.bom {
        out.push(Finding::file(RuleId::ML124, p, "starts with a UTF-8 BOM"));
    }
    let line_count = breaks + 1;
    if let Some((i, last)) = text
        .rsplit('\n')
        .enumerate()
        .find(|(_, l)| !l.trim().is_empty())
        .map(|(k, l)| (line_count - 1 - k, l))
        && last.trim_end() == "</content>"
    {
        out.push(Finding::new(
            RuleId::ML125,
            p,
            i + 1,
            1,
            "last line is a stray `</content>` tool artifact: delete it",
        ));
    }
    if t.has_nul {
        out.push(Finding::file(
            RuleId::ML133,
            p,
            "binary content (NUL bytes in the first 8 KiB)",
        ));
    }
}

fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Whole-word, case-insensitive search of any of `words` in `s`.
fn has_word(s: &str, words: &[&str]) -> Option<String> {
    let lower = s.to_lowercase();
    for w in words {
        let mut from = 0;
        while let Some(i) = lower[from..].find(w) {
            let start = from + i;
            let end = start + w.len();
            let before = lower[..start].chars().next_back().is_none_or(|c| !is_word(c));
            let after = lower[end..].chars().next().is_none_or(|c| !is_word(c));
            if before && after {
                return Some(s.get(start..end).unwrap_or(w).to_string());
            }
            from = end;
        }
    }
    None
}

/// A whole word of 7–40 hex chars with at least one digit and one letter.
fn has_commit_token(line: &str) -> bool {
    // Byte runs of word chars (`[A-Za-z0-9_]`); other bytes, UTF-8 included, split.
    let b = line.as_bytes();
    if !b.iter().any(u8::is_ascii_digit) {
        return false;
    }
    let mut i = 0;
    while i < b.len() {
        if !(b[i].is_ascii_alphanumeric() || b[i] == b'_') {
            i += 1;
            continue;
        }
        let start = i;
        let (mut hex, mut digit, mut letter) = (true, false, false);
        while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
            hex &= b[i].is_ascii_hexdigit();
            digit |= b[i].is_ascii_digit();
            letter |= b[i].is_ascii_alphabetic();
            i += 1;
        }
        if (7..=40).contains(&(i - start)) && hex && digit && letter {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_lf_is_split() {
        for s in ["", "\n", "a", "a\n", "\na\n\nb", "é\r\nx\n\n"] {
            assert_eq!(
                split_lf(s).collect::<Vec<_>>(),
                s.split('\n').collect::<Vec<_>>(),
                "{s:?}"
            );
        }
    }

    #[test]
    fn commit_tokens() {
        assert!(has_commit_token("fixed in a1b2c3d"));
        assert!(!has_commit_token("deadbeef is hex but has no digit"));
        assert!(!has_commit_token("1234567 has no letter"));
        assert!(!has_commit_token("xa1b2c3d4 not hex"));
    }

    /// The former per-rule passes over a collected list of body lines, the
    /// reference for [`BodyLines::scan`].
    fn scan_before(feedback: bool, body: &str, body_start: usize, claude: Option<&Vec<String>>) -> BodyLines {
        let body_lines: Vec<&str> = body.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l)).collect();
        let has = |prefix: &str| body_lines.iter().any(|l| l.trim_start().starts_with(prefix));
        let mut in_fence = false;
        let (mut code, mut nonblank) = (0, 0);
        for l in &body_lines {
            let tl = l.trim_start();
            let is_fence = tl.starts_with("```") || tl.starts_with("~~~");
            if !l.trim().is_empty() {
                nonblank += 1;
                if in_fence && !is_fence {
                    code += 1;
                }
            }
            if is_fence {
                in_fence = !in_fence;
            }
        }
        let commit: Vec<usize> = body_lines
            .iter()
            .enumerate()
            .filter(|(_, l)| has_commit_token(l))
            .map(|(i, _)| body_start + i + 1)
            .collect();
        let in_claude_md = claude.and_then(|claude| {
            body_lines.iter().enumerate().find_map(|(i, l)| {
                let collapsed = l.split_whitespace().collect::<Vec<_>>().join(" ");
                (collapsed.chars().count() >= 40 && claude.iter().any(|c| c.contains(&collapsed)))
                    .then_some(body_start + i + 1)
            })
        });
        BodyLines {
            why: feedback && has("**Why:**"),
            how: feedback && has("**How to apply:**"),
            nonblank,
            code,
            commit_lines: commit.len(),
            first_commit: commit.first().copied().unwrap_or(0),
            in_claude_md,
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 3000, failure_persistence: None, ..Default::default() })]
        /// The one pass finds what the former per-rule passes found.
        #[test]
        fn one_pass_agrees_with_the_per_rule_passes(feedback: bool, pieces in proptest::collection::vec(proptest::sample::select(vec![
            "**Why:**", "**How to apply:**", "  ", "\t", "\u{a0}", "\n", "\r\n", "```", "~~~", "code", "a1b2c3d", "deadbeef0",
            "1234567", "x", "_", "é", "word ", "this line is long enough to be in the CLAUDE.md file", "7",
        ]), 0..40)) {
            let body = pieces.concat();
            let claude = vec!["intro: this line is long enough to be in the CLAUDE.md file".to_string()];
            let index = ClaudeText::new(claude.clone());
            let rel = if feedback { "feedback_x.md" } else { "x.md" };
            let ty = if feedback { "feedback" } else { "user" };
            let m = Memory::from_text(rel, &format!("---\ntype: {ty}\n---\n"));
            proptest::prop_assert_eq!(BodyLines::scan(&m, &body, 3, Some(&index)), scan_before(feedback, &body, 3, Some(&claude)), "{:?}", body);
            proptest::prop_assert_eq!(BodyLines::scan(&m, &body, 3, None), scan_before(feedback, &body, 3, None), "{:?}", body);
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 3000, failure_persistence: None, ..Default::default() })]
        /// [`collapse`] is `split_whitespace` joined by one space.
        #[test]
        fn collapse_is_split_whitespace(pieces in proptest::collection::vec(proptest::sample::select(vec![
            " ", "  ", "\t", "\u{b}", "\u{c}", "\r", "\u{a0}", "\u{3000}", "\u{85}", "a", "word", "é", "\u{1f}", "",
        ]), 0..20)) {
            let l = pieces.concat();
            let mut buf = String::from("stale");
            proptest::prop_assert_eq!(collapse(&l, &mut buf), l.split_whitespace().collect::<Vec<_>>().join(" "));
        }
    }

    #[test]
    fn ephemeral_words() {
        assert_eq!(
            has_word("Today's Session Plan", &["session plan", "today's"]).as_deref(),
            Some("Session Plan")
        );
        assert_eq!(has_word("WIPE the disk", &["wip"]), None);
    }
}
