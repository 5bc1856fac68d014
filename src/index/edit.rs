//! Editing an index file's lines as text: the line ending it uses, and appending an
//! entry (SPEC §3.6), for `add` and `lint --fix` (ML203).

/// The line ending of an index: CRLF when its first line ends in one.
pub fn line_ending(index: &str) -> &'static str {
    let crlf = index.split('\n').next().is_some_and(|l| l.ends_with('\r')) && index.contains('\n');
    if crlf { "\r\n" } else { "\n" }
}

/// Append `line` to an index: trailing blank lines removed, the previous line
/// terminated, the file ending in one line ending (SPEC §3.6).
pub fn append_line(index: &str, line: &str, eol: &str) -> String {
    let mut lines: Vec<&str> = index.split_inclusive('\n').collect();
    while lines.last().is_some_and(|l| l.trim().is_empty()) {
        lines.pop();
    }
    let mut s = lines.concat();
    if !s.is_empty() && !s.ends_with('\n') {
        s.push_str(eol);
    }
    s.push_str(line);
    s.push_str(eol);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn append_keeps_one_line_ending() {
        assert_eq!(append_line("# I\n- a\n\n\n", "- b", "\n"), "# I\n- a\n- b\n");
        assert_eq!(append_line("- a", "- b", "\n"), "- a\n- b\n");
        assert_eq!(append_line("", "- b", "\n"), "- b\n");
        assert_eq!(append_line("- a\r\n", "- b", "\r\n"), "- a\r\n- b\r\n");
    }

    #[test]
    fn line_ending_follows_the_first_line() {
        assert_eq!(line_ending("- a\r\n- b\n"), "\r\n");
        assert_eq!(line_ending("- a\n- b\r\n"), "\n");
        assert_eq!(line_ending("- a\r"), "\n");
        assert_eq!(line_ending(""), "\n");
    }
}
