//! The index as items (SPEC §10.1): free text lines and entries, an entry being a
//! line with a memory link plus the indented lines below it; and the cut of a long
//! head line (step 4).

use std::collections::BTreeMap;

/// A line of the index: free text, or the head of an entry with the lines below it.
#[derive(Clone, Debug)]
pub(super) enum Item {
    Text(String),
    Entry(Entry),
}

#[derive(Clone, Debug)]
pub(super) struct Entry {
    /// The head line and its indented continuation lines, each with its ending.
    pub lines: Vec<String>,
    /// Memory files the head line links, in order.
    pub targets: Vec<String>,
    /// 1-based line of the head in the text it was parsed from.
    pub line: usize,
    pub pinned: bool,
    /// The head line as the index had it, when step 4 shortened it: an entry
    /// moved to a hub keeps its own wording (SPEC §3.14).
    pub unshortened: Option<String>,
}

impl Entry {
    pub fn file(&self) -> &str {
        &self.targets[0]
    }

    pub fn units(&self) -> usize {
        self.lines.iter().map(|l| units(l)).sum()
    }
}

/// UTF-16 units a line costs in the loaded text: the line (a CR counts) and its LF.
pub(super) fn units(line: &str) -> usize {
    line.strip_suffix('\n').unwrap_or(line).encode_utf16().count() + 1
}

/// The text as items: each line linking a memory starts an entry that takes the
/// indented non-blank lines below it.
pub(super) fn parse(text: &str) -> Vec<Item> {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut targets: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    for l in crate::index::extract_links(body) {
        if let Some(t) = l.memory_target() {
            let v = targets.entry(l.line).or_default();
            if !v.iter().any(|x| x == t) {
                v.push(t.to_string());
            }
        }
    }
    let mut items = Vec::new();
    for (i, line) in body.split_inclusive('\n').enumerate() {
        let n = i + 1;
        if let Some(t) = targets.remove(&n) {
            let trimmed = line.trim_end();
            items.push(Item::Entry(Entry {
                lines: vec![line.to_string()],
                targets: t,
                line: n,
                pinned: trimmed.ends_with("<!-- pin -->"),
                unshortened: None,
            }));
            continue;
        }
        let indented = line.starts_with([' ', '\t']) && !line.trim().is_empty();
        match items.last_mut() {
            Some(Item::Entry(e)) if indented => e.lines.push(line.to_string()),
            _ => items.push(Item::Text(line.to_string())),
        }
    }
    items
}

pub(super) fn render(items: &[Item], bom: &str) -> String {
    let mut s = String::from(bom);
    for it in items {
        match it {
            Item::Text(l) => s.push_str(l),
            Item::Entry(e) => e.lines.iter().for_each(|l| s.push_str(l)),
        }
    }
    s
}

/// `line` ending in `eol` (the last line of an index may have none).
pub(super) fn with_ending(line: &str, eol: &str) -> String {
    if line.ends_with('\n') {
        line.to_string()
    } else {
        format!("{line}{eol}")
    }
}

/// A head line over 150 chars cut at a word boundary with `…`: its hook after
/// ` — ` when it has one, else the text after its last `)`.
pub(super) fn shortened(line: &str) -> Option<String> {
    let full = line.trim_end_matches(['\n', '\r']);
    let ending = &line[full.len()..];
    if full.chars().count() <= crate::index::MAX_ENTRY_CHARS {
        return None;
    }
    // A pin mark stays at the end; the cut never leaves an unclosed `<!--`.
    const PIN: &str = " <!-- pin -->";
    let (body, pin) = match full.trim_end().strip_suffix(PIN.trim_start()) {
        Some(b) => (b.trim_end(), PIN),
        None => (full, ""),
    };
    let split = body
        .rfind(" — ")
        .map(|k| k + " — ".len())
        .or_else(|| body.rfind(')').map(|k| k + 1))?;
    let (head, tail) = body.split_at(split);
    let room = crate::index::MAX_ENTRY_CHARS.checked_sub(head.chars().count() + 1 + pin.chars().count())?;
    if room < 2 || tail.chars().count() <= room {
        return None;
    }
    let mut cut = crate::index::shorten(tail, room);
    if let Some(k) = cut.find("<!--") {
        cut.truncate(k);
        cut = format!("{}…", cut.trim_end());
    }
    Some(format!("{head}{cut}{pin}{ending}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_takes_the_indented_lines_below_its_head() {
        let items = parse("\u{feff}# T\n- [a](a.md) — a\n  - detail\n\n  after blank\n");
        let kinds: Vec<String> = items
            .iter()
            .map(|it| match it {
                Item::Text(t) => format!("text {}", t.trim()),
                Item::Entry(e) => format!("entry {} {} {}", e.file(), e.line, e.lines.len()),
            })
            .collect();
        assert_eq!(kinds, ["text # T", "entry a.md 2 2", "text ", "text after blank"]);
        assert_eq!(
            render(&items, "\u{feff}"),
            "\u{feff}# T\n- [a](a.md) — a\n  - detail\n\n  after blank\n"
        );
    }

    #[test]
    fn a_pin_mark_pins_and_units_count_the_line_ending() {
        let items = parse("- [a](a.md) — a <!-- pin -->\r\n");
        let Item::Entry(e) = &items[0] else { panic!("an entry") };
        assert!(e.pinned);
        assert_eq!(e.units(), "- [a](a.md) — a <!-- pin -->\r".encode_utf16().count() + 1);
        assert_eq!(with_ending("x", "\r\n"), "x\r\n");
        assert_eq!(with_ending("x\n", "\r\n"), "x\n");
    }
}
