//! The three frontmatter rewrites of `lint --fix` (SPEC §3.9.4, §3.13), as pure
//! functions of a file's text: each keeps every byte of user text and is kept only
//! when the result parses to the same fields (plus the top-level `type` ML109 adds).

use crate::frontmatter::{self, Fields, Frontmatter, Status, TypeSource};
use crate::memory::MemoryType;
use crate::yaml::Value;

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

/// ML109 (SPEC §3.13): a top-level `type: <metadata.type>` line right after the
/// top-level `description:` value (a block scalar or continuation lines included),
/// else just before the closing `---` (after the last top-level key), with the line
/// ending of the line before it. `metadata.type` stays. Kept only when the parse of
/// Claude Code's 30-line window gives the fields it gave plus that top-level type;
/// else the reason it cannot be done mechanically.
pub fn add_top_level_type(text: &str) -> Result<String, &'static str> {
    let before = windowed(text);
    let (Some(0), Some(close)) = (before.open_line, before.close_line) else {
        return Err("no frontmatter block on line 1");
    };
    if !before.status.has_fields() {
        return Err("the frontmatter does not parse");
    }
    let fields = Fields::from(&before);
    if fields.type_source != TypeSource::Nested {
        return Err("the type is not only under `metadata:`");
    }
    let Some(ty) = MemoryType::of(fields.type_raw.as_ref()) else {
        return Err("`metadata.type` is not one of user, feedback, project, reference; fix it by hand");
    };
    if before.map.as_ref().and_then(|m| m.get("type")).is_some() {
        return Err("the top-level `type:` key is there with no value; write the type there by hand");
    }
    // `raw[i]` is the file's line `i` with its line ending (a BOM stays in line 0).
    let raw: Vec<&str> = text.split_inclusive('\n').collect();
    if raw.len() <= close {
        return Err("no frontmatter block on line 1");
    }
    let content = |i: usize| {
        let l = raw[i].strip_suffix('\n').unwrap_or(raw[i]);
        l.strip_suffix('\r').unwrap_or(l)
    };
    // Where the line may go (0-based index of the line it goes before), best first.
    let mut spots = Vec::new();
    if let Some(d) = (1..close).find(|&i| is_key_line(content(i), "description")) {
        // The value runs on over indented and blank lines; the line goes after its
        // last indented line, or (a block scalar keeping its blank lines) after those.
        let mut last_text = d;
        let mut last = d;
        for i in d + 1..close {
            let c = content(i);
            if c.trim().is_empty() {
                last = i;
            } else if c.starts_with([' ', '\t']) {
                last = i;
                last_text = i;
            } else {
                break;
            }
        }
        spots.push(last_text + 1);
        spots.push(last + 1);
    }
    spots.push(close);
    spots.dedup();
    let line = format!("type: {}", frontmatter::render_scalar(ty.as_str()));
    spots
        .into_iter()
        .map(|at| {
            let eol = if raw[at - 1].ends_with("\r\n") { "\r\n" } else { "\n" };
            format!("{}{line}{eol}{}", raw[..at].concat(), raw[at..].concat())
        })
        .find(|out| same_fields_plus_type(&before, &windowed(out), ty))
        .ok_or("the new line would change other fields or push the block past Claude Code's 30-line window; fix it by hand")
}

/// The frontmatter as Claude Code's scan reads it: from the first 30 lines.
fn windowed(text: &str) -> Frontmatter {
    let lines: Vec<&str> = frontmatter::scan_lines(text)
        .into_iter()
        .take(frontmatter::FRONTMATTER_MAX_LINES)
        .collect();
    frontmatter::parse_lines(&lines)
}

/// `key:` at column 0 (the key plain or quoted), then a space, a tab or the end.
fn is_key_line(line: &str, key: &str) -> bool {
    [key.to_string(), format!("\"{key}\""), format!("'{key}'")]
        .iter()
        .filter_map(|k| line.strip_prefix(k.as_str()))
        .map(|r| r.trim_start_matches([' ', '\t']))
        .filter_map(|r| r.strip_prefix(':'))
        .any(|r| r.is_empty() || r.starts_with([' ', '\t']))
}

/// `after` parses as `before` did, with a top-level `type` of `ty` added.
fn same_fields_plus_type(before: &Frontmatter, after: &Frontmatter, ty: MemoryType) -> bool {
    let status_ok = after.status == before.status || after.status == Status::Ok;
    let Some(Value::Map(entries)) = &after.map else {
        return false;
    };
    let rest: Vec<(String, Value)> = entries.iter().filter(|(k, _)| k != "type").cloned().collect();
    let fields = Fields::from(after);
    status_ok
        && after.status.has_fields()
        && after.duplicate_keys == before.duplicate_keys
        && entries.iter().filter(|(k, _)| k == "type").count() == 1
        && after.get("type") == Some(&Value::String(ty.as_str().into()))
        && before.map.as_ref() == Some(&Value::Map(rest))
        && fields.type_source == TypeSource::Flat
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

    const NESTED: &str = "metadata:\n  type: feedback\n  originSessionId: abc\n";

    #[test]
    fn ml109_goes_after_the_description_line() {
        let text = format!("---\nname: n\ndescription: \"d\"\n{NESTED}---\nbody\n");
        assert_eq!(
            add_top_level_type(&text).unwrap(),
            format!("---\nname: n\ndescription: \"d\"\ntype: feedback\n{NESTED}---\nbody\n")
        );
    }

    #[test]
    fn ml109_keeps_crlf_and_a_bom() {
        let text = "\u{feff}---\r\ndescription: d\r\nmetadata:\r\n  type: user\r\n---\r\nbody\r\n";
        assert_eq!(
            add_top_level_type(text).unwrap(),
            "\u{feff}---\r\ndescription: d\r\ntype: user\r\nmetadata:\r\n  type: user\r\n---\r\nbody\r\n"
        );
    }

    #[test]
    fn ml109_goes_after_a_value_of_several_lines() {
        for value in [
            "description: |\n  one\n\n  two\n",
            "description: >-\n  folded\n  text\n",
            "description: plain\n  continued\n",
            "description: \"quoted\n  continued\"\n",
        ] {
            let text = format!("---\n{value}{NESTED}---\n");
            assert_eq!(
                add_top_level_type(&text).unwrap(),
                format!("---\n{value}type: feedback\n{NESTED}---\n"),
                "{value:?}"
            );
        }
        // A kept block scalar owns its trailing blank lines: the line goes after them.
        let text = format!("---\ndescription: |+\n  kept\n\n{NESTED}---\n");
        assert_eq!(
            add_top_level_type(&text).unwrap(),
            format!("---\ndescription: |+\n  kept\n\ntype: feedback\n{NESTED}---\n")
        );
    }

    #[test]
    fn ml109_without_a_description_goes_after_the_last_key() {
        let text = format!("---\nname: n\n{NESTED}---\n");
        assert_eq!(
            add_top_level_type(&text).unwrap(),
            format!("---\nname: n\n{NESTED}type: feedback\n---\n")
        );
    }

    #[test]
    fn ml109_refuses_what_it_cannot_do_mechanically() {
        // Not one of the four types: ML108's business, not ML109's.
        assert!(add_top_level_type("---\ndescription: d\nmetadata:\n  type: preference\n---\n").is_err());
        // A top-level `type:` with no value: a second key would be a duplicate.
        assert!(add_top_level_type(&format!("---\ndescription: d\ntype:\n{NESTED}---\n")).is_err());
        // Already flat.
        assert!(add_top_level_type("---\ndescription: d\ntype: user\n---\n").is_err());
        // A flow mapping has no line to add to.
        assert!(add_top_level_type("---\n{description: d, metadata: {type: user}}\n---\n").is_err());
        // The closing line on line 30: one more line would hide the whole block.
        let filler = "# c\n".repeat(24);
        let text = format!("---\ndescription: d\n{filler}metadata:\n  type: user\n---\n");
        assert_eq!(text.lines().count(), 29);
        assert!(
            add_top_level_type(&format!(
                "---\ndescription: d\n# c\n{filler}metadata:\n  type: user\n---\n"
            ))
            .is_err()
        );
        assert!(add_top_level_type(&text).is_ok());
    }
}
