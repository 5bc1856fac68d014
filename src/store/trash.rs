//! The trash: `<dir>.trash/<UTC stamp>[-n]/`, and moving entries into it (SPEC §4.5).

use std::fs;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use super::atomic::sync_dir;
use super::{create_dir, io_err, real};
use crate::error::{Error, Kind};

/// A fresh `<dir>.trash/<UTC stamp>[-n]/` directory. A `.trash` that resolves
/// outside the dir (a symlink a repository shipped) is refused before anything is
/// created through it (SPEC §4.4).
pub fn trash_dir(dir: &Path, now: DateTime<Utc>) -> Result<PathBuf, Error> {
    use std::os::unix::fs::DirBuilderExt;
    let base = dir.join(".trash");
    ensure_trash_contained(dir, &base)?;
    create_dir(&base)?;
    ensure_trash_contained(dir, &base)?;
    let stamp = now.format("%Y%m%dT%H%M%SZ").to_string();
    let mut n = 1;
    loop {
        let name = if n == 1 { stamp.clone() } else { format!("{stamp}-{n}") };
        let candidate = base.join(&name);
        match fs::DirBuilder::new().mode(0o700).create(&candidate) {
            Ok(()) => return Ok(candidate),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => n += 1,
            Err(e) => return Err(io_err("cannot create", &candidate, e)),
        }
    }
}

/// Require `base` (the trash, if it exists) to resolve inside the real `dir`.
fn ensure_trash_contained(dir: &Path, base: &Path) -> Result<(), Error> {
    if fs::symlink_metadata(base).is_err() {
        return Ok(());
    }
    if real(base)?.starts_with(real(dir)?) {
        return Ok(());
    }
    Err(Error::new(
        Kind::Containment,
        format!("the trash resolves outside the memory dir: {}", base.display()),
    )
    .hint("memctl does not write through symlinks that leave the memory dir; replace .trash with a directory"))
}

/// Move `path` (an entry of `root`, handled with lstat semantics) to `dest`.
pub fn move_entry(root: &Path, path: &Path, dest: &Path) -> Result<(), Error> {
    let root_real = real(root)?;
    if let Some(parent) = path.parent()
        && !real(parent)?.starts_with(&root_real)
    {
        return Err(Error::new(
            Kind::Containment,
            format!("entry resolves outside the memory dir: {}", path.display()),
        )
        .hint("move it by hand"));
    }
    if let Some(p) = dest.parent() {
        create_dir(p)?;
        if !real(p)?.starts_with(&root_real) {
            return Err(Error::new(
                Kind::Containment,
                format!("the trash resolves outside the memory dir: {}", p.display()),
            )
            .hint("move it by hand"));
        }
    }
    fs::rename(path, dest).map_err(|e| io_err("cannot move", path, e))?;
    if let Some(p) = path.parent() {
        let _ = sync_dir(p);
    }
    Ok(())
}
