//! The walk (SPEC §2.5): every `.md` entry but `MEMORY.md` and `.trash/`, at any depth,
//! through symlinked directories with cycle protection by device and inode. It
//! records what it cannot use as problems, notes the other entries lint looks at,
//! and hands the memory files to the readers in batches.

use std::ffi::OsStr;
use std::fs::{self, DirEntry, File, FileType, Metadata};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{Problem, ProblemKind, Scan, TempFile, mtime_ms};

/// memctl's trash at the top of the dir: nothing of memctl's scans looks inside it
/// (what is there was removed on purpose, and `lint --fix` must not trash it again).
/// The v1 trash dir (SPEC §4.5): never scanned as memories.
pub const TRASH: &str = ".trash";

/// How many files the walk hands to a reader at a time.
pub(super) const BATCH: usize = 128;

/// A file the walk found: its relative path, full path, and an open handle on its
/// directory (so the reader opens it by name, without walking the path again).
pub(super) struct Item {
    pub(super) rel: String,
    pub(super) path: PathBuf,
    dir: Option<Arc<File>>,
}

impl Item {
    /// Open the file: by name in its directory when there is a handle, else by path.
    pub(super) fn open(&self) -> io::Result<File> {
        match (&self.dir, self.path.file_name()) {
            (Some(d), Some(name)) => open_in(d, name),
            _ => File::open(&self.path),
        }
    }
}

/// `openat(dir, name)`: open a file by name in an open directory, saving the
/// kernel the walk down the directory's path for every file. rustix makes the
/// call safely on every Unix, and its small-path buffer spares the C string
/// allocation.
fn open_in(dir: &File, name: &OsStr) -> io::Result<File> {
    use rustix::fs::{Mode, OFlags};
    let fd = rustix::fs::openat(
        dir,
        name,
        OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NONBLOCK,
        Mode::empty(),
    )?;
    Ok(File::from(fd))
}

/// A handle on a directory for [`open_in`].
fn dir_handle(dir: &Path) -> Option<Arc<File>> {
    File::open(dir).ok().map(Arc::new)
}

/// A path's bytes with invalid UTF-8 escaped as `\xNN`.
pub fn escape_path(p: &Path) -> String {
    let mut out = String::new();
    for chunk in p.as_os_str().as_bytes().utf8_chunks() {
        out.push_str(chunk.valid());
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out
}

fn ends_with_md(p: &Path) -> bool {
    p.as_os_str().as_bytes().ends_with(b".md")
}

fn dev_ino(m: &Metadata) -> (u64, u64) {
    (m.dev(), m.ino())
}

/// Walk `root` (whose metadata is `root_meta` and real path `real_root`) into
/// `out`, handing the memory files to `send` in batches.
pub(super) fn walk<K>(
    root: &Path,
    real_root: &Path,
    root_meta: &Metadata,
    out: &mut Scan<K>,
    mut send: impl FnMut(Vec<Item>),
) {
    let mut walk = Walk {
        root,
        real_root,
        out,
        batch: Vec::new(),
        send: &mut send,
        ancestors: vec![dev_ino(root_meta)],
    };
    walk.dir(root, Some(""));
    let rest = std::mem::take(&mut walk.batch);
    if !rest.is_empty() {
        send(rest);
    }
}

/// A recursive walk that follows symlinked directories (with cycle protection by
/// device and inode) and stats only symlinks: the directory entry's type is enough
/// for everything else.
struct Walk<'a, K> {
    root: &'a Path,
    real_root: &'a Path,
    out: &'a mut Scan<K>,
    batch: Vec<Item>,
    send: &'a mut dyn FnMut(Vec<Item>),
    /// (device, inode) of the directories on the current path.
    ancestors: Vec<(u64, u64)>,
}

impl<K> Walk<'_, K> {
    fn rel(&self, p: &Path) -> String {
        escape_path(p.strip_prefix(self.root).unwrap_or(p))
    }

    fn problem(&mut self, path: &Path, kind: ProblemKind) {
        let rel = self.rel(path);
        self.out.problems.push(Problem {
            rel,
            path: path.to_path_buf(),
            kind,
        });
    }

    /// Walk `dir`, whose path relative to the root is `prefix` (`""` or `a/b/`;
    /// `None` once a directory name is not UTF-8).
    fn dir(&mut self, dir: &Path, prefix: Option<&str>) {
        let entries = match fs::read_dir(dir) {
            Ok(e) => e,
            Err(e) => return self.problem(dir, ProblemKind::UnlistableDir(e.to_string())),
        };
        let handle = dir_handle(dir);
        for entry in entries.filter_map(Result::ok) {
            self.entry(&entry, prefix, &handle);
        }
    }

    /// One entry of a directory being walked (`handle` is that directory's).
    fn entry(&mut self, entry: &DirEntry, prefix: Option<&str>, handle: &Option<Arc<File>>) {
        if prefix == Some("") && entry.file_name() == TRASH {
            return;
        }
        let path = entry.path();
        let Ok(ft) = entry.file_type() else { return };
        let md = ends_with_md(&path);
        let Some((is_dir, is_file, meta)) = self.resolve(ft, &path, md) else {
            return;
        };
        if is_dir {
            return self.subdir(entry, &path, meta.as_ref(), prefix, md);
        }
        if !md {
            note_other(self.out, self.root, &path, &entry.file_name(), is_file);
            return;
        }
        if entry.file_name() == "MEMORY.md" {
            return;
        }
        if !is_file {
            // A FIFO, socket or device is never opened; dropped like an unreadable
            // file, with a warning (SPEC §2.5 step 8).
            let t = meta.as_ref().map_or(ft, Metadata::file_type);
            let why = format!("{}, not a regular file", crate::fsread::kind_name(t));
            return self.problem(&path, ProblemKind::Unreadable(why));
        }
        self.file(entry, path, prefix, handle);
    }

    /// Whether the entry is a directory, whether a file, and (for a symlink) its
    /// target's metadata; a symlink leaving the dir is noted. `None` for a
    /// dangling symlink (a problem when it is named `*.md`).
    fn resolve(&mut self, ft: FileType, path: &Path, md: bool) -> Option<(bool, bool, Option<Metadata>)> {
        if !ft.is_symlink() {
            return Some((ft.is_dir(), ft.is_file(), None));
        }
        match fs::metadata(path) {
            Ok(m) => {
                if let Ok(target) = fs::canonicalize(path)
                    && !target.starts_with(self.real_root)
                {
                    let rel = self.rel(path);
                    self.out.escaping.push((rel, target));
                }
                Some((m.is_dir(), m.is_file(), Some(m)))
            }
            Err(_) => {
                if md {
                    self.problem(path, ProblemKind::Dangling);
                }
                None
            }
        }
    }

    /// Descend into a directory (one named `*.md` is also a problem), unless it
    /// closes a symlink cycle. `meta` is its metadata when it was a symlink.
    fn subdir(&mut self, entry: &DirEntry, path: &Path, meta: Option<&Metadata>, prefix: Option<&str>, md: bool) {
        if md {
            self.problem(path, ProblemKind::Directory);
        }
        let id = match meta {
            Some(m) => dev_ino(m),
            None => match entry.metadata() {
                Ok(m) => dev_ino(&m),
                Err(_) => return,
            },
        };
        if self.ancestors.contains(&id) {
            self.problem(path, ProblemKind::Cycle);
            return;
        }
        self.ancestors.push(id);
        let sub = match (prefix, entry.file_name().to_str()) {
            (Some(p), Some(n)) => Some(format!("{p}{n}/")),
            _ => None,
        };
        self.dir(path, sub.as_deref());
        self.ancestors.pop();
    }

    /// Queue a memory file for the readers, sending the batch once it is full; a
    /// name on a path that is not UTF-8 is a problem instead.
    fn file(&mut self, entry: &DirEntry, path: PathBuf, prefix: Option<&str>, handle: &Option<Arc<File>>) {
        let name = entry.file_name();
        match (prefix, name.to_str()) {
            (Some(p), Some(n)) => {
                self.batch.push(Item {
                    rel: format!("{p}{n}"),
                    path,
                    dir: handle.clone(),
                });
                if self.batch.len() >= BATCH {
                    (self.send)(std::mem::take(&mut self.batch));
                }
            }
            _ => self.problem(&path, ProblemKind::NotUtf8Name),
        }
    }
}

/// Remember non-`.md` entries lint reports: wrong-case extensions, temp files and
/// sync conflict files.
fn note_other<K>(out: &mut Scan<K>, dir: &Path, path: &Path, name: &OsStr, is_file: bool) {
    let Some(name) = name.to_str() else { return };
    let rel = || path.strip_prefix(dir).unwrap_or(path).to_string_lossy().into_owned();
    if name.len() > 3
        && name.is_char_boundary(name.len() - 3)
        && name[name.len() - 3..].eq_ignore_ascii_case(".md")
        && is_file
    {
        out.extension_case.push((rel(), path.to_path_buf()));
    } else if let Some(pid) = crate::tmpname::parse_temp_name(name)
        && let Ok(meta) = fs::symlink_metadata(path)
    {
        out.temp_files.push(TempFile {
            rel: rel(),
            path: path.to_path_buf(),
            pid,
            mtime_ms: mtime_ms(&meta),
        });
    } else if is_file && super::conflict::parse_conflict_name(name).is_some() {
        out.conflict_files.push((rel(), path.to_path_buf()));
    }
}
