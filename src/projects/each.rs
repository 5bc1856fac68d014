//! `--all-projects` (SPEC §9): run a one-dir command on every row of `memctl
//! projects`. Text output is grouped under one header line per project; `--json`
//! prints one document whose `projects` array holds each project's own document
//! (with a `project` object saying which); a project that fails is reported and
//! the others still run.

use std::process::ExitCode;

use anyhow::Result;
use serde_json::Value;

use super::{Row, discover};
use crate::context::Context;
use crate::error::{Error, Kind};
use crate::output::{Output, Tone, paint};

/// What the per-project runs came to.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub projects: usize,
    pub with_findings: usize,
    pub failed: usize,
}

impl Tally {
    /// 2 when a project failed, else 1 when any had findings, else 0.
    pub fn exit_code(&self) -> ExitCode {
        if self.failed > 0 {
            ExitCode::from(2)
        } else if self.with_findings > 0 {
            ExitCode::from(1)
        } else {
            ExitCode::SUCCESS
        }
    }
}

/// The rows `--all-projects` runs on (those with memories), with discovery's
/// warnings already given to `out`.
/// With `--team` (SPEC §3.14), only the projects that have a team dir, each run on
/// it; the others are skipped and counted in a warning.
pub fn rows(ctx: &Context, out: &mut Output) -> Result<Vec<Row>, Error> {
    rows_for(ctx, out, ctx.request.team)
}

/// [`rows`], with `team` saying whether only the projects with a team dir count
/// (`export` and `sync` move the main memory dir, `--team` or not).
pub fn rows_for(ctx: &Context, out: &mut Output, team: bool) -> Result<Vec<Row>, Error> {
    refuse_one_dir(ctx)?;
    let found = discover(ctx, false)?;
    for w in found.warnings {
        out.warn(w);
    }
    if !team {
        return Ok(found.rows);
    }
    let (with, without): (Vec<Row>, Vec<Row>) = found
        .rows
        .into_iter()
        .partition(|r| r.memory_dir.join(crate::memdir::TEAM).is_dir());
    if !without.is_empty() {
        let n = without.len();
        out.warn(format!(
            "--team: {n} project{} without a team dir skipped",
            if n == 1 { "" } else { "s" }
        ));
    }
    Ok(with)
}

/// SPEC §3.14: `--all-projects` names every project, `--dir`, `MEMCTL_DIR` and
/// `--project` name one; together they are a usage error naming both.
fn refuse_one_dir(ctx: &Context) -> Result<(), Error> {
    let one = if ctx.request.dir.is_some() {
        Some("--dir")
    } else if ctx.env.get_os("MEMCTL_DIR").is_some_and(|d| !d.is_empty()) {
        Some("MEMCTL_DIR")
    } else if ctx.request.project.is_some() {
        Some("--project")
    } else {
        None
    };
    match one {
        Some(what) => Err(Error::new(
            Kind::Usage,
            format!("--all-projects cannot be combined with {what}: {what} names one memory dir"),
        )
        .hint(if what == "MEMCTL_DIR" {
            "unset MEMCTL_DIR to run on every project, or drop --all-projects".to_string()
        } else {
            format!("drop {what} to run on every project, or drop --all-projects")
        })),
        None => Ok(()),
    }
}

/// The context that runs a one-dir command on `row` (its team dir with `--team`).
pub fn context_for(ctx: &Context, row: &Row) -> Context {
    let mut request = row.request();
    request.team = ctx.request.team;
    Context { request, ..ctx.clone() }
}

/// Run `one` on every project and print the grouped result.
pub fn run(
    ctx: &Context,
    out: &mut Output,
    mut one: impl FnMut(&Context, &mut Output) -> Result<ExitCode>,
) -> Result<ExitCode> {
    let rows = rows(ctx, out)?;
    // Discovery's warnings belong to the outer document, not the first project's.
    let outer_warnings = std::mem::take(&mut out.warnings);
    if out.json {
        out.collect_json();
    }
    let mut tally = Tally::default();
    let mut docs = Vec::new();
    for row in &rows {
        tally.projects += 1;
        if !out.json {
            if tally.projects > 1 {
                out.print("\n")?;
            }
            out.print(&header(row, out.color_stdout))?;
            out.flush()?;
        }
        let result = one(&context_for(ctx, row), out);
        let mut doc = match result {
            Ok(code) => {
                if code == ExitCode::from(1) {
                    tally.with_findings += 1;
                }
                out.take_collected().pop().unwrap_or(Value::Null)
            }
            Err(e) => {
                tally.failed += 1;
                let _ = out.take_collected();
                let error = crate::classify(&e);
                if !out.json {
                    out.flush()?;
                    let mut text = format!(
                        "{} {}\n",
                        paint(out.color_stderr, Tone::Error, "memctl:"),
                        error.message
                    );
                    if let Some(h) = &error.hint {
                        text.push_str(&format!("hint: {h}\n"));
                    }
                    out.eprint(&text);
                }
                serde_json::to_value(Failed { error })?
            }
        };
        if out.json {
            if let Value::Object(map) = &mut doc {
                map.insert("project".into(), serde_json::to_value(ProjectRef::of(row))?);
            }
            docs.push(doc);
            out.collect_json();
        }
    }
    if out.json {
        let _ = out.take_collected();
        out.warnings = outer_warnings;
        out.emit_json(serde_json::to_value(Grouped { projects: docs })?)?;
    } else {
        if rows.is_empty() {
            out.eprint("no project has memories (`memctl projects --all` lists the empty ones)\n");
        }
        for w in outer_warnings {
            out.warn(w);
        }
    }
    Ok(tally.exit_code())
}

/// `== ~/src/app  (-home-alice-src-app)`: the project, then the key or dir.
pub fn header(row: &Row, color: bool) -> String {
    let project = match &row.project_path {
        Some(p) if row.project_path_source == super::PathSource::Guess => {
            format!("{}?", p.display())
        }
        Some(p) => p.display().to_string(),
        None => crate::paths::with_sep(&row.memory_dir),
    };
    let line = format!("== {project}  ({})", row.name());
    format!("{}\n", paint(color, Tone::Bold, &line))
}

/// The `--json` document: each project's own document, in `projects` order.
#[derive(serde::Serialize)]
struct Grouped {
    projects: Vec<Value>,
}

/// A project whose run failed: its error, as memctl prints errors in JSON.
#[derive(serde::Serialize)]
struct Failed {
    error: Error,
}

/// Which project a document in `projects` is about.
#[derive(serde::Serialize)]
pub struct ProjectRef {
    pub key: Option<String>,
    pub memory_dir: String,
    pub project_path: Option<String>,
    pub project_path_source: super::PathSource,
}

impl ProjectRef {
    pub fn of(row: &Row) -> ProjectRef {
        ProjectRef {
            key: row.key.clone(),
            memory_dir: crate::paths::with_sep(&row.memory_dir),
            project_path: row.project_path.as_ref().map(|p| p.to_string_lossy().into_owned()),
            project_path_source: row.project_path_source,
        }
    }
}
