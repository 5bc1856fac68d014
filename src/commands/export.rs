//! `memctl export` (SPEC §11.2): find the projects and their identities → gather
//! ([`crate::ops::export`]) → list secret-like findings → pack → write the bundle
//! atomically outside every memory dir → report.

use std::process::ExitCode;

use anyhow::Result;

use crate::cli::ExportArgs;
use crate::context::Context;
use crate::error::{Error, Kind};
use crate::ops::export;
use crate::output::Output;
use crate::projects::sources;

pub fn run(args: &ExportArgs, ctx: &Context, out: &mut Output) -> Result<ExitCode> {
    let sources = if args.all_projects {
        sources::all(ctx, out, "export")?
    } else {
        vec![sources::one(ctx, args.as_id.as_deref(), true)?]
    };
    if sources.is_empty() {
        return Err(
            Error::new(Kind::NotFound, "no project with memories and an identity to export")
                .hint("`memctl projects` lists the memory dirs; export one alone with `--as ID`")
                .into(),
        );
    }
    let target = ctx.env.cwd.join(&args.output);
    refuse_inside(&target, &sources)?;
    let machine = export::machine_name(&ctx.env);
    let g = export::gather(&sources, &machine, crate::text::iso(ctx.now));
    // SPEC v3 §11.2: secrets do not leave the machine unless asked for; the
    // refusal names each file and line (issue 34 point 4).
    if !args.allow_secrets && !g.secrets.is_empty() {
        return Err(export::secrets_refused(
            "export refused: the bundle would hold",
            "nothing written",
            &g.secrets,
            args.strict,
        )
        .hint("remove the tokens from the memories (`memctl edit FILE`), or pass --allow-secrets to export them anyway")
        .into());
    }
    for s in &g.secrets {
        out.warn(format!("secret-like: {s}"));
    }
    for w in &g.left_out {
        out.warn(w.clone());
    }
    let bytes = crate::bundle::pack(&g.manifest, &g.files)?;
    crate::store::write_outside(&target, &bytes)?;
    let report = g.report(&target);
    if out.json {
        out.emit_json(serde_json::to_value(&report)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    for p in &report.projects {
        out.print(&format!("{}\t{} files\t{} bytes\n", p.identity, p.files, p.bytes))?;
    }
    out.print(&format!(
        "wrote {} ({} project{}, machine {machine})\n",
        target.display(),
        report.projects.len(),
        if report.projects.len() == 1 { "" } else { "s" }
    ))?;
    Ok(ExitCode::SUCCESS)
}

/// A bundle is written outside every exported memory dir: one inside would be a
/// write into a memory dir without its lock, and Claude Code would scan it.
fn refuse_inside(target: &std::path::Path, sources: &[export::Source]) -> Result<(), Error> {
    let parent = target.parent().unwrap_or(target);
    let Ok(real) = std::fs::canonicalize(parent) else {
        return Ok(());
    };
    for s in sources {
        if std::fs::canonicalize(&s.memory_dir).is_ok_and(|dir| real.starts_with(&dir)) {
            return Err(Error::new(
                Kind::Usage,
                format!(
                    "the bundle would be written inside the memory dir: {}",
                    target.display()
                ),
            )
            .hint("write it outside the memory dir, e.g. `-o ~/memory-bundle.tar.gz`"));
        }
    }
    Ok(())
}
