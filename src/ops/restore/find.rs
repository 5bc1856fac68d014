//! The copy a `REF` names (SPEC §3.2): in this store's history, in `.trash/`,
//! or in a store set aside as unreadable (SPEC v3 §8.1); the newest one, or the
//! one of `--at`.

use std::collections::BTreeMap;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use super::entry::{io, read_entry};
use super::{Origin, Source};
use crate::error::{Error, Kind};
use crate::history::{FileState, Settings, Snap, Store};
use crate::memdir::MemoryDir;
use crate::memory::Memory;
use crate::{index, scan};

/// `rel` of a store path, when it lies in the operated-on dir and is a memory.
fn local_rel(dir: &MemoryDir, srel: &[u8]) -> Option<String> {
    let s = std::str::from_utf8(srel).ok()?;
    let s = s.strip_prefix(dir.scope_prefix().as_str())?;
    let base = s.rsplit('/').next().unwrap_or(s);
    (base != crate::memdir::INDEX).then(|| s.to_string())
}

/// One copy a `REF` may name.
#[derive(Default)]
struct Candidate {
    snap: Option<(usize, FileState)>,
    trash: Option<(PathBuf, i64)>,
}

/// The snapshots to search: this store's (all, or the one `--at` names), or the
/// one of a set-aside store `--at` names.
enum Searched<'a> {
    Here(Vec<&'a Snap>),
    Aside(gix::ObjectId),
}

/// Find the copy `reference` names: by relative path, file stem or frontmatter
/// name (SPEC §3.2) among the memories now, in history and in `.trash/`; from
/// `at` when given (a snapshot), else the newest copy there is.
pub fn find(
    dir: &MemoryDir,
    reference: &str,
    at: Option<&str>,
    history: &Settings,
    now: DateTime<Utc>,
    warnings: &mut Vec<String>,
) -> Result<Source, Error> {
    ensure_not_index(reference)?;
    let store = open_store(dir, at, history, now, warnings)?;
    let log = match &store {
        Some(s) => s.log()?,
        None => Vec::new(),
    };
    let snaps = match searched(dir, history, store.as_ref(), &log, at, now)? {
        Searched::Here(snaps) => snaps,
        Searched::Aside(id) => {
            return find_aside(dir, reference, history, warnings, Some(id))
                .ok_or_else(|| not_found(dir, reference, at));
        }
    };
    let with_md = with_md(reference);
    let mut cands = history_candidates(dir, store.as_ref(), &snaps, &with_md)?;
    if at.is_none() {
        add_trash_candidates(&mut cands, dir.dir());
    }
    let rel = if cands.contains_key(&with_md) {
        with_md
    } else {
        match resolve(dir, reference, &cands, store.as_ref(), at) {
            Ok(rel) => rel,
            // Not in this store's history or the trash: the stores set aside as
            // unreadable may still hold it (SPEC v3 §8.1, issue 29 point 4).
            Err(e) if e.kind == Kind::NotFound && at.is_none() => {
                return find_aside(dir, reference, history, warnings, None).ok_or(e);
            }
            Err(e) => return Err(e),
        }
    };
    let c = &cands[&rel];
    let snap_time = c.snap.as_ref().map(|(i, _)| snaps[*i].time);
    if newer_in_trash(c.trash.as_ref().map(|t| t.1), snap_time) {
        let (file, time) = c.trash.clone().unwrap_or_default();
        return from_trash(&rel, &file, time);
    }
    let (Some(s), Some((i, f))) = (&store, &c.snap) else {
        return Err(not_found(dir, reference, at));
    };
    from_snapshot(dir, s, snaps[*i], rel, f)
}

/// `MEMORY.md` (or `MEMORY`) is the index, which restore does not bring back.
fn ensure_not_index(reference: &str) -> Result<(), Error> {
    if reference
        .rsplit('/')
        .next()
        .is_some_and(|b| b == "MEMORY.md" || b == "MEMORY")
    {
        return Err(
            Error::new(Kind::InvalidInput, format!("`{reference}` is the index, not a memory"))
                .hint("`memctl undo` reverts a snapshot's changes to the index too"),
        );
    }
    Ok(())
}

/// The dir's history store: required with `--at`; else `None` when history is
/// off, or (with a warning) when it cannot be opened: `.trash/` is still searched.
fn open_store(
    dir: &MemoryDir,
    at: Option<&str>,
    history: &Settings,
    now: DateTime<Utc>,
    warnings: &mut Vec<String>,
) -> Result<Option<Store>, Error> {
    Ok(match (at, history.is_on()) {
        (Some(_), _) => Some(Store::open_existing(history, dir.main(), now)?),
        (None, false) => None,
        (None, true) => match Store::open(history, dir.main(), None, false, now) {
            Ok(s) => s,
            Err(e) => {
                warnings.push(format!("history: {e}; looking in .trash/ only"));
                None
            }
        },
    })
}

/// The snapshots to search: every one of `log`, or the one `at` names, which may
/// be a snapshot of a store set aside as unreadable (SPEC v3 §8.1).
fn searched<'a>(
    dir: &MemoryDir,
    history: &Settings,
    store: Option<&Store>,
    log: &'a [Snap],
    at: Option<&str>,
    now: DateTime<Utc>,
) -> Result<Searched<'a>, Error> {
    let (Some(spec), Some(s)) = (at, store) else {
        return Ok(Searched::Here(log.iter().collect()));
    };
    let asides = crate::history::aside::open_all(history, dir.main());
    let (aside, id) = crate::history::aside::resolve(s, log, &asides, spec, now)?;
    if aside.is_some() {
        return Ok(Searched::Aside(id));
    }
    Ok(Searched::Here(log.iter().filter(|x| x.id == id).collect()))
}

/// `reference` as a file name: with `.md` added when it has none.
fn with_md(reference: &str) -> String {
    if reference.ends_with(".md") {
        reference.to_string()
    } else {
        format!("{reference}.md")
    }
}

/// Every memory a copy exists of in `snaps` (newest first), with its newest
/// copy there; a path given exactly (`with_md`) needs no older snapshot.
fn history_candidates(
    dir: &MemoryDir,
    store: Option<&Store>,
    snaps: &[&Snap],
    with_md: &str,
) -> Result<BTreeMap<String, Candidate>, Error> {
    let mut cands: BTreeMap<String, Candidate> = BTreeMap::new();
    let Some(s) = store else { return Ok(cands) };
    for (i, snap) in snaps.iter().enumerate() {
        let state = s.state(snap.id)?;
        for (srel, f) in &state.files {
            if let Some(rel) = local_rel(dir, srel) {
                cands.entry(rel).or_default().snap.get_or_insert((i, f.clone()));
            }
        }
        if cands.get(with_md).is_some_and(|c| c.snap.is_some()) {
            break;
        }
    }
    Ok(cands)
}

/// Each memory's newest copy in `<dir>.trash/`, added to `cands`.
fn add_trash_candidates(cands: &mut BTreeMap<String, Candidate>, dir: &Path) {
    for (rel, file, time) in trash_copies(dir) {
        let c = cands.entry(rel).or_default();
        if c.trash.is_none() {
            c.trash = Some((file, time));
        }
    }
}

/// Whether the copy in `.trash/` (its stamp's time) is the one to bring back:
/// there is one, and no snapshot's copy is newer.
fn newer_in_trash(trash_time: Option<i64>, snap_time: Option<i64>) -> bool {
    match (trash_time, snap_time) {
        (Some(t), Some(s)) => t >= s,
        (Some(_), None) => true,
        (None, _) => false,
    }
}

/// The copy of `rel` in `snap`, with the index lines that linked it then.
fn from_snapshot(dir: &MemoryDir, s: &Store, snap: &Snap, rel: String, f: &FileState) -> Result<Source, Error> {
    let bytes = s.blob(f.oid)?;
    let state = s.state(snap.id)?;
    let (index_text, lines) = snapshot_index(dir, &rel, &state.files, |oid| s.blob(oid))?;
    Ok(Source {
        rel,
        bytes,
        link: f.link,
        mtime_ns: f.mtime_ns,
        lines,
        index_text,
        origin: Origin::Snapshot {
            id: snap.short(),
            time: snap.time,
        },
    })
}

/// An index as a snapshot held it (`None`: none) and its lines that link one
/// memory (1-based number, text without its end).
type SnapshotIndex = (Option<String>, Vec<(usize, String)>);

/// The index that covers `rel` as a snapshot's `files` hold it (`None`: none, or
/// a symlink), and its lines that link `rel`.
fn snapshot_index<E>(
    dir: &MemoryDir,
    rel: &str,
    files: &BTreeMap<Vec<u8>, FileState>,
    blob: impl Fn(gix::ObjectId) -> Result<Vec<u8>, E>,
) -> Result<SnapshotIndex, E> {
    let cover = dir.covering(rel);
    let index_rel = cover
        .index
        .strip_prefix(dir.main())
        .map(|p| p.as_os_str().as_bytes().to_vec())
        .unwrap_or_else(|_| b"MEMORY.md".to_vec());
    let index_text = match files.get(&index_rel) {
        Some(x) if !x.link => Some(String::from_utf8_lossy(&blob(x.oid)?).into_owned()),
        _ => None,
    };
    let lines = index_text
        .as_deref()
        .map(|t| linking_lines(t, &cover.local))
        .unwrap_or_default();
    Ok((index_text, lines))
}

/// The newest copy of the memory `reference` names (path, stem or name, SPEC
/// §3.2) in the set-aside stores of the dir, with a warning naming the store.
/// With `only`, in that snapshot alone (`--at`).
fn find_aside(
    dir: &MemoryDir,
    reference: &str,
    history: &Settings,
    warnings: &mut Vec<String>,
    only: Option<gix::ObjectId>,
) -> Option<Source> {
    let mut snaps = crate::history::aside::snapshots(history, dir.main());
    snaps.retain(|a| only.is_none_or(|id| a.snap.id == id));
    // Each memory's newest copy: the snapshot and its path in the store.
    let mut newest: BTreeMap<String, (usize, Vec<u8>)> = BTreeMap::new();
    for (i, a) in snaps.iter().enumerate() {
        for srel in a.state.files.keys() {
            if let Some(rel) = local_rel(dir, srel) {
                newest.entry(rel).or_insert_with(|| (i, srel.clone()));
            }
        }
    }
    let with_md = with_md(reference);
    let rel = if newest.contains_key(&with_md) {
        with_md
    } else {
        let mems: Vec<Memory> = newest
            .iter()
            .map(|(rel, (i, srel))| {
                let a = &snaps[*i];
                let bytes = a.blob(a.state.files[srel].oid).unwrap_or_default();
                Memory::from_text(rel, &String::from_utf8_lossy(&bytes))
            })
            .collect();
        crate::memory::resolve_ref(reference, &mems, &dir.shown())
            .ok()?
            .rel
            .clone()
    };
    let (i, srel) = newest.get(&rel)?;
    let a = &snaps[*i];
    let f = &a.state.files[srel];
    let bytes = a.blob(f.oid).ok()?;
    let (index_text, lines) = snapshot_index(dir, &rel, &a.state.files, |oid| a.blob(oid)).ok()?;
    warnings.push(format!(
        "{rel} was found in the history store set aside as unreadable: {} (snapshot {})",
        a.store.display(),
        a.snap.short()
    ));
    Some(Source {
        rel,
        bytes,
        link: f.link,
        mtime_ns: f.mtime_ns,
        lines,
        index_text,
        origin: Origin::Snapshot {
            id: a.snap.short(),
            time: a.snap.time,
        },
    })
}

fn not_found(dir: &MemoryDir, reference: &str, at: Option<&str>) -> Error {
    let err = match at {
        Some(a) => Error::new(Kind::NotFound, format!("no memory named `{reference}` in snapshot {a}")),
        None => Error::new(
            Kind::NotFound,
            format!("no copy of `{reference}` in history or in {}.trash/", dir.shown()),
        ),
    };
    err.hint("`memctl history` lists the snapshots and the files they changed")
}

/// Steps 2–4 of SPEC §3.2 (stem, name, name in any case) over every copy.
fn resolve(
    dir: &MemoryDir,
    reference: &str,
    cands: &BTreeMap<String, Candidate>,
    store: Option<&Store>,
    at: Option<&str>,
) -> Result<String, Error> {
    let now = if at.is_none() {
        scan::scan(dir.dir()).memories
    } else {
        Vec::new()
    };
    let mut mems: Vec<Memory> = Vec::new();
    for (rel, c) in cands {
        if let Some(m) = now.iter().find(|m| &m.rel == rel) {
            mems.push(m.clone());
            continue;
        }
        let bytes = match (&c.snap, store, &c.trash) {
            (Some((_, f)), Some(s), _) => s.blob(f.oid).unwrap_or_default(),
            (_, _, Some((file, _))) => crate::fsread::read_regular(file, 1 << 20).unwrap_or_default(),
            _ => Vec::new(),
        };
        mems.push(Memory::from_text(rel, &String::from_utf8_lossy(&bytes)));
    }
    match crate::memory::resolve_ref(reference, &mems, &dir.shown()) {
        Ok(m) => Ok(m.rel.clone()),
        Err(e) if e.kind == Kind::NotFound => Err(not_found(dir, reference, at)),
        Err(e) => Err(e),
    }
}

/// The `.deleted` files below `<dir>.trash/<stamp>/`, newest stamp first: the
/// memory's path, the file, the stamp's time.
fn trash_copies(dir: &Path) -> Vec<(String, PathBuf, i64)> {
    let Ok(rd) = std::fs::read_dir(dir.join(".trash")) else {
        return Vec::new();
    };
    let mut stamps: Vec<PathBuf> = rd
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .collect();
    stamps.sort();
    stamps.reverse();
    let mut out = Vec::new();
    for s in stamps {
        let name = s
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let time = chrono::NaiveDateTime::parse_from_str(name.get(..16).unwrap_or(""), "%Y%m%dT%H%M%SZ")
            .map_or(0, |t| t.and_utc().timestamp());
        let mut stack = vec![s.clone()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
                let p = e.path();
                match e.file_type() {
                    Ok(t) if t.is_dir() => stack.push(p),
                    Ok(_) => {
                        let Ok(rel) = p.strip_prefix(&s) else { continue };
                        let Some(rel) = rel.to_str().and_then(|r| r.strip_suffix(".deleted")) else {
                            continue;
                        };
                        if rel.ends_with(".md") {
                            out.push((rel.to_string(), p.clone(), time));
                        }
                    }
                    Err(_) => {}
                }
            }
        }
    }
    out
}

fn from_trash(rel: &str, file: &Path, time: i64) -> Result<Source, Error> {
    let entry = read_entry(file)?.ok_or_else(|| io(file, "it is gone"))?;
    let notes = file.with_file_name(format!("{}.index-lines", rel.rsplit('/').next().unwrap_or(rel)));
    let text = crate::fsread::read_regular(&notes, crate::store::MAX_INDEX_BYTES).unwrap_or_default();
    let lines = String::from_utf8_lossy(&text)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| (0, l.to_string()))
        .collect();
    let dir = file
        .ancestors()
        .nth(rel.split('/').count())
        .map(Path::to_path_buf)
        .unwrap_or_default();
    Ok(Source {
        rel: rel.to_string(),
        bytes: entry.bytes,
        link: entry.link,
        mtime_ns: entry.mtime_ns,
        lines,
        index_text: None,
        origin: Origin::Trash { dir, time },
    })
}

/// The lines of `text` that link `local` (1-based numbers, without line ends).
fn linking_lines(text: &str, local: &str) -> Vec<(usize, String)> {
    let raw: Vec<&str> = text.split_inclusive('\n').collect();
    let mut out: Vec<(usize, String)> = Vec::new();
    for l in index::extract_links(text) {
        if l.memory_target() == Some(local) && out.last().is_none_or(|x| x.0 != l.line) {
            let t = raw.get(l.line - 1).map_or("", |s| s.trim_end_matches(['\n', '\r']));
            out.push((l.line, t.to_string()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linking_lines_are_found_once_per_line() {
        let t = "# I\n- [A](a.md) and [a](a.md)\n- [B](b.md)\r\n- [A2](a.md)\n";
        assert_eq!(
            linking_lines(t, "a.md"),
            vec![
                (2, "- [A](a.md) and [a](a.md)".to_string()),
                (4, "- [A2](a.md)".to_string())
            ]
        );
    }

    #[test]
    fn the_trash_copy_wins_unless_a_snapshot_is_newer() {
        assert!(newer_in_trash(Some(10), Some(10)));
        assert!(newer_in_trash(Some(11), Some(10)));
        assert!(!newer_in_trash(Some(9), Some(10)));
        assert!(newer_in_trash(Some(9), None));
        assert!(!newer_in_trash(None, Some(10)));
        assert!(!newer_in_trash(None, None));
    }

    #[test]
    fn a_reference_gets_md_once() {
        assert_eq!(with_md("user_role"), "user_role.md");
        assert_eq!(with_md("team/a.md"), "team/a.md");
    }

    #[test]
    fn the_index_is_not_a_memory() {
        for r in ["MEMORY.md", "MEMORY", "team/MEMORY.md"] {
            assert_eq!(ensure_not_index(r).unwrap_err().kind, Kind::InvalidInput);
        }
        assert!(ensure_not_index("MEMORY_notes.md").is_ok());
    }
}
