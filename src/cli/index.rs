//! `memctl index`: its arguments, declared for clap, and the examples of its
//! long help and man page.

use clap::{Args, Subcommand};

#[derive(Debug, Args)]
pub struct IndexArgs {
    #[command(subcommand)]
    pub command: IndexCommand,
}

#[derive(Debug, Subcommand)]
pub enum IndexCommand {
    /// Rewrite MEMORY.md to load whole within a budget, moving the least important
    /// entries into a hub file it links; no memory is ever unlinked
    #[command(after_long_help = REBUILD_EXAMPLES)]
    Rebuild(RebuildArgs),
}

#[derive(Debug, Args)]
pub struct RebuildArgs {
    /// Percent of both caps (200 lines, 25 000 units) the loaded index may use
    #[arg(long, value_name = "PERCENT", default_value = "70", value_parser = crate::text::parse_percent)]
    pub budget: f64,

    /// Keep this memory's line in MEMORY.md (repeatable; or end its line with `<!-- pin -->`)
    #[arg(long, value_name = "REF")]
    pub pin: Vec<String>,

    /// The hub file entries move into
    #[arg(long, value_name = "FILE", default_value = "reference_memory_index_archive.md")]
    pub hub: String,

    /// Print the diff and the summary; change nothing
    #[arg(long, short = 'n')]
    pub dry_run: bool,

    /// Do not ask for confirmation (required without a terminal)
    #[arg(long, short = 'y')]
    pub yes: bool,

    /// Write even while a live auto-dream holds the lock
    #[arg(long)]
    pub force: bool,
}

pub(super) const EXAMPLES: &str = "\
Examples:
  Fit MEMORY.md into 70 % of Claude Code's caps, preview first:
    memctl index rebuild --dry-run
  Then write it, without asking:
    memctl index rebuild --yes";

const REBUILD_EXAMPLES: &str = "\
Examples:
  Preview the rebuild:
    memctl index rebuild --dry-run
  Rebuild to half the caps, keeping two memories in MEMORY.md:
    memctl index rebuild --budget 50 --pin user_profile --pin feedback_testing_policy --yes";
