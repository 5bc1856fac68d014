//! The text as Bun's YAML parser reads it, rewritten for yaml-rust2 (SPEC §2.4.3).
//!
//! Claude Code 2.1.332 runs Bun 1.4.6 (modelled with Bun 1.4.5, the closest published
//! release). Its parser follows YAML 1.2 much more closely than Bun 1.3.14 did, but
//! not everywhere yaml-rust2 does: it takes a tab wherever a space separates tokens
//! inside a line (after `:`, `-`, `?`, before `#`, in flow collections, at the end
//! of a line), counts only the spaces before the first tab of a line as
//! indentation, and still rejects a line led by a tab after a comment, a quoted
//! scalar, a flow collection or an empty value once the enclosing block mapping is
//! past its first entry. This pass walks the text once, in linear time, and produces
//! the text yaml-rust2 must see to give Bun's result:
//!
//! - a tab that separates tokens becomes a space; a tab inside a plain or quoted
//!   scalar's text stays;
//! - a line's leading whitespace becomes the spaces Bun counts as its indentation;
//! - a block scalar becomes the double-quoted scalar of the text Bun gives it;
//! - a surrogate pair written as two `\u` escapes becomes one `\U` escape;
//! - an empty explicit key in a flow collection (`[?]`) becomes `? ~`;
//! - a line Bun rejects fails: a tab in the indentation before a key or a `-`/`?`
//!   entry ("Tab characters cannot be used as indentation", also right after `- `),
//!   a tab-led line in the places above, a quoted scalar's line that is not
//!   indented past its block, a block scalar line led by a tab where Bun reads
//!   indentation, `key: ? x`.
//!
//! The oracle test (`tests/data/yaml-oracle.jsonl`) checks the result against Bun.

use std::borrow::Cow;

use super::Error;
use lex::{ends_token, is_ws, starts_block_node, starts_key, syntax};

mod flow;
mod lex;
mod quirks;
mod tokens;

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
    /// `[` or `{` for each open flow collection.
    flow_kinds: Vec<u8>,
    /// A token other than a comment has been seen.
    any_token: bool,
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
        flow_kinds: Vec::new(),
        any_token: false,
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

impl Prep<'_> {
    /// Process line `i` (and, for a block scalar, the lines it holds); the index of
    /// the next line to process.
    fn line(&mut self, i: usize) -> Result<usize, Error> {
        let line = self.lines[i];
        let b = line.as_bytes();
        let spaces = b.iter().take_while(|c| **c == b' ').count();
        let content = spaces + b[spaces..].iter().take_while(|c| is_ws(**c)).count();
        let blank = content == b.len();
        if let Some(q) = self.quote {
            if blank {
                return Ok(i + 1);
            }
            if q.block_indent.is_some_and(|bi| spaces <= bi) {
                return Err(syntax(i, "a quoted scalar's line not indented past its block"));
            }
            self.push_spaces(spaces);
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
        // A tab in the indentation before a block entry fails (Bun 1.4); a plain
        // scalar's continuation line may hold `- ` as text, not a key or `? `.
        let entry = if continuation {
            if b[content] == b'?' && ends_token(b.get(content + 1)) {
                self.explicit_after(i, b)
            } else {
                starts_key(b, content)
            }
        } else {
            starts_block_node(b, content)
        };
        if content > spaces && self.flow == 0 && entry {
            return Err(syntax(i, "Tab characters cannot be used as indentation"));
        }
        self.push_spaces(spaces);
        self.tokens(i, content, spaces, continuation)
    }

    /// Whether Bun reads the `? ` that continues a plain scalar on line `i` (`b`) as
    /// an explicit key after all: when a comment ends the line and the next
    /// non-blank line is a `:` value line (observed with Bun 1.4.5; without either,
    /// the `? ` is text). Looks at the lines up to the next non-blank one.
    fn explicit_after(&self, i: usize, b: &[u8]) -> bool {
        let comment = b.windows(2).any(|w| is_ws(w[0]) && w[1] == b'#');
        if !comment {
            return false;
        }
        for l in &self.lines[i + 1..] {
            let l = l.as_bytes();
            let k = l.iter().take_while(|c| is_ws(**c) || **c == b'\r').count();
            if k < l.len() {
                return l[k] == b':' && ends_token(l.get(k + 1));
            }
        }
        false
    }

    fn push_spaces(&mut self, n: usize) {
        self.out.extend(std::iter::repeat_n(' ', n));
    }

    /// A key (or an explicit `?` key) at indentation `indent` in block context;
    /// whether it is a later entry of a mapping already open there.
    fn key_at(&mut self, indent: usize) -> bool {
        self.pop_deeper(indent);
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
    }

    /// The line that holds byte `p` of the text.
    fn line_of(&self, p: usize) -> usize {
        self.starts.partition_point(|s| *s <= p).saturating_sub(1)
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
