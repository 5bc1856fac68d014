//! `memctl review`: not built yet.

use std::process::ExitCode;

use anyhow::Result;

use crate::cli::ReviewArgs;
use crate::context::Context;
use crate::error::{Error, Kind};
use crate::output::Output;

pub fn run(_args: &ReviewArgs, _ctx: &Context, _out: &mut Output) -> Result<ExitCode> {
    Err(Error::new(Kind::Usage, "not built yet: review").into())
}
