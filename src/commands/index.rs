//! `memctl index rebuild` (SPEC §10.1): gather the index, the memories and the
//! hubs → [`crate::ops::rebuild`] → diff, summary, JSON.

use std::process::ExitCode;

use anyhow::Result;

use crate::cli::{IndexArgs, IndexCommand, RebuildArgs};
use crate::context::Context;
use crate::error::{Error, Kind};
use crate::ops::rebuild;
use crate::output::Output;
use crate::store::Writer;

pub fn run(args: &IndexArgs, ctx: &Context, out: &mut Output) -> Result<ExitCode> {
    match &args.command {
        IndexCommand::Rebuild(a) => rebuild_index(a, ctx, out),
    }
}

fn rebuild_index(args: &RebuildArgs, ctx: &Context, out: &mut Output) -> Result<ExitCode> {
    let res = ctx.resolve_existing()?;
    let opts = rebuild::Options {
        history: &ctx.history,
        now: ctx.now,
        budget: args.budget,
        pins: &args.pin,
        hub: &args.hub,
    };
    let plan = rebuild::plan(&res.memdir, &opts)?;
    for w in &plan.warnings {
        out.warn(w.clone());
    }
    let changed = plan.changed();
    if out.json {
        if changed && !args.dry_run {
            confirm(args, out, &plan)?;
            apply(args, ctx, &res, &plan, out)?;
        }
        out.emit_json(serde_json::to_value(plan.document(args.dry_run || !changed))?)?;
        return Ok(ExitCode::SUCCESS);
    }
    if !changed {
        out.print(&format!("{}\n", plan.summary()))?;
        return Ok(ExitCode::SUCCESS);
    }
    out.print(&crate::diff::paint(out.color_stdout, &plan.diff()))?;
    out.print(&format!("{}\n", plan.summary()))?;
    if args.dry_run {
        return Ok(ExitCode::SUCCESS);
    }
    if !confirm(args, out, &plan)? {
        out.note("nothing written");
        return Ok(ExitCode::SUCCESS);
    }
    apply(args, ctx, &res, &plan, out)?;
    out.print(&format!("rebuilt {}\n", plan.index_label()))?;
    Ok(ExitCode::SUCCESS)
}

/// `--yes`, or a yes on a terminal; without a terminal, a usage error.
fn confirm(args: &RebuildArgs, out: &mut Output, plan: &rebuild::Plan) -> Result<bool, Error> {
    if args.yes {
        return Ok(true);
    }
    if !out.interactive() || out.json {
        return Err(Error::new(
            Kind::Usage,
            "index rebuild rewrites MEMORY.md and needs confirmation, and there is no terminal to ask",
        )
        .hint("pass --yes to rebuild without asking, or --dry-run to see the diff"));
    }
    out.ask_yes_no(&format!("Rewrite {}?", plan.index_label()), false)
}

fn apply(
    args: &RebuildArgs,
    ctx: &Context,
    res: &crate::paths::Resolution,
    plan: &rebuild::Plan,
    out: &mut Output,
) -> Result<(), Error> {
    let mut writer = Writer::open(&res.memdir, ctx.now, args.force, &ctx.recording("rebuild", res))?;
    rebuild::apply(plan, &mut writer)?;
    for w in writer.finish() {
        out.warn(w);
    }
    Ok(())
}
