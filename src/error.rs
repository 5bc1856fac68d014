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

/// An error memctl reports with its kind and hint.
#[derive(Debug, Clone)]
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
