//! Appending promoted memories to a CLAUDE file (SPEC §12): pure, on bytes, so a
//! file's BOM, line endings and any bytes that are not UTF-8 come through as they
//! were.

/// The heading promoted memories go under.
pub const FROM_MEMORY: &str = "## From memory";

/// The bullet text of a memory: its rule, and its `**Why:**` line when it has one,
/// as the lines [`append_from_memory`] writes: `rule` (its lines joined by one
/// space: a wrapped paragraph is one line) then `why` on a line of its own.
///
/// A rule that is itself a list (a user profile: `- role`, `- stack`, …) keeps its
/// items: the first becomes the bullet, the others nested items under it (each
/// item's wrapped lines joined), rather than one line of `… - … - …`.
pub fn bullet(rule: &str, why: Option<&str>) -> String {
    let one_line = |s: &str| {
        let mut line = String::with_capacity(s.len());
        let mut push = |w: &str| {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(w);
        };
        // ASCII white space is Unicode's but for the vertical tab.
        if s.is_ascii() && !s.contains('\x0b') {
            s.split_ascii_whitespace().for_each(&mut push);
        } else {
            s.split_whitespace().for_each(&mut push);
        }
        line
    };
    let mut b = match list_items(rule) {
        Some(items) => items.iter().map(|i| one_line(i)).collect::<Vec<_>>().join("\n- "),
        None => one_line(rule),
    };
    if let Some(w) = why.map(one_line).filter(|w| !w.is_empty()) {
        b.push('\n');
        b.push_str(&w);
    }
    b
}

/// The item marker a list line starts with (`- `, `* `, `+ `, `1. `, `1) `), as its length.
fn item_marker(line: &str) -> Option<usize> {
    let t = line.trim_start();
    let lead = line.len() - t.len();
    if ["- ", "* ", "+ "].iter().any(|m| t.starts_with(m)) {
        return Some(lead + 2);
    }
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    let rest = &t[digits..];
    (digits > 0 && digits < 10 && (rest.starts_with(". ") || rest.starts_with(") "))).then_some(lead + digits + 2)
}

/// The items of a rule that is a list (its first line is an item), markers
/// stripped; `None` for prose.
fn list_items(rule: &str) -> Option<Vec<String>> {
    let mut lines = rule.lines().filter(|l| !l.trim().is_empty());
    let first = lines.next()?;
    let mut items = vec![first[item_marker(first)?..].to_string()];
    for l in lines {
        match item_marker(l) {
            Some(k) => items.push(l[k..].to_string()),
            None => {
                let last = items.last_mut()?;
                last.push(' ');
                last.push_str(l.trim());
            }
        }
    }
    Some(items)
}

/// `existing` (`None`: the file does not exist) with each of `bullets` appended
/// under the `## From memory` heading. A bullet's first line is written as
/// `- <line>`, each further non-blank line as an indented continuation (`  <line>`,
/// two spaces: it stays part of the list item in Markdown), so a memory's
/// `**Why:**` line sits under its rule.
///
/// The heading is created (at the end, after a blank line) only when the file has
/// no `## From memory` heading (outside code fences; matched case-insensitively,
/// trailing `#`s and spaces ignored); when it has one, the bullets go at the end of
/// that section: after its last non-blank line, before the next heading of level
/// 1 or 2. A bullet whose first line the section already holds as a bullet is
/// skipped (so applying twice adds nothing), as is a repeat within `bullets`.
/// A BOM and the file's line ending (`\r\n` when its first line ends so) are kept;
/// a last line without a newline gets one before anything is appended. With
/// nothing to add, the bytes come back unchanged.
pub fn append_from_memory(existing: Option<&[u8]>, bullets: &[String]) -> Vec<u8> {
    let existing = existing.unwrap_or_default();
    let (bom, body) = match existing.strip_prefix(b"\xef\xbb\xbf") {
        Some(rest) => (&existing[..3], rest),
        None => (&existing[..0], existing),
    };
    let eol: &[u8] = match body.iter().position(|b| *b == b'\n') {
        Some(i) if i > 0 && body[i - 1] == b'\r' => b"\r\n",
        _ => b"\n",
    };
    let lines = split_lines(body);
    let section = find_section(&lines);
    let mut seen: std::collections::HashSet<String> = match &section {
        Some(s) => lines[s.heading + 1..s.end]
            .iter()
            .filter_map(|l| super::statements::bullet_text(text(l).trim()).map(normalize))
            .collect(),
        None => Default::default(),
    };
    let mut block: Vec<Vec<u8>> = Vec::new();
    for b in bullets {
        let mut parts = b.lines().map(str::trim).filter(|l| !l.is_empty());
        let Some(first) = parts.next() else { continue };
        let first = super::statements::bullet_text(first).unwrap_or(first);
        let key = normalize(first);
        if key.is_empty() || !seen.insert(key) {
            continue;
        }
        block.push(format!("- {first}").into_bytes());
        for p in parts {
            block.push(format!("  {p}").into_bytes());
        }
    }
    if block.is_empty() {
        return existing.to_vec();
    }
    let mut out: Vec<Vec<u8>> = lines.iter().map(|l| l.to_vec()).collect();
    match section {
        Some(s) => {
            let last = (s.heading..s.end)
                .rev()
                .find(|&i| !text(&out[i]).trim().is_empty())
                .unwrap_or(s.heading);
            let mut insert = Vec::new();
            let prev = text(&out[last]).to_string();
            if last == s.heading || !is_list_line(&prev) {
                insert.push(Vec::new());
            }
            insert.extend(block);
            let next_blank = out.get(last + 1).is_some_and(|l| text(l).trim().is_empty());
            if last + 1 < out.len() && !next_blank {
                insert.push(Vec::new());
            }
            out.splice(last + 1..last + 1, insert);
        }
        None => {
            if out.last().is_some_and(|l| !text(l).trim().is_empty()) {
                out.push(Vec::new());
            }
            out.push(FROM_MEMORY.as_bytes().to_vec());
            out.push(Vec::new());
            out.extend(block);
        }
    }
    let mut bytes = bom.to_vec();
    for l in &out {
        bytes.extend_from_slice(l);
        bytes.extend_from_slice(eol);
    }
    bytes
}

/// The lines of `body` without their endings (`\r\n` or `\n`); a final newline
/// starts no line.
fn split_lines(body: &[u8]) -> Vec<&[u8]> {
    if body.is_empty() {
        return Vec::new();
    }
    let body = body.strip_suffix(b"\n").unwrap_or(body);
    body.split(|b| *b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
        .collect()
}

fn text(l: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(l)
}

fn normalize(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
}

/// A list item or its (indented) continuation.
fn is_list_line(l: &str) -> bool {
    l.starts_with([' ', '\t']) || super::statements::bullet_text(l.trim()).is_some()
}

struct Section {
    heading: usize,
    /// The index of the next heading of level ≤ 2, or the line count.
    end: usize,
}

/// The `## From memory` section, outside code fences.
fn find_section(lines: &[&[u8]]) -> Option<Section> {
    let mut fence: Option<(u8, usize)> = None;
    let mut heading = None;
    for (i, l) in lines.iter().enumerate() {
        let t = text(l);
        let t = t.trim();
        if let Some((ch, len)) = fence {
            let n = t.bytes().take_while(|b| *b == ch).count();
            if n >= len && t[n..].trim().is_empty() {
                fence = None;
            }
            continue;
        }
        let ch = t.bytes().next().unwrap_or(b' ');
        let n = t.bytes().take_while(|b| *b == ch).count();
        if (ch == b'`' || ch == b'~') && n >= 3 {
            fence = Some((ch, n));
            continue;
        }
        let level = heading_level(t);
        match heading {
            None if level == Some(2) && is_from_memory(t) => heading = Some(i),
            Some(h) if level.is_some_and(|l| l <= 2) => return Some(Section { heading: h, end: i }),
            _ => {}
        }
    }
    heading.map(|h| Section {
        heading: h,
        end: lines.len(),
    })
}

fn heading_level(t: &str) -> Option<usize> {
    let n = t.bytes().take_while(|b| *b == b'#').count();
    ((1..=6).contains(&n) && t[n..].chars().next().is_none_or(char::is_whitespace)).then_some(n)
}

fn is_from_memory(t: &str) -> bool {
    let title = t.trim_start_matches('#').trim().trim_end_matches('#').trim();
    title.eq_ignore_ascii_case("from memory")
}

/// `existing` with the first `old` in its line `line` (1-based, numbered as
/// [`super::lines`] numbers them) replaced by `new`, every other byte (BOM, line
/// endings, other lines) as it was; `None` when that line does not hold `old` (or
/// is not UTF-8). Applying a review `update` (SPEC §12) rewrites the older
/// statement this way.
pub fn replace_in_line(existing: &[u8], line: usize, old: &str, new: &str) -> Option<Vec<u8>> {
    if old.is_empty() || line == 0 {
        return None;
    }
    let (bom, body) = match existing.strip_prefix(b"\xef\xbb\xbf") {
        Some(rest) => (&existing[..3], rest),
        None => (&existing[..0], existing),
    };
    let mut start = 0;
    for _ in 1..line {
        start += body.get(start..)?.iter().position(|b| *b == b'\n')? + 1;
    }
    let end = body[start..]
        .iter()
        .position(|b| *b == b'\n')
        .map_or(body.len(), |i| start + i);
    let text = std::str::from_utf8(&body[start..end]).ok()?;
    let at = text.find(old)?;
    let mut out = bom.to_vec();
    out.extend_from_slice(&body[..start + at]);
    out.extend_from_slice(new.as_bytes());
    out.extend_from_slice(&body[start + at + old.len()..]);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(s: &[&str]) -> Vec<String> {
        s.iter().map(|s| s.to_string()).collect()
    }

    fn run(existing: Option<&str>, bullets: &[&str]) -> String {
        String::from_utf8(append_from_memory(existing.map(str::as_bytes), &b(bullets))).unwrap()
    }

    #[test]
    fn a_missing_file_is_created_with_the_heading() {
        assert_eq!(
            run(None, &["Run `bun test`\n**Why:** npm is not installed"]),
            "## From memory\n\n- Run `bun test`\n  **Why:** npm is not installed\n"
        );
        assert_eq!(run(Some(""), &["x"]), "## From memory\n\n- x\n");
    }

    #[test]
    fn the_heading_is_added_at_the_end_when_missing() {
        assert_eq!(
            run(Some("# Project\n\nSome text.\n"), &["a"]),
            "# Project\n\nSome text.\n\n## From memory\n\n- a\n"
        );
        // Already ends with a blank line: no second one.
        assert_eq!(run(Some("# P\n\n"), &["a"]), "# P\n\n## From memory\n\n- a\n");
    }

    #[test]
    fn bullets_go_at_the_end_of_an_existing_section() {
        let f = "# P\n\n## From memory\n\n- old\n  **Why:** because\n\n### Sub\n\n- sub\n\n## Next\n\ntext\n";
        assert_eq!(
            run(Some(f), &["new"]),
            "# P\n\n## From memory\n\n- old\n  **Why:** because\n\n### Sub\n\n- sub\n- new\n\n## Next\n\ntext\n"
        );
        // A section with only its heading, directly followed by the next one.
        assert_eq!(
            run(Some("## From memory\n## Next\n"), &["a"]),
            "## From memory\n\n- a\n\n## Next\n"
        );
        // After a paragraph, a blank line first.
        assert_eq!(
            run(Some("## From Memory\nNotes.\n"), &["a"]),
            "## From Memory\nNotes.\n\n- a\n"
        );
    }

    #[test]
    fn a_heading_in_a_code_fence_is_not_the_section() {
        let f = "```\n## From memory\n```\n";
        assert_eq!(
            run(Some(f), &["a"]),
            "```\n## From memory\n```\n\n## From memory\n\n- a\n"
        );
    }

    #[test]
    fn crlf_and_bom_are_kept() {
        let f = "\u{feff}# P\r\n\r\ntext\r\n";
        assert_eq!(
            run(Some(f), &["a\n**Why:** b"]),
            "\u{feff}# P\r\n\r\ntext\r\n\r\n## From memory\r\n\r\n- a\r\n  **Why:** b\r\n"
        );
    }

    #[test]
    fn a_missing_trailing_newline_is_added_first() {
        assert_eq!(run(Some("# P"), &["a"]), "# P\n\n## From memory\n\n- a\n");
        assert_eq!(
            run(Some("## From memory\n\n- old"), &["a"]),
            "## From memory\n\n- old\n- a\n"
        );
    }

    #[test]
    fn appending_twice_adds_nothing() {
        let once = run(None, &["Run `bun test`\n**Why:** fast", "b"]);
        let twice = append_from_memory(Some(once.as_bytes()), &b(&["Run  `bun test`", "b", "b"]));
        assert_eq!(twice, once.as_bytes());
        // A repeat within one call is written once.
        assert_eq!(run(None, &["a", "a", ""]), "## From memory\n\n- a\n");
        // Nothing to add leaves the bytes exactly (no newline added).
        assert_eq!(append_from_memory(Some(b"x"), &[]), b"x");
    }

    #[test]
    fn bytes_that_are_not_utf8_survive() {
        let f = b"caf\xe9\n";
        let out = append_from_memory(Some(f), &b(&["a"]));
        assert!(out.starts_with(b"caf\xe9\n\n## From memory\n"));
    }

    #[test]
    fn bullet_joins_a_wrapped_rule_and_adds_why() {
        assert_eq!(
            bullet("Use bun\nfor tests", Some("**Why:** speed")),
            "Use bun for tests\n**Why:** speed"
        );
        assert_eq!(bullet("Use bun", None), "Use bun");
        assert_eq!(bullet("Use bun", Some("  ")), "Use bun");
    }

    #[test]
    fn a_rule_that_is_a_list_keeps_its_items_nested() {
        let b = bullet("- Quant trader\n- Stack: Python,\n  Rust\n- 1. odd", Some("**Why:** x"));
        assert_eq!(b, "Quant trader\n- Stack: Python, Rust\n- 1. odd\n**Why:** x");
        let out = append_from_memory(None, &[b]);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "## From memory\n\n- Quant trader\n  - Stack: Python, Rust\n  - 1. odd\n  **Why:** x\n"
        );
        // Prose stays one line; a single item loses its marker (no `- - x`).
        assert_eq!(bullet("Run the tests\nwith -q", None), "Run the tests with -q");
        assert_eq!(bullet("- only one\n  wrapped", None), "only one wrapped");
        assert_eq!(bullet("10) x\n2) y", None), "x\n- y");
    }

    #[test]
    fn ascii_white_space_is_unicode_white_space_but_the_vertical_tab() {
        for b in 0u8..128 {
            let c = char::from(b);
            assert_eq!(c.is_whitespace(), c.is_ascii_whitespace() || b == 0x0b, "{b:#x}");
        }
        let odd = "a \x0b b\t\x0c c\r\n d\u{a0}e\u{2003} f";
        assert_eq!(bullet(odd, Some("  w \x1f x ")), "a b c d e f\nw \x1f x");
    }
}

#[cfg(test)]
mod replace_tests {
    use super::replace_in_line;

    #[test]
    fn replace_in_line_keeps_every_other_byte() {
        let old = b"\xef\xbb\xbf# Rules\r\n- Run tests with npm test.\r\n- Keep it \xff\r\n";
        let new = replace_in_line(old, 2, "Run tests with npm test.", "Run tests with `bun test`, not npm").unwrap();
        assert_eq!(
            new,
            b"\xef\xbb\xbf# Rules\r\n- Run tests with `bun test`, not npm\r\n- Keep it \xff\r\n".to_vec()
        );
        assert_eq!(replace_in_line(old, 1, "npm", "bun"), None);
        assert_eq!(replace_in_line(old, 9, "npm", "bun"), None);
        assert_eq!(replace_in_line(old, 3, "Keep", "x"), None, "not UTF-8");
        assert_eq!(replace_in_line(b"a", 1, "a", "b").unwrap(), b"b".to_vec());
    }
}
