//! The output formats of `lint` (SPEC §3.9.1): text, JSON, SARIF 2.1.0 and GitHub
//! workflow commands.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;

use super::fix::Fix;
use super::{Finding, Found, RULES, RuleId, Severity, counts};

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

/// `3 errors, 5 warnings, 2 infos in 14 files`, from the counts of errors,
/// warnings and infos.
pub fn summary((e, w, i): (usize, usize, usize), files: usize) -> String {
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
    let _ = text_chunked(findings.iter().cloned(), cwd, color, |chunk| {
        s.push_str(chunk);
        Ok(())
    });
    s
}

/// [`text`] handed to `emit` a chunk of lines at a time, so that a large report
/// (25 000 findings) is never held whole as text, nor its findings as records.
pub fn text_chunked(
    findings: impl IntoIterator<Item = Finding>,
    cwd: &Path,
    color: bool,
    mut emit: impl FnMut(&str) -> std::io::Result<()>,
) -> std::io::Result<()> {
    const CHUNK: usize = 64 << 10;
    let mut s = String::new();
    let mut last: Option<(std::sync::Arc<Path>, String)> = None;
    for f in findings {
        if s.len() >= CHUNK {
            emit(&s)?;
            s.clear();
        }
        // Findings come sorted by path: convert each path once.
        match &f.path {
            None => s.push('-'),
            Some(p) => {
                if last.as_ref().is_none_or(|(lp, _)| **lp != **p) {
                    // One finding a line: a newline or tab in a name is escaped
                    // (SPEC v3 §3.14).
                    last = Some((p.clone(), crate::text::escape_name(&shown_path(p, cwd)).into_owned()));
                }
                s.push_str(last.as_ref().map_or("", |(_, shown)| shown));
            }
        }
        let _ = write!(s, ":{}:{}: ", f.line, f.col);
        paint(&mut s, f.severity.as_str(), f.severity, color);
        let _ = writeln!(
            s,
            "[{}/{}]: {}",
            f.id,
            f.rule().name,
            crate::text::escape_controls(&f.message)
        );
    }
    emit(&s)
}

/// A rule fires on more than this many lines of one file: the terminal layout
/// shows it once (SPEC §3.13).
pub const AGGREGATE_OVER: usize = 5;

/// One line of the terminal layout: a finding, or a rule's findings in one file.
enum Item<'a> {
    One(&'a Finding),
    Many(Vec<&'a Finding>),
}

impl Item<'_> {
    /// The finding the line is anchored at (the first occurrence).
    fn first(&self) -> &Finding {
        match self {
            Item::One(f) => f,
            Item::Many(fs) => fs[0],
        }
    }

    /// The highest severity among the findings of the line.
    fn severity(&self) -> Severity {
        match self {
            Item::One(f) => f.severity,
            Item::Many(fs) => fs.iter().map(|f| f.severity).max().unwrap_or(Severity::Info),
        }
    }
}

/// The terminal layout of `lint` text output (SPEC §3.13): a header line naming
/// `dir`, then the findings grouped by file (paths relative to `dir`; a file
/// outside it as in [`shown_path`]), errors first: files in the order of their
/// worst finding, and in a file by severity, then line. A rule that fires on more
/// than [`AGGREGATE_OVER`] lines of a file is one line, anchored at its first
/// occurrence, with the highest severity among them. Returns the text and
/// whether a line aggregates findings.
pub fn terminal(findings: &[Finding], dir: &Path, cwd: &Path, color: bool) -> (String, bool) {
    let mut groups: Vec<(Option<&Path>, Vec<&Finding>)> = Vec::new();
    for f in findings {
        match groups.last_mut() {
            Some((p, fs)) if *p == f.path.as_deref() => fs.push(f),
            _ => groups.push((f.path.as_deref(), vec![f])),
        }
    }
    let mut aggregated = false;
    let mut files: Vec<(Option<&Path>, Vec<Item>)> = groups
        .into_iter()
        .map(|(path, fs)| {
            let items = items_of(fs);
            aggregated |= items.iter().any(|i| matches!(i, Item::Many(_)));
            (path, items)
        })
        .collect();
    // Stable: files with the same worst severity keep their path order.
    files.sort_by_key(|(_, items)| std::cmp::Reverse(items.iter().map(Item::severity).max()));
    let mut s = crate::output::paint(
        color,
        crate::output::Tone::Bold,
        &format!("memory dir: {}", shown_dir(dir, cwd)),
    );
    s.push('\n');
    for (path, items) in &files {
        s.push('\n');
        let shown = path.map_or_else(
            || "-".to_string(),
            |p| crate::text::escape_name(&relative_to_dir(p, dir, cwd)).into_owned(),
        );
        for item in items {
            let f = item.first();
            let sev = item.severity();
            let _ = write!(s, "{shown}:{}:{}: ", f.line, f.col);
            paint(&mut s, sev.as_str(), sev, color);
            let message = match item {
                Item::One(f) => Cow::Borrowed(&*f.message),
                Item::Many(fs) => Cow::Owned(aggregate_message(fs)),
            };
            let _ = writeln!(
                s,
                "[{}/{}]: {}",
                f.id,
                f.rule().name,
                crate::text::escape_controls(&message)
            );
        }
    }
    (s, aggregated)
}

/// The dir of the header: relative to `cwd` when below it, with one trailing `/`.
fn shown_dir(dir: &Path, cwd: &Path) -> String {
    let shown = shown_path(dir, cwd);
    if shown.ends_with('/') {
        shown
    } else {
        format!("{shown}/")
    }
}

/// A finding's path in the terminal layout: relative to the memory dir when
/// inside it, else as in [`shown_path`].
fn relative_to_dir(p: &Path, dir: &Path, cwd: &Path) -> String {
    match p.strip_prefix(dir) {
        Ok(rel) if !rel.as_os_str().is_empty() => rel.to_string_lossy().into_owned(),
        _ => shown_path(p, cwd),
    }
}

/// One file's findings as lines: a rule on more than [`AGGREGATE_OVER`] distinct
/// lines becomes one line; sorted by severity (highest first), line, column, rule.
fn items_of(fs: Vec<&Finding>) -> Vec<Item<'_>> {
    let mut by_rule: Vec<(RuleId, Vec<&Finding>)> = Vec::new();
    for f in fs {
        match by_rule.iter_mut().find(|(id, _)| *id == f.id) {
            Some((_, v)) => v.push(f),
            None => by_rule.push((f.id, vec![f])),
        }
    }
    let mut items = Vec::new();
    for (_, v) in by_rule {
        let mut lines: Vec<usize> = v.iter().map(|f| f.line).collect();
        lines.dedup();
        lines.sort_unstable();
        lines.dedup();
        if lines.len() > AGGREGATE_OVER {
            items.push(Item::Many(v));
        } else {
            items.extend(v.into_iter().map(Item::One));
        }
    }
    items.sort_by_key(|i| {
        let f = i.first();
        (std::cmp::Reverse(i.severity()), f.line, f.col, f.id)
    });
    items
}

/// `2–4, 9, 11–14`; more than 4 runs: the span, `2–108`.
fn line_runs(fs: &[&Finding]) -> String {
    let mut lines: Vec<usize> = fs.iter().map(|f| f.line).collect();
    lines.sort_unstable();
    lines.dedup();
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for l in lines {
        match runs.last_mut() {
            Some((_, end)) if *end + 1 == l => *end = l,
            _ => runs.push((l, l)),
        }
    }
    let run = |(a, b): (usize, usize)| if a == b { a.to_string() } else { format!("{a}–{b}") };
    match (runs.first(), runs.last()) {
        (Some(first), Some(last)) if runs.len() > 4 => run((first.0, last.1)),
        _ => runs.into_iter().map(run).collect::<Vec<_>>().join(", "),
    }
}

/// The length an ML204 message gives (`index line is 190 chars …`).
fn long_line_len(f: &Finding) -> Option<usize> {
    f.message
        .strip_prefix("index line is ")?
        .split(' ')
        .next()?
        .parse()
        .ok()
}

/// What a line standing for several findings of one rule says.
fn aggregate_message(fs: &[&Finding]) -> String {
    let n = fs.len();
    let lines = line_runs(fs);
    let id = fs[0].id;
    if id == RuleId::ML204 {
        let longest = fs.iter().filter_map(|f| long_line_len(f)).max().unwrap_or(0);
        let over_200 = fs.iter().filter(|f| f.severity == Severity::Warning).count();
        let over = if over_200 == n {
            "over 200 chars".to_string()
        } else if over_200 > 0 {
            format!("over 150 chars, {over_200} of them over 200")
        } else {
            "over 150 chars".to_string()
        };
        return format!("{n} index lines {over} (lines {lines}; longest {longest})");
    }
    let noun = match id {
        RuleId::ML201 => "links to missing files",
        RuleId::ML134 => "links to missing memories",
        RuleId::ML202 => "links leaving the memory dir",
        RuleId::ML209 => "lines linking an already indexed file",
        RuleId::ML210 => "index lines not in the canonical form `- [Title](file.md) — hook`",
        RuleId::ML211 => "runs of memory content in the index",
        RuleId::ML214 => "links to something that is not a .md file",
        RuleId::ML116 => "relative dates",
        RuleId::ML121 => "secret-like tokens",
        RuleId::ML112 => "values cut by ` #`",
        RuleId::ML113 => "duplicate keys",
        _ => "findings",
    };
    if id == RuleId::ML210 {
        return format!("{n} {noun} (lines {lines})");
    }
    format!("{n} {noun} (lines {lines}; first: {})", fs[0].message)
}

/// `--summary`: the findings counted by rule and severity, highest severity
/// first, then by id: `  96  info     ML204  index-line-long`.
pub fn by_rule(findings: &[Finding]) -> String {
    let mut counts: Vec<((Severity, RuleId), usize)> = Vec::new();
    for f in findings {
        let key = (f.severity, f.id);
        match counts.iter_mut().find(|(k, _)| *k == key) {
            Some((_, n)) => *n += 1,
            None => counts.push((key, 1)),
        }
    }
    counts.sort_by_key(|((sev, id), _)| (std::cmp::Reverse(*sev), *id));
    let width = counts.iter().map(|(_, n)| n.to_string().len()).max().unwrap_or(1);
    let name_width = counts
        .iter()
        .map(|((_, id), _)| id.rule().name.len())
        .max()
        .unwrap_or(0);
    let mut s = String::new();
    for ((sev, id), n) in counts {
        let _ = writeln!(
            s,
            "{n:>width$}  {:<7}  {id}  {:<name_width$}",
            sev.as_str(),
            id.rule().name
        );
    }
    s.lines().map(|l| format!("{}\n", l.trim_end())).collect()
}

/// `text` wrapped at spaces ([`crate::output::wrap`]) to lines of at most `width`
/// columns (a longer word stays whole), each line starting with `indent` and
/// ending in a newline.
pub fn wrap_indented(text: &str, indent: &str, width: usize) -> String {
    let room = width.saturating_sub(indent.chars().count()).max(20);
    crate::output::wrap(text, room)
        .into_iter()
        .map(|line| format!("{indent}{line}\n"))
        .collect()
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
            consequence: &rule.consequence,
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

/// The `lint --json` document as it is written (see [`JsonReport`]): each finding
/// is converted as it is serialized, so that no second copy of the findings (nor
/// a JSON tree of them) is held (issue 31: `lint --format json` streams).
#[derive(Serialize)]
pub struct JsonDoc<'a> {
    memory_dir: &'a str,
    summary: Summary,
    findings: JsonFindings<'a>,
    fixes: &'a [Fix],
}

/// The findings of a [`JsonDoc`], unpacked and serialized one [`JsonFinding`] at
/// a time.
struct JsonFindings<'a> {
    all: &'a Found,
    cwd: &'a Path,
}

impl Serialize for JsonFindings<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = s.serialize_seq(Some(self.all.len()))?;
        for f in self.all.iter() {
            seq.serialize_element(&JsonFinding::new(&f, self.cwd))?;
        }
        seq.end()
    }
}

/// The JSON document of a report (see [`JsonDoc`]).
pub fn json<'a>(
    findings: &'a Found,
    files: usize,
    memory_dir: &'a str,
    fixes: &'a [Fix],
    cwd: &'a Path,
) -> JsonDoc<'a> {
    let (errors, warnings, infos) = findings.counts();
    JsonDoc {
        memory_dir,
        summary: Summary {
            errors,
            warnings,
            infos,
            files,
        },
        findings: JsonFindings { all: findings, cwd },
        fixes,
    }
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
            full_description: SarifText { text: &r.consequence },
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

    fn finding(id: RuleId, path: Option<&str>, line: usize, sev: Severity, msg: &str) -> Finding {
        Finding {
            id,
            severity: sev,
            path: path.map(|p| std::sync::Arc::from(std::path::Path::new(p))),
            line,
            col: 1,
            message: msg.into(),
        }
    }

    #[test]
    fn terminal_puts_errors_first_and_paths_relative_to_the_dir() {
        let f = [
            finding(RuleId::ML109, Some("/m/a.md"), 5, Severity::Info, "nested"),
            finding(RuleId::ML201, Some("/m/MEMORY.md"), 3, Severity::Error, "dangling"),
            finding(RuleId::ML210, Some("/m/MEMORY.md"), 2, Severity::Info, "canon"),
            finding(
                RuleId::ML401,
                Some("/p/.claude/settings.json"),
                2,
                Severity::Warning,
                "ignored",
            ),
            finding(RuleId::ML403, None, 1, Severity::Info, "disabled"),
        ];
        let (text, aggregated) = terminal(&f, Path::new("/m"), Path::new("/p"), false);
        assert!(!aggregated);
        assert_eq!(
            text,
            "memory dir: /m/\n\n\
             MEMORY.md:3:1: error[ML201/index-dangling]: dangling\n\
             MEMORY.md:2:1: info[ML210/index-noncanonical]: canon\n\n\
             .claude/settings.json:2:1: warning[ML401/project-setting-moves-memory]: ignored\n\n\
             a.md:5:1: info[ML109/type-conflict]: nested\n\n\
             -:1:1: info[ML403/memory-disabled]: disabled\n"
        );
    }

    #[test]
    fn terminal_aggregates_a_rule_on_more_than_five_lines() {
        let mut f: Vec<Finding> = (1..=6)
            .map(|l| {
                finding(
                    RuleId::ML201,
                    Some("/m/MEMORY.md"),
                    l * 2,
                    Severity::Error,
                    &format!("gone {l}"),
                )
            })
            .collect();
        f.push(finding(
            RuleId::ML204,
            Some("/m/MEMORY.md"),
            1,
            Severity::Info,
            "index line is 160 chars (x)",
        ));
        let (text, aggregated) = terminal(&f, Path::new("/m"), Path::new("/x"), false);
        assert!(aggregated);
        assert_eq!(
            text,
            "memory dir: /m/\n\n\
             MEMORY.md:2:1: error[ML201/index-dangling]: 6 links to missing files (lines 2–12; first: gone 1)\n\
             MEMORY.md:1:1: info[ML204/index-line-long]: index line is 160 chars (x)\n"
        );
        // Five lines stay five lines.
        let (text, aggregated) = terminal(&f[..5], Path::new("/m"), Path::new("/x"), false);
        assert!(!aggregated);
        assert_eq!(text.lines().count(), 7);
    }

    #[test]
    fn aggregated_long_lines_name_the_count_the_span_and_the_longest() {
        let f: Vec<Finding> = [(2, 160), (3, 210), (4, 747), (5, 151), (9, 199), (40, 201)]
            .iter()
            .map(|&(l, n)| {
                let sev = if n > 200 { Severity::Warning } else { Severity::Info };
                finding(
                    RuleId::ML204,
                    Some("/m/MEMORY.md"),
                    l,
                    sev,
                    &format!("index line is {n} chars (guidance)"),
                )
            })
            .collect();
        let refs: Vec<&Finding> = f.iter().collect();
        assert_eq!(
            aggregate_message(&refs),
            "6 index lines over 150 chars, 3 of them over 200 (lines 2–5, 9, 40; longest 747)"
        );
    }

    #[test]
    fn wrap_keeps_words_whole() {
        assert_eq!(wrap_indented("aa bb cc", "  ", 7), "  aa bb cc\n");
        assert_eq!(
            wrap_indented(&"word ".repeat(10), "  ", 24),
            "  word word word word\n  word word word word\n  word word\n"
        );
    }
}
