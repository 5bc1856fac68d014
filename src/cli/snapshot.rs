//! `memctl snapshot`: its arguments, declared for clap, and the examples of its
//! long help and man page.

use clap::Args;

#[derive(Debug, Args)]
pub struct SnapshotArgs {
    /// A note kept in the snapshot's message
    #[arg(long, short = 'm', value_name = "TEXT")]
    pub message: Option<String>,

    /// Take a snapshot of every project with memories (see `memctl projects`)
    #[arg(long)]
    pub all_projects: bool,
}

pub(super) const EXAMPLES: &str = "\
Examples:
  Record the memory dir now, with a note:
    memctl snapshot -m \"before cleaning up\"
  From a cron job or CI, as JSON:
    memctl snapshot --json";
