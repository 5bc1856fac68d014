//! SessionStart without a full lint (SPEC v3 §7.3, §7.2: ≤ 30 ms at 200 files,
//! ≤ 100 ms at 20 000): one walk of the memory dir that stats names only, the
//! index's links, and what this project's previous SessionStart saw (a small file
//! in memctl's state dir). Only a file that is new or changed since then is read;
//! each problem is reported once, the session it appears (`memctl lint` lists
//! them all).

use crate::fx::HashSet;
use std::fs;
use std::io::Write as _;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::fsread::Lstat;
use crate::history::tracked::{Entered, Kind};
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
    /// The memory files, sorted by path (the walk's order: one merge, no map).
    pub files: Vec<(String, Mark)>,
    /// Index lines past the cut, as [`dropped_key`]s of their index and text:
    /// only compared, never shown again (the text of 20 000 cut lines made the
    /// record 5 MB at 20 000 files).
    pub dropped: HashSet<u64>,
    /// Each index read and how it looked ([`stamp`]; `None`: absent). When no
    /// index changed, its links and cut are those of the previous session.
    pub indexes: Vec<(String, Option<Stamp>)>,
    /// Sync conflict files.
    pub conflicts: HashSet<String>,
    /// When the record was written (ns; 0 when unknown): an index whose ctime is
    /// not older may have changed within the same clock tick (git's racy rule).
    pub written_ns: i128,
}

/// How an index looked: its size, times and inode (it changed when any differs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stamp {
    pub size: u64,
    pub mtime_ns: i128,
    pub ctime_ns: i128,
    pub ino: u64,
}

/// The [`Stamp`] of the index at `path` (symlinks followed, as it is read);
/// `None` when it is no regular file.
pub fn stamp(path: &Path) -> Option<Stamp> {
    let m = fs::metadata(path).ok().filter(fs::Metadata::is_file)?;
    Some(Stamp {
        size: m.len(),
        mtime_ns: i128::from(m.mtime()) * 1_000_000_000 + i128::from(m.mtime_nsec()),
        ctime_ns: i128::from(m.ctime()) * 1_000_000_000 + i128::from(m.ctime_nsec()),
        ino: m.ino(),
    })
}

impl Seen {
    /// Whether every index of `now` (label and stamp) is as this record saw it,
    /// none of them changed in the tick the record was written.
    pub fn same_indexes(&self, now: &[(String, Option<Stamp>)]) -> bool {
        self.indexes.len() == now.len()
            && self
                .indexes
                .iter()
                .zip(now)
                .all(|(a, b)| a == b && a.1.is_none_or(|s| s.ctime_ns < self.written_ns))
    }
}

/// The record's key of an index line past the cut: a 64-bit hash (FNV-1a, mixed)
/// of the index's label and the line's text; stable across versions.
pub fn dropped_key(label: &str, text: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in label.bytes().chain([0u8]).chain(text.bytes()) {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
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
            w.visit(&Entered::of_std(&dir, &e, name.as_bytes()), &rel, None);
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
    pub fn visit_raw(&mut self, e: &Entered, rel: &[u8], ft: Kind, lstat: Option<&Lstat>) {
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
    fn visit(&mut self, e: &Entered, rel: &str, lstat: Option<&Lstat>) {
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
            Some(m) => Some(*m),
            None => e.lstat(),
        };
        let meta = match meta {
            Some(m) if m.is_symlink() => fs::metadata(e.path()).ok().map(|m| Lstat::of(&m)),
            other => other,
        };
        let Some(meta) = meta else { return };
        if !meta.is_file() {
            return;
        }
        self.files.push(Found {
            rel: rel.to_string(),
            path: e.path(),
            size: meta.size,
            mtime_ns: meta.mtime_ns,
        });
    }

    /// The memory files and the conflict files, sorted.
    pub fn finish(mut self) -> (Vec<Found>, Vec<String>) {
        self.files.sort_unstable_by(|a, b| a.rel.cmp(&b.rel));
        self.conflicts.sort_unstable();
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
    if !s.as_bytes().contains(&b'\\') {
        return s.to_string();
    }
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

/// The record as text: `i\tsize\tmtime\tctime\tino\tlabel` (or `i\t-\tlabel`),
/// `f\tsize\tmtime\tflags\trel`, `d\tkey` (16 hex digits), `c\trel` lines.
pub fn render(seen: &Seen) -> String {
    use std::fmt::Write as _;
    let mut out = String::with_capacity(64 + seen.files.len() * 64 + seen.dropped.len() * 19);
    out.push_str("memctl session-start 2\n");
    for (label, st) in &seen.indexes {
        match st {
            Some(s) => {
                let _ = writeln!(
                    out,
                    "i\t{}\t{}\t{}\t{}\t{}",
                    s.size,
                    s.mtime_ns,
                    s.ctime_ns,
                    s.ino,
                    esc(label)
                );
            }
            None => {
                let _ = writeln!(out, "i\t-\t{}", esc(label));
            }
        }
    }
    let mut files: Vec<&(String, Mark)> = seen.files.iter().collect();
    files.sort_by(|a, b| a.0.cmp(&b.0));
    for (rel, m) in files {
        let flags = match (m.unreadable, m.unindexed) {
            (true, true) => "ru",
            (true, false) => "r",
            (false, true) => "u",
            (false, false) => "",
        };
        let _ = writeln!(out, "f\t{}\t{}\t{flags}\t{}", m.size, m.mtime_ns, esc(rel));
    }
    let mut dropped: Vec<u64> = seen.dropped.iter().copied().collect();
    dropped.sort_unstable();
    for d in dropped {
        let _ = writeln!(out, "d\t{d:016x}");
    }
    let mut conflicts: Vec<&String> = seen.conflicts.iter().collect();
    conflicts.sort();
    for c in conflicts {
        let _ = writeln!(out, "c\t{}", esc(c));
    }
    out
}

/// The tab-separated fields of a record line, as `str::split('\t')` yields them,
/// found by a byte scan (a record has 40 000 lines at 20 000 files; issue 31).
struct Tabs<'a>(Option<&'a str>);

impl<'a> Iterator for Tabs<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let s = self.0?;
        match memchr::memchr(b'\t', s.as_bytes()) {
            Some(i) => {
                self.0 = Some(&s[i + 1..]);
                Some(&s[..i])
            }
            None => {
                self.0 = None;
                Some(s)
            }
        }
    }
}

/// The lines of a record, as `str::lines` yields them (a `\r` before the `\n`
/// dropped), found by a SIMD scan.
struct Lines<'a>(&'a str);

impl<'a> Iterator for Lines<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        if self.0.is_empty() {
            return None;
        }
        let s = self.0;
        match memchr::memchr(b'\n', s.as_bytes()) {
            Some(i) => {
                self.0 = &s[i + 1..];
                Some(s[..i].strip_suffix('\r').unwrap_or(&s[..i]))
            }
            None => {
                self.0 = "";
                Some(s)
            }
        }
    }
}

/// A time in ns as the record writes it: nearly always within `i64` (parsed
/// first, the cheaper parse), else as `i128`.
fn ns(s: &str) -> Option<i128> {
    s.parse::<i64>().map(i128::from).or_else(|_| s.parse::<i128>()).ok()
}

/// Parse a record (this version's, or version 1's, whose cut lines were kept as
/// `label\0text`); anything it cannot read counts as not seen.
pub fn parse(text: &str) -> Seen {
    let mut seen = Seen::default();
    let mut lines = Lines(text);
    let v1 = match lines.next() {
        Some("memctl session-start 2") => false,
        Some("memctl session-start 1") => true,
        _ => return seen,
    };
    for l in lines {
        let mut f = Tabs(Some(l));
        match (f.next(), f.next()) {
            (Some("f"), Some(size)) => {
                let (Some(mtime), Some(flags), Some(rel)) = (f.next(), f.next(), f.next()) else {
                    continue;
                };
                let (Ok(size), Some(mtime_ns)) = (size.parse(), ns(mtime)) else {
                    continue;
                };
                seen.files.push((
                    unesc(rel),
                    Mark {
                        size,
                        mtime_ns,
                        unreadable: flags.as_bytes().contains(&b'r'),
                        unindexed: flags.as_bytes().contains(&b'u'),
                    },
                ));
            }
            (Some("d"), Some(t)) if v1 => {
                let t = unesc(t);
                let (label, text) = t.split_once('\0').unwrap_or(("", &t));
                seen.dropped.insert(dropped_key(label, text));
            }
            (Some("d"), Some(t)) => {
                if let Ok(k) = u64::from_str_radix(t, 16) {
                    seen.dropped.insert(k);
                }
            }
            (Some("c"), Some(t)) => {
                seen.conflicts.insert(unesc(t));
            }
            (Some("i"), Some("-")) if !v1 => {
                if let Some(label) = f.next() {
                    seen.indexes.push((unesc(label), None));
                }
            }
            (Some("i"), Some(size)) if !v1 => {
                let (Some(mtime), Some(ctime), Some(ino), Some(label)) = (f.next(), f.next(), f.next(), f.next())
                else {
                    continue;
                };
                let (Ok(size), Some(mtime_ns), Some(ctime_ns), Ok(ino)) =
                    (size.parse(), ns(mtime), ns(ctime), ino.parse())
                else {
                    continue;
                };
                seen.indexes.push((
                    unesc(label),
                    Some(Stamp {
                        size,
                        mtime_ns,
                        ctime_ns,
                        ino,
                    }),
                ));
            }
            _ => {}
        }
    }
    if !seen.files.is_sorted_by(|a, b| a.0 <= b.0) {
        seen.files.sort_by(|a, b| a.0.cmp(&b.0));
    }
    seen
}

/// The previous record (empty when there is none or it cannot be read; bounded),
/// with the time it was written.
pub fn load(path: &Path) -> Seen {
    let Ok(file) = crate::fsread::open_regular(path) else {
        return Seen::default();
    };
    let written = file
        .metadata()
        .map(|m| i128::from(m.mtime()) * 1_000_000_000 + i128::from(m.mtime_nsec()))
        .unwrap_or(0);
    let Ok(bytes) = crate::fsread::read_bounded(file, 64 << 20) else {
        return Seen::default();
    };
    // Validated in place (no copy): the lossy conversion only for a damaged record.
    let seen = match std::str::from_utf8(&bytes) {
        Ok(text) => parse(text),
        Err(_) => parse(&String::from_utf8_lossy(&bytes)),
    };
    Seen {
        written_ns: written,
        ..seen
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
    fn the_record_scanners_split_as_lines_and_split_do() {
        for t in ["", "a", "a\n", "a\r\nb\r", "a\n\nb\n\n", "\r\n", "x\ty\t\tz\n\tq\t"] {
            assert_eq!(Lines(t).collect::<Vec<_>>(), t.lines().collect::<Vec<_>>(), "{t:?}");
            assert_eq!(
                Tabs(Some(t)).collect::<Vec<_>>(),
                t.split('\t').collect::<Vec<_>>(),
                "{t:?}"
            );
        }
        assert_eq!(ns("-5"), Some(-5));
        assert_eq!(ns("170141183460469231731687303715884105727"), Some(i128::MAX));
        assert_eq!(ns("x"), None);
    }

    #[test]
    fn the_record_round_trips_odd_names() {
        let mut seen = Seen::default();
        seen.files.push((
            "a\tb\\c\nd.md".into(),
            Mark {
                size: 3,
                mtime_ns: -5,
                unreadable: true,
                unindexed: false,
            },
        ));
        seen.files.push((
            "x.md".into(),
            Mark {
                size: 0,
                mtime_ns: 1_773_144_000_000_000_000,
                unreadable: false,
                unindexed: true,
            },
        ));
        seen.dropped
            .insert(dropped_key("MEMORY.md", "- [E](e.md) — line\twith tab"));
        seen.dropped.insert(u64::MAX);
        seen.indexes.push((
            "MEMORY.md".into(),
            Some(Stamp {
                size: 10,
                mtime_ns: 1_773_144_000_000_000_001,
                ctime_ns: 1_773_144_000_000_000_002,
                ino: 77,
            }),
        ));
        seen.indexes.push(("team/a\tb/MEMORY.md".into(), None));
        seen.conflicts.insert("a.md.conflict-laptop-20261201".into());
        assert_eq!(parse(&render(&seen)), seen);
        assert_eq!(parse("garbage\nf\t1\t2\tr\tx.md\n"), Seen::default());
    }

    /// A version-1 record (cut lines kept as `label\0text`) is still read: an
    /// upgrade does not report every long-standing problem again.
    #[test]
    fn a_version_1_record_is_read() {
        let v1 = "memctl session-start 1\nf\t3\t5\tu\tb.md\nf\t1\t2\tr\ta.md\nd\tMEMORY.md\0- [E](e.md) \\t x\nc\tz.md.conflict-x-20261201\n";
        let seen = parse(v1);
        assert_eq!(
            seen.files.iter().map(|f| f.0.as_str()).collect::<Vec<_>>(),
            ["a.md", "b.md"]
        );
        assert!(seen.files[1].1.unindexed && seen.files[0].1.unreadable);
        assert_eq!(
            seen.dropped,
            [dropped_key("MEMORY.md", "- [E](e.md) \t x")].into_iter().collect()
        );
        assert!(seen.indexes.is_empty());
        assert_eq!(seen.conflicts.len(), 1);
    }

    #[test]
    fn an_index_counts_as_unchanged_only_when_older_than_the_record() {
        let st = |ctime_ns| {
            Some(Stamp {
                size: 1,
                mtime_ns: 1,
                ctime_ns,
                ino: 1,
            })
        };
        let seen = Seen {
            indexes: vec![("MEMORY.md".into(), st(10))],
            written_ns: 11,
            ..Seen::default()
        };
        assert!(seen.same_indexes(&[("MEMORY.md".into(), st(10))]));
        assert!(!seen.same_indexes(&[("MEMORY.md".into(), st(9))]));
        assert!(!seen.same_indexes(&[]));
        let racy = Seen { written_ns: 10, ..seen };
        assert!(!racy.same_indexes(&[("MEMORY.md".into(), st(10))]));
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
