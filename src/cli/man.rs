//! `memctl man`: its arguments, declared for clap, and the examples of its
//! long help and man page.

use clap::Args;

#[derive(Debug, Args)]
pub struct ManArgs {
    /// The command whose page to print (e.g. lint, lock-status) [default: memctl's own]
    #[arg(value_name = "COMMAND")]
    pub command: Option<String>,
}

pub(super) const EXAMPLES: &str = "\
Examples:
  Read memctl's man page:
    memctl man | man -l -
  Read one command's page:
    memctl man lint | man -l -
  Install a page where man(1) finds it:
    memctl man lock-status > ~/.local/share/man/man1/memctl-lock-status.1";
