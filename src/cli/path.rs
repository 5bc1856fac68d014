//! `memctl path`: its arguments, declared for clap, and the examples of its
//! long help and man page.

use clap::Args;

#[derive(Debug, Args)]
pub struct PathArgs {
    /// Print the MEMORY.md path instead
    #[arg(long, conflicts_with_all = ["transcripts", "key_for"])]
    pub index: bool,

    /// Print the session transcripts dir instead
    #[arg(long, conflicts_with_all = ["key_for"])]
    pub transcripts: bool,

    /// Explain every step of the resolution
    #[arg(long, conflicts_with_all = ["index", "transcripts", "key_for"])]
    pub explain: bool,

    /// Print the project key Claude Code derives from STRING (lexically)
    #[arg(long, value_name = "STRING", allow_hyphen_values = true)]
    pub key_for: Option<String>,
}

pub(super) const EXAMPLES: &str = "\
Examples:
  Change into this project's memory dir:
    cd \"$(memctl path)\"
  Show every resolution step and why it decided:
    memctl path --explain
  Find where another checkout's memory lives:
    memctl path --key-for /home/alice/src/app";
