//! Find every memory dir of this machine and measure each (SPEC §9). The driver
//! [`discover`] runs the steps in order: the keyed dirs under the config home,
//! project paths from transcripts, the dirs settings move projects to, the dirs
//! settings name, the history stores; then one measured row per dir with its live
//! identity and flags, the agent memory dirs and the configured stores.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use super::{
    Discovery, IndexStats, LintCounts, Live, PathSource, Row, agents, flags, real, stores, strip_sep, transcript,
};
use crate::context::Context;
use crate::error::{Error, Kind};
use crate::memdir::{MemoryDir, Scope};
use crate::paths::{self, DirSource, Request, StepStatus};
use crate::text::IsoMs;

/// The dirs found so far, by memory dir.
type Found = BTreeMap<PathBuf, Candidate>;
/// The sessions of each transcripts dir that has any.
type Sessions = HashMap<PathBuf, Vec<crate::sessions::Session>>;
/// The `cwd`s of each transcripts dir's sessions.
type Cwds = HashMap<PathBuf, Vec<String>>;
/// What resolution says for each project path (`None`: it does not exist).
type Lives = HashMap<PathBuf, Option<Live>>;

/// Find every memory dir of this machine and measure each. `include_empty` keeps
/// dirs with no memories (`--all`); flags are decided over all of them either way.
pub fn discover(ctx: &Context, include_empty: bool) -> Result<Discovery, Error> {
    let mut warnings = Vec::new();
    let (config_home, memory_base) = bases(ctx, &mut warnings)?;
    // Resolution per project, as Claude Code would run there: `--dir`/`MEMCTL_DIR`
    // name one dir and have no say in where other projects keep theirs.
    let mut env = ctx.env.clone();
    env.vars.remove("MEMCTL_DIR");
    let mut found = Found::new();
    let mut sessions = Sessions::new();
    keyed_dirs(&config_home, &memory_base, &mut found, &mut sessions, &mut warnings);
    let cwds: Cwds = sessions
        .iter()
        .map(|(dir, list)| (dir.clone(), transcript::cwds(dir, list)))
        .collect();
    let mut live = transcript_projects(&env, &mut found, &cwds);
    moved_by_settings(&mut found, &live);
    for dir in setting_dirs(&env, &config_home) {
        found.entry(dir).or_default();
    }
    let recorded = history_stores(ctx, &mut found);
    resolve_the_rest(&env, &found, &mut live);
    let mut rows = measure_all(found, &sessions, &cwds, &recorded.identities, ctx.now_ms());
    for row in &mut rows {
        live_identity(&env, row, &live, &recorded.root_commits);
    }
    decide_flags(&env, &config_home, &memory_base, &mut rows, &live);
    let agent_dirs = agent_dirs(&env, &memory_base, &rows, &live);
    let stores = stores_doc(&env, &config_home, &mut warnings);
    keep_and_sort(&mut rows, include_empty);
    Ok(Discovery {
        config_home,
        rows,
        agent_dirs,
        stores,
        warnings,
    })
}

/// A memory dir found, before it is measured.
#[derive(Default)]
struct Candidate {
    key: Option<String>,
    transcripts: Option<PathBuf>,
    project: Option<(PathBuf, PathSource)>,
}

/// The config home (keys and transcripts) and the memory base (where
/// `CLAUDE_CODE_REMOTE_MEMORY_DIR` moves memory dirs, else the config home).
fn bases(ctx: &Context, warnings: &mut Vec<String>) -> Result<(PathBuf, PathBuf), Error> {
    let (config_home, memory_base) = paths::bases(&ctx.env, warnings);
    let config_home = config_home.map(PathBuf::from).ok_or_else(|| {
        Error::new(Kind::Config, "cannot determine the home directory").hint("set HOME or CLAUDE_CONFIG_DIR")
    })?;
    let memory_base = memory_base.map_or_else(|| config_home.clone(), PathBuf::from);
    Ok((config_home, memory_base))
}

/// Project paths from transcripts (each dir's first `cwd`), and what resolution
/// says for each.
fn transcript_projects(env: &paths::Env, found: &mut Found, cwds: &Cwds) -> Lives {
    for c in found.values_mut() {
        let first = c.transcripts.as_ref().and_then(|t| cwds.get(t)).and_then(|v| v.first());
        if let Some(p) = first {
            c.project = Some((PathBuf::from(p), PathSource::Transcript));
        }
    }
    let mut live = Lives::new();
    for (p, _) in found.values().filter_map(|c| c.project.as_ref()) {
        live.entry(p.clone()).or_insert_with(|| resolve_live(env, p));
    }
    live
}

/// Dirs that settings move projects to; their sessions are the project's. In
/// path order, so that a dir many projects share (a user setting) gets the same
/// project path on every run.
fn moved_by_settings(found: &mut Found, live: &Lives) {
    let transcripts_of: HashMap<PathBuf, PathBuf> = found
        .values()
        .filter_map(|c| Some((c.project.as_ref()?.0.clone(), c.transcripts.clone()?)))
        .collect();
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
}

/// What memctl's history stores record, by the real path of their memory dir.
#[derive(Default)]
struct Recorded {
    identities: HashMap<PathBuf, String>,
    root_commits: HashMap<PathBuf, String>,
}

/// History stores whose memory dir still exists, each a row (with the project
/// path the store recorded when nothing else gave one); and what every store
/// records.
fn history_stores(ctx: &Context, found: &mut Found) -> Recorded {
    let stores = stores::read_all(&ctx.history);
    let mut recorded = Recorded::default();
    let reals: HashMap<PathBuf, PathBuf> = found.keys().map(|k| (real(k), k.clone())).collect();
    for s in &stores {
        let real = real(&s.memory_dir);
        if let Some(id) = &s.identity {
            recorded.identities.insert(real.clone(), id.clone());
        }
        if let Some(sha) = &s.root_commit {
            recorded.root_commits.insert(real.clone(), sha.clone());
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
    recorded
}

/// Resolve the project paths that settings and history added.
fn resolve_the_rest(env: &paths::Env, found: &Found, live: &mut Lives) {
    for c in found.values() {
        if let Some((p, _)) = &c.project
            && !live.contains_key(p)
        {
            live.insert(p.clone(), resolve_live(env, p));
        }
    }
}

/// One row per dir found, measured.
fn measure_all(
    found: Found,
    sessions: &Sessions,
    cwds: &Cwds,
    identities: &HashMap<PathBuf, String>,
    now_ms: f64,
) -> Vec<Row> {
    found
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
        .collect()
}

/// The flags, decided over all rows together (SPEC §9).
fn decide_flags(env: &paths::Env, config_home: &Path, memory_base: &Path, rows: &mut [Row], live: &Lives) {
    let fallback = paths::enabled_chain(env, &base_settings(env, config_home), None, None);
    let base_dir = base_memory_dir(env, config_home);
    flags::decide(rows, live, &fallback, base_dir.as_ref(), config_home, memory_base);
}

/// Agent memory (SPEC §2.14) of every project whose path is known (a guess is not).
fn agent_dirs(env: &paths::Env, memory_base: &Path, rows: &[Row], live: &Lives) -> Vec<agents::AgentDir> {
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
    agents::all_agent_dirs(memory_base, &roots, env.get("CLAUDE_CODE_REMOTE_MEMORY_DIR").as_deref())
}

/// `CLAUDE_MEMORY_STORES` and recall mode (SPEC §2.13), with the stores' warning.
fn stores_doc(env: &paths::Env, config_home: &Path, warnings: &mut Vec<String>) -> agents::StoresDoc {
    let configured = paths::stores::Stores::from_env(env);
    warnings.extend(configured.warning());
    let global = paths::trust::config_file(
        env.get_os("CLAUDE_CONFIG_DIR").is_some(),
        &config_home.to_string_lossy(),
        env.home().as_deref(),
    );
    let moth = paths::flags::lookup(env, global.as_deref(), paths::flags::MOTH_COPSE);
    agents::StoresDoc::of(&configured, paths::stores::recall_mode(&configured, &moth))
}

/// Drop the dirs without memories unless `include_empty`; newest change first,
/// then by memory dir.
fn keep_and_sort(rows: &mut Vec<Row>, include_empty: bool) {
    if !include_empty {
        rows.retain(|r| r.memories > 0);
    }
    rows.sort_by(|a, b| {
        b.last_change_ms
            .partial_cmp(&a.last_change_ms)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| a.memory_dir.cmp(&b.memory_dir))
    });
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
    let index = index_stats(&index_path);
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
    let sessions_since = sessions.map(|list| sessions_after(list, last_ms));
    let (project_path, source, project_exists) = project_of(c.project, c.key.as_deref());
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
        cwds: distinct(cwds),
        last_change_ms,
    }
}

/// The index's lines and units against Claude Code's caps (zero when unreadable).
fn index_stats(path: &Path) -> IndexStats {
    match crate::index::read_index(path) {
        Ok(bytes) => {
            let l = crate::index::load::load(&String::from_utf8_lossy(&bytes));
            IndexStats {
                lines: l.line_count,
                units: l.unit_count,
                truncated: l.truncated(),
            }
        }
        Err(_) => IndexStats::default(),
    }
}

/// Sessions (with an id) touched after the last consolidation (`last_ms`).
fn sessions_after(list: &[crate::sessions::Session], last_ms: Option<f64>) -> usize {
    list.iter()
        .filter(|s| s.id.is_some() && s.mtime_ms.is_some_and(|m| m as f64 > last_ms.unwrap_or(0.0)))
        .count()
}

/// A row's project path, where it came from and whether it exists: the one
/// found, else a guess from the key.
fn project_of(project: Option<(PathBuf, PathSource)>, key: Option<&str>) -> (Option<PathBuf>, PathSource, bool) {
    match project {
        Some((p, s)) => {
            let exists = p.is_dir();
            (Some(p), s, exists)
        }
        None => match key {
            Some(k) => {
                let (p, exists) = transcript::guess(k);
                (Some(p), PathSource::Guess, exists)
            }
            None => (None, PathSource::Guess, false),
        },
    }
}

/// The `cwd`s without repeats, in their first order.
fn distinct(cwds: Vec<String>) -> Vec<String> {
    let mut distinct = Vec::new();
    for cwd in cwds {
        if !distinct.contains(&cwd) {
            distinct.push(cwd);
        }
    }
    distinct
}

fn mtime_ms(meta: &std::fs::Metadata) -> f64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_keep_the_newest_change_first_and_drop_empty_dirs_unless_asked() {
        let mut rows = vec![
            Row::for_test(Some("-old"), "/m/old", 1),
            Row::for_test(Some("-empty"), "/m/empty", 0),
            Row::for_test(Some("-new"), "/m/new", 3),
            Row::for_test(None, "/m/a-none", 2),
        ];
        rows[0].last_change_ms = Some(1.0);
        rows[2].last_change_ms = Some(5.0);
        let mut all = rows.clone();
        keep_and_sort(&mut rows, false);
        let dirs: Vec<&str> = rows.iter().map(|r| r.memory_dir.to_str().unwrap()).collect();
        assert_eq!(dirs, ["/m/new", "/m/old", "/m/a-none"]);
        keep_and_sort(&mut all, true);
        assert_eq!(all.len(), 4);
        assert_eq!(all[3].memory_dir, PathBuf::from("/m/empty"));
    }

    #[test]
    fn cwds_keep_their_first_order_without_repeats() {
        let v = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(distinct(v(&["/b", "/a", "/b", "/c", "/a"])), v(&["/b", "/a", "/c"]));
    }

    #[test]
    fn a_dir_outside_the_keys_has_no_project_path() {
        assert_eq!(project_of(None, None), (None, PathSource::Guess, false));
    }
}
