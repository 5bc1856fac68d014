//! An entry on disk (a file or a symlink, never followed), read and put back
//! through the Writer; the undo log of a command that writes several.

use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use crate::error::{Error, Kind};
use crate::store::Writer;

/// An entry as it is on disk now: bytes (a link's target for a symlink), whether
/// it is a link, its mtime. `None`: absent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub bytes: Vec<u8>,
    pub link: bool,
    pub mtime_ns: i128,
}

/// Read the entry at `path` (never following a symlink, never blocking on a FIFO).
pub fn read_entry(path: &Path) -> Result<Option<Entry>, Error> {
    let md = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io(path, &e.to_string())),
    };
    let mtime_ns = crate::history::tracked::mtime_ns(&md);
    if md.file_type().is_symlink() {
        let t = std::fs::read_link(path).map_err(|e| io(path, &e.to_string()))?;
        return Ok(Some(Entry {
            bytes: t.as_os_str().as_bytes().to_vec(),
            link: true,
            mtime_ns,
        }));
    }
    if !md.is_file() {
        return Err(
            Error::new(Kind::InvalidInput, format!("not a regular file: {}", path.display()))
                .hint("memctl only restores over regular files; move it away first"),
        );
    }
    let bytes = crate::fsread::read_regular(path, 1 << 40).map_err(|e| io(path, &e.to_string()))?;
    Ok(Some(Entry {
        bytes,
        link: false,
        mtime_ns,
    }))
}

pub(super) fn io(path: &Path, why: &str) -> Error {
    Error::new(Kind::Io, format!("cannot read {}: {why}", path.display())).hint("check the file's permissions")
}

/// Put `entry` at `path` (or remove what is there when `None`), through the Writer.
pub fn put_entry(w: &mut Writer, path: &Path, entry: Option<&Entry>) -> Result<(), Error> {
    match entry {
        None => match std::fs::symlink_metadata(path) {
            Ok(_) => w.remove(path),
            Err(_) => Ok(()),
        },
        Some(e) if e.link => w.put_link(path, &e.bytes, e.mtime_ns),
        Some(e) => w.put(path, &e.bytes, e.mtime_ns),
    }
}

/// Entries written so far and what they held before: put back in reverse order
/// when a later step fails, so a failed command leaves the dir as it found it.
#[derive(Default)]
pub struct Undo(Vec<(PathBuf, Option<Entry>)>);

impl Undo {
    /// Write `entry` at `path`, remembering what was there.
    pub fn put(&mut self, w: &mut Writer, path: &Path, entry: Option<&Entry>) -> Result<(), Error> {
        let was = read_entry(path)?;
        put_entry(w, path, entry)?;
        self.0.push((path.to_path_buf(), was));
        Ok(())
    }

    pub fn roll_back(self, w: &mut Writer) {
        for (path, was) in self.0.into_iter().rev() {
            let _ = put_entry(w, &path, was.as_ref());
        }
    }
}

/// `mtime` in the JSON documents: RFC 3339 with nanoseconds, UTC.
pub fn mtime_text(ns: i128) -> String {
    let secs = i64::try_from(ns.div_euclid(1_000_000_000)).unwrap_or(0);
    let nsec = u32::try_from(ns.rem_euclid(1_000_000_000)).unwrap_or(0);
    DateTime::<Utc>::from_timestamp(secs, nsec)
        .map(|t| t.format("%Y-%m-%dT%H:%M:%S%.9fZ").to_string())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mtimes_keep_their_nanoseconds() {
        assert_eq!(mtime_text(1_773_144_000_123_456_789), "2026-03-10T12:00:00.123456789Z");
        assert_eq!(mtime_text(-1), "1969-12-31T23:59:59.999999999Z");
    }
}
