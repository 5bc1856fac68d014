//! Where memory lives (SPEC §2.2, §2.3): the resolution precedence with its explain
//! trace, the project and canonical roots, the project key, and whether auto memory
//! and auto-dream are enabled. Every environment lookup and settings read is here.

pub mod git;
pub mod sanitize;
pub mod settings;
pub mod validate;

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use crate::error::{Error, Kind};
use settings::{Settings, Source, State};
use validate::{join, nfc, normalize, validate_memory_path};

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

/// One row of the resolution trace (`steps` in `path --json`).
#[derive(Clone, Debug, Serialize)]
pub struct Step {
    pub step: &'static str,
    pub file: Option<String>,
    pub status: &'static str,
    pub value: Option<String>,
    pub detail: Option<String>,
}

/// The project memctl resolved for.
#[derive(Clone, Debug)]
pub struct Project {
    pub root: String,
    pub realpath_ok: bool,
    pub git_root: Option<String>,
    pub canonical_root: String,
    pub reason: git::Reason,
}

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

/// Everything resolution found out.
#[derive(Clone, Debug)]
pub struct Resolution {
    /// The main memory dir (never the team dir).
    pub main_dir: PathBuf,
    /// The dir commands operate on: the team dir under `--team`.
    pub dir: PathBuf,
    pub team: bool,
    pub source: String,
    /// Named by `--dir`/`MEMCTL_DIR` (must exist).
    pub explicit: bool,
    pub project: Option<Project>,
    pub config_home: Option<String>,
    pub memory_base: Option<String>,
    pub key: Option<sanitize::Key>,
    pub hash_variant: Option<&'static str>,
    pub transcripts_dir: Option<String>,
    pub steps: Vec<Step>,
    pub enabled: Enabled,
    pub auto_dream: AutoDream,
    pub settings: Vec<Settings>,
    pub warnings: Vec<String>,
    /// The home directory (for `~` expansion in settings checks).
    pub home: Option<String>,
}

/// A directory path with exactly one trailing separator, for display.
pub fn with_sep(p: &Path) -> String {
    let s = p.to_string_lossy();
    let trimmed = s.trim_end_matches('/');
    format!("{trimmed}/")
}

impl Resolution {
    /// The memory dir and scope the command works in.
    pub fn memdir(&self) -> crate::memdir::MemoryDir {
        let scope = if self.team {
            crate::memdir::Scope::Team
        } else {
            crate::memdir::Scope::Main
        };
        crate::memdir::MemoryDir::open(self.main_dir.clone(), scope)
    }

    pub fn team_dir(&self) -> PathBuf {
        self.main_dir.join("team")
    }

    pub fn index_path(&self) -> PathBuf {
        self.dir.join("MEMORY.md")
    }

    /// The dir for display, with its trailing separator.
    pub fn shown(&self) -> String {
        with_sep(&self.dir)
    }
}

fn truthy(v: &str) -> bool {
    matches!(v.trim().to_lowercase().as_str(), "1" | "true" | "yes" | "on")
}

fn defined_falsy(v: &str) -> bool {
    !v.is_empty() && matches!(v.trim().to_lowercase().as_str(), "0" | "false" | "no" | "off")
}

/// Absolute against `base` if relative (lexically).
fn absolutize(p: &str, base: &str) -> String {
    if p.starts_with('/') {
        p.to_string()
    } else {
        join(&[base, p])
    }
}

/// Resolve the memory dir and everything `path --explain` shows.
pub fn resolve(req: &Request, env: &Env) -> Result<Resolution, Error> {
    let mut warnings = Vec::new();
    let (explicit_dir, explicit_source) = match (&req.dir, env.get_os("MEMCTL_DIR")) {
        (Some(d), _) => (Some(d.clone()), "dir_flag"),
        (None, Some(d)) => (Some(d.to_os_string()), "env_MEMCTL_DIR"),
        (None, None) => (None, ""),
    };
    if let Some(d) = &explicit_dir
        && d.is_empty()
    {
        let flag = if explicit_source == "dir_flag" {
            "--dir"
        } else {
            "MEMCTL_DIR"
        };
        return Err(Error::new(Kind::Usage, format!("{flag} is empty")).hint(format!(
            "give {flag} a directory, or leave it out to resolve the memory dir"
        )));
    }
    let cwd = env.cwd.to_string_lossy().into_owned();
    let project = if explicit_dir.is_none() || req.project.is_some() {
        Some(project_root(req.project.as_deref(), env)?)
    } else {
        None
    };
    let home = env.home();
    let need_home = || Error::new(Kind::Config, "cannot determine the home directory").hint("set HOME or pass --dir");
    let base_dir = project.as_ref().map_or(cwd.clone(), |p| p.root.clone());

    let config_home = match env.get("CLAUDE_CONFIG_DIR") {
        Some(c) => Some(nfc(&c)),
        None => home.as_ref().map(|h| nfc(&join(&[h, ".claude"]))),
    };
    if config_home.is_none() && explicit_dir.is_none() {
        return Err(need_home());
    }
    let config_home = config_home.map(|c| {
        if c.starts_with('/') {
            c
        } else {
            warnings.push(format!(
                "CLAUDE_CONFIG_DIR is relative (`{c}`): paths under it are resolved against the project root {base_dir}"
            ));
            absolutize(&c, &base_dir)
        }
    });
    let memory_base = match env.get("CLAUDE_CODE_REMOTE_MEMORY_DIR").filter(|v| !v.is_empty()) {
        Some(m) if m.starts_with('/') => Some(m),
        Some(m) => {
            warnings.push(format!(
                "CLAUDE_CODE_REMOTE_MEMORY_DIR is relative (`{m}`): resolved against the project root {base_dir}"
            ));
            Some(absolutize(&m, &base_dir))
        }
        None => config_home.clone(),
    };

    let settings = load_settings(env, config_home.as_deref(), project.as_ref());
    let enabled = enabled_chain(env, &settings);
    let auto_dream = merged_bool(&settings, "autoDreamEnabled").map_or(
        AutoDream {
            value: None,
            lever: "unset".into(),
        },
        |(v, lever)| AutoDream { value: Some(v), lever },
    );

    let key = project.as_ref().map(|p| sanitize::sanitize(&p.canonical_root));
    let mut steps = Vec::new();
    let mut hash_variant = None;
    let (main_dir, source) = if let Some(d) = explicit_dir {
        (explicit_path(&d, &env.cwd), explicit_source.to_string())
    } else {
        let (chosen, source) = setting_steps(env, &settings, home.as_deref(), &mut steps, &mut warnings);
        match chosen {
            Some(dir) => (PathBuf::from(dir), source),
            None => {
                let key = key.as_ref().ok_or_else(need_home)?;
                let base = memory_base.as_deref().ok_or_else(need_home)?;
                let projects = join(&[base, "projects"]);
                let (name, variant) = match_long_key(&projects, key, "memory", &mut warnings);
                hash_variant = variant;
                let dir = nfc(&format!("{}/", join(&[&projects, &name, "memory"])));
                steps.push(Step {
                    step: "default",
                    file: None,
                    status: "used",
                    value: Some(dir.clone()),
                    detail: None,
                });
                (PathBuf::from(dir), "default".to_string())
            }
        }
    };
    if explicit_source.is_empty() {
        // nothing: steps were filled above
    } else {
        for step in [
            "cowork_override",
            "settings.policy",
            "settings.flag",
            "settings.local",
            "settings.user",
            "default",
        ] {
            steps.push(Step {
                step,
                file: None,
                status: "shadowed",
                value: None,
                detail: None,
            });
        }
    }
    let transcripts_dir = match (&project, &config_home) {
        (Some(p), Some(c)) => {
            let projects = join(&[c, "projects"]);
            let (name, _) = match_long_key(&projects, &sanitize::sanitize(&p.root), "", &mut warnings);
            Some(join(&[&projects, &name]))
        }
        _ => None,
    };
    if let Some(s) = settings.iter().find(|s| s.source == Source::Project)
        && let Some((v, _)) = s.get("autoMemoryDirectory")
    {
        warnings.push(project_setting_warning(&s.file, v));
        steps.push(Step {
            step: "settings.project",
            file: Some(s.file.clone()),
            status: "project_ignored",
            value: v.as_str().map(str::to_string),
            detail: Some("Claude Code ignores autoMemoryDirectory in project settings".into()),
        });
    }
    let dir = if req.team {
        main_dir.join("team")
    } else {
        main_dir.clone()
    };
    Ok(Resolution {
        main_dir,
        dir,
        team: req.team,
        source,
        explicit: !explicit_source.is_empty(),
        project,
        config_home,
        memory_base,
        key,
        hash_variant,
        transcripts_dir,
        steps,
        enabled,
        auto_dream,
        settings,
        warnings,
        home,
    })
}

fn project_setting_warning(file: &str, v: &Value) -> String {
    format!(
        "{file} sets autoMemoryDirectory to {v}, but Claude Code ignores it in project settings (checked-in settings cannot move memory); set it in .claude/settings.local.json or the user settings instead"
    )
}

/// `--dir`/`MEMCTL_DIR`: made absolute, byte-exact otherwise.
fn explicit_path(d: &OsStr, cwd: &Path) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    let bytes = d.as_bytes();
    let mut end = bytes.len();
    while end > 1 && bytes[end - 1] == b'/' {
        end -= 1;
    }
    let trimmed = Path::new(OsStr::from_bytes(&bytes[..end]));
    if trimmed.is_absolute() {
        trimmed.to_path_buf()
    } else {
        cwd.join(trimmed)
    }
}

fn project_root(project: Option<&Path>, env: &Env) -> Result<Project, Error> {
    let given = project.map_or_else(|| env.cwd.clone(), |p| env.cwd.join(p));
    if project.is_some() && !given.exists() {
        return Err(Error::new(
            Kind::NotFound,
            format!("project path does not exist: {}", given.display()),
        )
        .hint("pass an existing directory to --project"));
    }
    let (root, realpath_ok) = match std::fs::canonicalize(&given) {
        Ok(r) => (nfc(&r.to_string_lossy()), true),
        Err(_) => (nfc(&normalize(&given.to_string_lossy())), false),
    };
    let git_root = git::find_git_root(&root);
    let (canonical_root, reason) = match &git_root {
        Some(g) => git::canonical_root(g, &root),
        None => (root.clone(), git::Reason::None),
    };
    Ok(Project {
        root,
        realpath_ok,
        git_root,
        canonical_root,
        reason,
    })
}

fn load_settings(env: &Env, config_home: Option<&str>, project: Option<&Project>) -> Vec<Settings> {
    let mut out = vec![
        settings::load_policy(&env.policy_file),
        Settings {
            source: Source::Flag,
            file: "--settings".into(),
            state: State::NotVisible,
        },
    ];
    if let Some(p) = project {
        out.push(settings::load(
            Source::Local,
            &Path::new(&p.root).join(".claude/settings.local.json"),
        ));
    }
    if let Some(c) = config_home {
        out.push(settings::load(Source::User, &Path::new(c).join("settings.json")));
    }
    if let Some(p) = project {
        out.push(settings::load(
            Source::Project,
            &Path::new(&p.root).join(".claude/settings.json"),
        ));
    }
    out
}

/// Steps 1 and 2 of the precedence; returns the chosen dir and its source.
fn setting_steps(
    env: &Env,
    settings: &[Settings],
    home: Option<&str>,
    steps: &mut Vec<Step>,
    warnings: &mut Vec<String>,
) -> (Option<String>, String) {
    let mut chosen: Option<(String, String)> = None;
    let cowork = env.get("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE");
    steps.push(match &cowork {
        None => Step {
            step: "cowork_override",
            file: None,
            status: "unset",
            value: None,
            detail: None,
        },
        Some(raw) => match validate_memory_path(Some(raw), false, home) {
            Ok(dir) => {
                chosen = Some((dir, "cowork_override".into()));
                Step {
                    step: "cowork_override",
                    file: None,
                    status: "used",
                    value: Some(raw.clone()),
                    detail: None,
                }
            }
            Err(why) => Step {
                step: "cowork_override",
                file: None,
                status: "rejected",
                value: Some(raw.clone()),
                detail: Some(why),
            },
        },
    });
    let mut decided = chosen.is_some();
    for source in [Source::Policy, Source::Flag, Source::Local, Source::User] {
        let name = match source {
            Source::Policy => "settings.policy",
            Source::Flag => "settings.flag",
            Source::Local => "settings.local",
            _ => "settings.user",
        };
        let Some(s) = settings.iter().find(|s| s.source == source) else {
            continue;
        };
        let file = Some(s.file.clone());
        let step = match &s.state {
            State::NotVisible => Step {
                step: name,
                file: None,
                status: "not_visible",
                value: None,
                detail: None,
            },
            State::NoFile => Step {
                step: name,
                file,
                status: "no_file",
                value: None,
                detail: None,
            },
            State::Ignored(why) => Step {
                step: name,
                file,
                status: "ignored",
                value: None,
                detail: Some(why.clone()),
            },
            State::Loaded(_) => match s.get("autoMemoryDirectory") {
                None => Step {
                    step: name,
                    file,
                    status: "not_set",
                    value: None,
                    detail: None,
                },
                Some((v, _)) if decided => Step {
                    step: name,
                    file,
                    status: "shadowed",
                    value: v.as_str().map(str::to_string),
                    detail: None,
                },
                Some((v, _)) => {
                    decided = true;
                    let raw = v.as_str().unwrap_or_default().to_string();
                    match validate_memory_path(Some(&raw), true, home) {
                        Ok(dir) => {
                            chosen = Some((dir, format!("setting:{}", source.name())));
                            Step {
                                step: name,
                                file,
                                status: "used",
                                value: Some(raw),
                                detail: None,
                            }
                        }
                        Err(why) => {
                            warnings.push(format!("autoMemoryDirectory `{raw}` in {} is invalid ({why}); Claude Code uses the default path and does not try lower settings", s.file));
                            Step {
                                step: name,
                                file,
                                status: "rejected",
                                value: Some(raw),
                                detail: Some(format!("{why}; masks lower sources")),
                            }
                        }
                    }
                }
            },
        };
        steps.push(step);
    }
    match chosen {
        Some((dir, source)) => {
            steps.push(Step {
                step: "default",
                file: None,
                status: "shadowed",
                value: None,
                detail: None,
            });
            (Some(dir), source)
        }
        None => (None, String::new()),
    }
}

/// Find the directory a long key names (SPEC §2.2.7 "Matching existing long-name
/// directories"); `suffix` is `memory` for the memory dir, empty for transcripts.
fn match_long_key(
    projects: &str,
    key: &sanitize::Key,
    suffix: &str,
    warnings: &mut Vec<String>,
) -> (String, Option<&'static str>) {
    if !key.is_long() {
        return (key.wyhash.clone(), None);
    }
    let exists = |name: &str| Path::new(projects).join(name).join(suffix).is_dir();
    if exists(&key.wyhash) {
        return (key.wyhash.clone(), Some("wyhash"));
    }
    if exists(&key.djb2) {
        warnings.push(format!(
            "this directory was created by a Node.js-hosted Claude Code; the native CLI reads `{}` instead",
            key.wyhash
        ));
        return (key.djb2.clone(), Some("djb2"));
    }
    let prefix = key.prefix();
    let mut others: Vec<String> = std::fs::read_dir(projects)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .filter_map(|e| e.file_name().into_string().ok())
                .filter(|n| n.starts_with(prefix))
                .collect()
        })
        .unwrap_or_default();
    if !others.is_empty() {
        others.sort();
        warnings.push(format!(
            "other directories share this long key's prefix (not used): {}",
            others.join(", ")
        ));
    }
    (key.wyhash.clone(), Some("wyhash"))
}

/// The merged value of a boolean setting: the highest-priority source that defines
/// it (policy > flag > local > project > user), with its lever text.
fn merged_bool(settings: &[Settings], key: &str) -> Option<(bool, String)> {
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

    fn env(vars: &[(&str, &str)]) -> Env {
        Env {
            vars: vars.iter().map(|(k, v)| (k.to_string(), OsString::from(v))).collect(),
            cwd: PathBuf::from("/"),
            policy_file: PathBuf::from("/nonexistent/managed-settings.json"),
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
