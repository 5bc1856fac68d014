//! Where memory lives (SPEC §2.2, §2.3): the resolution precedence with its explain
//! trace, the project and canonical roots, the project key, and whether auto memory
//! and auto-dream are enabled. Every environment lookup and settings read is here.

pub mod enabled;
pub mod env;
pub mod flags;
pub mod git;
pub mod named;
pub mod sanitize;
pub mod settings;
pub mod steps;
pub mod stores;
pub mod trust;
pub mod validate;

pub use enabled::{AutoDream, ChainRow, Enabled, enabled_chain, is_remote};
pub use env::{Env, Request};
pub use named::{KeySource, NamedKey};
pub use steps::{DirSource, Step, StepName, StepStatus};
pub use trust::Trust;

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::{Error, Kind};
use crate::memdir::{MemoryDir, Scope};
use enabled::merged_bool;
use settings::{Settings, Source, State};
use validate::{join, nfc, normalize};

/// The project memctl resolved for.
#[derive(Clone, Debug)]
pub struct Project {
    pub root: String,
    pub realpath_ok: bool,
    pub git_root: Option<String>,
    pub canonical_root: String,
    pub reason: git::Reason,
}

/// Everything resolution found out.
#[derive(Clone, Debug)]
pub struct Resolution {
    /// The memory dir and the scope (main or team) commands operate in.
    pub memdir: MemoryDir,
    pub source: DirSource,
    /// Named by `--dir`/`MEMCTL_DIR` (must exist).
    pub explicit: bool,
    pub project: Option<Project>,
    pub config_home: Option<String>,
    pub memory_base: Option<String>,
    pub key: Option<sanitize::Key>,
    /// Where `key` came from; `None` without a project.
    pub key_source: Option<KeySource>,
    /// What `CLAUDE_CODE_PROJECT_DIR_NAME` said.
    pub named_key: NamedKey,
    pub hash_variant: Option<&'static str>,
    pub transcripts_dir: Option<String>,
    pub steps: Vec<Step>,
    /// The trust lookup, when project settings had to be asked (SPEC §2.2.1 step 2).
    pub trust: Option<Trust>,
    /// The global config file that records workspace trust.
    pub global_config: Option<String>,
    pub enabled: Enabled,
    pub auto_dream: AutoDream,
    pub settings: Vec<Settings>,
    pub warnings: Vec<String>,
    /// The home directory (for `~` expansion in settings checks).
    pub home: Option<String>,
}

/// The `path --json` document (SPEC §3.3).
#[derive(Serialize)]
pub struct PathReport<'a> {
    pub memory_dir: String,
    pub index_path: String,
    pub team_dir: String,
    pub transcripts_dir: Option<&'a str>,
    pub exists: bool,
    pub source: DirSource,
    pub project_root: Option<&'a str>,
    pub git_root: Option<&'a str>,
    pub canonical_root: Option<&'a str>,
    pub canonical_reason: Option<&'static str>,
    /// The project identity (SPEC §11.1); null without a project or when it has none.
    pub identity: Option<String>,
    pub config_home: Option<&'a str>,
    pub memory_base: Option<&'a str>,
    pub key: Option<&'a str>,
    pub hash_variant: Option<&'static str>,
    /// `sanitized` or `named` (SPEC §2.2.1 step 3); null without a project.
    pub key_source: Option<KeySource>,
    pub enabled: &'a Enabled,
    pub auto_dream: &'a AutoDream,
    pub steps: &'a [Step],
    /// Paths were printed with U+FFFD: the dir is not valid UTF-8 (SPEC §3.1).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub lossy: bool,
}

/// A directory path with exactly one trailing separator, for display.
pub fn with_sep(p: &Path) -> String {
    let s = p.to_string_lossy();
    let trimmed = s.trim_end_matches('/');
    format!("{trimmed}/")
}

impl Resolution {
    /// A warning when `<project>/.claude/settings.local.json` sets
    /// `autoMemoryDirectory` and git tracks the file: Claude Code honours it, so every
    /// clone's memory moves (issue 13). Runs git once; `None` without git.
    pub fn tracked_local_setting_warning(&self) -> Option<String> {
        let project = self.project.as_ref()?;
        let local = self.settings.iter().find(|s| s.source == settings::Source::Local)?;
        let (value, _) = local.get("autoMemoryDirectory")?;
        let rel = ".claude/settings.local.json";
        if git::is_tracked(Path::new(&project.root), rel) != Some(true) {
            return None;
        }
        Some(format!(
            "{} sets autoMemoryDirectory to {value}, and git tracks it: Claude Code honours it as local settings, so every clone of the repository writes its memory there; untrack it (`git rm --cached {rel}`) and add it to .gitignore",
            local.file
        ))
    }

    pub fn team_dir(&self) -> PathBuf {
        self.memdir.team_dir()
    }

    pub fn index_path(&self) -> PathBuf {
        self.memdir.index_path()
    }

    /// The `path --json` document, with the project's identity (SPEC §11.1, computed
    /// by the caller: it reads the project's repository).
    pub fn report(&self, identity: Option<&crate::identity::Identity>) -> PathReport<'_> {
        let p = self.project.as_ref();
        PathReport {
            memory_dir: self.shown(),
            index_path: self.index_path().to_string_lossy().into_owned(),
            team_dir: with_sep(&self.team_dir()),
            transcripts_dir: self.transcripts_dir.as_deref(),
            exists: self.memdir.dir().is_dir(),
            source: self.source,
            project_root: p.map(|p| p.root.as_str()),
            git_root: p.and_then(|p| p.git_root.as_deref()),
            canonical_root: p.map(|p| p.canonical_root.as_str()),
            canonical_reason: p.map(|p| p.reason.code()),
            identity: identity.map(|i| i.id.clone()),
            config_home: self.config_home.as_deref(),
            memory_base: self.memory_base.as_deref(),
            key: self.key.as_ref().map(|k| {
                if self.hash_variant == Some("djb2") {
                    k.djb2.as_str()
                } else {
                    k.wyhash.as_str()
                }
            }),
            hash_variant: self.hash_variant,
            key_source: self.key_source,
            enabled: &self.enabled,
            auto_dream: &self.auto_dream,
            steps: &self.steps,
            lossy: self.memdir.dir().to_str().is_none(),
        }
    }

    /// Whether the project's workspace is trusted (SPEC §2.2.1 step 2): the lookup
    /// resolution made, or a fresh one when resolution did not need it (a higher
    /// source decided). `None` without a project.
    pub fn project_trust(&self) -> Option<Trust> {
        if let Some(t) = &self.trust {
            return Some(t.clone());
        }
        let p = self.project.as_ref()?;
        Some(trust_of(self.global_config.as_deref(), &p.root))
    }

    /// The dir for display, with its trailing separator.
    pub fn shown(&self) -> String {
        self.memdir.shown()
    }
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
    let explicit = explicit_dir(req, env)?;
    let project = if explicit.is_none() || req.project.is_some() {
        Some(project_root(req.project.as_deref(), env)?)
    } else {
        None
    };
    let home = env.home();
    let base_dir = project
        .as_ref()
        .map_or_else(|| env.cwd.to_string_lossy().into_owned(), |p| p.root.clone());
    let config_home = config_home(env, home.as_deref(), &base_dir, &mut warnings);
    if config_home.is_none() && explicit.is_none() {
        return Err(need_home());
    }
    let memory_base = memory_base(env, config_home.as_deref(), &base_dir, &mut warnings);
    let settings = load_settings(env, config_home.as_deref(), project.as_ref());
    let enabled = enabled_chain(env, &settings);
    let auto_dream = auto_dream(&settings);
    let named = project.as_ref().map_or(NamedKey::Unset, |_| NamedKey::from_env(env));
    warnings.extend(named.warning());
    let key = project.as_ref().map(|p| match named.name() {
        Some(n) => sanitize::named(n),
        None => sanitize::sanitize(&p.canonical_root),
    });
    let global_config = config_home
        .as_deref()
        .and_then(|c| trust::config_file(env.get_os("CLAUDE_CONFIG_DIR").is_some(), c, home.as_deref()));
    let mut steps = Vec::new();
    let chosen = match explicit {
        Some((dir, source)) => explicit_choice(&dir, source, &env.cwd, &mut steps),
        None => {
            let lookup = Lookup {
                env,
                home: home.as_deref(),
                global_config: global_config.as_deref(),
                project: project.as_ref(),
                memory_base: memory_base.as_deref(),
                key: key.as_ref(),
            };
            lookup.precedence(&settings, &mut steps, &mut warnings)?
        }
    };
    let transcripts_dir = transcripts_dir(project.as_ref(), config_home.as_deref(), &named, &mut warnings);
    let scope = if req.team { Scope::Team } else { Scope::Main };
    Ok(Resolution {
        memdir: MemoryDir::open(chosen.dir, scope),
        source: chosen.source,
        explicit: chosen.explicit,
        key_source: key.as_ref().map(|_| {
            if named.name().is_some() {
                KeySource::Named
            } else {
                KeySource::Sanitized
            }
        }),
        named_key: named,
        project,
        config_home,
        memory_base,
        key,
        hash_variant: chosen.hash_variant,
        transcripts_dir,
        steps,
        trust: chosen.trust,
        global_config,
        enabled,
        auto_dream,
        settings,
        warnings,
        home,
    })
}

/// The config home and the memory base (SPEC §2.2.2) from the environment alone,
/// relative values resolved against the current dir: for the all-projects view,
/// which has no single project.
pub fn bases(env: &Env, warnings: &mut Vec<String>) -> (Option<String>, Option<String>) {
    let home = env.home();
    let base_dir = env.cwd.to_string_lossy().into_owned();
    let config_home = config_home(env, home.as_deref(), &base_dir, warnings);
    let memory_base = memory_base(env, config_home.as_deref(), &base_dir, warnings);
    (config_home, memory_base)
}

fn need_home() -> Error {
    Error::new(Kind::Config, "cannot determine the home directory").hint("set HOME or pass --dir")
}

/// `--dir` or `MEMCTL_DIR`; `--dir ""` is refused, an empty `MEMCTL_DIR` counts as
/// unset (SPEC §3.13), like an empty `EDITOR`.
fn explicit_dir(req: &Request, env: &Env) -> Result<Option<(OsString, DirSource)>, Error> {
    let from_env = env.get_os("MEMCTL_DIR").filter(|d| !d.is_empty());
    let explicit = match (&req.dir, from_env) {
        (Some(d), _) => Some((d.clone(), DirSource::DirFlag)),
        (None, Some(d)) => Some((d.to_os_string(), DirSource::EnvMemctlDir)),
        (None, None) => None,
    };
    if let Some((d, _)) = &explicit
        && d.is_empty()
    {
        return Err(Error::new(Kind::Usage, "--dir is empty")
            .hint("give --dir a directory, or leave it out to resolve the memory dir"));
    }
    Ok(explicit)
}

/// The config home (SPEC §2.2.2), absolute against the project root.
fn config_home(env: &Env, home: Option<&str>, base_dir: &str, warnings: &mut Vec<String>) -> Option<String> {
    let from_env = env.get("CLAUDE_CONFIG_DIR");
    let config_home = match &from_env {
        Some(c) => nfc(c),
        None => nfc(&join(&[home?, ".claude"])),
    };
    if config_home.starts_with('/') {
        return Some(config_home);
    }
    warnings.push(match from_env {
        Some(c) if c.is_empty() => format!(
            "CLAUDE_CONFIG_DIR is set but empty: Claude Code then keeps memory, settings and transcripts under the project root {base_dir}"
        ),
        Some(_) => format!(
            "CLAUDE_CONFIG_DIR is relative (`{config_home}`): paths under it are resolved against the project root {base_dir}"
        ),
        None => format!(
            "HOME is relative (`{}`): the config home `{config_home}` is resolved against the project root {base_dir}",
            home.unwrap_or_default()
        ),
    });
    Some(absolutize(&config_home, base_dir))
}

/// The memory base (SPEC §2.2.2): `CLAUDE_CODE_REMOTE_MEMORY_DIR` or the config home.
fn memory_base(env: &Env, config_home: Option<&str>, base_dir: &str, warnings: &mut Vec<String>) -> Option<String> {
    match env.get("CLAUDE_CODE_REMOTE_MEMORY_DIR").filter(|v| !v.is_empty()) {
        Some(m) if m.starts_with('/') => Some(m),
        Some(m) => {
            warnings.push(format!(
                "CLAUDE_CODE_REMOTE_MEMORY_DIR is relative (`{m}`): resolved against the project root {base_dir}"
            ));
            Some(absolutize(&m, base_dir))
        }
        None => config_home.map(str::to_string),
    }
}

fn auto_dream(settings: &[Settings]) -> AutoDream {
    merged_bool(settings, "autoDreamEnabled").map_or(
        AutoDream {
            value: None,
            lever: "unset".into(),
        },
        |(v, lever)| AutoDream { value: Some(v), lever },
    )
}

/// The memory dir and where it came from.
struct Chosen {
    dir: PathBuf,
    source: DirSource,
    explicit: bool,
    hash_variant: Option<&'static str>,
    trust: Option<Trust>,
}

/// `--dir`/`MEMCTL_DIR` decided: every other step is shadowed.
fn explicit_choice(dir: &OsStr, source: DirSource, cwd: &Path, steps: &mut Vec<Step>) -> Chosen {
    steps.push(Step::new(StepName::CoworkOverride, None, StepStatus::Shadowed));
    for source in steps::SETTING_ORDER {
        steps.push(Step::new(StepName::of(source), None, StepStatus::Shadowed));
    }
    steps.push(Step::new(StepName::Default, None, StepStatus::Shadowed));
    Chosen {
        dir: explicit_path(dir, cwd),
        source,
        explicit: true,
        hash_variant: None,
        trust: None,
    }
}

/// What steps 1–3 read besides the settings.
struct Lookup<'a> {
    env: &'a Env,
    home: Option<&'a str>,
    global_config: Option<&'a str>,
    project: Option<&'a Project>,
    memory_base: Option<&'a str>,
    key: Option<&'a sanitize::Key>,
}

impl Lookup<'_> {
    /// Steps 1–3 of the precedence (SPEC §2.2.1).
    fn precedence(
        &self,
        settings: &[Settings],
        steps: &mut Vec<Step>,
        warnings: &mut Vec<String>,
    ) -> Result<Chosen, Error> {
        let decision = steps::setting_steps(self.env, settings, self.home, &mut || self.trust(), steps, warnings);
        if let Some((dir, source)) = decision.chosen {
            return Ok(Chosen {
                dir: PathBuf::from(dir),
                source,
                explicit: false,
                hash_variant: None,
                trust: decision.trust,
            });
        }
        let key = self.key.ok_or_else(need_home)?;
        let base = self.memory_base.ok_or_else(need_home)?;
        let projects = join(&[base, "projects"]);
        let (name, hash_variant) = match_long_key(&projects, key, "memory", warnings);
        let dir = nfc(&format!("{}/", join(&[&projects, &name, "memory"])));
        steps.push(Step::new(StepName::Default, None, StepStatus::Used).value(Some(&dir)));
        Ok(Chosen {
            dir: PathBuf::from(dir),
            source: DirSource::Default,
            explicit: false,
            hash_variant,
            trust: decision.trust,
        })
    }

    /// Ask the global config whether the project root (or a parent) is trusted.
    fn trust(&self) -> Trust {
        trust_of(self.global_config, self.project.map_or("", |p| p.root.as_str()))
    }
}

fn trust_of(global_config: Option<&str>, root: &str) -> Trust {
    match global_config {
        Some(file) => Trust::lookup(file, root),
        None => Trust {
            file: "~/.claude.json".into(),
            lookup: trust::Lookup::Unreadable("cannot be located without a home directory".into()),
        },
    }
}

/// The transcripts dir (SPEC §2.2.1): keyed by the project root, or by a valid
/// named key whichever step chose the memory dir.
fn transcripts_dir(
    project: Option<&Project>,
    config_home: Option<&str>,
    named: &NamedKey,
    warnings: &mut Vec<String>,
) -> Option<String> {
    let (p, c) = (project?, config_home?);
    let projects = join(&[c, "projects"]);
    let key = match named.name() {
        Some(n) => sanitize::named(n),
        None => sanitize::sanitize(&p.root),
    };
    let (name, _) = match_long_key(&projects, &key, "", warnings);
    Some(join(&[&projects, &name]))
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
