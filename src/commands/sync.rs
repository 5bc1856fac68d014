//! `memctl sync`: not built yet.

use std::process::ExitCode;

use anyhow::Result;

use crate::cli::SyncArgs;
use crate::context::Context;
use crate::error::{Error, Kind};
use crate::output::Output;

pub fn run(_args: &SyncArgs, _ctx: &Context, _out: &mut Output) -> Result<ExitCode> {
    Err(Error::new(Kind::Usage, "not built yet: sync").into())
}
