//! `memctl forget`: its arguments, declared for clap, and the examples of its
//! long help and man page.

use clap::Args;

#[derive(Debug, Args)]
pub struct ForgetArgs {
    /// The memories to forget, by relative path, file stem or frontmatter name
    #[arg(value_name = "REF", required = true)]
    pub references: Vec<String>,

    /// Do not ask for confirmation (required without a terminal)
    #[arg(long, short = 'y')]
    pub yes: bool,

    /// Show what would be moved and the index diff; change nothing
    #[arg(long, short = 'n')]
    pub dry_run: bool,

    /// Write even while a live auto-dream holds the lock, and remove index lines
    /// that also link other memories
    #[arg(long)]
    pub force: bool,
}

pub(super) const EXAMPLES: &str = "\
Examples:
  Remove a memory and its index line, after confirming:
    memctl forget project_merge_freeze
  Preview what would be removed, and the index diff:
    memctl forget project_merge_freeze --dry-run
  Without a terminal (scripts):
    memctl forget reference_linear_ingest --yes";
