//! `memctl restore REF [--at SNAP] [--dry-run] [--force]` (SPEC §8.3).

use std::process::ExitCode;

use anyhow::Result;

use crate::cli::RestoreArgs;
use crate::context::Context;
use crate::memory;
use crate::ops::restore::{self, Report};
use crate::output::Output;
use crate::store::Writer;

pub fn run(args: &RestoreArgs, ctx: &Context, out: &mut Output) -> Result<ExitCode> {
    // A control character may name a file that was there (a name with a newline,
    // as `forget` prints it in `$'…'`): it is looked up, never written from the
    // REF itself (the copy's own path is). The other rules still apply.
    memory::ensure_valid_name(&args.reference.replace(|c: char| c.is_control(), "_"), false)?;
    let res = ctx.resolve_existing()?;
    let mut warnings = Vec::new();
    let source = restore::find(
        &res.memdir,
        &args.reference,
        args.at.as_deref(),
        &ctx.history,
        ctx.now,
        &mut warnings,
    )?;
    let plan = restore::plan(&res.memdir, source, args.force)?;
    for w in warnings.into_iter().chain(plan.warnings.iter().cloned()) {
        out.warn(w);
    }
    let nothing = plan.change.is_none() && plan.new_index.is_none();
    if args.dry_run || plan.conflict.is_some() || nothing {
        let report = plan.report(&plan.index_lines, args.dry_run);
        return render(
            out,
            &report,
            &plan.source.from_label(),
            plan.dir.label_for(&plan.source.rel),
        );
    }
    let mut writer = Writer::open(&plan.dir, ctx.now, args.force, &ctx.recording("restore", &res))?;
    writer.require_history("restore")?;
    let placed = restore::apply(&plan, &mut writer)?;
    for w in writer.finish() {
        out.warn(w);
    }
    let report = plan.report(&placed, false);
    render(
        out,
        &report,
        &plan.source.from_label(),
        plan.dir.label_for(&plan.source.rel),
    )
}

/// The report: JSON, a short text on a terminal, one record per restored file
/// (`file`, `change`, `mtime`, tab-separated) when piped. Exit 1 on a conflict.
pub fn render(out: &mut Output, r: &Report, from: &str, label: &str) -> Result<ExitCode> {
    let code = if r.conflicts.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    };
    if out.json {
        out.emit_json(serde_json::to_value(r)?)?;
        return Ok(code);
    }
    for c in &r.conflicts {
        out.warn(format!("conflict: {}", c.reason));
    }
    if !out.stdout_tty {
        for f in &r.restored {
            out.print(&format!(
                "{}\t{}\t{}\n",
                crate::text::escape_name(&f.file),
                f.change.as_str(),
                f.mtime.as_deref().unwrap_or("")
            ))?;
        }
        return Ok(code);
    }
    let verb = if r.dry_run { "would restore" } else { "restored" };
    let width = crate::output::terminal_width();
    for f in &r.restored {
        let what = f.change.as_str().to_string();
        out.print(&format!(
            "{verb} {} from {from} ({what})\n",
            crate::text::escape_name(&f.file)
        ))?;
        if let Some(m) = &f.mtime {
            out.print(&format!("  mtime {}\n", m.replace('T', " ").replace('Z', " UTC")))?;
        }
    }
    for l in &r.index_lines {
        let verb = if r.dry_run { "would add" } else { "added" };
        let text = format!("  {verb} {label}:{}: {}", l.line, l.text);
        out.print(&format!("{}\n", crate::output::fit_end(&text, width)))?;
    }
    if r.restored.is_empty() && r.index_lines.is_empty() && r.conflicts.is_empty() {
        out.print(&format!("nothing to restore: it is as in {from}\n"))?;
    }
    Ok(code)
}
