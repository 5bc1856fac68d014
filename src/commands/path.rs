//! `memctl path` (SPEC §3.3).

use std::process::ExitCode;

use anyhow::Result;

use crate::cli::PathArgs;
use crate::context::Context;
use crate::error::{Error, Kind};
use crate::output::Output;
use crate::paths::{Resolution, sanitize, with_sep};
use crate::scan;

pub fn run(args: &PathArgs, ctx: &Context, out: &mut Output) -> Result<ExitCode> {
    if let Some(input) = &args.key_for {
        return key_for(input, out);
    }
    let res = ctx.resolve()?;
    for w in &res.warnings {
        out.warn(w.clone());
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
        out.emit_json(serde_json::to_value(res.report())?)?;
    } else if args.explain {
        out.print(&explain(&res))?;
    } else if args.index {
        out.print(&format!("{}\n", res.index_path().display()))?;
    } else if args.transcripts {
        out.print(&format!("{}\n", res.transcripts_dir.as_deref().unwrap_or_default()))?;
    } else {
        out.print(&format!("{}\n", res.shown()))?;
    }
    Ok(ExitCode::SUCCESS)
}

fn key_for(input: &str, out: &mut Output) -> Result<ExitCode> {
    let key = sanitize::sanitize(input);
    if out.json {
        #[derive(serde::Serialize)]
        struct KeyFor<'a> {
            input: &'a str,
            units: usize,
            key: &'a str,
            key_djb2: &'a str,
        }
        let doc = KeyFor {
            input,
            units: input.encode_utf16().count(),
            key: &key.wyhash,
            key_djb2: &key.djb2,
        };
        out.emit_json(serde_json::to_value(doc)?)?;
    } else {
        out.print(&format!("{}\n", key.wyhash))?;
    }
    Ok(ExitCode::SUCCESS)
}

fn explain(res: &Resolution) -> String {
    let mut s = String::new();
    let mut line = |label: &str, value: String| s.push_str(&format!("{label:<16}{value}\n"));
    match &res.project {
        Some(p) => {
            line(
                "project root",
                format!(
                    "{} ({})",
                    p.root,
                    if p.realpath_ok {
                        "realpath"
                    } else {
                        "realpath failed; path as given"
                    }
                ),
            );
            line("git root", p.git_root.clone().unwrap_or_else(|| "none".into()));
            line(
                "canonical root",
                format!("{} ({})", p.canonical_root, p.reason.describe()),
            );
        }
        None => line(
            "project",
            format!(
                "none (memory dir given by {})",
                if res.source == crate::paths::DirSource::DirFlag {
                    "--dir"
                } else {
                    "MEMCTL_DIR"
                }
            ),
        ),
    }
    line(
        "config home",
        res.config_home
            .clone()
            .unwrap_or_else(|| "unknown (no home directory)".into()),
    );
    line(
        "memory base",
        res.memory_base.clone().unwrap_or_else(|| "unknown".into()),
    );
    for step in &res.steps {
        let mut v = step.status.as_str().replace('_', " ");
        if let Some(f) = &step.file {
            v = format!("{f}: {v}");
        }
        if let Some(val) = &step.value {
            v.push_str(&format!(" `{val}`"));
        }
        if let Some(d) = &step.detail {
            v.push_str(&format!(" ({d})"));
        }
        line(&format!("  {}", step.step.as_str()), v);
    }
    if let Some(k) = &res.key {
        let variant = res
            .hash_variant
            .map(|h| format!(", longer than 200 units: {h} suffix"))
            .unwrap_or_default();
        line("key", format!("{} ({} units{variant})", k.wyhash, k.units));
    }
    let exists = res.memdir.dir().is_dir();
    let count = if exists {
        format!("exists, {} memory files", scan::scan(res.memdir.dir()).memories.len())
    } else {
        "does not exist yet".into()
    };
    line("result", format!("{} ({}; {count})", res.shown(), res.source));
    line("team dir", with_sep(&res.team_dir()));
    line(
        "transcripts",
        res.transcripts_dir
            .clone()
            .unwrap_or_else(|| "unknown (no project)".into()),
    );
    let chain: Vec<String> = res
        .enabled
        .chain
        .iter()
        .filter(|r| r.rule != "default")
        .map(|r| format!("{}={}", r.rule, r.value.as_deref().unwrap_or("unset")))
        .collect();
    line(
        "auto memory",
        format!(
            "{} ({})",
            if res.enabled.value { "enabled" } else { "disabled" },
            res.enabled.lever
        ),
    );
    line("", chain.join(", "));
    let dream = match res.auto_dream.value {
        Some(true) => "enabled".to_string(),
        Some(false) => "disabled".to_string(),
        None => "unknown (unset: Claude Code uses a server-side default)".to_string(),
    };
    line("auto-dream", format!("{dream} ({})", res.auto_dream.lever));
    s.push_str("note: flag settings (--settings), server-delivered and MDM policies are not visible to memctl;\n      Claude Code must run with the same environment for this answer to hold\n");
    s
}
