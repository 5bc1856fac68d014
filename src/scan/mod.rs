//! Walking a memory dir the way Claude Code's scan does (SPEC §2.5): every `.md`
//! file but `MEMORY.md`, at any depth, through symlinked directories, reading only
//! the 30-line frontmatter window. Bad entries become problems, never failures.
//!
//! This module holds the result types and the entry points; `walk` finds the
//! files, `window` reads one file's frontmatter window, `pipeline` runs the
//! reader threads and the visitor, `order` sorts newest first and cuts to the
//! newest `cap`, and `indexed` tells which index lines link each file.

use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};

use crate::memory::Memory;

pub mod conflict;
mod exclude;
mod indexed;
mod order;
mod pipeline;
mod walk;
mod window;

pub use exclude::{Exclusion, ScanRules, body_line_description};
pub use indexed::Indexed;
pub use walk::{TRASH, escape_path};
pub use window::{HEAD_MAX_BYTES, head_lines};

/// `MAX_MEMORY_FILES`: Claude Code's manifest holds the 200 newest files.
pub const MAX_MEMORY_FILES: usize = 200;
/// memctl reads at most this much to collect the window.
pub const WINDOW_MAX_BYTES: usize = 1 << 20;

/// A directory entry the scan could not use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProblemKind {
    /// A `.md` directory entry that cannot be read (permission, I/O).
    Unreadable(String),
    /// A directory named `*.md`.
    Directory,
    /// A symlink whose target does not exist.
    Dangling,
    /// A file name that is not valid UTF-8 (shown with `\xNN` escapes).
    NotUtf8Name,
    /// A symlink cycle, skipped.
    Cycle,
    /// A directory that cannot be listed.
    UnlistableDir(String),
    /// Listed, but binary (NUL bytes at its start).
    Binary,
    /// Listed, but its frontmatter block is still open after 1 MiB (not seen).
    WindowTooLarge,
}

#[derive(Clone, Debug)]
pub struct Problem {
    /// Relative path, non-UTF-8 bytes escaped as `\xNN`.
    pub rel: String,
    pub path: PathBuf,
    pub kind: ProblemKind,
}

impl Problem {
    /// The warning text (without the `memctl: warning: ` prefix).
    pub fn message(&self) -> String {
        match &self.kind {
            ProblemKind::Unreadable(e) => format!("{}: cannot be read ({e}); Claude Code silently drops it", self.rel),
            ProblemKind::Directory => format!("{}: is a directory, not a memory file; Claude Code drops it", self.rel),
            ProblemKind::Dangling => {
                format!("{}: dangling symlink; Claude Code drops it", self.rel)
            }
            ProblemKind::NotUtf8Name => format!(
                "{}: file name is not valid UTF-8; Claude Code cannot open it (rename it with mv)",
                self.rel
            ),
            ProblemKind::Cycle => format!("{}: symlink cycle, skipped", self.rel),
            ProblemKind::UnlistableDir(e) => {
                format!("{}: directory cannot be listed ({e})", self.rel)
            }
            ProblemKind::Binary => format!("{}: binary content (NUL bytes); Claude Code reads it as text", self.rel),
            ProblemKind::WindowTooLarge => {
                format!(
                    "{}: frontmatter block exceeds 1 MiB; memctl treats it as no frontmatter",
                    self.rel
                )
            }
        }
    }
}

/// A memctl temp file left in the dir (SPEC §4.1), for lint ML132.
#[derive(Clone, Debug)]
pub struct TempFile {
    pub rel: String,
    pub path: PathBuf,
    pub pid: u32,
    pub mtime_ms: f64,
}

/// What a scan keeps of each memory it reads: the memory itself (its window
/// slimmed, see [`Memory`]), or, for a command that holds every file of a large
/// dir at once (lint), a compact record of what it needs of each.
pub trait Kept: Send + Sized {
    /// The record of a memory the visitor has seen.
    fn keep(m: Memory) -> Self;
    fn mtime_ms(&self) -> f64;
    /// Path relative to the scanned dir, `/`-separated.
    fn rel(&self) -> &str;
}

impl Kept for Memory {
    fn keep(mut m: Memory) -> Memory {
        window::slim(&mut m);
        m
    }

    fn mtime_ms(&self) -> f64 {
        self.mtime_ms
    }

    fn rel(&self) -> &str {
        &self.rel
    }
}

/// The result of a scan: every memory (sorted, uncapped), the problems, and the
/// other entries lint looks at. `K` is what is kept of each memory ([`Kept`]).
#[derive(Clone, Debug)]
pub struct Scan<K = Memory> {
    /// The memories, newest first (only the newest `cap` of them when capped).
    pub memories: Vec<K>,
    /// How many memories were read (all of them, also when capped).
    pub total: usize,
    /// How many `.md` files [`scan_claude`] left out as Claude Code's scan does
    /// (not in `memories` or `total`).
    pub skipped: usize,
    pub problems: Vec<Problem>,
    /// Files ending in `.MD`, `.Md` or `.mD` (not scanned by Claude Code).
    pub extension_case: Vec<(String, PathBuf)>,
    pub temp_files: Vec<TempFile>,
    /// Sync conflict files (`<file>.conflict-<machine>-<date>`, SPEC §11.2): (relative
    /// path, path), for lint ML135 and the SessionStart hook.
    pub conflict_files: Vec<(String, PathBuf)>,
    /// Symlinks whose target resolves outside the dir: (relative path, target).
    pub escaping: Vec<(String, PathBuf)>,
}

impl<K> Default for Scan<K> {
    fn default() -> Self {
        Scan {
            memories: Vec::new(),
            total: 0,
            skipped: 0,
            problems: Vec::new(),
            extension_case: Vec::new(),
            temp_files: Vec::new(),
            conflict_files: Vec::new(),
            escaping: Vec::new(),
        }
    }
}

impl Scan {
    /// Resolve a `REF` among the memories (`memory::resolve_ref`); a name that only
    /// an unreadable entry has is an `io` error naming the file and the cause
    /// (SPEC §5), not "no memory named".
    pub fn resolve(&self, reference: &str, dir: &str) -> Result<&Memory, crate::error::Error> {
        crate::memory::resolve_ref(reference, &self.memories, dir).map_err(|e| {
            let with_md = if reference.ends_with(".md") {
                reference.to_string()
            } else {
                format!("{reference}.md")
            };
            let unreadable = self.problems.iter().find_map(|p| match &p.kind {
                ProblemKind::Unreadable(why) if p.rel == reference || p.rel == with_md => Some((p, why)),
                _ => None,
            });
            match unreadable {
                Some((p, why)) => crate::error::Error::new(
                    crate::error::Kind::Io,
                    format!("cannot read {}: {why}", p.path.display()),
                )
                .hint("check the file's permissions"),
                None => e,
            }
        })
    }

    /// What Claude Code's manifest sees: the 200 newest.
    pub fn claude_view(&self) -> &[Memory] {
        &self.memories[..self.memories.len().min(MAX_MEMORY_FILES)]
    }
}

/// Scan `dir` and load its indexes: the main thread reads the index while the
/// reader threads are still reading topic files. With `cap`, only the newest `cap`
/// memories are kept (every file is still read and counted in `total`).
pub fn scan_with_index(memdir: &crate::memdir::MemoryDir, cap: Option<usize>) -> (Scan, Indexed) {
    scan_with(memdir.dir(), cap, || Indexed::load(memdir))
}

/// Scan `memdir` as [`scan_with_index`] does, reading no index (for output that
/// shows none): [`Indexed::none`].
pub fn scan_without_index(memdir: &crate::memdir::MemoryDir, cap: Option<usize>) -> (Scan, Indexed) {
    (scan_with(memdir.dir(), cap, || ()).0, Indexed::none(memdir))
}

/// Claude Code's own scan (SPEC §2.5): the files under the paths it excludes are
/// left out before the newest `cap` are kept (counted in [`Scan::skipped`]), so a
/// capped scan still parses only the newest `cap` it sees. With the index (for
/// the table and JSON) or without.
pub fn scan_claude(
    memdir: &crate::memdir::MemoryDir,
    cap: Option<usize>,
    rules: &ScanRules,
    with_index: bool,
) -> (Scan, Indexed) {
    let skip = |rel: &str| rules.excluded_by(rel).is_some();
    let nothing = |_: &Memory, _: &mut File, _: &mut Vec<u8>| ();
    if with_index {
        let (scan, _, indexed) = pipeline::run(memdir.dir(), cap, Some(&skip), || Indexed::load(memdir), &nothing);
        (scan, indexed)
    } else {
        let (scan, _, ()) = pipeline::run(memdir.dir(), cap, Some(&skip), || (), &nothing);
        (scan, Indexed::none(memdir))
    }
}

/// The memory a `REF` names by its exact relative path (SPEC §3.2 step 2: `REF`,
/// or `REF.md`), found with one `lstat` per path segment instead of a scan of the
/// whole dir: `None` whenever the scan might see it differently, and the caller
/// scans (a missing or unreadable file, a symlink on the way, `.trash/`, a
/// `MEMORY.md`, anything but a regular file), so that what is resolved is what
/// [`Scan::resolve`] resolves. Step 2 decides when it matches: a file's relative
/// path is unique, so it can match only one memory.
pub fn exact_ref(dir: &Path, reference: &str) -> Option<Memory> {
    let rel = if reference.ends_with(".md") {
        reference.to_string()
    } else {
        format!("{reference}.md")
    };
    let segments: Vec<&str> = rel.split('/').collect();
    let (name, parents) = segments.split_last()?;
    if segments.iter().any(|s| s.is_empty() || *s == "." || *s == "..")
        || segments[0] == walk::TRASH
        || *name == "MEMORY.md"
    {
        return None;
    }
    let mut path = dir.to_path_buf();
    for p in parents {
        path.push(p);
        if !fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_dir()) {
            return None;
        }
    }
    path.push(name);
    if !fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_file()) {
        return None;
    }
    read_memory(&path, &rel).ok()
}

/// Scan `dir`. A missing dir gives an empty scan.
pub fn scan(dir: &Path) -> Scan {
    scan_with(dir, None, || ()).0
}

/// Scan `dir`, running `meanwhile` on the main thread once the walk is done.
fn scan_with<T>(dir: &Path, cap: Option<usize>, meanwhile: impl FnOnce() -> T) -> (Scan, T) {
    let (scan, _, extra) = pipeline::run(
        dir,
        cap,
        None,
        meanwhile,
        &|_: &Memory, _: &mut File, _: &mut Vec<u8>| (),
    );
    (scan, extra)
}

/// Scan `dir` (uncapped) and run `visit` on every memory file as the reader
/// threads read it, so that a command needing more of each file (lint) opens
/// and reads every file once. `visit` gets the memory (its frontmatter still
/// holding the YAML text), the open file positioned after the bytes already
/// read, and the buffer holding those bytes (the window, at least). The results
/// are in the order of `scan.memories`; `meanwhile` runs on the main thread once
/// the walk is done.
pub fn scan_visit<R, T, V>(dir: &Path, meanwhile: impl FnOnce() -> T, visit: &V) -> (Scan, Vec<R>, T)
where
    R: Send,
    V: Fn(&Memory, &mut File, &mut Vec<u8>) -> R + Sync,
{
    pipeline::run(dir, None, None, meanwhile, visit)
}

/// [`scan_visit`], keeping of each memory only the record `K` makes of it once
/// `visit` has run (the memory itself is dropped then).
pub fn scan_visit_keeping<K, R, T, V>(dir: &Path, meanwhile: impl FnOnce() -> T, visit: &V) -> (Scan<K>, Vec<R>, T)
where
    K: Kept,
    R: Send,
    V: Fn(&Memory, &mut File, &mut Vec<u8>) -> R + Sync,
{
    pipeline::run(dir, None, None, meanwhile, visit)
}

/// The description Claude Code's store-mode scan shows for a file whose frontmatter
/// has none (SPEC §2.5 step 5): the first non-empty line of the head's body. Reads
/// only the head (30 lines, 64 KiB); `None` when the file cannot be read.
pub fn head_body_description(path: &Path) -> Option<String> {
    use std::io::Read;
    let file = crate::fsread::open_regular(path).ok()?;
    let mut buf = Vec::new();
    // The head is at most 64 KiB of text, plus a BOM and 30 CRs.
    file.take((HEAD_MAX_BYTES + 64) as u64).read_to_end(&mut buf).ok()?;
    let text = String::from_utf8_lossy(&buf);
    let mut lines = crate::frontmatter::scan_lines(&text);
    lines.truncate(head_lines(&lines));
    let head = lines.join("\n");
    let body = match crate::frontmatter::parse_lines(&lines) {
        crate::frontmatter::Frontmatter {
            open_line: Some(0),
            close_line: Some(close),
            close_col,
            ..
        } => crate::frontmatter::body_after(&head, close, close_col),
        _ => &head,
    };
    body_line_description(body)
}

/// Read one memory file's window and metadata.
pub fn read_memory(path: &Path, rel: &str) -> io::Result<Memory> {
    let (mut m, _, _) = open_memory(path, rel)?;
    window::slim(&mut m);
    Ok(m)
}

/// Read one memory file as the scan does, then hand the memory, the open file and
/// the bytes read so far to `then` (as [`scan_visit`] does).
pub fn read_memory_then<R>(
    path: &Path,
    rel: &str,
    then: impl FnOnce(&Memory, &mut File, &mut Vec<u8>) -> R,
) -> io::Result<R> {
    let (m, mut file, mut buf) = open_memory(path, rel)?;
    Ok(then(&m, &mut file, &mut buf))
}

/// Open and read one memory file: the memory, the open file, the bytes read.
fn open_memory(path: &Path, rel: &str) -> io::Result<(Memory, File, Vec<u8>)> {
    let mut file = crate::fsread::open_regular(path).map_err(io::Error::from)?;
    let mut buf = Vec::new();
    let mut m = window::read_memory_from(&mut file, &mut buf)?;
    m.rel = rel.to_string();
    m.path = path.to_path_buf();
    Ok((m, file, buf))
}

/// A file's modification time in fractional milliseconds since the epoch (the
/// scan's, and the survey's order).
pub(crate) fn mtime_ms(meta: &fs::Metadata) -> f64 {
    meta.modified().map_or(0.0, crate::fsread::system_time_ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`exact_ref`] resolves a `REF` as the scan does, or leaves it to the scan:
    /// never a different memory, never one the scan would not resolve.
    #[test]
    fn an_exact_path_resolves_as_the_scan_does() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        for sub in ["sub/deep", ".trash", "real", "x.md"] {
            fs::create_dir_all(d.join(sub)).unwrap();
        }
        let window_cut = format!("---\nname: w\n{}---\nbody\n", "k: v\n".repeat(40));
        for (rel, text) in [
            ("plain.md", "---\nname: plain\ndescription: d\ntype: user\n---\nbody\n"),
            ("crlf.md", "\u{feff}---\r\nname: crlf\r\n---\r\nbody\r\n"),
            ("sub/deep/n.md", "---\nname: plain.md\n---\n"),
            ("sub/MEMORY.md", "- [a](a.md)\n"),
            (".trash/gone.md", "---\nname: gone\n---\n"),
            ("real/r.md", "---\nname: r\n---\n"),
            ("window.md", window_cut.as_str()),
            ("bin.md", "a\0b"),
            ("x.md/inner.md", "x"),
        ] {
            fs::write(d.join(rel), text).unwrap();
        }
        std::os::unix::fs::symlink(d.join("plain.md"), d.join("link.md")).unwrap();
        std::os::unix::fs::symlink(d.join("real"), d.join("via")).unwrap();
        std::os::unix::fs::symlink(d.join("nowhere"), d.join("dangling.md")).unwrap();
        let whole = scan(d);
        for r in [
            "plain.md",
            "plain",
            "crlf",
            "sub/deep/n.md",
            "sub/deep/n",
            "sub/MEMORY.md",
            "sub/MEMORY",
            ".trash/gone.md",
            "link.md",
            "via/r.md",
            "real/r",
            "window.md",
            "bin",
            "x.md",
            "x.md/inner",
            "dangling.md",
            "missing.md",
            "sub",
            "sub/deep",
        ] {
            let by_scan = whole.resolve(r, "dir").ok();
            match exact_ref(d, r) {
                Some(m) => {
                    let s = by_scan.unwrap_or_else(|| panic!("{r}: resolved only by the exact path"));
                    assert_eq!(format!("{m:?}"), format!("{s:?}"), "{r}");
                }
                // Left to the scan: only where a path is not a plain regular file.
                None => assert!(
                    [
                        ".trash/gone.md",
                        "sub/MEMORY.md",
                        "sub/MEMORY",
                        "link.md",
                        "via/r.md",
                        "x.md",
                        "dangling.md",
                        "missing.md",
                        "sub",
                        "sub/deep"
                    ]
                    .contains(&r),
                    "{r}: scanned although it is an exact path"
                ),
            }
        }
    }

    #[test]
    fn scan_sorts_newest_first_with_path_ties() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["b.md", "a.md", "c.md"] {
            fs::write(dir.path().join(name), "x").unwrap();
        }
        let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000);
        for (name, secs) in [("a.md", 0), ("b.md", 0), ("c.md", 5)] {
            let f = File::options().write(true).open(dir.path().join(name)).unwrap();
            f.set_modified(t + std::time::Duration::from_secs(secs)).unwrap();
        }
        fs::write(dir.path().join("MEMORY.md"), "x").unwrap();
        let s = scan(dir.path());
        let order: Vec<&str> = s.memories.iter().map(|m| m.rel.as_str()).collect();
        assert_eq!(order, ["c.md", "a.md", "b.md"]);
    }

    #[test]
    fn claude_s_capped_scan_cuts_after_its_exclusions() {
        // The newest files are all under excluded paths: a cut before the
        // exclusions would keep them and lose the newest files Claude Code sees.
        let dir = tempfile::tempdir().unwrap();
        let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000);
        for sub in ["logs", ".hidden", "team/sub", "sub"] {
            fs::create_dir_all(dir.path().join(sub)).unwrap();
        }
        let mut files: Vec<(String, u64)> = (0..40u64).map(|i| (format!("m{i:02}.md"), i)).collect();
        for (i, f) in ["logs/a.md", ".hidden/b.md", "team/sub/c.md", ".d.md"]
            .iter()
            .enumerate()
        {
            files.push((f.to_string(), 100 + i as u64));
        }
        files.push(("sub/kept.md".to_string(), 99));
        for (name, age) in &files {
            fs::write(dir.path().join(name), "---\ndescription: d\n---\n").unwrap();
            let f = File::options().write(true).open(dir.path().join(name)).unwrap();
            f.set_modified(t + std::time::Duration::from_secs(*age)).unwrap();
        }
        let memdir = crate::memdir::MemoryDir::open(dir.path(), crate::memdir::Scope::Main);
        let rules = ScanRules::from_stores_var(None);
        let (capped, _) = scan_claude(&memdir, Some(10), &rules, false);
        let full = scan(dir.path());
        let seen: Vec<&str> = full
            .memories
            .iter()
            .map(|m| m.rel.as_str())
            .filter(|r| rules.excluded_by(r).is_none())
            .collect();
        let kept: Vec<&str> = capped.memories.iter().map(|m| m.rel.as_str()).collect();
        assert_eq!(kept, seen[..10]);
        assert_eq!(kept[0], "sub/kept.md");
        assert_eq!((capped.total, capped.skipped), (41, 4));
    }

    #[test]
    fn a_capped_scan_keeps_the_newest_and_still_reports_every_file() {
        let dir = tempfile::tempdir().unwrap();
        let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000);
        // More files than a batch, mtimes in no order, ties among them; binary
        // content in old files the cut drops unparsed.
        for i in 0..700u64 {
            let name = format!("m{i:03}.md");
            let body = if i % 97 == 0 {
                "bin\0ary".to_string()
            } else {
                format!("---\ndescription: d{i}\n---\n")
            };
            fs::write(dir.path().join(&name), body).unwrap();
            let f = File::options().write(true).open(dir.path().join(&name)).unwrap();
            f.set_modified(t + std::time::Duration::from_secs((i * 7919) % 350))
                .unwrap();
        }
        let memdir = crate::memdir::MemoryDir::open(dir.path(), crate::memdir::Scope::Main);
        let full = scan(dir.path());
        let (capped, _) = scan_without_index(&memdir, Some(50));
        assert_eq!(capped.total, 700);
        assert_eq!(full.total, 700);
        let names = |ms: &[Memory]| {
            ms.iter()
                .map(|m| (m.rel.clone(), m.fields.description.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(names(&capped.memories), names(&full.memories[..50]));
        let binary = |s: &Scan| {
            let mut v: Vec<String> = s
                .problems
                .iter()
                .filter(|p| p.kind == ProblemKind::Binary)
                .map(|p| p.rel.clone())
                .collect();
            v.sort();
            v
        };
        assert_eq!(binary(&capped).len(), 8);
        assert_eq!(binary(&capped), binary(&full));
    }
}
