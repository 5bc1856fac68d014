//! Workspace trust (SPEC §2.2.1 step 2): project settings may move memory once the
//! user accepted the trust dialog for the project root or a parent, recorded as
//! `projects["<dir>"].hasTrustDialogAccepted: true` in the global config file.
//!
//! That file can be tens of MB, so it is read only when needed, streamed, bounded,
//! and only the trust flags are kept; anything but a regular file is not opened for
//! reading (a FIFO never blocks), and anything odd counts as untrusted.

use std::collections::BTreeMap;
use std::fmt;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::Value;

/// The largest global config memctl reads (reported files reach tens of MB).
pub const MAX_CONFIG_BYTES: u64 = 64 << 20;

/// The global config file: `<config home>/.claude.json` when `CLAUDE_CONFIG_DIR` is
/// set, else `<home>/.claude.json`.
pub fn config_file(config_dir_set: bool, config_home: &str, home: Option<&str>) -> Option<String> {
    let dir = if config_dir_set { Some(config_home) } else { home };
    dir.map(|d| super::validate::join(&[d, ".claude.json"]))
}

/// What the trust lookup found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trust {
    /// The global config file asked.
    pub file: String,
    pub lookup: Lookup,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// Trusted by the record of this dir (the project root or a parent).
    Trusted(String),
    /// The file holds no `true` record for the root or a parent.
    NoRecord,
    /// The file does not exist.
    Missing,
    /// The file could not be used (not regular, too large, not JSON...): untrusted.
    Unreadable(String),
}

impl Trust {
    /// Look up `root` and its parents in `file`.
    pub fn lookup(file: &str, root: &str) -> Trust {
        let lookup = match read_flags(Path::new(file)) {
            Ok(None) => Lookup::Missing,
            Ok(Some(flags)) => find_record(&flags, root).map_or(Lookup::NoRecord, Lookup::Trusted),
            Err(why) => Lookup::Unreadable(why),
        };
        Trust {
            file: file.to_string(),
            lookup,
        }
    }

    pub fn trusted(&self) -> bool {
        matches!(self.lookup, Lookup::Trusted(_))
    }

    /// The record used, or why there is none (`detail` of the project step).
    pub fn describe(&self) -> String {
        let file = &self.file;
        match &self.lookup {
            Lookup::Trusted(dir) => format!("projects[{}].hasTrustDialogAccepted in {file}", quoted(dir)),
            Lookup::NoRecord => format!(
                "untrusted: no projects[\"<dir>\"].hasTrustDialogAccepted true for the project root or a parent in {file}"
            ),
            Lookup::Missing => format!("untrusted: {file} does not exist"),
            Lookup::Unreadable(why) => format!("untrusted: {file} {why}"),
        }
    }

    /// A warning when the file exists but could not be used.
    pub fn warning(&self) -> Option<String> {
        match &self.lookup {
            Lookup::Unreadable(why) => Some(format!(
                "the global config {} {why}; the workspace counts as untrusted",
                self.file
            )),
            _ => None,
        }
    }
}

/// A dir as a JSON string literal, as the record is written.
fn quoted(dir: &str) -> String {
    Value::String(dir.to_string()).to_string()
}

/// The closest of `root` and its parents whose record is trusted.
pub fn find_record(flags: &BTreeMap<String, bool>, root: &str) -> Option<String> {
    let mut dir = Some(Path::new(root));
    while let Some(d) = dir {
        let key = d.to_string_lossy();
        if flags.get(key.as_ref()) == Some(&true) {
            return Some(key.into_owned());
        }
        dir = d.parent();
    }
    None
}

/// The trust flag of every project in the global config; `Ok(None)` when missing.
pub fn read_flags(path: &Path) -> Result<Option<BTreeMap<String, bool>>, String> {
    let Some(reader) = open_bounded(path)? else {
        return Ok(None);
    };
    let mut de = serde_json::Deserializer::from_reader(reader);
    let flags = de
        .deserialize_map(TopLevel)
        .map_err(|e| format!("is not valid JSON ({e})"))?;
    de.end().map_err(|e| format!("is not valid JSON ({e})"))?;
    Ok(Some(flags))
}

/// The global config opened for one streamed read, with the bounds of the trust
/// lookup: `Ok(None)` when missing; an error (worded to follow the file name) when it
/// is not a regular file, is over [`MAX_CONFIG_BYTES`] or cannot be opened. A FIFO is
/// never waited on; a leading BOM is skipped. Shared with the server flag cache
/// (`paths::flags`).
pub fn open_bounded(path: &Path) -> Result<Option<impl BufRead>, String> {
    use rustix::fs::{Mode, OFlags};
    // O_NONBLOCK: opening a FIFO for reading must not wait for a writer.
    let fd = match rustix::fs::open(path, OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC, Mode::empty()) {
        Ok(fd) => fd,
        Err(rustix::io::Errno::NOENT) => return Ok(None),
        Err(e) => {
            return Err(format!(
                "cannot be opened: {}",
                crate::error::plain_os_errors(&e.to_string())
            ));
        }
    };
    let file = File::from(fd);
    let meta = file
        .metadata()
        .map_err(|e| format!("cannot be read: {}", crate::error::io_words(&e)))?;
    if !meta.is_file() {
        return Err("is not a regular file".into());
    }
    if meta.len() > MAX_CONFIG_BYTES {
        return Err(format!("is larger than {} MiB", MAX_CONFIG_BYTES >> 20));
    }
    let mut reader = BufReader::new(file.take(MAX_CONFIG_BYTES));
    if reader.fill_buf().is_ok_and(|b| b.starts_with("\u{feff}".as_bytes())) {
        reader.consume(3);
    }
    Ok(Some(reader))
}

/// The top-level object: keeps `projects`, skips everything else unparsed.
struct TopLevel;

impl<'de> Visitor<'de> for TopLevel {
    type Value = BTreeMap<String, bool>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut flags = BTreeMap::new();
        while let Some(key) = map.next_key::<String>()? {
            if key == "projects" {
                // A later duplicate replaces an earlier one, as JSON.parse does.
                flags = map.next_value::<Projects>()?.0;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(flags)
    }
}

/// `projects`: each dir with whether its entry says `hasTrustDialogAccepted: true`.
struct Projects(BTreeMap<String, bool>);

impl<'de> de::Deserialize<'de> for Projects {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Projects;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("`projects` as an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Projects, A::Error> {
                let mut out = BTreeMap::new();
                while let Some(dir) = map.next_key::<String>()? {
                    let TrustFlag(flag) = map.next_value()?;
                    out.insert(dir, flag);
                }
                Ok(Projects(out))
            }
        }
        d.deserialize_map(V)
    }
}

/// One project entry: only `hasTrustDialogAccepted` is looked at; an entry that is
/// not an object has no record.
struct TrustFlag(bool);

impl<'de> de::Deserialize<'de> for TrustFlag {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(EntryVisitor)
    }
}

struct EntryVisitor;

impl<'de> Visitor<'de> for EntryVisitor {
    type Value = TrustFlag;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a project entry")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TrustFlag, A::Error> {
        let mut flag = false;
        while let Some(key) = map.next_key::<String>()? {
            if key == "hasTrustDialogAccepted" {
                flag = map.next_value::<Value>()? == Value::Bool(true);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(TrustFlag(flag))
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<TrustFlag, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(TrustFlag(false))
    }

    fn visit_bool<E>(self, _: bool) -> Result<TrustFlag, E> {
        Ok(TrustFlag(false))
    }

    fn visit_i64<E>(self, _: i64) -> Result<TrustFlag, E> {
        Ok(TrustFlag(false))
    }

    fn visit_u64<E>(self, _: u64) -> Result<TrustFlag, E> {
        Ok(TrustFlag(false))
    }

    fn visit_f64<E>(self, _: f64) -> Result<TrustFlag, E> {
        Ok(TrustFlag(false))
    }

    fn visit_str<E>(self, _: &str) -> Result<TrustFlag, E> {
        Ok(TrustFlag(false))
    }

    fn visit_unit<E>(self) -> Result<TrustFlag, E> {
        Ok(TrustFlag(false))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lookup(json: &str, root: &str) -> Lookup {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(".claude.json");
        std::fs::write(&file, json).unwrap();
        Trust::lookup(&file.to_string_lossy(), root).lookup
    }

    #[test]
    fn the_exact_path_or_a_parent_trusts() {
        let json = r#"{"numStartups": 3, "projects": {"/home/a/src/app": {"history": [{"x": 1}], "hasTrustDialogAccepted": true}}}"#;
        assert_eq!(
            lookup(json, "/home/a/src/app"),
            Lookup::Trusted("/home/a/src/app".into())
        );
        assert_eq!(
            lookup(json, "/home/a/src/app/sub"),
            Lookup::Trusted("/home/a/src/app".into())
        );
        assert_eq!(lookup(json, "/home/a/src"), Lookup::NoRecord);
        assert_eq!(lookup(json, "/home/a/src/application"), Lookup::NoRecord);
        let root = r#"{"projects": {"/": {"hasTrustDialogAccepted": true}}}"#;
        assert_eq!(lookup(root, "/x/y"), Lookup::Trusted("/".into()));
    }

    #[test]
    fn the_closest_true_record_is_named_and_false_does_not_trust() {
        let json = r#"{"projects": {"/a": {"hasTrustDialogAccepted": true}, "/a/b": {"hasTrustDialogAccepted": true}, "/a/b/c": {"hasTrustDialogAccepted": false}}}"#;
        assert_eq!(lookup(json, "/a/b/c"), Lookup::Trusted("/a/b".into()));
        let false_only = r#"{"projects": {"/a": {"hasTrustDialogAccepted": false}}}"#;
        assert_eq!(lookup(false_only, "/a"), Lookup::NoRecord);
        // Only the boolean true counts; a later duplicate wins as in JSON.parse.
        let string = r#"{"projects": {"/a": {"hasTrustDialogAccepted": "true"}, "/b": null, "/c": [1]}}"#;
        assert_eq!(lookup(string, "/a"), Lookup::NoRecord);
        let dup = r#"{"projects": {"/a": {"hasTrustDialogAccepted": true, "hasTrustDialogAccepted": false}}}"#;
        assert_eq!(lookup(dup, "/a"), Lookup::NoRecord);
        assert_eq!(lookup(r#"{"other": 1}"#, "/a"), Lookup::NoRecord);
    }

    #[test]
    fn missing_and_malformed_configs_are_untrusted() {
        let dir = tempfile::tempdir().unwrap();
        let missing = Trust::lookup(&dir.path().join("none.json").to_string_lossy(), "/a");
        assert_eq!(missing.lookup, Lookup::Missing);
        assert_eq!(missing.warning(), None);
        for bad in ["{oops", "[]", "", r#"{"projects": []}"#, r#"{"projects": {}} x"#] {
            assert!(matches!(lookup(bad, "/a"), Lookup::Unreadable(_)), "{bad:?}");
        }
        let bom = "\u{feff}{\"projects\": {\"/a\": {\"hasTrustDialogAccepted\": true}}}";
        assert_eq!(lookup(bom, "/a"), Lookup::Trusted("/a".into()));
        let as_dir = Trust::lookup(&dir.path().to_string_lossy(), "/a");
        assert!(as_dir.warning().unwrap().contains("is not a regular file"));
    }

    #[test]
    fn a_fifo_is_not_read_and_does_not_block() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join(".claude.json");
        rustix::fs::mkfifoat(rustix::fs::CWD, &fifo, rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR).unwrap();
        let t = Trust::lookup(&fifo.to_string_lossy(), "/a");
        assert_eq!(t.lookup, Lookup::Unreadable("is not a regular file".into()));
    }

    #[test]
    fn the_record_is_described_with_its_file() {
        let t = Trust {
            file: "/h/.claude.json".into(),
            lookup: Lookup::Trusted("/home/alice/src/app".into()),
        };
        assert_eq!(
            t.describe(),
            "projects[\"/home/alice/src/app\"].hasTrustDialogAccepted in /h/.claude.json"
        );
        assert_eq!(config_file(true, "/c", Some("/h")).as_deref(), Some("/c/.claude.json"));
        assert_eq!(
            config_file(false, "/h/.claude", Some("/h")).as_deref(),
            Some("/h/.claude.json")
        );
    }
}
