//! A rule's page under `rules/` (issue 35): the one place that says a rule's name,
//! severity, whether `--fix` handles it, its consequence and its explanation. The
//! pages are compiled in ([`super::rules`]); `lint --list-rules`, `lint --explain`,
//! the JSON and SARIF rule texts and the rule table of docs/lint.md all read them
//! ([`super::explain`]).
//!
//! A page is, exactly:
//!
//! ```text
//! # ML203 index-unindexed
//!
//! - **Severity:** warning; info if linked from an indexed memory
//! - **Fixable:** yes
//! - **Consequence:** the memory is never loaded: Claude Code loads only the index
//!
//! ## What Claude Code does
//!
//! One paragraph (wrapped lines are joined by one space).
//!
//! ## Why it matters
//!
//! …
//!
//! ## How to fix
//!
//! …
//! ```
//!
//! The severity's first word is the default severity; the rest of its value is what
//! the docs table adds in brackets. A list item may wrap onto lines indented by two
//! spaces.

use super::rules::Severity;

/// What Claude Code does, why it matters, and how to fix it (`lint --explain`).
#[derive(Debug)]
pub struct Explanation {
    pub claude_code: String,
    pub why: String,
    pub fix: String,
}

/// One parsed rule page.
#[derive(Debug)]
pub struct Page {
    pub id: &'static str,
    pub name: &'static str,
    /// The default severity (the first word of `severity_text`).
    pub severity: Severity,
    /// The severity as written on the page, notes included.
    pub severity_text: String,
    pub fixable: bool,
    pub consequence: String,
    pub explanation: Explanation,
}

/// The list items of a page, in order.
const FIELDS: [&str; 3] = ["Severity", "Fixable", "Consequence"];
/// The sections of a page, in order: the labels `lint --explain` prints.
pub const SECTIONS: [&str; 3] = ["What Claude Code does", "Why it matters", "How to fix"];

/// Parse a rule page (the format in the module doc).
pub fn parse(text: &'static str) -> Result<Page, String> {
    let mut lines = text.lines();
    let (id, name) = heading(lines.next().unwrap_or(""))?;
    let rest: Vec<&str> = lines.collect();
    let split = rest.iter().position(|l| l.starts_with("## ")).unwrap_or(rest.len());
    let [severity_text, fixable, consequence] = fields(&rest[..split])?;
    let [claude_code, why, fix] = sections(&rest[split..])?;
    Ok(Page {
        id,
        name,
        severity: severity(&severity_text)?,
        severity_text,
        fixable: yes_no(&fixable)?,
        consequence,
        explanation: Explanation { claude_code, why, fix },
    })
}

/// `# ML203 index-unindexed`: the id and the name.
fn heading(line: &'static str) -> Result<(&'static str, &'static str), String> {
    line.strip_prefix("# ")
        .and_then(|h| h.split_once(' '))
        .filter(|(id, name)| id.starts_with("ML") && !name.is_empty() && !name.contains(' '))
        .ok_or_else(|| format!("the first line is not `# MLnnn rule-name`: {line:?}"))
}

/// The `- **Key:** value` items before the first section, in the order of [`FIELDS`].
fn fields(lines: &[&str]) -> Result<[String; 3], String> {
    let mut items: Vec<(&str, Vec<&str>)> = Vec::new();
    for line in lines.iter().filter(|l| !l.trim().is_empty()) {
        if let Some((key, value)) = line.strip_prefix("- **").and_then(|l| l.split_once(":** ")) {
            items.push((key, vec![value]));
        } else if let Some(more) = line.strip_prefix("  ").filter(|_| !items.is_empty()) {
            items.last_mut().expect("an item").1.push(more.trim());
        } else {
            return Err(format!("not a `- **Key:** value` item: {line:?}"));
        }
    }
    let keys: Vec<&str> = items.iter().map(|(k, _)| *k).collect();
    if keys != FIELDS {
        return Err(format!("the items are {keys:?}, not {FIELDS:?}"));
    }
    Ok(paragraphs(items))
}

/// The one paragraph of each `## ` section, in the order of [`SECTIONS`].
fn sections(lines: &[&str]) -> Result<[String; 3], String> {
    let mut found: Vec<(&str, Vec<&str>)> = Vec::new();
    for line in lines {
        if let Some(title) = line.strip_prefix("## ") {
            found.push((title, Vec::new()));
        } else if let Some((_, body)) = found.last_mut() {
            body.push(line);
        }
    }
    let titles: Vec<&str> = found.iter().map(|(t, _)| *t).collect();
    if titles != SECTIONS {
        return Err(format!("the sections are {titles:?}, not {SECTIONS:?}"));
    }
    for (title, body) in &mut found {
        *body = trim_blank(body).to_vec();
        if body.is_empty() || body.iter().any(|l| l.trim().is_empty()) {
            return Err(format!("section `{title}` is not one paragraph"));
        }
    }
    Ok(paragraphs(found))
}

/// `lines` without the blank lines at either end.
fn trim_blank<'a, 'b>(lines: &'a [&'b str]) -> &'a [&'b str] {
    let start = lines.iter().position(|l| !l.trim().is_empty()).unwrap_or(lines.len());
    let end = lines
        .iter()
        .rposition(|l| !l.trim().is_empty())
        .map_or(start, |i| i + 1);
    &lines[start..end]
}

/// Three keyed runs of lines (checked to be three) as paragraphs: lines joined by
/// one space.
fn paragraphs(runs: Vec<(&str, Vec<&str>)>) -> [String; 3] {
    let mut values = runs.into_iter().map(|(_, lines)| lines.join(" "));
    std::array::from_fn(|_| values.next().expect("three runs"))
}

/// The default severity: the first word of the page's severity.
fn severity(text: &str) -> Result<Severity, String> {
    let word = text.split(|c: char| !c.is_ascii_alphabetic()).next().unwrap_or("");
    match word {
        "info" => Ok(Severity::Info),
        "warning" => Ok(Severity::Warning),
        "error" => Ok(Severity::Error),
        _ => Err(format!(
            "the severity does not start with info, warning or error: {text:?}"
        )),
    }
}

fn yes_no(text: &str) -> Result<bool, String> {
    match text {
        "yes" => Ok(true),
        "no" => Ok(false),
        _ => Err(format!("fixable is neither yes nor no: {text:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = "# ML203 index-unindexed\n\n- **Severity:** warning; info if linked\n  from an indexed memory\n- **Fixable:** yes\n- **Consequence:** never loaded\n\n## What Claude Code does\n\nIt loads only\nMEMORY.md.\n\n## Why it matters\n\nNever loaded.\n\n## How to fix\n\nRun `memctl lint --fix`.\n";

    #[test]
    fn a_page_gives_its_fields_and_its_paragraphs_joined() {
        let p = parse(PAGE).unwrap();
        assert_eq!((p.id, p.name), ("ML203", "index-unindexed"));
        assert_eq!(p.severity, Severity::Warning);
        assert_eq!(p.severity_text, "warning; info if linked from an indexed memory");
        assert!(p.fixable);
        assert_eq!(p.consequence, "never loaded");
        assert_eq!(p.explanation.claude_code, "It loads only MEMORY.md.");
        assert_eq!(p.explanation.why, "Never loaded.");
        assert_eq!(p.explanation.fix, "Run `memctl lint --fix`.");
    }

    #[test]
    fn a_malformed_page_is_refused_with_what_is_wrong() {
        let bad = |from: &str, to: &str| parse(PAGE.replace(from, to).leak()).unwrap_err();
        assert!(bad("# ML203 ", "# ").contains("first line"));
        assert!(bad("- **Fixable:** yes\n", "").contains("items"));
        assert!(bad("**Fixable:** yes", "**Fixable:** maybe").contains("neither yes nor no"));
        assert!(bad("warning;", "severe;").contains("severity"));
        assert!(bad("## Why it matters", "## Why").contains("sections"));
        assert!(bad("Never loaded.\n\n##", "Never\n\nloaded.\n\n##").contains("one paragraph"));
        assert!(bad("- **Consequence:**", "* **Consequence:**").contains("not a"));
    }
}
