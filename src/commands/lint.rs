//! `memctl lint` (SPEC §3.9).

use std::process::ExitCode;

use anyhow::Result;

use crate::cli::{LintArgs, LintFormat, MinSeverity};
use crate::context::Context;
use crate::error::{Error, Kind};
use crate::lint::{self, Finding, Input, RULES, Severity, fix::Fixer, format};
use crate::output::Output;
use crate::text::suggestions;

fn ensure_rule_ids(ids: &[String], flag: &str) -> Result<(), Error> {
    for id in ids {
        if lint::rule(id).is_none() {
            let near = suggestions(id, RULES.iter().map(|r| r.id));
            let hint = near.first().map_or_else(
                || "rule ids look like ML101; see the README's rule list".to_string(),
                |n| format!("did you mean `{n}`?"),
            );
            return Err(Error::new(Kind::Usage, format!("unknown rule `{id}` given to {flag}")).hint(hint));
        }
    }
    Ok(())
}

pub fn run(args: &LintArgs, ctx: &Context, out: &mut Output) -> Result<ExitCode> {
    ensure_rule_ids(&args.rules, "--rule")?;
    ensure_rule_ids(&args.disable, "--disable")?;
    let format = if out.json {
        LintFormat::Json
    } else {
        args.format.unwrap_or(LintFormat::Text)
    };
    let min = match args.min_severity {
        MinSeverity::Error => Severity::Error,
        MinSeverity::Warning => Severity::Warning,
        MinSeverity::Info => Severity::Info,
    };
    let res = ctx.resolve_existing()?;
    let input = Input {
        dir: &res.dir,
        res: &res,
        now_ms: ctx.now_ms(),
        warn_at: args.warn_at,
    };
    let report = lint::lint(&input);
    let shown = |fs: Vec<Finding>| lint::filter(fs, &args.rules, &args.disable, min);
    let mut findings = shown(report.findings);
    let mut files = report.files;
    let mut fixes = Vec::new();
    if args.fix {
        let fixer = Fixer {
            dir: &res.dir,
            main_dir: &res.main_dir,
            now: ctx.now,
            dry_run: args.dry_run,
            force: args.force,
            team_scope: !res.team && res.dir.join("team").is_dir(),
        };
        fixes = fixer.run(&findings)?;
        if args.dry_run {
            let resolved = |f: &Finding| {
                fixes
                    .iter()
                    .any(|x| x.id == f.id && f.path.as_ref().is_some_and(|p| x.resolves.contains(p)))
            };
            findings.retain(|f| !resolved(f));
        } else {
            let again = lint::lint(&input);
            files = again.files;
            findings = shown(again.findings);
        }
    }
    for n in &report.notes {
        out.note(n.clone());
    }
    for f in &fixes {
        match (&f.skipped, f.applied) {
            (Some(why), _) => out.note(format!("not fixed: {} {}: {why}", f.id, f.rel)),
            (None, true) => out.note(format!("fixed {} in {}", f.id, f.rel)),
            _ => {}
        }
    }
    let cwd = &ctx.env.cwd;
    match format {
        LintFormat::Json => out.emit_json(format::json(&findings, files, &res.shown(), &fixes, cwd))?,
        LintFormat::Sarif => {
            if args.dry_run {
                out.note("--fix --dry-run diffs are not part of SARIF; use --format json to see them");
            }
            out.print(&format!(
                "{}\n",
                serde_json::to_string_pretty(&format::sarif(&findings, cwd))?
            ))?;
        }
        LintFormat::Github => out.print(&format::github(&findings, cwd))?,
        LintFormat::Text => {
            for f in fixes.iter().filter_map(|f| f.diff.as_ref()) {
                out.print(f)?;
            }
            out.print(&format::text(&findings, cwd, out.color_stdout))?;
            eprintln!("{}", format::summary(&findings, files));
        }
    }
    let (errors, warnings, _) = lint::counts(&findings);
    Ok(if errors > 0 || (args.strict && warnings > 0) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
