//! `memctl import FILE` (SPEC §11.2): read and check the whole bundle → find each
//! project's memory dir → plan every project ([`crate::ops::import`]) → show,
//! confirm → apply each under its own Writer → report.

use std::process::ExitCode;

use anyhow::Result;

use crate::cli::ImportArgs;
use crate::context::Context;
use crate::error::{Error, Kind};
use crate::ops::import::{self, Plan, Report};
use crate::output::Output;
use crate::paths::with_sep;
use crate::store::{Recording, Writer};

pub fn run(args: &ImportArgs, ctx: &Context, out: &mut Output) -> Result<ExitCode> {
    let path = ctx.env.cwd.join(&args.file);
    let file = open_bundle(&path)?;
    let bundle = crate::bundle::unpack(std::io::BufReader::new(file))?;
    let machine = bundle.manifest.machine.clone();
    let rows = if args.into.is_some() {
        Vec::new()
    } else {
        crate::projects::discover(ctx, true)?.rows
    };
    let into = args.into.as_ref().map(|d| ctx.env.cwd.join(d));
    let mut targets = import::targets(&bundle, &rows, into.as_deref())?;
    here_for_unmatched(ctx, &bundle, &mut targets);
    let mut plans = Vec::new();
    for (p, t) in bundle.projects.iter().zip(&targets) {
        plans.push(import::plan(p, t, &machine, ctx.now)?);
    }
    let changes = plans.iter().any(Plan::changes);
    if !args.dry_run && changes {
        for d in plans.iter().filter_map(import::memdir) {
            crate::store::ensure_no_dream_for(d.main(), ctx.now, "import")?;
        }
        if !confirm(args, out, &plans, &machine)? {
            out.note("nothing written");
            return Ok(ExitCode::SUCCESS);
        }
        let mut warnings = Vec::new();
        for (i, (p, t)) in bundle.projects.iter().zip(&targets).enumerate() {
            let Some(dir) = import::memdir(&plans[i]) else { continue };
            if !plans[i].changes() {
                continue;
            }
            let rec = Recording {
                settings: ctx.history.clone(),
                command: "import",
                project: plans[i].project.as_ref().and_then(|p| std::fs::canonicalize(p).ok()),
            };
            let mut w = Writer::open(&dir, ctx.now, false, &rec)?;
            // Planned again under the lock: what was shown is what is written.
            let fresh = import::replan(p, t, &machine, ctx.now, Some(&plans[i]))?;
            if fresh != plans[i] {
                return Err(Error::new(
                    Kind::Conflict,
                    format!(
                        "{} changed since the import was planned; nothing more was written",
                        with_sep(dir.main())
                    ),
                )
                .hint("run the command again (projects already imported are skipped as identical)")
                .into());
            }
            import::apply(&fresh, &mut w)?;
            warnings.extend(w.finish());
        }
        for w in warnings {
            out.warn(w);
        }
    }
    finish(out, args, &plans, &machine)
}

/// A project no listed memory dir matched goes to the memory dir of the project
/// the command runs in when that project has its identity (issue 34 point 11): a
/// fresh checkout (no memory dir yet), or a dir whose project path cannot be told
/// from its key (a name with `-`) and that no history names.
fn here_for_unmatched(ctx: &Context, bundle: &crate::bundle::Bundle, targets: &mut [import::Target]) {
    if !targets.iter().any(|t| matches!(t, import::Target::NoMatch)) {
        return;
    }
    let Ok(res) = ctx.resolve() else { return };
    let Some(project) = &res.project else { return };
    let root = std::path::PathBuf::from(&project.canonical_root);
    let Some(here) = crate::identity::of_project(&root, None) else {
        return;
    };
    for (p, t) in bundle.projects.iter().zip(targets.iter_mut()) {
        if matches!(t, import::Target::NoMatch) && p.entry.identity == here.id {
            *t = import::Target::Dir {
                dir: res.memdir.main().to_path_buf(),
                project: Some(root.clone()),
            };
        }
    }
}

/// The bundle file, regular only (a FIFO would block), opened without blocking.
fn open_bundle(path: &std::path::Path) -> Result<std::fs::File, Error> {
    use crate::fsread::ReadError;
    let hint = "give the .tar.gz that `memctl export -o FILE` wrote";
    crate::fsread::open_regular(path).map_err(|e| match e {
        ReadError::NotFound => Error::new(
            Kind::NotFound,
            format!("cannot read the bundle {}: no such file", path.display()),
        )
        .hint(hint),
        ReadError::NotRegular(what) => Error::new(
            Kind::InvalidInput,
            format!("not a regular file ({what}): {}", path.display()),
        )
        .hint(hint),
        ReadError::TooLarge(_) => Error::new(Kind::InvalidInput, format!("too large: {}", path.display())),
        ReadError::Io(e) => Error::new(Kind::Io, format!("cannot read the bundle {}: {e}", path.display())),
    })
}

fn confirm(args: &ImportArgs, out: &mut Output, plans: &[Plan], machine: &str) -> Result<bool> {
    if args.yes {
        return Ok(true);
    }
    if !out.interactive() {
        return Err(Error::new(
            Kind::Usage,
            "import writes into memory dirs and needs confirmation, and there is no terminal to ask",
        )
        .hint("pass --yes to import without asking, or --dry-run to see the plan")
        .into());
    }
    out.print(&plan_text(plans, machine, true))?;
    Ok(out.ask_yes_no("Import?", false)?)
}

fn finish(out: &mut Output, args: &ImportArgs, plans: &[Plan], machine: &str) -> Result<ExitCode> {
    for p in plans {
        for n in p.mtimes.notes(&p.identity) {
            out.note(n);
        }
        if p.dir.is_none() {
            out.warn(format!(
                "{}: no memory dir on this machine has this identity: skipped (`memctl projects` lists them; name one with --into DIR)",
                p.identity
            ));
        }
        if !p.cut_entries.is_empty() {
            // Never a refusal (SPEC §3.14): each entry now past the cut, named.
            let dir = p.dir.as_deref().map(|d| d.display().to_string()).unwrap_or_default();
            let label = format!("{}: MEMORY.md", p.identity);
            let rebuild = format!("memctl --dir {dir} index rebuild");
            for w in crate::index::place::cut_warnings(&label, &p.cut_entries, &rebuild) {
                out.warn(w);
            }
        } else if let Some(reason) = &p.index_cut {
            out.warn(format!(
                "{}: MEMORY.md {} cut after the import ({reason}): run `memctl --dir {} index rebuild`",
                p.identity,
                if args.dry_run { "would be" } else { "is" },
                p.dir.as_deref().map(|d| d.display().to_string()).unwrap_or_default()
            ));
        }
    }
    if out.json {
        let doc = Report {
            projects: plans.iter().map(Plan::report).collect(),
            dry_run: args.dry_run,
        };
        out.emit_json(serde_json::to_value(&doc)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    out.print(&plan_text(plans, machine, args.dry_run))?;
    if args.dry_run {
        out.print("dry run: nothing written\n")?;
    }
    Ok(ExitCode::SUCCESS)
}

fn plan_text(plans: &[Plan], machine: &str, future: bool) -> String {
    let verb = |past: &'static str, fut: &'static str| if future { fut } else { past };
    let mut s = String::new();
    for p in plans {
        let Some(dir) = &p.dir else {
            s.push_str(&format!("{}: no local memory dir, skipped\n", p.identity));
            continue;
        };
        s.push_str(&format!("{} into {} (from {machine})\n", p.identity, with_sep(dir)));
        for f in &p.added {
            s.push_str(&format!("  {:<9} {f}\n", verb("added", "add")));
        }
        for f in &p.skipped {
            s.push_str(&format!("  {:<9} {f} (identical)\n", verb("skipped", "skip")));
        }
        for c in &p.conflicts {
            s.push_str(&format!(
                "  {:<9} {} ({}): incoming copy {} {}\n",
                "conflict",
                c.file,
                c.reason,
                verb("kept as", "to keep as"),
                c.kept_as
            ));
        }
        if p.changes_team_index() {
            s.push_str(&format!("  {:<9} team/MEMORY.md\n", verb("merged", "merge")));
        }
        if p.changes_index() {
            s.push_str(&format!(
                "  {:<9} MEMORY.md: {} line{} {}\n",
                verb("merged", "merge"),
                p.index_lines_added,
                if p.index_lines_added == 1 { "" } else { "s" },
                verb("added", "to add")
            ));
        }
    }
    s
}
