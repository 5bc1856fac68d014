//! Where memory lives (SPEC §2.2, §2.3): the resolution precedence with its explain
//! trace, the project and canonical roots, the project key, and whether auto memory
//! and auto-dream are enabled. Every environment lookup and settings read is here.

pub mod enabled;
pub mod env;
pub mod flags;
pub mod git;
mod legacy;
pub mod named;
mod report;
mod roots;
pub mod sanitize;
pub mod settings;
pub mod steps;
pub mod stores;
pub mod trust;
pub mod validate;

pub use enabled::{AutoDream, ChainRow, Enabled, ReadRestriction, enabled_chain, is_remote};
pub use env::{Env, Request};
pub use legacy::LegacyDir;
pub use named::{KeySource, NamedKey};
pub use report::{PathDream, PathReport, ServerView};
pub use roots::{bases, cwd_inside, memory_dir_around};
pub use steps::{DirSource, Step, StepName, StepStatus};
pub use trust::Trust;

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use crate::error::{Error, Kind};
pub use crate::memdir::with_sep;
use crate::memdir::{MemoryDir, Scope};
use enabled::merged_bool;
use legacy::match_long_key;
use roots::{config_home, memory_base, need_home, project_root};
use settings::{Settings, Source, State};
use validate::{join, nfc};

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

    /// The dir for display, with its trailing separator.
    pub fn shown(&self) -> String {
        self.memdir.shown()
    }
}

/// The roots resolution starts from (SPEC §2.2.2, §2.2.5).
struct Roots {
    project: Option<Project>,
    home: Option<String>,
    config_home: Option<String>,
    memory_base: Option<String>,
}

/// The project key (SPEC §2.2.1 step 3, §2.2.7) and the name that may replace it.
struct Keyed {
    named: NamedKey,
    /// The name keys the memory dir too (only under the config home).
    memory_named: bool,
    key: Option<sanitize::Key>,
}

impl Keyed {
    fn source(&self) -> Option<KeySource> {
        self.key.as_ref().map(|_| {
            if self.memory_named {
                KeySource::Named
            } else {
                KeySource::Sanitized
            }
        })
    }
}

/// Resolve the memory dir and everything `path --explain` shows (SPEC §2.2.1).
pub fn resolve(req: &Request, env: &Env) -> Result<Resolution, Error> {
    let mut warnings = Vec::new();
    let explicit = explicit_dir(req, env)?;
    let roots = find_roots(req, env, explicit.is_some(), &mut warnings)?;
    let settings = load_settings(env, &roots);
    let keyed = project_key(env, &roots, &mut warnings);
    let global_config = global_config(env, &roots);
    let mut steps = Vec::new();
    let chosen = match explicit {
        Some((dir, source)) => explicit_choice(&dir, source, &env.cwd, &mut steps),
        None => {
            let lookup = Lookup::new(env, &roots, global_config.as_deref(), keyed.key.as_ref());
            lookup.precedence(&settings, &mut steps, &mut warnings)?
        }
    };
    let transcripts_dir = transcripts_dir(&roots, &keyed.named, &mut warnings);
    let restriction = read_restriction(&settings, chosen.source);
    Ok(Resolution {
        memdir: memory_dir(req, env, chosen.dir, &mut warnings)?,
        source: chosen.source,
        explicit: chosen.explicit,
        key_source: keyed.source(),
        named_key: keyed.named,
        project: roots.project,
        config_home: roots.config_home,
        memory_base: roots.memory_base,
        key: keyed.key,
        hash_variant: chosen.hash_variant,
        legacy_dirs: chosen.legacy_dirs,
        transcripts_dir,
        steps,
        trust: chosen.trust,
        global_config,
        enabled: enabled_chain(env, &settings, restriction.as_ref(), None),
        auto_dream: auto_dream(&settings),
        settings,
        warnings,
        home: roots.home,
    })
}

/// The project root (SPEC §2.2.5; none under `--dir` without `--project`), the
/// home, the config home and the memory base (§2.2.2), relative ones resolved
/// against the project root. No home is an error unless `--dir` chose the dir.
fn find_roots(req: &Request, env: &Env, explicit: bool, warnings: &mut Vec<String>) -> Result<Roots, Error> {
    let project = if !explicit || req.project.is_some() {
        Some(project_root(req.project.as_deref(), env)?)
    } else {
        None
    };
    let home = env.home();
    let base_dir = project
        .as_ref()
        .map_or_else(|| env.cwd.to_string_lossy().into_owned(), |p| p.root.clone());
    let config_home = config_home(env, home.as_deref(), &base_dir, warnings);
    if config_home.is_none() && !explicit {
        return Err(need_home());
    }
    let memory_base = memory_base(env, config_home.as_deref(), &base_dir, warnings);
    Ok(Roots {
        project,
        home,
        config_home,
        memory_base,
    })
}

/// The project key (SPEC §2.2.1 step 3): `sanitizePath(canonical root)`, or the
/// named key of `CLAUDE_CODE_PROJECT_DIR_NAME`, which (2.1.332) keys the memory dir
/// only under the config home; `None` without a project.
fn project_key(env: &Env, roots: &Roots, warnings: &mut Vec<String>) -> Keyed {
    let named = roots
        .project
        .as_ref()
        .map_or(NamedKey::Unset, |_| NamedKey::from_env(env));
    warnings.extend(named.warning());
    let memory_named = named.name().filter(|_| roots.memory_base == roots.config_home);
    if named.name().is_some() && memory_named.is_none() {
        warnings.push(format!(
            "{} keys only the transcripts dir here: under CLAUDE_CODE_REMOTE_MEMORY_DIR the memory dir keeps the path key",
            named::VAR
        ));
    }
    let key = roots.project.as_ref().map(|p| match memory_named {
        Some(n) => sanitize::named(n),
        None => sanitize::sanitize(&p.canonical_root),
    });
    let memory_named = memory_named.is_some();
    Keyed {
        named,
        memory_named,
        key,
    }
}

/// The global config file that records workspace trust (SPEC §2.2.3).
fn global_config(env: &Env, roots: &Roots) -> Option<String> {
    let set = env.get_os("CLAUDE_CONFIG_DIR").is_some();
    roots
        .config_home
        .as_deref()
        .and_then(|c| trust::config_file(set, c, roots.home.as_deref()))
}

/// The memory dir commands operate in: `dir`, or with `--team` its team dir, in
/// the team store's mount when `CLAUDE_MEMORY_STORES` names one (SPEC §2.13).
fn memory_dir(req: &Request, env: &Env, dir: PathBuf, warnings: &mut Vec<String>) -> Result<MemoryDir, Error> {
    let scope = if req.team { Scope::Team } else { Scope::Main };
    let stores = stores::Stores::from_env(env);
    // An invalid store list (SPEC §2.13): Claude Code syncs nothing but is in recall mode.
    warnings.extend(stores.warning());
    let mount = team_mount(&stores, &dir, req.team)?;
    Ok(MemoryDir::with_mount(dir, scope, mount).with_team_store(stores.has_team()))
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

impl<'a> Lookup<'a> {
    fn new(env: &'a Env, roots: &'a Roots, global_config: Option<&'a str>, key: Option<&'a sanitize::Key>) -> Self {
        Lookup {
            env,
            home: roots.home.as_deref(),
            global_config,
            project: roots.project.as_ref(),
            memory_base: roots.memory_base.as_deref(),
            key,
        }
    }

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
fn transcripts_dir(roots: &Roots, named: &NamedKey, warnings: &mut Vec<String>) -> Option<String> {
    let (p, c) = (roots.project.as_ref()?, roots.config_home.as_deref()?);
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

/// The settings sources (SPEC §2.2.3) in the order they are read: policy, flag
/// (not visible), local, user, project.
fn load_settings(env: &Env, roots: &Roots) -> Vec<Settings> {
    let (config_home, project, home) = (
        roots.config_home.as_deref(),
        roots.project.as_ref(),
        roots.home.as_deref(),
    );
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

    fn bare_env(vars: &[(&str, &str)]) -> Env {
        Env {
            vars: vars.iter().map(|(k, v)| (k.to_string(), OsString::from(v))).collect(),
            cwd: PathBuf::from("/work"),
            policy_file: PathBuf::from("/nonexistent/managed-settings.json"),
            account_home: None,
        }
    }

    fn roots(config_home: &str, memory_base: &str) -> Roots {
        Roots {
            project: Some(Project {
                root: "/home/a/app".into(),
                realpath_ok: true,
                git_root: None,
                canonical_root: "/home/a/app".into(),
                reason: git::Reason::None,
            }),
            home: Some("/home/a".into()),
            config_home: Some(config_home.into()),
            memory_base: Some(memory_base.into()),
        }
    }

    #[test]
    fn explicit_dir_prefers_the_flag_and_refuses_it_empty() {
        let env = bare_env(&[("MEMCTL_DIR", "/m")]);
        let flag = |d: &str| Request {
            dir: Some(OsString::from(d)),
            ..Request::default()
        };
        assert!(matches!(
            explicit_dir(&Request::default(), &env),
            Ok(Some((_, DirSource::EnvMemctlDir)))
        ));
        assert!(matches!(
            explicit_dir(&flag("/d"), &env),
            Ok(Some((_, DirSource::DirFlag)))
        ));
        assert!(explicit_dir(&flag(""), &env).is_err());
        assert!(matches!(
            explicit_dir(&Request::default(), &bare_env(&[("MEMCTL_DIR", "")])),
            Ok(None)
        ));
    }

    #[test]
    fn project_key_takes_the_name_only_under_the_config_home() {
        let env = bare_env(&[("CLAUDE_CONFIG_DIR", "/cfg"), ("CLAUDE_CODE_PROJECT_DIR_NAME", "proj")]);
        let mut warnings = Vec::new();
        let keyed = project_key(&env, &roots("/cfg", "/cfg"), &mut warnings);
        assert_eq!(keyed.key.as_ref().map(|k| k.key.as_str()), Some("proj"));
        assert_eq!(keyed.source(), Some(KeySource::Named));
        assert!(warnings.is_empty());
        let keyed = project_key(&env, &roots("/cfg", "/remote"), &mut warnings);
        assert_eq!(keyed.key.as_ref().map(|k| k.key.as_str()), Some("-home-a-app"));
        assert_eq!(keyed.source(), Some(KeySource::Sanitized));
        assert!(warnings[0].contains("keys only the transcripts dir"), "{warnings:?}");
    }

    #[test]
    fn memory_dir_works_in_the_one_team_store_under_team() {
        let stores = r#"[{"path": "/s", "mount": "eng"}]"#;
        let env = bare_env(&[("CLAUDE_MEMORY_STORES", stores)]);
        let team = Request {
            team: true,
            ..Request::default()
        };
        let mut warnings = Vec::new();
        let m = memory_dir(&team, &env, PathBuf::from("/m"), &mut warnings).unwrap();
        assert_eq!(with_sep(m.dir()), "/m/team/eng/");
        let two = r#"[{"path": "/s", "mount": "a"}, {"path": "/t", "mount": "b"}]"#;
        let env = bare_env(&[("CLAUDE_MEMORY_STORES", two)]);
        let err = memory_dir(&team, &env, PathBuf::from("/m"), &mut warnings).unwrap_err();
        assert!(err.message.contains("--team is ambiguous"), "{}", err.message);
        assert!(memory_dir(&Request::default(), &env, PathBuf::from("/m"), &mut warnings).is_ok());
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
