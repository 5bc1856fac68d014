//! Read-modify-write of an index against programs that take no lock (SPEC §4.2).

use std::borrow::Cow;
use std::fs;
use std::path::Path;

use super::atomic::{Stamp, stamp, write_checked_with};
use super::io_err;
use super::settle;
use crate::error::{Error, Kind};

/// The largest index memctl reads (SPEC §2.5 step 8): one constant, in the model.
pub use crate::index::check::MAX_INDEX_BYTES;

/// Read a file memctl is about to rewrite: a missing file reads as empty; anything
/// but a regular file (a FIFO, a device, a directory) is refused without opening it
/// for reading, and the read is bounded.
pub fn read_for_update(target: &Path) -> Result<Vec<u8>, Error> {
    use std::io::Read;
    let Some(file) = open_for_update(target)? else {
        return Ok(Vec::new());
    };
    // Sized from the open file: a 3 MB index is read without growing (and
    // copying) the buffer on the way.
    let hint = file.metadata().map_or(0, |m| m.len()).min(MAX_INDEX_BYTES + 1) as usize;
    let mut bytes = Vec::with_capacity(hint + 1);
    file.take(MAX_INDEX_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| io_err("cannot read", target, e))?;
    Ok(bytes)
}

/// What [`read_for_update`] refuses, refused without reading the file.
pub fn ensure_updatable(target: &Path) -> Result<(), Error> {
    open_for_update(target).map(drop)
}

/// [`read_for_update`]'s file, opened (`None`: it is missing).
fn open_for_update(target: &Path) -> Result<Option<fs::File>, Error> {
    match fs::metadata(target) {
        Ok(m) if !m.is_file() => {
            return Err(
                Error::new(Kind::InvalidInput, format!("not a regular file: {}", target.display()))
                    .hint("memctl only rewrites regular files; replace it with a file or remove it"),
            );
        }
        Ok(m) if m.len() > MAX_INDEX_BYTES => {
            return Err(Error::new(
                Kind::InvalidInput,
                format!("file larger than 256 MiB: {}", target.display()),
            )
            .hint("shorten it by hand"));
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_err("cannot read", target, e)),
        Ok(_) => {}
    }
    // O_NONBLOCK: a file swapped for a FIFO after the check never blocks the read.
    crate::fsread::open_regular(target)
        .map(Some)
        .map_err(|e| io_err("cannot read", target, std::io::Error::from(e)))
}

/// Whether [`read_for_update`] of `target` would give exactly `expect`, read in
/// pieces (no copy of the whole file is made to compare it).
fn holds(target: &Path, expect: &[u8]) -> bool {
    use std::io::Read;
    let file = match open_for_update(target) {
        Ok(Some(f)) => f,
        Ok(None) => return expect.is_empty(),
        Err(_) => return false,
    };
    let mut file = file.take(MAX_INDEX_BYTES + 1);
    let mut buf = vec![0u8; 64 << 10];
    let mut at = 0;
    loop {
        match file.read(&mut buf) {
            Ok(0) => return at == expect.len(),
            Ok(n) => {
                if expect.get(at..at + n) != buf.get(..n) {
                    return false;
                }
                at += n;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return false,
        }
    }
}

/// `new` as bytes, keeping the exact bytes of every line of `old` that `new` keeps:
/// memctl edits an index as text, and must not turn bytes that are not UTF-8 into
/// U+FFFD on lines it did not change. Linear: lines are matched through a map.
pub fn keep_original_bytes<'a>(old: &[u8], new: &'a str) -> std::borrow::Cow<'a, [u8]> {
    if std::str::from_utf8(old).is_ok() {
        return std::borrow::Cow::Borrowed(new.as_bytes());
    }
    let mut originals: std::collections::HashMap<String, std::collections::VecDeque<&[u8]>> =
        std::collections::HashMap::new();
    for line in old.split_inclusive(|&b| b == b'\n') {
        if std::str::from_utf8(line).is_err() {
            originals
                .entry(String::from_utf8_lossy(line).into_owned())
                .or_default()
                .push_back(line);
        }
    }
    let mut out = Vec::with_capacity(new.len());
    for line in new.split_inclusive('\n') {
        match originals.get_mut(line).and_then(|q| q.pop_front()) {
            Some(bytes) => out.extend_from_slice(bytes),
            None => out.extend_from_slice(line.as_bytes()),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Read-modify-write `target` (a missing file reads as empty): `change` computes
/// the new text from the fresh one (SPEC §4.2). Programs that take no lock (Claude
/// Code's Write tool, editors) must never make memctl derive the new text from a
/// half-written file, so:
/// - a read during which the file changed is retried;
/// - a read that is empty or cut inside a line is used only once the file has
///   stayed unchanged for [`settle::SETTLE`] (see [`settle::Watch::trust`]);
/// - `seen` is what the command read when it planned; a complete-looking read
///   that is shorter than `seen` or lacks one of its lines is used only once every
///   such read for [`settle::SETTLE`] gave the same bytes
///   ([`settle::Watch::content_settled`]);
/// - right before the rename the target must still hold the bytes that were read
///   (size, mtime and content), else re-read and re-apply;
/// - lines memctl does not change keep their bytes, valid UTF-8 or not.
///
/// After [`settle::DEADLINE`] of changes, `conflict`, and nothing is written.
/// Returns the old and the new text.
pub fn update(
    root: &Path,
    target: &Path,
    seen: Option<&[u8]>,
    mut change: impl FnMut(&str) -> Result<String, Error>,
) -> Result<(String, String), Error> {
    update_raw(root, target, seen, |t| change(t).map(Cow::Owned)).map(|u| (u.old, u.new.into_owned()))
}

/// What [`update_raw`] replaced and wrote.
pub struct Updated<'c> {
    /// The text replaced (lossy when the file was not valid UTF-8).
    pub old: String,
    /// The text written (or, when it equals `old`, not written).
    pub new: Cow<'c, str>,
    /// The bytes replaced when they were not valid UTF-8 (`old` is then lossy).
    pub invalid: Option<Vec<u8>>,
}

impl Updated<'_> {
    /// The exact bytes replaced.
    pub fn old_bytes(self) -> Vec<u8> {
        self.invalid.unwrap_or_else(|| self.old.into_bytes())
    }
}

/// [`update`], also giving the exact bytes it replaced (a command that puts
/// them back on failure needs no read of its own); `change` may give a text it
/// holds already (`add`'s planned index: 3.3 MB at 20 000 lines not copied).
pub fn update_raw<'c>(
    root: &Path,
    target: &Path,
    seen: Option<&[u8]>,
    mut change: impl FnMut(&str) -> Result<Cow<'c, str>, Error>,
) -> Result<Updated<'c>, Error> {
    let mut watch = settle::Watch::new();
    loop {
        if watch.expired() {
            return Err(settle::busy(target));
        }
        let before = stamp(target);
        let old_bytes = read_for_update(target)?;
        if stamp(target) != before {
            watch.pause();
            continue;
        }
        let exists = fs::symlink_metadata(target).is_ok();
        let trusted = if settle::looks_torn(&old_bytes, exists, None) {
            // Empty or cut inside a line: the file must stay unchanged.
            watch.trust(target, &old_bytes, None)?
        } else if settle::looks_torn(&old_bytes, exists, seen) {
            // Complete-looking, but shorter than or missing lines of what the
            // command planned from: its content must stay the same.
            watch.content_settled(target, &old_bytes)
        } else {
            true
        };
        if !trusted {
            watch.pause();
            continue;
        }
        // Valid UTF-8 (the usual index) is taken as the text without a copy.
        let (old, invalid) = match String::from_utf8(old_bytes) {
            Ok(text) => (text, None),
            Err(e) => {
                let bytes = e.into_bytes();
                (String::from_utf8_lossy(&bytes).into_owned(), Some(bytes))
            }
        };
        let old_bytes = invalid.as_deref().unwrap_or(old.as_bytes());
        let new = change(&old)?;
        if *new == *old {
            return Ok(Updated { old, new, invalid });
        }
        // Valid UTF-8 (the usual index) is written as the new text, not checked again.
        let content = match &invalid {
            Some(bytes) => keep_original_bytes(bytes, &new),
            None => Cow::Borrowed(new.as_bytes()),
        };
        if write_if_unchanged(root, target, &content, before, old_bytes)? {
            drop(content);
            return Ok(Updated { old, new, invalid });
        }
        watch.pause();
    }
}

/// Like [`write_checked`], but right before the rename the target must still have
/// the stamp `expect` and the content `expect_bytes`. Returns whether it wrote.
fn write_if_unchanged(
    root: &Path,
    target: &Path,
    content: &[u8],
    expect: Stamp,
    expect_bytes: &[u8],
) -> Result<bool, Error> {
    let unchanged = || stamp(target) == expect && holds(target, expect_bytes);
    write_checked_with(root, target, content, &unchanged)
}
