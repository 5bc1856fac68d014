//! A memory file as the scan sees it, its type, and how a `REF` names one (SPEC §3.2).

use std::path::PathBuf;

use serde::Serialize;

use crate::error::{Error, Kind};
use crate::frontmatter::{Fields, Frontmatter};
use crate::text::suggestions;
use crate::yaml::Value;

/// The frontmatter key that marks a hub of `memctl index rebuild` (SPEC §10.1).
pub const HUB_KEY: &str = "memctl-hub";

/// The four memory types (SPEC §1.3); matching is exact and case-sensitive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum MemoryType {
    User,
    Feedback,
    Project,
    Reference,
}

impl MemoryType {
    pub const ALL: [MemoryType; 4] = [
        MemoryType::User,
        MemoryType::Feedback,
        MemoryType::Project,
        MemoryType::Reference,
    ];

    pub fn parse(s: &str) -> Option<MemoryType> {
        MemoryType::ALL.into_iter().find(|t| t.as_str() == s)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            MemoryType::User => "user",
            MemoryType::Feedback => "feedback",
            MemoryType::Project => "project",
            MemoryType::Reference => "reference",
        }
    }

    /// The type a raw YAML value names, if it is exactly one of the four.
    pub fn of(v: Option<&Value>) -> Option<MemoryType> {
        v.and_then(Value::as_str).and_then(MemoryType::parse)
    }
}

/// One scanned memory file.
#[derive(Clone, Debug)]
pub struct Memory {
    /// Path relative to the scanned dir, `/`-separated.
    pub rel: String,
    pub path: PathBuf,
    /// Modification time in fractional milliseconds.
    pub mtime_ms: f64,
    pub size: u64,
    pub frontmatter: Frontmatter,
    pub fields: Fields,
    /// Set when the 30-line window was cut at 1 MiB.
    pub window_exceeded: bool,
}

impl Memory {
    /// A memory parsed from text as the scan would see it (no file behind it),
    /// for unit tests.
    pub fn from_text(rel: &str, text: &str) -> Memory {
        let window: Vec<&str> = crate::frontmatter::scan_lines(text)
            .into_iter()
            .take(crate::frontmatter::FRONTMATTER_MAX_LINES)
            .collect();
        let frontmatter = crate::frontmatter::parse_lines(&window);
        Memory {
            rel: rel.into(),
            path: rel.into(),
            mtime_ms: 0.0,
            size: text.len() as u64,
            fields: Fields::from(&frontmatter),
            frontmatter,
            window_exceeded: false,
        }
    }

    /// The type: (2.1.332) `metadata.type` when that key exists, else the top-level
    /// `type` (SPEC §2.4.1).
    pub fn memory_type(&self) -> Option<MemoryType> {
        MemoryType::of(self.fields.type_raw.as_ref())
    }

    /// The type Claude Code's scan sees: (2.1.332) the same as [`Memory::memory_type`].
    pub fn claude_type(&self) -> Option<MemoryType> {
        MemoryType::of(self.fields.claude_type_raw())
    }

    /// The frontmatter `name` Claude Code reads: (2.1.332) a non-empty string.
    pub fn name(&self) -> Option<String> {
        self.fields.name_str().map(str::to_string)
    }

    /// The `description` as text; empty when there is none.
    pub fn description_text(&self) -> String {
        self.fields
            .description
            .as_ref()
            .map(Value::js_string)
            .unwrap_or_default()
    }

    /// What its index line is titled: the `name`, else the base name without `.md`.
    pub fn title(&self) -> String {
        self.name().unwrap_or_else(|| self.stem().to_string())
    }

    /// Its canonical index line linking `target` (SPEC §3.6), with the title and
    /// the description as hook.
    pub fn index_line(&self, target: &str) -> String {
        crate::index::render_entry(&self.title(), target, &self.description_text()).0
    }

    /// A hub of `memctl index rebuild`: its frontmatter says `memctl-hub: true`, at
    /// the top level (hubs of memctl before version 3) or under `metadata:`, where
    /// memctl writes it and where Claude Code moves it on its first write (SPEC §10.1).
    pub fn is_hub(&self) -> bool {
        let Some(map) = self.frontmatter.map.as_ref() else {
            return false;
        };
        let yes = |v: Option<&crate::yaml::Value>| v.is_some_and(|v| *v == crate::yaml::Value::Bool(true));
        yes(map.get(HUB_KEY)) || yes(map.get("metadata").and_then(|m| m.get(HUB_KEY)))
    }

    /// The base name without `.md`.
    pub fn stem(&self) -> &str {
        let base = self.rel.rsplit('/').next().unwrap_or(&self.rel);
        base.strip_suffix(".md").unwrap_or(base)
    }
}

/// A `--type` filter of `list` and `search` (SPEC §3.13): the types asked for,
/// `None` standing for untyped. Empty: every memory.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TypeFilter(Vec<Option<MemoryType>>);

impl TypeFilter {
    /// Parse `--type` values: exact, or in any case when exactly one type matches
    /// (the second value holds a note naming it for each such value).
    pub fn parse(raw: &[String]) -> Result<(TypeFilter, Vec<String>), Error> {
        const NAMES: [&str; 5] = ["user", "feedback", "project", "reference", "none"];
        let mut filters = Vec::new();
        let mut notes = Vec::new();
        for t in raw.iter().map(|t| t.trim()).filter(|t| !t.is_empty()) {
            let exact = NAMES.iter().find(|n| **n == t);
            let name = match exact.or_else(|| NAMES.iter().find(|n| n.eq_ignore_ascii_case(t))) {
                Some(n) => {
                    if exact.is_none() {
                        notes.push(format!("--type `{t}` read as `{n}`"));
                    }
                    *n
                }
                None => {
                    let near = suggestions(t, NAMES);
                    let hint = match near.first() {
                        Some(n) => format!("did you mean `{n}`?"),
                        None => "use one of user, feedback, project, reference, none".into(),
                    };
                    return Err(Error::new(
                        Kind::InvalidInput,
                        format!("invalid type `{t}`: expected one of user, feedback, project, reference, none"),
                    )
                    .hint(hint));
                }
            };
            filters.push(if name == "none" { None } else { MemoryType::parse(name) });
        }
        Ok((TypeFilter(filters), notes))
    }

    /// Whether `m`'s type (the one Claude Code 2.1.332 reads, SPEC §3.4) is asked for.
    pub fn matches(&self, m: &Memory) -> bool {
        self.0.is_empty() || self.0.contains(&m.memory_type())
    }

    /// The manifest's view: since 2.1.332 the same as [`TypeFilter::matches`].
    pub fn matches_claude(&self, m: &Memory) -> bool {
        self.matches(m)
    }
}

/// Claude Code's slug of a memory `name` (SPEC §2.4.6): kept when it matches
/// `^[a-z0-9_-]+$`, else lower-cased, every run of chars outside `[a-z0-9]` made
/// one `-`, and `-` trimmed at both ends (`Testing policy` → `testing-policy`,
/// `Über Café & Co.` → `ber-caf-co`). May be empty.
pub fn claude_slug(name: &str) -> String {
    let is_slug = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-';
    if !name.is_empty() && name.chars().all(is_slug) {
        return name.to_string();
    }
    let mut out = String::with_capacity(name.len());
    for c in name.to_lowercase().chars() {
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_string()
}

/// Resolve `reference` among `memories` (SPEC §3.2 steps 2–5; the name rules of
/// step 1 are checked by the caller). `dir` is shown in messages.
pub fn resolve_ref<'a>(reference: &str, memories: &'a [Memory], dir: &str) -> Result<&'a Memory, Error> {
    let with_md = if reference.ends_with(".md") {
        reference.to_string()
    } else {
        format!("{reference}.md")
    };
    let lower = reference.to_lowercase();
    let slug = claude_slug(reference);
    for step in 0..5 {
        let matches = |m: &&Memory| match step {
            0 => m.rel == reference || m.rel == with_md,
            1 => m.stem() == reference,
            2 => m.name().as_deref() == Some(reference),
            3 => m.name().is_some_and(|n| n.to_lowercase() == lower),
            // (2.1.332) Claude Code's first write stores the slug of the name.
            _ => !slug.is_empty() && m.name().as_deref() == Some(slug.as_str()),
        };
        let found: Vec<&Memory> = memories.iter().filter(matches).collect();
        match found.len() {
            0 => continue,
            1 => return Ok(found[0]),
            _ => {
                let list = found
                    .iter()
                    .map(|m| format!("{} ({})", m.rel, m.name().unwrap_or_else(|| "no name".into())))
                    .collect::<Vec<_>>()
                    .join(", ");
                return Err(Error::new(
                    Kind::Ambiguous,
                    format!("`{reference}` matches several memories in {dir}: {list}"),
                )
                .hint("name the file instead, e.g. its relative path"));
            }
        }
    }
    let names: Vec<String> = memories
        .iter()
        .flat_map(|m| [Some(m.stem().to_string()), m.name()])
        .flatten()
        .collect();
    let near = suggestions(reference, names.iter().map(String::as_str));
    let err = Error::new(Kind::NotFound, format!("no memory named `{reference}` in {dir}"));
    Err(if near.is_empty() {
        err.hint("run `memctl list` to see the memories")
    } else {
        err.hint(format!(
            "did you mean {}?",
            near.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", ")
        ))
    })
}

/// SPEC §4.4's name rules; `require_md` is false for a `REF` (`.md` is optional).
pub fn ensure_valid_name(name: &str, require_md: bool) -> Result<(), Error> {
    let bad = |why: &str| {
        Error::new(
            Kind::InvalidInput,
            format!("invalid memory file name `{}`: {why}", name.escape_debug()),
        )
        .hint("name a file relative to the memory dir, such as `feedback_testing.md`")
    };
    if name.is_empty() {
        return Err(bad("must not be empty"));
    }
    if name.chars().any(|c| c.is_control() && (c as u32) < 0x80) {
        return Err(bad("must not contain control characters"));
    }
    let slashed = name.replace('\\', "/");
    let b = slashed.as_bytes();
    if slashed.starts_with('/') || (b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':') {
        return Err(bad("must be a relative path inside the memory dir"));
    }
    if slashed.split('/').any(|s| s.is_empty() || s == "." || s == "..") {
        return Err(bad("must be a relative path inside the memory dir"));
    }
    if slashed.split('/').any(|s| s.len() > 255) || slashed.len() > 4096 {
        return Err(bad("too long (255 bytes per segment, 4096 in all)"));
    }
    if require_md && !slashed.ends_with(".md") {
        return Err(bad("must end in `.md`"));
    }
    Ok(())
}

/// The file-name slug of a memory name (SPEC §3.6): NFC, lower case, runs of
/// non-alphanumeric chars as `_`, at most 64 chars cut at a `_` where possible.
pub fn slug(name: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    let lower: String = name.nfc().collect::<String>().to_lowercase();
    let mut s = String::new();
    for c in lower.chars() {
        if c.is_alphanumeric() {
            s.push(c);
        } else if !s.ends_with('_') {
            s.push('_');
        }
    }
    let chars: Vec<char> = s.trim_matches('_').chars().collect();
    let cut = if chars.len() > 64 {
        // Before the last `_` among chars 49–65 (1-based), else after char 64.
        (49..=65)
            .rev()
            .find(|k| chars.get(k - 1) == Some(&'_'))
            .map_or(64, |k| k - 1)
    } else {
        chars.len()
    };
    let out: String = chars[..cut].iter().collect::<String>().trim_matches('_').to_string();
    if out.is_empty() { "untitled".into() } else { out }
}

/// A single-line text field: trimmed length within `1..=max` chars, no control
/// characters. Returns the trimmed value.
pub fn ensure_line(flag: &str, value: &str, max: usize) -> Result<String, Error> {
    if value.chars().any(char::is_control) {
        return Err(Error::new(
            Kind::InvalidInput,
            format!(
                "{flag} must be a single line without control characters: `{}`",
                value.escape_debug()
            ),
        )
        .hint(format!("put line breaks in the body, not in {flag}")));
    }
    let t = crate::text::js_trim(value);
    let n = t.chars().count();
    if n == 0 || n > max {
        return Err(Error::new(
            Kind::InvalidInput,
            format!("{flag} must be 1–{max} characters, got {n}: `{t}`"),
        )
        .hint(format!("shorten {flag}; move detail into the body")));
    }
    Ok(t.to_string())
}

/// Exact type validation with the case hint (SPEC §3.6).
pub fn parse_type(raw: &str) -> Result<MemoryType, Error> {
    MemoryType::parse(raw).ok_or_else(|| {
        let e = Error::new(
            Kind::InvalidInput,
            format!("invalid type `{raw}`: expected one of user, feedback, project, reference"),
        );
        let names = MemoryType::ALL.map(MemoryType::as_str);
        // Case-sensitive only when case is the one difference; else a near spelling.
        if let Some(t) = names.iter().find(|t| t.eq_ignore_ascii_case(raw)) {
            return e.hint(format!("types are case-sensitive: did you mean `{t}`?"));
        }
        match crate::text::suggestions(raw.trim(), names).first() {
            Some(t) => e.hint(format!("did you mean `{t}`?")),
            None => e.hint("use one of user, feedback, project, reference"),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mem(rel: &str, text: &str) -> Memory {
        Memory::from_text(rel, text)
    }

    #[test]
    fn slugs() {
        assert_eq!(slug("Testing policy"), "testing_policy");
        assert_eq!(slug("  Über -- Größe!  "), "über_größe");
        assert_eq!(slug("!!!"), "untitled");
        let long = "word ".repeat(20);
        let s = slug(&long);
        assert!(s.chars().count() <= 64 && !s.ends_with('_'), "{s}");
        assert_eq!(s, vec!["word"; 13].join("_"));
        assert_eq!(slug(&"x".repeat(80)).chars().count(), 64);
    }

    #[test]
    fn type_case_hint() {
        let e = parse_type("User").unwrap_err();
        assert_eq!(
            e.message,
            "invalid type `User`: expected one of user, feedback, project, reference"
        );
        assert_eq!(
            e.hint.as_deref(),
            Some("types are case-sensitive: did you mean `user`?")
        );
        assert!(parse_type("feedback").is_ok());
        // A typo, or stray spaces, is not a matter of case.
        for raw in ["feedbak", " feedback", "Feedbak"] {
            assert_eq!(
                parse_type(raw).unwrap_err().hint.as_deref(),
                Some("did you mean `feedback`?"),
                "{raw:?}"
            );
        }
        assert_eq!(
            parse_type("zzz").unwrap_err().hint.as_deref(),
            Some("use one of user, feedback, project, reference")
        );
    }

    #[test]
    fn lines_are_trimmed_and_bounded() {
        assert_eq!(ensure_line("--name", "  a  ", 100).unwrap(), "a");
        assert!(ensure_line("--name", "a\nb", 100).is_err());
        assert!(ensure_line("--name", "   ", 100).is_err());
        assert!(ensure_line("--name", &"x".repeat(101), 100).is_err());
    }

    #[test]
    fn types_are_exact() {
        assert_eq!(MemoryType::parse("user"), Some(MemoryType::User));
        assert_eq!(MemoryType::parse("User"), None);
        assert_eq!(MemoryType::parse(" user"), None);
    }

    #[test]
    fn refs_resolve_by_path_stem_then_name() {
        let ms = vec![
            mem("feedback_tdd.md", "---\nname: TDD feedback\n---\n"),
            mem("sub/x.md", "---\nname: Other\n---\n"),
            mem("deploy-note.md", ""),
        ];
        assert_eq!(
            resolve_ref("feedback_tdd.md", &ms, "/d/").unwrap().rel,
            "feedback_tdd.md"
        );
        assert_eq!(resolve_ref("sub/x", &ms, "/d/").unwrap().rel, "sub/x.md");
        assert_eq!(resolve_ref("x", &ms, "/d/").unwrap().rel, "sub/x.md");
        assert_eq!(resolve_ref("TDD feedback", &ms, "/d/").unwrap().rel, "feedback_tdd.md");
        assert_eq!(resolve_ref("tdd FEEDBACK", &ms, "/d/").unwrap().rel, "feedback_tdd.md");
        let e = resolve_ref("deploy-notes", &ms, "/d/").unwrap_err();
        assert_eq!(e.kind, Kind::NotFound);
        assert_eq!(e.message, "no memory named `deploy-notes` in /d/");
        assert_eq!(e.hint.as_deref(), Some("did you mean `deploy-note`?"));
    }

    #[test]
    fn ambiguous_names_list_candidates() {
        let ms = vec![
            mem("a.md", "---\nname: Same\n---\n"),
            mem("b.md", "---\nname: Same\n---\n"),
        ];
        let e = resolve_ref("Same", &ms, "/d/").unwrap_err();
        assert_eq!(e.kind, Kind::Ambiguous);
        assert!(e.message.contains("a.md (Same), b.md (Same)"));
    }

    #[test]
    fn name_rules_reject_traversal_and_control_chars() {
        for bad in [
            "../x",
            "/etc/passwd",
            "a/../../b.md",
            "a\0b.md",
            "a\nb.md",
            "C:\\x.md",
            "a//b.md",
            "./a.md",
        ] {
            assert!(ensure_valid_name(bad, false).is_err(), "{bad:?}");
        }
        assert!(ensure_valid_name("x", true).is_err());
        assert!(ensure_valid_name("sub/x.md", true).is_ok());
        assert!(ensure_valid_name("x", false).is_ok());
    }
}
