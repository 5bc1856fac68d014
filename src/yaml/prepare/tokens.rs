//! The tokens of one line: one walk over its bytes that writes what yaml-rust2 must
//! see and keeps the state Bun's reading of the next lines depends on.

use super::lex::{
    close_quote, ends_token, is_flow_indicator, is_ws, marker, push_quoted, starts_block_node, syntax, utf8_len,
};
use super::{Error, Last, OpenQuote, Prep};

/// The walk over the tokens of one line.
struct Walk<'a> {
    i: usize,
    from: usize,
    /// The line's indentation as Bun counts it.
    indent: usize,
    line: &'a str,
    b: &'a [u8],
    /// The byte being read.
    j: usize,
    /// Bun's indentation for the tokens from here: the line's, or after `- ` the
    /// column of what follows.
    bun_indent: usize,
    /// Where the current plain scalar started, while inside one.
    plain: Option<usize>,
    dash_indent: Option<usize>,
    /// Where the last finished token on this line started (a possible key).
    token: Option<usize>,
    /// The indentation of the last block indicator on this line (`-`, `?`, a key).
    block_col: Option<usize>,
    last: Last,
    /// The line ends with a plain scalar and whitespace.
    ends_plain: bool,
    /// After a key's `:` on this line: its indentation, and whether only
    /// properties came since.
    value_of: Option<(usize, bool)>,
    /// For the token being read: `value_of` as it was before it, whether this is
    /// the document's first token, and whether it starts an unindented line.
    props_only: Option<(usize, bool)>,
    first_token: bool,
    at_line_start: bool,
}

impl Walk<'_> {
    /// An indicator of `n` bytes was written.
    fn took(&mut self, n: usize) {
        self.token = None;
        self.j += n;
        self.last = Last::Other;
    }
}

/// What the walk does after a step.
enum Step {
    Go,
    /// The rest of the line is a comment, written.
    Stop,
    /// The line (and maybe lines after it) is done: the index of the next line.
    Done(usize),
}

impl<'a> Prep<'a> {
    /// The tokens of line `i` from byte `from`; `indent` is the line's indentation
    /// as Bun counts it, `continuation` when the line goes on with a plain scalar.
    pub(super) fn tokens(&mut self, i: usize, from: usize, indent: usize, continuation: bool) -> Result<usize, Error> {
        let mut w = self.walk(i, from, indent, continuation);
        if let Some(q) = self.quote {
            match close_quote(w.b, w.j, q.double) {
                Some(end) => {
                    push_quoted(&mut self.out, &w.line[w.j..end], q.double);
                    self.quote = None;
                    w.token = Some(w.j);
                    w.j = end;
                }
                None => {
                    push_quoted(&mut self.out, &w.line[w.j..], q.double);
                    return Ok(i + 1);
                }
            }
        }
        while w.j < w.b.len() {
            match self.step(&mut w)? {
                Step::Go => {}
                Step::Stop => break,
                Step::Done(next) => return Ok(next),
            }
        }
        self.end_of_line(w);
        Ok(i + 1)
    }

    fn walk(&mut self, i: usize, from: usize, indent: usize, continuation: bool) -> Walk<'a> {
        let line = self.lines[i];
        let b = line.as_bytes();
        Walk {
            i,
            from,
            indent,
            line,
            b,
            j: from,
            bun_indent: indent,
            plain: continuation.then_some(from),
            dash_indent: None,
            token: None,
            block_col: None,
            last: Last::Other,
            ends_plain: false,
            value_of: None,
            props_only: None,
            first_token: false,
            at_line_start: false,
        }
    }

    /// Read from byte `w.j`: whitespace, a comment, more of a plain scalar, or a token.
    fn step(&mut self, w: &mut Walk<'a>) -> Result<Step, Error> {
        let (b, j) = (w.b, w.j);
        let c = b[j];
        if is_ws(c) {
            self.whitespace(w);
            return Ok(Step::Go);
        }
        if c == b'#' && (j == 0 || is_ws(b[j - 1])) {
            w.plain = None;
            self.out.push_str(&w.line[j..]);
            w.last = Last::Other;
            return Ok(Step::Stop);
        }
        if let Some(start) = w.plain
            && let Some(step) = self.in_plain(w, start, c)?
        {
            return Ok(step);
        }
        self.token_start(w, c);
        self.token(w, c)
    }

    fn whitespace(&mut self, w: &mut Walk<'a>) {
        let (b, j) = (w.b, w.j);
        let end = j + b[j..].iter().take_while(|c| is_ws(**c)).count();
        let next = b.get(end).copied();
        let continues = w.plain.is_some()
            && match next {
                None | Some(b'#' | b'\r') => false,
                Some(b':') => {
                    !(ends_token(b.get(end + 1))
                        || (self.flow > 0 && b.get(end + 1).is_some_and(|c| is_flow_indicator(*c))))
                }
                Some(c) => !(self.flow > 0 && is_flow_indicator(c)),
            };
        if continues {
            self.out.push_str(&w.line[j..end]);
        } else {
            if let Some(start) = w.plain.take() {
                w.token = Some(start);
                w.ends_plain = next.is_none();
            }
            self.push_spaces(end - j);
        }
        w.j = end;
    }

    /// Byte `c` inside the plain scalar that started at `start`: its text, or the
    /// indicator that ends it. `None` when a token starts at `c`.
    fn in_plain(&mut self, w: &mut Walk<'a>, start: usize, c: u8) -> Result<Option<Step>, Error> {
        let (b, j) = (w.b, w.j);
        let indicator = match c {
            b':' => ends_token(b.get(j + 1)) || (self.flow > 0 && b.get(j + 1).is_some_and(|c| is_flow_indicator(*c))),
            b'-' | b'.' => j == 0 && marker(b, j, c),
            _ => self.flow > 0 && is_flow_indicator(c),
        };
        if !indicator {
            let len = utf8_len(c);
            self.out.push_str(&w.line[j..(j + len).min(b.len())]);
            w.j += len;
            return Ok(Some(Step::Go));
        }
        w.plain = None;
        w.token = Some(start);
        if c == b'-' || c == b'.' {
            // `---` or `...` inside a plain scalar on an unindented line:
            // Bun ends the scalar and the document there.
            w.j = self.marker(w.i, j, c, false, false)?;
            w.token = None;
            w.last = Last::Other;
            return Ok(Some(Step::Go));
        }
        Ok(None)
    }

    /// What the start of a token at byte `c` changes.
    fn token_start(&mut self, w: &mut Walk<'a>, c: u8) {
        let j = w.j;
        w.first_token = !self.any_token;
        self.any_token = true;
        // At the start of a token.
        w.at_line_start = j == w.from && w.indent == 0;
        w.props_only = w.value_of.take().map(|(k, only)| (k, only && matches!(c, b'&' | b'!')));
    }

    /// The token that starts with `c` at byte `w.j`.
    fn token(&mut self, w: &mut Walk<'a>, c: u8) -> Result<Step, Error> {
        let (b, j) = (w.b, w.j);
        match c {
            b'"' | b'\'' => return Ok(self.quoted(w, c)),
            b'[' | b'{' => {
                self.flow_open(c);
                w.j += 1;
                w.last = Last::Other;
            }
            b']' | b'}' | b',' if self.flow > 0 => {
                self.flow_close(c);
                w.took(1);
            }
            b']' | b'}' => {
                self.out.push(char::from(c));
                w.took(1);
            }
            b'-' | b'.' if j == 0 && marker(b, j, c) => {
                w.j = self.marker(w.i, j, c, w.at_line_start, w.first_token)?;
                w.token = None;
                w.last = Last::Other;
            }
            b'-' | b'?' | b':'
                if ends_token(b.get(j + 1))
                    || (self.flow > 0 && c != b'-' && b.get(j + 1).is_some_and(|c| is_flow_indicator(*c))) =>
            {
                self.indicator(w, c)?;
            }
            b'|' | b'>' if self.flow == 0 => {
                let block_indent = w.block_col.or_else(|| self.mappings.last().map(|m| m.0));
                return self.block_scalar(w.i, j, w.bun_indent, block_indent).map(Step::Done);
            }
            b'&' | b'*' | b'!' => self.property(w, c)?,
            _ => {
                w.plain = Some(j);
                let len = utf8_len(c);
                self.out.push_str(&w.line[j..(j + len).min(b.len())]);
                w.j += len;
            }
        }
        Ok(Step::Go)
    }

    /// A quoted scalar opened by `c`: written to its end, or to the end of the line
    /// when it goes on.
    fn quoted(&mut self, w: &mut Walk<'a>, c: u8) -> Step {
        let (b, j) = (w.b, w.j);
        let double = c == b'"';
        match close_quote(b, j + 1, double) {
            Some(end) => {
                push_quoted(&mut self.out, &w.line[j..end], double);
                w.token = Some(j);
                w.j = end;
            }
            None => {
                push_quoted(&mut self.out, &w.line[j..], double);
                let block_indent = w.block_col.or_else(|| self.mappings.last().map(|m| m.0));
                self.quote = Some(OpenQuote { double, block_indent });
                self.last = Last::Other;
                return Step::Done(w.i + 1);
            }
        }
        w.last = Last::Other;
        Step::Go
    }

    /// A `-`, `?` or `:` indicator.
    fn indicator(&mut self, w: &mut Walk<'a>, c: u8) -> Result<(), Error> {
        if self.flow == 0 {
            // After `?`, or `:` that starts its line's tokens (an explicit key's
            // value), the whitespace is indentation for a collection that starts
            // on the line: Bun 1.4 rejects a tab in it, as after `-`.
            if (c == b'?' || (c == b':' && w.token.is_none())) && tab_before_entry(&w.b[w.j + 1..]) {
                return Err(syntax(w.i, "Tab characters cannot be used as indentation"));
            }
            match c {
                b'-' => self.block_dash(w)?,
                b'?' if w.props_only.is_some() => {
                    // `key: ? x`: a block mapping cannot start on its key's line.
                    return Err(syntax(w.i, "an explicit key on the line of a key's `:`"));
                }
                b'?' => {
                    self.key_at(w.bun_indent);
                    w.block_col = Some(w.bun_indent);
                }
                _ => {
                    if w.token.is_some() {
                        self.key_at(w.bun_indent);
                        w.block_col = Some(w.bun_indent);
                        w.value_of = Some((w.bun_indent, true));
                    }
                }
            }
        }
        self.out.push(char::from(c));
        if self.flow > 0 && c == b'?' && self.empty_flow_key(w.i, w.j + 1) {
            // `[?]`, `{? , b}`: Bun reads an empty explicit key as null.
            self.out.push_str(" ~");
        }
        w.took(1);
        Ok(())
    }

    /// A `-` entry indicator in block context.
    fn block_dash(&mut self, w: &mut Walk<'a>) -> Result<(), Error> {
        let (b, j, i) = (w.b, w.j, w.i);
        // `-` and a tab, then `-`: Bun reads the second entry
        // at the first one's indentation, and fails.
        if w.dash_indent == Some(w.bun_indent) {
            return Err(syntax(i, "two `-` at one indentation on a line"));
        }
        w.dash_indent = Some(w.bun_indent);
        self.pop_deeper(w.bun_indent);
        w.block_col = Some(w.bun_indent);
        let rest = &b[j + 1..];
        // The whitespace after the `-` is indentation for a collection that
        // starts on the line: Bun 1.4 rejects a tab in it.
        if tab_before_entry(rest) {
            return Err(syntax(i, "Tab characters cannot be used as indentation"));
        }
        if b.get(j + 1) == Some(&b' ') {
            let n = b[j + 1..].iter().take_while(|c| **c == b' ').count();
            w.bun_indent += 1 + n;
        }
        Ok(())
    }

    /// An anchor (`&`), an alias (`*`) or a tag (`!`).
    fn property(&mut self, w: &mut Walk<'a>, c: u8) -> Result<(), Error> {
        let (b, j, line) = (w.b, w.j, w.line);
        let end = j + b[j..]
            .iter()
            .take_while(|c| !(is_ws(**c) || **c == b'\r' || (self.flow > 0 && is_flow_indicator(**c))))
            .count();
        if c == b'&' {
            let name = b[j + 1..end].iter().take_while(|c| !is_flow_indicator(**c)).count();
            self.anchors.push(line[j + 1..j + 1 + name].to_string());
        }
        self.out.push_str(&line[j..end]);
        w.token = Some(j);
        w.j = end;
        // `key: !t ? x`: properties keep the place after a key's `:`.
        if let Some((k, true)) = w.props_only
            && c != b'*'
        {
            w.value_of = Some((k, true));
        }
        w.last = Last::Other;
        Ok(())
    }

    /// What the end of the line leaves for the next one.
    fn end_of_line(&mut self, mut w: Walk<'a>) {
        if w.plain.is_some() || w.ends_plain {
            w.last = Last::Plain;
        }
        if w.last == Last::Plain {
            self.plain_block = w.block_col.or_else(|| self.mappings.last().map(|m| m.0));
        }
        self.last = w.last;
    }
}

/// Whether `rest` (what follows a block indicator on its line) is whitespace with a
/// tab in it and then the start of a block collection's entry.
fn tab_before_entry(rest: &[u8]) -> bool {
    let ws = rest.iter().take_while(|c| is_ws(**c)).count();
    rest[..ws].contains(&b'\t') && ws < rest.len() && starts_block_node(rest, ws)
}
