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
/// blob's frontmatter name. The steps: (1) a memory of the dir now; else among
/// the paths history has in the scope, (2) by path, (3) by stem, (4) by exact
/// frontmatter name, (5) by name in any case; the first step that finds any wins.
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
    let known = known_paths(states, &prefix);
    let mut names: Option<Vec<(&[u8], Option<String>)>> = None;
    for step in 0..4 {
        let found: Vec<&[u8]> = match step {
            0 | 1 => by_path(&known, &prefix, reference, step == 1),
            _ => {
                let names = names.get_or_insert_with(|| known.iter().map(|(r, id)| (*r, name_of(*id))).collect());
                by_name(names, reference, step == 3)
            }
        };
        match found.as_slice() {
            [] => continue,
            [one] => return Ok(one.to_vec()),
            many => return Err(ambiguous(reference, many, prefix.len())),
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

/// Every path some snapshot had in the scope of `prefix`, with its newest blob.
fn known_paths<'a>(states: &'a [State], prefix: &str) -> BTreeMap<&'a [u8], gix::ObjectId> {
    let mut known: BTreeMap<&[u8], gix::ObjectId> = BTreeMap::new();
    for s in states {
        for (rel, f) in &s.files {
            if rel.starts_with(prefix.as_bytes()) {
                known.entry(rel.as_slice()).or_insert(f.oid);
            }
        }
    }
    known
}

/// A store path below the scope's `prefix`, as the scope shows it.
fn local(rel: &[u8], prefix: usize) -> String {
    String::from_utf8_lossy(&rel[prefix..]).into_owned()
}

/// The paths of `known` that `reference` names by their path in the scope (with
/// or without `.md`), or with `stem` by their file name without `.md`.
fn by_path<'a>(known: &BTreeMap<&'a [u8], gix::ObjectId>, prefix: &str, reference: &str, stem: bool) -> Vec<&'a [u8]> {
    let with_md = if reference.ends_with(".md") {
        reference.to_string()
    } else {
        format!("{reference}.md")
    };
    let stem_of = |l: &str| {
        let base = l.rsplit('/').next().unwrap_or(l).to_string();
        base.strip_suffix(".md").map(str::to_string).unwrap_or(base)
    };
    known
        .keys()
        .filter(|r| {
            let l = local(r, prefix.len());
            match stem {
                false => l == reference || l == with_md,
                true => stem_of(&l) == reference,
            }
        })
        .copied()
        .collect()
}

/// The paths whose frontmatter name is `reference` (`any_case`: in any case).
fn by_name<'a>(names: &[(&'a [u8], Option<String>)], reference: &str, any_case: bool) -> Vec<&'a [u8]> {
    let lower = reference.to_lowercase();
    names
        .iter()
        .filter(|(_, n)| match (any_case, n) {
            (false, Some(n)) => n == reference,
            (true, Some(n)) => n.to_lowercase() == lower,
            _ => false,
        })
        .map(|(r, _)| *r)
        .collect()
}

/// `reference` names several files (`many`, store paths below a `prefix`-long
/// prefix).
fn ambiguous(reference: &str, many: &[&[u8]], prefix: usize) -> Error {
    let list: Vec<String> = many.iter().map(|r| local(r, prefix)).collect();
    Error::new(
        Kind::Ambiguous,
        format!("`{reference}` names several files in history: {}", list.join(", ")),
    )
    .hint("name the file by its relative path")
}

/// The frontmatter `name` of a memory's bytes, if it has one.
pub fn frontmatter_name(bytes: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(64 << 10)]);
    let fm = crate::frontmatter::parse_lines(&crate::frontmatter::scan_lines(&text));
    fm.get("name").map(crate::yaml::Value::js_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known<'a>(paths: &[&'a str]) -> BTreeMap<&'a [u8], gix::ObjectId> {
        let oid = gix::ObjectId::null(gix::hash::Kind::Sha1);
        paths.iter().map(|p| (p.as_bytes(), oid)).collect()
    }

    #[test]
    fn paths_are_known_in_the_scope_with_their_newest_blob() {
        let file = |oid: gix::ObjectId| crate::history::FileState {
            oid,
            link: false,
            mtime_ns: 0,
        };
        let (old, new) = (
            gix::ObjectId::null(gix::hash::Kind::Sha1),
            gix::ObjectId::empty_blob(gix::hash::Kind::Sha1),
        );
        let state = |oid, rels: &[&str]| State {
            files: rels.iter().map(|r| (r.as_bytes().to_vec(), file(oid))).collect(),
            lock: None,
        };
        let states = [
            state(new, &["team/a.md"]),
            state(old, &["team/a.md", "team/b.md", "c.md"]),
        ];
        let got = known_paths(&states, "team/");
        let want: BTreeMap<&[u8], gix::ObjectId> =
            [(b"team/a.md".as_slice(), new), (b"team/b.md".as_slice(), old)].into();
        assert_eq!(got, want);
    }

    #[test]
    fn a_path_matches_with_or_without_md_and_a_stem_by_file_name() {
        let k = known(&["team/a.md", "team/sub/a.md", "team/b.md"]);
        assert_eq!(by_path(&k, "team/", "a", false), [b"team/a.md".as_slice()]);
        assert_eq!(by_path(&k, "team/", "sub/a.md", false), [b"team/sub/a.md".as_slice()]);
        assert_eq!(by_path(&k, "team/", "a", true).len(), 2);
        assert!(by_path(&k, "team/", "c", true).is_empty());
    }

    #[test]
    fn a_name_matches_exactly_then_in_any_case() {
        let names: Vec<(&[u8], Option<String>)> = vec![
            (b"a.md", Some("Alpha".into())),
            (b"b.md", Some("alpha".into())),
            (b"c.md", None),
        ];
        assert_eq!(by_name(&names, "Alpha", false), [b"a.md".as_slice()]);
        assert_eq!(by_name(&names, "ALPHA", false), Vec::<&[u8]>::new());
        assert_eq!(by_name(&names, "ALPHA", true), [b"a.md".as_slice(), b"b.md".as_slice()]);
    }

    #[test]
    fn several_matches_are_ambiguous_and_listed_in_the_scope() {
        let e = ambiguous("a", &[b"team/a.md", b"team/x/a.md"], 5);
        assert_eq!(e.kind, Kind::Ambiguous);
        assert_eq!(e.message, "`a` names several files in history: a.md, x/a.md");
    }
}
