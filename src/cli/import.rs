//! `memctl import`: its arguments, declared for clap, and the examples of its
//! long help and man page.

use clap::{Args, ValueHint};

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The bundle written by `memctl export`
    #[arg(value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub file: std::path::PathBuf,

    /// The memory dir to import into (for a bundle of one project)
    #[arg(long, value_name = "DIR", value_hint = ValueHint::DirPath)]
    pub into: Option<std::path::PathBuf>,

    /// Print what would be imported; change nothing
    #[arg(long, short = 'n')]
    pub dry_run: bool,

    /// Do not ask for confirmation (required without a terminal)
    #[arg(long, short = 'y')]
    pub yes: bool,
}

pub(super) const EXAMPLES: &str = "\
Examples:
  See what a bundle would change, then import it:
    memctl import app-memory.tar.gz --dry-run
    memctl import app-memory.tar.gz
  Into a memory dir named by hand (a bundle of one project):
    memctl import scratch.tar.gz --into \"$(memctl path)\" --yes";
