//! The files the scan reads as memories (`scan::scan`'s walk, SPEC §2.5), listed
//! with their metadata instead of read: every `.md` file but `MEMORY.md` and
//! `.trash/`, at any depth, through symlinked directories (cycles cut by device
//! and inode), UTF-8 paths only, regular files only. Whether a symlink lies on
//! the way is noted: `scan::exact_ref` resolves no such path.

use std::fs::{self, DirEntry, Metadata};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// One memory file the scan would read.
pub(super) struct Found {
    /// Relative to the dir, `/`-separated.
    pub(super) rel: String,
    /// Its metadata (the symlink's target's for a symlink).
    pub(super) meta: Metadata,
    /// No symlink on the way from the dir to it, itself included.
    pub(super) plain: bool,
}

/// Every memory file of `root` (empty when it cannot be read), and whether the
/// walk saw every directory (none unlistable, no cycle cut).
pub(super) fn files(root: &Path) -> (Vec<Found>, bool) {
    let mut w = Walk {
        out: Vec::new(),
        ancestors: Vec::new(),
        complete: true,
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
        for entry in entries.filter_map(Result::ok) {
            self.one(&entry, prefix, plain);
        }
    }

    fn one(&mut self, entry: &DirEntry, prefix: Option<&str>, plain: bool) {
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
            None if ft.is_file() => match entry.metadata() {
                Ok(m) => m,
                Err(_) => return,
            },
            None => return,
        };
        if !meta.is_file() {
            return;
        }
        self.out.push(Found {
            rel: format!("{p}{n}"),
            meta,
            plain: plain && !link,
        });
    }
}
