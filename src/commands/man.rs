//! `memctl man [COMMAND]` (SPEC §3.13).

use std::process::ExitCode;

use anyhow::Result;

use crate::cli::ManArgs;
use crate::generate;
use crate::output::Output;

pub fn run(args: &ManArgs, out: &mut Output) -> Result<ExitCode> {
    out.write_bytes(&generate::man_page(args.command.as_deref())?)?;
    Ok(ExitCode::SUCCESS)
}
