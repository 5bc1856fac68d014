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

/// The settings scopes, in the order `hook status` shows them.
const SCOPES: [(SettingsScope, &str); 3] = [
    (SettingsScope::User, "user"),
    (SettingsScope::Project, "project"),
    (SettingsScope::Local, "local"),
];

/// `memctl hook status` (SPEC v3 §7.4): each scope's hooks, the plugins, and what
/// stops Claude Code from running them.
fn status(ctx: &Context, out: &mut Output) -> Result<ExitCode> {
    let res = ctx.resolve()?;
    let mut scopes = Vec::new();
    let mut blocked = Vec::new();
    for (scope, name) in SCOPES {
        let Ok(file) = crate::settings_file::scope_file(scope, &res) else {
            continue;
        };
        let json = read_json(&file);
        blocked.extend(blocked_by(&["disableAllHooks"], json.as_ref(), &file));
        scopes.push(scope_status(name, &file, json.as_ref(), ctx));
    }
    let policy = &ctx.env.policy_file;
    blocked.extend(blocked_by(
        &["disableAllHooks", "allowManagedHooksOnly"],
        read_json(policy).as_ref(),
        policy,
    ));
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
    } else if !out.stdout_tty {
        print_records(&scopes, &plugins, &blocked, out)?;
    } else {
        out.print(&render_status(&scopes, &plugins, &blocked))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The settings among `keys` that are `true` in `json` (the settings file `file`).
fn blocked_by(keys: &[&'static str], json: Option<&Map<String, Value>>, file: &Path) -> Vec<Blocked> {
    let Some(json) = json else {
        return Vec::new();
    };
    keys.iter()
        .filter(|key| json.get(**key) == Some(&Value::Bool(true)))
        .map(|&setting| Blocked {
            setting,
            file: file.to_string_lossy().into_owned(),
        })
        .collect()
}

/// One scope's row: the events memctl's hooks are in, the binary they run and
/// whether it is there.
fn scope_status(name: &'static str, file: &Path, json: Option<&Map<String, Value>>, ctx: &Context) -> ScopeStatus {
    let (events, binary) = our_events(json);
    let binary_exists = binary.as_ref().map(|b| {
        if b.contains('/') {
            Path::new(b).is_file()
        } else {
            on_path(b, ctx)
        }
    });
    ScopeStatus {
        scope: name,
        file: file.to_string_lossy().into_owned(),
        installed: all_needed(&events),
        events,
        binary,
        binary_exists,
    }
}

/// The events of a settings file whose hooks run memctl, and the binary the
/// first of them runs.
fn our_events(json: Option<&Map<String, Value>>) -> (Vec<String>, Option<String>) {
    let mut events = Vec::new();
    let mut binary = None;
    if let Some(Value::Object(hooks)) = json.and_then(|j| j.get("hooks")) {
        for (event, list) in hooks {
            let cmds = our_commands(event, list);
            if let Some(c) = cmds.first() {
                events.push(event.clone());
                binary.get_or_insert_with(|| command_binary(c).unwrap_or_default());
            }
        }
    }
    (events, binary)
}

/// Whether `events` holds every event memctl needs: the gate is optional
/// (`--no-gate`); every other event is needed.
fn all_needed(events: &[String]) -> bool {
    EVENTS
        .iter()
        .filter(|e| **e != GATE)
        .all(|(e, _)| events.iter().any(|x| x == e))
}

/// Piped: one record per scope, the JSON fields in order (SPEC §3.13); what stops
/// Claude Code from running them, and the plugins, go to stderr.
fn print_records(scopes: &[ScopeStatus], plugins: &[Plugin], blocked: &[Blocked], out: &mut Output) -> Result<()> {
    for b in blocked {
        out.warn(format!(
            "Claude Code will not run these hooks: {} is true in {}",
            b.setting, b.file
        ));
    }
    for p in plugins {
        out.eprint(&format!("{}\n", plugin_line(p)));
    }
    let mut text = String::new();
    for s in scopes {
        text.push_str(&crate::output::record(&serde_json::to_value(s)?));
    }
    out.print(&text)?;
    Ok(())
}

/// The terminal's text: each scope with its gate and binary, the plugins, and
/// what stops Claude Code from running the hooks.
fn render_status(scopes: &[ScopeStatus], plugins: &[Plugin], blocked: &[Blocked]) -> String {
    let mut text = String::new();
    for s in scopes {
        text.push_str(&scope_lines(s));
    }
    for p in plugins {
        text.push_str(&format!("{}\n", plugin_line(p)));
    }
    for b in blocked {
        text.push_str(&format!(
            "Claude Code will not run these hooks: {} is true in {}\n",
            b.setting, b.file
        ));
    }
    text
}

/// One scope on a terminal: its state and file, then its gate and binary.
fn scope_lines(s: &ScopeStatus) -> String {
    let state = if s.installed {
        "installed".to_string()
    } else if s.events.is_empty() {
        "not installed".to_string()
    } else {
        format!("partly installed ({})", s.events.join(", "))
    };
    let mut text = format!("{:<8} {state:<14} {}\n", s.scope, s.file);
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
    text
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

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(text: &str) -> Map<String, Value> {
        serde_json::from_str(text).expect("json")
    }

    fn scope(events: &[&str], binary: Option<(&str, bool)>) -> ScopeStatus {
        let events: Vec<String> = events.iter().map(|e| e.to_string()).collect();
        ScopeStatus {
            scope: "user",
            file: "/h/.claude/settings.json".to_string(),
            installed: all_needed(&events),
            events,
            binary: binary.map(|(b, _)| b.to_string()),
            binary_exists: binary.map(|(_, e)| e),
        }
    }

    #[test]
    fn only_settings_set_to_true_block_the_hooks() {
        let json = settings(r#"{"disableAllHooks": true, "allowManagedHooksOnly": false}"#);
        let keys = ["disableAllHooks", "allowManagedHooksOnly"];
        let b = blocked_by(&keys, Some(&json), Path::new("/etc/policy.json"));
        assert_eq!(b.len(), 1);
        assert_eq!(
            (b[0].setting, b[0].file.as_str()),
            ("disableAllHooks", "/etc/policy.json")
        );
        assert!(blocked_by(&keys, None, Path::new("/x")).is_empty());
    }

    #[test]
    fn our_events_skip_other_commands_and_name_the_binary() {
        assert_eq!(our_events(None), (Vec::new(), None));
        let json = settings(
            r#"{"hooks": {
                "Stop": [{"hooks": [{"type": "command", "command": "/opt/bin/memctl hook"}]}],
                "Notification": [{"hooks": [{"type": "command", "command": "notify-send hi"}]}]
            }}"#,
        );
        let (events, binary) = our_events(Some(&json));
        assert_eq!(events, ["Stop"]);
        assert_eq!(binary.as_deref(), Some("/opt/bin/memctl"));
    }

    #[test]
    fn every_event_but_the_gate_is_needed() {
        let all: Vec<String> = EVENTS.iter().map(|(e, _)| e.to_string()).collect();
        assert!(all_needed(&all));
        let no_gate: Vec<String> = all.iter().filter(|e| *e != GATE.0).cloned().collect();
        assert!(all_needed(&no_gate));
        assert!(!all_needed(&all[..all.len() - 1]));
        assert!(!all_needed(&[]));
    }

    #[test]
    fn a_scope_shows_its_state_gate_and_binary() {
        assert_eq!(
            scope_lines(&scope(&[], None)),
            "user     not installed  /h/.claude/settings.json\n"
        );
        let partly = scope_lines(&scope(&["Stop"], Some(("memctl", false))));
        assert_eq!(
            partly,
            "user     partly installed (Stop) /h/.claude/settings.json\n         gate: off (installed with --no-gate)\n         binary: memctl  (not on PATH: Claude Code started from here skips these hooks)\n"
        );
        let all: Vec<&str> = EVENTS.iter().map(|(e, _)| *e).collect();
        let text = render_status(
            &[scope(&all, Some(("/opt/memctl", true)))],
            &[],
            &[Blocked {
                setting: "disableAllHooks",
                file: "/p.json".to_string(),
            }],
        );
        assert_eq!(
            text,
            "user     installed      /h/.claude/settings.json\n         gate: on (a Write|Edit that would lose memory is refused)\n         binary: /opt/memctl\nClaude Code will not run these hooks: disableAllHooks is true in /p.json\n"
        );
    }
}
