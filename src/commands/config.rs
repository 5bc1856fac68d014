//! `memctl config` (SPEC §7.5): the effective memory settings and their sources,
//! and `set`/`unset` through the one settings writer ([`crate::settings_file`]).

use std::process::ExitCode;

use anyhow::Result;
use serde::Serialize;
use serde_json::Value;

use crate::cli::{ConfigArgs, ConfigCommand, SettingsScope};
use crate::context::Context;
use crate::error::{Error, Kind};
use crate::output::Output;
use crate::paths::settings::Source;
use crate::paths::{DirSource, Resolution};
use crate::settings_file::{self, Change, SettingsFile};

const KEYS: [&str; 3] = ["autoMemoryEnabled", "autoDreamEnabled", "autoMemoryDirectory"];

#[derive(Serialize)]
struct Setting {
    key: &'static str,
    value: Value,
    source: String,
    file: Option<String>,
}

#[derive(Serialize)]
struct Lever {
    name: String,
    value: Option<String>,
    effect: &'static str,
}

#[derive(Serialize)]
struct Shown {
    settings: Vec<Setting>,
    levers: Vec<Lever>,
}

#[derive(Serialize)]
struct Written {
    #[serde(flatten)]
    change: Change,
    old_dir: Option<String>,
    old_dir_memories: Option<usize>,
}

pub fn run(args: &ConfigArgs, ctx: &Context, out: &mut Output) -> Result<ExitCode> {
    match &args.command {
        None => show(ctx, out),
        Some(ConfigCommand::Set(a)) => {
            let value = parse_value(&a.key, &a.value, a.scope, ctx)?;
            if a.key == "autoMemoryDirectory"
                && let Some(w) = crowded_dir_warning(&a.value, ctx)
            {
                out.warn(w);
            }
            edit(ctx, out, &a.key, Some(value), a.scope, a.dry_run)
        }
        Some(ConfigCommand::Unset(a)) => {
            key(&a.key)?;
            edit(ctx, out, &a.key, None, a.scope, a.dry_run)
        }
    }
}

/// Each key's effective value and where it came from: the file is the settings
/// file that decides (local settings when they do), never merely the last one read.
fn shown(res: &Resolution) -> Shown {
    let settings = vec![
        Setting {
            key: "autoMemoryEnabled",
            value: Value::Bool(res.enabled.value),
            source: res.enabled.lever.clone(),
            file: res.enabled.file.clone(),
        },
        Setting {
            key: "autoDreamEnabled",
            value: res.auto_dream.value.map_or(Value::Null, Value::Bool),
            source: res.auto_dream.lever.clone(),
            file: crate::paths::enabled::merged_bool_file(&res.settings, "autoDreamEnabled"),
        },
        Setting {
            key: "autoMemoryDirectory",
            value: Value::String(res.shown()),
            source: res.source.as_str().to_string(),
            file: dir_file(res),
        },
    ];
    let levers = res
        .enabled
        .chain
        .iter()
        .map(|r| Lever {
            name: lever_name(r.rule, res),
            value: r.value.clone(),
            effect: if r.applies { "decides" } else { "no effect" },
        })
        .collect();
    Shown { settings, levers }
}

/// The settings file whose `autoMemoryDirectory` decides the memory dir, if one does.
fn dir_file(res: &Resolution) -> Option<String> {
    let DirSource::Setting(source) = res.source else {
        return None;
    };
    let s = res.settings.iter().find(|s| s.source == source)?;
    s.get("autoMemoryDirectory").map(|(_, f)| f.to_string())
}

/// The lever a row of the enabled chain stands for (SPEC §3.14): the environment
/// variable, or the settings key with its file — not the rule id of `path --json`.
fn lever_name(rule: &str, res: &Resolution) -> String {
    match rule {
        "safe_mode_env" => "CLAUDE_CODE_SAFE_MODE".into(),
        "disable_env" => "CLAUDE_CODE_DISABLE_AUTO_MEMORY".into(),
        "simple_env" => "CLAUDE_CODE_SIMPLE".into(),
        "remote_env" => "CLAUDE_CODE_REMOTE".into(),
        "managed_read_restriction" => match crate::paths::enabled::read_restriction_file(&res.settings) {
            Some(f) => format!("permissions.blockReadsOutsideWorkingDirectories in {f}"),
            None => "permissions.blockReadsOutsideWorkingDirectories".into(),
        },
        "setting" => match crate::paths::enabled::merged_bool_file(&res.settings, "autoMemoryEnabled") {
            Some(f) => format!("autoMemoryEnabled in {f}"),
            None => "autoMemoryEnabled".into(),
        },
        other => other.into(),
    }
}

fn show(ctx: &Context, out: &mut Output) -> Result<ExitCode> {
    let res = ctx.resolve()?;
    let doc = shown(&res);
    if out.json {
        out.emit_json(serde_json::to_value(&doc)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut text = String::new();
    if !out.stdout_tty {
        // Piped: one record per setting, the JSON fields in order (SPEC §3.13).
        for s in &doc.settings {
            text.push_str(&crate::output::record(&serde_json::to_value(s)?));
        }
        out.print(&text)?;
        return Ok(ExitCode::SUCCESS);
    }
    for s in &doc.settings {
        let v = match &s.value {
            Value::String(v) => v.clone(),
            v => v.to_string(),
        };
        text.push_str(&format!("{:<20} {v}\n{:<20} from {}", s.key, "", s.source));
        if let Some(f) = &s.file {
            text.push_str(&format!(" ({f})"));
        }
        text.push('\n');
    }
    out.print(&text)?;
    Ok(ExitCode::SUCCESS)
}

fn key(k: &str) -> Result<&'static str, Error> {
    KEYS.iter().copied().find(|x| *x == k).ok_or_else(|| {
        let hint = KEYS.iter().find(|x| x.eq_ignore_ascii_case(k)).map_or_else(
            || format!("the keys are {}", KEYS.join(", ")),
            |x| format!("did you mean {x}?"),
        );
        Error::new(Kind::Usage, format!("not a memory setting: {k}")).hint(hint)
    })
}

/// The JSON value to write, validated (SPEC §7.5).
fn parse_value(k: &str, v: &str, scope: SettingsScope, ctx: &Context) -> Result<Value, Error> {
    let k = key(k)?;
    if k != "autoMemoryDirectory" {
        return match v {
            "true" => Ok(Value::Bool(true)),
            "false" => Ok(Value::Bool(false)),
            _ => Err(Error::new(Kind::Usage, format!("{k} takes true or false: {v}"))
                .hint(format!("memctl config set {k} false"))),
        };
    }
    if scope == SettingsScope::Project {
        return Err(Error::new(
            Kind::Usage,
            "autoMemoryDirectory cannot be set in the project's settings.json",
        )
        .hint("a checked-in file would redirect every user's memory: Claude Code 2.1.332 honours it in print mode and once the folder is trusted; use --scope local or user"));
    }
    let home = ctx.env.home();
    let dir = crate::paths::validate::validate_memory_path(Some(v), true, home.as_deref()).map_err(|why| {
        Error::new(
            Kind::InvalidInput,
            format!("Claude Code would reject this memory dir ({why}): {v}"),
        )
        .hint("give an absolute path or ~/…, not a filesystem root or a UNC path")
    })?;
    let dir = std::path::PathBuf::from(dir.trim_end_matches('/'));
    let res = ctx.resolve()?;
    ensure_not_sensitive(&dir, home.as_deref(), res.config_home.as_deref(), v)?;
    Ok(Value::String(v.to_string()))
}

/// `p` and, when it exists, its real path (symlinks resolved).
fn forms(p: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut v = vec![p.to_path_buf()];
    if let Ok(r) = std::fs::canonicalize(p) {
        v.push(r);
    }
    v
}

/// Claude Code lets the model write anywhere in the memory dir: a memory dir that
/// is the home dir itself, the Claude config dir or one of its parents would let
/// it write `settings.json` (its own permissions and hooks) or `~/.ssh` (issue 29
/// point 11). Refused whichever way it is spelled (`~/`, `$HOME` as an absolute
/// path, through a symlink).
fn ensure_not_sensitive(dir: &std::path::Path, home: Option<&str>, config: Option<&str>, v: &str) -> Result<(), Error> {
    let dirs = forms(dir);
    let refuse = |what: &str| {
        Err(
            Error::new(Kind::InvalidInput, format!("the memory dir would be {what}: {v}")).hint(
                "Claude Code may write any file in its memory dir; choose a dir of its own, such as ~/claude-memory/",
            ),
        )
    };
    if let Some(home) = home.filter(|h| !h.is_empty()) {
        let homes = forms(std::path::Path::new(home.trim_end_matches('/')));
        if dirs.iter().any(|d| homes.contains(d)) {
            return refuse("your home directory");
        }
    }
    if let Some(config) = config.filter(|c| !c.is_empty()) {
        let configs = forms(std::path::Path::new(config.trim_end_matches('/')));
        if dirs.iter().any(|d| configs.iter().any(|c| c.starts_with(d))) {
            return refuse("the Claude Code config dir or a directory holding it");
        }
    }
    Ok(())
}

/// A warning when `dir` already holds files that are not memories (dotfiles,
/// keys, other programs' files): Claude Code could read and rewrite them.
fn crowded_dir_warning(v: &str, ctx: &Context) -> Option<String> {
    let home = ctx.env.home();
    let dir = crate::paths::validate::validate_memory_path(Some(v), true, home.as_deref()).ok()?;
    let own = [
        ".memctl.lock",
        ".consolidate-lock",
        ".trash",
        ".memctl",
        "MEMORY.md",
        "team",
        "logs",
    ];
    let mut others: Vec<String> = std::fs::read_dir(&dir)
        .ok()?
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
            let memory = !name.starts_with('.') && (name.ends_with(".md") || is_dir);
            (!memory && !own.contains(&name.as_str()) && !name.starts_with(".MEMORY.md.")).then_some(name)
        })
        .collect();
    if others.is_empty() {
        return None;
    }
    others.sort();
    let n = others.len();
    others.truncate(3);
    Some(format!(
        "{dir} already holds {n} file(s) that are not memories ({}{}): Claude Code may read and rewrite anything in its memory dir",
        others.join(", "),
        if n > 3 { ", …" } else { "" }
    ))
}

fn edit(
    ctx: &Context,
    out: &mut Output,
    k: &str,
    value: Option<Value>,
    scope: SettingsScope,
    dry_run: bool,
) -> Result<ExitCode> {
    let res = ctx.resolve()?;
    let path = settings_file::scope_file(scope, &res)?;
    let file = SettingsFile::edit(&path, settings_file::scope_root(scope, &res).as_deref())?;
    let mut map = file.value.clone();
    match &value {
        Some(v) => {
            map.insert(k.to_string(), v.clone());
        }
        None => {
            map.remove(k);
        }
    }
    let change = file.write(&map, dry_run)?;
    let mut doc = Written {
        change,
        old_dir: None,
        old_dir_memories: None,
    };
    if !dry_run {
        let after = ctx.resolve()?;
        warn_if_overridden(out, k, value.as_ref(), scope, &after);
        if after.memdir.main() != res.memdir.main() {
            let n = crate::scan::scan(res.memdir.main()).total;
            doc.old_dir = Some(res.shown());
            doc.old_dir_memories = Some(n);
            if n > 0 {
                out.note(format!(
                    "the memory dir moved to {}; the old dir {} still holds {n} memor{}: move {} with `memctl projects merge {} {}`",
                    after.shown(),
                    res.shown(),
                    if n == 1 { "y" } else { "ies" },
                    if n == 1 { "it" } else { "them" },
                    res.shown(),
                    after.shown(),
                ));
            }
        }
    }
    if out.json {
        out.emit_json(serde_json::to_value(&doc)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    out.print(&doc.change.diff)?;
    let what = match &value {
        Some(v) => format!("set {k} = {v}"),
        None => format!("unset {k}"),
    };
    let verb = if dry_run { "would" } else { "did" };
    let text = match (doc.change.changed || dry_run, dry_run) {
        (true, true) => format!("{verb} {what} in {}\n", doc.change.file),
        (true, false) => match &doc.change.backup {
            Some(b) => format!("{what} in {} (your original file is kept in {b})\n", doc.change.file),
            None => format!("{what} in {}\n", doc.change.file),
        },
        (false, _) => format!("{} already says so: nothing to do\n", doc.change.file),
    };
    out.print(&text)?;
    Ok(ExitCode::SUCCESS)
}

/// A higher-priority source or an environment lever that decides otherwise.
fn warn_if_overridden(out: &mut Output, k: &str, value: Option<&Value>, scope: SettingsScope, after: &Resolution) {
    let Some(v) = value else { return };
    if k == "autoMemoryDirectory" {
        let written = match scope {
            SettingsScope::User => Source::User,
            SettingsScope::Local => Source::Local,
            SettingsScope::Project => Source::Project,
        };
        let decider = match after.source {
            DirSource::CoworkOverride => Some("env CLAUDE_COWORK_MEMORY_PATH_OVERRIDE".to_string()),
            DirSource::Setting(s) if s != written => Some(dir_file(after).map_or_else(
                || format!("{} settings", s.name()),
                |f| format!("{f} ({} settings)", s.name()),
            )),
            _ => None,
        };
        if let Some(d) = decider {
            out.warn(format!(
                "the memory dir is still {}: {d} decides over the file just written",
                after.shown()
            ));
        }
        return;
    }
    let (effective, source) = match k {
        "autoMemoryEnabled" => (Value::Bool(after.enabled.value), after.enabled.lever.clone()),
        "autoDreamEnabled" => (
            after.auto_dream.value.map_or(Value::Null, Value::Bool),
            after.auto_dream.lever.clone(),
        ),
        _ => return,
    };
    if effective != *v {
        out.warn(format!(
            "{k} is still {effective}: {source} decides over the file just written"
        ));
    }
}
