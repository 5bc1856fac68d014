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

/// The terminal's width in columns, when stdout is a terminal that reports one.
pub fn terminal_width() -> Option<u16> {
    comfy_table::Table::new().width()
}

/// A borderless table: `header` (bold when `bold`), then one line per row, each
/// line with its trailing spaces removed. Cells are laid out as given; fitting
/// them to a width is the caller's choice.
pub fn table(header: &[&str], rows: Vec<Vec<String>>, bold: bool) -> String {
    use comfy_table::{Attribute, Cell, ContentArrangement, Table, presets::NOTHING};
    let mut table = Table::new();
    table
        .load_style(NOTHING)
        .set_content_arrangement(ContentArrangement::Disabled);
    if bold {
        table.enforce_styling();
    }
    table.set_header(header.iter().map(|h| {
        if bold {
            Cell::new(h).add_attribute(Attribute::Bold)
        } else {
            Cell::new(h)
        }
    }));
    for r in rows {
        table.add_row(r);
    }
    table.lines().map(|l| format!("{}\n", l.trim_end())).collect()
}

/// Where a command writes.
pub struct Output {
    stdout: io::BufWriter<io::Stdout>,
    pub json: bool,
    pub stdout_tty: bool,
    pub color_stdout: bool,
    pub color_stderr: bool,
    /// Warnings collected for the JSON document's `warnings` array.
    pub warnings: Vec<String>,
}

impl Output {
    pub fn new(json: bool, color: ColorChoice) -> Output {
        let no_color = std::env::var("NO_COLOR").ok();
        let stdout_tty = io::stdout().is_terminal();
        Output {
            stdout: io::BufWriter::with_capacity(64 << 10, io::stdout()),
            json,
            stdout_tty,
            color_stdout: !json && use_color(color, stdout_tty, no_color.as_deref()),
            color_stderr: use_color(color, io::stderr().is_terminal(), no_color.as_deref()),
            warnings: Vec::new(),
        }
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
        serde_json::to_writer_pretty(&mut self.stdout, &doc)?;
        self.stdout.write_all(b"\n")
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.stdout.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
