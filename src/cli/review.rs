//! `memctl review`: its arguments, declared for clap, and the examples of its
//! long help and man page.

use clap::Args;

#[derive(Debug, Args)]
pub struct ReviewArgs {
    /// Apply these proposals (numbers as printed, e.g. 2,5)
    #[arg(long, value_name = "N,...", value_delimiter = ',')]
    pub apply: Vec<String>,

    /// Do not ask for confirmation (required with --apply without a terminal)
    #[arg(long, short = 'y')]
    pub yes: bool,
}

pub(super) const EXAMPLES: &str = "\
Examples:
  What could move into CLAUDE.md:
    memctl review
  Apply proposals 2 and 5 without asking:
    memctl review --apply 2,5 --yes";
