//! `memctl forget REF...` (SPEC §3.7).

use std::process::ExitCode;

use anyhow::Result;

use crate::cli::ForgetArgs;
use crate::context::Context;
use crate::diff::unified as unified_diff;
use crate::error::{Error, Kind};
use crate::memory;
use crate::ops::forget::{self, Kept, Plan};
use crate::ops::survey::Seen;
use crate::output::Output;
use crate::store::Writer;

pub fn run(args: &ForgetArgs, ctx: &Context, out: &mut Output) -> Result<ExitCode> {
    for r in &args.references {
        memory::ensure_valid_name(r, false)?;
    }
    let res = ctx.resolve_existing()?;
    let cache = crate::ops::survey::cache_root(&ctx.env, &ctx.history, args.dry_run);
    if args.yes && !args.dry_run {
        return forget_now(args, ctx, out, &res, cache.as_deref());
    }
    let plan = forget::plan_cached(&res.memdir, &args.references, args.force, cache.as_deref())?;
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
        return dry_run(&plan, ctx, out);
    }
    if out.interactive() && !args.yes && !confirm(&plan)? {
        out.note("nothing forgotten");
        return Ok(ExitCode::SUCCESS);
    }
    let res = ctx.resolve()?;
    let mut writer = Writer::open(&plan.dir, ctx.now, args.force, &ctx.recording("forget", &res))?;
    forget_through(&plan, &mut writer, ctx, out)
}

/// `forget --yes`: the memories are found first, then the lock is taken and the
/// rest planned under it, the survey (hubs, links left) taking the dir's files
/// from the before-snapshot's walk: one walk of the dir, not two. A refused plan
/// writes nothing to the dir (its before-snapshot records what others changed).
fn forget_now(
    args: &ForgetArgs,
    ctx: &Context,
    out: &mut Output,
    res: &crate::paths::Resolution,
    cache: Option<&std::path::Path>,
) -> Result<ExitCode> {
    let dir = &res.memdir;
    let targets = forget::targets(dir, &args.references)?;
    let mut seen = (!dir.is_team()).then(Seen::default);
    let visit: &mut crate::history::tracked::Visit = &mut |e, rel, ft, md| {
        if let Some(s) = seen.as_mut() {
            s.visit(e, rel, ft, md);
        }
    };
    let rec = ctx.recording("forget", res);
    let mut writer = Writer::open_visiting(dir, ctx.now, args.force, &rec, Some(visit))?;
    let plan = forget::plan_targets(dir, targets, args.force, (cache, seen), false)?;
    for w in &plan.warnings {
        out.warn(w.clone());
    }
    forget_through(&plan, &mut writer, ctx, out)
}

/// Forget what `plan` names through `writer` (its lock held), and say so.
fn forget_through(plan: &Plan, writer: &mut Writer, ctx: &Context, out: &mut Output) -> Result<ExitCode> {
    let (kept, removed) = forget::apply(plan, writer)?;
    for w in writer.finish() {
        out.warn(w);
    }
    report(
        out,
        plan,
        &forget::outcome(&plan.dir, &kept, &plan.targets, &removed, false, &memctl(ctx)),
    )
}

/// `memctl` with the global options the user gave that name the memory dir, for
/// the printed restore command (SPEC §3.13).
fn memctl(ctx: &Context) -> String {
    let mut s = String::from("memctl");
    // Inside a memory dir, the restore command names it (it may be run elsewhere).
    let dir = ctx.request.dir.clone().or_else(|| ctx.inside().map(Into::into));
    if let Some(d) = &dir {
        s.push_str(&format!(" --dir {}", forget::shell_word(&d.to_string_lossy())));
    }
    if let Some(p) = &ctx.request.project {
        s.push_str(&format!(" --project {}", forget::shell_word(&p.to_string_lossy())));
    }
    if ctx.request.team {
        s.push_str(" --team");
    }
    s
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

fn dry_run(plan: &Plan, ctx: &Context, out: &mut Output) -> Result<ExitCode> {
    let kept = if ctx.history.is_on() {
        Kept::History(None)
    } else {
        Kept::Trash(plan.dir.dir().join(".trash").join("<stamp>"))
    };
    if !out.json {
        for t in &plan.targets {
            match kept {
                Kept::History(_) => out.print(&format!(
                    "would remove {} (its copy stays in history)\n",
                    crate::text::escape_name(&t.rel)
                ))?,
                Kept::Trash(_) => {
                    let rel = crate::text::escape_name(&t.rel);
                    out.print(&format!("would move {rel} to .trash/<stamp>/{rel}.deleted\n"))?
                }
            }
        }
        for (label, old, new) in &plan.diffs {
            out.print(&crate::diff::paint(out.color_stdout, &unified_diff(label, old, new)))?;
        }
    }
    report(
        out,
        plan,
        &forget::outcome(&plan.dir, &kept, &plan.targets, &plan.removed, true, &memctl(ctx)),
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
        let kept = match (&f.trash_dir, &f.snapshot) {
            (Some(dir), _) => {
                let rel = std::path::Path::new(dir).strip_prefix(plan.dir.dir()).map_or_else(
                    |_| dir.trim_end_matches('/').to_string(),
                    |p| p.to_string_lossy().into_owned(),
                );
                format!("{rel}/")
            }
            (None, Some(id)) => format!("history (snapshot {id})"),
            (None, None) => "history".to_string(),
        };
        let n = f.removed_index_lines.len();
        out.print(&format!(
            "forgot {} ({n} index line{})\n  kept in {kept}\n  restore: {}\n",
            crate::text::escape_name(&f.file),
            if n == 1 { "" } else { "s" },
            f.restore
        ))?;
    }
    Ok(ExitCode::SUCCESS)
}
