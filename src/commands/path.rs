//! `memctl path` (SPEC §3.3).

use std::process::ExitCode;

use anyhow::Result;

use crate::cli::PathArgs;
use crate::context::Context;
use crate::error::{Error, Kind};
use crate::identity::Identity;
use crate::output::Output;
use crate::paths::{DirSource, NamedKey, Resolution, ServerView, StepName, StepStatus, named, sanitize, with_sep};
use crate::scan;

pub fn run(args: &PathArgs, ctx: &Context, out: &mut Output) -> Result<ExitCode> {
    if let Some(input) = &args.key_for {
        return key_for(input, out);
    }
    let mut res = ctx.resolve()?;
    res.add_model_switch_condition(&ctx.env);
    for w in &res.warnings {
        out.warn(w.clone());
    }
    if let Some(w) = res.tracked_local_setting_warning() {
        out.warn(w);
    }
    if !res.enabled.value {
        out.warn(format!(
            "auto memory is disabled ({}): Claude Code will not read or write this directory",
            res.enabled.lever
        ));
    }
    if args.transcripts && res.transcripts_dir.is_none() {
        return Err(Error::new(
            Kind::Usage,
            "no project: the transcripts dir is keyed by the project root",
        )
        .hint("pass --project with --dir or MEMCTL_DIR")
        .into());
    }
    if out.json {
        let identity = identity(&res, ctx);
        let view = res.server_view(&ctx.env);
        out.emit_json(serde_json::to_value(res.report(identity.as_ref(), &view))?)?;
    } else if args.explain {
        let identity = identity(&res, ctx);
        let view = res.server_view(&ctx.env);
        out.print(&explain(&res, identity.as_ref(), &view, crate::output::row_width(out)))?;
        out.flush()?;
        for w in other_keys(&res, ctx) {
            out.warn(w);
        }
    } else if args.index {
        out.print(&format!("{}\n", res.index_path().display()))?;
    } else if args.transcripts {
        out.print(&format!("{}\n", res.transcripts_dir.as_deref().unwrap_or_default()))?;
    } else {
        out.print(&format!("{}\n", res.shown()))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Other keys holding memories of this repository (SPEC §9's `split` and `moved`
/// rows of `memctl projects`), each with the command that brings them here.
fn other_keys(res: &Resolution, ctx: &Context) -> Vec<String> {
    let Some(project) = res.project.as_ref() else {
        return Vec::new();
    };
    let Ok(found) = crate::projects::discover(ctx, true) else {
        return Vec::new();
    };
    let here = res.memdir.main();
    let same = |r: &crate::projects::Row| crate::paths::with_sep(&r.memory_dir) == crate::paths::with_sep(here);
    let ours = found.rows.iter().find(|r| same(r));
    let name = ours.map_or_else(
        || {
            here.parent()
                .and_then(|p| p.file_name())
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        },
        |r| r.name(),
    );
    let merge = |from: &str| format!("`memctl projects merge -- {from} {}`", project.root);
    let mut warnings = Vec::new();
    for f in ours.into_iter().flat_map(|r| &r.flags) {
        if f.flag == crate::projects::Flag::Split {
            for other in &f.related {
                let memories = found.rows.iter().find(|r| &r.name() == other).map_or(0, |r| r.memories);
                warnings.push(format!(
                    "another key holds memories for this repository: {other} ({memories} memories; {}); {} moves them here",
                    f.detail,
                    merge(other)
                ));
            }
        }
    }
    for r in found.rows.iter().filter(|r| !same(r)) {
        if r.flags
            .iter()
            .any(|f| f.flag == crate::projects::Flag::Moved && f.related.contains(&name))
        {
            let was = r
                .project_path
                .as_ref()
                .map_or_else(String::new, |p| format!(" (was {})", p.display()));
            warnings.push(format!(
                "this project looks moved: {}{was} still holds {} memories; {} brings them along",
                r.name(),
                r.memories,
                merge(&r.name())
            ));
        }
    }
    warnings
}

/// The project's identity (SPEC §11.1), the root commit cached in the memory dir's
/// history store when it has one (`path` never creates a store).
fn identity(res: &Resolution, ctx: &Context) -> Option<Identity> {
    let project = res.project.as_ref()?;
    let store = crate::history::store_path(&ctx.history, res.memdir.main()).filter(|s| s.join("HEAD").is_file());
    crate::identity::of_project(std::path::Path::new(&project.canonical_root), store.as_deref())
}

/// `--key-for`: the key Claude Code 2.1.332 gives a path string (djb2 suffix when
/// long), and the legacy Wyhash key of older native builds (SPEC §3.3, §2.2.7).
fn key_for(input: &str, out: &mut Output) -> Result<ExitCode> {
    let key = sanitize::sanitize(input);
    if key.is_long() {
        out.warn(format!(
            "longer than {} units: Claude Code {} uses the djb2 key; older native builds used {}",
            sanitize::MAX_KEY_UNITS,
            crate::claude::CLAUDE_CODE_VERSION,
            key.wyhash
        ));
    }
    if out.json {
        #[derive(serde::Serialize)]
        struct KeyFor<'a> {
            input: &'a str,
            units: usize,
            key: &'a str,
            key_djb2: &'a str,
            key_wyhash: &'a str,
        }
        let doc = KeyFor {
            input,
            units: input.encode_utf16().count(),
            key: &key.key,
            key_djb2: &key.key,
            key_wyhash: &key.wyhash,
        };
        out.emit_json(serde_json::to_value(doc)?)?;
    } else {
        out.print(&format!("{}\n", key.key))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The `--explain` text: one section per item of SPEC §3.3, in order.
fn explain(res: &Resolution, identity: Option<&Identity>, view: &ServerView, width: Option<usize>) -> String {
    let mut e = Explain::default();
    e.project(res);
    e.identity(res, identity);
    e.homes(res);
    e.steps(res);
    e.key(res);
    e.result(res, view);
    e.enabled(res, view);
    let mut text = e.render(width);
    match width {
        // On a terminal the note wraps to its width, like every row above.
        Some(_) => text.push_str(&crate::output::hang(
            "note: ",
            "flag settings (--settings), server-delivered and MDM policies are not visible to memctl; Claude Code must run with the same environment for this answer to hold",
            width,
        )),
        None => text.push_str("note: flag settings (--settings), server-delivered and MDM policies are not visible to memctl;\n      Claude Code must run with the same environment for this answer to hold\n"),
    }
    text.push_str(&format!(
        "modelled Claude Code build: {}\n",
        crate::claude::CLAUDE_CODE_VERSION
    ));
    text
}

#[derive(Default)]
struct Explain {
    rows: Vec<(String, String)>,
}

impl Explain {
    fn line(&mut self, label: &str, value: impl AsRef<str>) {
        self.rows.push((label.to_string(), value.as_ref().to_string()));
    }

    /// Every value starts in one column, two past the longest label, so no label
    /// runs into its value (`settings.project` is the longest step name).
    /// With `wrap_to` (a terminal's width) a long value wraps at its spaces under
    /// its own column; a path is never cut.
    fn render(&self, wrap_to: Option<usize>) -> String {
        let width = self.rows.iter().map(|(l, _)| l.chars().count()).max().unwrap_or(0) + 2;
        let mut text = String::new();
        for (label, value) in &self.rows {
            let pad = width - label.chars().count();
            text.push_str(&crate::output::hang(&format!("{label}{:pad$}", ""), value, wrap_to));
        }
        text
    }

    /// Items 1–2: project root, git root, canonical root.
    fn project(&mut self, res: &Resolution) {
        let Some(p) = &res.project else {
            let by = match res.source {
                DirSource::DirFlag => "given by --dir",
                DirSource::InsideDir => "is the one you are in",
                _ => "given by MEMCTL_DIR",
            };
            self.line("project", format!("none (memory dir {by})"));
            return;
        };
        let how = if p.realpath_ok {
            "realpath"
        } else {
            "realpath failed; path as given"
        };
        self.line("project root", format!("{} ({how})", p.root));
        self.line("git root", p.git_root.as_deref().unwrap_or("none"));
        self.line(
            "canonical root",
            format!("{} ({})", p.canonical_root, p.reason.describe()),
        );
    }

    /// The project identity (SPEC §11.1) and where it came from.
    fn identity(&mut self, res: &Resolution, identity: Option<&Identity>) {
        let Some(p) = &res.project else {
            return;
        };
        let value = match identity {
            Some(i) => match i.source {
                crate::identity::Source::Origin => format!("{} (remote origin)", i.id),
                crate::identity::Source::RootCommit => format!("{} (root commit; no remote origin)", i.id),
            },
            None if p.git_root.is_none() => "none (not a git repository)".into(),
            None => "none (no remote origin and no commit)".into(),
        };
        self.line("identity", value);
    }

    /// Item 3: config home and memory base.
    fn homes(&mut self, res: &Resolution) {
        self.line(
            "config home",
            res.config_home.as_deref().unwrap_or("unknown (no home directory)"),
        );
        self.line("memory base", res.memory_base.as_deref().unwrap_or("unknown"));
    }

    /// Items 4–5: each step with its status, value and why; the project source with
    /// its trust status.
    fn steps(&mut self, res: &Resolution) {
        for step in &res.steps {
            let mut v = step.status.as_str().replace('_', " ");
            if let Some(f) = &step.file {
                v = format!("{f}: {v}");
            }
            if let Some(val) = &step.value {
                v.push_str(&format!(" `{val}`"));
            }
            match &step.detail {
                Some(d)
                    if matches!(step.step, StepName::Project | StepName::Local) && step.status == StepStatus::Used =>
                {
                    v.push_str(&format!(
                        " (consulted: Claude Code {} reads it in print/SDK mode without trust and in every interactive session; {d})",
                        crate::claude::CLAUDE_CODE_VERSION
                    ));
                }
                Some(d) => v.push_str(&format!(" ({d})")),
                None => {}
            }
            self.line(&format!("  {}", step.step.as_str()), v);
        }
    }

    /// Item 6: the key, its length, where it came from, the hash variant.
    fn key(&mut self, res: &Resolution) {
        let Some(k) = &res.key else {
            return;
        };
        let mut why = format!("{} units", k.units);
        if let Some(h) = res.hash_variant {
            why.push_str(&format!(
                ", longer than 200 units: {h} suffix, as Claude Code {} makes it",
                crate::claude::CLAUDE_CODE_VERSION
            ));
        }
        for l in &res.legacy_dirs {
            why.push_str(&format!(
                "; legacy {} dir {} holds {} memories (`{}`)",
                l.variant, l.key, l.memories, l.command
            ));
        }
        match &res.named_key {
            NamedKey::Used(_) if res.key_source == Some(crate::paths::KeySource::Named) => {
                why.push_str(&format!(", named by {}; it keys the transcripts dir too", named::VAR))
            }
            NamedKey::Used(_) => why.push_str(&format!(
                "; {} keys only the transcripts dir (the memory base is not the config home)",
                named::VAR
            )),
            NamedKey::Ignored { raw, why: reason } => {
                why.push_str(&format!("; {} `{raw}` ignored: {reason}", named::VAR))
            }
            NamedKey::Unset => {}
        }
        self.line("key", format!("{} ({why})", k.key));
    }

    /// Item 7: the result, the team dir, the transcripts dir.
    fn result(&mut self, res: &Resolution, view: &ServerView) {
        let count = if res.memdir.dir().is_dir() {
            format!("exists, {} memory files", scan::scan(res.memdir.dir()).memories.len())
        } else {
            "does not exist yet".into()
        };
        self.line("result", format!("{} ({}; {count})", res.shown(), res.source));
        self.line(
            "team dir",
            format!(
                "{} ({})",
                with_sep(&res.team_dir()),
                match (view.team_memory, res.memdir.mount()) {
                    (true, Some(m)) => format!(
                        "team memory: the team store mounted at {m} in CLAUDE_MEMORY_STORES is synced here; --team works here"
                    ),
                    (true, None) => "team memory: CLAUDE_MEMORY_STORES has several team stores, each synced into team/<mount>/; pass --dir for one".to_string(),
                    (false, _) => {
                        "a plain subdir for Claude Code: no team store in CLAUDE_MEMORY_STORES".to_string()
                    }
                }
            ),
        );
        self.line(
            "transcripts",
            res.transcripts_dir.as_deref().unwrap_or("unknown (no project)"),
        );
        if !view.agent_memory_dirs.is_empty() {
            self.line("agent memory", view.agent_memory_dirs.join(", "));
        }
    }

    /// Items 8–9: auto memory and auto-dream, with their levers.
    fn enabled(&mut self, res: &Resolution, view: &ServerView) {
        let chain: Vec<String> = res
            .enabled
            .chain
            .iter()
            .filter(|r| r.rule != "default")
            .map(|r| format!("{}={}", r.rule, r.value.as_deref().unwrap_or("unset")))
            .collect();
        let on = if res.enabled.value { "enabled" } else { "disabled" };
        self.line("auto memory", format!("{on} ({})", res.enabled.lever));
        self.line("", chain.join(", "));
        if !res.enabled.conditions.is_empty() {
            self.line(
                "",
                format!(
                    "not visible to memctl, each would turn it off: {}",
                    res.enabled.conditions.join(", ")
                ),
            );
        }
        self.line(
            "recall mode",
            match &view.recall_mode.lever {
                Some(l) => format!("on ({l}): MEMORY.md is not injected"),
                None => "off".into(),
            },
        );
        let dream = match view.dream.value {
            Some(true) => format!("enabled ({})", view.dream.lever),
            Some(false) => format!("disabled ({})", view.dream.lever),
            None => format!("unknown ({})", view.dream.lever),
        };
        self.line("auto-dream", dream);
        self.line("", view.dream_flag.describe());
        if let Some(v) = res.auto_dream.value {
            self.line("", format!("autoDreamEnabled={v} ({})", res.auto_dream.lever));
        }
    }
}
