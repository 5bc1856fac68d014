//! The hook's output document (SPEC §7.2) and its size budget: every payload stays
//! under 10 000 UTF-16 units and aims at 2 000.

use serde::Serialize;

use crate::text::utf16_len;

/// Claude Code replaces hook output over this many UTF-16 units with a preview.
pub const HARD_LIMIT: usize = 10_000;
/// What each text field aims at.
pub const AIM: usize = 1_800;
/// Items named in one list before `… and N more`.
pub const MAX_ITEMS: usize = 10;
/// One item's text at most (chars).
pub const MAX_ITEM_CHARS: usize = 220;

/// What Claude Code reads from the hook's stdout.
#[derive(Debug, Default, Serialize)]
pub struct HookOutput {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decision: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(rename = "hookSpecificOutput", skip_serializing_if = "Option::is_none")]
    pub hook_specific_output: Option<Specific>,
    #[serde(rename = "systemMessage", skip_serializing_if = "Option::is_none")]
    pub system_message: Option<String>,
}

#[derive(Debug, Default, Serialize)]
pub struct Specific {
    #[serde(rename = "hookEventName")]
    pub hook_event_name: String,
    #[serde(rename = "additionalContext", skip_serializing_if = "String::is_empty")]
    pub additional_context: String,
    /// PreToolUse (the gate): `deny`.
    #[serde(rename = "permissionDecision", skip_serializing_if = "Option::is_none")]
    pub permission_decision: Option<&'static str>,
    #[serde(rename = "permissionDecisionReason", skip_serializing_if = "Option::is_none")]
    pub permission_decision_reason: Option<String>,
}

/// One problem for the model: a headline and the items it names.
#[derive(Debug, Default, Clone)]
pub struct Item {
    pub text: String,
    /// Lines under the headline (entries, findings), capped when rendered.
    pub list: Vec<String>,
}

impl Item {
    pub fn new(text: impl Into<String>) -> Item {
        Item {
            text: text.into(),
            list: Vec::new(),
        }
    }

    pub fn with_list(mut self, list: Vec<String>) -> Item {
        self.list = list;
        self
    }
}

/// Text safe to show in one line: control characters become spaces, long text is
/// cut with `…`.
pub fn one_line(s: &str, max: usize) -> String {
    let clean: String = s.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    crate::text::ellipsize(&clean, max)
}

/// Render items as text of at most about `budget` UTF-16 units: each item a line
/// (`- …`), its list indented below, cut with `… and N more (run memctl lint)`.
pub fn render(items: &[Item], budget: usize) -> String {
    let mut out = String::new();
    let mut used = 0;
    let mut skipped = 0usize;
    for (i, item) in items.iter().enumerate() {
        let head = format!("- {}\n", one_line(&item.text, MAX_ITEM_CHARS * 2));
        let head_units = utf16_len(&head);
        if used + head_units > budget && i > 0 {
            skipped += items.len() - i;
            break;
        }
        out.push_str(&head);
        used += head_units;
        let mut shown = 0;
        for l in &item.list {
            let line = format!("    {}\n", one_line(l, MAX_ITEM_CHARS));
            let n = utf16_len(&line);
            if shown >= MAX_ITEMS || used + n > budget {
                break;
            }
            out.push_str(&line);
            used += n;
            shown += 1;
        }
        if shown < item.list.len() {
            let more = format!("    … and {} more (run memctl lint)\n", item.list.len() - shown);
            used += utf16_len(&more);
            out.push_str(&more);
        }
    }
    if skipped > 0 {
        out.push_str(&format!("- … and {skipped} more (run memctl lint)\n"));
    }
    out.trim_end().to_string()
}

/// The document as one line of JSON, kept under [`HARD_LIMIT`] whatever its parts.
pub fn to_json(doc: &HookOutput) -> String {
    let s = serde_json::to_string(doc).unwrap_or_default();
    if utf16_len(&s) < HARD_LIMIT {
        return s;
    }
    // Not reachable with the budgets above; a last guard all the same.
    let small = HookOutput {
        decision: doc.decision,
        reason: doc.reason.as_ref().map(|r| crate::text::ellipsize(r, 3_000)),
        hook_specific_output: doc.hook_specific_output.as_ref().map(|h| Specific {
            hook_event_name: one_line(&h.hook_event_name, 100),
            additional_context: crate::text::ellipsize(&h.additional_context, 3_000),
            permission_decision: h.permission_decision,
            permission_decision_reason: h
                .permission_decision_reason
                .as_ref()
                .map(|r| crate::text::ellipsize(r, 3_000)),
        }),
        system_message: doc.system_message.as_ref().map(|m| one_line(m, 300)),
    };
    serde_json::to_string(&small).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lists_are_cut_with_a_count() {
        let items = vec![Item::new("entries dropped").with_list((0..10_000).map(|i| format!("line {i}")).collect())];
        let s = render(&items, AIM);
        assert!(s.ends_with("… and 9990 more (run memctl lint)"), "{s}");
        let many: Vec<Item> = (0..5_000)
            .map(|i| Item::new(format!("finding {i} {}", "x".repeat(300))))
            .collect();
        let s = render(&many, AIM);
        assert!(utf16_len(&s) < AIM + 600, "{}", utf16_len(&s));
        assert!(s.ends_with("more (run memctl lint)"));
    }

    #[test]
    fn control_characters_never_reach_the_output() {
        assert_eq!(one_line("a\nb\u{1b}c", 10), "a b c");
    }
}
