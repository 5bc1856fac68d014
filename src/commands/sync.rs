//! `memctl sync` (SPEC §11.3): choose the projects (the current one, or
//! `--all-projects`) → run the sync ([`crate::sync`]) → report. `--status` lists
//! unresolved conflicts; `--resolve FILE` marks one done, keeping the local version.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;

use crate::cli::SyncArgs;
use crate::context::Context;
use crate::error::{Error, Kind};
use crate::ops::import::Conflict;
use crate::output::Output;
use crate::paths::with_sep;
use crate::projects::sources;
use crate::store::{Recording, Writer};
use crate::sync::{self, Options, ProjectReport, PushResult, Report, Target};

pub fn run(args: &SyncArgs, ctx: &Context, out: &mut Output) -> Result<ExitCode> {
    let (targets, extra) = gather(args, ctx, out)?;
    if let Some(file) = &args.resolve {
        return resolve(file, &targets, ctx, out);
    }
    if args.status {
        return status(&targets, args, out);
    }
    let repo = sync::repo::default_path(&ctx.env).ok_or_else(|| {
        Error::new(Kind::Config, "cannot determine where the sync repository lives").hint("set HOME or XDG_STATE_HOME")
    })?;
    if let Some(file) = &args.purge {
        return purge(file, &targets, &repo, args, out);
    }
    let opts = Options {
        repo,
        remote: args.remote.clone(),
        dry_run: args.dry_run,
        allow_mass_delete: args.allow_mass_delete,
        mode: if args.accept_remote {
            sync::Mode::AcceptRemote
        } else if args.push_local {
            sync::Mode::PushLocal
        } else {
            sync::Mode::Merge
        },
        strict: args.strict,
        allow_secrets: args.allow_secrets,
        machine: crate::ops::export::machine_name(&ctx.env),
        now: ctx.now,
        history: ctx.history.clone(),
    };
    let outcome = sync::run(targets, extra, &opts)?;
    for n in &outcome.notes {
        out.note(n.clone());
    }
    for w in &outcome.warnings {
        out.warn(w.clone());
    }
    // SPEC v3 §3.14: 1 when the sync is done but conflict files need the user.
    let open: usize = outcome.projects.iter().map(|p| p.conflicts.len()).sum();
    let code = if open > 0 && !args.dry_run {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    };
    if out.json {
        let doc = Report {
            projects: outcome.projects,
            dry_run: args.dry_run,
        };
        out.emit_json(serde_json::to_value(&doc)?)?;
        return Ok(code);
    }
    out.print(&text(&outcome.projects, args.dry_run, &opts.repo))?;
    out.print(&push_line(&outcome.push, &outcome.remote))?;
    if open > 0 && !args.dry_run {
        out.note(format!(
            "{open} conflict file{} need{} you (listed above): merge what you want into the memory, then delete each conflict file or run `memctl sync --resolve FILE`; the next sync waits for that",
            if open == 1 { "" } else { "s" },
            if open == 1 { "s" } else { "" }
        ));
    }
    Ok(code)
}

/// The projects to sync, and (`--all-projects`) the dirs with no memories yet that
/// are synced when the remote holds their identity.
fn gather(args: &SyncArgs, ctx: &Context, out: &mut Output) -> Result<(Vec<Target>, Vec<Target>), Error> {
    let to_target = |s: crate::ops::export::Source| Target {
        identity: s.identity,
        dir: s.memory_dir,
        project: s.project_path,
        team: s.team,
    };
    if !args.all_projects {
        return Ok((
            vec![to_target(sources::one(ctx, args.as_id.as_deref(), false)?)],
            Vec::new(),
        ));
    }
    let targets: Vec<Target> = sources::all(ctx, out, "sync")?.into_iter().map(to_target).collect();
    let mut extra = Vec::new();
    // With `--team`, a project without memories has no team dir: skipped (counted
    // by `sources::all`).
    let rows = if ctx.request.team {
        Vec::new()
    } else {
        crate::projects::discover(ctx, true)?.rows
    };
    for row in rows {
        if row.memories > 0 {
            continue;
        }
        if let Some(identity) = row.identity_now().filter(|i| sources::check_identity(i).is_ok()) {
            extra.push(Target {
                identity,
                dir: row.memory_dir.clone(),
                project: row.project_path.clone().filter(|_| row.project_exists),
                team: false,
            });
        }
    }
    Ok((targets, extra))
}

/// `--status`: the unresolved conflicts; exit 1 when there are any.
fn status(targets: &[Target], args: &SyncArgs, out: &mut Output) -> Result<ExitCode> {
    let mut reports = Vec::new();
    let mut any = false;
    for t in targets {
        let conflicts: Vec<Conflict> = sync::conflict_files(&t.dir)
            .into_iter()
            .map(|(file, kept_as)| Conflict {
                file,
                kept_as,
                reason: "unresolved",
            })
            .collect();
        any |= !conflicts.is_empty();
        reports.push(ProjectReport {
            identity: t.identity.clone(),
            memory_dir: Some(with_sep(&t.dir)),
            conflicts,
            ..Default::default()
        });
    }
    if out.json {
        let doc = Report {
            projects: reports,
            dry_run: args.dry_run,
        };
        out.emit_json(serde_json::to_value(&doc)?)?;
    } else {
        let mut s = String::new();
        for r in reports.iter().filter(|r| !r.conflicts.is_empty()) {
            let n = r.conflicts.len();
            s.push_str(&format!(
                "{}: {n} unresolved conflict{} in {}\n",
                r.identity,
                if n == 1 { "" } else { "s" },
                r.memory_dir.as_deref().unwrap_or("")
            ));
            for c in &r.conflicts {
                s.push_str(&format!("  {}  (the incoming copy of {})\n", c.kept_as, c.file));
            }
        }
        if !any {
            s.push_str("no unresolved sync conflicts\n");
        }
        out.print(&s)?;
    }
    Ok(if any { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// `--purge FILE`: rewrite the sync remote's history without it (SPEC v3 §11.3).
fn purge(file: &str, targets: &[Target], repo: &Path, args: &SyncArgs, out: &mut Output) -> Result<ExitCode> {
    let [t] = targets else {
        return Err(Error::new(Kind::Usage, "--purge works on one project").into());
    };
    // A path into the memory dir, or the name below it.
    let rel = Path::new(file)
        .strip_prefix(&t.dir)
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_else(|_| file.to_string());
    let done = sync::purge::purge(repo, args.remote.as_deref(), t, &rel)?;
    out.warn(format!(
        "the sync remote's history no longer holds {rel}, but every clone that fetched it before still does (the sync repositories of your other machines, forks, a hosting service's caches): if it held a secret, revoke the secret. Other machines' next sync is refused as a rewritten remote: run `memctl sync --accept-remote` there, never `--push-local` (it would push the old history back)"
    ));
    if out.json {
        out.emit_json(serde_json::to_value(&done)?)?;
    } else {
        out.print(&format!(
            "purged {rel} from {} commit{} of {}'s sync history; force-pushed {} to {}\n",
            done.commits_rewritten,
            if done.commits_rewritten == 1 { "" } else { "s" },
            done.identity,
            done.pushed,
            done.remote
        ))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The `sync --resolve --json` document.
#[derive(serde::Serialize)]
struct Resolved<'a> {
    resolved: &'a str,
    memory_dir: String,
    trash_file: String,
}

/// `--resolve FILE`: the conflict file goes to the trash (the local version stays).
fn resolve(file: &Path, targets: &[Target], ctx: &Context, out: &mut Output) -> Result<ExitCode> {
    let (t, rel) = find_conflict(file, targets, ctx)?;
    let rec = Recording {
        settings: ctx.history.clone(),
        command: "sync",
        project: None,
    };
    let mut w = Writer::open(
        &crate::memdir::MemoryDir::open(&t.dir, crate::memdir::Scope::Main),
        ctx.now,
        false,
        &rec,
    )?;
    let trash = w.trash_dir()?;
    let moved = w.trash(&trash, &rel, &t.dir.join(&rel))?;
    for warn in w.finish() {
        out.warn(warn);
    }
    if out.json {
        let doc = Resolved {
            resolved: &rel,
            memory_dir: with_sep(&t.dir),
            trash_file: moved.to_string_lossy().into_owned(),
        };
        out.emit_json(serde_json::to_value(&doc)?)?;
    } else {
        out.print(&format!(
            "resolved: {} kept; the incoming copy is in {}\n",
            rel.rsplit_once(".conflict-").map_or(rel.as_str(), |(f, _)| f),
            moved.display()
        ))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The target whose memory dir holds the conflict file `file` (a path, or a name
/// below the memory dir), and its name there.
fn find_conflict(file: &Path, targets: &[Target], ctx: &Context) -> Result<(Target, String), Error> {
    let given = ctx.env.cwd.join(file);
    for t in targets {
        let candidates: [PathBuf; 2] = [given.clone(), t.dir.join(file)];
        for c in candidates {
            let (Ok(real), Ok(dir)) = (
                std::fs::canonicalize(c.parent().unwrap_or(&c)),
                std::fs::canonicalize(&t.dir),
            ) else {
                continue;
            };
            let Ok(rel_parent) = real.strip_prefix(&dir) else {
                continue;
            };
            let Some(name) = c.file_name() else { continue };
            let rel = rel_parent.join(name).to_string_lossy().into_owned();
            if sync::conflict_files(&t.dir).iter().any(|(_, k)| *k == rel) {
                return Ok((t.clone(), rel));
            }
        }
    }
    Err(
        Error::new(Kind::NotFound, format!("not a sync conflict file: {}", file.display()))
            .hint("`memctl sync --status` lists the conflict files (`<file>.md.conflict-<machine>-<date>`)"),
    )
}

fn text(projects: &[ProjectReport], dry_run: bool, repo: &Path) -> String {
    let mut s = String::new();
    for p in projects {
        let n = |v: usize| v.to_string();
        s.push_str(&format!(
            "{}: {} sent; {} added, {} updated, {} deleted, {} conflict{}{}\n",
            p.identity,
            n(p.sent.len()),
            n(p.added.len()),
            n(p.updated.len()),
            n(p.deleted.len()),
            p.conflicts.len(),
            if p.conflicts.len() == 1 { "" } else { "s" },
            if dry_run { " (dry run)" } else { "" }
        ));
        // Deletions first: they are what a user checks (`--accept-remote --dry-run`).
        for f in &p.deleted {
            s.push_str(&format!("  {:<9} {f}\n", if dry_run { "delete" } else { "deleted" }));
        }
        for c in &p.conflicts {
            s.push_str(&format!(
                "  conflict  {} ({})\n            the incoming copy is {}\n",
                c.file, c.reason, c.kept_as
            ));
        }
        // The other machine's index wording the merge did not keep (SPEC §11.3:
        // never a conflict, but named, and recoverable from the sync repository).
        for e in &p.index_replaced {
            let verb = if e.replaced_by.is_some() { "replaced" } else { "dropped" };
            s.push_str(&format!(
                "  {verb:<9} MEMORY.md:{} of the other machine: {}\n",
                e.line, e.text
            ));
            if let Some(by) = &e.replaced_by {
                s.push_str(&format!("            by this machine's {by}\n"));
            }
        }
        if let Some(e) = p.index_replaced.first() {
            s.push_str(&format!(
                "            its MEMORY.md stays in the sync repository: git --git-dir {} show {}:projects/{}/MEMORY.md\n",
                repo.display(),
                &e.commit,
                crate::sync::member_of(&p.identity)
            ));
        }
    }
    s
}

fn push_line(push: &PushResult, remote: &str) -> String {
    match push {
        PushResult::UpToDate => format!("{remote}: up to date\n"),
        PushResult::Pushed { commit, retries: 0 } => format!("pushed {commit} to {remote}\n"),
        PushResult::Pushed { commit, retries } => {
            format!(
                "pushed {commit} to {remote} (after {retries} rejected push{})\n",
                if *retries == 1 { "" } else { "es" }
            )
        }
        PushResult::DryRun(true) => format!("dry run: nothing written; a sync would push to {remote}\n"),
        PushResult::DryRun(false) => format!("dry run: nothing written; {remote} is up to date\n"),
    }
}
