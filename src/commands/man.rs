//! `memctl man [COMMAND]` (SPEC §3.13).

use std::process::ExitCode;

use anyhow::Result;

use crate::cli::ManArgs;
use crate::error::{Error, Kind};
use crate::generate;
use crate::output::Output;

/// `--json` is refused: there is no JSON form of a man page (roff) (issue 32 point 12).
fn refuse_json(out: &Output) -> Result<(), Error> {
    if out.json {
        return Err(Error::new(
            Kind::Usage,
            "--json does not apply to `memctl man`: it prints a man page (roff)",
        )
        .hint("drop --json"));
    }
    Ok(())
}

pub fn run(args: &ManArgs, out: &mut Output) -> Result<ExitCode> {
    refuse_json(out)?;
    out.write_bytes(&generate::man_page(args.command.as_deref())?)?;
    Ok(ExitCode::SUCCESS)
}
