//! `memctl show REF` (SPEC §3.5).

use std::io::{self, Read, Seek, SeekFrom};
use std::process::ExitCode;

use crate::entry::Entry;
use crate::fsread;
use anyhow::{Context as _, Result};

use crate::age;
use crate::cli::ShowArgs;
use crate::context::Context;
use crate::error::{Error, Kind};
use crate::frontmatter::{self, Fields, Frontmatter, Status};
use crate::memory::{self, Memory};
use crate::output::Output;
use crate::scan::{self, Indexed};
use crate::text::iso_ms;

/// Files above this size are streamed, not read whole.
const STREAM_ABOVE: u64 = 10 << 20;
/// How much of a streamed file is read to find its frontmatter.
const HEAD_BYTES: u64 = 1 << 20;

pub fn run(args: &ShowArgs, ctx: &Context, out: &mut Output) -> Result<ExitCode> {
    if args.raw && out.json {
        return Err(Error::new(Kind::Usage, "--raw cannot be combined with --json")
            .hint("drop one of them: --raw prints the file's bytes, --json a document")
            .into());
    }
    ensure_memory_ref(&args.reference)?;
    let res = ctx.resolve_existing()?;
    // An exact relative path is one stat away (SPEC §3.2); anything else scans.
    let (exact, whole): (memory::Memory, scan::Scan);
    let m = match scan::exact_ref(res.memdir.dir(), &args.reference) {
        Some(m) => {
            exact = m;
            &exact
        }
        None => {
            whole = scan::scan(res.memdir.dir());
            whole.resolve(&args.reference, &res.shown())?
        }
    };
    if args.raw {
        let mut f = fsread::open_regular(&m.path)
            .map_err(std::io::Error::from)
            .with_context(|| format!("could not read {}", m.path.display()))?;
        io::copy(&mut f, out.stdout())?;
        return Ok(ExitCode::SUCCESS);
    }
    let doc = Loaded::read(m)?;
    let (lines, loaded) = index_lines(&res.memdir, &m.rel);
    if let Some(note) = window_note(m, &doc) {
        out.note(note);
    }
    let shown = Shown {
        m,
        doc: &doc,
        lines: &lines,
        loaded: &loaded,
        now_ms: ctx.now_ms(),
        excluded_by: crate::scan::ScanRules::from_env().excluded_by(&m.rel),
    };
    if out.json {
        let report = ShowReport::new(&shown, res.memdir.dir().to_str().is_none());
        out.emit_json(serde_json::to_value(report)?)?;
    } else {
        render_text(&shown, res.memdir.label_for(&m.rel), out)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The index lines linking `rel` and whether each is loaded: only the lines that
/// can link it are parsed (issue 31); an index the byte search leaves alone is
/// read by the streaming reader.
fn index_lines(memdir: &crate::memdir::MemoryDir, rel: &str) -> (Vec<usize>, Vec<bool>) {
    let c = memdir.covering(rel);
    if let Some(l) = crate::index::one::linking(&c.index, &c.local) {
        return (l.lines, l.loaded);
    }
    let indexed = Indexed::load_for(memdir, rel);
    let lines = indexed.lines_for(rel);
    let loaded = lines.iter().map(|l| indexed.line_loaded(rel, *l)).collect();
    (lines, loaded)
}

/// What `show` reports on: the memory, the file as read, its index lines and
/// whether Claude Code loads each, and the time of the run.
struct Shown<'a> {
    m: &'a Memory,
    doc: &'a Loaded,
    lines: &'a [usize],
    loaded: &'a [bool],
    now_ms: f64,
    /// (2.1.332) Why Claude Code's scan skips the file (SPEC §3.5).
    excluded_by: Option<crate::scan::Exclusion>,
}

impl Shown<'_> {
    fn days(&self) -> u64 {
        age::age_days(self.now_ms, self.m.mtime_ms)
    }
}

/// The text form: the header, what the model sees first (Claude Code's freshness
/// note), then the body (not to a terminal when it holds NUL bytes).
fn render_text(s: &Shown<'_>, label: &str, out: &mut Output) -> Result<()> {
    out.print(&header(s, label))?;
    let fresh = age::freshness_text(s.days());
    if !fresh.is_empty() {
        let text = if out.stdout_tty {
            crate::output::wrap(&fresh, crate::output::terminal_width().min(80).saturating_sub(2))
        } else {
            vec![fresh]
        };
        out.print("\nwhat the model sees first (Claude Code's freshness note):\n")?;
        for line in text {
            out.print(&format!("  {line}\n"))?;
        }
    }
    if s.doc.has_nul && out.stdout_tty {
        out.note(format!(
            "{} contains NUL bytes and is not printed to a terminal; use --raw",
            s.m.rel
        ));
        return Ok(());
    }
    s.doc.write_body(s.m, out)
}

/// The `show --json` document: the shared entry, then what only `show` reads.
#[derive(serde::Serialize)]
struct ShowReport<'a> {
    #[serde(flatten)]
    entry: Entry<'a>,
    frontmatter: Option<&'a crate::yaml::Value>,
    body: String,
    freshness_text: String,
    recall_header: String,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    lossy: bool,
    /// An index line linking the file is among what Claude Code loads (SPEC §3.13).
    loaded: bool,
}

impl<'a> ShowReport<'a> {
    /// The shared entry, with what the whole-file parse says (it decides what `show`
    /// reports), and what only `show` reads.
    fn new(s: &Shown<'a>, lossy: bool) -> ShowReport<'a> {
        let (m, doc) = (s.m, s.doc);
        let mut entry = Entry::new(m, s.lines, s.now_ms, None);
        entry.name = doc.fields.name_str().map(Into::into);
        entry.description = doc.fields.description.as_ref();
        entry.description_raw = doc.fields.description_raw.as_ref();
        entry.claude_type = entry.memory_type;
        entry.excluded_by = s.excluded_by;
        entry.memory_type = memory::MemoryType::of(doc.fields.type_raw.as_ref());
        entry.type_raw = doc.fields.type_raw.as_ref();
        entry.type_source = doc.fields.type_source;
        entry.modified_field = doc.fields.modified_str();
        entry.frontmatter_status = doc.fm.status;
        ShowReport {
            entry,
            frontmatter: doc.fm.map.as_ref(),
            body: doc.body_text(),
            freshness_text: age::freshness_text(s.days()),
            recall_header: age::recall_header(s.days(), &m.path.to_string_lossy()),
            lossy,
            loaded: s.loaded.contains(&true),
        }
    }
}

/// A REF `show` accepts: a valid name that is not the index.
fn ensure_memory_ref(reference: &str) -> Result<(), Error> {
    memory::ensure_valid_name(reference, false)?;
    if reference
        .rsplit(['/', '\\'])
        .next()
        .is_some_and(|b| b == "MEMORY.md" || b == "MEMORY")
    {
        return Err(Error::new(Kind::InvalidInput, format!("`{reference}` is the index, not a memory"))
            .hint("use `memctl truncate-check --print-loaded` to see what Claude Code loads, or `memctl edit --index` to change it"));
    }
    Ok(())
}

/// The file as `show` reads it: whole, or its head when it is streamed.
struct Loaded {
    text: String,
    fm: Frontmatter,
    fields: Fields,
    /// Byte offset of the body in `text`.
    body_start: usize,
    streamed: bool,
    has_nul: bool,
}

impl Loaded {
    fn read(m: &Memory) -> Result<Loaded> {
        let mut f = fsread::open_regular(&m.path)
            .map_err(std::io::Error::from)
            .with_context(|| format!("could not read {}", m.path.display()))?;
        let size = f.metadata()?.len();
        let streamed = size > STREAM_ABOVE;
        let limit = if streamed { HEAD_BYTES } else { STREAM_ABOVE };
        // Room for the whole file and one byte more, so that it is read in one
        // call and its end found by the next (`take` hides the size from
        // `read_to_end`, which would otherwise start at 32 bytes and double).
        let mut bytes = Vec::with_capacity(usize::try_from(size.min(limit)).unwrap_or(0).saturating_add(1));
        (&mut f)
            .take(limit)
            .read_to_end(&mut bytes)
            .with_context(|| format!("could not read {}", m.path.display()))?;
        let has_nul = crate::text::looks_binary(&bytes);
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let (fm, body) = frontmatter::parse_document(&text);
        let body_start = text.len() - body.len();
        let fields = Fields::from(&fm);
        Ok(Loaded {
            fm,
            fields,
            body_start,
            streamed,
            has_nul,
            text,
        })
    }

    fn body_text(&self) -> String {
        self.text[self.body_start..].to_string()
    }

    fn write_body(&self, m: &Memory, out: &mut Output) -> Result<()> {
        if self.body_start >= self.text.len() && !self.streamed {
            return Ok(());
        }
        out.print("\n")?;
        if self.streamed {
            // The body offset in bytes of the (lossily decoded) head equals the file
            // offset when the head is valid UTF-8, which a frontmatter head is.
            let mut f = fsread::open_regular(&m.path).map_err(std::io::Error::from)?;
            f.seek(SeekFrom::Start(self.body_start as u64))?;
            io::copy(&mut f, out.stdout())?;
        } else {
            out.print(&self.text[self.body_start..])?;
        }
        Ok(())
    }
}

fn value_text(v: Option<&crate::yaml::Value>) -> String {
    v.map_or_else(|| "-".into(), |v| v.js_string().replace('\n', "⏎"))
}

/// The frontmatter's `modified` as written, with its age when it is a time.
fn modified_text(v: &crate::yaml::Value, now_ms: f64) -> String {
    let crate::yaml::Value::String(s) = v else {
        return format!("{} (not a string; not used)", value_text(Some(v)));
    };
    match frontmatter::parse_modified(s) {
        Some((ms, _)) => format!("{} ({})", value_text(Some(v)), age::age_text(age::age_days(now_ms, ms))),
        None => format!("{} (not an ISO-8601 time; not used)", value_text(Some(v))),
    }
}

/// The `type:` value (2.1.332): the type and where Claude Code reads it; when a
/// top-level `type` disagrees with `metadata.type`, that it is ignored (ML109).
fn type_text(f: &Fields) -> String {
    let place = match f.type_source {
        frontmatter::TypeSource::Nested => "metadata.type",
        _ => "top-level type",
    };
    let ignored = f
        .type_conflict()
        .map(|flat| format!("; top-level type {} ignored: ML109", flat.js_string()))
        .unwrap_or_default();
    match (memory::MemoryType::of(f.type_raw.as_ref()), &f.type_raw) {
        (Some(t), _) => format!("{} ({place}{ignored})", t.as_str()),
        (None, Some(crate::yaml::Value::Null)) => format!("- ({place} is empty{ignored})"),
        (None, Some(raw)) => format!("- (invalid {place}: `{}`{ignored})", raw.js_string()),
        (None, None) => "-".into(),
    }
}

/// The `description:` value: what Claude Code reads; (2.1.332) a non-string one is
/// named and marked as ignored.
fn description_text(f: &Fields) -> String {
    match (&f.description, &f.description_raw) {
        (Some(d), _) => value_text(Some(d)),
        (None, Some(raw)) if !matches!(raw, crate::yaml::Value::Null | crate::yaml::Value::String(_)) => {
            format!("(none: {} is not a string)", raw.to_json())
        }
        _ => value_text(None),
    }
}

/// The `indexed:` value: each index line, and which are past the cut.
fn indexed_text(lines: &[usize], loaded: &[bool], label: &str) -> String {
    if lines.is_empty() {
        return "no".into();
    }
    let all_cut = !loaded.contains(&true);
    let mut parts: Vec<String> = lines
        .iter()
        .zip(loaded)
        .map(|(l, ok)| {
            let mark = if *ok || all_cut { "" } else { " (past the cut)" };
            format!("{label}:{l}{mark}")
        })
        .collect();
    if all_cut && let Some(last) = parts.last_mut() {
        last.push_str(" (past the cut: not loaded)");
    }
    parts.join(", ")
}

fn header(s: &Shown<'_>, label: &str) -> String {
    let (m, f) = (s.m, &s.doc.fields);
    let mut rows: Vec<(&str, String)> = vec![
        ("name", value_text(f.name.as_ref().filter(|_| f.name_str().is_some()))),
        ("type", type_text(f)),
        ("description", description_text(f)),
        (
            "modified",
            format!("{} ({})", iso_ms(m.mtime_ms), age::age_text(s.days())),
        ),
    ];
    if let Some(v) = &f.modified {
        rows.push(("modified (frontmatter)", modified_text(v, s.now_ms)));
    }
    rows.push(("indexed", indexed_text(s.lines, s.loaded, label)));
    // `show` resolves every `.md` file, also those Claude Code's scan skips (SPEC
    // §3.2), as `list --all` lists them: it says so, as `list` does.
    if let Some(e) = s.excluded_by {
        rows.push((
            "scanned",
            format!(
                "no — {}: Claude Code never scans it (`memctl list` shows it only with --all)",
                e.describe()
            ),
        ));
    }
    rows.push(("path", m.path.to_string_lossy().into_owned()));
    if let Some(problem) = status_problem(s.doc.fm.status, s.doc.fm.limit_hit) {
        rows.push(("frontmatter", problem));
    }
    // Every value starts in one column, after the longest label present.
    let w = rows.iter().map(|(l, _)| l.len() + 1).max().unwrap_or(0).max(13);
    let mut text = format!("{}\n", m.rel);
    for (l, value) in rows {
        text.push_str(&format!("  {:<w$} {value}\n", format!("{l}:")));
    }
    text
}

/// A `frontmatter:` line for statuses that are problems, with the lint rule.
fn status_problem(status: Status, limit_hit: bool) -> Option<String> {
    let text = match status {
        Status::Retried if limit_hit => "parsed only by the quote-retry after exceeding memctl's YAML limits (ML101)",
        Status::Retried => "parsed only thanks to Claude Code's quote-retry (ML111)",
        Status::Failed if limit_hit => "exceeds memctl's YAML limits; no fields are read (ML101)",
        Status::Failed => "unparseable YAML; Claude Code reads no fields (ML101)",
        Status::NotMapping => "YAML is not a mapping; Claude Code reads no fields (ML101)",
        Status::NotAtStart => "block is not on line 1; Claude Code sees no frontmatter (ML102)",
        Status::BeyondWindow => "block closes after line 30 or 64 KiB; Claude Code's scan does not see it (ML104)",
        Status::Ok | Status::None => return None,
    };
    Some(format!("{} — {text}", status.as_str()))
}

/// A note when Claude Code's 30-line scan sees something else than the whole file.
fn window_note(m: &Memory, doc: &Loaded) -> Option<String> {
    if m.frontmatter.status == doc.fm.status && m.fields == doc.fields {
        return None;
    }
    let desc = m.fields.description.as_ref().map_or_else(
        || "no description".to_string(),
        |d| format!("description `{}`", d.js_string()),
    );
    let ty = m
        .claude_type()
        .map_or_else(|| "untyped".to_string(), |t| format!("type {}", t.as_str()));
    Some(format!(
        "Claude Code's scan reads only the first 30 lines (64 KiB) of {} and sees: frontmatter {}, {desc}, {ty}",
        m.rel,
        m.frontmatter.status.as_str()
    ))
}
