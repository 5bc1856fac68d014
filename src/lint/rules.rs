//! The rules table (SPEC §3.9.3): every rule's id, name, default severity,
//! Claude Code consequence and whether `--fix` handles it. The ids are a
//! [`RuleId`] enum generated from the table, so a mistyped id does not compile;
//! they serialize to the strings of the JSON contract (`"ML101"`).

use std::fmt;

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

/// One lint rule (SPEC §3.9.3).
#[derive(Debug)]
pub struct Rule {
    pub id: RuleId,
    pub name: &'static str,
    /// The default severity (some rules lower or raise it per finding).
    pub severity: Severity,
    /// What Claude Code does because of the problem.
    pub consequence: &'static str,
    pub fixable: bool,
}

macro_rules! rules {
    ($($id:ident $name:literal $sev:ident $fix:literal $cons:literal;)*) => {
        /// A rule's id. The variants are in the table's order, which is the order
        /// of the id strings, so comparing ids compares their strings.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum RuleId {
            $($id),*
        }

        /// The id strings, by [`RuleId`].
        static IDS: &[&str] = &[$(stringify!($id)),*];

        /// Every rule, in id order; `RULES[id as usize]` is the rule of `id`.
        pub static RULES: &[Rule] = &[$(Rule {
            id: RuleId::$id,
            name: $name,
            severity: Severity::$sev,
            consequence: $cons,
            fixable: $fix,
        }),*];
    };
}

rules! {
    ML101 "frontmatter-unparseable" Error false "all fields dropped: untyped, no description in the manifest";
    ML102 "frontmatter-not-at-start" Error true "no frontmatter seen";
    ML103 "frontmatter-missing" Warning false "untyped, no description; relevance selection sees only the file name";
    ML104 "frontmatter-beyond-window" Error false "the scan reads 30 lines and at most 64 KiB: description and type invisible";
    ML105 "description-missing" Warning false "manifest line without description";
    ML106 "description-not-string" Warning false "a non-string description is ignored: no description in the manifest, the recall selection or the index Claude Code writes itself; a multi-line string is printed with its line breaks";
    ML107 "type-missing" Warning false "untyped memory";
    ML108 "type-invalid" Error false "untyped memory";
    ML109 "type-conflict" Warning false "Claude Code reads `metadata.type`; the top-level `type` is ignored";
    ML110 "name-missing" Warning false "against the frontmatter format Claude Code asks for (its first write stores `name: \"\"`)";
    ML111 "yaml-needs-quoting" Warning true "parsed only thanks to the retry; stricter YAML readers drop the file";
    ML112 "value-cut-by-comment" Warning false "text after ` #` silently lost";
    ML113 "duplicate-key" Warning false "last value wins; other readers reject the file";
    ML114 "type-prefix-mismatch" Info false "none directly; misleads readers";
    ML115 "why-how-missing" Info false "weaker memory (Claude Code asks for **Why:** and **How to apply:**)";
    ML116 "relative-date" Warning false "the memory becomes wrong or unreadable as time passes";
    ML117 "content-code-heavy" Info false "\"code patterns are derivable from the code\"";
    ML118 "content-git-history" Info false "\"git history belongs to git\"";
    ML119 "content-in-claude-md" Info false "\"already in CLAUDE.md\"";
    ML120 "content-ephemeral" Info false "\"ephemeral task details\"";
    ML121 "secret-like" Warning false "loaded into model context";
    ML122 "file-large" Warning false "relevance recall reads only 200 lines / 4096 bytes of a file";
    ML123 "content-not-utf8" Error false "Claude Code reads U+FFFD in place of the bytes";
    ML124 "bom" Info false "none (handled)";
    ML125 "tool-artifact" Info false "stray text loaded with the memory";
    ML126 "frontmatter-ambiguous-close" Error false "Claude Code ends the block at the first `---` anywhere: the keys after it are lost and the rest of the block becomes body; its first write leaves such a file undated";
    ML127 "scan-cap" Info false "only the 200 newest files reach the manifest, which the model sees only in recall mode and in background extraction";
    ML128 "name-not-utf8" Error false "invisible to Claude Code";
    ML129 "extension-case" Warning false "not scanned (`.md` is case-sensitive)";
    ML130 "symlink-escape" Warning false "Claude Code reads it; memctl will not write through it";
    ML131 "unreadable" Error false "silently dropped from the scan";
    ML132 "stale-temp" Info true "none (not `.md`); left by an interrupted write";
    ML133 "binary" Error false "garbage in context";
    ML134 "link-dangling" Warning false "the model follows a link to nothing";
    ML135 "sync-conflict" Warning false "a memory's other version waits to be merged";
    ML136 "scan-excluded" Info false "not in Claude Code's scan: never in the manifest or in recall; reachable only through an index link";
    ML137 "name-not-slug" Info false "Claude Code's first Write or Edit of the file replaces `name` with its slug: name lookups and `[[name]]` links change";
    ML201 "index-dangling" Error false "the model follows a pointer to nothing";
    ML202 "index-link-outside" Warning false "outside the memory dir; Claude Code's memory agents may not write there";
    ML203 "index-unindexed" Warning true "the memory is never loaded: Claude Code loads only the index";
    ML204 "index-line-long" Info false "against Claude Code's guidance; consumes the 25 000-unit budget";
    ML205 "index-over-lines" Error false "lines after 200 are not loaded";
    ML206 "index-over-bytes" Error false "the index is cut at the last line break before 25 000 units";
    ML207 "index-near-cap" Warning false "the next entries will be dropped (Claude Code itself tells the model to compact from 80 %)";
    ML208 "index-frontmatter" Warning false "stripped before loading, up to the first `---` anywhere; Claude Code says the index has none";
    ML209 "index-duplicate-target" Warning false "one memory indexed several times (wasted budget, conflicting hooks)";
    ML210 "index-noncanonical" Info false "none; harder to maintain";
    ML211 "index-content" Info false "memory content in the index counts toward the caps";
    ML212 "index-unclosed-comment" Warning false "an unclosed `<!--` is loaded verbatim";
    ML213 "index-missing" Info false "Claude Code writes MEMORY.md from the topic files at its next session start; when it cannot, no memory is loaded at all";
    ML214 "index-link-not-md" Info false "none";
    ML215 "index-crlf" Info false "each CR counts toward the 25 000 units (unless a comment block is removed); the model reads no CR";
    ML216 "index-oversize" Error false "Claude Code loads nothing from this MEMORY.md";
    ML217 "team-index-not-loaded" Info false "Claude Code never loads team/MEMORY.md without a team store";
    ML301 "lock-future-mtime" Warning false "auto-dream blocked until the mtime is 24 h in the past";
    ML302 "lock-rolled-back" Info false "the last consolidation failed or was killed";
    ML401 "project-setting-moves-memory" Warning false "a checked-in file decides where every user's memory is written";
    ML402 "setting-masked" Warning false "the default path is used instead of the intended one";
    ML403 "memory-disabled" Info false "nothing is loaded or saved";
    ML404 "recall-mode" Info false "MEMORY.md is not injected; memories are chosen per prompt from the manifest";
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
        IDS.binary_search(&s).ok().map(|i| RULES[i].id)
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
