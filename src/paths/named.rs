//! The named project key (SPEC §2.2.1 step 3): with `CLAUDE_CONFIG_DIR` set and
//! non-empty (2.1.332), a valid `CLAUDE_CODE_PROJECT_DIR_NAME` replaces the
//! sanitized key of the transcripts dir, and of the memory dir when the memory base
//! is the config home (not under `CLAUDE_CODE_REMOTE_MEMORY_DIR`).

use serde::Serialize;

use super::Env;

/// The variable that names the key.
pub const VAR: &str = "CLAUDE_CODE_PROJECT_DIR_NAME";

/// The longest name accepted, in characters.
pub const MAX_NAME: usize = 64;

/// Names Windows reserves for devices; refused in any case.
const DEVICE_NAMES: [&str; 24] = [
    "CON", "PRN", "AUX", "NUL", "COM0", "LPT0", "COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8", "COM9",
    "LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9",
];

/// Where the project key came from (`key_source` in `path --json`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum KeySource {
    /// `sanitizePath` of the canonical root (§2.2.7).
    Sanitized,
    /// `CLAUDE_CODE_PROJECT_DIR_NAME`.
    Named,
}

/// What `CLAUDE_CODE_PROJECT_DIR_NAME` said.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NamedKey {
    Unset,
    /// A valid name: the key for memory and transcripts.
    Used(String),
    /// Set but not used: the raw value and why.
    Ignored {
        raw: String,
        why: &'static str,
    },
}

impl NamedKey {
    /// Read the variable: it counts only when `CLAUDE_CONFIG_DIR` is set and non-empty.
    pub fn from_env(env: &Env) -> NamedKey {
        let Some(raw) = env.get(VAR) else {
            return NamedKey::Unset;
        };
        if env.get_os("CLAUDE_CONFIG_DIR").is_none_or(|c| c.is_empty()) {
            return NamedKey::Ignored {
                raw,
                why: "it counts only when CLAUDE_CONFIG_DIR is set and not empty",
            };
        }
        match check_name(&raw) {
            Ok(()) => NamedKey::Used(raw),
            Err(why) => NamedKey::Ignored { raw, why },
        }
    }

    /// The name, when it replaces the sanitized key.
    pub fn name(&self) -> Option<&str> {
        match self {
            NamedKey::Used(n) => Some(n),
            _ => None,
        }
    }

    /// The warning for an ignored value.
    pub fn warning(&self) -> Option<String> {
        match self {
            NamedKey::Ignored { raw, why } => Some(format!(
                "{VAR} `{raw}` is ignored ({why}); Claude Code keys this project by its path"
            )),
            _ => None,
        }
    }
}

/// A valid name is 1–64 characters of `[A-Za-z0-9_-]` and not a Windows device name.
pub fn check_name(raw: &str) -> Result<(), &'static str> {
    if raw.is_empty() {
        return Err("it is empty");
    }
    if raw.len() > MAX_NAME {
        return Err("longer than 64 characters");
    }
    if !raw.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-') {
        return Err("only A-Z, a-z, 0-9, `_` and `-` are allowed");
    }
    if DEVICE_NAMES.iter().any(|d| d.eq_ignore_ascii_case(raw)) {
        return Err("a Windows device name");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(vars: &[(&str, &str)]) -> Env {
        Env {
            vars: vars.iter().map(|(k, v)| (k.to_string(), v.into())).collect(),
            ..Env::default()
        }
    }

    #[test]
    fn valid_names() {
        for name in [
            "a",
            "my-project_2",
            "COM10",
            "LPT10",
            "CONSOLE",
            "nul-",
            &"x".repeat(64),
        ] {
            assert_eq!(check_name(name), Ok(()), "{name}");
        }
    }

    #[test]
    fn invalid_names() {
        assert_eq!(check_name(""), Err("it is empty"));
        assert_eq!(check_name(&"x".repeat(65)), Err("longer than 64 characters"));
        for bad in ["a b", "a/b", "a.b", "..", "ü", "a\u{0}", "tab\t", "é"] {
            assert!(check_name(bad).is_err(), "{bad:?}");
        }
        for device in [
            "CON", "con", "Nul", "aux", "PRN", "COM0", "COM1", "com9", "lpt0", "lpt1", "LpT9",
        ] {
            assert_eq!(check_name(device), Err("a Windows device name"), "{device}");
        }
    }

    #[test]
    fn the_variable_counts_only_with_claude_config_dir() {
        let set = |v| env(&[("CLAUDE_CONFIG_DIR", "/c"), (VAR, v)]);
        assert_eq!(NamedKey::from_env(&set("proj")), NamedKey::Used("proj".into()));
        assert_eq!(
            NamedKey::from_env(&env(&[("CLAUDE_CONFIG_DIR", "/c")])),
            NamedKey::Unset
        );
        // (2.1.332) An empty CLAUDE_CONFIG_DIR does not count.
        let empty_config = env(&[("CLAUDE_CONFIG_DIR", ""), (VAR, "proj")]);
        assert_eq!(NamedKey::from_env(&empty_config).name(), None);
        let without = NamedKey::from_env(&env(&[(VAR, "proj")]));
        assert!(matches!(without, NamedKey::Ignored { .. }));
        assert!(without.warning().unwrap().contains("CLAUDE_CONFIG_DIR"));
        let empty = NamedKey::from_env(&set(""));
        assert_eq!(empty.name(), None);
        assert!(empty.warning().unwrap().contains("it is empty"));
        let device = NamedKey::from_env(&set("con"));
        assert!(
            device
                .warning()
                .unwrap()
                .contains("`con` is ignored (a Windows device name)")
        );
    }
}
