//! `memctl list`: its arguments, declared for clap, and the examples of its
//! long help and man page.

use clap::{Args, ValueEnum};

/// Output formats of `list`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ListFormat {
    /// A table on a terminal, tab-separated records otherwise
    Table,
    /// Exactly the manifest Claude Code shows the model
    Manifest,
    /// One JSON document
    Json,
    /// One absolute path per line
    Paths,
}

#[derive(Debug, Args)]
pub struct ListArgs {
    /// Only these types: user, feedback, project, reference, none (repeatable or comma-separated)
    #[arg(long = "type", short = 't', value_name = "T", value_delimiter = ',')]
    pub types: Vec<String>,

    /// Output format [default: table, or json with --json]
    #[arg(long, short = 'f', value_enum, value_name = "FORMAT")]
    pub format: Option<ListFormat>,

    /// Lift Claude Code's 200-file cap
    #[arg(long)]
    pub all: bool,

    /// List the memories of every project (see `memctl projects`), grouped by project
    #[arg(long)]
    pub all_projects: bool,

    /// With --format paths: end each path with a NUL byte and print it exactly (no escapes)
    #[arg(long, short = '0')]
    pub null: bool,
}

pub(super) const EXAMPLES: &str = "\
Examples:
  List the memories of the current project, newest first:
    memctl list
  Only the feedback memories, as absolute paths:
    memctl list -t feedback -f paths
  The manifest exactly as Claude Code shows it to the model:
    memctl list --format manifest";
