//! A memory file as the scan sees it, its type, and how a `REF` names one (SPEC §3.2).

use std::path::PathBuf;

use serde::Serialize;

use crate::error::{Error, Kind};
use crate::frontmatter::{Fields, Frontmatter};
use crate::text::suggestions;
use crate::yaml::Value;

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
    /// memctl's resolved type (nested types included).
    pub fn memory_type(&self) -> Option<MemoryType> {
        MemoryType::of(self.fields.type_raw.as_ref())
    }

    /// The type Claude Code's scan sees (top-level only).
    pub fn claude_type(&self) -> Option<MemoryType> {
        MemoryType::of(self.fields.claude_type_raw.as_ref())
    }

    /// The frontmatter `name` as text.
    pub fn name(&self) -> Option<String> {
        self.fields.name.as_ref().map(Value::js_string)
    }

    /// The base name without `.md`.
    pub fn stem(&self) -> &str {
        let base = self.rel.rsplit('/').next().unwrap_or(&self.rel);
        base.strip_suffix(".md").unwrap_or(base)
    }
}

/// Resolve `reference` among `memories` (SPEC §3.2 steps 2–4; the name rules of
/// step 1 are checked by the caller). `dir` is shown in messages.
pub fn resolve_ref<'a>(reference: &str, memories: &'a [Memory], dir: &str) -> Result<&'a Memory, Error> {
    let with_md = if reference.ends_with(".md") {
        reference.to_string()
    } else {
        format!("{reference}.md")
    };
    let lower = reference.to_lowercase();
    for step in 0..4 {
        let matches = |m: &&Memory| match step {
            0 => m.rel == reference || m.rel == with_md,
            1 => m.stem() == reference,
            2 => m.name().as_deref() == Some(reference),
            _ => m.name().is_some_and(|n| n.to_lowercase() == lower),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontmatter::{parse_lines, scan_lines};

    fn mem(rel: &str, text: &str) -> Memory {
        let fm = parse_lines(&scan_lines(text));
        Memory {
            rel: rel.into(),
            path: rel.into(),
            mtime_ms: 0.0,
            size: 0,
            fields: Fields::from(&fm),
            frontmatter: fm,
            window_exceeded: false,
        }
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
