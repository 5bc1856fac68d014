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

#[cfg(test)]
mod tests {
    use super::*;

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
