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

/// [`place`] for many lines at once, in one pass (placing them one by one copies
/// and re-parses the whole index per line: quadratic for an import of thousands).
/// Each line goes where [`place`] would put it in `index` (after the last link of
/// its type's section, after the lines placed there before it; else appended, in
/// order). Returns the text and the 1-based line number of each placed line.
pub fn place_all(index: &str, placing: &[(String, Option<String>)]) -> (String, Vec<usize>) {
    if placing.is_empty() {
        return (index.to_string(), Vec::new());
    }
    let eol = line_ending(index);
    let body = index.strip_prefix('\u{feff}').unwrap_or(index);
    let bom = &index[..index.len() - body.len()];
    let lines: Vec<&str> = body.split_inclusive('\n').collect();
    let mut spans: std::collections::HashMap<&str, Option<(usize, bool)>> = std::collections::HashMap::new();
    let mut at: std::collections::BTreeMap<usize, Vec<usize>> = std::collections::BTreeMap::new();
    let mut appended = Vec::new();
    for (k, (_, ty)) in placing.iter().enumerate() {
        let span = ty
            .as_deref()
            .and_then(|t| *spans.entry(t).or_insert_with(|| section_span(&lines, t)));
        match span {
            // Once a line was appended, it is the last link of a section that runs
            // to the end: the next lines of that section's type follow it.
            Some((_, true)) if !appended.is_empty() => appended.push(k),
            Some((e, _)) => at.entry(e).or_default().push(k),
            None => appended.push(k),
        }
    }
    let mut numbers = vec![0; placing.len()];
    let mut text = String::with_capacity(index.len() + placing.iter().map(|(l, _)| l.len() + 2).sum::<usize>());
    text.push_str(bom);
    let mut count = 0;
    let mut insert = |text: &mut String, count: &mut usize, ks: &[usize]| {
        if !text.is_empty() && text.len() > bom.len() && !text.ends_with('\n') {
            text.push_str(eol);
        }
        for &k in ks {
            text.push_str(&placing[k].0);
            text.push_str(eol);
            *count += 1;
            numbers[k] = *count;
        }
    };
    for (i, l) in lines.iter().enumerate() {
        if let Some(ks) = at.get(&i) {
            insert(&mut text, &mut count, ks);
        }
        text.push_str(l);
        count += 1;
    }
    if let Some(ks) = at.get(&lines.len()) {
        insert(&mut text, &mut count, ks);
    }
    if !appended.is_empty() {
        // As `append_line`: trailing blank lines go, then the lines follow.
        while let Some(last) = text[bom.len()..].split_inclusive('\n').next_back() {
            if !last.trim().is_empty() {
                break;
            }
            text.truncate(text.len() - last.len());
            count -= 1;
        }
        insert(&mut text, &mut count, &appended);
    }
    (text, numbers)
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
    section_span(lines, ty).map(|(at, _)| at)
}

/// The lines `[heading, end)` (0-based; a Setext heading's underline for its
/// heading) of the section for the type `ty` in `index` (SPEC §10.2), if it has one.
pub fn type_section(index: &str, ty: &str) -> Option<(usize, usize)> {
    let body = index.strip_prefix('\u{feff}').unwrap_or(index);
    let lines: Vec<&str> = body.split_inclusive('\n').collect();
    section_range(&lines, ty).map(|(start, end, _)| (start, end))
}

type Section = (usize, usize, Vec<bool>);

/// The section for `ty`: its heading's line, its end, the fence state of each
/// line. No link is parsed: an index without the section is read once.
fn section_range(lines: &[&str], ty: &str) -> Option<Section> {
    let (code, headings) = index_headings(lines);
    // (first line of the heading, level, text, its last line)
    let (start, level, _, last) = headings.iter().filter(|(_, _, t, _)| names_type(t, ty)).fold(
        None::<(usize, usize, &str, usize)>,
        |best, h| match best {
            Some(b) if b.1 >= h.1 => Some(b),
            _ => Some(*h),
        },
    )?;
    let end = headings
        .iter()
        .find(|(i, lv, _, _)| *i > start && *lv <= level)
        .map_or(lines.len(), |h| h.0);
    // A Setext heading's section starts below its underline.
    Some((last, end, code))
}

/// A heading of an index: its first line, level, text and last line ([`headings`]).
type Heading<'a> = (usize, usize, &'a str, usize);

/// The fence state of each line of an index and its headings ([`headings`]).
fn index_headings<'a>(lines: &[&'a str]) -> (Vec<bool>, Vec<Heading<'a>>) {
    let code = fenced(lines);
    // No line is a comment without a `<!--` (issue 31: at 20 000 lines the
    // comment model was most of placing a line).
    // One finder for every line (20 000 lines: building one per line was most of this).
    let open = memchr::memmem::Finder::new(b"<!--");
    let comment = if lines.iter().any(|l| open.find(l.as_bytes()).is_some()) {
        super::comment_lines(&lines.concat())
    } else {
        Vec::new()
    };
    let headings = headings(lines, &code, &comment);
    (code, headings)
}

/// The lines (0-based) among `from..to` that link a memory, as
/// [`super::extract_links`] of the whole text finds them: only those lines are
/// parsed (issue 31: an `add` parsed every link of a 20 000-line index).
fn memory_link_lines(lines: &[&str], from: usize, to: usize) -> std::collections::HashSet<usize> {
    let text = lines.concat();
    let mut spans = Vec::with_capacity(to.saturating_sub(from));
    let mut offset: usize = lines[..from.min(lines.len())].iter().map(|l| l.len()).sum();
    for (i, l) in lines.iter().enumerate().take(to).skip(from) {
        spans.push((i + 1, offset, offset + l.strip_suffix('\n').unwrap_or(l).len()));
        offset += l.len();
    }
    let mut linked = std::collections::HashSet::new();
    super::one::links_on(text.as_bytes(), &spans, |l| {
        if l.is_memory_link() {
            linked.insert(l.line - 1);
        }
    });
    linked
}

/// Whether `index` has a section for any memory type (SPEC §10.2): without one,
/// [`place_all`] appends every line whatever its type, and a caller need not
/// read the types of the lines it places (an import into a new dir: 10 000
/// frontmatters, issue 31).
pub fn has_type_sections(index: &str) -> bool {
    let body = index.strip_prefix('\u{feff}').unwrap_or(index);
    let lines: Vec<&str> = body.split_inclusive('\n').collect();
    // A type has a section when a heading names it ([`section_range`]): the
    // headings read once for the four types.
    let (_, headings) = index_headings(&lines);
    headings.iter().any(|(_, _, t, _)| {
        crate::memory::MemoryType::ALL
            .iter()
            .any(|ty| names_type(t, ty.as_str()))
    })
}

/// [`section_end`], and whether the section runs to the end of the index (a line
/// appended at the end then lands in it).
fn section_span(lines: &[&str], ty: &str) -> Option<(usize, bool)> {
    let (start, end, code) = section_range(lines, ty)?;
    let linked = memory_link_lines(lines, start + 1, end);
    let last_link = (start + 1..end).rev().find(|&i| !code[i] && linked.contains(&i));
    // After the entry's own indented lines, if it has any.
    let after = |i: usize| {
        (i + 1..end)
            .find(|&k| code[k] || !lines[k].starts_with([' ', '\t']) || lines[k].trim().is_empty())
            .unwrap_or(end)
    };
    Some((last_link.map_or(start + 1, after), end == lines.len()))
}

/// The headings of an index outside code and closed comments: (first line, level,
/// text, last line). ATX headings (`## Feedback`) and Setext ones (`Feedback`
/// underlined with `===` for level 1 or `---` for level 2, SPEC §10.2): a
/// paragraph line directly above the underline, not a list item, quote or
/// heading itself.
fn headings<'a>(lines: &[&'a str], code: &[bool], comment: &[bool]) -> Vec<(usize, usize, &'a str, usize)> {
    let outside = |i: usize| !code[i] && !comment.get(i).copied().unwrap_or(false);
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if !outside(i) {
            continue;
        }
        if let Some((lv, t)) = heading(l) {
            out.push((i, lv, t, i));
            continue;
        }
        let Some(next) = lines.get(i + 1).filter(|_| outside(i + 1)) else {
            continue;
        };
        let Some(lv) = setext_underline(next) else { continue };
        let t = l.trim_end_matches(['\n', '\r']);
        let indent = t.len() - t.trim_start_matches(' ').len();
        let text = t.trim();
        let paragraph = indent <= 3
            && !text.is_empty()
            && !text.starts_with(['-', '*', '+', '>', '<', '|'])
            && !ordered_item(text)
            && setext_underline(l).is_none();
        if paragraph {
            out.push((i, lv, text, i + 1));
        }
    }
    out
}

/// `1. x` or `1) x`: an ordered list item.
fn ordered_item(text: &str) -> bool {
    let digits = text.len() - text.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    digits > 0 && text[digits..].starts_with(['.', ')'])
}

/// `===` (level 1) or `---` (level 2): a Setext underline, up to 3 spaces of
/// indent and trailing spaces allowed.
fn setext_underline(l: &str) -> Option<usize> {
    let t = l.trim_end_matches(['\n', '\r']);
    let indent = t.len() - t.trim_start_matches(' ').len();
    let u = t.trim();
    if indent > 3 || u.is_empty() {
        return None;
    }
    if u.bytes().all(|b| b == b'=') {
        Some(1)
    } else if u.bytes().all(|b| b == b'-') {
        Some(2)
    } else {
        None
    }
}

/// The first line that is neither a heading nor blank (frontmatter-free indexes
/// start their entries there).
fn top_position(lines: &[&str]) -> Option<usize> {
    let code = fenced(lines);
    let comment = super::comment_lines(&lines.concat());
    let in_heading: std::collections::HashSet<usize> = headings(lines, &code, &comment)
        .iter()
        .flat_map(|h| h.0..=h.3)
        .collect();
    Some(
        (0..lines.len())
            .find(|&i| code[i] || (!in_heading.contains(&i) && !lines[i].trim().is_empty()))
            .unwrap_or(lines.len()),
    )
}

/// The memory files linked from lines Claude Code does not load in full.
pub fn cut_targets(index: &str) -> BTreeSet<String> {
    let load = super::load::load(index);
    dropped_links(index, &load).into_iter().map(|(t, _)| t).collect()
}

/// The links on the lines of `index` that its `load` drops, in order: each
/// link's memory file and 1-based line.
fn dropped_links(index: &str, load: &super::load::Load) -> Vec<(String, usize)> {
    let dropped: BTreeSet<usize> = load.dropped.iter().map(|d| d.line).collect();
    // Nothing cut (an index within its budget): no link to look for.
    if dropped.is_empty() {
        return Vec::new();
    }
    super::extract_links(index)
        .into_iter()
        .filter(|l| dropped.contains(&l.line))
        .filter_map(|l| l.memory_target().map(|t| (t.to_string(), l.line)))
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

/// An index entry past Claude Code's cut: the file its line links, the line's
/// 1-based number and its text (SPEC §3.14 "Budget refusals").
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct CutEntry {
    pub file: String,
    pub line: usize,
    pub text: String,
}

/// The entries of `new` past the cut that `old` loaded or did not have: what a
/// write that never refuses for the budget (`restore`, `projects merge`,
/// `import`, `sync`, `lint --fix`) pushed out or placed past the cut, one per
/// file, at its first cut line.
pub fn cut_entries(old: &str, new: &str) -> Vec<CutEntry> {
    Cuts::of(old, new, &super::load::load(new)).entries(new)
}

/// What Claude Code's cut does to an index rewritten from `old` to `new`: the
/// files `old`'s cut lines link and the links on `new`'s cut lines. A merge
/// asks it once for both [`Cuts::entries`] and the files it cuts or pushes out
/// (each index loaded and its links read once, not three times and twice:
/// an import of 10 000 entries, issue 31).
#[derive(Debug)]
pub struct Cuts {
    /// [`cut_targets`] of `old` (not read when nothing of `new` is cut).
    pub before: BTreeSet<String>,
    /// The links on `new`'s cut lines, in order: memory file and 1-based line.
    pub after: Vec<(String, usize)>,
}

impl Cuts {
    /// The cuts of `old` and of `new`, whose load is `new_load`.
    pub fn of(old: &str, new: &str, new_load: &super::load::Load) -> Cuts {
        let after = dropped_links(new, new_load);
        let before = if after.is_empty() {
            BTreeSet::new()
        } else {
            cut_targets(old)
        };
        Cuts { before, after }
    }

    /// The memory files `new`'s cut lines link.
    pub fn after_targets(&self) -> BTreeSet<&str> {
        self.after.iter().map(|(t, _)| t.as_str()).collect()
    }

    /// [`cut_entries`] of `old` and `new` (the text these cuts are of).
    pub fn entries(&self, new: &str) -> Vec<CutEntry> {
        if self.after.is_empty() {
            return Vec::new();
        }
        let lines = super::lines(new);
        let mut seen = BTreeSet::new();
        self.after
            .iter()
            .filter(|(t, _)| !self.before.contains(t) && seen.insert(t.as_str()))
            .map(|(file, line)| CutEntry {
                file: file.clone(),
                text: lines
                    .get(line - 1)
                    .map_or("", |l| l.trim_end_matches(['\n', '\r']))
                    .trim_start_matches('\u{feff}')
                    .to_string(),
                line: *line,
            })
            .collect()
    }
}

/// The warnings for [`cut_entries`]: one per entry (`MEMORY.md:203: past Claude
/// Code's cut, it does not load: - [X](x.md) — …`, the first 10, then a count),
/// and the suggestion to run `memctl index rebuild` (`rebuild`: the command as
/// the user would type it).
pub fn cut_warnings(label: &str, entries: &[CutEntry], rebuild: &str) -> Vec<String> {
    if entries.is_empty() {
        return Vec::new();
    }
    const SHOWN: usize = 10;
    let mut w: Vec<String> = entries
        .iter()
        .take(SHOWN)
        .map(|e| {
            format!(
                "{label}:{}: past Claude Code's cut, it does not load: {}",
                e.line,
                crate::text::ellipsize(&crate::text::escape_name(&e.text), 100)
            )
        })
        .collect();
    if entries.len() > SHOWN {
        w.push(format!(
            "{label}: {} more entries past Claude Code's cut (`--json` names each in cut_entries)",
            entries.len() - SHOWN
        ));
    }
    w.push(format!(
        "{} {} past Claude Code's cut in {label}: run `{rebuild}` to fit the index and keep every entry",
        entries.len(),
        if entries.len() == 1 { "entry is" } else { "entries are" }
    ));
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`place_all`] puts every line where placing them one by one would.
    #[test]
    fn placing_all_at_once_is_placing_one_by_one() {
        let indexes = [
            "",
            "- [A](a.md) — a\n",
            "\u{feff}# Memory\r\n\r\n## User\r\n- [U](u.md) — u\r\n\r\n## Feedback\r\n- [F](f.md) — f\r\n  more about f\r\n\r\n## Notes\r\nfree text\r\n",
            "## Feedback\n\n## Project notes\n- [P](p.md) — p\n\n\n",
            "no newline at the end",
            "## Users\n```\n## Feedback\n```\n- [U](u.md) — u",
            "# Memory\n\n## Notes\nfree text\n- [A](a.md) — a\n",
        ];
        let lines: Vec<(String, Option<String>)> = [
            ("feedback", "f1"),
            ("user", "u1"),
            ("project", "p1"),
            ("reference", "r1"),
            ("feedback", "f2"),
            ("", "x1"),
            ("user", "u2"),
            ("reference", "r2"),
        ]
        .iter()
        .map(|(t, n)| (format!("- [{n}]({n}.md) — {n}"), (!t.is_empty()).then(|| t.to_string())))
        .collect();
        for index in indexes {
            for n in 0..=lines.len() {
                let batch = &lines[..n];
                let mut one = index.to_string();
                let mut at = Vec::new();
                for (l, ty) in batch {
                    let p = place(&one, l, ty.as_deref(), false);
                    for a in &mut at {
                        if *a >= p.line {
                            *a += 1;
                        }
                    }
                    at.push(p.line);
                    one = p.text;
                }
                let (all, numbers) = place_all(index, batch);
                assert_eq!(all, one, "{index:?} with {n} lines");
                assert_eq!(numbers, at, "{index:?} with {n} lines");
                // Without a section for any type, the types change nothing.
                if !has_type_sections(index) {
                    let untyped: Vec<(String, Option<String>)> = batch.iter().map(|(l, _)| (l.clone(), None)).collect();
                    assert_eq!(place_all(index, &untyped), (all, numbers), "{index:?} untyped");
                }
            }
        }
        let with: Vec<bool> = indexes.iter().map(|i| has_type_sections(i)).collect();
        assert_eq!(with, [false, false, true, true, false, true, false]);
    }

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

    /// Issue 32 point 11: Setext headings are sections (SPEC §10.2).
    #[test]
    fn setext_headings_are_sections() {
        let index = "Feedback\n--------\n- [F](feedback_a.md) — f\n\nUser notes\n----------\n- [U](user_a.md) — u\n\nOther\n=====\nfree text\n";
        let p = place(index, "- [N](feedback_n.md) — n", Some("feedback"), false);
        assert_eq!(p.line, 4, "{}", p.text);
        // An empty Setext section: right below its underline.
        let p = place(
            "User\n====\n\nOther\n=====\n- [O](o.md) — o\n",
            "- [N](user_n.md) — n",
            Some("user"),
            false,
        );
        assert_eq!(
            p.text,
            "User\n====\n- [N](user_n.md) — n\n\nOther\n=====\n- [O](o.md) — o\n"
        );
        // The level-2 user section ends at the level-1 `Other`.
        let p = place(index, "- [N](user_n.md) — n", Some("user"), false);
        assert_eq!(p.line, 8, "{}", p.text);
        // A list item over `---` is no heading (a rule follows the list).
        let p = place(
            "- user things\n---\n- [A](a.md) — a\n",
            "- [N](user_n.md) — n",
            Some("user"),
            false,
        );
        assert_eq!(p.line, 4, "{}", p.text);
        // The top of a Setext-headed index is below the heading.
        let p = place("Memory\n======\n- [A](a.md) — a\n", "- [B](b.md) — b", None, true);
        assert_eq!(p.text, "Memory\n======\n- [B](b.md) — b\n- [A](a.md) — a\n");
    }

    #[test]
    fn cut_entries_name_each_entry_the_write_cut() {
        let mut old = String::new();
        for i in 0..199 {
            old.push_str(&format!("- [E{i}](e{i}.md) — e\n"));
        }
        let new = format!("- [N](n.md) — n\n  more\n{old}");
        let cut = cut_entries(&old, &new);
        assert_eq!(
            cut,
            [CutEntry {
                file: "e198.md".into(),
                line: 201,
                text: "- [E198](e198.md) — e".into()
            }]
        );
        let w = cut_warnings("MEMORY.md", &cut, "memctl index rebuild");
        assert_eq!(
            w[0],
            "MEMORY.md:201: past Claude Code's cut, it does not load: - [E198](e198.md) — e"
        );
        assert!(w[1].starts_with("1 entry is past Claude Code's cut in MEMORY.md: run `memctl index rebuild`"));
        assert!(
            cut_entries(&new, &format!("{new}- [M](m.md) — m\n"))
                .iter()
                .all(|e| e.file == "m.md")
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

    /// The section end as found when every link of the index was parsed.
    fn section_end_parsing_all(lines: &[&str], ty: &str) -> Option<usize> {
        let (start, end, code) = section_range(lines, ty)?;
        let linked: std::collections::HashSet<usize> = crate::index::extract_links(&lines.concat())
            .iter()
            .filter(|l| l.is_memory_link())
            .map(|l| l.line - 1)
            .collect();
        let last_link = (start + 1..end).rev().find(|&i| !code[i] && linked.contains(&i));
        let after = |i: usize| {
            (i + 1..end)
                .find(|&k| code[k] || !lines[k].starts_with([' ', '\t']) || lines[k].trim().is_empty())
                .unwrap_or(end)
        };
        Some(last_link.map_or(start + 1, after))
    }

    /// Only the section's lines are parsed for links: the same place as parsing
    /// all (links in comments and fences before and inside it, CRLF, a BOM).
    #[test]
    fn the_section_end_is_found_parsing_only_its_lines() {
        let index = "# Index\n<!-- open\n## User\n- [U0](u0.md)\n-->\n## User\n- [U](u.md) — u\n  more\n```\n- [F](f.md)\n```\n<!-- - [C](c.md) -->\n`[S](s.md)`\n~~~\n## Feedback\n~~~\n## Feedback\n- [A](a.md) <!-- x\n- [B](b.md)\n-->\nplain\n## Project\nnone\n";
        for text in [
            index.to_string(),
            index.replace('\n', "\r\n"),
            format!("\u{feff}{index}"),
            index.replace("-->", "- ->"),
            index.replace("```", "``"),
        ] {
            let body = text.strip_prefix('\u{feff}').unwrap_or(&text);
            let lines: Vec<&str> = body.split_inclusive('\n').collect();
            for ty in ["user", "feedback", "project", "reference"] {
                assert_eq!(
                    section_end(&lines, ty),
                    section_end_parsing_all(&lines, ty),
                    "{ty} in {text:?}"
                );
            }
        }
    }
}
