//! An index file checked against Claude Code's load (SPEC §3.10): [`Checked`] holds
//! the modelled [`Load`] and quotes dropped entries as the file has them. A file is
//! read here too: a large one is streamed when the stream can model it, any other
//! is read whole, up to 256 MiB. [`super::report`] turns a `Checked` into the report.

use std::cell::RefCell;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use anyhow::Result;

use super::load::{self, Load, MAX_LINES, MAX_UNITS, Streamed};
use crate::error::{Error, Kind};

/// Index files up to this size are modelled (memctl choice).
pub const MAX_INDEX_BYTES: u64 = 256 << 20;

/// Index files from this size on are streamed when they can be (memctl choice:
/// below it, reading the whole text costs no more).
const STREAM_FROM_BYTES: u64 = 256 << 10;

/// The variable whose value Claude Code loads instead of the index (SPEC §2.7 step 0).
pub const INDEX_CONTENT_VAR: &str = "CLAUDE_COWORK_MEMORY_INDEX_CONTENT";

/// Why Claude Code is in recall mode (SPEC §2.13) and injects no index: the lever
/// (`env CLAUDE_MEMORY_STORES` or `cached flag tengu_moth_copse`), or `None`.
/// `global_config`: the global config file holding the cached server flags (§2.16).
pub fn recall_mode_lever(env: &crate::paths::Env, global_config: Option<&str>) -> Option<String> {
    use crate::paths::{flags, stores};
    let flag = flags::lookup(env, global_config, flags::MOTH_COPSE);
    stores::recall_mode(&stores::Stores::from_env(env), &flag).lever
}

/// Whether `CLAUDE_MEMORY_STORES` configures a team store (SPEC §2.13): only then
/// is `team/` team memory and `team/MEMORY.md` an index Claude Code may use.
pub fn team_store_configured(env: &crate::paths::Env) -> bool {
    crate::paths::stores::Stores::from_env(env).has_team()
}

/// Claude Code reads no index file larger than this (4 MiB, SPEC §2.7 step 1).
pub const CLAUDE_MAX_INDEX_BYTES: u64 = 4 << 20;

/// Whether and why Claude Code injects the index (SPEC §3.10 `load_status`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LoadStatus {
    /// A block is injected.
    Loaded,
    /// Nothing is left after processing: no block.
    Empty,
    Missing,
    NotRegular,
    /// Over 4 194 304 bytes: Claude Code skips the file.
    Oversize,
    /// Auto memory is off.
    Disabled,
    /// Recall mode (SPEC §2.13): no index is injected.
    RecallMode,
    /// A non-empty `CLAUDE_COWORK_MEMORY_INDEX_CONTENT` is loaded instead.
    EnvContent,
    /// `CLAUDE_COWORK_MEMORY_INDEX_CONTENT` is empty: nothing is loaded.
    EnvEmpty,
}

impl LoadStatus {
    /// Whether Claude Code injects a block.
    pub fn injects(self) -> bool {
        matches!(self, LoadStatus::Loaded | LoadStatus::EnvContent)
    }
}

/// An index file and what Claude Code loads from it.
pub struct Checked {
    /// The name shown in text output.
    pub label: String,
    pub path: Option<PathBuf>,
    pub exists: bool,
    /// The load; a streamed one holds only the dropped entries shown.
    pub load: Load,
    /// How many entries are dropped in all.
    pub dropped_total: usize,
    /// The file was not valid UTF-8: the load is that of the lossily decoded text.
    pub lossy: bool,
    /// The file's size in bytes (for standard input, the bytes read).
    pub file_bytes: u64,
    /// Whether Claude Code injects it, and why not.
    pub status: LoadStatus,
    /// Where dropped entries are quoted from, as they are in the file.
    quotes: Quotes,
}

enum Quotes {
    /// The file's text, and the starts of its lines, found on demand up to the
    /// last line asked for (a report quotes a few dropped entries; most of a
    /// large file is never split).
    Text {
        text: String,
        line_starts: RefCell<Vec<usize>>,
    },
    /// The lines a streamed load quoted, by line number, and whether the file
    /// had NUL bytes in its first 8 KiB.
    Lines { lines: Vec<(usize, String)>, binary: bool },
}

impl Checked {
    /// An index file that does not exist: nothing is loaded.
    pub fn missing(label: String, path: PathBuf) -> Checked {
        Checked {
            label,
            path: Some(path),
            exists: false,
            load: load::load(""),
            dropped_total: 0,
            lossy: false,
            file_bytes: 0,
            status: LoadStatus::Missing,
            quotes: Quotes::Lines {
                lines: Vec::new(),
                binary: false,
            },
        }
    }

    /// The whole text checked, when the check holds it (not a streamed load's).
    pub fn text(&self) -> Option<&str> {
        match &self.quotes {
            Quotes::Text { text, .. } => Some(text),
            Quotes::Lines { .. } => None,
        }
    }

    /// Line `n` (1-based) of the file, without its LF and one CR.
    pub fn file_line(&self, n: usize) -> Option<&str> {
        let (text, line_starts) = match &self.quotes {
            Quotes::Lines { lines, .. } => {
                return lines
                    .binary_search_by_key(&n, |(line, _)| *line)
                    .ok()
                    .map(|i| lines[i].1.as_str());
            }
            Quotes::Text { text, line_starts } => (text, line_starts),
        };
        let mut starts = line_starts.borrow_mut();
        let bytes = text.as_bytes();
        while starts.len() <= n {
            let Some(&last) = starts.last() else { break };
            match bytes.get(last..).and_then(|rest| memchr::memchr(b'\n', rest)) {
                Some(i) => starts.push(last + i + 1),
                None => break,
            }
        }
        let start = *starts.get(n.checked_sub(1)?)?;
        let end = starts.get(n).map_or(text.len(), |e| e - 1);
        drop(starts);
        let line = text.get(start..end)?;
        Some(line.strip_suffix('\r').unwrap_or(line))
    }

    /// NUL bytes in the first 8 KiB (Claude Code still reads the file as text).
    pub fn looks_binary(&self) -> bool {
        match &self.quotes {
            Quotes::Text { text, .. } => crate::text::looks_binary(text.as_bytes()),
            Quotes::Lines { binary, .. } => *binary,
        }
    }

    /// A path that is not a regular file (a FIFO, a device): Claude Code skips it.
    pub fn not_regular(label: String, path: PathBuf) -> Checked {
        Checked {
            status: LoadStatus::NotRegular,
            exists: true,
            ..Checked::missing(label, path)
        }
    }

    /// Whether the load reaches `warn_at` percent of either cap.
    pub fn over_threshold(&self, warn_at: Option<f64>) -> bool {
        let l = &self.load;
        warn_at.is_some_and(|p| {
            l.line_count as f64 >= p / 100.0 * MAX_LINES as f64 || l.unit_count as f64 >= p / 100.0 * MAX_UNITS as f64
        })
    }
}

/// Model the load of `text` as the index file `path`.
pub fn checked(label: String, path: Option<PathBuf>, text: impl Into<String>) -> Checked {
    let text: String = text.into();
    let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let load = load::load(&text);
    Checked {
        label,
        path,
        exists: true,
        dropped_total: load.dropped.len(),
        file_bytes: text.len() as u64,
        status: status_of(text.len() as u64, &load),
        load,
        lossy: false,
        quotes: Quotes::Text {
            text,
            line_starts: RefCell::new(vec![bom]),
        },
    }
}

/// The load of a non-empty `CLAUDE_COWORK_MEMORY_INDEX_CONTENT`, which Claude Code
/// loads instead of the file (SPEC §2.7 step 0): steps 1–3 are skipped.
pub fn checked_override(label: String, path: PathBuf, text: String) -> Checked {
    let load = load::load_override(&text);
    Checked {
        label,
        path: Some(path),
        exists: true,
        dropped_total: load.dropped.len(),
        file_bytes: text.len() as u64,
        status: if load.injected.is_empty() {
            LoadStatus::Empty
        } else {
            LoadStatus::EnvContent
        },
        load,
        lossy: false,
        quotes: Quotes::Text {
            text,
            line_starts: RefCell::new(vec![0]),
        },
    }
}

/// The file-level status of a load of a `file_bytes`-byte file (SPEC §2.7 steps 1, 6).
pub fn status_of(file_bytes: u64, load: &Load) -> LoadStatus {
    if file_bytes > CLAUDE_MAX_INDEX_BYTES {
        LoadStatus::Oversize
    } else if load.injected.is_empty() {
        LoadStatus::Empty
    } else {
        LoadStatus::Loaded
    }
}

/// [`checked`] for a streamed load of a `file_bytes`-byte file.
pub fn checked_streamed(label: String, path: Option<PathBuf>, s: Streamed, file_bytes: u64) -> Checked {
    Checked {
        label,
        path,
        exists: true,
        file_bytes,
        status: status_of(file_bytes, &s.load),
        load: s.load,
        dropped_total: s.dropped_total,
        lossy: false,
        quotes: Quotes::Lines {
            lines: s.quotes,
            binary: s.binary,
        },
    }
}

/// Read and model the index file at `path`, shown as `label`: streamed when it is
/// large and the stream can model it, else its whole text. `quotes`: how many
/// dropped entries the report quotes (a streamed load keeps only those).
pub fn check_file(label: String, path: &Path, quotes: usize) -> Result<Checked> {
    let file = open_index(path)?;
    check_open(label, path, file, quotes)
}

/// [`check_file`] on an index memctl found itself (not one the user named): only a
/// regular file is opened (SPEC §2.5 step 8); a FIFO or a device is an `io` error.
pub fn check_found(label: String, path: &Path, quotes: usize) -> Result<Checked> {
    if path.is_dir() {
        // Its own message: "is a directory, not an index file".
        open_index(path)?;
    }
    let file = crate::fsread::open_regular(path).map_err(|e| {
        let kind = if matches!(e, crate::fsread::ReadError::NotFound) {
            Kind::NotFound
        } else {
            Kind::Io
        };
        Error::new(kind, format!("cannot read {}: {e}", path.display()))
            .hint("MEMORY.md must be a regular file; replace it with one")
    })?;
    check_open(label, path, file, quotes)
}

fn check_open(label: String, path: &Path, mut file: File, quotes: usize) -> Result<Checked> {
    let shown = path.display().to_string();
    let meta = file.metadata().ok();
    let size = meta.as_ref().map_or(0, std::fs::Metadata::len);
    if meta.is_some_and(|m| m.is_file()) && size >= STREAM_FROM_BYTES {
        if let Some(s) = load::load_stream(&mut file, quotes)? {
            return Ok(checked_streamed(label, Some(path.to_path_buf()), s, size));
        }
        file.seek(SeekFrom::Start(0))?;
    }
    let (text, lossy, read) = bounded_text(file, &shown, size)?;
    let c = checked(label, Some(path.to_path_buf()), text);
    Ok(Checked {
        lossy,
        file_bytes: read,
        status: status_of(read, &c.load),
        ..c
    })
}

/// Read and model an index from `reader` (standard input, shown as `shown`): its
/// whole text, with no path.
pub fn check_reader(label: String, reader: impl Read, shown: &str) -> Result<Checked> {
    let (text, lossy, read) = bounded_text(reader, shown, 0)?;
    let c = checked(label, None, text);
    Ok(Checked {
        lossy,
        file_bytes: read,
        status: status_of(read, &c.load),
        ..c
    })
}

/// The text read (lossily decoded), whether it was not valid UTF-8, and how many
/// bytes were read.
fn bounded_text(mut reader: impl Read, shown: &str, size_hint: u64) -> Result<(String, bool, u64)> {
    // One allocation of the right size (`take` hides the file's own size hint).
    let mut bytes = Vec::with_capacity(size_hint.min(MAX_INDEX_BYTES + 1) as usize + 1);
    reader.by_ref().take(MAX_INDEX_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_INDEX_BYTES {
        return Err(Error::new(Kind::Io, format!("index larger than 256 MiB: {shown}"))
            .hint("memctl models index files up to 256 MiB; Claude Code loads at most 25 000 units of it anyway")
            .into());
    }
    let read = bytes.len() as u64;
    Ok(match String::from_utf8(bytes) {
        Ok(text) => (text, false, read),
        Err(e) => (String::from_utf8_lossy(e.as_bytes()).into_owned(), true, read),
    })
}

fn open_index(path: &Path) -> Result<File> {
    let shown = path.display();
    if path.is_dir() {
        return Err(
            Error::new(Kind::Io, format!("is a directory, not an index file: {shown}"))
                .hint("pass the MEMORY.md file itself")
                .into(),
        );
    }
    crate::fsread::open_regular(path).map_err(|e| {
        let (kind, hint) = match e {
            crate::fsread::ReadError::NotFound => (Kind::NotFound, "check the path and its permissions"),
            crate::fsread::ReadError::NotRegular(_) => (Kind::Io, "pass a regular file, or - to read standard input"),
            _ => (Kind::Io, "check the path and its permissions"),
        };
        Error::new(kind, format!("cannot read {shown}: {e}")).hint(hint).into()
    })
}
