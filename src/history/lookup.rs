//! Naming a memory in history (SPEC §8.3 `REF`): a memory of the dir now, as
//! every command resolves it (§3.2), else a file some snapshot had, found by its
//! path, its stem or its frontmatter name (a deleted memory keeps its name).

use std::collections::BTreeMap;

use super::read::State;
use crate::error::{Error, Kind};
use crate::memdir::MemoryDir;

/// The prefix of the scope's files in the store: the team dir's are under `team/`
/// (`team/<mount>/` for a team store, SPEC §2.13).
pub fn scope_prefix(memdir: &MemoryDir) -> String {
    memdir.scope_prefix()
}

/// The store path (relative to the main dir) of the memory `reference` names.
/// `states` are the snapshots' states, newest first; `name_of` gives a stored
/// blob's frontmatter name.
pub fn resolve_ref(
    memdir: &MemoryDir,
    reference: &str,
    states: &[State],
    name_of: &mut dyn FnMut(gix::ObjectId) -> Option<String>,
) -> Result<Vec<u8>, Error> {
    crate::memory::ensure_valid_name(reference, false)?;
    let prefix = scope_prefix(memdir);
    let scan = crate::scan::scan(memdir.dir());
    let err = match scan.resolve(reference, &memdir.shown()) {
        Ok(m) => return Ok(format!("{prefix}{}", m.rel).into_bytes()),
        Err(e) if e.kind == Kind::NotFound => e,
        Err(e) => return Err(e),
    };
    // Every path some snapshot had in this scope, with its newest blob.
    let mut known: BTreeMap<&[u8], gix::ObjectId> = BTreeMap::new();
    for s in states {
        for (rel, f) in &s.files {
            if rel.starts_with(prefix.as_bytes()) {
                known.entry(rel.as_slice()).or_insert(f.oid);
            }
        }
    }
    let with_md = if reference.ends_with(".md") {
        reference.to_string()
    } else {
        format!("{reference}.md")
    };
    let local = |rel: &[u8]| String::from_utf8_lossy(&rel[prefix.len()..]).into_owned();
    let stem = |l: &str| {
        let base = l.rsplit('/').next().unwrap_or(l).to_string();
        base.strip_suffix(".md").map(str::to_string).unwrap_or(base)
    };
    let mut names: Option<Vec<(&[u8], Option<String>)>> = None;
    let lower = reference.to_lowercase();
    for step in 0..4 {
        let found: Vec<&[u8]> = match step {
            0 => known
                .keys()
                .filter(|r| {
                    let l = local(r);
                    l == reference || l == with_md
                })
                .copied()
                .collect(),
            1 => known.keys().filter(|r| stem(&local(r)) == reference).copied().collect(),
            _ => {
                let names = names.get_or_insert_with(|| known.iter().map(|(r, id)| (*r, name_of(*id))).collect());
                names
                    .iter()
                    .filter(|(_, n)| match (step, n) {
                        (2, Some(n)) => n == reference,
                        (_, Some(n)) => n.to_lowercase() == lower,
                        _ => false,
                    })
                    .map(|(r, _)| *r)
                    .collect()
            }
        };
        match found.as_slice() {
            [] => continue,
            [one] => return Ok(one.to_vec()),
            many => {
                let list: Vec<String> = many.iter().map(|r| local(r)).collect();
                return Err(Error::new(
                    Kind::Ambiguous,
                    format!("`{reference}` names several files in history: {}", list.join(", ")),
                )
                .hint("name the file by its relative path"));
            }
        }
    }
    Err(Error::new(
        Kind::NotFound,
        format!("no memory named `{reference}` in {} or its history", memdir.shown()),
    )
    .hint(
        err.hint
            .clone()
            .unwrap_or_else(|| "run `memctl history` to see the files history has".into()),
    ))
}

/// The frontmatter `name` of a memory's bytes, if it has one.
pub fn frontmatter_name(bytes: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(64 << 10)]);
    let fm = crate::frontmatter::parse_lines(&crate::frontmatter::scan_lines(&text));
    fm.get("name").map(crate::yaml::Value::js_string)
}
