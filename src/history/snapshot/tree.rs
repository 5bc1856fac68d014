//! The trees of a snapshot: the tracked files at their paths and `.memctl/`
//! (mtimes, the consolidation lock, the outside files).

use std::collections::BTreeMap;

use gix::ObjectId;

use super::super::Store;
use super::super::outside::{self, OutsideChange};
use super::super::read::{self, State};
use super::io;
use crate::error::Error;

impl Store {
    /// The trees of a state: the files at their paths, `.memctl/` with the mtimes
    /// and the lock.
    pub(super) fn write_tree(&self, state: &State, outside: &[OutsideChange]) -> Result<ObjectId, Error> {
        let mut root = Node::default();
        for (rel, f) in &state.files {
            let mode = if f.link {
                gix::objs::tree::EntryKind::Link
            } else {
                gix::objs::tree::EntryKind::Blob
            };
            root.insert(rel, mode, f.oid);
        }
        let mtimes: Vec<(Vec<u8>, i128)> = state.files.iter().map(|(r, f)| (r.clone(), f.mtime_ns)).collect();
        let mut meta = Node::default();
        let blob = |bytes: Vec<u8>| {
            self.repo
                .write_blob(bytes)
                .map(|id| id.detach())
                .map_err(|e| io(self, &e.to_string()))
        };
        meta.insert(
            b"mtimes",
            gix::objs::tree::EntryKind::Blob,
            blob(read::render_mtimes(&mtimes))?,
        );
        if let Some(lock) = &state.lock {
            meta.insert(
                b"consolidate-lock",
                gix::objs::tree::EntryKind::Blob,
                blob(read::render_lock(lock))?,
            );
        }
        if !outside.is_empty() {
            let names = outside::names(outside);
            let mut dir = Node::default();
            let mut after = Vec::new();
            for (c, name) in outside.iter().zip(&names) {
                if let Some((bytes, _)) = &c.before {
                    dir.insert(name.as_bytes(), gix::objs::tree::EntryKind::Blob, blob(bytes.clone())?);
                }
                after.push(match &c.after {
                    Some(bytes) => Some(
                        gix::objs::compute_hash(self.repo.object_hash(), gix::objs::Kind::Blob, bytes)
                            .map_err(|e| io(self, &e.to_string()))?,
                    ),
                    None => None,
                });
            }
            dir.insert(
                outside::LIST,
                gix::objs::tree::EntryKind::Blob,
                blob(outside::render(outside, &names, &after))?,
            );
            meta.dirs.insert(outside::DIR.to_vec(), dir);
        }
        root.dirs.insert(b".memctl".to_vec(), meta);
        root.write(&self.repo).map_err(|e| io(self, &e))
    }
}

/// A tree being built: files at `/`-separated paths (a path may name a subtree
/// with the mode `Tree`), written bottom-up. The sync repository builds its trees
/// with it too.
#[derive(Default)]
pub(crate) struct Node {
    files: Vec<(Vec<u8>, gix::objs::tree::EntryKind, ObjectId)>,
    dirs: BTreeMap<Vec<u8>, Node>,
}

impl Node {
    pub(crate) fn insert(&mut self, rel: &[u8], mode: gix::objs::tree::EntryKind, oid: ObjectId) {
        match rel.iter().position(|b| *b == b'/') {
            Some(k) => self
                .dirs
                .entry(rel[..k].to_vec())
                .or_default()
                .insert(&rel[k + 1..], mode, oid),
            None => self.files.push((rel.to_vec(), mode, oid)),
        }
    }

    pub(crate) fn write(self, repo: &gix::Repository) -> Result<ObjectId, String> {
        let mut entries = Vec::new();
        for (name, node) in self.dirs {
            let oid = node.write(repo)?;
            entries.push(gix::objs::tree::Entry {
                mode: gix::objs::tree::EntryKind::Tree.into(),
                filename: name.into(),
                oid,
            });
        }
        for (name, mode, oid) in self.files {
            entries.push(gix::objs::tree::Entry {
                mode: mode.into(),
                filename: name.into(),
                oid,
            });
        }
        entries.sort();
        let tree = gix::objs::Tree { entries };
        repo.write_object(&tree)
            .map(|id| id.detach())
            .map_err(|e| e.to_string())
    }
}
