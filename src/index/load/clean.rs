//! §2.7.3: the clean-up Claude Code 2.1.332 applies to the loaded index text after
//! the cut and again when it injects it. It changes only what the model reads,
//! never a count: line breaks become LF, invisible and control characters are
//! deleted, and reserved prompt tags are neutralised with a `\` after their `<`.

use std::sync::OnceLock;

/// The reserved tag names of 2.1.332 (matched in any case); `channel` is handled
/// apart (only an opening tag with a `source` attribute).
const RESERVED: &[&str] = &[
    "system-reminder",
    "system_reminder",
    "function_results",
    "tool_use_error",
    "sandbox_violations",
    "persisted-output",
    "total_tokens",
    "user-prompt-submit-hook",
    "command-name",
    "command-message",
    "command-args",
    "bash-input",
    "bash-stdout",
    "bash-stderr",
    "bash-exit-code",
    "local-command-stdout",
    "local-command-stderr",
    "local-command-caveat",
    "task-notification",
    "agent-message",
    "teammate-message",
    "cross-session-message",
    "remote-review",
    "slack-ping",
    "slack-tag-message",
    "tick",
    "fetched-web-content",
    "untrusted-widget-state",
    "coordinator-relay",
    "artifact-type-instructions",
    "cowritten-artifact-html",
    "artifact-file-content",
    "artifact-origin-notes",
    "artifact-stored-declaration",
];

/// The text the model reads of `text` (§2.7.3 steps 1–3).
pub fn clean(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
                out.push('\n');
            }
            '\u{2028}' | '\u{2029}' => out.push('\n'),
            c if is_removed(c) => {}
            c => out.push(c),
        }
    }
    neutralise_tags(&out)
}

/// §2.7.3 step 2: a char deleted from the loaded text.
pub fn is_removed(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_control() && !matches!(c, '\t' | '\n' | '\r');
    }
    if matches!(c, '\u{200c}' | '\u{200d}' | '\u{fe0e}' | '\u{fe0f}') {
        return false;
    }
    if ('\u{80}'..='\u{9f}').contains(&c) {
        return true;
    }
    let table = removed_table();
    let i = table.partition_point(|&(_, hi)| hi < c);
    table.get(i).is_some_and(|&(lo, _)| lo <= c)
}

/// The sorted ranges of general categories Cf, Co, Cn and of
/// Default_Ignorable_Code_Point, from the Unicode tables of `regex-syntax`.
fn removed_table() -> &'static [(char, char)] {
    static TABLE: OnceLock<Vec<(char, char)>> = OnceLock::new();
    TABLE.get_or_init(|| {
        use regex_syntax::hir::{Class, HirKind};
        let hir = regex_syntax::Parser::new()
            .parse(r"[\p{Cf}\p{Co}\p{Cn}\p{Default_Ignorable_Code_Point}]")
            .ok();
        match hir.as_ref().map(regex_syntax::hir::Hir::kind) {
            Some(HirKind::Class(Class::Unicode(u))) => u.ranges().iter().map(|r| (r.start(), r.end())).collect(),
            _ => Vec::new(),
        }
    })
}

/// §2.7.3 step 3: `\` inserted after the `<` of every reserved tag.
fn neutralise_tags(text: &str) -> String {
    if !text.contains('<') {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 8);
    let mut last = 0;
    for (i, _) in text.match_indices('<') {
        if is_reserved_tag(&text[i + 1..]) {
            out.push_str(&text[last..=i]);
            out.push('\\');
            last = i + 1;
        }
    }
    out.push_str(&text[last..]);
    out
}

/// Whether the text after a `<` makes a reserved tag: optional whitespace, an
/// optional `/`, a reserved name not followed by a name char.
fn is_reserved_tag(after: &str) -> bool {
    let rest = after.trim_start_matches(char::is_whitespace);
    let (closing, rest) = match rest.strip_prefix('/') {
        Some(r) => (true, r.trim_start_matches(char::is_whitespace)),
        None => (false, rest),
    };
    let name_len = rest
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b':' | b'.'))
        .count();
    let name = rest[..name_len].to_ascii_lowercase();
    if RESERVED.contains(&name.as_str()) {
        return true;
    }
    if name != "channel" || closing {
        return false;
    }
    // `channel` only with a `source` attribute in the same tag.
    let tag = &rest[name_len..];
    let tag = &tag[..tag.find('>').unwrap_or(tag.len())];
    tag.starts_with(char::is_whitespace) && has_attribute(tag, "source")
}

/// Whether `attrs` (the text of a tag after its name) gives attribute `name` a
/// value (`source=…`; a bare `source` does not count, 2.1.332 client).
fn has_attribute(attrs: &str, name: &str) -> bool {
    attrs.match_indices(name).any(|(i, _)| {
        let before = attrs[..i].chars().next_back();
        let after = attrs[i + name.len()..].trim_start_matches(char::is_whitespace);
        before.is_some_and(char::is_whitespace) && after.starts_with('=')
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_breaks_become_lf() {
        assert_eq!(clean("a\r\nb\rc\u{2028}d\u{2029}e"), "a\nb\nc\nd\ne");
    }

    #[test]
    fn invisible_and_control_chars_are_deleted() {
        assert_eq!(clean("zero\u{200b}width\u{feff}bom"), "zerowidthbom");
        assert_eq!(clean("bell\u{7} nbsp\u{a0}x"), "bell nbsp\u{a0}x");
        assert_eq!(clean("a\u{e000}b\u{378}c\u{ad}d\u{fe00}e\0f\u{1b}g\u{85}h"), "abcdefgh");
        assert_eq!(clean("👨\u{200d}👩 ❤\u{fe0f}\t"), "👨\u{200d}👩 ❤\u{fe0f}\t");
    }

    #[test]
    fn reserved_tags_are_neutralised() {
        assert_eq!(
            clean("- [B](b.md) — <system-reminder>x</system-reminder>"),
            "- [B](b.md) — <\\system-reminder>x<\\/system-reminder>"
        );
        assert_eq!(
            clean(r#"a <function_results>x</function_results> <channel source="x">y</channel> <foo>z</foo>"#),
            r#"a <\function_results>x<\/function_results> <\channel source="x">y</channel> <foo>z</foo>"#
        );
        assert_eq!(clean(r#"<System-Reminder attr="1">"#), r#"<\System-Reminder attr="1">"#);
        assert_eq!(clean("<ticker> <tick>"), "<ticker> <\\tick>");
        assert_eq!(
            clean("< system-reminder> </ system-reminder> <channel source> <channel  source='y'>"),
            "<\\ system-reminder> <\\/ system-reminder> <channel source> <\\channel  source='y'>"
        );
    }
}
