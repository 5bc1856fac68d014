//! The files the scan reads as memories (`scan::scan`'s walk, SPEC §2.5), listed
//! with their metadata instead of read: every `.md` file but `MEMORY.md` and
//! `.trash/`, at any depth, through symlinked directories (cycles cut by device
//! and inode), UTF-8 paths only, regular files only. Whether a symlink lies on
//! the way is noted: `scan::exact_ref` resolves no such path.

use std::fs::{self, DirEntry, Metadata};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use super::cache::Stat;
use crate::fsread::{self, BLOCK};

/// One memory file the scan would read.
pub(super) struct Found {
    /// Relative to the dir, `/`-separated.
    pub(super) rel: String,
    /// Its stat (the symlink's target's for a symlink).
    pub(super) stat: Stat,
    /// Its mtime as the scan orders memories ([`crate::scan::mtime_ms`]).
    pub(super) mtime_ms: f64,
    /// No symlink on the way from the dir to it, itself included.
    pub(super) plain: bool,
}

/// Every memory file of `root` (empty when it cannot be read), and whether the
/// walk saw every directory (none unlistable, no cycle cut).
pub(super) fn files(root: &Path) -> (Vec<Found>, bool) {
    files_on(root, None)
}

/// [`files`] on `threads` threads (`None`: the cores the process may run on).
fn files_on(root: &Path, threads: Option<usize>) -> (Vec<Found>, bool) {
    let mut w = Walk {
        out: Vec::new(),
        ancestors: Vec::new(),
        complete: true,
        threads,
    };
    let Ok(meta) = fs::metadata(root) else {
        return (w.out, true);
    };
    w.ancestors.push((meta.dev(), meta.ino()));
    w.dir(root, Some(""), true);
    (w.out, w.complete)
}

struct Walk {
    out: Vec<Found>,
    /// (device, inode) of the directories on the current path.
    ancestors: Vec<(u64, u64)>,
    complete: bool,
    /// The cores the process may run on, asked when a block is first large enough.
    threads: Option<usize>,
}

/// Walk `path`, whose relative path is `prefix` (`None` once a name on the way
/// is not UTF-8: nothing below is a memory, but cycles are still cut as the
/// scan cuts them).
impl Walk {
    fn dir(&mut self, path: &Path, prefix: Option<&str>, plain: bool) {
        let Ok(entries) = fs::read_dir(path) else {
            self.complete = false;
            return;
        };
        let mut entries = entries.filter_map(Result::ok);
        loop {
            let block: Vec<DirEntry> = entries.by_ref().take(BLOCK).collect();
            if block.is_empty() {
                break;
            }
            let stats = stat_block(&block, prefix, &mut self.threads);
            for (i, entry) in block.iter().enumerate() {
                self.one(entry, prefix, plain, stats.get(i).and_then(Option::as_ref));
            }
        }
    }

    /// One entry; `stat`: its `stat` when [`stat_block`] took it (`Some(None)`:
    /// it failed).
    fn one(&mut self, entry: &DirEntry, prefix: Option<&str>, plain: bool, stat: Option<&Option<Metadata>>) {
        let name = entry.file_name();
        if prefix == Some("") && name == crate::scan::TRASH {
            return;
        }
        let Ok(ft) = entry.file_type() else { return };
        let link = ft.is_symlink();
        // Only a symlink or a directory needs its path: a file is stat'ed by
        // name in the directory being listed.
        let path = (link || ft.is_dir()).then(|| entry.path());
        let meta = match &path {
            Some(p) => match fs::metadata(p) {
                Ok(m) => Some(m),
                Err(_) => return,
            },
            None => None,
        };
        if let (Some(m), Some(path)) = (meta.as_ref().filter(|m| m.is_dir()), &path) {
            let id = (m.dev(), m.ino());
            if self.ancestors.contains(&id) {
                self.complete = false;
                return;
            }
            self.ancestors.push(id);
            let sub = match (prefix, name.to_str()) {
                (Some(p), Some(n)) => Some(format!("{p}{n}/")),
                _ => None,
            };
            self.dir(path, sub.as_deref(), plain && !link);
            self.ancestors.pop();
            return;
        }
        if !name.as_bytes().ends_with(b".md") || name == "MEMORY.md" {
            return;
        }
        let (Some(p), Some(n)) = (prefix, name.to_str()) else {
            return;
        };
        let meta = match meta {
            Some(m) => m,
            // Not a symlink: its own metadata is its target's.
            None if ft.is_file() => match stat.map_or_else(|| entry.metadata().ok(), Clone::clone) {
                Some(m) => m,
                None => return,
            },
            None => return,
        };
        if !meta.is_file() {
            return;
        }
        self.out.push(Found {
            rel: format!("{p}{n}"),
            stat: Stat::of(&meta),
            mtime_ms: crate::scan::mtime_ms(&meta),
            plain: plain && !link,
        });
    }
}

/// Whether [`Walk::one`] stats `e` by its entry: a memory file that is no
/// symlink, on a path the scan reads.
fn stated(e: &DirEntry, prefix: Option<&str>) -> bool {
    let name = e.file_name();
    prefix.is_some()
        && name.to_str().is_some()
        && name.as_bytes().ends_with(b".md")
        && name != "MEMORY.md"
        && e.file_type().is_ok_and(|t| t.is_file())
}

/// The `stat` of each file of `block` that [`Walk::one`] would stat
/// ([`fsread::stat_block`]; a regular file's `lstat` is its `stat`): empty, or a
/// slot `None`, where the walk stats the file itself.
fn stat_block(block: &[DirEntry], prefix: Option<&str>, threads: &mut Option<usize>) -> Vec<Option<Option<Metadata>>> {
    let mut stats = Vec::new();
    if prefix.is_some() {
        fsread::stat_block(block, |e| stated(e, prefix), |e| e.metadata().ok(), &mut stats, threads);
    }
    stats
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a walk found: each file's path, (device, inode, size, mtime) and
    /// whether its way is plain, in order, and whether it saw every dir.
    type Seen = (Vec<(String, Stat, f64, bool)>, bool);

    fn seen(root: &Path, threads: usize) -> Seen {
        let (found, complete) = files_on(root, Some(threads));
        let files = found
            .iter()
            .map(|f| (f.rel.clone(), f.stat, f.mtime_ms, f.plain))
            .collect();
        (files, complete)
    }

    /// Stats taken on several threads are the ones the walk takes itself: the
    /// same files in the same order with the same stats, over more than a block
    /// of files, with links, other files, `MEMORY.md` and a subdirectory among them.
    #[test]
    fn stats_taken_on_several_threads_are_the_walks_own() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        crate::fsread::more_than_a_block(d, "");
        fs::write(d.join("MEMORY.md"), "- x\n").unwrap();
        let one = seen(d, 1);
        assert_eq!(one.0.len(), BLOCK + 700 + 2 * 50, "every file, link and nested file");
        assert!(one.1);
        for threads in [2, 3] {
            assert_eq!(seen(d, threads), one, "{threads} threads");
        }
    }
}
