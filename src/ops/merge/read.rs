//! The read half of a merge: FROM walked, each memory read and given its name
//! in INTO (its own, the one holding the same bytes, or a free `-2`, `-3`, …),
//! both indexes read.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

use super::{Action, Left, MAX_FILE_BYTES, Move, Plan};
use crate::error::Error;
use crate::fsread;
use crate::memdir::{INDEX, MemoryDir};
use crate::store;

/// Read both dirs and decide the merge. Writes nothing.
pub fn plan(from: &MemoryDir, into: &MemoryDir) -> Result<Plan, Error> {
    let src_index_path = from.main().join(INDEX);
    let dst_index_path = into.main().join(INDEX);
    for (root, idx) in [(from.main(), &src_index_path), (into.main(), &dst_index_path)] {
        if root.is_dir() {
            store::ensure_contained(root, idx)?;
        }
    }
    let (candidates, mut left) = walk(from.main());
    let moves = decide_moves(from.main(), into.main(), candidates, &mut left)?;
    left.sort_by(|a, b| a.file.cmp(&b.file));
    let source_index = match fs::symlink_metadata(&src_index_path) {
        Ok(_) => Some(read_text(&src_index_path)?),
        Err(_) => None,
    };
    let target_index = match fs::symlink_metadata(&dst_index_path) {
        Ok(_) => read_text(&dst_index_path)?,
        Err(_) => String::new(),
    };
    Ok(Plan::new(
        from.clone(),
        into.clone(),
        moves,
        left,
        source_index,
        target_index,
    ))
}

/// Read each candidate of FROM and decide where it goes in INTO; one that cannot
/// be read, is too large or finds no free name stays (added to `left`).
fn decide_moves(from: &Path, into: &Path, candidates: Vec<String>, left: &mut Vec<Left>) -> Result<Vec<Move>, Error> {
    let mut moves = Vec::new();
    let mut taken: HashSet<String> = HashSet::new();
    for rel in candidates {
        let path = from.join(&rel);
        let Ok(meta) = fs::symlink_metadata(&path) else {
            continue;
        };
        let bytes = match fsread::read_regular(&path, MAX_FILE_BYTES) {
            Ok(b) => b,
            Err(e) => {
                let reason = match e {
                    fsread::ReadError::TooLarge(_) => "larger than 64 MiB",
                    _ => "cannot be read",
                };
                left.push(Left { file: rel, reason });
                continue;
            }
        };
        let Some((to, action)) = destination(into, &rel, &bytes, &taken)? else {
            left.push(Left {
                file: rel,
                reason: "no free name in INTO",
            });
            continue;
        };
        taken.insert(to.clone());
        moves.push(Move {
            file: rel,
            to,
            action,
            bytes: std::sync::Arc::new(bytes),
            mtime_ns: mtime_ns(&meta),
        });
    }
    Ok(moves)
}

pub(super) fn read_text(path: &Path) -> Result<String, Error> {
    let bytes = store::read_for_update(path)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

fn mtime_ns(meta: &fs::Metadata) -> i128 {
    match meta.modified() {
        Ok(t) => match t.duration_since(std::time::UNIX_EPOCH) {
            Ok(d) => d.as_nanos() as i128,
            Err(e) => -(e.duration().as_nanos() as i128),
        },
        Err(_) => 0,
    }
}

/// The memory files of `main` (relative, sorted) and the entries that stay. Never
/// follows a symlink: a symlinked file or directory stays where it is.
fn walk(main: &Path) -> (Vec<String>, Vec<Left>) {
    let mut files = Vec::new();
    let mut left = Vec::new();
    let mut stack: Vec<(PathBuf, String)> = vec![(main.to_path_buf(), String::new())];
    while let Some((dir, prefix)) = stack.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            left.push(Left {
                file: prefix.clone(),
                reason: "directory cannot be listed",
            });
            continue;
        };
        let mut names: Vec<_> = entries.filter_map(Result::ok).collect();
        names.sort_by_key(|e| e.file_name());
        for e in names {
            let name = e.file_name();
            let Some(name) = name.to_str() else {
                left.push(Left {
                    file: format!("{prefix}{}", name.to_string_lossy()),
                    reason: "name is not valid UTF-8",
                });
                continue;
            };
            let rel = format!("{prefix}{name}");
            let Ok(ft) = e.file_type() else { continue };
            let top = prefix.is_empty();
            if ft.is_symlink() {
                left.push(Left {
                    file: rel,
                    reason: "symlink (not followed)",
                });
            } else if ft.is_dir() {
                match (top, name) {
                    (true, "team") => left.push(Left {
                        file: format!("{rel}/"),
                        reason: "team memory stays",
                    }),
                    (true, "logs") => left.push(Left {
                        file: format!("{rel}/"),
                        reason: "logs stay",
                    }),
                    (true, crate::scan::TRASH) => left.push(Left {
                        file: format!("{rel}/"),
                        reason: "forgotten memories stay",
                    }),
                    (_, ".memctl") => left.push(Left {
                        file: format!("{rel}/"),
                        reason: "not a memory",
                    }),
                    _ => stack.push((e.path(), format!("{rel}/"))),
                }
            } else if !ft.is_file() {
                left.push(Left {
                    file: rel,
                    reason: "not a regular file",
                });
            } else if top && (name == INDEX || name == store::WRITE_LOCK) {
                // FROM's index (its lines are planned apart) and memctl's lock.
            } else if !name.ends_with(".md") || name == INDEX {
                left.push(Left {
                    file: rel,
                    reason: "not a memory",
                });
            } else if crate::memory::ensure_valid_name(&rel, true).is_err() {
                left.push(Left {
                    file: rel,
                    reason: "invalid memory file name",
                });
            } else {
                files.push(rel);
            }
        }
    }
    files.sort();
    (files, left)
}

/// Where `rel` goes in INTO: its own name when free; the name holding the same
/// bytes; else the first free `-2`, `-3`, … before `.md`. `None` when no name up
/// to `-999` is free.
fn destination(
    into: &Path,
    rel: &str,
    bytes: &[u8],
    taken: &HashSet<String>,
) -> Result<Option<(String, Action)>, Error> {
    let stem = &rel[..rel.len() - 3];
    for n in 1..1000 {
        let name = if n == 1 {
            rel.to_string()
        } else {
            format!("{stem}-{n}.md")
        };
        if taken.contains(&name) || crate::memory::ensure_valid_name(&name, true).is_err() {
            continue;
        }
        let target = into.join(&name);
        if into.is_dir() {
            store::ensure_ancestor_contained(into, &target)?;
        }
        match fs::symlink_metadata(&target) {
            Err(_) => {
                let action = if n == 1 { Action::Moved } else { Action::Renamed };
                return Ok(Some((name, action)));
            }
            Ok(m) if m.is_file() => {
                if fsread::read_regular(&target, MAX_FILE_BYTES).is_ok_and(|b| b == bytes) {
                    return Ok(Some((name, Action::MergedIdentical)));
                }
            }
            Ok(_) => {}
        }
    }
    Ok(None)
}
