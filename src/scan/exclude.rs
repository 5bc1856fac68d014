//! (2.1.332) The paths Claude Code's scan of the main memory dir skips (SPEC §2.5
//! step 2), and the store-mode rules that change what it lists (§2.13): the team
//! store mounts that make `team/<mount>/` part of the scan, and the body-line
//! fallback for descriptions.

use serde::Serialize;
use unicode_normalization::UnicodeNormalization;

/// Why Claude Code 2.1.332's scan skips a file (JSON `excluded_by`, SPEC §3.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Exclusion {
    /// A path segment starts with `.` (`.dot.md`, `.hidden/x.md`).
    DotSegment,
    Logs,
    Sessions,
    Proposals,
    /// Under `team/<dir>/` where `<dir>` is not a team store's mount.
    TeamSubdir,
}

impl Exclusion {
    pub fn as_str(self) -> &'static str {
        match self {
            Exclusion::DotSegment => "dot-segment",
            Exclusion::Logs => "logs",
            Exclusion::Sessions => "sessions",
            Exclusion::Proposals => "proposals",
            Exclusion::TeamSubdir => "team-subdir",
        }
    }

    /// The path as a user reads it in a note: `under logs/`.
    pub fn describe(self) -> &'static str {
        match self {
            Exclusion::DotSegment => "under a dot-named path",
            Exclusion::Logs => "under logs/",
            Exclusion::Sessions => "under sessions/",
            Exclusion::Proposals => "under proposals/",
            Exclusion::TeamSubdir => "under a team/ subdirectory that is no team store",
        }
    }
}

/// What decides the scan's rules beyond the dir itself (SPEC §2.13): whether
/// memory stores are configured (`CLAUDE_MEMORY_STORES` set: recall mode, store-mode
/// manifest rules), and the mounts of its team stores. The default is no stores.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScanRules {
    /// `CLAUDE_MEMORY_STORES` is set to a non-blank value.
    pub stores: bool,
    /// The `mount` of each team store (`team/<mount>/` is scanned).
    pub team_mounts: Vec<String>,
}

impl ScanRules {
    /// The rules for a `CLAUDE_MEMORY_STORES` value (`None`: unset), parsed by
    /// [`crate::paths::stores`]. An invalid value still counts as set, with no
    /// stores (SPEC §2.13).
    pub fn from_stores_var(raw: Option<&str>) -> ScanRules {
        ScanRules::from_stores(&crate::paths::stores::Stores::from_value(raw))
    }

    /// The rules the configured memory stores decide.
    pub fn from_stores(stores: &crate::paths::stores::Stores) -> ScanRules {
        ScanRules {
            stores: stores.is_set(),
            team_mounts: stores.team().map(|s| s.mount.clone()).collect(),
        }
    }

    /// The rules of memctl's environment: `CLAUDE_MEMORY_STORES` (SPEC §2.13).
    pub fn from_env() -> ScanRules {
        let raw = std::env::var("CLAUDE_MEMORY_STORES").ok();
        ScanRules::from_stores_var(raw.as_deref())
    }

    /// Why the scan skips `rel` (`/`-separated, relative to the memory dir), if it does.
    pub fn excluded_by(&self, rel: &str) -> Option<Exclusion> {
        let segments: Vec<&str> = rel.split('/').collect();
        let first = normalized(segments[0]);
        match &*first {
            "logs" => return Some(Exclusion::Logs),
            "sessions" => return Some(Exclusion::Sessions),
            "proposals" => return Some(Exclusion::Proposals),
            "team" if !segments[0].starts_with('.') => {
                // `team/<file>.md` is kept, also when dot-named.
                if segments.len() == 2 {
                    return None;
                }
                if !self.team_mounts.iter().any(|m| m == segments[1]) {
                    return Some(Exclusion::TeamSubdir);
                }
            }
            _ => {}
        }
        segments
            .iter()
            .any(|s| s.starts_with('.'))
            .then_some(Exclusion::DotSegment)
    }

    /// Whether `rel` lies in a team store's mount (synced content, SPEC §2.13).
    pub fn in_store_mount(&self, rel: &str) -> bool {
        let mut it = rel.split('/');
        let (Some(first), Some(mount), Some(_)) = (it.next(), it.next(), it.next()) else {
            return false;
        };
        normalized(first) == "team" && self.team_mounts.iter().any(|m| m == mount)
    }
}

/// A first segment as Claude Code compares it: NFC, trailing dots and spaces
/// removed, lower-cased (`Logs.` is `logs`). An ASCII segment (nearly every one)
/// is its own NFC and lower-cases byte by byte: no Unicode tables, and no copy
/// when it is lower case already (the NFC pass cost lint 20 000 instructions a
/// file, three times).
fn normalized(segment: &str) -> std::borrow::Cow<'_, str> {
    if segment.is_ascii() {
        let t = segment.trim_end_matches(['.', ' ']);
        return if t.bytes().any(|b| b.is_ascii_uppercase()) {
            std::borrow::Cow::Owned(t.to_ascii_lowercase())
        } else {
            std::borrow::Cow::Borrowed(t)
        };
    }
    let nfc: String = segment.nfc().collect();
    std::borrow::Cow::Owned(nfc.trim_end_matches(['.', ' ']).to_lowercase())
}

/// The description Claude Code's store-mode scan gives a file without one (SPEC
/// §2.5 step 5): the first non-empty line of the head's body, a leading `#`–`######`
/// heading mark and the whitespace after it removed, trimmed, cut to 120 units.
pub fn body_line_description(body: &str) -> Option<String> {
    let line = body.split('\n').map(str::trim).find(|l| !l.is_empty())?;
    let hashes = line.len() - line.trim_start_matches('#').len();
    let rest = if (1..=6).contains(&hashes) && line[hashes..].starts_with(char::is_whitespace) {
        line[hashes..].trim_start()
    } else {
        line
    };
    let text = rest.trim();
    let mut units = 0;
    let mut out = String::new();
    for c in text.chars() {
        units += c.len_utf16();
        if units > 120 {
            break;
        }
        out.push(c);
    }
    (!out.is_empty()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ASCII fast path of [`normalized`] gives what NFC and `to_lowercase` give.
    #[test]
    fn ascii_segments_normalize_as_the_full_path_does() {
        let full = |s: &str| {
            let nfc: String = s.nfc().collect();
            nfc.trim_end_matches(['.', ' ']).to_lowercase()
        };
        for s in [
            "",
            "logs",
            "Logs.",
            "LOGS . .",
            "team",
            "Team",
            ".team",
            "sessions ",
            "proposals..",
            "a.md",
            "x y",
            "TEAM\t",
            "Logs\u{301}",
            "ʟogs",
            "Team.\u{a0}",
            "\u{212a}elvin",
            "caf\u{e9}",
        ] {
            assert_eq!(normalized(s), full(s), "{s:?}");
        }
    }

    #[test]
    fn exclusions_of_the_2_1_332_scan() {
        let r = ScanRules::default();
        let cases = [
            (".dot.md", Some(Exclusion::DotSegment)),
            (".hidden/x.md", Some(Exclusion::DotSegment)),
            ("sub/.x/y.md", Some(Exclusion::DotSegment)),
            ("logs/x.md", Some(Exclusion::Logs)),
            ("Logs./x.md", Some(Exclusion::Logs)),
            ("LOGS /x.md", Some(Exclusion::Logs)),
            ("sessions/s.md", Some(Exclusion::Sessions)),
            ("proposals/p.md", Some(Exclusion::Proposals)),
            ("sub/logs/x.md", None),
            ("team/t.md", None),
            ("team/.t.md", None),
            ("team/sub/x.md", Some(Exclusion::TeamSubdir)),
            ("logs.md", None),
            ("a.md", None),
        ];
        for (rel, want) in cases {
            assert_eq!(r.excluded_by(rel), want, "{rel}");
        }
    }

    #[test]
    fn a_team_store_mount_is_scanned() {
        let r = ScanRules::from_stores_var(Some(r#"[{"path":"/me","scope":"user"},{"path":"/proj/acme"}]"#));
        assert!(r.stores);
        assert_eq!(r.team_mounts, ["acme"]);
        assert_eq!(r.excluded_by("team/acme/a.md"), None);
        assert_eq!(r.excluded_by("team/other/a.md"), Some(Exclusion::TeamSubdir));
        assert!(r.in_store_mount("team/acme/a.md"));
        assert!(!r.in_store_mount("team/t.md"));
        let bad = ScanRules::from_stores_var(Some("not json"));
        assert!(bad.stores && bad.team_mounts.is_empty());
        assert_eq!(ScanRules::from_stores_var(Some("  ")), ScanRules::default());
    }

    #[test]
    fn body_line_fallback() {
        assert_eq!(
            body_line_description("\n## Heading line\nmore\n").as_deref(),
            Some("Heading line")
        );
        assert_eq!(
            body_line_description("  just a body  \n").as_deref(),
            Some("just a body")
        );
        assert_eq!(body_line_description("\n \n").as_deref(), None);
        assert_eq!(body_line_description(&"x".repeat(200)).map(|s| s.len()), Some(120));
    }
}
