//! Running a sync (SPEC §11.3): fetch, the refusals that come before anything is
//! written, then under every memory dir's write lock the four steps — plan each
//! project (steps 2 and 3, [`super::plan`]), commit what is here (step 1, once
//! every refusal is behind), write the merges and record them ([`super::apply`],
//! [`super::record`]) and push (step 4), retried from step 2 when the push is
//! rejected.

use std::collections::BTreeMap;

use gix::ObjectId;

use super::apply::apply;
use super::plan::{Plan, plan_project};
use super::read::{carry, machine_of_remote, names_differing, read_local, with_rest};
use super::record::{commit_local, commit_merge, merge_reports, set_synced};
use super::repo::{BRANCH, Files, REMOTE_BRANCH, SyncRepo};
use super::transport::{self, Pushed};
use super::unchanged;
use super::{Mode, Options, Outcome, ProjectReport, PushResult, Target, conflict_files};
use crate::error::{Error, Kind};
use crate::memdir::{MemoryDir, Scope};
use crate::store::{Recording, Writer};

/// A rejected push is retried from the fetch this many times.
const RETRIES: usize = 3;

/// The member dir → project tree map of a commit.
type Projects = BTreeMap<String, ObjectId>;

/// A sync under way: the repository, the remote, and what the outcome gathers.
struct Sync<'a> {
    r: SyncRepo,
    opts: &'a Options,
    url: String,
    /// The remote `--remote` replaces (`Some(None)`: none yet), remembered once
    /// the sync may write.
    change: Option<Option<String>>,
    /// Another remote than the one the merge bases came from: a first sync.
    fresh_base: bool,
    warnings: Vec<String>,
    notes: Vec<String>,
    reports: BTreeMap<String, ProjectReport>,
}

/// Run one sync of `targets`; `extra` are synced only when the remote holds them
/// (`--all-projects`: this machine's dirs with no memories yet).
pub fn run(targets: Vec<Target>, extra: Vec<Target>, opts: &Options) -> Result<Outcome, Error> {
    let (mut s, remote_projects) = Sync::start(opts)?;
    let targets = with_extra(targets, extra, &remote_projects);
    refuse_before_writing(&targets, opts)?;
    if opts.dry_run {
        return s.dry_run(&targets, &remote_projects);
    }
    let mut writers = lock_dirs(&targets, opts)?;
    // Every ref at one commit: the cache may vouch that nothing changed here
    // either; else the full sync may leave a cache for the next one.
    let settled = s.settled(&writers);
    if let Some(c) = settled {
        let ts: Vec<&Target> = writers.iter().map(|(t, _)| t).collect();
        if unchanged::vouches(&opts.repo, c, &s.url, &ts) {
            return Ok(s.unchanged(writers));
        }
    }
    let mut stamp = settled.and_then(|c| Some((c, unchanged::begin(&opts.repo)?)));
    let mut retries = 0;
    loop {
        let remote_tip = s.r.ref_id(REMOTE_BRANCH);
        let remote_projects = s.r.projects(remote_tip)?;
        let (mut plans, found) = s.plan_all(&writers, &remote_projects, retries == 0)?;
        if retries == 0 {
            s.commit_here(&plans, found)?;
        }
        let local_commit = s.r.ref_id(BRANCH);
        let head = s.write_and_record(&mut plans, &mut writers, (remote_tip, &remote_projects))?;
        if let Some((c, st)) = stamp.take() {
            s.leave_cache(st, c, (local_commit, head, retries), &plans);
        }
        if remote_tip == Some(head) {
            return Ok(s.finish(writers, PushResult::UpToDate));
        }
        match s.push(head, &plans, retries)? {
            Some(push) => return Ok(s.finish(writers, push)),
            None => retries += 1,
        }
    }
}

/// `targets` and those of `extra` the remote holds (once each).
fn with_extra(mut targets: Vec<Target>, extra: Vec<Target>, remote_projects: &Projects) -> Vec<Target> {
    for t in extra {
        if remote_projects.contains_key(&t.member()) && !targets.iter().any(|x| x.identity == t.identity) {
            targets.push(t);
        }
    }
    targets
}

/// Refusals before anything is written: a live dream, unresolved conflicts.
fn refuse_before_writing(targets: &[Target], opts: &Options) -> Result<(), Error> {
    for t in targets {
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
    Ok(())
}

/// The write lock of every dir, from step 1 to step 4 (dirs in a stable order).
fn lock_dirs(targets: &[Target], opts: &Options) -> Result<Vec<(Target, Writer)>, Error> {
    let mut order = targets.to_vec();
    order.sort_by(|a, b| a.dir.cmp(&b.dir));
    let mut writers = Vec::new();
    for t in order {
        let rec = Recording {
            settings: opts.history.clone(),
            command: "sync",
            project: t.project.as_ref().and_then(|p| std::fs::canonicalize(p).ok()),
        };
        let w = Writer::open(&MemoryDir::open(&t.dir, Scope::Main), opts.now, false, &rec)?;
        writers.push((t, w));
    }
    Ok(writers)
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

impl<'a> Sync<'a> {
    /// Open the sync repository, choose the remote and fetch it; with the
    /// projects the remote's branch holds.
    fn start(opts: &'a Options) -> Result<(Sync<'a>, Projects), Error> {
        let mut r = SyncRepo::open(&opts.repo)?;
        let (url, change) = choose_remote(&r, opts.remote.as_deref())?;
        let fresh_base = matches!(change, Some(Some(_)));
        transport::fetch(&r.path, &url)?;
        r.reopen()?;
        let remote_projects = r.projects(r.ref_id(REMOTE_BRANCH))?;
        let s = Sync {
            r,
            opts,
            url,
            change,
            fresh_base,
            warnings: Vec::new(),
            notes: Vec::new(),
            reports: BTreeMap::new(),
        };
        Ok((s, remote_projects))
    }

    /// `--dry-run`: each project planned (nothing written, no blob stored), and
    /// whether a sync would push.
    fn dry_run(mut self, targets: &[Target], remote_projects: &Projects) -> Result<Outcome, Error> {
        let mut any = false;
        let refused = if self.opts.allow_secrets {
            ""
        } else {
            " (a sync refuses it without --allow-secrets)"
        };
        for t in targets {
            let remote_tree = remote_projects.get(&t.member()).copied();
            let plan = plan_project(
                &self.r,
                t,
                remote_tree,
                self.opts,
                (false, self.fresh_base),
                &mut self.warnings,
            )?;
            let found = secrets(&plan).into_iter().map(|s| format!("secret-like: {s}{refused}"));
            self.warnings.extend(found);
            self.notes.extend(plan.notes.iter().cloned());
            any |= would_push(&plan.local, &plan.remote);
            self.reports.insert(t.identity.clone(), plan.report);
        }
        Ok(Outcome {
            remote: self.url,
            projects: self.reports.into_values().collect(),
            warnings: self.warnings,
            notes: self.notes,
            push: PushResult::DryRun(any),
        })
    }

    /// Steps 2 and 3 for every project (blobs stored), and the secret-like
    /// findings in what would go out.
    fn plan_all(
        &mut self,
        writers: &[(Target, Writer)],
        remote_projects: &Projects,
        first: bool,
    ) -> Result<(Vec<Plan>, Vec<String>), Error> {
        let mut plans = Vec::new();
        let mut found = Vec::new();
        for (t, _) in writers {
            let remote_tree = remote_projects.get(&t.member()).copied();
            let fresh_base = self.fresh_base && first;
            let plan = plan_project(
                &self.r,
                t,
                remote_tree,
                self.opts,
                (true, fresh_base),
                &mut self.warnings,
            )?;
            found.extend(secrets(&plan));
            for n in &plan.notes {
                if !self.notes.contains(n) {
                    self.notes.push(n.clone());
                }
            }
            plans.push(plan);
        }
        Ok((plans, found))
    }

    /// Before the first write: refuse what would push secret-like tokens
    /// (`found`), remember a new remote, and (step 1) commit what is here on the
    /// local branch.
    fn commit_here(&mut self, plans: &[Plan], found: Vec<String>) -> Result<(), Error> {
        if !self.opts.allow_secrets && !found.is_empty() {
            // SPEC v3 §11.3: refused by default; the refusal names each file
            // and line (a warning would be lost with the outcome).
            return Err(crate::ops::export::secrets_refused(
                "sync refused: what it would push holds",
                "nothing written or pushed",
                &found,
                self.opts.strict,
            )
            .hint(
                "remove the tokens from the memories (`memctl edit FILE`), or pass --allow-secrets to push them anyway",
            ));
        }
        self.warnings
            .extend(found.into_iter().map(|s| format!("secret-like: {s}")));
        if let Some(had) = &self.change {
            remember_remote(&self.r, &self.url, had.as_deref(), &mut self.notes)?;
        }
        commit_local(&self.r, plans, &self.opts.machine, self.opts.now)
    }

    /// Step 4: write each plan into its memory dir, record the merged state on
    /// the local branch (its commit, returned), and move the merge bases to the
    /// remote tip just merged.
    fn write_and_record(
        &mut self,
        plans: &mut [Plan],
        writers: &mut [(Target, Writer)],
        (remote_tip, remote_projects): (Option<ObjectId>, &Projects),
    ) -> Result<ObjectId, Error> {
        let r = &self.r;
        let mut projects = match remote_tip {
            Some(_) => remote_projects.clone(),
            None => r.projects(r.ref_id(super::repo::BRANCH))?,
        };
        let mut approved = Vec::new();
        for (plan, (_, w)) in plans.iter_mut().zip(writers.iter_mut()) {
            let member = plan.target.member();
            let files = files_after_writing(r, plan, w, self.opts)?;
            let files = with_rest(r, &plan.target, projects.get(&member).copied(), &files)?;
            if self.opts.mode != Mode::PushLocal {
                let there = remote_projects.get(&member).copied().filter(|_| remote_tip.is_some());
                plan.report.sent = sent_after(r, plan, &files, there);
            }
            projects.insert(member, r.write_project(&files)?);
            if plan.mass_delete_approved {
                approved.push(plan.target.identity.clone());
            }
            self.warnings.extend(cut_warnings(plan));
        }
        let reports: Vec<ProjectReport> = plans.iter().map(|p| p.report.clone()).collect();
        let head = commit_merge(
            r,
            &projects,
            remote_tip,
            (&self.opts.machine, &reports, &approved),
            self.opts.now,
        )?;
        // The merge base is what this dir and the remote both hold: the remote tip
        // just merged, until the push makes `head` the remote's too. Moving it to
        // `head` before the push would make a rejected or cut-short push look like
        // the remote deleted this machine's new files.
        if let Some(tip) = remote_tip {
            set_synced(r, plans, tip)?;
        }
        for rep in reports {
            match self.reports.get_mut(&rep.identity) {
                Some(into) => merge_reports(into, rep),
                None => {
                    self.reports.insert(rep.identity.clone(), rep);
                }
            }
        }
        Ok(head)
    }

    /// The commit every ref is at, when a sync could change nothing: the
    /// ordinary merge from the configured remote, whose branch, the local branch
    /// and each target's merge base are that one commit.
    fn settled(&self, writers: &[(Target, Writer)]) -> Option<ObjectId> {
        let c = self.r.ref_id(REMOTE_BRANCH)?;
        let plain = self.opts.mode == Mode::Merge && self.change.is_none() && !self.fresh_base;
        let agree =
            self.r.ref_id(BRANCH) == Some(c) && writers.iter().all(|(t, _)| self.r.ref_id(&t.synced_ref()) == Some(c));
        (plain && agree).then_some(c)
    }

    /// The outcome of a sync the cache vouches changed nothing: what the full
    /// sync reports then (each project with nothing in it, up to date).
    fn unchanged(mut self, writers: Vec<(Target, Writer)>) -> Outcome {
        for (t, _) in &writers {
            self.reports
                .entry(t.identity.clone())
                .or_insert_with(|| ProjectReport::of(t));
        }
        self.finish(writers, PushResult::UpToDate)
    }

    /// After the first try of a full sync from settled refs (at `c`): the cache
    /// for the next one when this one changed nothing (no local commit, the
    /// merged state the remote's tip `c`, every plan and report empty, no
    /// warning or note), else none.
    fn leave_cache(
        &self,
        st: unchanged::Stamp,
        c: ObjectId,
        (local, head, retries): (Option<ObjectId>, ObjectId, usize),
        plans: &[Plan],
    ) {
        let quiet = |p: &Plan| {
            let r = &p.report;
            p.acts.is_empty()
                && p.index.is_none()
                && p.notes.is_empty()
                && !p.mass_delete_approved
                && [
                    r.added.len(),
                    r.updated.len(),
                    r.deleted.len(),
                    r.skipped.len(),
                    r.conflicts.len(),
                ]
                .iter()
                .chain([r.index_replaced.len(), r.cut_entries.len(), r.sent.len()].iter())
                .all(|n| *n == 0)
        };
        let nothing = retries == 0
            && local == Some(c)
            && head == c
            && self.warnings.is_empty()
            && self.notes.is_empty()
            && plans.iter().all(quiet);
        if !nothing {
            return unchanged::abandon(st);
        }
        let read: Vec<(&Target, &Files)> = plans.iter().map(|p| (&p.target, &p.local)).collect();
        unchanged::record(st, c, &self.url, &read);
    }

    /// Push `head` (the end of step 4); `Ok(None)`: rejected and fetched again,
    /// for another try from step 2.
    fn push(&mut self, head: ObjectId, plans: &[Plan], retries: usize) -> Result<Option<PushResult>, Error> {
        match transport::push(&self.r.path, &self.url, &head.to_hex().to_string())? {
            Pushed::Done => {
                let _ = self.r.set_ref(REMOTE_BRANCH, head, "sync: pushed");
                set_synced(&self.r, plans, head)?;
                let commit = head.to_hex_with_len(8).to_string();
                Ok(Some(PushResult::Pushed { commit, retries }))
            }
            Pushed::Rejected if retries < RETRIES => {
                transport::fetch(&self.r.path, &self.url)?;
                self.r.reopen()?;
                Ok(None)
            }
            Pushed::Rejected => Err(Error::new(
                Kind::Busy,
                format!(
                    "the push to {} was rejected {} times: other machines keep syncing",
                    self.url,
                    RETRIES + 1
                ),
            )
            .hint("the memory dirs are merged and consistent; run `memctl sync` again")),
        }
    }

    /// The outcome: the writers' warnings added (they record history as they
    /// finish), each warning once.
    fn finish(mut self, writers: Vec<(Target, Writer)>, push: PushResult) -> Outcome {
        for (_, mut w) in writers {
            self.warnings.extend(w.finish());
        }
        let mut seen = std::collections::BTreeSet::new();
        self.warnings.retain(|w| seen.insert(w.clone()));
        Outcome {
            remote: self.url,
            projects: self.reports.into_values().collect(),
            warnings: self.warnings,
            notes: self.notes,
            push,
        }
    }
}

/// What the dir holds after the plan was written into it: as planned when
/// nothing was written (no second read of every file), else read again. Bytes
/// the remote holds keep the remote's mtime.
fn files_after_writing(r: &SyncRepo, plan: &mut Plan, w: &mut Writer, opts: &Options) -> Result<Files, Error> {
    let mut files = if plan.acts.is_empty() && plan.index.is_none() {
        plan.local.clone()
    } else {
        apply(r, plan, w, opts, &machine_of_remote(r))?;
        let mut skipped = Vec::new();
        let (mut files, _) = read_local(r, &plan.target.dir, true, &mut skipped)?;
        plan.target.only_mine(&mut files);
        skipped.retain(|s| s.starts_with(plan.target.prefix()));
        carry(&mut files, &skipped, &[&plan.remote, &plan.local]);
        files
    };
    keep_remote_mtimes(&mut files, &plan.remote);
    Ok(files)
}

/// Bytes the remote holds keep the remote's mtime in the tree: an mtime alone is
/// no change to push back and forth. (Not a time the remote did not list: the
/// one given here is listed.)
fn keep_remote_mtimes(files: &mut Files, remote: &Files) {
    for (rel, b) in files.iter_mut() {
        if let Some(rb) = remote.get(rel).filter(|rb| rb.oid == b.oid && rb.listed) {
            b.mtime_ns = rb.mtime_ns;
        }
    }
}

/// What goes out: the files the pushed tree `files` holds otherwise than the
/// remote's tree `there` (a local index line the merge gave up is not "sent");
/// a team target sends only its team dir's files.
fn sent_after(r: &SyncRepo, plan: &Plan, files: &Files, there: Option<ObjectId>) -> Vec<String> {
    let mut there = match there {
        Some(tree) => r.walk(tree).map(|w| w.files).unwrap_or_else(|_| plan.remote.clone()),
        None => Files::new(),
    };
    let mut mine = files.clone();
    plan.target.only_mine(&mut mine);
    plan.target.only_mine(&mut there);
    names_differing(&mine, &there, plan.target.index())
}

/// The warnings for a merged index Claude Code would cut: the entries past the
/// cut, else the reason.
fn cut_warnings(plan: &Plan) -> Vec<String> {
    let t = &plan.target;
    if !plan.report.cut_entries.is_empty() {
        let label = format!("{}: MEMORY.md", t.identity);
        let rebuild = format!("memctl --dir {} index rebuild", t.dir.display());
        return crate::index::place::cut_warnings(&label, &plan.report.cut_entries, &rebuild);
    }
    match plan.index.as_ref().and_then(|i| i.cut.as_ref()) {
        Some(cut) => vec![format!(
            "{}: MEMORY.md is cut after the merge ({cut}): run `memctl --dir {} index rebuild`",
            t.identity,
            t.dir.display()
        )],
        None => Vec::new(),
    }
}

/// Whether a sync would push: the local files differ from the remote's.
fn would_push(local: &Files, remote: &Files) -> bool {
    local
        .iter()
        .any(|(k, b)| remote.get(k).is_none_or(|rb| rb.oid != b.oid))
        || remote.keys().any(|k| !local.contains_key(k))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sync::read::tests::files;

    fn target(identity: &str) -> Target {
        Target {
            identity: identity.into(),
            dir: format!("/nonexistent/{identity}").into(),
            project: None,
            team: false,
        }
    }

    #[test]
    fn an_extra_project_is_synced_only_when_the_remote_holds_it() {
        let mut remote = Projects::new();
        remote.insert(target("held").member(), ObjectId::null(gix::hash::Kind::Sha1));
        remote.insert(target("a").member(), ObjectId::null(gix::hash::Kind::Sha1));
        let got = with_extra(
            vec![target("a")],
            vec![target("held"), target("new"), target("a")],
            &remote,
        );
        let ids: Vec<&str> = got.iter().map(|t| t.identity.as_str()).collect();
        assert_eq!(ids, ["a", "held"]);
    }

    #[test]
    fn the_remote_mtime_is_kept_for_the_bytes_it_holds_and_lists() {
        let mut here = files(&[("a.md", 1), ("b.md", 2), ("c.md", 3)]);
        for b in here.values_mut() {
            b.mtime_ns = 100;
        }
        let mut remote = files(&[("a.md", 1), ("b.md", 9), ("c.md", 3)]);
        remote.get_mut("c.md").unwrap().listed = false;
        keep_remote_mtimes(&mut here, &remote);
        let got: Vec<i128> = here.values().map(|b| b.mtime_ns).collect();
        assert_eq!(got, [1, 100, 100]);
    }

    #[test]
    fn a_sync_would_push_when_either_side_holds_what_the_other_does_not() {
        let a = files(&[("a.md", 1)]);
        assert!(!would_push(&a, &a));
        assert!(would_push(&a, &files(&[("a.md", 2)])));
        assert!(would_push(&a, &Files::new()));
        assert!(would_push(&Files::new(), &a));
        assert!(!would_push(&Files::new(), &Files::new()));
    }
}
