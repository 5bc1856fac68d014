//! The export bundle (SPEC §11.2): a `.tar.gz` holding `memctl-bundle.json` and
//! each project's memory files under `projects/<identity, with / as __>/`.
//! [`pack`] builds one in memory; [`unpack`] reads one, bounded, and refuses it
//! whole (before anything is written anywhere) when a member is not a regular
//! file, names an unsafe path, fails its checksum or size, is missing from or
//! absent in the manifest, or the format version is not [`FORMAT`].

use std::collections::{BTreeMap, HashSet};
use std::io::{Read, Write};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::{Error, Kind};

/// The manifest's member name.
pub const MANIFEST: &str = "memctl-bundle.json";
/// The bundle format this memctl writes and reads.
pub const FORMAT: u32 = 1;
/// Bounds on what [`unpack`] reads (memctl choices, named in the README): the
/// unpacked bytes of all members together, the number of members, the manifest.
pub const MAX_TOTAL_BYTES: u64 = 256 << 20;
pub const MAX_MEMBERS: usize = 10_000;
pub const MAX_MANIFEST_BYTES: u64 = 4 << 20;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    pub format: u32,
    pub memctl_version: String,
    pub created_at: String,
    pub machine: String,
    pub projects: Vec<ProjectEntry>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProjectEntry {
    pub identity: String,
    pub key: Option<String>,
    pub project_path: Option<String>,
    pub files: Vec<FileEntry>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEntry {
    /// Below the memory dir, `/`-separated.
    pub path: String,
    pub size: u64,
    pub mtime_ns: i64,
    pub sha256: String,
}

/// A project's files as read from a bundle, checked against the manifest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Project {
    pub entry: ProjectEntry,
    /// path → bytes, for every file of `entry.files`.
    pub bytes: BTreeMap<String, Vec<u8>>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bundle {
    pub manifest: Manifest,
    pub projects: Vec<Project>,
}

/// The member dir of a project: its identity with `/` as `__`.
pub fn member_dir(identity: &str) -> String {
    format!("projects/{}", identity.replace('/', "__"))
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    let d = Sha256::digest(bytes);
    d.iter().map(|b| format!("{b:02x}")).collect()
}

/// A file for [`pack`]: its entry's path and mtime, and its bytes.
pub struct Packed {
    pub path: String,
    pub mtime_ns: i64,
    pub bytes: Vec<u8>,
}

/// The manifest entry of a file about to be packed.
pub fn entry_of(f: &Packed) -> FileEntry {
    FileEntry {
        path: f.path.clone(),
        size: f.bytes.len() as u64,
        mtime_ns: f.mtime_ns,
        sha256: sha256_hex(&f.bytes),
    }
}

/// The `.tar.gz` bytes of `manifest` and the files of each project (in the
/// manifest's order, `files[i]` beside `manifest.projects[i]`).
pub fn pack(manifest: &Manifest, files: &[Vec<Packed>]) -> Result<Vec<u8>, Error> {
    let fail = |e: std::io::Error| Error::new(Kind::Io, format!("cannot build the bundle: {e}"));
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let mut tar = tar::Builder::new(gz);
    let json = serde_json::to_vec_pretty(manifest).map_err(|e| fail(std::io::Error::other(e)))?;
    let created =
        chrono::DateTime::parse_from_rfc3339(&manifest.created_at).map_or(0, |t| t.timestamp_nanos_opt().unwrap_or(0));
    append(&mut tar, MANIFEST, &json, created).map_err(fail)?;
    for (p, fs) in manifest.projects.iter().zip(files) {
        let dir = member_dir(&p.identity);
        for f in fs {
            append(&mut tar, &format!("{dir}/{}", f.path), &f.bytes, f.mtime_ns).map_err(fail)?;
        }
    }
    let gz = tar.into_inner().map_err(fail)?;
    gz.finish().map_err(fail)
}

fn append<W: Write>(tar: &mut tar::Builder<W>, path: &str, bytes: &[u8], mtime_ns: i64) -> std::io::Result<()> {
    let mut h = tar::Header::new_gnu();
    h.set_size(bytes.len() as u64);
    h.set_mode(0o600);
    h.set_mtime(u64::try_from(mtime_ns.div_euclid(1_000_000_000)).unwrap_or(0));
    h.set_entry_type(tar::EntryType::Regular);
    tar.append_data(&mut h, path, bytes)
}

fn refused(what: impl std::fmt::Display) -> Error {
    Error::new(Kind::InvalidInput, format!("bundle refused: {what}"))
        .hint("nothing was imported; export the bundle again with `memctl export` on the other machine")
}

/// Whether `p` is a safe relative path (SPEC §4.4): not empty, not absolute, no
/// empty, `.` or `..` component, no control character or backslash.
pub fn safe_path(p: &str) -> bool {
    !p.is_empty()
        && !p.starts_with('/')
        && !p.chars().any(|c| c.is_control() || c == '\\')
        && p.split('/').all(|c| !c.is_empty() && c != "." && c != "..")
}

/// Read and check a bundle. Reads at most [`MAX_TOTAL_BYTES`] unpacked and
/// [`MAX_MEMBERS`] members; anything wrong refuses the whole bundle.
pub fn unpack(input: impl Read) -> Result<Bundle, Error> {
    let gz = flate2::read::GzDecoder::new(input);
    // One byte over the cap tells a bundle at the cap from one past it.
    let mut tar = tar::Archive::new(gz.take(MAX_TOTAL_BYTES + 1024 * 1024));
    let entries = tar
        .entries()
        .map_err(|e| refused(format!("not a .tar.gz bundle: {e}")))?;
    let mut members: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    let mut manifest: Option<Vec<u8>> = None;
    let mut total: u64 = 0;
    for (n, entry) in entries.enumerate() {
        if n >= MAX_MEMBERS {
            return Err(refused(format!("more than {MAX_MEMBERS} members")));
        }
        let entry = entry.map_err(|e| refused(format!("not a .tar.gz bundle: {e}")))?;
        let name = String::from_utf8(entry.path_bytes().into_owned())
            .map_err(|_| refused("a member name is not valid UTF-8"))?;
        let kind = entry.header().entry_type();
        if !safe_path(&name) {
            return Err(refused(format!("unsafe member path: {}", name.escape_debug())));
        }
        if kind != tar::EntryType::Regular {
            return Err(refused(format!("member is not a regular file: {name}")));
        }
        let size = entry.header().size().unwrap_or(u64::MAX);
        let cap = if name == MANIFEST {
            MAX_MANIFEST_BYTES
        } else {
            MAX_TOTAL_BYTES
        };
        if size > cap || total.saturating_add(size) > MAX_TOTAL_BYTES {
            return Err(refused(format!(
                "unpacked size over the limit ({} MiB in all, {} MiB for the manifest)",
                MAX_TOTAL_BYTES >> 20,
                MAX_MANIFEST_BYTES >> 20
            )));
        }
        total += size;
        let mut bytes = Vec::with_capacity(size.min(1 << 20) as usize);
        entry
            .take(size)
            .read_to_end(&mut bytes)
            .map_err(|e| refused(format!("cannot read member {name}: {e}")))?;
        if bytes.len() as u64 != size {
            return Err(refused(format!("member is truncated: {name}")));
        }
        if name == MANIFEST {
            if manifest.replace(bytes).is_some() {
                return Err(refused("two manifests"));
            }
        } else if members.insert(name.clone(), bytes).is_some() {
            return Err(refused(format!("member appears twice: {name}")));
        }
    }
    let raw = manifest.ok_or_else(|| refused(format!("no {MANIFEST}")))?;
    let value: serde_json::Value =
        serde_json::from_slice(&raw).map_err(|e| refused(format!("{MANIFEST} is not JSON: {e}")))?;
    match value.get("format").and_then(serde_json::Value::as_u64) {
        Some(v) if v == u64::from(FORMAT) => {}
        Some(v) => {
            return Err(Error::new(
                Kind::InvalidInput,
                format!("bundle refused: format version {v}; this memctl reads version {FORMAT}"),
            )
            .hint("import it with the memctl version that wrote it, or export it again with this one"));
        }
        None => return Err(refused(format!("{MANIFEST} has no format version"))),
    }
    let manifest: Manifest =
        serde_json::from_value(value).map_err(|e| refused(format!("{MANIFEST} is malformed: {e}")))?;
    check(manifest, members)
}

/// Match the members against the manifest: every listed file present with its
/// size and SHA-256, nothing unlisted, no unsafe path, identities distinct.
fn check(manifest: Manifest, mut members: BTreeMap<String, Vec<u8>>) -> Result<Bundle, Error> {
    let mut projects = Vec::new();
    let mut dirs = HashSet::new();
    for p in &manifest.projects {
        let dir = member_dir(&p.identity);
        if p.identity.is_empty() || p.identity.chars().any(char::is_control) || !safe_path(&dir) {
            return Err(refused(format!("unsafe identity: {}", p.identity.escape_debug())));
        }
        if !dirs.insert(dir.clone()) {
            return Err(refused(format!("project listed twice: {}", p.identity)));
        }
        let mut bytes = BTreeMap::new();
        for f in &p.files {
            if !safe_path(&f.path) || !f.path.ends_with(".md") {
                return Err(refused(format!("unsafe file path: {}", f.path.escape_debug())));
            }
            let Some(b) = members.remove(&format!("{dir}/{}", f.path)) else {
                return Err(refused(format!("{} of {} is missing", f.path, p.identity)));
            };
            if b.len() as u64 != f.size || sha256_hex(&b) != f.sha256.to_ascii_lowercase() {
                return Err(refused(format!(
                    "checksum mismatch: {} of {} is not what the manifest says",
                    f.path, p.identity
                )));
            }
            if bytes.insert(f.path.clone(), b).is_some() {
                return Err(refused(format!("file listed twice: {}", f.path)));
            }
        }
        projects.push(Project {
            entry: p.clone(),
            bytes,
        });
    }
    if let Some(extra) = members.keys().next() {
        return Err(refused(format!("member not in the manifest: {extra}")));
    }
    Ok(Bundle { manifest, projects })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(files: Vec<FileEntry>) -> Manifest {
        Manifest {
            format: FORMAT,
            memctl_version: "0".into(),
            created_at: "2025-01-01T00:00:00.000Z".into(),
            machine: "m".into(),
            projects: vec![ProjectEntry {
                identity: "github.com/a/b".into(),
                key: None,
                project_path: None,
                files,
            }],
        }
    }

    #[test]
    fn round_trips() {
        let f = Packed {
            path: "a.md".into(),
            mtime_ns: 5,
            bytes: b"hi".to_vec(),
        };
        let m = manifest(vec![entry_of(&f)]);
        let b = unpack(&pack(&m, &[vec![f]]).unwrap()[..]).unwrap();
        assert_eq!(b.manifest, m);
        assert_eq!(b.projects[0].bytes["a.md"], b"hi");
    }

    #[test]
    fn refuses_bad_checksums_and_unlisted_members() {
        let f = Packed {
            path: "a.md".into(),
            mtime_ns: 5,
            bytes: b"hi".to_vec(),
        };
        let mut e = entry_of(&f);
        e.sha256 = sha256_hex(b"ho");
        assert!(unpack(&pack(&manifest(vec![e]), &[vec![f]]).unwrap()[..]).is_err());
        let f = Packed {
            path: "a.md".into(),
            mtime_ns: 5,
            bytes: b"hi".to_vec(),
        };
        assert!(unpack(&pack(&manifest(vec![]), &[vec![f]]).unwrap()[..]).is_err());
    }

    #[test]
    fn safe_paths() {
        for ok in ["a.md", "team/a.md", "projects/x__y/a.md"] {
            assert!(safe_path(ok), "{ok}");
        }
        for bad in [
            "",
            "/a.md",
            "../a.md",
            "a/../b.md",
            "a//b.md",
            "./a.md",
            "a\nb.md",
            "a\\b.md",
        ] {
            assert!(!safe_path(bad), "{bad:?}");
        }
    }

    #[test]
    fn garbage_is_refused_not_a_panic() {
        assert!(unpack(&b"not gzip at all"[..]).is_err());
        assert!(unpack(&[][..]).is_err());
    }
}
