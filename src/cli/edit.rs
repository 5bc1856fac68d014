//! `memctl edit`: its arguments, declared for clap, and the examples of its
//! long help and man page.

use std::path::PathBuf;

use clap::{Args, ValueHint};

#[derive(Debug, Args)]
pub struct EditArgs {
    /// The memory to edit, by relative path, file stem or frontmatter name
    #[arg(value_name = "REF", required_unless_present = "index", conflicts_with = "index")]
    pub reference: Option<String>,

    /// Edit MEMORY.md (the team index with --team)
    #[arg(long)]
    pub index: bool,

    /// With --index: create a missing MEMORY.md without asking
    #[arg(long, short = 'y')]
    pub yes: bool,

    /// With --index: exit 1 when Claude Code would truncate the saved index
    #[arg(long)]
    pub strict: bool,

    /// Save even while a live auto-dream holds the lock
    #[arg(long)]
    pub force: bool,

    /// Save DRAFT (one kept after a failed edit) instead of starting the editor;
    /// it is checked and saved like an edit
    #[arg(long, value_name = "DRAFT", value_hint = ValueHint::FilePath)]
    pub from: Option<PathBuf>,
}

pub(super) const EXAMPLES: &str = "\
Examples:
  Edit a memory in $VISUAL or $EDITOR:
    memctl edit feedback_testing_policy
  Edit the index, MEMORY.md:
    memctl edit --index
  Edit the team index, failing if Claude Code would truncate it:
    memctl --team edit --index --strict";
