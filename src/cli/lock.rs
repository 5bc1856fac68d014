//! `memctl lock`: its arguments, declared for clap, and the examples of its
//! long help and man page.

use clap::{Args, Subcommand};

#[derive(Debug, Args)]
pub struct LockArgs {
    /// What to do with the lock [default: status]
    #[command(subcommand)]
    pub command: Option<LockCommand>,
}

#[derive(Debug, Subcommand)]
pub enum LockCommand {
    /// Show the lock's state and what Claude Code's next acquire would do
    #[command(after_long_help = STATUS_EXAMPLES)]
    Status,
}

pub(super) const EXAMPLES: &str = "\
Examples:
  Show the auto-dream lock's state:
    memctl lock
  The same, as JSON:
    memctl lock status --json";

const STATUS_EXAMPLES: &str = "\
Examples:
  Show the auto-dream lock's state:
    memctl lock status
  For another project:
    memctl --project ~/src/app lock status";
