//! Unified diffs of two texts, as the `--dry-run` of `lint --fix`, `add` and
//! `forget` print them (SPEC §3.9.4): `--- a/<label>`, `+++ b/<label>`, then one
//! hunk per group of changes with 3 lines of context, as `git diff` prints them.
//!
//! The line matching is the `similar` crate's (Myers, as git's default); the lines
//! are cut here, on LF only (SPEC §2.1.4: a CR is part of its line), which is also
//! what git does and why similar's own line splitter (which also ends a line at a
//! bare CR) is not used.

use std::fmt::Write as _;
use std::ops::Range;

use similar::{Algorithm, DiffOp, DiffTag};

/// Lines of context around each change, as git's default.
const CONTEXT: usize = 3;

/// The unified diff from `old` to `new`, both shown under `label` (a path relative
/// to the memory dir); empty when the texts are equal.
pub fn unified(label: &str, old: &str, new: &str) -> String {
    let a: Vec<&str> = old.split_inclusive('\n').collect();
    let b: Vec<&str> = new.split_inclusive('\n').collect();
    let ops = similar::capture_diff_slices(Algorithm::Myers, &a, &b);
    let hunks = similar::group_diff_ops(ops, CONTEXT);
    if hunks.is_empty() {
        return String::new();
    }
    let mut out = format!("--- {}\n+++ {}\n", header_name("a/", label), header_name("b/", label));
    for ops in &hunks {
        hunk(&mut out, ops, &a, &b);
    }
    out
}

/// A file name in a `---`/`+++` header: as it is, or, when it holds a control
/// character, a backslash or a `"`, C-quoted as git writes it (`"a/x\ny.md"`), so
/// the header stays one line (SPEC v3 §3.14).
fn header_name(side: &str, label: &str) -> String {
    let escaped = crate::text::escape_name(label);
    if matches!(escaped, std::borrow::Cow::Borrowed(_)) && !label.contains('"') {
        return format!("{side}{label}");
    }
    format!("\"{side}{}\"", escaped.replace('"', "\\\""))
}

/// One hunk: its `@@` header, then its lines.
/// Lines added and removed from `old` to `new` (the counts `git diff --stat` gives).
pub fn line_counts(old: &str, new: &str) -> (usize, usize) {
    let a: Vec<&str> = old.split_inclusive('\n').collect();
    let b: Vec<&str> = new.split_inclusive('\n').collect();
    let (mut added, mut removed) = (0, 0);
    for op in similar::capture_diff_slices(Algorithm::Myers, &a, &b) {
        let (_, old_range, new_range) = op.as_tag_tuple();
        match op.tag() {
            DiffTag::Equal => {}
            _ => {
                added += new_range.len();
                removed += old_range.len();
            }
        }
    }
    (added, removed)
}

fn hunk(out: &mut String, ops: &[DiffOp], a: &[&str], b: &[&str]) {
    let (Some(first), Some(last)) = (ops.first(), ops.last()) else {
        return;
    };
    let old = first.old_range().start..last.old_range().end;
    let new = first.new_range().start..last.new_range().end;
    let _ = writeln!(out, "@@ -{} +{} @@", range(old), range(new));
    for op in ops {
        let (tag, old, new) = op.as_tag_tuple();
        match tag {
            DiffTag::Equal => lines(out, ' ', &a[old]),
            DiffTag::Delete => lines(out, '-', &a[old]),
            DiffTag::Insert => lines(out, '+', &b[new]),
            DiffTag::Replace => {
                lines(out, '-', &a[old]);
                lines(out, '+', &b[new]);
            }
        }
    }
}

/// A hunk range as git writes it: `start,len`, just `start` for one line, and
/// the line before the range for an empty one (`0,0` at the top).
fn range(r: Range<usize>) -> String {
    match r.len() {
        0 => format!("{},0", r.start),
        1 => format!("{}", r.start + 1),
        n => format!("{},{n}", r.start + 1),
    }
}

fn lines(out: &mut String, mark: char, ls: &[&str]) {
    for l in ls {
        out.push(mark);
        out.push_str(l);
        if !l.ends_with('\n') {
            out.push_str("\n\\ No newline at end of file\n");
        }
    }
}

/// A unified diff (of [`unified`], one or several files) painted as `git diff`
/// paints it when `on`: the `---`/`+++` file headers bold, `@@` hunk headers cyan,
/// removed lines red, added lines green. Which lines are headers is told by the
/// hunk counts, not by the text: a removed line that reads `--- x` (a
/// frontmatter fence) is red, not a header (issue 34 point 11).
pub fn paint(on: bool, diff: &str) -> String {
    use crate::output::{Tone, paint as tone};
    if !on {
        return diff.to_string();
    }
    let mut out = String::with_capacity(diff.len() + diff.len() / 4);
    // Lines of the current hunk still to come: (old side, new side).
    let (mut old, mut new) = (0usize, 0usize);
    for line in diff.split_inclusive('\n') {
        let body = line.strip_suffix('\n').unwrap_or(line);
        let in_hunk = old > 0 || new > 0;
        let t = if in_hunk {
            match body.as_bytes().first() {
                Some(b'-') => {
                    old = old.saturating_sub(1);
                    Some(Tone::Error)
                }
                Some(b'+') => {
                    new = new.saturating_sub(1);
                    Some(Tone::Added)
                }
                Some(b'\\') => None,
                _ => {
                    old = old.saturating_sub(1);
                    new = new.saturating_sub(1);
                    None
                }
            }
        } else if let Some((a, b)) = hunk_counts(body) {
            (old, new) = (a, b);
            Some(Tone::Note)
        } else if body.starts_with("--- ") || body.starts_with("+++ ") {
            Some(Tone::Bold)
        } else {
            None
        };
        match t {
            Some(t) => {
                out.push_str(&tone(true, t, body));
                out.push_str(&line[body.len()..]);
            }
            None => out.push_str(line),
        }
    }
    out
}

/// The line counts of a hunk header `@@ -a,b +c,d @@` (a missing count is 1).
fn hunk_counts(line: &str) -> Option<(usize, usize)> {
    let rest = line.strip_prefix("@@ -")?;
    let (old, rest) = rest.split_once(" +")?;
    let (new, _) = rest.split_once(" @@")?;
    let count = |r: &str| -> Option<usize> {
        match r.split_once(',') {
            Some((_, n)) => n.parse().ok(),
            None => r.parse::<usize>().ok().map(|_| 1),
        }
    };
    Some((count(old)?, count(new)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paint_colours_by_position_not_by_text() {
        let d = unified("m.md", "---\nname: a\n---\nbody\n", "name: a\nbody\n+++ x\n");
        let p = paint(true, &d);
        let red = |s: &str| format!("\x1b[31m{s}\x1b[0m\n");
        let green = |s: &str| format!("\x1b[32m{s}\x1b[0m\n");
        let bold = |s: &str| format!("\x1b[1m{s}\x1b[0m\n");
        assert!(p.starts_with(&(bold("--- a/m.md") + &bold("+++ b/m.md"))), "{p:?}");
        assert!(p.contains(&red("----")), "a removed fence is red: {p:?}");
        assert_eq!(p.matches(&red("----")).count(), 2, "{p:?}");
        assert!(p.contains(&green("++++ x")), "an added `+++` line is green: {p:?}");
        assert!(p.contains(" name: a\n"), "context stays plain: {p:?}");
        assert_eq!(paint(false, &d), d);
        // Two files one after the other: the second file's headers are headers.
        let two = format!("{d}{}", unified("n.md", "a\n", "b\n"));
        assert!(paint(true, &two).contains(&bold("--- a/n.md")), "{two:?}");
    }

    #[test]
    fn an_appended_line_has_three_lines_of_context() {
        let d = unified("MEMORY.md", "a\nb\nc\nd\ne\n", "a\nb\nc\nd\ne\nf\n");
        assert_eq!(d, "--- a/MEMORY.md\n+++ b/MEMORY.md\n@@ -3,3 +3,4 @@\n c\n d\n e\n+f\n");
        let d = unified("x.md", "1\n2\n", "0\n1\n2\n");
        assert_eq!(d, "--- a/x.md\n+++ b/x.md\n@@ -1,2 +1,3 @@\n+0\n 1\n 2\n");
    }

    #[test]
    fn distant_changes_get_their_own_hunks() {
        let old: String = (1..=20).map(|i| format!("{i}\n")).collect();
        let new: String = (1..=20)
            .filter(|i| ![2, 18].contains(i))
            .map(|i| format!("{i}\n"))
            .collect();
        assert_eq!(
            unified("MEMORY.md", &old, &new),
            "--- a/MEMORY.md\n+++ b/MEMORY.md\n\
             @@ -1,5 +1,4 @@\n 1\n-2\n 3\n 4\n 5\n\
             @@ -15,6 +14,5 @@\n 15\n 16\n 17\n-18\n 19\n 20\n"
        );
    }

    #[test]
    fn an_unchanged_line_between_changes_is_context() {
        let d = unified("m.md", "a\nkeep\nb\n", "A\nkeep\nB\n");
        assert_eq!(d, "--- a/m.md\n+++ b/m.md\n@@ -1,3 +1,3 @@\n-a\n+A\n keep\n-b\n+B\n");
    }

    #[test]
    fn a_missing_final_line_ending_is_marked() {
        let d = unified("MEMORY.md", "- a", "- a\n- b\n");
        assert_eq!(
            d,
            "--- a/MEMORY.md\n+++ b/MEMORY.md\n@@ -1 +1,2 @@\n-- a\n\\ No newline at end of file\n+- a\n+- b\n"
        );
        assert_eq!(
            unified("x.md", "", "new\n"),
            "--- a/x.md\n+++ b/x.md\n@@ -0,0 +1 @@\n+new\n"
        );
    }

    #[test]
    fn lines_end_at_lf_only() {
        // A bare CR stays inside its line (SPEC §2.1.4).
        let d = unified("x.md", "a\rb\nc\n", "a\rb\nC\n");
        assert_eq!(d, "--- a/x.md\n+++ b/x.md\n@@ -1,2 +1,2 @@\n a\rb\n-c\n+C\n");
    }

    #[test]
    fn equal_texts_give_no_diff() {
        assert_eq!(unified("x.md", "a\n", "a\n"), "");
    }
}
