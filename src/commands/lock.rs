//! `memctl lock status` (SPEC §3.12).

use std::process::ExitCode;

use anyhow::Result;

use crate::cli::{LockArgs, LockCommand};
use crate::context::Context;
use crate::lock;
use crate::output::Output;
use crate::paths::flags::{self, OnyxPlover};

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
    // The time gate's threshold: the cached flag's minHours, else 24 (SPEC §2.11).
    let flag = flags::lookup(&ctx.env, res.global_config.as_deref(), flags::ONYX_PLOVER);
    let cached = flag.value().map(OnyxPlover::from_value);
    let (min_hours, _, _) = crate::dream::thresholds(None, None, cached.as_ref());
    let st = lock::status(info, ctx.now_ms(), min_hours);
    if out.json {
        out.emit_json(serde_json::to_value(&st)?)?;
    } else {
        out.print(&st.to_text())?;
    }
    Ok(ExitCode::SUCCESS)
}
