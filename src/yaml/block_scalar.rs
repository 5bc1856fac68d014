//! Block scalars (`|`, `>`) as Bun 1.4 reads them, for [`super::prepare`]: the
//! pass writes each one as the double-quoted scalar of the text computed here.

#[derive(Clone, Copy, PartialEq)]
pub(super) enum Chomp {
    Strip,
    Clip,
    Keep,
}

/// A block scalar's content, read the way Bun 1.4 reads it, which is the YAML
/// 1.2 specification's reading (SPEC §2.4.3 (2.1.332)): the content indentation is
/// the indentation indicator past the enclosing block collection's, or else the
/// spaces before the first non-empty line (an empty line before it with more
/// spaces fails; a line no deeper than the collection leaves the scalar empty); a
/// line with fewer spaces is empty when only spaces follow, else it ends the
/// scalar (a tab counts as text, never as indentation); a `---` or `...` line ends
/// it; folding joins two lines that do not start with whitespace with a space, or
/// with the empty lines between them, and keeps the line breaks around a line that
/// does; chomping strips, clips or keeps the final line break and the empty lines.
pub(super) struct BlockScalar {
    pub folded: bool,
    pub chomp: Chomp,
    /// The indentation of the block collection around the scalar, if any.
    pub block_indent: Option<usize>,
    /// The indentation indicator (1–9), if given.
    pub explicit: Option<usize>,
}

impl BlockScalar {
    /// Read from byte `p` of `src` (the start of the line after the header): the
    /// text and the byte where the scalar ends (the start of the line that ends it,
    /// or the end of `src`), or the byte at fault.
    pub fn read(&self, src: &[u8], mut p: usize) -> Result<(String, usize), usize> {
        let len = src.len();
        let parent = self.block_indent.unwrap_or(0);
        let mut indent = self.explicit.map(|m| parent + m);
        let mut text: Vec<u8> = Vec::new();
        // Empty lines since the last content line (or the start).
        let mut empty = 0usize;
        // Whether a content line came, and whether the last one started with
        // whitespace (a "spaced" line, which folding keeps apart).
        let mut last_spaced: Option<bool> = None;
        let mut max_leading = 0usize;
        let mut prev_empty = false;
        while p < len {
            let eol = src[p..].iter().position(|c| *c == b'\n').map_or(len, |k| p + k);
            let mut line = &src[p..eol];
            if line.last() == Some(&b'\r') {
                line = &line[..line.len() - 1];
            }
            // A line led by a tab, before any content or right after a line with
            // nothing on it, fails (Bun 1.4.5; a tab is never indentation).
            if line.first() == Some(&b'\t') && (last_spaced.is_none() || prev_empty) {
                return Err(p);
            }
            prev_empty = line.is_empty();
            let spaces = line.iter().take_while(|c| **c == b' ').count();
            let n = match indent {
                Some(n) => n,
                None if spaces == line.len() => {
                    // A leading empty line.
                    max_leading = max_leading.max(spaces);
                    empty += 1;
                    p = (eol + 1).min(len);
                    continue;
                }
                None => {
                    let min = self.block_indent.map_or(0, |b| b + 1);
                    if spaces < min || is_marker(line) {
                        break;
                    }
                    if spaces < max_leading {
                        return Err(p);
                    }
                    indent = Some(spaces);
                    spaces
                }
            };
            if spaces < n || is_marker(line) && n == 0 {
                if spaces == line.len() {
                    empty += 1;
                    p = (eol + 1).min(len);
                    continue;
                }
                break;
            }
            let content = &line[n..];
            if content.is_empty() {
                empty += 1;
                p = (eol + 1).min(len);
                continue;
            }
            let spaced = matches!(content[0], b' ' | b'\t');
            match last_spaced {
                None => text.extend(std::iter::repeat_n(b'\n', empty)),
                Some(prev_spaced) if self.folded && !prev_spaced && !spaced => {
                    if empty == 0 {
                        text.push(b' ');
                    } else {
                        text.extend(std::iter::repeat_n(b'\n', empty));
                    }
                }
                Some(_) => text.extend(std::iter::repeat_n(b'\n', empty + 1)),
            }
            text.extend_from_slice(content);
            empty = 0;
            last_spaced = Some(spaced);
            p = (eol + 1).min(len);
        }
        let stop = p.min(len);
        match self.chomp {
            Chomp::Strip => {}
            Chomp::Clip => {
                if last_spaced.is_some() {
                    text.push(b'\n');
                }
            }
            Chomp::Keep => {
                let breaks = if last_spaced.is_some() { empty + 1 } else { empty };
                text.extend(std::iter::repeat_n(b'\n', breaks));
            }
        }
        Ok((String::from_utf8_lossy(&text).into_owned(), stop))
    }
}

/// `---` or `...` at the start of a line, followed by whitespace or its end.
fn is_marker(line: &[u8]) -> bool {
    line.len() >= 3
        && (line.starts_with(b"---") || line.starts_with(b"..."))
        && matches!(line.get(3), None | Some(b' ' | b'\t'))
}

/// `s` as a YAML double-quoted scalar.
pub(super) fn write_quoted(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20
                || ('\u{7f}'..='\u{9f}').contains(&c)
                || matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}') =>
            {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}
