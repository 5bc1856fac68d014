//! Where a new index line goes (SPEC §10.2): at the end of its type's section,
//! else at the end; and for a line that comes back (`restore`), where it was, when
//! its neighbour is still there. Pure text functions.

use crate::index::edit::{append_line, line_ending};
use crate::memory::MemoryType;

/// The index with `line` inserted after its first `after` lines (0: at the top),
/// in the index's own line ending.
pub fn insert_after(index: &str, after: usize, line: &str) -> String {
    let eol = line_ending(index);
    let lines: Vec<&str> = index.split_inclusive('\n').collect();
    if after >= lines.len() {
        return append_line(index, line, eol);
    }
    let mut s = String::with_capacity(index.len() + line.len() + 2);
    for (i, l) in lines.iter().enumerate() {
        if i == after {
            s.push_str(line);
            s.push_str(eol);
        }
        s.push_str(l);
    }
    s
}

/// The index with `line` placed by §10.2 ([`crate::index::place`]) and the
/// 1-based number it got.
pub fn place_by_type(index: &str, line: &str, ty: Option<MemoryType>) -> (String, usize) {
    let p = crate::index::place::place(index, line, ty.map(MemoryType::as_str), false);
    (p.text, p.line)
}

/// The index with `line` back where it stood in `was` (an earlier index): after
/// the nearest earlier line of `was` that is still in `index`, else before the
/// nearest later one. `None` when neither neighbour is there any more.
pub fn place_where_it_was(index: &str, line: &str, was: &str, at: usize) -> Option<(String, usize)> {
    let old: Vec<&str> = was.split_inclusive('\n').map(trim_eol).collect();
    let now: Vec<&str> = index.split_inclusive('\n').map(trim_eol).collect();
    let find = |text: &str| now.iter().position(|l| *l == text);
    let upto = at.saturating_sub(1).min(old.len());
    let blank = |l: &str| l.trim().is_empty();
    if old[..upto].iter().all(|l| blank(l)) {
        // It was the first line: it is again.
        return Some((insert_after(index, 0, line), 1));
    }
    // The nearest earlier line that is still there; the blank lines that followed
    // it then are skipped again.
    for k in (0..upto).rev() {
        if blank(old[k]) {
            continue;
        }
        if let Some(i) = find(old[k]) {
            let gap = old[k + 1..upto].iter().take_while(|l| blank(l)).count();
            let skip = now[i + 1..].iter().take(gap).take_while(|l| blank(l)).count();
            let after = i + 1 + skip;
            return Some((insert_after(index, after, line), after + 1));
        }
    }
    let after = old
        .iter()
        .skip(at)
        .filter(|l| !l.trim().is_empty())
        .find_map(|l| find(l))?;
    Some((insert_after(index, after, line), after + 1))
}

fn trim_eol(l: &str) -> &str {
    l.trim_end_matches(['\n', '\r'])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_goes_to_the_end_of_its_types_section() {
        let index = "# Index\n## Feedback\n- [A](a.md) — a\n\n## User profile\n- [U](u.md) — u\n## Projects\nnotes\n";
        let (s, n) = place_by_type(index, "- [B](b.md) — b", Some(MemoryType::Feedback));
        assert_eq!(
            s,
            "# Index\n## Feedback\n- [A](a.md) — a\n- [B](b.md) — b\n\n## User profile\n- [U](u.md) — u\n## Projects\nnotes\n"
        );
        assert_eq!(n, 4);
        let (s, n) = place_by_type(index, "- [P](p.md) — p", Some(MemoryType::Project));
        assert_eq!(n, 8, "after the heading when the section links nothing");
        assert!(s.contains("## Projects\n- [P](p.md) — p\nnotes\n"));
        let (s, n) = place_by_type(index, "- [R](r.md) — r", Some(MemoryType::Reference));
        assert_eq!((s.ends_with("notes\n- [R](r.md) — r\n"), n), (true, 9));
        let (s, _) = place_by_type("- a\r\n", "- b", None);
        assert_eq!(s, "- a\r\n- b\r\n");
    }

    #[test]
    fn the_deepest_heading_wins_and_the_section_ends_at_its_level() {
        let index = "# Feedback notes\n- [X](x.md)\n### feedback\n- [A](a.md)\n#### deeper\n- [C](c.md)\n### other\n- [O](o.md)\n";
        let (_, n) = place_by_type(index, "- [B](b.md)", Some(MemoryType::Feedback));
        assert_eq!(
            n, 7,
            "after the last link of the ### feedback section, sub-sections included"
        );
    }

    #[test]
    fn a_line_comes_back_beside_its_old_neighbour() {
        let was = "# I\n- [A](a.md)\n- [B](b.md)\n- [C](c.md)\n";
        let now = "# I\n- [A](a.md)\n- [C](c.md)\n";
        assert_eq!(
            place_where_it_was(now, "- [B](b.md)", was, 3).unwrap(),
            (was.to_string(), 3)
        );
        let now = "# I\n- [C](c.md)\n";
        let was2 = "- [A](a.md)\n- [C](c.md)\n";
        assert_eq!(place_where_it_was(now, "- [A](a.md)", was2, 1).unwrap().1, 1);
        assert!(place_where_it_was("- [Z](z.md)\n", "- [B](b.md)", "- [Q](q.md)\n- [B](b.md)\n", 2).is_none());
        // The blank line after the neighbour stays before the line.
        let was = "# I\n\n- [B](b.md)\n- [C](c.md)\n";
        assert_eq!(
            place_where_it_was("# I\n\n- [C](c.md)\n", "- [B](b.md)", was, 3).unwrap(),
            (was.to_string(), 3)
        );
    }
}
