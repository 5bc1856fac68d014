//! `memctl show`: its arguments, declared for clap, and the examples of its
//! long help and man page.

use clap::Args;

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The memory to show, by relative path, file stem or frontmatter name
    #[arg(value_name = "REF")]
    pub reference: String,

    /// Write the file's bytes unchanged, nothing else
    #[arg(long)]
    pub raw: bool,
}

pub(super) const EXAMPLES: &str = "\
Examples:
  Show a memory by its file stem:
    memctl show feedback_testing_policy
  By its frontmatter name (exact, then case-insensitive):
    memctl show \"merge freeze\"
  The file's bytes, unchanged:
    memctl show project_auth_rewrite --raw";
