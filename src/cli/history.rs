//! `memctl history`: its arguments, declared for clap, and the examples of its
//! long help and man page.

use clap::Args;

#[derive(Debug, Args)]
pub struct HistoryArgs {
    /// Only snapshots that changed this memory (also a deleted one)
    #[arg(value_name = "REF")]
    pub reference: Option<String>,

    /// Show at most N snapshots
    #[arg(long, value_name = "N", default_value_t = 50)]
    pub limit: usize,
}

pub(super) const EXAMPLES: &str = "\
Examples:
  The last 50 changes of this project's memory:
    memctl history
  Every snapshot that touched one memory, even a deleted one:
    memctl history feedback_testing_policy";
