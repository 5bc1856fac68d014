//! `memctl truncate-check [PATH | -]` (SPEC §3.10).

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;
use serde_json::{Value, json};

use crate::cli::TruncateCheckArgs;
use crate::context::Context;
use crate::error::{Error, Kind};
use crate::index::load::{self, Load, MAX_LINES, MAX_UNITS};
use crate::output::Output;
use crate::text::{ellipsize, group_digits, to_fixed1};

/// Index files up to this size are modelled (memctl choice).
pub const MAX_INDEX_BYTES: u64 = 256 << 20;
/// The text output lists at most this many dropped entries.
pub const LIST_DROPPED: usize = 50;
/// The JSON output holds at most this many dropped entries.
pub const JSON_DROPPED: usize = 10_000;

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
    /// Where dropped entries are quoted from, as they are in the file.
    quotes: Quotes,
}

enum Quotes {
    /// The file's text, and the starts of its lines, found on demand up to the
    /// last line asked for (a report quotes a few dropped entries; most of a
    /// large file is never split).
    Text {
        text: String,
        line_starts: std::cell::RefCell<Vec<usize>>,
    },
    /// The lines a streamed load quoted, by line number.
    Lines(Vec<(usize, String)>),
}

impl Checked {
    /// Line `n` (1-based) of the file, without its LF and one CR.
    pub fn file_line(&self, n: usize) -> Option<&str> {
        let (text, line_starts) = match &self.quotes {
            Quotes::Lines(lines) => {
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
            match bytes.get(last..).and_then(|rest| rest.iter().position(|b| *b == b'\n')) {
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
}

pub fn run(args: &TruncateCheckArgs, ctx: &Context, out: &mut Output) -> Result<ExitCode> {
    if args.print_loaded && out.json {
        return Err(Error::new(Kind::Usage, "--print-loaded cannot be combined with --json")
            .hint("drop --json to print the loaded text, or drop --print-loaded for the report")
            .into());
    }
    // How many dropped entries the report quotes.
    let quotes = match (args.print_loaded, out.json) {
        (true, _) => 0,
        (false, true) => JSON_DROPPED,
        (false, false) => LIST_DROPPED,
    };
    let checked = match &args.path {
        Some(p) if p.as_os_str() == "-" => read_stdin()?,
        Some(p) => read_explicit(p, quotes)?,
        None => {
            let res = ctx.resolve_existing()?;
            if !res.enabled.value && !res.explicit {
                out.note(format!(
                    "auto memory is disabled ({}): Claude Code loads nothing at all",
                    res.enabled.lever
                ));
            }
            let label = if res.team { "team/MEMORY.md" } else { "MEMORY.md" };
            read_default(&res.index_path(), label, &res.dir, quotes, out)?
        }
    };
    if args.print_loaded {
        out.print(&checked.load.loaded)?;
        return Ok(ExitCode::SUCCESS);
    }
    let over = over_threshold(&checked.load, args.warn_at);
    if out.json {
        out.emit_json(truncation_json(&checked, args.warn_at))?;
    } else {
        out.print(&render_text(&checked, args.warn_at))?;
    }
    Ok(if (checked.exists && checked.load.truncated()) || over {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The text read (lossily decoded), and whether it was not valid UTF-8.
fn bounded_text(mut reader: impl Read, shown: &str, size_hint: u64) -> Result<(String, bool)> {
    // One allocation of the right size (`take` hides the file's own size hint).
    let mut bytes = Vec::with_capacity(size_hint.min(MAX_INDEX_BYTES + 1) as usize + 1);
    reader.by_ref().take(MAX_INDEX_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_INDEX_BYTES {
        return Err(Error::new(Kind::Io, format!("index larger than 256 MiB: {shown}"))
            .hint("memctl models index files up to 256 MiB; Claude Code loads at most 25 000 units of it anyway")
            .into());
    }
    Ok(match String::from_utf8(bytes) {
        Ok(text) => (text, false),
        Err(e) => (String::from_utf8_lossy(e.as_bytes()).into_owned(), true),
    })
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
        load,
        quotes: Quotes::Text {
            text,
            line_starts: std::cell::RefCell::new(vec![bom]),
        },
    }
}

/// Index files from this size on are streamed when they can be (memctl choice:
/// below it, reading the whole text costs no more).
const STREAM_FROM_BYTES: u64 = 256 << 10;

/// An index file read for the model: streamed when it is large and the stream can
/// model it, else its whole text.
enum IndexRead {
    /// The text, and whether it was not valid UTF-8.
    Whole(String, bool),
    Streamed(Box<load::Streamed>),
}

/// `quotes`: how many dropped entries the report quotes.
fn read_index(mut file: File, shown: &str, quotes: usize) -> Result<IndexRead> {
    use std::io::{Seek, SeekFrom};
    let meta = file.metadata().ok();
    let size = meta.as_ref().map_or(0, std::fs::Metadata::len);
    if meta.is_some_and(|m| m.is_file()) && size >= STREAM_FROM_BYTES {
        if let Some(s) = load::load_stream(&mut file, quotes)? {
            return Ok(IndexRead::Streamed(Box::new(s)));
        }
        file.seek(SeekFrom::Start(0))?;
    }
    let (text, lossy) = bounded_text(file, shown, size)?;
    Ok(IndexRead::Whole(text, lossy))
}

fn checked_read(label: String, path: &Path, read: IndexRead) -> Checked {
    match read {
        IndexRead::Whole(text, _) => checked(label, Some(path.to_path_buf()), text),
        IndexRead::Streamed(s) => checked_streamed(label, Some(path.to_path_buf()), *s),
    }
}

/// [`checked`] for a streamed load.
pub fn checked_streamed(label: String, path: Option<PathBuf>, s: load::Streamed) -> Checked {
    Checked {
        label,
        path,
        exists: true,
        load: s.load,
        dropped_total: s.dropped_total,
        quotes: Quotes::Lines(s.quotes),
    }
}

fn read_stdin() -> Result<Checked> {
    let (text, _) = bounded_text(std::io::stdin().lock(), "standard input", 0)?;
    Ok(checked("<stdin>".into(), None, text))
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
    File::open(path).map_err(|e| {
        let kind = if e.kind() == std::io::ErrorKind::NotFound {
            Kind::NotFound
        } else {
            Kind::Io
        };
        Error::new(kind, format!("cannot read {shown}: {e}"))
            .hint("check the path and its permissions")
            .into()
    })
}

fn read_explicit(path: &Path, quotes: usize) -> Result<Checked> {
    let read = read_index(open_index(path)?, &path.display().to_string(), quotes)?;
    Ok(checked_read(path.display().to_string(), path, read))
}

fn read_default(path: &Path, label: &str, dir: &Path, quotes: usize, out: &mut Output) -> Result<Checked> {
    if std::fs::symlink_metadata(path).is_err() {
        return Ok(Checked {
            label: label.into(),
            path: Some(path.to_path_buf()),
            exists: false,
            load: load::load(""),
            dropped_total: 0,
            quotes: Quotes::Lines(Vec::new()),
        });
    }
    if let (Ok(real), Ok(real_dir)) = (std::fs::canonicalize(path), std::fs::canonicalize(dir))
        && !real.starts_with(&real_dir)
    {
        out.warn(format!(
            "{label} is a symlink leaving the memory dir (to {})",
            real.display()
        ));
    }
    let read = read_index(open_index(path)?, &path.display().to_string(), quotes)?;
    let binary = match &read {
        IndexRead::Whole(text, _) => crate::text::looks_binary(text.as_bytes()),
        IndexRead::Streamed(s) => s.binary,
    };
    if binary {
        out.warn(format!(
            "{label} is binary (NUL bytes); modelled on its text as Claude Code reads it"
        ));
    }
    // A streamed index is valid UTF-8.
    if let IndexRead::Whole(_, true) = read {
        out.warn(format!(
            "{label} is not valid UTF-8; modelled on the lossily decoded text, as Claude Code reads it"
        ));
    }
    Ok(checked_read(label.into(), path, read))
}

fn over_threshold(l: &Load, warn_at: Option<f64>) -> bool {
    warn_at.is_some_and(|p| {
        l.line_count as f64 >= p / 100.0 * MAX_LINES as f64 || l.unit_count as f64 >= p / 100.0 * MAX_UNITS as f64
    })
}

/// The file's own text of line `n` (1-based).
fn file_line(c: &Checked, n: usize, processed: &str) -> String {
    c.file_line(n).unwrap_or(processed).to_string()
}

/// The `truncate-check` JSON object (also embedded by other commands).
pub fn truncation_json(c: &Checked, warn_at: Option<f64>) -> Value {
    let l = &c.load;
    let (lines, units, bytes) = if c.exists {
        (l.line_count, l.unit_count, l.utf8_bytes)
    } else {
        (0, 0, 0)
    };
    let dropped: Vec<Value> = l
        .dropped
        .iter()
        .take(JSON_DROPPED)
        .map(|d| json!({"line": d.line, "text": file_line(c, d.line, l.dropped_text(d))}))
        .collect();
    json!({
        "path": c.path.as_ref().map_or_else(|| "-".to_string(), |p| p.to_string_lossy().into_owned()),
        "exists": c.exists,
        "line_count": lines,
        "byte_count": units,
        "utf8_bytes": bytes,
        "line_truncated": l.line_truncated,
        "byte_truncated": l.unit_truncated,
        "truncated": l.truncated(),
        "warning": l.warning,
        "loaded": l.loaded,
        "dropped_entries": dropped,
        "dropped_entries_total": c.dropped_total,
        "headroom_lines": MAX_LINES as i64 - lines as i64,
        "headroom_bytes": MAX_UNITS as i64 - units as i64,
        "frontmatter_stripped": l.frontmatter_stripped,
        "html_comments_stripped": l.html_comments_stripped,
        "limits": {"lines": MAX_LINES, "bytes": MAX_UNITS},
        "warn_at": warn_at,
        "over_threshold": over_threshold(l, warn_at),
    })
}

/// The text report of SPEC §3.10.
pub fn render_text(c: &Checked, warn_at: Option<f64>) -> String {
    let l = &c.load;
    if !c.exists {
        return format!("{}: does not exist; nothing is loaded\n", c.label);
    }
    let g = |n: usize| group_digits(n as i64);
    let pct = to_fixed1(100.0 * l.unit_count as f64 / MAX_UNITS as f64);
    let mut s = format!(
        "{}: {} lines, {} / {} units ({pct}%), {} UTF-8 bytes\n",
        c.label,
        g(l.line_count),
        g(l.unit_count),
        g(MAX_UNITS),
        g(l.utf8_bytes)
    );
    if l.truncated() {
        let cap = match (l.line_truncated, l.unit_truncated) {
            (true, true) => "line and unit caps",
            (true, false) => "line cap",
            _ => "unit cap",
        };
        let loaded = match (
            l.processed.origin.first(),
            l.kept_lines.checked_sub(1).and_then(|i| l.processed.origin.get(i)),
        ) {
            (Some(first), Some(last)) => format!("loaded lines {first}–{last}"),
            _ => "no line loaded in full".to_string(),
        };
        s.push_str(&format!("truncated: yes ({cap}); {loaded}\n"));
        s.push_str(&format!("dropped entries ({}):\n", g(c.dropped_total)));
        for d in l.dropped.iter().take(LIST_DROPPED) {
            s.push_str(&ellipsize(
                &format!("  {}: {}", d.line, file_line(c, d.line, l.dropped_text(d))),
                78,
            ));
            s.push('\n');
        }
        if c.dropped_total > LIST_DROPPED {
            s.push_str(&format!("  … and {} more\n", g(c.dropped_total - LIST_DROPPED)));
        }
        s.push_str(&format!(
            "Claude Code appends:\n  {}\n",
            l.warning.as_deref().unwrap_or_default()
        ));
    } else {
        s.push_str("truncated: no\n");
    }
    if let Some(p) = warn_at.filter(|_| over_threshold(l, warn_at)) {
        s.push_str(&format!(
            "over --warn-at {}%: {} of 200 lines, {pct}% of 25 000 units\n",
            crate::text::js_number(p),
            g(l.line_count)
        ));
    }
    s.push_str(&format!(
        "headroom: {} lines, {} units\n",
        group_digits(MAX_LINES as i64 - l.line_count as i64),
        group_digits(MAX_UNITS as i64 - l.unit_count as i64)
    ));
    s
}
