//! The only place that knows about terminals, colour and JSON: where results,
//! warnings and notes go, and in which form (SPEC §3.1 "Output").

use std::io::{self, IsTerminal, Write};

use serde_json::Value;

use crate::cli::ColorChoice;

/// Whether a stream gets colour: `always`/`never` win; `auto` needs a terminal and
/// an unset or empty `NO_COLOR`.
pub fn use_color(choice: ColorChoice, is_terminal: bool, no_color: Option<&str>) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => is_terminal && no_color.is_none_or(str::is_empty),
    }
}

/// What a piece of text means, for colour. The one colour layer of memctl: every
/// styled text goes through [`paint`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tone {
    Error,
    Warning,
    Note,
    Info,
    /// An added line of a diff (green, as git paints it).
    Added,
    Bold,
    Dim,
}

impl Tone {
    fn style(self) -> anstyle::Style {
        use anstyle::AnsiColor;
        match self {
            Tone::Error => AnsiColor::Red.on_default(),
            Tone::Warning => AnsiColor::Yellow.on_default(),
            Tone::Note => AnsiColor::Cyan.on_default(),
            Tone::Info => AnsiColor::Blue.on_default(),
            Tone::Added => AnsiColor::Green.on_default(),
            Tone::Bold => anstyle::Style::new().bold(),
            Tone::Dim => anstyle::Style::new().dimmed(),
        }
    }
}

/// `text` in the style of `tone` when `on`, else as is.
pub fn paint(on: bool, tone: Tone, text: &str) -> String {
    if !on {
        return text.to_string();
    }
    let style = tone.style();
    format!("{}{text}{}", style.render(), style.render_reset())
}

/// The width a terminal table is drawn to: `COLUMNS` when it is a positive number
/// (as git and clap read it), else the size the terminal reports, else 80.
pub fn terminal_width() -> usize {
    width_from(
        std::env::var("COLUMNS").ok().as_deref(),
        comfy_table::Table::new().width(),
    )
}

/// [`terminal_width`] from its inputs: `COLUMNS`, then the reported size (0, as a
/// pseudo-terminal with no size reports, counts as unknown), else 80.
pub fn width_from(columns: Option<&str>, reported: Option<u16>) -> usize {
    columns
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|w| *w > 0)
        .or_else(|| reported.map(usize::from).filter(|w| *w > 0))
        .unwrap_or(80)
}

/// `s` cut to `width` terminal columns, ending in `…` when cut.
pub fn fit_end(s: &str, width: usize) -> String {
    use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};
    if s.width() <= width {
        return s.to_string();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        let w = c.width().unwrap_or(0);
        if used + w + 1 > width {
            break;
        }
        used += w;
        out.push(c);
    }
    if width > 0 {
        out.push('…');
    }
    out
}

/// `s` cut to `width` terminal columns in the middle (`project_1…complete.md`),
/// so that both its start and its end (a file's extension) stay readable.
pub fn fit_middle(s: &str, width: usize) -> String {
    use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};
    if s.width() <= width {
        return s.to_string();
    }
    if width < 5 {
        return fit_end(s, width);
    }
    let keep = width - 1;
    let head_w = keep.div_ceil(2);
    let tail_w = keep - head_w;
    let head = fit_end(s, head_w + 1);
    let head = head.strip_suffix('…').unwrap_or(&head);
    let mut tail = Vec::new();
    let mut used = 0;
    for c in s.chars().rev() {
        let w = c.width().unwrap_or(0);
        if used + w > tail_w {
            break;
        }
        used += w;
        tail.push(c);
    }
    let tail: String = tail.into_iter().rev().collect();
    format!("{head}…{tail}")
}

/// `text` wrapped at spaces into lines of at most `width` columns (a word longer
/// than `width` keeps a line of its own).
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    use unicode_width::UnicodeWidthStr;
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        if !line.is_empty() && line.width() + 1 + word.width() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// One table row whose last cell is free text: `prefix` (the cells before it,
/// already padded), then `text` wrapped ([`wrap`]) to the columns `width` leaves
/// it (at least 20), each further line indented to where `text` began. Each line
/// ends in LF and has no trailing spaces. With `width` `None` (piped output) the
/// row stays on one line. A word wider than its room (a path) stays whole.
pub fn hang(prefix: &str, text: &str, width: Option<usize>) -> String {
    let mut out = String::new();
    hang_into(&mut out, prefix, text, width);
    out
}

/// [`hang`] appended to `out`; a piped row (`width` `None`) is written straight
/// into it, with no string of its own (`review` writes 14 000 proposals).
pub fn hang_into(out: &mut String, prefix: &str, text: &str, width: Option<usize>) {
    use unicode_width::UnicodeWidthStr;
    let Some(w) = width else {
        let at = out.len();
        out.push_str(prefix);
        out.push_str(text);
        let kept = out[at..].trim_end_matches(' ').len();
        out.truncate(at + kept);
        out.push('\n');
        return;
    };
    let start = prefix.width();
    let lines = wrap(text, w.saturating_sub(start).max(20));
    for (i, line) in lines.iter().enumerate() {
        let row = if i == 0 {
            format!("{prefix}{line}")
        } else {
            format!("{:start$}{line}", "")
        };
        out.push_str(row.trim_end_matches(' '));
        out.push('\n');
    }
    if lines.is_empty() {
        out.push_str(prefix.trim_end_matches(' '));
        out.push('\n');
    }
}

/// The width [`hang`] wraps stdout's rows to: the terminal's when stdout is one,
/// else `None` (piped output keeps one line per row).
pub fn row_width(out: &Output) -> Option<usize> {
    out.stdout_tty.then(terminal_width)
}

/// One column of a [`table`]: its header and the width it is drawn at (cells are
/// cut to it with [`fit_end`], or [`fit_middle`] when `middle`).
#[derive(Clone, Copy, Debug)]
pub struct Column<'a> {
    pub header: &'a str,
    pub width: usize,
    pub middle: bool,
}

/// One cell: its text and the tone it is painted in, if any.
pub type Cell = (String, Option<Tone>);

/// A borderless table: the header (bold when `color`), then one line per row;
/// columns are two spaces apart, each cell cut to its column's width, so no line
/// is wider than the sum of the widths plus the gaps. Tones are applied after the
/// cut and padding (when `color`), so they never change a line's width. Trailing
/// spaces are removed.
pub fn table(columns: &[Column<'_>], rows: &[Vec<Cell>], color: bool) -> String {
    table_lines(columns, rows, color).concat()
}

/// The lines of a [`table`], each ending in LF: the header first, then one per row.
pub fn table_lines(columns: &[Column<'_>], rows: &[Vec<Cell>], color: bool) -> Vec<String> {
    use unicode_width::UnicodeWidthStr;
    let line = |cells: &mut dyn Iterator<Item = (&str, Option<Tone>)>| {
        let mut s = String::new();
        for (i, (col, (text, tone))) in columns.iter().zip(cells).enumerate() {
            if i > 0 {
                s.push_str("  ");
            }
            let cut = if col.middle {
                fit_middle(text, col.width)
            } else {
                fit_end(text, col.width)
            };
            let pad = " ".repeat(col.width.saturating_sub(cut.width()));
            match tone {
                Some(t) if color => s.push_str(&paint(true, t, &cut)),
                _ => s.push_str(&cut),
            }
            s.push_str(&pad);
        }
        let end = s.trim_end_matches(' ').len();
        s.truncate(end);
        s.push('\n');
        s
    };
    let mut out = vec![line(&mut columns.iter().map(|c| (c.header, Some(Tone::Bold))))];
    for r in rows {
        out.push(line(&mut r.iter().map(|(t, tone)| (t.as_str(), *tone))));
    }
    out
}

/// Where a command's results go: the process's stdout, or a buffer (`memctl mcp`
/// runs commands whose stdout is the MCP transport, so they must never reach it).
enum Sink {
    Stdout(io::Stdout),
    Buffer(Vec<u8>),
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Sink::Stdout(s) => s.write(buf),
            Sink::Buffer(b) => b.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Sink::Stdout(s) => s.write_all(buf),
            Sink::Buffer(b) => b.write_all(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::Stdout(s) => s.flush(),
            Sink::Buffer(_) => Ok(()),
        }
    }
}

/// Where a command writes.
pub struct Output {
    stdout: io::BufWriter<Sink>,
    pub json: bool,
    pub stdout_tty: bool,
    pub color_stdout: bool,
    pub color_stderr: bool,
    /// Warnings collected for the JSON document's `warnings` array.
    pub warnings: Vec<String>,
    /// Under `--all-projects`: each command's JSON document is kept here, to be
    /// printed as one array, instead of being printed on its own.
    collected: Option<Vec<Value>>,
}

impl Output {
    pub fn new(json: bool, color: ColorChoice) -> Output {
        let no_color = std::env::var("NO_COLOR").ok();
        let stdout_tty = io::stdout().is_terminal();
        Output {
            stdout: io::BufWriter::with_capacity(64 << 10, Sink::Stdout(io::stdout())),
            json,
            stdout_tty,
            color_stdout: !json && use_color(color, stdout_tty, no_color.as_deref()),
            color_stderr: use_color(color, io::stderr().is_terminal(), no_color.as_deref()),
            warnings: Vec::new(),
            collected: None,
        }
    }

    /// JSON output into a buffer instead of stdout, with no colour and no terminal:
    /// what `memctl mcp` runs a command with. [`Output::take_captured`] returns it.
    pub fn captured() -> Output {
        Output {
            stdout: io::BufWriter::new(Sink::Buffer(Vec::new())),
            json: true,
            stdout_tty: false,
            color_stdout: false,
            color_stderr: false,
            warnings: Vec::new(),
            collected: None,
        }
    }

    /// What a [`Output::captured`] output holds so far (empty for stdout).
    pub fn take_captured(&mut self) -> io::Result<Vec<u8>> {
        self.stdout.flush()?;
        Ok(match self.stdout.get_mut() {
            Sink::Buffer(b) => std::mem::take(b),
            Sink::Stdout(_) => Vec::new(),
        })
    }

    /// From now on, [`Output::emit_json`] keeps documents instead of printing them.
    pub fn collect_json(&mut self) {
        self.collected.get_or_insert_with(Vec::new);
    }

    /// Whether documents are being kept (see [`Output::collect_json`]).
    pub fn collecting(&self) -> bool {
        self.collected.is_some()
    }

    /// Keep a finished document (its `warnings` included) as [`Output::emit_json`] would.
    pub fn push_collected(&mut self, doc: Value) {
        self.collected.get_or_insert_with(Vec::new).push(doc);
    }

    /// The documents kept since [`Output::collect_json`]; printing resumes.
    pub fn take_collected(&mut self) -> Vec<Value> {
        self.collected.take().unwrap_or_default()
    }

    /// Prompts are allowed: stdin and stderr are terminals and `--json` is absent.
    pub fn interactive(&self) -> bool {
        !self.json && io::stdin().is_terminal() && io::stderr().is_terminal()
    }

    /// Write text to stdout as is.
    pub fn print(&mut self, text: &str) -> io::Result<()> {
        self.stdout.write_all(text.as_bytes())
    }

    pub fn write_bytes(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.stdout.write_all(bytes)
    }

    pub fn stdout(&mut self) -> &mut impl Write {
        &mut self.stdout
    }

    /// A warning: on stderr, or into the JSON document.
    pub fn warn(&mut self, text: impl Into<String>) {
        let text = text.into();
        if self.json {
            self.warnings.push(text);
        } else {
            let prefix = paint(self.color_stderr, Tone::Warning, "memctl: warning:");
            self.eprint(&format!("{prefix} {text}\n"));
        }
    }

    /// A note: on stderr, or into the JSON document's warnings.
    pub fn note(&mut self, text: impl Into<String>) {
        let text = text.into();
        if self.json {
            self.warnings.push(format!("note: {text}"));
        } else {
            let prefix = paint(self.color_stderr, Tone::Note, "memctl: note:");
            self.eprint(&format!("{prefix} {text}\n"));
        }
    }

    /// Text for stderr as is (a report that belongs beside the result, not in it).
    /// A closed or full stderr never changes what memctl does (SPEC §3.1).
    pub fn eprint(&self, text: &str) {
        let _ = io::stderr().lock().write_all(text.as_bytes());
    }

    /// Bold text for stdout when colour is on.
    pub fn bold(&self, text: &str) -> String {
        paint(self.color_stdout, Tone::Bold, text)
    }

    /// Print a JSON document exactly as given, with no `warnings` key: for a
    /// command whose reader defines the document (the Claude Code hook).
    pub fn emit_raw_json(&mut self, doc: &impl serde::Serialize) -> io::Result<()> {
        serde_json::to_writer(&mut self.stdout, doc)?;
        self.stdout.write_all(b"\n")
    }

    /// Print one JSON document: `doc` must be an object; `warnings` is added.
    pub fn emit_json(&mut self, mut doc: Value) -> io::Result<()> {
        if let Value::Object(map) = &mut doc {
            map.insert("warnings".into(), Value::from(std::mem::take(&mut self.warnings)));
        }
        if let Some(kept) = &mut self.collected {
            kept.push(doc);
            return Ok(());
        }
        serde_json::to_writer_pretty(&mut self.stdout, &doc)?;
        self.stdout.write_all(b"\n")
    }

    /// [`Output::emit_json`] of a document written as it is serialized (no JSON
    /// tree of it is built), with the same bytes: its fields, then `warnings`.
    /// Collected documents (`--all-projects`) are values as before.
    pub fn emit_json_streamed(&mut self, doc: &impl serde::Serialize) -> io::Result<()> {
        if self.collected.is_some() {
            return self.emit_json(serde_json::to_value(doc)?);
        }
        #[derive(serde::Serialize)]
        struct WithWarnings<'a, T: serde::Serialize> {
            #[serde(flatten)]
            doc: &'a T,
            warnings: Vec<String>,
        }
        let warnings = std::mem::take(&mut self.warnings);
        serde_json::to_writer_pretty(&mut self.stdout, &WithWarnings { doc, warnings })?;
        self.stdout.write_all(b"\n")
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.stdout.flush()
    }

    /// Ask a yes/no question on the terminal, after showing what stdout holds so
    /// far (it is buffered: a diff printed before the question must come first).
    pub fn ask_yes_no(&mut self, question: &str, default: bool) -> Result<bool, crate::error::Error> {
        let _ = self.flush();
        crate::prompt::yes_no(question, default)
    }

    /// A line from the terminal, after showing what stdout holds so far.
    pub fn ask_line(&mut self, prompt: &str) -> Result<String, crate::error::Error> {
        let _ = self.flush();
        crate::prompt::line(prompt)
    }
}

/// One piped record (SPEC §3.13): the fields of the JSON object `item` in their
/// order, tab-separated, `-` for null, nested values as compact JSON, strings
/// with a tab, newline, backslash or other control character escaped as file
/// names are (`\t`, `\n`, `\\`; SPEC v3 §3.14), so a record stays one line; with
/// the newline. A value that is not an object is one field.
pub fn record(item: &serde_json::Value) -> String {
    use serde_json::Value;
    let field = |v: &Value| match v {
        Value::Null => "-".to_string(),
        Value::String(s) => crate::text::escape_name(s).into_owned(),
        Value::Bool(_) | Value::Number(_) => v.to_string(),
        Value::Array(_) | Value::Object(_) => v.to_string(),
    };
    let mut line = match item {
        Value::Object(m) => m.values().map(field).collect::<Vec<_>>().join("\t"),
        other => field(other),
    };
    line.push('\n');
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hang_wraps_the_last_cell_under_itself() {
        let row = hang(
            "ML203  index-unindexed  ",
            "not in MEMORY.md: Claude Code never loads it",
            Some(46),
        );
        assert_eq!(
            row,
            "ML203  index-unindexed  not in MEMORY.md:\n                        Claude Code never\n                        loads it\n"
        );
        for line in row.lines() {
            assert!(line.chars().count() <= 46, "{line}");
        }
        assert_eq!(hang("a  ", "b c", None), "a  b c\n");
        assert_eq!(hang("a  ", "", Some(80)), "a\n");
    }

    #[test]
    fn color_rules() {
        assert!(use_color(ColorChoice::Auto, true, None));
        assert!(use_color(ColorChoice::Auto, true, Some("")));
        assert!(!use_color(ColorChoice::Auto, true, Some("1")));
        assert!(!use_color(ColorChoice::Auto, false, None));
        assert!(use_color(ColorChoice::Always, false, Some("1")));
        assert!(!use_color(ColorChoice::Never, true, None));
    }

    #[test]
    fn paint_wraps_in_sgr_codes_only_when_on() {
        assert_eq!(paint(true, Tone::Warning, "w"), "\x1b[33mw\x1b[0m");
        assert_eq!(paint(true, Tone::Bold, "b"), "\x1b[1mb\x1b[0m");
        assert_eq!(paint(false, Tone::Error, "e"), "e");
    }

    #[test]
    fn width_prefers_columns_then_the_terminal_then_80() {
        assert_eq!(width_from(Some("60"), Some(120)), 60);
        assert_eq!(width_from(Some("x"), Some(120)), 120);
        assert_eq!(width_from(Some("0"), Some(0)), 80);
        assert_eq!(width_from(None, None), 80);
    }

    #[test]
    fn wrap_breaks_at_spaces() {
        assert_eq!(wrap("aa bb cc", 5), ["aa bb", "cc"]);
        assert_eq!(wrap("toolongword x", 4), ["toolongword", "x"]);
        assert!(wrap("", 4).is_empty());
    }

    #[test]
    fn fits_cut_at_the_end_or_in_the_middle() {
        assert_eq!(fit_end("abcdef", 4), "abc…");
        assert_eq!(fit_end("abcd", 4), "abcd");
        assert_eq!(fit_end("日本語", 4), "日…");
        assert_eq!(fit_middle("project_1200_complete.md", 11), "proje…te.md");
        assert_eq!(fit_middle("short.md", 11), "short.md");
        use unicode_width::UnicodeWidthStr;
        for w in 0..30 {
            assert!(fit_middle("project_1200_日本語_complete.md", w).width() <= w, "{w}");
        }
    }

    #[test]
    fn table_cuts_cells_to_their_columns_and_paints_after_padding() {
        let cols = [
            Column {
                header: "A",
                width: 3,
                middle: false,
            },
            Column {
                header: "B",
                width: 5,
                middle: true,
            },
        ];
        let rows = vec![vec![
            ("abcdef".to_string(), Some(Tone::Warning)),
            ("x.md".to_string(), None),
        ]];
        assert_eq!(table(&cols, &rows, false), "A    B\nab…  x.md\n");
        let painted = table(&cols, &rows, true);
        assert!(painted.contains("\x1b[33mab…\x1b[0m  x.md"), "{painted:?}");
    }

    #[test]
    fn captured_output_keeps_the_json_document_and_its_warnings() {
        let mut out = Output::captured();
        assert!(out.json && !out.color_stdout && !out.stdout_tty);
        out.warn("w");
        out.emit_json(serde_json::json!({"a": 1})).unwrap();
        let doc: Value = serde_json::from_slice(&out.take_captured().unwrap()).unwrap();
        assert_eq!(doc, serde_json::json!({"a": 1, "warnings": ["w"]}));
        assert!(out.take_captured().unwrap().is_empty());
    }
}
