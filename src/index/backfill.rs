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

/// What Claude Code writes as the missing `MEMORY.md` of an enabled memory dir
/// outside recall mode at its next session start (§2.7.4), or `None` when it
/// writes nothing: the environment override or `CLAUDE_CODE_REMOTE` is set, the
/// dir has an entry named `MEMORY.md` or no candidate, or no file gets a line.
pub fn will_backfill(dir: &Path, env: &Env) -> Option<String> {
    if env.get(super::check::INDEX_CONTENT_VAR).is_some() || env.get("CLAUDE_CODE_REMOTE").is_some() {
        return None;
    }
    if !has_candidates(dir) {
        return None;
    }
    let text = render(&crate::scan::scan(dir).memories);
    (!text.is_empty()).then_some(text)
}

/// Lines stop before the 141st line or past 17 500 units (70 % of each cap).
const MAX_LINES: usize = 140;
const MAX_UNITS: usize = 17_500;
/// A line is at most this many units.
const LINE_UNITS: usize = 150;

/// The text Claude Code writes for `memories` (the scan, newest first; §2.7.4
/// steps 1–3): one `- [<stem>](<path>)` line per regular single-link file, with
/// ` — ` and the shortened cleaned description when there is room.
pub fn render(memories: &[crate::memory::Memory]) -> String {
    let mut out = String::new();
    let (mut lines, mut units) = (0, 0);
    for m in memories {
        if !single_link_file(&m.path) || m.rel.split('/').any(excluded_segment) {
            continue;
        }
        let Some(line) = line_for(m) else { continue };
        let line_units = crate::text::utf16_len(&line) + 1;
        if lines + 1 > MAX_LINES || units + line_units > MAX_UNITS {
            break;
        }
        out.push_str(&line);
        out.push('\n');
        lines += 1;
        units += line_units;
    }
    out
}

/// A path segment that leaves a file out (any depth): dot-named, or `team`,
/// `logs`, `sessions`, `proposals` after the scan's normalisation.
fn excluded_segment(seg: &str) -> bool {
    excluded_name(seg)
}

/// A regular file (not a symlink) with one link.
fn single_link_file(path: &Path) -> bool {
    let Ok(m) = std::fs::symlink_metadata(path) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        m.is_file() && m.nlink() == 1
    }
    #[cfg(not(unix))]
    {
        m.is_file()
    }
}

/// The line of one file, or `None` when its path cannot be linked.
fn line_for(m: &crate::memory::Memory) -> Option<String> {
    let rel = &m.rel;
    if rel
        .chars()
        .any(|c| matches!(c, '[' | ']' | '(' | ')' | '\n' | '\r' | '\t'))
        || super::load::clean::clean(rel) != *rel
    {
        return None;
    }
    let base = rel.rsplit('/').next().unwrap_or(rel);
    let stem = base.strip_suffix(".md").unwrap_or(base);
    let mut line = format!("- [{stem}]({rel})");
    let desc = match &m.fields.description {
        Some(crate::yaml::Value::String(d)) => {
            let cleaned = super::load::clean::clean(d);
            cleaned
                .split(crate::text::is_js_space)
                .filter(|w| !w.is_empty())
                .collect::<Vec<_>>()
                .join(" ")
        }
        _ => String::new(),
    };
    let room = LINE_UNITS as i64 - crate::text::utf16_len(&line) as i64 - 3;
    if !desc.is_empty() && room > 1 {
        line.push_str(" — ");
        line.push_str(&super::load::truncate::shorten(&desc, room as usize));
    }
    Some(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The file the 2.1.332 client wrote for each backfill row of the recorded
    /// load data (`scripts/cc-oracle load`) is the text memctl predicts.
    #[test]
    fn predicts_what_the_client_wrote() {
        let golden = include_str!("../../tests/golden/claude-code-2.1.332/load.jsonl");
        let now = std::time::SystemTime::now();
        let mut n = 0;
        for row in golden
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        {
            if row["kind"] != "backfill" {
                continue;
            }
            let tmp = tempfile::tempdir().unwrap();
            let dir = tmp.path();
            for d in row["dirs"].as_array().into_iter().flatten() {
                std::fs::create_dir_all(dir.join(d.as_str().unwrap())).unwrap();
            }
            for f in row["files"].as_array().unwrap() {
                let p = dir.join(f["path"].as_str().unwrap());
                std::fs::create_dir_all(p.parent().unwrap()).unwrap();
                std::fs::write(&p, f["text"].as_str().unwrap()).unwrap();
                let age = std::time::Duration::from_secs(f["age"].as_u64().unwrap());
                let file = std::fs::File::options().write(true).open(&p).unwrap();
                file.set_modified(now - age).unwrap();
            }
            for l in row["links"].as_array().into_iter().flatten() {
                let p = dir.join(l["path"].as_str().unwrap());
                match l["symlink"].as_str() {
                    Some(t) => std::os::unix::fs::symlink(t, &p).unwrap(),
                    None => std::fs::hard_link(dir.join(l["hardlink"].as_str().unwrap()), &p).unwrap(),
                }
            }
            if let Some(index) = row["index"].as_str() {
                std::fs::write(dir.join("MEMORY.md"), index).unwrap();
            }
            let written = row["observed"]["written"].as_str().filter(|w| !w.is_empty());
            let predicted = will_backfill(dir, &Env::default());
            assert_eq!(predicted.as_deref(), written, "{}", row["case"]);
            n += 1;
        }
        assert!(n >= 5);
    }

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
