//! The stores set aside as unreadable (`<key>.git.corrupt-<stamp>`, SPEC v3 §8.1):
//! `history` lists their snapshots, `restore`, `diff` and `undo` look into them.
//! A set-aside store may have no branch or an unreadable newest commit, so its
//! snapshots are found object by object: every loose object that reads as a
//! commit whose tree reads is one (memctl writes loose objects only; packed ones,
//! from a `git gc` by hand, are not searched). Nothing here writes into them.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use gix::ObjectId;

use super::read::{self, Snap, State};
use super::{OutsideFile, Reader, Settings, store_path};
use crate::error::{Error, Kind};

/// One set-aside store, opened for reading, with its readable snapshots.
pub struct Aside {
    pub path: PathBuf,
    repo: gix::Repository,
    /// Newest first: by commit time, then later in its chain first (snapshots
    /// taken within one second keep their order).
    pub snaps: Vec<(Snap, State)>,
}

impl Aside {
    /// The snapshot `id` of this store, with its state.
    pub fn get(&self, id: ObjectId) -> Option<&(Snap, State)> {
        self.snaps.iter().find(|(s, _)| s.id == id)
    }

    /// The state the snapshot `snap` started from: its parent's (`Some(empty)` for
    /// a first snapshot); `None` when the parent cannot be read.
    pub fn parent_state(&self, snap: &Snap) -> Option<State> {
        match snap.parent {
            None => Some(State::default()),
            Some(p) => self.get(p).map(|(_, st)| st.clone()),
        }
    }

    fn err(&self, e: &str) -> Error {
        Error::new(
            Kind::Io,
            format!("cannot read the set-aside history store {}: {e}", self.path.display()),
        )
    }
}

impl Reader for Aside {
    fn state(&self, id: ObjectId) -> Result<State, Error> {
        match self.get(id) {
            Some((_, st)) => Ok(st.clone()),
            None => read::load_state(&self.repo, id).map_err(|e| self.err(&e)),
        }
    }

    fn blob(&self, id: ObjectId) -> Result<Vec<u8>, Error> {
        read::blob(&self.repo, id).map_err(|e| self.err(&e))
    }

    fn outside(&self, id: ObjectId) -> Result<Vec<OutsideFile>, Error> {
        super::read_outside(&self.repo, id).map_err(|e| self.err(&e))
    }

    fn is_blob(&self, id: ObjectId, bytes: &[u8]) -> bool {
        gix::objs::compute_hash(self.repo.object_hash(), gix::objs::Kind::Blob, bytes).is_ok_and(|o| o == id)
    }
}

/// One snapshot found in a set-aside store.
pub struct AsideSnap {
    pub store: PathBuf,
    pub snap: Snap,
    pub state: State,
    repo: gix::Repository,
}

impl AsideSnap {
    /// A blob of this store.
    pub fn blob(&self, id: ObjectId) -> Result<Vec<u8>, String> {
        read::blob(&self.repo, id)
    }
}

/// The set-aside stores of the memory dir `main`, newest first (by name: the
/// stamp is UTC, `-n` suffixes follow it, a higher `n` newer).
pub fn stores(settings: &Settings, main: &Path) -> Vec<PathBuf> {
    let Some(path) = store_path(settings, main) else {
        return Vec::new();
    };
    let (Some(root), Some(name)) = (path.parent(), path.file_name()) else {
        return Vec::new();
    };
    let prefix = format!("{}.corrupt-", name.to_string_lossy());
    let mut out: Vec<(String, u32, PathBuf)> = fs::read_dir(root)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let rest = name.strip_prefix(&prefix)?.to_string();
            // `<stamp>` or `<stamp>-<n>`: the stamp, then the number (1 without one).
            let (stamp, n) = match rest.split_once('-') {
                Some((s, n)) => (s.to_string(), n.parse().unwrap_or(u32::MAX)),
                None => (rest, 1),
            };
            Some((stamp, n, e.path()))
        })
        .collect();
    out.sort();
    out.reverse();
    out.into_iter().map(|(_, _, p)| p).collect()
}

/// The set-aside stores of `main` that open, newest first, each with its
/// readable snapshots.
pub fn open_all(settings: &Settings, main: &Path) -> Vec<Aside> {
    let mut out = Vec::new();
    for store in stores(settings, main) {
        let Ok(repo) = gix::open_opts(&store, gix::open::Options::isolated()) else {
            continue;
        };
        let mut snaps = Vec::new();
        for id in loose_ids(&store) {
            // The header only: a large blob is not inflated to learn it is no commit.
            if !repo.find_header(id).is_ok_and(|h| h.kind() == gix::objs::Kind::Commit) {
                continue;
            }
            let Ok(snap) = read::snap(&repo, id) else { continue };
            let Ok(state) = read::load_state(&repo, id) else {
                continue;
            };
            snaps.push((snap, state));
        }
        order(&mut snaps);
        out.push(Aside {
            path: store,
            repo,
            snaps,
        });
    }
    out
}

/// Newest first: by commit time, then by depth in the chain of parents found
/// (`MEMCTL_NOW` or a fast machine gives several snapshots one second).
fn order(snaps: &mut [(Snap, State)]) {
    let parent: HashMap<ObjectId, Option<ObjectId>> = snaps.iter().map(|(s, _)| (s.id, s.parent)).collect();
    let mut depth: HashMap<ObjectId, usize> = HashMap::new();
    for (s, _) in snaps.iter() {
        // Up the parents to one whose depth is known (or out of the set), then
        // each one below it is one deeper.
        let mut chain = Vec::new();
        let mut next = 0;
        let mut cur = Some(s.id);
        while let Some(id) = cur {
            if let Some(d) = depth.get(&id) {
                next = d + 1;
                break;
            }
            let Some(p) = parent.get(&id) else { break };
            chain.push(id);
            if chain.len() > parent.len() {
                break;
            }
            cur = *p;
        }
        for id in chain.into_iter().rev() {
            depth.insert(id, next);
            next += 1;
        }
    }
    snaps.sort_by_key(|(s, _)| std::cmp::Reverse((s.time, depth.get(&s.id).copied().unwrap_or(0))));
}

/// Every readable snapshot of the set-aside stores of `main`, newest store
/// first, each store's newest first. Never writes into them.
pub fn snapshots(settings: &Settings, main: &Path) -> Vec<AsideSnap> {
    let mut out = Vec::new();
    for a in open_all(settings, main) {
        for (snap, state) in a.snaps {
            out.push(AsideSnap {
                store: a.path.clone(),
                snap,
                state,
                repo: a.repo.clone(),
            });
        }
    }
    out
}

/// The ids of the loose objects below `store/objects`.
fn loose_ids(store: &Path) -> Vec<ObjectId> {
    let mut out = Vec::new();
    for d in fs::read_dir(store.join("objects")).into_iter().flatten().flatten() {
        let dir = d.file_name().to_string_lossy().into_owned();
        if dir.len() != 2 || !dir.bytes().all(|b| b.is_ascii_hexdigit()) {
            continue;
        }
        for f in fs::read_dir(d.path()).into_iter().flatten().flatten() {
            let hex = format!("{dir}{}", f.file_name().to_string_lossy());
            if let Ok(id) = ObjectId::from_hex(hex.as_bytes()) {
                out.push(id);
            }
        }
    }
    out
}

/// A snapshot named by `spec` (SPEC §8.3: an id, `@~N`, a time) in the store's
/// `log`, else among the snapshots of the set-aside stores, which come after it
/// (older): `(None, id)` for one of the store, `(Some(aside), id)` for one set
/// aside. The store's own error when neither has it.
pub fn resolve<'a>(
    store: &super::Store,
    log: &[Snap],
    asides: &'a [Aside],
    spec: &str,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<(Option<&'a Aside>, ObjectId), Error> {
    let err = match store.resolve(spec, log, now) {
        Ok(id) => return Ok((None, id)),
        Err(e) if e.kind == Kind::NotFound => e,
        Err(e) => return Err(e),
    };
    if asides.iter().all(|a| a.snaps.is_empty()) {
        return Err(err);
    }
    let mut all: Vec<Snap> = log.to_vec();
    all.extend(asides.iter().flat_map(|a| a.snaps.iter().map(|(s, _)| s.clone())));
    let id = store.resolve(spec, &all, now)?;
    match asides.iter().find(|a| a.get(id).is_some()) {
        Some(a) => Ok((Some(a), id)),
        None => Ok((None, id)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snap(n: u8, parent: Option<u8>, time: i64) -> (Snap, State) {
        let id = |n: u8| ObjectId::from_hex(format!("{n:02x}").repeat(20).as_bytes()).unwrap();
        (
            Snap {
                id: id(n),
                parent: parent.map(id),
                time,
                summary: String::new(),
                message: None,
                trailers: Vec::new(),
            },
            State::default(),
        )
    }

    /// Snapshots found object by object come in no order; taken within one second
    /// (`MEMCTL_NOW`, a fast machine) their chain of parents orders them, newest
    /// first, and a later time still comes first.
    #[test]
    fn snapshots_of_one_second_are_ordered_by_their_parents() {
        let mut snaps = vec![
            snap(2, Some(1), 10),
            snap(4, Some(3), 20),
            snap(1, None, 10),
            snap(3, Some(2), 10),
        ];
        order(&mut snaps);
        let ids: Vec<String> = snaps.iter().map(|(s, _)| s.id.to_hex_with_len(2).to_string()).collect();
        assert_eq!(ids, ["04", "03", "02", "01"]);
        // A parent that is not there (unreadable) starts a chain of its own.
        let mut snaps = vec![snap(5, Some(9), 10), snap(6, Some(5), 10)];
        order(&mut snaps);
        let ids: Vec<String> = snaps.iter().map(|(s, _)| s.id.to_hex_with_len(2).to_string()).collect();
        assert_eq!(ids, ["06", "05"]);
    }
}
