//! The trees of a snapshot: the tracked files at their paths and `.memctl/`
//! (mtimes, the consolidation lock, the outside files).

use std::collections::BTreeMap;

use gix::ObjectId;

use super::super::Store;
use super::super::outside::{self, OutsideChange};
use super::super::read::{self, State};
use super::{io, objhash, zchunk};
use crate::error::Error;

impl Store {
    /// The trees of a state: the files at their paths, `.memctl/` with the mtimes
    /// and the lock.
    pub(super) fn write_tree(&self, state: &State, outside: &[OutsideChange]) -> Result<ObjectId, Error> {
        // Every file at the top (no subdir): the root tree is rendered from
        // the state as it is, not built as a node of 20 000 copied names.
        let root = (state.files.keys().any(|r| r.contains(&b'/'))).then(|| Node::of_files(state));
        let mtimes = render_mtimes(state);
        let kind = self.repo.object_hash();
        let mtimes_id = objhash::object_id(kind, gix::objs::Kind::Blob, &mtimes).map_err(|e| io(self, &e))?;
        let loose = gix::odb::loose::Store::at(self.path.join("objects"), kind);
        // The chunks of the last snapshot's root tree and mtimes blob: only the
        // chunks that changed are compressed again.
        self.settle();
        let chunks = zchunk::Chunks::read(&self.path);
        let (tree, mtimes_z) = std::thread::scope(|s| {
            // The mtimes blob (1.2 MB at 20 000 files) is compressed and stored on
            // the other core while this one writes the trees; the commit that
            // names them both is written only once both are stored.
            let store = || store_large(&loose, &chunks, gix::objs::Kind::Blob, &mtimes, mtimes_id);
            let missing = !self.repo.has_object(mtimes_id);
            // No thread (a process limit): stored here, after the trees.
            let thread = missing
                .then(|| std::thread::Builder::new().spawn_scoped(s, store).ok())
                .flatten();
            let tree = self.write_root(root, mtimes_id, state, outside, &loose, &chunks);
            let stored = match thread {
                Some(h) => super::joined(h),
                None if missing => store(),
                None => Ok(None),
            };
            let mtimes_z = stored.map_err(|e| io(self, &e))?;
            tree.map(|t| (t, mtimes_z))
        })?;
        let (tree, tree_z) = tree;
        let written: Vec<zchunk::Compressed> = tree_z.into_iter().chain(mtimes_z).collect();
        if !written.is_empty() {
            // Kept on another thread while this one writes the commit.
            let write = chunks.writer(&self.path, written);
            self.later(write);
        }
        Ok(tree)
    }

    /// The root tree of `root` (the files; `None`: all at the top, rendered
    /// from `state`) and `.memctl/`: the mtimes blob `mtimes`, the lock and
    /// the outside files.
    #[allow(clippy::too_many_arguments)]
    fn write_root(
        &self,
        root: Option<Node>,
        mtimes: ObjectId,
        state: &State,
        outside: &[OutsideChange],
        loose: &gix::odb::loose::Store,
        chunks: &zchunk::Chunks,
    ) -> Result<(ObjectId, Option<zchunk::Compressed>), Error> {
        let mut meta = Node::default();
        let blob = |bytes: Vec<u8>| {
            self.repo
                .write_blob(bytes)
                .map(|id| id.detach())
                .map_err(|e| io(self, &e.to_string()))
        };
        meta.insert(b"mtimes", gix::objs::tree::EntryKind::Blob, mtimes);
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
        // The root tree (1.3 MB at 20 000 files) in chunks; the trees below it
        // as before.
        let body = match root {
            Some(mut root) => {
                root.dirs.insert(b".memctl".to_vec(), meta);
                let tree = root.tree(&self.repo).map_err(|e| io(self, &e))?;
                let mut body = Vec::new();
                gix::objs::WriteTo::write_to(&tree, &mut body).map_err(|e| io(self, &e.to_string()))?;
                body
            }
            None => flat_root(state, meta.write(&self.repo).map_err(|e| io(self, &e))?),
        };
        let id = objhash::object_id(self.repo.object_hash(), gix::objs::Kind::Tree, &body).map_err(|e| io(self, &e))?;
        if self.repo.has_object(id) {
            return Ok((id, None));
        }
        let z = store_large(loose, chunks, gix::objs::Kind::Tree, &body, id).map_err(|e| io(self, &e))?;
        Ok((id, z))
    }
}

/// Store `bytes` as the object `id` of `kind` (hashed by the caller) in the
/// loose store: in chunks when it is large (its chunks returned for the cache).
fn store_large(
    loose: &gix::odb::loose::Store,
    chunks: &zchunk::Chunks,
    kind: gix::objs::Kind,
    bytes: &[u8],
    id: ObjectId,
) -> Result<Option<zchunk::Compressed>, String> {
    if bytes.len() >= zchunk::MIN_OBJECT
        && let Ok(z) = chunks.compress(kind, bytes)
    {
        zchunk::store(loose.path(), id, &z.zlib)?;
        return Ok(Some(z));
    }
    gix::objs::Write::write_buf_with_known_id(loose, kind, bytes, id)
        .map(|_| ())
        .map_err(|e| e.to_string())?;
    Ok(None)
}

/// The body of a root tree whose files (`state`'s, none below a dir) and
/// one dir, `.memctl` (the tree `meta`), are its entries: what gix writes for
/// the same entries (git's order: a dir's name compares as if it ended in
/// `/`; the state's order, by bytes, for the files).
fn flat_root(state: &State, meta: ObjectId) -> Vec<u8> {
    let mut body = Vec::with_capacity(state.files.len() * 72);
    let entry = |body: &mut Vec<u8>, mode: &[u8], name: &[u8], oid: &ObjectId| {
        body.extend_from_slice(mode);
        body.push(b' ');
        body.extend_from_slice(name);
        body.push(0);
        body.extend_from_slice(oid.as_bytes());
    };
    const META: &[u8] = b".memctl";
    let mut meta_at = false;
    for (name, f) in &state.files {
        // The first file after `.memctl/`: the dir goes before it.
        let after_meta = match name.iter().zip(META).find(|(a, b)| a != b) {
            Some((a, b)) => a > b,
            None => name.get(META.len()).copied().unwrap_or(0) > b'/',
        };
        if after_meta && !meta_at {
            entry(&mut body, b"40000", META, &meta);
            meta_at = true;
        }
        let mode: &[u8] = if f.link { b"120000" } else { b"100644" };
        entry(&mut body, mode, name, &f.oid);
    }
    if !meta_at {
        entry(&mut body, b"40000", META, &meta);
    }
    body
}

/// [`read::render_mtimes`] of the state's files, without a copy of each path
/// nor a string per number (20 000 lines at a time): the same bytes.
fn render_mtimes(state: &State) -> Vec<u8> {
    let mut out = Vec::with_capacity(state.files.len() * 64);
    for (rel, f) in &state.files {
        super::cache::push_dec(&mut out, f.mtime_ns);
        out.push(b'\t');
        // The bytes `c_quote` escapes, looked for by memchr's searches (a
        // byte loop was most of this function: 20 000 paths at a time).
        if memchr::memchr3(b'\t', b'\n', b'"', rel).is_some() || memchr::memchr(b'\\', rel).is_some() {
            out.extend_from_slice(&read::c_quote(rel));
        } else {
            out.extend_from_slice(rel);
        }
        out.push(b'\n');
    }
    out
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
    /// The tree of a state's files, each at its path (a link as a link).
    fn of_files(state: &State) -> Node {
        let mut root = Node::default();
        for (rel, f) in &state.files {
            let mode = if f.link {
                gix::objs::tree::EntryKind::Link
            } else {
                gix::objs::tree::EntryKind::Blob
            };
            root.insert(rel, mode, f.oid);
        }
        root
    }

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
        let tree = self.tree(repo)?;
        repo.write_object(&tree)
            .map(|id| id.detach())
            .map_err(|e| e.to_string())
    }

    /// This node's tree, the trees below it written.
    fn tree(self, repo: &gix::Repository) -> Result<gix::objs::Tree, String> {
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
        Ok(gix::objs::Tree { entries })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::read::FileState;
    use crate::history::tracked::LockState;
    use std::path::PathBuf;

    /// A scratch dir, its empty memory dir, the tests' clock and a history store
    /// opened for it (the dir is kept alive by the first value).
    fn new_store() -> (tempfile::TempDir, PathBuf, chrono::DateTime<chrono::Utc>, Store) {
        let t = tempfile::tempdir().unwrap();
        let mem = t.path().join("memory");
        std::fs::create_dir_all(&mem).unwrap();
        let settings = crate::history::Settings::On {
            root: t.path().join("state"),
        };
        let now = "2026-03-10T12:00:00Z".parse().unwrap();
        let store = Store::open(&settings, &mem, None, true, now).unwrap().unwrap();
        (t, mem, now, store)
    }

    /// The state of the tree `tree` as a snapshot commit of it reads back.
    fn read_back(store: &Store, tree: ObjectId) -> State {
        let sig = gix::actor::SignatureRef {
            name: "t".into(),
            email: "t@t".into(),
            time: "0 +0000",
        };
        let commit = store.repo.new_commit_as(sig, sig, "t", tree, None::<ObjectId>).unwrap();
        read::load_state(&store.repo, commit.id).unwrap()
    }

    /// The trees as they were written before the mtimes blob moved to another
    /// thread: one thread, `read::render_mtimes` of a copy of each path.
    fn reference(store: &Store, state: &State, outside: &[OutsideChange]) -> ObjectId {
        let mut root = Node::of_files(state);
        let mtimes: Vec<(Vec<u8>, i128)> = state.files.iter().map(|(r, f)| (r.clone(), f.mtime_ns)).collect();
        let blob = |bytes: Vec<u8>| store.repo.write_blob(bytes).unwrap().detach();
        let mut meta = Node::default();
        let kind = gix::objs::tree::EntryKind::Blob;
        meta.insert(b"mtimes", kind, blob(read::render_mtimes(&mtimes)));
        if let Some(lock) = &state.lock {
            meta.insert(b"consolidate-lock", kind, blob(read::render_lock(lock)));
        }
        if !outside.is_empty() {
            let names = outside::names(outside);
            let mut dir = Node::default();
            let mut after = Vec::new();
            for (c, name) in outside.iter().zip(&names) {
                if let Some((bytes, _)) = &c.before {
                    dir.insert(name.as_bytes(), kind, blob(bytes.clone()));
                }
                let hash = |b: &Vec<u8>| gix::objs::compute_hash(store.repo.object_hash(), gix::objs::Kind::Blob, b);
                after.push(c.after.as_ref().map(|b| hash(b).unwrap()));
            }
            dir.insert(outside::LIST, kind, blob(outside::render(outside, &names, &after)));
            meta.dirs.insert(outside::DIR.to_vec(), dir);
        }
        root.dirs.insert(b".memctl".to_vec(), meta);
        root.write(&store.repo).unwrap()
    }

    fn file(store: &Store, body: &str, link: bool, mtime_ns: i128) -> FileState {
        let oid = store.repo.write_blob(body.as_bytes()).unwrap().detach();
        FileState { oid, link, mtime_ns }
    }

    /// A root tree and mtimes blob large enough to be written in chunks have
    /// the ids gix gives them and read back (inflated, their Adler-32 checked)
    /// as the state, cold and with the chunk cache of the snapshot before: a
    /// file changed, added, removed; `git fsck --strict` finds them valid.
    #[test]
    fn chunked_objects_are_the_ones_gix_writes() {
        let (_t, mem, now, store) = new_store();
        let mut state = State::default();
        let oid = |i: usize| {
            let mut b = [0u8; 20];
            for (k, x) in b.iter_mut().enumerate() {
                *x = ((i + 1) * (k + 7) * 131 % 251) as u8 + 1;
            }
            ObjectId::from_bytes_or_panic(&b)
        };
        for i in 0..4000 {
            let f = FileState {
                oid: oid(i),
                link: i % 97 == 0,
                mtime_ns: 1_790_000_000_000_000_000 + i as i128 * 7919,
            };
            state
                .files
                .insert(format!("topic_{:05}_{}.md", i * 7 % 4000, i % 13).into_bytes(), f);
        }
        let mut ids = Vec::new();
        let mut check = |state: &State| {
            let got = store.write_tree(state, &[]).unwrap();
            store.settle();
            let back = read_back(&store, got);
            assert_eq!(back.files, state.files);
            ids.push((got, state.clone()));
        };
        check(&state);
        assert!(store.path().join("memctl-zchunks").is_file());
        let first = state.files.keys().nth(1234).unwrap().clone();
        state.files.get_mut(&first).unwrap().oid = oid(9999);
        check(&state);
        state.files.get_mut(&first).unwrap().mtime_ns += 1;
        check(&state);
        state
            .files
            .insert(b"topic_01000_new.md".to_vec(), state.files[&first].clone());
        check(&state);
        state.files.remove(&first);
        check(&state);
        std::fs::remove_file(store.path().join("memctl-zchunks")).unwrap();
        state.files.get_mut(b"topic_00000_0.md".as_slice()).unwrap().mtime_ns = 5;
        check(&state);
        // Written by gix into a store of its own: the same ids.
        let other = tempfile::tempdir().unwrap();
        let o = Store::open(
            &crate::history::Settings::On {
                root: other.path().join("state"),
            },
            &mem,
            None,
            true,
            now,
        )
        .unwrap()
        .unwrap();
        for (got, state) in &ids {
            assert_eq!(*got, reference(&o, state, &[]));
        }
        if let Ok(out) = std::process::Command::new("git")
            .arg("--git-dir")
            .arg(store.path())
            .args(["fsck", "--strict", "--no-dangling"])
            .output()
        {
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        }
    }

    /// The tree a snapshot writes is the one a single thread wrote before, the
    /// mtimes blob stored with it: for names that sort around each other and a
    /// dir (`a-b.md`, `a.md`, `a/`), nested dirs, links, quoted names, the lock,
    /// a file changed, deleted and added, and outside files.
    #[test]
    fn the_tree_is_the_one_written_before() {
        let (_t, _, _, store) = new_store();
        let mut state = State::default();
        for (i, rel) in [
            "MEMORY.md",
            "a-b.md",
            "a.md",
            "a/x.md",
            "a/b/c.md",
            "a0.md",
            "q\t\"\\.md",
            "new\nline.md",
            "team/MEMORY.md",
            "z.md",
        ]
        .iter()
        .enumerate()
        {
            let f = file(&store, rel, i == 5, 1_700_000_000_000_000_000 + i as i128);
            state.files.insert(rel.as_bytes().to_vec(), f);
        }
        let check = |state: &State, outside: &[OutsideChange]| {
            let got = store.write_tree(state, outside).unwrap();
            // Read back before the reference writes anything: the mtimes blob
            // the other thread stored is there.
            let back = read_back(&store, got);
            assert_eq!(back.files, state.files);
            assert_eq!(back.lock, state.lock);
            assert_eq!(got, reference(&store, state, outside));
        };
        check(&state, &[]);
        state.files.insert(b"a.md".to_vec(), file(&store, "changed", false, 5));
        check(&state, &[]);
        state.files.remove(b"a/x.md".as_slice());
        state
            .files
            .insert(b"a/b/new.md".to_vec(), file(&store, "new", false, -3));
        state.lock = Some(LockState {
            mtime_ns: 42,
            body: b"123".to_vec(),
        });
        check(&state, &[]);
        let outside = [
            OutsideChange {
                path: PathBuf::from("/p/CLAUDE.md"),
                root: PathBuf::from("/p"),
                before: Some((b"old".to_vec(), 7)),
                after: Some(b"new".to_vec()),
            },
            OutsideChange {
                path: PathBuf::from("/p/x/CLAUDE.md"),
                root: PathBuf::from("/p"),
                before: None,
                after: Some(b"made".to_vec()),
            },
        ];
        check(&state, &outside);
        check(&State::default(), &[]);
        // All at the top (rendered from the state): names around `.memctl/`
        // in git's order, links, many files.
        let mut flat = State::default();
        let names = [
            "-.md",
            ".a.md",
            ".memct.md",
            ".memctl.md",
            ".memctl0.md",
            ".memctl\u{1}.md",
            ".memctlz.md",
            ".n.md",
            "0.md",
            "MEMORY.md",
            "a.md",
            "\u{e9}.md",
        ];
        for (i, rel) in names.iter().enumerate() {
            let f = file(&store, rel, i % 4 == 1, i as i128);
            flat.files.insert(rel.as_bytes().to_vec(), f);
        }
        check(&flat, &[]);
        check(&flat, &outside);
        for i in 0..3000 {
            let rel = format!("t{i}.md");
            flat.files
                .insert(rel.clone().into_bytes(), file(&store, &rel, i % 7 == 0, i));
        }
        check(&flat, &[]);
        flat.files.retain(|r, _| r.as_slice() < b"0".as_slice());
        check(&flat, &[]);
    }
}
