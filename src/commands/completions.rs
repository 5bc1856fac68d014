//! `memctl completions SHELL` (SPEC §3.13).

use std::process::ExitCode;

use anyhow::Result;

use crate::cli::CompletionsArgs;
use crate::error::{Error, Kind};
use crate::generate;
use crate::output::Output;

/// `--json` is refused: there is no JSON form of a shell script (issue 32 point 12).
fn refuse_json(out: &Output) -> Result<(), Error> {
    if out.json {
        return Err(Error::new(
            Kind::Usage,
            "--json does not apply to `memctl completions`: it prints a shell script",
        )
        .hint("drop --json"));
    }
    Ok(())
}

pub fn run(args: &CompletionsArgs, out: &mut Output) -> Result<ExitCode> {
    refuse_json(out)?;
    out.write_bytes(&generate::completions(args.shell))?;
    Ok(ExitCode::SUCCESS)
}
