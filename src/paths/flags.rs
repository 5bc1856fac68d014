//! Server flags memctl can read (SPEC §2.16): the value of a Claude Code server flag
//! as Claude Code last cached it in the global config, under `cachedGrowthBookFeatures`
//! (older builds: `cachedFeatureFlags`), or why memctl cannot know it.
//!
//! The file is read with the bounds of the trust lookup ([`super::trust::open_bounded`]:
//! streamed, at most 64 MiB, regular files only, a FIFO never waited on), one key at a
//! time: only the asked flag's value is kept, everything else is skipped unparsed.
//!
//! Flag states (memctl choice): `cached` (the value), `absent` (no entry, or no global
//! config: memctl cannot know it) or `disabled` (memctl's environment makes Claude Code
//! see no value at all, so the flag is off).

use std::fmt;
use std::path::Path;

use serde::Serialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::Value;

use super::Env;
use super::enabled::truthy;

/// Auto-dream: `{enabled, available, minHours, minSessions}` (SPEC §2.3, §2.11).
pub const ONYX_PLOVER: &str = "tengu_onyx_plover";
/// Recall mode (SPEC §2.13).
pub const MOTH_COPSE: &str = "tengu_moth_copse";
/// The model switch's list of model patterns (SPEC §2.3 row 7).
pub const SEPIA_CORMORANT: &str = "tengu_sepia_cormorant";
/// The model switch itself (SPEC §2.3 row 7).
pub const UMBER_PETREL: &str = "tengu_umber_petrel";

/// The global config key Claude Code 2.1.332 caches flags under.
pub const SECTION: &str = "cachedGrowthBookFeatures";
/// The key older builds used; read when [`SECTION`] is missing or null.
pub const LEGACY_SECTION: &str = "cachedFeatureFlags";

/// What memctl knows about one flag.
#[derive(Clone, Debug, PartialEq)]
pub enum FlagState {
    /// The cached value, from `section` of the global config.
    Cached { section: &'static str, value: Value },
    /// No entry for the flag, or no usable global config: memctl cannot know it.
    Absent,
    /// memctl's environment makes Claude Code see no value (the flag is off);
    /// `variable` is the deciding variable as `NAME=value`.
    Disabled { variable: String },
}

/// One flag lookup (SPEC §2.16).
#[derive(Clone, Debug, PartialEq)]
pub struct Flag {
    pub name: &'static str,
    /// The global config file asked; `None` when no home is known.
    pub file: Option<String>,
    pub state: FlagState,
    /// Set when the global config exists but could not be used (the flag is `absent`).
    pub warning: Option<String>,
}

impl Flag {
    /// The cached value; `None` when absent or disabled.
    pub fn value(&self) -> Option<&Value> {
        match &self.state {
            FlagState::Cached { value, .. } => Some(value),
            _ => None,
        }
    }

    /// `cached`, `absent` or `disabled` (the JSON `source` of SPEC §3.3).
    pub fn source(&self) -> &'static str {
        match self.state {
            FlagState::Cached { .. } => "cached",
            FlagState::Absent => "absent",
            FlagState::Disabled { .. } => "disabled",
        }
    }

    /// The flag with its JavaScript truthiness, as Claude Code tests a boolean flag
    /// (`if (flag)`): absent and disabled are off.
    pub fn is_on(&self) -> bool {
        self.value().is_some_and(js_truthy)
    }

    /// One line naming where the value came from, for `path --explain` and
    /// `dream --dry-run` (SPEC §2.16): the cached value and its file with the reminder
    /// that the server may have changed it since, why it is absent, or which variable
    /// disables it.
    pub fn describe(&self) -> String {
        let name = self.name;
        match &self.state {
            FlagState::Cached { section, value } => format!(
                "{name} = {value} (cached under {section} in {}; the server may have changed it since)",
                self.file.as_deref().unwrap_or("the global config")
            ),
            FlagState::Absent => match (&self.file, &self.warning) {
                (Some(file), Some(why)) => format!("{name} unknown: the global config {file} {why}"),
                (Some(file), None) => format!("{name} not cached in {file}: memctl cannot know the server's value"),
                (None, _) => format!("{name} unknown: no global config (no home directory)"),
            },
            FlagState::Disabled { variable } => {
                format!("{name} disabled by {variable}: Claude Code sees no value, so the flag is off")
            }
        }
    }
}

/// JavaScript truthiness of a JSON value.
pub fn js_truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0 && !f.is_nan()),
        Value::String(s) => !s.is_empty(),
        Value::Array(_) | Value::Object(_) => true,
    }
}

/// Whether memctl's environment makes Claude Code see no flag value at all, and the
/// deciding variable (`NAME=value`) (SPEC §2.16): `CLAUDE_CODE_DISABLE_FEATURE_FLAGS`
/// or `DISABLE_GROWTHBOOK` truthy; or `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC` or
/// `DISABLE_TELEMETRY` non-empty or `DO_NOT_TRACK` truthy, unless
/// `CLAUDE_CODE_GB_DISK_CACHE_WHEN_TELEMETRY_OFF` is truthy (then the cache is read).
pub fn disabled_by(env: &Env) -> Option<String> {
    let named = |k: &str| env.get(k).map(|v| format!("{k}={v}"));
    for k in ["CLAUDE_CODE_DISABLE_FEATURE_FLAGS", "DISABLE_GROWTHBOOK"] {
        if env.get(k).as_deref().is_some_and(truthy) {
            return named(k);
        }
    }
    let telemetry_off = ["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "DISABLE_TELEMETRY"]
        .into_iter()
        .find(|k| env.get(k).is_some_and(|v| !v.is_empty()))
        .or_else(|| {
            env.get("DO_NOT_TRACK")
                .as_deref()
                .is_some_and(truthy)
                .then_some("DO_NOT_TRACK")
        });
    let cache_kept = env
        .get("CLAUDE_CODE_GB_DISK_CACHE_WHEN_TELEMETRY_OFF")
        .as_deref()
        .is_some_and(truthy);
    match telemetry_off {
        Some(k) if !cache_kept => named(k),
        _ => None,
    }
}

/// Look `name` up for a Claude Code started with memctl's environment: `disabled`
/// when [`disabled_by`] says so (the file is then not read), else the cache in
/// `file` (the global config, `None` when no home is known).
pub fn lookup(env: &Env, file: Option<&str>, name: &'static str) -> Flag {
    let file_owned = file.map(str::to_string);
    if let Some(variable) = disabled_by(env) {
        return Flag {
            name,
            file: file_owned,
            state: FlagState::Disabled { variable },
            warning: None,
        };
    }
    let (state, warning) = match file.map(|f| read_cached(Path::new(f), name)) {
        None | Some(Ok(None)) => (FlagState::Absent, None),
        Some(Ok(Some((section, value)))) => (FlagState::Cached { section, value }, None),
        Some(Err(why)) => (FlagState::Absent, Some(why)),
    };
    Flag {
        name,
        file: file_owned,
        state,
        warning,
    }
}

/// The cached value of `name` in the global config at `path`, with the section that
/// held it: [`SECTION`] when that key is present and not null, else
/// [`LEGACY_SECTION`] (as Claude Code reads its cache). `Ok(None)` when the file is
/// missing or holds no entry; `Err` (worded to follow the file name) when it cannot
/// be used. A later duplicate key replaces an earlier one, as `JSON.parse` does.
pub fn read_cached(path: &Path, name: &str) -> Result<Option<(&'static str, Value)>, String> {
    let Some(reader) = super::trust::open_bounded(path)? else {
        return Ok(None);
    };
    let mut de = serde_json::Deserializer::from_reader(reader);
    let found = de
        .deserialize_map(TopLevel { name })
        .map_err(|e| format!("is not valid JSON ({e})"))?;
    de.end().map_err(|e| format!("is not valid JSON ({e})"))?;
    Ok(match found {
        Found {
            current: Some(Section(Some(entry))),
            ..
        } => entry.map(|v| (SECTION, v)),
        Found {
            legacy: Some(Section(Some(entry))),
            ..
        } => entry.map(|v| (LEGACY_SECTION, v)),
        _ => None,
    })
}

/// The two cache sections: `Section(None)` = null; `Section(Some(None))` = an object
/// without the entry (or not an object).
struct Found {
    current: Option<Section>,
    legacy: Option<Section>,
}

struct Section(Option<Option<Value>>);

struct TopLevel<'a> {
    name: &'a str,
}

impl<'de> Visitor<'de> for TopLevel<'_> {
    type Value = Found;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Found, A::Error> {
        let mut found = Found {
            current: None,
            legacy: None,
        };
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                SECTION => found.current = Some(map.next_value_seed(SectionSeed { name: self.name })?),
                LEGACY_SECTION => found.legacy = Some(map.next_value_seed(SectionSeed { name: self.name })?),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(found)
    }
}

/// A cache section: keeps only the value of `name`.
struct SectionSeed<'a> {
    name: &'a str,
}

impl<'de> DeserializeSeed<'de> for SectionSeed<'_> {
    type Value = Section;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Section, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for SectionSeed<'_> {
    type Value = Section;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a flag cache")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Section, A::Error> {
        let mut entry = None;
        while let Some(key) = map.next_key::<String>()? {
            if key == self.name {
                entry = Some(map.next_value::<Value>()?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(Section(Some(entry)))
    }

    fn visit_unit<E>(self) -> Result<Section, E> {
        Ok(Section(None))
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Section, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Section(Some(None)))
    }

    fn visit_bool<E>(self, _: bool) -> Result<Section, E> {
        Ok(Section(Some(None)))
    }

    fn visit_i64<E>(self, _: i64) -> Result<Section, E> {
        Ok(Section(Some(None)))
    }

    fn visit_u64<E>(self, _: u64) -> Result<Section, E> {
        Ok(Section(Some(None)))
    }

    fn visit_f64<E>(self, _: f64) -> Result<Section, E> {
        Ok(Section(Some(None)))
    }

    fn visit_str<E>(self, _: &str) -> Result<Section, E> {
        Ok(Section(Some(None)))
    }
}

/// `tengu_onyx_plover` as Claude Code reads it (SPEC §2.3, §2.11).
#[derive(Clone, Debug, PartialEq)]
pub struct OnyxPlover {
    /// `enabled === true`.
    pub enabled: bool,
    /// `available === true`.
    pub available: bool,
    /// `minHours` when a finite number > 0.
    pub min_hours: Option<f64>,
    /// `minSessions` when a finite number > 0.
    pub min_sessions: Option<f64>,
}

impl OnyxPlover {
    /// Read a cached value: anything but an object has neither `enabled` nor
    /// `available` true and no thresholds.
    pub fn from_value(v: &Value) -> OnyxPlover {
        let positive = |k: &str| v.get(k).and_then(Value::as_f64).filter(|f| f.is_finite() && *f > 0.0);
        OnyxPlover {
            enabled: v.get("enabled") == Some(&Value::Bool(true)),
            available: v.get("available") == Some(&Value::Bool(true)),
            min_hours: positive("minHours"),
            min_sessions: positive("minSessions"),
        }
    }

    /// The setting `autoDreamEnabled` takes effect at all (`enabled` or `available`).
    pub fn opens(&self) -> bool {
        self.enabled || self.available
    }
}

/// The `auto_dream.flag` object of `path --json` and `dream --json` (SPEC §3.3):
/// `source` and, when cached, the flag's fields (null otherwise).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OnyxPloverReport {
    pub source: &'static str,
    pub enabled: Option<bool>,
    pub available: Option<bool>,
    pub min_hours: Option<f64>,
    pub min_sessions: Option<f64>,
}

impl OnyxPloverReport {
    pub fn of(flag: &Flag) -> OnyxPloverReport {
        let p = flag.value().map(OnyxPlover::from_value);
        OnyxPloverReport {
            source: flag.source(),
            enabled: p.as_ref().map(|p| p.enabled),
            available: p.as_ref().map(|p| p.available),
            min_hours: p.as_ref().and_then(|p| p.min_hours),
            min_sessions: p.as_ref().and_then(|p| p.min_sessions),
        }
    }
}

/// Whether Claude Code would consider dreaming at all (SPEC §2.3 "Auto-dream
/// enablement"), before the per-session conditions of §2.11 gate 1.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DreamEnablement {
    /// true, false, or null when the flag is `absent` and the setting is not `false`.
    pub value: Option<bool>,
    /// `flag disabled by <variable>`, `flag absent`, `flag off (cached)`,
    /// `autoDreamEnabled=<v> in <file> (<source>)` or `flag default (cached enabled=<v>)`.
    pub lever: String,
}

/// SPEC §2.3: the setting counts only when the flag has `enabled` or `available`
/// true; then the merged `autoDreamEnabled` (`setting`: its value and lever text)
/// decides if defined, else the flag's `enabled`. An absent flag is unknown — except
/// that `autoDreamEnabled: false` closes it whatever the server says.
pub fn dream_enablement(flag: &Flag, setting: Option<(bool, String)>) -> DreamEnablement {
    let (value, lever) = match (&flag.state, setting) {
        (FlagState::Disabled { variable }, _) => (Some(false), format!("flag disabled by {variable}")),
        (FlagState::Absent, Some((false, lever))) => (Some(false), lever),
        (FlagState::Absent, _) => (None, "flag absent".to_string()),
        (FlagState::Cached { value, .. }, setting) => {
            let p = OnyxPlover::from_value(value);
            match setting {
                _ if !p.opens() => (Some(false), "flag off (cached)".to_string()),
                Some((v, lever)) => (Some(v), lever),
                None => (Some(p.enabled), format!("flag default (cached enabled={})", p.enabled)),
            }
        }
    };
    DreamEnablement { value, lever }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::ffi::OsString;

    fn env(vars: &[(&str, &str)]) -> Env {
        Env {
            vars: vars.iter().map(|(k, v)| (k.to_string(), OsString::from(v))).collect(),
            ..Env::default()
        }
    }

    fn cached(json: &str, name: &'static str) -> Result<Option<(&'static str, Value)>, String> {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(".claude.json");
        std::fs::write(&file, json).unwrap();
        read_cached(&file, name)
    }

    #[test]
    fn the_current_section_wins_and_the_legacy_one_is_a_fallback() {
        let both = r#"{"cachedFeatureFlags": {"tengu_onyx_plover": {"enabled": false}},
            "projects": {"/a": {"x": [1, 2]}},
            "cachedGrowthBookFeatures": {"other": 1, "tengu_onyx_plover": {"enabled": true, "available": true}}}"#;
        assert_eq!(
            cached(both, ONYX_PLOVER).unwrap(),
            Some((SECTION, json!({"enabled": true, "available": true})))
        );
        // The current section present without the entry: the legacy one is not asked.
        let current_without = r#"{"cachedGrowthBookFeatures": {}, "cachedFeatureFlags": {"tengu_moth_copse": true}}"#;
        assert_eq!(cached(current_without, MOTH_COPSE).unwrap(), None);
        let legacy = r#"{"cachedGrowthBookFeatures": null, "cachedFeatureFlags": {"tengu_moth_copse": true}}"#;
        assert_eq!(cached(legacy, MOTH_COPSE).unwrap(), Some((LEGACY_SECTION, json!(true))));
        assert_eq!(cached(r#"{"numStartups": 1}"#, MOTH_COPSE).unwrap(), None);
        assert_eq!(
            cached(r#"{"cachedGrowthBookFeatures": [1]}"#, MOTH_COPSE).unwrap(),
            None
        );
        let dup = r#"{"cachedGrowthBookFeatures": {"tengu_moth_copse": true, "tengu_moth_copse": false}}"#;
        assert_eq!(cached(dup, MOTH_COPSE).unwrap(), Some((SECTION, json!(false))));
    }

    #[test]
    fn an_unusable_config_is_an_error_and_a_missing_one_is_absent() {
        for bad in ["{oops", "[]", "", r#"{"cachedGrowthBookFeatures": {}} x"#] {
            assert!(cached(bad, ONYX_PLOVER).is_err(), "{bad:?}");
        }
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("none.json");
        assert_eq!(read_cached(&missing, ONYX_PLOVER).unwrap(), None);
        let f = lookup(&env(&[]), Some(&dir.path().to_string_lossy()), ONYX_PLOVER);
        assert_eq!(f.state, FlagState::Absent);
        assert!(f.warning.unwrap().contains("is not a regular file"));
        let fifo = dir.path().join("fifo.json");
        rustix::fs::mkfifoat(rustix::fs::CWD, &fifo, rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR).unwrap();
        assert_eq!(read_cached(&fifo, ONYX_PLOVER), Err("is not a regular file".into()));
    }

    #[test]
    fn the_environment_can_hide_every_flag() {
        assert_eq!(disabled_by(&env(&[])), None);
        assert_eq!(
            disabled_by(&env(&[("CLAUDE_CODE_DISABLE_FEATURE_FLAGS", "1")])).as_deref(),
            Some("CLAUDE_CODE_DISABLE_FEATURE_FLAGS=1")
        );
        assert_eq!(
            disabled_by(&env(&[("DISABLE_GROWTHBOOK", " TRUE ")])).as_deref(),
            Some("DISABLE_GROWTHBOOK= TRUE ")
        );
        assert_eq!(disabled_by(&env(&[("DISABLE_GROWTHBOOK", "0")])), None);
        // Non-empty is enough for these two; DO_NOT_TRACK must be truthy.
        assert_eq!(
            disabled_by(&env(&[("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "0")])).as_deref(),
            Some("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=0")
        );
        assert_eq!(disabled_by(&env(&[("DISABLE_TELEMETRY", "")])), None);
        assert_eq!(disabled_by(&env(&[("DO_NOT_TRACK", "0")])), None);
        assert!(disabled_by(&env(&[("DO_NOT_TRACK", "1")])).is_some());
        // The disk-cache switch keeps the cache readable with telemetry off...
        let kept = [
            ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"),
            ("CLAUDE_CODE_GB_DISK_CACHE_WHEN_TELEMETRY_OFF", "1"),
        ];
        assert_eq!(disabled_by(&env(&kept)), None);
        // ...but not when flags are disabled outright.
        let flags_off = [
            ("CLAUDE_CODE_DISABLE_FEATURE_FLAGS", "yes"),
            ("CLAUDE_CODE_GB_DISK_CACHE_WHEN_TELEMETRY_OFF", "1"),
        ];
        assert!(disabled_by(&env(&flags_off)).is_some());
    }

    #[test]
    fn lookup_reports_cached_absent_and_disabled() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(".claude.json");
        std::fs::write(&file, r#"{"cachedGrowthBookFeatures": {"tengu_moth_copse": "yes"}}"#).unwrap();
        let file = file.to_string_lossy().into_owned();
        let f = lookup(&env(&[]), Some(&file), MOTH_COPSE);
        assert_eq!(f.source(), "cached");
        assert!(f.is_on());
        assert!(f.describe().contains("the server may have changed it since"));
        let absent = lookup(&env(&[]), Some(&file), ONYX_PLOVER);
        assert_eq!(absent.source(), "absent");
        assert!(!absent.is_on());
        let off = lookup(&env(&[("DO_NOT_TRACK", "true")]), Some(&file), MOTH_COPSE);
        assert_eq!(off.source(), "disabled");
        assert!(!off.is_on());
        assert!(off.describe().contains("disabled by DO_NOT_TRACK=true"));
        assert_eq!(lookup(&env(&[]), None, MOTH_COPSE).source(), "absent");
        for (v, on) in [
            (json!(false), false),
            (json!(0), false),
            (json!(""), false),
            (json!(null), false),
            (json!(1), true),
            (json!({}), true),
        ] {
            assert_eq!(js_truthy(&v), on, "{v}");
        }
    }

    #[test]
    fn onyx_plover_reads_only_true_booleans_and_positive_thresholds() {
        let p = OnyxPlover::from_value(&json!({"enabled": "true", "available": true, "minHours": 0, "minSessions": 3}));
        assert_eq!(
            p,
            OnyxPlover {
                enabled: false,
                available: true,
                min_hours: None,
                min_sessions: Some(3.0)
            }
        );
        assert!(p.opens());
        assert!(!OnyxPlover::from_value(&json!({})).opens());
        assert!(!OnyxPlover::from_value(&json!(true)).opens());
        assert_eq!(OnyxPlover::from_value(&json!({"minHours": -1.5})).min_hours, None);
        assert_eq!(OnyxPlover::from_value(&json!({"minHours": 1.5})).min_hours, Some(1.5));
    }

    fn flag(state: FlagState) -> Flag {
        Flag {
            name: ONYX_PLOVER,
            file: Some("/h/.claude.json".into()),
            state,
            warning: None,
        }
    }

    fn flag_cached(v: Value) -> Flag {
        flag(FlagState::Cached {
            section: SECTION,
            value: v,
        })
    }

    /// Appendix A.16, the enabled-gate table (the enablement part of it).
    #[test]
    fn dream_enablement_matches_appendix_a16() {
        let set = |b: bool| Some((b, format!("autoDreamEnabled={b} in /s (user)")));
        let value = |f: &Flag, s| dream_enablement(f, s).value;
        let absent = flag(FlagState::Absent);
        assert_eq!(value(&absent, None), None);
        assert_eq!(value(&absent, set(true)), None);
        assert_eq!(value(&absent, set(false)), Some(false));
        assert_eq!(dream_enablement(&absent, None).lever, "flag absent");
        let enabled = flag_cached(json!({"enabled": true}));
        assert_eq!(value(&enabled, None), Some(true));
        assert_eq!(
            dream_enablement(&enabled, None).lever,
            "flag default (cached enabled=true)"
        );
        assert_eq!(value(&enabled, set(true)), Some(true));
        assert_eq!(value(&enabled, set(false)), Some(false));
        let available = flag_cached(json!({"enabled": false, "available": true}));
        assert_eq!(value(&available, set(true)), Some(true));
        assert_eq!(
            dream_enablement(&available, set(true)).lever,
            "autoDreamEnabled=true in /s (user)"
        );
        assert_eq!(value(&available, None), Some(false));
        assert_eq!(value(&available, set(false)), Some(false));
        for off in [json!({"enabled": false, "available": false}), json!({})] {
            let f = flag_cached(off);
            for s in [None, set(true), set(false)] {
                assert_eq!(
                    dream_enablement(&f, s),
                    DreamEnablement {
                        value: Some(false),
                        lever: "flag off (cached)".into()
                    }
                );
            }
        }
        let disabled = flag(FlagState::Disabled {
            variable: "CLAUDE_CODE_DISABLE_FEATURE_FLAGS=1".into(),
        });
        assert_eq!(
            dream_enablement(&disabled, set(true)).lever,
            "flag disabled by CLAUDE_CODE_DISABLE_FEATURE_FLAGS=1"
        );
        assert_eq!(value(&disabled, set(true)), Some(false));
    }

    #[test]
    fn the_report_mirrors_the_cached_fields() {
        let r = OnyxPloverReport::of(&flag_cached(json!({"enabled": true, "minHours": 12})));
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            json!({"source": "cached", "enabled": true, "available": false, "min_hours": 12.0, "min_sessions": null})
        );
        let r = OnyxPloverReport::of(&flag(FlagState::Absent));
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            json!({"source": "absent", "enabled": null, "available": null, "min_hours": null, "min_sessions": null})
        );
    }
}
