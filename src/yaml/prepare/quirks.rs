//! Document markers and block scalars.

use super::lex::{is_ws, syntax};
use super::{Error, Last, Prep};
use crate::yaml::block_scalar::{BlockScalar, Chomp, write_quoted};

impl Prep<'_> {
    /// A document marker (`---` or `...`, as `c`) at byte `j` of line `i`, to be
    /// written at the start of a line; `at_start` when it is there already. The
    /// byte after it.
    pub(super) fn marker(&mut self, i: usize, j: usize, c: u8, at_start: bool, first: bool) -> Result<usize, Error> {
        let b = self.lines[i].as_bytes();
        if self.flow > 0 {
            return Err(syntax(i, "a document marker inside a flow collection"));
        }
        if !at_start {
            self.out.push('\n');
        }
        if c == b'.' {
            let rest = &b[j + 3..];
            let after = rest.iter().position(|x| !is_ws(*x));
            if after.is_some_and(|k| rest[k] != b'#' && rest[k] != b'\r') {
                return Err(syntax(i, "`...` ends the document, and text follows on its line"));
            }
            if first {
                // Bun reads a `...` before any content as the end of an empty
                // first document.
                self.out.push_str("---\n");
            }
        }
        self.out.push_str(if c == b'.' { "..." } else { "---" });
        self.new_document();
        Ok(j + 3)
    }

    /// A block scalar whose indicator is at byte `at` of line `i`: Bun's text for it,
    /// written as a double-quoted scalar; the index of the line that ends it.
    pub(super) fn block_scalar(
        &mut self,
        i: usize,
        at: usize,
        indent: usize,
        block_indent: Option<usize>,
    ) -> Result<usize, Error> {
        let b = self.lines[i].as_bytes();
        let folded = b[at] == b'>';
        let mut chomp = Chomp::Clip;
        let mut explicit = None;
        let mut seen_chomp = false;
        let mut j = at + 1;
        while j < b.len() {
            match b[j] {
                b'1'..=b'9' if explicit.is_none() => explicit = Some(usize::from(b[j] - b'0')),
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
        let _ = indent;
        let src = self.text.as_bytes();
        let from = self.starts.get(i + 1).copied().unwrap_or(src.len());
        let scalar = BlockScalar {
            folded,
            chomp,
            block_indent,
            explicit,
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
        // The scalar ends at the start of a line.
        self.exempt = Some(next);
        Ok(next)
    }
}
