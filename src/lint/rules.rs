//! The rules table (SPEC §3.9.3): every rule's id, name, default severity,
//! Claude Code consequence, whether `--fix` handles it and its explanation, read
//! from its page under `rules/` ([`super::page`]). The ids are a [`RuleId`] enum
//! generated from the list of pages, so a mistyped id does not compile; they
//! serialize to the strings of the JSON contract (`"ML101"`).

use std::fmt;
use std::sync::LazyLock;

use super::page::{self, Explanation, Page};

use serde::{Serialize, Serializer};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// One lint rule (SPEC §3.9.3), as its page under `rules/` says.
#[derive(Debug)]
pub struct Rule {
    pub id: RuleId,
    pub name: &'static str,
    /// The default severity (some rules lower or raise it per finding).
    pub severity: Severity,
    /// What Claude Code does because of the problem.
    pub consequence: String,
    pub fixable: bool,
    /// The severity with the notes the docs table shows (`warning; info if …`).
    pub severity_text: String,
    /// What `lint --explain` says.
    pub explanation: Explanation,
}

macro_rules! rules {
    ($($id:ident)*) => {
        /// A rule's id. The variants are in the table's order, which is the order
        /// of the id strings, so comparing ids compares their strings.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum RuleId {
            $($id),*
        }

        /// The id strings, by [`RuleId`].
        static IDS: &[&str] = &[$(stringify!($id)),*];

        /// Every id, in order.
        static ALL: &[RuleId] = &[$(RuleId::$id),*];

        /// Each rule's page under `rules/`, by [`RuleId`]: a rule without a page
        /// does not compile.
        static PAGES: &[&str] = &[$(include_str!(concat!("../../rules/", stringify!($id), ".md"))),*];
    };
}

rules! {
    ML101 ML102 ML103 ML104 ML105 ML106 ML107 ML108 ML109 ML110
    ML111 ML112 ML113 ML114 ML115 ML116 ML117 ML118 ML119 ML120
    ML121 ML122 ML123 ML124 ML125 ML126 ML127 ML128 ML129 ML130
    ML131 ML132 ML133 ML134 ML135 ML136 ML137 ML201 ML202 ML203
    ML204 ML205 ML206 ML207 ML208 ML209 ML210 ML211 ML212 ML213
    ML214 ML215 ML216 ML217 ML301 ML302 ML401 ML402 ML403 ML404
}

/// Every rule, in id order; `RULES[id as usize]` is the rule of `id`. Read from the
/// pages on first use; a page that does not parse is a bug the unit tests catch.
pub static RULES: LazyLock<Vec<Rule>> =
    LazyLock::new(|| ALL.iter().zip(PAGES).map(|(&id, text)| rule(id, text)).collect());

/// The rule `id` from its page.
fn rule(id: RuleId, text: &'static str) -> Rule {
    let page = page::parse(text).unwrap_or_else(|e| panic!("rules/{id}.md: {e}"));
    assert_eq!(page.id, id.as_str(), "rules/{id}.md names another rule");
    let Page {
        name,
        severity,
        severity_text,
        fixable,
        consequence,
        explanation,
        ..
    } = page;
    Rule {
        id,
        name,
        severity,
        consequence,
        fixable,
        severity_text,
        explanation,
    }
}

impl RuleId {
    /// The id as the user and the JSON contract write it (`ML101`).
    pub fn as_str(self) -> &'static str {
        IDS[self as usize]
    }

    /// The rule with this id.
    pub fn rule(self) -> &'static Rule {
        &RULES[self as usize]
    }

    /// The id written `s` (exactly, case-sensitive), e.g. from `--rule`.
    pub fn parse(s: &str) -> Option<RuleId> {
        IDS.binary_search(&s).ok().map(|i| ALL[i])
    }

    /// A rule as a user names it on the command line: its id in any case (`ml206`)
    /// or its name (`index-over-bytes`), surrounding spaces ignored (SPEC §3.13).
    pub fn lookup(s: &str) -> Option<RuleId> {
        let s = s.trim();
        RuleId::parse(&s.to_ascii_uppercase())
            .or_else(|| RULES.iter().find(|r| r.name.eq_ignore_ascii_case(s)).map(|r| r.id))
    }
}

impl fmt::Display for RuleId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for RuleId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_in_string_order_and_index_the_table() {
        // `RuleId`'s derived order must be the order of the strings (findings are
        // sorted by it), and `parse` bisects `IDS`.
        assert!(IDS.windows(2).all(|w| w[0] < w[1]), "rules out of order");
        for (i, r) in RULES.iter().enumerate() {
            assert_eq!(r.id as usize, i);
            assert_eq!(RuleId::parse(r.id.as_str()), Some(r.id));
            assert_eq!(r.id.rule().name, r.name);
        }
        assert_eq!(RuleId::parse("ML999"), None);
        assert_eq!(RuleId::parse("ml101"), None);
    }

    #[test]
    fn every_page_under_rules_is_a_rule_and_names_it() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("rules");
        let mut pages: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n != "README.md")
            .collect();
        pages.sort();
        let expected: Vec<String> = IDS.iter().map(|id| format!("{id}.md")).collect();
        assert_eq!(pages, expected);
        for r in RULES.iter() {
            assert!(r.explanation.fix.len() > 10, "{} parses", r.id);
        }
    }

    #[test]
    fn rules_are_named_by_id_in_any_case_or_by_name() {
        assert_eq!(RuleId::lookup("ml206"), Some(RuleId::ML206));
        assert_eq!(RuleId::lookup(" ML203 "), Some(RuleId::ML203));
        assert_eq!(RuleId::lookup(RuleId::ML206.rule().name), Some(RuleId::ML206));
        assert_eq!(RuleId::lookup("no-such-rule"), None);
    }

    #[test]
    fn ids_serialize_to_their_strings() {
        assert_eq!(serde_json::to_string(&RuleId::ML203).unwrap(), "\"ML203\"");
        assert_eq!(RuleId::ML205.to_string(), "ML205");
    }
}
