//! `memctl forget REF...` (SPEC §3.7).

use std::process::ExitCode;

use anyhow::Result;

use crate::cli::ForgetArgs;
use crate::context::Context;
use crate::diff::unified as unified_diff;
use crate::error::{Error, Kind};
use crate::memory;
use crate::ops::forget::{self, Plan};
use crate::output::Output;
use crate::store::Writer;

pub fn run(args: &ForgetArgs, ctx: &Context, out: &mut Output) -> Result<ExitCode> {
    for r in &args.references {
        memory::ensure_valid_name(r, false)?;
    }
    let res = ctx.resolve_existing()?;
    let plan = forget::plan(&res.memdir, &args.references, args.force)?;
    if !args.yes && !args.dry_run && !out.interactive() {
        return Err(Error::new(
            Kind::Usage,
            "forget needs confirmation, and there is no terminal to ask",
        )
        .hint("pass --yes to forget without asking")
        .into());
    }
    for w in &plan.warnings {
        out.warn(w.clone());
    }
    if args.dry_run {
        return dry_run(&plan, out);
    }
    if out.interactive() && !args.yes && !confirm(&plan)? {
        out.note("nothing forgotten");
        return Ok(ExitCode::SUCCESS);
    }
    let res = ctx.resolve()?;
    let mut writer = Writer::open(&plan.dir, ctx.now, args.force, &ctx.recording("forget", &res))?;
    let (trash, removed) = forget::apply(&plan, &mut writer)?;
    report(
        out,
        &plan,
        &forget::outcome(&plan.dir, &trash, &plan.targets, &removed, false),
    )
}

fn confirm(plan: &Plan) -> Result<bool, Error> {
    let what = plan
        .targets
        .iter()
        .map(|t| {
            let n = plan.removed.get(&t.rel).map_or(0, |l| l.len());
            format!("{} and {n} index line{}", t.rel, if n == 1 { "" } else { "s" })
        })
        .collect::<Vec<_>>()
        .join(", ");
    crate::prompt::yes_no(&format!("Forget {what}?"), false)
}

fn dry_run(plan: &Plan, out: &mut Output) -> Result<ExitCode> {
    let trash = plan.dir.dir().join(".trash").join("<stamp>");
    if !out.json {
        for t in &plan.targets {
            out.print(&format!("would move {} to .trash/<stamp>/{}.deleted\n", t.rel, t.rel))?;
        }
        for (label, old, new) in &plan.diffs {
            out.print(&unified_diff(label, old, new))?;
        }
    }
    report(
        out,
        plan,
        &forget::outcome(&plan.dir, &trash, &plan.targets, &plan.removed, true),
    )
}

fn report(out: &mut Output, plan: &Plan, outcome: &forget::Outcome) -> Result<ExitCode> {
    if out.json {
        out.emit_json(serde_json::to_value(outcome)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    if outcome.dry_run {
        return Ok(ExitCode::SUCCESS);
    }
    for f in &outcome.forgotten {
        let rel_trash = std::path::Path::new(&f.trash_dir)
            .strip_prefix(plan.dir.dir())
            .map_or_else(
                |_| f.trash_dir.trim_end_matches('/').to_string(),
                |p| p.to_string_lossy().into_owned(),
            );
        let n = f.removed_index_lines.len();
        out.print(&format!(
            "forgot {} ({n} index line{})\n  kept in {rel_trash}/\n  restore: {}\n",
            f.file,
            if n == 1 { "" } else { "s" },
            f.restore
        ))?;
    }
    Ok(ExitCode::SUCCESS)
}
