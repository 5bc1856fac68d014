//! `memctl add`: its arguments, declared for clap, and the examples of its
//! long help and man page.

use std::path::PathBuf;

use clap::{Args, ValueHint};

#[derive(Debug, Args)]
pub struct AddArgs {
    /// Memory type: user, feedback, project or reference
    #[arg(long = "type", short = 't', value_name = "T")]
    pub memory_type: Option<String>,

    /// Name (one line, 1–100 characters)
    #[arg(long, value_name = "TEXT")]
    pub name: Option<String>,

    /// One-line description, the manifest's hook (1–500 characters)
    #[arg(long, value_name = "TEXT")]
    pub description: Option<String>,

    /// The memory's content
    #[arg(long, value_name = "TEXT", conflicts_with = "body_file")]
    pub body: Option<String>,

    /// Read the content from a file, or - for standard input
    #[arg(long, value_name = "PATH", value_hint = ValueHint::FilePath)]
    pub body_file: Option<PathBuf>,

    /// Why the rule or fact holds (feedback and project only)
    #[arg(long, value_name = "TEXT")]
    pub why: Option<String>,

    /// How to apply it (feedback and project only)
    #[arg(long, value_name = "TEXT")]
    pub how: Option<String>,

    /// Compose the content in the editor
    #[arg(long, conflicts_with_all = ["body", "body_file"])]
    pub edit: bool,

    /// File name instead of the generated <type>_<slug>.md
    #[arg(long, value_name = "NAME")]
    pub file: Option<String>,

    /// Index line title [default: the name]
    #[arg(long, value_name = "TEXT")]
    pub title: Option<String>,

    /// Index line hook [default: the description]
    #[arg(long, value_name = "TEXT")]
    pub hook: Option<String>,

    /// Do not touch MEMORY.md
    #[arg(long)]
    pub no_index: bool,

    /// Refuse to write when there is any warning
    #[arg(long)]
    pub strict: bool,

    /// Print the file and the index diff; write nothing
    #[arg(long, short = 'n')]
    pub dry_run: bool,

    /// Put the index line at the top of MEMORY.md instead of in its type's section
    #[arg(long, conflicts_with = "no_index")]
    pub at_top: bool,

    /// Write even while a live auto-dream holds the lock, and even when the index
    /// line would be cut or push another entry past the cut
    #[arg(long)]
    pub force: bool,
}

pub(super) const EXAMPLES: &str = "\
Examples:
  Add a memory, asking for what is missing:
    memctl add
  Add a feedback memory without prompts:
    memctl add -t feedback --name \"Terse summaries\" --description \"Keep end-of-task summaries short\" --why \"the user skims them\" --how \"three bullets at most\" --body \"Summaries stay short.\"
  See the file and the index change first:
    memctl add -t user --name Profile --description \"Backend engineer\" --body \"Go and Postgres.\" --dry-run";
