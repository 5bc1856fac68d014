//! Every memory dir of this machine (SPEC §9): where they are found, what each row
//! shows, and the flags that say something is off. `discover` finds the dirs and
//! measures each (scan window, index, lock, one transcript line); `transcript`
//! reads project paths; `stores` reads the history stores' config; `flags` decides
//! the flags from all rows together.

pub mod agents;
pub mod each;
mod flags;
pub mod sources;
mod stores;
pub mod transcript;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::context::Context;
use crate::error::{Error, Kind};
use crate::memdir::{MemoryDir, Scope};
use crate::paths::{self, DirSource, Request, StepStatus};
use crate::text::IsoMs;

pub use flags::{Evidence, Flag, FlagDoc};

/// Where a row's project path came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PathSource {
    /// The `cwd` of a transcript line.
    Transcript,
    /// Decoded from the key (lossy); shown with `?`.
    Guess,
    /// The project whose settings name this dir (`autoMemoryDirectory`).
    Settings,
    /// The project root a history store recorded.
    History,
}

/// The index against Claude Code's caps (SPEC §2.7).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct IndexStats {
    pub lines: usize,
    pub units: usize,
    pub truncated: bool,
}

/// Findings of the index rules and the frontmatter windows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LintCounts {
    pub errors: usize,
    pub warnings: usize,
}

/// One memory dir of this machine (an entry of `projects` in `projects --json`).
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// The key under `<base>/projects/`; `None` for a dir elsewhere.
    pub key: Option<String>,
    #[serde(serialize_with = "dir_str")]
    pub memory_dir: PathBuf,
    #[serde(serialize_with = "opt_path_str")]
    pub project_path: Option<PathBuf>,
    pub project_path_source: PathSource,
    /// The identity (SPEC §11.1): the live project's, derived from its repository
    /// now, else the one the history store recorded for this dir.
    pub identity: Option<String>,
    pub memories: usize,
    pub size_bytes: u64,
    pub index: IndexStats,
    pub lint: LintCounts,
    pub last_change: Option<IsoMs>,
    pub last_consolidated_at: Option<IsoMs>,
    /// Sessions touched since the last consolidation; `None` without transcripts.
    pub sessions_since: Option<usize>,
    pub flags: Vec<FlagDoc>,
    /// Whether the project path exists (for a guess: whether it names an existing dir).
    #[serde(skip)]
    pub project_exists: bool,
    /// The transcripts dir that gave the project path.
    #[serde(skip)]
    pub transcripts_dir: Option<PathBuf>,
    /// The distinct `cwd`s of the newest transcripts (for `shared-key`).
    #[serde(skip)]
    cwds: Vec<String>,
    #[serde(skip)]
    last_change_ms: Option<f64>,
}

/// What `discover` found.
#[derive(Clone, Debug)]
pub struct Discovery {
    pub config_home: PathBuf,
    /// Sorted by last change, newest first.
    pub rows: Vec<Row>,
    /// (v3) The agent memory dirs that exist (SPEC §2.14).
    pub agent_dirs: Vec<agents::AgentDir>,
    /// (v3) `CLAUDE_MEMORY_STORES` and recall mode (SPEC §2.13).
    pub stores: agents::StoresDoc,
    pub warnings: Vec<String>,
}

impl Row {
    /// The request that runs a one-dir command on this row: the memory dir, and the
    /// project when its path came from a transcript, settings or history and exists.
    pub fn request(&self) -> Request {
        let project = self
            .project_path
            .clone()
            .filter(|_| self.project_path_source != PathSource::Guess && self.project_exists);
        Request {
            dir: Some(self.memory_dir.clone().into_os_string()),
            project,
            team: false,
        }
    }

    /// The key, else the memory dir: how a row is named in text and in `related`.
    pub fn name(&self) -> String {
        self.key.clone().unwrap_or_else(|| paths::with_sep(&self.memory_dir))
    }

    /// The identity (SPEC §11.1): the one history recorded, else the live
    /// project's, computed from its path.
    pub fn identity_now(&self) -> Option<String> {
        self.identity.clone().or_else(|| {
            let p = self.project_path.as_ref().filter(|_| self.project_exists)?;
            let root = std::fs::canonicalize(p).ok()?;
            crate::identity::of_project(&root, None).map(|i| i.id)
        })
    }

    pub fn has(&self, flag: Flag) -> bool {
        self.flags.iter().any(|f| f.flag == flag)
    }
}

fn dir_str<S: serde::Serializer>(p: &Path, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&paths::with_sep(p))
}

fn opt_path_str<S: serde::Serializer>(p: &Option<PathBuf>, s: S) -> Result<S::Ok, S::Error> {
    match p {
        Some(p) => s.serialize_str(&p.to_string_lossy()),
        None => s.serialize_none(),
    }
}

/// What resolution says about a live project path.
#[derive(Clone, Debug)]
pub(crate) struct Live {
    pub canonical_root: String,
    /// The memory dir Claude Code uses for it.
    pub memdir: PathBuf,
    pub source: DirSource,
    /// The setting that moved it: (file, value).
    pub setting: Option<(String, String)>,
    pub enabled: bool,
    pub lever: String,
}

/// A memory dir found, before it is measured.
#[derive(Default)]
struct Candidate {
    key: Option<String>,
    transcripts: Option<PathBuf>,
    project: Option<(PathBuf, PathSource)>,
}

/// Find every memory dir of this machine and measure each. `include_empty` keeps
/// dirs with no memories (`--all`); flags are decided over all of them either way.
pub fn discover(ctx: &Context, include_empty: bool) -> Result<Discovery, Error> {
    let mut warnings = Vec::new();
    let (config_home, memory_base) = paths::bases(&ctx.env, &mut warnings);
    let config_home = config_home.map(PathBuf::from).ok_or_else(|| {
        Error::new(Kind::Config, "cannot determine the home directory").hint("set HOME or CLAUDE_CONFIG_DIR")
    })?;
    let memory_base = memory_base.map_or_else(|| config_home.clone(), PathBuf::from);
    // Resolution per project, as Claude Code would run there: `--dir`/`MEMCTL_DIR`
    // name one dir and have no say in where other projects keep theirs.
    let mut env = ctx.env.clone();
    env.vars.remove("MEMCTL_DIR");
    let now_ms = ctx.now_ms();

    let mut found: BTreeMap<PathBuf, Candidate> = BTreeMap::new();
    let mut sessions: HashMap<PathBuf, Vec<crate::sessions::Session>> = HashMap::new();
    keyed_dirs(&config_home, &memory_base, &mut found, &mut sessions, &mut warnings);

    // Project paths from transcripts, and what resolution says for each.
    let mut cwds: HashMap<PathBuf, Vec<String>> = HashMap::new();
    for (dir, list) in &sessions {
        cwds.insert(dir.clone(), transcript::cwds(dir, list));
    }
    let mut live: HashMap<PathBuf, Option<Live>> = HashMap::new();
    for c in found.values_mut() {
        let first = c.transcripts.as_ref().and_then(|t| cwds.get(t)).and_then(|v| v.first());
        if let Some(p) = first {
            c.project = Some((PathBuf::from(p), PathSource::Transcript));
        }
    }
    let projects: Vec<PathBuf> = found
        .values()
        .filter_map(|c| c.project.as_ref().map(|(p, _)| p.clone()))
        .collect();
    for p in projects {
        live.entry(p.clone()).or_insert_with(|| resolve_live(&env, &p));
    }
    // Dirs that settings move projects to; their sessions are the project's.
    let transcripts_of: HashMap<PathBuf, PathBuf> = found
        .values()
        .filter_map(|c| Some((c.project.as_ref()?.0.clone(), c.transcripts.clone()?)))
        .collect();
    // In path order, so that a dir many projects share (a user setting) gets the
    // same project path on every run.
    let mut sorted: Vec<(&PathBuf, &Option<Live>)> = live.iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(b.0));
    for (p, l) in sorted {
        if let Some(l) = l
            && l.source != DirSource::Default
            && l.memdir.is_dir()
        {
            let c = found.entry(strip_sep(&l.memdir)).or_default();
            if c.project.is_none() {
                c.project = Some((p.clone(), PathSource::Settings));
                c.transcripts = c.transcripts.take().or_else(|| transcripts_of.get(p).cloned());
            }
        }
    }
    for dir in setting_dirs(&env, &config_home) {
        found.entry(dir).or_default();
    }
    // History stores whose memory dir still exists.
    let stores = stores::read_all(&ctx.history);
    let mut identities: HashMap<PathBuf, String> = HashMap::new();
    let mut root_commits: HashMap<PathBuf, String> = HashMap::new();
    let reals: HashMap<PathBuf, PathBuf> = found.keys().map(|k| (real(k), k.clone())).collect();
    for s in &stores {
        let real = real(&s.memory_dir);
        if let Some(id) = &s.identity {
            identities.insert(real.clone(), id.clone());
        }
        if let Some(sha) = &s.root_commit {
            root_commits.insert(real.clone(), sha.clone());
        }
        if !s.memory_dir.is_dir() {
            continue;
        }
        let at = reals.get(&real).cloned().unwrap_or_else(|| strip_sep(&s.memory_dir));
        let c = found.entry(at).or_default();
        if c.project.is_none() {
            c.project = s.project_root.clone().map(|p| (p, PathSource::History));
        }
    }
    for c in found.values() {
        if let Some((p, _)) = &c.project
            && !live.contains_key(p)
        {
            live.insert(p.clone(), resolve_live(&env, p));
        }
    }

    let mut rows: Vec<Row> = found
        .into_iter()
        .map(|(dir, c)| {
            let list = c.transcripts.as_ref().and_then(|t| sessions.get(t));
            let row_cwds = c
                .transcripts
                .as_ref()
                .and_then(|t| cwds.get(t))
                .cloned()
                .unwrap_or_default();
            let identity = identities.get(&real(&dir)).cloned();
            measure(dir, c, list.map(Vec::as_slice), row_cwds, identity, now_ms)
        })
        .collect();
    for row in &mut rows {
        live_identity(&env, row, &live, &root_commits);
    }
    let fallback = paths::enabled_chain(&env, &base_settings(&env, &config_home), None, None);
    let base_dir = base_memory_dir(&env, &config_home);
    flags::decide(
        &mut rows,
        &live,
        &fallback,
        base_dir.as_ref(),
        &config_home,
        &memory_base,
    );
    // Agent memory of every project whose path is known (a guess is not).
    let mut roots: Vec<(PathBuf, Option<PathBuf>)> = rows
        .iter()
        .filter(|r| r.project_exists && r.project_path_source != PathSource::Guess)
        .filter_map(|r| {
            let p = r.project_path.clone()?;
            let canonical = live
                .get(&p)
                .and_then(|l| l.as_ref())
                .map(|l| PathBuf::from(&l.canonical_root));
            Some((p, canonical))
        })
        .collect();
    roots.sort();
    roots.dedup();
    let agent_dirs = agents::all_agent_dirs(
        &memory_base,
        &roots,
        env.get("CLAUDE_CODE_REMOTE_MEMORY_DIR").as_deref(),
    );
    let configured = paths::stores::Stores::from_env(&env);
    warnings.extend(configured.warning());
    let global = paths::trust::config_file(
        env.get_os("CLAUDE_CONFIG_DIR").is_some(),
        &config_home.to_string_lossy(),
        env.home().as_deref(),
    );
    let moth = paths::flags::lookup(&env, global.as_deref(), paths::flags::MOTH_COPSE);
    let stores = agents::StoresDoc::of(&configured, paths::stores::recall_mode(&configured, &moth));
    if !include_empty {
        rows.retain(|r| r.memories > 0);
    }
    rows.sort_by(|a, b| {
        b.last_change_ms
            .partial_cmp(&a.last_change_ms)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| a.memory_dir.cmp(&b.memory_dir))
    });
    Ok(Discovery {
        config_home,
        rows,
        agent_dirs,
        stores,
        warnings,
    })
}

/// `<config home>/projects/<key>/` with a `memory/` dir or transcripts, and
/// `<memory base>/projects/<key>/memory/` when `CLAUDE_CODE_REMOTE_MEMORY_DIR` moves
/// the base. Transcripts stay under the config home (SPEC §2.10).
fn keyed_dirs(
    config_home: &Path,
    memory_base: &Path,
    found: &mut BTreeMap<PathBuf, Candidate>,
    sessions: &mut HashMap<PathBuf, Vec<crate::sessions::Session>>,
    warnings: &mut Vec<String>,
) {
    let mut bases = vec![config_home.to_path_buf()];
    if memory_base != config_home {
        bases.push(memory_base.to_path_buf());
    }
    for base in bases {
        let projects = base.join("projects");
        let entries = match std::fs::read_dir(&projects) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => {
                warnings.push(format!(
                    "{} cannot be listed ({})",
                    projects.display(),
                    crate::error::io_words(&e)
                ));
                continue;
            }
        };
        for e in entries.filter_map(Result::ok) {
            let Ok(key) = e.file_name().into_string() else {
                warnings.push(format!("{}: the key is not valid UTF-8; skipped", e.path().display()));
                continue;
            };
            if !e.path().is_dir() {
                continue;
            }
            let transcripts = config_home.join("projects").join(&key);
            let list = sessions
                .entry(transcripts.clone())
                .or_insert_with(|| crate::sessions::list(&transcripts, 0.0, None));
            let memory = e.path().join("memory");
            let has_transcripts = base == config_home && !list.is_empty();
            if memory.is_dir() || has_transcripts {
                let c = found.entry(memory).or_default();
                c.key = Some(key);
                c.transcripts = Some(transcripts);
            }
        }
    }
    sessions.retain(|_, v| !v.is_empty());
}

/// Dirs named by `autoMemoryDirectory` in the policy and user settings (the project
/// and local settings are read per project by resolution).
fn setting_dirs(env: &paths::Env, config_home: &Path) -> Vec<PathBuf> {
    let home = env.home();
    base_settings(env, config_home)
        .iter()
        .filter_map(|s| s.get("autoMemoryDirectory"))
        .filter_map(|(v, _)| paths::validate::validate_memory_path(v.as_str(), true, home.as_deref()).ok())
        .map(|d| strip_sep(Path::new(&d)))
        .filter(|d| d.is_dir())
        .collect()
}

/// The memory dir that policy or user settings give every project (SPEC §2.2.1,
/// step 2 in precedence): its (dir, file, value). `None` when neither sets one, or
/// when the deciding value is invalid (Claude Code then uses the default path).
fn base_memory_dir(env: &paths::Env, config_home: &Path) -> Option<(PathBuf, String, String)> {
    let home = env.home();
    let (v, file) = base_settings(env, config_home)
        .iter()
        .find_map(|s| s.get("autoMemoryDirectory").map(|(v, f)| (v.clone(), f.to_string())))?;
    let raw = v.as_str()?;
    let dir = paths::validate::validate_memory_path(Some(raw), true, home.as_deref()).ok()?;
    Some((strip_sep(Path::new(&dir)), file, raw.to_string()))
}

/// The settings that apply to every project: policy and user.
fn base_settings(env: &paths::Env, config_home: &Path) -> Vec<paths::settings::Settings> {
    use paths::settings::{self, Source};
    vec![
        settings::load_policy(&env.policy_file),
        settings::load(Source::User, &config_home.join("settings.json")),
    ]
}

/// The identity (SPEC §11.1) of a row whose project path is a live directory,
/// derived from the repository's config now (the remote first): a recorded identity
/// goes stale when `origin` is added or changed, and a repository memctl never wrote
/// to has none recorded. The recorded one stays when the live project has none.
/// The root commit cached in the store is used (checked), never written here.
fn live_identity(
    env: &paths::Env,
    row: &mut Row,
    live: &HashMap<PathBuf, Option<Live>>,
    root_commits: &HashMap<PathBuf, String>,
) {
    let Some(p) = row.project_path.as_ref().filter(|_| row.project_exists) else {
        return;
    };
    let root = match live.get(p) {
        Some(l) => l.as_ref().map(|l| l.canonical_root.clone()),
        None => resolve_live(env, p).map(|l| l.canonical_root),
    };
    let Some(root) = root.filter(|r| !r.is_empty()) else {
        return;
    };
    let cached = root_commits.get(&real(&row.memory_dir)).map(String::as_str);
    if let Some(found) = crate::identity::resolve(Path::new(&root), cached) {
        row.identity = Some(found.identity.id);
    }
}

/// Resolve a project path as Claude Code would for a session there; `None` when
/// the path does not exist (or does not resolve).
fn resolve_live(env: &paths::Env, project: &Path) -> Option<Live> {
    if !project.is_dir() {
        return None;
    }
    let req = Request {
        dir: None,
        project: Some(project.to_path_buf()),
        team: false,
    };
    let res = paths::resolve(&req, env).ok()?;
    let setting = res
        .steps
        .iter()
        .find(|s| s.status == StepStatus::Used && s.step != paths::StepName::Default)
        .map(|s| (s.file.clone().unwrap_or_default(), s.value.clone().unwrap_or_default()));
    Some(Live {
        canonical_root: res
            .project
            .as_ref()
            .map(|p| p.canonical_root.clone())
            .unwrap_or_default(),
        memdir: strip_sep(res.memdir.main()),
        source: res.source,
        setting,
        enabled: res.enabled.value,
        lever: res.enabled.lever.clone(),
    })
}

/// Measure one dir: its memories (window only), index, lint counts, lock and sessions.
fn measure(
    dir: PathBuf,
    c: Candidate,
    sessions: Option<&[crate::sessions::Session]>,
    cwds: Vec<String>,
    identity: Option<String>,
    now_ms: f64,
) -> Row {
    let memdir = MemoryDir::open(&dir, Scope::Main);
    let lint = crate::lint::window_lint(&memdir, now_ms);
    let (errors, warnings, _) = crate::lint::counts(&lint.findings);
    let memories = lint.scan.memories.len();
    let size_bytes = lint.scan.memories.iter().map(|m| m.size).sum();
    let index_path = memdir.index_path();
    let index = match crate::index::read_index(&index_path) {
        Ok(bytes) => {
            let l = crate::index::load::load(&String::from_utf8_lossy(&bytes));
            IndexStats {
                lines: l.line_count,
                units: l.unit_count,
                truncated: l.truncated(),
            }
        }
        Err(_) => IndexStats::default(),
    };
    let index_ms = std::fs::metadata(&index_path).ok().map(|m| mtime_ms(&m));
    let last_change_ms = lint
        .scan
        .memories
        .iter()
        .map(|m| m.mtime_ms)
        .chain(index_ms)
        .reduce(f64::max);
    let lock = crate::lock::inspect(&dir, now_ms);
    let last_ms = lock.mtime_ms.filter(|_| lock.exists);
    let sessions_since = sessions.map(|list| {
        list.iter()
            .filter(|s| s.id.is_some() && s.mtime_ms.is_some_and(|m| m as f64 > last_ms.unwrap_or(0.0)))
            .count()
    });
    let (project_path, source, project_exists) = match c.project {
        Some((p, s)) => {
            let exists = p.is_dir();
            (Some(p), s, exists)
        }
        None => match &c.key {
            Some(k) => {
                let (p, exists) = transcript::guess(k);
                (Some(p), PathSource::Guess, exists)
            }
            None => (None, PathSource::Guess, false),
        },
    };
    let mut distinct = Vec::new();
    for cwd in cwds {
        if !distinct.contains(&cwd) {
            distinct.push(cwd);
        }
    }
    Row {
        key: c.key,
        memory_dir: dir,
        project_path,
        project_path_source: source,
        identity,
        memories,
        size_bytes,
        index,
        lint: LintCounts { errors, warnings },
        last_change: last_change_ms.map(IsoMs),
        last_consolidated_at: last_ms.map(IsoMs),
        sessions_since,
        flags: Vec::new(),
        project_exists,
        transcripts_dir: c.transcripts,
        cwds: distinct,
        last_change_ms,
    }
}

fn mtime_ms(meta: &std::fs::Metadata) -> f64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
}

/// A path without its trailing separator (resolution gives dirs with one).
fn strip_sep(p: &Path) -> PathBuf {
    let s = p.to_string_lossy();
    let t = s.trim_end_matches('/');
    PathBuf::from(if t.is_empty() { "/" } else { t })
}

/// The real path when it resolves, else the path as given.
fn real(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| strip_sep(p))
}
