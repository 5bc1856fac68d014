//! Flow collections: the nesting Bun gives `{q: a: b}` and `{? k: v}`, and the
//! entries it reads its own way.

use super::lex::{ends_token, flow_key_follows, is_flow_indicator, is_ws, syntax};
use super::{Error, FlowEntry, Prep};

impl Prep<'_> {
    /// A scalar at byte `j` of line `i`: at a flow mapping value's place and followed
    /// by a key's `:`, Bun reads `{q: a: b}` as `{q: {a: b}}`; write that mapping.
    pub(super) fn wrap_value(&mut self, i: usize, b: &[u8], j: usize) {
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
    pub(super) fn explicit_in_flow(&mut self, i: usize, b: &[u8], j: usize, c: u8) -> Result<(), Error> {
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
    pub(super) fn end_explicit(&mut self, i: usize, indent: usize) -> Result<(), Error> {
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

    /// `{:v}`: at a key's place Bun takes `:` as the value indicator.
    pub(super) fn flow_colon_at_key(&mut self) {
        self.out.push_str(": ");
        self.flow_key_pos = false;
        self.flow_value_pos = true;
        if let Some(top) = self.explicit_flow.last_mut()
            && top.depth == self.flow
        {
            top.colon = true;
        }
    }

    /// A `[` or `{` (as `c`) opens a flow collection.
    pub(super) fn flow_open(&mut self, c: u8) {
        self.flow += 1;
        self.flow_kinds.push(c);
        self.flow_key_pos = c == b'{';
        self.flow_value_pos = false;
        self.out.push(char::from(c));
    }

    /// A `]`, `}` or `,` (as `c`) inside a flow collection, on line `i` of
    /// indentation `indent`.
    pub(super) fn flow_close(&mut self, i: usize, indent: usize, c: u8) -> Result<(), Error> {
        self.end_explicit(i, indent)?;
        if c != b',' {
            self.flow -= 1;
            self.flow_kinds.pop();
        }
        self.flow_key_pos = c == b',' && self.flow_kinds.last() == Some(&b'{');
        self.flow_value_pos = false;
        self.out.push(char::from(c));
        Ok(())
    }

    /// A `-`, `?` or `:` indicator (as `c`) on line `i` of indentation `indent` has
    /// been written: inside a flow collection, what it opens or where it leaves us.
    pub(super) fn flow_indicator_written(&mut self, c: u8) {
        if self.flow > 0 && c == b':' {
            self.flow_key_pos = false;
            self.flow_value_pos = self.flow_kinds.last() == Some(&b'{');
        }
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
            let k = at + b[at.min(b.len())..].iter().take_while(|c| is_ws(**c) || **c == b'\r').count();
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
