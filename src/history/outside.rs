//! Files outside the memory dir that a command changed (the project's CLAUDE
//! files, SPEC §12): the command's snapshot keeps each one's previous bytes under
//! `.memctl/outside/` in its tree, so `memctl undo` can put them back.
//!
//! Layout in the tree: `.memctl/outside/files`, one line per file:
//! `<name>\t<previous mtime ns, or - when absent>\t<blob id of what the command
//! left, or - when it removed the file>\t<project root>\t<path>` (paths C-quoted
//! as in `.memctl/mtimes`); and `.memctl/outside/<name>`, the previous bytes (no
//! entry when the file did not exist). `<name>` is `<n>-<file name>`
//! (`1-CLAUDE.md`): unique within the snapshot, never `files`.

use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::PathBuf;

use gix::ObjectId;

use super::read::{c_quote, c_unquote};

/// A change a command made to a file outside the memory dir, to record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutsideChange {
    /// The path as named (a symlink stays the link: its target was written).
    pub path: PathBuf,
    /// The project root: the containment boundary of a restore.
    pub root: PathBuf,
    /// The bytes and mtime (ns) before the command; `None`: it did not exist.
    pub before: Option<(Vec<u8>, i128)>,
    /// What the command left there; `None`: it removed the file.
    pub after: Option<Vec<u8>>,
}

/// A recorded outside file, read back from a snapshot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutsideFile {
    /// Its name in `.memctl/outside/`.
    pub name: String,
    pub path: PathBuf,
    pub root: PathBuf,
    /// The previous bytes and mtime (ns); `None`: the file did not exist.
    pub before: Option<(Vec<u8>, i128)>,
    /// The blob id of what the command left; `None`: it removed the file.
    pub after: Option<ObjectId>,
}

pub(super) const DIR: &[u8] = b"outside";
pub(super) const LIST: &[u8] = b"files";

/// The names of `changes` in the tree, in order.
pub(super) fn names(changes: &[OutsideChange]) -> Vec<String> {
    changes
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let base = c
                .path
                .file_name()
                .map(|n| n.to_string_lossy().replace(['/', '\0'], "_"))
                .unwrap_or_default();
            format!("{}-{base}", i + 1)
        })
        .collect()
}

/// The `files` list of `changes` named `names`, `after` their blob ids.
pub(super) fn render(changes: &[OutsideChange], names: &[String], after: &[Option<ObjectId>]) -> Vec<u8> {
    let mut out = Vec::new();
    for ((c, name), a) in changes.iter().zip(names).zip(after) {
        out.extend_from_slice(name.as_bytes());
        out.push(b'\t');
        match &c.before {
            Some((_, ns)) => out.extend_from_slice(ns.to_string().as_bytes()),
            None => out.push(b'-'),
        }
        out.push(b'\t');
        match a {
            Some(id) => out.extend_from_slice(id.to_hex().to_string().as_bytes()),
            None => out.push(b'-'),
        }
        out.push(b'\t');
        out.extend_from_slice(&c_quote(c.root.as_os_str().as_bytes()));
        out.push(b'\t');
        out.extend_from_slice(&c_quote(c.path.as_os_str().as_bytes()));
        out.push(b'\n');
    }
    out
}

/// One parsed line of `files`: name, previous mtime (when present), after id.
pub(super) struct Listed {
    pub name: String,
    pub before_mtime: Option<i128>,
    pub after: Option<ObjectId>,
    pub root: PathBuf,
    pub path: PathBuf,
}

/// Parse `files`; lines that do not parse are skipped.
pub(super) fn parse(text: &[u8]) -> Vec<Listed> {
    text.split(|b| *b == b'\n')
        .filter_map(|l| {
            let mut f = l.splitn(5, |b| *b == b'\t');
            let (name, before, after, root, path) = (f.next()?, f.next()?, f.next()?, f.next()?, f.next()?);
            let before_mtime = match before {
                b"-" => None,
                n => Some(std::str::from_utf8(n).ok()?.parse().ok()?),
            };
            let after = match after {
                b"-" => None,
                h => Some(ObjectId::from_hex(h).ok()?),
            };
            let as_path = |b: &[u8]| PathBuf::from(std::ffi::OsString::from_vec(c_unquote(b)));
            Some(Listed {
                name: String::from_utf8(name.to_vec()).ok()?,
                before_mtime,
                after,
                root: as_path(root),
                path: as_path(path),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_round_trips_odd_paths() {
        let changes = vec![
            OutsideChange {
                path: PathBuf::from("/p/q\tr/CLAUDE.md"),
                root: PathBuf::from("/p/q\tr"),
                before: Some((b"old".to_vec(), -5)),
                after: Some(b"new".to_vec()),
            },
            OutsideChange {
                path: PathBuf::from("/p/CLAUDE.local.md"),
                root: PathBuf::from("/p"),
                before: None,
                after: None,
            },
        ];
        let names = names(&changes);
        assert_eq!(names, ["1-CLAUDE.md", "2-CLAUDE.local.md"]);
        let id = ObjectId::empty_blob(gix::hash::Kind::Sha1);
        let parsed = parse(&render(&changes, &names, &[Some(id), None]));
        assert_eq!(parsed.len(), 2);
        assert_eq!(parsed[0].path, changes[0].path);
        assert_eq!(parsed[0].root, changes[0].root);
        assert_eq!((parsed[0].before_mtime, parsed[0].after), (Some(-5), Some(id)));
        assert_eq!((parsed[1].before_mtime, parsed[1].after), (None, None));
    }
}
