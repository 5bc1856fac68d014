//! SPEC §11.3 step 2: the per-file three-way merge of one project, with the last
//! synced state as the base. Each file but the index gets a [`Decision`]
//! ([`merge::decide`]); a decision becomes what is done here ([`Act`]), what
//! the report says, and what goes out with the push.

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};

use super::{Act, Sides};
use crate::bundle::Mtimes;
use crate::error::Error;
use crate::ops::import::{Conflict, conflict_name, conflict_suffix};
use crate::sync::merge::{self, Decision};
use crate::sync::repo::{Blob, Files, REMOTE_BRANCH, SyncRepo};
use crate::sync::{Options, ProjectReport, Target};

/// What step 2 decided for one project, besides its report.
#[derive(Debug, Default)]
pub(super) struct Merged {
    pub acts: Vec<Act>,
    /// Files the merge deletes here.
    pub gone: BTreeSet<String>,
    /// Files that exist after the merge.
    pub kept: BTreeSet<String>,
    /// Incoming mtimes clamped or missing.
    pub notes: Vec<String>,
}

/// Step 2: merge each file (but the index) of the three sides.
pub(super) fn merge_files(
    r: &SyncRepo,
    t: &Target,
    sides: &Sides,
    opts: &Options,
    machine: &str,
    report: &mut ProjectReport,
    warnings: &mut Vec<String>,
) -> Result<Merged, Error> {
    let mut m = Merged::default();
    let mut mtimes = Mtimes::default();
    for (rel, d) in decide_files(&sides.base, &sides.local, &sides.incoming, t.index()) {
        if exists_after(d, sides.local.contains_key(&rel), sides.incoming.contains_key(&rel)) {
            m.kept.insert(rel.clone());
        }
        if goes_out(d) {
            report.sent.push(rel.clone());
        }
        match d {
            Decision::Same | Decision::KeepLocal => {}
            Decision::TakeRemote | Decision::KeptDeletedHere => {
                m.acts
                    .push(take_remote(&rel, sides, (&mut mtimes, opts.now), report, &mut m.gone));
                if d == Decision::KeptDeletedHere {
                    warnings.push(format!(
                        "{}: {rel} was deleted here and changed on {machine}: the changed version was kept",
                        t.identity
                    ));
                }
            }
            Decision::KeptDeletedThere => {
                warnings.push(format!(
                    "{}: {rel} was deleted on {machine} and changed here: the local version was kept",
                    t.identity
                ));
                report.skipped.push(rel);
            }
            Decision::Conflict => {
                let rb = &sides.incoming[&rel];
                let keep = keep_conflict(r, t, (&rel, rb), machine, (&mut mtimes, opts.now), report)?;
                m.acts.extend(keep);
            }
        }
    }
    m.notes = mtimes.notes(&t.identity);
    Ok(m)
}

/// Every file of the three sides but the index, in name order, with the merge's
/// decision for it (SPEC §11.3 step 2's table, [`merge::decide`]).
fn decide_files(base: &Files, local: &Files, incoming: &Files, index: &str) -> Vec<(String, Decision)> {
    let names: BTreeSet<&String> = base.keys().chain(local.keys()).chain(incoming.keys()).collect();
    let oid = |f: &Files, k: &str| f.get(k).map(|b| b.oid);
    names
        .into_iter()
        .filter(|rel| rel.as_str() != index)
        .map(|rel| {
            let (b, l, rm) = (oid(base, rel), oid(local, rel), oid(incoming, rel));
            (rel.clone(), merge::decide(b.as_ref(), l.as_ref(), rm.as_ref()))
        })
        .collect()
}

/// Whether the file exists after the merge (its index line is kept).
fn exists_after(d: Decision, here: bool, there: bool) -> bool {
    match d {
        Decision::Same | Decision::KeepLocal => here,
        Decision::TakeRemote | Decision::KeptDeletedHere => there,
        Decision::KeptDeletedThere | Decision::Conflict => true,
    }
}

/// Whether this machine's version goes out with the push.
fn goes_out(d: Decision) -> bool {
    matches!(d, Decision::KeepLocal | Decision::Conflict | Decision::KeptDeletedThere)
}

/// The remote's version of `rel` replaces the local one: written (added or
/// updated), or, when the remote deleted it, deleted here (`gone`).
fn take_remote(
    rel: &str,
    sides: &Sides,
    (mtimes, now): (&mut Mtimes, DateTime<Utc>),
    report: &mut ProjectReport,
    gone: &mut BTreeSet<String>,
) -> Act {
    let Some(rb) = sides.incoming.get(rel) else {
        report.deleted.push(rel.to_string());
        gone.insert(rel.to_string());
        return Act::Delete {
            rel: rel.to_string(),
            old: sides.local_bytes.get(rel).cloned().unwrap_or_default(),
        };
    };
    if sides.local.contains_key(rel) {
        report.updated.push(rel.to_string());
    } else {
        report.added.push(rel.to_string());
    }
    Act::Take {
        rel: rel.to_string(),
        old: sides.local_bytes.get(rel).cloned(),
        oid: rb.oid,
        mtime_ns: mtimes.take(rel, rb.listed.then_some(rb.mtime_ns), now),
    }
}

/// Changed on both sides differently: the local file stays and the remote's
/// version is kept beside it (SPEC §11.2's conflict file, named after the
/// machine that wrote that version), unless a conflict file already holds it.
fn keep_conflict(
    r: &SyncRepo,
    t: &Target,
    (rel, rb): (&str, &Blob),
    machine: &str,
    (mtimes, now): (&mut Mtimes, DateTime<Utc>),
    report: &mut ProjectReport,
) -> Result<Option<Act>, Error> {
    let bytes = r.blob(rb.oid)?;
    let from = r
        .ref_id(REMOTE_BRANCH)
        .and_then(|tip| r.machine_that_wrote(tip, &t.member(), rel, rb.oid))
        .unwrap_or_else(|| machine.to_string());
    let suffix = conflict_suffix(&from, now);
    let Some((name, new)) = conflict_name(&t.dir, rel, &suffix, &bytes) else {
        return Ok(None);
    };
    let act = new.then(|| Act::Keep {
        rel: name.clone(),
        oid: rb.oid,
        mtime_ns: mtimes.take(&name, rb.listed.then_some(rb.mtime_ns), now),
    });
    report.conflicts.push(Conflict {
        file: rel.to_string(),
        kept_as: name,
        reason: "changed here and on the remote",
    });
    Ok(act)
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::sync::read::tests::files;

    fn sides(base: Files, local: Files, incoming: Files) -> Sides {
        let local_bytes: HashMap<String, Vec<u8>> = local
            .iter()
            .map(|(k, b)| (k.clone(), vec![b.oid.as_bytes()[0]]))
            .collect();
        Sides {
            base,
            local,
            local_bytes,
            remote: incoming.clone(),
            incoming,
        }
    }

    #[test]
    fn every_file_but_the_index_is_decided_in_name_order() {
        let base = files(&[("MEMORY.md", 1), ("a.md", 1), ("b.md", 1), ("c.md", 1), ("d.md", 1)]);
        let local = files(&[
            ("MEMORY.md", 2),
            ("a.md", 1),
            ("b.md", 2),
            ("c.md", 2),
            ("d.md", 1),
            ("e.md", 1),
        ]);
        let incoming = files(&[("MEMORY.md", 3), ("a.md", 2), ("b.md", 1), ("c.md", 3)]);
        use Decision::*;
        let want = [
            ("a.md", TakeRemote),
            ("b.md", KeepLocal),
            ("c.md", Conflict),
            ("d.md", TakeRemote),
            ("e.md", KeepLocal),
        ];
        let got = decide_files(&base, &local, &incoming, "MEMORY.md");
        let want: Vec<(String, Decision)> = want.iter().map(|(r, d)| (r.to_string(), *d)).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn a_file_exists_after_the_merge_as_the_winning_side_has_it() {
        use Decision::*;
        assert!(exists_after(Same, true, true));
        assert!(!exists_after(Same, false, false));
        assert!(!exists_after(KeepLocal, false, true));
        assert!(exists_after(TakeRemote, false, true));
        assert!(!exists_after(TakeRemote, true, false));
        assert!(exists_after(KeptDeletedHere, false, true));
        assert!(exists_after(KeptDeletedThere, true, false));
        assert!(exists_after(Conflict, true, true));
    }

    #[test]
    fn what_this_machine_keeps_goes_out() {
        use Decision::*;
        let out: Vec<Decision> = [Same, TakeRemote, KeepLocal, Conflict, KeptDeletedHere, KeptDeletedThere]
            .into_iter()
            .filter(|d| goes_out(*d))
            .collect();
        assert_eq!(out, [KeepLocal, Conflict, KeptDeletedThere]);
    }

    #[test]
    fn taking_the_remote_writes_adds_or_deletes() {
        let s = sides(
            files(&[("a.md", 1), ("gone.md", 1)]),
            files(&[("a.md", 1), ("gone.md", 1)]),
            files(&[("a.md", 2), ("new.md", 3)]),
        );
        let now = DateTime::UNIX_EPOCH + chrono::Duration::days(20_000);
        let (mut mtimes, mut report, mut gone) = (Mtimes::default(), ProjectReport::default(), BTreeSet::new());
        let mut take = |rel: &str| take_remote(rel, &s, (&mut mtimes, now), &mut report, &mut gone);
        let a = take("a.md");
        assert!(
            matches!(&a, Act::Take { rel, old: Some(old), .. } if rel == "a.md" && old == &[1]),
            "{a:?}"
        );
        let n = take("new.md");
        assert!(matches!(&n, Act::Take { old: None, .. }), "{n:?}");
        let g = take("gone.md");
        assert!(
            matches!(&g, Act::Delete { rel, old } if rel == "gone.md" && old == &[1]),
            "{g:?}"
        );
        assert_eq!(report.updated, ["a.md"]);
        assert_eq!(report.added, ["new.md"]);
        assert_eq!(report.deleted, ["gone.md"]);
        assert_eq!(gone.into_iter().collect::<Vec<_>>(), ["gone.md"]);
    }
}
