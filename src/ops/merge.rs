//! `projects merge` (SPEC §9): every memory of one memory dir moves into another.
//! [`locate`] turns FROM and INTO into memory dirs, [`plan`] reads both dirs and
//! decides every move and both indexes (writes nothing), [`apply`] carries the plan
//! out through one [`Writer`] per dir.

use std::collections::{BTreeSet, HashSet};
use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::{Error, Kind};
use crate::index::load::load;
use crate::index::place::cut_targets;
use crate::memdir::{INDEX, MemoryDir, Scope};
use crate::memory::MemoryType;
use crate::paths::{self, Env, Request};
use crate::store::{self, Writer};
use crate::{frontmatter, fsread, index};

/// The largest memory file a merge moves (memctl choice; a larger one stays).
const MAX_FILE_BYTES: u64 = 64 << 20;

/// How FROM or INTO was understood (SPEC §9: a dir first, then a key, then a
/// project path).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Named {
    /// An existing directory, taken as the memory dir itself.
    Dir,
    /// A key under `<config home>/projects/`.
    Key(String),
    /// A project path, resolved as Claude Code does.
    Project(PathBuf),
}

/// FROM or INTO as a memory dir.
#[derive(Clone, Debug)]
pub struct Located {
    pub dir: MemoryDir,
    pub named: Named,
    /// The project root, recorded in a new history store.
    pub project: Option<PathBuf>,
}

impl Located {
    /// A directory taken as the memory dir itself (`--into-dir`, or a missing INTO).
    pub fn dir(path: &Path) -> Located {
        Located {
            dir: MemoryDir::open(path, Scope::Main),
            named: Named::Dir,
            project: None,
        }
    }

    /// How the argument was understood, for the text output.
    pub fn how(&self) -> String {
        match &self.named {
            Named::Dir => "a memory dir".to_string(),
            Named::Key(k) => format!("key {k}"),
            Named::Project(p) => format!("memory dir of project {}", p.display()),
        }
    }
}

/// Resolve FROM or INTO: an existing memory directory, then a key under
/// `<config home>/projects/`, then a project path (its memory dir resolved as
/// Claude Code does). An existing directory that is a project (a git work tree, or
/// one holding `.claude/` or `CLAUDE.md`) and holds no `MEMORY.md` counts as a
/// project path: `~/src/app` names the project, not a memory dir.
pub fn locate(arg: &OsStr, env: &Env) -> Result<Located, Error> {
    locate_in(arg, env, false)
}

/// [`locate`] for the destination: a key (`-…`, no `/`) whose dir does not exist
/// yet names the memory dir the merge creates (SPEC §3.14: the destination may be
/// missing), as `path` suggests for a legacy Wyhash dir whose djb2 dir Claude Code
/// has not created yet (§2.2.7).
pub fn locate_into(arg: &OsStr, env: &Env) -> Result<Located, Error> {
    locate_in(arg, env, true)
}

fn locate_in(arg: &OsStr, env: &Env, new_key: bool) -> Result<Located, Error> {
    if arg.is_empty() {
        return Err(Error::new(Kind::Usage, "FROM and INTO must not be empty")
            .hint("give a memory dir, a key (after --) or a project path"));
    }
    // memctl's own override does not apply: Claude Code does not know it.
    let mut env = env.clone();
    env.vars.remove("MEMCTL_DIR");
    let path = env.cwd.join(arg);
    let config_home = config_home(&env);
    if path.is_dir() && !is_project(&path, config_home.as_deref()) {
        if new_key && !memory_destination(&path, config_home.as_deref()) {
            return Err(Error::new(
                Kind::InvalidInput,
                format!(
                    "not a memory dir (it holds files but no memories) nor a project: {}",
                    path.display()
                ),
            )
            .hint(format!(
                "merging would write memories among its files; to use it anyway, pass `--into-dir {}`",
                path.display()
            )));
        }
        return Ok(Located {
            dir: MemoryDir::open(&path, Scope::Main),
            named: Named::Dir,
            project: None,
        });
    }
    let text = arg.to_string_lossy();
    if let Some(home) = &config_home
        && !text.contains('/')
        && text != "."
        && text != ".."
    {
        let key_dir = Path::new(home).join("projects").join(arg);
        if key_dir.is_dir() || (new_key && text.starts_with('-') && !path.exists()) {
            return Ok(Located {
                dir: MemoryDir::open(key_dir.join("memory"), Scope::Main),
                named: Named::Key(text.into_owned()),
                project: None,
            });
        }
    }
    if path.is_dir() {
        let req = Request {
            dir: None,
            project: Some(path.clone()),
            team: false,
        };
        let res = paths::resolve(&req, &env)?;
        let root = res.project.as_ref().map(|p| PathBuf::from(&p.canonical_root));
        let shown = res.project.as_ref().map_or(path, |p| PathBuf::from(&p.root));
        return Ok(Located {
            dir: MemoryDir::open(res.memdir.main(), Scope::Main),
            named: Named::Project(shown),
            project: root,
        });
    }
    // A project path that is gone (the repository moved): its key, lexically.
    if text.contains('/')
        && let Some(home) = &config_home
    {
        let lexical = paths::validate::normalize(&path.to_string_lossy());
        let key = paths::sanitize::sanitize(&lexical);
        for k in [&key.key, &key.wyhash] {
            let key_dir = Path::new(home).join("projects").join(k);
            if key_dir.is_dir() {
                return Ok(Located {
                    dir: MemoryDir::open(key_dir.join("memory"), Scope::Main),
                    named: Named::Project(PathBuf::from(lexical)),
                    project: None,
                });
            }
        }
    }
    // SPEC §3.14: a missing destination is the memory dir the merge creates.
    if new_key && fs::symlink_metadata(&path).is_err() {
        return Ok(Located::dir(&path));
    }
    Err(Error::new(
        Kind::NotFound,
        format!(
            "not a memory dir, a key or a project path: {}",
            path.display()
        ),
    )
    .hint("give an existing memory dir, a key under <config home>/projects/ (after --), or a project path; `memctl projects` lists them"))
}

/// The config home (SPEC §2.2.2) as resolution finds it.
fn config_home(env: &Env) -> Option<String> {
    let req = Request {
        dir: Some(env.cwd.clone().into_os_string()),
        project: None,
        team: false,
    };
    paths::resolve(&req, env).ok()?.config_home
}

/// Whether an existing directory that is not a project may receive a merge as a
/// memory dir (SPEC §3.14): it is under `<config home>/projects/*/memory/`, it is
/// empty, or it already holds memory files (`.md` files with frontmatter, or a
/// `MEMORY.md`). A plain directory of other files is not.
fn memory_destination(dir: &Path, config_home: Option<&str>) -> bool {
    let real = fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    if let Some(h) = config_home
        && let Ok(projects) = fs::canonicalize(Path::new(h).join("projects"))
        && let Ok(rest) = real.strip_prefix(&projects)
        && rest.components().nth(1).is_some_and(|c| c.as_os_str() == "memory")
    {
        return true;
    }
    let Ok(entries) = fs::read_dir(dir) else {
        return false;
    };
    let mut empty = true;
    for e in entries.filter_map(Result::ok) {
        empty = false;
        let name = e.file_name();
        if name == INDEX {
            return true;
        }
        let is_file = e.file_type().is_ok_and(|t| t.is_file());
        if is_file
            && Path::new(&name).extension().is_some_and(|x| x == "md")
            && fsread::read_small_text(&e.path()).is_some_and(|t| t.starts_with("---"))
        {
            return true;
        }
    }
    empty
}

/// Whether an existing directory names a project rather than a memory dir.
fn is_project(dir: &Path, config_home: Option<&str>) -> bool {
    let marked_memory = dir.join(INDEX).exists()
        || dir.file_name().is_some_and(|n| n == "memory")
        || config_home.is_some_and(|h| {
            let real = fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
            let projects = fs::canonicalize(Path::new(h).join("projects")).unwrap_or_default();
            !projects.as_os_str().is_empty() && real.starts_with(&projects) && real != projects
        });
    if marked_memory {
        return false;
    }
    dir.join(".claude").is_dir()
        || dir.join("CLAUDE.md").is_file()
        || paths::git::find_git_root(&dir.to_string_lossy()).is_some()
}

/// What happened to one memory of FROM.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// INTO had no file of that name.
    Moved,
    /// INTO had the same bytes under that name: the copy in FROM is removed.
    MergedIdentical,
    /// INTO had different bytes under that name: it arrives as `-2`, `-3`, ….
    Renamed,
}

/// One memory of FROM and where it goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Move {
    /// Relative to FROM, `/`-separated.
    pub file: String,
    /// Relative to INTO.
    pub to: String,
    pub action: Action,
    bytes: Vec<u8>,
    mtime_ns: i128,
}

/// An entry of FROM that stays.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Left {
    pub file: String,
    pub reason: &'static str,
}

/// An index line and its 1-based number.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Line {
    pub line: usize,
    pub text: String,
}

/// Whether INTO's index loads the added lines (SPEC §10.2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cut {
    /// Added lines' files past the cut.
    pub own: Vec<String>,
    /// Entries loaded before that the merge pushes past the cut.
    pub pushed: Vec<String>,
}

/// Everything a merge does, decided from one read of both dirs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    pub from: MemoryDir,
    pub into: MemoryDir,
    pub moves: Vec<Move>,
    pub left: Vec<Left>,
    /// FROM's index as read (`None`: there is none).
    pub source_index: Option<String>,
    /// FROM's index afterwards (`None`: removed, nothing else was left in it).
    pub new_source_index: Option<String>,
    pub target_index: String,
    pub new_target_index: String,
    /// Lines added to INTO's index, numbered there.
    pub added: Vec<Line>,
    /// Lines of FROM's index for moved files that INTO's index already has (by
    /// text or by link), numbered in FROM.
    pub skipped: Vec<Line>,
    /// FROM's other lines (headings, free text, links to files that stay), numbered in FROM.
    pub kept: Vec<Line>,
    /// Moved files that FROM's index did not link.
    pub unindexed: Vec<String>,
    /// `Some` when the added lines would be cut or push entries past the cut.
    pub cut: Option<Cut>,
    /// Each entry of INTO's new index past the cut that its old index loaded or
    /// did not have: named in a warning, never a refusal (SPEC §3.14).
    pub cut_entries: Vec<crate::index::place::CutEntry>,
    pub target_lines: usize,
    pub target_units: usize,
    pub target_truncated: bool,
    pub target_reason: Option<String>,
}

impl Plan {
    /// The plan of moving `moves` from FROM into INTO, with both indexes planned
    /// (§10.2 placement; see [`plan_indexes`]).
    fn new(
        from: MemoryDir,
        into: MemoryDir,
        moves: Vec<Move>,
        left: Vec<Left>,
        source_index: Option<String>,
        target_index: String,
    ) -> Plan {
        let mut p = Plan {
            from,
            into,
            moves,
            left,
            new_source_index: source_index.clone(),
            source_index,
            new_target_index: target_index.clone(),
            target_index,
            added: Vec::new(),
            skipped: Vec::new(),
            kept: Vec::new(),
            unindexed: Vec::new(),
            cut: None,
            cut_entries: Vec::new(),
            target_lines: 0,
            target_units: 0,
            target_truncated: false,
            target_reason: None,
        };
        plan_indexes(&mut p);
        p
    }

    pub fn count(&self, a: Action) -> usize {
        self.moves.iter().filter(|m| m.action == a).count()
    }

    pub fn changes_target_index(&self) -> bool {
        self.target_index != self.new_target_index
    }

    pub fn changes_source_index(&self) -> bool {
        self.source_index != self.new_source_index
    }

    /// The `projects merge --json` document.
    pub fn report(&self, dry_run: bool) -> Report<'_> {
        Report {
            from: paths::with_sep(self.from.main()),
            into: paths::with_sep(self.into.main()),
            dry_run,
            moved: self
                .moves
                .iter()
                .map(|m| MovedReport {
                    file: &m.file,
                    to: &m.to,
                    action: m.action,
                })
                .collect(),
            index_lines_added: &self.added,
            index_lines_skipped: &self.skipped,
            source_lines_kept: &self.kept,
            source_index_removed: self.source_index.is_some() && self.new_source_index.is_none(),
            left_behind: &self.left,
            target_index: TargetIndex {
                lines: self.target_lines,
                units: self.target_units,
                truncated: self.target_truncated,
            },
            cut_entries: &self.cut_entries,
        }
    }
}

/// The `projects merge --json` document (docs/json.md).
#[derive(Serialize)]
pub struct Report<'a> {
    pub from: String,
    pub into: String,
    pub dry_run: bool,
    pub moved: Vec<MovedReport<'a>>,
    pub index_lines_added: &'a [Line],
    pub index_lines_skipped: &'a [Line],
    pub source_lines_kept: &'a [Line],
    pub source_index_removed: bool,
    pub left_behind: &'a [Left],
    pub target_index: TargetIndex,
    /// Entries of INTO's index the merge put past the cut (SPEC §3.14).
    pub cut_entries: &'a [crate::index::place::CutEntry],
}

#[derive(Serialize)]
pub struct MovedReport<'a> {
    pub file: &'a str,
    pub to: &'a str,
    pub action: Action,
}

#[derive(Serialize)]
pub struct TargetIndex {
    pub lines: usize,
    pub units: usize,
    pub truncated: bool,
}

/// The real path of `p`, or of its nearest existing ancestor with the rest
/// appended (INTO may not exist yet).
pub fn real_path(p: &Path) -> PathBuf {
    let mut rest = Vec::new();
    let mut at = p;
    loop {
        if let Ok(r) = fs::canonicalize(at) {
            return rest.iter().rev().fold(r, |acc: PathBuf, c: &&OsStr| acc.join(c));
        }
        match (at.parent(), at.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name);
                at = parent;
            }
            _ => return p.to_path_buf(),
        }
    }
}

/// FROM must be an existing dir, distinct from INTO and neither inside the other.
pub fn ensure_distinct(from: &Located, into: &Located) -> Result<(), Error> {
    let f = from.dir.main();
    if !f.is_dir() {
        return Err(Error::new(
            Kind::NotFound,
            format!("FROM has no memory dir: {}", paths::with_sep(f)),
        )
        .hint("`memctl projects` lists the memory dirs of this machine"));
    }
    let (rf, ri) = (real_path(f), real_path(into.dir.main()));
    if rf == ri {
        return Err(Error::new(
            Kind::Usage,
            format!("FROM and INTO are the same memory dir: {}", paths::with_sep(&rf)),
        )
        .hint("name two different memory dirs; `memctl projects` lists them"));
    }
    if ri.starts_with(&rf) || rf.starts_with(&ri) {
        let (outer, inner) = if ri.starts_with(&rf) {
            ("FROM", "INTO")
        } else {
            ("INTO", "FROM")
        };
        return Err(Error::new(
            Kind::InvalidInput,
            format!(
                "{inner} lies inside {outer}: {} and {}",
                paths::with_sep(&rf),
                paths::with_sep(&ri)
            ),
        )
        .hint("a memory dir cannot be merged into a dir inside it, or the other way round"));
    }
    Ok(())
}

/// Read both dirs and decide the merge. Writes nothing.
pub fn plan(from: &MemoryDir, into: &MemoryDir) -> Result<Plan, Error> {
    let src_index_path = from.main().join(INDEX);
    let dst_index_path = into.main().join(INDEX);
    for (root, idx) in [(from.main(), &src_index_path), (into.main(), &dst_index_path)] {
        if root.is_dir() {
            store::ensure_contained(root, idx)?;
        }
    }
    let (candidates, mut left) = walk(from.main());
    let mut moves = Vec::new();
    let mut taken: HashSet<String> = HashSet::new();
    for rel in candidates {
        let path = from.main().join(&rel);
        let meta = match fs::symlink_metadata(&path) {
            Ok(m) => m,
            Err(_) => continue,
        };
        let bytes = match fsread::read_regular(&path, MAX_FILE_BYTES) {
            Ok(b) => b,
            Err(fsread::ReadError::TooLarge(_)) => {
                left.push(Left {
                    file: rel,
                    reason: "larger than 64 MiB",
                });
                continue;
            }
            Err(_) => {
                left.push(Left {
                    file: rel,
                    reason: "cannot be read",
                });
                continue;
            }
        };
        let Some((to, action)) = destination(into.main(), &rel, &bytes, &taken)? else {
            left.push(Left {
                file: rel,
                reason: "no free name in INTO",
            });
            continue;
        };
        taken.insert(to.clone());
        moves.push(Move {
            file: rel,
            to,
            action,
            bytes,
            mtime_ns: mtime_ns(&meta),
        });
    }
    left.sort_by(|a, b| a.file.cmp(&b.file));
    let source_index = match fs::symlink_metadata(&src_index_path) {
        Ok(_) => Some(read_text(&src_index_path)?),
        Err(_) => None,
    };
    let target_index = match fs::symlink_metadata(&dst_index_path) {
        Ok(_) => read_text(&dst_index_path)?,
        Err(_) => String::new(),
    };
    Ok(Plan::new(
        from.clone(),
        into.clone(),
        moves,
        left,
        source_index,
        target_index,
    ))
}

fn read_text(path: &Path) -> Result<String, Error> {
    let bytes = store::read_for_update(path)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

fn mtime_ns(meta: &fs::Metadata) -> i128 {
    match meta.modified() {
        Ok(t) => match t.duration_since(std::time::UNIX_EPOCH) {
            Ok(d) => d.as_nanos() as i128,
            Err(e) => -(e.duration().as_nanos() as i128),
        },
        Err(_) => 0,
    }
}

/// The memory files of `main` (relative, sorted) and the entries that stay. Never
/// follows a symlink: a symlinked file or directory stays where it is.
fn walk(main: &Path) -> (Vec<String>, Vec<Left>) {
    let mut files = Vec::new();
    let mut left = Vec::new();
    let mut stack: Vec<(PathBuf, String)> = vec![(main.to_path_buf(), String::new())];
    while let Some((dir, prefix)) = stack.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            left.push(Left {
                file: prefix.clone(),
                reason: "directory cannot be listed",
            });
            continue;
        };
        let mut names: Vec<_> = entries.filter_map(Result::ok).collect();
        names.sort_by_key(|e| e.file_name());
        for e in names {
            let name = e.file_name();
            let Some(name) = name.to_str() else {
                left.push(Left {
                    file: format!("{prefix}{}", name.to_string_lossy()),
                    reason: "name is not valid UTF-8",
                });
                continue;
            };
            let rel = format!("{prefix}{name}");
            let Ok(ft) = e.file_type() else { continue };
            let top = prefix.is_empty();
            if ft.is_symlink() {
                left.push(Left {
                    file: rel,
                    reason: "symlink (not followed)",
                });
            } else if ft.is_dir() {
                match (top, name) {
                    (true, "team") => left.push(Left {
                        file: format!("{rel}/"),
                        reason: "team memory stays",
                    }),
                    (true, "logs") => left.push(Left {
                        file: format!("{rel}/"),
                        reason: "logs stay",
                    }),
                    (true, crate::scan::TRASH) => left.push(Left {
                        file: format!("{rel}/"),
                        reason: "forgotten memories stay",
                    }),
                    (_, ".memctl") => left.push(Left {
                        file: format!("{rel}/"),
                        reason: "not a memory",
                    }),
                    _ => stack.push((e.path(), format!("{rel}/"))),
                }
            } else if !ft.is_file() {
                left.push(Left {
                    file: rel,
                    reason: "not a regular file",
                });
            } else if top && (name == INDEX || name == store::WRITE_LOCK) {
                // FROM's index (its lines are planned apart) and memctl's lock.
            } else if !name.ends_with(".md") || name == INDEX {
                left.push(Left {
                    file: rel,
                    reason: "not a memory",
                });
            } else if crate::memory::ensure_valid_name(&rel, true).is_err() {
                left.push(Left {
                    file: rel,
                    reason: "invalid memory file name",
                });
            } else {
                files.push(rel);
            }
        }
    }
    files.sort();
    (files, left)
}

/// Where `rel` goes in INTO: its own name when free; the name holding the same
/// bytes; else the first free `-2`, `-3`, … before `.md`. `None` when no name up
/// to `-999` is free.
fn destination(
    into: &Path,
    rel: &str,
    bytes: &[u8],
    taken: &HashSet<String>,
) -> Result<Option<(String, Action)>, Error> {
    let stem = &rel[..rel.len() - 3];
    for n in 1..1000 {
        let name = if n == 1 {
            rel.to_string()
        } else {
            format!("{stem}-{n}.md")
        };
        if taken.contains(&name) || crate::memory::ensure_valid_name(&name, true).is_err() {
            continue;
        }
        let target = into.join(&name);
        if into.is_dir() {
            store::ensure_ancestor_contained(into, &target)?;
        }
        match fs::symlink_metadata(&target) {
            Err(_) => {
                let action = if n == 1 { Action::Moved } else { Action::Renamed };
                return Ok(Some((name, action)));
            }
            Ok(m) if m.is_file() => {
                if fsread::read_regular(&target, MAX_FILE_BYTES).is_ok_and(|b| b == bytes) {
                    return Ok(Some((name, Action::MergedIdentical)));
                }
            }
            Ok(_) => {}
        }
    }
    Ok(None)
}

fn memory_type(bytes: &[u8]) -> Option<MemoryType> {
    let text = String::from_utf8_lossy(bytes);
    let (fm, _) = frontmatter::parse_document(&text);
    MemoryType::of(frontmatter::Fields::from(&fm).type_raw.as_ref())
}

/// The line without its line ending.
fn bare(l: &str) -> &str {
    l.trim_end_matches(['\n', '\r'])
}

/// Split FROM's index into the lines that go with moved files and the rest; place
/// the former in INTO's index (§10.2), deduplicated, renamed links rewritten.
fn plan_indexes(p: &mut Plan) {
    let src = p.source_index.clone().unwrap_or_default();
    let body = src.strip_prefix('\u{feff}').unwrap_or(&src);
    let bom = &src[..src.len() - body.len()];
    let raw: Vec<&str> = body.split_inclusive('\n').collect();
    let by_file: std::collections::HashMap<&str, &Move> = p.moves.iter().map(|m| (m.file.as_str(), m)).collect();
    // line (0-based) → the moves its links name, with the link as written.
    let mut goes: std::collections::BTreeMap<usize, Vec<(&Move, index::Link)>> = Default::default();
    for link in index::extract_links(body) {
        if let Some(m) = link.memory_target().and_then(|t| by_file.get(t)) {
            goes.entry(link.line - 1).or_default().push((m, link.clone()));
        }
    }
    let mut linked: BTreeSet<String> = index::extract_links(&p.target_index)
        .iter()
        .filter_map(|l| l.memory_target().map(str::to_string))
        .collect();
    let mut target_lines: BTreeSet<String> = index::lines(&p.target_index)
        .iter()
        .map(|l| l.trim_end().to_string())
        .collect();
    let mut indexed: HashSet<&str> = HashSet::new();
    let mut remaining = String::from(bom);
    let mut new_target = p.target_index.clone();
    let mut added_files = Vec::new();
    let mut placing: Vec<(String, Option<String>)> = Vec::new();
    for (i, l) in raw.iter().enumerate() {
        let Some(links) = goes.get(&i) else {
            remaining.push_str(l);
            if !l.trim().is_empty() {
                p.kept.push(Line {
                    line: i + 1,
                    text: bare(l).to_string(),
                });
            }
            continue;
        };
        let mut text = bare(l).to_string();
        for (m, link) in links {
            indexed.insert(m.file.as_str());
            // Also a file that a killed run already put under its new name
            // (merged identical now): the line links where the memory is.
            if m.to != m.file {
                text = rewrite_link(&text, link, &index::encode_file(&m.to));
            }
        }
        let first = links[0].0;
        let dup = target_lines.contains(text.trim_end()) || links.iter().all(|(m, _)| linked.contains(&m.to));
        if dup {
            p.skipped.push(Line {
                line: i + 1,
                text: text.clone(),
            });
            continue;
        }
        for (m, _) in links {
            linked.insert(m.to.clone());
            added_files.push(m.to.clone());
        }
        target_lines.insert(text.trim_end().to_string());
        let ty = memory_type(&first.bytes).map(|t| t.as_str().to_string());
        placing.push((text, ty));
    }
    // All at once (one by one re-reads the index per line: quadratic in an import).
    let (placed, numbers) = index::place::place_all(&new_target, &placing);
    new_target = placed;
    p.added = placing
        .into_iter()
        .zip(numbers)
        .map(|((text, _), line)| Line { line, text })
        .collect();
    p.added.sort_by_key(|a| a.line);
    p.unindexed = p
        .moves
        .iter()
        // INTO's index may link it already (its own copy, or one a killed merge
        // moved and indexed before FROM's line went).
        .filter(|m| !indexed.contains(m.file.as_str()) && !linked.contains(&m.to))
        .map(|m| m.to.clone())
        .collect();
    if p.source_index.is_some() {
        p.new_source_index = if remaining.trim_start_matches('\u{feff}').trim().is_empty() {
            None
        } else {
            Some(remaining)
        };
    }
    p.new_target_index = new_target;
    let l = load(&p.new_target_index);
    p.target_lines = l.line_count;
    p.target_units = l.unit_count;
    p.target_truncated = l.line_truncated || l.unit_truncated;
    p.target_reason = l.reason.clone();
    if p.changes_target_index() {
        let before = cut_targets(&p.target_index);
        let after = cut_targets(&p.new_target_index);
        let added: BTreeSet<&String> = added_files.iter().collect();
        let own: Vec<String> = after.iter().filter(|t| added.contains(t)).cloned().collect();
        let pushed: Vec<String> = after
            .difference(&before)
            .filter(|t| !added.contains(t))
            .cloned()
            .collect();
        if !own.is_empty() || !pushed.is_empty() {
            p.cut = Some(Cut { own, pushed });
            p.cut_entries = crate::index::place::cut_entries(&p.target_index, &p.new_target_index);
        }
    }
}

/// The index half of a merge alone (`import`, SPEC §11.2): the lines of `source`
/// that link `files` (memories INTO holds under the same names after the import,
/// with their bytes) placed into `target` by §10.2, deduplicated by link target.
/// The plan's `new_target_index`, `added`, `skipped`, `cut` and `target_*` say
/// the result; nothing is read or written.
pub fn merge_index(source: &str, target: &str, files: &[(String, Vec<u8>)]) -> Plan {
    let moves = files
        .iter()
        .map(|(f, b)| Move {
            file: f.clone(),
            to: f.clone(),
            action: Action::MergedIdentical,
            bytes: b.clone(),
            mtime_ns: 0,
        })
        .collect();
    let nowhere = || MemoryDir::open("", Scope::Main);
    Plan::new(
        nowhere(),
        nowhere(),
        moves,
        Vec::new(),
        Some(source.to_string()),
        target.to_string(),
    )
}

/// `line` with the destination of `link` replaced by `dest`.
fn rewrite_link(line: &str, link: &index::Link, dest: &str) -> String {
    let start = line
        .char_indices()
        .nth(link.col.saturating_sub(1))
        .map_or(0, |(b, _)| b);
    let from = line[start..]
        .find("](")
        .or_else(|| line[start..].find("]:"))
        .map_or(start, |k| start + k);
    match line[from..].find(link.dest.as_str()) {
        Some(k) => {
            let at = from + k;
            format!("{}{dest}{}", &line[..at], &line[at + link.dest.len()..])
        }
        None => line.to_string(),
    }
}

/// Carry out `plan` (made under both locks): copy the moving files into INTO with
/// their mtimes, write INTO's index, then FROM's, then remove the moved copies
/// from FROM. A failure before the removals undoes what was written; a memory that
/// changed in FROM meanwhile stays there (a warning names it).
pub fn apply(plan: &Plan, wf: &mut Writer, wi: &mut Writer) -> Result<Vec<String>, Error> {
    let mut warnings = Vec::new();
    // Both indexes were read when the plan was made: a read of a file another
    // program is rewriting in place (empty, cut, shorter than the copy history
    // kept) is trusted only once it has settled (issue 29 point 1); the plan's
    // lines come from it, so this is checked before the first write.
    if let Some(old) = &plan.source_index {
        wf.ensure_settled(&plan.from.main().join(INDEX), old.as_bytes())?;
    }
    wi.ensure_settled(&plan.into.main().join(INDEX), plan.target_index.as_bytes())?;
    for m in plan.moves.iter().filter(|m| m.action != Action::MergedIdentical) {
        if let Err(e) = wi.create_at(&plan.into.main().join(&m.to), &m.bytes, m.mtime_ns) {
            wi.roll_back();
            return Err(e);
        }
    }
    let dst_index = plan.into.main().join(INDEX);
    // Whether INTO had an index before this write: a rollback removes one it created.
    let had_index = fs::symlink_metadata(&dst_index).is_ok();
    if plan.changes_target_index()
        && let Err(e) = wi.replace_expecting(
            &dst_index,
            plan.target_index.as_bytes(),
            plan.new_target_index.as_bytes(),
        )
    {
        wi.roll_back();
        return Err(e);
    }
    let src_index = plan.from.main().join(INDEX);
    if plan.changes_source_index() {
        let done = match (&plan.source_index, &plan.new_source_index) {
            (Some(old), Some(new)) => wf.replace_expecting(&src_index, old.as_bytes(), new.as_bytes()),
            (Some(old), None) => {
                if read_text(&src_index).is_ok_and(|t| t == *old) {
                    wf.remove(&src_index)
                } else {
                    Err(Error::new(
                        Kind::Conflict,
                        format!("{} changed while memctl was writing it", src_index.display()),
                    )
                    .hint("another program changed it; run the command again"))
                }
            }
            _ => Ok(()),
        };
        if let Err(e) = done {
            if plan.changes_target_index() {
                if !had_index {
                    let _ = wi.remove(&dst_index);
                } else {
                    let _ = wi.replace(&dst_index, plan.target_index.as_bytes());
                }
            }
            wi.roll_back();
            return Err(e);
        }
    }
    for m in &plan.moves {
        let path = plan.from.main().join(&m.file);
        let same = fsread::read_regular(&path, MAX_FILE_BYTES).is_ok_and(|b| b == m.bytes);
        if !same {
            warnings.push(format!(
                "{} changed in FROM during the merge: both copies are kept",
                m.file
            ));
            continue;
        }
        wf.remove(&path)?;
    }
    Ok(warnings)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(file: &str, to: &str, action: Action, ty: &str) -> Move {
        Move {
            file: file.into(),
            to: to.into(),
            action,
            bytes: format!("---\nname: n\ndescription: d\ntype: {ty}\n---\nx\n").into_bytes(),
            mtime_ns: 0,
        }
    }

    fn planned(moves: Vec<Move>, src: &str, dst: &str) -> Plan {
        let (f, i) = (MemoryDir::open("/f", Scope::Main), MemoryDir::open("/i", Scope::Main));
        Plan::new(f, i, moves, vec![], Some(src.into()), dst.into())
    }

    #[test]
    fn lines_go_with_their_files_to_their_sections() {
        let src = "# Old\n\n## Feedback\n- [T](feedback_t.md) — t\n- [U](user_u.md) — u\nnotes\n- [K](kept.md) — k\n";
        let dst = "# Index\n## User\n- [A](user_a.md) — a\n## Feedback\n- [F](feedback_f.md) — f\n";
        let p = planned(
            vec![
                mv("feedback_t.md", "feedback_t-2.md", Action::Renamed, "feedback"),
                mv("user_u.md", "user_u.md", Action::Moved, "user"),
            ],
            src,
            dst,
        );
        assert_eq!(
            p.new_target_index,
            "# Index\n## User\n- [A](user_a.md) — a\n- [U](user_u.md) — u\n## Feedback\n- [F](feedback_f.md) — f\n- [T](feedback_t-2.md) — t\n"
        );
        assert_eq!(
            p.added,
            vec![
                Line {
                    line: 4,
                    text: "- [U](user_u.md) — u".into()
                },
                Line {
                    line: 7,
                    text: "- [T](feedback_t-2.md) — t".into()
                }
            ]
        );
        assert_eq!(
            p.new_source_index.as_deref(),
            Some("# Old\n\n## Feedback\nnotes\n- [K](kept.md) — k\n")
        );
        assert_eq!(p.kept.iter().map(|l| l.line).collect::<Vec<_>>(), vec![1, 3, 6, 7]);
    }

    #[test]
    fn duplicates_are_skipped_and_an_emptied_index_goes() {
        let src = "- [U](user_u.md) — u\n\n";
        let dst = "- [U](user_u.md) — other words\n";
        let p = planned(
            vec![mv("user_u.md", "user_u.md", Action::MergedIdentical, "user")],
            src,
            dst,
        );
        assert_eq!(p.skipped.len(), 1);
        assert!(p.added.is_empty());
        assert!(!p.changes_target_index());
        assert_eq!(p.new_source_index, None);
    }

    #[test]
    fn a_renamed_link_keeps_its_text() {
        for (line, want) in [
            ("- [x.md](./x.md) — see x.md", "- [x.md](x-2.md) — see x.md"),
            ("- [x.md](x.md) — x.md", "- [x.md](x-2.md) — x.md"),
        ] {
            let l = &index::extract_links(line)[0];
            assert_eq!(rewrite_link(line, l, "x-2.md"), want);
        }
    }
}
