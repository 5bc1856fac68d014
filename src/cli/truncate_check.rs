//! `memctl truncate-check`: its arguments, declared for clap, and the examples of its
//! long help and man page.

use std::path::PathBuf;

use clap::{Args, ValueHint};

#[derive(Debug, Args)]
pub struct TruncateCheckArgs {
    /// The index file to check, or - for standard input [default: the dir's MEMORY.md]
    #[arg(value_name = "PATH", value_hint = ValueHint::FilePath)]
    pub path: Option<PathBuf>,

    /// Print exactly the text the model reads (after Claude Code's clean-up), and nothing else
    #[arg(long)]
    pub print_loaded: bool,

    /// Also exit 1 when lines or units reach PERCENT of a cap
    #[arg(long, value_name = "PERCENT", value_parser = crate::text::parse_percent)]
    pub warn_at: Option<f64>,

    /// Check the index of every project (see `memctl projects`)
    #[arg(long, conflicts_with_all = ["path", "print_loaded"])]
    pub all_projects: bool,
}

pub(super) const EXAMPLES: &str = "\
Examples:
  Check the project's MEMORY.md against Claude Code's caps:
    memctl truncate-check
  Fail early, at 80% of a cap (for CI):
    memctl truncate-check --warn-at 80%
  Print exactly what Claude Code loads from a draft index:
    memctl truncate-check --print-loaded draft.md";
