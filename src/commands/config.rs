//! `memctl config` (SPEC §7.5): the effective memory settings, and `set`/`unset`.

use std::process::ExitCode;

use anyhow::Result;

use crate::cli::ConfigArgs;
use crate::context::Context;
use crate::error::{Error, Kind};
use crate::output::Output;

pub fn run(_args: &ConfigArgs, _ctx: &Context, _out: &mut Output) -> Result<ExitCode> {
    Err(Error::new(Kind::Unsupported, "memctl config is not implemented yet").into())
}
