//! What `review` compares on each side (SPEC §12): a memory's rule, its body's
//! first paragraph (up to the first blank line) plus its `**Why:**` line, and a
//! CLAUDE file's units, each line or bullet (a bullet with its indented
//! continuation lines).

/// A memory's rule.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Rule {
    /// The first paragraph's lines, then the `**Why:**` line when it is not among them.
    pub text: String,
    /// The first paragraph alone, and the `**Why:**` line (trimmed) when there is one.
    pub paragraph: String,
    pub why: Option<String>,
    /// The rule's first line (trimmed) and its 1-based line number in the file.
    pub first_line: String,
    pub line: usize,
}

impl Rule {
    /// The rule as review compares it: `None` when it says nothing (its text is
    /// blank), else the rule without `text` (only its blankness counts there):
    /// a large dir keeps one copy of each first paragraph, not two.
    pub fn compared(mut self) -> Option<Rule> {
        if self.text.trim().is_empty() {
            return None;
        }
        self.text = String::new();
        Some(self)
    }
}

/// The rule of a memory file's `text`. A leading HTML comment block and a lone
/// heading line are skipped (they are banners and titles, not the rule).
pub fn of_memory(text: &str) -> Rule {
    let body = crate::frontmatter::body(text);
    let offset = (body.as_ptr() as usize)
        .saturating_sub(text.as_ptr() as usize)
        .min(text.len());
    let first = text
        .get(..offset)
        .map_or(0, |t| t.bytes().filter(|&b| b == b'\n').count())
        + 1;
    // The lines are split as far as the rule reads them (its first paragraph);
    // the `**Why:**` line after it is looked for in the rest.
    let mut lines = Lines {
        rest: body.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l)),
        seen: Vec::new(),
    };
    let blank = |l: &str| l.trim().is_empty();
    let mut i = 0;
    let mut in_comment = false;
    loop {
        while lines.get(i).is_some_and(blank) {
            i += 1;
        }
        if let Some(l) = lines.get(i)
            && (in_comment || l.trim_start().starts_with("<!--"))
        {
            // Skip to the line closing the comment.
            in_comment = !l.contains("-->");
            i += 1;
            continue;
        }
        let lone_heading =
            lines.get(i).is_some_and(|l| l.trim_start().starts_with('#')) && lines.get(i + 1).is_none_or(blank);
        if lone_heading {
            i += 1;
            continue;
        }
        break;
    }
    let start = i;
    while lines.get(i).is_some_and(|l| !blank(l)) {
        i += 1;
    }
    // The rest of the body from line `i`, searched for the `**Why` of a line.
    let rest = lines.get(i).map_or("", |l| {
        let at = (l.as_ptr() as usize).saturating_sub(body.as_ptr() as usize);
        body.get(at..).unwrap_or_default()
    });
    let para = &lines.seen[start.min(i)..i];
    let mut text: Vec<&str> = para.iter().map(|l| l.trim_end()).collect();
    let paragraph = text.join("\n");
    let is_why = |l: &str| {
        let t = l.trim_start();
        t.starts_with("**Why:**") || t.starts_with("**Why**:")
    };
    let mut why = para.iter().find(|l| is_why(l)).map(|l| l.trim().to_string());
    if why.is_none()
        && let Some(w) = why_line(rest)
    {
        text.push(w.trim());
        why = Some(w.trim().to_string());
    }
    Rule {
        text: text.join("\n"),
        paragraph,
        why,
        first_line: para.first().map_or("", |l| l.trim()).to_string(),
        line: first + start,
    }
}

/// The first line of `text` that is a `**Why:**` (or `**Why**:`) line once its
/// leading white space is trimmed (a trailing CR removed): found by searching
/// `**Why`, not by splitting every line.
fn why_line(text: &str) -> Option<&str> {
    let mut from = 0;
    // `memmem` (SIMD) rather than `str::find`: the rest of a body is most of the file.
    while let Some(k) = text
        .get(from..)
        .and_then(|t| memchr::memmem::find(t.as_bytes(), b"**Why"))
    {
        let p = from + k;
        let start = text[..p].rfind('\n').map_or(0, |n| n + 1);
        let tail = &text[p..];
        let end = tail.find('\n').map_or(text.len(), |n| p + n);
        if text[start..p].trim_start().is_empty() && (tail.starts_with("**Why:**") || tail.starts_with("**Why**:")) {
            let line = &text[start..end];
            return Some(line.strip_suffix('\r').unwrap_or(line));
        }
        // Only a line's first text can open its `**Why:**`: on to the next
        // line (each line is looked at once, a 1 MB line of `**Why` too).
        from = end + 1;
    }
    None
}

/// A text's lines, split as far as they are read.
struct Lines<'a, I> {
    rest: I,
    seen: Vec<&'a str>,
}

impl<'a, I: Iterator<Item = &'a str>> Lines<'a, I> {
    /// Line `i` (0-based), if the text has that many.
    fn get(&mut self, i: usize) -> Option<&'a str> {
        while self.seen.len() <= i {
            self.seen.push(self.rest.next()?);
        }
        Some(self.seen[i])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_is_first_paragraph_and_why() {
        let text = "---\nname: x\ntype: feedback\n---\n\nRun `bun test`\nbefore pushing.\n\n**Why:** CI uses bun.\n**How to apply:** always.\n";
        let r = of_memory(text);
        assert_eq!(r.text, "Run `bun test`\nbefore pushing.\n**Why:** CI uses bun.");
        assert_eq!(r.first_line, "Run `bun test`");
        assert_eq!(r.line, 6);
    }

    #[test]
    fn rule_skips_banner_comment_and_lone_heading() {
        let text = "---\nname: x\n---\n<!--\nbanner\n-->\n# Title\n\nThe rule.\n";
        let r = of_memory(text);
        assert_eq!(r.text, "The rule.");
        assert_eq!(r.line, 9);
    }

    #[test]
    fn why_line_is_the_first_line_starting_with_why() {
        let lines = |t: &str| -> Option<String> {
            t.split('\n')
                .map(|l| l.strip_suffix('\r').unwrap_or(l))
                .find(|l| {
                    let t = l.trim_start();
                    t.starts_with("**Why:**") || t.starts_with("**Why**:")
                })
                .map(String::from)
        };
        for t in [
            "",
            "**Why:** a",
            "x **Why:** no\n  **Why**: yes\r\nmore",
            "**Why** no\n\u{3000}**Why:** yes\n",
            "**Why:**\r",
            "a\n\r **Why:** cr\n",
            "**Wh\n**Why:**",
            "é **Why:** no\n**Why",
            "**Why**Why:** no\n  **Why:** yes",
            "x **Why:** **Why:** no\n**Why**: yes",
        ] {
            assert_eq!(why_line(t).map(String::from), lines(t), "{t:?}");
        }
        // One 1 MB line of `**Why` (each looked at once), then the line.
        let long = format!("{}\n**Why:** end", "x**Why".repeat(170_000));
        assert_eq!(why_line(&long), Some("**Why:** end"));
    }

    #[test]
    fn rule_of_odd_text_does_not_panic() {
        for t in [
            "",
            "---",
            "---\n---",
            "\u{feff}---\r\nname: x\r\n---\r\nbody\r\n",
            "<!--",
            "#",
            "\n\n\n",
        ] {
            let _ = of_memory(t);
        }
        assert_eq!(of_memory("\u{feff}---\r\nname: x\r\n---\r\nbody\r\n").line, 4);
    }
}
