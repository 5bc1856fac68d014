//! `memctl completions SHELL` (SPEC §3.13).

use std::process::ExitCode;

use anyhow::Result;

use crate::cli::CompletionsArgs;
use crate::generate;
use crate::output::Output;

pub fn run(args: &CompletionsArgs, out: &mut Output) -> Result<ExitCode> {
    out.write_bytes(&generate::completions(args.shell))?;
    Ok(ExitCode::SUCCESS)
}
