//! `memctl truncate-check [PATH | -]` (SPEC §3.10): read the index, check it
//! ([`crate::index::check`]), render the report ([`crate::index::report`]).

use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;

use crate::cli::TruncateCheckArgs;
use crate::context::Context;
use crate::error::{Error, Kind};
use crate::index::check::{self, Checked, INDEX_CONTENT_VAR, LoadStatus, recall_mode_lever};
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
        if checked.status.injects() {
            out.print(&checked.load.injected)?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let report = checked.into_report(args.warn_at, quotes);
    if out.json {
        let mut doc = serde_json::to_value(&report)?;
        // `warnings` stands before the fields added in SPEC v3 (§3.10).
        if let serde_json::Value::Object(map) = &mut doc {
            let mut ordered = serde_json::Map::new();
            for (k, v) in std::mem::take(map) {
                if k == "load_status" {
                    ordered.insert("warnings".into(), serde_json::Value::Array(Vec::new()));
                }
                ordered.insert(k, v);
            }
            *map = ordered;
        }
        out.emit_json(doc)?;
    } else {
        out.print(&render_text(&report))?;
    }
    Ok(if report.fails() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// A path that exists and is neither a regular file (through symlinks) nor a
/// directory: Claude Code skips it (SPEC §2.7 step 1), and memctl never opens it
/// (a FIFO would block).
fn is_special(p: &Path) -> bool {
    std::fs::metadata(p).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

/// The resolved dir's index, with the notes and warnings of reading it, and
/// the session-level statuses of SPEC §2.7 step 0 (disabled, recall mode, the
/// environment override).
fn read_default(ctx: &Context, quotes: usize, out: &mut Output) -> Result<Checked> {
    let res = ctx.resolve_existing()?;
    let label = res.memdir.index_label();
    let path = res.index_path();
    let disabled = !res.enabled.value && !res.explicit;
    let recall = recall_mode_lever(&ctx.env, res.global_config.as_deref());
    let env_content = ctx.env.get(INDEX_CONTENT_VAR);
    if res.memdir.is_team() {
        // SPEC §2.13: without a team store team/MEMORY.md is never loaded; a team
        // store's index is fetched from the memory service, not read from disk.
        out.note(format!(
            "Claude Code 2.1.332 does not load {label} from disk (without a team store it never loads it; a team store's index comes from the memory service): this is the text it would load"
        ));
    }
    let session = if disabled {
        out.note(format!(
            "auto memory is disabled ({}): Claude Code loads nothing at all",
            res.enabled.lever
        ));
        Some(LoadStatus::Disabled)
    } else if let Some(lever) = recall {
        out.note(format!("recall mode ({lever}): Claude Code does not inject MEMORY.md"));
        Some(LoadStatus::RecallMode)
    } else {
        match env_content.as_deref() {
            Some("") => {
                out.note(format!("{INDEX_CONTENT_VAR} is empty: Claude Code loads nothing"));
                Some(LoadStatus::EnvEmpty)
            }
            Some(text) => {
                out.note(format!(
                    "{INDEX_CONTENT_VAR} is set: Claude Code loads its text, not {label}; modelled on it"
                ));
                let c = check::checked_override(label.into(), path, text.to_string());
                return Ok(c);
            }
            None => None,
        }
    };
    let mut checked = read_index(ctx, &res, label, path, quotes, session.is_none(), out)?;
    if let Some(s) = session {
        checked.status = s;
    }
    Ok(checked)
}

/// The resolved dir's index file as Claude Code reads it; `loads`: no session-level
/// status stops Claude Code from loading it (nor from writing a missing one).
fn read_index(
    ctx: &Context,
    res: &crate::paths::Resolution,
    label: &str,
    path: std::path::PathBuf,
    quotes: usize,
    loads: bool,
    out: &mut Output,
) -> Result<Checked> {
    if std::fs::symlink_metadata(&path).is_err() {
        let backfill = loads
            .then(|| crate::index::backfill::will_backfill(res.memdir.dir(), &ctx.env))
            .flatten();
        if let Some(text) = backfill {
            let lines = text.lines().count();
            out.note(format!(
                "Claude Code will write {label} from the topic files at its next session start ({lines} line{})",
                if lines == 1 { "" } else { "s" }
            ));
        }
        return Ok(Checked::missing(label.into(), path));
    }
    if is_special(&path) {
        return Ok(Checked::not_regular(label.into(), path));
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
