//! `memctl mcp` (SPEC v3 §13): serve the read-only MCP tools on stdio.

use std::process::ExitCode;

use anyhow::Result;

use crate::cli::McpArgs;
use crate::context::Context;

pub fn run(_args: &McpArgs, ctx: &Context) -> Result<ExitCode> {
    crate::mcp::serve(ctx, super::run)?;
    Ok(ExitCode::SUCCESS)
}
