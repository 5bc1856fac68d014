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
            Some(_) => None,
            None => std::env::home_dir()
                .map(|p| p.to_string_lossy().into_owned())
                .filter(|h| !h.is_empty()),
        }
    }
}

/// What the global options ask for.
#[derive(Clone, Debug, Default)]
pub struct Request {
    pub dir: Option<OsString>,
    pub project: Option<PathBuf>,
    pub team: bool,
}
