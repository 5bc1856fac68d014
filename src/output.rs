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
            let prefix = self.paint_stderr("memctl: warning:", "33");
            eprintln!("{prefix} {text}");
        }
    }

    /// A note: on stderr, or into the JSON document's warnings.
    pub fn note(&mut self, text: impl Into<String>) {
        let text = text.into();
        if self.json {
            self.warnings.push(format!("note: {text}"));
        } else {
            let prefix = self.paint_stderr("memctl: note:", "36");
            eprintln!("{prefix} {text}");
        }
    }

    fn paint_stderr(&self, text: &str, code: &str) -> String {
        if self.color_stderr {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    /// Bold text for stdout when colour is on.
    pub fn bold(&self, text: &str) -> String {
        if self.color_stdout {
            format!("\x1b[1m{text}\x1b[0m")
        } else {
            text.to_string()
        }
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
}
