//! `memctl import` (SPEC §11.2): [`targets`] finds each bundle project's local
//! memory dir by identity, [`plan`] decides every file and the merged index
//! (writes nothing), [`apply`] carries one project's plan out through its Writer.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::bundle::{Bundle, FileEntry, Project};
use crate::error::{Error, Kind};
use crate::memdir::{INDEX, MemoryDir, Scope, TEAM_INDEX};
use crate::ops::merge;
use crate::projects::Row;
use crate::store::{self, Writer};
use crate::{fsread, paths};

/// The largest local file compared with an incoming one.
const MAX_FILE_BYTES: u64 = 64 << 20;

/// Where one bundle project goes.
#[derive(Clone, Debug)]
pub enum Target {
    Dir {
        dir: PathBuf,
        project: Option<PathBuf>,
    },
    /// No local memory dir has this identity: listed and skipped.
    NoMatch,
}

/// Each project's target: `into` for a bundle of one project; else the one row
/// with the same identity. Several rows for one identity refuse the import.
pub fn targets(bundle: &Bundle, rows: &[Row], into: Option<&Path>) -> Result<Vec<Target>, Error> {
    if let Some(dir) = into {
        if bundle.projects.len() != 1 {
            return Err(Error::new(
                Kind::Usage,
                format!(
                    "--into takes a bundle of one project; this one has {}",
                    bundle.projects.len()
                ),
            )
            .hint("import without --into: each project goes to the memory dir with its identity"));
        }
        return Ok(vec![Target::Dir {
            dir: dir.to_path_buf(),
            project: None,
        }]);
    }
    let ids: Vec<Option<String>> = rows.iter().map(Row::identity_now).collect();
    let mut out = Vec::new();
    for p in &bundle.projects {
        let found: Vec<&Row> = rows
            .iter()
            .zip(&ids)
            .filter(|(_, id)| id.as_deref() == Some(p.entry.identity.as_str()))
            .map(|(r, _)| r)
            .collect();
        match found.as_slice() {
            [] => out.push(Target::NoMatch),
            [r] => out.push(Target::Dir {
                dir: r.memory_dir.clone(),
                project: r.project_path.clone().filter(|_| r.project_exists),
            }),
            many => {
                return Err(Error::new(
                    Kind::Ambiguous,
                    format!(
                        "{} matches {} memory dirs: {}",
                        p.entry.identity,
                        many.len(),
                        many.iter()
                            .map(|r| paths::with_sep(&r.memory_dir))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                )
                .hint("join them first with `memctl projects merge FROM INTO`, or name one with --into DIR"));
            }
        }
    }
    Ok(out)
}

/// A conflict: the local file stays, the incoming one is kept as `kept_as`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Conflict {
    pub file: String,
    pub kept_as: String,
    pub reason: &'static str,
}

/// An incoming file present afterwards under its name: the name and the bytes
/// (shared with the bundle, never copied).
type Present = (String, Arc<Vec<u8>>);

/// One file to write: its name below the memory dir, bytes and mtime.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Write {
    pub rel: String,
    pub bytes: Arc<Vec<u8>>,
    pub mtime_ns: i64,
}

/// Everything the import of one project does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    pub identity: String,
    /// `None`: no local match (skipped whole).
    pub dir: Option<PathBuf>,
    pub project: Option<PathBuf>,
    pub added: Vec<String>,
    pub skipped: Vec<String>,
    pub conflicts: Vec<Conflict>,
    pub writes: Vec<Write>,
    /// The local index as read (`None`: none) and afterwards.
    pub index_before: Option<String>,
    pub index_after: String,
    pub index_lines_added: usize,
    /// Whether the merged index would be cut (a warning; SPEC §10.2).
    pub index_cut: Option<String>,
    /// Each entry the merged index puts past the cut that the local index
    /// loaded or did not have: named in warnings, never a refusal (SPEC §3.14).
    pub cut_entries: Vec<crate::index::place::CutEntry>,
    /// The incoming mtimes clamped on the way in (issue 29 point 13; notes).
    pub mtimes: crate::bundle::Mtimes,
    /// `team/MEMORY.md` when the bundle carries one: merged by lines as the main
    /// index is (never a conflict), its links relative to `team/`: as read
    /// (`None`: none) and afterwards.
    pub team_index: Option<(Option<String>, String)>,
    /// The incoming files present afterwards under their names, in bundle order:
    /// with the indexes as read, all the index merges depend on.
    pub present: Vec<String>,
}

impl Plan {
    pub fn changes_index(&self) -> bool {
        self.index_before.as_deref().unwrap_or("") != self.index_after
    }

    /// Whether `team/MEMORY.md` changes.
    pub fn changes_team_index(&self) -> bool {
        self.team_index
            .as_ref()
            .is_some_and(|(before, after)| before.as_deref().unwrap_or("") != after)
    }

    pub fn changes(&self) -> bool {
        !self.writes.is_empty() || self.changes_index() || self.changes_team_index()
    }

    pub fn report(&self) -> ProjectReport<'_> {
        ProjectReport {
            identity: &self.identity,
            memory_dir: self.dir.as_deref().map(paths::with_sep),
            added: &self.added,
            updated: [(self.changes_index(), INDEX), (self.changes_team_index(), TEAM_INDEX)]
                .into_iter()
                .filter_map(|(changed, f)| changed.then_some(f))
                .collect(),
            deleted: Vec::new(),
            skipped: &self.skipped,
            conflicts: &self.conflicts,
            cut_entries: &self.cut_entries,
        }
    }
}

/// An entry of `projects` in `import --json` (docs/json.md).
#[derive(Serialize)]
pub struct ProjectReport<'a> {
    pub identity: &'a str,
    pub memory_dir: Option<String>,
    pub added: &'a [String],
    pub updated: Vec<&'static str>,
    pub deleted: Vec<String>,
    pub skipped: &'a [String],
    pub conflicts: &'a [Conflict],
    /// Entries the merged index put past Claude Code's cut (SPEC §3.14).
    pub cut_entries: &'a [crate::index::place::CutEntry],
}

/// The `import --json` document.
#[derive(Serialize)]
pub struct Report<'a> {
    pub projects: Vec<ProjectReport<'a>>,
    pub dry_run: bool,
}

/// The machine name as it goes into a file name: `[A-Za-z0-9._-]`, others `-`.
fn machine_part(m: &str) -> String {
    let s: String = m
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '_' || c == '-' {
                c
            } else {
                '-'
            }
        })
        .take(64)
        .collect();
    if s.is_empty() { "unknown".into() } else { s }
}

/// `.conflict-<machine>-<YYYYMMDD>` (SPEC §11.2), the date in UTC.
pub fn conflict_suffix(machine: &str, now: DateTime<Utc>) -> String {
    format!(".conflict-{}-{}", machine_part(machine), now.format("%Y%m%d"))
}

/// The name that keeps an incoming copy of `rel` beside it: `<rel><suffix>`, then
/// `-2`, `-3`, …; `(name, true)` when it is new, `(name, false)` when a file of
/// that name already holds these bytes (kept before); `None` past 999.
pub fn conflict_name(dir: &Path, rel: &str, suffix: &str, bytes: &[u8]) -> Option<(String, bool)> {
    for n in 1..1000 {
        let name = if n == 1 {
            format!("{rel}{suffix}")
        } else {
            format!("{rel}{suffix}-{n}")
        };
        match fs::symlink_metadata(dir.join(&name)) {
            Err(_) => return Some((name, true)),
            // The same incoming bytes kept before (the bundle imported again).
            Ok(_) if read_local(&dir.join(&name)).as_deref() == Some(bytes) => return Some((name, false)),
            Ok(_) => {}
        }
    }
    None
}

fn read_local(path: &Path) -> Option<Vec<u8>> {
    fsread::read_regular(path, MAX_FILE_BYTES).ok()
}

/// Decide one project's import (SPEC §11.2): each file placed (added, skipped
/// or a conflict), then the incoming index lines merged into the local index and
/// the team index. Writes nothing.
pub fn plan(p: &Project, target: &Target, machine: &str, now: DateTime<Utc>) -> Result<Plan, Error> {
    replan(p, target, machine, now, None)
}

/// [`plan`], made again under the lock when `shown` is the plan shown: every
/// file placed afresh and both indexes read afresh; where the indexes read and
/// the files present are those of `shown`, the merged indexes are taken from it
/// (a merge is a function of these alone, and the merge of a long index is most
/// of a plan's work, issue 31).
pub fn replan(
    p: &Project,
    target: &Target,
    machine: &str,
    now: DateTime<Utc>,
    shown: Option<&Plan>,
) -> Result<Plan, Error> {
    let mut plan = Plan::skipped(&p.entry.identity);
    let Target::Dir { dir, project } = target else {
        return Ok(plan);
    };
    plan.dir = Some(dir.clone());
    plan.project = project.clone();
    let suffix = conflict_suffix(machine, now);
    let present = place_files(p, dir, &suffix, now, &mut plan)?;
    plan.present = present.iter().map(|(rel, _)| rel.clone()).collect();
    let shown = shown.filter(|s| s.present == plan.present);
    merge_main_index(p, dir, &present, &mut plan, shown)?;
    plan.team_index = merge_team_index(p, dir, &present, shown.and_then(|s| s.team_index.as_ref()))?;
    Ok(plan)
}

impl Plan {
    /// The plan of a project that has no local memory dir: nothing to do.
    fn skipped(identity: &str) -> Plan {
        Plan {
            identity: identity.to_string(),
            dir: None,
            project: None,
            added: Vec::new(),
            skipped: Vec::new(),
            conflicts: Vec::new(),
            writes: Vec::new(),
            index_before: None,
            index_after: String::new(),
            index_lines_added: 0,
            index_cut: None,
            cut_entries: Vec::new(),
            mtimes: crate::bundle::Mtimes::default(),
            team_index: None,
            present: Vec::new(),
        }
    }
}

/// Place every incoming memory file (not the indexes) in `dir`; the files
/// present afterwards under their incoming names, with the incoming bytes.
fn place_files(
    p: &Project,
    dir: &Path,
    suffix: &str,
    now: DateTime<Utc>,
    plan: &mut Plan,
) -> Result<Vec<Present>, Error> {
    let mut present: Vec<Present> = Vec::new();
    // Containment (SPEC §4.4) is a property of a file's directory: checked once
    // per directory, not once per file (two path resolutions each, issue 31).
    let dir_exists = dir.is_dir();
    let mut checked: Vec<&Path> = Vec::new();
    let files: Vec<&FileEntry> = p
        .entry
        .files
        .iter()
        .filter(|f| f.path != INDEX && f.path != TEAM_INDEX)
        .collect();
    let mut listings = Listings::new(&files);
    for f in files {
        let bytes = &p.bytes[&f.path];
        let target = dir.join(&f.path);
        let parent = Path::new(&f.path).parent().unwrap_or(Path::new(""));
        if dir_exists && !checked.contains(&parent) {
            store::ensure_ancestor_contained(dir, &target)?;
            checked.push(parent);
        }
        let absent = listings.absent(dir, &f.path);
        if place_file(plan, dir, f, bytes, absent, suffix, now) {
            present.push((f.path.clone(), bytes.clone()));
        }
    }
    Ok(present)
}

/// The names of the directories incoming files go to, each read once when
/// that costs less than asking for each file (issue 31: an import into an
/// empty dir made two failing `lstat`s a file, plan and plan again under the
/// lock). A listing only ever says that a name is absent, and only where no
/// filesystem could take it for another entry: every name read is ASCII and
/// none equals the name but for ASCII case (a case-folding or normalizing
/// filesystem maps nothing else onto an ASCII name). Anything else is asked
/// of the filesystem, as before; a file that appears meanwhile is `exists`
/// when it is written (the rename never replaces).
struct Listings<'a> {
    /// Incoming files per directory (below the memory dir).
    incoming: HashMap<&'a str, usize>,
    /// Each directory's names, ASCII-lowercased; `None`: not listed.
    read: HashMap<&'a str, Option<HashSet<String>>>,
}

impl<'a> Listings<'a> {
    fn new(files: &[&'a FileEntry]) -> Listings<'a> {
        let mut incoming = HashMap::new();
        for f in files {
            *incoming.entry(split(&f.path).0).or_insert(0) += 1;
        }
        Listings {
            incoming,
            read: HashMap::new(),
        }
    }

    /// Whether `rel` (below `dir`) is known not to exist.
    fn absent(&mut self, dir: &Path, rel: &'a str) -> bool {
        let (parent, name) = split(rel);
        let incoming = self.incoming.get(parent).copied().unwrap_or(0);
        let names = self
            .read
            .entry(parent)
            .or_insert_with(|| list(&dir.join(parent), incoming));
        names
            .as_ref()
            .is_some_and(|n| name.is_ascii() && !n.contains(&name.to_ascii_lowercase()))
    }
}

/// `rel`'s directory below the memory dir (`""` for the top) and its name.
fn split(rel: &str) -> (&str, &str) {
    rel.rsplit_once('/').unwrap_or(("", rel))
}

/// The names in `dir`, ASCII-lowercased, when a listing is worth it for
/// `incoming` files and says something: `Some(empty)` when `dir` does not
/// exist; `None` when it cannot be read, holds a name that is not ASCII, or is
/// large against the files coming in (a failing `lstat` costs a few times
/// what one listed name does; a dir's size is at least 16 bytes a name on the
/// common filesystems, and a dir of one 4 KiB block is always cheap to list).
fn list(dir: &Path, incoming: usize) -> Option<HashSet<String>> {
    const MIN_FILES: usize = 32;
    match fs::metadata(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Some(HashSet::new()),
        Ok(m) if m.is_dir() && incoming >= MIN_FILES && m.len() <= (64 * incoming as u64).max(4096) => {}
        _ => return None,
    }
    let mut names = HashSet::new();
    for e in fs::read_dir(dir).ok()? {
        let name = e.ok()?.file_name();
        let name = name.to_str().filter(|n| n.is_ascii())?;
        names.insert(name.to_ascii_lowercase());
    }
    Some(names)
}

/// One incoming file: absent → added (with its mtime); identical → skipped;
/// different → a conflict, the incoming copy kept beside it. Whether it is present
/// afterwards under its name with these bytes (not when no conflict name is free).
fn place_file(
    plan: &mut Plan,
    dir: &Path,
    f: &FileEntry,
    bytes: &Arc<Vec<u8>>,
    known_absent: bool,
    suffix: &str,
    now: DateTime<Utc>,
) -> bool {
    let target = dir.join(&f.path);
    let exists = !known_absent && fs::symlink_metadata(&target).is_ok();
    match exists {
        false => {
            plan.added.push(f.path.clone());
            let mtime_ns = clamped(&mut plan.mtimes, &f.path, f.mtime_ns, now);
            plan.writes.push(Write {
                rel: f.path.clone(),
                bytes: bytes.clone(),
                mtime_ns,
            });
        }
        true if read_local(&target).as_deref() == Some(bytes) => plan.skipped.push(f.path.clone()),
        true => {
            let Some((name, new)) = conflict_name(dir, &f.path, suffix, bytes) else {
                plan.skipped.push(f.path.clone());
                return false;
            };
            if new {
                let mtime_ns = clamped(&mut plan.mtimes, &name, f.mtime_ns, now);
                plan.writes.push(Write {
                    rel: name.clone(),
                    bytes: bytes.clone(),
                    mtime_ns,
                });
            }
            plan.conflicts.push(Conflict {
                file: f.path.clone(),
                kept_as: name,
                reason: "the local file differs",
            });
        }
    }
    true
}

/// `MEMORY.md` is never a conflict: the incoming lines for files present after
/// the import merged into the local index (deduplicated, placed by §10.2).
fn merge_main_index(
    p: &Project,
    dir: &Path,
    present: &[Present],
    plan: &mut Plan,
    shown: Option<&Plan>,
) -> Result<(), Error> {
    let index_path = dir.join(INDEX);
    if dir.is_dir() {
        store::ensure_contained(dir, &index_path)?;
    }
    plan.index_before = match fs::symlink_metadata(&index_path) {
        Ok(_) => Some(String::from_utf8_lossy(&store::read_for_update(&index_path)?).into_owned()),
        Err(_) => None,
    };
    if let Some(s) = shown.filter(|s| s.index_before == plan.index_before) {
        plan.index_after = s.index_after.clone();
        plan.index_lines_added = s.index_lines_added;
        plan.index_cut = s.index_cut.clone();
        plan.cut_entries = s.cut_entries.clone();
        return Ok(());
    }
    let local = plan.index_before.clone().unwrap_or_default();
    plan.index_after = local.clone();
    if let Some(incoming) = p.bytes.get(INDEX) {
        let m = merge::merge_index(&String::from_utf8_lossy(incoming), &local, present);
        plan.index_after = m.new_target_index.clone();
        plan.index_lines_added = m.added.len();
        if m.cut.is_some() || m.target_truncated {
            plan.index_cut = Some(m.target_reason.clone().unwrap_or_else(|| "over a cap".into()));
        }
        plan.cut_entries = m.cut_entries;
    }
    Ok(())
}

/// `team/MEMORY.md`, when the bundle carries one: merged as the main index is,
/// its links relative to `team/`. The local one as read (`None`: none) and
/// afterwards.
fn merge_team_index(
    p: &Project,
    dir: &Path,
    present: &[Present],
    shown: Option<&(Option<String>, String)>,
) -> Result<Option<(Option<String>, String)>, Error> {
    let Some(incoming) = p.bytes.get(TEAM_INDEX) else {
        return Ok(None);
    };
    let path = dir.join(TEAM_INDEX);
    let before = match fs::symlink_metadata(&path) {
        Ok(_) => {
            if dir.is_dir() {
                store::ensure_contained(dir, &path)?;
            }
            Some(String::from_utf8_lossy(&store::read_for_update(&path)?).into_owned())
        }
        Err(_) => None,
    };
    if let Some((b, after)) = shown.filter(|(b, _)| *b == before) {
        return Ok(Some((b.clone(), after.clone())));
    }
    let team_files: Vec<Present> = present
        .iter()
        .filter_map(|(rel, b)| Some((rel.strip_prefix("team/")?.to_string(), b.clone())))
        .collect();
    let local = before.clone().unwrap_or_default();
    let m = merge::merge_index(&String::from_utf8_lossy(incoming), &local, &team_files);
    Ok(Some((before, m.new_target_index)))
}

/// The mtime an incoming file is written with: the bundle's, clamped (issue 29 point 13).
fn clamped(m: &mut crate::bundle::Mtimes, rel: &str, given: i64, now: DateTime<Utc>) -> i64 {
    let t = m.take(rel, Some(i128::from(given)), now);
    i64::try_from(t).unwrap_or(given)
}

/// Carry out one project's plan (made again under its lock): the files with
/// their mtimes, then the index. A failure undoes what was written.
pub fn apply(plan: &Plan, w: &mut Writer) -> Result<(), Error> {
    let Some(dir) = &plan.dir else { return Ok(()) };
    let files: Vec<(PathBuf, &[u8], i128)> = plan
        .writes
        .iter()
        .map(|f| (dir.join(&f.rel), f.bytes.as_slice(), i128::from(f.mtime_ns)))
        .collect();
    // One fsync per file and one per directory (issue 31), before the index
    // names them.
    if let Err(e) = w.create_all_at(&files) {
        w.roll_back();
        return Err(e);
    }
    if plan.changes_team_index()
        && let Some((before, after)) = &plan.team_index
    {
        let index = dir.join(TEAM_INDEX);
        let done = match before {
            Some(old) => w.replace_expecting(&index, old.as_bytes(), after.as_bytes()),
            None => w.create(&index, after.as_bytes()),
        };
        if let Err(e) = done {
            w.roll_back();
            return Err(e);
        }
    }
    if plan.changes_index() {
        let index = dir.join(INDEX);
        let done = match &plan.index_before {
            Some(old) => w.replace_expecting(&index, old.as_bytes(), plan.index_after.as_bytes()),
            None => w.create(&index, plan.index_after.as_bytes()),
        };
        if let Err(e) = done {
            w.roll_back();
            return Err(e);
        }
    }
    Ok(())
}

/// The memory dir of a plan, for its Writer.
pub fn memdir(plan: &Plan) -> Option<MemoryDir> {
    plan.dir.as_ref().map(|d| MemoryDir::open(d, Scope::Main))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(path: &str) -> FileEntry {
        FileEntry {
            path: path.into(),
            size: 0,
            mtime_ns: 1_773_144_000_000_000_000,
            sha256: String::new(),
        }
    }

    fn now() -> DateTime<Utc> {
        "2026-03-10T12:00:00Z".parse().unwrap()
    }

    fn arc(s: &str) -> Arc<Vec<u8>> {
        Arc::new(s.as_bytes().to_vec())
    }

    #[test]
    fn each_file_is_added_skipped_or_kept_beside_as_a_conflict() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path();
        fs::write(dir.join("same.md"), "same\n").unwrap();
        fs::write(dir.join("other.md"), "local\n").unwrap();
        let mut plan = Plan::skipped("github.com/a/b");
        let suffix = conflict_suffix("laptop", now());
        for (name, bytes) in [("new.md", "new\n"), ("same.md", "same\n"), ("other.md", "incoming\n")] {
            assert!(place_file(
                &mut plan,
                dir,
                &entry(name),
                &arc(bytes),
                false,
                &suffix,
                now()
            ));
        }
        assert_eq!(plan.added, vec!["new.md".to_string()]);
        assert_eq!(plan.skipped, vec!["same.md".to_string()]);
        assert_eq!(
            plan.conflicts,
            vec![Conflict {
                file: "other.md".into(),
                kept_as: "other.md.conflict-laptop-20260310".into(),
                reason: "the local file differs",
            }]
        );
        let written: Vec<&str> = plan.writes.iter().map(|w| w.rel.as_str()).collect();
        assert_eq!(written, ["new.md", "other.md.conflict-laptop-20260310"]);
    }

    #[test]
    fn a_conflict_kept_before_is_not_written_again() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path();
        fs::write(dir.join("a.md"), "local\n").unwrap();
        let suffix = conflict_suffix("laptop", now());
        fs::write(dir.join(format!("a.md{suffix}")), "incoming\n").unwrap();
        let mut plan = Plan::skipped("github.com/a/b");
        assert!(place_file(
            &mut plan,
            dir,
            &entry("a.md"),
            &arc("incoming\n"),
            false,
            &suffix,
            now()
        ));
        assert!(plan.writes.is_empty());
        assert_eq!(plan.conflicts[0].kept_as, format!("a.md{suffix}"));
    }

    #[test]
    fn a_listing_says_absent_only_where_no_filesystem_could_match_the_name() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path();
        fs::write(dir.join("Taken.md"), "x").unwrap();
        fs::create_dir(dir.join("sub")).unwrap();
        let names: Vec<String> = (0..40).map(|i| format!("m{i}.md")).collect();
        let mut files: Vec<FileEntry> = names.iter().map(|n| entry(n)).collect();
        files.extend(names.iter().map(|n| entry(&format!("gone/{n}"))));
        files.push(entry("taken.md"));
        let refs: Vec<&FileEntry> = files.iter().collect();
        let mut l = Listings::new(&refs);
        assert!(l.absent(dir, "m1.md"));
        // Another case of a name present: a case-folding filesystem finds it.
        assert!(!l.absent(dir, "taken.md"));
        assert!(!l.absent(dir, "TAKEN.md"));
        // Not ASCII: asked of the filesystem.
        assert!(!l.absent(dir, "café.md"));
        // A dir that does not exist holds nothing.
        assert!(l.absent(dir, "gone/m1.md"));
        // A name that is not ASCII in the dir: nothing is known from the listing.
        fs::write(dir.join("sub/Kelvin-\u{212a}.md"), "x").unwrap();
        let sub: Vec<FileEntry> = names.iter().map(|n| entry(&format!("sub/{n}"))).collect();
        let refs: Vec<&FileEntry> = sub.iter().collect();
        assert!(!Listings::new(&refs).absent(dir, "sub/m1.md"));
    }

    #[test]
    fn a_few_files_are_not_worth_a_listing() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path();
        let one = [entry("a.md")];
        let refs: Vec<&FileEntry> = one.iter().collect();
        assert!(!Listings::new(&refs).absent(dir, "a.md"));
        assert_eq!(list(dir, 1), None);
        assert_eq!(list(&dir.join("missing"), 1), Some(HashSet::new()));
    }

    fn project(files: &[(&str, &str)]) -> Project {
        Project {
            entry: crate::bundle::ProjectEntry {
                identity: "github.com/a/b".into(),
                key: None,
                project_path: None,
                files: files.iter().map(|(p, _)| entry(p)).collect(),
            },
            bytes: files.iter().map(|(p, b)| (p.to_string(), arc(b))).collect(),
        }
    }

    #[test]
    fn a_plan_made_again_takes_the_merges_only_from_the_same_inputs() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path();
        fs::create_dir(dir.join("team")).unwrap();
        fs::write(dir.join(INDEX), "- [Old](old.md) — old\n").unwrap();
        fs::write(dir.join("old.md"), "old\n").unwrap();
        let p = project(&[
            ("MEMORY.md", "- [New](new.md) — new\n- [Gone](gone.md) — gone\n"),
            ("new.md", "new\n"),
            ("team/MEMORY.md", "- [T](t.md) — t\n"),
            ("team/t.md", "t\n"),
        ]);
        let target = Target::Dir {
            dir: dir.to_path_buf(),
            project: None,
        };
        let shown = plan(&p, &target, "laptop", now()).unwrap();
        assert!(shown.index_after.contains("new.md") && shown.changes_team_index());
        let again = replan(&p, &target, "laptop", now(), Some(&shown)).unwrap();
        assert_eq!(again, shown);
        // The index changed since: merged afresh, as a first plan would.
        fs::write(dir.join(INDEX), "- [Other](old.md) — other\n").unwrap();
        let again = replan(&p, &target, "laptop", now(), Some(&shown)).unwrap();
        assert_eq!(again, plan(&p, &target, "laptop", now()).unwrap());
        assert_ne!(again.index_after, shown.index_after);
        // A file present now that was not: merged afresh.
        fs::write(dir.join("new.md"), "local\n").unwrap();
        let again = replan(&p, &target, "laptop", now(), Some(&shown)).unwrap();
        assert_eq!(again, plan(&p, &target, "laptop", now()).unwrap());
    }
}
