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

/// One line of text after `prompt: `, ended by Enter (may be empty).
pub fn line(prompt: &str) -> Result<String, Error> {
    guarded(&|| {}, |t| {
        t.write_str(&format!("{prompt}: "))?;
        t.read_line()
    })
}

/// A yes/no question that needs Enter: `y`/`yes`/`n`/`no` in any case, Enter alone
/// for `default`; anything else asks again.
pub fn yes_no(question: &str, default: bool) -> Result<bool, Error> {
    let choices = if default { "[Y/n]" } else { "[y/N]" };
    loop {
        let answer = guarded(&|| {}, |t| {
            t.write_str(&format!("{question} {choices} "))?;
            t.read_line()
        })?;
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
