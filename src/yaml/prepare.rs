//! The text as Bun's YAML parser reads it, rewritten for yaml-rust2 (SPEC §2.4.3).
//!
//! Bun 1.3.14, the parser of Claude Code's native runtime, is not a YAML 1.2
//! reference parser. It takes a tab wherever a space separates tokens inside a line
//! (after `:`, `-`, `?`, before `#`, in flow collections, at the end of a line),
//! where yaml-rust2 follows the specification's stricter rules; it counts only the
//! spaces before the first tab of a line as indentation; and it rejects a line that
//! starts with a tab when no plain scalar before it swallowed the line break and the
//! enclosing block mapping is past its first entry. Its block scalars (`|`, `>`)
//! follow rules of their own too. This pass walks the text once, in linear time, and
//! produces the text yaml-rust2 must see to give Bun's result:
//!
//! - a tab that separates tokens becomes a space; a tab inside a plain or quoted
//!   scalar's text stays;
//! - a line's leading whitespace becomes the spaces Bun counts as its indentation;
//! - a block scalar becomes the double-quoted scalar of the text Bun gives it;
//! - `...` or `---` and a space in a plain scalar on an unindented line end the
//!   document there, as in Bun, so the marker moves to a line of its own;
//! - where Bun's parser takes the next node as a value however little it is
//!   indented (after properties alone, after `key: ?`, after an empty sequence
//!   entry), that node moves up or right to where yaml-rust2 reads it so;
//! - flow mappings get the nesting Bun gives `{q: a: b}` and `{? k: v}`;
//! - a line Bun rejects (a tab where it wants indentation, a quoted scalar's line that
//!   is not indented past its block, a block scalar line led by a tab) fails.
//!
//! The oracle test (`tests/data/yaml-oracle.jsonl`) checks the result against Bun.

use std::borrow::Cow;

use super::Error;
use super::block_scalar::{BlockScalar, Chomp, write_quoted};

/// What the last token before a line break was: it decides whether Bun scans the
/// next line's leading tab as indentation (and may reject it).
#[derive(Clone, Copy, PartialEq)]
enum Last {
    /// Nothing yet in this document.
    Start,
    /// A plain scalar: its scanner swallows the following blank lines and the next
    /// line's leading whitespace, tabs included, and goes on on a deeper line.
    Plain,
    /// Anything else (an indicator, a comment, a quoted scalar, a flow end, a
    /// property).
    Other,
}

/// A quoted scalar that continues on the next line.
#[derive(Clone, Copy)]
struct OpenQuote {
    double: bool,
    /// The indentation of the innermost block collection around it: a continuation
    /// line must be indented past it.
    block_indent: Option<usize>,
}

/// An entry of a flow collection that Bun reads its own way.
#[derive(Clone, Copy)]
struct FlowEntry {
    /// The flow level of the entry.
    depth: usize,
    /// Its `:` came.
    colon: bool,
    /// A `{` was written before it, to close after it.
    wrapped: bool,
    /// An explicit `?` key (else an implicit key in a value: `{q: a: b}`).
    explicit: bool,
    /// The line of the `?` and its indentation.
    line: usize,
    indent: usize,
}

/// The lines after an empty sequence entry that Bun reads as its value, however
/// little they are indented (its parser does not check): shifted past the `-`.
#[derive(Clone, Copy)]
struct Region {
    /// Lines indented less than this end it.
    base: usize,
    shift: usize,
    /// The value is one line (not a mapping).
    single: bool,
}

/// A line whose value is only properties (`key: &a`, `key: !t`): Bun takes the
/// next token as the value even on a line no deeper than the key.
#[derive(Clone, Copy)]
struct Pending {
    key_indent: usize,
    /// Where in the output the properties end.
    at: usize,
    tag: bool,
    anchor: bool,
}

/// What the text yaml-rust2 must parse looks like, and the anchors in it.
pub(super) struct Prepared<'a> {
    pub text: Cow<'a, str>,
    /// The name of each anchor, in the order yaml-rust2 numbers them.
    pub anchors: Vec<String>,
}

struct Prep<'a> {
    text: &'a str,
    lines: Vec<&'a str>,
    /// The byte offset of each line in `text`.
    starts: Vec<usize>,
    out: String,
    flow: usize,
    /// Block mappings by the indentation of their keys, each with whether it is past
    /// its first entry (Bun's `block_in` context); `past` counts those that are.
    mappings: Vec<(usize, bool)>,
    past: usize,
    last: Last,
    /// The indentation of the block collection around the plain scalar that ended
    /// the last line: a deeper line continues it.
    plain_block: Option<usize>,
    quote: Option<OpenQuote>,
    /// The line that ended a block scalar: Bun scans its leading tab as plain space.
    exempt: Option<usize>,
    /// Where the line that ended a block scalar goes on, when not at its start.
    resume: Option<(usize, usize)>,
    /// A `?` key in block context: its output column, whether it is a later entry
    /// of its mapping, its line.
    explicit: Option<(usize, bool, usize)>,
    pending: Option<Pending>,
    /// The indentation of a `-` with nothing after it on its line.
    empty_entry: Option<usize>,
    /// Lines Bun reads as the value of such an entry, shifted right in the output
    /// (one inside another when such an entry is among them).
    regions: Vec<Region>,
    /// The next key starts a mapping of its own (the value of an empty entry).
    fresh_mapping: bool,
    /// `[` or `{` for each open flow collection.
    flow_kinds: Vec<u8>,
    /// Entries in flow collections that need watching (see [`FlowEntry`]).
    explicit_flow: Vec<FlowEntry>,
    /// In a flow mapping, between an entry's start and its `:` / where its value
    /// may start.
    flow_key_pos: bool,
    flow_value_pos: bool,
    /// A token other than a comment has been seen.
    any_token: bool,
    /// The last token was `...`.
    after_doc_end: bool,
    /// Where the current line starts in the output.
    out_line_start: usize,
    anchors: Vec<String>,
}

/// The text yaml-rust2 must parse to read `text` as Bun does, or the error Bun gives.
pub(super) fn prepare(text: &str) -> Result<Prepared<'_>, Error> {
    let lines: Vec<&str> = text.split('\n').collect();
    let mut starts = Vec::with_capacity(lines.len());
    let mut at = 0;
    for l in &lines {
        starts.push(at);
        at += l.len() + 1;
    }
    let mut p = Prep {
        text,
        lines,
        starts,
        out: String::with_capacity(text.len() + 16),
        flow: 0,
        mappings: Vec::new(),
        past: 0,
        last: Last::Start,
        plain_block: None,
        quote: None,
        exempt: None,
        resume: None,
        explicit: None,
        pending: None,
        empty_entry: None,
        regions: Vec::new(),
        fresh_mapping: false,
        flow_kinds: Vec::new(),
        explicit_flow: Vec::new(),
        flow_key_pos: false,
        flow_value_pos: false,
        any_token: false,
        after_doc_end: false,
        out_line_start: 0,
        anchors: Vec::new(),
    };
    let mut i = 0;
    while i < p.lines.len() {
        if i > 0 {
            p.out.push('\n');
        }
        i = p.line(i)?;
    }
    let anchors = std::mem::take(&mut p.anchors);
    let text = if p.out == text {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(p.out)
    };
    Ok(Prepared { text, anchors })
}

fn syntax(line: usize, what: &str) -> Error {
    Error::Syntax(format!("{what} at line {}", line + 1))
}

fn is_ws(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// Ends a token: whitespace, a line break, or the end of the line.
fn ends_token(b: Option<&u8>) -> bool {
    matches!(b, None | Some(b' ' | b'\t' | b'\r'))
}

fn is_flow_indicator(b: u8) -> bool {
    matches!(b, b',' | b'[' | b']' | b'{' | b'}')
}

/// The first token of a line that follows a [`Pending`] line, being watched.
#[derive(Clone, Copy)]
struct Moving {
    pending: Pending,
    /// Where the token starts in the output.
    from: usize,
}

impl Prep<'_> {
    /// Process line `i` (and, for a block scalar, the lines it holds); the index of
    /// the next line to process.
    fn line(&mut self, i: usize) -> Result<usize, Error> {
        self.out_line_start = self.out.len();
        if let Some((l, at)) = self.resume.take()
            && l == i
        {
            return self.tokens(i, at, 0, false);
        }
        let line = self.lines[i];
        let b = line.as_bytes();
        let spaces = b.iter().take_while(|c| **c == b' ').count();
        let content = spaces + b[spaces..].iter().take_while(|c| is_ws(**c)).count();
        let blank = content == b.len();
        // The `:` line of an explicit key: Bun takes it at any indentation.
        let mut value_col = None;
        if !blank
            && self.quote.is_none()
            && self.flow == 0
            && b[content] != b'#'
            && let Some((col, later, line)) = self.explicit.take()
            && b[content] == b':'
            && ends_token(b.get(content + 1))
        {
            if later && line != i {
                return Err(syntax(i, "an explicit key's `:` on a later line"));
            }
            value_col = Some(col);
        }
        if !blank && value_col.is_none() {
            while self.regions.last().is_some_and(|r| spaces < r.base) {
                self.regions.pop();
            }
        }
        let shift: usize = self.regions.iter().map(|r| r.shift).sum();
        if let Some(q) = self.quote {
            if blank {
                return Ok(i + 1);
            }
            if q.block_indent.is_some_and(|bi| spaces <= bi) {
                return Err(syntax(i, "a quoted scalar's line not indented past its block"));
            }
            self.push_spaces(spaces + shift);
            return self.tokens(i, content, spaces, false);
        }
        if b.first() == Some(&b'\t')
            && self.flow == 0
            && self.exempt != Some(i)
            && self.last == Last::Other
            && self.past > 0
        {
            return Err(syntax(i, "a line led by a tab where the runtime wants indentation"));
        }
        if blank {
            return Ok(i + 1);
        }
        let continuation = self.last == Last::Plain
            && self.flow == 0
            && b[content] != b'#'
            && self.plain_block.is_none_or(|bi| spaces > bi);
        let mut shift = shift;
        if b[content] != b'#'
            && let Some(si) = self.empty_entry.take()
            && spaces <= si
            && !(b[content] == b'-' && ends_token(b.get(content + 1)))
            && !(spaces == 0 && (b[content] == b'-' || b[content] == b'.') && marker(b, content, b[content]))
        {
            // Bun's parser takes the next node as the empty entry's value.
            let single = !starts_key(b, content);
            let region = Region {
                base: spaces,
                shift: si + 1 - spaces,
                single,
            };
            self.fresh_mapping = !single;
            shift += region.shift;
            self.regions.push(region);
        }
        self.push_spaces(value_col.unwrap_or(spaces + shift));
        let next = self.tokens(i, content, spaces, continuation);
        while self.regions.last().is_some_and(|r| r.single) {
            self.regions.pop();
        }
        next
    }

    fn push_spaces(&mut self, n: usize) {
        self.out.extend(std::iter::repeat_n(' ', n));
    }

    /// A key (or an explicit `?` key) at indentation `indent` in block context;
    /// whether it is a later entry of a mapping already open there.
    fn key_at(&mut self, indent: usize) -> bool {
        self.pop_deeper(indent);
        if std::mem::take(&mut self.fresh_mapping) {
            self.mappings.push((indent, false));
            return false;
        }
        match self.mappings.last_mut() {
            Some((c, past)) if *c == indent => {
                if !*past {
                    *past = true;
                    self.past += 1;
                }
                true
            }
            _ => {
                self.mappings.push((indent, false));
                false
            }
        }
    }

    /// Leave the mappings indented deeper than `indent`.
    fn pop_deeper(&mut self, indent: usize) {
        while let Some(&(c, past)) = self.mappings.last() {
            if c <= indent {
                break;
            }
            self.mappings.pop();
            self.past -= usize::from(past);
        }
    }

    fn new_document(&mut self) {
        self.mappings.clear();
        self.past = 0;
        self.last = Last::Start;
        self.flow = 0;
        self.flow_kinds.clear();
        self.explicit_flow.clear();
        self.pending = None;
        self.explicit = None;
    }

    /// A document marker (`---` or `...`, as `c`) at byte `j` of line `i`, to be
    /// written at the start of a line; `at_start` when it is there already. The
    /// byte after it.
    fn marker(&mut self, i: usize, j: usize, c: u8, at_start: bool, first: bool) -> Result<usize, Error> {
        let b = self.lines[i].as_bytes();
        if self.flow > 0 {
            return Err(syntax(i, "a document marker inside a flow collection"));
        }
        if !at_start {
            self.out.push('\n');
        }
        let mut newline_after = false;
        if c == b'.' {
            let rest = &b[j + 3..];
            let after = rest.iter().position(|x| !is_ws(*x));
            if after.is_some_and(|k| rest[k] != b'#' && rest[k] != b'\r') {
                // Bun checks the line of the first `...` of a run only; after a later
                // one the rest of the line starts the next document.
                if !self.after_doc_end {
                    return Err(syntax(i, "`...` ends the document, and text follows on its line"));
                }
                newline_after = true;
            }
            if first {
                // Bun reads a `...` before any content as the end of an empty
                // first document.
                self.out.push_str("---\n");
            }
        }
        self.out.push_str(if c == b'.' { "..." } else { "---" });
        self.new_document();
        self.after_doc_end = c == b'.';
        if newline_after {
            self.out.push('\n');
            return Ok(j + 3 + b[j + 3..].iter().take_while(|x| is_ws(**x)).count());
        }
        Ok(j + 3)
    }

    /// The tokens of line `i` from byte `from`; `indent` is the line's indentation
    /// as Bun counts it, `continuation` when the line goes on with a plain scalar.
    fn tokens(&mut self, i: usize, from: usize, indent: usize, continuation: bool) -> Result<usize, Error> {
        let line = self.lines[i];
        let b = line.as_bytes();
        let mut j = from;
        // Bun's indentation for the tokens from here: the line's, or after `- ` the
        // column of what follows.
        let mut bun_indent = indent;
        // Where the current plain scalar started, while inside one.
        let mut plain: Option<usize> = continuation.then_some(from);
        // The bytes Bun's number scan takes at the start of the plain scalar, where
        // it does not look for document markers.
        let mut walk_end = 0;
        let mut dash_indent: Option<usize> = None;
        // Where the last finished token on this line started (a possible key).
        let mut token: Option<usize> = None;
        // The indentation of the last block indicator on this line (`-`, `?`, a key).
        let mut block_col: Option<usize> = None;
        let mut last = Last::Other;
        // The line ends with a plain scalar and whitespace.
        let mut ends_plain = false;
        // After a key's `:` on this line: its indentation, and whether only
        // properties came since.
        let mut value_of: Option<(usize, bool)> = None;
        let mut props_end = 0;
        let (mut prop_anchor, mut prop_tag) = (false, false);
        let comment_line = b.get(from) == Some(&b'#');
        if !comment_line {
            self.empty_entry = None;
        }
        let pending = if comment_line { None } else { self.pending.take() };
        let mut pending_props = pending.filter(|p| !continuation && p.key_indent == indent);
        let mut moving = pending_props.map(|p| Moving {
            pending: p,
            from: self.out.len(),
        });
        if continuation {
            self.pending = None;
        }
        if let Some(q) = self.quote {
            match close_quote(b, j, q.double) {
                Some(end) => {
                    self.out.push_str(&line[j..end]);
                    self.quote = None;
                    token = Some(j);
                    j = end;
                }
                None => {
                    self.out.push_str(&line[j..]);
                    return Ok(i + 1);
                }
            }
        }
        while j < b.len() {
            let c = b[j];
            if is_ws(c) {
                let end = j + b[j..].iter().take_while(|c| is_ws(**c)).count();
                let next = b.get(end).copied();
                let continues = plain.is_some()
                    && match next {
                        None | Some(b'#' | b'\r') => false,
                        Some(b':') => {
                            !(ends_token(b.get(end + 1))
                                || (self.flow > 0 && b.get(end + 1).is_some_and(|c| is_flow_indicator(*c))))
                        }
                        Some(c) => !(self.flow > 0 && is_flow_indicator(c)),
                    };
                if continues {
                    self.out.push_str(&line[j..end]);
                } else {
                    if let Some(start) = plain.take() {
                        token = Some(start);
                        ends_plain = next.is_none();
                        self.moved(&mut moving, b, end);
                    }
                    self.push_spaces(end - j);
                }
                j = end;
                continue;
            }
            if c == b'#' && (j == 0 || is_ws(b[j - 1])) {
                plain = None;
                self.moved(&mut moving, b, j);
                self.out.push_str(&line[j..]);
                last = Last::Other;
                break;
            }
            if let Some(start) = plain {
                let indicator = match c {
                    b':' => {
                        ends_token(b.get(j + 1))
                            || (self.flow > 0 && b.get(j + 1).is_some_and(|c| is_flow_indicator(*c)))
                    }
                    b'-' | b'.' => bun_indent == 0 && j >= walk_end && marker(b, j, c),
                    _ => self.flow > 0 && is_flow_indicator(c),
                };
                if !indicator {
                    let len = utf8_len(c);
                    self.out.push_str(&line[j..(j + len).min(b.len())]);
                    j += len;
                    continue;
                }
                plain = None;
                token = Some(start);
                if c == b'-' || c == b'.' {
                    // `---` or `...` inside a plain scalar on an unindented line:
                    // Bun ends the scalar and the document there.
                    j = self.marker(i, j, c, false, false)?;
                    token = None;
                    moving = None;
                    last = Last::Other;
                    continue;
                }
                self.moved(&mut moving, b, j);
            }
            let first_token = !self.any_token;
            self.any_token = true;
            if !(c == b'.' && marker(b, j, c)) {
                self.after_doc_end = false;
            }
            if !matches!(c, b'&' | b'!') {
                pending_props = None;
            }
            if !matches!(c, b'"' | b'\'' | b'*') && (is_indicator(c) && !starts_plain(b, j, self.flow)) {
                moving = None;
            }
            // At the start of a token.
            let at_line_start = j == from && indent == 0;
            let props_only = value_of.take().map(|(k, only)| (k, only && matches!(c, b'&' | b'!')));
            match c {
                b':' if self.flow > 0 && self.flow_key_pos => {
                    // `{:v}`: at a key's place Bun takes `:` as the value indicator.
                    self.out.push_str(": ");
                    self.flow_key_pos = false;
                    self.flow_value_pos = true;
                    token = None;
                    j += 1;
                    last = Last::Other;
                    if let Some(top) = self.explicit_flow.last_mut()
                        && top.depth == self.flow
                    {
                        top.colon = true;
                    }
                }
                b'"' | b'\'' => {
                    self.wrap_value(i, b, j);
                    let double = c == b'"';
                    match close_quote(b, j + 1, double) {
                        Some(end) => {
                            self.out.push_str(&line[j..end]);
                            token = Some(j);
                            j = end;
                            self.moved(&mut moving, b, j);
                        }
                        None => {
                            self.out.push_str(&line[j..]);
                            let block_indent = block_col.or_else(|| self.mappings.last().map(|m| m.0));
                            self.quote = Some(OpenQuote { double, block_indent });
                            self.last = Last::Other;
                            return Ok(i + 1);
                        }
                    }
                    last = Last::Other;
                }
                b'[' | b'{' => {
                    self.flow += 1;
                    self.flow_kinds.push(c);
                    self.flow_key_pos = c == b'{';
                    self.flow_value_pos = false;
                    self.out.push(char::from(c));
                    j += 1;
                    last = Last::Other;
                }
                b']' | b'}' | b',' if self.flow > 0 => {
                    self.end_explicit(i, indent)?;
                    if c != b',' {
                        self.flow -= 1;
                        self.flow_kinds.pop();
                    }
                    self.flow_key_pos = c == b',' && self.flow_kinds.last() == Some(&b'{');
                    self.flow_value_pos = false;
                    self.out.push(char::from(c));
                    token = None;
                    j += 1;
                    last = Last::Other;
                }
                b']' | b'}' => {
                    self.out.push(char::from(c));
                    token = None;
                    j += 1;
                    last = Last::Other;
                }
                b'-' | b'.' if bun_indent == 0 && marker(b, j, c) => {
                    j = self.marker(i, j, c, at_line_start, first_token)?;
                    token = None;
                    moving = None;
                    last = Last::Other;
                }
                b'-' | b'?' | b':'
                    if ends_token(b.get(j + 1))
                        || (self.flow > 0 && c != b'-' && b.get(j + 1).is_some_and(|c| is_flow_indicator(*c))) =>
                {
                    if self.flow > 0 {
                        self.explicit_in_flow(i, b, j, c)?;
                    } else {
                        match c {
                            b'-' => {
                                // `-` and a tab, then `-`: Bun reads the second entry
                                // at the first one's indentation, and fails.
                                if dash_indent == Some(bun_indent) {
                                    return Err(syntax(i, "two `-` at one indentation on a line"));
                                }
                                dash_indent = Some(bun_indent);
                                self.pop_deeper(bun_indent);
                                block_col = Some(bun_indent);
                                let rest = &b[j + 1..];
                                if rest.iter().position(|c| !is_ws(*c)).is_none_or(|k| rest[k] == b'#') {
                                    self.empty_entry = Some(bun_indent);
                                }
                                // Bun scans the entry's content as indentation: a tab
                                // right after the `-` fails past a first entry.
                                match b.get(j + 1) {
                                    Some(b'\t') if self.past > 0 => {
                                        return Err(syntax(
                                            i,
                                            "a tab right after `-`, where the runtime wants indentation",
                                        ));
                                    }
                                    Some(b' ') => {
                                        let n = b[j + 1..].iter().take_while(|c| **c == b' ').count();
                                        bun_indent += 1 + n;
                                    }
                                    _ => {}
                                }
                            }
                            b'?' if props_only.is_some() => {
                                // `key: ? x`: Bun reads the explicit key's node as
                                // the value (on a later line, if need be, however
                                // indented, as after a property).
                                j += 1;
                                j += b[j..].iter().take_while(|c| is_ws(**c)).count();
                                let bare = b.get(j).is_none_or(|c| *c == b'#');
                                value_of = props_only.map(|(k, _)| (k, bare));
                                if bare {
                                    props_end = self.out.len();
                                }
                                continue;
                            }
                            b'?' => {
                                let later = self.key_at(bun_indent);
                                block_col = Some(bun_indent);
                                // After a mapping's first entry, Bun reads an explicit
                                // key like an implicit one: its `:` must be on its line.
                                let col = self.out.len() - self.out_line_start;
                                self.explicit = Some((col, later, i));
                            }
                            _ => {
                                if token.is_some() {
                                    self.key_at(bun_indent);
                                    block_col = Some(bun_indent);
                                    value_of = Some((bun_indent, true));
                                }
                            }
                        }
                    }
                    self.out.push(char::from(c));
                    if self.flow > 0 && c == b'?' && self.flow_kinds.last() == Some(&b'{') {
                        // Bun reads `? k: v` in a flow mapping as the key `{k: v}`.
                        self.out.push_str(" {");
                        self.flow += 1;
                        self.flow_kinds.push(b'{');
                        self.explicit_flow.push(FlowEntry {
                            depth: self.flow,
                            colon: false,
                            wrapped: true,
                            explicit: true,
                            line: i,
                            indent,
                        });
                    }
                    if self.flow > 0 && c == b':' {
                        self.flow_key_pos = false;
                        self.flow_value_pos = self.flow_kinds.last() == Some(&b'{');
                    }
                    token = None;
                    j += 1;
                    last = Last::Other;
                }
                b'|' | b'>' if self.flow == 0 => {
                    let block_indent = block_col.or_else(|| self.mappings.last().map(|m| m.0));
                    self.pending = None;
                    return self.block_scalar(i, j, bun_indent, block_indent);
                }
                b'&' | b'*' | b'!' => {
                    let end = j + b[j..]
                        .iter()
                        .take_while(|c| !(is_ws(**c) || **c == b'\r' || (self.flow > 0 && is_flow_indicator(**c))))
                        .count();
                    if c == b'&' {
                        let name = b[j + 1..end].iter().take_while(|c| !is_flow_indicator(**c)).count();
                        self.anchors.push(line[j + 1..j + 1 + name].to_string());
                    }
                    self.out.push_str(&line[j..end]);
                    token = Some(j);
                    j = end;
                    if c == b'*' {
                        self.moved(&mut moving, b, j);
                    }
                    if let Some((k, true)) = props_only
                        && c != b'*'
                    {
                        value_of = Some((k, true));
                        props_end = self.out.len();
                        if c == b'&' {
                            prop_anchor = true;
                        } else {
                            prop_tag = true;
                        }
                    }
                    if let Some(p) = pending_props.take()
                        && ((c == b'!' && p.tag) || (c == b'&' && p.anchor))
                    {
                        return Err(syntax(i, "a second property of the same kind for one node"));
                    }
                    last = Last::Other;
                }
                _ => {
                    self.wrap_value(i, b, j);
                    plain = Some(j);
                    walk_end = number_walk_end(b, j);
                    let len = utf8_len(c);
                    self.out.push_str(&line[j..(j + len).min(b.len())]);
                    j += len;
                }
            }
        }
        if plain.is_some() {
            self.moved(&mut moving, b, b.len());
            last = Last::Plain;
        } else if ends_plain {
            last = Last::Plain;
        }
        if last == Last::Plain {
            self.plain_block = block_col.or_else(|| self.mappings.last().map(|m| m.0));
        }
        if let Some((k, true)) = value_of
            && props_end > 0
            && self.flow == 0
        {
            self.pending = Some(Pending {
                key_indent: k,
                at: props_end,
                tag: prop_tag,
                anchor: prop_anchor,
            });
        }
        self.last = last;
        Ok(i + 1)
    }

    /// A scalar at byte `j` of line `i`: at a flow mapping value's place and followed
    /// by a key's `:`, Bun reads `{q: a: b}` as `{q: {a: b}}`; write that mapping.
    fn wrap_value(&mut self, i: usize, b: &[u8], j: usize) {
        if self.flow == 0 {
            return;
        }
        let at_value = std::mem::take(&mut self.flow_value_pos);
        let nested = self
            .explicit_flow
            .last()
            .is_some_and(|e| e.depth == self.flow && !e.explicit);
        if !at_value || nested || !flow_key_follows(b, j) {
            return;
        }
        self.out.push('{');
        self.flow += 1;
        self.flow_kinds.push(b'{');
        self.explicit_flow.push(FlowEntry {
            depth: self.flow,
            colon: false,
            wrapped: true,
            explicit: false,
            line: i,
            indent: 0,
        });
    }

    /// A `?`, `:` or `-` indicator at byte `j` inside a flow collection.
    fn explicit_in_flow(&mut self, i: usize, b: &[u8], j: usize, c: u8) -> Result<(), Error> {
        match c {
            b'?' => {
                let rest = &b[j + 1..];
                let k = rest.iter().take_while(|c| is_ws(**c)).count();
                if rest.get(k).is_some_and(|c| is_flow_indicator(*c)) {
                    return Err(syntax(i, "an empty explicit key in a flow collection"));
                }
                if self.flow_kinds.last() == Some(&b'[') {
                    self.explicit_flow.push(FlowEntry {
                        depth: self.flow,
                        colon: false,
                        wrapped: false,
                        explicit: true,
                        line: i,
                        indent: 0,
                    });
                }
            }
            b':' => {
                if let Some(top) = self.explicit_flow.last_mut()
                    && top.depth == self.flow
                {
                    top.colon = true;
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// A `,`, `]` or `}` at the current flow level: it ends an explicit key's entry
    /// there, which needs its `:` (and closes the mapping written around it).
    fn end_explicit(&mut self, i: usize, indent: usize) -> Result<(), Error> {
        while let Some(&e) = self.explicit_flow.last() {
            if e.depth != self.flow {
                break;
            }
            if !e.colon {
                return Err(syntax(i, "an explicit key without a value in a flow collection"));
            }
            // Bun parses `? k: v` in a flow mapping as a block mapping, which goes on
            // to a later line indented as the `?` line, and fails there.
            if e.explicit && e.wrapped && e.line != i && e.indent == indent {
                return Err(syntax(i, "an explicit key's entry going on to a later line"));
            }
            self.explicit_flow.pop();
            if e.wrapped {
                self.out.push('}');
                self.flow -= 1;
                self.flow_kinds.pop();
            }
        }
        Ok(())
    }

    /// The first token of a line after a [`Pending`] line has just been written, and
    /// byte `next` of the line `b` follows it: when a key's `:`, a comment or the end
    /// of the line follows, Bun took the token as the pending value, so move it there.
    fn moved(&mut self, moving: &mut Option<Moving>, b: &[u8], next: usize) {
        let Some(m) = moving.take() else { return };
        let rest = &b[next.min(b.len())..];
        let k = rest.iter().position(|c| !is_ws(*c));
        let follows_ok = match k {
            None => true,
            Some(k) => rest[k] == b'#' || (rest[k] == b':' && ends_token(rest.get(k + 1))),
        };
        if !follows_ok || self.flow > 0 {
            return;
        }
        let mut text = self.out[m.from..].to_string();
        self.out.truncate(m.from);
        text.insert(0, ' ');
        if !self.out[m.pending.at..].starts_with('\n') {
            // A comment followed the properties.
            text.push(' ');
        }
        self.out.insert_str(m.pending.at, &text);
    }

    /// A block scalar whose indicator is at byte `at` of line `i`: Bun's text for it,
    /// written as a double-quoted scalar; the index of the line that ends it.
    fn block_scalar(
        &mut self,
        i: usize,
        at: usize,
        indent: usize,
        block_indent: Option<usize>,
    ) -> Result<usize, Error> {
        let b = self.lines[i].as_bytes();
        let folded = b[at] == b'>';
        let mut chomp = Chomp::Clip;
        let (mut seen_digit, mut seen_chomp) = (false, false);
        let mut j = at + 1;
        while j < b.len() {
            match b[j] {
                // The indentation indicator is read and ignored.
                b'1'..=b'9' if !seen_digit => seen_digit = true,
                b'-' | b'+' if !seen_chomp => {
                    seen_chomp = true;
                    chomp = if b[j] == b'-' { Chomp::Strip } else { Chomp::Keep };
                }
                b' ' | b'\t' => {
                    while j < b.len() && is_ws(b[j]) {
                        j += 1;
                    }
                    if b.get(j) == Some(&b'#') {
                        j = b.len();
                    }
                    continue;
                }
                b'\r' if j + 1 == b.len() => {}
                _ => return Err(syntax(i, "a bad block scalar header")),
            }
            j += 1;
        }
        let src = self.text.as_bytes();
        let from = self.starts.get(i + 1).copied().unwrap_or(src.len());
        let scalar = BlockScalar {
            folded,
            chomp,
            block_indent,
            header_indent: indent,
        };
        let (text, stop) = scalar
            .read(src, from)
            .map_err(|p| syntax(self.line_of(p), "a block scalar line the runtime rejects"))?;
        write_quoted(&mut self.out, &text);
        self.any_token = true;
        self.last = Last::Other;
        if stop >= src.len() {
            for _ in i + 1..self.lines.len() {
                self.out.push('\n');
            }
            return Ok(self.lines.len());
        }
        let next = self.line_of(stop);
        // The lines the scalar held become empty; the line count stays for messages.
        for _ in i + 1..next {
            self.out.push('\n');
        }
        let offset = stop - self.starts[next];
        if self.lines[next].as_bytes()[..offset].iter().all(|c| is_ws(*c)) {
            self.exempt = Some(next);
        } else {
            self.resume = Some((next, offset));
        }
        Ok(next)
    }

    /// The line that holds byte `p` of the text.
    fn line_of(&self, p: usize) -> usize {
        self.starts.partition_point(|s| *s <= p).saturating_sub(1)
    }
}

/// Whether a plain scalar starts at `j` although `b[j]` is an indicator (`-`, `?`,
/// `:` not followed by a space).
fn starts_plain(b: &[u8], j: usize, flow: usize) -> bool {
    matches!(b[j], b'-' | b'?' | b':')
        && !(ends_token(b.get(j + 1)) || (flow > 0 && b.get(j + 1).is_some_and(|c| is_flow_indicator(*c))))
}

/// Whether the scalar at `j` (plain or quoted) is followed on its line by a `:` that
/// makes it a key in a flow collection.
fn flow_key_follows(b: &[u8], j: usize) -> bool {
    let mut k = match b[j] {
        b'"' | b'\'' => match close_quote(b, j + 1, b[j] == b'"') {
            Some(e) => e,
            None => return false,
        },
        _ => {
            let mut k = j;
            while k < b.len() {
                match b[k] {
                    b':' if ends_token(b.get(k + 1)) || b.get(k + 1).is_some_and(|c| is_flow_indicator(*c)) => {
                        return true;
                    }
                    b',' | b'[' | b']' | b'{' | b'}' => return false,
                    b'#' if k > j && is_ws(b[k - 1]) => return false,
                    _ => k += 1,
                }
            }
            return false;
        }
    };
    k += b[k..].iter().take_while(|c| is_ws(**c)).count();
    b.get(k) == Some(&b':') && (ends_token(b.get(k + 1)) || b.get(k + 1).is_some_and(|c| is_flow_indicator(*c)))
}

/// Whether the line's first token, at `j`, is an implicit key (followed by `:` and a
/// space on the line).
fn starts_key(b: &[u8], j: usize) -> bool {
    let end = match b[j] {
        b'"' | b'\'' => match close_quote(b, j + 1, b[j] == b'"') {
            Some(e) => e,
            None => return false,
        },
        b'?' => return ends_token(b.get(j + 1)),
        b'[' | b'{' | b'&' | b'!' | b'*' | b'|' | b'>' | b'#' => return false,
        _ => {
            let mut k = j;
            while k < b.len() {
                if b[k] == b':' && ends_token(b.get(k + 1)) {
                    return true;
                }
                if b[k] == b'#' && k > j && is_ws(b[k - 1]) {
                    return false;
                }
                k += 1;
            }
            return false;
        }
    };
    let rest = &b[end..];
    let k = rest.iter().take_while(|c| is_ws(**c)).count();
    rest.get(k) == Some(&b':') && ends_token(rest.get(k + 1))
}

/// Where Bun's number scan, run at the start of a plain scalar at `j`, stops: the
/// characters it takes are not checked for document markers.
fn number_walk_end(b: &[u8], j: usize) -> usize {
    let from = match b[j] {
        b'-' | b'+' => {
            let body = &b[j + 1..];
            if body.len() >= 2 && ((body[0] == b'.' && body[1] == b'i') || body[1] == b'I') {
                return j + 2;
            }
            j + 1
        }
        b'0'..=b'9' => j,
        b'.' if !matches!(b.get(j + 1), Some(b'n' | b'N' | b'i' | b'I')) => j,
        _ => return j,
    };
    let mut decimal = b.get(from) == Some(&b'.');
    let (mut x, mut o, mut minus) = (false, false, false);
    let mut k = if b[j] == b'-' || b[j] == b'+' { from } else { from + 1 };
    while k < b.len() {
        match b[k] {
            b'0'..=b'9' | b'e' | b'E' | b'a'..=b'd' | b'f' | b'A'..=b'D' | b'F' => {}
            b'x' if !x => x = true,
            b'o' if !o => o = true,
            b'.' if !decimal => decimal = true,
            b'+' if !x => {}
            b'-' if !minus => minus = true,
            _ => break,
        }
        k += 1;
    }
    k
}

/// A character that starts a token other than a scalar.
fn is_indicator(c: u8) -> bool {
    matches!(
        c,
        b'-' | b'?'
            | b':'
            | b','
            | b'['
            | b']'
            | b'{'
            | b'}'
            | b'#'
            | b'&'
            | b'*'
            | b'!'
            | b'|'
            | b'>'
            | b'%'
            | b'@'
            | b'`'
    )
}

/// The byte after the quote that closes a scalar opened before `from`, or `None`
/// when it runs past the end of the line.
fn close_quote(b: &[u8], from: usize, double: bool) -> Option<usize> {
    let mut j = from;
    while j < b.len() {
        match b[j] {
            b'\\' if double => j += 2,
            b'"' if double => return Some(j + 1),
            b'\'' if !double => {
                if b.get(j + 1) == Some(&b'\'') {
                    j += 2;
                } else {
                    return Some(j + 1);
                }
            }
            _ => j += 1,
        }
    }
    None
}

/// `---` or `...` (as `c`) at `j`, followed by whitespace or the end of the line.
fn marker(b: &[u8], j: usize, c: u8) -> bool {
    b.len() >= j + 3 && b[j..j + 3].iter().all(|x| *x == c) && ends_token(b.get(j + 3))
}

/// The length of the UTF-8 sequence that starts with `b` (1 for a stray byte).
fn utf8_len(b: u8) -> usize {
    match b {
        0xf0..=0xff => 4,
        0xe0..=0xef => 3,
        0xc0..=0xdf => 2,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Random texts from YAML's pieces: the pass never panics, and when it gives
    /// a text, it is one of the same length class (linear).
    #[test]
    fn never_panics_on_soup() {
        const PIECES: &[&str] = &[
            "a", "b: ", ":", " ", "  ", "\t", "\n", "\n  ", "\n\t", "- ", "-", "-\t", "? ", "?", "#", " #c", "[", "]",
            "{", "}", ",", "\"", "'", "|", ">", "|-", ">+", "&x ", "*x", "!t ", "!!str ", "...", "---", "\\", "é",
            "\r", "0", ".", "+", "%", "1e", "0x", "~", "null", ": ", "<<: ",
        ];
        let n: usize = std::env::var("MEMCTL_SOUP")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(20_000);
        let mut state: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..n {
            let len = (next() % 24) as usize;
            let text: String = (0..len)
                .map(|_| PIECES[(next() % PIECES.len() as u64) as usize])
                .collect();
            if let Ok(p) = prepare(&text) {
                assert!(p.text.len() <= 8 * text.len() + 16, "{text:?}");
            }
            let _ = crate::yaml::parse(&text);
        }
    }
}
