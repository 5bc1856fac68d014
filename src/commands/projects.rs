//! `memctl projects` (SPEC §9). Being built (issue 18); dispatch only for now.

use std::process::ExitCode;

use anyhow::Result;

use crate::cli::ProjectsArgs;
use crate::context::Context;
use crate::error::{Error, Kind};
use crate::output::Output;

pub fn run(_args: &ProjectsArgs, _ctx: &Context, _out: &mut Output) -> Result<ExitCode> {
    Err(Error::new(Kind::Usage, "not built yet: memctl projects").into())
}
