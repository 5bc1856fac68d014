//! The output formats of `lint` (SPEC §3.9.1): text, JSON, SARIF 2.1.0 and GitHub
//! workflow commands.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;
use serde_json::Value;

use super::fix::Fix;
use super::{Finding, RULES, RuleId, Severity, counts};

/// A finding's path: relative to `cwd` when below it, else absolute.
pub fn shown_path(p: &Path, cwd: &Path) -> String {
    // The common case by bytes: `cwd` + `/` + a plain remainder, as
    // `strip_prefix` would give it (which handles `.`, `//` and the like).
    let (pb, cb) = (p.as_os_str().as_encoded_bytes(), cwd.as_os_str().as_encoded_bytes());
    if let Some(rest) = pb.strip_prefix(cb).and_then(|r| r.strip_prefix(b"/"))
        && !cb.is_empty()
        && !cb.ends_with(b"/")
        && !rest.is_empty()
        && !rest.starts_with(b"/")
        && !rest.starts_with(b"./")
        && rest != b"."
    {
        return String::from_utf8_lossy(rest).into_owned();
    }
    match p.strip_prefix(cwd) {
        Ok(rel) if !rel.as_os_str().is_empty() => rel.to_string_lossy().into_owned(),
        _ => p.to_string_lossy().into_owned(),
    }
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// `3 errors, 5 warnings, 2 infos in 14 files`.
pub fn summary(findings: &[Finding], files: usize) -> String {
    let (e, w, i) = counts(findings);
    format!(
        "{}, {}, {} in {}",
        plural(e, "error"),
        plural(w, "warning"),
        plural(i, "info"),
        plural(files, "file")
    )
}

fn paint(out: &mut String, text: &str, s: Severity, color: bool) {
    use crate::output::Tone;
    let tone = match s {
        Severity::Error => Tone::Error,
        Severity::Warning => Tone::Warning,
        Severity::Info => Tone::Note,
    };
    out.push_str(&crate::output::paint(color, tone, text));
}

/// One line per finding: `<path>:<line>:<col>: <severity>[<id>/<name>]: <message>`.
pub fn text(findings: &[Finding], cwd: &Path, color: bool) -> String {
    let mut s = String::new();
    let mut last: Option<(&Path, String)> = None;
    for f in findings {
        // Findings come sorted by path: convert each path once.
        match f.path.as_deref() {
            None => s.push('-'),
            Some(p) => {
                if last.as_ref().is_none_or(|(lp, _)| *lp != p) {
                    last = Some((p, shown_path(p, cwd)));
                }
                s.push_str(last.as_ref().map_or("", |(_, shown)| shown));
            }
        }
        let _ = write!(s, ":{}:{}: ", f.line, f.col);
        paint(&mut s, f.severity.as_str(), f.severity, color);
        let _ = writeln!(s, "[{}/{}]: {}", f.id, f.rule().name, f.message);
    }
    s
}

/// The `lint --json` document (SPEC §3.9.1), without `warnings` (which `Output`
/// adds).
#[derive(Serialize)]
pub struct JsonReport<'a> {
    pub memory_dir: &'a str,
    pub summary: Summary,
    pub findings: Vec<JsonFinding<'a>>,
    pub fixes: &'a [Fix],
}

#[derive(Serialize)]
pub struct Summary {
    pub errors: usize,
    pub warnings: usize,
    pub infos: usize,
    pub files: usize,
}

/// One finding in JSON: `path`, `abs_path`, `line` and `col` are null for a
/// finding that concerns no file.
#[derive(Serialize)]
pub struct JsonFinding<'a> {
    pub id: RuleId,
    pub name: &'static str,
    pub severity: Severity,
    pub path: Option<String>,
    pub abs_path: Option<Cow<'a, str>>,
    pub line: Option<usize>,
    pub col: Option<usize>,
    pub message: &'a str,
    pub consequence: &'static str,
    pub fixable: bool,
}

impl<'a> JsonFinding<'a> {
    pub fn new(f: &'a Finding, cwd: &Path) -> JsonFinding<'a> {
        let rule = f.rule();
        JsonFinding {
            id: f.id,
            name: rule.name,
            severity: f.severity,
            path: f.path.as_deref().map(|p| shown_path(p, cwd)),
            abs_path: f.path.as_deref().map(|p| p.to_string_lossy()),
            line: f.path.as_ref().map(|_| f.line),
            col: f.path.as_ref().map(|_| f.col),
            message: &f.message,
            consequence: rule.consequence,
            fixable: rule.fixable,
        }
    }
}

impl<'a> JsonReport<'a> {
    pub fn new(findings: &'a [Finding], files: usize, memory_dir: &'a str, fixes: &'a [Fix], cwd: &Path) -> Self {
        let (errors, warnings, infos) = counts(findings);
        JsonReport {
            memory_dir,
            summary: Summary {
                errors,
                warnings,
                infos,
                files,
            },
            findings: findings.iter().map(|f| JsonFinding::new(f, cwd)).collect(),
            fixes,
        }
    }
}

/// The JSON document as a value (see [`JsonReport`]).
pub fn json(findings: &[Finding], files: usize, memory_dir: &str, fixes: &[Fix], cwd: &Path) -> Value {
    to_value(&JsonReport::new(findings, files, memory_dir, fixes, cwd))
}

/// A report as a JSON value: its types hold only strings, numbers, booleans,
/// options and sequences, which always convert.
fn to_value(doc: &impl Serialize) -> Value {
    serde_json::to_value(doc).expect("a lint report always converts to JSON")
}

/// SARIF's `level` for a severity.
fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// A `file://` URI for an absolute path.
fn file_uri(p: &Path) -> String {
    let mut s = String::from("file://");
    for b in p.to_string_lossy().bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            s.push(b as char);
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    s
}

/// A SARIF 2.1.0 log with one run.
#[derive(Serialize)]
pub struct Sarif<'a> {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: [SarifRun<'a>; 1],
}

#[derive(Serialize)]
struct SarifRun<'a> {
    tool: SarifTool,
    results: Vec<SarifResult<'a>>,
}

#[derive(Serialize)]
struct SarifTool {
    driver: SarifDriver,
}

#[derive(Serialize)]
struct SarifDriver {
    name: &'static str,
    version: &'static str,
    rules: Vec<SarifRule>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifRule {
    id: RuleId,
    name: &'static str,
    short_description: SarifText<String>,
    full_description: SarifText<&'static str>,
    default_configuration: SarifLevel,
}

#[derive(Serialize)]
struct SarifText<T> {
    text: T,
}

#[derive(Serialize)]
struct SarifLevel {
    level: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult<'a> {
    rule_id: RuleId,
    rule_index: usize,
    level: &'static str,
    message: SarifText<&'a str>,
    /// Absent for a finding that concerns no file.
    #[serde(skip_serializing_if = "Option::is_none")]
    locations: Option<[SarifLocation; 1]>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifLocation {
    physical_location: SarifPhysical,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifPhysical {
    artifact_location: SarifArtifact,
    region: SarifRegion,
}

#[derive(Serialize)]
struct SarifArtifact {
    uri: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifRegion {
    start_line: usize,
    start_column: usize,
}

impl SarifResult<'_> {
    fn new<'a>(f: &'a Finding, cwd: &Path) -> SarifResult<'a> {
        let locations = f.path.as_deref().map(|p| {
            let uri = match p.strip_prefix(cwd) {
                Ok(rel) => rel.to_string_lossy().replace('\\', "/"),
                Err(_) => file_uri(p),
            };
            [SarifLocation {
                physical_location: SarifPhysical {
                    artifact_location: SarifArtifact { uri },
                    region: SarifRegion {
                        start_line: f.line,
                        start_column: f.col,
                    },
                },
            }]
        });
        SarifResult {
            rule_id: f.id,
            rule_index: f.id as usize,
            level: level(f.severity),
            message: SarifText { text: &f.message },
            locations,
        }
    }
}

/// The SARIF log of `findings`, with every rule in the driver.
pub fn sarif<'a>(findings: &'a [Finding], cwd: &Path) -> Sarif<'a> {
    let rules = RULES
        .iter()
        .map(|r| SarifRule {
            id: r.id,
            name: r.name,
            short_description: SarifText {
                text: r.name.replace('-', " "),
            },
            full_description: SarifText { text: r.consequence },
            default_configuration: SarifLevel {
                level: level(r.severity),
            },
        })
        .collect();
    Sarif {
        schema: "https://json.schemastore.org/sarif-2.1.0.json",
        version: "2.1.0",
        runs: [SarifRun {
            tool: SarifTool {
                driver: SarifDriver {
                    name: "memctl",
                    version: env!("CARGO_PKG_VERSION"),
                    rules,
                },
            },
            results: findings.iter().map(|f| SarifResult::new(f, cwd)).collect(),
        }],
    }
}

fn escape_data(s: &str) -> String {
    s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// GitHub Actions workflow commands, one per finding.
pub fn github(findings: &[Finding], cwd: &Path) -> String {
    let mut s = String::new();
    for f in findings {
        let cmd = match f.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "notice",
        };
        let title = escape_property(&format!("{} {}", f.id, f.rule().name));
        let location = f.path.as_deref().map_or(String::new(), |p| {
            format!(
                "file={},line={},col={},",
                escape_property(&shown_path(p, cwd)),
                f.line,
                f.col
            )
        });
        s.push_str(&format!(
            "::{cmd} {location}title={title}::{}\n",
            escape_data(&f.message)
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shown_path_agrees_with_strip_prefix() {
        let reference = |p: &Path, cwd: &Path| match p.strip_prefix(cwd) {
            Ok(rel) if !rel.as_os_str().is_empty() => rel.to_string_lossy().into_owned(),
            _ => p.to_string_lossy().into_owned(),
        };
        let cases = [
            ("/a/b/c.md", "/a/b"),
            ("/a/b/sub/c.md", "/a/b"),
            ("/a/b//c.md", "/a/b"),
            ("/a/b/./c.md", "/a/b"),
            ("/a/b/.", "/a/b"),
            ("/a/bc/d.md", "/a/b"),
            ("/a/b", "/a/b"),
            ("/a/b/", "/a/b"),
            ("/a/b/c.md", "/a/b/"),
            ("/a/./b/c.md", "/a/b"),
            ("/a/b/c.md", "/a/./b"),
            ("/a/b/../c.md", "/a/b"),
            ("/x/c.md", "/a/b"),
            ("/a/b/c.md", "/"),
            ("/a/b/c.md", ""),
            ("rel/c.md", "rel"),
        ];
        for (p, cwd) in cases {
            let (p, cwd) = (Path::new(p), Path::new(cwd));
            assert_eq!(shown_path(p, cwd), reference(p, cwd), "{p:?} under {cwd:?}");
        }
    }
}
