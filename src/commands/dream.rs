//! `memctl dream --dry-run` (SPEC §3.11): gather the lock, the sessions, the scan,
//! the texts and the lint findings of the main memory dir; the gates and the plan
//! are `dream`'s.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;

use crate::cli::DreamArgs;
use crate::context::Context;
use crate::dream::{self, DryRun, GateInput, PlanInput, Tail};
use crate::error::{Error, Kind};
use crate::output::Output;
use crate::paths::flags::{self, OnyxPlover, OnyxPloverReport};
use crate::paths::settings::{Settings, State};
use crate::paths::{self, Resolution};
use crate::{lint, lock, sessions};

pub fn run(args: &DreamArgs, ctx: &Context, out: &mut Output) -> Result<ExitCode> {
    ensure_dry_run(args)?;
    let res = ctx.resolve_main_existing()?;
    if ctx.request.team {
        out.note("--team is ignored: auto-dream works on the main memory dir");
    }
    let now_ms = ctx.now_ms();
    let flag = flags::lookup(&ctx.env, res.global_config.as_deref(), flags::ONYX_PLOVER);
    if let Some(why) = &flag.warning {
        out.warn(format!(
            "the global config {} {why}; the auto-dream flag counts as not cached",
            flag.file.as_deref().unwrap_or("")
        ));
    }
    let cached = flag.value().map(OnyxPlover::from_value);
    let (min_hours, min_sessions, thresholds_source) =
        dream::thresholds(args.min_hours, args.min_sessions.map(|n| n as f64), cached.as_ref());
    let info = lock::inspect(res.memdir.main(), now_ms);
    if let Some(e) = &info.unreadable {
        out.warn(format!("{} exists but cannot be read ({e})", info.path.display()));
    }
    let sessions = res.transcripts_dir.as_ref().map(|d| {
        let since = info.mtime_ms.unwrap_or(0.0);
        sessions::list(Path::new(d), since, args.current_session.as_deref())
    });
    let organization = res
        .transcripts_dir
        .as_ref()
        .map(|d| sessions::organization_marks(Path::new(d)));
    let permission = dream::permission(&settings_texts(&res.settings));
    let entrypoint = ctx.env.get("CLAUDE_CODE_ENTRYPOINT");
    let gates = dream::gates(&GateInput {
        memory_enabled: res.enabled.value,
        memory_lever: &res.enabled.lever,
        remote: paths::is_remote(&ctx.env),
        entrypoint: entrypoint.as_deref(),
        flag: &flag,
        setting: paths::enabled::merged_bool(&res.settings, "autoDreamEnabled"),
        permission: &permission,
        organization: organization.as_ref(),
        lock: &info,
        sessions: sessions.as_deref(),
        min_hours,
        min_sessions,
        now_ms,
    });
    let sessions = sessions.unwrap_or_default();
    let plan = plan(ctx, &res, now_ms, &sessions, info.mtime_ms, out);
    let lock = lock::status(info, now_ms, min_hours);
    let tail = Tail {
        flag: OnyxPloverReport::of(&flag),
        thresholds_source,
        interactive_only: true,
    };
    let doc = DryRun::new(&res, gates, sessions, lock, plan, tail);
    if out.json {
        out.emit_json(doc.to_json()?)?;
    } else {
        out.print(&dream::render_text(&doc, crate::output::row_width(out)))?;
    }
    Ok(ExitCode::SUCCESS)
}

fn ensure_dry_run(args: &DreamArgs) -> Result<(), Error> {
    if !args.run {
        return Ok(());
    }
    Err(Error::new(Kind::Unsupported, "cannot consolidate memories: merging and rewriting them needs a model")
        .hint("run `memctl dream` for the plan, `memctl lint --fix` for the mechanical fixes, or let Claude Code's auto-dream run"))
}

/// The text of each settings file memctl loaded, labelled `<source>: <file>`, in
/// priority order (policy, flag, local, project, user), for the permission gate.
/// Ignored and missing files give nothing; the read is bounded and regular-only.
fn settings_texts(settings: &[Settings]) -> Vec<(String, String)> {
    use crate::paths::settings::Source;
    [
        Source::Policy,
        Source::Flag,
        Source::Local,
        Source::Project,
        Source::User,
    ]
    .iter()
    .filter_map(|src| settings.iter().find(|s| s.source == *src))
    .filter(|s| matches!(s.state, State::Loaded(_)))
    .filter_map(|s| {
        let bytes = crate::fsread::read_regular(Path::new(&s.file), crate::fsread::MAX_SETTINGS_BYTES).ok()?;
        Some((
            format!("{}: {}", s.source.name(), s.file),
            String::from_utf8_lossy(&bytes).into_owned(),
        ))
    })
    .collect()
}

/// Read what the plan needs from the main memory dir, then build it.
fn plan(
    ctx: &Context,
    res: &Resolution,
    now_ms: f64,
    sessions: &[sessions::Session],
    last_consolidated_ms: Option<f64>,
    out: &mut Output,
) -> dream::Plan {
    let dir = res.memdir.main();
    let project_root = res.project.as_ref().map(|p| Path::new(&p.canonical_root));
    if project_root.is_none() {
        out.note("missing-citation check skipped: no project (pass --project with --dir)");
    }
    let home = ctx.env.home();
    // The index's part first: its load model is gone before the scan's records
    // grow.
    let index = dream::IndexPart::of(dir, crate::index::read_index_text(&dir.join("MEMORY.md")), out.json);
    // One scan and one read of every file: lint's, which hands each text to the
    // plan's extraction before dropping it.
    let with_citations = project_root.is_some();
    let extract = |_: &crate::memory::Memory, text: &str| dream::BodyFacts::of(text, with_citations);
    // Only the index rules whose findings the plan shows run (at 20 000 files,
    // 17 000 findings of lint's 35 000).
    let (report, lint::Scanned { mut scan, extracts }) = lint::lint_extracting::<dream::Record, _>(
        &lint::Input {
            dir,
            res,
            now_ms,
            warn_at: dream::WARN_AT,
            env: Some(&ctx.env),
        },
        &dream::PLAN_RULES,
        &extract,
    );
    dream::plan(
        &mut PlanInput {
            dir,
            memories: &mut scan.memories,
            bodies: &extracts,
            findings: &report.findings,
            sessions,
            transcripts_dir: res.transcripts_dir.as_deref(),
            last_consolidated_ms,
            sessions_dir: dir.join("sessions").is_dir(),
            project_root,
            home: home.as_deref().map(Path::new),
            exists: &|p| std::fs::symlink_metadata(p).is_ok(),
        },
        index,
    )
}
