//! `memctl restore`: its arguments, declared for clap, and the examples of its
//! long help and man page.

use clap::Args;

#[derive(Debug, Args)]
pub struct RestoreArgs {
    /// The memory to bring back, by relative path, file stem or frontmatter name
    #[arg(value_name = "REF")]
    pub reference: String,

    /// From this snapshot (default: the newest one that has it)
    #[arg(long, value_name = "SNAP")]
    pub at: Option<String>,

    /// Show what would be restored; change nothing
    #[arg(long, short = 'n')]
    pub dry_run: bool,

    /// Overwrite a file with different content; write while a live auto-dream holds the lock
    #[arg(long)]
    pub force: bool,
}

pub(super) const EXAMPLES: &str = "\
Examples:
  Bring back a forgotten memory:
    memctl restore feedback_testing_policy.md
  As it was in a given snapshot, preview first:
    memctl restore project_auth_rewrite --at 3f2a9c1 --dry-run";
