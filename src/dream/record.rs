//! What `dream --dry-run` keeps of each memory once lint's reader thread has seen
//! it (issue 31): lint's own [`FileFacts`] and the few fields the plan reads, not
//! the whole [`Memory`] with every frontmatter value (at 20 000 files the records
//! were most of the plan's heap).

use std::borrow::Cow;

use crate::lint::FileFacts;
use crate::memory::{Memory, MemoryType};

/// One memory as the plan reads it.
#[derive(Debug)]
pub struct Record {
    /// The path, the `name`, the mtime and the type, as lint keeps them, and the
    /// `description` as text ([`crate::yaml::Value::js_string`]) in the same
    /// string.
    facts: FileFacts,
    /// The frontmatter's `modified` time's bits, when it parses ([`NO_MODIFIED`]
    /// otherwise): 8 bytes, not an `Option<f64>`'s 16.
    modified_bits: u64,
    /// What [`super::duplicates::superseded`] says of it (usually nothing), behind
    /// one thin pointer (8 bytes a record, not a list's 16 or 24).
    #[allow(clippy::box_collection)]
    superseded: Option<Box<Vec<String>>>,
}

/// [`Record::modified_bits`] when there is no `modified` time: a NaN whose
/// payload no parsed time has.
const NO_MODIFIED: u64 = 0x7ff8_6d65_6d63_746c;

impl Record {
    pub fn of(m: &Memory) -> Record {
        let superseded = super::duplicates::superseded_details(m);
        Record {
            facts: FileFacts::with_description(m),
            modified_bits: m.fields.modified_ms().map_or(NO_MODIFIED, f64::to_bits),
            superseded: (!superseded.is_empty()).then(|| Box::new(superseded)),
        }
    }

    /// Path relative to the memory dir, `/`-separated.
    pub fn rel(&self) -> &str {
        self.facts.rel()
    }

    pub fn mtime_ms(&self) -> f64 {
        self.facts.mtime_ms
    }

    /// The `name` Claude Code reads (a non-empty string), as [`Memory::name`].
    pub fn name(&self) -> Option<&str> {
        self.facts.name()
    }

    /// The `description` as text, as [`Memory::description_text`] when present.
    pub fn description(&self) -> Option<&str> {
        self.facts.description()
    }

    /// [`Memory::memory_type`]: since 2.1.332 the type Claude Code's scan sees.
    pub fn memory_type(&self) -> Option<MemoryType> {
        self.facts.claude_type
    }

    /// [`Memory::claude_type`].
    pub fn claude_type(&self) -> Option<MemoryType> {
        self.facts.claude_type
    }

    /// The frontmatter's `modified` time, when it parses.
    pub fn modified_ms(&self) -> Option<f64> {
        (self.modified_bits != NO_MODIFIED).then(|| f64::from_bits(self.modified_bits))
    }

    /// Let the description's text go (only the duplicate search reads it), the
    /// record's strings copied on this thread: [`FileFacts::forget_description`].
    pub fn forget_description(&mut self) {
        self.facts.forget_description();
    }

    /// The details of [`super::duplicates::superseded`] for this memory, in order.
    pub fn superseded(&self) -> &[String] {
        self.superseded.as_deref().map_or(&[], Vec::as_slice)
    }
}

impl crate::scan::Kept for Record {
    fn keep(m: Memory) -> Record {
        Record::of(&m)
    }

    fn mtime_ms(&self) -> f64 {
        Record::mtime_ms(self)
    }

    fn rel(&self) -> &str {
        Record::rel(self)
    }
}

impl AsRef<FileFacts> for Record {
    fn as_ref(&self) -> &FileFacts {
        &self.facts
    }
}

/// What the duplicate search reads of a memory: its path, its `name` (Claude
/// Code's: a non-empty string) and its `description` as text.
pub trait Named {
    fn rel(&self) -> &str;
    fn name(&self) -> Option<Cow<'_, str>>;
    fn description(&self) -> Option<Cow<'_, str>>;
}

impl Named for Memory {
    fn rel(&self) -> &str {
        &self.rel
    }

    fn name(&self) -> Option<Cow<'_, str>> {
        self.fields.name_str().map(Cow::Borrowed)
    }

    fn description(&self) -> Option<Cow<'_, str>> {
        self.fields.description.as_ref().map(|d| Cow::Owned(d.js_string()))
    }
}

impl Named for Record {
    fn rel(&self) -> &str {
        Record::rel(self)
    }

    fn name(&self) -> Option<Cow<'_, str>> {
        Record::name(self).map(Cow::Borrowed)
    }

    fn description(&self) -> Option<Cow<'_, str>> {
        Record::description(self).map(Cow::Borrowed)
    }
}

impl<T: Named> Named for &T {
    fn rel(&self) -> &str {
        (**self).rel()
    }

    fn name(&self) -> Option<Cow<'_, str>> {
        (**self).name()
    }

    fn description(&self) -> Option<Cow<'_, str>> {
        (**self).description()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_is_56_bytes() {
        // 20 000 of them at once in a large dir.
        assert_eq!(std::mem::size_of::<Record>(), 56);
    }

    #[test]
    fn a_record_reads_as_its_memory() {
        let texts = [
            "---\nname: Alpha\ndescription: the  Hook\ntype: user\nmodified: 2026-01-02\n---\nbody\n",
            "---\nname: 12\ndescription: [x, y]\nmetadata:\n  type: project\n---\n",
            "---\ndescription: SUPERSEDED by b\nstatus: Superseded\nsupersedes: old.md\n---\n",
            "no frontmatter\n",
            "---\nname: ''\ndescription: 7\ntype: nonsense\n---\n",
        ];
        for (i, text) in texts.iter().enumerate() {
            let m = Memory::from_text(&format!("d/{i}.md"), text);
            let r = Record::of(&m);
            assert_eq!(r.rel(), m.rel);
            assert_eq!(r.name(), m.name().as_deref());
            assert_eq!(r.description().unwrap_or_default(), m.description_text());
            assert_eq!(r.description().is_some(), m.fields.description.is_some());
            assert_eq!((r.memory_type(), r.claude_type()), (m.memory_type(), m.claude_type()));
            assert_eq!(r.modified_ms(), m.fields.modified_ms());
            let details: Vec<String> = super::super::duplicates::superseded(std::slice::from_ref(&m))
                .into_iter()
                .map(|s| s.detail)
                .collect();
            assert_eq!(r.superseded(), &details[..], "{text}");
        }
    }
}
