//! Where a new index line goes (SPEC §10.2): at the end of the section for its
//! type if the index has one, else at the end; and whether the index with it
//! would cut an entry Claude Code loads today.

use std::collections::BTreeSet;

use super::edit::{append_line, line_ending};

/// Where [`place`] put the line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placed {
    pub text: String,
    /// 1-based line number of the new line.
    pub line: usize,
}

/// The index `index` with `line` inserted for a memory of type `ty`: after the
/// last memory link of the section for the type (or right below its heading),
/// else appended; with `at_top`, before the first line that is not a heading or
/// blank (the top of what loads).
pub fn place(index: &str, line: &str, ty: Option<&str>, at_top: bool) -> Placed {
    let eol = line_ending(index);
    let body = index.strip_prefix('\u{feff}').unwrap_or(index);
    let bom = index.len() - body.len();
    let lines: Vec<&str> = body.split_inclusive('\n').collect();
    let at = if at_top {
        top_position(&lines)
    } else {
        ty.and_then(|t| section_end(&lines, t))
    };
    let Some(at) = at else {
        let text = append_line(index, line, eol);
        let n = super::lines(&text)
            .iter()
            .rposition(|l| l.trim_end() == line.trim_end())
            .map_or(1, |i| i + 1);
        return Placed { text, line: n };
    };
    let mut text = String::with_capacity(index.len() + line.len() + 2);
    text.push_str(&index[..bom]);
    for l in &lines[..at] {
        text.push_str(l);
    }
    if at > 0 && !lines[at - 1].ends_with('\n') {
        text.push_str(eol);
    }
    text.push_str(line);
    text.push_str(eol);
    for l in &lines[at..] {
        text.push_str(l);
    }
    Placed { text, line: at + 1 }
}

/// An ATX heading's level and text (`## Feedback` → 2, "Feedback").
fn heading(l: &str) -> Option<(usize, &str)> {
    let t = l.trim_end_matches(['\n', '\r']);
    let indent = t.len() - t.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let t = &t[indent..];
    let level = t.bytes().take_while(|b| *b == b'#').count();
    if !(1..=6).contains(&level) {
        return None;
    }
    let rest = &t[level..];
    if !rest.is_empty() && !rest.starts_with([' ', '\t']) {
        return None;
    }
    Some((level, rest.trim().trim_end_matches('#').trim()))
}

/// Whether a heading's text names the type (or its plural) as a whole word,
/// case-insensitively.
fn names_type(text: &str, ty: &str) -> bool {
    let lower = text.to_lowercase();
    let plural = format!("{ty}s");
    lower
        .split(|c: char| !c.is_alphanumeric())
        .any(|w| w == ty || w == plural)
}

/// The code-fence state of each line: `true` inside a fence (delimiters too).
fn fenced(lines: &[&str]) -> Vec<bool> {
    let mut out = Vec::with_capacity(lines.len());
    let mut open: Option<(u8, usize)> = None;
    for l in lines {
        let t = l.trim_start_matches(' ');
        let c = t.bytes().next().filter(|c| *c == b'`' || *c == b'~');
        let n = c.map_or(0, |c| t.bytes().take_while(|x| *x == c).count());
        let indent = l.len() - t.len();
        match (open, c) {
            (Some((oc, on)), Some(c)) if c == oc && n >= on && indent <= 3 => {
                out.push(true);
                open = None;
            }
            (Some(_), _) => out.push(true),
            (None, Some(c)) if n >= 3 && indent <= 3 => {
                out.push(true);
                open = Some((c, n));
            }
            (None, _) => out.push(false),
        }
    }
    out
}

/// The line index after which a line of type `ty` goes: the section of the
/// deepest, then first, heading naming the type; after its last memory link, or
/// right below the heading when it has none.
pub(crate) fn section_end(lines: &[&str], ty: &str) -> Option<usize> {
    let code = fenced(lines);
    // Headings and links inside closed HTML comments do not count, as they do not
    // for Claude Code's reader; the links come from one pass over the text.
    let text = lines.concat();
    let comment = super::comment_lines(&text);
    let linked: std::collections::HashSet<usize> = super::extract_links(&text)
        .iter()
        .filter(|l| l.is_memory_link())
        .map(|l| l.line - 1)
        .collect();
    let headings: Vec<(usize, usize, &str)> = lines
        .iter()
        .enumerate()
        .filter(|(i, _)| !code[*i] && !comment.get(*i).copied().unwrap_or(false))
        .filter_map(|(i, l)| heading(l).map(|(lv, t)| (i, lv, t)))
        .collect();
    let (start, level, _) = headings.iter().filter(|(_, _, t)| names_type(t, ty)).fold(
        None::<(usize, usize, &str)>,
        |best, h| match best {
            Some(b) if b.1 >= h.1 => Some(b),
            _ => Some(*h),
        },
    )?;
    let end = headings
        .iter()
        .find(|(i, lv, _)| *i > start && *lv <= level)
        .map_or(lines.len(), |h| h.0);
    let last_link = (start + 1..end).rev().find(|&i| !code[i] && linked.contains(&i));
    // After the entry's own indented lines, if it has any.
    let after = |i: usize| {
        (i + 1..end)
            .find(|&k| code[k] || !lines[k].starts_with([' ', '\t']) || lines[k].trim().is_empty())
            .unwrap_or(end)
    };
    Some(last_link.map_or(start + 1, after))
}

/// The first line that is neither a heading nor blank (frontmatter-free indexes
/// start their entries there).
fn top_position(lines: &[&str]) -> Option<usize> {
    let code = fenced(lines);
    Some(
        (0..lines.len())
            .find(|&i| code[i] || (heading(lines[i]).is_none() && !lines[i].trim().is_empty()))
            .unwrap_or(lines.len()),
    )
}

/// The memory files linked from lines Claude Code does not load in full.
pub fn cut_targets(index: &str) -> BTreeSet<String> {
    let load = super::load::load(index);
    let dropped: BTreeSet<usize> = load.dropped.iter().map(|d| d.line).collect();
    super::extract_links(index)
        .into_iter()
        .filter(|l| dropped.contains(&l.line))
        .filter_map(|l| l.memory_target().map(str::to_string))
        .collect()
}

/// What a new line would cost at load time: whether the new line itself is cut,
/// and the entries loaded before that the new index cuts.
pub fn newly_cut(old: &str, new: &str, file: &str) -> (bool, Vec<String>) {
    let before = cut_targets(old);
    let after = cut_targets(new);
    let own = after.contains(file);
    let pushed = after.difference(&before).filter(|t| *t != file).cloned().collect();
    (own, pushed)
}

#[cfg(test)]
mod tests {
    use super::*;

    const IDX: &str = "# Memory\n\n## User\n- [U](user_a.md) — u\n\n## Feedback and corrections\n- [F](feedback_a.md) — f\nfree text\n\n### Old feedback\n- [O](feedback_o.md) — o\n\n## Projects\n";

    #[test]
    fn goes_to_the_end_of_its_types_section() {
        let p = place(IDX, "- [N](user_n.md) — n", Some("user"), false);
        assert_eq!(p.line, 5);
        assert!(
            p.text
                .contains("- [U](user_a.md) — u\n- [N](user_n.md) — n\n\n## Feedback")
        );
        // The deepest heading naming the type wins.
        let p = place(IDX, "- [N](feedback_n.md) — n", Some("feedback"), false);
        assert_eq!(p.line, 12);
        // A plural heading with no entries yet: right below it.
        let p = place(IDX, "- [N](project_n.md) — n", Some("project"), false);
        assert_eq!(p.text, format!("{IDX}- [N](project_n.md) — n\n"));
        assert_eq!(p.line, 14);
        // No section: at the end.
        let p = place("- [A](a.md) — a\n", "- [R](r.md) — r", Some("reference"), false);
        assert_eq!((p.text.as_str(), p.line), ("- [A](a.md) — a\n- [R](r.md) — r\n", 2));
        // A line with trailing spaces (an index line as a file has it) is found again.
        let p = place("- [A](a.md) — a\n", "- [R](r.md) — r ", None, false);
        assert_eq!(p.line, 2);
    }

    #[test]
    fn a_heading_inside_a_comment_is_no_section() {
        let index = "<!--\n## User\n-->\n- [A](a.md) — a\n";
        let p = place(index, "- [B](user_b.md) — b", Some("user"), false);
        assert_eq!(p.line, 5, "{}", p.text);
    }

    #[test]
    fn whole_words_crlf_fences_and_the_top() {
        assert!(!names_type("Userland notes", "user"));
        assert!(names_type("User profile", "user"));
        let crlf = "## Users\r\n- [A](user_a.md) — a\r\n## Other\r\n";
        let p = place(crlf, "- [B](user_b.md) — b", Some("user"), false);
        assert_eq!(
            p.text,
            "## Users\r\n- [A](user_a.md) — a\r\n- [B](user_b.md) — b\r\n## Other\r\n"
        );
        let fenced = "```\n## User\n```\n- [A](a.md) — a\n";
        let p = place(fenced, "- [B](user_b.md) — b", Some("user"), false);
        assert_eq!(p.line, 5, "a heading inside code is no section");
        let p = place("# Index\n\n- [A](a.md) — a\n", "- [B](b.md) — b", None, true);
        assert_eq!(
            (p.line, p.text.as_str()),
            (3, "# Index\n\n- [B](b.md) — b\n- [A](a.md) — a\n")
        );
    }

    #[test]
    fn newly_cut_names_the_entries_a_line_pushes_out() {
        let mut old = String::new();
        for i in 0..199 {
            old.push_str(&format!("- [E{i}](e{i}.md) — e\n"));
        }
        let p = place(&old, "- [N](n.md) — n", None, false);
        assert_eq!(newly_cut(&old, &p.text, "n.md"), (false, vec![]));
        let p2 = place(&p.text, "- [M](m.md) — m", None, false);
        assert_eq!(newly_cut(&p.text, &p2.text, "m.md"), (true, vec![]));
        let top = place(&p.text, "- [M](m.md) — m", None, true);
        assert_eq!(newly_cut(&p.text, &top.text, "m.md"), (false, vec!["n.md".to_string()]));
    }
}
