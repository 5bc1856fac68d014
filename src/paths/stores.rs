//! Memory stores, team memory and recall mode (SPEC §2.13).
//!
//! `CLAUDE_MEMORY_STORES` holds a JSON array of stores in Claude Code's memory
//! service. memctl parses it with Claude Code 2.1.332's rules (entries, defaults,
//! mount derivation, the error cases); it never talks to the service. A store of
//! scope `team` is synced into `<memdir>team/<mount>/`; that is the only team memory
//! 2.1.332 has. Recall mode — the variable set to a non-blank value, or the cached
//! server flag `tengu_moth_copse` on (§2.16) — injects no `MEMORY.md`.
//!
//! An invalid value is a warning and counts as set but store-less (memctl choice:
//! Claude Code still counts the variable as set for recall mode).

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use super::Env;
use super::flags::Flag;

/// The variable memctl reads.
pub const VAR: &str = "CLAUDE_MEMORY_STORES";
/// At most this many `skillsDirs` per store.
pub const MAX_SKILLS_DIRS: usize = 10;

/// `mode` of a store.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Rw,
    Ro,
}

/// `scope` of a store.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum StoreScope {
    User,
    Team,
}

/// One parsed store entry, with its defaults applied and its mount derived.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Store {
    /// A path in the memory service (absolute, URL-safe); not a local directory.
    pub path: String,
    pub mode: Mode,
    pub scope: StoreScope,
    /// `[A-Za-z0-9_-]+`: given, or derived from the last segment of `path`.
    pub mount: String,
    pub prompt_index: Option<String>,
    pub skills_dirs: Vec<String>,
    pub prompt_index_max_bytes: Option<u64>,
}

impl Store {
    /// Where Claude Code syncs a team store: `<team dir>/<mount>` (`team_dir` is
    /// `<memdir>team`). User stores have no mount under the memory dir.
    pub fn mount_dir(&self, team_dir: &Path) -> Option<PathBuf> {
        (self.scope == StoreScope::Team).then(|| team_dir.join(&self.mount))
    }
}

/// What `CLAUDE_MEMORY_STORES` says.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stores {
    /// The raw value, `None` when unset.
    pub raw: Option<String>,
    /// The parsed stores (empty when unset, empty, store-less or invalid).
    pub stores: Vec<Store>,
    /// Why the value is invalid (Claude Code's message), when it is.
    pub error: Option<String>,
}

impl Stores {
    /// Read `CLAUDE_MEMORY_STORES` from `env`.
    pub fn from_env(env: &Env) -> Stores {
        Stores::from_value(env.get(VAR).as_deref())
    }

    /// Parse a value of the variable (`None`: unset). Claude Code ignores an empty
    /// value; a blank one is parsed (and fails as JSON).
    pub fn from_value(raw: Option<&str>) -> Stores {
        let (stores, error) = match raw {
            None | Some("") => (Vec::new(), None),
            Some(v) => match parse(v) {
                Ok(s) => (s, None),
                Err(e) => (Vec::new(), Some(e)),
            },
        };
        Stores {
            raw: raw.map(str::to_string),
            stores,
            error,
        }
    }

    /// The variable is set to a non-blank value (recall mode, whatever it holds).
    pub fn is_set(&self) -> bool {
        self.raw.as_deref().is_some_and(|v| !v.trim().is_empty())
    }

    /// The team stores, in the variable's order.
    pub fn team(&self) -> impl Iterator<Item = &Store> {
        self.stores.iter().filter(|s| s.scope == StoreScope::Team)
    }

    /// A team store exists: `<memdir>team/` is team memory (SPEC §2.13).
    pub fn has_team(&self) -> bool {
        self.team().next().is_some()
    }

    /// The one `scope: "user"` store, if any.
    pub fn user(&self) -> Option<&Store> {
        self.stores.iter().find(|s| s.scope == StoreScope::User)
    }

    /// Every team store's synced dir under `team_dir` (`<memdir>team`), in order.
    pub fn team_mounts(&self, team_dir: &Path) -> Vec<PathBuf> {
        self.team().filter_map(|s| s.mount_dir(team_dir)).collect()
    }

    /// The first team store's synced dir. (`--team` uses a mount only when it is
    /// the one team store: `paths::team_mount`.)
    pub fn first_team_mount(&self, team_dir: &Path) -> Option<PathBuf> {
        self.team().next().and_then(|s| s.mount_dir(team_dir))
    }

    /// Whether `rel` (a path relative to the memory dir, `/`-separated) lies under a
    /// team store's mount (`team/<mount>/...`): synced content, not a memory to index.
    pub fn under_mount(&self, rel: &str) -> bool {
        let Some(rest) = rel.strip_prefix("team/") else {
            return false;
        };
        self.team()
            .any(|s| rest.strip_prefix(s.mount.as_str()).is_some_and(|r| r.starts_with('/')))
    }

    /// The warning for an invalid value.
    pub fn warning(&self) -> Option<String> {
        self.error
            .as_ref()
            .map(|e| format!("{e}; Claude Code then syncs no store, but the variable still turns recall mode on"))
    }
}

/// Parse a non-empty `CLAUDE_MEMORY_STORES` value as Claude Code 2.1.332 does:
/// `Err` holds its message (`CLAUDE_MEMORY_STORES is not valid JSON: …`,
/// `… failed validation: …`, `… has duplicate mount: <m>`,
/// `… has more than one scope:"user" entry`, or a mount derivation error).
pub fn parse(raw: &str) -> Result<Vec<Store>, String> {
    let v: Value = serde_json::from_str(raw).map_err(|e| format!("{VAR} is not valid JSON: {}", json_message(&e)))?;
    let Value::Array(items) = v else {
        return Err(format!(
            "{VAR} failed validation: expected an array, received {}",
            kind(&v)
        ));
    };
    let mut entries = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        entries.push(entry(item).map_err(|why| format!("{VAR} failed validation: [{i}]: {why}"))?);
    }
    let mut out: Vec<Store> = Vec::with_capacity(entries.len());
    for e in entries {
        let mount = if e.mount.is_empty() {
            derive_mount(&e.path)?
        } else {
            e.mount.clone()
        };
        if out.iter().any(|s| s.mount == mount) {
            return Err(format!("{VAR} has duplicate mount: {mount}"));
        }
        if e.scope == StoreScope::User && out.iter().any(|s| s.scope == StoreScope::User) {
            return Err(format!("{VAR} has more than one scope:\"user\" entry"));
        }
        out.push(Store { mount, ..e });
    }
    Ok(out)
}

/// serde_json's message without its position suffix.
fn json_message(e: &serde_json::Error) -> String {
    let s = e.to_string();
    s.split(" at line ").next().unwrap_or(&s).to_string()
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// One entry: a string (`{path, mode: "rw", scope: "team"}`) or an object. The mount
/// is left empty when not given (derived after validation, as Claude Code does).
fn entry(item: &Value) -> Result<Store, String> {
    let obj = match item {
        Value::String(p) => {
            store_path(p)?;
            return Ok(Store {
                path: p.clone(),
                mode: Mode::Rw,
                scope: StoreScope::Team,
                mount: String::new(),
                prompt_index: None,
                skills_dirs: Vec::new(),
                prompt_index_max_bytes: None,
            });
        }
        Value::Object(o) => o,
        other => return Err(format!("expected a string or an object, received {}", kind(other))),
    };
    let field = |k: &str| obj.get(k).filter(|v| !v.is_null() || k == "path");
    let path = match obj.get("path") {
        Some(Value::String(p)) => p.clone(),
        Some(other) => return Err(format!("path: expected a string, received {}", kind(other))),
        None => return Err("path: required".into()),
    };
    store_path(&path).map_err(|e| format!("path: {e}"))?;
    let mode = match field("mode") {
        None => Mode::Rw,
        Some(Value::String(s)) if s == "rw" => Mode::Rw,
        Some(Value::String(s)) if s == "ro" => Mode::Ro,
        Some(_) => return Err("mode: expected \"rw\" or \"ro\"".into()),
    };
    let scope = match field("scope") {
        None => StoreScope::Team,
        Some(Value::String(s)) if s == "team" => StoreScope::Team,
        Some(Value::String(s)) if s == "user" => StoreScope::User,
        Some(_) => return Err("scope: expected \"user\" or \"team\"".into()),
    };
    let mount = match field("mount") {
        None => None,
        Some(Value::String(m)) if is_mount(m) => Some(m.clone()),
        Some(_) => return Err("mount: mount must match /^[A-Za-z0-9_-]+$/".into()),
    };
    let prompt_index = match field("promptIndex") {
        None => None,
        Some(Value::String(s)) if segments_ok(s) => Some(s.clone()),
        Some(_) => return Err("promptIndex: segments must match [A-Za-z0-9._-]+ and must not be . or ..".into()),
    };
    let skills_dirs = skills_dirs(field("skillsDirs"))?;
    let prompt_index_max_bytes = match field("promptIndexMaxBytes") {
        None => None,
        Some(Value::Number(n)) => match n.as_f64() {
            Some(f) if f > 0.0 && f.fract() == 0.0 && f <= 9_007_199_254_740_991.0 => Some(f as u64),
            _ => return Err("promptIndexMaxBytes: expected a positive integer".into()),
        },
        Some(_) => return Err("promptIndexMaxBytes: expected a positive integer".into()),
    };
    Ok(Store {
        path,
        mode,
        scope,
        mount: mount.unwrap_or_default(),
        prompt_index,
        skills_dirs,
        prompt_index_max_bytes,
    })
}

/// `skillsDirs`: at most `MAX_SKILLS_DIRS` relative paths, each ending in a `skills` segment.
fn skills_dirs(value: Option<&Value>) -> Result<Vec<String>, String> {
    Ok(match value {
        None => Vec::new(),
        Some(Value::Array(a)) if a.len() > MAX_SKILLS_DIRS => {
            return Err(format!("skillsDirs: at most {MAX_SKILLS_DIRS} entries"));
        }
        Some(Value::Array(a)) => {
            let mut dirs = Vec::with_capacity(a.len());
            for d in a {
                match d {
                    Value::String(s) if !segments_ok(s) => {
                        return Err("skillsDirs: segments must match [A-Za-z0-9._-]+ and must not be . or ..".into());
                    }
                    Value::String(s) if s.rsplit('/').next() != Some("skills") => {
                        return Err("skillsDirs: the last segment must be 'skills'".into());
                    }
                    Value::String(s) => dirs.push(s.clone()),
                    other => return Err(format!("skillsDirs: expected a string, received {}", kind(other))),
                }
            }
            dirs
        }
        Some(other) => return Err(format!("skillsDirs: expected an array, received {}", kind(other))),
    })
}

/// A memory-service path: non-empty, starting with `/`, and not overriding the host
/// when resolved as a URL (`//host`, `/\host`, with tabs and line breaks removed as
/// the URL parser removes them).
fn store_path(p: &str) -> Result<(), String> {
    let cleaned: String = p.chars().filter(|c| !matches!(c, '\t' | '\n' | '\r')).collect();
    let mut chars = cleaned.chars();
    let ok = chars.next() == Some('/') && !matches!(chars.next(), Some('/' | '\\'));
    if p.is_empty() || !ok {
        return Err("path must be path-absolute and must not override the host".into());
    }
    Ok(())
}

fn is_mount(m: &str) -> bool {
    !m.is_empty() && m.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// `promptIndex`/`skillsDirs`: `/`-separated segments of `[A-Za-z0-9._-]+`, none `.`
/// or `..`.
fn segments_ok(s: &str) -> bool {
    !s.is_empty()
        && s.split('/').all(|seg| {
            !seg.is_empty()
                && seg != "."
                && seg != ".."
                && seg
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
        })
}

/// The default mount: trailing `/`s dropped, the last segment, every UTF-16 unit
/// outside `[A-Za-z0-9_-]` made `-` (a non-BMP char becomes `--`).
pub fn derive_mount(path: &str) -> Result<String, String> {
    let trimmed = path.trim_end_matches('/');
    let last = &trimmed[trimmed.rfind('/').map_or(0, |i| i + 1)..];
    if last.is_empty() {
        return Err(format!("cannot derive mount name from path: {path}"));
    }
    let mut out = String::with_capacity(last.len());
    for c in last.chars() {
        if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
            out.push(c);
        } else {
            out.extend(std::iter::repeat_n('-', c.len_utf16()));
        }
    }
    Ok(out)
}

/// Whether Claude Code runs in recall mode, and why (SPEC §2.13, §3.3 `recall_mode`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RecallMode {
    pub value: bool,
    /// `env CLAUDE_MEMORY_STORES` or `cached flag tengu_moth_copse`; null when off.
    pub lever: Option<String>,
}

/// Recall mode: `CLAUDE_MEMORY_STORES` non-blank (named first: memctl sees it for
/// certain), else the cached `tengu_moth_copse` on (`flag`, looked up with
/// [`super::flags::lookup`] for [`super::flags::MOTH_COPSE`]).
pub fn recall_mode(stores: &Stores, flag: &Flag) -> RecallMode {
    let lever = if stores.is_set() {
        Some(format!("env {VAR}"))
    } else if flag.is_on() {
        Some(format!("cached flag {}", flag.name))
    } else {
        None
    };
    RecallMode {
        value: lever.is_some(),
        lever,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::paths::flags::{FlagState, MOTH_COPSE, SECTION};
    use serde_json::json;

    fn one(raw: &str) -> Store {
        let mut s = parse(raw).unwrap();
        assert_eq!(s.len(), 1, "{raw}");
        s.remove(0)
    }

    #[test]
    fn a_string_entry_is_a_read_write_team_store_mounted_at_its_last_segment() {
        let s = one(r#"["/orgs/acme/projects/app/"]"#);
        assert_eq!(s.path, "/orgs/acme/projects/app/");
        assert_eq!((s.mode, s.scope, s.mount.as_str()), (Mode::Rw, StoreScope::Team, "app"));
        assert_eq!(one(r#"["/a/my.store v2"]"#).mount, "my-store-v2");
        // One `-` per UTF-16 unit, as JavaScript's replace does.
        assert_eq!(one(r#"["/a/x😀é"]"#).mount, "x---");
    }

    #[test]
    fn an_object_entry_takes_its_fields_and_defaults() {
        let s = one(
            r#"[{"path": "/s/u", "mode": "ro", "scope": "user", "mount": "mine", "promptIndex": "idx/MEMORY.md",
                "skillsDirs": ["a/skills"], "promptIndexMaxBytes": 2048, "extra": 1}]"#,
        );
        assert_eq!(
            s,
            Store {
                path: "/s/u".into(),
                mode: Mode::Ro,
                scope: StoreScope::User,
                mount: "mine".into(),
                prompt_index: Some("idx/MEMORY.md".into()),
                skills_dirs: vec!["a/skills".into()],
                prompt_index_max_bytes: Some(2048),
            }
        );
        let d = one(r#"[{"path": "/s/team-a"}]"#);
        assert_eq!(
            (d.mode, d.scope, d.mount.as_str()),
            (Mode::Rw, StoreScope::Team, "team-a")
        );
        assert_eq!(parse("[]").unwrap(), Vec::new());
    }

    #[test]
    fn invalid_values_give_claude_codes_messages() {
        let err = |raw: &str| parse(raw).unwrap_err();
        assert!(err("{oops").starts_with("CLAUDE_MEMORY_STORES is not valid JSON: "));
        assert!(err("  ").starts_with("CLAUDE_MEMORY_STORES is not valid JSON: "));
        for bad in [
            r#"{"path": "/a"}"#,
            r#"["relative"]"#,
            r#"["//evil.example/x"]"#,
            r#"["/\\evil"]"#,
            r#"[""]"#,
            r#"[1]"#,
            r#"[{"mode": "rw"}]"#,
            r#"[{"path": "/a", "mode": "rx"}]"#,
            r#"[{"path": "/a", "scope": "org"}]"#,
            r#"[{"path": "/a", "mount": "a b"}]"#,
            r#"[{"path": "/a", "promptIndex": "../x"}]"#,
            r#"[{"path": "/a", "skillsDirs": ["a/tools"]}]"#,
            r#"[{"path": "/a", "promptIndexMaxBytes": 1.5}]"#,
            r#"[{"path": "/a", "promptIndexMaxBytes": 0}]"#,
        ] {
            assert!(
                err(bad).starts_with("CLAUDE_MEMORY_STORES failed validation: "),
                "{bad}"
            );
        }
        assert_eq!(
            err(r#"["/a/x", {"path": "/b/x"}]"#),
            "CLAUDE_MEMORY_STORES has duplicate mount: x"
        );
        assert_eq!(
            err(r#"[{"path": "/a", "scope": "user"}, {"path": "/b", "scope": "user"}]"#),
            "CLAUDE_MEMORY_STORES has more than one scope:\"user\" entry"
        );
        assert_eq!(err(r#"["/"]"#), "cannot derive mount name from path: /");
    }

    #[test]
    fn an_invalid_value_is_set_but_store_less() {
        let s = Stores::from_value(Some("nope"));
        assert!(s.is_set());
        assert!(s.stores.is_empty());
        assert!(s.warning().unwrap().contains("recall mode on"));
        let empty = Stores::from_value(Some(""));
        assert!(!empty.is_set());
        assert_eq!(empty.error, None);
        let blank = Stores::from_value(Some("  "));
        assert!(!blank.is_set());
        assert!(!Stores::from_value(None).is_set());
    }

    #[test]
    fn team_and_user_stores_and_their_mounts() {
        let s = Stores::from_value(Some(
            r#"["/t/alpha", {"path": "/u/me", "scope": "user"}, {"path": "/t/b", "mount": "beta"}]"#,
        ));
        assert!(s.has_team());
        assert_eq!(s.user().unwrap().mount, "me");
        let team = Path::new("/m/team");
        assert_eq!(
            s.team_mounts(team),
            vec![PathBuf::from("/m/team/alpha"), PathBuf::from("/m/team/beta")]
        );
        assert_eq!(s.first_team_mount(team), Some(PathBuf::from("/m/team/alpha")));
        assert_eq!(s.user().unwrap().mount_dir(team), None);
        assert!(s.under_mount("team/alpha/x.md"));
        assert!(!s.under_mount("team/alphabet/x.md"));
        assert!(!s.under_mount("team/me/x.md"));
        assert!(!s.under_mount("team/x.md"));
        let user_only = Stores::from_value(Some(r#"[{"path": "/u/me", "scope": "user"}]"#));
        assert!(!user_only.has_team());
    }

    fn flag(v: Option<Value>) -> Flag {
        Flag {
            name: MOTH_COPSE,
            file: Some("/h/.claude.json".into()),
            state: v.map_or(FlagState::Absent, |value| FlagState::Cached {
                section: SECTION,
                value,
            }),
            warning: None,
        }
    }

    #[test]
    fn recall_mode_by_the_variable_or_the_cached_flag() {
        let unset = Stores::default();
        assert_eq!(
            recall_mode(&unset, &flag(None)),
            RecallMode {
                value: false,
                lever: None
            }
        );
        assert!(!recall_mode(&unset, &flag(Some(json!(false)))).value);
        assert_eq!(
            recall_mode(&unset, &flag(Some(json!(true)))).lever.as_deref(),
            Some("cached flag tengu_moth_copse")
        );
        let set = Stores::from_value(Some("not json"));
        assert_eq!(
            recall_mode(&set, &flag(Some(json!(true)))).lever.as_deref(),
            Some("env CLAUDE_MEMORY_STORES")
        );
    }
}
