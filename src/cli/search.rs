//! `memctl search`: its arguments, declared for clap, and the examples of its
//! long help and man page.

use clap::Args;

#[derive(Debug, Args)]
pub struct SearchArgs {
    /// Words every match must contain (case-insensitive, accents folded)
    #[arg(value_name = "QUERY", required = true, num_args = 1..)]
    pub query: Vec<String>,

    /// Search the memory dirs of every project (see `memctl projects`)
    #[arg(long)]
    pub all_projects: bool,

    /// Only these types: user, feedback, project, reference, none (repeatable or comma-separated)
    #[arg(long = "type", short = 't', value_name = "T", value_delimiter = ',')]
    pub types: Vec<String>,

    /// Show at most N results (0: all)
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub limit: usize,
}

pub(super) const EXAMPLES: &str = "\
Examples:
  Memories about the deploy freeze:
    memctl search deploy freeze
  Open every match in vim's quickfix list (piped output is path:line:text):
    vim -q <(memctl search --limit 0 deploy)
  Only feedback, across every project:
    memctl search --all-projects -t feedback testing";
