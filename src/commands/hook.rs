//! `memctl hook` (SPEC §7): run the hook on stdin's payload, or install, remove and
//! inspect memctl's entries in Claude Code's settings files.

use std::io::IsTerminal;
use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;
use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::cli::{HookArgs, HookCommand, HookInstallArgs, SettingsScope};
use crate::context::Context;
use crate::error::{Error, Kind};
use crate::hook;
use crate::output::Output;
use crate::settings_file::{Change, SettingsFile};

pub fn run(args: &HookArgs, ctx: &Context, out: &mut Output) -> Result<ExitCode> {
    match &args.command {
        None => run_hook(ctx, out),
        Some(HookCommand::Install(a)) => edit(a, ctx, out, true),
        Some(HookCommand::Uninstall(a)) => edit(a, ctx, out, false),
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

/// The events memctl registers, with their matchers.
const EVENTS: [(&str, Option<&str>); 3] = [
    ("PostToolUse", Some("Write|Edit|MultiEdit")),
    ("SessionStart", None),
    ("SessionEnd", None),
];

/// A command is memctl's when its first word's file name is `memctl` and its next
/// word is `hook`.
pub fn is_memctl_command(cmd: &str) -> bool {
    let words = shell_words::split(cmd).unwrap_or_else(|_| cmd.split_whitespace().map(str::to_string).collect());
    words.len() >= 2 && Path::new(&words[0]).file_name().is_some_and(|n| n == "memctl") && words[1] == "hook"
}

fn is_memctl_hook(h: &Value) -> bool {
    h.get("command").and_then(Value::as_str).is_some_and(is_memctl_command)
}

/// The command written into the settings file.
fn command_for(scope: SettingsScope) -> Result<String, Error> {
    if scope == SettingsScope::Project {
        return Ok("memctl hook".into());
    }
    let exe = std::env::current_exe()
        .and_then(std::fs::canonicalize)
        .map_err(|e| Error::new(Kind::Io, format!("cannot find memctl's own path: {e}")))?;
    let exe = exe.to_str().ok_or_else(|| {
        Error::new(
            Kind::InvalidInput,
            format!("memctl's path is not valid UTF-8: {}", exe.display()),
        )
    })?;
    Ok(format!("{} hook", shell_words::quote(exe)))
}

fn entry(cmd: &str, matcher: Option<&str>) -> Value {
    let hook = json!({"type": "command", "command": cmd, "timeout": 10});
    match matcher {
        Some(m) => json!({"matcher": m, "hooks": [hook]}),
        None => json!({"hooks": [hook]}),
    }
}

fn not_shaped(file: &Path, what: &str) -> Error {
    Error::new(Kind::Config, format!("{}: {what}", file.display()))
        .hint("memctl edits only the shapes Claude Code writes; fix the file by hand")
}

/// `settings` with memctl's entries (idempotent).
pub fn with_hooks(settings: &Map<String, Value>, cmd: &str, file: &Path) -> Result<Map<String, Value>, Error> {
    let mut s = settings.clone();
    let hooks = s.entry("hooks").or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(hooks) = hooks else {
        return Err(not_shaped(file, "`hooks` is not an object"));
    };
    for (event, matcher) in EVENTS {
        let list = hooks.entry(event).or_insert_with(|| Value::Array(Vec::new()));
        let Value::Array(list) = list else {
            return Err(not_shaped(file, &format!("`hooks.{event}` is not an array")));
        };
        let want = entry(cmd, matcher);
        let ours = list
            .iter()
            .filter(|g| {
                g.get("hooks")
                    .and_then(Value::as_array)
                    .is_some_and(|h| h.iter().any(is_memctl_hook))
            })
            .count();
        if ours == 1 && list.contains(&want) {
            continue;
        }
        remove_ours(list);
        list.push(want);
    }
    Ok(s)
}

/// Remove memctl's hooks from an event's groups, and groups they leave empty.
fn remove_ours(list: &mut Vec<Value>) -> bool {
    let mut removed = false;
    list.retain_mut(|g| {
        let Some(hs) = g.get_mut("hooks").and_then(Value::as_array_mut) else {
            return true;
        };
        let before = hs.len();
        hs.retain(|h| !is_memctl_hook(h));
        if hs.len() != before {
            removed = true;
            return !hs.is_empty();
        }
        true
    });
    removed
}

/// `settings` without memctl's entries (and what they leave empty).
pub fn without_hooks(settings: &Map<String, Value>) -> Map<String, Value> {
    let mut s = settings.clone();
    let Some(Value::Object(hooks)) = s.get_mut("hooks") else {
        return s;
    };
    let mut touched = false;
    hooks.retain(|_, v| {
        let Value::Array(list) = v else {
            return true;
        };
        if remove_ours(list) {
            touched = true;
            return !list.is_empty();
        }
        true
    });
    if touched && hooks.is_empty() {
        s.shift_remove("hooks");
    }
    s
}

#[derive(Serialize)]
struct EditReport {
    #[serde(flatten)]
    change: Change,
}

fn edit(a: &HookInstallArgs, ctx: &Context, out: &mut Output, install: bool) -> Result<ExitCode> {
    let file = crate::settings_file::scope_file(a.scope, &ctx.resolve()?)?;
    let sf = SettingsFile::open(&file)?;
    let new = if install {
        let cmd = command_for(a.scope)?;
        if a.scope == SettingsScope::Project {
            out.warn(format!(
                "{} is usually committed: the command is written as plain `memctl hook`, found on each user's PATH",
                file.display()
            ));
        }
        with_hooks(&sf.value, &cmd, &file)?
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
    } else {
        sf.write(&new, a.dry_run)?
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
            Some(b) => format!("memctl's hooks {what} {} (previous file: {b})\n", change.file),
            None => format!("memctl's hooks {what} {}\n", change.file),
        },
    };
    out.print(&line)?;
    Ok(ExitCode::SUCCESS)
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
    let mut scopes = Vec::new();
    let mut blocked = Vec::new();
    for (scope, name) in [
        (SettingsScope::User, "user"),
        (SettingsScope::Project, "project"),
        (SettingsScope::Local, "local"),
    ] {
        let Ok(file) = ctx
            .resolve()
            .and_then(|res| crate::settings_file::scope_file(scope, &res))
        else {
            continue;
        };
        let json = read_json(&file);
        let mut events = Vec::new();
        let mut binary = None;
        if let Some(Value::Object(hooks)) = json.as_ref().and_then(|j| j.get("hooks")) {
            for (event, list) in hooks {
                let cmds: Vec<&str> = list
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|g| g.get("hooks").and_then(Value::as_array))
                    .flatten()
                    .filter_map(|h| h.get("command").and_then(Value::as_str))
                    .filter(|c| is_memctl_command(c))
                    .collect();
                if let Some(c) = cmds.first() {
                    events.push(event.clone());
                    binary.get_or_insert_with(|| {
                        shell_words::split(c)
                            .ok()
                            .and_then(|w| w.into_iter().next())
                            .unwrap_or_default()
                    });
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
            installed: EVENTS.iter().all(|(e, _)| events.iter().any(|x| x == e)),
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
                    setting: if key == "disableAllHooks" {
                        "disableAllHooks"
                    } else {
                        "allowManagedHooksOnly"
                    },
                    file: policy.to_string_lossy().into_owned(),
                });
            }
        }
    }
    if out.json {
        out.emit_json(json!({"scopes": scopes, "blocked_by": blocked}))?;
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
        if let (Some(b), Some(exists)) = (&s.binary, s.binary_exists) {
            let note = if exists {
                ""
            } else {
                "  (missing: run `memctl hook install` again)"
            };
            text.push_str(&format!("         binary: {b}{note}\n"));
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_memctl_commands() {
        assert!(is_memctl_command("/usr/local/bin/memctl hook"));
        assert!(is_memctl_command("'/opt/my tools/memctl' hook"));
        assert!(is_memctl_command("memctl hook"));
        assert!(!is_memctl_command("memctl lint"));
        assert!(!is_memctl_command("/bin/notmemctl hook"));
        assert!(!is_memctl_command("echo memctl hook"));
    }

    #[test]
    fn install_then_uninstall_round_trips() {
        let f = Path::new("/s.json");
        let orig: Map<String, Value> = serde_json::from_str(
            r#"{"model":"opus","hooks":{"PostToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"lint.sh"}]}]},"z":1}"#,
        )
        .unwrap();
        let a = with_hooks(&orig, "/bin/memctl hook", f).unwrap();
        assert_eq!(with_hooks(&a, "/bin/memctl hook", f).unwrap(), a);
        let b = without_hooks(&a);
        assert_eq!(
            serde_json::to_string(&b).unwrap(),
            serde_json::to_string(&orig).unwrap()
        );
        let empty = Map::new();
        let c = without_hooks(&with_hooks(&empty, "memctl hook", f).unwrap());
        assert!(c.is_empty());
    }
}
