//! Walking a memory dir the way Claude Code's scan does (SPEC §2.5): every `.md`
//! file but `MEMORY.md`, at any depth, through symlinked directories, reading only
//! the 30-line frontmatter window. Bad entries become problems, never failures.

use std::collections::HashMap;
use std::fs::{self, File};
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use walkdir::WalkDir;

use crate::frontmatter::{self, Fields, Status};
use crate::index;
use crate::memory::Memory;

/// `MAX_MEMORY_FILES`: Claude Code's manifest holds the 200 newest files.
pub const MAX_MEMORY_FILES: usize = 200;
/// `FRONTMATTER_MAX_LINES`.
pub const FRONTMATTER_MAX_LINES: usize = 30;
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
    pub memories: Vec<Memory>,
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

/// Scan `dir`. A missing dir gives an empty scan.
pub fn scan(dir: &Path) -> Scan {
    let mut out = Scan::default();
    if !dir.exists() {
        return out;
    }
    let real_dir = fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let walker = WalkDir::new(dir).follow_links(true).min_depth(1);
    for entry in walker {
        let entry = match entry {
            Ok(e) => e,
            Err(err) => {
                if let Some(p) = err.path() {
                    let rel = escape_path(p.strip_prefix(dir).unwrap_or(p));
                    let kind = if err.loop_ancestor().is_some() {
                        ProblemKind::Cycle
                    } else if fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink())
                        && fs::metadata(p).is_err()
                    {
                        ProblemKind::Dangling
                    } else if ends_with_md(p) && !p.is_dir() {
                        ProblemKind::Unreadable(err.io_error().map_or_else(|| err.to_string(), io::Error::to_string))
                    } else {
                        ProblemKind::UnlistableDir(err.io_error().map_or_else(|| err.to_string(), io::Error::to_string))
                    };
                    if kind != ProblemKind::Dangling || ends_with_md(p) {
                        out.problems.push(Problem {
                            rel,
                            path: p.to_path_buf(),
                            kind,
                        });
                    }
                }
                continue;
            }
        };
        let path = entry.path();
        if entry.path_is_symlink()
            && let Ok(target) = fs::canonicalize(path)
            && !target.starts_with(&real_dir)
        {
            out.escaping
                .push((escape_path(path.strip_prefix(dir).unwrap_or(path)), target));
        }
        if !ends_with_md(path) {
            note_other(&mut out, dir, path, &entry);
            continue;
        }
        if entry.file_name() == "MEMORY.md" {
            continue;
        }
        let rel_path = path.strip_prefix(dir).unwrap_or(path);
        let Some(rel) = rel_path.to_str() else {
            out.problems.push(Problem {
                rel: escape_path(rel_path),
                path: path.to_path_buf(),
                kind: ProblemKind::NotUtf8Name,
            });
            continue;
        };
        if entry.file_type().is_dir() {
            out.problems.push(Problem {
                rel: rel.to_string(),
                path: path.to_path_buf(),
                kind: ProblemKind::Directory,
            });
            continue;
        }
        match read_memory(path, rel) {
            Ok(m) => out.memories.push(m),
            Err(e) => out.problems.push(Problem {
                rel: rel.to_string(),
                path: path.to_path_buf(),
                kind: ProblemKind::Unreadable(e.to_string()),
            }),
        }
    }
    sort_claude_order(&mut out.memories);
    out
}

/// Remember non-`.md` entries lint reports: wrong-case extensions and temp files.
fn note_other(out: &mut Scan, dir: &Path, path: &Path, entry: &walkdir::DirEntry) {
    let Some(name) = entry.file_name().to_str() else { return };
    let rel = || path.strip_prefix(dir).unwrap_or(path).to_string_lossy().into_owned();
    if name.len() > 3 && name[name.len() - 3..].eq_ignore_ascii_case(".md") && entry.file_type().is_file() {
        out.extension_case.push((rel(), path.to_path_buf()));
    } else if let Some(pid) = crate::store::parse_temp_name(name)
        && let Ok(meta) = entry.metadata()
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
    memories.sort_by(|a, b| {
        b.mtime_ms
            .total_cmp(&a.mtime_ms)
            .then_with(|| a.rel.as_bytes().cmp(b.rel.as_bytes()))
    });
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
    let mut file = File::open(path)?;
    let meta = file.metadata()?;
    let window = read_window(&mut file)?;
    let lines = frontmatter::scan_lines(&window.text);
    let mut fm = frontmatter::parse_lines(&lines);
    let opens = lines.first().is_some_and(|l| frontmatter::is_delimiter(l));
    if opens
        && fm.close_line.is_none()
        && (window.exceeded || (window.more && closes_later(&mut file, window.bytes_read)?))
    {
        fm.status = Status::BeyondWindow;
    }
    let fields = Fields::from(&fm);
    Ok(Memory {
        rel: rel.to_string(),
        path: path.to_path_buf(),
        mtime_ms: mtime_ms(&meta),
        size: meta.len(),
        frontmatter: fm,
        fields,
        window_exceeded: window.exceeded && opens,
    })
}

struct Window {
    /// The first 30 lines (BOM and trailing CRs are handled by the caller).
    text: String,
    /// The 30 lines did not fit in 1 MiB.
    exceeded: bool,
    /// The file has more text after the window.
    more: bool,
    bytes_read: usize,
}

fn read_window(file: &mut File) -> io::Result<Window> {
    let mut buf = Vec::with_capacity(4096);
    let mut chunk = [0u8; 8192];
    let mut newlines = 0;
    let mut end = None;
    loop {
        let n = file.read(&mut chunk)?;
        if n == 0 {
            break;
        }
        let start = buf.len();
        buf.extend_from_slice(&chunk[..n]);
        for (i, b) in buf[start..].iter().enumerate() {
            if *b == b'\n' {
                newlines += 1;
                if newlines == FRONTMATTER_MAX_LINES {
                    end = Some(start + i);
                    break;
                }
            }
        }
        if end.is_some() || buf.len() >= WINDOW_MAX_BYTES {
            break;
        }
    }
    let bytes_read = buf.len();
    let (slice, exceeded, more) = match end {
        Some(e) => (&buf[..e], false, bytes_read > e + 1 || file_has_more(file)?),
        None if buf.len() >= WINDOW_MAX_BYTES => (&buf[..WINDOW_MAX_BYTES], true, true),
        None => (&buf[..], false, false),
    };
    Ok(Window {
        text: String::from_utf8_lossy(slice).into_owned(),
        exceeded,
        more,
        bytes_read,
    })
}

fn file_has_more(file: &mut File) -> io::Result<bool> {
    let mut one = [0u8; 1];
    Ok(file.read(&mut one)? > 0)
}

/// Whether a closing delimiter line appears after the window (bounded by 1 MiB).
fn closes_later(file: &mut File, already: usize) -> io::Result<bool> {
    use std::io::{Seek, SeekFrom};
    file.seek(SeekFrom::Start(0))?;
    let mut rest = Vec::new();
    file.take((WINDOW_MAX_BYTES.max(already) + WINDOW_MAX_BYTES) as u64)
        .read_to_end(&mut rest)?;
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
    main: HashMap<String, Vec<usize>>,
    team: HashMap<String, Vec<usize>>,
    has_team: bool,
}

impl Indexed {
    /// Load the indexes of `dir`; `team_subindex` when `dir` is the main memdir.
    pub fn load(dir: &Path, team_subindex: bool) -> Indexed {
        let read = |p: PathBuf| fs::read(p).ok().map(|b| index_map(&String::from_utf8_lossy(&b)));
        let main = read(dir.join("MEMORY.md")).unwrap_or_default();
        let team = if team_subindex {
            read(dir.join("team").join("MEMORY.md"))
        } else {
            None
        };
        Indexed {
            main,
            has_team: team.is_some(),
            team: team.unwrap_or_default(),
        }
    }

    /// The index lines (1-based) linking `rel`.
    pub fn lines_for(&self, rel: &str) -> &[usize] {
        let found = match rel.strip_prefix("team/") {
            Some(inner) if self.has_team || !self.team.is_empty() => self.team.get(inner),
            Some(_) => None,
            None => self.main.get(rel),
        };
        found.map_or(&[], Vec::as_slice)
    }
}

fn index_map(text: &str) -> HashMap<String, Vec<usize>> {
    let mut map: HashMap<String, Vec<usize>> = HashMap::new();
    for link in index::extract_links(text) {
        if let Some(t) = link.memory_target() {
            let lines = map.entry(t.to_string()).or_default();
            if lines.last() != Some(&link.line) {
                lines.push(link.line);
            }
        }
    }
    map
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
