//! The statements a CLAUDE file makes: its bullets and paragraphs, each as one
//! text with the line it starts on, for comparing with memories.

use super::Line;

/// One bullet (with its continuation lines) or one paragraph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Statement {
    /// The 1-based line it starts on.
    pub line: usize,
    /// The last line it spans.
    pub end_line: usize,
    /// Its text: the bullet marker dropped, lines joined by one space, trimmed.
    pub text: String,
    /// Where each continuation line starts in `text` (byte offset) and its number.
    pub breaks: Vec<(usize, usize)>,
}

impl Statement {
    /// The line the byte at `offset` of [`Statement::text`] comes from.
    pub fn line_at(&self, offset: usize) -> usize {
        self.breaks
            .iter()
            .take_while(|(at, _)| *at <= offset)
            .last()
            .map_or(self.line, |(_, line)| *line)
    }
}

/// The statements of `lines`: each bullet (`-`, `*`, `+`, `1.` or `1)`) with the
/// indented lines that continue it, and each paragraph of other lines. Skipped:
/// headings, blank lines, fenced code blocks (fences and contents), HTML comment
/// lines and table rule lines. Linear in the input.
pub fn statements(lines: &[Line]) -> Vec<Statement> {
    let mut out: Vec<Statement> = Vec::new();
    let mut open = false; // the last statement may still be continued
    let mut fence: Option<(u8, usize)> = None;
    let mut in_comment = false;
    for l in lines {
        let t = l.text.trim();
        if let Some((ch, len)) = fence {
            if fence_of(t).is_some_and(|(c, n)| c == ch && n >= len)
                && t.trim_start_matches(ch as char).trim().is_empty()
            {
                fence = None;
            }
            continue;
        }
        if in_comment {
            in_comment = !t.contains("-->");
            continue;
        }
        if let Some(f) = fence_of(t) {
            fence = Some(f);
            open = false;
            continue;
        }
        if t.starts_with("<!--") {
            in_comment = !t.contains("-->");
            open = false;
            continue;
        }
        if t.is_empty() || is_heading(t) || is_rule(t) {
            open = false;
            continue;
        }
        let indented = l.text.starts_with([' ', '\t']);
        if let Some(rest) = bullet_text(t) {
            if rest.is_empty() {
                open = false;
                continue;
            }
            out.push(Statement {
                line: l.number,
                end_line: l.number,
                text: rest.to_string(),
                breaks: Vec::new(),
            });
            open = true;
            continue;
        }
        let continues = open && out.last().is_some_and(|s| s.end_line + 1 == l.number);
        match out.last_mut() {
            // A paragraph's next line, or a bullet's indented continuation.
            Some(s) if continues && (indented || !was_bullet(lines, s.line)) => {
                s.text.push(' ');
                s.breaks.push((s.text.len(), l.number));
                s.text.push_str(t);
                s.end_line = l.number;
            }
            _ => {
                out.push(Statement {
                    line: l.number,
                    end_line: l.number,
                    text: t.to_string(),
                    breaks: Vec::new(),
                });
                open = true;
            }
        }
    }
    out
}

fn was_bullet(lines: &[Line], number: usize) -> bool {
    lines
        .get(number.wrapping_sub(1))
        .is_some_and(|l| bullet_text(l.text.trim()).is_some())
}

/// A fence opener's character and length (` ``` ` or `~~~`, three or more).
fn fence_of(t: &str) -> Option<(u8, usize)> {
    let ch = *t.as_bytes().first()?;
    if ch != b'`' && ch != b'~' {
        return None;
    }
    let n = t.bytes().take_while(|b| *b == ch).count();
    (n >= 3).then_some((ch, n))
}

fn is_heading(t: &str) -> bool {
    let hashes = t.bytes().take_while(|b| *b == b'#').count();
    (1..=6).contains(&hashes) && t[hashes..].chars().next().is_none_or(char::is_whitespace)
}

/// A thematic break or a table's rule line (`---`, `***`, `|---|:--|`).
/// Read without collecting the marks: most lines fail at their first mark.
fn is_rule(t: &str) -> bool {
    let mut marks = t.chars().filter(|c| !c.is_whitespace());
    let Some(first) = marks.next() else {
        return false;
    };
    if !matches!(first, '-' | '*' | '_' | '|' | ':') {
        return false;
    }
    // Every mark is ASCII from here on (a non-ASCII one fails each test), so the
    // marks' byte length is their count.
    let (mut n, mut same, mut table, mut dash) = (1usize, true, matches!(first, '|' | '-' | ':'), first == '-');
    for c in marks {
        n += 1;
        same &= c == first;
        table &= matches!(c, '|' | '-' | ':');
        dash |= c == '-';
        if !same && !table {
            return false;
        }
    }
    n >= 3 && ((same && matches!(first, '-' | '*' | '_')) || (dash && table))
}

/// The text after a bullet or ordered-list marker, when `t` starts with one.
pub(super) fn bullet_text(t: &str) -> Option<&str> {
    for m in ["- ", "* ", "+ "] {
        if let Some(rest) = t.strip_prefix(m) {
            return Some(rest.trim());
        }
    }
    if matches!(t, "-" | "*" | "+") {
        return Some("");
    }
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    if (1..=9).contains(&digits) {
        let rest = &t[digits..];
        if let Some(r) = rest.strip_prefix(". ").or_else(|| rest.strip_prefix(") ")) {
            return Some(r.trim());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rule test as it was: the marks collected, then each test.
    fn is_rule_collected(t: &str) -> bool {
        let marks = t.chars().filter(|c| !c.is_whitespace()).collect::<String>();
        marks.len() >= 3
            && (marks.chars().all(|c| c == '-')
                || marks.chars().all(|c| c == '*')
                || marks.chars().all(|c| c == '_')
                || (marks.contains('-') && marks.chars().all(|c| matches!(c, '|' | '-' | ':'))))
    }

    #[test]
    fn is_rule_agrees_with_collecting_the_marks() {
        let marks = ["-", "*", "_", "|", ":", " ", "a", "é", "—", "\t"];
        // Every string of up to 4 marks.
        let mut all = vec![String::new()];
        let mut last = vec![String::new()];
        for _ in 0..4 {
            last = last
                .iter()
                .flat_map(|s| marks.iter().map(move |m| format!("{s}{m}")))
                .collect();
            all.extend(last.iter().cloned());
        }
        for t in all
            .iter()
            .map(String::as_str)
            .chain(["---", "| --- | :-: |", "* * *", "__ _", "|||", "::-"])
        {
            assert_eq!(is_rule(t), is_rule_collected(t), "{t:?}");
        }
    }
}
