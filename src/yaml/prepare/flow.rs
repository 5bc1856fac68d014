//! Flow collections: which are open, and the empty explicit keys Bun reads as null.

use super::Prep;
use super::lex::{ends_token, is_flow_indicator, is_ws};

impl Prep<'_> {
    /// A `[` or `{` (as `c`) opens a flow collection.
    pub(super) fn flow_open(&mut self, c: u8) {
        self.flow += 1;
        self.flow_kinds.push(c);
        self.out.push(char::from(c));
    }

    /// A `]`, `}` or `,` (as `c`) inside a flow collection.
    pub(super) fn flow_close(&mut self, c: u8) {
        if c != b',' {
            self.flow -= 1;
            self.flow_kinds.pop();
        }
        self.out.push(char::from(c));
    }

    /// Whether the `?` that ends before byte `from` of line `i` has no key: the
    /// next token, on this line or a later one, is `,`, `]`, `}` or a `:` value
    /// indicator. Lines are looked at until the first token, so each is looked at
    /// for one `?` at most.
    pub(super) fn empty_flow_key(&self, i: usize, from: usize) -> bool {
        let mut line = i;
        let mut at = from;
        while let Some(l) = self.lines.get(line) {
            let b = l.as_bytes();
            let k = at
                + b[at.min(b.len())..]
                    .iter()
                    .take_while(|c| is_ws(**c) || **c == b'\r')
                    .count();
            match b.get(k) {
                None | Some(b'#') => {
                    line += 1;
                    at = 0;
                }
                Some(b',' | b']' | b'}') => return true,
                Some(b':') => return ends_token(b.get(k + 1)) || b.get(k + 1).is_some_and(|c| is_flow_indicator(*c)),
                Some(_) => return false,
            }
        }
        false
    }
}
