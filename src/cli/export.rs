//! `memctl export`: its arguments, declared for clap, and the examples of its
//! long help and man page.

use clap::{Args, ValueHint};

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The bundle to write (a .tar.gz)
    #[arg(long, short = 'o', value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub output: std::path::PathBuf,

    /// Export every project with memories (see `memctl projects`)
    #[arg(long, conflicts_with = "as_id")]
    pub all_projects: bool,

    /// The identity to record for a project that has none (no git remote, no commit)
    #[arg(long = "as", value_name = "ID")]
    pub as_id: Option<String>,

    /// Secret-like tokens (lint ML121) refuse as strict_refused (exit 1) instead of exit 2
    #[arg(long)]
    pub strict: bool,

    /// Write memories that hold secret-like tokens (lint ML121) into the bundle; refused by default
    #[arg(long, conflicts_with = "strict")]
    pub allow_secrets: bool,
}

pub(super) const EXAMPLES: &str = "\
Examples:
  This project's memory, for another machine:
    memctl export -o app-memory.tar.gz
  Every project, refusing if a memory holds a token:
    memctl export --all-projects --strict -o all-memory.tar.gz
  A project with no git remote, named by hand (use the same ID on every machine):
    memctl export --as notes/scratch -o scratch.tar.gz";
