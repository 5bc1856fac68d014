//! The rule texts as a user reads them (SPEC §3.9.3): `memctl lint --explain ID`,
//! so a user without the README can act on a finding, and the rule table of
//! docs/lint.md. Both come from the rule's page under `rules/` ([`super::page`]),
//! the one place to edit a rule's explanation.

pub use super::page::{Explanation, SECTIONS};
use super::{RULES, Rule, RuleId};

/// The explanation of `id`.
pub fn explain(id: RuleId) -> &'static Explanation {
    &id.rule().explanation
}

/// The line before the generated rule table in docs/lint.md.
pub const TABLE_START: &str = "<!-- The rule table is generated from rules/*.md: `MEMCTL_BLESS=1 cargo test --test cli generated` rewrites it. -->";
/// The line after it.
pub const TABLE_END: &str = "<!-- End of the generated rule table. -->";

/// A rule as the docs table shows it: `name [severity and notes, fixable]`.
fn docs_cell(name: &str, severity_text: &str, fixable: bool) -> String {
    let plain = !severity_text.contains(|c: char| !c.is_ascii_alphabetic());
    let fixable = match (fixable, plain) {
        (false, _) => "",
        (true, true) => ", fixable",
        (true, false) => "; fixable",
    };
    format!("{name} [{severity_text}{fixable}]")
}

/// The rule table of docs/lint.md: the topic-file rules (ML1xx) on the left, the
/// others on the right, each id linking its page.
pub fn docs_table() -> String {
    let (left, right): (Vec<&Rule>, Vec<&Rule>) = RULES.iter().partition(|r| r.id < RuleId::ML201);
    let half = |r: Option<&&Rule>| match r {
        Some(r) => format!(
            " [{id}](../rules/{id}.md) | {} |",
            docs_cell(r.name, &r.severity_text, r.fixable),
            id = r.id
        ),
        None => " | |".to_string(),
    };
    let mut out = String::from("| id | name | | id | name |\n|---|---|---|---|---|\n");
    for i in 0..left.len().max(right.len()) {
        out.push_str(&format!("|{} |{}\n", half(left.get(i)), half(right.get(i))));
    }
    out
}

/// `doc` (docs/lint.md) with the lines between [`TABLE_START`] and [`TABLE_END`]
/// replaced by [`docs_table`]; `None` when a marker line is missing.
pub fn docs_with_table(doc: &str) -> Option<String> {
    let start = doc.find(&format!("{TABLE_START}\n"))? + TABLE_START.len() + 1;
    let end = start - 1 + doc[start - 1..].find(&format!("\n{TABLE_END}\n"))? + 1;
    Some(format!("{}{}{}", &doc[..start], docs_table(), &doc[end..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_has_a_full_explanation() {
        for r in RULES.iter() {
            let x = explain(r.id);
            for part in [&x.claude_code, &x.why, &x.fix] {
                assert!(part.len() > 10, "{}: {part:?}", r.id);
                assert!(part.ends_with('.') || part.ends_with(')'), "{}: {part:?}", r.id);
            }
        }
    }

    #[test]
    fn the_docs_cell_adds_fixable_after_a_comma_or_after_notes() {
        assert_eq!(docs_cell("bom", "info", false), "bom [info]");
        assert_eq!(docs_cell("stale-temp", "info", true), "stale-temp [info, fixable]");
        assert_eq!(
            docs_cell("index-unindexed", "warning; info if linked", true),
            "index-unindexed [warning; info if linked; fixable]"
        );
    }

    #[test]
    fn the_docs_table_pairs_the_topic_rules_with_the_others() {
        let table = docs_table();
        let rows: Vec<&str> = table.lines().collect();
        assert_eq!(rows[0], "| id | name | | id | name |");
        assert_eq!(
            rows[2],
            "| [ML101](../rules/ML101.md) | frontmatter-unparseable [error] | | [ML201](../rules/ML201.md) | index-dangling [error] |"
        );
        assert!(
            rows.last().unwrap().ends_with(" name-not-slug [info] | | | |"),
            "{table}"
        );
    }

    #[test]
    fn the_table_goes_between_the_markers_and_nowhere_else() {
        let doc = format!("before\n{TABLE_START}\nold\nrows\n{TABLE_END}\nafter\n");
        let new = docs_with_table(&doc).unwrap();
        assert_eq!(
            new,
            format!("before\n{TABLE_START}\n{}{TABLE_END}\nafter\n", docs_table())
        );
        assert_eq!(docs_with_table(&new).unwrap(), new);
        assert_eq!(docs_with_table("no markers\n"), None);
    }
}
