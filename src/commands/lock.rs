//! `memctl lock status` (SPEC §3.12).

use std::process::ExitCode;

use anyhow::Result;

use crate::cli::{LockArgs, LockCommand};
use crate::context::Context;
use crate::dream::MIN_HOURS;
use crate::lock;
use crate::output::Output;

pub fn run(args: &LockArgs, ctx: &Context, out: &mut Output) -> Result<ExitCode> {
    match args.command.as_ref().unwrap_or(&LockCommand::Status) {
        LockCommand::Status => status(ctx, out),
    }
}

fn status(ctx: &Context, out: &mut Output) -> Result<ExitCode> {
    let res = ctx.resolve_main_existing()?;
    if ctx.request.team {
        out.note("--team is ignored: the dream lock lives in the main memory dir");
    }
    let info = lock::inspect(res.memdir.main(), ctx.now_ms());
    if let Some(e) = &info.unreadable {
        out.warn(format!(
            "{} exists but cannot be read ({e}); Claude Code's acquire would fail",
            info.path.display()
        ));
    }
    if info.pid_status == lock::PidStatus::Eperm {
        out.note(format!("PID {} exists but belongs to another user; Claude Code treats it as dead, memctl's writes treat it as live", info.pid.unwrap_or_default()));
    }
    let st = lock::status(info, ctx.now_ms(), MIN_HOURS);
    if out.json {
        out.emit_json(serde_json::to_value(&st)?)?;
    } else {
        out.print(&st.to_text())?;
    }
    Ok(ExitCode::SUCCESS)
}
