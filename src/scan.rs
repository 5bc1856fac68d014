//! Walking a memory dir the way Claude Code's scan does (SPEC §2.5): every `.md`
//! file but `MEMORY.md`, at any depth, through symlinked directories, reading only
//! the 30-line frontmatter window. Bad entries become problems, never failures.

use std::fs::{self, File};
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use crate::frontmatter::{self, FRONTMATTER_MAX_LINES, Fields, Status};
use crate::index;
use crate::memory::Memory;

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
    /// Listed, but its first 30 lines exceed 1 MiB (frontmatter not seen).
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
                    "{}: the first 30 lines exceed 1 MiB; its frontmatter is not seen",
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

/// The result of a scan: every memory (sorted, uncapped), the problems, and the
/// other entries lint looks at.
#[derive(Clone, Debug, Default)]
pub struct Scan {
    /// The memories, newest first (only the newest `cap` of them when capped).
    pub memories: Vec<Memory>,
    /// How many memories were read (all of them, also when capped).
    pub total: usize,
    pub problems: Vec<Problem>,
    /// Files ending in `.MD`, `.Md` or `.mD` (not scanned by Claude Code).
    pub extension_case: Vec<(String, PathBuf)>,
    pub temp_files: Vec<TempFile>,
    /// Symlinks whose target resolves outside the dir: (relative path, target).
    pub escaping: Vec<(String, PathBuf)>,
}

impl Scan {
    /// What Claude Code's manifest sees: the 200 newest.
    pub fn claude_view(&self) -> &[Memory] {
        &self.memories[..self.memories.len().min(MAX_MEMORY_FILES)]
    }
}

/// A path's bytes with invalid UTF-8 escaped as `\xNN`.
pub fn escape_path(p: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
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
    use std::os::unix::ffi::OsStrExt;
    p.as_os_str().as_bytes().ends_with(b".md")
}

/// Scan `dir` and load its indexes: the main thread reads the index while the
/// reader threads are still reading topic files. With `cap`, only the newest `cap`
/// memories are kept (every file is still read and counted in `total`).
pub fn scan_with_index(dir: &Path, team_subindex: bool, cap: Option<usize>) -> (Scan, Indexed) {
    scan_with(dir, cap, || Indexed::load(dir, team_subindex))
}

/// Scan `dir`. A missing dir gives an empty scan.
pub fn scan(dir: &Path) -> Scan {
    scan_with(dir, None, || ()).0
}

/// Scan `dir`, running `meanwhile` on the main thread once the walk is done.
fn scan_with<T>(dir: &Path, cap: Option<usize>, meanwhile: impl FnOnce() -> T) -> (Scan, T) {
    let (scan, _, extra) = scan_core(dir, cap, meanwhile, &|_: &Memory, _: &mut File, _: &mut Vec<u8>| ());
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
    scan_core(dir, None, meanwhile, visit)
}

/// One batch's memories, problems and visitor results.
type Batch<R> = (Vec<Memory>, Vec<Problem>, Vec<R>);

fn scan_core<R, T, V>(dir: &Path, cap: Option<usize>, meanwhile: impl FnOnce() -> T, visit: &V) -> (Scan, Vec<R>, T)
where
    R: Send,
    V: Fn(&Memory, &mut File, &mut Vec<u8>) -> R + Sync,
{
    let mut out = Scan::default();
    let mut results = Vec::new();
    let Ok(root_meta) = fs::metadata(dir) else {
        return (out, results, meanwhile());
    };
    let real_dir = fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(8);
    // The walk feeds batches to reader threads, so walking and reading overlap;
    // the readers send their results back batch by batch.
    let (tx, rx) = std::sync::mpsc::channel::<Vec<Item>>();
    let rx = std::sync::Mutex::new(rx);
    let (done_tx, done_rx) = std::sync::mpsc::channel::<Batch<R>>();
    // Read batches until the walk is over and the queue is empty.
    let drain = |done_tx: &std::sync::mpsc::Sender<Batch<R>>| {
        loop {
            let batch = match rx.lock() {
                Ok(r) => r.recv(),
                Err(_) => break,
            };
            let Ok(batch) = batch else { break };
            let mut acc = (
                Vec::with_capacity(batch.len()),
                Vec::new(),
                Vec::with_capacity(batch.len()),
            );
            read_batch(batch, &mut acc, visit);
            if done_tx.send(acc).is_err() {
                break;
            }
        }
    };
    let extra = std::thread::scope(|s| {
        // One thread per core, the main thread included: it walks first, then reads.
        for _ in 1..threads.max(2) {
            let done_tx = done_tx.clone();
            let drain = &drain;
            s.spawn(move || drain(&done_tx));
        }
        let mut walk = Walk {
            root: dir,
            real_root: &real_dir,
            out: &mut out,
            batch: Vec::new(),
            tx: &tx,
            ancestors: vec![dev_ino(&root_meta)],
            sent: 0,
        };
        walk.dir(dir, Some(""));
        let rest = std::mem::take(&mut walk.batch);
        let total = walk.sent + rest.len();
        if !rest.is_empty() {
            let _ = tx.send(rest);
        }
        drop(tx);
        let extra = meanwhile();
        drain(&done_tx);
        drop(done_tx);
        if cap.is_none() {
            out.memories.reserve_exact(total);
            results.reserve_exact(total);
        }
        for (ok, bad, res) in done_rx {
            out.total += ok.len();
            out.memories.extend(ok);
            out.problems.extend(bad);
            results.extend(res);
            // Keep memory bounded: only the newest `cap` can be shown.
            if let Some(c) = cap
                && out.memories.len() > 2 * c + BATCH
            {
                sort_claude_order_with(&mut out.memories, &mut results);
                out.memories.truncate(c);
                results.truncate(c);
            }
        }
        extra
    });
    sort_claude_order_with(&mut out.memories, &mut results);
    if let Some(c) = cap {
        out.memories.truncate(c);
        out.memories.shrink_to_fit();
        results.truncate(c);
    }
    (out, results, extra)
}

/// How many files the walk hands to a reader at a time.
const BATCH: usize = 128;

/// A file the walk found: its relative path, full path, and an open handle on its
/// directory (so the reader opens it by name, without walking the path again).
struct Item {
    rel: String,
    path: PathBuf,
    dir: Option<std::sync::Arc<File>>,
}

fn read_batch<R>(batch: Vec<Item>, acc: &mut Batch<R>, visit: &impl Fn(&Memory, &mut File, &mut Vec<u8>) -> R) {
    let mut buf = Vec::with_capacity(16 << 10);
    for Item { rel, path, dir } in batch {
        let file = match (&dir, path.file_name()) {
            (Some(d), Some(name)) => open_in(d, name),
            _ => File::open(&path),
        };
        let mut file = match file {
            Ok(f) => f,
            Err(e) => {
                acc.1.push(Problem {
                    rel,
                    path,
                    kind: ProblemKind::Unreadable(e.to_string()),
                });
                continue;
            }
        };
        match read_memory_from(&mut file, &mut buf) {
            Ok(mut m) => {
                if crate::text::looks_binary(&buf) {
                    acc.1.push(Problem {
                        rel: rel.clone(),
                        path: path.clone(),
                        kind: ProblemKind::Binary,
                    });
                }
                if m.window_exceeded {
                    acc.1.push(Problem {
                        rel: rel.clone(),
                        path: path.clone(),
                        kind: ProblemKind::WindowTooLarge,
                    });
                }
                m.rel = rel;
                m.path = path;
                acc.2.push(visit(&m, &mut file, &mut buf));
                slim(&mut m);
                acc.0.push(m);
            }
            Err(e) => acc.1.push(Problem {
                rel,
                path,
                kind: ProblemKind::Unreadable(e.to_string()),
            }),
        }
    }
}

#[cfg(unix)]
fn dev_ino(m: &fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (m.dev(), m.ino())
}

/// A recursive walk that follows symlinked directories (with cycle protection by
/// device and inode) and stats only symlinks: the directory entry's type is enough
/// for everything else.
struct Walk<'a> {
    root: &'a Path,
    real_root: &'a Path,
    out: &'a mut Scan,
    batch: Vec<Item>,
    tx: &'a std::sync::mpsc::Sender<Vec<Item>>,
    /// Files sent to the readers so far.
    sent: usize,
    /// (device, inode) of the directories on the current path.
    ancestors: Vec<(u64, u64)>,
}

impl Walk<'_> {
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
            let path = entry.path();
            let Ok(ft) = entry.file_type() else { continue };
            let md = ends_with_md(&path);
            let (is_dir, is_file, meta) = if ft.is_symlink() {
                match fs::metadata(&path) {
                    Ok(m) => {
                        if let Ok(target) = fs::canonicalize(&path)
                            && !target.starts_with(self.real_root)
                        {
                            let rel = self.rel(&path);
                            self.out.escaping.push((rel, target));
                        }
                        (m.is_dir(), m.is_file(), Some(m))
                    }
                    Err(_) => {
                        if md {
                            self.problem(&path, ProblemKind::Dangling);
                        }
                        continue;
                    }
                }
            } else {
                (ft.is_dir(), ft.is_file(), None)
            };
            if is_dir {
                if md {
                    self.problem(&path, ProblemKind::Directory);
                }
                let id = match &meta {
                    Some(m) => dev_ino(m),
                    None => match entry.metadata() {
                        Ok(m) => dev_ino(&m),
                        Err(_) => continue,
                    },
                };
                if self.ancestors.contains(&id) {
                    self.problem(&path, ProblemKind::Cycle);
                    continue;
                }
                self.ancestors.push(id);
                let sub = match (prefix, entry.file_name().to_str()) {
                    (Some(p), Some(n)) => Some(format!("{p}{n}/")),
                    _ => None,
                };
                self.dir(&path, sub.as_deref());
                self.ancestors.pop();
                continue;
            }
            if !md {
                note_other(self.out, self.root, &path, &entry.file_name(), is_file);
                continue;
            }
            if !is_file || entry.file_name() == "MEMORY.md" {
                continue;
            }
            let name = entry.file_name();
            match (prefix, name.to_str()) {
                (Some(p), Some(n)) => {
                    self.batch.push(Item {
                        rel: format!("{p}{n}"),
                        path,
                        dir: handle.clone(),
                    });
                    if self.batch.len() >= BATCH {
                        self.sent += self.batch.len();
                        let _ = self.tx.send(std::mem::take(&mut self.batch));
                    }
                }
                _ => self.problem(&path, ProblemKind::NotUtf8Name),
            }
        }
    }
}

/// Remember non-`.md` entries lint reports: wrong-case extensions and temp files.
fn note_other(out: &mut Scan, dir: &Path, path: &Path, name: &std::ffi::OsStr, is_file: bool) {
    let Some(name) = name.to_str() else { return };
    let rel = || path.strip_prefix(dir).unwrap_or(path).to_string_lossy().into_owned();
    if name.len() > 3
        && name.is_char_boundary(name.len() - 3)
        && name[name.len() - 3..].eq_ignore_ascii_case(".md")
        && is_file
    {
        out.extension_case.push((rel(), path.to_path_buf()));
    } else if let Some(pid) = crate::store::parse_temp_name(name)
        && let Ok(meta) = fs::symlink_metadata(path)
    {
        out.temp_files.push(TempFile {
            rel: rel(),
            path: path.to_path_buf(),
            pid,
            mtime_ms: mtime_ms(&meta),
        });
    }
}

/// Newest first; ties by relative path in byte order (memctl's tie rule).
pub fn sort_claude_order(memories: &mut [Memory]) {
    // A vector of `()` takes no memory.
    sort_claude_order_with(memories, &mut vec![(); memories.len()]);
}

/// [`sort_claude_order`], moving `extra[i]` (one per memory) along with
/// `memories[i]`.
fn sort_claude_order_with<R>(memories: &mut [Memory], extra: &mut [R]) {
    debug_assert_eq!(memories.len(), extra.len());
    // Sort keys, then apply the permutation in place, cycle by cycle: each (large)
    // memory moves a few times instead of being shuffled by the sort or copied.
    let mut order: Vec<(f64, usize)> = memories.iter().enumerate().map(|(i, m)| (m.mtime_ms, i)).collect();
    order.sort_by(|(ta, a), (tb, b)| {
        tb.total_cmp(ta)
            .then_with(|| memories[*a].rel.as_bytes().cmp(memories[*b].rel.as_bytes()))
    });
    let mut done = vec![false; order.len()];
    for start in 0..order.len() {
        let mut cur = start;
        while !done[cur] {
            done[cur] = true;
            let next = order[cur].1;
            if next == start {
                break;
            }
            memories.swap(cur, next);
            extra.swap(cur, next);
            cur = next;
        }
    }
}

fn mtime_ms(meta: &fs::Metadata) -> f64 {
    match meta.modified().map(|t| t.duration_since(std::time::UNIX_EPOCH)) {
        Ok(Ok(d)) => d.as_secs() as f64 * 1000.0 + f64::from(d.subsec_nanos()) / 1e6,
        Ok(Err(before)) => {
            let d = before.duration();
            -(d.as_secs() as f64 * 1000.0 + f64::from(d.subsec_nanos()) / 1e6)
        }
        Err(_) => 0.0,
    }
}

/// Read one memory file's window and metadata.
pub fn read_memory(path: &Path, rel: &str) -> io::Result<Memory> {
    let (mut m, _, _) = open_memory(path, rel)?;
    slim(&mut m);
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
    let mut file = File::open(path)?;
    let mut buf = Vec::new();
    let mut m = read_memory_from(&mut file, &mut buf)?;
    m.rel = rel.to_string();
    m.path = path.to_path_buf();
    Ok((m, file, buf))
}

/// `openat(dir, name)`: open a file by name in an open directory, saving the
/// kernel the walk down the directory's path for every file. rustix makes the
/// call safely on every Unix, and its small-path buffer spares the C string
/// allocation.
fn open_in(dir: &File, name: &std::ffi::OsStr) -> io::Result<File> {
    use rustix::fs::{Mode, OFlags};
    let fd = rustix::fs::openat(dir, name, OFlags::RDONLY | OFlags::CLOEXEC, Mode::empty())?;
    Ok(File::from(fd))
}

/// A handle on a directory for [`open_in`].
fn dir_handle(dir: &Path) -> Option<std::sync::Arc<File>> {
    File::open(dir).ok().map(std::sync::Arc::new)
}

/// Read one memory from an open file. `buf` ends up holding every byte read, and
/// the file is positioned just after them.
fn read_memory_from(file: &mut File, buf: &mut Vec<u8>) -> io::Result<Memory> {
    let meta = file.metadata()?;
    if meta.is_dir() {
        return Err(io::Error::new(io::ErrorKind::IsADirectory, "is a directory"));
    }
    let window = read_window(file, buf, meta.len())?;
    let text = match std::str::from_utf8(&buf[..window.len]) {
        Ok(t) => std::borrow::Cow::Borrowed(t),
        Err(_) => String::from_utf8_lossy(&buf[..window.len]),
    };
    let lines = frontmatter::scan_lines(&text);
    let mut fm = frontmatter::parse_lines(&lines);
    let opens = lines.first().is_some_and(|l| frontmatter::is_delimiter(l));
    let exceeded = opens && window.exceeded;
    if exceeded {
        // The first 30 lines do not fit in 1 MiB: treated as no frontmatter (§2.5).
        fm = frontmatter::Frontmatter::beyond_window();
    } else if opens && fm.close_line.is_none() && window.more && closes_later(file, window.bytes_read, buf.len())? {
        fm.status = Status::BeyondWindow;
    }
    let fields = Fields::take(&mut fm);
    Ok(Memory {
        rel: String::new(),
        path: PathBuf::new(),
        mtime_ms: mtime_ms(&meta),
        size: meta.len(),
        frontmatter: fm,
        fields,
        window_exceeded: exceeded,
    })
}

/// Keep only what is read after the scan: the fields are already moved out, the
/// YAML text and other keys would only cost memory on large dirs.
fn slim(m: &mut Memory) {
    m.frontmatter.yaml_text = None;
    m.frontmatter.map = m.frontmatter.map.take().and_then(keep_plan_keys);
}

struct Window {
    /// Length of the first 30 lines in the buffer (BOM and CRs are handled later).
    len: usize,
    /// The 30 lines did not fit in 1 MiB.
    exceeded: bool,
    /// The file has more text after the window.
    more: bool,
    bytes_read: usize,
}

/// Read the lines the frontmatter result depends on: the first 30, or fewer when
/// line 1 opens a block that closes earlier (the lines after the closing line
/// change nothing). Reads at most 1 MiB.
fn read_window(file: &mut File, buf: &mut Vec<u8>, size: u64) -> io::Result<Window> {
    buf.clear();
    let mut line_start = 0;
    let mut lines = 0;
    let mut opener = false;
    let mut end = None;
    let mut closed = None;
    let mut want = 1024;
    loop {
        let old = buf.len();
        let room = WINDOW_MAX_BYTES - old;
        if room == 0 {
            break;
        }
        buf.resize(old + want.min(room), 0);
        let n = file.read(&mut buf[old..])?;
        buf.truncate(old + n);
        want = 8192;
        if n == 0 {
            break;
        }
        let mut pos = old;
        while let Some(off) = buf[pos..].iter().position(|b| *b == b'\n') {
            let lf = pos + off;
            let line = &buf[line_start..lf];
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            lines += 1;
            if lines == 1 {
                opener = frontmatter::is_delimiter_bytes(line.strip_prefix(b"\xef\xbb\xbf").unwrap_or(line));
            } else if opener && closed.is_none() && frontmatter::is_delimiter_bytes(line) {
                closed = Some(lf);
                // A file of at most 1 MiB cannot exceed the limit: stop here. A
                // larger one is read on to line 30 (bounded by 1 MiB) to tell.
                if size <= WINDOW_MAX_BYTES as u64 {
                    end = Some((lf, true));
                    break;
                }
            }
            if lines == FRONTMATTER_MAX_LINES {
                // Line 30: the window ends at the closing line if there was one.
                end = Some(closed.map_or((lf, false), |c| (c, true)));
                break;
            }
            line_start = lf + 1;
            pos = lf + 1;
        }
        // The size from fstat saves the read that would return 0.
        if end.is_some() || buf.len() >= WINDOW_MAX_BYTES || buf.len() as u64 >= size {
            break;
        }
    }
    let bytes_read = buf.len();
    let (len, exceeded, more) = match end {
        Some((e, true)) => (e, false, true),
        Some((e, false)) => (
            e,
            false,
            bytes_read > e + 1 || size > (e + 1) as u64 || (size == 0 && file_has_more(file, buf)?),
        ),
        None if buf.len() >= WINDOW_MAX_BYTES => (WINDOW_MAX_BYTES, true, true),
        None => match closed {
            // Fewer than 30 lines in a file whose block closed.
            Some(c) => (c, false, true),
            None => (buf.len(), false, false),
        },
    };
    Ok(Window {
        len,
        exceeded,
        more,
        bytes_read,
    })
}

/// Whether a read past the end the size promised still gives a byte (kept in
/// `buf`, which holds every byte read).
fn file_has_more(file: &mut File, buf: &mut Vec<u8>) -> io::Result<bool> {
    let mut one = [0u8; 1];
    let n = file.read(&mut one)?;
    buf.extend_from_slice(&one[..n]);
    Ok(n > 0)
}

/// The frontmatter keys read after the scan (dream's superseded check).
fn keep_plan_keys(map: crate::yaml::Value) -> Option<crate::yaml::Value> {
    use crate::yaml::Value;
    const KEEP: [&str; 2] = ["supersedes", "status"];
    let Value::Map(entries) = map else { return Some(map) };
    let kept = entries
        .into_iter()
        .filter_map(|(k, v)| match (k.as_str(), v) {
            (k2, v) if KEEP.contains(&k2) => Some((k, v)),
            ("metadata", Value::Map(inner)) => {
                let inner: Vec<(String, Value)> =
                    inner.into_iter().filter(|(k, _)| KEEP.contains(&k.as_str())).collect();
                (!inner.is_empty()).then_some((k, Value::Map(inner)))
            }
            _ => None,
        })
        .collect::<Vec<_>>();
    // A fresh, exact allocation (or none): the parser's vector had room to spare.
    (!kept.is_empty()).then(|| {
        let mut kept = kept;
        kept.shrink_to_fit();
        Value::Map(kept)
    })
}

/// Whether a closing delimiter line appears after the window (bounded by 1 MiB).
/// Leaves the file at `resume` (just after the bytes read so far).
fn closes_later(file: &mut File, already: usize, resume: usize) -> io::Result<bool> {
    use std::io::{Seek, SeekFrom};
    file.seek(SeekFrom::Start(0))?;
    let mut rest = Vec::new();
    file.take((WINDOW_MAX_BYTES.max(already) + WINDOW_MAX_BYTES) as u64)
        .read_to_end(&mut rest)?;
    file.seek(SeekFrom::Start(resume as u64))?;
    let text = String::from_utf8_lossy(&rest);
    Ok(frontmatter::scan_lines(&text)
        .iter()
        .skip(1)
        .any(|l| frontmatter::is_delimiter(l)))
}

/// Which index lines link each memory file: the dir's `MEMORY.md`, and for files
/// under `team/` (when scanning the main dir) `team/MEMORY.md`.
#[derive(Clone, Debug, Default)]
pub struct Indexed {
    main: LinkTable,
    team: Option<LinkTable>,
}

/// An index's memory links, compact: (hash, length, line) of each target, sorted.
/// A 64-bit SipHash plus the length makes a false match less likely than a
/// hardware fault, and large indexes (20 000 lines) stay small.
#[derive(Clone, Debug, Default)]
struct LinkTable {
    links: Vec<(u64, u32, u32)>,
}

fn target_key(t: &str) -> (u64, u32) {
    use std::hash::{Hash, Hasher};
    let mut h = std::hash::DefaultHasher::new();
    t.hash(&mut h);
    (h.finish(), t.len() as u32)
}

impl LinkTable {
    fn build(text: &str) -> LinkTable {
        let mut links: Vec<(u64, u32, u32)> = index::extract_links(text)
            .iter()
            .filter_map(|l| l.memory_target().map(target_key).map(|(h, n)| (h, n, l.line as u32)))
            .collect();
        links.sort_unstable();
        links.dedup();
        LinkTable { links }
    }

    /// The lines (1-based) with a memory link to `rel`.
    fn lines(&self, rel: &str) -> Vec<usize> {
        let (h, n) = target_key(rel);
        let start = self.links.partition_point(|(x, m, _)| (*x, *m) < (h, n));
        let matching = &self.links[start..];
        let count = matching.iter().take_while(|(x, m, _)| (*x, *m) == (h, n)).count();
        matching[..count].iter().map(|(_, _, line)| *line as usize).collect()
    }
}

impl Indexed {
    /// Load the indexes of `dir`; `team_subindex` when `dir` is the main memdir.
    pub fn load(dir: &Path, team_subindex: bool) -> Indexed {
        let read = |p: PathBuf| fs::read(p).ok().map(|b| LinkTable::build(&String::from_utf8_lossy(&b)));
        let main = read(dir.join("MEMORY.md")).unwrap_or_default();
        let team = if team_subindex {
            read(dir.join("team").join("MEMORY.md"))
        } else {
            None
        };
        Indexed { main, team }
    }

    /// The index lines (1-based) linking `rel`.
    pub fn lines_for(&self, rel: &str) -> Vec<usize> {
        match rel.strip_prefix("team/") {
            Some(inner) => self.team.as_ref().map_or_else(Vec::new, |t| t.lines(inner)),
            None => self.main.lines(rel),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status_of(text: &str) -> (Status, Option<String>) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("m.md");
        fs::write(&p, text).unwrap();
        let m = read_memory(&p, "m.md").unwrap();
        (m.frontmatter.status, m.fields.description.map(|d| d.js_string()))
    }

    #[test]
    fn closing_line_30_is_inside_the_window() {
        let text = format!("---\ndescription: just fits\n{}---\nbody\n", "# c\n".repeat(27));
        assert_eq!(status_of(&text), (Status::Ok, Some("just fits".into())));
    }

    #[test]
    fn closing_line_31_is_beyond_the_window() {
        let text = format!("---\ndescription: too late\n{}---\nbody\n", "# c\n".repeat(28));
        assert_eq!(status_of(&text), (Status::BeyondWindow, None));
    }

    #[test]
    fn a_block_that_never_closes_is_no_frontmatter() {
        let text = format!("---\ndescription: x\n{}", "line\n".repeat(40));
        assert_eq!(status_of(&text), (Status::None, None));
    }

    #[test]
    fn thirty_lines_over_one_mib_are_beyond_the_window() {
        let text = format!("---\ndescription: {}\n---\n", "x".repeat(WINDOW_MAX_BYTES));
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("m.md");
        fs::write(&p, text).unwrap();
        let m = read_memory(&p, "m.md").unwrap();
        assert_eq!(m.frontmatter.status, Status::BeyondWindow);
        assert!(m.window_exceeded);
    }

    #[test]
    fn crlf_and_bom_are_handled_in_the_window() {
        assert_eq!(
            status_of("\u{feff}---\r\ndescription: crlf\r\n---\r\n"),
            (Status::Ok, Some("crlf".into()))
        );
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
}
