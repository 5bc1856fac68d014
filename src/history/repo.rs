//! The store's repository on disk: its lock, opening it (a broken `HEAD`
//! repaired), creating it, and setting a corrupt one aside (SPEC v3 §8.1).

use std::fs::{self, File};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use crate::error::{Error, Kind};

pub(super) fn store_err(what: &str, p: &Path, e: &std::io::Error) -> Error {
    Error::new(Kind::Io, format!("{what}: {}: {}", p.display(), e))
}

/// `<store>/memctl.lock`: the store dir is made first (empty until a store is
/// moved in), so the lock exists before the store does.
pub(super) fn take_lock(store: &Path, wait_ms: u64) -> Result<File, Error> {
    fs::create_dir_all(store).map_err(|e| store_err("cannot create the history store", store, &e))?;
    let lock_path = store.join("memctl.lock");
    // Never blocks: a FIFO or a symlink put there is refused (issue 29 point 10).
    let f = crate::store::open_lock(&lock_path, "the history lock")?;
    let wait = std::time::Duration::from_millis(wait_ms);
    match crate::store::lock_within(&f, wait, std::time::Duration::from_millis(5)) {
        Ok(true) => Ok(f),
        Ok(false) => Err(Error::new(
            Kind::Busy,
            format!(
                "the history store is locked by another process: {}",
                lock_path.display()
            ),
        )),
        Err(e) => Err(store_err("cannot lock the history store", &lock_path, &e)),
    }
}

/// A ref's `.lock` file left by a process killed while it updated the ref would
/// block every later snapshot. Every memctl writer holds `memctl.lock` first, so
/// with it held any such file is stale.
pub(super) fn clear_stale_ref_locks(store: &Path) {
    for rel in ["refs/heads/main.lock", "HEAD.lock", "packed-refs.lock", "config.lock"] {
        let p = store.join(rel);
        if fs::symlink_metadata(&p).is_ok_and(|m| m.is_file()) {
            let _ = fs::remove_file(&p);
        }
    }
}

/// Why [`open_or_init`] gave no store.
pub(super) enum Unusable {
    /// A store is there but cannot be read or repaired: it is set aside.
    Unreadable(String),
    /// No store could be made.
    Create(String),
}

impl std::fmt::Display for Unusable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unusable::Unreadable(s) | Unusable::Create(s) => f.write_str(s),
        }
    }
}

pub(super) const HEAD_TEXT: &str = "ref: refs/heads/main\n";

/// Whether the store's branch exists (a loose ref, or one packed by `git gc`).
fn has_branch(path: &Path) -> bool {
    fs::symlink_metadata(path.join("refs/heads/main")).is_ok_and(|m| m.is_file())
        || crate::fsread::read_regular(&path.join("packed-refs"), 64 << 20)
            .is_ok_and(|t| t.split(|b| *b == b'\n').any(|l| l.ends_with(b" refs/heads/main")))
}

/// Whether the store holds any object (loose or packed): snapshots may be in it.
fn has_objects(path: &Path) -> bool {
    let objects = path.join("objects");
    let Ok(rd) = fs::read_dir(&objects) else { return false };
    rd.flatten().any(|e| {
        let name = e.file_name();
        let name = name.to_string_lossy();
        match name.as_ref() {
            "info" => false,
            "pack" => fs::read_dir(e.path())
                .into_iter()
                .flatten()
                .flatten()
                .any(|p| p.file_name().to_string_lossy().ends_with(".pack")),
            n if n.len() == 2 => fs::read_dir(e.path()).into_iter().flatten().next().is_some(),
            _ => false,
        }
    })
}

/// Open the store at `path`, repairing what can be repaired (SPEC v3 §8.1): a
/// missing or broken `HEAD` is pointed back at `refs/heads/main` when that branch
/// is there, with a warning. A store with objects but no branch cannot be repaired
/// (`Unreadable`: the caller sets it aside); a store is created only where there
/// are no objects (nothing, or an init killed before its `HEAD` moved in): it is
/// never made over objects (issue 29 point 4).
pub(super) fn open_or_init(
    path: &Path,
    dir: &Path,
    project: Option<&Path>,
    warnings: &mut Vec<String>,
) -> Result<gix::Repository, Unusable> {
    let head = path.join("HEAD");
    let branch = has_branch(path);
    let head_ok = crate::fsread::read_regular(&head, 4096).is_ok_and(|t| t == HEAD_TEXT.as_bytes());
    let head_there = fs::symlink_metadata(&head).is_ok();
    if !head_ok && branch {
        if head_there {
            let _ = fs::remove_file(&head).or_else(|_| fs::remove_dir_all(&head));
        }
        let tmp = path.join(format!("HEAD.memctl-{}", std::process::id()));
        fs::write(&tmp, HEAD_TEXT)
            .and_then(|()| fs::rename(&tmp, &head))
            .map_err(|e| Unusable::Unreadable(format!("its HEAD is missing and cannot be written: {e}")))?;
        warnings.push(format!(
            "the history store {} had {} HEAD; it was pointed back at its branch refs/heads/main",
            path.display(),
            if head_there { "a broken" } else { "no" }
        ));
    } else if !branch && has_objects(path) {
        return Err(Unusable::Unreadable(
            "it has objects but no branch (refs/heads/main)".into(),
        ));
    }
    if fs::symlink_metadata(&head).is_ok() {
        return gix::open(path).map_err(|e| Unusable::Unreadable(e.to_string()));
    }
    init(path, dir, project).map_err(Unusable::Create)
}

/// Create a new store at `path`, which holds no objects.
fn init(path: &Path, dir: &Path, project: Option<&Path>) -> Result<gix::Repository, String> {
    // Build the new store beside its final place and move it in, `HEAD` last:
    // a store without `HEAD` never held a snapshot, whatever killed the process.
    let tmp = path.with_extension(format!("git.new-{}", std::process::id()));
    let _ = fs::remove_dir_all(&tmp);
    gix::init_bare(&tmp).map_err(|e| e.to_string())?;
    let config = tmp.join("config");
    let mut text = crate::fsread::read_small_text(&config).unwrap_or_default();
    text.push_str("[memctl]\n\tformat = 1\n");
    text.push_str(&format!("\tmemoryDir = {}\n", quote_config(&dir.to_string_lossy())));
    if let Some(p) = project {
        text.push_str(&format!("\tprojectRoot = {}\n", quote_config(&p.to_string_lossy())));
    }
    fs::write(&config, text).map_err(|e| e.to_string())?;
    fs::write(tmp.join("HEAD"), HEAD_TEXT).map_err(|e| e.to_string())?;
    // What an init killed half-way left (no objects: checked by the caller).
    for e in fs::read_dir(path).map_err(|e| e.to_string())?.flatten() {
        if e.file_name() != "memctl.lock" {
            let p = e.path();
            let _ = fs::remove_dir_all(&p).or_else(|_| fs::remove_file(&p));
        }
    }
    for e in fs::read_dir(&tmp).map_err(|e| e.to_string())?.flatten() {
        if e.file_name() != "HEAD" {
            fs::rename(e.path(), path.join(e.file_name())).map_err(|e| e.to_string())?;
        }
    }
    fs::rename(tmp.join("HEAD"), path.join("HEAD")).map_err(|e| e.to_string())?;
    let _ = fs::remove_dir(&tmp);
    gix::open(path).map_err(|e| e.to_string())
}

/// A git config value in double quotes, `"` and `\` escaped.
fn quote_config(v: &str) -> String {
    let mut out = String::from("\"");
    for c in v.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Move a store that cannot be read to `<key>.git.corrupt-<stamp>` (all but the
/// lock this process holds, which stays for the new store).
pub(super) fn set_aside(path: &Path, now: DateTime<Utc>) -> Result<PathBuf, Error> {
    let stamp = now.format("%Y%m%dT%H%M%SZ");
    let mut aside = path.with_extension(format!("git.corrupt-{stamp}"));
    let mut n = 1;
    while aside.exists() {
        n += 1;
        aside = path.with_extension(format!("git.corrupt-{stamp}-{n}"));
    }
    let err = |e: std::io::Error| store_err("cannot set the corrupt history store aside", path, &e);
    fs::create_dir(&aside).map_err(err)?;
    for e in fs::read_dir(path).map_err(err)?.flatten() {
        if e.file_name() != "memctl.lock" {
            fs::rename(e.path(), aside.join(e.file_name())).map_err(err)?;
        }
    }
    // A store set aside without a readable `HEAD` gets one, so that it opens as a
    // repository: `restore` reads its snapshots object by object ([`aside`]).
    let head = aside.join("HEAD");
    if !crate::fsread::read_regular(&head, 4096).is_ok_and(|t| t.starts_with(b"ref: ")) {
        let _ = fs::remove_file(&head);
        let _ = fs::write(&head, HEAD_TEXT);
    }
    Ok(aside)
}
