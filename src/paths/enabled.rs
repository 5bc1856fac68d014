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
    /// The settings file that decided, when a setting did.
    #[serde(skip)]
    pub file: Option<String>,
}

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

/// The enabled chain of SPEC §2.3.
pub fn enabled_chain(env: &Env, settings: &[Settings]) -> Enabled {
    let disable = env.get("CLAUDE_CODE_DISABLE_AUTO_MEMORY");
    let simple = env.get("CLAUDE_CODE_SIMPLE");
    let remote = env.get("CLAUDE_CODE_REMOTE");
    let remote_dir = env.get("CLAUDE_CODE_REMOTE_MEMORY_DIR").filter(|v| !v.is_empty());
    let merged = merged_bool_with_file(settings, "autoMemoryEnabled");
    let mut chain = vec![
        ChainRow {
            rule: "disable_env",
            value: disable.clone(),
            applies: false,
        },
        ChainRow {
            rule: "simple_env",
            value: simple.clone(),
            applies: false,
        },
        ChainRow {
            rule: "remote_env",
            value: remote.clone(),
            applies: false,
        },
        ChainRow {
            rule: "setting",
            value: merged.as_ref().map(|(b, _, _)| b.to_string()),
            applies: false,
        },
        ChainRow {
            rule: "default",
            value: None,
            applies: false,
        },
    ];
    let (row, value, lever) = if let Some(d) = disable.as_deref().filter(|d| truthy(d)) {
        (0, false, format!("env CLAUDE_CODE_DISABLE_AUTO_MEMORY={d}"))
    } else if let Some(d) = disable.as_deref().filter(|d| defined_falsy(d)) {
        (0, true, format!("env CLAUDE_CODE_DISABLE_AUTO_MEMORY={d}"))
    } else if simple.as_deref().is_some_and(truthy) {
        (1, false, "env CLAUDE_CODE_SIMPLE".to_string())
    } else if remote.as_deref().is_some_and(truthy) && remote_dir.is_none() {
        (
            2,
            false,
            "env CLAUDE_CODE_REMOTE without CLAUDE_CODE_REMOTE_MEMORY_DIR".to_string(),
        )
    } else if let Some((b, lever, _)) = merged.clone() {
        (3, b, lever)
    } else {
        (4, true, "default".to_string())
    };
    chain[row].applies = true;
    let file = if row == 3 { merged.map(|(_, _, f)| f) } else { None };
    Enabled {
        value,
        lever,
        chain,
        file,
    }
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
        }
    }

    fn on(vars: &[(&str, &str)], settings: &[Settings]) -> (bool, String) {
        let e = enabled_chain(&env(vars), settings);
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
    }
}
