//! Rules on one topic file (ML101–ML126, ML133, ML134): the frontmatter rules
//! here, the body and byte rules in [`body`], dangling links in [`links`].

mod body;
mod links;

pub use links::dangling;

use std::path::Path;

use crate::frontmatter::{self, Fields, Status};
use crate::memory::{Memory, MemoryType};
use crate::text::levenshtein_ci;
use crate::yaml::Value;

use super::{FileText, Finding, RuleId};

/// The 1-based line of the first line starting with `key:` (at any indent), else 1.
fn key_line(text: &str, key: &str) -> usize {
    text.split('\n')
        .position(|l| l.trim_start().strip_prefix(key).is_some_and(|r| r.starts_with(':')))
        .map_or(1, |i| i + 1)
}

/// The topic rules on the memory `m`, whose whole file is `t`; `claude_md` holds
/// the project's CLAUDE.md lines for ML119 (`None` without a project). Returns the
/// relative dates of ML116, found in the text without its BOM.
pub fn check(
    m: &Memory,
    t: &FileText,
    claude_md: Option<&crate::lint::claude_text::ClaudeText>,
    out: &mut Vec<Finding>,
) -> Vec<crate::dates::DateMatch> {
    let fm = &m.frontmatter;
    let f = &m.fields;
    let text = t.text.strip_prefix('\u{feff}').unwrap_or(&t.text);
    // The block as the whole file has it: the scan's own when its window saw the
    // block close (the lines after the closing line change nothing), else parsed
    // from the text (a block past the window, or none on line 1).
    let labels = |name: Option<&Value>, description: Option<&Value>| {
        [name.map(Value::js_string), description.map(Value::js_string)]
    };
    let parsed;
    let whole = match (fm.open_line, fm.close_line, &fm.yaml_text) {
        (Some(0), Some(close), Some(yaml)) if !m.window_exceeded => Whole {
            yaml_text: Some(yaml),
            labels: labels(f.name.as_ref(), f.description.as_ref()),
            body: frontmatter::body_after(text, close, fm.close_col),
        },
        _ => {
            parsed = frontmatter::parse_document(text);
            let fields = Fields::from(&parsed.0);
            Whole {
                yaml_text: parsed.0.yaml_text.as_deref(),
                labels: labels(fields.name.as_ref(), fields.description.as_ref()),
                body: parsed.1,
            }
        }
    };
    let open_line = fm.open_line.map_or(1, |l| l + 1);
    status_rules(m, open_line, out);
    if fm.status.has_fields() {
        field_rules(m, text, whole.yaml_text, open_line, out);
    }
    description_shape(m, text, out);
    type_rules(m, text, out);
    let dates = body::check(m, t, text, &whole, claude_md, out);
    ambiguous_close(m, open_line, out);
    name_not_slug(m, text, out);
    dates
}

/// The topic rules that need only the scan window (for `memctl projects`, which
/// reads no bodies): ML101–ML114 and ML126 on the block the window holds; `window`
/// is the text the scan read (key lines are found in it).
pub fn check_window(m: &Memory, window: &str, out: &mut Vec<Finding>) {
    let fm = &m.frontmatter;
    let text = window.strip_prefix('\u{feff}').unwrap_or(window);
    let open_line = fm.open_line.map_or(1, |l| l + 1);
    status_rules(m, open_line, out);
    if fm.status.has_fields() {
        field_rules(m, text, fm.yaml_text.as_deref(), open_line, out);
    }
    description_shape(m, text, out);
    type_rules(m, text, out);
    ambiguous_close(m, open_line, out);
    name_not_slug(m, text, out);
}

/// ML101–ML104: what the scan window sees.
fn status_rules(m: &Memory, open_line: usize, out: &mut Vec<Finding>) {
    let p = &m.path;
    let fm = &m.frontmatter;
    match fm.status {
        Status::Failed => {
            let detail = if fm.limit_hit { "exceeds memctl's YAML limits".to_string() } else { fm.error.clone().unwrap_or_default() };
            out.push(Finding::new(RuleId::ML101, p, open_line + 1, 1, format!("frontmatter YAML does not parse ({detail}), even after Claude Code's quote-retry; no field is read")));
        }
        Status::NotMapping => out.push(Finding::new(RuleId::ML101, p, open_line + 1, 1, "frontmatter YAML is not a mapping (a scalar, a list, or several documents); no field is read")),
        Status::Retried if fm.limit_hit => out.push(Finding::new(RuleId::ML101, p, open_line + 1, 1, "frontmatter exceeds memctl's YAML limits (nesting, aliases or size); parsed only by the quote-retry")),
        Status::NotAtStart => out.push(Finding::new(RuleId::ML102, p, open_line, 1, "frontmatter block does not start on line 1, so Claude Code ignores it; `memctl lint --fix` moves it to the top")),
        Status::None if fm.close_line.is_some() => out.push(Finding::new(RuleId::ML103, p, open_line, 1, "frontmatter block is empty: add name, description and type")),
        Status::None => out.push(Finding::file(RuleId::ML103, p, "no frontmatter: add a `---` block with name, description and type on line 1")),
        Status::BeyondWindow if m.window_exceeded => out.push(Finding::file(RuleId::ML104, p, "frontmatter block exceeds 1 MiB: memctl treats it as no frontmatter; shorten the block")),
        Status::BeyondWindow => out.push(Finding::file(RuleId::ML104, p, "frontmatter closes after line 30 or after the first 64 KiB; Claude Code's scan reads only 30 lines and 64 KiB: shorten the block")),
        Status::Ok | Status::Retried => {}
    }
}

/// ML105, ML107, ML110–ML113: the fields of a block that parsed.
fn field_rules(m: &Memory, text: &str, yaml_text: Option<&str>, open_line: usize, out: &mut Vec<Finding>) {
    let p = &m.path;
    let fm = &m.frontmatter;
    let f = &m.fields;
    // (2.1.332) A non-string description is ML106's.
    if matches!(&f.description_raw, None | Some(Value::Null)) || f.description_raw == Some(Value::String(String::new()))
    {
        out.push(Finding::new(
            RuleId::ML105,
            p,
            key_line(text, "description"),
            1,
            "no description (or an empty one): the manifest line has none; add `description:`",
        ));
    }
    // A null `metadata.type` masking a top-level one is ML109's.
    if matches!(&f.type_raw, None | Some(Value::Null)) && f.type_conflict().is_none() {
        out.push(Finding::file(
            RuleId::ML107,
            p,
            "no `type`: add `type:` under `metadata:` with one of user, feedback, project, reference",
        ));
    }
    match &f.name {
        None => out.push(Finding::file(RuleId::ML110, p, "no `name`: add `name:` (a short kebab-case slug)")),
        Some(n) if f.name_str().is_none() => out.push(Finding::new(
            RuleId::ML110,
            p,
            key_line(text, "name"),
            1,
            format!(
                "`name` {} is not a non-empty string: Claude Code ignores it (its first write stores `name: \"\"`); write a slug",
                n.to_json()
            ),
        )),
        Some(_) => {}
    }
    if fm.status == Status::Retried && !fm.limit_hit {
        out.push(Finding::new(
            RuleId::ML111,
            p,
            open_line + 1,
            1,
            "frontmatter parses only after Claude Code's quote-retry; quote the values (`memctl lint --fix`)",
        ));
    }
    if fm.status == Status::Ok {
        cut_by_comment(p, yaml_text, open_line, out);
    }
    for key in &fm.duplicate_keys {
        out.push(Finding::new(
            RuleId::ML113,
            p,
            key_line(text, key),
            1,
            format!("key `{key}` appears more than once; the last value wins"),
        ));
    }
}

/// ML106: (2.1.332) a description Claude Code ignores (not a string) or prints over
/// several lines.
fn description_shape(m: &Memory, text: &str, out: &mut Vec<Finding>) {
    let message = match &m.fields.description_raw {
        None | Some(Value::Null) => return,
        Some(Value::String(s)) if !s.contains('\n') => return,
        Some(Value::String(s)) => format!(
            "description spans several lines; the manifest prints them as they are: `{}`",
            s.replace('\n', "⏎")
        ),
        Some(v) => format!(
            "description {} is not a string: Claude Code ignores it (no description in the manifest, the recall selection or the index it writes); quote it",
            v.to_json()
        ),
    };
    out.push(Finding::new(
        RuleId::ML106,
        &m.path,
        key_line(text, "description"),
        1,
        message,
    ));
}

/// ML126: (2.1.332) the block ends at a `---` that is not a `---` line at column 0
/// (SPEC §2.4.2): the keys after it are lost and the rest becomes body.
fn ambiguous_close(m: &Memory, open_line: usize, out: &mut Vec<Finding>) {
    let fm = &m.frontmatter;
    let (Some(0), Some(close), true) = (fm.open_line, fm.close_line, fm.ambiguous_close) else {
        return;
    };
    out.push(Finding::new(
        RuleId::ML126,
        &m.path,
        open_line + close,
        fm.close_col + 1,
        "Claude Code ends the frontmatter at the first `---`, here: the keys after it are lost and the rest of the block becomes body; remove the `---` or quote the value",
    ));
}

/// ML137: (2.1.332) a `name` Claude Code's first Write or Edit replaces with its slug.
fn name_not_slug(m: &Memory, text: &str, out: &mut Vec<Finding>) {
    let f = &m.fields;
    let Some(name) = f.name_str() else { return };
    let slug = crate::memory::claude_slug(name);
    if slug == name || f.origin_session_id.is_some() {
        return;
    }
    let stored = if slug.is_empty() { "\"\"".to_string() } else { slug };
    out.push(Finding::new(
        RuleId::ML137,
        &m.path,
        key_line(text, "name"),
        1,
        format!("name `{name}` is not a slug: Claude Code's first Write or Edit of this file stores `name: {stored}`"),
    ));
}

/// What lint reads of the whole file's frontmatter and body.
struct Whole<'a> {
    /// The YAML text between the delimiters, when a block exists.
    yaml_text: Option<&'a str>,
    /// `name` and `description` as strings (ML120).
    labels: [Option<String>; 2],
    body: &'a str,
}

fn cut_by_comment(p: &Path, yaml: Option<&str>, open_line: usize, out: &mut Vec<Finding>) {
    let Some(yaml) = yaml else { return };
    for (i, line) in yaml.split('\n').enumerate() {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        if key.is_empty() || key.starts_with([' ', '\t', '#', '-']) {
            continue;
        }
        let v = value.trim_start();
        if v.starts_with(['"', '\'', '|', '>']) {
            continue;
        }
        if let Some(pos) = v.find(" #") {
            out.push(Finding::new(
                RuleId::ML112,
                p,
                open_line + 1 + i,
                1,
                format!(
                    "`{key}` loses everything after ` #` (`{}`): quote the value",
                    &v[pos + 1..]
                ),
            ));
        }
    }
}

/// The type a file name's `<type>_` prefix names. Only `<type>_` is the
/// convention: `user-management.md` names a topic.
fn prefix_type(rel: &str) -> Option<MemoryType> {
    let base = rel.rsplit('/').next().unwrap_or(rel);
    MemoryType::ALL
        .into_iter()
        .find(|pt| base.strip_prefix(pt.as_str()).is_some_and(|r| r.starts_with('_')))
}

fn type_rules(m: &Memory, text: &str, out: &mut Vec<Finding>) {
    let p = &m.path;
    let f = &m.fields;
    if let Some(raw) = f.type_raw.as_ref().filter(|r| **r != Value::Null)
        && m.memory_type().is_none()
        && f.type_conflict().is_none()
    {
        let shown = raw.js_string();
        // The file name's `<type>_` prefix says what was meant (`type: preference`
        // in `feedback_x.md` is feedback, not the `reference` its spelling is
        // nearest, issue 30 point 8); else the nearest type by spelling.
        let near = prefix_type(&m.rel)
            .or_else(|| {
                MemoryType::ALL
                    .into_iter()
                    .find(|t| t.as_str().eq_ignore_ascii_case(shown.trim()))
            })
            .or_else(|| {
                MemoryType::ALL
                    .into_iter()
                    .find(|t| levenshtein_ci(t.as_str(), &shown) <= 2)
            });
        let fix = near.map_or_else(
            || "use one of them".to_string(),
            |t| format!("write `type: {}`", t.as_str()),
        );
        out.push(Finding::new(
            RuleId::ML108,
            p,
            key_line(text, "type"),
            1,
            format!("type `{shown}` is not one of user, feedback, project, reference (case-sensitive): {fix}"),
        ));
    }
    if let Some(flat) = f.type_conflict() {
        let nested = match &f.type_raw {
            Some(Value::Null) | None => "empty, so the memory is untyped".to_string(),
            Some(v) if m.memory_type().is_none() => {
                format!("`{}`, not a valid type, so the memory is untyped", v.js_string())
            }
            Some(v) => format!("`{}`", v.js_string()),
        };
        out.push(Finding::new(
            RuleId::ML109,
            p,
            key_line(text, "type"),
            1,
            format!(
                "top-level `type: {}` is ignored: Claude Code reads `metadata.type` ({nested}); remove one of them",
                flat.js_string()
            ),
        ));
    }
    if let Some(t) = m.memory_type()
        && let Some(pt) = prefix_type(&m.rel).filter(|pt| *pt != t)
    {
        out.push(Finding::file(
            RuleId::ML114,
            p,
            format!("file name says `{}` but the type is `{}`", pt.as_str(), t.as_str()),
        ));
    }
}
