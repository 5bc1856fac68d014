//! The project's CLAUDE files (SPEC §12): where `CLAUDE.md` and `CLAUDE.local.md`
//! are, reading them as numbered lines with their age, the statements they make,
//! and the pure edit that appends memories under a `## From memory` heading.
//!
//! Writing one goes through [`crate::store::Writer::replace_outside`], which keeps
//! the previous bytes in the command's history snapshot for `memctl undo`.

mod edit;
mod statements;

use std::path::{Path, PathBuf};

use crate::error::{Error, Kind};
use crate::fsread::{self, ReadError};

pub use edit::{FROM_MEMORY, append_from_memory, bullet, replace_in_line};
pub use statements::{Statement, statements};

/// The most of a CLAUDE file memctl reads (it is loaded into every session; a
/// larger one is not a CLAUDE file anyone wrote by hand).
pub const MAX_BYTES: u64 = 4 << 20;

/// Which of the two CLAUDE files.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Which {
    /// `CLAUDE.md` (or `.claude/CLAUDE.md`): the team's, checked in.
    ClaudeMd,
    /// `CLAUDE.local.md`: the user's own, at the project root.
    ClaudeLocalMd,
    /// `AGENTS.md` (or `.claude/AGENTS.md`): the project's rules for every agent,
    /// which Claude Code reads too (SPEC §12, v3).
    AgentsMd,
}

impl Which {
    /// `CLAUDE.md` or `CLAUDE.local.md`.
    pub fn file_name(self) -> &'static str {
        match self {
            Which::ClaudeMd => "CLAUDE.md",
            Which::ClaudeLocalMd => "CLAUDE.local.md",
            Which::AgentsMd => "AGENTS.md",
        }
    }
}

/// One CLAUDE file of a project, found (it may not exist yet).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClaudeFile {
    pub which: Which,
    /// The project root it belongs to (the containment boundary of its writes).
    pub root: PathBuf,
    /// The path a user names: `<root>/CLAUDE.md`, `<root>/.claude/CLAUDE.md` or
    /// `<root>/CLAUDE.local.md` (the link itself when it is a symlink). Where a
    /// missing file would be created.
    pub path: PathBuf,
    /// Whether something is there now (a symlink counts, its target was checked).
    pub exists: bool,
    /// The symlink's real target, inside the root, when `path` is a symlink.
    pub link_target: Option<PathBuf>,
    /// Why this path was chosen, when there was a choice (both `CLAUDE.md` and
    /// `.claude/CLAUDE.md` exist): a note for the user.
    pub note: Option<String>,
}

impl ClaudeFile {
    /// `CLAUDE.md`, `.claude/CLAUDE.md` or `CLAUDE.local.md`: the path below the root.
    pub fn display(&self) -> String {
        self.path
            .strip_prefix(&self.root)
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_else(|_| self.path.display().to_string())
    }
}

/// The CLAUDE files of a project, and its `AGENTS.md`.
#[derive(Clone, Debug)]
pub struct Located {
    pub claude_md: ClaudeFile,
    pub claude_local_md: ClaudeFile,
    pub agents_md: ClaudeFile,
}

/// Find the CLAUDE files and `AGENTS.md` of the project at `root` (see [`locate_one`]).
pub fn locate(root: &Path) -> Result<Located, Error> {
    Ok(Located {
        claude_md: locate_one(root, Which::ClaudeMd)?,
        claude_local_md: locate_one(root, Which::ClaudeLocalMd)?,
        agents_md: locate_one(root, Which::AgentsMd)?,
    })
}

/// Find one CLAUDE file of the project at `root`. `CLAUDE.md` is the root's, or
/// `.claude/CLAUDE.md` when only that one exists (the root's wins when both do,
/// with a note); when neither exists, the root's path (where it would be
/// created). `AGENTS.md` likewise, with `.claude/AGENTS.md`. `CLAUDE.local.md` is always the root's. A symlink is followed only
/// when its real target lies inside the real root (else `containment`); a
/// dangling one is `invalid_input`.
pub fn locate_one(root: &Path, which: Which) -> Result<ClaudeFile, Error> {
    let at_root = root.join(which.file_name());
    let path = match which {
        Which::ClaudeLocalMd => at_root,
        Which::ClaudeMd | Which::AgentsMd => {
            let nested = root.join(".claude").join(which.file_name());
            match (present(&at_root), present(&nested)) {
                (false, true) => nested,
                (true, true) => {
                    let mut f = checked(root, which, at_root)?;
                    f.note = Some(format!(
                        "both {name} and .claude/{name} exist in {}; using {name} (the root's)",
                        root.display(),
                        name = which.file_name()
                    ));
                    return Ok(f);
                }
                _ => at_root,
            }
        }
    };
    checked(root, which, path)
}

/// Whether an entry is at `p` (a dangling symlink counts: it is the user's).
fn present(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok()
}

fn checked(root: &Path, which: Which, path: PathBuf) -> Result<ClaudeFile, Error> {
    let mut f = ClaudeFile {
        which,
        root: root.to_path_buf(),
        path,
        exists: false,
        link_target: None,
        note: None,
    };
    // `.claude/CLAUDE.md` through a `.claude` that is a symlink: its real
    // directory must lie inside the project too, checked before anything is read.
    if let Some(parent) = f.path.parent()
        && parent != root
        && std::fs::symlink_metadata(parent).is_ok()
    {
        parent_inside(root, &f.path, parent)?;
    }
    let Ok(md) = std::fs::symlink_metadata(&f.path) else {
        return Ok(f);
    };
    f.exists = true;
    if md.file_type().is_symlink() {
        f.link_target = Some(link_target(root, &f.path)?);
    }
    Ok(f)
}

/// The real directory `parent` of `path`, required inside the real `root`.
fn parent_inside(root: &Path, path: &Path, parent: &Path) -> Result<(), Error> {
    let real = std::fs::canonicalize(parent).map_err(|e| {
        Error::new(
            Kind::InvalidInput,
            format!("cannot resolve {}: {}", parent.display(), crate::error::io_words(&e)),
        )
    })?;
    if !real.starts_with(real_root(root)?) {
        return Err(Error::new(
            Kind::Containment,
            format!(
                "{} is reached through a symlink that leaves the project: {}",
                path.display(),
                real.display()
            ),
        )
        .hint("memctl reads and writes CLAUDE files only inside the project root; edit the file there directly"));
    }
    Ok(())
}

fn real_root(root: &Path) -> Result<PathBuf, Error> {
    std::fs::canonicalize(root).map_err(|e| {
        Error::new(
            Kind::Io,
            format!("cannot resolve {}: {}", root.display(), crate::error::io_words(&e)),
        )
    })
}

/// The real target of the symlink `path`, required inside the real `root`.
pub fn link_target(root: &Path, path: &Path) -> Result<PathBuf, Error> {
    let target = std::fs::canonicalize(path).map_err(|e| {
        Error::new(
            Kind::InvalidInput,
            format!(
                "{} is a symlink memctl cannot follow: {}",
                path.display(),
                crate::error::io_words(&e)
            ),
        )
        .hint("point the link at an existing file inside the project, or replace it with a file")
    })?;
    let root_real = real_root(root)?;
    if !target.starts_with(&root_real) {
        return Err(Error::new(
            Kind::Containment,
            format!(
                "{} is a symlink that leaves the project: {}",
                path.display(),
                target.display()
            ),
        )
        .hint("memctl reads and writes CLAUDE files only inside the project root; edit the target directly"));
    }
    Ok(target)
}

/// One line of a CLAUDE file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// 1-based.
    pub number: usize,
    /// Without its line ending (and without a BOM on line 1); invalid UTF-8 is
    /// replaced.
    pub text: String,
}

/// A CLAUDE file as read.
#[derive(Clone, Debug)]
pub struct ClaudeText {
    pub file: ClaudeFile,
    /// The bytes exactly as read: what [`crate::store::Writer::replace_outside`]
    /// expects to find when it writes.
    pub bytes: Vec<u8>,
    pub lines: Vec<Line>,
    /// The file's modification time (ns since the epoch): the age of each of its
    /// lines (SPEC §12).
    pub mtime_ns: i128,
}

impl ClaudeText {
    /// Its statements (see [`statements`]).
    pub fn statements(&self) -> Vec<Statement> {
        statements(&self.lines)
    }
}

/// Read a located CLAUDE file: `None` when it does not exist. Regular files only
/// (a FIFO never blocks), at most [`MAX_BYTES`]; errors name the file.
pub fn read(file: &ClaudeFile) -> Result<Option<ClaudeText>, Error> {
    if !file.exists {
        return Ok(None);
    }
    let unreadable = |why: String| {
        Error::new(
            Kind::InvalidInput,
            format!("cannot read {}: {why}", file.path.display()),
        )
        .hint("a CLAUDE file must be a regular text file of at most 4 MiB")
    };
    let f = match fsread::open_regular(&file.path) {
        Ok(f) => f,
        Err(ReadError::NotFound) => return Ok(None),
        Err(e) => return Err(unreadable(e.to_string())),
    };
    let mtime_ns = f
        .metadata()
        .map(|m| crate::history::tracked::mtime_ns(&m))
        .map_err(|e| unreadable(crate::error::io_words(&e)))?;
    let bytes = fsread::read_bounded(f, MAX_BYTES).map_err(|e| unreadable(e.to_string()))?;
    Ok(Some(ClaudeText {
        file: file.clone(),
        lines: lines(&bytes),
        bytes,
        mtime_ns,
    }))
}

/// The lines of `bytes`, numbered from 1: a BOM dropped, `\r\n` and `\n` both end a
/// line, a last line without a newline counts, a final newline starts no line.
pub fn lines(bytes: &[u8]) -> Vec<Line> {
    let body = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    if body.is_empty() {
        return Vec::new();
    }
    let body = body.strip_suffix(b"\n").unwrap_or(body);
    body.split(|b| *b == b'\n')
        .enumerate()
        .map(|(i, l)| Line {
            number: i + 1,
            text: String::from_utf8_lossy(l.strip_suffix(b"\r").unwrap_or(l)).into_owned(),
        })
        .collect()
}

#[cfg(test)]
mod tests;
