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

pub use enabled::{AutoDream, ChainRow, Enabled, ReadRestriction, enabled_chain, is_remote};
pub use env::{Env, Request};
pub use named::{KeySource, NamedKey};
pub use steps::{DirSource, Step, StepName, StepStatus};
pub use trust::Trust;

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::{Error, Kind};
pub use crate::memdir::with_sep;
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
    /// Memory dirs an older Claude Code build created under the legacy Wyhash key
    /// of this long key (SPEC §2.2.7).
    pub legacy_dirs: Vec<LegacyDir>,
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

/// A memory dir under the legacy Wyhash key of a long project key (SPEC §2.2.7):
/// Claude Code 2.1.332 no longer reads it.
#[derive(Clone, Debug, Serialize)]
pub struct LegacyDir {
    /// The legacy key (`<first 200 units>-<wyhash>`).
    pub key: String,
    pub dir: String,
    pub variant: &'static str,
    /// Memory files in it (`.md` files other than `MEMORY.md`).
    pub memories: usize,
    /// The command that moves them under the key Claude Code 2.1.332 reads.
    pub command: String,
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
    pub auto_dream: PathDream<'a>,
    pub steps: &'a [Step],
    pub warnings: &'a [String],
    /// (2.1.332) Memory dirs under the legacy Wyhash key (SPEC §2.2.7).
    pub legacy_dirs: &'a [LegacyDir],
    /// (2.1.332) Recall mode (SPEC §2.13).
    pub recall_mode: &'a stores::RecallMode,
    /// (2.1.332) The agent memory dirs that exist (SPEC §2.14).
    pub agent_memory_dirs: &'a [String],
    /// (2.1.332) The modelled Claude Code build (SPEC §1.5).
    pub claude_code_version: &'static str,
    /// Paths were printed with U+FFFD: the dir is not valid UTF-8 (SPEC §3.1).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub lossy: bool,
}

/// What `path` reads besides the resolution (SPEC §3.3 items 7, 9, 10): the server
/// flags cached in the global config and the agent memory dirs. Only `path` asks,
/// so every other command stays off the (possibly large) global config.
#[derive(Clone, Debug)]
pub struct ServerView {
    pub dream_flag: flags::Flag,
    pub dream: flags::DreamEnablement,
    pub recall_mode: stores::RecallMode,
    /// `CLAUDE_MEMORY_STORES` holds a team store: Claude Code treats `team/` as team
    /// memory (SPEC §2.13); otherwise it is a plain subdir.
    pub team_memory: bool,
    pub agent_memory_dirs: Vec<String>,
}

/// `auto_dream` of `path --json` (2.1.332: the flag and the setting appended).
#[derive(Serialize)]
pub struct PathDream<'a> {
    pub value: Option<bool>,
    pub lever: &'a str,
    pub flag: flags::OnyxPloverReport,
    pub setting: Option<bool>,
}

impl Resolution {
    /// A warning when the local settings file that sets `autoMemoryDirectory` is
    /// tracked by git: Claude Code honours it, so every clone's memory moves (issue
    /// 13). Runs git once; `None` without git.
    pub fn tracked_local_setting_warning(&self) -> Option<String> {
        self.project.as_ref()?;
        let local = self.settings.iter().find(|s| s.source == settings::Source::Local)?;
        let (value, file) = local.get("autoMemoryDirectory")?;
        if !local_file_tracked(file) {
            return None;
        }
        Some(format!(
            "{file} sets autoMemoryDirectory to {value}, and git tracks it: Claude Code honours it as local settings, so every clone of the repository writes its memory there; untrack it (`git rm --cached {LOCAL_REL}`) and add it to .gitignore"
        ))
    }

    /// The dir `--team` works in: `<memdir>team/<mount>` with one team store, else
    /// `<memdir>team` (SPEC §2.13).
    pub fn team_dir(&self) -> PathBuf {
        self.memdir.team_scope_dir()
    }

    pub fn index_path(&self) -> PathBuf {
        self.memdir.index_path()
    }

    /// The `path --json` document, with the project's identity (SPEC §11.1, computed
    /// by the caller: it reads the project's repository).
    pub fn report<'a>(&'a self, identity: Option<&crate::identity::Identity>, view: &'a ServerView) -> PathReport<'a> {
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
            key: self.key.as_ref().map(|k| k.key.as_str()),
            hash_variant: self.hash_variant,
            key_source: self.key_source,
            enabled: &self.enabled,
            auto_dream: PathDream {
                value: view.dream.value,
                lever: &view.dream.lever,
                flag: flags::OnyxPloverReport::of(&view.dream_flag),
                setting: self.auto_dream.value,
            },
            steps: &self.steps,
            warnings: &self.warnings,
            legacy_dirs: &self.legacy_dirs,
            recall_mode: &view.recall_mode,
            agent_memory_dirs: &view.agent_memory_dirs,
            claude_code_version: crate::claude::CLAUDE_CODE_VERSION,
            lossy: self.memdir.dir().to_str().is_none(),
        }
    }

    /// The project's trust record (SPEC §2.2.3): the lookup resolution made, or a
    /// fresh one when resolution did not need it (a higher source decided). `None`
    /// without a project.
    pub fn project_trust(&self) -> Option<Trust> {
        if let Some(t) = &self.trust {
            return Some(t.clone());
        }
        let p = self.project.as_ref()?;
        Some(trust_of(self.global_config.as_deref(), p))
    }

    /// The server flags and agent memory dirs `path` shows (SPEC §3.3, §2.13, §2.14,
    /// §2.16).
    pub fn server_view(&self, env: &Env) -> ServerView {
        let file = self.global_config.as_deref();
        let dream_flag = flags::lookup(env, file, flags::ONYX_PLOVER);
        let setting = merged_bool(&self.settings, "autoDreamEnabled");
        let dream = flags::dream_enablement(&dream_flag, setting);
        let recall = flags::lookup(env, file, flags::MOTH_COPSE);
        let stores = stores::Stores::from_env(env);
        let recall_mode = stores::recall_mode(&stores, &recall);
        ServerView {
            dream_flag,
            dream,
            recall_mode,
            team_memory: stores.has_team(),
            agent_memory_dirs: self.agent_memory_dirs(env),
        }
    }

    /// The agent memory dirs that exist (SPEC §2.14): `<memory base>/agent-memory/*/`,
    /// `<project>/.claude/agent-memory/*/` and `<project>/.claude/agent-memory-local/*/`
    /// (under `CLAUDE_CODE_REMOTE_MEMORY_DIR`:
    /// `<it>/projects/<key of the canonical root>/agent-memory-local/*/`).
    fn agent_memory_dirs(&self, env: &Env) -> Vec<String> {
        let mut parents = Vec::new();
        if let Some(base) = &self.memory_base {
            parents.push(PathBuf::from(base).join("agent-memory"));
        }
        if let Some(p) = &self.project {
            parents.push(Path::new(&p.root).join(".claude/agent-memory"));
            match env.get("CLAUDE_CODE_REMOTE_MEMORY_DIR").filter(|v| !v.is_empty()) {
                Some(r) => parents.push(
                    Path::new(&absolutize(&r, &p.root))
                        .join("projects")
                        .join(sanitize::sanitize(&p.canonical_root).key)
                        .join("agent-memory-local"),
                ),
                None => parents.push(Path::new(&p.root).join(".claude/agent-memory-local")),
            }
        }
        let mut out = Vec::new();
        for parent in parents {
            let Ok(rd) = std::fs::read_dir(&parent) else { continue };
            let mut dirs: Vec<String> = rd
                .filter_map(Result::ok)
                .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                .map(|e| with_sep(&e.path()))
                .collect();
            dirs.sort();
            out.extend(dirs);
        }
        out
    }

    /// (2.1.332) List the model switch in `enabled.conditions` when the cached server
    /// flags name models (SPEC §2.3 row 7, §2.16): memctl cannot know the session's
    /// model, so it is never decisive. Reads the global config, so only `path` asks.
    pub fn add_model_switch_condition(&mut self, env: &Env) {
        if !self.enabled.value {
            return;
        }
        if let Some(models) = model_switch(env, self.global_config.as_deref()) {
            self.enabled.conditions.push(format!("model switch: {models}"));
        }
    }

    /// The dir for display, with its trailing separator.
    pub fn shown(&self) -> String {
        self.memdir.shown()
    }
}

/// The model patterns of the cached `tengu_sepia_cormorant` when the switch could be
/// on: `tengu_umber_petrel` not cached as off (SPEC §2.3 row 7).
fn model_switch(env: &Env, file: Option<&str>) -> Option<String> {
    let models = flags::lookup(env, file, flags::SEPIA_CORMORANT);
    let patterns: Vec<&str> = models.value()?.as_array()?.iter().filter_map(|v| v.as_str()).collect();
    if patterns.is_empty() {
        return None;
    }
    let switch = flags::lookup(env, file, flags::UMBER_PETREL);
    if matches!(switch.state, flags::FlagState::Cached { .. }) && !switch.is_on() {
        return None;
    }
    Some(patterns.join(", "))
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
    let settings = load_settings(env, config_home.as_deref(), project.as_ref(), home.as_deref());
    let auto_dream = auto_dream(&settings);
    let named = project.as_ref().map_or(NamedKey::Unset, |_| NamedKey::from_env(env));
    warnings.extend(named.warning());
    // (2.1.332) The name keys the memory dir only under the config home.
    let memory_named = named.name().filter(|_| memory_base == config_home);
    if named.name().is_some() && memory_named.is_none() {
        warnings.push(format!(
            "{} keys only the transcripts dir here: under CLAUDE_CODE_REMOTE_MEMORY_DIR the memory dir keeps the path key",
            named::VAR
        ));
    }
    let key = project.as_ref().map(|p| match memory_named {
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
    let restriction = read_restriction(&settings, chosen.source);
    let enabled = enabled_chain(env, &settings, restriction.as_ref(), None);
    let scope = if req.team { Scope::Team } else { Scope::Main };
    let stores = stores::Stores::from_env(env);
    // An invalid store list (SPEC §2.13): Claude Code syncs nothing but is in recall mode.
    warnings.extend(stores.warning());
    let mount = team_mount(&stores, Path::new(&chosen.dir), req.team)?;
    Ok(Resolution {
        memdir: MemoryDir::with_mount(chosen.dir, scope, mount)
            .with_team_store(stores::Stores::from_env(env).has_team()),
        source: chosen.source,
        explicit: chosen.explicit,
        key_source: key.as_ref().map(|_| {
            if memory_named.is_some() {
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
        legacy_dirs: chosen.legacy_dirs,
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

/// The team store `--team` works in (SPEC §2.13): the mount of the one team store
/// in `CLAUDE_MEMORY_STORES`; `None` without a team store (the plain `team/`). With
/// several team stores `--team` cannot choose: a usage error naming the mounts
/// (memctl choice); without `--team` the team dir shown is then `team/` itself.
fn team_mount(stores: &stores::Stores, memdir: &Path, team: bool) -> Result<Option<String>, Error> {
    let mounts: Vec<&str> = stores.team().map(|s| s.mount.as_str()).collect();
    match mounts.as_slice() {
        [] => Ok(None),
        [one] => Ok(Some((*one).to_string())),
        _ if !team => Ok(None),
        [first, ..] => Err(Error::new(
            Kind::Usage,
            format!(
                "--team is ambiguous: {} has {} team stores: {}",
                stores::VAR,
                mounts.len(),
                mounts.join(", ")
            ),
        )
        .hint(format!(
            "pass --dir {} (or the dir of another mount) instead of --team",
            with_sep(&memdir.join(crate::memdir::TEAM).join(first))
        ))),
    }
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

/// The memory dir the current directory is inside, by its place (SPEC v3 §3.14,
/// "Inside a memory dir"): `env.cwd` is `<base>/projects/<key>/memory` or below it,
/// `<base>` being the config home or `CLAUDE_CODE_REMOTE_MEMORY_DIR`, compared as
/// given and through their real paths (a symlinked `~/.claude`). What the directory
/// holds does not matter: a project root that merely holds a `MEMORY.md` is not one.
pub fn memory_dir_around(env: &Env) -> Option<PathBuf> {
    let cwd = &env.cwd;
    let here = cwd.to_string_lossy().into_owned();
    let home = env.home();
    let mut quiet = Vec::new();
    let config_home = config_home(env, home.as_deref(), &here, &mut quiet)?;
    let base = memory_base(env, Some(&config_home), &here, &mut quiet);
    let real_cwd = std::fs::canonicalize(cwd).ok();
    for b in base.iter().chain(std::iter::once(&config_home)) {
        let projects = Path::new(b).join("projects");
        let real = std::fs::canonicalize(&projects).ok();
        for (at, root) in [
            (Some(cwd.as_path()), Some(projects.as_path())),
            (real_cwd.as_deref(), real.as_deref()),
        ] {
            let (Some(at), Some(root)) = (at, root) else { continue };
            let Ok(rest) = at.strip_prefix(root) else { continue };
            let mut parts = rest.components();
            if let (Some(std::path::Component::Normal(key)), Some(std::path::Component::Normal(m))) =
                (parts.next(), parts.next())
                && m == "memory"
            {
                return Some(root.join(key).join("memory"));
            }
        }
    }
    None
}

/// Whether the current directory is `dir` or inside it (as given or by real path).
pub fn cwd_inside(env: &Env, dir: &Path) -> bool {
    if env.cwd.starts_with(dir) {
        return true;
    }
    match (std::fs::canonicalize(&env.cwd), std::fs::canonicalize(dir)) {
        (Ok(c), Ok(d)) => c.starts_with(d),
        _ => false,
    }
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
    legacy_dirs: Vec<LegacyDir>,
    trust: Option<Trust>,
}

/// The settings file memctl means by "local settings" relative to its root.
const LOCAL_REL: &str = ".claude/settings.local.json";

/// Whether git tracks a `<root>/.claude/settings.local.json`.
fn local_file_tracked(file: &str) -> bool {
    Path::new(file)
        .parent()
        .and_then(Path::parent)
        .is_some_and(|root| git::is_tracked(root, LOCAL_REL) == Some(true))
}

/// The managed read restriction (SPEC §2.3 row 4): set in a settings source memctl
/// reads, with `autoMemoryDirectory` decided by project settings or by local
/// settings that git tracks.
fn read_restriction(settings: &[Settings], source: DirSource) -> Option<ReadRestriction> {
    let dir_source = match source {
        DirSource::Setting(Source::Project) => "project",
        DirSource::Setting(Source::Local) => "local",
        _ => return None,
    };
    let file = enabled::read_restriction_file(settings)?;
    if dir_source == "local" {
        let local = settings.iter().find(|s| s.source == Source::Local)?;
        let (_, dir_file) = local.get("autoMemoryDirectory")?;
        if !local_file_tracked(dir_file) {
            return None;
        }
    }
    Some(ReadRestriction { file, dir_source })
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
        legacy_dirs: Vec::new(),
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
                legacy_dirs: Vec::new(),
                trust: decision.trust,
            });
        }
        let key = self.key.ok_or_else(need_home)?;
        let base = self.memory_base.ok_or_else(need_home)?;
        let projects = join(&[base, "projects"]);
        let long = match_long_key(&projects, key, "memory", warnings);
        let dir = nfc(&format!("{}/", join(&[&projects, &key.key, "memory"])));
        steps.push(Step::new(StepName::Default, None, StepStatus::Used).value(Some(&dir)));
        Ok(Chosen {
            dir: PathBuf::from(dir),
            source: DirSource::Default,
            explicit: false,
            hash_variant: key.is_long().then_some("djb2"),
            legacy_dirs: long,
            trust: decision.trust,
        })
    }

    /// Ask the global config for the workspace's trust record.
    fn trust(&self) -> Trust {
        match self.project {
            Some(p) => trust_of(self.global_config, p),
            None => trust::Trust {
                file: self.global_config.unwrap_or("~/.claude.json").to_string(),
                lookup: trust::Lookup::NoRecord,
            },
        }
    }
}

fn trust_of(global_config: Option<&str>, p: &Project) -> Trust {
    match global_config {
        Some(file) => Trust::lookup(
            file,
            &trust::candidates(&p.root, p.git_root.as_deref(), &p.canonical_root),
        ),
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
    match_long_key(&projects, &key, "", warnings);
    Some(join(&[&projects, &key.key]))
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
    // Not NFC-normalized: Claude Code 2.1.332 keys a decomposed (NFD) project path
    // as it is on disk, and finds its git root there (observed on Linux: the oracle
    // row `long-decomposed` of tests/golden/claude-code-2.1.332/dirs.jsonl).
    let (root, realpath_ok) = match std::fs::canonicalize(&given) {
        Ok(r) => (r.to_string_lossy().into_owned(), true),
        Err(_) => (normalize(&given.to_string_lossy()), false),
    };
    let git_root = git::find_git_root(&root);
    let (canonical_root, reason) = match &git_root {
        Some(g) => git::canonical_root(g),
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

fn load_settings(env: &Env, config_home: Option<&str>, project: Option<&Project>, home: Option<&str>) -> Vec<Settings> {
    let mut out = vec![
        settings::load_policy(&env.policy_file),
        Settings {
            source: Source::Flag,
            file: "--settings".into(),
            state: State::NotVisible,
            legacy: None,
        },
    ];
    if let Some(p) = project {
        let own = Path::new(&p.root).join(LOCAL_REL);
        out.push(if local_at_canonical_root(p, home) {
            settings::load_local(&Path::new(&p.canonical_root).join(LOCAL_REL), &own)
        } else {
            settings::load(Source::Local, &own)
        });
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

/// Whether local settings are read at the canonical root (SPEC §2.2.3, 2.1.332): it
/// differs from the project root, is not the home directory (real paths), and it,
/// its `.git` and its `.claude` entry (when present) belong to the current user.
fn local_at_canonical_root(p: &Project, home: Option<&str>) -> bool {
    use std::os::unix::fs::MetadataExt;
    if p.canonical_root == p.root {
        return false;
    }
    let real = |d: &str| std::fs::canonicalize(d).ok();
    if home.is_some_and(|h| real(h).is_some() && real(h) == real(&p.canonical_root)) {
        return false;
    }
    let uid = rustix::process::geteuid().as_raw();
    let root = Path::new(&p.canonical_root);
    let owned = |path: &Path, required: bool| match std::fs::symlink_metadata(path) {
        Ok(m) => m.uid() == uid,
        Err(_) => !required,
    };
    owned(root, true) && owned(&root.join(".git"), true) && owned(&root.join(".claude"), false)
}

/// Recognise what older builds left for a long key (SPEC §2.2.7 "Matching existing
/// long-name directories"); `suffix` is `memory` for the memory dir, empty for
/// transcripts. The key itself is always the djb2 one. Returns the legacy memory
/// dirs holding memories.
fn match_long_key(projects: &str, key: &sanitize::Key, suffix: &str, warnings: &mut Vec<String>) -> Vec<LegacyDir> {
    if !key.is_long() {
        return Vec::new();
    }
    let mut legacy = Vec::new();
    let wy_dir = Path::new(projects).join(&key.wyhash).join(suffix);
    if suffix.is_empty() {
        if wy_dir.is_dir() {
            warnings.push(format!(
                "{} holds transcripts written under the key of an older Claude Code build; Claude Code {} writes them under {}",
                key.wyhash,
                crate::claude::CLAUDE_CODE_VERSION,
                key.key
            ));
        }
    } else if wy_dir.is_dir() {
        let scan = crate::scan::scan(&wy_dir);
        let memories = scan.memories.len();
        if memories > 0 || wy_dir.join("MEMORY.md").is_file() {
            let command = format!("memctl projects merge -- {} {}", key.wyhash, key.key);
            warnings.push(format!(
                "{} holds {memories} memories written under the key of an older Claude Code build; Claude Code {} reads {}: move them with `{command}`",
                key.wyhash,
                crate::claude::CLAUDE_CODE_VERSION,
                key.key
            ));
            legacy.push(LegacyDir {
                key: key.wyhash.clone(),
                dir: with_sep(&wy_dir),
                variant: "wyhash",
                memories,
                command,
            });
        }
    }
    let prefix = key.prefix();
    let mut others: Vec<String> = std::fs::read_dir(projects)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .filter_map(|e| e.file_name().into_string().ok())
                .filter(|n| n.starts_with(prefix) && *n != key.key && *n != key.wyhash)
                .collect()
        })
        .unwrap_or_default();
    if !others.is_empty() && !suffix.is_empty() {
        others.sort();
        warnings.push(format!(
            "other directories share this long key's prefix (not used; Claude Code's memory path does not match by prefix): {}",
            others.join(", ")
        ));
    }
    legacy
}

#[cfg(test)]
mod tests {
    //! SPEC A.4 (end-to-end resolution), rebuilt under a temp dir: `<t>/home/alice` is
    //! the home, `<t>/home/alice/src/app` the repository, `app-wt` its worktree.
    use super::*;
    use std::fs;

    struct Fixture {
        _tmp: tempfile::TempDir,
        t: String,
    }

    impl Fixture {
        fn new() -> Fixture {
            let tmp = tempfile::tempdir().unwrap();
            let t = fs::canonicalize(tmp.path()).unwrap().to_string_lossy().into_owned();
            let app = format!("{t}/home/alice/src/app");
            fs::create_dir_all(format!("{app}/sub/dir")).unwrap();
            fs::create_dir_all(format!("{app}/.git/worktrees/app-wt")).unwrap();
            fs::create_dir_all(format!("{t}/home/alice/src/app-wt")).unwrap();
            fs::create_dir_all(format!("{t}/home/alice/tmpdir")).unwrap();
            fs::write(
                format!("{t}/home/alice/src/app-wt/.git"),
                format!("gitdir: {app}/.git/worktrees/app-wt\n"),
            )
            .unwrap();
            fs::write(format!("{app}/.git/worktrees/app-wt/commondir"), "../..\n").unwrap();
            fs::write(
                format!("{app}/.git/worktrees/app-wt/gitdir"),
                format!("{t}/home/alice/src/app-wt/.git\n"),
            )
            .unwrap();
            Fixture { _tmp: tmp, t }
        }

        fn p(&self, rel: &str) -> String {
            format!("{}/{rel}", self.t)
        }

        fn file(&self, rel: &str, text: &str) {
            let path = self.p(rel);
            fs::create_dir_all(Path::new(&path).parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        }

        /// (memory dir, transcripts dir) for `--project <project>` and `vars`.
        fn resolve(&self, project: &str, vars: &[(&str, String)]) -> (String, String) {
            let mut env = Env {
                vars: [("HOME".to_string(), OsString::from(self.p("home/alice")))].into(),
                cwd: PathBuf::from(&self.t),
                policy_file: PathBuf::from(self.p("no-policy/managed-settings.json")),
                account_home: None,
            };
            for (k, v) in vars {
                env.vars.insert(k.to_string(), OsString::from(v));
            }
            let req = Request {
                project: Some(PathBuf::from(self.p(project))),
                ..Request::default()
            };
            let r = resolve(&req, &env).unwrap();
            (r.shown(), r.transcripts_dir.unwrap())
        }
    }

    #[test]
    fn end_to_end_resolution_matches_appendix_a4() {
        let f = Fixture::new();
        let k = f.t.replace(|c: char| !c.is_ascii_alphanumeric(), "-");
        let wt = "home/alice/src/app-wt";
        let mem = |base: &str| format!("{base}/projects/{k}-home-alice-src-app/memory/");
        let claude = f.p("home/alice/.claude");
        let (m, tr) = f.resolve(wt, &[]);
        assert_eq!(m, mem(&claude));
        assert_eq!(tr, format!("{claude}/projects/{k}-home-alice-src-app-wt"));
        let cfg = f.p("cfg");
        let (m, tr) = f.resolve(wt, &[("CLAUDE_CONFIG_DIR", cfg.clone())]);
        assert_eq!(
            (m, tr),
            (mem(&cfg), format!("{cfg}/projects/{k}-home-alice-src-app-wt"))
        );
        let r = f.p("mnt/mem");
        assert_eq!(
            f.resolve(wt, &[("CLAUDE_CODE_REMOTE_MEMORY_DIR", r.clone())]).0,
            mem(&r)
        );
        // Named key: memory and transcripts under the config home; under a remote
        // memory dir only the transcripts.
        let named = [
            ("CLAUDE_CONFIG_DIR", cfg.clone()),
            ("CLAUDE_CODE_PROJECT_DIR_NAME", "my_proj-1".to_string()),
        ];
        let (m, tr) = f.resolve(wt, &named);
        assert_eq!(m, format!("{cfg}/projects/my_proj-1/memory/"));
        assert_eq!(tr, format!("{cfg}/projects/my_proj-1"));
        let mut remote = named.to_vec();
        remote.push(("CLAUDE_CODE_REMOTE_MEMORY_DIR", r.clone()));
        let (m, tr) = f.resolve(wt, &remote);
        assert_eq!((m, tr), (mem(&r), format!("{cfg}/projects/my_proj-1")));
        let empty = [
            ("CLAUDE_CONFIG_DIR", String::new()),
            ("CLAUDE_CODE_PROJECT_DIR_NAME", "my_proj-1".to_string()),
        ];
        assert!(!f.resolve(wt, &empty).0.contains("my_proj-1"));
        // Cowork override.
        let cw = f.p("cowork/mem");
        assert_eq!(
            f.resolve(wt, &[("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", cw.clone())]).0,
            format!("{cw}/")
        );
        assert_eq!(
            f.resolve(wt, &[("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", "~/x".into())]).0,
            mem(&claude)
        );
        // Not a repository; a subdirectory of one.
        let (m, tr) = f.resolve("home/alice/tmpdir", &[]);
        assert_eq!(m, format!("{claude}/projects/{k}-home-alice-tmpdir/memory/"));
        assert_eq!(tr, format!("{claude}/projects/{k}-home-alice-tmpdir"));
        let (m, tr) = f.resolve("home/alice/src/app/sub/dir", &[]);
        assert_eq!(m, mem(&claude));
        assert_eq!(tr, format!("{claude}/projects/{k}-home-alice-src-app-sub-dir"));
    }

    #[test]
    fn settings_rows_of_appendix_a4() {
        let f = Fixture::new();
        let home = f.p("home/alice");
        let wt = "home/alice/src/app-wt";
        f.file(
            "home/alice/.claude/settings.json",
            r#"{"autoMemoryDirectory": "~/mymem"}"#,
        );
        assert_eq!(f.resolve(wt, &[]).0, format!("{home}/mymem/"));
        f.file(
            &format!("{wt}/.claude/settings.json"),
            r#"{"autoMemoryDirectory": "/proj/evil"}"#,
        );
        assert_eq!(f.resolve(wt, &[]).0, "/proj/evil/");
        let ignore = [("CLAUDE_CODE_IGNORE_PERSISTED_TRUST", "1".to_string())];
        assert_eq!(f.resolve(wt, &ignore).0, format!("{home}/mymem/"));
        f.file(
            &format!("{wt}/.claude/settings.local.json"),
            r#"{"autoMemoryDirectory": "relative"}"#,
        );
        assert!(f.resolve(wt, &[]).0.ends_with("-home-alice-src-app/memory/"));
        fs::remove_file(f.p(&format!("{wt}/.claude/settings.local.json"))).unwrap();
        fs::remove_file(f.p(&format!("{wt}/.claude/settings.json"))).unwrap();
        // The main checkout's local settings apply in the worktree and a subdirectory.
        f.file(
            "home/alice/src/app/.claude/settings.local.json",
            r#"{"autoMemoryDirectory": "~/m"}"#,
        );
        assert_eq!(f.resolve(wt, &[]).0, format!("{home}/m/"));
        assert_eq!(f.resolve("home/alice/src/app/sub", &[]).0, format!("{home}/m/"));
        // Both files: the canonical root's wins; without it, the nearer one.
        f.file(
            "home/alice/src/app/sub/.claude/settings.local.json",
            r#"{"autoMemoryDirectory": "~/legacy"}"#,
        );
        f.file(
            "home/alice/src/app/.claude/settings.local.json",
            r#"{"autoMemoryDirectory": "~/root"}"#,
        );
        assert_eq!(f.resolve("home/alice/src/app/sub", &[]).0, format!("{home}/root/"));
        fs::remove_file(f.p("home/alice/src/app/.claude/settings.local.json")).unwrap();
        assert_eq!(f.resolve("home/alice/src/app/sub", &[]).0, format!("{home}/legacy/"));
        // Project settings are read at the project root only.
        fs::remove_file(f.p("home/alice/src/app/sub/.claude/settings.local.json")).unwrap();
        fs::remove_file(f.p("home/alice/.claude/settings.json")).unwrap();
        f.file(
            "home/alice/src/app/.claude/settings.json",
            r#"{"autoMemoryDirectory": "/proj/x"}"#,
        );
        assert!(
            f.resolve("home/alice/src/app/sub", &[])
                .0
                .ends_with("-home-alice-src-app/memory/")
        );
    }
}
