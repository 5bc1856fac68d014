//! The environment memctl resolves from, and what the global options ask for.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::path::PathBuf;

use crate::error::{Error, Kind};

use super::settings;

/// A snapshot of the environment memctl resolves from.
#[derive(Clone, Debug, Default)]
pub struct Env {
    pub vars: BTreeMap<String, OsString>,
    pub cwd: PathBuf,
    /// The managed-settings file (fixed per platform; a parameter for tests).
    pub policy_file: PathBuf,
    /// The account's home directory from the OS (the passwd entry), used when `HOME`
    /// is unset or empty (SPEC §2.2.2).
    pub account_home: Option<String>,
}

impl Env {
    pub fn from_process() -> Result<Env, Error> {
        let cwd = std::env::current_dir().map_err(|e| {
            Error::new(Kind::Io, format!("cannot determine the current directory: {e}"))
                .hint("cd into an existing directory or pass --project")
        })?;
        Ok(Env {
            vars: std::env::vars_os()
                .filter_map(|(k, v)| Some((k.into_string().ok()?, v)))
                .collect(),
            cwd,
            policy_file: PathBuf::from(settings::policy_file()),
            account_home: account_home(),
        })
    }

    /// A variable as text (lossy), `None` when unset.
    pub fn get(&self, key: &str) -> Option<String> {
        self.vars.get(key).map(|v| v.to_string_lossy().into_owned())
    }

    pub fn get_os(&self, key: &str) -> Option<&OsStr> {
        self.vars.get(key).map(OsString::as_os_str)
    }

    /// `$HOME` if set and non-empty, else the account's home directory.
    pub fn home(&self) -> Option<String> {
        match self.get("HOME") {
            Some(h) if !h.is_empty() => Some(h),
            _ => self.account_home.clone(),
        }
    }
}

/// The account's home directory when the process's `HOME` is unset or empty: std's
/// `home_dir` then asks `getpwuid_r` (NSS-aware, so LDAP and systemd-homed accounts
/// work too, unlike a read of /etc/passwd), with no unsafe code or crate of ours.
/// When `HOME` is set and non-empty it is used instead and this is never consulted.
fn account_home() -> Option<String> {
    if std::env::var_os("HOME").is_some_and(|h| !h.is_empty()) {
        return None;
    }
    std::env::home_dir()
        .map(|p| p.to_string_lossy().into_owned())
        .filter(|h| !h.is_empty())
}

/// What the global options ask for.
#[derive(Clone, Debug, Default)]
pub struct Request {
    pub dir: Option<OsString>,
    pub project: Option<PathBuf>,
    pub team: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(home: Option<&str>, account: Option<&str>) -> Env {
        let mut vars = BTreeMap::new();
        if let Some(h) = home {
            vars.insert("HOME".to_string(), OsString::from(h));
        }
        Env {
            vars,
            account_home: account.map(str::to_string),
            ..Env::default()
        }
    }

    #[test]
    fn an_empty_or_unset_home_falls_back_to_the_account_home() {
        assert_eq!(env(Some("/h"), Some("/acct")).home().as_deref(), Some("/h"));
        assert_eq!(env(Some(""), Some("/acct")).home().as_deref(), Some("/acct"));
        assert_eq!(env(None, Some("/acct")).home().as_deref(), Some("/acct"));
        assert_eq!(env(Some(""), None).home(), None);
    }
}
