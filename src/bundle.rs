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

/// Limits on what one sync or one import takes in (issue 29 point 7; memctl
/// choices, named in the README): a file's size (the cap outgoing files already
/// have: sync does not send a bigger one), the paths (files and dirs) of a
/// project's tree, and how deep its dirs nest. Counted while walking, before
/// anything is written, so a few-KB tree whose entries all point to one subtree
/// is refused after at most this many entries.
pub const MAX_FILE_BYTES: u64 = 64 << 20;
pub const MAX_PATHS: usize = 100_000;
pub const MAX_DEPTH: usize = 32;

/// Why memctl never writes an incoming file at `p` (and never sends one from
/// there), or `None`: a segment starting with `.` (`.trash/`, `.memctl/`, `.git/`,
/// `.hidden.md`: Claude Code reads no dot path, SPEC §2.5, and history does not
/// track `.trash/` or `.memctl/`, §8.1), or dirs nested past [`MAX_DEPTH`].
pub fn path_refusal(p: &str) -> Option<String> {
    if let Some(seg) = p.split('/').find(|s| s.starts_with('.')) {
        let what = if p.ends_with(seg) {
            format!("`{seg}`")
        } else {
            format!("`{seg}/`")
        };
        return Some(format!(
            "{what} is a dot path: Claude Code reads none, and `.trash/`, `.memctl/`, `.git/` are not memories' place (history does not track them), so memctl never writes a memory there"
        ));
    }
    let dirs = p.split('/').count().saturating_sub(1);
    (dirs > MAX_DEPTH).then(|| format!("its dirs nest {dirs} deep, past the limit of {MAX_DEPTH}"))
}

/// The earliest mtime an incoming file gets: 1970-01-02 (issue 29 point 13;
/// the latest is now + 1 day).
pub const MIN_MTIME_NS: i128 = 86_400 * 1_000_000_000;
const DAY_NS: i128 = 86_400 * 1_000_000_000;

/// The mtimes an import or a sync gives incoming files (issue 29 point 13): a
/// file the remote lists no mtime for gets `now`; one before 1970-01-02 or after
/// now + 1 day is clamped into that range. [`Mtimes::notes`] says which.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Mtimes {
    /// (file, the mtime it came with, the one it gets)
    pub clamped: Vec<(String, i128, i128)>,
    pub missing: Vec<String>,
}

impl Mtimes {
    /// The mtime `rel` is written with, given the one it came with (`None`: unlisted).
    pub fn take(&mut self, rel: &str, given: Option<i128>, now: chrono::DateTime<chrono::Utc>) -> i128 {
        let now_ns = i128::from(now.timestamp()) * 1_000_000_000 + i128::from(now.timestamp_subsec_nanos());
        let Some(t) = given else {
            self.missing.push(rel.to_string());
            return now_ns;
        };
        let got = t.clamp(MIN_MTIME_NS, now_ns.saturating_add(DAY_NS).max(MIN_MTIME_NS));
        if got != t {
            self.clamped.push((rel.to_string(), t, got));
        }
        got
    }

    /// One note for the clamped files and one for those with no mtime (each naming
    /// up to 10 files, then how many more), prefixed with `who: `.
    pub fn notes(&self, who: &str) -> Vec<String> {
        fn names<T>(v: &[T], show: impl Fn(&T) -> String) -> String {
            let mut s: Vec<String> = v.iter().take(10).map(show).collect();
            if v.len() > 10 {
                s.push(format!("and {} more", v.len() - 10));
            }
            s.join(", ")
        }
        let date = |ns: i128| {
            let secs = i64::try_from(ns.div_euclid(1_000_000_000)).unwrap_or(if ns < 0 { i64::MIN } else { i64::MAX });
            chrono::DateTime::from_timestamp(secs, 0)
                .map_or_else(|| format!("{secs} s"), |d| d.format("%Y-%m-%d").to_string())
        };
        let mut out = Vec::new();
        if !self.clamped.is_empty() {
            out.push(format!(
                "{who}: {} incoming file{} had an mtime outside 1970-01-02 … now + 1 day and got the nearest bound: {}",
                self.clamped.len(),
                if self.clamped.len() == 1 { "" } else { "s" },
                names(&self.clamped, |(f, from, to)| format!(
                    "{f} ({} → {})",
                    date(*from),
                    date(*to)
                ))
            ));
        }
        if !self.missing.is_empty() {
            out.push(format!(
                "{who}: {} incoming file{} had no mtime and got the current time: {}",
                self.missing.len(),
                if self.missing.len() == 1 { "" } else { "s" },
                names(&self.missing, Clone::clone)
            ));
        }
        out
    }
}

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
    /// Shared with the import plan that writes them (issue 31: no copy).
    pub bytes: BTreeMap<String, std::sync::Arc<Vec<u8>>>,
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
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let d = Sha256::digest(bytes);
    // Two table look-ups a byte, not a `format!` each (issue 31: one a member).
    let mut s = String::with_capacity(2 * d.len());
    for b in d {
        s.push(char::from(HEX[usize::from(b >> 4)]));
        s.push(char::from(HEX[usize::from(b & 15)]));
    }
    s
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
    let mut tar = tar::Archive::new(Forward::new(gz.take(MAX_TOTAL_BYTES + 1024 * 1024)));
    let entries = tar
        .entries_with_seek()
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
        if name != MANIFEST && size > MAX_FILE_BYTES {
            return Err(refused(format!(
                "{name} is {size} bytes, over the limit of {} MiB per file",
                MAX_FILE_BYTES >> 20
            )));
        }
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
    check(parse_manifest(&raw)?, members)
}

/// The manifest, parsed straight into [`Manifest`] when it is a JSON object of
/// the current format that parses as one (issue 31: no `serde_json::Value` of
/// every file entry on the way); anything else goes the way that names what is
/// wrong ([`parse_manifest_checked`]), so every refusal keeps its words.
fn parse_manifest(raw: &[u8]) -> Result<Manifest, Error> {
    // An array would deserialize into the struct's fields by position; the
    // checked way refuses it (no format version), so only an object is taken.
    let object = raw.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{');
    match serde_json::from_slice::<Manifest>(raw) {
        Ok(m) if object && m.format == FORMAT => Ok(m),
        _ => parse_manifest_checked(raw),
    }
}

/// The manifest by way of a JSON value: not JSON, the format version (missing or
/// another one), then the fields, each refused with its own words.
fn parse_manifest_checked(raw: &[u8]) -> Result<Manifest, Error> {
    let value: serde_json::Value =
        serde_json::from_slice(raw).map_err(|e| refused(format!("{MANIFEST} is not JSON: {e}")))?;
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
    serde_json::from_value(value).map_err(|e| refused(format!("{MANIFEST} is malformed: {e}")))
}

/// The unpacked stream as the tar reader sees it, seekable forward only: the
/// padding after each member is read past through a small buffer, where tar's
/// own skip for a stream zeroes 32 KiB a member first (issue 31). Reading past
/// the end fails as tar's skip does.
struct Forward<R> {
    inner: R,
    pos: u64,
}

impl<R: Read> Forward<R> {
    fn new(inner: R) -> Self {
        Forward { inner, pos: 0 }
    }
}

impl<R: Read> Read for Forward<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.pos += n as u64;
        Ok(n)
    }
}

impl<R: Read> std::io::Seek for Forward<R> {
    fn seek(&mut self, to: std::io::SeekFrom) -> std::io::Result<u64> {
        let std::io::SeekFrom::Current(delta) = to else {
            return Err(std::io::Error::other("the bundle stream seeks forward only"));
        };
        let mut left =
            u64::try_from(delta).map_err(|_| std::io::Error::other("the bundle stream seeks forward only"))?;
        let mut buf = [0u8; 512];
        while left > 0 {
            let n = self.read(&mut buf[..usize::try_from(left.min(512)).unwrap_or(512)])?;
            if n == 0 {
                return Err(std::io::Error::other("unexpected EOF during skip"));
            }
            left -= n as u64;
        }
        Ok(self.pos)
    }
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
            if let Some(why) = path_refusal(&f.path) {
                return Err(refused(format!("{} of {}: {why}", f.path, p.identity)));
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
            if bytes.insert(f.path.clone(), std::sync::Arc::new(b)).is_some() {
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
        assert_eq!(b.projects[0].bytes["a.md"].as_slice(), b"hi");
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
    fn incoming_mtimes_are_clamped_and_a_missing_one_is_now() {
        let now = chrono::DateTime::parse_from_rfc3339("2026-03-10T12:00:00Z")
            .unwrap()
            .with_timezone(&chrono::Utc);
        let now_ns = i128::from(now.timestamp()) * 1_000_000_000;
        let mut m = Mtimes::default();
        let year_2446 = 15_000_000_000i128 * 1_000_000_000;
        assert_eq!(m.take("future.md", Some(year_2446), now), now_ns + DAY_NS);
        assert_eq!(
            m.take("old.md", Some(-2_177_452_800 * 1_000_000_000), now),
            MIN_MTIME_NS
        );
        assert_eq!(m.take("zero.md", Some(0), now), MIN_MTIME_NS);
        assert_eq!(m.take("fine.md", Some(now_ns - DAY_NS), now), now_ns - DAY_NS);
        assert_eq!(m.take("edge.md", Some(MIN_MTIME_NS), now), MIN_MTIME_NS);
        assert_eq!(m.take("none.md", None, now), now_ns);
        let notes = m.notes("p");
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(
            notes[0].starts_with("p: 3 incoming files had an mtime outside"),
            "{notes:?}"
        );
        assert!(notes[0].contains("future.md (2445-05-01 → 2026-03-11)"), "{notes:?}");
        assert!(notes[0].contains("old.md (1901-01-01 → 1970-01-02)"), "{notes:?}");
        assert!(
            notes[1].contains("1 incoming file had no mtime and got the current time: none.md"),
            "{notes:?}"
        );
        assert!(Mtimes::default().notes("p").is_empty());
    }

    #[test]
    fn dot_paths_and_deep_dirs_are_refused() {
        for bad in [
            ".trash/a.md",
            ".memctl/evil.md",
            ".git/a.md",
            "sub/.hidden/a.md",
            ".a.md",
        ] {
            assert!(path_refusal(bad).is_some(), "{bad}");
        }
        let deep = format!("{}a.md", "d/".repeat(MAX_DEPTH + 1));
        assert!(path_refusal(&deep).unwrap().contains("32"), "{deep}");
        let ok = format!("{}a.md", "d/".repeat(MAX_DEPTH));
        for fine in ["a.md", "team/a.md", "logs/x.md", "a.b.md", ok.as_str()] {
            assert_eq!(path_refusal(fine), None, "{fine}");
        }
    }

    #[test]
    fn a_member_past_the_file_limit_is_refused_before_it_is_read() {
        // The header says 64 MiB + 1; the data is not there at all: the refusal
        // comes from the header, before any of it is read.
        let mut h = tar::Header::new_gnu();
        h.set_size(MAX_FILE_BYTES + 1);
        h.set_mode(0o600);
        h.set_entry_type(tar::EntryType::Regular);
        h.set_path("projects/x/a.md").unwrap();
        h.set_cksum();
        let mut raw = h.as_bytes().to_vec();
        raw.extend_from_slice(&[0; 1024]);
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(&raw).unwrap();
        let e = unpack(&gz.finish().unwrap()[..]).unwrap_err();
        assert!(e.message.contains("over the limit of 64 MiB per file"), "{}", e.message);
    }

    /// What a tar reader yields: each member's path and bytes, or the first error.
    fn members<R: Read>(entries: tar::Entries<'_, R>) -> Vec<Result<(String, Vec<u8>), String>> {
        let mut out = Vec::new();
        for e in entries {
            let mut e = match e {
                Ok(e) => e,
                Err(err) => {
                    out.push(Err(err.to_string()));
                    break;
                }
            };
            let name = String::from_utf8_lossy(&e.path_bytes()).into_owned();
            let mut b = Vec::new();
            match e.read_to_end(&mut b) {
                Ok(_) => out.push(Ok((name, b))),
                Err(err) => {
                    out.push(Err(err.to_string()));
                    break;
                }
            }
        }
        out
    }

    #[test]
    fn the_forward_seek_reads_every_bundle_and_every_cut_as_tars_own_skip_does() {
        let files: Vec<Packed> = (0..5)
            .map(|i| Packed {
                path: format!("d/f{i}.md"),
                mtime_ns: 5,
                bytes: "x".repeat(100 + 300 * i).into_bytes(),
            })
            .collect();
        let m = manifest(files.iter().map(entry_of).collect());
        let gz = pack(&m, &[files]).unwrap();
        let mut raw = Vec::new();
        flate2::read::GzDecoder::new(&gz[..]).read_to_end(&mut raw).unwrap();
        for bytes in [&gz[..], &raw[..]] {
            for cut in (0..=bytes.len()).step_by(7).chain([bytes.len()]) {
                let part = &bytes[..cut];
                let plain = members(tar::Archive::new(part).entries().unwrap());
                let mut seeking = tar::Archive::new(Forward::new(part));
                assert_eq!(members(seeking.entries_with_seek().unwrap()), plain, "cut at {cut}");
            }
        }
    }

    #[test]
    fn the_manifest_parsed_straight_agrees_with_the_checked_way() {
        let good = serde_json::to_string(&manifest(vec![FileEntry {
            path: "a.md".into(),
            size: 2,
            mtime_ns: -5,
            sha256: sha256_hex(b"hi"),
        }]))
        .unwrap();
        let cases = [
            good.clone(),
            format!("  \n{good}"),
            good.replace("\"format\":1", "\"format\":2"),
            good.replace("\"format\":1", "\"format\":1.0"),
            good.replace("\"format\":1", "\"format\":\"1\""),
            good.replace("\"format\":1,", ""),
            good.replace("\"format\":1", "\"format\":1,\"format\":1"),
            good.replace("\"machine\":\"m\",", ""),
            good.replace("\"size\":2", "\"size\":-2"),
            good.replace('{', "{\"extra\":[1],"),
            r#"[1,"0","2025-01-01T00:00:00.000Z","m",[]]"#.to_string(),
            "{".to_string(),
            "null".to_string(),
        ];
        for raw in cases {
            let straight = parse_manifest(raw.as_bytes()).map_err(|e| e.message);
            let checked = parse_manifest_checked(raw.as_bytes()).map_err(|e| e.message);
            assert_eq!(straight, checked, "{raw}");
        }
        assert!(parse_manifest(good.as_bytes()).is_ok());
    }

    #[test]
    fn sha256_hex_is_lower_case_hex() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn garbage_is_refused_not_a_panic() {
        assert!(unpack(&b"not gzip at all"[..]).is_err());
        assert!(unpack(&[][..]).is_err());
    }
}
