//! memctl's error kinds (SPEC §3.1): each carries a message, an optional hint, and
//! maps to an exit code.

use std::fmt;
use std::io;

use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Usage,
    InvalidInput,
    NotFound,
    Ambiguous,
    Exists,
    DreamRunning,
    Busy,
    Containment,
    Conflict,
    /// `sync` refused because earlier sync conflict files are still open (SPEC v3
    /// §3.14: exit 1, the user has to act, not a typo).
    UnresolvedConflicts,
    /// Secret-like tokens (lint ML121) in what `sync` or `export` would send out,
    /// without `--allow-secrets` (SPEC v3 §11.2–§11.3).
    SecretFound,
    Editor,
    Io,
    Config,
    Unsupported,
    StrictRefused,
    /// The index with the new line would be cut (SPEC §3.13).
    OverBudget,
    /// History is off, or the dir has no store (SPEC §8.3).
    HistoryOff,
    Internal,
}

impl Kind {
    pub fn exit_code(self) -> u8 {
        if matches!(self, Kind::StrictRefused | Kind::OverBudget | Kind::UnresolvedConflicts) {
            1
        } else {
            2
        }
    }
}

/// How a command's failures become exit codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitPolicy {
    /// SPEC §3.1: 1 for `strict_refused`, 2 for every other kind.
    Standard,
    /// A Claude Code hook (SPEC §7.2): exit 2 tells Claude Code to block, so memctl's
    /// own failures exit 1 (a non-blocking error) whatever their kind.
    Hook,
}

impl ExitPolicy {
    pub fn exit_code(self, kind: Kind) -> u8 {
        match self {
            ExitPolicy::Standard => kind.exit_code(),
            ExitPolicy::Hook => 1,
        }
    }
}

/// An error memctl reports with its kind and hint.
#[derive(Debug, Clone, Serialize)]
pub struct Error {
    pub kind: Kind,
    pub message: String,
    pub hint: Option<String>,
}

impl Error {
    /// An error; OS error texts in `message` (`No such file or directory (os error
    /// 2)`, from an `io::Error`'s Display) are put in plain words.
    pub fn new(kind: Kind, message: impl Into<String>) -> Self {
        Error {
            kind,
            message: plain_os_errors(&message.into()),
            hint: None,
        }
    }

    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

/// An I/O error in plain lowercase words, without Rust's ` (os error N)` suffix:
/// the words for its kind when it carries no message of its own (`no such file or
/// directory`), else its text with the operating system's capital dropped (an
/// acronym such as `IO failure` is kept). The one helper for every I/O error a user
/// reads.
pub fn io_words(e: &io::Error) -> String {
    if e.get_ref().is_none()
        && let Some(words) = kind_words(e.kind())
    {
        return words.to_string();
    }
    lower_first(&plain_os_errors(&e.to_string()))
}

/// `text` with its first letter lowercased, unless it starts an acronym.
fn lower_first(text: &str) -> String {
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(first), Some(second)) if first.is_uppercase() && !second.is_uppercase() => {
            first.to_lowercase().chain(text[first.len_utf8()..].chars()).collect()
        }
        _ => text.to_string(),
    }
}

/// The words for an OS error kind a user meets; `None` leaves the OS's own text.
fn kind_words(kind: io::ErrorKind) -> Option<&'static str> {
    use io::ErrorKind as K;
    Some(match kind {
        K::NotFound => "no such file or directory",
        K::PermissionDenied => "permission denied",
        K::IsADirectory => "is a directory",
        K::NotADirectory => "not a directory",
        K::AlreadyExists => "already exists",
        K::DirectoryNotEmpty => "directory not empty",
        K::ReadOnlyFilesystem => "read-only file system",
        K::StorageFull => "no space left on device",
        K::InvalidFilename => "file name too long",
        K::TooManyLinks => "too many links",
        K::CrossesDevices => "on another file system",
        _ => return None,
    })
}

/// Replace each `<OS text> (os error N)` in `text` by the plain words for error N
/// (or the OS text, lowercased). The OS text runs back to the previous `: `.
/// Linear: each byte is copied once.
pub fn plain_os_errors(text: &str) -> String {
    const MARK: &str = " (os error ";
    if !text.contains(MARK) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(MARK) {
        let after = &rest[at + MARK.len()..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 || !after[digits..].starts_with(')') {
            out.push_str(&rest[..at + MARK.len()]);
            rest = after;
            continue;
        }
        let before = &rest[..at];
        let start = before.rfind(": ").map_or(0, |i| i + 2);
        out.push_str(&before[..start]);
        let code: i32 = after[..digits].parse().unwrap_or(0);
        let os_text = &before[start..];
        match kind_words(io::Error::from_raw_os_error(code).kind()) {
            Some(words) => out.push_str(words),
            None => {
                let mut chars = os_text.chars();
                if let Some(first) = chars.next() {
                    out.extend(first.to_lowercase());
                    out.push_str(chars.as_str());
                }
            }
        }
        rest = &after[digits + 1..];
    }
    out.push_str(rest);
    out
}

/// Shorthand: `Err(err(Kind::NotFound, "…"))`.
pub fn err(kind: Kind, message: impl Into<String>) -> Error {
    Error::new(kind, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn os_error_texts_become_plain_words() {
        let e = io::Error::from_raw_os_error(2);
        assert_eq!(io_words(&e), "no such file or directory");
        let msg = format!("cannot read /x/a.md: {}", io::Error::from_raw_os_error(21));
        assert_eq!(Error::new(Kind::Io, msg).message, "cannot read /x/a.md: is a directory");
        let msg = format!(
            "a: {}; b: {}",
            io::Error::from_raw_os_error(13),
            io::Error::from_raw_os_error(5)
        );
        assert_eq!(
            Error::new(Kind::Io, msg).message,
            "a: permission denied; b: input/output error"
        );
        assert_eq!(plain_os_errors("odd (os error x) text"), "odd (os error x) text");
    }

    #[test]
    fn the_hook_policy_never_exits_2() {
        for kind in [Kind::Usage, Kind::Io, Kind::StrictRefused, Kind::Internal] {
            assert_eq!(ExitPolicy::Hook.exit_code(kind), 1);
        }
        assert_eq!(ExitPolicy::Standard.exit_code(Kind::Io), 2);
        assert_eq!(ExitPolicy::Standard.exit_code(Kind::StrictRefused), 1);
    }

    #[test]
    fn io_words_are_plain_whatever_the_error_carries() {
        let e = std::io::Error::from_raw_os_error(2);
        assert_eq!(io_words(&e), "no such file or directory");
        let e = std::io::Error::other("IO failure");
        assert_eq!(io_words(&e), "IO failure");
        let e = std::io::Error::from(io::ErrorKind::NotFound);
        assert_eq!(io_words(&e), "no such file or directory");
        let e = std::io::Error::other("Broken thing");
        assert_eq!(io_words(&e), "broken thing");
    }
}
