//! SPEC §2.7.4: when `MEMORY.md` is missing, Claude Code 2.1.332 writes one from
//! the topic files at session start and loads it. [`will_backfill`] tells whether
//! it will, from what memctl can see of the memory dir and the environment.

use std::path::Path;

use crate::paths::Env;

/// A top-level name Claude Code's scan leaves out (§2.5 step 2): dot-named, or
/// — NFC-normalised, trailing dots and spaces removed, lower-cased — `team`,
/// `logs`, `sessions` or `proposals`.
fn excluded_name(name: &str) -> bool {
    use unicode_normalization::UnicodeNormalization;
    if name.starts_with('.') {
        return true;
    }
    let n: String = name.nfc().collect();
    let n = n.trim_end_matches(['.', ' ']).to_lowercase();
    matches!(n.as_str(), "team" | "logs" | "sessions" | "proposals")
}

/// Whether the dir's top level has no entry named `MEMORY.md` (of any kind) and
/// at least one candidate: an entry not excluded by name that is a regular `.md`
/// file or a directory (symlinks followed).
pub fn has_candidates(dir: &Path) -> bool {
    if std::fs::symlink_metadata(dir.join("MEMORY.md")).is_ok() {
        return false;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    entries.flatten().any(|e| {
        let name = e.file_name();
        let Some(name) = name.to_str() else { return false };
        if name == "MEMORY.md" || excluded_name(name) {
            return false;
        }
        match std::fs::metadata(e.path()) {
            Ok(m) if m.is_dir() => true,
            Ok(m) => m.is_file() && name.ends_with(".md"),
            Err(_) => false,
        }
    })
}

/// Whether Claude Code writes a missing `MEMORY.md` at its next session start
/// (§2.7.4), for an enabled memory dir outside recall mode: the environment
/// override and `CLAUDE_CODE_REMOTE` are unset, and the dir has a candidate.
/// (Whether any line can be written is decided by the files; a dir with only an
/// empty subdirectory gets none.)
pub fn will_backfill(dir: &Path, env: &Env) -> bool {
    env.get(super::check::INDEX_CONTENT_VAR).is_none()
        && env.get("CLAUDE_CODE_REMOTE").is_none()
        && has_candidates(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_scan_leaves_out() {
        for n in [".hidden", "team", "Logs", "logs.", "sessions ", "PROPOSALS"] {
            assert!(excluded_name(n), "{n}");
        }
        for n in ["sub", "x.md", "teams", "log"] {
            assert!(!excluded_name(n), "{n}");
        }
    }
}
