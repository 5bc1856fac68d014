//! `memctl projects`: its arguments, declared for clap, and the examples of its
//! long help and man page.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Args, Subcommand, ValueHint};

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct ProjectsArgs {
    /// Move the memories of one memory dir into another
    #[command(subcommand)]
    pub command: Option<ProjectsCommand>,

    /// Include memory dirs that hold no memories
    #[arg(long)]
    pub all: bool,
}

#[derive(Debug, Subcommand)]
pub enum ProjectsCommand {
    /// Move every memory of FROM into INTO (identical files merge; others get a -2 suffix)
    ///
    /// FROM and INTO are each an existing directory, a key under <config home>/projects/
    /// (a key begins with `-`, so put `--` before it), or a project path.
    #[command(after_long_help = MERGE_EXAMPLES)]
    Merge(MergeArgs),
}

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The memory dir to empty: a dir, a key or a project path
    #[arg(value_name = "FROM", value_hint = ValueHint::DirPath)]
    pub from: OsString,

    /// The memory dir that receives the memories: a dir, a key or a project path
    #[arg(value_name = "INTO", value_hint = ValueHint::DirPath, required_unless_present = "into_dir")]
    pub into: Option<OsString>,

    /// Take DIR as the receiving memory dir as it is, whatever it holds
    #[arg(long, value_name = "DIR", value_hint = ValueHint::DirPath, conflicts_with = "into")]
    pub into_dir: Option<PathBuf>,

    /// Print what would move; change nothing
    #[arg(long, short = 'n')]
    pub dry_run: bool,

    /// Do not ask for confirmation (required without a terminal)
    #[arg(long, short = 'y')]
    pub yes: bool,

    /// Write even while a live auto-dream holds either lock
    #[arg(long)]
    pub force: bool,
}

pub(super) const EXAMPLES: &str = "\
Examples:
  Every project with memories, newest change first:
    memctl projects
  Also the empty ones, as JSON:
    memctl projects --all --json
  Projects whose index Claude Code cuts:
    memctl projects | awk -F'\\t' '$5 == \"true\"'";

const MERGE_EXAMPLES: &str = "\
Examples:
  A repository moved from ~/old/app to ~/src/app; bring its memories along:
    memctl projects merge ~/old/app ~/src/app --dry-run
  By key (a key begins with -, so it follows --):
    memctl projects merge -- -home-alice-old-app ~/src/app";
