//! The one door for writing Claude Code settings files (`hook install`, `config
//! set`; SPEC §7.4, §7.5): parse keeping key order, refuse a file that does not
//! parse (naming file and line), edit the JSON text in place (only the members
//! that change; the user's layout stays), write atomically keeping the first
//! backup (the user's original), and re-check the file right before the rename
//! (Claude Code may be writing it).

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::{Error, Kind};
use crate::store::{Stamp, stamp};

/// A settings file as read for editing.
pub struct SettingsFile {
    pub path: PathBuf,
    /// The file's text (`None`: it does not exist). Bytes that are not UTF-8 are
    /// held as private-use characters (see [`decode`]) so a rewrite keeps them.
    pub text: Option<String>,
    pub value: Map<String, Value>,
    stamp: Stamp,
    /// The exact bytes read (for the backup and the re-check before the rename).
    raw: Option<Vec<u8>>,
    /// Whether `text` holds mapped bytes that must be written back as bytes.
    mapped: bool,
    /// The project root a local or project settings file must stay inside.
    root: Option<PathBuf>,
    /// memctl's lock on this settings file, held while editing it.
    _lock: Option<std::fs::File>,
}

/// Bytes that are not UTF-8 are carried through JSON as the private-use characters
/// U+10FE80..U+10FEFF (one per byte) and written back as the bytes, so a rewrite
/// never turns them into U+FFFD (issue 29 point 19). A file that is not UTF-8 and
/// already holds such characters is read lossily (never ambiguously).
const RAW_BASE: u32 = 0x10FE00;

/// `bytes` as text: exact when UTF-8; else each invalid byte mapped (see
/// [`RAW_BASE`]). Returns the text and whether bytes were mapped.
pub fn decode(bytes: &[u8]) -> (String, bool) {
    if let Ok(t) = std::str::from_utf8(bytes) {
        return (t.to_string(), false);
    }
    let lossy = || (String::from_utf8_lossy(bytes).into_owned(), false);
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        if chunk
            .valid()
            .chars()
            .any(|c| (RAW_BASE..RAW_BASE + 0x100).contains(&(c as u32)))
        {
            return lossy();
        }
        out.push_str(chunk.valid());
        for &b in chunk.invalid() {
            match char::from_u32(RAW_BASE + u32::from(b)) {
                Some(c) => out.push(c),
                None => return lossy(),
            }
        }
    }
    (out, true)
}

/// The bytes of text made by [`decode`] (mapped characters back to their bytes).
pub fn encode(text: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    for c in text.chars() {
        let u = c as u32;
        if (RAW_BASE + 0x80..RAW_BASE + 0x100).contains(&u) {
            out.push((u - RAW_BASE) as u8);
        } else {
            let mut buf = [0; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        }
    }
    out
}

/// Text for display: mapped bytes shown as U+FFFD.
fn shown(text: &str) -> String {
    String::from_utf8_lossy(&encode(text)).into_owned()
}

/// memctl's state dir (`${XDG_STATE_HOME:-~/.local/state}/memctl`) and the key
/// of the settings file `path` in it: a hash of its real path (of its nearest
/// existing ancestor's, when it does not exist), so two names of one file share it.
fn state_key(path: &Path) -> Option<(PathBuf, String)> {
    use sha2::Digest;
    use std::os::unix::ffi::OsStrExt;
    let nonempty = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    let state = nonempty("XDG_STATE_HOME").or_else(|| nonempty("HOME").map(|h| h.join(".local/state")))?;
    let real = std::fs::canonicalize(path).unwrap_or_else(|_| {
        let parent = path.parent().unwrap_or(Path::new("/"));
        let parent = parent
            .ancestors()
            .find_map(|a| {
                std::fs::canonicalize(a)
                    .ok()
                    .map(|r| r.join(parent.strip_prefix(a).unwrap_or(Path::new(""))))
            })
            .unwrap_or_else(|| parent.to_path_buf());
        parent.join(path.file_name().unwrap_or_default())
    });
    let digest = sha2::Sha256::digest(real.as_os_str().as_bytes());
    let hex: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
    Some((state.join("memctl"), hex))
}

/// The note memctl keeps when it creates a settings file that did not exist
/// (`<state>/settings-created/<key>`): the file's path, then the topmost
/// directory it created for it (empty when the directory existed). `hook
/// uninstall` that leaves such a file empty removes it (and that directory, if
/// empty) instead of leaving `{}` (SPEC §7.4; issue 32 point 4).
fn created_note(path: &Path) -> Option<PathBuf> {
    let (state, hex) = state_key(path)?;
    Some(state.join("settings-created").join(hex))
}

/// memctl's lock for editing the settings file `path`: a file in memctl's state
/// dir (`${XDG_STATE_HOME:-~/.local/state}/memctl/settings-locks/<hash>.lock`),
/// keyed by the file's real path, so no file appears in the user's repository
/// and two names of one file share a lock (issue 29 point 3).
/// Waits through `watch` (polling, never blocking in the kernel) up to its deadline.
fn settings_lock(path: &Path, watch: &mut crate::store::settle::Watch) -> Result<Option<std::fs::File>, Error> {
    let Some((state, hex)) = state_key(path) else {
        return Ok(None);
    };
    let dir = state.join("settings-locks");
    crate::store::create_dir(&dir)?;
    let lock_path = dir.join(format!("{hex}.lock"));
    let f = crate::store::open_lock(&lock_path, "the settings lock")?;
    loop {
        match f.try_lock() {
            Ok(()) => return Ok(Some(f)),
            Err(std::fs::TryLockError::WouldBlock) if !watch.expired() => watch.pause(),
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(
                    Error::new(Kind::Busy, format!("another memctl is editing {}", path.display()))
                        .hint("try again when it has finished"),
                );
            }
            Err(std::fs::TryLockError::Error(e)) => {
                return Err(Error::new(
                    Kind::Io,
                    format!("cannot lock {}: {e}", lock_path.display()),
                ));
            }
        }
    }
}

/// What a write did (`hook install --json`, `config set --json`).
#[derive(Debug, Serialize)]
pub struct Change {
    pub file: String,
    pub changed: bool,
    /// The backup holding the user's original file (`<file>.memctl-backup`,
    /// written by memctl's first change and never overwritten), when there is one.
    pub backup: Option<String>,
    pub diff: String,
}

/// The backup beside `path` (`settings.json.memctl-backup`).
pub fn backup_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".memctl-backup");
    path.with_file_name(name)
}

impl SettingsFile {
    /// Read `path`; a missing or empty file is an empty object. A file that does not
    /// parse, or whose top level is not an object, is refused. For reading only
    /// (`hook status`); an edit opens with [`SettingsFile::edit`].
    pub fn open(path: &Path) -> Result<SettingsFile, Error> {
        let st = stamp(path);
        let raw = read_raw(path)?;
        Self::parse(path, raw, st)
    }

    /// Open `path` to edit it (`hook install`/`uninstall`, `config set`/`unset`):
    /// - memctl's own edits of one file are serialised by a lock in its state dir;
    /// - with `root` (a local or project settings file), a symlink that leaves the
    ///   project is refused, as for CLAUDE files (issue 29 point 8);
    /// - a file that reads empty or does not parse may be another program's
    ///   rewrite in progress: it is used only once it has stayed unchanged for
    ///   [`crate::store::settle::SETTLE`] (then empty is `{}`, unparsable is
    ///   refused); one that changes is read again, and one that keeps changing
    ///   past the deadline is a `conflict`, never `{}` (issue 29 point 3).
    pub fn edit(path: &Path, root: Option<&Path>) -> Result<SettingsFile, Error> {
        if let Some(root) = root {
            crate::store::outside_real(root, path).map_err(|e| settings_containment(e, path))?;
        }
        let mut watch = crate::store::settle::Watch::new();
        let lock = settings_lock(path, &mut watch)?;
        loop {
            let st = stamp(path);
            let raw = read_raw(path)?;
            if stamp(path) != st {
                watch.pause();
                continue;
            }
            let blank = raw.as_deref().is_some_and(|b| {
                let t = String::from_utf8_lossy(b);
                t.strip_prefix('\u{feff}').unwrap_or(&t).trim().is_empty()
            });
            let parsed = Self::parse(path, raw, st);
            if !blank && parsed.is_ok() {
                let mut f = parsed?;
                f.root = root.map(Path::to_path_buf);
                f._lock = lock;
                return Ok(f);
            }
            // Empty or unparsable: settled already, take it as it is (an empty
            // file is `{}`, a broken one is refused).
            if watch.settled(path) {
                let mut f = parsed?;
                f.root = root.map(Path::to_path_buf);
                f._lock = lock;
                return Ok(f);
            }
            if watch.wait_settled(path).map_err(|_| rewritten(path))? {
                // It stayed as it is for longer than a writer stalls: an empty
                // file is `{}` (Claude Code writes that shape too), a broken one is
                // refused as such.
                let mut f = parsed?;
                f.root = root.map(Path::to_path_buf);
                f._lock = lock;
                return Ok(f);
            }
        }
    }

    fn parse(path: &Path, raw: Option<Vec<u8>>, st: Stamp) -> Result<SettingsFile, Error> {
        let (text, mapped) = match &raw {
            Some(b) => {
                let (t, m) = decode(b);
                (Some(t), m)
            }
            None => (None, false),
        };
        let body = text.as_deref().unwrap_or("");
        let body = body.strip_prefix('\u{feff}').unwrap_or(body);
        let value = if body.trim().is_empty() {
            Map::new()
        } else {
            match serde_json::from_str::<Value>(body) {
                Ok(Value::Object(m)) => m,
                Ok(_) => {
                    return Err(Error::new(
                        Kind::Config,
                        format!("{}: the top level is not a JSON object", path.display()),
                    )
                    .hint("memctl never rewrites a settings file it cannot parse; fix it by hand"));
                }
                Err(e) => {
                    return Err(Error::new(
                        Kind::Config,
                        format!(
                            "{}:{}: not valid JSON (column {}): {}",
                            path.display(),
                            e.line(),
                            e.column(),
                            strip_position(&e.to_string())
                        ),
                    )
                    .hint("memctl never rewrites a settings file it cannot parse; fix it by hand (Claude Code ignores it meanwhile)"));
                }
            }
        };
        Ok(SettingsFile {
            path: path.to_path_buf(),
            text,
            value,
            stamp: st,
            raw,
            mapped,
            root: None,
            _lock: None,
        })
    }

    /// Write `new` in place of the file: the file's text edited in place (only
    /// the members that differ, see [`edited`]), or 2-space pretty JSON for a new
    /// or empty file; nothing when it equals what the file holds. With `dry_run`,
    /// only the diff.
    pub fn write(&self, new: &Map<String, Value>, dry_run: bool) -> Result<Change, Error> {
        let new_text = edited(self.text.as_deref(), &self.value, new);
        let old_text = shown(self.text.as_deref().unwrap_or_default());
        let label = self.path.to_string_lossy().trim_start_matches('/').to_string();
        let same = self.text.is_some() && *new == self.value && same_order(new, &self.value);
        let diff = if same {
            String::new()
        } else {
            crate::diff::unified(&label, &old_text, &shown(&new_text))
        };
        let mut change = Change {
            file: self.path.to_string_lossy().into_owned(),
            changed: !same,
            backup: None,
            diff,
        };
        if same || dry_run {
            return Ok(change);
        }
        // A symlinked settings file (a dotfiles checkout) is written through; a
        // project's file only while it stays inside the project.
        let target = match &self.root {
            Some(root) => {
                crate::store::outside_real(root, &self.path).map_err(|e| settings_containment(e, &self.path))?
            }
            None => match std::fs::symlink_metadata(&self.path) {
                Ok(m) if m.file_type().is_symlink() => std::fs::canonicalize(&self.path)
                    .map_err(|e| Error::new(Kind::Io, format!("cannot resolve {}: {e}", self.path.display())))?,
                _ => self.path.clone(),
            },
        };
        let dir = target.parent().unwrap_or(Path::new("/")).to_path_buf();
        // The topmost directory this write creates (`None`: the dir exists).
        let created_dir = dir
            .ancestors()
            .take_while(|a| std::fs::symlink_metadata(a).is_err())
            .last()
            .map(Path::to_path_buf);
        crate::store::create_dir(&dir)?;
        // The first backup is the user's original and stays (SPEC §7.4): a later
        // install or `config set` never overwrites it. A file memctl created had
        // no original (there was no file).
        let backup = backup_path(&target);
        if std::fs::symlink_metadata(&backup).is_ok() {
            change.backup = Some(backup.to_string_lossy().into_owned());
        } else if let Some(old) = &self.raw
            && self.created_by_memctl().is_none()
        {
            crate::store::write_outside(&backup, old)?;
            change.backup = Some(backup.to_string_lossy().into_owned());
        }
        let bytes = if self.mapped {
            encode(&new_text)
        } else {
            new_text.into_bytes()
        };
        // Right before the rename the file must still hold what was read: stamp
        // and bytes (Claude Code or another memctl may have written it meanwhile).
        let still = || stamp(&target) == self.stamp && read_raw(&target).is_ok_and(|b| b == self.raw);
        let written = crate::store::write_outside_if(&target, &bytes, &still)?;
        if !written {
            return Err(Error::new(
                Kind::Conflict,
                format!("{} changed while memctl was editing it", self.path.display()),
            )
            .hint("run the command again"));
        }
        if let Some(note) = created_note(&self.path) {
            if self.raw.is_none() {
                let dir = created_dir.as_deref().map(|d| d.to_string_lossy().into_owned());
                let body = format!("{}\n{}\n", self.path.display(), dir.unwrap_or_default());
                // Best effort: without the note, uninstall leaves `{}` as before.
                let _ = crate::store::write_outside(&note, body.as_bytes());
            } else if self.value.is_empty() {
                // An empty file memctl did not create in this run: the user's
                // (memctl never leaves `{}` in a file it created).
                let _ = std::fs::remove_file(&note);
            }
        }
        Ok(change)
    }

    /// Whether memctl created this file (it did not exist before memctl's first
    /// write) and it has not been recreated since: the note of [`created_note`]
    /// names it. Returns the topmost directory memctl created for it, if any.
    fn created_by_memctl(&self) -> Option<Option<PathBuf>> {
        let note = created_note(&self.path)?;
        let text = crate::fsread::read_regular(&note, 64 << 10).ok()?;
        let text = String::from_utf8(text).ok()?;
        let mut lines = text.lines();
        if Path::new(lines.next()?) != self.path {
            return None;
        }
        Some(lines.next().filter(|d| !d.is_empty()).map(PathBuf::from))
    }

    /// Remove the file instead of writing `new` when `new` is empty and memctl
    /// created the file (the state before the first install was no file; SPEC
    /// §7.4), with the directory memctl created for it when that is left empty.
    /// `None`: not such a file; write it as usual.
    pub fn remove_if_created(&self, new: &Map<String, Value>, dry_run: bool) -> Result<Option<Change>, Error> {
        if !new.is_empty() || self.raw.is_none() || *new == self.value {
            return Ok(None);
        }
        let Some(created_dir) = self.created_by_memctl() else {
            return Ok(None);
        };
        let label = self.path.to_string_lossy().trim_start_matches('/').to_string();
        let old_text = shown(self.text.as_deref().unwrap_or_default());
        let change = Change {
            file: self.path.to_string_lossy().into_owned(),
            changed: true,
            backup: None,
            diff: crate::diff::unified(&label, &old_text, ""),
        };
        if dry_run {
            return Ok(Some(change));
        }
        if stamp(&self.path) != self.stamp || read_raw(&self.path).is_ok_and(|b| b != self.raw) {
            return Err(Error::new(
                Kind::Conflict,
                format!("{} changed while memctl was editing it", self.path.display()),
            )
            .hint("run the command again"));
        }
        std::fs::remove_file(&self.path)
            .map_err(|e| Error::new(Kind::Io, format!("cannot remove {}: {e}", self.path.display())))?;
        if let Some(note) = created_note(&self.path) {
            let _ = std::fs::remove_file(note);
        }
        if let Some(top) = created_dir {
            // Each directory from the file's up to the one memctl created, while
            // empty (a file someone put there keeps it).
            let parent = self.path.parent().unwrap_or(Path::new("/"));
            for d in parent.ancestors() {
                if !d.starts_with(&top) || std::fs::remove_dir(d).is_err() {
                    break;
                }
            }
        }
        Ok(Some(change))
    }
}

/// The bytes of the regular file `path` (`None` when missing), bounded, never
/// blocking on a FIFO.
fn read_raw(path: &Path) -> Result<Option<Vec<u8>>, Error> {
    use crate::fsread::{self, ReadError};
    match fsread::read_regular(path, fsread::MAX_SETTINGS_BYTES) {
        Ok(b) => Ok(Some(b)),
        Err(ReadError::NotFound) => Ok(None),
        Err(e) => Err(Error::new(
            Kind::Io,
            format!(
                "cannot read {}: {}",
                path.display(),
                crate::error::plain_os_errors(&e.to_string())
            ),
        )
        .hint("memctl edits only a regular settings file it can read")),
    }
}

/// A settings file being rewritten by another program.
fn rewritten(path: &Path) -> Error {
    Error::new(
        Kind::Conflict,
        format!(
            "{} is being rewritten by another program (it read empty or incomplete)",
            path.display()
        ),
    )
    .hint("run the command again once the other program (Claude Code?) has finished writing it")
}

/// The containment refusal for a settings file reached through a symlink.
fn settings_containment(e: Error, _path: &Path) -> Error {
    if e.kind != Kind::Containment {
        return e;
    }
    Error::new(Kind::Containment, e.message)
        .hint("memctl writes a project's settings files only inside the project root; edit the target directly")
}

/// serde_json's message without its ` at line L column C` suffix.
fn strip_position(msg: &str) -> &str {
    msg.rfind(" at line ").map_or(msg, |i| &msg[..i])
}

/// Maps equal in value are also equal in key order (recursively).
fn same_order(a: &Map<String, Value>, b: &Map<String, Value>) -> bool {
    a.keys().eq(b.keys())
        && a.iter().zip(b.iter()).all(|((_, x), (_, y))| match (x, y) {
            (Value::Object(x), Value::Object(y)) => same_order(x, y),
            (Value::Array(x), Value::Array(y)) => x.iter().zip(y).all(|(x, y)| match (x, y) {
                (Value::Object(x), Value::Object(y)) => same_order(x, y),
                _ => true,
            }),
            _ => true,
        })
}

/// The new text of a settings file that held `old_text` (parsed as `old`) and
/// must hold `new`: the old text edited in place, changing only the members that
/// differ (an added member written in the style of its neighbours, a removed one
/// taken out with its comma), so a hand-formatted file keeps its layout and one-line
/// arrays, and an install followed by an uninstall gives back the same bytes
/// (SPEC v3 §7.4; issue 34 point 8). A missing or blank file, or an edit the
/// in-place path cannot make faithfully (checked by parsing the result again),
/// gets the whole file rendered as pretty JSON.
///
/// The in-place edit uses `jsonc-parser`'s concrete syntax tree (dprint's JSON
/// parser: no dependencies with the `cst` feature; it keeps whitespace, comments
/// and number spellings, removes members with their commas and indents new ones
/// like their siblings).
pub fn edited(old_text: Option<&str>, old: &Map<String, Value>, new: &Map<String, Value>) -> String {
    let Some(text) = old_text else {
        return render(new);
    };
    let (bom, body) = match text.strip_prefix('\u{feff}') {
        Some(b) => ("\u{feff}", b),
        None => ("", text),
    };
    if body.trim().is_empty() {
        return render(new);
    }
    // The CST is another program's code: should it panic, the whole file is
    // rendered instead (and the result is checked either way).
    let patched = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| cst::patch(body, old, new)))
        .ok()
        .flatten();
    match patched {
        Some(t) if holds(&t, new) => format!("{bom}{t}"),
        _ => render(new),
    }
}

/// Whether `text` parses to exactly `want` (values and key order).
fn holds(text: &str, want: &Map<String, Value>) -> bool {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(m)) => m == *want && same_order(&m, want),
        _ => false,
    }
}

/// In-place edits of JSON text through `jsonc-parser`'s CST.
mod cst {
    use jsonc_parser::ParseOptions;
    use jsonc_parser::cst::{CstArray, CstInputValue, CstNode, CstObject, CstRootNode};
    use serde_json::{Map, Value};

    /// `text` (which parses to `old`) edited to hold `new`; `None` when it cannot.
    pub(super) fn patch(text: &str, old: &Map<String, Value>, new: &Map<String, Value>) -> Option<String> {
        let root = CstRootNode::parse(text, &ParseOptions::default()).ok()?;
        let obj = root.object_value()?;
        if !object(&obj, old, new) {
            root.set_value(input(&Value::Object(new.clone())));
        }
        Some(root.to_string())
    }

    fn input(v: &Value) -> CstInputValue {
        match v {
            Value::Null => CstInputValue::Null,
            Value::Bool(b) => CstInputValue::Bool(*b),
            Value::Number(n) => CstInputValue::Number(n.to_string()),
            Value::String(s) => CstInputValue::String(s.clone()),
            Value::Array(a) => CstInputValue::Array(a.iter().map(input).collect()),
            Value::Object(o) => CstInputValue::Object(o.iter().map(|(k, v)| (k.clone(), input(v))).collect()),
        }
    }

    /// Edit `obj` (holding `old`) to hold `new`. `false` (before any change)
    /// when the kept members change order or the text has duplicate keys: the
    /// caller then replaces the whole value.
    fn object(obj: &CstObject, old: &Map<String, Value>, new: &Map<String, Value>) -> bool {
        let props = obj.properties();
        if props.len() != old.len() {
            return false;
        }
        let kept_old = old.keys().filter(|k| new.contains_key(*k));
        let kept_new = new.keys().filter(|k| old.contains_key(*k));
        if !kept_old.eq(kept_new) {
            return false;
        }
        for k in old.keys().filter(|k| !new.contains_key(*k)) {
            match obj.get(k) {
                Some(p) => p.remove(),
                None => return false,
            }
        }
        for (i, (k, v)) in new.iter().enumerate() {
            match old.get(k) {
                Some(was) if was == v => {}
                Some(was) => {
                    let Some(prop) = obj.get(k) else { return false };
                    let Some(node) = prop.value() else { return false };
                    if !value(&node, was, v) {
                        prop.set_value(input(v));
                    }
                }
                None => {
                    obj.insert(i, k, input(v));
                }
            }
        }
        true
    }

    /// Edit the container `node` (holding `old`) in place to hold `new`; `false`
    /// when it is not two objects or two arrays (the caller replaces it).
    fn value(node: &CstNode, old: &Value, new: &Value) -> bool {
        match (old, new) {
            (Value::Object(o), Value::Object(n)) => node.as_object().is_some_and(|obj| object(&obj, o, n)),
            (Value::Array(o), Value::Array(n)) => node.as_array().is_some_and(|arr| array(&arr, o, n)),
            _ => false,
        }
    }

    /// Edit `arr` (holding `old`) to hold `new`: elements removed or added when
    /// one is a subsequence of the other, else element by element when the
    /// lengths agree; `false` (before any change) otherwise.
    fn array(arr: &CstArray, old: &[Value], new: &[Value]) -> bool {
        let elems = arr.elements();
        if elems.len() != old.len() {
            return false;
        }
        if old.len() == new.len() {
            for (i, (o, n)) in old.iter().zip(new).enumerate() {
                if o != n && !value(&elems[i], o, n) {
                    let el = arr.elements().into_iter().nth(i);
                    let Some(el) = el else { return false };
                    el.remove();
                    arr.insert(i, input(n));
                }
            }
            return true;
        }
        if let Some(keep) = subsequence(new, old) {
            // Remove the old elements not kept, from the last.
            for (i, el) in elems.into_iter().enumerate().rev() {
                if !keep.contains(&i) {
                    el.remove();
                }
            }
            return true;
        }
        if let Some(kept) = subsequence(old, new) {
            for (i, v) in new.iter().enumerate() {
                if !kept.contains(&i) {
                    arr.insert(i, input(v));
                }
            }
            return true;
        }
        false
    }

    /// The indices of `long` that `short` matches in order (greedy), when
    /// `short` is a subsequence of `long`.
    fn subsequence(short: &[Value], long: &[Value]) -> Option<Vec<usize>> {
        let mut at = 0;
        let mut out = Vec::with_capacity(short.len());
        for s in short {
            let i = at + long[at..].iter().position(|l| l == s)?;
            out.push(i);
            at = i + 1;
        }
        Some(out)
    }
}

/// The file's text: pretty JSON with 2-space indentation and a final newline.
pub fn render(map: &Map<String, Value>) -> String {
    let mut s = serde_json::to_string_pretty(map).unwrap_or_else(|_| "{}".into());
    s.push('\n');
    s
}

/// The project root a scope's settings file must stay inside (`None` for the
/// user's file, which may be a symlink into a dotfiles checkout).
pub fn scope_root(scope: crate::cli::SettingsScope, res: &crate::paths::Resolution) -> Option<PathBuf> {
    match scope {
        crate::cli::SettingsScope::User => None,
        _ => res.project.as_ref().map(|p| PathBuf::from(&p.root)),
    }
}

/// The settings file of a scope.
pub fn scope_file(scope: crate::cli::SettingsScope, res: &crate::paths::Resolution) -> Result<PathBuf, Error> {
    match scope {
        crate::cli::SettingsScope::User => res
            .config_home
            .as_ref()
            .map(|c| std::path::Path::new(c).join("settings.json"))
            .ok_or_else(|| {
                Error::new(Kind::Config, "cannot find the Claude Code config home")
                    .hint("set HOME or CLAUDE_CONFIG_DIR")
            }),
        crate::cli::SettingsScope::Local | crate::cli::SettingsScope::Project => {
            let root = res.project.as_ref().map(|p| PathBuf::from(&p.root)).ok_or_else(|| {
                Error::new(Kind::Usage, "no project to find its settings in")
                    .hint("run it in the project, or pass --project")
            })?;
            let name = if scope == crate::cli::SettingsScope::Local {
                "settings.local.json"
            } else {
                "settings.json"
            };
            Ok(root.join(".claude").join(name))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_what_does_not_parse_naming_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("settings.json");
        std::fs::write(&f, "{\n  \"a\": 1,\n  \"b\": ,\n}\n").unwrap();
        let e = SettingsFile::open(&f).err().unwrap();
        assert_eq!(e.kind, Kind::Config);
        assert!(e.message.starts_with(&format!("{}:3:", f.display())), "{}", e.message);
        std::fs::write(&f, "[1]").unwrap();
        assert!(SettingsFile::open(&f).is_err());
    }

    #[test]
    fn writes_with_a_backup_and_keeps_key_order() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("settings.json");
        std::fs::write(&f, "{\"z\": 1, \"a\": {\"y\": 2, \"b\": 3}}").unwrap();
        let s = SettingsFile::open(&f).unwrap();
        let mut v = s.value.clone();
        v.insert("m".into(), Value::Bool(true));
        let c = s.write(&v, false).unwrap();
        assert!(c.changed);
        let text = std::fs::read_to_string(&f).unwrap();
        // In place: the one-line inner object stays one line; the object that
        // gains a member spans lines, the new member indented by 2.
        assert_eq!(text, "{\n  \"z\": 1,\n  \"a\": {\"y\": 2, \"b\": 3},\n  \"m\": true\n}");
        assert_eq!(
            std::fs::read_to_string(backup_path(&f)).unwrap(),
            "{\"z\": 1, \"a\": {\"y\": 2, \"b\": 3}}"
        );
        // Unchanged: no write, the backup untouched.
        let s = SettingsFile::open(&f).unwrap();
        let c = s.write(&s.value.clone(), false).unwrap();
        assert!(!c.changed && c.diff.is_empty() && c.backup.is_none());
        // A later change keeps the first backup (the user's original).
        let mut v = s.value.clone();
        v.insert("n".into(), Value::Bool(false));
        let c = s.write(&v, false).unwrap();
        assert_eq!(c.backup.as_deref(), Some(&*backup_path(&f).to_string_lossy()));
        assert_eq!(
            std::fs::read_to_string(backup_path(&f)).unwrap(),
            "{\"z\": 1, \"a\": {\"y\": 2, \"b\": 3}}"
        );
    }

    fn map(t: &str) -> Map<String, Value> {
        serde_json::from_str(t).unwrap()
    }

    #[test]
    fn edits_only_the_members_that_change() {
        let old =
            "\u{feff}{\n    \"a\": [1, 2,   3],\n    \"b\": {\"c\": 1.50}, // not JSON but kept\n    \"d\": \"x\"\n}\n";
        let old = old.replace(" // not JSON but kept", "");
        let before = map(old.trim_start_matches('\u{feff}'));
        // An element removed from a one-line array, a value changed in place,
        // a member removed; the number spelling 1.50 and the BOM stay.
        let after = map(r#"{"a": [1, 3], "b": {"c": 1.50}}"#);
        let mut after = after;
        after["b"]["c"] = before["b"]["c"].clone();
        assert_eq!(
            edited(Some(&old), &before, &after),
            "\u{feff}{\n    \"a\": [1,   3],\n    \"b\": {\"c\": 1.50}\n}\n"
        );
        // Keys reordered: the whole value is written anew (no faithful in-place
        // edit), in order, the BOM kept.
        let reordered = map(r#"{"d": "x", "a": [1, 2, 3], "b": {"c": 1.5}}"#);
        let t = edited(Some(&old), &before, &reordered);
        assert!(t.starts_with('\u{feff}') && holds(&t[3..], &reordered), "{t}");
        // Duplicate keys in the text: written anew from the parsed value (the
        // last `a` wins, as when reading).
        let dup = "{\"a\": 1, \"a\": 2}";
        let v = map(dup);
        let mut w = v.clone();
        w.insert("b".into(), Value::Bool(true));
        let t = edited(Some(dup), &v, &w);
        assert!(holds(&t, &w) && !t.contains('1'), "{t}");
        // A missing or blank file: pretty JSON.
        assert_eq!(edited(None, &Map::new(), &w), render(&w));
        assert_eq!(edited(Some(" \n"), &Map::new(), &w), render(&w));
    }
}
