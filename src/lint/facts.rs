//! What lint keeps of each topic file once the file's own rules have run: only
//! what the rules across files need (ML203's index and reachability checks, the
//! wikilink names, ML127's cap), so that a large dir is not held as whole
//! [`Memory`] records (about 380 bytes each, plus every frontmatter value).

use std::path::{Path, PathBuf};

use crate::memory::{Memory, MemoryType};
use crate::yaml::Value;

/// One topic file, compact: its strings in one allocation (a large dir keeps
/// 20 000 of these through the run), 40 bytes beside them.
#[derive(Clone, Debug)]
pub struct FileFacts {
    /// The path relative to the linted dir (`/`-separated; the path is the dir
    /// joined with it, as the walk built it: [`FileFacts::path`]), then the name,
    /// then (only for `dream`'s records, [`FileFacts::with_description`]) the
    /// description: the rules across files ask only whether there is one (84
    /// bytes a file on the bench dirs, 1.7 MB at 20 000 files).
    text: Box<str>,
    pub mtime_ms: f64,
    rel_len: u32,
    /// [`NONE`] when absent.
    name_len: u32,
    /// [`NONE`] when absent or not kept.
    description_len: u32,
    /// Whether the `description` is a string.
    has_description: bool,
    /// Whether the `name` is a YAML string (the title `lint --fix` writes).
    name_is_string: bool,
    /// A hub of `memctl index rebuild`.
    pub hub: bool,
    /// The type Claude Code's scan sees.
    pub claude_type: Option<MemoryType>,
}

/// The length of an absent string in [`FileFacts`].
const NONE: u32 = u32::MAX;

impl FileFacts {
    /// The facts of `m`, without its description's text.
    pub fn of(m: &Memory) -> FileFacts {
        FileFacts::keeping(m, None)
    }

    /// The facts of `m` and its `description` as text ([`Value::js_string`]),
    /// when it has one, in the same allocation as its path and name.
    pub fn with_description(m: &Memory) -> FileFacts {
        FileFacts::keeping(m, m.fields.description.as_ref().map(Value::js_string))
    }

    fn keeping(m: &Memory, description: Option<String>) -> FileFacts {
        let name = m.name();
        let len = |s: &Option<String>| s.as_ref().map_or(0, String::len);
        let mut text = String::with_capacity(m.rel.len() + len(&name) + len(&description));
        text.push_str(&m.rel);
        text.push_str(name.as_deref().unwrap_or_default());
        text.push_str(description.as_deref().unwrap_or_default());
        let len = |s: &Option<String>| s.as_ref().map_or(NONE, |s| s.len() as u32);
        FileFacts {
            text: text.into_boxed_str(),
            mtime_ms: m.mtime_ms,
            rel_len: m.rel.len() as u32,
            name_len: len(&name),
            description_len: len(&description),
            has_description: matches!(m.fields.description, Some(Value::String(_))),
            name_is_string: matches!(m.fields.name, Some(Value::String(_))),
            hub: m.is_hub(),
            claude_type: m.claude_type(),
        }
    }

    /// The path relative to the linted dir, `/`-separated.
    pub fn rel(&self) -> &str {
        &self.text[..self.rel_len as usize]
    }

    /// The frontmatter `name` as text (what wikilinks resolve by).
    pub fn name(&self) -> Option<&str> {
        let start = self.rel_len as usize;
        (self.name_len != NONE).then(|| &self.text[start..start + self.name_len as usize])
    }

    /// Whether the `description` is a string (the hook `lint --fix` writes).
    pub fn has_description(&self) -> bool {
        self.has_description
    }

    /// The `description` as text (any value, [`Value::js_string`]), when there
    /// is one and these facts keep it ([`FileFacts::with_description`]).
    pub fn description(&self) -> Option<&str> {
        let start = self.rel_len as usize + self.name().map_or(0, str::len);
        (self.description_len != NONE).then(|| &self.text[start..start + self.description_len as usize])
    }

    /// Let the description's text go: the path and name are copied into a string
    /// of their own, allocated on this thread (a reader thread's string is freed
    /// into its arena), and [`FileFacts::description`] is `None` from now on.
    pub fn forget_description(&mut self) {
        let end = self.rel_len as usize + self.name().map_or(0, str::len);
        self.text = Box::from(&self.text[..end]);
        self.description_len = NONE;
    }

    /// The file's path, `dir` being the linted dir.
    pub fn path(&self, dir: &Path) -> PathBuf {
        dir.join(self.rel())
    }

    /// The `name` when it is a string.
    pub fn title(&self) -> Option<&str> {
        self.name().filter(|_| self.name_is_string)
    }

    /// The base name without `.md`.
    pub fn stem(&self) -> &str {
        let rel = self.rel();
        let base = rel.rsplit('/').next().unwrap_or(rel);
        base.strip_suffix(".md").unwrap_or(base)
    }
}

impl AsRef<FileFacts> for FileFacts {
    fn as_ref(&self) -> &FileFacts {
        self
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
        FileFacts::rel(self)
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
        assert_eq!((f.rel(), f.stem(), f.title()), ("sub/a.md", "a", Some("Alpha")));
        assert_eq!((f.name(), f.has_description()), (Some("Alpha"), true));
        assert!(f.hub);
        assert_eq!(f.claude_type, Some(MemoryType::User));
        let n = FileFacts::of(&Memory::from_text("b.md", "---\nname: 12\ndescription: [x]\n---\n"));
        // (2.1.332) A non-string name is no name.
        assert_eq!((n.name(), n.title(), n.has_description()), (None, None, false));
        let none = FileFacts::of(&Memory::from_text("c.md", "---\ndescription: only this\n---\n"));
        assert_eq!((none.name(), none.has_description()), (None, true));
        assert_eq!(std::mem::size_of::<FileFacts>(), 40);
        // Only kept on request: then after the name, or the path when no name.
        assert_eq!(none.description(), None);
        let kept = FileFacts::with_description(&m);
        assert_eq!(
            (kept.rel(), kept.name(), kept.description()),
            ("sub/a.md", Some("Alpha"), Some("the hook"))
        );
        let c = Memory::from_text("c.md", "---\ndescription: only this\n---\n");
        let kept = FileFacts::with_description(&c);
        assert_eq!(
            (kept.rel(), kept.name(), kept.description()),
            ("c.md", None, Some("only this"))
        );
        let kept = FileFacts::with_description(&Memory::from_text("d.md", "---\nname: n\n---\n"));
        assert_eq!((kept.name(), kept.description()), (Some("n"), None));
    }
}
