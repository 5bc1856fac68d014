//! The permission gate's input (SPEC §2.11 gate 5, §3.11 "permission"): the
//! `permissions.deny` and `permissions.ask` rules of the settings sources memctl
//! reads that concern Claude Code's Write or Edit tool. Pure: the caller reads the
//! files.

use serde_json::Value;

use super::gates::{Permission, Rule};

/// The tools whose rules can stop the dream's memory writes.
const TOOLS: [&str; 2] = ["Write", "Edit"];

/// Collect the rules from each source's settings text (`label` names the source and
/// file, e.g. `user: /h/.claude/settings.json`), sources in priority order: every
/// source's deny rules first, then its ask rules. A text that is not a JSON object,
/// or a list that is not an array of strings, contributes nothing (Claude Code
/// ignores such a file or list).
pub fn permission(sources: &[(String, String)]) -> Permission {
    let parsed: Vec<(&str, Option<Value>)> = sources
        .iter()
        .map(|(label, text)| {
            let text = text.strip_prefix('\u{feff}').unwrap_or(text);
            (label.as_str(), serde_json::from_str::<Value>(text).ok())
        })
        .collect();
    let mut out = Permission::default();
    for kind in ["deny", "ask"] {
        for (label, v) in &parsed {
            let Some(list) = v
                .as_ref()
                .and_then(|v| v.get("permissions"))
                .and_then(|p| p.get(kind))
                .and_then(Value::as_array)
            else {
                continue;
            };
            for r in list.iter().filter_map(Value::as_str) {
                let rule = Rule {
                    kind,
                    rule: r.to_string(),
                    source: label.to_string(),
                };
                match classify(r) {
                    Some(true) => out.whole.push(rule),
                    Some(false) => out.scoped.push(rule),
                    None => {}
                }
            }
        }
    }
    out
}

/// `Some(true)` for a rule naming Write or Edit as a whole, `Some(false)` for a
/// path-scoped `Write(…)`/`Edit(…)`, `None` for other tools.
fn classify(rule: &str) -> Option<bool> {
    let r = rule.trim();
    if TOOLS.contains(&r) {
        return Some(true);
    }
    let tool = r.split_once('(').map(|(t, _)| t)?;
    TOOLS.contains(&tool).then_some(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src(label: &str, text: &str) -> (String, String) {
        (label.to_string(), text.to_string())
    }

    #[test]
    fn whole_tool_and_path_scoped_rules_are_told_apart() {
        let p = permission(&[
            src(
                "project: /p/.claude/settings.json",
                r#"{"permissions": {"ask": ["Edit"], "deny": ["Bash(rm:*)", "Write(/etc/**)"]}}"#,
            ),
            src(
                "user: /h/.claude/settings.json",
                r#"{"permissions": {"deny": [" Write ", 3]}}"#,
            ),
        ]);
        let names = |v: &[Rule]| {
            v.iter()
                .map(|r| format!("{} {} {}", r.kind, r.rule.trim(), &r.source[..4]))
                .collect::<Vec<_>>()
        };
        // Deny rules of every source come before ask rules.
        assert_eq!(names(&p.whole), ["deny Write user", "ask Edit proj"]);
        assert_eq!(names(&p.scoped), ["deny Write(/etc/**) proj"]);
        for none in [
            r#"{"permissions": {"deny": "Edit"}}"#,
            "[]",
            "{oops",
            r#"{"permissions": {"allow": ["Edit"]}}"#,
        ] {
            assert_eq!(permission(&[src("user: /u", none)]), Permission::default(), "{none}");
        }
        assert_eq!(classify("Editor"), None);
        assert_eq!(classify("Edit(*)"), Some(false));
    }
}
