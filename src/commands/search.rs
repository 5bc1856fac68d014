//! `memctl search` (SPEC §9). Being built (issue 18); dispatch only for now.

use std::process::ExitCode;

use anyhow::Result;

use crate::cli::SearchArgs;
use crate::context::Context;
use crate::error::{Error, Kind};
use crate::output::Output;

pub fn run(_args: &SearchArgs, _ctx: &Context, _out: &mut Output) -> Result<ExitCode> {
    Err(Error::new(Kind::Usage, "not built yet: memctl search").into())
}
