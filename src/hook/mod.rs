//! `memctl hook` (SPEC §7): the command Claude Code runs on `PreToolUse`,
//! `PostToolUse`, `Stop`, `SubagentStop`, `SessionStart` and `SessionEnd` with one
//! JSON object on stdin. The gate ([`gate`]) denies a write that would lose
//! memory before it lands; after a write into the memory dir it reports what the
//! write broke that the next step of a save will not fix ([`react`]) and adds the
//! file to the turn list ([`turn`]), which the end of the turn checks once
//! ([`stop`]); all in the output shapes and within the size budget of §7.2
//! ([`render`]). Anything else (another event or tool, a path outside the memory
//! dir) is silent.

pub mod baseline;
pub mod gate;
pub mod install;
pub mod payload;
pub mod plugin;
pub mod react;
pub mod render;
pub mod session;
pub mod stop;
pub mod turn;

use std::path::{Component, Path, PathBuf};

use chrono::{DateTime, Utc};

use crate::error::Error;
use crate::memdir::{MemoryDir, Scope};
use crate::paths::{self, Env, Request, Resolution};
use payload::Payload;
use render::HookOutput;

/// The tools whose writes the hook checks.
pub const TOOLS: [&str; 3] = ["Write", "Edit", "MultiEdit"];

/// What one hook call asks for, besides the payload.
pub struct Call<'a> {
    pub env: &'a Env,
    pub now: DateTime<Utc>,
    /// Whether and where history snapshots are recorded (SPEC §8).
    pub history: &'a crate::history::Settings,
}

/// React to one payload: `None` prints nothing.
pub fn run(p: &Payload, call: &Call) -> Result<Option<HookOutput>, Error> {
    match p.event() {
        "PreToolUse" => Ok(gate::pre_tool_use(p, call)),
        "PostToolUse" => post_tool_use(p, call),
        "Stop" | "SubagentStop" => stop::stop(p, call),
        "SessionStart" => {
            let res = resolve(p, call.env)?;
            // One walk of the dir for the snapshot and the session check (SPEC v3
            // §7.2: SessionStart ≤ 100 ms at 20 000 files), when both run.
            let checks = res.enabled.value && res.memdir.main().is_dir();
            let rules =
                checks.then(|| crate::scan::ScanRules::from_stores(&crate::paths::stores::Stores::from_env(call.env)));
            let mut walk = rules.as_ref().map(session::Walk::new);
            let snap = Snapshot::of(p, &res, "hook:SessionStart", call);
            let (between, walked, _) = record_snapshot_walking(&snap, walk.as_mut());
            let walked = walked.then(|| walk.map(session::Walk::finish)).flatten();
            Ok(react::session_start(&res, call.env, between, walked))
        }
        "SessionEnd" => {
            let res = resolve(p, call.env)?;
            record_snapshot(&Snapshot::of(p, &res, "hook:SessionEnd", call));
            Ok(None)
        }
        _ => Ok(None),
    }
}

fn post_tool_use(p: &Payload, call: &Call) -> Result<Option<HookOutput>, Error> {
    if !TOOLS.contains(&p.tool()) {
        return Ok(None);
    }
    let Some(file) = p.file_path() else {
        return Ok(None);
    };
    // Only `.md` files are memories: anything else is decided without resolving
    // the memory dir (the common case, on every tool call).
    if !ends_with_md(file) {
        return Ok(None);
    }
    let res = resolve(p, call.env)?;
    let base = p.cwd.get().map(PathBuf::from).unwrap_or_else(|| call.env.cwd.clone());
    let mounts: Vec<String> = paths::stores::Stores::from_env(call.env)
        .team()
        .map(|s| s.mount.clone())
        .collect();
    let Some(w) = locate(Path::new(file), &base, res.memdir.main(), &mounts) else {
        if let Some((dir, rel, why)) = locate_excluded(Path::new(file), &base, res.memdir.main(), &mounts) {
            // Not a memory file, but history keeps every `.md` file (SPEC §8).
            let mut snap = Snapshot::of(p, &res, "hook:PostToolUse", call);
            snap.file = Some(rel.clone());
            record_snapshot(&snap);
            if !res.enabled.value {
                return Ok(None);
            }
            return Ok(Some(react::excluded(&rel, &dir, why, &lexical(res.memdir.main()))));
        }
        return Ok(wrong_dir(Path::new(file), &base, &res));
    };
    turn::remember(p, call, &w);
    // No `originalFile` in the payload: the last snapshot's copy, read before
    // this call records the write (SPEC v3 §7.3 PostToolUse step 2).
    let fallback = match p.original() {
        payload::Original::Unknown => {
            let project = res.project.as_ref().map(|p| PathBuf::from(&p.canonical_root));
            baseline::last_copy(
                call.history,
                res.memdir.main(),
                project.as_deref(),
                &w.label(),
                call.now,
            )
        }
        _ => None,
    };
    let mut snap = Snapshot::of(p, &res, "hook:PostToolUse", call);
    snap.file = Some(w.rel.clone());
    snap.written = Some(w.label());
    // The store is let go after the reaction: the snapshot's cache writes,
    // on their own thread, end while the written file is checked.
    let (_, _, store) = record_snapshot_walking(&snap, None);
    let out = react::post_tool_use(&w, fallback.as_ref().unwrap_or(p.original()), call.now);
    drop(store);
    Ok(out)
}

/// A write into another memory dir under the same memory base (SPEC v3 §7.3
/// PostToolUse): context naming the dir Claude Code loads for this project and
/// how to move the memory there. The client has known bugs that write to the home
/// dir's key or a subdirectory's key; such a memory is never loaded here.
fn wrong_dir(file: &Path, base: &Path, res: &Resolution) -> Option<HookOutput> {
    if !res.enabled.value {
        return None;
    }
    let abs = lexical(&if file.is_absolute() {
        file.to_path_buf()
    } else {
        base.join(file)
    });
    let (other, rel) = other_memory_dir(&abs, res)?;
    Some(react::wrong_dir(&other, &rel, &lexical(res.memdir.main())))
}

/// The memory dir `<base>/projects/<key>/memory` that `abs` (normalised) is in,
/// for a memory base or config home of `res`, when it is not the resolved dir;
/// with the file's path inside it. Files under a dot-dir (`.trash/`, `.memctl/`)
/// are not memories.
fn other_memory_dir(abs: &Path, res: &Resolution) -> Option<(PathBuf, String)> {
    let main = lexical(res.memdir.main());
    let bases = [res.memory_base.as_deref(), res.config_home.as_deref()];
    bases
        .into_iter()
        .flatten()
        .map(Path::new)
        .filter(|b| b.is_absolute())
        .find_map(|b| {
            let projects = lexical(&b.join("projects"));
            let mut parts = abs.strip_prefix(&projects).ok()?.components();
            let key = parts.next()?;
            if parts.next()?.as_os_str() != "memory" {
                return None;
            }
            let rel = parts.as_path().to_str()?.to_string();
            let dir = projects.join(key).join("memory");
            let dotted = rel.split('/').any(|c| c.starts_with('.'));
            (!rel.is_empty() && !dotted && dir != main).then_some((dir, rel))
        })
}

pub(crate) fn ends_with_md(file: &str) -> bool {
    file.len() >= 3 && file.as_bytes()[file.len() - 3..].eq_ignore_ascii_case(b".md")
}

/// The memory dir for the payload's project: `$CLAUDE_PROJECT_DIR`, else the
/// payload's `cwd`, resolved as `memctl path` does, but never from `MEMCTL_DIR`
/// (a user's shell setting, not Claude Code's).
pub fn resolve(p: &Payload, env: &Env) -> Result<Resolution, Error> {
    let mut env = env.clone();
    env.vars.remove("MEMCTL_DIR");
    let project = env
        .get("CLAUDE_PROJECT_DIR")
        .filter(|d| !d.is_empty())
        .or_else(|| p.cwd.get().filter(|c| !c.is_empty()).map(str::to_string))
        .map(PathBuf::from);
    if let Some(cwd) = p.cwd.get().filter(|c| c.starts_with('/')) {
        env.cwd = PathBuf::from(cwd);
    }
    let req = Request {
        dir: None,
        project,
        team: false,
    };
    paths::resolve(&req, &env)
}

/// A written file inside a memory dir.
#[derive(Debug, Clone)]
pub struct Written {
    /// The path to read it at.
    pub path: PathBuf,
    /// The dir whose rules apply (the main memory dir, or its `team/`).
    pub memdir: MemoryDir,
    /// Relative to `memdir.dir()`, `/`-separated.
    pub rel: String,
}

impl Written {
    pub fn is_index(&self) -> bool {
        self.rel == crate::memdir::INDEX
    }

    /// The file's name as the user reads it (`team/` or `team/<mount>/` kept).
    pub fn label(&self) -> String {
        format!("{}{}", self.memdir.scope_prefix(), self.rel)
    }
}

/// `file` (absolute, or relative to `base`) inside `main`, its `team/`, or a team
/// store's `team/<mount>/` (`mounts`: the team stores' mounts, SPEC §2.13):
/// lexically after normalising `.`, `..` and repeated separators, or by real path.
/// Without a team store `team/` is not team memory: a file there is a memory of
/// the main dir (Claude Code 2.1.332 never loads `team/MEMORY.md` then).
pub fn locate(file: &Path, base: &Path, main: &Path, mounts: &[String]) -> Option<Written> {
    let team_store = !mounts.is_empty();
    let abs = if file.is_absolute() {
        file.to_path_buf()
    } else {
        base.join(file)
    };
    // Inside lexically: the file is read at its normalised path, as Claude Code
    // wrote it (`memory/sub/../bad.md` is `memory/bad.md` even when `sub/` does
    // not exist, where the OS would refuse to walk through it; SPEC §7.1).
    let norm = lexical(&abs);
    let (abs, rel) = match norm.strip_prefix(lexical(main)) {
        Ok(rel) => (norm.clone(), rel.to_path_buf()),
        Err(_) => {
            // By real path; a file that does not exist yet (the gate sees a new
            // file before its Write) by its parent's real path.
            let real = std::fs::canonicalize(&abs).ok().or_else(|| {
                let parent = std::fs::canonicalize(norm.parent()?).ok()?;
                Some(parent.join(norm.file_name()?))
            })?;
            let real_main = std::fs::canonicalize(main).ok()?;
            let rel = real.strip_prefix(&real_main).ok()?.to_path_buf();
            (abs, rel)
        }
    };
    let rel = rel.to_str()?.to_string();
    if rel.is_empty() || excluded(&rel, mounts).is_some() {
        return None;
    }
    let (memdir, rel) = match rel.strip_prefix("team/").filter(|_| team_store) {
        Some(inner) => match inner.split_once('/') {
            Some((mount, rest)) if mounts.iter().any(|m| m == mount) => (
                MemoryDir::with_mount(main, Scope::Team, Some(mount.to_string())),
                rest.to_string(),
            ),
            _ => (MemoryDir::open(main, Scope::Team), inner.to_string()),
        },
        None => (MemoryDir::open(main, Scope::Main), rel),
    };
    let memdir = memdir.with_team_store(team_store);
    Some(Written { path: abs, memdir, rel })
}

/// Why Claude Code's scan skips `rel` (relative to the main memory dir; SPEC v3
/// §2.5 step 2, with the team store `mounts`): such a file is no memory file
/// (§7.3), for the gate, PostToolUse and the turn list alike.
fn excluded(rel: &str, mounts: &[String]) -> Option<crate::scan::Exclusion> {
    let rules = crate::scan::ScanRules {
        stores: !mounts.is_empty(),
        team_mounts: mounts.to_vec(),
    };
    // `team/<dir>/` that is no mount stays what it was to the hook: team memory
    // with a team store, else part of the main dir (SPEC §2.13); only its
    // dot-named paths are skipped.
    match rules.excluded_by(rel)? {
        crate::scan::Exclusion::TeamSubdir => rel
            .split('/')
            .any(|c| c.starts_with('.'))
            .then_some(crate::scan::Exclusion::DotSegment),
        why => Some(why),
    }
}

/// A write into a path of the memory dir that Claude Code's scan skips (SPEC v3
/// §7.3): the excluded directory (or, for a dot-named file, the dir it is in),
/// the file's path relative to the memory dir, and why. memctl's own `.trash/`
/// and `.memctl/` are not reported.
pub fn locate_excluded(
    file: &Path,
    base: &Path,
    main: &Path,
    mounts: &[String],
) -> Option<(PathBuf, String, crate::scan::Exclusion)> {
    let abs = lexical(&if file.is_absolute() {
        file.to_path_buf()
    } else {
        base.join(file)
    });
    let main = lexical(main);
    let rel = abs.strip_prefix(&main).ok()?.to_str()?.to_string();
    if rel.is_empty() || matches!(rel.split('/').next(), Some(".trash" | ".memctl")) {
        return None;
    }
    let why = excluded(&rel, mounts)?;
    let segments: Vec<&str> = rel.split('/').collect();
    // The segment that excludes it: the first dot-named one, else the first.
    let upto = match why {
        crate::scan::Exclusion::DotSegment => segments.iter().position(|s| s.starts_with('.')).unwrap_or(0) + 1,
        _ => 1,
    };
    let dir = if upto >= segments.len() {
        abs.parent().map(Path::to_path_buf).unwrap_or(main)
    } else {
        segments[..upto].iter().fold(main, |d, s| d.join(s))
    };
    Some((dir, rel, why))
}

/// `p` with `.`, `..` and repeated separators resolved lexically.
pub(crate) fn lexical(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// What a history snapshot taken by the hook is labelled with (SPEC §7.3 step 1).
#[derive(Debug, Clone)]
pub struct Snapshot<'a> {
    pub main_dir: PathBuf,
    pub recorded_by: &'static str,
    pub session_id: Option<&'a str>,
    pub agent_id: Option<&'a str>,
    /// Set for a subagent; a forked agent (a dream, an extraction) has none.
    pub agent_type: Option<&'a str>,
    pub tool: Option<&'a str>,
    /// The written file, relative to the main memory dir's scope.
    pub file: Option<String>,
    /// The written file below the main memory dir (`team/` kept), when the
    /// snapshot need only look at it ([`crate::history::Store::snapshot_touched`]).
    pub written: Option<String>,
    pub now: DateTime<Utc>,
    pub res: &'a Resolution,
    pub history: &'a crate::history::Settings,
}

impl<'a> Snapshot<'a> {
    fn of(p: &'a Payload, res: &'a Resolution, recorded_by: &'static str, call: &Call<'a>) -> Snapshot<'a> {
        Snapshot {
            main_dir: res.memdir.main().to_path_buf(),
            recorded_by,
            session_id: p.session_id.get(),
            agent_id: p.agent_id.get(),
            agent_type: p.agent_type.get(),
            tool: p.tool_name.get().filter(|_| recorded_by == "hook:PostToolUse"),
            file: None,
            written: None,
            now: call.now,
            res,
            history: call.history,
        }
    }
}

/// Whether a PostToolUse write is a dream's (SPEC §7.3 step 1, §8.2): the call's
/// `agent_id` starts with `aauto_dream` (2.1.332: `aauto_dream-` + 16 hex digits,
/// no `agent_type`), or a forked agent (an `agent_id` without `agent_type`) writes
/// while `.consolidate-lock` is fresh and held by a live PID. Every write of the
/// run qualifies, not only the one that moved the lock's mtime.
pub fn is_dream_write(agent_id: Option<&str>, agent_type: Option<&str>, main: &Path, now: DateTime<Utc>) -> bool {
    let Some(id) = agent_id.filter(|a| !a.is_empty()) else {
        return false;
    };
    if id.starts_with("aauto_dream") {
        return true;
    }
    if agent_type.is_some_and(|t| !t.is_empty()) {
        return false;
    }
    let lock = crate::lock::inspect(main, crate::text::millis(now));
    lock.state == crate::lock::State::Held
}

/// Record a history snapshot of the memory dir (SPEC §8) for a hook call: on
/// PostToolUse the model's write (trigger `claude`, or `dream` for every write
/// of a dream: [`is_dream_write`]), on SessionStart and
/// SessionEnd whatever changed outside memctl (`external`, or `dream` when the
/// lock's mtime moved). The store's own lock is tried for at most 200 ms and
/// `.memctl.lock` is never taken; any failure is ignored: history is advisory
/// and the hook must never fail for it.
pub fn record_snapshot(snap: &Snapshot) -> Option<react::Between> {
    record_snapshot_walking(snap, None).0
}

/// What [`record_snapshot_walking`] did, and its store (its lock held and its
/// cache writes under way until it is dropped).
type Recorded = (Option<react::Between>, bool, Option<crate::history::Store>);

/// [`record_snapshot`] whose walk of the dir also feeds `walk` (SessionStart's
/// check); the flag says whether it did (the store opened and the dir was walked).
fn record_snapshot_walking(snap: &Snapshot, walk: Option<&mut session::Walk>) -> Recorded {
    if !snap.main_dir.is_dir() {
        return (None, false, None);
    }
    let project = snap.res.project.as_ref().map(|p| PathBuf::from(&p.canonical_root));
    let Ok(Some(mut store)) =
        crate::history::Store::open_for_snapshot(snap.history, &snap.main_dir, project.as_deref(), snap.now, 200)
    else {
        return (None, false, None);
    };
    let post = snap.recorded_by == "hook:PostToolUse";
    store.expect_change = post;
    let dreaming = post && is_dream_write(snap.agent_id, snap.agent_type, &snap.main_dir, snap.now);
    let mut details: Vec<(&str, String)> = Vec::new();
    for (k, v) in [
        ("Session", snap.session_id),
        ("Agent", snap.agent_id),
        ("Tool", snap.tool),
    ] {
        if let Some(v) = v {
            details.push((k, v.to_string()));
        }
    }
    if let Some(f) = &snap.file {
        details.push(("File", f.clone()));
    }
    let req = crate::history::Request {
        trigger: dreaming.then_some(crate::history::Trigger::Dream),
        recorded_by: snap.recorded_by,
        message: None,
        details: &details,
        claude: post && !dreaming,
        now: snap.now,
    };
    let walked = walk.is_some();
    let r = match walk {
        Some(w) => {
            let mut skipped = Vec::new();
            let files = crate::history::tracked::walk_visiting(&snap.main_dir, &mut skipped, &mut |e, rel, ft, md| {
                w.visit_raw(e, rel, ft, md)
            });
            store.snapshot_walked(&snap.main_dir, &req, (files, skipped))
        }
        // The model's write: that file against the last snapshot, not a walk
        // of the dir (what else changed is recorded by the next walk, Stop's).
        // A dream's write walks: the run's shell deletions are the dream's too.
        None => match snap.written.as_deref().filter(|_| post && !dreaming) {
            Some(rel) => store.snapshot_touched(&snap.main_dir, &req, &[rel.as_bytes().to_vec()]),
            None => store.snapshot(&snap.main_dir, &req),
        },
    };
    let between = r.ok().flatten().map(|r| react::Between {
        trigger: r.trigger.as_str(),
        files: r.changes.len(),
    });
    (between, walked, Some(store))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inside_lexically_after_normalising() {
        let main = Path::new("/h/.claude/projects/k/memory");
        let w = locate(
            Path::new("/h/.claude/projects/k/memory/../memory//a.md"),
            Path::new("/"),
            main,
            &[],
        )
        .unwrap();
        assert_eq!(w.rel, "a.md");
        assert!(!w.memdir.is_team());
        let w = locate(
            Path::new("/h/.claude/projects/k/memory/team/./MEMORY.md"),
            Path::new("/"),
            main,
            &["app".to_string()],
        )
        .unwrap();
        assert_eq!(
            (w.rel.as_str(), w.memdir.is_team(), w.is_index()),
            ("MEMORY.md", true, true)
        );
        // Without a team store `team/` is part of the main dir (SPEC §2.13).
        let w = locate(
            Path::new("/h/.claude/projects/k/memory/team/t.md"),
            Path::new("/"),
            main,
            &[],
        )
        .unwrap();
        assert_eq!((w.rel.as_str(), w.memdir.is_team()), ("team/t.md", false));
        assert!(
            locate(
                Path::new("/h/.claude/projects/k/memory/../other.md"),
                Path::new("/"),
                main,
                &[]
            )
            .is_none()
        );
        assert!(
            locate(
                Path::new("/h/.claude/projects/k/memory2/a.md"),
                Path::new("/"),
                main,
                &[]
            )
            .is_none()
        );
        assert!(
            locate(
                Path::new("/h/.claude/projects/k/memory/.trash/a.md"),
                Path::new("/"),
                main,
                &[]
            )
            .is_none()
        );
        let w = locate(Path::new("memory/b.md"), Path::new("/h/.claude/projects/k"), main, &[]).unwrap();
        assert_eq!(w.rel, "b.md");
    }

    #[test]
    fn a_write_under_a_team_store_mount_is_in_that_scope() {
        let main = Path::new("/h/.claude/projects/k/memory");
        let mounts = ["acme".to_string()];
        let w = locate(
            Path::new("/h/.claude/projects/k/memory/team/acme/x.md"),
            Path::new("/"),
            main,
            &mounts,
        )
        .unwrap();
        assert_eq!((w.rel.as_str(), w.memdir.mount()), ("x.md", Some("acme")));
        assert_eq!(w.memdir.dir(), main.join("team/acme"));
        assert_eq!(
            (w.label(), w.memdir.index_label()),
            ("team/acme/x.md".to_string(), "team/acme/MEMORY.md")
        );
        // Not a mount: the plain team dir, as without a team store.
        let w = locate(
            Path::new("/h/.claude/projects/k/memory/team/other/x.md"),
            Path::new("/"),
            main,
            &mounts,
        )
        .unwrap();
        assert_eq!((w.rel.as_str(), w.memdir.mount()), ("other/x.md", None));
        assert_eq!(w.label(), "team/other/x.md");
    }

    #[test]
    fn only_md_paths_are_looked_at() {
        assert!(ends_with_md("/a/B.MD"));
        assert!(!ends_with_md("/a/b.rs"));
        assert!(!ends_with_md("md"));
    }
}
