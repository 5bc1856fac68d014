//! Reading the sides of a sync: the files of a memory dir as sync carries them,
//! and the small pure questions asked of sets of [`Files`] (what differs, how
//! many memories a change deletes).

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use gix::ObjectId;

use super::repo::{Blob, Files, SyncRepo};
use super::{MAX_FILE_BYTES, Target};
use crate::error::Error;

/// The files of a memory dir as sync carries them: tracked files (SPEC §8.1) that
/// are regular, with names that can travel. `skipped` gets the others.
pub(super) fn read_local(
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
pub(super) fn carry(files: &mut Files, skipped: &[String], from: &[&Files]) {
    for rel in skipped {
        if let Some(b) = from.iter().find_map(|f| f.get(rel)) {
            files.entry(rel.clone()).or_insert_with(|| b.clone());
        }
    }
}

/// `files` (a team target's) with the rest of the project's tree `tree` as it
/// is: a team sync writes only `team/` of the project.
pub(super) fn with_rest(r: &SyncRepo, t: &Target, tree: Option<ObjectId>, files: &Files) -> Result<Files, Error> {
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

/// A file's memory type from its frontmatter (for §10.2 placement).
pub(super) fn memory_type(bytes: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(bytes);
    let (fm, _) = crate::frontmatter::parse_document(&text);
    crate::memory::MemoryType::of(crate::frontmatter::Fields::from(&fm).type_raw.as_ref())
        .map(|t| t.as_str().to_string())
}

/// The files `a` and `b` hold differently (or only one of them holds), memories first.
pub(super) fn names_differing(a: &Files, b: &Files, index: &str) -> Vec<String> {
    let names: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    let (mut out, indexes): (Vec<String>, Vec<String>) = names
        .into_iter()
        .filter(|k| a.get(*k).map(|x| x.oid) != b.get(*k).map(|x| x.oid))
        .cloned()
        .partition(|k| k.as_str() != index);
    out.extend(indexes);
    out
}

/// How many memories (files other than the index) `f` holds.
pub(super) fn memories(f: &Files, index: &str) -> usize {
    f.keys().filter(|k| k.as_str() != index).count()
}

/// How many memories of `from` are not in `to`.
pub(super) fn deletions(from: &Files, to: &Files, index: &str) -> usize {
    from.keys()
        .filter(|k| k.as_str() != index && !to.contains_key(*k))
        .count()
}

/// The machine that made the remote's tip (its `Machine:` trailer), else `remote`.
pub(super) fn machine_of_remote(r: &SyncRepo) -> String {
    r.ref_id(super::repo::REMOTE_BRANCH)
        .and_then(|c| r.machine_of(c))
        .unwrap_or_else(|| "remote".to_string())
}

/// `Some((deleted, of))` when going from `from` to `to` deletes more than half
/// of `from`'s memories (a mass deletion, SPEC §11.3).
pub(super) fn mass_deletion(from: &Files, to: &Files, index: &str) -> Option<(usize, usize)> {
    let (deleted, of) = (deletions(from, to, index), memories(from, index));
    (of > 0 && deleted * 2 > of).then_some((deleted, of))
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A set of files whose blob ids are made from their one-byte contents.
    pub fn files(entries: &[(&str, u8)]) -> Files {
        entries
            .iter()
            .map(|(rel, c)| {
                let b = Blob {
                    oid: ObjectId::from_bytes_or_panic(&[*c; 20]),
                    mtime_ns: i128::from(*c),
                    listed: true,
                };
                (rel.to_string(), b)
            })
            .collect()
    }

    #[test]
    fn carry_keeps_a_skipped_file_as_the_first_side_holds_it() {
        let mut here = files(&[("a.md", 1)]);
        let base = files(&[("link.md", 2)]);
        let other = files(&[("link.md", 3), ("big.md", 4)]);
        carry(
            &mut here,
            &["link.md".into(), "big.md".into(), "none.md".into()],
            &[&base, &other],
        );
        assert_eq!(here, files(&[("a.md", 1), ("big.md", 4), ("link.md", 2)]));
    }

    #[test]
    fn carry_never_replaces_a_file_read_here() {
        let mut here = files(&[("a.md", 1)]);
        carry(&mut here, &["a.md".into()], &[&files(&[("a.md", 9)])]);
        assert_eq!(here, files(&[("a.md", 1)]));
    }

    #[test]
    fn names_differing_lists_memories_first_then_the_index() {
        let a = files(&[("MEMORY.md", 1), ("a.md", 1), ("b.md", 2), ("same.md", 5)]);
        let b = files(&[("MEMORY.md", 2), ("b.md", 3), ("c.md", 4), ("same.md", 5)]);
        assert_eq!(
            names_differing(&a, &b, "MEMORY.md"),
            ["a.md", "b.md", "c.md", "MEMORY.md"]
        );
        assert!(names_differing(&a, &a, "MEMORY.md").is_empty());
    }

    #[test]
    fn a_mass_deletion_is_more_than_half_of_the_memories_not_counting_the_index() {
        let base = files(&[("MEMORY.md", 1), ("a.md", 1), ("b.md", 2), ("c.md", 3), ("d.md", 4)]);
        let half = files(&[("c.md", 3), ("d.md", 4)]);
        assert_eq!(mass_deletion(&base, &half, "MEMORY.md"), None);
        let most = files(&[("d.md", 4)]);
        assert_eq!(mass_deletion(&base, &most, "MEMORY.md"), Some((3, 4)));
        assert_eq!(mass_deletion(&Files::new(), &most, "MEMORY.md"), None);
        assert_eq!(memories(&base, "MEMORY.md"), 4);
        assert_eq!(deletions(&base, &most, "MEMORY.md"), 3);
    }
}
