//! Frontmatter: finding the block (SPEC §2.4.2), parsing it with the runtime's YAML
//! semantics and the quote-retry rewrite (§2.4.3, §2.4.4), the parse status
//! (§2.4.5) and the fields memctl and Claude Code read from it (§2.4.1).

use serde::Serialize;

use crate::text::{is_js_line_terminator, is_js_space};
use crate::yaml::{self, Value};

/// `FRONTMATTER_MAX_LINES`: Claude Code reads a memory file's frontmatter from
/// its first 30 lines only (SPEC §2.5).
pub const FRONTMATTER_MAX_LINES: usize = 30;

/// Every frontmatter parse result carries one of these (SPEC §2.4.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    Ok,
    Retried,
    Failed,
    NotMapping,
    None,
    NotAtStart,
    BeyondWindow,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Retried => "retried",
            Status::Failed => "failed",
            Status::NotMapping => "not-mapping",
            Status::None => "none",
            Status::NotAtStart => "not-at-start",
            Status::BeyondWindow => "beyond-window",
        }
    }

    /// Whether Claude Code reads fields from the block.
    pub fn has_fields(self) -> bool {
        matches!(self, Status::Ok | Status::Retried)
    }
}

/// The result of looking for and parsing a frontmatter block.
#[derive(Clone, Debug, PartialEq)]
pub struct Frontmatter {
    pub status: Status,
    /// The parsed mapping when `status` is `ok` or `retried`.
    pub map: Option<Value>,
    /// memctl's YAML limits were hit by a parse (lint ML101 detail).
    pub limit_hit: bool,
    /// The parser's message when a parse failed.
    pub error: Option<String>,
    pub duplicate_keys: Vec<String>,
    /// 0-based index of the opening and closing delimiter lines, when a block exists.
    pub open_line: Option<usize>,
    pub close_line: Option<usize>,
    /// The byte column of the closing `---` on `close_line` (0 for a `---` line).
    pub close_col: usize,
    /// (2.1.332) The block ends at a `---` that is not a whole `---` line at column 0
    /// (SPEC §2.4.2): the line-based reading of version 2 would give another block.
    pub ambiguous_close: bool,
    /// The YAML text between the delimiters.
    pub yaml_text: Option<String>,
}

impl Frontmatter {
    /// The result for a block that Claude Code's 30-line window does not show.
    pub fn beyond_window() -> Self {
        Self::without_block(Status::BeyondWindow)
    }

    fn without_block(status: Status) -> Self {
        Frontmatter {
            status,
            map: None,
            limit_hit: false,
            error: None,
            duplicate_keys: Vec::new(),
            open_line: None,
            close_line: None,
            close_col: 0,
            ambiguous_close: false,
            yaml_text: None,
        }
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        self.map
            .as_ref()
            .and_then(|m| m.get(key))
            .filter(|v| **v != Value::Null)
    }
}

/// The line that opens a frontmatter block on line 1 (SPEC §2.4.2 step 3): `---`
/// followed only by whitespace of the §2.1.3 set up to the line break (observed
/// in the 2.1.332 client: `---` + U+00A0 opens a block).
pub fn is_opening(line: &str) -> bool {
    line.strip_prefix("---")
        .is_some_and(|rest| rest.chars().all(crate::text::is_js_space))
}

/// [`is_opening`] on raw bytes (the scanner looks before decoding); invalid UTF-8
/// after `---` is not whitespace.
pub fn is_opening_bytes(line: &[u8]) -> bool {
    line.strip_prefix(b"---")
        .is_some_and(|rest| std::str::from_utf8(rest).is_ok_and(|r| r.chars().all(crate::text::is_js_space)))
}

/// `---` followed only by spaces or tabs.
pub fn is_delimiter(line: &str) -> bool {
    is_delimiter_bytes(line.as_bytes())
}

/// [`is_delimiter`] on raw bytes (the scanner looks before decoding).
pub fn is_delimiter_bytes(line: &[u8]) -> bool {
    line.strip_prefix(b"---")
        .is_some_and(|rest| rest.iter().all(|b| *b == b' ' || *b == b'\t'))
}

/// Find and parse the frontmatter of `lines` (LF-split, one trailing CR removed each,
/// BOM removed). (2.1.332) The block opens with a `---` line on line 1 and ends at
/// the first `---` anywhere after it (SPEC §2.4.2).
pub fn parse_lines(lines: &[&str]) -> Frontmatter {
    if lines.first().is_some_and(|l| is_opening(l)) {
        return match find_close(lines) {
            Some((close, col)) => parse_block(lines, 0, close, col),
            None => Frontmatter::without_block(Status::None),
        };
    }
    if let Some(fm) = find_not_at_start(lines) {
        return fm;
    }
    Frontmatter::without_block(Status::None)
}

/// Where the block that opens on line 1 ends (SPEC §2.4.2 step 4): the 0-based line
/// and the byte column of the first `---` after the opening line, wherever it is
/// (inside a value, indented, the first three dashes of `----`).
pub fn find_close(lines: &[&str]) -> Option<(usize, usize)> {
    lines
        .iter()
        .enumerate()
        .skip(1)
        .find_map(|(i, l)| l.find("---").map(|c| (i, c)))
}

/// Split text into the scan's lines: BOM removed, LF-split, one trailing CR removed.
pub fn scan_lines(text: &str) -> Vec<&str> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l)).collect()
}

/// Parse a whole file: frontmatter plus the body as it is in `text` (line endings kept).
pub fn parse_document(text: &str) -> (Frontmatter, &str) {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    // When line 1 opens a block, only the lines up to the closing one matter.
    let mut it = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l));
    let lines: Vec<&str> = match it.next() {
        Some(first) if is_opening(first) => {
            let mut v = vec![first];
            for l in it {
                v.push(l);
                if l.contains("---") {
                    break;
                }
            }
            v
        }
        _ => scan_lines(text),
    };
    let fm = parse_lines(&lines);
    let body = match (fm.open_line, fm.close_line) {
        (Some(0), Some(close)) => body_after(text, close, fm.close_col),
        _ => text,
    };
    (fm, body)
}

/// The body [`parse_document`] returns, without parsing the block: after the
/// first `---` following an opening line 1, else the whole text (BOM removed).
pub fn body(text: &str) -> &str {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l));
    if !lines.next().is_some_and(is_opening) {
        return text;
    }
    // `---` searched byte-wise (a `str::find` sets up a searcher per line).
    let dashes = |l: &str| l.as_bytes().windows(3).position(|w| w == b"---");
    match lines.enumerate().find_map(|(i, l)| dashes(l).map(|c| (i + 1, c))) {
        Some((close, col)) => body_after(text, close, col),
        None => text,
    }
}

/// The body of a BOM-less `text` whose block opens on line 1 and ends at the `---`
/// on the 0-based line `close`, byte column `col` (SPEC §2.4.2 step 5): the text
/// after those three dashes with all leading whitespace skipped, so text on the
/// closing line belongs to the body (`--- trailing`, the `-` of a `----` close).
pub fn body_after(text: &str, close: usize, col: usize) -> &str {
    let line_start: usize = text.split_inclusive('\n').take(close).map(str::len).sum();
    let start = (line_start + col + 3).min(text.len());
    text.get(start..).unwrap_or_default().trim_start_matches(is_js_space)
}

fn parse_block(lines: &[&str], open: usize, close: usize, col: usize) -> Frontmatter {
    let mut yaml_text = lines[open + 1..close].join("\n");
    if close > open + 1 {
        yaml_text.push('\n');
    }
    // The part of the closing line before its `---` (a value cut there, indentation).
    yaml_text.push_str(&lines[close][..col]);
    let mut fm = Frontmatter::without_block(Status::None);
    fm.open_line = Some(open);
    fm.close_line = Some(close);
    fm.close_col = col;
    fm.ambiguous_close = !is_delimiter(lines[close]);
    if !yaml_text.chars().all(is_js_space) {
        let parsed = parse_yaml(&yaml_text);
        fm.status = parsed.status;
        fm.map = parsed.map;
        fm.limit_hit = parsed.limit_hit;
        fm.error = parsed.error;
        fm.duplicate_keys = parsed.duplicate_keys;
    }
    fm.yaml_text = Some(yaml_text);
    fm
}

/// ML102's conditions: a block after lines that are blank or inside HTML comments,
/// whose YAML is a mapping with `name`, `description` or `type`.
fn find_not_at_start(lines: &[&str]) -> Option<Frontmatter> {
    let open = lines.iter().position(|l| is_delimiter(l))?;
    let close = open + 1 + lines[open + 1..].iter().position(|l| is_delimiter(l))?;
    if !only_comments_and_blanks(&lines[..open].join("\n")) {
        return None;
    }
    let mut fm = parse_block(lines, open, close, 0);
    let has_field = ["name", "description", "type"]
        .iter()
        .any(|k| fm.map.as_ref().and_then(|m| m.get(k)).is_some());
    if !fm.status.has_fields() || !has_field {
        return None;
    }
    fm.status = Status::NotAtStart;
    Some(fm)
}

fn only_comments_and_blanks(mut text: &str) -> bool {
    loop {
        let Some(start) = text.find("<!--") else {
            return text.chars().all(is_js_space);
        };
        if !text[..start].chars().all(is_js_space) {
            return false;
        }
        match text[start + 4..].find("-->") {
            Some(end) => text = &text[start + 4 + end + 3..],
            None => return true, // an unclosed comment runs to the block
        }
    }
}

struct Parsed {
    status: Status,
    map: Option<Value>,
    limit_hit: bool,
    error: Option<String>,
    duplicate_keys: Vec<String>,
}

/// Parse, and on failure retry once on the quote-retry rewrite (SPEC §2.4.4).
fn parse_yaml(text: &str) -> Parsed {
    let classify = |doc: yaml::Document, status: Status, limit_hit: bool| match doc.root {
        Some(map @ Value::Map(_)) => Parsed {
            status,
            map: Some(map),
            limit_hit,
            error: None,
            duplicate_keys: doc.duplicate_keys,
        },
        _ => Parsed {
            status: Status::NotMapping,
            map: None,
            limit_hit,
            error: None,
            duplicate_keys: doc.duplicate_keys,
        },
    };
    match yaml::parse(text) {
        Ok(doc) => classify(doc, Status::Ok, false),
        Err(first) => {
            let limit_hit = matches!(first, yaml::Error::Limit(_));
            match yaml::parse(&quote_retry(text)) {
                Ok(doc) => classify(doc, Status::Retried, limit_hit),
                Err(second) => Parsed {
                    status: Status::Failed,
                    map: None,
                    limit_hit: limit_hit || matches!(second, yaml::Error::Limit(_)),
                    error: Some(first.to_string()),
                    duplicate_keys: Vec::new(),
                },
            }
        }
    }
}

/// Claude Code's quote-retry rewrite (SPEC §2.4.4): quote top-level values that
/// hold YAML indicator characters or `: `, then (2.1.332) turn each leading run of
/// tabs into two spaces per tab.
pub fn quote_retry(text: &str) -> String {
    let joined = text
        .split('\n')
        .map(|line| requote_line(line).unwrap_or_else(|| line.to_string()))
        .collect::<Vec<_>>()
        .join("\n");
    expand_leading_tabs(&joined)
}

/// JavaScript's `replace(/^\t+/gm, t => "  ".repeat(t.length))`: `^` matches at the
/// start and after every line terminator (LF, CR, U+2028, U+2029).
fn expand_leading_tabs(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut at_line_start = true;
    for c in text.chars() {
        if c == '\t' && at_line_start {
            out.push_str("  ");
            continue;
        }
        out.push(c);
        at_line_start = is_js_line_terminator(c);
    }
    out
}

/// The rewritten line, or `None` when the line is left as it is.
pub fn requote_line(line: &str) -> Option<String> {
    let (key, value) = retry_match(line)?;
    if (value.starts_with('"') && value.ends_with('"')) || (value.starts_with('\'') && value.ends_with('\'')) {
        return None;
    }
    // (2.1.332) A value that parses on its own as a list is left.
    if value.starts_with('[')
        && value.ends_with(']')
        && matches!(
            yaml::parse(value),
            Ok(yaml::Document {
                root: Some(Value::Seq(_)),
                ..
            })
        )
    {
        return None;
    }
    let special = value.chars().any(|c| "{}[]*&#!|>%@`".contains(c)) || value.contains(": ");
    if !special {
        return None;
    }
    let escaped = value.replace('\\', "\\\\").replace('"', "\\\"");
    Some(format!("{key}: \"{escaped}\""))
}

/// `^([a-zA-Z_-]+):\s+(\S.*)$` with JavaScript semantics: the key and the value
/// (everything after the whitespace; no line terminator in it).
fn retry_match(line: &str) -> Option<(&str, &str)> {
    let colon = line.find(':')?;
    let key = &line[..colon];
    if key.is_empty() || !key.bytes().all(|b| b.is_ascii_alphabetic() || b == b'_' || b == b'-') {
        return None;
    }
    let after = &line[colon + 1..];
    let rest = after.trim_start_matches(is_js_space);
    if rest.len() == after.len() || rest.is_empty() || rest.chars().any(is_js_line_terminator) {
        return None;
    }
    Some((key, rest))
}

/// The fields memctl reads (SPEC §2.4.1): (2.1.332) Claude Code's reading.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Fields {
    /// The top-level `name`, any non-null YAML value (Claude Code reads it only as a
    /// non-empty string: [`Fields::name_str`]).
    pub name: Option<Value>,
    /// What Claude Code reads (SPEC §2.5): the top-level `description` when it is a
    /// non-empty string, else `None`.
    pub description: Option<Value>,
    /// The top-level `description` whatever its value (`None` when absent or null).
    pub description_raw: Option<Value>,
    /// The value that decides the type: `metadata.type` when `metadata` is a mapping
    /// with that key (also when its value is null: [`Value::Null`]), else the
    /// top-level `type`.
    pub type_raw: Option<Value>,
    pub type_source: TypeSource,
    /// The top-level `type` (not null), whether or not it decides (ML109).
    pub flat_type: Option<Value>,
    pub origin_session_id: Option<Value>,
    /// `metadata.modified`, else the top-level `modified` (SPEC §2.4.1), any YAML value.
    pub modified: Option<Value>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TypeSource {
    Flat,
    Nested,
    #[default]
    None,
}

impl TypeSource {
    pub fn as_str(self) -> &'static str {
        match self {
            TypeSource::Flat => "flat",
            TypeSource::Nested => "nested",
            TypeSource::None => "none",
        }
    }
}

impl Fields {
    /// The raw value of the type Claude Code reads: since 2.1.332 the same as
    /// memctl's ([`Fields::type_raw`]; `metadata.type` winning).
    pub fn claude_type_raw(&self) -> Option<&Value> {
        self.type_raw.as_ref()
    }

    /// The `name` Claude Code reads: a non-empty string.
    pub fn name_str(&self) -> Option<&str> {
        match &self.name {
            Some(Value::String(s)) if !s.is_empty() => Some(s),
            _ => None,
        }
    }

    /// A top-level `type` that `metadata.type` overrides with another value (ML109).
    pub fn type_conflict(&self) -> Option<&Value> {
        let flat = self.flat_type.as_ref()?;
        (self.type_source == TypeSource::Nested && self.type_raw.as_ref() != Some(flat)).then_some(flat)
    }

    /// The fields of `fm`; the scan keeps only these of its values.
    pub fn take(fm: &mut Frontmatter) -> Fields {
        Fields::from(fm)
    }

    /// Claude Code 2.1.332's reading (SPEC §2.4.1): every top-level key other than
    /// `name`, `description` and `metadata` with a non-null value is folded into one
    /// map, and the keys of `metadata` (when it is a mapping) are laid over it, so a
    /// `metadata.type` key wins even when its value is null or invalid.
    pub fn from(fm: &Frontmatter) -> Fields {
        if !fm.status.has_fields() {
            return Fields::default();
        }
        let top = |key: &str| fm.get(key).cloned();
        let metadata = match fm.map.as_ref().and_then(|m| m.get("metadata")) {
            Some(Value::Map(inner)) => Some(inner),
            _ => None,
        };
        let nested =
            |key: &str| metadata.and_then(|inner| inner.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v.clone()));
        let flat_type = top("type");
        let (type_raw, type_source) = match (nested("type"), &flat_type) {
            (Some(t), _) => (Some(t), TypeSource::Nested),
            (None, Some(t)) => (Some(t.clone()), TypeSource::Flat),
            (None, None) => (None, TypeSource::None),
        };
        let merged = |key: &str| nested(key).filter(|v| *v != Value::Null).or_else(|| top(key));
        let description_raw = top("description");
        Fields {
            name: top("name"),
            description: description_raw
                .clone()
                .filter(|v| matches!(v, Value::String(s) if !s.is_empty())),
            description_raw,
            type_raw,
            type_source,
            flat_type,
            origin_session_id: merged("originSessionId"),
            modified: merged("modified"),
        }
    }

    /// The `modified` field when it is a string (JSON `modified_field`).
    pub fn modified_str(&self) -> Option<&str> {
        match &self.modified {
            Some(Value::String(s)) => Some(s),
            _ => None,
        }
    }

    /// The `modified` field as epoch milliseconds, when it is a string that parses
    /// as an ISO-8601 time ([`parse_modified`]).
    pub fn modified_ms(&self) -> Option<f64> {
        self.modified_str().and_then(parse_modified).map(|(ms, _)| ms)
    }
}

/// How a `modified` value is written, so that `edit` writes the new time the same way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModifiedFormat {
    /// `YYYY-MM-DD` (the UTC date).
    Date,
    /// `YYYY-MM-DDTHH:MM:SSZ`.
    Seconds,
    /// `YYYY-MM-DDTHH:MM:SS.sssZ`: what Claude Code writes (SPEC §2.4.1), and what
    /// memctl writes for every other shape (other fractions, offsets).
    Millis,
}

impl ModifiedFormat {
    pub fn render(self, t: chrono::DateTime<chrono::Utc>) -> String {
        match self {
            ModifiedFormat::Date => t.format("%Y-%m-%d").to_string(),
            ModifiedFormat::Seconds => t.format("%Y-%m-%dT%H:%M:%SZ").to_string(),
            ModifiedFormat::Millis => t.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string(),
        }
    }
}

/// An ISO-8601 `modified` value: its epoch milliseconds and its format. Accepts a
/// date (`YYYY-MM-DD`, midnight UTC) or an RFC 3339 time (`Z` or an offset, any
/// fraction); anything else is `None`.
pub fn parse_modified(s: &str) -> Option<(f64, ModifiedFormat)> {
    use chrono::{DateTime, NaiveDate};
    let s = s.trim();
    if s.len() == 10 {
        let d = NaiveDate::parse_from_str(s, "%Y-%m-%d").ok()?;
        let t = d.and_hms_opt(0, 0, 0)?.and_utc();
        return Some((t.timestamp_millis() as f64, ModifiedFormat::Date));
    }
    let t = DateTime::parse_from_rfc3339(s).ok()?;
    let b = s.as_bytes();
    let format = if s.len() == 20 && b[19] == b'Z' {
        ModifiedFormat::Seconds
    } else {
        ModifiedFormat::Millis
    };
    Some((t.timestamp_millis() as f64, format))
}

/// `text` with its `modified` field (the one [`Fields`] reads: top-level, else under
/// `metadata:`) set to `now`, for `edit`'s save (SPEC §2.4.1). Only the value's
/// characters change: its quotes (none, `'` or `"`), a trailing comment, the line
/// ending and every other byte are kept; the format follows the old value
/// ([`ModifiedFormat`]; `Millis` when the old value is not a time). `None` when the
/// file has no string `modified` in a block that opens on line 1, or when the value
/// is not written on its own line as a one-line scalar (a flow mapping, a block
/// scalar); the result is checked to read back as the new time with every other
/// field unchanged, else `None`.
pub fn restamp_modified(text: &str, now: chrono::DateTime<chrono::Utc>) -> Option<String> {
    let (fm, _) = parse_document(text);
    if fm.open_line != Some(0) {
        return None;
    }
    let fields = Fields::from(&fm);
    let old = fields.modified_str()?;
    let format = parse_modified(old).map_or(ModifiedFormat::Millis, |(_, f)| f);
    let new = format.render(now);
    let close = fm.close_line?;
    // (2.1.332) The nested value wins (SPEC §2.4.1).
    let top_level = fm
        .get("metadata")
        .and_then(|m| m.get("modified"))
        .is_none_or(|v| *v == Value::Null);
    let span = modified_value_span(text, close, top_level)?;
    let mut out = String::with_capacity(text.len() + 8);
    out.push_str(&text[..span.start]);
    out.push_str(&new);
    out.push_str(&text[span.end..]);
    let (fm2, _) = parse_document(&out);
    let mut after = Fields::from(&fm2);
    if after.modified_str() != Some(new.as_str()) || fm2.status != fm.status {
        return None;
    }
    after.modified = fields.modified.clone();
    (after == fields).then_some(out)
}

/// The byte range of the `modified` value's characters (inside its quotes) on the
/// block's lines 1..`close`: a top-level `modified:` line, or an indented one among
/// the lines after a top-level `metadata:` line.
fn modified_value_span(text: &str, close: usize, top_level: bool) -> Option<std::ops::Range<usize>> {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut offset = text.len() - body.len();
    let mut in_metadata = false;
    let mut nested_indent: Option<usize> = None;
    for (i, raw) in body.split_inclusive('\n').enumerate() {
        let start = offset;
        offset += raw.len();
        if i == 0 {
            continue;
        }
        if i >= close {
            break;
        }
        let line = raw.trim_end_matches('\n').trim_end_matches('\r');
        let indent = line.len() - line.trim_start_matches(' ').len();
        let rest = &line[indent..];
        if indent == 0 {
            if rest.is_empty() || rest.starts_with('#') {
                continue;
            }
            in_metadata = rest.strip_prefix("metadata:").is_some_and(|r| r.trim().is_empty());
            if top_level && let Some(span) = value_span(rest, "modified") {
                return Some(start + span.start..start + span.end);
            }
            continue;
        }
        if top_level || !in_metadata {
            continue;
        }
        // Only keys at the mapping's own indentation (the first nested key's).
        let own = *nested_indent.get_or_insert(indent);
        if indent != own {
            continue;
        }
        if let Some(span) = value_span(rest, "modified") {
            return Some(start + indent + span.start..start + indent + span.end);
        }
    }
    None
}

/// In `key: value # comment`, the range of the value's characters (inside quotes).
fn value_span(line: &str, key: &str) -> Option<std::ops::Range<usize>> {
    let after = line.strip_prefix(key)?.strip_prefix(':')?;
    let trimmed = after.trim_start_matches([' ', '\t']);
    if trimmed.len() == after.len() {
        return None;
    }
    let at = key.len() + 1 + after.len() - trimmed.len();
    let (quote, inner) = match trimmed.chars().next()? {
        q @ ('"' | '\'') => (Some(q), &trimmed[1..]),
        _ => (None, trimmed),
    };
    let len = match quote {
        Some(q) => inner.find(q)?,
        None => inner.find(" #").or_else(|| inner.find("\t#")).unwrap_or(inner.len()),
    };
    let value = &inner[..len];
    let len = value.trim_end_matches([' ', '\t']).len();
    if len == 0 {
        return None;
    }
    let start = at + usize::from(quote.is_some());
    Some(start..start + len)
}

/// A YAML scalar for a value memctl writes (SPEC §3.6): plain when safe, else
/// double-quoted with `\\` and `\"` escapes.
pub fn render_scalar(v: &str) -> String {
    const FIRST: &str = "-?:,[]{}#&*!|>'\"%@`";
    const ANY: &str = "{}[]*&#!|>%@`";
    let safe = !v.is_empty()
        && v.trim() == v
        && !v.starts_with(|c| FIRST.contains(c))
        && !v.chars().any(|c| ANY.contains(c))
        && !v.contains(": ")
        && !v.ends_with(':')
        && !has_document_marker(v)
        && !v.contains("---")
        && crate::yaml::resolve_plain(v).is_none();
    if safe {
        return v.to_string();
    }
    // (2.1.332) Claude Code ends the block at the first `---` anywhere, also inside
    // quotes (SPEC §2.4.2): every third dash of a run is written `\x2D`.
    let mut out = String::with_capacity(v.len() + 2);
    out.push('"');
    let mut dashes = 0;
    for c in v.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '-' if dashes == 2 => {
                out.push_str("\\x2D");
                dashes = 0;
                continue;
            }
            c => out.push(c),
        }
        dashes = if c == '-' { dashes + 1 } else { 0 };
    }
    out.push('"');
    out
}

/// `---` or `...` followed by a space, a tab or the end: in a plain value on an
/// unindented line, Claude Code's runtime ends the document there (SPEC §2.4.3), so
/// `Loading... please wait` fails to parse unquoted.
fn has_document_marker(v: &str) -> bool {
    ["---", "..."].iter().any(|m| {
        v.match_indices(m)
            .any(|(i, _)| v[i + 3..].chars().next().is_none_or(|c| c == ' ' || c == '\t'))
    })
}

/// A new memory file in the nested shape Claude Code 2.1.332 asks for (SPEC §3.6
/// "File content"): `name`, `description`, then `type` under `metadata:`. `name` is
/// written as given (the caller makes it a slug).
pub fn render_memory(name: &str, description: &str, ty: &str, body: &str) -> String {
    let mut s = format!(
        "---\nname: {}\ndescription: {}\nmetadata:\n  type: {}\n---\n",
        render_scalar(name),
        render_scalar(description),
        render_scalar(ty)
    );
    if !body.is_empty() {
        s.push('\n');
        s.push_str(body);
    }
    s
}

#[cfg(test)]
mod tests {

    #[test]
    fn any_js_whitespace_after_the_opening_dashes_opens_the_block() {
        // Observed in the 2.1.332 client (store-mode manifest): `---` + U+00A0
        // opens a block like `---` + spaces; the index loader agreed already.
        let (fm, body) = parse_document("---\u{a0}\ndescription: nbsp open\n---\nbody\n");
        assert_eq!(Fields::from(&fm).description, Some(Value::String("nbsp open".into())));
        assert_eq!(body, "body\n");
        assert!(is_opening("--- \t\u{3000}") && is_opening_bytes("---\u{a0}".as_bytes()));
        assert!(!is_opening("--- x") && !is_opening("----") && !is_opening_bytes(b"---\xff"));
    }
    use super::*;

    fn scan(text: &str) -> (Frontmatter, Fields) {
        let fm = parse_lines(&scan_lines(text));
        let fields = Fields::from(&fm);
        (fm, fields)
    }

    fn s(v: &str) -> Option<Value> {
        Some(Value::String(v.into()))
    }

    #[test]
    fn flat_block_with_body() {
        let text = "---\nname: Testing policy\ndescription: Integration tests hit a real DB\ntype: feedback\n---\n\nBody line\n";
        let (fm, body) = parse_document(text);
        let f = Fields::from(&fm);
        assert_eq!(fm.status, Status::Ok);
        assert_eq!(f.name, s("Testing policy"));
        assert_eq!(f.description, s("Integration tests hit a real DB"));
        assert_eq!(f.type_raw, s("feedback"));
        assert_eq!(f.type_source, TypeSource::Flat);
        assert_eq!(body, "Body line\n");
    }

    #[test]
    fn crlf_and_trailing_blanks_on_delimiters() {
        let (fm, body) = parse_document("---\r\ndescription: crlf desc\r\ntype: reference\r\n---\r\nbody");
        assert_eq!(Fields::from(&fm).description, s("crlf desc"));
        assert_eq!(body, "body");
        let (f2, b2) = parse_document("--- \t\ndescription: t\n---\t\nbody");
        assert_eq!(Fields::from(&f2).description, s("t"));
        assert_eq!(b2, "body");
    }

    #[test]
    fn not_a_block() {
        assert_eq!(scan("----\nname: x\n----\n").0.status, Status::None);
        assert_eq!(scan("---\nname: x\nnever closes\n").0.status, Status::None);
        let (fm, body) = parse_document("---\nname: x\n");
        assert_eq!(fm.status, Status::None);
        assert_eq!(body, "---\nname: x\n");
    }

    #[test]
    fn the_block_ends_at_the_first_dashes_anywhere() {
        // (2.1.332) SPEC §2.4.2, A.8.
        let (fm, body) = parse_document("---\ndescription: x\n  ---\ntype: user\n---\nbody");
        let f = Fields::from(&fm);
        assert_eq!((fm.status, fm.ambiguous_close), (Status::Ok, true));
        assert_eq!((f.description, f.type_raw), (s("x"), None));
        assert_eq!(body, "type: user\n---\nbody");
        let (fm, body) = parse_document("---\ndescription: a---b\ntype: user\n---\nbody");
        assert_eq!(Fields::from(&fm).description, s("a"));
        assert_eq!(body, "b\ntype: user\n---\nbody");
        let (fm, body) = parse_document("---\ndescription: x\n---   trailing\nbody");
        assert_eq!((Fields::from(&fm).description, body), (s("x"), "trailing\nbody"));
        let (fm, body) = parse_document("---\ndescription: x\n----\nbody");
        assert_eq!((Fields::from(&fm).description, body), (s("x"), "-\nbody"));
        let (fm, body) = parse_document("---\n\n\ndescription: x\n---\nbody");
        assert_eq!(
            (Fields::from(&fm).description, body, fm.ambiguous_close),
            (s("x"), "body", false)
        );
    }

    /// Issue 12: a tab after the colon parses on the first try, as in Claude Code.
    #[test]
    fn tab_separated_values_parse_on_the_first_try() {
        let (fm, f) = scan("---\nname: n\ndescription:\tvalue after tab\ntype:\tuser\n---\nbody\n");
        assert_eq!(fm.status, Status::Ok);
        assert_eq!(f.description, s("value after tab"));
        assert_eq!(f.type_raw, s("user"));
        let (fm, f) = scan("---\r\ndescription:\tcrlf\r\nmetadata:\r\n  type:\tproject\r\n---\r\n");
        assert_eq!(fm.status, Status::Ok);
        assert_eq!(f.description, s("crlf"));
        assert_eq!(f.type_source, TypeSource::Nested);
    }

    /// Issue 12: what the runtime rejects fails here too; (2.1.332) the retry's
    /// tab expansion saves a tab-only line (SPEC §2.4.4), its requote cannot save
    /// `- dash`.
    #[test]
    fn what_the_runtime_rejects_keeps_no_fields() {
        let (fm, f) = scan("---\nname: n\ndescription: x\n# comment\n\t\ntype: user\n---\n");
        assert_eq!(fm.status, Status::Retried);
        assert_eq!(f.type_raw, s("user"));
        let text = "---\nname: n\ndescription: - dash\n\t\ntype: user\n---\n";
        let (fm, f) = scan(text);
        assert_eq!(fm.status, Status::Failed, "{text:?}");
        assert_eq!(f, Fields::default(), "{text:?}");
        // (2.1.332) `...` inside a value no longer ends the document (Bun 1.4).
        for text in [
            "---\ndescription: wait...\ntype: user\n---\n",
            "---\nname: n\ndescription: Loading... please wait\ntype: user\n---\n",
        ] {
            let (fm, f) = scan(text);
            assert_eq!(fm.status, Status::Ok, "{text:?}");
            assert_eq!(f.type_raw, s("user"), "{text:?}");
        }
    }

    #[test]
    fn quote_retry_vectors() {
        let (fm, f) = scan("---\ndescription: note: has colon space\n---\n");
        assert_eq!(fm.status, Status::Retried);
        assert_eq!(f.description, s("note: has colon space"));
        assert_eq!(scan("---\ndescription: [unclosed\n---\n").1.description, s("[unclosed"));
        assert_eq!(scan("---\ndescription: @x\n---\n").1.description, s("@x"));
        assert_eq!(scan("---\ndescription: `x`\n---\n").1.description, s("`x`"));
        let (fm, f) = scan("---\ndescription: - dash\ntype: user\n---\n");
        assert_eq!(fm.status, Status::Failed);
        assert_eq!(f, Fields::default());
    }

    #[test]
    fn requote_rules() {
        assert_eq!(
            requote_line("name: Project Context: SS"),
            Some("name: \"Project Context: SS\"".into())
        );
        assert_eq!(requote_line("d: \"quoted: yes\""), None);
        assert_eq!(
            requote_line("d: a \\ \"b\" #c"),
            Some("d: \"a \\\\ \\\"b\\\" #c\"".into())
        );
        assert_eq!(requote_line("  nested: a: b"), None);
        assert_eq!(requote_line("key1: a: b"), None);
        assert_eq!(requote_line("d: a\u{2028}: b"), None);
        assert_eq!(requote_line("d:x: y"), None);
        // (2.1.332) A value that parses on its own as a list is left; other
        // bracketed values are quoted.
        assert_eq!(requote_line("tags: [a, b]"), None);
        assert_eq!(requote_line("tags: [a, {b: c}]"), None);
        assert_eq!(requote_line("d: [unclosed"), Some("d: \"[unclosed\"".into()));
        assert_eq!(requote_line("d: [a]: b]"), Some("d: \"[a]: b]\"".into()));
        assert_eq!(requote_line("d: [a] x [b]"), Some("d: \"[a] x [b]\"".into()));
        // `\s+(\S.*)`: whitespace alone is no value.
        assert_eq!(requote_line("d: \t "), None);
    }

    /// (2.1.332) After the requote, each leading run of tabs becomes two spaces per
    /// tab, so a tab-indented key is read through the retry (SPEC §2.4.4, A.8).
    #[test]
    fn quote_retry_expands_leading_tabs() {
        assert_eq!(
            quote_retry("\tdescription: x\n\t\ttype: a\tb"),
            "  description: x\n    type: a\tb"
        );
        assert_eq!(quote_retry("a: 1\r\tb: 2"), "a: 1\r  b: 2");
        assert_eq!(quote_retry("a: 1\u{2028}\tb"), "a: 1\u{2028}  b");
        let (fm, f) = scan("---\n\tdescription: x\n---\n");
        assert_eq!(fm.status, Status::Retried);
        assert_eq!(f.description, s("x"));
        // A list value on a line the retry leaves; the rest of the text is requoted.
        let (fm, f) = scan("---\ntags: [a, b]\ndescription: note: colon\n---\n");
        assert_eq!(fm.status, Status::Retried);
        assert_eq!(f.description, s("note: colon"));
    }

    #[test]
    fn null_and_falsy_descriptions() {
        assert_eq!(scan("---\ndescription:\ntype: user\n---\n").1.description, None);
        assert_eq!(scan("---\ndescription: 0\n---\n").1.description, None);
        // (2.1.332) Only a non-empty string is a description; the raw value stays.
        let f = scan("---\ndescription: 42\n---\n").1;
        assert_eq!((f.description, f.description_raw), (None, Some(Value::Number(42.0))));
        for text in ["true", "[a, b]", "{k: v}", "\"\""] {
            assert_eq!(
                scan(&format!("---\ndescription: {text}\n---\n")).1.description,
                None,
                "{text}"
            );
        }
        assert_eq!(scan("---\nname: 42\ndescription: d\n---\n").1.name_str(), None);
        assert_eq!(scan("---\ndescription: use C# #tags\n---\n").1.description, s("use C#"));
    }

    #[test]
    fn multi_document_is_not_mapping() {
        let (fm, f) = scan("---\ndescription: x\n...\ntype: user\n---\n");
        assert_eq!(fm.status, Status::NotMapping);
        assert_eq!(f, Fields::default());
    }

    #[test]
    fn deep_flow_nesting_retries_into_a_string() {
        let desc = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        let (fm, f) = scan(&format!("---\ndescription: {desc}\ntype: user\n---\n"));
        assert_eq!(fm.status, Status::Retried);
        assert!(fm.limit_hit);
        assert_eq!(f.description, Some(Value::String(desc)));
        assert_eq!(f.type_raw, s("user"));
    }

    #[test]
    fn comment_before_block_is_not_at_start() {
        let (fm, f) = scan("<!-- banner -->\n---\ndescription: x\n---\n");
        assert_eq!(fm.status, Status::NotAtStart);
        assert_eq!(f, Fields::default());
        assert_eq!(scan("text\n---\ndescription: x\n---\n").0.status, Status::None);
    }

    #[test]
    fn bom_and_empty_block() {
        assert_eq!(scan("\u{feff}---\ndescription: x\n---\n").1.description, s("x"));
        let (fm, body) = parse_document("---\n---\nbody");
        assert_eq!(fm.status, Status::None);
        assert_eq!(body, "body");
    }

    #[test]
    fn take_and_from_agree() {
        for text in [
            "---\nname: n\ndescription: d\ntype: user\noriginSessionId: s\n---\n",
            "---\nname: n\nmetadata:\n  type: feedback\n  originSessionId: abc\n---\n",
            "---\nname: ~\ndescription: 0\ntype: User\nmetadata:\n  type: user\n---\n",
            "---\ndescription: [1, 2]\n---\n",
            "---\n- a\n---\n",
            "no frontmatter\n",
        ] {
            let mut fm = parse_lines(&scan_lines(text));
            let from = Fields::from(&fm);
            assert_eq!(Fields::take(&mut fm), from, "{text:?}");
        }
    }

    #[test]
    fn nested_type_and_session() {
        let (_, f) = scan("---\nname: n\nmetadata: \n  type: feedback\n  originSessionId: abc\n---\n");
        assert_eq!(f.type_raw, s("feedback"));
        assert_eq!(f.type_source, TypeSource::Nested);
        assert_eq!(f.claude_type_raw(), s("feedback").as_ref());
        assert_eq!(f.origin_session_id, s("abc"));
    }

    #[test]
    fn metadata_type_wins_whenever_the_key_is_there() {
        // (2.1.332) SPEC §2.4.1, A.8.
        let f = scan("---\ntype: user\nmetadata:\n  type: project\n---\n").1;
        assert_eq!((f.type_raw.clone(), f.type_source), (s("project"), TypeSource::Nested));
        assert_eq!(f.type_conflict(), s("user").as_ref());
        let f = scan("---\ntype: user\nmetadata:\n  type:\n---\n").1;
        assert_eq!(f.type_raw, Some(Value::Null));
        assert_eq!(f.type_conflict(), s("user").as_ref());
        let f = scan("---\ntype: user\nmetadata: notamap\n---\n").1;
        assert_eq!((f.type_raw.clone(), f.type_source), (s("user"), TypeSource::Flat));
        assert_eq!(f.type_conflict(), None);
        let f = scan("---\ntype:\nmetadata:\n  type: reference\n---\n").1;
        assert_eq!((f.type_raw, f.flat_type), (s("reference"), None));
    }

    #[test]
    fn scalars_render_plain_when_safe_and_round_trip() {
        for (v, out) in [
            ("Testing policy", "Testing policy"),
            ("a: b", "\"a: b\""),
            ("ends:", "\"ends:\""),
            ("- dash", "\"- dash\""),
            ("use C# #tags", "\"use C# #tags\""),
            ("yes", "yes"),
            ("true", "\"true\""),
            ("42", "\"42\""),
            ("null", "\"null\""),
            (" padded", "\" padded\""),
            ("say \"hi\" \\ bye", "say \"hi\" \\ bye"),
            ("\"quoted\" \\ x: y", "\"\\\"quoted\\\" \\\\ x: y\""),
            ("`code`", "\"`code`\""),
            ("Loading... please wait", "\"Loading... please wait\""),
            ("wait...", "\"wait...\""),
            ("a --- b", "\"a --\\x2D b\""),
            ("a---b----c", "\"a--\\x2Db--\\x2D-c\""),
            ("x...y", "x...y"),
            ("12e", "12e"),
            ("-0x1F", "\"-0x1F\""),
        ] {
            assert_eq!(render_scalar(v), out, "{v:?}");
            let text = render_memory(v, v, "user", "");
            let (fm, _) = parse_document(&text);
            assert_eq!(fm.status, Status::Ok, "{text}");
            assert_eq!(Fields::from(&fm).name, Some(Value::String(v.into())), "{text}");
        }
    }

    #[test]
    fn empty_body_ends_at_the_delimiter() {
        assert_eq!(
            render_memory("n", "d", "user", ""),
            "---\nname: n\ndescription: d\nmetadata:\n  type: user\n---\n"
        );
        assert_eq!(
            render_memory("n", "d", "user", "b\n"),
            "---\nname: n\ndescription: d\nmetadata:\n  type: user\n---\n\nb\n"
        );
    }

    #[test]
    fn closing_line_at_end_of_text_leaves_empty_body() {
        let (fm, body) = parse_document("---\nname: a\n---");
        assert_eq!(fm.status, Status::Ok);
        assert_eq!(body, "");
    }

    fn at(s: &str) -> chrono::DateTime<chrono::Utc> {
        chrono::DateTime::parse_from_rfc3339(s).unwrap().into()
    }

    const NOW: &str = "2026-08-02T09:05:07.123Z";

    #[test]
    fn modified_is_read_flat_nested_and_only_as_a_string() {
        let (_, f) = scan("---\nname: n\nmodified: 2026-07-21T13:53:16.297Z\n---\n");
        assert_eq!(f.modified_str(), Some("2026-07-21T13:53:16.297Z"));
        assert_eq!(f.modified_ms(), Some(1_784_641_996_297.0));
        let (_, f) = scan("---\nname: n\nmetadata: \n  type: user\n  modified: 2026-07-21T13:53:16.297Z\n---\n");
        assert_eq!(f.modified_str(), Some("2026-07-21T13:53:16.297Z"));
        let (_, f) = scan("---\nmodified: \"2026-07-21\"\nmetadata:\n  modified: 2026-01-01T00:00:00Z\n---\n");
        assert_eq!(f.modified_str(), Some("2026-01-01T00:00:00Z"), "(2.1.332) nested first");
        let (_, f) = scan("---\nmodified: 2026-01-01T00:00:00Z\nmetadata:\n  modified: ~\n---\n");
        assert_eq!(
            f.modified_str(),
            Some("2026-01-01T00:00:00Z"),
            "a null nested value falls through"
        );
        let (_, f) = scan("---\nmodified: 20260721\n---\n");
        assert_eq!(f.modified, Some(Value::Number(20_260_721.0)));
        assert_eq!((f.modified_str(), f.modified_ms()), (None, None));
        let (_, f) = scan("---\nmodified: last week\n---\n");
        assert_eq!((f.modified_str(), f.modified_ms()), (Some("last week"), None));
        assert_eq!(scan("---\nname: n\n---\n").1.modified, None);
        for text in [
            "---\nmodified: 2026-07-21T13:53:16.297Z\nmetadata:\n  modified: x\n---\n",
            "---\nmetadata:\n  modified: 2026-07-21\n---\n",
        ] {
            let mut fm = parse_lines(&scan_lines(text));
            let from = Fields::from(&fm);
            assert_eq!(Fields::take(&mut fm), from, "{text:?}");
        }
    }

    #[test]
    fn modified_formats() {
        assert_eq!(parse_modified("2026-07-21").map(|p| p.1), Some(ModifiedFormat::Date));
        assert_eq!(
            parse_modified("2026-07-21T13:53:16Z").map(|p| p.1),
            Some(ModifiedFormat::Seconds)
        );
        assert_eq!(
            parse_modified("2026-07-21T13:53:16.297Z").map(|p| p.1),
            Some(ModifiedFormat::Millis)
        );
        assert_eq!(
            parse_modified("2026-07-21T15:53:16+02:00").map(|p| p.0),
            parse_modified("2026-07-21T13:53:16Z").map(|p| p.0)
        );
        for bad in [
            "",
            "2026-13-01",
            "2026-07-21 13:53",
            "yesterday",
            "2026-07-21T13:53:16.297",
        ] {
            assert_eq!(parse_modified(bad), None, "{bad:?}");
        }
        let t = at(NOW);
        assert_eq!(ModifiedFormat::Date.render(t), "2026-08-02");
        assert_eq!(ModifiedFormat::Seconds.render(t), "2026-08-02T09:05:07Z");
        assert_eq!(ModifiedFormat::Millis.render(t), "2026-08-02T09:05:07.123Z");
    }

    #[test]
    fn restamp_rewrites_only_the_value() {
        let now = at(NOW);
        for (before, after) in [
            (
                "---\nname: n\nmodified: 2026-07-21T13:53:16.297Z\n---\nbody\n",
                "---\nname: n\nmodified: 2026-08-02T09:05:07.123Z\n---\nbody\n",
            ),
            (
                "---\r\nname: n\r\nmetadata: \r\n  type: user\r\n  modified: 2026-07-21T13:53:16.297Z  # by CC\r\n---\r\n",
                "---\r\nname: n\r\nmetadata: \r\n  type: user\r\n  modified: 2026-08-02T09:05:07.123Z  # by CC\r\n---\r\n",
            ),
            (
                "\u{feff}---\nmodified: '2026-07-21'\n---\n",
                "\u{feff}---\nmodified: '2026-08-02'\n---\n",
            ),
            (
                "---\nmodified:\t\"2026-07-21T13:53:16Z\"\n---\n",
                "---\nmodified:\t\"2026-08-02T09:05:07Z\"\n---\n",
            ),
            (
                "---\nmodified: 2026-07-21T15:53:16+02:00\n---\n",
                "---\nmodified: 2026-08-02T09:05:07.123Z\n---\n",
            ),
            (
                "---\nmodified: sometime\n---\n",
                "---\nmodified: 2026-08-02T09:05:07.123Z\n---\n",
            ),
            (
                "---\nmetadata:\n  node:\n    modified: x\n  modified: 2026-07-21\n---\n",
                "---\nmetadata:\n  node:\n    modified: x\n  modified: 2026-08-02\n---\n",
            ),
        ] {
            assert_eq!(restamp_modified(before, now).as_deref(), Some(after), "{before:?}");
        }
    }

    #[test]
    fn restamp_leaves_files_without_a_string_modified() {
        let now = at(NOW);
        for text in [
            "---\nname: n\n---\nmodified: 2026-07-21\n",
            "no frontmatter\nmodified: 2026-07-21\n",
            "---\nmodified: 20260721\n---\n",
            "---\nmodified: ~\n---\n",
            "---\nmodified: [2026-07-21]\n---\n",
            "---\nmetadata: {modified: 2026-07-21}\n---\n",
            "---\nmodified: |\n  2026-07-21\n---\n",
            "<!-- c -->\n---\nname: n\nmodified: 2026-07-21\n---\n",
            "---\nname: n\nmodified: 2026-07-21\n",
        ] {
            assert_eq!(restamp_modified(text, now), None, "{text:?}");
        }
    }

    #[test]
    fn body_is_parse_documents_body() {
        for text in [
            "",
            "---",
            "---\n---",
            "---\nname: x\n---\nbody\n",
            "\u{feff}---\r\nname: x\r\n---\r\nbody\r\n",
            "---\nname: x\n",
            "---\ndescription: x\n  ---\ntype: user\n---\nbody",
            "---\ndescription: a---b\ntype: user\n---\nbody",
            "--- \t\ndescription: t\n---\t\nbody",
            "---\u{a0}\nname: x\n----\n\n  body",
            "<!-- c -->\n---\nname: x\n---\nbody",
            "\n---\nname: x\n---\nbody",
            "--- x\nname: y\n---\nbody",
            "---\nname: x\n--- trailing\nbody",
            "---\nname: [unclosed\n---\n\u{3000}body",
            "no frontmatter\n---\n",
        ] {
            let (_, want) = parse_document(text);
            let got = body(text);
            assert_eq!((got, got.as_ptr()), (want, want.as_ptr()), "{text:?}");
        }
    }
}
