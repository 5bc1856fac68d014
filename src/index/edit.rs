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
    // The lines of `index` (each with its `\n`) but the blank ones at its end.
    let mut keep = index.len();
    while keep > 0 {
        let start = index.as_bytes()[..keep - 1]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |p| p + 1);
        if !index[start..keep].trim().is_empty() {
            break;
        }
        keep = start;
    }
    let mut s = String::with_capacity(keep + line.len() + 2 * eol.len());
    s.push_str(&index[..keep]);
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
        // Blank lines of any whitespace go; a last line without `\n` stays.
        assert_eq!(append_line("- a\n \t\r\n\u{3000}\n  ", "- b", "\n"), "- a\n- b\n");
        assert_eq!(append_line("- é", "- b", "\n"), "- é\n- b\n");
        assert_eq!(append_line("é\n\n", "- b", "\n"), "é\n- b\n");
        assert_eq!(append_line("\n \n", "- b", "\n"), "- b\n");
        assert_eq!(append_line("- a\n- c ", "- b", "\n"), "- a\n- c \n- b\n");
    }

    #[test]
    fn line_ending_follows_the_first_line() {
        assert_eq!(line_ending("- a\r\n- b\n"), "\r\n");
        assert_eq!(line_ending("- a\n- b\r\n"), "\n");
        assert_eq!(line_ending("- a\r"), "\n");
        assert_eq!(line_ending(""), "\n");
    }
}
