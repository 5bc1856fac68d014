//! The frontmatter rewrites of `lint --fix` (SPEC §3.9.4), as pure functions of a
//! file's text: each keeps every byte of user text and is kept only when the result
//! parses to the same fields. (2.1.332) ML109 has no fix any more.

use crate::frontmatter::{self, Fields, Status};

/// ML102: move the block to line 1; the lines before it follow the closing `---`.
pub fn move_block_to_top(text: &str) -> Option<String> {
    let lines = frontmatter::scan_lines(text);
    let fm = frontmatter::parse_lines(&lines);
    let (Some(open), Some(close)) = (fm.open_line, fm.close_line) else {
        return None;
    };
    if fm.status != Status::NotAtStart {
        return None;
    }
    let raw: Vec<&str> = text.split_inclusive('\n').collect();
    if raw.len() <= close {
        return None;
    }
    let mut block: Vec<String> = raw[open..=close].iter().map(|s| s.to_string()).collect();
    if let Some(last) = block.last_mut()
        && !last.ends_with('\n')
    {
        last.push('\n');
    }
    let mut out = block.concat();
    out.push_str(&raw[..open].concat());
    out.push_str(&raw[close + 1..].concat());
    let fixed = frontmatter::parse_lines(&frontmatter::scan_lines(&out));
    (fixed.status.has_fields() && fixed.map == fm.map).then_some(out)
}

/// ML111: the quote-retry rewrite on exactly the lines it changes, kept only when
/// the first parse of the result gives the fields the retry gave.
pub fn requote(text: &str) -> Option<String> {
    let lines = frontmatter::scan_lines(text);
    let fm = frontmatter::parse_lines(&lines);
    let (Some(0), Some(close)) = (fm.open_line, fm.close_line) else {
        return None;
    };
    if fm.status != Status::Retried || fm.limit_hit {
        return None;
    }
    let body = text.strip_prefix('\u{feff}');
    let bom = body.is_some();
    let raw: Vec<&str> = body.unwrap_or(text).split_inclusive('\n').collect();
    let mut out = String::from(if bom { "\u{feff}" } else { "" });
    for (i, r) in raw.iter().enumerate() {
        let content = r.strip_suffix('\n').unwrap_or(r);
        let (content, cr) = match content.strip_suffix('\r') {
            Some(c) => (c, "\r"),
            None => (content, ""),
        };
        let nl = if r.ends_with('\n') { "\n" } else { "" };
        match (i > 0 && i < close)
            .then(|| frontmatter::requote_line(content))
            .flatten()
        {
            Some(new) => out.push_str(&format!("{new}{cr}{nl}")),
            None => out.push_str(r),
        }
    }
    let fixed = frontmatter::parse_lines(&frontmatter::scan_lines(&out));
    (fixed.status == Status::Ok && Fields::from(&fixed) == Fields::from(&fm) && fixed.map == fm.map).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_moves_to_the_top() {
        let text = "<!-- banner -->\n---\ndescription: x\ntype: user\n---\nbody\n";
        assert_eq!(
            move_block_to_top(text).as_deref(),
            Some("---\ndescription: x\ntype: user\n---\n<!-- banner -->\nbody\n")
        );
    }

    #[test]
    fn requote_changes_only_the_bad_lines_and_keeps_crlf() {
        let text = "---\r\nname: Project Context: SS\r\ntype: project\r\n---\r\nbody\r\n";
        assert_eq!(
            requote(text).as_deref(),
            Some("---\r\nname: \"Project Context: SS\"\r\ntype: project\r\n---\r\nbody\r\n")
        );
        assert_eq!(requote("---\nname: ok\n---\n"), None);
    }
}
