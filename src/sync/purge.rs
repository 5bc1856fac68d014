//! `memctl sync --purge FILE` (SPEC v3 §11.3): remove one file of a project from
//! the sync repository's whole history — every commit reachable from the remote's
//! branch, the local branch and the merge bases is rewritten without it — then
//! force-push the rewritten branch (with a lease: a remote that moved meanwhile
//! is not overwritten) and drop the old objects from the local sync repository.
//! Clones that fetched the file before keep it: the caller says so.

use std::collections::HashMap;

use gix::ObjectId;
use serde::Serialize;

use super::repo::{BRANCH, REMOTE_BRANCH, SyncRepo};
use super::{Target, transport};
use crate::error::{Error, Kind};

/// What a purge did (`sync --purge --json`).
#[derive(Debug, Serialize)]
pub struct Purged {
    pub identity: String,
    /// The path removed, below `projects/` of the sync repository.
    pub purged: String,
    /// The commits that held it and were rewritten.
    pub commits_rewritten: usize,
    pub remote: String,
    /// The remote branch's new tip (short hash).
    pub pushed: String,
}

/// Remove `rel` (a path below the project's memory dir) of `t` from the sync
/// history and force-push the result to the configured remote.
pub fn purge(repo: &std::path::Path, remote: Option<&str>, t: &Target, rel: &str) -> Result<Purged, Error> {
    if !crate::bundle::safe_path(rel) {
        return Err(
            Error::new(Kind::Usage, format!("not a file name below the memory dir: {rel}"))
                .hint("name the file as the sync repository holds it, e.g. `memctl sync --purge user_token.md`"),
        );
    }
    if t.dir.join(rel).exists() {
        return Err(Error::new(
            Kind::Conflict,
            format!(
                "{rel} is still in the memory dir ({}): the next sync would send it again; nothing purged",
                t.dir.display()
            ),
        )
        .hint(format!(
            "remove it first (`memctl forget {rel}`), run `memctl sync`, then `memctl sync --purge {rel}`"
        )));
    }
    let mut r = SyncRepo::open(repo)?;
    let url = match (r.remote_url(), remote) {
        (Some(h), Some(w)) if h != w => {
            return Err(Error::new(
                Kind::Usage,
                format!("--purge rewrites the configured sync remote ({h}), not {w}"),
            )
            .hint("run `memctl sync --purge FILE` without --remote, or switch remotes with a `memctl sync --remote URL` first"));
        }
        (Some(h), _) => h,
        (None, _) => {
            return Err(
                Error::new(Kind::Config, "no sync remote is configured: there is nothing to purge")
                    .hint("`memctl sync --remote URL` sets one"),
            );
        }
    };
    transport::fetch(&r.path, &url)?;
    r.reopen()?;
    let path = format!("projects/{}/{rel}", t.member());
    let parts: Vec<&str> = path.split('/').collect();
    let Some(old_tip) = r.ref_id(REMOTE_BRANCH) else {
        return Err(Error::new(
            Kind::NotFound,
            format!("the sync remote {url} has no branch yet: nothing to purge"),
        ));
    };
    let mut refs: Vec<(String, ObjectId)> = vec![(REMOTE_BRANCH.to_string(), old_tip)];
    refs.extend(r.ref_id(BRANCH).map(|id| (BRANCH.to_string(), id)));
    refs.extend(r.synced_refs()?);
    let mut map = HashMap::new();
    let mut rewritten = 0;
    for (_, id) in &refs {
        rewritten += rewrite(&r, *id, &parts, &mut map)?;
    }
    if rewritten == 0 {
        return Err(Error::new(
            Kind::NotFound,
            format!("the sync history holds no {rel} for {}: nothing purged", t.identity),
        )
        .hint("name the file as it was synced, e.g. `user_token.md` (`git --git-dir ~/.local/state/memctl/sync.git log --stat` lists them)"));
    }
    let new_tip = map[&old_tip];
    transport::force_push(
        &r.path,
        &url,
        &new_tip.to_hex().to_string(),
        &old_tip.to_hex().to_string(),
    )?;
    for (name, id) in &refs {
        r.set_ref(name, map[id], "sync: purged a file from the history")?;
    }
    drop(r);
    transport::prune(repo)?;
    Ok(Purged {
        identity: t.identity.clone(),
        purged: path,
        commits_rewritten: rewritten,
        remote: url,
        pushed: new_tip.to_hex_with_len(8).to_string(),
    })
}

/// Rewrite `tip` and its ancestors without the path `parts` (parents first; each
/// commit once, through `map`); the number of commits whose tree held it.
fn rewrite(r: &SyncRepo, tip: ObjectId, parts: &[&str], map: &mut HashMap<ObjectId, ObjectId>) -> Result<usize, Error> {
    let err = |e: &dyn std::fmt::Display| {
        Error::new(
            Kind::Io,
            format!("cannot rewrite the sync history: {}: {e}", r.path.display()),
        )
    };
    let mut rewritten = 0;
    let mut stack = vec![(tip, false)];
    while let Some((id, ready)) = stack.pop() {
        if map.contains_key(&id) {
            continue;
        }
        let c = r.repo.find_commit(id).map_err(|e| err(&e))?;
        let parents: Vec<ObjectId> = c.parent_ids().map(|p| p.detach()).collect();
        if !ready {
            stack.push((id, true));
            stack.extend(parents.iter().filter(|p| !map.contains_key(*p)).map(|p| (*p, false)));
            continue;
        }
        let mut owned = c.decode().map_err(|e| err(&e))?.into_owned().map_err(|e| err(&e))?;
        let tree = match without(r, owned.tree, parts)? {
            Some(t) => {
                rewritten += 1;
                t
            }
            None => owned.tree,
        };
        let new_parents: Vec<ObjectId> = parents.iter().map(|p| map[p]).collect();
        let new = if tree == owned.tree && new_parents == parents {
            id
        } else {
            owned.tree = tree;
            owned.parents = new_parents.into_iter().collect();
            r.repo.write_object(&owned).map_err(|e| err(&e))?.detach()
        };
        map.insert(id, new);
    }
    Ok(rewritten)
}

/// The tree `tree` without the entry at `parts` (an emptied dir goes too), or
/// `None` when it holds no such entry.
fn without(r: &SyncRepo, tree: ObjectId, parts: &[&str]) -> Result<Option<ObjectId>, Error> {
    let err = |e: &dyn std::fmt::Display| {
        Error::new(
            Kind::Io,
            format!("cannot rewrite the sync history: {}: {e}", r.path.display()),
        )
    };
    let Some((first, rest)) = parts.split_first() else {
        return Ok(None);
    };
    let t = r.repo.find_tree(tree).map_err(|e| err(&e))?;
    let mut owned: gix::objs::Tree = t.decode().map_err(|e| err(&e))?.into();
    let Some(i) = owned.entries.iter().position(|e| e.filename == first.as_bytes()) else {
        return Ok(None);
    };
    if rest.is_empty() {
        owned.entries.remove(i);
    } else {
        if !owned.entries[i].mode.is_tree() {
            return Ok(None);
        }
        let Some(sub) = without(r, owned.entries[i].oid, rest)? else {
            return Ok(None);
        };
        let empty = r
            .repo
            .find_tree(sub)
            .map_err(|e| err(&e))?
            .decode()
            .map_err(|e| err(&e))?
            .entries
            .is_empty();
        if empty {
            owned.entries.remove(i);
        } else {
            owned.entries[i].oid = sub;
        }
    }
    Ok(Some(r.repo.write_object(&owned).map_err(|e| err(&e))?.detach()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo() -> (tempfile::TempDir, SyncRepo) {
        let d = tempfile::tempdir().unwrap();
        let r = SyncRepo::open(&d.path().join("sync.git")).unwrap();
        (d, r)
    }

    fn commit_with(r: &SyncRepo, files: &[(&str, &[u8])], parents: &[ObjectId]) -> ObjectId {
        let mut f = super::super::repo::Files::new();
        for (rel, bytes) in files {
            let oid = r.write_blob(bytes).unwrap();
            f.insert(
                rel.to_string(),
                super::super::repo::Blob {
                    oid,
                    mtime_ns: 1,
                    listed: true,
                },
            );
        }
        let mut projects = std::collections::BTreeMap::new();
        projects.insert("p".to_string(), r.write_project(&f).unwrap());
        let tree = r.write_root(&projects).unwrap();
        r.commit(tree, parents, "m\n", chrono::DateTime::UNIX_EPOCH).unwrap()
    }

    #[test]
    fn every_commit_loses_the_file_and_keeps_the_rest() {
        let (_d, r) = repo();
        let a = commit_with(&r, &[("a.md", b"a"), ("s.md", b"ghp_secret")], &[]);
        let b = commit_with(&r, &[("a.md", b"a2"), ("s.md", b"ghp_secret")], &[a]);
        let c = commit_with(&r, &[("a.md", b"a2")], &[b]);
        let mut map = HashMap::new();
        let parts = ["projects", "p", "s.md"];
        assert_eq!(rewrite(&r, c, &parts, &mut map).unwrap(), 2);
        let secret = r.hash(b"ghp_secret");
        let mut at = Some(map[&c]);
        let mut seen = 0;
        while let Some(id) = at {
            let files = r.files(r.projects(Some(id)).unwrap()["p"]).unwrap();
            assert!(files.values().all(|f| f.oid != secret));
            assert!(files.contains_key("a.md"));
            seen += 1;
            at = r.repo.find_commit(id).unwrap().parent_ids().next().map(|p| p.detach());
        }
        assert_eq!(seen, 3);
        // A second pass finds nothing.
        let mut again = HashMap::new();
        assert_eq!(rewrite(&r, map[&c], &parts, &mut again).unwrap(), 0);
        assert_eq!(again[&map[&c]], map[&c]);
    }
}
