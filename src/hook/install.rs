//! memctl's entries in Claude Code's settings files (SPEC §7.4): which hooks it
//! adds, recognising its own, and adding or removing them with every other key,
//! value, key order and existing hook kept. Pure transforms of the parsed file;
//! [`crate::settings_file`] reads and writes it.

use std::path::Path;

use serde_json::{Map, Value, json};

use crate::cli::SettingsScope;
use crate::error::{Error, Kind};

/// The event of the gate (SPEC §7.3), left out by `hook install --no-gate`.
pub const GATE: (&str, Option<&str>) = ("PreToolUse", Some("Write|Edit"));

/// The events memctl registers, with their matchers (SPEC §7.4, v3), the gate first.
pub const EVENTS: [(&str, Option<&str>); 6] = [
    GATE,
    ("PostToolUse", Some("Write|Edit|MultiEdit")),
    ("Stop", None),
    ("SubagentStop", None),
    ("SessionStart", None),
    ("SessionEnd", None),
];

/// The command `hook install --scope project` writes (SPEC v3 §7.4): memctl found
/// on `PATH`, and silent (exit 0, no output) for a teammate without it.
pub const PROJECT_COMMAND: &str = "command -v memctl >/dev/null 2>&1 || exit 0; memctl hook";

/// A command is one memctl writes (SPEC v3 §7.4): exactly `<path> hook` whose
/// path's file name is `memctl` (shell-quoted or not), or [`PROJECT_COMMAND`].
/// A user's own command that merely calls memctl (`memctl hook --x`, a wrapper
/// script, `echo memctl hook`) is not.
pub fn is_memctl_command(cmd: &str) -> bool {
    if cmd.trim() == PROJECT_COMMAND {
        return true;
    }
    let Ok(words) = shell_words::split(cmd) else {
        return false;
    };
    words.len() == 2 && Path::new(&words[0]).file_name().is_some_and(|n| n == "memctl") && words[1] == "hook"
}

/// The binary a command of memctl's runs: the path it names, or `memctl` (looked
/// up on `PATH`) for the project form.
pub fn command_binary(cmd: &str) -> Option<String> {
    if cmd.trim() == PROJECT_COMMAND {
        return Some("memctl".to_string());
    }
    shell_words::split(cmd).ok()?.into_iter().next()
}

fn is_memctl_hook(h: &Value) -> bool {
    h.get("command").and_then(Value::as_str).is_some_and(is_memctl_command)
}

/// Whether a group of an event's list is under the matcher memctl writes for
/// that event (an event without a matcher: a group without one, or an empty one).
fn is_our_matcher(event: &str, group: &Value) -> bool {
    let Some((_, want)) = EVENTS.iter().find(|(e, _)| *e == event) else {
        return false;
    };
    let have = group.get("matcher");
    match want {
        Some(m) => have.and_then(Value::as_str) == Some(m),
        None => have.is_none_or(|v| v.as_str() == Some("")),
    }
}

/// The commands of memctl's own entries in an event's list: a command memctl
/// writes, under the event and matcher it writes. A user's own `memctl hook`
/// under another matcher is theirs (issue 29 point 17).
pub fn our_commands<'a>(event: &str, list: &'a Value) -> Vec<&'a str> {
    list.as_array()
        .into_iter()
        .flatten()
        .filter(|g| is_our_matcher(event, g))
        .filter_map(|g| g.get("hooks").and_then(Value::as_array))
        .flatten()
        .filter_map(|h| h.get("command").and_then(Value::as_str))
        .filter(|c| is_memctl_command(c))
        .collect()
}

/// The command written into the settings file.
pub fn command_for(scope: SettingsScope) -> Result<String, Error> {
    if scope == SettingsScope::Project {
        return Ok(PROJECT_COMMAND.into());
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

/// `settings` with memctl's entries (idempotent); without `gate`, memctl's
/// PreToolUse entry is left out (and removed when an earlier install added it).
pub fn with_hooks(
    settings: &Map<String, Value>,
    cmd: &str,
    file: &Path,
    gate: bool,
) -> Result<Map<String, Value>, Error> {
    let mut s = settings.clone();
    let hooks = s.entry("hooks").or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(hooks) = hooks else {
        return Err(not_shaped(file, "`hooks` is not an object"));
    };
    if !gate {
        let (event, _) = GATE;
        if let Some(Value::Array(list)) = hooks.get_mut(event)
            && remove_ours(event, list)
            && list.is_empty()
        {
            hooks.shift_remove(event);
        }
    }
    for (event, matcher) in EVENTS.into_iter().filter(|e| gate || *e != GATE) {
        let list = hooks.entry(event).or_insert_with(|| Value::Array(Vec::new()));
        let Value::Array(list) = list else {
            return Err(not_shaped(file, &format!("`hooks.{event}` is not an array")));
        };
        let want = entry(cmd, matcher);
        let ours = list
            .iter()
            .filter(|g| {
                is_our_matcher(event, g)
                    && g.get("hooks")
                        .and_then(Value::as_array)
                        .is_some_and(|h| h.iter().any(is_memctl_hook))
            })
            .count();
        if ours == 1 && list.contains(&want) {
            continue;
        }
        remove_ours(event, list);
        list.push(want);
    }
    Ok(s)
}

/// Remove memctl's hooks from an event's groups under the matcher memctl writes,
/// and groups they leave empty.
fn remove_ours(event: &str, list: &mut Vec<Value>) -> bool {
    let mut removed = false;
    list.retain_mut(|g| {
        if !is_our_matcher(event, g) {
            return true;
        }
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
    hooks.retain(|event, v| {
        let Value::Array(list) = v else {
            return true;
        };
        if remove_ours(event, list) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_memctl_commands() {
        assert!(is_memctl_command("/usr/local/bin/memctl hook"));
        assert!(is_memctl_command("'/opt/my tools/memctl' hook"));
        assert!(is_memctl_command("memctl hook"));
        assert!(is_memctl_command(PROJECT_COMMAND));
        assert!(!is_memctl_command("memctl lint"));
        assert!(!is_memctl_command("memctl hook --verbose"));
        assert!(!is_memctl_command("memctl hook; notify-send saved"));
        assert!(!is_memctl_command("command -v memctl || exit 0; memctl hook"));
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
        let a = with_hooks(&orig, "/bin/memctl hook", f, true).unwrap();
        assert_eq!(with_hooks(&a, "/bin/memctl hook", f, true).unwrap(), a);
        let b = without_hooks(&a);
        assert_eq!(
            serde_json::to_string(&b).unwrap(),
            serde_json::to_string(&orig).unwrap()
        );
        let empty = Map::new();
        let c = without_hooks(&with_hooks(&empty, "memctl hook", f, true).unwrap());
        assert!(c.is_empty());
    }

    #[test]
    fn no_gate_leaves_out_the_pre_tool_use_entry_and_removes_an_earlier_one() {
        let f = Path::new("/s.json");
        let empty = Map::new();
        let events =
            |m: &Map<String, Value>| -> Vec<String> { m["hooks"].as_object().unwrap().keys().cloned().collect() };
        let all = with_hooks(&empty, "/bin/memctl hook", f, true).unwrap();
        assert_eq!(
            events(&all),
            [
                "PreToolUse",
                "PostToolUse",
                "Stop",
                "SubagentStop",
                "SessionStart",
                "SessionEnd"
            ]
        );
        assert_eq!(all["hooks"]["PreToolUse"][0]["matcher"], "Write|Edit");
        let no_gate = with_hooks(&all, "/bin/memctl hook", f, false).unwrap();
        assert_eq!(
            events(&no_gate),
            ["PostToolUse", "Stop", "SubagentStop", "SessionStart", "SessionEnd"]
        );
        assert_eq!(with_hooks(&empty, "/bin/memctl hook", f, false).unwrap(), no_gate);
    }
}
