//! Questions on the terminal, and memctl's signal discipline around them and the
//! editor.
//!
//! Every prompt needs Enter (no single-key answers) and draws its question once
//! (no redraw that a wrapped line would double). console, under dialoguer, reads
//! keys in raw mode, hides the cursor for a choice list and, on Ctrl-C, restores
//! the terminal modes and raises SIGINT itself, which killed memctl with the
//! cursor still hidden: dialoguer leaves restoring it to the program
//! (console-rs/dialoguer#77, #188, #294). So while a prompt is open, SIGINT,
//! SIGTERM and SIGHUP only set a flag; the read then fails (console turns Ctrl-C
//! and an interrupted poll into `Interrupted`), memctl shows the cursor again,
//! ends the line, says what it must (where a draft is kept), and dies of the
//! signal it got, so the shell sees the same status as without the prompt (130
//! for Ctrl-C). Nothing is written before a prompt's answer is in.

use std::io;
use std::sync::Arc;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering::SeqCst};

use dialoguer::console::Term;
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};

use crate::error::{Error, Kind};

/// The signals memctl survives while a prompt or the editor is open. SIGTERM and
/// SIGHUP come first: console turns the poll they interrupt into a SIGINT of its own.
const SIGNALS: [i32; 3] = [SIGTERM, SIGHUP, SIGINT];

struct Flags {
    /// When set (the normal state), the signals perform their default action.
    die: Arc<AtomicBool>,
    /// Which of [`SIGNALS`] arrived while `die` was clear.
    got: [Arc<AtomicBool>; 3],
}

/// The handlers, installed once per process through signal-hook (no `unsafe`).
fn flags() -> &'static Flags {
    static FLAGS: OnceLock<Flags> = OnceLock::new();
    FLAGS.get_or_init(|| {
        let die = Arc::new(AtomicBool::new(true));
        let got = [(); 3].map(|()| Arc::new(AtomicBool::new(false)));
        for (sig, flag) in SIGNALS.iter().zip(&got) {
            // The default action first: when `die` is set, nothing else runs.
            let _ = signal_hook::flag::register_conditional_default(*sig, Arc::clone(&die));
            let _ = signal_hook::flag::register(*sig, Arc::clone(flag));
        }
        Flags { die, got }
    })
}

/// While alive, [`SIGNALS`] do not kill memctl (as git does around its editor);
/// afterwards they act as before. A child started meanwhile is unaffected: exec
/// resets caught signals to their default.
pub struct SurviveSignals(());

impl SurviveSignals {
    #[allow(clippy::new_without_default)]
    pub fn new() -> SurviveSignals {
        let f = flags();
        for g in &f.got {
            g.store(false, SeqCst);
        }
        f.die.store(false, SeqCst);
        SurviveSignals(())
    }

    /// The signal that arrived while alive, if any.
    pub fn received(&self) -> Option<i32> {
        SIGNALS
            .iter()
            .zip(&flags().got)
            .find(|(_, g)| g.load(SeqCst))
            .map(|(s, _)| *s)
    }
}

impl Drop for SurviveSignals {
    fn drop(&mut self) {
        flags().die.store(true, SeqCst);
    }
}

/// Terminate as `sig` would have (the shell sees 128 + the signal).
pub fn die(sig: i32) -> ! {
    flags().die.store(true, SeqCst);
    let _ = signal_hook::low_level::emulate_default_handler(sig);
    std::process::exit(128 + sig)
}

/// Run one prompt on stderr. On a signal (or Ctrl-C): show the cursor, end the
/// line, run `on_interrupt`, die of the signal. Any other failure is an `io` error.
fn guarded<T>(on_interrupt: &dyn Fn(), ask: impl FnOnce(&Term) -> io::Result<T>) -> Result<T, Error> {
    let term = Term::stderr();
    let survive = SurviveSignals::new();
    let answer = ask(&term);
    let interrupted = matches!(&answer, Err(e) if e.kind() == io::ErrorKind::Interrupted);
    if let Some(sig) = survive.received().or(interrupted.then_some(SIGINT)) {
        let _ = term.show_cursor();
        let _ = term.write_line("");
        on_interrupt();
        die(sig);
    }
    drop(survive);
    answer.map_err(|e| {
        let _ = term.show_cursor();
        Error::new(
            Kind::Io,
            format!("cannot read the answer: {}", crate::error::io_words(&e)),
        )
        .hint("pass the values as flags instead")
    })
}

fn from_dialoguer(e: dialoguer::Error) -> io::Error {
    match e {
        dialoguer::Error::IO(e) => e,
    }
}

/// One line of text after `prompt: `, ended by Enter (may be empty); Ctrl-D on
/// an empty line ends the input: an error, nothing written.
pub fn line(prompt: &str) -> Result<String, Error> {
    let typed = guarded(&|| {}, |t| read_edited(t, &format!("{prompt}: ")))?;
    typed.ok_or_else(|| ended(prompt))
}

/// The error for Ctrl-D at a prompt: it names the prompt, never a flag the user
/// did not type (issue 34 point 11).
fn ended(prompt: &str) -> Error {
    Error::new(
        Kind::Usage,
        format!("input ended (Ctrl-D) at the prompt `{prompt}`; nothing written"),
    )
    .hint("answer the prompts and press Enter, or run the command again")
}

/// One line typed on the terminal, with a shell's editing keys: Left/Right move
/// the cursor, Home/End (Ctrl-A/Ctrl-E) jump, Backspace and Delete remove, Ctrl-U
/// removes what is before the cursor, other control characters are ignored (never
/// put into the answer). Ctrl-D on an empty line is the end of input (`None`);
/// on a non-empty one it deletes under the cursor, as in a shell. console's own
/// `read_line` only appends (the Left arrow did nothing, Ctrl-D became `\u{4}`).
///
/// The terminal is in raw mode for the whole line, from before the prompt is
/// written (console switches it per key, so keys typed between two reads went
/// through the line discipline: echoed, and Backspace applied there). Call it
/// with the prompt in `show`.
fn read_edited(t: &Term, show: &str) -> io::Result<Option<String>> {
    let raw = keys::Raw::new()?;
    t.write_str(show)?;
    t.flush()?;
    let mut ed = LineEdit::default();
    loop {
        let draw = match raw.key()? {
            keys::Key::Enter => {
                drop(raw);
                t.write_line("")?;
                return Ok(Some(ed.chars.iter().collect()));
            }
            keys::Key::EndOfInput if ed.chars.is_empty() => {
                drop(raw);
                t.write_line("")?;
                return Ok(None);
            }
            keys::Key::EndOfInput | keys::Key::Del => ed.delete(),
            keys::Key::KillBefore => ed.kill_before(),
            keys::Key::Left => ed.left(),
            keys::Key::Right => ed.right(),
            keys::Key::Home => ed.home(),
            keys::Key::End => ed.end(),
            keys::Key::Backspace => ed.backspace(),
            keys::Key::Char(c) => ed.insert(c),
            keys::Key::Other => String::new(),
        };
        if !draw.is_empty() {
            t.write_str(&draw)?;
        }
        t.flush()?;
    }
}

/// Keys from the terminal in raw mode.
mod keys {
    use std::io::{self, Read};
    use std::os::fd::AsFd;

    use rustix::event::{PollFd, PollFlags, poll};
    use rustix::termios::{OptionalActions, Termios, tcgetattr, tcsetattr};

    pub enum Key {
        Char(char),
        Enter,
        Backspace,
        Del,
        Left,
        Right,
        Home,
        End,
        /// Ctrl-D.
        EndOfInput,
        /// Ctrl-U.
        KillBefore,
        /// Anything else (an unknown escape sequence, a lone Esc, Tab).
        Other,
    }

    /// The terminal in raw mode (output processing kept) while alive.
    pub struct Raw {
        tty: std::fs::File,
        saved: Termios,
    }

    impl Raw {
        pub fn new() -> io::Result<Raw> {
            let tty = std::fs::OpenOptions::new().read(true).write(true).open("/dev/tty")?;
            let saved = tcgetattr(&tty)?;
            let mut raw = saved.clone();
            raw.make_raw();
            raw.output_modes = saved.output_modes;
            tcsetattr(&tty, OptionalActions::Drain, &raw)?;
            Ok(Raw { tty, saved })
        }

        /// One byte; `wait`: block until one comes (a signal interrupts the wait:
        /// `Interrupted`), else `None` when none is ready within 50 ms (the rest of
        /// an escape sequence comes at once).
        fn byte(&self, wait: bool) -> io::Result<Option<u8>> {
            let mut fds = [PollFd::new(&self.tty, PollFlags::IN)];
            let timeout = rustix::time::Timespec {
                tv_sec: 0,
                tv_nsec: 50_000_000,
            };
            let n = poll(&mut fds, if wait { None } else { Some(&timeout) }).map_err(io::Error::from)?;
            if n == 0 {
                return Ok(None);
            }
            let mut b = [0u8];
            match (&self.tty).read(&mut b)? {
                0 => Err(io::Error::new(io::ErrorKind::UnexpectedEof, "the terminal closed")),
                _ => Ok(Some(b[0])),
            }
        }

        pub fn key(&self) -> io::Result<Key> {
            let Some(b) = self.byte(true)? else {
                return Ok(Key::Other);
            };
            Ok(match b {
                b'\r' | b'\n' => Key::Enter,
                0x7f | 0x08 => Key::Backspace,
                // Ctrl-C: as console reports it (the prompt then dies of SIGINT).
                0x03 => return Err(io::Error::new(io::ErrorKind::Interrupted, "Ctrl-C")),
                0x04 => Key::EndOfInput,
                0x15 => Key::KillBefore,
                0x01 => Key::Home,
                0x05 => Key::End,
                0x02 => Key::Left,
                0x06 => Key::Right,
                0x1b => self.escape()?,
                b if b < 0x20 => Key::Other,
                b if b < 0x80 => Key::Char(char::from(b)),
                b => self.utf8(b)?,
            })
        }

        /// After Esc: `[` or `O` and a final letter, or `[` digits `~`.
        fn escape(&self) -> io::Result<Key> {
            let Some(intro) = self.byte(false)? else {
                return Ok(Key::Other);
            };
            if intro != b'[' && intro != b'O' {
                return Ok(Key::Other);
            }
            let mut num = Vec::new();
            loop {
                let Some(b) = self.byte(false)? else {
                    return Ok(Key::Other);
                };
                match b {
                    b'0'..=b'9' | b';' if num.len() < 8 => num.push(b),
                    b'C' => return Ok(Key::Right),
                    b'D' => return Ok(Key::Left),
                    b'H' => return Ok(Key::Home),
                    b'F' => return Ok(Key::End),
                    b'~' => {
                        return Ok(match num.as_slice() {
                            b"1" | b"7" => Key::Home,
                            b"4" | b"8" => Key::End,
                            b"3" => Key::Del,
                            _ => Key::Other,
                        });
                    }
                    _ => return Ok(Key::Other),
                }
            }
        }

        /// A character of several UTF-8 bytes starting with `first`.
        fn utf8(&self, first: u8) -> io::Result<Key> {
            let len = match first {
                0xc0..=0xdf => 2,
                0xe0..=0xef => 3,
                0xf0..=0xf7 => 4,
                _ => return Ok(Key::Other),
            };
            let mut buf = vec![first];
            while buf.len() < len {
                match self.byte(false)? {
                    Some(b) => buf.push(b),
                    None => return Ok(Key::Other),
                }
            }
            Ok(std::str::from_utf8(&buf)
                .ok()
                .and_then(|s| s.chars().next())
                .map_or(Key::Other, Key::Char))
        }
    }

    impl Drop for Raw {
        fn drop(&mut self) {
            let _ = tcsetattr(self.tty.as_fd(), OptionalActions::Drain, &self.saved);
        }
    }
}

/// The text of a line being typed and its cursor; each edit returns what to
/// write to the terminal to show it (the cursor starts and ends where the text
/// and the cursor are).
#[derive(Default)]
struct LineEdit {
    chars: Vec<char>,
    at: usize,
}

fn cols(chars: &[char]) -> usize {
    chars
        .iter()
        .map(|c| unicode_width::UnicodeWidthChar::width(*c).unwrap_or(0))
        .sum()
}

fn back(n: usize) -> String {
    if n == 0 { String::new() } else { format!("\x1b[{n}D") }
}

fn forward(n: usize) -> String {
    if n == 0 { String::new() } else { format!("\x1b[{n}C") }
}

impl LineEdit {
    /// Redraw from the cursor: `tail` (the text after it) then `gone` blanks for
    /// columns no longer used, and back to the cursor.
    fn redraw_tail(&self, gone: usize) -> String {
        let tail: String = self.chars[self.at..].iter().collect();
        let w = cols(&self.chars[self.at..]) + gone;
        format!("{tail}{}{}", " ".repeat(gone), back(w))
    }

    fn insert(&mut self, c: char) -> String {
        self.chars.insert(self.at, c);
        self.at += 1;
        format!("{c}{}", self.redraw_tail(0))
    }

    fn backspace(&mut self) -> String {
        if self.at == 0 {
            return String::new();
        }
        self.at -= 1;
        let c = self.chars.remove(self.at);
        let w = cols(&[c]);
        format!("{}{}", back(w), self.redraw_tail(w))
    }

    fn delete(&mut self) -> String {
        if self.at == self.chars.len() {
            return String::new();
        }
        let c = self.chars.remove(self.at);
        self.redraw_tail(cols(&[c]))
    }

    fn kill_before(&mut self) -> String {
        let w = cols(&self.chars[..self.at]);
        self.chars.drain(..self.at);
        self.at = 0;
        format!("{}{}", back(w), self.redraw_tail(w))
    }

    fn left(&mut self) -> String {
        if self.at == 0 {
            return String::new();
        }
        self.at -= 1;
        back(cols(&self.chars[self.at..=self.at]))
    }

    fn right(&mut self) -> String {
        if self.at == self.chars.len() {
            return String::new();
        }
        self.at += 1;
        forward(cols(&self.chars[self.at - 1..self.at]))
    }

    fn home(&mut self) -> String {
        let w = cols(&self.chars[..self.at]);
        self.at = 0;
        back(w)
    }

    fn end(&mut self) -> String {
        let w = cols(&self.chars[self.at..]);
        self.at = self.chars.len();
        forward(w)
    }
}

/// A yes/no question that needs Enter: `y`/`yes`/`n`/`no` in any case, Enter alone
/// for `default`; anything else asks again.
pub fn yes_no(question: &str, default: bool) -> Result<bool, Error> {
    let choices = if default { "[Y/n]" } else { "[y/N]" };
    loop {
        let answer =
            guarded(&|| {}, |t| read_edited(t, &format!("{question} {choices} ")))?.ok_or_else(|| ended(question))?;
        match answer.trim().to_lowercase().as_str() {
            "" => return Ok(default),
            "y" | "yes" => return Ok(true),
            "n" | "no" => return Ok(false),
            _ => Term::stderr()
                .write_line("please answer y or n")
                .map_err(|e| Error::new(Kind::Io, format!("cannot ask: {}", crate::error::io_words(&e))))?,
        }
    }
}

/// Pick one of `items` with the arrow keys and Enter. Each item is cut to the
/// terminal's width so that no line wraps (a wrapped item breaks the redraw).
pub fn select(prompt: &str, items: &[String], default: usize) -> Result<usize, Error> {
    select_with(prompt, items, default, &|| {})
}

/// [`select`], running `on_interrupt` before dying of a signal.
pub fn select_with(prompt: &str, items: &[String], default: usize, on_interrupt: &dyn Fn()) -> Result<usize, Error> {
    guarded(on_interrupt, |t| {
        let width = usize::from(t.size().1).max(20);
        let items: Vec<String> = items.iter().map(|i| crate::text::ellipsize(i, width - 3)).collect();
        dialoguer::Select::new()
            .with_prompt(prompt)
            .items(&items)
            .default(default)
            .interact_on(t)
            .map_err(from_dialoguer)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Type `keys` (one edit each) into a fresh line.
    fn typed(keys: &[fn(&mut LineEdit) -> String]) -> (String, usize) {
        let mut ed = LineEdit::default();
        for k in keys {
            k(&mut ed);
        }
        (ed.chars.iter().collect(), ed.at)
    }

    #[test]
    fn the_cursor_moves_and_edits_happen_where_it_is() {
        let mut ed = LineEdit::default();
        for c in "helo".chars() {
            ed.insert(c);
        }
        assert_eq!(ed.left(), "\x1b[1D");
        assert_eq!(ed.insert('l'), "lo\x1b[1D");
        assert_eq!(ed.chars.iter().collect::<String>(), "hello");
        assert_eq!(ed.home(), "\x1b[4D");
        assert_eq!(ed.delete(), "ello \x1b[5D");
        assert_eq!(ed.end(), "\x1b[4C");
        assert_eq!(ed.backspace(), "\x1b[1D \x1b[1D");
        assert_eq!(ed.chars.iter().collect::<String>(), "ell");
        // Wide characters move the cursor by their columns.
        let mut ed = LineEdit::default();
        ed.insert('한');
        ed.insert('a');
        ed.left();
        assert_eq!(ed.left(), "\x1b[2D");
        assert_eq!(ed.right(), "\x1b[2C");
        assert_eq!(ed.kill_before(), "\x1b[2Da  \x1b[3D");
        assert_eq!((ed.chars.iter().collect::<String>(), ed.at), ("a".to_string(), 0));
        // At the ends, nothing moves.
        assert_eq!(
            typed(&[LineEdit::left, LineEdit::backspace, LineEdit::delete]),
            (String::new(), 0)
        );
    }
}
