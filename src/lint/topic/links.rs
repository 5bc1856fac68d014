//! ML134: a link in a topic file to a memory file that does not exist. Links in
//! code spans, fenced code and closed HTML comments are already left out by
//! [`index::extract_links`]; links on the lines of an indented code block are
//! left out here.

use std::collections::HashMap;
use std::path::Path;

use crate::index::{self, Link, Target};
use crate::lint::{Finding, RuleId};
use crate::memory::Memory;

/// ML134 on the memory `m`, whose text is `text` and whose links are `links`.
pub fn dangling(m: &Memory, text: &str, links: &[Link], out: &mut Vec<Finding>) {
    if links.is_empty() {
        return;
    }
    let Some(root) = memory_root(&m.path, &m.rel) else {
        return;
    };
    let base = m.rel.rsplit_once('/').map_or("", |(d, _)| d);
    let code = indented_code_lines(text);
    let mut exists: HashMap<String, bool> = HashMap::new();
    for l in links {
        if !l.is_memory_link() || code.get(l.line - 1).copied().unwrap_or(false) {
            continue;
        }
        let Some(Target::Inside(p)) = index::resolve_dest(&l.dest, base) else {
            continue;
        };
        let found = *exists
            .entry(p.clone())
            .or_insert_with(|| std::fs::symlink_metadata(root.join(&p)).is_ok());
        if !found {
            out.push(Finding::new(
                RuleId::ML134,
                &m.path,
                l.line,
                l.col,
                format!("link target {p} does not exist in the memory dir"),
            ));
        }
    }
}

/// The memory dir: `path` with the components of `rel` (`/`-separated) removed.
fn memory_root<'a>(path: &'a Path, rel: &str) -> Option<&'a Path> {
    let mut root = path;
    for _ in rel.split('/') {
        root = root.parent()?;
    }
    Some(root)
}

/// Indentation width of a line (a tab advances to the next multiple of 4) and the
/// rest of the line.
fn indent(line: &str) -> (usize, &str) {
    let mut w = 0;
    for (i, b) in line.bytes().enumerate() {
        match b {
            b' ' => w += 1,
            b'\t' => w += 4 - w % 4,
            _ => return (w, &line[i..]),
        }
    }
    (w, "")
}

/// The width of a list marker and the spaces after it at the start of `rest`
/// (`- `, `* `, `+ `, `1. `, `1) `), if it is one.
fn list_marker(rest: &str) -> Option<usize> {
    let b = rest.as_bytes();
    let marker = match b.first()? {
        b'-' | b'*' | b'+' => 1,
        c if c.is_ascii_digit() => {
            let digits = b.iter().take(10).take_while(|c| c.is_ascii_digit()).count();
            if digits > 9 || !matches!(b.get(digits), Some(b'.' | b')')) {
                return None;
            }
            digits + 1
        }
        _ => return None,
    };
    match b.get(marker) {
        None => Some(marker + 1),
        Some(b' ' | b'\t') => {
            let spaces = b[marker..].iter().take(5).take_while(|c| **c == b' ').count();
            // Five or more spaces: the content is indented code, one space counts.
            Some(marker + if (1..=4).contains(&spaces) { spaces } else { 1 })
        }
        _ => None,
    }
}

/// Which lines (0-based, of the text split on LF with the BOM removed) belong to
/// an indented code block: indented 4 columns past the enclosing list item's
/// content (or the margin), after a blank line or at the start, and the lines that
/// continue it. Linear; blank lines are never code (they hold no link).
fn indented_code_lines(text: &str) -> Vec<bool> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut out = Vec::new();
    let mut prev_blank = true;
    let mut in_code = false;
    let mut list_content: Option<usize> = None;
    for raw in text.split('\n') {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        if line.trim().is_empty() {
            out.push(false);
            prev_blank = true;
            continue;
        }
        let (w, rest) = indent(line);
        let base = list_content.unwrap_or(0);
        if w >= base + 4 && (in_code || prev_blank) {
            in_code = true;
            out.push(true);
            prev_blank = false;
            continue;
        }
        in_code = false;
        if w < base && prev_blank {
            list_content = None;
        }
        if w < 4
            && let Some(n) = list_marker(rest)
        {
            list_content = Some(w + n);
        }
        out.push(false);
        prev_blank = false;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indented_code_needs_a_blank_line_and_four_columns_past_the_list() {
        let code = |t: &str| indented_code_lines(t).iter().map(|b| u8::from(*b)).collect::<Vec<_>>();
        assert_eq!(
            code("para\n    not code\n\n    code\n\tcode\nback\n"),
            [0, 0, 0, 1, 1, 0, 0]
        );
        assert_eq!(
            code("- item\n\n    para of the item\n\n      code\n"),
            [0, 0, 0, 0, 1, 0]
        );
        assert_eq!(code("    code at the start\n"), [1, 0]);
        assert_eq!(code("1. one\n\n   x\n\nend\n\n    code\n"), [0, 0, 0, 0, 0, 0, 1, 0]);
    }

    #[test]
    fn the_root_is_the_path_without_the_relative_path() {
        assert_eq!(memory_root(Path::new("/m/a/b.md"), "a/b.md"), Some(Path::new("/m")));
        assert_eq!(memory_root(Path::new("/m/b.md"), "b.md"), Some(Path::new("/m")));
    }
}
