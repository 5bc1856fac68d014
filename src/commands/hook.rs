//! `memctl hook` (SPEC §7): run the hook on stdin's payload, or install, remove and
//! inspect memctl's entries in Claude Code's settings files.

use std::io::IsTerminal;
use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::cli::{HookArgs, HookCommand, HookInstallArgs, SettingsScope};
use crate::context::Context;
use crate::error::{Error, Kind};
use crate::hook;
use crate::hook::install::{EVENTS, GATE, command_binary, command_for, our_commands, with_hooks, without_hooks};
use crate::hook::plugin::{self, Plugin};
use crate::output::Output;
use crate::settings_file::{Change, SettingsFile};

pub fn run(args: &HookArgs, ctx: &Context, out: &mut Output) -> Result<ExitCode> {
    match &args.command {
        None => run_hook(ctx, out),
        Some(HookCommand::Install(a)) => edit(&a.target, ctx, out, Some(!a.no_gate)),
        Some(HookCommand::Uninstall(a)) => edit(a, ctx, out, None),
        Some(HookCommand::Status) => status(ctx, out),
    }
}

fn run_hook(ctx: &Context, out: &mut Output) -> Result<ExitCode> {
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        return Err(Error::new(
            Kind::Usage,
            "memctl hook reads a Claude Code hook payload on stdin, not a terminal",
        )
        .hint("install it with `memctl hook install`; Claude Code then runs it")
        .into());
    }
    let payload = hook::payload::read(&mut stdin.lock())?;
    let call = hook::Call {
        env: &ctx.env,
        now: ctx.now,
        history: &ctx.history,
    };
    if let Some(doc) = hook::run(&payload, &call)? {
        out.print(&hook::render::to_json(&doc))?;
        out.print("\n")?;
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Serialize)]
struct EditReport {
    #[serde(flatten)]
    change: Change,
}

/// Install (`gate`: `Some(with the gate)`) or uninstall (`None`) memctl's hooks.
fn edit(a: &HookInstallArgs, ctx: &Context, out: &mut Output, gate: Option<bool>) -> Result<ExitCode> {
    let install = gate.is_some();
    let res = ctx.resolve()?;
    let file = crate::settings_file::scope_file(a.scope, &res)?;
    let root = crate::settings_file::scope_root(a.scope, &res);
    if install {
        ensure_no_plugin(&plugins(&res))?;
    }
    let sf = SettingsFile::edit(&file, root.as_deref())?;
    let new = if install {
        let cmd = command_for(a.scope)?;
        if a.scope == SettingsScope::Project {
            out.warn(format!(
                "{} is usually committed: the command runs `memctl hook` found on each user's PATH, and does nothing for a teammate without memctl on it (`{}`)",
                file.display(),
                hook::install::PROJECT_COMMAND
            ));
        }
        with_hooks(&sf.value, &cmd, &file, gate.unwrap_or(true))?
    } else {
        without_hooks(&sf.value)
    };
    let unchanged_missing = !install && sf.text.is_none();
    let change = if unchanged_missing {
        Change {
            file: file.to_string_lossy().into_owned(),
            changed: false,
            backup: None,
            diff: String::new(),
        }
    } else if install {
        sf.write(&new, a.dry_run)?
    } else {
        // A file memctl created goes again rather than staying as `{}` (SPEC §7.4).
        match sf.remove_if_created(&new, a.dry_run)? {
            Some(c) => c,
            None => sf.write(&new, a.dry_run)?,
        }
    };
    if out.json {
        out.emit_json(serde_json::to_value(EditReport { change })?)?;
        return Ok(ExitCode::SUCCESS);
    }
    out.print(&change.diff)?;
    let what = if install { "installed in" } else { "removed from" };
    let line = match (change.changed, a.dry_run) {
        (false, _) if install => format!("memctl's hooks are already installed in {}\n", change.file),
        (false, _) => format!("memctl's hooks are not in {}\n", change.file),
        (true, true) => format!(
            "dry run: memctl's hooks would be {what} {}; nothing written\n",
            change.file
        ),
        (true, false) => match &change.backup {
            Some(b) => format!(
                "memctl's hooks {what} {} (your original file is kept in {b})\n",
                change.file
            ),
            None => format!("memctl's hooks {what} {}\n", change.file),
        },
    };
    out.print(&line)?;
    Ok(ExitCode::SUCCESS)
}

/// The memctl plugins Claude Code has enabled from here (SPEC v3 §13), read from
/// the user, project and local settings files and the client's plugin records.
fn plugins(res: &crate::paths::Resolution) -> Vec<Plugin> {
    let files: Vec<(&'static str, std::path::PathBuf)> = [
        (SettingsScope::User, "user"),
        (SettingsScope::Project, "project"),
        (SettingsScope::Local, "local"),
    ]
    .into_iter()
    .filter_map(|(scope, name)| Some((name, crate::settings_file::scope_file(scope, res).ok()?)))
    .collect();
    let json: Vec<Option<Map<String, Value>>> = files.iter().map(|(_, f)| read_json(f)).collect();
    let sources: Vec<plugin::Source> = files
        .iter()
        .zip(&json)
        .map(|((scope, file), settings)| plugin::Source {
            scope,
            file,
            settings: settings.as_ref(),
        })
        .collect();
    plugin::find(&sources, res.config_home.as_deref().map(Path::new))
}

/// SPEC v3 §7.4, §13: an enabled memctl plugin already runs memctl's hooks; a
/// settings install beside it would run each of them twice.
fn ensure_no_plugin(plugins: &[Plugin]) -> Result<(), Error> {
    let Some(p) = plugins.iter().find(|p| !p.events.is_empty()) else {
        return Ok(());
    };
    Err(Error::new(
        Kind::Conflict,
        format!(
            "memctl's hooks already run from the Claude Code plugin `{}` (enabled in {}); nothing was written",
            p.id, p.file
        ),
    )
    .hint(format!(
        "keep the plugin, or disable it first (`claude plugin disable {}`) to install the hooks into a settings file",
        p.id
    )))
}

#[derive(Serialize)]
struct ScopeStatus {
    scope: &'static str,
    file: String,
    installed: bool,
    events: Vec<String>,
    binary: Option<String>,
    binary_exists: Option<bool>,
}

/// `hook status --json`.
#[derive(Serialize)]
struct StatusDoc<'a> {
    scopes: &'a [ScopeStatus],
    /// Enabled memctl plugins (SPEC v3 §13), each with the events it carries.
    plugins: &'a [Plugin],
    blocked_by: &'a [Blocked],
}

#[derive(Serialize)]
struct Blocked {
    setting: &'static str,
    file: String,
}

/// A settings file as JSON, `None` when missing or unparsable (Claude Code ignores it).
fn read_json(path: &Path) -> Option<Map<String, Value>> {
    SettingsFile::open(path)
        .ok()
        .filter(|s| s.text.is_some())
        .map(|s| s.value)
}

fn on_path(name: &str, ctx: &Context) -> bool {
    ctx.env
        .get("PATH")
        .unwrap_or_default()
        .split(':')
        .filter(|d| !d.is_empty())
        .any(|d| Path::new(d).join(name).is_file())
}

fn status(ctx: &Context, out: &mut Output) -> Result<ExitCode> {
    let res = ctx.resolve()?;
    let mut scopes = Vec::new();
    let mut blocked = Vec::new();
    for (scope, name) in [
        (SettingsScope::User, "user"),
        (SettingsScope::Project, "project"),
        (SettingsScope::Local, "local"),
    ] {
        let Ok(file) = crate::settings_file::scope_file(scope, &res) else {
            continue;
        };
        let json = read_json(&file);
        let mut events = Vec::new();
        let mut binary = None;
        if let Some(Value::Object(hooks)) = json.as_ref().and_then(|j| j.get("hooks")) {
            for (event, list) in hooks {
                let cmds = our_commands(event, list);
                if let Some(c) = cmds.first() {
                    events.push(event.clone());
                    binary.get_or_insert_with(|| command_binary(c).unwrap_or_default());
                }
            }
        }
        if json.as_ref().and_then(|j| j.get("disableAllHooks")) == Some(&Value::Bool(true)) {
            blocked.push(Blocked {
                setting: "disableAllHooks",
                file: file.to_string_lossy().into_owned(),
            });
        }
        let binary_exists = binary.as_ref().map(|b| {
            if b.contains('/') {
                Path::new(b).is_file()
            } else {
                on_path(b, ctx)
            }
        });
        scopes.push(ScopeStatus {
            scope: name,
            file: file.to_string_lossy().into_owned(),
            // The gate is optional (`--no-gate`); every other event is needed.
            installed: EVENTS
                .iter()
                .filter(|e| **e != GATE)
                .all(|(e, _)| events.iter().any(|x| x == e)),
            events,
            binary,
            binary_exists,
        });
    }
    let policy = &ctx.env.policy_file;
    if let Some(p) = read_json(policy) {
        for key in ["disableAllHooks", "allowManagedHooksOnly"] {
            if p.get(key) == Some(&Value::Bool(true)) {
                blocked.push(Blocked {
                    setting: key,
                    file: policy.to_string_lossy().into_owned(),
                });
            }
        }
    }
    let plugins = plugins(&res);
    for w in path_warnings(&scopes)
        .into_iter()
        .chain(plugin_warnings(&plugins, &scopes, ctx))
    {
        out.warn(w);
    }
    if out.json {
        out.emit_json(serde_json::to_value(StatusDoc {
            scopes: &scopes,
            plugins: &plugins,
            blocked_by: &blocked,
        })?)?;
        return Ok(ExitCode::SUCCESS);
    }
    if !out.stdout_tty {
        // Piped: one record per scope, the JSON fields in order (SPEC §3.13); what
        // stops Claude Code from running them goes to stderr.
        for b in &blocked {
            out.warn(format!(
                "Claude Code will not run these hooks: {} is true in {}",
                b.setting, b.file
            ));
        }
        for p in &plugins {
            out.eprint(&format!("{}\n", plugin_line(p)));
        }
        let mut text = String::new();
        for s in &scopes {
            text.push_str(&crate::output::record(&serde_json::to_value(s)?));
        }
        out.print(&text)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut text = String::new();
    for s in &scopes {
        let state = if s.installed {
            "installed".to_string()
        } else if s.events.is_empty() {
            "not installed".to_string()
        } else {
            format!("partly installed ({})", s.events.join(", "))
        };
        text.push_str(&format!("{:<8} {state:<14} {}\n", s.scope, s.file));
        if !s.events.is_empty() {
            let gate = if s.events.iter().any(|e| e == GATE.0) {
                "on (a Write|Edit that would lose memory is refused)"
            } else {
                "off (installed with --no-gate)"
            };
            text.push_str(&format!("         gate: {gate}\n"));
        }
        if let (Some(b), Some(exists)) = (&s.binary, s.binary_exists) {
            let note = match (exists, b.contains('/')) {
                (true, _) => "",
                (false, true) => "  (missing: run `memctl hook install` again)",
                (false, false) => "  (not on PATH: Claude Code started from here skips these hooks)",
            };
            text.push_str(&format!("         binary: {b}{note}\n"));
        }
    }
    for p in &plugins {
        text.push_str(&format!("{}\n", plugin_line(p)));
    }
    for b in &blocked {
        text.push_str(&format!(
            "Claude Code will not run these hooks: {} is true in {}\n",
            b.setting, b.file
        ));
    }
    out.print(&text)?;
    Ok(ExitCode::SUCCESS)
}

/// SPEC v3 §7.4: a scope whose hooks run `memctl` from `PATH` (the project form)
/// while memctl is not on the `PATH` Claude Code would inherit from here.
fn path_warnings(scopes: &[ScopeStatus]) -> Vec<String> {
    scopes
        .iter()
        .filter(|s| s.binary_exists == Some(false))
        .filter_map(|s| s.binary.as_deref().filter(|b| !b.contains('/')).map(|b| (s, b)))
        .map(|(s, b)| {
            format!(
                "{}: the {} hooks run `{b}` from PATH, and it is not on the PATH Claude Code would use from here, so they do nothing; put memctl on PATH, or run `memctl hook install` for your own user",
                s.file, s.scope
            )
        })
        .collect()
}

/// One line on an enabled memctl plugin: the state of its hooks and where it is enabled.
fn plugin_line(p: &Plugin) -> String {
    let carried = |e: &str| p.events.iter().any(|x| x == e);
    let state = if p.events.is_empty() {
        "enabled, without memctl's hooks".to_string()
    } else if EVENTS.iter().filter(|e| **e != GATE).all(|(e, _)| carried(e)) {
        "installed".to_string()
    } else {
        format!("partly installed ({})", p.events.join(", "))
    };
    format!("{:<8} {state:<14} {} (enabled in {})", "plugin", p.id, p.file)
}

/// SPEC v3 §13: the plugin beside a settings install runs every hook twice; the
/// plugin's hooks run `memctl` from `PATH` (the project form).
fn plugin_warnings(plugins: &[Plugin], scopes: &[ScopeStatus], ctx: &Context) -> Vec<String> {
    let mut warnings = Vec::new();
    for p in plugins.iter().filter(|p| !p.events.is_empty()) {
        for s in scopes.iter().filter(|s| !s.events.is_empty()) {
            warnings.push(format!(
                "memctl's hooks run twice: from the plugin `{}` (enabled in {}) and from {} ({} scope); keep one: `memctl hook uninstall --scope {}`, or `claude plugin disable {}`",
                p.id, p.file, s.file, s.scope, s.scope, p.id
            ));
        }
        if !on_path("memctl", ctx) {
            warnings.push(format!(
                "the plugin `{}` runs `memctl` from PATH, and it is not on the PATH Claude Code would use from here, so its hooks do nothing; put memctl on PATH",
                p.id
            ));
        }
    }
    warnings
}
