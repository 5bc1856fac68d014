//! What a sync records in the sync repository: this machine's memory as a commit
//! on the local branch (SPEC §11.3 step 1), the merged state as a merge commit
//! (step 4), each project's merge base, and the reports of several tries.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use gix::ObjectId;

use super::ProjectReport;
use super::plan::Plan;
use super::read::with_rest;
use super::repo::{BRANCH, SyncRepo};
use crate::error::Error;

/// Step 1: the local branch gets a commit of each project as this machine has it.
pub(super) fn commit_local(r: &SyncRepo, plans: &[Plan], machine: &str, now: DateTime<Utc>) -> Result<(), Error> {
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

/// Step 4's record: the local branch moves to the merged state `projects`: the
/// remote's tip when it holds exactly that, the local branch's commit when there
/// is no remote branch and it holds that, else a merge commit of both (with the
/// reports' summary and the mass deletions approved here). Returns the commit.
pub(super) fn commit_merge(
    r: &SyncRepo,
    projects: &BTreeMap<String, ObjectId>,
    remote_tip: Option<ObjectId>,
    (machine, reports, approved): (&str, &[ProjectReport], &[String]),
    now: DateTime<Utc>,
) -> Result<ObjectId, Error> {
    let tree = r.write_root(projects)?;
    let main = r.ref_id(BRANCH);
    let head = match (remote_tip, main) {
        (Some(tip), _) if r.tree_of(tip) == Some(tree) => tip,
        (None, Some(m)) if r.tree_of(m) == Some(tree) => m,
        _ => {
            let mut parents: Vec<ObjectId> = main.into_iter().collect();
            if let Some(t) = remote_tip
                && !parents.contains(&t)
            {
                parents.push(t);
            }
            r.commit(tree, &parents, &message(machine, "merge", reports, approved), now)?
        }
    };
    r.set_ref(BRANCH, head, "sync: merged")?;
    Ok(head)
}

/// Move each planned project's merge base (its synced ref) to `commit`; only
/// after its memory dir was written.
pub(super) fn set_synced(r: &SyncRepo, plans: &[Plan], commit: ObjectId) -> Result<(), Error> {
    for plan in plans {
        r.set_ref(&plan.target.synced_ref(), commit, "sync: memory dir written")?;
    }
    Ok(())
}

/// One project's report over several tries (a rejected push is retried): each
/// entry once, in the order first reported.
pub(super) fn merge_reports(into: &mut ProjectReport, from: ProjectReport) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::import::Conflict;
    use crate::sync::repo::trailer;

    fn report(identity: &str, added: &[&str]) -> ProjectReport {
        ProjectReport {
            identity: identity.into(),
            added: added.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        }
    }

    #[test]
    fn the_message_sums_up_changed_projects_and_carries_the_trailers() {
        let quiet = report("github.com/a/quiet", &[]);
        let busy = report("github.com/a/busy", &["x.md", "y.md"]);
        let m = message("lap\ntop", "merge", &[quiet, busy], &["github.com/a/busy".into()]);
        assert_eq!(
            m,
            "sync: merge from lap\ntop\n\ngithub.com/a/busy: +2 ~0 -0 conflicts 0\n\nMachine: lap top\nMass-Delete-Approved: github.com/a/busy\n"
        );
        assert_eq!(trailer(&m, "Machine").as_deref(), Some("lap top"));
    }

    #[test]
    fn reports_of_several_tries_keep_each_entry_once_and_the_last_sent() {
        let mut into = report("p", &["a.md"]);
        into.sent = vec!["old.md".into()];
        let mut from = report("p", &["a.md", "b.md"]);
        from.conflicts.push(Conflict {
            file: "c.md".into(),
            kept_as: "c.md.conflict-x-20260101".into(),
            reason: "changed here and on the remote",
        });
        from.sent = vec!["new.md".into()];
        merge_reports(&mut into, from.clone());
        merge_reports(&mut into, from);
        assert_eq!(into.added, ["a.md", "b.md"]);
        assert_eq!(into.conflicts.len(), 1);
        assert_eq!(into.sent, ["new.md"]);
    }
}
