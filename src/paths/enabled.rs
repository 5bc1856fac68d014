//! Whether auto memory and auto-dream are on (SPEC §2.3): the enabled chain and the
//! merged boolean settings.

use serde::Serialize;

use super::Env;
use super::settings::{Settings, Source};

/// One row of the enabled chain (SPEC §2.3).
#[derive(Clone, Debug, Serialize)]
pub struct ChainRow {
    pub rule: &'static str,
    pub value: Option<String>,
    pub applies: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct Enabled {
    pub value: bool,
    pub lever: String,
    pub chain: Vec<ChainRow>,
    /// (2.1.332) Levers memctl cannot see that could still turn auto memory off
    /// (SPEC §2.3); empty when a visible lever already turned it off.
    pub conditions: Vec<String>,
    /// The settings file that decided, when a setting did.
    #[serde(skip)]
    pub file: Option<String>,
}

/// The managed read restriction (SPEC §2.3 row 4), when it applies: the file that
/// sets it and the settings source that decided `autoMemoryDirectory`.
#[derive(Clone, Debug)]
pub struct ReadRestriction {
    pub file: String,
    pub dir_source: &'static str,
}

/// The invisible levers of SPEC §2.3, listed in `enabled.conditions`.
pub const INVISIBLE: [&str; 5] = [
    "--safe-mode",
    "--restricted",
    "--bare",
    "diskless host",
    "session toggle",
];

#[derive(Clone, Debug, Serialize)]
pub struct AutoDream {
    pub value: Option<bool>,
    pub lever: String,
}

pub(crate) fn truthy(v: &str) -> bool {
    matches!(v.trim().to_lowercase().as_str(), "1" | "true" | "yes" | "on")
}

fn defined_falsy(v: &str) -> bool {
    !v.is_empty() && matches!(v.trim().to_lowercase().as_str(), "0" | "false" | "no" | "off")
}

/// The merged value of a boolean setting: the highest-priority source that defines
/// it (policy > flag > local > project > user), with its lever text.
pub(crate) fn merged_bool(settings: &[Settings], key: &str) -> Option<(bool, String)> {
    merged_bool_with_file(settings, key).map(|(b, lever, _)| (b, lever))
}

/// The settings file whose value of `key` decides, when one does.
pub fn merged_bool_file(settings: &[Settings], key: &str) -> Option<String> {
    merged_bool_with_file(settings, key).map(|(_, _, f)| f)
}

fn merged_bool_with_file(settings: &[Settings], key: &str) -> Option<(bool, String, String)> {
    [
        Source::Policy,
        Source::Flag,
        Source::Local,
        Source::Project,
        Source::User,
    ]
    .iter()
    .find_map(|src| {
        let s = settings.iter().find(|s| s.source == *src)?;
        let (v, file) = s.get(key)?;
        let b = v.as_bool()?;
        Some((b, format!("{key}={b} in {file} ({})", src.name()), file.to_string()))
    })
}

/// A remote session: `CLAUDE_CODE_REMOTE` is truthy (the dream's enabled gate).
pub fn is_remote(env: &Env) -> bool {
    env.get("CLAUDE_CODE_REMOTE").as_deref().is_some_and(truthy)
}

/// Where the managed read restriction is set (`permissions.blockReadsOutsideWorkingDirectories:
/// true` in a settings source memctl reads), if anywhere.
pub fn read_restriction_file(settings: &[Settings]) -> Option<String> {
    settings.iter().find_map(|s| {
        let (v, file) = s.get(super::settings::BLOCK_READS)?;
        (v.as_bool() == Some(true)).then(|| file.to_string())
    })
}

/// The enabled chain of SPEC §2.3 (2.1.332): safe mode, a truthy disable switch,
/// bare mode and the managed read restriction turn memory off even when
/// `CLAUDE_CODE_DISABLE_AUTO_MEMORY` is defined falsy; a remote session stays on
/// with a memory dir or a non-blank cowork override. `models` are the model
/// patterns of the cached model switch (§2.16), when the cache names any.
pub fn enabled_chain(
    env: &Env,
    settings: &[Settings],
    restriction: Option<&ReadRestriction>,
    models: Option<&str>,
) -> Enabled {
    let safe = env.get("CLAUDE_CODE_SAFE_MODE");
    let disable = env.get("CLAUDE_CODE_DISABLE_AUTO_MEMORY");
    let simple = env.get("CLAUDE_CODE_SIMPLE");
    let remote = env.get("CLAUDE_CODE_REMOTE");
    let remote_dir = env.get("CLAUDE_CODE_REMOTE_MEMORY_DIR").filter(|v| !v.is_empty());
    let cowork = env
        .get("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE")
        .filter(|v| !crate::text::js_trim(v).is_empty());
    let merged = merged_bool_with_file(settings, "autoMemoryEnabled");
    let row = |rule, value: Option<String>| ChainRow {
        rule,
        value,
        applies: false,
    };
    let mut chain = vec![
        row("safe_mode_env", safe.clone()),
        row("disable_env", disable.clone()),
        row("simple_env", simple.clone()),
        row(
            "managed_read_restriction",
            restriction.map(|r| format!("{} ({})", r.file, r.dir_source)),
        ),
        row("remote_env", remote.clone()),
        row("setting", merged.as_ref().map(|(b, _, _)| b.to_string())),
        row("default", None),
    ];
    let (i, value, lever) = if let Some(v) = safe.as_deref().filter(|v| truthy(v)) {
        (0, false, format!("env CLAUDE_CODE_SAFE_MODE={v}"))
    } else if let Some(d) = disable.as_deref().filter(|d| truthy(d)) {
        (1, false, format!("env CLAUDE_CODE_DISABLE_AUTO_MEMORY={d}"))
    } else if simple.as_deref().is_some_and(truthy) {
        (2, false, "env CLAUDE_CODE_SIMPLE".to_string())
    } else if let Some(r) = restriction {
        (
            3,
            false,
            format!(
                "permissions.blockReadsOutsideWorkingDirectories in {} with autoMemoryDirectory from {}",
                r.file, r.dir_source
            ),
        )
    } else if let Some(d) = disable.as_deref().filter(|d| defined_falsy(d)) {
        (1, true, format!("env CLAUDE_CODE_DISABLE_AUTO_MEMORY={d}"))
    } else if remote.as_deref().is_some_and(truthy) && remote_dir.is_none() && cowork.is_none() {
        (
            4,
            false,
            "env CLAUDE_CODE_REMOTE without CLAUDE_CODE_REMOTE_MEMORY_DIR or CLAUDE_COWORK_MEMORY_PATH_OVERRIDE"
                .to_string(),
        )
    } else if let Some((b, lever, _)) = merged.clone() {
        (5, b, lever)
    } else {
        (6, true, "default".to_string())
    };
    chain[i].applies = true;
    let file = match i {
        5 => merged.map(|(_, _, f)| f),
        3 => restriction.map(|r| r.file.clone()),
        _ => None,
    };
    Enabled {
        value,
        lever,
        chain,
        conditions: conditions(value, models),
        file,
    }
}

/// What memctl cannot see that could still turn memory off when it is on: the
/// invisible levers and the model switch.
fn conditions(value: bool, models: Option<&str>) -> Vec<String> {
    let mut conditions: Vec<String> = Vec::new();
    if value {
        conditions.extend(INVISIBLE.iter().map(|c| c.to_string()));
        if let Some(m) = models {
            conditions.push(format!("model switch: {m}"));
        }
    }
    conditions
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::paths::settings::State;
    use serde_json::Value;
    use std::ffi::OsString;
    use std::path::PathBuf;

    fn env(vars: &[(&str, &str)]) -> Env {
        Env {
            vars: vars.iter().map(|(k, v)| (k.to_string(), OsString::from(v))).collect(),
            cwd: PathBuf::from("/"),
            policy_file: PathBuf::from("/nonexistent/managed-settings.json"),
            account_home: None,
        }
    }

    fn setting(source: Source, key: &str, v: Value) -> Settings {
        Settings {
            source,
            file: format!("/{}.json", source.name()),
            state: State::Loaded(vec![(key.into(), v, format!("/{}.json", source.name()))]),
            legacy: None,
        }
    }

    fn on(vars: &[(&str, &str)], settings: &[Settings]) -> (bool, String) {
        let e = enabled_chain(&env(vars), settings, None, None);
        (e.value, e.lever)
    }

    #[test]
    fn enabled_chain_matches_appendix_a5() {
        assert_eq!(on(&[], &[]), (true, "default".into()));
        assert!(!on(&[("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "1")], &[]).0);
        assert!(!on(&[("CLAUDE_CODE_DISABLE_AUTO_MEMORY", " TRUE ")], &[]).0);
        assert_eq!(
            on(&[("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "foo")], &[]),
            (true, "default".into())
        );
        assert_eq!(
            on(&[("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "")], &[]),
            (true, "default".into())
        );
        assert_eq!(
            on(&[("CLAUDE_CODE_SIMPLE", "1")], &[]),
            (false, "env CLAUDE_CODE_SIMPLE".into())
        );
        assert_eq!(
            on(
                &[("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "0"), ("CLAUDE_CODE_SIMPLE", "1")],
                &[]
            ),
            (false, "env CLAUDE_CODE_SIMPLE".into())
        );
        assert_eq!(
            on(&[("CLAUDE_CODE_SAFE_MODE", "1")], &[]),
            (false, "env CLAUDE_CODE_SAFE_MODE=1".into())
        );
        assert!(
            !on(
                &[("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "0"), ("CLAUDE_CODE_SAFE_MODE", "1")],
                &[]
            )
            .0
        );
        assert!(
            on(
                &[
                    ("CLAUDE_CODE_REMOTE", "1"),
                    ("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", "/cw")
                ],
                &[]
            )
            .0
        );
        assert!(
            !on(
                &[
                    ("CLAUDE_CODE_REMOTE", "1"),
                    ("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", "  ")
                ],
                &[]
            )
            .0
        );
        assert_eq!(
            on(
                &[("CLAUDE_CODE_REMOTE", "1"), ("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "0")],
                &[]
            ),
            (true, "env CLAUDE_CODE_DISABLE_AUTO_MEMORY=0".into())
        );
        assert!(!on(&[("CLAUDE_CODE_REMOTE", "1")], &[]).0);
        assert!(
            on(
                &[("CLAUDE_CODE_REMOTE", "1"), ("CLAUDE_CODE_REMOTE_MEMORY_DIR", "/m")],
                &[]
            )
            .0
        );
        let user_true = setting(Source::User, "autoMemoryEnabled", Value::Bool(true));
        let project_false = setting(Source::Project, "autoMemoryEnabled", Value::Bool(false));
        assert_eq!(
            on(&[], &[user_true, project_false]),
            (false, "autoMemoryEnabled=false in /project.json (project)".into())
        );
        let local_false = setting(Source::Local, "autoMemoryEnabled", Value::Bool(false));
        assert_eq!(
            on(&[], std::slice::from_ref(&local_false)),
            (false, "autoMemoryEnabled=false in /local.json (local)".into())
        );
        assert!(on(&[("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "false")], &[local_false]).0);
        let user_no = Settings {
            state: State::Ignored("wrong type".into()),
            ..setting(Source::User, "autoMemoryEnabled", Value::Bool(false))
        };
        assert_eq!(on(&[], &[user_no]), (true, "default".into()));
    }

    #[test]
    fn the_managed_read_restriction_beats_the_falsy_switch() {
        let r = ReadRestriction {
            file: "/etc/claude-code/managed-settings.json".into(),
            dir_source: "project",
        };
        let e = enabled_chain(&env(&[("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "0")]), &[], Some(&r), None);
        assert!(!e.value);
        assert_eq!(
            e.lever,
            "permissions.blockReadsOutsideWorkingDirectories in /etc/claude-code/managed-settings.json with autoMemoryDirectory from project"
        );
        assert_eq!(e.file.as_deref(), Some("/etc/claude-code/managed-settings.json"));
        assert!(e.conditions.is_empty());
        assert!(e.chain[3].applies);
    }

    #[test]
    fn invisible_levers_are_listed_while_memory_is_on() {
        let e = enabled_chain(&env(&[]), &[], None, Some("claude-opus-*"));
        assert!(e.value);
        assert_eq!(
            e.conditions,
            [
                "--safe-mode",
                "--restricted",
                "--bare",
                "diskless host",
                "session toggle",
                "model switch: claude-opus-*"
            ]
        );
        let rules: Vec<_> = e.chain.iter().map(|r| r.rule).collect();
        assert_eq!(
            rules,
            [
                "safe_mode_env",
                "disable_env",
                "simple_env",
                "managed_read_restriction",
                "remote_env",
                "setting",
                "default"
            ]
        );
        assert!(enabled_chain(&env(&[]), &[], None, None).conditions.len() == 5);
    }
}
