//! memctl's Claude Code plugin as the client records it (SPEC v3 §13), for `hook
//! status` and `hook install`: whether a plugin named `memctl` is enabled, by which
//! settings file, and which of memctl's hooks its installed copy carries.
//!
//! (2.1.332, observed with `claude plugin install|disable|enable`) Installing
//! `memctl@memctl` sets `"enabledPlugins": {"memctl@memctl": true}` in the settings
//! file of the install's scope (user: `<config home>/settings.json`; project:
//! `<project>/.claude/settings.json`; local: `settings.local.json` beside it), and
//! records the copy the client runs in `<config home>/plugins/installed_plugins.json`
//! (`plugins["memctl@memctl"][].installPath`, a folder under
//! `<config home>/plugins/cache/`). `plugin disable` writes `false`. The value of the
//! highest source decides: local over project over user (`plugin list` says a user
//! `false` is overridden by a project `true`, and a local `false` wins over both).

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Map, Value};

use super::install::our_commands;

/// The plugin's name (`name` in `plugins/memctl/.claude-plugin/plugin.json`); its id
/// is `memctl@<marketplace>`.
pub const NAME: &str = "memctl";

/// A settings source the client reads `enabledPlugins` from, lowest priority first.
pub struct Source<'a> {
    pub scope: &'static str,
    pub file: &'a Path,
    pub settings: Option<&'a Map<String, Value>>,
}

/// An enabled plugin named `memctl` (`hook status --json`'s `plugins`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Plugin {
    /// `memctl@<marketplace>`.
    pub id: String,
    /// The scope whose settings file enables it, and that file.
    pub scope: &'static str,
    pub file: String,
    /// The hooks file of the copy the client runs; `None` when the client has not
    /// installed one (then it runs no hooks of this plugin).
    pub hooks_file: Option<String>,
    /// The events whose hooks in that file are memctl's own (SPEC v3 §7.4).
    pub events: Vec<String>,
}

/// The ids of plugins named `memctl` the sources leave enabled (the highest source
/// that names an id decides), each with the scope and file that enable it.
pub fn enabled<'a>(sources: &[Source<'a>]) -> Vec<(String, &'static str, &'a Path)> {
    let mut ids: Vec<(String, Option<(&'static str, &'a Path)>)> = Vec::new();
    for s in sources {
        let Some(Value::Object(plugins)) = s.settings.and_then(|m| m.get("enabledPlugins")) else {
            continue;
        };
        for (id, on) in plugins {
            if id.split_once('@').map_or(id.as_str(), |(name, _)| name) != NAME {
                continue;
            }
            let decided = (on == &Value::Bool(true)).then_some((s.scope, s.file));
            match ids.iter_mut().find(|(i, _)| i == id) {
                Some(slot) => slot.1 = decided,
                None => ids.push((id.clone(), decided)),
            }
        }
    }
    ids.into_iter()
        .filter_map(|(id, on)| on.map(|(scope, file)| (id, scope, file)))
        .collect()
}

/// The install folders `installed_plugins.json` records for `id`, the one of
/// `scope` first.
pub fn install_paths(installed: &Value, id: &str, scope: &str) -> Vec<PathBuf> {
    let Some(entries) = installed
        .pointer("/plugins")
        .and_then(|p| p.get(id))
        .and_then(Value::as_array)
    else {
        return Vec::new();
    };
    let path = |e: &Value| e.get("installPath").and_then(Value::as_str).map(PathBuf::from);
    let same = entries
        .iter()
        .filter(|e| e.get("scope").and_then(Value::as_str) == Some(scope));
    let other = entries
        .iter()
        .filter(|e| e.get("scope").and_then(Value::as_str) != Some(scope));
    same.chain(other).filter_map(path).collect()
}

/// The events of a plugin hooks file (`{"hooks": {event: [groups]}}`) that carry
/// memctl's own hooks under memctl's matchers.
pub fn events(hooks_file: &Value) -> Vec<String> {
    let Some(Value::Object(hooks)) = hooks_file.get("hooks") else {
        return Vec::new();
    };
    hooks
        .iter()
        .filter(|(event, list)| !our_commands(event, list).is_empty())
        .map(|(event, _)| event.clone())
        .collect()
}

/// A JSON file, `None` when missing, unreadable or not JSON (the client ignores it).
fn read(path: &Path) -> Option<Value> {
    let bytes = std::fs::read(path).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// The enabled memctl plugins: [`enabled`] over the sources, each with the hooks of
/// the copy `<config home>/plugins/installed_plugins.json` names.
pub fn find(sources: &[Source<'_>], config_home: Option<&Path>) -> Vec<Plugin> {
    let on = enabled(sources);
    if on.is_empty() {
        return Vec::new();
    }
    let installed = config_home
        .and_then(|c| read(&c.join("plugins").join("installed_plugins.json")))
        .unwrap_or(Value::Null);
    on.into_iter()
        .map(|(id, scope, file)| {
            let found = install_paths(&installed, &id, scope).into_iter().find_map(|dir| {
                let f = dir.join("hooks").join("hooks.json");
                read(&f).map(|v| (f, v))
            });
            Plugin {
                events: found.as_ref().map(|(_, v)| events(v)).unwrap_or_default(),
                hooks_file: found.map(|(f, _)| f.to_string_lossy().into_owned()),
                id,
                scope,
                file: file.to_string_lossy().into_owned(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(s: &str) -> Map<String, Value> {
        serde_json::from_str(s).unwrap()
    }

    #[test]
    fn the_highest_source_naming_the_plugin_decides() {
        let user = map(r#"{"enabledPlugins": {"memctl@memctl": true, "other@x": true}}"#);
        let project = map(r#"{"enabledPlugins": {"memctl@memctl": false}}"#);
        let local = map(r#"{"enabledPlugins": {"memctl@memctl": true}}"#);
        let (u, p, l) = (Path::new("/u"), Path::new("/p"), Path::new("/l"));
        let src = |a, b, c| {
            vec![
                Source {
                    scope: "user",
                    file: u,
                    settings: a,
                },
                Source {
                    scope: "project",
                    file: p,
                    settings: b,
                },
                Source {
                    scope: "local",
                    file: l,
                    settings: c,
                },
            ]
        };
        assert_eq!(
            enabled(&src(Some(&user), None, None)),
            [("memctl@memctl".to_string(), "user", u)]
        );
        assert!(enabled(&src(Some(&user), Some(&project), None)).is_empty());
        assert_eq!(
            enabled(&src(Some(&user), Some(&project), Some(&local))),
            [("memctl@memctl".to_string(), "local", l)]
        );
        // A user `false` under a project `true`: the project enables it.
        let off = map(r#"{"enabledPlugins": {"memctl@memctl": false}}"#);
        let on = map(r#"{"enabledPlugins": {"memctl@memctl": true}}"#);
        assert_eq!(
            enabled(&src(Some(&off), Some(&on), None)),
            [("memctl@memctl".to_string(), "project", p)]
        );
        // Another plugin whose name merely contains memctl is not memctl's.
        let other = map(r#"{"enabledPlugins": {"memctl-extra@m": true, "x@memctl": true}}"#);
        assert!(enabled(&src(Some(&other), None, None)).is_empty());
    }

    #[test]
    fn events_are_the_ones_carrying_memctls_own_hooks() {
        let hooks: Value = serde_json::from_str(
            r#"{"hooks": {
              "PostToolUse": [{"matcher": "Write|Edit|MultiEdit", "hooks": [{"type": "command", "command": "command -v memctl >/dev/null 2>&1 || exit 0; memctl hook"}]}],
              "Stop": [{"hooks": [{"type": "command", "command": "memctl lint"}]}]
            }}"#,
        )
        .unwrap();
        assert_eq!(events(&hooks), ["PostToolUse"]);
        assert_eq!(events(&super::super::install::plugin_hooks()).len(), 6);
    }

    #[test]
    fn install_paths_prefer_the_enabling_scope() {
        let installed: Value = serde_json::from_str(
            r#"{"version": 2, "plugins": {"memctl@memctl": [
              {"scope": "user", "installPath": "/c/u"}, {"scope": "project", "installPath": "/c/p"}]}}"#,
        )
        .unwrap();
        assert_eq!(
            install_paths(&installed, "memctl@memctl", "project"),
            [PathBuf::from("/c/p"), PathBuf::from("/c/u")]
        );
        assert!(install_paths(&installed, "memctl@other", "user").is_empty());
    }
}
