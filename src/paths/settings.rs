//! Claude Code's settings sources as memctl can see them (SPEC §2.2.3): which files,
//! which keys each may set, and when a whole file is ignored.

use std::fs;
use std::path::Path;

use serde_json::{Map, Value};

/// A settings source, in Claude Code's terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    User,
    Project,
    Local,
    Flag,
    Policy,
}

impl Source {
    pub fn name(self) -> &'static str {
        match self {
            Source::User => "user",
            Source::Project => "project",
            Source::Local => "local",
            Source::Flag => "flag",
            Source::Policy => "policy",
        }
    }
}

/// The managed-settings file of this platform (file-based policy only).
pub fn policy_file() -> &'static str {
    if cfg!(target_os = "macos") {
        "/Library/Application Support/ClaudeCode/managed-settings.json"
    } else if cfg!(windows) {
        "C:\\Program Files\\ClaudeCode\\managed-settings.json"
    } else {
        "/etc/claude-code/managed-settings.json"
    }
}

/// One settings source after reading its file(s).
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    pub source: Source,
    /// The file shown to the user (the base file for policy; for local settings read
    /// at the canonical root, that root's file).
    pub file: String,
    pub state: State,
    /// Local settings at the canonical root (SPEC §2.2.3, 2.1.332): the project
    /// root's own `settings.local.json`, merged under it, and what it held.
    pub legacy: Option<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum State {
    NoFile,
    /// The whole file is ignored, with the reason.
    Ignored(String),
    /// The keys memctl reads, each with the file that set it (drop-ins for policy).
    Loaded(Vec<(String, Value, String)>),
    /// Flag settings: memctl cannot know Claude Code's `--settings` file.
    NotVisible,
}

impl Settings {
    /// A key's value and the file that set it; `null` counts as absent.
    pub fn get(&self, key: &str) -> Option<(&Value, &str)> {
        match &self.state {
            State::Loaded(keys) => keys
                .iter()
                .rev()
                .find(|(k, v, _)| k == key && !v.is_null())
                .map(|(_, v, f)| (v, f.as_str())),
            _ => None,
        }
    }
}

const KEYS: [&str; 3] = ["autoMemoryDirectory", "autoMemoryEnabled", "autoDreamEnabled"];

/// `permissions.blockReadsOutsideWorkingDirectories`, kept under this name (SPEC §2.3
/// row 4, the managed read restriction).
pub const BLOCK_READS: &str = "permissions.blockReadsOutsideWorkingDirectories";

/// Read one settings file: `Ok(None)` when it does not exist, `Err(why)` when ignored.
fn read_file(path: &Path) -> Result<Option<Map<String, Value>>, String> {
    use crate::fsread::{self, ReadError};
    // Never opened unless regular, and bounded: a FIFO or a `/dev/zero` link here
    // (a cloned repository can ship one) would hang every command.
    let bytes = match fsread::read_regular(path, fsread::MAX_SETTINGS_BYTES) {
        Ok(b) => b,
        Err(ReadError::NotFound) => return Ok(None),
        Err(e) => {
            return Err(format!("cannot be read: {e}"));
        }
    };
    let text = String::from_utf8_lossy(&bytes);
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    if text.trim().is_empty() {
        return Ok(Some(Map::new()));
    }
    let map = match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => map,
        Ok(_) => return Err("the top level is not a JSON object".into()),
        Err(e) => return Err(format!("not valid JSON: {e}")),
    };
    for key in KEYS {
        let bad = match (key, map.get(key)) {
            (_, None | Some(Value::Null)) => false,
            ("autoMemoryDirectory", Some(v)) => !v.is_string(),
            (_, Some(v)) => !v.is_boolean(),
        };
        if bad {
            return Err(format!(
                "`{key}` has the wrong type, so Claude Code rejects the whole file"
            ));
        }
    }
    Ok(Some(map))
}

fn pick(map: &Map<String, Value>, file: &str) -> Vec<(String, Value, String)> {
    let mut keys: Vec<_> = KEYS
        .iter()
        .filter_map(|k| map.get(*k).map(|v| (k.to_string(), v.clone(), file.to_string())))
        .collect();
    if let Some(v) = map
        .get("permissions")
        .and_then(|p| p.get("blockReadsOutsideWorkingDirectories"))
    {
        keys.push((BLOCK_READS.to_string(), v.clone(), file.to_string()));
    }
    keys
}

/// Read a single-file source.
pub fn load(source: Source, file: &Path) -> Settings {
    let shown = file.to_string_lossy().into_owned();
    let state = match read_file(file) {
        Ok(None) => State::NoFile,
        Ok(Some(map)) => State::Loaded(pick(&map, &shown)),
        Err(why) => State::Ignored(why),
    };
    Settings {
        source,
        file: shown,
        state,
        legacy: None,
    }
}

/// Local settings read at the canonical root (SPEC §2.2.3, 2.1.332): `root_file`,
/// merged over the project root's own `legacy_file` (a key the root's file defines
/// wins).
pub fn load_local(root_file: &Path, legacy_file: &Path) -> Settings {
    let root = load(Source::Local, root_file);
    let legacy = load(Source::Local, legacy_file);
    let describe = |s: &Settings| match &s.state {
        State::NoFile => "no file".to_string(),
        State::Ignored(why) => format!("ignored: {why}"),
        State::Loaded(_) => "read, merged under the canonical root's file".to_string(),
        State::NotVisible => "not visible".to_string(),
    };
    let mut note = format!("legacy {}: {}", legacy.file, describe(&legacy));
    let state = match (root.state, legacy.state) {
        (State::Loaded(mut keys), State::Loaded(under)) => {
            let mut merged = under;
            merged.append(&mut keys);
            State::Loaded(merged)
        }
        (State::Loaded(keys), _) => State::Loaded(keys),
        (root_state, State::Loaded(under)) => {
            if let State::Ignored(why) = &root_state {
                note.push_str(&format!("; the canonical root's file is ignored: {why}"));
            }
            State::Loaded(under)
        }
        (root_state, _) => root_state,
    };
    Settings {
        source: Source::Local,
        file: root.file,
        state,
        legacy: Some(note),
    }
}

/// Read the file-based policy: the base file, then `managed-settings.d/*.json` in
/// file-name order, later keys overriding earlier ones.
pub fn load_policy(base: &Path) -> Settings {
    let shown = base.to_string_lossy().into_owned();
    let mut keys = Vec::new();
    let mut found = false;
    let mut ignored = Vec::new();
    let mut files = vec![base.to_path_buf()];
    if let Some(dir) = base.parent()
        && let Ok(entries) = fs::read_dir(dir.join("managed-settings.d"))
    {
        let mut dropins: Vec<_> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        dropins.sort();
        files.extend(dropins);
    }
    for file in &files {
        let name = file.to_string_lossy().into_owned();
        match read_file(file) {
            Ok(None) => {}
            Ok(Some(map)) => {
                found = true;
                keys.extend(pick(&map, &name));
            }
            Err(why) => {
                found = true;
                ignored.push(format!("{name}: {why}"));
            }
        }
    }
    let state = if !found {
        State::NoFile
    } else if keys.is_empty() && !ignored.is_empty() {
        State::Ignored(ignored.join("; "))
    } else {
        State::Loaded(keys)
    };
    Settings {
        source: Source::Policy,
        file: shown,
        state,
        legacy: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrong_types_ignore_the_whole_file() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("s.json");
        fs::write(&f, r#"{"autoMemoryEnabled": "yes", "autoMemoryDirectory": "/x/y"}"#).unwrap();
        assert!(matches!(load(Source::User, &f).state, State::Ignored(_)));
        fs::write(&f, r#"{"autoMemoryEnabled": null, "autoMemoryDirectory": "/x/y"}"#).unwrap();
        let s = load(Source::User, &f);
        assert_eq!(
            s.get("autoMemoryDirectory").map(|(v, _)| v.clone()),
            Some(Value::String("/x/y".into()))
        );
        assert_eq!(s.get("autoMemoryEnabled"), None);
        fs::write(&f, "\u{feff}  \n").unwrap();
        assert_eq!(load(Source::User, &f).state, State::Loaded(vec![]));
        fs::write(&f, "[1]").unwrap();
        assert!(matches!(load(Source::User, &f).state, State::Ignored(_)));
        fs::write(&f, "{oops").unwrap();
        assert!(matches!(load(Source::User, &f).state, State::Ignored(_)));
        assert_eq!(load(Source::User, &dir.path().join("none.json")).state, State::NoFile);
    }

    #[test]
    fn local_settings_at_the_root_merge_over_the_legacy_file() {
        let dir = tempfile::tempdir().unwrap();
        let (root, legacy) = (dir.path().join("root.json"), dir.path().join("legacy.json"));
        fs::write(
            &root,
            r#"{"autoMemoryDirectory": "~/root", "permissions": {"blockReadsOutsideWorkingDirectories": true}}"#,
        )
        .unwrap();
        fs::write(
            &legacy,
            r#"{"autoMemoryDirectory": "~/legacy", "autoMemoryEnabled": false}"#,
        )
        .unwrap();
        let s = load_local(&root, &legacy);
        assert_eq!(s.get("autoMemoryDirectory").unwrap().0, &Value::String("~/root".into()));
        let (v, file) = s.get("autoMemoryEnabled").unwrap();
        assert_eq!((v, file), (&Value::Bool(false), legacy.to_str().unwrap()));
        assert_eq!(s.get(BLOCK_READS).unwrap().0, &Value::Bool(true));
        fs::write(&root, "{oops").unwrap();
        let s = load_local(&root, &legacy);
        assert_eq!(
            s.get("autoMemoryDirectory").unwrap().0,
            &Value::String("~/legacy".into())
        );
        assert!(s.legacy.unwrap().contains("the canonical root's file is ignored"));
        fs::remove_file(&legacy).unwrap();
        assert!(matches!(load_local(&root, &legacy).state, State::Ignored(_)));
    }

    #[test]
    fn policy_dropins_override_in_name_order() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().join("managed-settings.json");
        fs::write(&base, r#"{"autoDreamEnabled": true}"#).unwrap();
        fs::create_dir(dir.path().join("managed-settings.d")).unwrap();
        fs::write(
            dir.path().join("managed-settings.d/20-b.json"),
            r#"{"autoDreamEnabled": false}"#,
        )
        .unwrap();
        fs::write(
            dir.path().join("managed-settings.d/10-a.json"),
            r#"{"autoDreamEnabled": true}"#,
        )
        .unwrap();
        let s = load_policy(&base);
        let (v, file) = s.get("autoDreamEnabled").unwrap();
        assert_eq!(v, &Value::Bool(false));
        assert!(file.ends_with("20-b.json"));
    }
}
