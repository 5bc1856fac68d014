//! One project's sync, planned (nothing written into its memory dir): the three
//! sides read (the last synced state as the base, this machine's files, the
//! remote's), the refusals that come before any write, SPEC §11.3 step 2 (the
//! per-file merge, [`per_file`]) and step 3 (`MEMORY.md` rebuilt, [`index`]).

mod index;
mod per_file;

use std::collections::{BTreeMap, HashMap};

use gix::ObjectId;

use super::read::{carry, mass_deletion, names_differing, read_local};
use super::repo::{Files, REMOTE_BRANCH, SyncRepo};
use super::{Mode, Options, ProjectReport, Target};
use crate::error::{Error, Kind};

/// The bytes of this machine's files, by path below the memory dir.
type Bytes = HashMap<String, Vec<u8>>;

/// One file to change in the memory dir.
#[derive(Debug)]
pub(super) enum Act {
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

/// The index to write: as read (`None`: absent), merged, and why Claude Code
/// would cut the merged one (`None`: it loads whole).
#[derive(Debug)]
pub(super) struct NewIndex {
    pub before: Option<String>,
    pub after: String,
    pub cut: Option<String>,
}

/// One project's merge, planned (nothing written).
pub(super) struct Plan {
    pub target: Target,
    pub local: Files,
    pub local_bytes: Bytes,
    pub remote: Files,
    pub acts: Vec<Act>,
    /// The index, when the merge changes it.
    pub index: Option<NewIndex>,
    pub report: ProjectReport,
    /// What the user is told about the plan: incoming mtimes clamped (issue 29 point 13).
    pub notes: Vec<String>,
    pub mass_delete_approved: bool,
}

/// The sides of one project's merge, as read.
struct Sides {
    /// The last synced state (for `--accept-remote`: the local files).
    base: Files,
    local: Files,
    local_bytes: Bytes,
    /// What the remote holds (for `--push-local`: the base).
    remote: Files,
    /// What the merge takes as the remote's side (for `--push-local`: the local files).
    incoming: Files,
}

/// Plan one project: read its sides, refuse what must be refused, merge its
/// files (step 2) and its index (step 3).
pub(super) fn plan_project(
    r: &SyncRepo,
    t: &Target,
    remote_tree: Option<ObjectId>,
    opts: &Options,
    (write_blobs, fresh_base): (bool, bool),
    warnings: &mut Vec<String>,
) -> Result<Plan, Error> {
    let base_commit = if fresh_base { None } else { r.ref_id(&t.synced_ref()) };
    let remote_tip = r.ref_id(REMOTE_BRANCH);
    let rewound = refuse_rewound(r, t, opts.mode, base_commit, remote_tip)?;
    let (base, base_reserved) = read_base(r, t, base_commit)?;
    let refused = || remote_tree.is_some_and(|tree| remote_refused(r, tree, &base_reserved));
    let mode = effective_mode(opts.mode, rewound, refused);
    if mode != opts.mode {
        warnings.push(mode_note(t, opts.mode));
    }
    let (sides, skipped) = read_sides(r, t, (mode, remote_tree), write_blobs, base, &base_reserved)?;
    warn_skipped(t, &skipped, warnings);
    let mut report = ProjectReport {
        skipped,
        ..ProjectReport::of(t)
    };
    let received = remote_tip.is_some() && (base_commit.is_some() || mode == Mode::AcceptRemote);
    let approved = refuse_mass_deletions(t, &sides, received, opts.allow_mass_delete)?;
    let machine = super::read::machine_of_remote(r);
    let merged = per_file::merge_files(r, t, &sides, opts, &machine, &mut report, warnings)?;
    report.sent = sent(r, t, (mode, remote_tree), &sides, std::mem::take(&mut report.sent));
    let index = index::rebuild_index(r, t, &sides, mode, &merged, remote_tip, &mut report)?;
    Ok(Plan {
        target: t.clone(),
        local: sides.local,
        local_bytes: sides.local_bytes,
        remote: sides.remote,
        acts: merged.acts,
        index,
        notes: merged.notes,
        report,
        mass_delete_approved: approved,
    })
}

/// Whether the remote was rewound: its branch does not descend from the commit
/// this machine last synced (`base_commit`). Refused in the ordinary merge.
fn refuse_rewound(
    r: &SyncRepo,
    t: &Target,
    mode: Mode,
    base_commit: Option<ObjectId>,
    remote_tip: Option<ObjectId>,
) -> Result<bool, Error> {
    let rewound = base_commit.is_some_and(|b| !remote_tip.is_some_and(|tip| r.descends(tip, b)));
    if mode == Mode::Merge
        && rewound
        && let Some(b) = base_commit
    {
        return Err(rewound_refusal(t, remote_tip, b));
    }
    Ok(rewound)
}

/// A remote that does not descend from the commit this machine last synced
/// (rolled back, force-pushed, its branch deleted) is no base for a merge: its
/// "deletions" are newer memories it lost. The user decides (SPEC v3 §11.3).
fn rewound_refusal(t: &Target, remote_tip: Option<ObjectId>, base: ObjectId) -> Error {
    let short = |c: ObjectId| c.to_hex_with_len(8).to_string();
    Error::new(
        Kind::Conflict,
        format!(
            "{}: the remote's branch ({}) does not descend from {}, the commit this machine last synced: it was rolled back or rewritten; nothing was written or pushed",
            t.identity,
            remote_tip.map_or_else(|| "deleted".to_string(), |c| format!("now {}", short(c))),
            short(base)
        ),
    )
    .hint("run `memctl sync --push-local` to restore the remote from this machine, or `memctl sync --accept-remote` to take the remote as it is (add --dry-run first to see what it would delete here)")
}

/// The base: the project's files at the last synced commit (only this target's),
/// and the dot paths that tree held.
fn read_base(
    r: &SyncRepo,
    t: &Target,
    base_commit: Option<ObjectId>,
) -> Result<(Files, BTreeMap<String, ObjectId>), Error> {
    let base_walk = match base_commit.and_then(|c| r.projects(Some(c)).ok()?.get(&t.member()).copied()) {
        Some(tree) => Some(r.walk(tree)?),
        None => None,
    };
    let base_reserved = base_walk.as_ref().map(|w| w.reserved.clone()).unwrap_or_default();
    let mut base = base_walk.map(|w| w.files).unwrap_or_default();
    t.only_mine(&mut base);
    Ok((base, base_reserved))
}

/// Whether memctl refuses the remote's tree: past a limit, or holding a dot
/// path the last synced state did not hold as it is.
fn remote_refused(r: &SyncRepo, tree: ObjectId, base_reserved: &BTreeMap<String, ObjectId>) -> bool {
    r.walk(tree)
        .map(|w| w.reserved.iter().any(|(p, oid)| base_reserved.get(p) != Some(oid)))
        .unwrap_or(true)
}

/// The mode a project is synced in. `--push-local` and `--accept-remote` resolve
/// a remote memctl cannot merge: one rolled back, or, for `--push-local`, one
/// whose tree it refuses (`remote_refused`, asked only then). Against a remote
/// that moved forward normally (or on a first sync) they would throw away the
/// other machines' new memories or this machine's unsynced ones: there the sync
/// is the ordinary merge.
fn effective_mode(asked: Mode, rewound: bool, remote_refused: impl FnOnce() -> bool) -> Mode {
    match asked {
        Mode::PushLocal if !rewound && !remote_refused() => Mode::Merge,
        Mode::AcceptRemote if !rewound => Mode::Merge,
        m => m,
    }
}

/// The note for a `--push-local` or `--accept-remote` synced normally.
fn mode_note(t: &Target, asked: Mode) -> String {
    format!(
        "note: {}: the remote descends from the commit this machine last synced and memctl can merge it: {} ignored, synced normally",
        t.identity,
        if asked == Mode::PushLocal {
            "--push-local"
        } else {
            "--accept-remote"
        }
    )
}

/// The local and remote sides (and the base as the merge sees it), and the local
/// files that cannot travel.
fn read_sides(
    r: &SyncRepo,
    t: &Target,
    (mode, remote_tree): (Mode, Option<ObjectId>),
    write_blobs: bool,
    base: Files,
    base_reserved: &BTreeMap<String, ObjectId>,
) -> Result<(Sides, Vec<String>), Error> {
    let (local, local_bytes, skipped) = read_local_side(r, t, write_blobs, &base)?;
    // A remote that holds nothing for the project (a new remote, a reset branch)
    // sent nothing: read as deleting every file it would wipe this machine's memory.
    // `--push-local` takes nothing from it (its trees are not even read); for what
    // goes out (secrets, mtimes) the remote is what this machine last synced.
    let (remote, incoming) = match (mode, remote_tree) {
        (Mode::PushLocal, _) => (base.clone(), local.clone()),
        (_, Some(tree)) => {
            let files = read_remote(r, t, tree, base_reserved)?;
            (files.clone(), files)
        }
        (_, None) => (base.clone(), base.clone()),
    };
    // `--accept-remote`: every file here reads as unchanged since the base, so the
    // merge takes the remote's version of each, and its deletions.
    let base = if mode == Mode::AcceptRemote {
        local.clone()
    } else {
        base
    };
    let sides = Sides {
        base,
        local,
        local_bytes,
        remote,
        incoming,
    };
    Ok((sides, skipped))
}

/// This machine's files of the target, their bytes, and the files that cannot travel.
fn read_local_side(
    r: &SyncRepo,
    t: &Target,
    write_blobs: bool,
    base: &Files,
) -> Result<(Files, Bytes, Vec<String>), Error> {
    let mut skipped = Vec::new();
    let (mut local, mut local_bytes) = read_local(r, &t.dir, write_blobs, &mut skipped)?;
    t.only_mine(&mut local);
    if t.team {
        local_bytes.retain(|k, _| k.starts_with(t.prefix()));
    }
    skipped.retain(|s| s.starts_with(t.prefix()));
    // A file that cannot travel (a symlink, too big, unreadable) is not a local
    // deletion: it keeps its synced entry, so no machine deletes its copy.
    carry(&mut local, &skipped, &[base]);
    Ok((local, local_bytes, skipped))
}

/// The remote's files of the target. Dot paths the remote holds (and the last
/// synced state did not hold as they are) are refused: memctl writes nothing
/// there (issue 29 point 9).
fn read_remote(
    r: &SyncRepo,
    t: &Target,
    tree: ObjectId,
    base_reserved: &BTreeMap<String, ObjectId>,
) -> Result<Files, Error> {
    let walked = r.walk(tree)?;
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
    Ok(files)
}

/// A warning for each local file that cannot travel.
fn warn_skipped(t: &Target, skipped: &[String], warnings: &mut Vec<String>) {
    for s in skipped {
        match crate::bundle::path_refusal(s) {
            Some(why) => warnings.push(format!("{}: {s}: {why}: not synced", t.identity)),
            None => warnings.push(format!(
                "{}: {s} is not a regular memory file with a portable name: not synced",
                t.identity
            )),
        }
    }
}

/// Local changes that delete more than half of the memories need
/// `--allow-mass-delete` (`Ok(true)`: approved, recorded in the merge commit).
/// So does what the remote sent (`received`: there is a remote side and a base to
/// read deletions against), approved on this machine, never by the remote: a
/// `Mass-Delete-Approved:` trailer in its commits is information, not
/// permission (SPEC v3 §11.3).
fn refuse_mass_deletions(t: &Target, sides: &Sides, received: bool, allow: bool) -> Result<bool, Error> {
    let index = t.index();
    let mut approved = false;
    if let Some((deleted, of)) = mass_deletion(&sides.base, &sides.local, index) {
        if !allow {
            return Err(Error::new(
                Kind::Conflict,
                format!(
                    "{}: the local changes delete {deleted} of {of} memories; nothing was written or pushed",
                    t.identity
                ),
            )
            .hint("if that is meant, run `memctl sync --allow-mass-delete`; else bring the files back (`memctl history`, `memctl restore`)"));
        }
        approved = true;
    }
    if received
        && !allow
        && let Some((deleted, of)) = mass_deletion(&sides.base, &sides.incoming, index)
    {
        return Err(Error::new(
            Kind::Conflict,
            format!(
                "{}: what the remote sent deletes {deleted} of {of} memories here; nothing was written or pushed",
                t.identity
            ),
        )
        .hint("if that is meant, approve it on this machine with `memctl sync --allow-mass-delete` (`--dry-run` lists the files first; an approval in the remote's commits does not count)"));
    }
    Ok(approved)
}

/// What goes out: with `--push-local` every difference from the remote's tree
/// (nothing is merged; for the report only, a tree past the limits counts as
/// what this machine last synced), else the files the merge sends (`merged`)
/// and the local index when the remote holds another.
fn sent(
    r: &SyncRepo,
    t: &Target,
    (mode, remote_tree): (Mode, Option<ObjectId>),
    sides: &Sides,
    mut merged: Vec<String>,
) -> Vec<String> {
    let index = t.index();
    if mode == Mode::PushLocal {
        let mut there = match remote_tree {
            Some(tree) => r.walk(tree).map(|w| w.files).unwrap_or_else(|_| sides.remote.clone()),
            None => Files::new(),
        };
        t.only_mine(&mut there);
        return names_differing(&sides.local, &there, index);
    }
    if index_sent(&sides.local, &sides.remote, index) {
        merged.push(index.to_string());
    }
    merged
}

/// Whether the local index goes out: this machine has one the remote does not hold.
fn index_sent(local: &Files, remote: &Files, index: &str) -> bool {
    local
        .get(index)
        .is_some_and(|l| remote.get(index).is_none_or(|r| r.oid != l.oid))
}

#[cfg(test)]
mod tests {
    use super::super::read::tests::files;
    use super::*;

    fn target(team: bool) -> Target {
        Target {
            identity: "github.com/alice/app".into(),
            dir: "/nonexistent".into(),
            project: None,
            team,
        }
    }

    fn sides(base: Files, local: Files, incoming: Files) -> Sides {
        Sides {
            base,
            local,
            local_bytes: HashMap::new(),
            remote: incoming.clone(),
            incoming,
        }
    }

    #[test]
    fn push_local_and_accept_remote_only_apply_to_a_remote_that_cannot_be_merged() {
        use Mode::*;
        assert_eq!(effective_mode(Merge, false, || true), Merge);
        assert_eq!(effective_mode(Merge, true, || true), Merge);
        assert_eq!(effective_mode(AcceptRemote, false, || true), Merge);
        assert_eq!(effective_mode(AcceptRemote, true, || false), AcceptRemote);
        assert_eq!(effective_mode(PushLocal, false, || false), Merge);
        assert_eq!(effective_mode(PushLocal, false, || true), PushLocal);
        assert_eq!(effective_mode(PushLocal, true, || panic!("not asked")), PushLocal);
    }

    #[test]
    fn the_note_names_the_flag_that_was_ignored() {
        let n = mode_note(&target(false), Mode::AcceptRemote);
        assert!(n.starts_with("note: github.com/alice/app: "), "{n}");
        assert!(n.ends_with("--accept-remote ignored, synced normally"), "{n}");
    }

    #[test]
    fn a_local_mass_deletion_is_refused_unless_approved_here() {
        let base = files(&[("a.md", 1), ("b.md", 2), ("c.md", 3)]);
        let s = sides(base.clone(), files(&[("a.md", 1)]), base);
        let e = refuse_mass_deletions(&target(false), &s, true, false).unwrap_err();
        assert_eq!(e.kind, Kind::Conflict);
        assert!(
            e.to_string().contains("the local changes delete 2 of 3 memories"),
            "{e}"
        );
        assert!(refuse_mass_deletions(&target(false), &s, true, true).unwrap());
    }

    #[test]
    fn a_received_mass_deletion_is_refused_only_against_a_known_base() {
        let base = files(&[("a.md", 1), ("b.md", 2), ("c.md", 3)]);
        let s = sides(base.clone(), base, files(&[("c.md", 3)]));
        let e = refuse_mass_deletions(&target(false), &s, true, false).unwrap_err();
        assert!(
            e.to_string()
                .contains("what the remote sent deletes 2 of 3 memories here"),
            "{e}"
        );
        // Approved on this machine: not counted as this machine's approval.
        assert!(!refuse_mass_deletions(&target(false), &s, true, true).unwrap());
        assert!(!refuse_mass_deletions(&target(false), &s, false, false).unwrap());
    }

    #[test]
    fn the_local_index_goes_out_when_the_remote_holds_another() {
        let local = files(&[("MEMORY.md", 1)]);
        assert!(!index_sent(&local, &files(&[("MEMORY.md", 1)]), "MEMORY.md"));
        assert!(index_sent(&local, &files(&[("MEMORY.md", 2)]), "MEMORY.md"));
        assert!(index_sent(&local, &Files::new(), "MEMORY.md"));
        assert!(!index_sent(&Files::new(), &local, "MEMORY.md"));
    }

    #[test]
    fn a_rewound_remote_is_refused_naming_both_commits() {
        let base = ObjectId::from_bytes_or_panic(&[0xab; 20]);
        let e = rewound_refusal(&target(false), None, base);
        assert_eq!(e.kind, Kind::Conflict);
        assert!(
            e.to_string()
                .contains("branch (deleted) does not descend from abababab"),
            "{e}"
        );
        let tip = ObjectId::from_bytes_or_panic(&[0xcd; 20]);
        let e = rewound_refusal(&target(false), Some(tip), base);
        assert!(e.to_string().contains("branch (now cdcdcdcd)"), "{e}");
    }
}
