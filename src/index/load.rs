//! What Claude Code loads from `MEMORY.md` (SPEC §2.7): frontmatter stripped,
//! block-level HTML comments removed (§2.7.2), then trimmed and truncated at
//! 200 lines or 25 000 UTF-16 units (§2.7.1). Every line of the processed text keeps
//! the number of the line it came from in the file, so dropped entries are reported
//! by file line.

use serde::Serialize;

use crate::frontmatter;
use crate::text::{count_byte, format_file_size, is_js_space, utf16_len};

/// `MAX_ENTRYPOINT_LINES`.
pub const MAX_LINES: usize = 200;
/// `MAX_ENTRYPOINT_BYTES`: compared with the length in UTF-16 units.
pub const MAX_UNITS: usize = 25_000;

/// Text whose lines (LF-split) each remember their 1-based line in the file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mapped {
    pub text: String,
    /// `origin[k]` is the file line of line `k` of `text`.
    pub origin: Vec<usize>,
}

impl Mapped {
    fn from_lines(lines: Vec<(String, usize)>) -> Mapped {
        let origin = lines.iter().map(|(_, o)| *o).collect();
        let text = lines.into_iter().map(|(l, _)| l).collect::<Vec<_>>().join("\n");
        Mapped { text, origin }
    }

    fn lines(&self) -> Vec<(String, usize)> {
        self.text
            .split('\n')
            .map(str::to_string)
            .zip(self.origin.iter().copied())
            .collect()
    }
}

/// The result of modelling one load.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Load {
    /// Lines of the trimmed text (an empty text counts as 1).
    pub line_count: usize,
    /// UTF-16 units of the trimmed text.
    pub unit_count: usize,
    /// UTF-8 bytes of the trimmed text.
    pub utf8_bytes: usize,
    pub line_truncated: bool,
    pub unit_truncated: bool,
    /// The appended warning line (without its two leading LFs), if truncated.
    pub warning: Option<String>,
    /// Why it is truncated (`203 lines (limit: 200)` …), if it is.
    pub reason: Option<String>,
    /// Exactly what Claude Code places in context (content plus warning).
    pub loaded: String,
    /// Units of the kept content (before the warning).
    pub kept_units: usize,
    /// The number of kept lines, counting a partly kept line.
    pub kept_lines: usize,
    /// Non-blank processed lines not loaded in full.
    pub dropped: Vec<Dropped>,
    pub frontmatter_stripped: bool,
    pub html_comments_stripped: bool,
    /// The trimmed text with its line mapping (lint and dream reuse it).
    #[serde(skip)]
    pub processed: Mapped,
}

/// A line Claude Code does not load in full.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Dropped {
    /// 1-based line in the file.
    pub line: usize,
    /// 0-based line of the processed (trimmed) text: ≥ 200 means cut by the line cap.
    pub index: usize,
    /// Where the processed line is in `Load::processed.text` (see [`Load::dropped_text`]).
    #[serde(skip)]
    pub span: std::ops::Range<usize>,
}

impl Load {
    pub fn truncated(&self) -> bool {
        self.line_truncated || self.unit_truncated
    }

    /// The processed text of a dropped line.
    pub fn dropped_text(&self, d: &Dropped) -> &str {
        self.processed.text.get(d.span.clone()).unwrap_or_default()
    }
}

/// Model Claude Code's load of an index whose content is `text` (already decoded).
pub fn load(text: &str) -> Load {
    let (body, start_line, frontmatter_stripped) = strip_frontmatter(text);
    // Line k of the body is file line start_line + k: no per-line copies.
    let n = count_byte(body.as_bytes(), b'\n') + 1;
    let mut mapped = Mapped {
        text: body.to_string(),
        origin: (start_line..start_line + n).collect(),
    };
    let mut html_comments_stripped = false;
    if mapped.text.contains("<!--") {
        mapped = strip_comments(&normalize_line_endings(&mapped));
        html_comments_stripped = true;
    }
    truncate(trim(mapped), frontmatter_stripped, html_comments_stripped)
}

/// §2.4.2 on the index: the content after a frontmatter block, and its first line.
fn strip_frontmatter(text: &str) -> (&str, usize, bool) {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    // Only a block opening on line 1 is stripped, whether its YAML parses or not.
    let mut lines = text.split_inclusive('\n');
    if !lines
        .next()
        .is_some_and(|first| frontmatter::is_delimiter(strip_cr(first)))
    {
        return (text, 1, false);
    }
    let mut consumed = text.split_inclusive('\n').next().map_or(0, str::len);
    for l in lines {
        consumed += l.len();
        if frontmatter::is_delimiter(strip_cr(l)) {
            // The body starts after the closing line and any blank space after it.
            let rest = &text[consumed..];
            let body = if !l.ends_with('\n') {
                ""
            } else {
                rest.trim_start_matches([' ', '\t', '\r', '\n'])
            };
            let start_line = 1 + count_byte(&text.as_bytes()[..text.len() - body.len()], b'\n');
            return (body, start_line, true);
        }
    }
    (text, 1, false)
}

/// Only Claude Code's whitespace; most lines are decided by their first byte.
fn is_js_blank(l: &str) -> bool {
    match l.as_bytes().first() {
        None => true,
        Some(b) if b.is_ascii_graphic() => false,
        _ => l.chars().all(is_js_space),
    }
}

/// A line without its LF and one CR before it.
fn strip_cr(l: &str) -> &str {
    let l = l.strip_suffix('\n').unwrap_or(l);
    l.strip_suffix('\r').unwrap_or(l)
}

/// CRLF and lone CR become LF (the lexer's normalization); lines keep their origin.
fn normalize_line_endings(m: &Mapped) -> Mapped {
    let lines = m.lines();
    let last = lines.len().saturating_sub(1);
    let mut out = Vec::new();
    for (i, (line, origin)) in lines.into_iter().enumerate() {
        let line = if i < last {
            line.strip_suffix('\r').map(str::to_string).unwrap_or(line)
        } else {
            line
        };
        for piece in line.split('\r') {
            out.push((piece.to_string(), origin));
        }
    }
    Mapped::from_lines(out)
}

/// Claude Code's `trim` on mapped text: leading lines that vanish are dropped.
fn trim(mut m: Mapped) -> Mapped {
    let start = m.text.len() - m.text.trim_start_matches(is_js_space).len();
    let end = m.text.trim_end_matches(is_js_space).len().max(start);
    // Lines wholly inside the trimmed head and tail lose their origins; only the
    // ends of the text are counted (`origin` has one entry per line).
    let skipped = count_byte(&m.text.as_bytes()[..start], b'\n');
    let cut_tail = count_byte(&m.text.as_bytes()[end..], b'\n');
    m.text.truncate(end);
    m.text.drain(..start);
    let n = m.origin.len().saturating_sub(skipped + cut_tail);
    m.origin.drain(..skipped.min(m.origin.len()));
    m.origin.truncate(n);
    m
}

impl Load {
    /// A load of `line_count` lines and `unit_count` units, not yet cut.
    fn counted(
        line_count: usize,
        unit_count: usize,
        utf8_bytes: usize,
        frontmatter_stripped: bool,
        html_comments_stripped: bool,
    ) -> Load {
        Load {
            line_count,
            unit_count,
            utf8_bytes,
            line_truncated: line_count > MAX_LINES,
            unit_truncated: unit_count > MAX_UNITS,
            warning: None,
            reason: None,
            loaded: String::new(),
            kept_units: unit_count,
            kept_lines: line_count,
            dropped: Vec::new(),
            frontmatter_stripped,
            html_comments_stripped,
            processed: Mapped::default(),
        }
    }

    /// The loaded text, warning and reason of a truncated load that keeps `kept`.
    fn cut(&mut self, kept: &str, lone_high: bool) {
        let reason = match (self.line_truncated, self.unit_truncated) {
            (false, _) => format!(
                "{} (limit: {}) — index entries are too long",
                format_file_size(self.unit_count),
                format_file_size(MAX_UNITS)
            ),
            (true, false) => format!("{} lines (limit: {MAX_LINES})", self.line_count),
            (true, true) => format!("{} lines and {}", self.line_count, format_file_size(self.unit_count)),
        };
        let warning = format!(
            "> WARNING: MEMORY.md is {reason}. Only part of it was loaded. Keep index entries to one line under ~200 chars; move detail into topic files."
        );
        self.kept_units = utf16_len(kept) + usize::from(lone_high);
        self.loaded = format!("{kept}{}\n\n{warning}", if lone_high { "\u{fffd}" } else { "" });
        self.warning = Some(warning);
        self.reason = Some(reason);
    }
}

/// The processed lines (`lines`, with their file lines `origin`) not loaded in
/// full when the first `kept_len` bytes are kept, and how many are loaded in full.
/// A line is loaded in full when it ends inside the kept prefix.
fn dropped_lines<'a>(lines: impl Iterator<Item = &'a str>, origin: &[usize], kept_len: usize) -> (Vec<Dropped>, usize) {
    let mut dropped = Vec::new();
    let mut offset = 0;
    let mut fully_kept = 0;
    for (i, l) in lines.enumerate() {
        let end = offset + l.len();
        if end <= kept_len {
            fully_kept = i + 1;
        } else if !is_js_blank(l) {
            dropped.push(Dropped {
                line: origin[i],
                index: i,
                span: offset..end,
            });
        }
        offset = end + 1;
    }
    (dropped, fully_kept)
}

/// §2.7.1 on trimmed text.
fn truncate(t: Mapped, frontmatter_stripped: bool, html_comments_stripped: bool) -> Load {
    let line_count = count_byte(t.text.as_bytes(), b'\n') + 1;
    let mut load = Load::counted(
        line_count,
        utf16_len(&t.text),
        t.text.len(),
        frontmatter_stripped,
        html_comments_stripped,
    );
    if !load.truncated() {
        load.loaded = t.text.clone();
        load.processed = t;
        return load;
    }
    // The first 200 lines, joined by their LFs: a prefix of the text.
    let k = if load.line_truncated {
        let end = t
            .text
            .match_indices('\n')
            .nth(MAX_LINES - 1)
            .map_or(t.text.len(), |(i, _)| i);
        &t.text[..end]
    } else {
        &t.text
    };
    let (kept, lone_high) = cut_units(k);
    let (dropped, fully_kept) = dropped_lines(t.text.split('\n'), &t.origin, kept.len());
    load.dropped = dropped;
    load.kept_lines = fully_kept;
    load.cut(kept, lone_high);
    load.processed = t;
    load
}

/// A load modelled from a stream (see [`load_stream`]).
pub struct Streamed {
    /// The load; `dropped` holds only the first `quote_limit` entries.
    pub load: Load,
    /// How many entries are dropped in all.
    pub dropped_total: usize,
    /// The file lines (one CR removed) of the first dropped entries, by line.
    pub quotes: Vec<(usize, String)>,
    /// NUL bytes in the first 8 KiB.
    pub binary: bool,
}

/// Bytes memctl models at most (a larger index is not streamed).
const STREAM_MAX_BYTES: u64 = 256 << 20;

/// Model the load of a large index without holding it: read line by line, keep
/// the head of the processed text (the first 200 lines, at most ~25 000 units
/// of them) and count the rest. The result is that of [`load`] on the whole
/// text. Only what this can model is streamed; `None` asks the caller to read
/// the whole text instead: a text whose processed lines all fit in the head
/// (nothing is cut, or the cut is decided by lines the head holds), invalid
/// UTF-8, a frontmatter block, an HTML comment, more than 256 MiB.
/// `quote_limit`: how many dropped lines to quote.
pub fn load_stream(r: &mut impl std::io::Read, quote_limit: usize) -> std::io::Result<Option<Streamed>> {
    let mut st = Stream {
        quote_limit,
        ..Stream::default()
    };
    let mut data = vec![0u8; 64 << 10];
    let mut filled = 0;
    let mut total: u64 = 0;
    let mut binary = false;
    loop {
        if filled == data.len() {
            // A line longer than the buffer.
            data.resize(2 * data.len(), 0);
        }
        let n = loop {
            match r.read(&mut data[filled..]) {
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                other => break other?,
            }
        };
        if n == 0 {
            break;
        }
        let old = filled;
        filled += n;
        if total < 8192 {
            binary |= data[old..old + n.min((8192 - total) as usize)].contains(&0);
        }
        total += n as u64;
        if total > STREAM_MAX_BYTES {
            return Ok(None);
        }
        // Complete lines end at the last LF (which no UTF-8 sequence contains);
        // the bytes before `old` hold none.
        let Some(last_lf) = data[old..filled].iter().rposition(|b| *b == b'\n').map(|i| old + i) else {
            continue;
        };
        let Ok(lines) = std::str::from_utf8(&data[..last_lf]) else {
            return Ok(None);
        };
        if st.lines(lines).is_none() {
            return Ok(None);
        }
        data.copy_within(last_lf + 1..filled, 0);
        filled -= last_lf + 1;
    }
    // The last line (empty after a final LF).
    match std::str::from_utf8(&data[..filled]) {
        Ok(last) if st.lines(last).is_some() => Ok(st.finish(binary)),
        _ => Ok(None),
    }
}

/// The state of [`load_stream`].
#[derive(Default)]
struct Stream {
    quote_limit: usize,
    /// 1-based number of the last file line seen.
    next_line: usize,
    /// Whether a non-blank line was seen (the leading trim is over).
    started: bool,
    /// The file text of the first processed line (before the trim).
    first_file_line: String,
    first_origin: usize,
    /// Index of the next processed line.
    index: usize,
    /// The first processed lines, joined by LF.
    head: String,
    head_lines: usize,
    head_units: usize,
    /// Units and bytes of the processed lines so far (untrimmed end).
    run_units: usize,
    run_bytes: usize,
    /// The same up to the end of the last non-blank line (the trimmed end).
    lines: usize,
    units: usize,
    bytes: usize,
    /// Non-blank lines after the head: how many, the first of them, quoted.
    beyond_total: usize,
    beyond: Vec<Dropped>,
    quotes: Vec<(usize, String)>,
}

impl Stream {
    /// Whole lines, joined by LF; `None` for what only the whole text models.
    fn lines(&mut self, text: &str) -> Option<()> {
        if text.contains("<!--") {
            return None;
        }
        // Line by line into the head, then in bulk.
        let mut rest = text;
        while !self.head_full() {
            match rest.split_once('\n') {
                Some((line, more)) => {
                    self.line(line)?;
                    rest = more;
                }
                None => return self.line(rest),
            }
        }
        self.bulk(rest);
        Some(())
    }

    /// The head holds all the cut can depend on: 200 processed lines, or more
    /// than 25 000 units of them.
    fn head_full(&self) -> bool {
        self.index >= MAX_LINES || self.head_units > MAX_UNITS + 2
    }

    /// One file line (without its LF) while the head is open.
    fn line(&mut self, line: &str) -> Option<()> {
        self.next_line += 1;
        let no = self.next_line;
        let file_line = if no == 1 {
            line.strip_prefix('\u{feff}').unwrap_or(line)
        } else {
            line
        };
        if no == 1 && frontmatter::is_delimiter(strip_cr(file_line)) {
            return None;
        }
        let mut l = file_line;
        if !self.started {
            if is_js_blank(l) {
                return Some(());
            }
            self.started = true;
            self.first_origin = no;
            self.first_file_line = strip_cr(file_line).to_string();
            l = l.trim_start_matches(is_js_space);
        }
        let i = self.index;
        self.index += 1;
        let units = utf16_len(l);
        let sep = usize::from(i > 0);
        self.run_units += units + sep;
        self.run_bytes += l.len() + sep;
        if !is_js_blank(l) {
            self.lines = i + 1;
            self.trailing(&l[l.trim_end_matches(is_js_space).len()..]);
        }
        if i > 0 {
            self.head.push('\n');
        }
        self.head.push_str(l);
        self.head_lines += 1;
        self.head_units += units + sep;
        Some(())
    }

    /// Lines after the head, joined by LF: all dropped but blank ones, counted,
    /// the first ones quoted.
    fn bulk(&mut self, text: &str) {
        // Every line here has an LF before it.
        self.run_units += utf16_len(text) + 1;
        self.run_bytes += text.len() + 1;
        if self.beyond.len() >= self.quote_limit && crate::text::every_line_starts_printable(text.as_bytes()) {
            // No line is blank, and no more are quoted: only counts change.
            let n = count_byte(text.as_bytes(), b'\n') + 1;
            self.next_line += n;
            self.index += n;
            self.lines = self.index;
            self.beyond_total += n;
            self.trailing(&text[text.trim_end_matches(is_js_space).len()..]);
            return;
        }
        let mut last_end = None;
        let mut offset = 0;
        for l in text.split('\n') {
            self.next_line += 1;
            let i = self.index;
            self.index += 1;
            if !is_js_blank(l) {
                self.lines = i + 1;
                last_end = Some(offset + l.trim_end_matches(is_js_space).len());
                self.beyond_total += 1;
                if self.beyond.len() < self.quote_limit {
                    self.beyond.push(Dropped {
                        line: self.next_line,
                        index: i,
                        span: 0..0,
                    });
                    self.quotes.push((self.next_line, strip_cr(l).to_string()));
                }
            }
            offset += l.len() + 1;
        }
        if let Some(end) = last_end {
            self.trailing(&text[end..]);
        }
    }

    /// The processed text so far ends with a non-blank line followed by
    /// `trailing` (its trailing blank space and any blank lines): the trimmed end.
    fn trailing(&mut self, trailing: &str) {
        self.units = self.run_units - utf16_len(trailing);
        self.bytes = self.run_bytes - trailing.len();
    }

    /// The load, when a non-blank line lies beyond the head: the cut is then
    /// certain and falls inside the head.
    fn finish(self, binary: bool) -> Option<Streamed> {
        if !self.started || self.lines <= self.head_lines {
            return None;
        }
        let mut load = Load::counted(self.lines, self.units, self.bytes, false, false);
        let origin: Vec<usize> = (self.first_origin..self.first_origin + self.head_lines).collect();
        // The head is the first 200 lines, or holds more than 25 000 units of them:
        // the cut sees nothing after it.
        let (kept, lone_high) = cut_units(&self.head);
        let (mut dropped, fully_kept) = dropped_lines(self.head.split('\n'), &origin, kept.len());
        load.kept_lines = fully_kept;
        load.cut(kept, lone_high);
        let mut quotes: Vec<(usize, String)> = dropped
            .iter()
            .take(self.quote_limit)
            .map(|d| {
                let text = if d.index == 0 {
                    self.first_file_line.clone()
                } else {
                    strip_cr(&self.head[d.span.clone()]).to_string()
                };
                (d.line, text)
            })
            .collect();
        let dropped_total = dropped.len() + self.beyond_total;
        let room = self.quote_limit.saturating_sub(dropped.len());
        quotes.extend(self.quotes.into_iter().take(room));
        dropped.extend(self.beyond.into_iter().take(room));
        dropped.truncate(self.quote_limit);
        load.dropped = dropped;
        load.processed = Mapped {
            text: self.head,
            origin,
        };
        Some(Streamed {
            load,
            dropped_total,
            quotes,
            binary,
        })
    }
}

/// Cut `k` at the last LF at a unit position ≤ 25 000, or at 25 000 units. Returns
/// the kept text and whether the cut split a surrogate pair (a lone high surrogate
/// that Claude Code keeps).
fn cut_units(k: &str) -> (&str, bool) {
    if utf16_len(k) <= MAX_UNITS {
        return (k, false);
    }
    let mut units = 0;
    let mut last_lf = None;
    for (i, c) in k.char_indices() {
        if units > MAX_UNITS {
            break;
        }
        if c == '\n' {
            last_lf = Some((i, units));
        }
        units += c.len_utf16();
    }
    if let Some((i, pos)) = last_lf
        && pos > 0
    {
        return (&k[..i], false);
    }
    let mut units = 0;
    for (i, c) in k.char_indices() {
        let w = c.len_utf16();
        if units + w > MAX_UNITS {
            return (&k[..i], units < MAX_UNITS);
        }
        units += w;
    }
    (k, false)
}

/// §2.7.2: remove top-level HTML comment blocks. `m` has LF line endings only.
fn strip_comments(m: &Mapped) -> Mapped {
    let lines = m.lines();
    let mut out: Vec<(String, usize)> = Vec::new();
    let mut ctx = BlockContext::default();
    let mut i = 0;
    while i < lines.len() {
        let (line, origin) = &lines[i];
        if ctx.is_comment_start(line) {
            // The block runs through the line holding the first `-->` after `<!--`.
            let open = line.find("<!--").unwrap_or(0);
            let mut end = i;
            let mut found = line[open + 2..].contains("-->");
            while !found && end + 1 < lines.len() {
                end += 1;
                found = lines[end].0.contains("-->");
            }
            if !found {
                // Unclosed: the block runs to the end of the text and stays.
                out.extend(lines[i..].iter().cloned());
                break;
            }
            let mut absorbed = end;
            while absorbed + 1 < lines.len() && lines[absorbed + 1].0.is_empty() && absorbed + 1 < lines.len() - 1 {
                absorbed += 1;
            }
            // A trailing empty line after the last LF is the text's end, not a line.
            let block: Vec<(String, usize)> = lines[i..=absorbed].to_vec();
            let ends_text = absorbed + 1 == lines.len();
            replace_block(&block, ends_text, &mut out);
            i = absorbed + 1;
            ctx.after_block();
            continue;
        }
        ctx.consume(line);
        out.push((line.clone(), *origin));
        i += 1;
    }
    Mapped::from_lines(if out.is_empty() {
        vec![(String::new(), m.origin.last().copied().unwrap_or(1))]
    } else {
        out
    })
}

/// Delete the `<!--…-->` spans of a comment block; drop it if only whitespace
/// remains. `ends_text`: the block's last line has no LF after it.
fn replace_block(block: &[(String, usize)], ends_text: bool, out: &mut Vec<(String, usize)>) {
    let mut text = String::new();
    let mut char_line = Vec::new();
    for (k, (l, o)) in block.iter().enumerate() {
        text.push_str(l);
        char_line.extend(std::iter::repeat_n(*o, l.len()));
        if k + 1 < block.len() || !ends_text {
            text.push('\n');
            char_line.push(*o);
        }
    }
    let mut kept = String::new();
    let mut kept_origin = Vec::new();
    let mut pos = 0;
    while let Some(s) = text[pos..].find("<!--") {
        let start = pos + s;
        match text[start + 4..].find("-->") {
            Some(e) => {
                kept.push_str(&text[pos..start]);
                kept_origin.extend_from_slice(&char_line[pos..start]);
                pos = start + 4 + e + 3;
            }
            None => break,
        }
    }
    kept.push_str(&text[pos..]);
    kept_origin.extend_from_slice(&char_line[pos..]);
    if kept.chars().all(is_js_space) {
        if ends_text && out.is_empty() {
            return;
        }
        if ends_text {
            // The text ended inside the block: the previous line's LF stays.
            out.push((String::new(), block.last().map_or(1, |b| b.1)));
        }
        return;
    }
    // Split the remainder into lines; each takes the origin of its first byte.
    let mut start = 0;
    let last = count_byte(kept.as_bytes(), b'\n');
    for (idx, piece) in kept.split('\n').enumerate() {
        let origin = kept_origin
            .get(start)
            .copied()
            .unwrap_or_else(|| block.last().map_or(1, |b| b.1));
        let is_last = idx == last;
        if !(is_last && piece.is_empty() && !ends_text) {
            out.push((piece.to_string(), origin));
        }
        start += piece.len() + 1;
    }
}

/// The CommonMark block context needed to decide where a comment block can start.
#[derive(Default)]
struct BlockContext {
    fence: Option<(char, usize)>,
    /// End marker of an open HTML block (types 1, 3–5), or `""` for types 6/7
    /// (which end at a blank line).
    html: Option<&'static str>,
    /// Content indent of the open list item.
    list: Option<usize>,
    quote: bool,
    paragraph: bool,
}

fn indent_of(line: &str) -> usize {
    let mut col = 0;
    for c in line.chars() {
        match c {
            ' ' => col += 1,
            '\t' => col += 4 - col % 4,
            _ => break,
        }
    }
    col
}

/// `line` without leading spaces and tabs worth `cols` columns (a tab that
/// straddles the boundary is removed whole). Never cuts inside a char.
fn strip_columns(line: &str, cols: usize) -> &str {
    let mut col = 0;
    for (i, c) in line.char_indices() {
        if col >= cols {
            return &line[i..];
        }
        match c {
            ' ' => col += 1,
            '\t' => col += 4 - col % 4,
            _ => return &line[i..],
        }
    }
    ""
}

fn is_blank(line: &str) -> bool {
    line.chars().all(|c| c == ' ' || c == '\t')
}

fn fence_of(line: &str) -> Option<(char, usize)> {
    if indent_of(line) > 3 {
        return None;
    }
    let t = line.trim_start_matches(' ');
    let c = t.chars().next()?;
    if c != '`' && c != '~' {
        return None;
    }
    let n = t.chars().take_while(|x| *x == c).count();
    if n < 3 || (c == '`' && t[n..].contains('`')) {
        return None;
    }
    Some((c, n))
}

/// A list item marker: returns the content indent.
fn list_marker(line: &str) -> Option<usize> {
    let ind = indent_of(line);
    if ind > 3 {
        return None;
    }
    let t = line.trim_start_matches([' ', '\t']);
    let b = t.as_bytes();
    let marker_len = if matches!(b.first(), Some(b'-' | b'*' | b'+')) {
        1
    } else {
        let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
        if (1..=9).contains(&digits) && matches!(b.get(digits), Some(b'.' | b')')) {
            digits + 1
        } else {
            return None;
        }
    };
    match b.get(marker_len) {
        None => Some(ind + marker_len + 1),
        Some(b' ' | b'\t') => {
            let spaces = b[marker_len..].iter().take_while(|c| **c == b' ').count();
            Some(ind + marker_len + if (1..=4).contains(&spaces) { spaces } else { 1 })
        }
        _ => None,
    }
}

const TYPE6: &[&str] = &[
    "address",
    "article",
    "aside",
    "base",
    "basefont",
    "blockquote",
    "body",
    "caption",
    "center",
    "col",
    "colgroup",
    "dd",
    "details",
    "dialog",
    "dir",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "frame",
    "frameset",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "head",
    "header",
    "hr",
    "html",
    "iframe",
    "legend",
    "li",
    "link",
    "main",
    "menu",
    "menuitem",
    "nav",
    "noframes",
    "ol",
    "optgroup",
    "option",
    "p",
    "param",
    "search",
    "section",
    "summary",
    "table",
    "tbody",
    "td",
    "tfoot",
    "th",
    "thead",
    "title",
    "tr",
    "track",
    "ul",
];

/// The HTML block (other than a comment) a line opens, with its end condition.
fn html_start(line: &str, paragraph: bool) -> Option<&'static str> {
    if indent_of(line) > 3 {
        return None;
    }
    let t = line.trim_start_matches([' ', '\t']);
    let lower = t.to_ascii_lowercase();
    for (tag, end) in [
        ("<script", "</script>"),
        ("<pre", "</pre>"),
        ("<style", "</style>"),
        ("<textarea", "</textarea>"),
    ] {
        if let Some(rest) = lower.strip_prefix(tag)
            && (rest.is_empty() || rest.starts_with([' ', '\t', '>']))
        {
            return Some(end);
        }
    }
    if lower.starts_with("<?") {
        return Some("?>");
    }
    if lower.starts_with("<![cdata[") {
        return Some("]]>");
    }
    if lower.starts_with("<!") && lower.as_bytes().get(2).is_some_and(u8::is_ascii_alphabetic) {
        return Some(">");
    }
    let name_start = lower.strip_prefix("</").or_else(|| lower.strip_prefix('<'))?;
    let name: String = name_start
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
        .collect();
    if name.is_empty() || !name.as_bytes()[0].is_ascii_alphabetic() {
        return None;
    }
    let after = &name_start[name.len()..];
    if TYPE6.contains(&name.as_str())
        && (after.is_empty() || after.starts_with([' ', '\t', '>']) || after.starts_with("/>"))
    {
        return Some("");
    }
    // Type 7: a complete tag alone on the line; it cannot interrupt a paragraph.
    if !paragraph && after.trim_end().ends_with('>') && !after.contains('<') {
        return Some("");
    }
    None
}

impl BlockContext {
    /// A line that opens a comment block at the top level.
    fn is_comment_start(&mut self, line: &str) -> bool {
        if self.fence.is_some() || self.html.is_some() {
            return false;
        }
        let starts = indent_of(line) <= 3 && line.trim_start_matches([' ', '\t']).starts_with("<!--");
        if !starts {
            return false;
        }
        if let Some(ci) = self.list {
            if indent_of(line) >= ci {
                return false;
            }
            self.list = None;
        }
        self.quote = false;
        true
    }

    fn after_block(&mut self) {
        self.paragraph = false;
    }

    /// Advance over a line that is not a comment start.
    fn consume(&mut self, line: &str) {
        if let Some((c, n)) = self.fence {
            if fence_of(line)
                .is_some_and(|(c2, n2)| c2 == c && n2 >= n && line.trim_start().trim_start_matches(c).trim().is_empty())
            {
                self.fence = None;
            }
            return;
        }
        if let Some(end) = self.html {
            if (end.is_empty() && is_blank(line)) || (!end.is_empty() && line.to_ascii_lowercase().contains(end)) {
                self.html = None;
            }
            self.paragraph = false;
            return;
        }
        if is_blank(line) {
            self.paragraph = false;
            self.quote = false;
            return;
        }
        if let Some(ci) = self.list {
            if indent_of(line) >= ci {
                return self.consume_inner(strip_columns(line, ci));
            }
            if list_marker(line).is_none() && (!self.paragraph || starts_block(line)) {
                self.list = None;
            } else if list_marker(line).is_none() {
                return; // lazy continuation
            }
        }
        if let Some(ci) = list_marker(line) {
            self.list = Some(ci);
            self.paragraph = true;
            return;
        }
        let t = line.trim_start_matches([' ', '\t']);
        if indent_of(line) <= 3 && t.starts_with('>') {
            self.quote = true;
            self.paragraph = true;
            return;
        }
        if self.quote && self.paragraph && !starts_block(line) {
            return;
        }
        self.quote = false;
        self.consume_inner(line);
    }

    fn consume_inner(&mut self, line: &str) {
        if let Some(f) = fence_of(line) {
            self.fence = Some(f);
            self.paragraph = false;
        } else if let Some(end) = html_start(line, self.paragraph) {
            // Types 1 and 3–5 can end on the line that opens them.
            let closes_here = !end.is_empty() && line.to_ascii_lowercase().contains(end);
            self.html = if closes_here { None } else { Some(end) };
            self.paragraph = false;
        } else if indent_of(line) >= 4 && !self.paragraph {
            // Indented code.
        } else {
            self.paragraph = !line.trim_start().starts_with('#');
        }
    }
}

/// A line that starts a block and so ends a lazy paragraph continuation.
fn starts_block(line: &str) -> bool {
    let t = line.trim_start_matches([' ', '\t']);
    indent_of(line) <= 3
        && (fence_of(line).is_some()
            || t.starts_with('#')
            || t.starts_with('>')
            || t.starts_with("<!--")
            || list_marker(line).is_some())
}

#[cfg(test)]
mod tests {
    /// Found by the property tests: a tab-indented list continuation holding a
    /// multi-byte char was sliced by columns as if they were bytes.
    #[test]
    fn tab_indented_list_continuation_with_multibyte_text() {
        let l = super::load("- item\n\té text\n<!-- note -->\nafter\n");
        assert_eq!(l.processed.text, "- item\n\té text\nafter");
        assert_eq!(l.processed.origin, vec![1, 2, 4]);
    }

    use super::*;

    fn stripped(text: &str) -> String {
        let m = Mapped::from_lines(
            text.split('\n')
                .enumerate()
                .map(|(i, l)| (l.to_string(), i + 1))
                .collect(),
        );
        if !text.contains("<!--") {
            return m.text;
        }
        strip_comments(&normalize_line_endings(&m)).text
    }

    const TAIL: &str =
        ". Only part of it was loaded. Keep index entries to one line under ~200 chars; move detail into topic files.";

    #[test]
    fn line_cap_matches_appendix_a6() {
        let text: String = (1..=250).map(|n| format!("- [T{n}](t{n}.md) — hook {n}\n")).collect();
        let l = load(&text);
        assert_eq!(l.unit_count, 6925);
        assert!(l.line_truncated && !l.unit_truncated);
        let kept: Vec<String> = (1..=200).map(|n| format!("- [T{n}](t{n}.md) — hook {n}")).collect();
        assert_eq!(
            l.loaded,
            format!(
                "{}\n\n> WARNING: MEMORY.md is 250 lines (limit: 200){TAIL}",
                kept.join("\n")
            )
        );
        assert_eq!(l.dropped.len(), 50);
        assert_eq!(
            (l.dropped[0].line, l.dropped_text(&l.dropped[0])),
            (201, "- [T201](t201.md) — hook 201")
        );
        assert_eq!(l.kept_lines, 200);
    }

    #[test]
    fn exactly_200_lines_then_blank_lines_are_not_cut() {
        let text = format!("{}\n\n\n", vec!["x"; 200].join("\n"));
        let l = load(&text);
        assert_eq!(l.line_count, 200);
        assert!(!l.truncated());
        assert_eq!(l.warning, None);
        assert_eq!(l.loaded, vec!["x"; 200].join("\n"));
        assert_eq!(load(&vec!["x"; 201].join("\n")).line_count, 201);
        assert!(load(&vec!["x"; 201].join("\n")).line_truncated);
        assert!(!load(&vec!["x"; 199].join("\n")).truncated());
    }

    #[test]
    fn unit_cap_cuts_at_the_last_line_break() {
        let text = vec!["x".repeat(2999); 10].join("\n");
        let l = load(&text);
        assert_eq!(l.unit_count, 29_999);
        assert_eq!(l.kept_units, 23_999);
        assert_eq!(
            l.warning.as_deref(),
            Some(&*format!(
                "> WARNING: MEMORY.md is 29.3KB (limit: 24.4KB) — index entries are too long{TAIL}"
            ))
        );
        assert_eq!(l.kept_lines, 8);
        assert_eq!(l.dropped.iter().map(|d| d.line).collect::<Vec<_>>(), vec![9, 10]);
    }

    #[test]
    fn both_caps() {
        let text: String = (0..300)
            .map(|n| format!("{n}{}", "x".repeat(203)))
            .collect::<Vec<_>>()
            .join("\n");
        let l = load(&text);
        assert_eq!(l.unit_count, 61_989);
        assert_eq!(l.kept_lines, 121);
        assert_eq!(l.kept_units, 24_936);
        assert_eq!(
            l.warning.as_deref(),
            Some(&*format!("> WARNING: MEMORY.md is 300 lines and 60.5KB{TAIL}"))
        );
    }

    #[test]
    fn one_long_line_keeps_the_first_25000_units() {
        let l = load(&"y".repeat(30_000));
        assert_eq!(l.kept_units, 25_000);
        assert!(
            l.loaded
                .starts_with(&format!("{}\n\n> WARNING: MEMORY.md is 29.3KB", "y".repeat(25_000)))
        );
        assert_eq!(
            l.dropped,
            vec![Dropped {
                line: 1,
                index: 0,
                span: 0..30_000
            }]
        );
        assert_eq!(l.dropped_text(&l.dropped[0]), "y".repeat(30_000));
        let l = load(&format!("a\n{}", "b".repeat(30_000)));
        assert!(l.loaded.starts_with("a\n\n> WARNING: MEMORY.md is 29.3KB"));
        assert_eq!(l.dropped.len(), 1);
    }

    #[test]
    fn trim_and_counts() {
        let l = load("\n\n  hello\nworld  \n\n");
        assert_eq!(l.loaded, "hello\nworld");
        assert_eq!((l.line_count, l.unit_count), (2, 11));
        assert!(!l.truncated());
        assert_eq!(l.processed.origin, vec![3, 4]);
        let e = load("");
        assert_eq!((e.line_count, e.unit_count, e.loaded.as_str()), (1, 0, ""));
    }

    #[test]
    fn crlf_is_kept_and_counted_without_comments() {
        let text: String = (0..201).map(|n| format!("l{n}")).collect::<Vec<_>>().join("\r\n");
        let l = load(&text);
        assert_eq!(
            l.warning.as_deref(),
            Some(&*format!("> WARNING: MEMORY.md is 201 lines (limit: 200){TAIL}"))
        );
        assert!(l.loaded.contains("\nl199\r\n\n> WARNING"));
    }

    #[test]
    fn units_not_bytes_and_strict_greater_than() {
        let l = load(&"é".repeat(20_000));
        assert_eq!((l.unit_count, l.utf8_bytes), (20_000, 40_000));
        assert!(!l.truncated());
        assert!(!load(&"x".repeat(25_000)).truncated());
        assert!(load(&"x".repeat(25_001)).unit_truncated);
    }

    #[test]
    fn newline_exactly_at_unit_25000() {
        let text = format!("{}\n{}", "a".repeat(25_000), "b".repeat(10));
        let l = load(&text);
        assert_eq!(l.kept_units, 25_000);
        assert_eq!(l.kept_lines, 1);
        assert_eq!(
            l.dropped,
            vec![Dropped {
                line: 2,
                index: 1,
                span: 25_001..25_011
            }]
        );
        assert_eq!(l.dropped_text(&l.dropped[0]), "b".repeat(10));
    }

    #[test]
    fn astral_char_cut_at_the_boundary_prints_a_replacement() {
        let text = format!("{}😀tail", "a".repeat(24_999));
        let l = load(&text);
        assert_eq!(l.kept_units, 25_000);
        assert!(
            l.loaded
                .starts_with(&format!("{}\u{fffd}\n\n> WARNING", "a".repeat(24_999)))
        );
        assert_eq!(l.dropped.len(), 1);
    }

    #[test]
    fn bom_and_frontmatter_are_stripped() {
        let l = load("\u{feff}---\nname: x\n---\n\n- [A](a.md) — a\n");
        assert!(l.frontmatter_stripped);
        assert_eq!(l.loaded, "- [A](a.md) — a");
        assert_eq!(l.processed.origin, vec![5]);
        assert_eq!(load("\u{feff}hello").loaded, "hello");
    }

    #[test]
    fn block_comments_match_appendix_a6() {
        for (input, out) in [
            ("# T\n\n<!-- c -->\n\n- [A](a.md) — a\n", "# T\n\n- [A](a.md) — a\n"),
            ("a\n<!-- c -->\nb\n", "a\nb\n"),
            (
                "- [A](a.md) — a\n<!-- c -->\n- [B](b.md) — b\n",
                "- [A](a.md) — a\n- [B](b.md) — b\n",
            ),
            (
                "- [A](a.md) — a\n  <!-- c -->\n- [B](b.md) — b\n",
                "- [A](a.md) — a\n  <!-- c -->\n- [B](b.md) — b\n",
            ),
            ("<!-- note --> Use bun\nx\n", " Use bun\nx\n"),
            ("a <!-- inline --> b\n", "a <!-- inline --> b\n"),
            (
                "<!-- open\nno close\n- [A](a.md)\n",
                "<!-- open\nno close\n- [A](a.md)\n",
            ),
            ("x\r\n<!-- c -->\r\ny\r\n", "x\ny\n"),
            ("x\r\ny\r\n", "x\r\ny\r\n"),
            (
                "```\n<!-- in code -->\n```\n<!-- a\nb -->\n\n\n  \nz",
                "```\n<!-- in code -->\n```\n  \nz",
            ),
            ("> q\n<!-- c -->\nr\n", "> q\nr\n"),
            ("    <!-- indented -->\n", "    <!-- indented -->\n"),
            ("   <!-- 3 spaces -->\nx", "x"),
            ("<!-- a --><!-- b -->\nx", "x"),
            ("<!-- a --> mid <!-- b -->\nx", " mid \nx"),
            ("<!-- multi\nline\ncomment -->\n- [A](a.md) — a\n", "- [A](a.md) — a\n"),
            (
                "<details>\n<!-- c -->\n</details>\n",
                "<details>\n<!-- c -->\n</details>\n",
            ),
            ("<!-->\nb -->\nx\n", "<!-->\nb -->\nx\n"),
            ("<!--->\nb -->\nx\n", "<!--->\nb -->\nx\n"),
            ("x\n<!-- c -->", "x\n"),
            ("<!-- only -->", ""),
        ] {
            assert_eq!(stripped(input), out, "{input:?}");
        }
    }

    #[test]
    fn comment_stripping_keeps_file_line_numbers() {
        let l = load("# T\n<!-- a\nb -->\n\n- [A](a.md) — a\n<!-- c --> tail\nz\r\n");
        assert_eq!(l.processed.text, "# T\n- [A](a.md) — a\n tail\nz");
        assert_eq!(l.processed.origin, vec![1, 5, 6, 7]);
        assert!(l.html_comments_stripped);
    }
}
