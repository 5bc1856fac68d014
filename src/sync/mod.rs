//! `memctl sync` (SPEC §11.3): keep projects' memory in step across machines
//! through a git remote. [`repo`] is the local sync repository (gix), [`transport`]
//! fetch and push (the `git` binary), [`merge`] the pure per-file and index merges;
//! this module runs a sync: commit what is here, fetch, merge against the last
//! synced state, write through each dir's [`Writer`], push (retried when rejected).
//!
//! Safe against `kill -9` anywhere: memory files are replaced atomically; refs of
//! the sync repository move only after their objects exist; a project's synced
//! ref (the merge base) moves only after its memory dir was written, so a sync cut
//! short is redone by the next one.

pub mod merge;
pub mod purge;
pub mod repo;
pub mod transport;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use gix::ObjectId;
use serde::Serialize;

use crate::error::{Error, Kind};
use crate::memdir::{INDEX, MemoryDir, Scope, TEAM, TEAM_INDEX};
use crate::ops::import::{Conflict, conflict_name, conflict_suffix};
use crate::store::{Recording, Writer};
use merge::Decision;
use repo::{BRANCH, Blob, Files, REMOTE_BRANCH, SyncRepo};
use transport::Pushed;

/// The largest memory file sync carries.
const MAX_FILE_BYTES: u64 = 64 << 20;
/// A rejected push is retried from the fetch this many times.
const RETRIES: usize = 3;

/// One project to sync: its identity and this machine's memory dir for it.
#[derive(Clone, Debug)]
pub struct Target {
    pub identity: String,
    pub dir: PathBuf,
    pub project: Option<PathBuf>,
    /// Only the team dir (`--all-projects --team`, SPEC v3 §3.14): the files under
    /// `team/` of the project's tree, which a whole-project sync carries at the
    /// same place; the rest of the tree is left as it is, on both sides.
    pub team: bool,
}

impl Target {
    /// Its dir in the sync tree: `<identity, / as __>`.
    pub fn member(&self) -> String {
        member(&self.identity)
    }

    /// The ref of the last commit this target was synced at (its merge base).
    /// The team dir has its own: a team sync merges only `team/`, so its commit
    /// is no base for the rest of the project.
    fn synced_ref(&self) -> String {
        if self.team {
            SyncRepo::synced_ref(&format!("{}\0{}", self.identity, TEAM))
        } else {
            SyncRepo::synced_ref(&self.identity)
        }
    }

    /// The files of the project this target moves: all, or the team dir's.
    fn prefix(&self) -> &'static str {
        if self.team { "team/" } else { "" }
    }

    /// The index it merges by lines (SPEC §11.3 step 3).
    fn index(&self) -> &'static str {
        if self.team { TEAM_INDEX } else { INDEX }
    }

    /// Keep only the files this target moves.
    fn only_mine<T>(&self, files: &mut BTreeMap<String, T>) {
        if self.team {
            files.retain(|k, _| k.starts_with(self.prefix()));
        }
    }
}

/// `files` (a team target's) with the rest of the project's tree `tree` as it
/// is: a team sync writes only `team/` of the project.
fn with_rest(r: &SyncRepo, t: &Target, tree: Option<ObjectId>, files: &Files) -> Result<Files, Error> {
    if !t.team {
        return Ok(files.clone());
    }
    let mut all = match tree {
        Some(tree) => r.walk(tree)?.files,
        None => Files::new(),
    };
    all.retain(|k, _| !k.starts_with(t.prefix()));
    all.extend(files.iter().map(|(k, v)| (k.clone(), v.clone())));
    Ok(all)
}

/// The dir of a project in the sync repository, under `projects/`.
pub fn member_of(identity: &str) -> String {
    member(identity)
}

fn member(identity: &str) -> String {
    let m = crate::bundle::member_dir(identity);
    m.strip_prefix("projects/").unwrap_or(&m).to_string()
}

/// How a sync takes the remote's branch (SPEC v3 §11.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The per-file three-way merge against the last synced commit; a remote that
    /// does not descend from that commit (rolled back, rewritten) is refused.
    Merge,
    /// `--accept-remote`: this machine takes each project as the remote holds it
    /// (what the remote no longer holds is deleted here, its copy in history).
    AcceptRemote,
    /// `--push-local`: the remote is restored from this machine (nothing incoming).
    PushLocal,
}

pub struct Options {
    pub repo: PathBuf,
    pub remote: Option<String>,
    pub dry_run: bool,
    /// Approval of a mass deletion, given on this machine (never read from the remote).
    pub allow_mass_delete: bool,
    pub mode: Mode,
    pub strict: bool,
    /// `--allow-secrets`: push memories with secret-like tokens (refused by default).
    pub allow_secrets: bool,
    pub machine: String,
    pub now: DateTime<Utc>,
    pub history: crate::history::Settings,
}

/// One project in the report (`sync --json`, the shape of `import --json`).
#[derive(Clone, Debug, Default, Serialize)]
pub struct ProjectReport {
    pub identity: String,
    pub memory_dir: Option<String>,
    pub added: Vec<String>,
    pub updated: Vec<String>,
    pub deleted: Vec<String>,
    /// Files not written: kept against a deletion, changed meanwhile, or unable to travel.
    pub skipped: Vec<String>,
    pub conflicts: Vec<Conflict>,
    /// The other machine's `MEMORY.md` lines the index merge replaced or dropped.
    pub index_replaced: Vec<merge::Replaced>,
    /// Entries the merged index put past Claude Code's cut (SPEC §3.14): named in
    /// warnings, never a refusal.
    pub cut_entries: Vec<crate::index::place::CutEntry>,
    /// Files whose local change goes to the remote (text output only: the JSON
    /// shape is import's, SPEC §11.2).
    #[serde(skip)]
    pub sent: Vec<String>,
}

/// The `sync --json` document.
#[derive(Serialize)]
pub struct Report {
    pub projects: Vec<ProjectReport>,
    pub dry_run: bool,
}

/// How the push went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PushResult {
    /// Nothing new for the remote.
    UpToDate,
    Pushed {
        commit: String,
        retries: usize,
    },
    /// `--dry-run`: would push when `true`.
    DryRun(bool),
}

/// What a sync did.
pub struct Outcome {
    pub remote: String,
    pub projects: Vec<ProjectReport>,
    pub warnings: Vec<String>,
    pub notes: Vec<String>,
    pub push: PushResult,
}

/// The remote to use: `--remote`, else the configured one; and, when `--remote`
/// names another than the configured one, that one (`Some(None)`: none yet).
/// Nothing is written here: [`remember_remote`] does, once the sync may write.
fn choose_remote(r: &SyncRepo, wanted: Option<&str>) -> Result<(String, Option<Option<String>>), Error> {
    let had = r.remote_url();
    match (wanted, had) {
        (Some(w), Some(h)) if w == h => Ok((h, None)),
        (Some(w), had) => Ok((w.to_string(), Some(had))),
        (None, Some(h)) => Ok((h, None)),
        (None, None) => Err(Error::new(Kind::Config, "no sync remote is configured")
            .hint("name one once with `memctl sync --remote URL` (any git remote: a hosting service, a bare repo, file:///path)")),
    }
}

/// Store a new remote as `origin`. From another remote, every merge base is
/// dropped: that history is not this one's, and the next merge is a first sync
/// (nothing reads as deleted because the new remote never had it).
fn remember_remote(r: &SyncRepo, url: &str, had: Option<&str>, notes: &mut Vec<String>) -> Result<(), Error> {
    transport::set_remote(&r.path, url, had.is_some())?;
    if let Some(h) = had {
        r.forget_synced()?;
        notes.push(format!("sync remote changed from {h} to {url}"));
    }
    Ok(())
}

/// The unresolved conflict files below a memory dir (the names lint's ML135
/// reports, [`crate::scan::conflict`]),
/// with the file each belongs to, sorted.
pub fn conflict_files(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![(dir.to_path_buf(), String::new())];
    while let Some((d, prefix)) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else { continue };
        for e in rd.flatten() {
            let Ok(name) = e.file_name().into_string() else {
                continue;
            };
            let Ok(ft) = e.file_type() else { continue };
            let rel = if prefix.is_empty() {
                name.clone()
            } else {
                format!("{prefix}/{name}")
            };
            if ft.is_dir() {
                if name != ".trash" && name != ".memctl" && out.len() < 10_000 {
                    stack.push((e.path(), rel));
                }
            } else if let Some(c) = crate::scan::conflict::parse_conflict_name(&name) {
                out.push((format!("{}{}", &rel[..rel.len() - name.len()], c.original), rel));
            }
        }
    }
    out.sort();
    out
}

/// The files of a memory dir as sync carries them: tracked files (SPEC §8.1) that
/// are regular, with names that can travel. `skipped` gets the others.
fn read_local(
    r: &SyncRepo,
    dir: &Path,
    write: bool,
    skipped: &mut Vec<String>,
) -> Result<(Files, HashMap<String, Vec<u8>>), Error> {
    use std::os::unix::ffi::OsStrExt;
    let mut files = Files::new();
    let mut bytes = HashMap::new();
    let mut walk_skipped = Vec::new();
    for f in crate::history::tracked::walk(dir, &mut walk_skipped) {
        let rel = String::from_utf8_lossy(&f.rel).into_owned();
        if f.link
            || std::str::from_utf8(&f.rel).is_err()
            || !crate::bundle::safe_path(&rel)
            || crate::bundle::path_refusal(&rel).is_some()
        {
            skipped.push(rel);
            continue;
        }
        let path = dir.join(std::ffi::OsStr::from_bytes(&f.rel));
        let Ok(b) = crate::fsread::read_regular(&path, MAX_FILE_BYTES) else {
            skipped.push(rel);
            continue;
        };
        let oid = if write { r.write_blob(&b)? } else { r.hash(&b) };
        files.insert(
            rel.clone(),
            Blob {
                oid,
                mtime_ns: f.mtime_ns,
                listed: true,
            },
        );
        bytes.insert(rel, b);
    }
    Ok((files, bytes))
}

/// Give each of `skipped` (files here that cannot travel) the entry the first of
/// `from` holds for it, so that it reads as unchanged rather than deleted.
fn carry(files: &mut Files, skipped: &[String], from: &[&Files]) {
    for rel in skipped {
        if let Some(b) = from.iter().find_map(|f| f.get(rel)) {
            files.entry(rel.clone()).or_insert_with(|| b.clone());
        }
    }
}

/// A file's memory type from its frontmatter (for §10.2 placement).
fn memory_type(bytes: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(bytes);
    let (fm, _) = crate::frontmatter::parse_document(&text);
    crate::memory::MemoryType::of(crate::frontmatter::Fields::from(&fm).type_raw.as_ref())
        .map(|t| t.as_str().to_string())
}

/// The files `a` and `b` hold differently (or only one of them holds), memories first.
fn names_differing(a: &Files, b: &Files, index: &str) -> Vec<String> {
    let names: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    let (mut out, indexes): (Vec<String>, Vec<String>) = names
        .into_iter()
        .filter(|k| a.get(*k).map(|x| x.oid) != b.get(*k).map(|x| x.oid))
        .cloned()
        .partition(|k| k.as_str() != index);
    out.extend(indexes);
    out
}

fn memories(f: &Files, index: &str) -> usize {
    f.keys().filter(|k| k.as_str() != index).count()
}

fn deletions(from: &Files, to: &Files, index: &str) -> usize {
    from.keys()
        .filter(|k| k.as_str() != index && !to.contains_key(*k))
        .count()
}

fn more_than_half(deleted: usize, of: usize) -> bool {
    of > 0 && deleted * 2 > of
}

/// One file to change in the memory dir.
#[derive(Debug)]
enum Act {
    /// Write the remote version (`old`: the local bytes it replaces, `None` when new).
    Take {
        rel: String,
        old: Option<Vec<u8>>,
        oid: ObjectId,
        mtime_ns: i128,
    },
    /// Remove the local file (deleted on the remote, unchanged here).
    Delete { rel: String, old: Vec<u8> },
    /// Keep the remote version beside the local one.
    Keep { rel: String, oid: ObjectId, mtime_ns: i128 },
}

/// One project's merge, planned (nothing written).
struct Plan {
    target: Target,
    local: Files,
    local_bytes: HashMap<String, Vec<u8>>,
    remote: Files,
    acts: Vec<Act>,
    /// The index as read, and merged (when it changes).
    index: Option<(Option<String>, String)>,
    index_cut: Option<String>,
    report: ProjectReport,
    /// What the user is told about the plan: incoming mtimes clamped (issue 29 point 13).
    notes: Vec<String>,
    mass_delete_approved: bool,
}

fn plan_project(
    r: &SyncRepo,
    t: &Target,
    remote_tree: Option<ObjectId>,
    opts: &Options,
    (write_blobs, fresh_base): (bool, bool),
    warnings: &mut Vec<String>,
) -> Result<Plan, Error> {
    let base_commit = if fresh_base { None } else { r.ref_id(&t.synced_ref()) };
    let remote_tip = r.ref_id(REMOTE_BRANCH);
    // A remote that does not descend from the commit this machine last synced
    // (rolled back, force-pushed, its branch deleted) is no base for a merge: its
    // "deletions" are newer memories it lost. The user decides (SPEC v3 §11.3).
    let rewound = base_commit.is_some_and(|b| !remote_tip.is_some_and(|tip| r.descends(tip, b)));
    if opts.mode == Mode::Merge
        && rewound
        && let Some(b) = base_commit
    {
        let short = |c: ObjectId| c.to_hex_with_len(8).to_string();
        return Err(Error::new(
            Kind::Conflict,
            format!(
                "{}: the remote's branch ({}) does not descend from {}, the commit this machine last synced: it was rolled back or rewritten; nothing was written or pushed",
                t.identity,
                remote_tip.map_or_else(|| "deleted".to_string(), |c| format!("now {}", short(c))),
                short(b)
            ),
        )
        .hint("run `memctl sync --push-local` to restore the remote from this machine, or `memctl sync --accept-remote` to take the remote as it is (add --dry-run first to see what it would delete here)"));
    }
    let base_walk = match base_commit.and_then(|c| r.projects(Some(c)).ok()?.get(&t.member()).copied()) {
        Some(tree) => Some(r.walk(tree)?),
        None => None,
    };
    let base_reserved = base_walk.as_ref().map(|w| w.reserved.clone()).unwrap_or_default();
    let mut base = base_walk.map(|w| w.files).unwrap_or_default();
    t.only_mine(&mut base);
    let index_name = t.index();
    // `--push-local` and `--accept-remote` resolve a remote memctl cannot merge: one
    // rolled back (above), or, for `--push-local`, one whose tree it refuses (over a
    // limit, a dot path). Against a remote that moved forward normally (or on a
    // first sync) they would throw away the other machines' new memories or this
    // machine's unsynced ones: there the sync is the ordinary merge, with a note.
    let refused = |tree: ObjectId| {
        r.walk(tree)
            .map(|w| w.reserved.iter().any(|(p, oid)| base_reserved.get(p) != Some(oid)))
            .unwrap_or(true)
    };
    let mode = match opts.mode {
        Mode::PushLocal if !rewound && !remote_tree.is_some_and(refused) => Mode::Merge,
        Mode::AcceptRemote if !rewound => Mode::Merge,
        m => m,
    };
    if mode != opts.mode {
        warnings.push(format!(
            "note: {}: the remote descends from the commit this machine last synced and memctl can merge it: {} ignored, synced normally",
            t.identity,
            if opts.mode == Mode::PushLocal { "--push-local" } else { "--accept-remote" }
        ));
    }
    let mut skipped = Vec::new();
    let (mut local, mut local_bytes) = read_local(r, &t.dir, write_blobs, &mut skipped)?;
    t.only_mine(&mut local);
    if t.team {
        local_bytes.retain(|k, _| k.starts_with(t.prefix()));
    }
    skipped.retain(|s| s.starts_with(t.prefix()));
    // A file that cannot travel (a symlink, too big, unreadable) is not a local
    // deletion: it keeps its synced entry, so no machine deletes its copy.
    carry(&mut local, &skipped, &[&base]);
    // A remote that holds nothing for the project (a new remote, a reset branch)
    // sent nothing: read as deleting every file it would wipe this machine's memory.
    // `--push-local` takes nothing from it (its trees are not even read); for what
    // goes out (secrets, mtimes) the remote is what this machine last synced.
    let (remote, incoming) = match (mode, remote_tree) {
        (Mode::PushLocal, _) => (base.clone(), local.clone()),
        (_, Some(tree)) => {
            let walked = r.walk(tree)?;
            // Dot paths the remote holds (and the last synced state did not hold
            // as they are): memctl writes nothing there (issue 29 point 9).
            if let Some((p, _)) = walked
                .reserved
                .iter()
                .find(|(p, oid)| base_reserved.get(*p) != Some(*oid))
            {
                let why = crate::bundle::path_refusal(p).unwrap_or_default();
                return Err(Error::new(
                    Kind::InvalidInput,
                    format!(
                        "sync refused: the remote puts {p} into {}'s memory: {why}; nothing was written or pushed",
                        t.identity
                    ),
                )
                .hint("remove it from the remote, or restore the remote from this machine with `memctl sync --push-local`"));
            }
            let mut files = walked.files;
            t.only_mine(&mut files);
            (files.clone(), files)
        }
        (_, None) => (base.clone(), base.clone()),
    };
    // `--accept-remote`: every file here reads as unchanged since the base, so the
    // merge takes the remote's version of each, and its deletions.
    if mode == Mode::AcceptRemote {
        base = local.clone();
    }
    let base_known = base_commit.is_some() || mode == Mode::AcceptRemote;
    for s in &skipped {
        match crate::bundle::path_refusal(s) {
            Some(why) => warnings.push(format!("{}: {s}: {why}: not synced", t.identity)),
            None => warnings.push(format!(
                "{}: {s} is not a regular memory file with a portable name: not synced",
                t.identity
            )),
        }
    }
    let mut report = ProjectReport {
        identity: t.identity.clone(),
        memory_dir: Some(crate::paths::with_sep(&t.dir)),
        skipped,
        ..Default::default()
    };
    // Local changes that delete more than half of the memories.
    let mut approved = false;
    if more_than_half(deletions(&base, &local, index_name), memories(&base, index_name)) {
        if !opts.allow_mass_delete {
            return Err(Error::new(
                Kind::Conflict,
                format!(
                    "{}: the local changes delete {} of {} memories; nothing was written or pushed",
                    t.identity,
                    deletions(&base, &local, index_name),
                    memories(&base, index_name)
                ),
            )
            .hint("if that is meant, run `memctl sync --allow-mass-delete`; else bring the files back (`memctl history`, `memctl restore`)"));
        }
        approved = true;
    }
    // A received mass deletion is approved on this machine, never by the remote:
    // a `Mass-Delete-Approved:` trailer in its commits is information, not
    // permission (SPEC v3 §11.3).
    if remote_tip.is_some()
        && base_known
        && more_than_half(deletions(&base, &incoming, index_name), memories(&base, index_name))
        && !opts.allow_mass_delete
    {
        return Err(Error::new(
            Kind::Conflict,
            format!(
                "{}: what the remote sent deletes {} of {} memories here; nothing was written or pushed",
                t.identity,
                deletions(&base, &incoming, index_name),
                memories(&base, index_name)
            ),
        )
        .hint("if that is meant, approve it on this machine with `memctl sync --allow-mass-delete` (`--dry-run` lists the files first; an approval in the remote's commits does not count)"));
    }
    let machine = r
        .ref_id(REMOTE_BRANCH)
        .and_then(|c| r.machine_of(c))
        .unwrap_or_else(|| "remote".to_string());
    let mut acts = Vec::new();
    let mut mtimes = crate::bundle::Mtimes::default();
    let mut gone = BTreeSet::new();
    let mut kept = BTreeSet::new();
    let names: BTreeSet<&String> = base.keys().chain(local.keys()).chain(incoming.keys()).collect();
    let oid = |f: &Files, k: &str| f.get(k).map(|b| b.oid);
    for rel in names {
        if rel == index_name {
            continue;
        }
        let (b, l, rm) = (oid(&base, rel), oid(&local, rel), oid(&incoming, rel));
        let decision = merge::decide(b.as_ref(), l.as_ref(), rm.as_ref());
        let exists = match decision {
            Decision::Same | Decision::KeepLocal => l.is_some(),
            Decision::TakeRemote | Decision::KeptDeletedHere => rm.is_some(),
            Decision::KeptDeletedThere | Decision::Conflict => true,
        };
        if exists {
            kept.insert(rel.clone());
        }
        if matches!(
            decision,
            Decision::KeepLocal | Decision::Conflict | Decision::KeptDeletedThere
        ) {
            report.sent.push(rel.clone());
        }
        match decision {
            Decision::Same | Decision::KeepLocal => {}
            Decision::TakeRemote | Decision::KeptDeletedHere => {
                match &incoming.get(rel) {
                    Some(rb) => {
                        if l.is_none() {
                            report.added.push(rel.clone());
                        } else {
                            report.updated.push(rel.clone());
                        }
                        acts.push(Act::Take {
                            rel: rel.clone(),
                            old: local_bytes.get(rel).cloned(),
                            oid: rb.oid,
                            mtime_ns: mtimes.take(rel, rb.listed.then_some(rb.mtime_ns), opts.now),
                        });
                    }
                    None => {
                        report.deleted.push(rel.clone());
                        gone.insert(rel.clone());
                        acts.push(Act::Delete {
                            rel: rel.clone(),
                            old: local_bytes.get(rel).cloned().unwrap_or_default(),
                        });
                    }
                }
                if merge::decide(b.as_ref(), l.as_ref(), rm.as_ref()) == Decision::KeptDeletedHere {
                    warnings.push(format!(
                        "{}: {rel} was deleted here and changed on {machine}: the changed version was kept",
                        t.identity
                    ));
                }
            }
            Decision::KeptDeletedThere => {
                report.skipped.push(rel.clone());
                warnings.push(format!(
                    "{}: {rel} was deleted on {machine} and changed here: the local version was kept",
                    t.identity
                ));
            }
            Decision::Conflict => {
                let rb = &incoming[rel];
                let bytes = r.blob(rb.oid)?;
                let from = r
                    .ref_id(REMOTE_BRANCH)
                    .and_then(|tip| r.machine_that_wrote(tip, &t.member(), rel, rb.oid))
                    .unwrap_or_else(|| machine.clone());
                let suffix = conflict_suffix(&from, opts.now);
                if let Some((name, new)) = conflict_name(&t.dir, rel, &suffix, &bytes) {
                    if new {
                        acts.push(Act::Keep {
                            rel: name.clone(),
                            oid: rb.oid,
                            mtime_ns: mtimes.take(&name, rb.listed.then_some(rb.mtime_ns), opts.now),
                        });
                    }
                    report.conflicts.push(Conflict {
                        file: rel.clone(),
                        kept_as: name,
                        reason: "changed here and on the remote",
                    });
                }
            }
        }
    }
    if mode == Mode::PushLocal {
        // Nothing is merged: what goes out is every difference from the remote's
        // tree (for the report only: one past the limits counts as what this
        // machine last synced).
        let there = match remote_tree {
            Some(tree) => r.walk(tree).map(|w| w.files).unwrap_or_else(|_| remote.clone()),
            None => Files::new(),
        };
        let mut there = there;
        t.only_mine(&mut there);
        report.sent = names_differing(&local, &there, index_name);
    } else if local
        .get(index_name)
        .is_some_and(|l| remote.get(index_name).is_none_or(|r| r.oid != l.oid))
    {
        report.sent.push(index_name.to_string());
    }
    // MEMORY.md: lines keyed by link target (steps 3–4).
    let text = |f: &Files| -> Result<Option<String>, Error> {
        match f.get(index_name) {
            Some(b) => Ok(Some(String::from_utf8_lossy(&r.blob(b.oid)?).into_owned())),
            None => Ok(None),
        }
    };
    let local_index = local_bytes
        .get(index_name)
        .map(|b| String::from_utf8_lossy(b).into_owned());
    // The index links its files relative to its own dir (`team/x.md` is `x.md`
    // in `team/MEMORY.md`).
    let linked = |set: &BTreeSet<String>| -> BTreeSet<String> {
        set.iter()
            .filter_map(|rel| rel.strip_prefix(t.prefix()))
            .map(str::to_string)
            .collect()
    };
    let prefix = t.prefix();
    let remote_index = if mode == Mode::PushLocal {
        None
    } else {
        text(&incoming)?
    };
    let mut index = None;
    let mut index_cut = None;
    if remote_index.is_some() || !gone.is_empty() || !report.skipped.is_empty() {
        let base_index = text(&base)?.unwrap_or_default();
        let mut types: HashMap<String, Option<String>> = HashMap::new();
        for a in &acts {
            if let Act::Take { rel, oid, .. } = a {
                types.insert(rel.clone(), memory_type(&r.blob(*oid)?));
            }
        }
        let type_of = |f: &str| -> Option<String> {
            let f = format!("{prefix}{f}");
            types
                .get(&f)
                .cloned()
                .flatten()
                .or_else(|| local_bytes.get(&f).and_then(|b| memory_type(b)))
        };
        let l = local_index.clone().unwrap_or_default();
        let (gone, kept) = (linked(&gone), linked(&kept));
        let merged = merge::merge_index(
            &base_index,
            &l,
            remote_index.as_deref().unwrap_or(&base_index),
            &gone,
            &kept,
            &type_of,
        );
        if let (Some(ri), Some(tip)) = (&remote_index, remote_tip) {
            report.index_replaced = merge::replaced_lines(&base_index, ri, &merged, &gone);
            for e in &mut report.index_replaced {
                e.commit = tip.to_string();
            }
        }
        if merged != l {
            let load = crate::index::load::load(&merged);
            if load.line_truncated || load.unit_truncated {
                index_cut = Some(load.reason.unwrap_or_else(|| "over a cap".into()));
            }
            report.cut_entries = crate::index::place::cut_entries(&l, &merged);
            if local_index.is_some() {
                report.updated.push(index_name.to_string());
            } else {
                report.added.push(index_name.to_string());
            }
            index = Some((local_index, merged));
        }
    }
    Ok(Plan {
        target: t.clone(),
        local,
        local_bytes,
        remote,
        acts,
        index,
        index_cut,
        notes: mtimes.notes(&t.identity),
        report,
        mass_delete_approved: approved,
    })
}

/// Carry out one plan through its Writer. A file changed meanwhile is not
/// overwritten: it becomes a conflict (or stays, for a deletion).
fn apply(r: &SyncRepo, plan: &mut Plan, w: &mut Writer, opts: &Options, machine: &str) -> Result<(), Error> {
    let dir = plan.target.dir.clone();
    let suffix = conflict_suffix(machine, opts.now);
    let mut trash: Option<PathBuf> = None;
    for a in &plan.acts {
        match a {
            Act::Take {
                rel,
                old,
                oid,
                mtime_ns,
            } => {
                let bytes = r.blob(*oid)?;
                let path = dir.join(rel);
                let done = match old {
                    Some(old) => w.replace_holding(&path, old, &bytes, *mtime_ns)?,
                    None => match w.create_at(&path, &bytes, *mtime_ns) {
                        Ok(()) => true,
                        Err(e) if e.kind == Kind::Exists => false,
                        Err(e) => return Err(e),
                    },
                };
                if !done {
                    plan.report.added.retain(|f| f != rel);
                    plan.report.updated.retain(|f| f != rel);
                    if let Some((name, new)) = conflict_name(&dir, rel, &suffix, &bytes) {
                        if new {
                            w.create_at(&dir.join(&name), &bytes, *mtime_ns)?;
                        }
                        plan.report.conflicts.push(Conflict {
                            file: rel.clone(),
                            kept_as: name,
                            reason: "changed here while sync was writing it",
                        });
                    }
                }
            }
            Act::Delete { rel, old } => {
                let path = dir.join(rel);
                let now = crate::fsread::read_regular(&path, MAX_FILE_BYTES).ok();
                if now.as_deref() != Some(old.as_slice()) {
                    plan.report.deleted.retain(|f| f != rel);
                    plan.report.skipped.push(rel.clone());
                    continue;
                }
                if w.history_holds(&path, old, false) {
                    w.remove(&path)?;
                } else {
                    let t = match &trash {
                        Some(t) => t.clone(),
                        None => {
                            let t = w.trash_dir()?;
                            trash = Some(t.clone());
                            t
                        }
                    };
                    w.trash(&t, rel, &path)?;
                }
            }
            Act::Keep { rel, oid, mtime_ns } => {
                let bytes = r.blob(*oid)?;
                let path = dir.join(rel);
                match w.create_at(&path, &bytes, *mtime_ns) {
                    Ok(()) => {}
                    Err(e) if e.kind == Kind::Exists => {}
                    Err(e) => return Err(e),
                }
            }
        }
    }
    let index_name = plan.target.index();
    if let Some((before, after)) = &plan.index {
        let path = dir.join(index_name);
        match before {
            Some(old) => {
                if let Err(e) = w.replace_expecting(&path, old.as_bytes(), after.as_bytes()) {
                    if e.kind != Kind::Conflict {
                        return Err(e);
                    }
                    // Changed meanwhile: left as it is now; the next sync merges it.
                    plan.report.updated.retain(|f| f != index_name);
                    plan.report.skipped.push(index_name.to_string());
                }
            }
            None => match w.create(&path, after.as_bytes()) {
                Ok(()) => {}
                Err(e) if e.kind == Kind::Exists => {
                    plan.report.added.retain(|f| f != index_name);
                    plan.report.skipped.push(index_name.to_string());
                }
                Err(e) => return Err(e),
            },
        }
    }
    w.discard_empty_trash();
    Ok(())
}

/// Secret-like findings (ML121) in what would go out: the local files the merge
/// sends ([`ProjectReport::sent`]) that the remote does not hold with these
/// bytes. (Not a file the remote deleted and this machine is about to delete.)
fn secrets(plan: &Plan) -> Vec<String> {
    let mut out = Vec::new();
    for rel in &plan.report.sent {
        let Some(b) = plan.local.get(rel) else { continue };
        if plan.remote.get(rel).is_some_and(|rb| rb.oid == b.oid) {
            continue;
        }
        let Some(bytes) = plan.local_bytes.get(rel) else {
            continue;
        };
        let path = plan.target.dir.join(rel);
        for f in crate::lint::secret_findings(&path, &String::from_utf8_lossy(bytes)) {
            out.push(format!(
                "{}: {rel}:{}: ML121 {}",
                plan.target.identity, f.line, f.message
            ));
        }
    }
    out
}

fn merge_reports(into: &mut ProjectReport, from: ProjectReport) {
    fn add<T: PartialEq>(a: &mut Vec<T>, b: Vec<T>) {
        for x in b {
            if !a.contains(&x) {
                a.push(x);
            }
        }
    }
    add(&mut into.added, from.added);
    add(&mut into.updated, from.updated);
    add(&mut into.deleted, from.deleted);
    add(&mut into.skipped, from.skipped);
    add(&mut into.conflicts, from.conflicts);
    add(&mut into.index_replaced, from.index_replaced);
    // What goes out is the last try's: a rejected push sent nothing.
    into.sent = from.sent;
}

/// The commit message: a summary and the trailers.
fn message(machine: &str, what: &str, reports: &[ProjectReport], approved: &[String]) -> String {
    let mut m = format!("sync: {what} from {machine}\n\n");
    for p in reports {
        let n = p.added.len() + p.updated.len() + p.deleted.len();
        if n > 0 || !p.conflicts.is_empty() {
            m.push_str(&format!(
                "{}: +{} ~{} -{} conflicts {}\n",
                p.identity,
                p.added.len(),
                p.updated.len(),
                p.deleted.len(),
                p.conflicts.len()
            ));
        }
    }
    m.push_str(&format!("\nMachine: {}\n", machine.replace(['\n', '\r'], " ")));
    for id in approved {
        m.push_str(&format!("Mass-Delete-Approved: {id}\n"));
    }
    m
}

/// Run one sync of `targets`; `extra` are synced only when the remote holds them
/// (`--all-projects`: this machine's dirs with no memories yet).
pub fn run(targets: Vec<Target>, extra: Vec<Target>, opts: &Options) -> Result<Outcome, Error> {
    let mut r = SyncRepo::open(&opts.repo)?;
    let mut notes = Vec::new();
    let mut warnings = Vec::new();
    let (url, change) = choose_remote(&r, opts.remote.as_deref())?;
    // Another remote than the one the merge bases came from: a first sync.
    let fresh_base = matches!(change, Some(Some(_)));
    transport::fetch(&r.path, &url)?;
    r.reopen()?;
    let remote_projects = r.projects(r.ref_id(REMOTE_BRANCH))?;
    let mut targets = targets;
    for t in extra {
        if remote_projects.contains_key(&t.member()) && !targets.iter().any(|x| x.identity == t.identity) {
            targets.push(t);
        }
    }
    let machine = opts.machine.clone();
    // Refusals before anything is written: a live dream, unresolved conflicts.
    for t in &targets {
        crate::store::ensure_no_dream_for(&t.dir, opts.now, "sync")?;
        let open = conflict_files(&t.dir);
        if let Some((_, first)) = open.first() {
            return Err(Error::new(
                Kind::UnresolvedConflicts,
                format!(
                    "{}: {} unresolved sync conflict{} ({}{}); nothing was written or pushed",
                    t.identity,
                    open.len(),
                    if open.len() == 1 { "" } else { "s" },
                    first,
                    if open.len() > 1 { ", …" } else { "" }
                ),
            )
            .hint("`memctl sync --status` lists them; merge what you want into the memory, then delete the conflict file or run `memctl sync --resolve FILE`"));
        }
    }
    let mut reports: BTreeMap<String, ProjectReport> = BTreeMap::new();
    if opts.dry_run {
        let remote_tree_of = |m: &str| remote_projects.get(m).copied();
        let mut any = false;
        for t in &targets {
            let plan = plan_project(
                &r,
                t,
                remote_tree_of(&t.member()),
                opts,
                (false, fresh_base),
                &mut warnings,
            )?;
            for s in secrets(&plan) {
                warnings.push(format!(
                    "secret-like: {s}{}",
                    if opts.allow_secrets {
                        ""
                    } else {
                        " (a sync refuses it without --allow-secrets)"
                    }
                ));
            }
            notes.extend(plan.notes.iter().cloned());
            any |= plan
                .local
                .iter()
                .any(|(k, b)| plan.remote.get(k).is_none_or(|rb| rb.oid != b.oid))
                || plan.remote.keys().any(|k| !plan.local.contains_key(k));
            reports.insert(t.identity.clone(), plan.report);
        }
        return Ok(Outcome {
            remote: url,
            projects: reports.into_values().collect(),
            warnings,
            notes,
            push: PushResult::DryRun(any),
        });
    }
    // The write lock of every dir, from step 1 to step 4 (dirs in a stable order).
    let mut writers: Vec<(Target, Writer)> = Vec::new();
    let mut order = targets.clone();
    order.sort_by(|a, b| a.dir.cmp(&b.dir));
    for t in order {
        let rec = Recording {
            settings: opts.history.clone(),
            command: "sync",
            project: t.project.as_ref().and_then(|p| std::fs::canonicalize(p).ok()),
        };
        let w = Writer::open(&MemoryDir::open(&t.dir, Scope::Main), opts.now, false, &rec)?;
        writers.push((t, w));
    }
    let mut retries = 0;
    loop {
        let remote_tip = r.ref_id(REMOTE_BRANCH);
        let remote_projects = r.projects(remote_tip)?;
        let mut plans = Vec::new();
        let mut found = Vec::new();
        for (t, _) in &writers {
            let plan = plan_project(
                &r,
                t,
                remote_projects.get(&t.member()).copied(),
                opts,
                (true, fresh_base && retries == 0),
                &mut warnings,
            )?;
            found.extend(secrets(&plan));
            for n in &plan.notes {
                if !notes.contains(n) {
                    notes.push(n.clone());
                }
            }
            plans.push(plan);
        }
        if retries == 0 {
            if !opts.allow_secrets && !found.is_empty() {
                // SPEC v3 §11.3: refused by default; the refusal names each file
                // and line (a warning would be lost with the outcome).
                return Err(crate::ops::export::secrets_refused(
                    "sync refused: what it would push holds",
                    "nothing written or pushed",
                    &found,
                    opts.strict,
                )
                .hint("remove the tokens from the memories (`memctl edit FILE`), or pass --allow-secrets to push them anyway"));
            }
            warnings.extend(found.into_iter().map(|s| format!("secret-like: {s}")));
            // Every refusal is behind us: remember the remote, and (step 1) commit
            // what is here on the local branch.
            if let Some(had) = &change {
                remember_remote(&r, &url, had.as_deref(), &mut notes)?;
            }
            commit_local(&r, &plans, &machine, opts.now)?;
        }
        // Step 4: write, then record the merged state.
        let mut projects = if remote_tip.is_some() {
            remote_projects.clone()
        } else {
            r.projects(r.ref_id(BRANCH))?
        };
        let mut approved = Vec::new();
        for (plan, (_, w)) in plans.iter_mut().zip(writers.iter_mut()) {
            // What the dir holds now: as planned when nothing was written into it
            // (no second read of every file), else read again after the writes.
            let mut files = if plan.acts.is_empty() && plan.index.is_none() {
                plan.local.clone()
            } else {
                apply(&r, plan, w, opts, &machine_of_remote(&r))?;
                let mut skipped = Vec::new();
                let (mut files, _) = read_local(&r, &plan.target.dir, true, &mut skipped)?;
                plan.target.only_mine(&mut files);
                skipped.retain(|s| s.starts_with(plan.target.prefix()));
                carry(&mut files, &skipped, &[&plan.remote, &plan.local]);
                files
            };
            // Bytes the remote holds keep the remote's mtime in the tree: an mtime
            // alone is no change to push back and forth.
            for (rel, b) in files.iter_mut() {
                // (Not a time the remote did not list: the one given here is listed.)
                if let Some(rb) = plan.remote.get(rel).filter(|rb| rb.oid == b.oid && rb.listed) {
                    b.mtime_ns = rb.mtime_ns;
                }
            }
            let member = plan.target.member();
            let files = with_rest(&r, &plan.target, projects.get(&member).copied(), &files)?;
            // What goes out: the files the pushed tree holds otherwise than the
            // remote (a local index line the merge gave up is not "sent").
            if opts.mode != Mode::PushLocal {
                let mut there = match remote_projects.get(&member) {
                    Some(tree) if remote_tip.is_some() => {
                        r.walk(*tree).map(|w| w.files).unwrap_or_else(|_| plan.remote.clone())
                    }
                    _ => Files::new(),
                };
                // A team target sends only its team dir's files.
                let mut mine = files.clone();
                plan.target.only_mine(&mut mine);
                plan.target.only_mine(&mut there);
                plan.report.sent = names_differing(&mine, &there, plan.target.index());
            }
            projects.insert(member, r.write_project(&files)?);
            if plan.mass_delete_approved {
                approved.push(plan.target.identity.clone());
            }
            if !plan.report.cut_entries.is_empty() {
                let label = format!("{}: MEMORY.md", plan.target.identity);
                let rebuild = format!("memctl --dir {} index rebuild", plan.target.dir.display());
                warnings.extend(crate::index::place::cut_warnings(
                    &label,
                    &plan.report.cut_entries,
                    &rebuild,
                ));
            } else if let Some(cut) = &plan.index_cut {
                warnings.push(format!(
                    "{}: MEMORY.md is cut after the merge ({cut}): run `memctl --dir {} index rebuild`",
                    plan.target.identity,
                    plan.target.dir.display()
                ));
            }
        }
        let tree = r.write_root(&projects)?;
        let main = r.ref_id(BRANCH);
        let reps: Vec<ProjectReport> = plans.iter().map(|p| p.report.clone()).collect();
        let head = if remote_tip.is_some_and(|t| r.tree_of(t) == Some(tree)) {
            remote_tip.unwrap_or_else(|| ObjectId::null(gix::hash::Kind::Sha1))
        } else if main.is_some_and(|m| r.tree_of(m) == Some(tree)) && remote_tip.is_none() {
            main.unwrap_or_else(|| ObjectId::null(gix::hash::Kind::Sha1))
        } else {
            let mut parents: Vec<ObjectId> = main.into_iter().collect();
            if let Some(t) = remote_tip
                && !parents.contains(&t)
            {
                parents.push(t);
            }
            r.commit(tree, &parents, &message(&machine, "merge", &reps, &approved), opts.now)?
        };
        r.set_ref(BRANCH, head, "sync: merged")?;
        // The merge base is what this dir and the remote both hold: the remote tip
        // just merged, until the push makes `head` the remote's too. Moving it to
        // `head` before the push would make a rejected or cut-short push look like
        // the remote deleted this machine's new files.
        if let Some(tip) = remote_tip {
            set_synced(&r, &plans, tip)?;
        }
        for rep in reps {
            match reports.get_mut(&rep.identity) {
                Some(into) => merge_reports(into, rep),
                None => {
                    reports.insert(rep.identity.clone(), rep);
                }
            }
        }
        if remote_tip == Some(head) {
            return finish(writers, url, reports, warnings, notes, PushResult::UpToDate);
        }
        match transport::push(&r.path, &url, &head.to_hex().to_string())? {
            Pushed::Done => {
                let _ = r.set_ref(REMOTE_BRANCH, head, "sync: pushed");
                set_synced(&r, &plans, head)?;
                let push = PushResult::Pushed {
                    commit: head.to_hex_with_len(8).to_string(),
                    retries,
                };
                return finish(writers, url, reports, warnings, notes, push);
            }
            Pushed::Rejected if retries < RETRIES => {
                retries += 1;
                transport::fetch(&r.path, &url)?;
                r.reopen()?;
            }
            Pushed::Rejected => {
                return Err(Error::new(
                    Kind::Busy,
                    format!(
                        "the push to {url} was rejected {} times: other machines keep syncing",
                        RETRIES + 1
                    ),
                )
                .hint("the memory dirs are merged and consistent; run `memctl sync` again"));
            }
        }
    }
}

/// Step 1: the local branch gets a commit of each project as this machine has it.
fn commit_local(r: &SyncRepo, plans: &[Plan], machine: &str, now: DateTime<Utc>) -> Result<(), Error> {
    let mut projects = r.projects(r.ref_id(BRANCH))?;
    for plan in plans {
        let member = plan.target.member();
        let files = with_rest(r, &plan.target, projects.get(&member).copied(), &plan.local)?;
        projects.insert(member, r.write_project(&files)?);
    }
    let tree = r.write_root(&projects)?;
    let main = r.ref_id(BRANCH);
    if main.and_then(|m| r.tree_of(m)) != Some(tree) {
        let parents: Vec<ObjectId> = main.into_iter().collect();
        let c = r.commit(tree, &parents, &message(machine, "local memory", &[], &[]), now)?;
        r.set_ref(BRANCH, c, "sync: local memory")?;
    }
    Ok(())
}

/// Move each planned project's merge base (its synced ref) to `commit`; only
/// after its memory dir was written.
fn set_synced(r: &SyncRepo, plans: &[Plan], commit: ObjectId) -> Result<(), Error> {
    for plan in plans {
        r.set_ref(&plan.target.synced_ref(), commit, "sync: memory dir written")?;
    }
    Ok(())
}

fn machine_of_remote(r: &SyncRepo) -> String {
    r.ref_id(REMOTE_BRANCH)
        .and_then(|c| r.machine_of(c))
        .unwrap_or_else(|| "remote".to_string())
}

fn finish(
    writers: Vec<(Target, Writer)>,
    remote: String,
    reports: BTreeMap<String, ProjectReport>,
    mut warnings: Vec<String>,
    notes: Vec<String>,
    push: PushResult,
) -> Result<Outcome, Error> {
    for (_, mut w) in writers {
        warnings.extend(w.finish());
    }
    let mut seen = BTreeSet::new();
    warnings.retain(|w| seen.insert(w.clone()));
    Ok(Outcome {
        remote,
        projects: reports.into_values().collect(),
        warnings,
        notes,
        push,
    })
}
