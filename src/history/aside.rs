//! The stores set aside as unreadable (`<key>.git.corrupt-<stamp>`, SPEC v3 §8.1):
//! `restore` also looks into them. A set-aside store may have no branch or an
//! unreadable newest commit, so its snapshots are found object by object: every
//! loose object that reads as a commit whose tree reads is one (memctl writes
//! loose objects only; packed ones, from a `git gc` by hand, are not searched).

use std::fs;
use std::path::{Path, PathBuf};

use gix::ObjectId;

use super::read::{self, Snap, State};
use super::{Settings, store_path};

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
/// stamp is UTC, `-n` suffixes follow it).
pub fn stores(settings: &Settings, main: &Path) -> Vec<PathBuf> {
    let Some(path) = store_path(settings, main) else {
        return Vec::new();
    };
    let (Some(root), Some(name)) = (path.parent(), path.file_name()) else {
        return Vec::new();
    };
    let prefix = format!("{}.corrupt-", name.to_string_lossy());
    let mut out: Vec<PathBuf> = fs::read_dir(root)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .collect();
    out.sort();
    out.reverse();
    out
}

/// Every readable snapshot of the set-aside stores of `main`, newest first
/// (commit time, then newer store first). Never writes into them.
pub fn snapshots(settings: &Settings, main: &Path) -> Vec<AsideSnap> {
    let mut out = Vec::new();
    for store in stores(settings, main) {
        let Ok(repo) = gix::open_opts(&store, gix::open::Options::isolated()) else {
            continue;
        };
        for id in loose_ids(&store) {
            // The header only: a large blob is not inflated to learn it is no commit.
            if !repo.find_header(id).is_ok_and(|h| h.kind() == gix::objs::Kind::Commit) {
                continue;
            }
            let Ok(snap) = read::snap(&repo, id) else { continue };
            let Ok(state) = read::load_state(&repo, id) else {
                continue;
            };
            out.push(AsideSnap {
                store: store.clone(),
                snap,
                state,
                repo: repo.clone(),
            });
        }
    }
    out.sort_by_key(|a| std::cmp::Reverse(a.snap.time));
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
