//! `memctl projects` (SPEC §9). Being built (issue 18); dispatch only for now.

use std::process::ExitCode;

use anyhow::Result;

use crate::cli::MergeArgs;
use crate::context::Context;
use crate::error::{Error, Kind};
use crate::output::Output;

pub fn run(_args: &MergeArgs, _ctx: &Context, _out: &mut Output) -> Result<ExitCode> {
    Err(Error::new(Kind::Usage, "not built yet: memctl projects merge").into())
}
