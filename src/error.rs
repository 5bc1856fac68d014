//! memctl's error kinds (SPEC §3.1): each carries a message, an optional hint, and
//! maps to an exit code.

use std::fmt;

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
    Editor,
    Io,
    Config,
    Unsupported,
    StrictRefused,
    Internal,
}

impl Kind {
    pub fn exit_code(self) -> u8 {
        if self == Kind::StrictRefused { 1 } else { 2 }
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
    pub fn new(kind: Kind, message: impl Into<String>) -> Self {
        Error {
            kind,
            message: message.into(),
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

/// Shorthand: `Err(err(Kind::NotFound, "…"))`.
pub fn err(kind: Kind, message: impl Into<String>) -> Error {
    Error::new(kind, message)
}

/// What an I/O error says, for a user: without Rust's ` (os error N)` suffix and
/// with the operating system's capital dropped (`no such file or directory`).
pub fn io_reason(e: &std::io::Error) -> String {
    let text = e.to_string();
    let text = match (e.raw_os_error(), text.rfind(" (os error ")) {
        (Some(_), Some(i)) if text.ends_with(')') => text[..i].to_string(),
        _ => text,
    };
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        // Keep an acronym (`EACCES`-style or `IO error`) as it is.
        (Some(first), Some(second)) if first.is_uppercase() && !second.is_uppercase() => {
            first.to_lowercase().chain(text[first.len_utf8()..].chars()).collect()
        }
        _ => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hook_policy_never_exits_2() {
        for kind in [Kind::Usage, Kind::Io, Kind::StrictRefused, Kind::Internal] {
            assert_eq!(ExitPolicy::Hook.exit_code(kind), 1);
        }
        assert_eq!(ExitPolicy::Standard.exit_code(Kind::Io), 2);
        assert_eq!(ExitPolicy::Standard.exit_code(Kind::StrictRefused), 1);
    }

    #[test]
    fn io_reasons_have_no_os_error_suffix() {
        let e = std::io::Error::from_raw_os_error(2);
        assert_eq!(io_reason(&e), "no such file or directory");
        let e = std::io::Error::other("IO failure");
        assert_eq!(io_reason(&e), "IO failure");
    }
}
