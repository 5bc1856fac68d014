//! The index against Claude Code's caps, as `truncate-check` reports it: the plan's
//! `caps` and the index figures of its Orient phase.

use std::path::Path;

use serde::Serialize;

use crate::index::check::{Checked, checked};
use crate::index::load::Load;
use crate::index::report::JSON_DROPPED;

/// `MEMORY.md` modelled as Claude Code loads it.
pub struct Caps(Checked);

impl Caps {
    /// Model the main index, whose text is `text`, in the memory dir `dir`.
    pub fn of_index(dir: &Path, text: &str) -> Caps {
        Caps(checked("MEMORY.md".into(), Some(dir.join("MEMORY.md")), text))
    }

    /// What Claude Code loads of it.
    pub fn load(&self) -> &Load {
        &self.0.load
    }

    /// How many entries are dropped in all.
    pub fn dropped_total(&self) -> usize {
        self.0.dropped_total
    }
}

/// The `truncate-check --json` object, with ML207's threshold as `warn_at`.
impl Serialize for Caps {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.report(Some(super::WARN_AT), JSON_DROPPED).serialize(s)
    }
}

impl std::fmt::Debug for Caps {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Caps").field("load", self.load()).finish()
    }
}
