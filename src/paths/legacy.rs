//! Long project keys that older Claude Code builds wrote under the legacy Wyhash
//! key (SPEC §2.2.7 "Matching existing long-name directories").

use std::path::Path;

use serde::Serialize;

use super::{sanitize, with_sep};

/// A memory dir under the legacy Wyhash key of a long project key (SPEC §2.2.7):
/// Claude Code 2.1.332 no longer reads it.
#[derive(Clone, Debug, Serialize)]
pub struct LegacyDir {
    /// The legacy key (`<first 200 units>-<wyhash>`).
    pub key: String,
    pub dir: String,
    pub variant: &'static str,
    /// Memory files in it (`.md` files other than `MEMORY.md`).
    pub memories: usize,
    /// The command that moves them under the key Claude Code 2.1.332 reads.
    pub command: String,
}

/// Recognise what older builds left for a long key (SPEC §2.2.7 "Matching existing
/// long-name directories"); `suffix` is `memory` for the memory dir, empty for
/// transcripts. The key itself is always the djb2 one. Returns the legacy memory
/// dirs holding memories.
pub(super) fn match_long_key(
    projects: &str,
    key: &sanitize::Key,
    suffix: &str,
    warnings: &mut Vec<String>,
) -> Vec<LegacyDir> {
    if !key.is_long() {
        return Vec::new();
    }
    let mut legacy = Vec::new();
    let wy_dir = Path::new(projects).join(&key.wyhash).join(suffix);
    if suffix.is_empty() {
        if wy_dir.is_dir() {
            warnings.push(format!(
                "{} holds transcripts written under the key of an older Claude Code build; Claude Code {} writes them under {}",
                key.wyhash,
                crate::claude::CLAUDE_CODE_VERSION,
                key.key
            ));
        }
    } else if wy_dir.is_dir() {
        let scan = crate::scan::scan(&wy_dir);
        let memories = scan.memories.len();
        if memories > 0 || wy_dir.join("MEMORY.md").is_file() {
            let command = format!("memctl projects merge -- {} {}", key.wyhash, key.key);
            warnings.push(format!(
                "{} holds {memories} memories written under the key of an older Claude Code build; Claude Code {} reads {}: move them with `{command}`",
                key.wyhash,
                crate::claude::CLAUDE_CODE_VERSION,
                key.key
            ));
            legacy.push(LegacyDir {
                key: key.wyhash.clone(),
                dir: with_sep(&wy_dir),
                variant: "wyhash",
                memories,
                command,
            });
        }
    }
    let prefix = key.prefix();
    let mut others: Vec<String> = std::fs::read_dir(projects)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .filter_map(|e| e.file_name().into_string().ok())
                .filter(|n| n.starts_with(prefix) && *n != key.key && *n != key.wyhash)
                .collect()
        })
        .unwrap_or_default();
    if !others.is_empty() && !suffix.is_empty() {
        others.sort();
        warnings.push(format!(
            "other directories share this long key's prefix (not used; Claude Code's memory path does not match by prefix): {}",
            others.join(", ")
        ));
    }
    legacy
}
