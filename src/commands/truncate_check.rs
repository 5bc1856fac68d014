//! `memctl truncate-check [PATH | -]` (SPEC §3.10): read the index, check it
//! ([`crate::index::check`]), render the report ([`crate::index::report`]).

use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;

use crate::cli::TruncateCheckArgs;
use crate::context::Context;
use crate::error::{Error, Kind};
use crate::index::check::{self, Checked};
use crate::index::report::{JSON_DROPPED, LIST_DROPPED, render_text};
use crate::output::Output;

pub fn run(args: &TruncateCheckArgs, ctx: &Context, out: &mut Output) -> Result<ExitCode> {
    if args.all_projects {
        return crate::projects::each::run(ctx, out, |ctx, out| run_one(args, ctx, out));
    }
    run_one(args, ctx, out)
}

/// The command on one memory dir.
fn run_one(args: &TruncateCheckArgs, ctx: &Context, out: &mut Output) -> Result<ExitCode> {
    if args.print_loaded && out.json {
        return Err(Error::new(Kind::Usage, "--print-loaded cannot be combined with --json")
            .hint("drop --json to print the loaded text, or drop --print-loaded for the report")
            .into());
    }
    // How many dropped entries the report quotes.
    let quotes = match (args.print_loaded, out.json) {
        (true, _) => 0,
        (false, true) => JSON_DROPPED,
        (false, false) => LIST_DROPPED,
    };
    let checked = match &args.path {
        Some(p) if p.as_os_str() == "-" => {
            check::check_reader("<stdin>".into(), std::io::stdin().lock(), "standard input")?
        }
        Some(p) => check::check_file(p.display().to_string(), p, quotes)?,
        None => read_default(ctx, quotes, out)?,
    };
    if args.print_loaded {
        out.print(&checked.load.loaded)?;
        return Ok(ExitCode::SUCCESS);
    }
    let report = checked.into_report(args.warn_at, quotes);
    if out.json {
        out.emit_json(serde_json::to_value(&report)?)?;
    } else {
        out.print(&render_text(&report))?;
    }
    Ok(if report.fails() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The resolved dir's index, with the notes and warnings of reading it.
fn read_default(ctx: &Context, quotes: usize, out: &mut Output) -> Result<Checked> {
    let res = ctx.resolve_existing()?;
    if !res.enabled.value && !res.explicit {
        out.note(format!(
            "auto memory is disabled ({}): Claude Code loads nothing at all",
            res.enabled.lever
        ));
    }
    let label = res.memdir.index_label();
    let path = res.index_path();
    if std::fs::symlink_metadata(&path).is_err() {
        return Ok(Checked::missing(label.into(), path));
    }
    warn_if_leaving(&path, res.memdir.dir(), label, out);
    let checked = check::check_found(label.into(), &path, quotes)?;
    if checked.looks_binary() {
        out.warn(format!(
            "{label} is binary (NUL bytes); modelled on its text as Claude Code reads it"
        ));
    }
    if checked.lossy {
        out.warn(format!(
            "{label} is not valid UTF-8; modelled on the lossily decoded text, as Claude Code reads it"
        ));
    }
    Ok(checked)
}

/// Warn when the index is a symlink to a file outside the memory dir.
fn warn_if_leaving(path: &Path, dir: &Path, label: &str, out: &mut Output) {
    if let (Ok(real), Ok(real_dir)) = (std::fs::canonicalize(path), std::fs::canonicalize(dir))
        && !real.starts_with(&real_dir)
    {
        out.warn(format!(
            "{label} is a symlink leaving the memory dir (to {})",
            real.display()
        ));
    }
}
