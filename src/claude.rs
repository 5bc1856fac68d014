//! The Claude Code build memctl models (SPEC §1.5).
//!
//! memctl models exactly one shipped Claude Code build: where it reports what
//! Claude Code loads, reads or writes, it means this build. Moving to a newer
//! build is a SPEC change, re-recorded with `scripts/cc-oracle` (README,
//! "Claude Code fidelity").

/// The modelled Claude Code build, as `claude --version` prints it.
pub const CLAUDE_CODE_VERSION: &str = "2.1.332";
