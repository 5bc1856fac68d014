//! `memctl diff`: its arguments, declared for clap, and the examples of its
//! long help and man page.

use clap::Args;

#[derive(Debug, Args)]
pub struct DiffArgs {
    /// Only this memory
    #[arg(value_name = "REF")]
    pub reference: Option<String>,

    /// From this state: a snapshot id (7+ hex digits), @~N, or a time (2026-03-10, 3h, 2d)
    #[arg(long, value_name = "SNAP", conflicts_with = "dream")]
    pub from: Option<String>,

    /// To this state (default: the dir now)
    #[arg(long, value_name = "SNAP", conflicts_with = "dream")]
    pub to: Option<String>,

    /// Print changed files with line counts only
    #[arg(long)]
    pub stat: bool,

    /// The changes of the last dream run
    #[arg(long)]
    pub dream: bool,
}

pub(super) const EXAMPLES: &str = "\
Examples:
  What changed since the last snapshot:
    memctl diff
  What the last dream did:
    memctl diff --dream
  One memory, between yesterday and now, as counts:
    memctl diff feedback_testing_policy --from 1d --stat";
