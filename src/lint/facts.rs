//! What lint keeps of each topic file once the file's own rules have run: only
//! what the rules across files need (ML203's index and reachability checks, the
//! wikilink names, ML127's cap), so that a large dir is not held as whole
//! [`Memory`] records (about 380 bytes each, plus every frontmatter value).

use std::path::{Path, PathBuf};

use crate::memory::{Memory, MemoryType};
use crate::yaml::Value;

/// One topic file, compact.
#[derive(Clone, Debug)]
pub struct FileFacts {
    /// Path relative to the linted dir, `/`-separated (the path is the dir joined
    /// with it, as the walk built it: [`FileFacts::path`]).
    pub rel: Box<str>,
    pub mtime_ms: f64,
    /// The frontmatter `name` as text (what wikilinks resolve by).
    pub name: Option<Box<str>>,
    /// Whether that `name` is a YAML string (the title `lint --fix` writes).
    pub name_is_string: bool,
    /// The `description` when it is a string (the hook `lint --fix` writes).
    pub description: Option<Box<str>>,
    /// A hub of `memctl index rebuild`.
    pub hub: bool,
    /// The type Claude Code's scan sees.
    pub claude_type: Option<MemoryType>,
}

impl FileFacts {
    pub fn of(m: &Memory) -> FileFacts {
        FileFacts {
            rel: m.rel.as_str().into(),
            mtime_ms: m.mtime_ms,
            name: m.name().map(String::into_boxed_str),
            name_is_string: matches!(m.fields.name, Some(Value::String(_))),
            description: match &m.fields.description {
                Some(Value::String(d)) => Some(d.as_str().into()),
                _ => None,
            },
            hub: m.is_hub(),
            claude_type: m.claude_type(),
        }
    }

    /// The file's path, `dir` being the linted dir.
    pub fn path(&self, dir: &Path) -> PathBuf {
        dir.join(&*self.rel)
    }

    /// The `name` when it is a string.
    pub fn title(&self) -> Option<&str> {
        self.name.as_deref().filter(|_| self.name_is_string)
    }

    /// The base name without `.md`.
    pub fn stem(&self) -> &str {
        let base = self.rel.rsplit('/').next().unwrap_or(&self.rel);
        base.strip_suffix(".md").unwrap_or(base)
    }
}

impl crate::scan::Kept for FileFacts {
    fn keep(m: Memory) -> FileFacts {
        FileFacts::of(&m)
    }

    fn mtime_ms(&self) -> f64 {
        self.mtime_ms
    }

    fn rel(&self) -> &str {
        &self.rel
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn facts_keep_what_the_cross_file_rules_read() {
        let m = Memory::from_text(
            "sub/a.md",
            "---\nname: Alpha\ndescription: the hook\ntype: user\nmemctl-hub: true\n---\nbody\n",
        );
        let f = FileFacts::of(&m);
        assert_eq!((&*f.rel, f.stem(), f.title()), ("sub/a.md", "a", Some("Alpha")));
        assert_eq!(f.description.as_deref(), Some("the hook"));
        assert!(f.hub);
        assert_eq!(f.claude_type, Some(MemoryType::User));
        let n = FileFacts::of(&Memory::from_text("b.md", "---\nname: 12\ndescription: [x]\n---\n"));
        assert_eq!(
            (n.name.as_deref(), n.title(), n.description.as_deref()),
            (Some("12"), None, None)
        );
    }
}
