//! `memctl history` (SPEC §8.3).

use std::process::ExitCode;

use anyhow::Result;

use crate::cli::HistoryArgs;
use crate::context::Context;
use crate::error::{Error, Kind};
use crate::output::Output;

pub fn run(_args: &HistoryArgs, _ctx: &Context, _out: &mut Output) -> Result<ExitCode> {
    Err(Error::new(Kind::Unsupported, "not built yet").into())
}
