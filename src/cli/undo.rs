//! `memctl undo`: its arguments, declared for clap, and the examples of its
//! long help and man page.

use clap::Args;

#[derive(Debug, Args)]
pub struct UndoArgs {
    /// The snapshot to revert (default: the newest that is not the baseline)
    #[arg(value_name = "SNAP", conflicts_with = "dream")]
    pub snapshot: Option<String>,

    /// Revert the whole last dream run
    #[arg(long)]
    pub dream: bool,

    /// Show what would be reverted; change nothing
    #[arg(long, short = 'n')]
    pub dry_run: bool,

    /// Do not ask for confirmation (required without a terminal)
    #[arg(long, short = 'y')]
    pub yes: bool,

    /// Revert files changed again since, too; write while a live auto-dream holds the lock
    #[arg(long)]
    pub force: bool,
}

pub(super) const EXAMPLES: &str = "\
Examples:
  Revert the newest change (asks first on a terminal):
    memctl undo
  Revert everything the last dream did, without asking:
    memctl undo --dream --yes
  Preview reverting one snapshot:
    memctl undo 3f2a9c1 --dry-run";
