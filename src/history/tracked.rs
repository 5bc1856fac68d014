//! What a snapshot tracks (SPEC §8.1): every regular file and symlink below the
//! memory dir whose name ends in `.md`, not followed through symlinked dirs, not
//! under `.trash/` or `.memctl/`, plus the `.consolidate-lock` state.

use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// One tracked file as it is on disk now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OnDisk {
    /// The path below the memory dir, `/`-separated, as raw bytes.
    pub rel: Vec<u8>,
    pub link: bool,
    pub size: u64,
    pub mtime_ns: i128,
    /// The inode's change time: every write and every `utime` moves it, so a
    /// same-size rewrite that puts the old mtime back is still seen.
    pub ctime_ns: i128,
    pub ino: u64,
}

/// The `.consolidate-lock` file: its mtime in ns and its body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockState {
    pub mtime_ns: i128,
    pub body: Vec<u8>,
}

/// The tracked files below `root`, sorted by path bytes; `skipped` gets the memory
/// files under a `.memctl/` dir (not tracked: the store's namespace).
pub fn walk(root: &Path, skipped: &mut Vec<String>) -> Vec<OnDisk> {
    walk_visiting(root, skipped, &mut |_, _, _, _| {})
}

/// A caller's look at each entry the walk reads (another check that walks the
/// same dir, the SessionStart hook's): the entry, its path below `root` (raw
/// bytes, `/`-separated), its type and its `lstat` when the walk took one. Every
/// entry of every dir the walk enters is shown once, so that one walk and one
/// `stat` per file serve both.
pub type Visit<'a> = dyn FnMut(&fs::DirEntry, &[u8], fs::FileType, Option<&fs::Metadata>) + 'a;

/// [`walk`], showing each entry to `visit` too.
pub fn walk_visiting(root: &Path, skipped: &mut Vec<String>, visit: &mut Visit) -> Vec<OnDisk> {
    let mut out = Vec::new();
    let mut stack: Vec<(std::path::PathBuf, Vec<u8>)> = vec![(root.to_path_buf(), Vec::new())];
    while let Some((dir, prefix)) = stack.pop() {
        let Ok(rd) = fs::read_dir(&dir) else { continue };
        for e in rd.flatten() {
            let name = e.file_name();
            let name = name.as_bytes();
            let Ok(ft) = e.file_type() else { continue };
            // Sized once: a path is the one allocation a walked file needs.
            let mut rel = Vec::with_capacity(prefix.len() + 1 + name.len());
            rel.extend_from_slice(&prefix);
            if !rel.is_empty() {
                rel.push(b'/');
            }
            rel.extend_from_slice(name);
            if ft.is_dir() {
                visit(&e, &rel, ft, None);
                if name == b".trash" {
                    continue;
                }
                if name == b".memctl" {
                    note_skipped(&e.path(), skipped);
                    continue;
                }
                stack.push((e.path(), rel));
                continue;
            }
            if !name.ends_with(b".md") || !(ft.is_file() || ft.is_symlink()) {
                visit(&e, &rel, ft, None);
                continue;
            }
            // `lstat` by the directory's handle: one name looked up, not the path.
            let Ok(md) = e.metadata() else {
                visit(&e, &rel, ft, None);
                continue;
            };
            visit(&e, &rel, ft, Some(&md));
            out.push(OnDisk {
                rel,
                link: ft.is_symlink(),
                size: md.len(),
                mtime_ns: mtime_ns(&md),
                ctime_ns: i128::from(md.ctime()) * 1_000_000_000 + i128::from(md.ctime_nsec()),
                ino: md.ino(),
            });
        }
    }
    // Paths are unique: the unstable sort gives the one order, for less.
    out.sort_unstable_by(|a, b| a.rel.cmp(&b.rel));
    out
}

fn note_skipped(dir: &Path, skipped: &mut Vec<String>) {
    let mut n = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).into_iter().flatten().flatten() {
            match e.file_type() {
                Ok(t) if t.is_dir() => stack.push(e.path()),
                _ if e.file_name().as_bytes().ends_with(b".md") => n += 1,
                _ => {}
            }
        }
    }
    if n > 0 {
        skipped.push(format!(
            "{n} memory file(s) under {} are not tracked: .memctl/ is the history's own namespace",
            dir.display()
        ));
    }
}

pub fn mtime_ns(md: &fs::Metadata) -> i128 {
    i128::from(md.mtime()) * 1_000_000_000 + i128::from(md.mtime_nsec())
}

/// The lock's state, `None` when there is no lock file. The body is read bounded
/// and only from a regular file (never blocks on a FIFO).
pub fn lock_state(main: &Path) -> Option<LockState> {
    let p = main.join(".consolidate-lock");
    let md = fs::symlink_metadata(&p).ok()?;
    let body = if md.is_file() {
        crate::fsread::read_regular(&p, 4096).unwrap_or_default()
    } else {
        Vec::new()
    };
    Some(LockState {
        mtime_ns: mtime_ns(&md),
        body,
    })
}

/// The bytes of a tracked file: the file's content, or a symlink's target.
pub fn read(root: &Path, f: &OnDisk) -> std::io::Result<Vec<u8>> {
    let p = root.join(std::ffi::OsStr::from_bytes(&f.rel));
    if f.link {
        return Ok(fs::read_link(&p)?.as_os_str().as_bytes().to_vec());
    }
    crate::fsread::read_regular(&p, 1 << 40).map_err(|e| std::io::Error::other(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tracks_md_files_and_links_but_not_trash_or_the_namespace() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        fs::write(d.join("MEMORY.md"), "x").unwrap();
        fs::write(d.join("a.md"), "a").unwrap();
        fs::write(d.join("notes.txt"), "n").unwrap();
        fs::create_dir_all(d.join("team")).unwrap();
        fs::write(d.join("team/b.md"), "b").unwrap();
        fs::create_dir_all(d.join(".trash/x")).unwrap();
        fs::write(d.join(".trash/x/a.md.deleted"), "a").unwrap();
        fs::write(d.join(".trash/c.md"), "c").unwrap();
        fs::create_dir_all(d.join(".memctl")).unwrap();
        fs::write(d.join(".memctl/m.md"), "m").unwrap();
        std::os::unix::fs::symlink("a.md", d.join("l.md")).unwrap();
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("o.md"), "o").unwrap();
        std::os::unix::fs::symlink(outside.path(), d.join("linked")).unwrap();
        let mut skipped = Vec::new();
        let got: Vec<String> = walk(d, &mut skipped)
            .iter()
            .map(|f| String::from_utf8_lossy(&f.rel).into_owned())
            .collect();
        assert_eq!(got, ["MEMORY.md", "a.md", "l.md", "team/b.md"]);
        assert_eq!(skipped.len(), 1, "{skipped:?}");
    }
}
