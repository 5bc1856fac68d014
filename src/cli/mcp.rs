//! `memctl mcp`: its arguments, declared for clap, and the examples of its
//! long help and man page.

use clap::Args;

#[derive(Debug, Args)]
pub struct McpArgs {}

pub(super) const EXAMPLES: &str = "\
Examples:
  Let Claude Code look up memory in every project (or add the memctl plugin):
    claude mcp add --scope user memctl -- memctl mcp
  Serve one project's memory, wherever the client starts the server:
    memctl --project ~/src/app mcp
  Serve a memory dir kept in the repository:
    memctl --dir .claude/memory mcp";
