//! Rules on one topic file (ML101–ML126, ML133).

use crate::dates;
use crate::frontmatter::{self, Fields, Status, TypeSource};
use crate::memory::{Memory, MemoryType};
use crate::text::levenshtein_ci;
use crate::yaml::Value;

use super::{FileText, Finding, RuleId, Severity};

/// The 1-based line of the first line starting with `key:` (at any indent), else 1.
fn key_line(text: &str, key: &str) -> usize {
    text.split('\n')
        .position(|l| l.trim_start().strip_prefix(key).is_some_and(|r| r.starts_with(':')))
        .map_or(1, |i| i + 1)
}

pub fn check(m: &Memory, t: &FileText, claude_md: Option<&Vec<String>>, out: &mut Vec<Finding>) {
    let p = &m.path;
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
            body: frontmatter::body_after(text, close),
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
    // ML101–ML104: what the scan window sees.
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
        Status::BeyondWindow if m.window_exceeded => out.push(Finding::file(RuleId::ML104, p, "frontmatter unseen: first 30 lines exceed 1 MiB")),
        Status::BeyondWindow => out.push(Finding::file(RuleId::ML104, p, "frontmatter closes after line 30; Claude Code's scan reads only 30 lines: shorten the block")),
        Status::Ok | Status::Retried => {}
    }
    if fm.status.has_fields() {
        if f.description.is_none() {
            out.push(Finding::new(
                RuleId::ML105,
                p,
                key_line(text, "description"),
                1,
                "no description (or a falsy one): the manifest line has none; add `description:`",
            ));
        }
        if f.type_raw.is_none() {
            out.push(Finding::file(
                RuleId::ML107,
                p,
                "no `type`: add `type:` with one of user, feedback, project, reference",
            ));
        }
        if f.name.is_none() {
            out.push(Finding::file(RuleId::ML110, p, "no `name`: add `name:`"));
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
            cut_by_comment(p, whole.yaml_text, open_line, out);
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
    if let Some(d) = &f.description
        && !matches!(d, Value::String(s) if !s.contains('\n'))
    {
        out.push(Finding::new(
            RuleId::ML106,
            p,
            key_line(text, "description"),
            1,
            format!(
                "description is not a one-line string; the manifest prints `{}`",
                d.js_string().replace('\n', "⏎")
            ),
        ));
    }
    type_rules(m, text, out);
    body_rules(m, t, text, &whole, claude_md, out);
    if let Some(yaml) = whole.yaml_text
        && yaml.contains("---")
    {
        let line = yaml
            .split('\n')
            .position(|l| l.contains("---"))
            .map_or(open_line, |i| open_line + 1 + i);
        out.push(Finding::new(
            RuleId::ML126,
            p,
            line,
            1,
            "the frontmatter holds `---`; some Claude Code versions end the block there",
        ));
    }
}

/// What lint reads of the whole file's frontmatter and body.
struct Whole<'a> {
    /// The YAML text between the delimiters, when a block exists.
    yaml_text: Option<&'a str>,
    /// `name` and `description` as strings (ML120).
    labels: [Option<String>; 2],
    body: &'a str,
}

fn cut_by_comment(p: &std::path::Path, yaml: Option<&str>, open_line: usize, out: &mut Vec<Finding>) {
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

fn type_rules(m: &Memory, text: &str, out: &mut Vec<Finding>) {
    let p = &m.path;
    let f = &m.fields;
    if let Some(raw) = &f.type_raw
        && m.memory_type().is_none()
    {
        let shown = raw.js_string();
        let near = MemoryType::ALL
            .iter()
            .find(|t| t.as_str().eq_ignore_ascii_case(shown.trim()))
            .or_else(|| MemoryType::ALL.iter().find(|t| levenshtein_ci(t.as_str(), &shown) <= 2));
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
    if f.type_source == TypeSource::Nested && m.memory_type().is_some() {
        out.push(Finding::new(
            RuleId::ML109,
            p,
            key_line(text, "type"),
            1,
            "type is only under `metadata:`; Claude Code's scan sees the memory as untyped: add a top-level `type:`",
        ));
    }
    if let Some(t) = m.memory_type() {
        let base = m.rel.rsplit('/').next().unwrap_or(&m.rel);
        let prefixed = MemoryType::ALL.into_iter().find(|pt| {
            base.starts_with(&format!("{}_", pt.as_str())) || base.starts_with(&format!("{}-", pt.as_str()))
        });
        if let Some(pt) = prefixed.filter(|pt| *pt != t) {
            out.push(Finding::file(
                RuleId::ML114,
                p,
                format!("file name says `{}` but the type is `{}`", pt.as_str(), t.as_str()),
            ));
        }
    }
}

fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Whole-word, case-insensitive search of any of `words` in `s`.
fn has_word(s: &str, words: &[&str]) -> Option<String> {
    let lower = s.to_lowercase();
    for w in words {
        let mut from = 0;
        while let Some(i) = lower[from..].find(w) {
            let start = from + i;
            let end = start + w.len();
            let before = lower[..start].chars().next_back().is_none_or(|c| !is_word(c));
            let after = lower[end..].chars().next().is_none_or(|c| !is_word(c));
            if before && after {
                return Some(s.get(start..end).unwrap_or(w).to_string());
            }
            from = end;
        }
    }
    None
}

fn body_rules(
    m: &Memory,
    t: &FileText,
    text: &str,
    whole: &Whole,
    claude_md: Option<&Vec<String>>,
    out: &mut Vec<Finding>,
) {
    let p = &m.path;
    let body = whole.body;
    let body_start = crate::text::count_byte(&text.as_bytes()[..text.len() - body.len()], b'\n');
    let body_lines: Vec<&str> = body.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l)).collect();
    if matches!(m.memory_type(), Some(MemoryType::Feedback | MemoryType::Project)) {
        let has = |prefix: &str| body_lines.iter().any(|l| l.trim_start().starts_with(prefix));
        let missing: Vec<&str> = ["**Why:**", "**How to apply:**"]
            .into_iter()
            .filter(|x| !has(x))
            .collect();
        if !missing.is_empty() {
            out.push(Finding::file(
                RuleId::ML115,
                p,
                format!(
                    "{} memory without a {} line",
                    m.memory_type().map_or("", MemoryType::as_str),
                    missing.join(" or a ")
                ),
            ));
        }
    }
    let date_sev = if m.memory_type() == Some(MemoryType::Project) {
        Severity::Warning
    } else {
        Severity::Info
    };
    for d in dates::find(text) {
        out.push(
            Finding::new(
                RuleId::ML116,
                p,
                d.line,
                d.col,
                format!("relative date `{}`: write the absolute date", d.phrase),
            )
            .with_severity(date_sev),
        );
    }
    // ML117: code-heavy bodies.
    let mut in_fence = false;
    let (mut code, mut nonblank) = (0, 0);
    for l in &body_lines {
        let tl = l.trim_start();
        let is_fence = tl.starts_with("```") || tl.starts_with("~~~");
        if !l.trim().is_empty() {
            nonblank += 1;
            if in_fence && !is_fence {
                code += 1;
            }
        }
        if is_fence {
            in_fence = !in_fence;
        }
    }
    if code >= 5 && code * 2 >= nonblank {
        out.push(Finding::file(
            RuleId::ML117,
            p,
            format!("{code} of {nonblank} body lines are code; code patterns are derivable from the code"),
        ));
    }
    let commit_lines: Vec<usize> = body_lines
        .iter()
        .enumerate()
        .filter(|(_, l)| has_commit_token(l))
        .map(|(i, _)| body_start + i + 1)
        .collect();
    if commit_lines.len() >= 3 {
        out.push(Finding::new(
            RuleId::ML118,
            p,
            commit_lines[0],
            1,
            format!(
                "{} lines cite commit hashes; git history belongs to git",
                commit_lines.len()
            ),
        ));
    }
    if let Some(claude) = claude_md {
        for (i, l) in body_lines.iter().enumerate() {
            let collapsed = l.split_whitespace().collect::<Vec<_>>().join(" ");
            if collapsed.chars().count() >= 40 && claude.iter().any(|c| c.contains(&collapsed)) {
                out.push(Finding::new(
                    RuleId::ML119,
                    p,
                    body_start + i + 1,
                    1,
                    "this line is already in CLAUDE.md",
                ));
                break;
            }
        }
    }
    if let Some(w) = whole
        .labels
        .iter()
        .flatten()
        .find_map(|s| has_word(s, &["wip", "in progress", "todo", "session plan", "today's", "today’s"]))
    {
        out.push(Finding::file(
            RuleId::ML120,
            p,
            format!("name or description says `{w}`: ephemeral task details do not belong in memory"),
        ));
    }
    // What every secret `secret_in` knows starts with (`gh` for the GitHub ones).
    let markers = ["gh", "sk-", "xox", "AKIA", "PRIVATE KEY-----"];
    let lines_to_check = if markers.iter().any(|m| text.contains(m)) {
        text.split('\n').count()
    } else {
        0
    };
    for (i, l) in text.split('\n').take(lines_to_check).enumerate() {
        if let Some(kind) = secret_in(l) {
            out.push(Finding::new(
                RuleId::ML121,
                p,
                i + 1,
                1,
                format!("looks like {kind}; memory is loaded into model context: remove it"),
            ));
        }
    }
    let pieces = crate::text::count_byte(t.text.as_bytes(), b'\n') + 1 - usize::from(t.text.ends_with('\n'));
    if t.size > 4096 || pieces > 200 {
        out.push(Finding::file(
            RuleId::ML122,
            p,
            format!(
                "{} bytes, {pieces} lines: relevance recall reads only 200 lines / 4096 bytes",
                t.size
            ),
        ));
    }
    if let Some(at) = t.invalid_utf8_at {
        out.push(Finding::file(
            RuleId::ML123,
            p,
            format!("invalid UTF-8 at byte {at}; Claude Code reads U+FFFD there"),
        ));
    }
    if t.bom {
        out.push(Finding::file(RuleId::ML124, p, "starts with a UTF-8 BOM"));
    }
    let line_count = crate::text::count_byte(text.as_bytes(), b'\n') + 1;
    if let Some((i, last)) = text
        .rsplit('\n')
        .enumerate()
        .find(|(_, l)| !l.trim().is_empty())
        .map(|(k, l)| (line_count - 1 - k, l))
        && last.trim_end() == "</content>"
    {
        out.push(Finding::new(
            RuleId::ML125,
            p,
            i + 1,
            1,
            "last line is a stray `</content>` tool artifact: delete it",
        ));
    }
    if t.has_nul {
        out.push(Finding::file(
            RuleId::ML133,
            p,
            "binary content (NUL bytes in the first 8 KiB)",
        ));
    }
}

/// A whole word of 7–40 hex chars with at least one digit and one letter.
fn has_commit_token(line: &str) -> bool {
    // Byte runs of word chars (`[A-Za-z0-9_]`); other bytes, UTF-8 included, split.
    let b = line.as_bytes();
    if !b.iter().any(u8::is_ascii_digit) {
        return false;
    }
    let mut i = 0;
    while i < b.len() {
        if !(b[i].is_ascii_alphanumeric() || b[i] == b'_') {
            i += 1;
            continue;
        }
        let start = i;
        let (mut hex, mut digit, mut letter) = (true, false, false);
        while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
            hex &= b[i].is_ascii_hexdigit();
            digit |= b[i].is_ascii_digit();
            letter |= b[i].is_ascii_alphabetic();
            i += 1;
        }
        if (7..=40).contains(&(i - start)) && hex && digit && letter {
            return true;
        }
    }
    false
}

/// The kind of secret-like token on a line, if any (ML121), with its article.
fn secret_in(line: &str) -> Option<&'static str> {
    if line.contains("-----BEGIN ") && line.contains("PRIVATE KEY-----") {
        return Some("a private key");
    }
    let b = line.as_bytes();
    let tail = |start: usize, min: usize, upper: bool| {
        let n = b[start..]
            .iter()
            .take_while(|c| {
                if upper {
                    c.is_ascii_uppercase() || c.is_ascii_digit()
                } else {
                    c.is_ascii_alphanumeric() || **c == b'_' || **c == b'-'
                }
            })
            .count();
        n >= min
    };
    for (i, _) in line.char_indices() {
        if i > 0 && is_word(line[..i].chars().next_back().unwrap_or(' ')) {
            continue;
        }
        let rest = &line[i..];
        for prefix in ["ghp_", "gho_", "ghs_", "github_pat_", "sk-"] {
            if rest.starts_with(prefix) && tail(i + prefix.len(), 20, false) {
                return Some("an API token");
            }
        }
        if rest.len() > 5
            && rest.starts_with("xox")
            && matches!(b[i + 3], b'a' | b'b' | b'p' | b'r')
            && b[i + 4] == b'-'
            && tail(i + 5, 10, false)
        {
            return Some("a Slack token");
        }
        if rest.starts_with("AKIA") && b.len() >= i + 20 && tail(i + 4, 16, true) {
            return Some("an AWS access key");
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commit_tokens() {
        assert!(has_commit_token("fixed in a1b2c3d"));
        assert!(!has_commit_token("deadbeef is hex but has no digit"));
        assert!(!has_commit_token("1234567 has no letter"));
        assert!(!has_commit_token("xa1b2c3d4 not hex"));
    }

    #[test]
    fn secrets() {
        assert_eq!(
            secret_in(&format!("token ghp_{}", "a".repeat(20))),
            Some("an API token")
        );
        assert_eq!(secret_in(&format!("xghp_{}", "a".repeat(20))), None);
        assert_eq!(secret_in(&format!("sk-{}", "a".repeat(19))), None);
        assert_eq!(secret_in("xoxb-1234567890"), Some("a Slack token"));
        assert_eq!(secret_in("AKIAABCDEFGHIJKLMNOP"), Some("an AWS access key"));
        assert_eq!(secret_in("-----BEGIN RSA PRIVATE KEY-----"), Some("a private key"));
    }

    #[test]
    fn ephemeral_words() {
        assert_eq!(
            has_word("Today's Session Plan", &["session plan", "today's"]).as_deref(),
            Some("Session Plan")
        );
        assert_eq!(has_word("WIPE the disk", &["wip"]), None);
    }
}
