//! The output formats of `lint` (SPEC §3.9.1): text, JSON, SARIF 2.1.0 and GitHub
//! workflow commands.

use std::fmt::Write as _;
use std::path::Path;

use serde_json::{Value, json};

use super::fix::Fix;
use super::{Finding, RULES, Severity, counts};

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
    if !color {
        out.push_str(text);
        return;
    }
    let code = match s {
        Severity::Error => "31",
        Severity::Warning => "33",
        Severity::Info => "36",
    };
    let _ = write!(out, "\x1b[{code}m{text}\x1b[0m");
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

/// The JSON document (without `warnings`, which `Output` adds).
pub fn json(findings: &[Finding], files: usize, memory_dir: &str, fixes: &[Fix], cwd: &Path) -> Value {
    let (e, w, i) = counts(findings);
    let items: Vec<Value> = findings
        .iter()
        .map(|f| {
            json!({
                "id": f.id,
                "name": f.rule().name,
                "severity": f.severity,
                "path": f.path.as_deref().map(|p| shown_path(p, cwd)),
                "abs_path": f.path.as_deref().map(|p| p.to_string_lossy()),
                "line": f.path.as_ref().map(|_| f.line),
                "col": f.path.as_ref().map(|_| f.col),
                "message": f.message,
                "consequence": f.rule().consequence,
                "fixable": f.rule().fixable,
            })
        })
        .collect();
    let fixes: Vec<Value> = fixes
        .iter()
        .map(|x| json!({"id": x.id, "path": x.rel, "applied": x.applied, "diff": x.diff, "skipped": x.skipped}))
        .collect();
    json!({
        "memory_dir": memory_dir,
        "summary": {"errors": e, "warnings": w, "infos": i, "files": files},
        "findings": items,
        "fixes": fixes,
    })
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
pub fn sarif(findings: &[Finding], cwd: &Path) -> Value {
    let rules: Vec<Value> = RULES
        .iter()
        .map(|r| {
            json!({
                "id": r.id,
                "name": r.name,
                "shortDescription": {"text": r.name.replace('-', " ")},
                "fullDescription": {"text": r.consequence},
                "defaultConfiguration": {"level": level(r.severity)},
            })
        })
        .collect();
    let results: Vec<Value> = findings
        .iter()
        .map(|f| {
            let mut r = json!({
                "ruleId": f.id,
                "ruleIndex": RULES.iter().position(|x| x.id == f.id).unwrap_or(0),
                "level": level(f.severity),
                "message": {"text": f.message},
            });
            if let Some(p) = &f.path {
                let uri = match p.strip_prefix(cwd) {
                    Ok(rel) => rel.to_string_lossy().replace('\\', "/"),
                    Err(_) => file_uri(p),
                };
                r["locations"] = json!([{"physicalLocation": {"artifactLocation": {"uri": uri}, "region": {"startLine": f.line, "startColumn": f.col}}}]);
            }
            r
        })
        .collect();
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "memctl", "version": env!("CARGO_PKG_VERSION"), "rules": rules}},
            "results": results,
        }],
    })
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
