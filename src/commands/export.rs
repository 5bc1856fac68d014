//! `memctl export` (SPEC §11.2): find the projects and their identities → gather
//! ([`crate::ops::export`]) → list secret-like findings → pack → write the bundle
//! atomically outside every memory dir → report.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;

use crate::cli::ExportArgs;
use crate::context::Context;
use crate::error::{Error, Kind};
use crate::ops::export::{self, Source};
use crate::output::Output;
use crate::projects::each;

pub fn run(args: &ExportArgs, ctx: &Context, out: &mut Output) -> Result<ExitCode> {
    let sources = if args.all_projects {
        all_sources(ctx, out)?
    } else {
        vec![one_source(args, ctx)?]
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
    for s in &g.secrets {
        out.warn(format!("secret-like: {s}"));
    }
    if args.strict && !g.secrets.is_empty() {
        return Err(Error::new(
            Kind::StrictRefused,
            format!("{} secret-like finding(s) (ML121): nothing written", g.secrets.len()),
        )
        .hint("remove the tokens from the memories, or export without --strict")
        .into());
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

/// The project of the current dir (or `--dir`/`--project`), named by its identity
/// or `--as`.
fn one_source(args: &ExportArgs, ctx: &Context) -> Result<Source, Error> {
    let res = ctx.resolve_existing()?;
    let main = res.memdir.main().to_path_buf();
    if !main.is_dir() {
        return Err(Error::new(
            Kind::NotFound,
            format!("no memory dir: {}", crate::paths::with_sep(&main)),
        )
        .hint("`memctl projects` lists the memory dirs of this machine"));
    }
    let identity = match &args.as_id {
        Some(id) => id.clone(),
        None => {
            let store = crate::history::store_path(&ctx.history, &main).filter(|s| s.join("HEAD").is_file());
            res.project
                .as_ref()
                .and_then(|p| crate::identity::of_project(Path::new(&p.canonical_root), store.as_deref()))
                .map(|i| i.id)
                .ok_or_else(|| {
                    Error::new(
                        Kind::InvalidInput,
                        "this project has no identity (no git remote `origin`, no commit)",
                    )
                    .hint("name it with `--as ID`, the same ID on every machine")
                })?
        }
    };
    check_identity(&identity)?;
    Ok(Source {
        identity,
        key: key_of(&main),
        project_path: res.project.as_ref().map(|p| PathBuf::from(&p.root)),
        memory_dir: main,
    })
}

/// Every project with memories that has an identity; the others are named in a warning.
fn all_sources(ctx: &Context, out: &mut Output) -> Result<Vec<Source>, Error> {
    let mut sources: Vec<Source> = Vec::new();
    for row in each::rows(ctx, out)? {
        let identity = row.identity_now();
        let Some(identity) = identity.filter(|i| check_identity(i).is_ok()) else {
            out.warn(format!(
                "{} has no identity: not exported (export it alone with `memctl --dir {} export --as ID -o FILE`)",
                row.name(),
                row.memory_dir.display()
            ));
            continue;
        };
        if sources.iter().any(|s| s.identity == identity) {
            out.warn(format!(
                "{} has the identity {identity} of a project already exported: not exported (`memctl projects merge` joins them)",
                row.name()
            ));
            continue;
        }
        sources.push(Source {
            identity,
            key: row.key.clone(),
            project_path: row.project_path.clone(),
            memory_dir: row.memory_dir.clone(),
        });
    }
    Ok(sources)
}

fn check_identity(id: &str) -> Result<(), Error> {
    let dir = crate::bundle::member_dir(id);
    if id.is_empty() || !crate::bundle::safe_path(&dir) || id.contains("__") {
        return Err(
            Error::new(Kind::Usage, format!("not a usable identity: {}", id.escape_debug()))
                .hint("an identity is like `github.com/alice/app`: no `..`, `__`, empty parts or control characters"),
        );
    }
    Ok(())
}

/// The key when the memory dir is `<config home>/projects/<key>/memory`.
fn key_of(main: &Path) -> Option<String> {
    let key_dir = main.parent()?;
    (main.file_name()? == "memory" && key_dir.parent()?.file_name()? == "projects")
        .then(|| key_dir.file_name()?.to_str().map(str::to_string))
        .flatten()
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
