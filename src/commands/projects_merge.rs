//! `memctl projects merge FROM INTO` (SPEC §9): locate both dirs → plan
//! ([`crate::ops::merge`]) → show, confirm → apply under both locks → report.

use std::process::ExitCode;

use anyhow::Result;

use crate::cli::MergeArgs;
use crate::context::Context;
use crate::diff::unified;
use crate::error::{Error, Kind};
use crate::ops::merge::{self, Action, Located, Plan};
use crate::output::Output;
use crate::paths::with_sep;
use crate::store::{self, Recording, Writer};

pub fn run(args: &MergeArgs, ctx: &Context, out: &mut Output) -> Result<ExitCode> {
    let from = merge::locate(&args.from, &ctx.env)?;
    let into = match (&args.into_dir, &args.into) {
        (Some(dir), _) => Located::dir(&ctx.env.cwd.join(dir)),
        (None, Some(into)) => merge::locate_into(into, &ctx.env)?,
        (None, None) => {
            return Err(Error::new(Kind::Usage, "INTO is missing")
                .hint("give INTO (a memory dir, a key or a project path) or --into-dir DIR")
                .into());
        }
    };
    merge::ensure_distinct(&from, &into)?;
    let plan = merge::plan(&from.dir, &into.dir)?;
    if plan.moves.is_empty() {
        return finish(out, args, &from, &into, &plan, &[]);
    }
    if !args.dry_run {
        for d in [&from.dir, &into.dir] {
            store::ensure_no_dream(d.main(), ctx.now, args.force)?;
        }
        if !confirm(args, out, &from, &into, &plan)? {
            out.note("nothing written");
            return Ok(ExitCode::SUCCESS);
        }
        let rec = |l: &Located| Recording {
            settings: ctx.history.clone(),
            command: "merge",
            project: l.project.clone(),
        };
        let (rf, ri) = (rec(&from), rec(&into));
        let (mut wf, mut wi) = Writer::open_two(&from.dir, &into.dir, ctx.now, args.force, (&rf, &ri))?;
        // Planned again under both locks: what was shown is what is written.
        let fresh = merge::plan(&from.dir, &into.dir)?;
        if fresh != plan {
            return Err(Error::new(
                Kind::Conflict,
                "FROM or INTO changed since the merge was planned; nothing was written",
            )
            .hint("run the command again")
            .into());
        }
        let mut warnings = merge::apply(&fresh, &mut wf, &mut wi)?;
        warnings.extend(wf.finish());
        warnings.extend(wi.finish());
        return finish(out, args, &from, &into, &fresh, &warnings);
    }
    finish(out, args, &from, &into, &plan, &[])
}

/// `--yes`, or a yes on a terminal after the plan and the index diffs; without a
/// terminal (or with `--json`), a usage error.
fn confirm(args: &MergeArgs, out: &mut Output, from: &Located, into: &Located, plan: &Plan) -> Result<bool> {
    if args.yes {
        return Ok(true);
    }
    if !out.interactive() {
        return Err(Error::new(
            Kind::Usage,
            "projects merge moves memories between dirs and needs confirmation, and there is no terminal to ask",
        )
        .hint("pass --yes to merge without asking, or --dry-run to see the plan")
        .into());
    }
    out.print(&plan_text(from, into, plan, true))?;
    out.print(&diffs(plan))?;
    Ok(out.ask_yes_no(
        &format!(
            "Move {} into {}?",
            match plan.moves.len() {
                1 => "1 memory".to_string(),
                n => format!("{n} memories"),
            },
            with_sep(into.dir.main())
        ),
        false,
    )?)
}

fn finish(
    out: &mut Output,
    args: &MergeArgs,
    from: &Located,
    into: &Located,
    plan: &Plan,
    warnings: &[String],
) -> Result<ExitCode> {
    for w in plan_warnings(plan, args.dry_run || plan.moves.is_empty())
        .into_iter()
        .chain(warnings.iter().cloned())
    {
        out.warn(w);
    }
    if out.json {
        out.emit_json(serde_json::to_value(plan.report(args.dry_run))?)?;
        return Ok(ExitCode::SUCCESS);
    }
    if plan.moves.is_empty() {
        out.print(&format!(
            "nothing to merge: {} holds no memories\n",
            with_sep(from.dir.main())
        ))?;
        return Ok(ExitCode::SUCCESS);
    }
    let interactive = out.interactive() && !args.yes && !args.dry_run;
    if !interactive {
        out.print(&plan_text(from, into, plan, args.dry_run))?;
    }
    if args.dry_run {
        out.print(&diffs(plan))?;
        out.print("dry run: nothing written\n")?;
    } else {
        out.print(&format!(
            "merged {} into {}: {} moved, {} identical, {} renamed\n",
            with_sep(from.dir.main()),
            with_sep(into.dir.main()),
            plan.count(Action::Moved),
            plan.count(Action::MergedIdentical),
            plan.count(Action::Renamed),
        ))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Warnings about the result: a cut index, moved files with no index line.
fn plan_warnings(plan: &Plan, planned: bool) -> Vec<String> {
    let mut w = Vec::new();
    if !plan.cut_entries.is_empty() {
        // Never a refusal (SPEC §3.14): each entry now past the cut, named.
        let rebuild = format!("memctl --dir {} index rebuild", plan.into.main().display());
        let label = format!("MEMORY.md in {}", with_sep(plan.into.main()));
        w.extend(crate::index::place::cut_warnings(&label, &plan.cut_entries, &rebuild));
    } else if plan.target_truncated {
        w.push(format!(
            "MEMORY.md in {} {} cut after the merge ({}): Claude Code {} not load all of it; run `memctl --dir {} index rebuild`",
            with_sep(plan.into.main()),
            if planned { "would be" } else { "is" },
            plan.target_reason.as_deref().unwrap_or("over a cap"),
            if planned { "would" } else { "does" },
            plan.into.main().display(),
        ));
    }
    if !plan.unindexed.is_empty() {
        w.push(format!(
            "no index line in FROM for {}: run `memctl --dir {} lint --fix` to index them",
            plan.unindexed.join(", "),
            plan.into.main().display(),
        ));
    }
    w
}

/// The plan, one line per entry: what moves, what stays, and the two indexes.
fn plan_text(from: &Located, into: &Located, plan: &Plan, dry_run: bool) -> String {
    let mut s = format!(
        "from {} ({})\ninto {} ({})\n",
        with_sep(from.dir.main()),
        from.how(),
        with_sep(into.dir.main()),
        into.how()
    );
    let verb = |past: &'static str, future: &'static str| if dry_run { future } else { past };
    for m in &plan.moves {
        // A newline or tab in a name is escaped (SPEC v3 §3.14).
        let esc = |f: &str| crate::text::escape_name(f).into_owned();
        let (file, to) = (esc(&m.file), esc(&m.to));
        s.push_str(&match m.action {
            Action::Moved => format!("  {:<17} {}\n", verb("moved", "move"), file),
            Action::MergedIdentical if m.to != m.file => format!(
                "  {:<17} {} (INTO has the same bytes as {})\n",
                verb("merged identical", "merge identical"),
                file,
                to,
            ),
            Action::MergedIdentical => format!(
                "  {:<17} {} (INTO has the same bytes)\n",
                verb("merged identical", "merge identical"),
                file
            ),
            Action::Renamed => format!(
                "  {:<17} {} to {} (INTO's differs)\n",
                verb("renamed", "rename"),
                file,
                to,
            ),
        });
    }
    for l in &plan.left {
        s.push_str(&format!(
            "  {:<17} {} ({})\n",
            verb("kept", "keep"),
            crate::text::escape_name(&l.file),
            l.reason
        ));
    }
    let n = |k: usize, one: &str| {
        if k == 1 {
            format!("1 {one}")
        } else {
            format!("{k} {one}s")
        }
    };
    s.push_str(&format!("INTO MEMORY.md: {} added", n(plan.added.len(), "line")));
    if !plan.skipped.is_empty() {
        s.push_str(&format!(", {} already there", plan.skipped.len()));
    }
    s.push_str(&format!(
        "; {} lines, {} units{}\n",
        plan.target_lines,
        plan.target_units,
        if plan.target_truncated { ", cut" } else { "" }
    ));
    if plan.source_index.is_some() {
        if plan.new_source_index.is_none() {
            s.push_str(&format!(
                "FROM MEMORY.md: {}, nothing else left in it",
                verb("removed", "to be removed")
            ));
            s.push('\n');
        } else {
            s.push_str(&format!(
                "FROM MEMORY.md: {} {} (history keeps the whole file)\n",
                n(plan.kept.len(), "line"),
                verb("kept", "to keep")
            ));
            for l in &plan.kept {
                s.push_str(&format!("  {}: {}\n", l.line, crate::text::ellipsize(&l.text, 100)));
            }
        }
    }
    s
}

/// The diffs of both indexes, labelled by side.
fn diffs(plan: &Plan) -> String {
    let mut s = unified("INTO/MEMORY.md", &plan.target_index, &plan.new_target_index);
    if let Some(old) = &plan.source_index {
        s.push_str(&unified(
            "FROM/MEMORY.md",
            old,
            plan.new_source_index.as_deref().unwrap_or(""),
        ));
    }
    s
}
