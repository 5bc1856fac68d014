//! The one door for writing Claude Code settings files (`hook install`, `config
//! set`; SPEC §7.4, §7.5): parse keeping key order, refuse a file that does not
//! parse (naming file and line), write atomically with a backup of the previous
//! file, and re-check the file right before the rename (Claude Code may be writing
//! it).

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::{Error, Kind};
use crate::store::{Stamp, stamp};

/// A settings file as read for editing.
pub struct SettingsFile {
    pub path: PathBuf,
    /// The file's text (`None`: it does not exist).
    pub text: Option<String>,
    pub value: Map<String, Value>,
    stamp: Stamp,
}

/// What a write did (`hook install --json`, `config set --json`).
#[derive(Debug, Serialize)]
pub struct Change {
    pub file: String,
    pub changed: bool,
    /// The copy of the previous file, when one was written.
    pub backup: Option<String>,
    pub diff: String,
}

/// The backup beside `path` (`settings.json.memctl-backup`).
pub fn backup_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".memctl-backup");
    path.with_file_name(name)
}

impl SettingsFile {
    /// Read `path`; a missing or empty file is an empty object. A file that does not
    /// parse, or whose top level is not an object, is refused.
    pub fn open(path: &Path) -> Result<SettingsFile, Error> {
        use crate::fsread::{self, ReadError};
        let st = stamp(path);
        let bytes = match fsread::read_regular(path, fsread::MAX_SETTINGS_BYTES) {
            Ok(b) => Some(b),
            Err(ReadError::NotFound) => None,
            Err(e) => {
                return Err(Error::new(
                    Kind::Io,
                    format!(
                        "cannot read {}: {}",
                        path.display(),
                        crate::error::plain_os_errors(&e.to_string())
                    ),
                )
                .hint("memctl edits only a regular settings file it can read"));
            }
        };
        let text = bytes.map(|b| String::from_utf8_lossy(&b).into_owned());
        let body = text.as_deref().unwrap_or("");
        let body = body.strip_prefix('\u{feff}').unwrap_or(body);
        let value = if body.trim().is_empty() {
            Map::new()
        } else {
            match serde_json::from_str::<Value>(body) {
                Ok(Value::Object(m)) => m,
                Ok(_) => {
                    return Err(Error::new(
                        Kind::Config,
                        format!("{}: the top level is not a JSON object", path.display()),
                    )
                    .hint("memctl never rewrites a settings file it cannot parse; fix it by hand"));
                }
                Err(e) => {
                    return Err(Error::new(
                        Kind::Config,
                        format!(
                            "{}:{}: not valid JSON (column {}): {}",
                            path.display(),
                            e.line(),
                            e.column(),
                            strip_position(&e.to_string())
                        ),
                    )
                    .hint("memctl never rewrites a settings file it cannot parse; fix it by hand (Claude Code ignores it meanwhile)"));
                }
            }
        };
        Ok(SettingsFile {
            path: path.to_path_buf(),
            text,
            value,
            stamp: st,
        })
    }

    /// Write `new` in place of the file (2-space indentation, key order kept);
    /// nothing when it equals what the file holds. With `dry_run`, only the diff.
    pub fn write(&self, new: &Map<String, Value>, dry_run: bool) -> Result<Change, Error> {
        let new_text = render(new);
        let old_text = self.text.clone().unwrap_or_default();
        let label = self.path.to_string_lossy().trim_start_matches('/').to_string();
        let same = self.text.is_some() && *new == self.value && same_order(new, &self.value);
        let diff = if same {
            String::new()
        } else {
            crate::diff::unified(&label, &old_text, &new_text)
        };
        let mut change = Change {
            file: self.path.to_string_lossy().into_owned(),
            changed: !same,
            backup: None,
            diff,
        };
        if same || dry_run {
            return Ok(change);
        }
        // A symlinked settings file (a dotfiles checkout) is written through.
        let target = match std::fs::symlink_metadata(&self.path) {
            Ok(m) if m.file_type().is_symlink() => std::fs::canonicalize(&self.path)
                .map_err(|e| Error::new(Kind::Io, format!("cannot resolve {}: {e}", self.path.display())))?,
            _ => self.path.clone(),
        };
        let dir = target.parent().unwrap_or(Path::new("/")).to_path_buf();
        crate::store::create_dir(&dir)?;
        if let Some(old) = &self.text {
            let backup = backup_path(&target);
            crate::store::write_outside(&backup, old.as_bytes())?;
            change.backup = Some(backup.to_string_lossy().into_owned());
        }
        let written = crate::store::write_checked(&dir, &target, new_text.as_bytes(), Some(self.stamp))?;
        if !written {
            return Err(Error::new(
                Kind::Conflict,
                format!("{} changed while memctl was editing it", self.path.display()),
            )
            .hint("run the command again"));
        }
        Ok(change)
    }
}

/// serde_json's message without its ` at line L column C` suffix.
fn strip_position(msg: &str) -> &str {
    msg.rfind(" at line ").map_or(msg, |i| &msg[..i])
}

/// Maps equal in value are also equal in key order (recursively).
fn same_order(a: &Map<String, Value>, b: &Map<String, Value>) -> bool {
    a.keys().eq(b.keys())
        && a.iter().zip(b.iter()).all(|((_, x), (_, y))| match (x, y) {
            (Value::Object(x), Value::Object(y)) => same_order(x, y),
            (Value::Array(x), Value::Array(y)) => x.iter().zip(y).all(|(x, y)| match (x, y) {
                (Value::Object(x), Value::Object(y)) => same_order(x, y),
                _ => true,
            }),
            _ => true,
        })
}

/// The file's text: pretty JSON with 2-space indentation and a final newline.
pub fn render(map: &Map<String, Value>) -> String {
    let mut s = serde_json::to_string_pretty(map).unwrap_or_else(|_| "{}".into());
    s.push('\n');
    s
}

/// The settings file of a scope.
pub fn scope_file(scope: crate::cli::SettingsScope, res: &crate::paths::Resolution) -> Result<PathBuf, Error> {
    match scope {
        crate::cli::SettingsScope::User => res
            .config_home
            .as_ref()
            .map(|c| std::path::Path::new(c).join("settings.json"))
            .ok_or_else(|| {
                Error::new(Kind::Config, "cannot find the Claude Code config home")
                    .hint("set HOME or CLAUDE_CONFIG_DIR")
            }),
        crate::cli::SettingsScope::Local | crate::cli::SettingsScope::Project => {
            let root = res.project.as_ref().map(|p| PathBuf::from(&p.root)).ok_or_else(|| {
                Error::new(Kind::Usage, "no project to find its settings in")
                    .hint("run it in the project, or pass --project")
            })?;
            let name = if scope == crate::cli::SettingsScope::Local {
                "settings.local.json"
            } else {
                "settings.json"
            };
            Ok(root.join(".claude").join(name))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_what_does_not_parse_naming_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("settings.json");
        std::fs::write(&f, "{\n  \"a\": 1,\n  \"b\": ,\n}\n").unwrap();
        let e = SettingsFile::open(&f).err().unwrap();
        assert_eq!(e.kind, Kind::Config);
        assert!(e.message.starts_with(&format!("{}:3:", f.display())), "{}", e.message);
        std::fs::write(&f, "[1]").unwrap();
        assert!(SettingsFile::open(&f).is_err());
    }

    #[test]
    fn writes_with_a_backup_and_keeps_key_order() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("settings.json");
        std::fs::write(&f, "{\"z\": 1, \"a\": {\"y\": 2, \"b\": 3}}").unwrap();
        let s = SettingsFile::open(&f).unwrap();
        let mut v = s.value.clone();
        v.insert("m".into(), Value::Bool(true));
        let c = s.write(&v, false).unwrap();
        assert!(c.changed);
        let text = std::fs::read_to_string(&f).unwrap();
        assert_eq!(
            text,
            "{\n  \"z\": 1,\n  \"a\": {\n    \"y\": 2,\n    \"b\": 3\n  },\n  \"m\": true\n}\n"
        );
        assert_eq!(
            std::fs::read_to_string(backup_path(&f)).unwrap(),
            "{\"z\": 1, \"a\": {\"y\": 2, \"b\": 3}}"
        );
        // Unchanged: no write, the backup untouched.
        let s = SettingsFile::open(&f).unwrap();
        let c = s.write(&s.value.clone(), false).unwrap();
        assert!(!c.changed && c.diff.is_empty() && c.backup.is_none());
    }
}
