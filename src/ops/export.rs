//! `memctl export` (SPEC §11.2): read each project's tracked files (§8.1) and
//! their ML121 findings ([`gather`], writes nothing); the command then packs them
//! with [`crate::bundle::pack`] and writes the bundle outside every memory dir.

use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::bundle::{self, FileEntry, Manifest, Packed, ProjectEntry};
use crate::error::{Error, Kind};
use crate::history::tracked;

/// One project to export.
#[derive(Clone, Debug)]
pub struct Source {
    pub identity: String,
    pub key: Option<String>,
    pub project_path: Option<PathBuf>,
    pub memory_dir: PathBuf,
    /// Only the team dir's files (`team/…`, `--all-projects --team`, SPEC v3
    /// §3.14): they keep their paths below the memory dir, so the bundle holds
    /// them under `projects/<identity>/team/` and import puts them in the team dir.
    pub team: bool,
}

/// What [`gather`] read: the manifest, the files beside it, and what to warn about.
pub struct Gathered {
    pub manifest: Manifest,
    pub files: Vec<Vec<Packed>>,
    /// ML121 findings, `<identity>: <file>:<line>: <message>`.
    pub secrets: Vec<String>,
    /// Tracked entries left out (symlinks, unreadable files).
    pub left_out: Vec<String>,
}

/// The `export --json` document's `projects` entry.
#[derive(Serialize)]
pub struct ProjectReport {
    pub identity: String,
    pub files: usize,
    pub bytes: u64,
}

/// The `export --json` document (docs/json.md).
#[derive(Serialize)]
pub struct Report {
    pub file: String,
    pub projects: Vec<ProjectReport>,
}

impl Gathered {
    pub fn report(&self, file: &Path) -> Report {
        Report {
            file: file.to_string_lossy().into_owned(),
            projects: self
                .manifest
                .projects
                .iter()
                .map(|p| ProjectReport {
                    identity: p.identity.clone(),
                    files: p.files.len(),
                    bytes: p.files.iter().map(|f| f.size).sum(),
                })
                .collect(),
        }
    }
}

/// Read every source's tracked files (symlinks are left out: a bundle holds
/// regular files only).
pub fn gather(sources: &[Source], machine: &str, created_at: String) -> Gathered {
    let mut g = Gathered {
        manifest: Manifest {
            format: bundle::FORMAT,
            memctl_version: env!("CARGO_PKG_VERSION").to_string(),
            created_at,
            machine: machine.to_string(),
            projects: Vec::new(),
        },
        files: Vec::new(),
        secrets: Vec::new(),
        left_out: Vec::new(),
    };
    // What import accepts (SPEC §11.2 bounds): a bundle past them is never written.
    let mut size = Size::default();
    for s in sources {
        let (entries, packed) = gather_project(s, &mut g, &mut size);
        g.manifest.projects.push(ProjectEntry {
            identity: s.identity.clone(),
            key: s.key.clone(),
            project_path: s.project_path.as_ref().map(|p| p.to_string_lossy().into_owned()),
            files: entries,
        });
        g.files.push(packed);
    }
    g
}

/// The bundle so far: its members (the files; the manifest is one more) and bytes.
#[derive(Clone, Copy, Debug, Default)]
struct Size {
    members: usize,
    bytes: u64,
}

/// One source's files that go into the bundle, read; what is left out and the
/// ML121 findings are noted in `g`.
fn gather_project(s: &Source, g: &mut Gathered, size: &mut Size) -> (Vec<FileEntry>, Vec<Packed>) {
    let mut skipped = Vec::new();
    let mut packed = Vec::new();
    let mut entries: Vec<FileEntry> = Vec::new();
    for f in tracked::walk(&s.memory_dir, &mut skipped) {
        if s.team && !in_team(&f.rel) {
            continue;
        }
        let rel = String::from_utf8_lossy(&f.rel).into_owned();
        if let Some(why) = left_out(&f, &rel, *size) {
            g.left_out.push(format!("{}: {rel}{why}: not exported", s.identity));
            continue;
        }
        let path = s.memory_dir.join(std::ffi::OsStr::from_bytes(&f.rel));
        let Ok(bytes) = crate::fsread::read_regular(&path, bundle::MAX_TOTAL_BYTES - size.bytes) else {
            g.left_out
                .push(format!("{}: {rel} cannot be read: not exported", s.identity));
            continue;
        };
        for finding in crate::lint::secret_findings(&path, &String::from_utf8_lossy(&bytes)) {
            g.secrets.push(format!(
                "{}: {rel}:{}: ML121 {}",
                s.identity, finding.line, finding.message
            ));
        }
        size.members += 1;
        size.bytes += bytes.len() as u64;
        let p = Packed {
            path: rel,
            mtime_ns: i64::try_from(f.mtime_ns).unwrap_or(0),
            bytes,
        };
        entries.push(bundle::entry_of(&p));
        packed.push(p);
    }
    g.left_out.extend(skipped);
    (entries, packed)
}

/// Why a tracked file is not exported, as the words after its name (`None`: it
/// is): a symlink, a name that cannot travel, what import refuses (issue 29
/// points 7 and 9), a file over the limit, a bundle past import's bounds.
fn left_out(f: &tracked::OnDisk, rel: &str, size: Size) -> Option<String> {
    if f.link {
        return Some(" is a symlink".into());
    }
    if std::str::from_utf8(&f.rel).is_err() || !bundle::safe_path(rel) {
        return Some(": name cannot travel".into());
    }
    if let Some(why) = bundle::path_refusal(rel) {
        return Some(format!(": {why}"));
    }
    if f.size > bundle::MAX_FILE_BYTES {
        return Some(format!(
            " is over the limit of {} MiB per file",
            bundle::MAX_FILE_BYTES >> 20
        ));
    }
    // The manifest is one member too.
    if size.members + 2 > bundle::MAX_MEMBERS || size.bytes + f.size > bundle::MAX_TOTAL_BYTES {
        return Some(format!(
            ": the bundle would pass import's bounds ({} files, {} MiB)",
            bundle::MAX_MEMBERS,
            bundle::MAX_TOTAL_BYTES >> 20
        ));
    }
    None
}

/// Whether a path below the memory dir is in its team dir (`team/…`).
pub fn in_team(rel: &[u8]) -> bool {
    rel.strip_prefix(crate::memdir::TEAM.as_bytes())
        .is_some_and(|r| r.first() == Some(&b'/'))
}

/// This machine's name (SPEC §11.2): `$MEMCTL_MACHINE`, else the host name.
pub fn machine_name(env: &crate::paths::Env) -> String {
    env.get("MEMCTL_MACHINE")
        .filter(|m| !m.is_empty())
        .unwrap_or_else(|| rustix::system::uname().nodename().to_string_lossy().into_owned())
}

/// The refusal of `export` and `sync` for secret-like findings (ML121) in what
/// would leave the machine, naming each file and line (SPEC v3 §11.2–§11.3):
/// `strict_refused` (exit 1) under `--strict`, else `secret_found` (exit 2).
pub fn secrets_refused(what: &str, nothing: &str, found: &[String], strict: bool) -> Error {
    let kind = if strict { Kind::StrictRefused } else { Kind::SecretFound };
    let n = found.len();
    Error::new(
        kind,
        format!(
            "{what} {n} secret-like token{} (ML121), {nothing}: {}",
            if n == 1 { "" } else { "s" },
            found.join("; ")
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn on_disk(rel: &str, link: bool, size: u64) -> tracked::OnDisk {
        tracked::OnDisk {
            rel: rel.as_bytes().to_vec(),
            link,
            size,
            mtime_ns: 0,
            ctime_ns: 0,
            ino: 0,
        }
    }

    #[test]
    fn a_plain_memory_goes() {
        assert_eq!(
            left_out(&on_disk("user_a.md", false, 10), "user_a.md", Size::default()),
            None
        );
    }

    #[test]
    fn what_cannot_travel_is_left_out_with_the_reason() {
        let none = Size::default();
        let why = |rel: &str, link: bool, size: u64| left_out(&on_disk(rel, link, size), rel, none).unwrap();
        assert_eq!(why("a.md", true, 1), " is a symlink");
        assert_eq!(why("a\\b.md", false, 1), ": name cannot travel");
        assert!(why(".hidden.md", false, 1).starts_with(": `.hidden.md` is a dot path"));
        assert_eq!(
            why("big.md", false, bundle::MAX_FILE_BYTES + 1),
            " is over the limit of 64 MiB per file"
        );
    }

    #[test]
    fn a_file_past_imports_bounds_is_left_out() {
        let full = Size {
            members: bundle::MAX_MEMBERS - 1,
            bytes: 0,
        };
        let why = left_out(&on_disk("a.md", false, 1), "a.md", full).unwrap();
        assert!(why.starts_with(": the bundle would pass import's bounds"), "{why}");
        let heavy = Size {
            members: 0,
            bytes: bundle::MAX_TOTAL_BYTES,
        };
        assert!(left_out(&on_disk("a.md", false, 1), "a.md", heavy).is_some());
        assert_eq!(left_out(&on_disk("a.md", false, 0), "a.md", heavy), None);
    }
}
