//! SessionStart without a full lint (SPEC v3 §7.3, §7.2: ≤ 30 ms at 200 files,
//! ≤ 100 ms at 20 000): one walk of the memory dir that stats names only, the
//! index's links, and what this project's previous SessionStart saw (a small file
//! in memctl's state dir). Only a file that is new or changed since then is read;
//! each problem is reported once, the session it appears (`memctl lint` lists
//! them all).

use crate::fx::{HashMap, HashSet};
use std::fs;
use std::io::Write as _;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::lint::RuleId;
use crate::paths::Env;
use crate::scan::ScanRules;

/// What a SessionStart saw of one memory file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mark {
    pub size: u64,
    pub mtime_ns: i128,
    pub unreadable: bool,
    pub unindexed: bool,
}

/// What this project's previous SessionStart saw.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Seen {
    pub files: HashMap<String, Mark>,
    /// Index lines past the cut, by text.
    pub dropped: HashSet<String>,
    /// Sync conflict files.
    pub conflicts: HashSet<String>,
}

/// One memory file on disk now.
pub struct Found {
    pub rel: String,
    pub path: PathBuf,
    pub size: u64,
    pub mtime_ns: i128,
}

/// The memory files (SPEC §2.5: `.md` but `MEMORY.md`, not under a path the scan
/// excludes) and the sync conflict files below `main`. Symlinked dirs are not
/// followed (lint follows them); names only, and one `lstat` per memory file.
pub fn walk(main: &Path, rules: &ScanRules) -> (Vec<Found>, Vec<String>) {
    let mut w = Walk::new(rules);
    let mut stack: Vec<(PathBuf, String)> = vec![(main.to_path_buf(), String::new())];
    while let Some((dir, prefix)) = stack.pop() {
        let Ok(rd) = fs::read_dir(&dir) else { continue };
        for e in rd.flatten() {
            let name = e.file_name();
            let Some(name) = name.to_str() else { continue };
            if name.starts_with('.') {
                continue;
            }
            let rel = if prefix.is_empty() {
                name.to_string()
            } else {
                format!("{prefix}/{name}")
            };
            let Ok(ft) = e.file_type() else { continue };
            if ft.is_dir() {
                stack.push((e.path(), rel));
                continue;
            }
            w.visit(&e, &rel, None);
        }
    }
    w.finish()
}

/// The SessionStart walk fed entry by entry by another walk of the same dir (the
/// history snapshot's, [`crate::history::tracked::walk_visiting`]): the same
/// files and conflicts as [`walk`], with the `lstat` that walk took reused.
pub struct Walk<'a> {
    rules: &'a ScanRules,
    files: Vec<Found>,
    conflicts: Vec<String>,
}

impl<'a> Walk<'a> {
    pub fn new(rules: &'a ScanRules) -> Walk<'a> {
        Walk {
            rules,
            files: Vec::new(),
            conflicts: Vec::new(),
        }
    }

    /// An entry of any dir below `main`, at `rel`; only what [`walk`] enters
    /// counts (UTF-8 names, none starting with a dot).
    pub fn visit_raw(&mut self, e: &fs::DirEntry, rel: &[u8], ft: fs::FileType, lstat: Option<&fs::Metadata>) {
        if ft.is_dir() {
            return;
        }
        let Ok(rel) = std::str::from_utf8(rel) else { return };
        if rel.split('/').any(|c| c.starts_with('.')) {
            return;
        }
        self.visit(e, rel, lstat);
    }

    /// A non-dir entry at `rel`, in a dir [`walk`] enters, its name not hidden.
    fn visit(&mut self, e: &fs::DirEntry, rel: &str, lstat: Option<&fs::Metadata>) {
        let (prefix, name) = match rel.rsplit_once('/') {
            Some((p, n)) => (p, n),
            None => ("", rel),
        };
        if crate::scan::conflict::parse_conflict_name(name).is_some() {
            self.conflicts.push(rel.to_string());
            return;
        }
        let md = name.len() >= 3 && name.as_bytes()[name.len() - 3..].eq_ignore_ascii_case(b".md");
        // A top-level name can only be excluded for its dot (skipped above):
        // the rules' Unicode normalisation is paid for nested paths only.
        if !md || name == crate::memdir::INDEX || (!prefix.is_empty() && self.rules.excluded_by(rel).is_some()) {
            return;
        }
        // By the directory's handle (no walk down the path); a symlink is
        // followed to what it names.
        let meta = match lstat {
            Some(m) => Ok(m.clone()),
            None => e.metadata(),
        };
        let meta = match meta {
            Ok(m) if m.file_type().is_symlink() => fs::metadata(e.path()),
            other => other,
        };
        let Ok(meta) = meta else { return };
        if !meta.is_file() {
            return;
        }
        self.files.push(Found {
            rel: rel.to_string(),
            path: e.path(),
            size: meta.len(),
            mtime_ns: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
        });
    }

    /// The memory files and the conflict files, sorted.
    pub fn finish(mut self) -> (Vec<Found>, Vec<String>) {
        self.files.sort_by(|a, b| a.rel.cmp(&b.rel));
        self.conflicts.sort();
        (self.files, self.conflicts)
    }
}

/// Whether the file's frontmatter is unreadable to Claude Code (ML101, ML102,
/// ML104), with the first such finding as `line: message`.
pub fn unreadable(path: &Path) -> Option<(usize, String)> {
    crate::lint::file_findings(path)
        .into_iter()
        .find(|f| matches!(f.id, RuleId::ML101 | RuleId::ML102 | RuleId::ML104))
        .map(|f| (f.line, f.message.to_string()))
}

/// Where this project's SessionStart record lives:
/// `${XDG_STATE_HOME:-~/.local/state}/memctl/session-start/<store key of the dir>`.
pub fn state_path(env: &Env, main: &Path) -> Option<PathBuf> {
    let nonempty = |k: &str| env.get_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    let state = nonempty("XDG_STATE_HOME").or_else(|| env.home().map(|h| PathBuf::from(h).join(".local/state")))?;
    let real = fs::canonicalize(main).unwrap_or_else(|_| main.to_path_buf());
    Some(state.join("memctl/session-start").join(crate::history::key(&real)))
}

/// A field of the record: tab, newline and backslash escaped.
fn esc(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('\t', "\\t")
        .replace('\n', "\\n")
        .replace('\r', "\\r")
}

fn unesc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some(o) => out.push(o),
            None => {}
        }
    }
    out
}

/// The record as text: `f\tsize\tmtime\tflags\trel`, `d\ttext`, `c\trel` lines.
pub fn render(seen: &Seen) -> String {
    let mut files: Vec<(&String, &Mark)> = seen.files.iter().collect();
    files.sort_by(|a, b| a.0.cmp(b.0));
    let mut out = String::from("memctl session-start 1\n");
    for (rel, m) in files {
        let flags = format!(
            "{}{}",
            if m.unreadable { "r" } else { "" },
            if m.unindexed { "u" } else { "" }
        );
        out.push_str(&format!("f\t{}\t{}\t{flags}\t{}\n", m.size, m.mtime_ns, esc(rel)));
    }
    let mut dropped: Vec<&String> = seen.dropped.iter().collect();
    dropped.sort();
    for d in dropped {
        out.push_str(&format!("d\t{}\n", esc(d)));
    }
    let mut conflicts: Vec<&String> = seen.conflicts.iter().collect();
    conflicts.sort();
    for c in conflicts {
        out.push_str(&format!("c\t{}\n", esc(c)));
    }
    out
}

/// Parse a record; anything it cannot read counts as not seen.
pub fn parse(text: &str) -> Seen {
    let mut seen = Seen::default();
    let mut lines = text.lines();
    if lines.next() != Some("memctl session-start 1") {
        return seen;
    }
    for l in lines {
        let mut f = l.split('\t');
        match (f.next(), f.next()) {
            (Some("f"), Some(size)) => {
                let (Some(mtime), Some(flags), Some(rel)) = (f.next(), f.next(), f.next()) else {
                    continue;
                };
                let (Ok(size), Ok(mtime_ns)) = (size.parse(), mtime.parse()) else {
                    continue;
                };
                seen.files.insert(
                    unesc(rel),
                    Mark {
                        size,
                        mtime_ns,
                        unreadable: flags.contains('r'),
                        unindexed: flags.contains('u'),
                    },
                );
            }
            (Some("d"), Some(t)) => {
                seen.dropped.insert(unesc(t));
            }
            (Some("c"), Some(t)) => {
                seen.conflicts.insert(unesc(t));
            }
            _ => {}
        }
    }
    seen
}

/// The previous record (empty when there is none or it cannot be read; bounded).
pub fn load(path: &Path) -> Seen {
    match crate::fsread::read_regular(path, 64 << 20) {
        Ok(b) => parse(&String::from_utf8_lossy(&b)),
        Err(_) => Seen::default(),
    }
}

/// Write the record atomically; failures are ignored (the next session then
/// repeats what it reports, nothing worse).
pub fn save(path: &Path, seen: &Seen) {
    let Some(dir) = path.parent() else { return };
    if fs::create_dir_all(dir).is_err() {
        return;
    }
    let mut name = path.file_name().map(|n| n.as_bytes().to_vec()).unwrap_or_default();
    name.extend_from_slice(format!(".tmp{}", std::process::id()).as_bytes());
    let tmp = dir.join(std::ffi::OsStr::from_bytes(&name));
    let ok = fs::File::create(&tmp).and_then(|mut f| f.write_all(render(seen).as_bytes()));
    if ok.is_err() || fs::rename(&tmp, path).is_err() {
        let _ = fs::remove_file(&tmp);
    }
}

/// The index a memory file belongs to, relative to the main dir (`MEMORY.md`,
/// `team/MEMORY.md`, `team/<mount>/MEMORY.md`), and the file's path relative to
/// that index's dir.
pub fn index_of<'a>(rel: &'a str, team_store: bool, mounts: &[String]) -> (String, &'a str) {
    if team_store && let Some(inner) = rel.strip_prefix("team/") {
        if let Some((mount, rest)) = inner.split_once('/')
            && mounts.iter().any(|m| m == mount)
        {
            return (format!("team/{mount}/MEMORY.md"), rest);
        }
        return ("team/MEMORY.md".to_string(), inner);
    }
    ("MEMORY.md".to_string(), rel)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_record_round_trips_odd_names() {
        let mut seen = Seen::default();
        seen.files.insert(
            "a\tb\\c\nd.md".into(),
            Mark {
                size: 3,
                mtime_ns: -5,
                unreadable: true,
                unindexed: false,
            },
        );
        seen.files.insert(
            "x.md".into(),
            Mark {
                size: 0,
                mtime_ns: 1_773_144_000_000_000_000,
                unreadable: false,
                unindexed: true,
            },
        );
        seen.dropped.insert("- [E](e.md) — line\twith tab".into());
        seen.conflicts.insert("a.md.conflict-laptop-20261201".into());
        assert_eq!(parse(&render(&seen)), seen);
        assert_eq!(parse("garbage\nf\t1\t2\tr\tx.md\n"), Seen::default());
    }

    /// The SessionStart check fed by the snapshot's walk sees exactly what its own
    /// walk sees (SPEC v3 §7.2: one walk for both): hidden names and dirs, the
    /// trash and the store's namespace, excluded dirs, `.MD`, the index, conflict
    /// files, symlinks to files, dirs and nothing, non-UTF-8 names, non-`.md` files.
    #[test]
    fn the_snapshot_walk_feeds_the_same_files_as_the_own_walk() {
        use std::os::unix::fs::symlink;
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        for dir in [
            "sub/deep",
            ".hidden",
            ".trash/x",
            ".memctl",
            "logs",
            "team/acme",
            "team/other",
            "linkdir",
        ] {
            fs::create_dir_all(d.join(dir)).unwrap();
        }
        for f in [
            "MEMORY.md",
            "a.md",
            "B.MD",
            "notes.txt",
            ".dot.md",
            "sub/c.md",
            "sub/MEMORY.md",
            "sub/deep/d.md",
            "sub/.e.md",
            ".hidden/h.md",
            ".trash/x/t.md",
            ".trash/t.md",
            ".memctl/m.md",
            "logs/l.md",
            "team/t.md",
            "team/acme/a.md",
            "team/other/o.md",
            "linkdir/in.md",
            "a.md.conflict-laptop-20261201",
            "sub/c.md.conflict-desk-20261202",
        ] {
            fs::write(d.join(f), f).unwrap();
        }
        fs::write(d.join(std::ffi::OsStr::from_bytes(b"bad\xff.md")), "x").unwrap();
        fs::create_dir_all(d.join(std::ffi::OsStr::from_bytes(b"bad\xffdir"))).unwrap();
        fs::write(d.join(std::ffi::OsStr::from_bytes(b"bad\xffdir/in.md")), "x").unwrap();
        symlink("a.md", d.join("to_a.md")).unwrap();
        symlink("sub", d.join("to_dir.md")).unwrap();
        symlink("nowhere.md", d.join("dangling.md")).unwrap();
        symlink("linkdir", d.join("linked")).unwrap();
        std::os::unix::net::UnixListener::bind(d.join("sock.md")).unwrap();
        let rules = ScanRules::from_stores_var(None);
        let show = |(files, conflicts): (Vec<Found>, Vec<String>)| {
            let files: Vec<(String, PathBuf, u64, i128)> =
                files.into_iter().map(|f| (f.rel, f.path, f.size, f.mtime_ns)).collect();
            (files, conflicts)
        };
        let own = show(walk(d, &rules));
        let mut fed = Walk::new(&rules);
        let mut skipped = Vec::new();
        crate::history::tracked::walk_visiting(d, &mut skipped, &mut |e, rel, ft, md| fed.visit_raw(e, rel, ft, md));
        assert_eq!(show(fed.finish()), own);
        let rels: Vec<&str> = own.0.iter().map(|f| f.0.as_str()).collect();
        assert_eq!(
            rels,
            [
                "B.MD",
                "a.md",
                "linkdir/in.md",
                "sub/c.md",
                "sub/deep/d.md",
                "team/t.md",
                "to_a.md"
            ]
        );
        assert_eq!(
            own.1,
            ["a.md.conflict-laptop-20261201", "sub/c.md.conflict-desk-20261202"]
        );
    }

    #[test]
    fn team_files_belong_to_their_index_only_with_a_team_store() {
        let m = ["acme".to_string()];
        assert_eq!(index_of("team/t.md", false, &m), ("MEMORY.md".into(), "team/t.md"));
        assert_eq!(index_of("team/t.md", true, &m), ("team/MEMORY.md".into(), "t.md"));
        assert_eq!(
            index_of("team/acme/x.md", true, &m),
            ("team/acme/MEMORY.md".into(), "x.md")
        );
        assert_eq!(index_of("a.md", true, &m), ("MEMORY.md".into(), "a.md"));
    }
}
