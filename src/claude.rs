//! The Claude Code build memctl models (SPEC §1.5).
//!
//! memctl models exactly one shipped Claude Code build: where it reports what
//! Claude Code loads, reads or writes, it means this build. Moving to a newer
//! build is a SPEC change, re-recorded with `scripts/cc-oracle` (README,
//! "Claude Code fidelity").

/// The modelled build as a literal, so `concat!` can build the version line.
macro_rules! claude_code_version {
    () => {
        "2.1.332"
    };
}

/// The modelled Claude Code build, as `claude --version` prints it.
pub const CLAUDE_CODE_VERSION: &str = claude_code_version!();

/// What `memctl --version` prints after `memctl `: `<version> (models Claude Code
/// <build>)` (SPEC §1.5).
pub const VERSION_LINE: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (models Claude Code ",
    claude_code_version!(),
    ")"
);

#[cfg(test)]
mod tests {
    #[test]
    fn the_version_line_names_the_modelled_build() {
        assert_eq!(
            super::VERSION_LINE,
            format!(
                "{} (models Claude Code {})",
                env!("CARGO_PKG_VERSION"),
                super::CLAUDE_CODE_VERSION
            )
        );
    }
}
