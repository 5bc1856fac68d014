//! `memctl undo [SNAP] [--dream] [--dry-run] [--yes] [--force]` (SPEC §8.3).

use std::process::ExitCode;

use anyhow::Result;

use crate::cli::UndoArgs;
use crate::context::Context;
use crate::error::{Error, Kind};
use crate::ops::undo::{self, Plan, Target};
use crate::output::Output;
use crate::store::Writer;

pub fn run(args: &UndoArgs, ctx: &Context, out: &mut Output) -> Result<ExitCode> {
    // The store is the main dir's (the team dir's files are in it): undo acts on both.
    let res = ctx.resolve_main_existing()?;
    let target = match (&args.snapshot, args.dream) {
        (_, true) => Target::Dream,
        (Some(s), false) => Target::Named(s),
        (None, false) => Target::Newest,
    };
    let project = ctx.recording("undo", &res).project;
    for w in undo::record_pending(res.memdir.main(), &ctx.history, project.as_deref(), ctx.now)? {
        out.warn(w);
    }
    let plan = undo::plan(res.memdir.main(), &ctx.history, target, args.force, ctx.now)?;
    for w in &plan.warnings {
        out.warn(w.clone());
    }
    if plan.is_empty() || args.dry_run {
        if plan.is_empty() && !out.json {
            out.note(format!("nothing to undo for {}", plan.describe()));
        }
        return render(out, &plan, args.dry_run);
    }
    if !args.yes && !out.interactive() {
        return Err(Error::new(
            Kind::Usage,
            format!(
                "undo needs confirmation, and there is no terminal to ask: it would revert {}",
                plan.describe()
            ),
        )
        .hint("pass --yes to undo without asking, or --dry-run to see what it would do")
        .into());
    }
    if !args.yes && !confirm(&plan)? {
        out.note("nothing undone");
        return Ok(ExitCode::SUCCESS);
    }
    let mut writer = Writer::open(&plan.dir, ctx.now, args.force, &ctx.recording("undo", &res))?;
    writer.require_history("undo")?;
    undo::apply(&plan, &mut writer)?;
    for w in writer.finish() {
        out.warn(w);
    }
    render(out, &plan, false)
}

fn confirm(plan: &Plan) -> Result<bool, Error> {
    let count = |k: crate::history::ChangeKind| plan.changes().filter(|c| *c == k).count();
    let mut parts = Vec::new();
    for (k, what) in [
        (crate::history::ChangeKind::Added, "bring back"),
        (crate::history::ChangeKind::Deleted, "remove"),
        (crate::history::ChangeKind::Modified, "revert"),
        (crate::history::ChangeKind::Touched, "reset the mtime of"),
    ] {
        let n = count(k);
        if n > 0 {
            parts.push(format!("{what} {n} file{}", if n == 1 { "" } else { "s" }));
        }
    }
    let mut q = format!("Undo {}: {}", plan.describe(), parts.join(", "));
    if !plan.conflicts.is_empty() {
        q.push_str(&format!(
            " ({} conflict{} left alone)",
            plan.conflicts.len(),
            if plan.conflicts.len() == 1 { "" } else { "s" }
        ));
    }
    q.push('?');
    crate::prompt::yes_no(&q, false)
}

fn render(out: &mut Output, plan: &Plan, dry_run: bool) -> Result<ExitCode> {
    let r = plan.report(dry_run);
    let code = if r.conflicts.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    };
    if out.json {
        out.emit_json(serde_json::to_value(&r)?)?;
        return Ok(code);
    }
    for c in &r.conflicts {
        out.warn(format!("conflict: {}: {}", c.file, c.reason));
    }
    let kind = |k: crate::history::ChangeKind| k.as_str().to_string();
    if !out.stdout_tty {
        for f in &r.restored {
            out.print(&format!(
                "{}\t{}\t{}\n",
                crate::text::escape_name(&f.file),
                kind(f.change),
                f.mtime.as_deref().unwrap_or("")
            ))?;
        }
        return Ok(code);
    }
    if !r.restored.is_empty() {
        let verb = if dry_run { "would undo" } else { "undid" };
        out.print(&format!("{verb} {}\n", plan.describe()))?;
    }
    for f in &r.restored {
        out.print(&format!(
            "  {} {}  {}\n",
            f.change.mark(),
            crate::text::escape_name(&f.file),
            kind(f.change)
        ))?;
    }
    Ok(code)
}
