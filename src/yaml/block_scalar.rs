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
        let mut indent = Indentation {
            n: self.explicit.map(|m| self.block_indent.unwrap_or(0) + m),
            max_leading: 0,
        };
        let mut text = Text::default();
        let mut prev_empty = false;
        while p < src.len() {
            let (line, next) = line_at(src, p);
            // A line led by a tab, before any content or right after a line with
            // nothing on it, fails (Bun 1.4.5; a tab is never indentation).
            if line.first() == Some(&b'\t') && (text.last_spaced.is_none() || prev_empty) {
                return Err(p);
            }
            prev_empty = line.is_empty();
            match indent.classify(self.block_indent, line).ok_or(p)? {
                Line::Empty => text.empty += 1,
                Line::End => break,
                Line::Content(content) => text.push(content, self.folded),
            }
            p = next;
        }
        Ok((text.finish(self.chomp), p.min(src.len())))
    }
}

/// The line starting at byte `p` of `src` (without its line break, and a CR
/// before it), and the start of the next one.
fn line_at(src: &[u8], p: usize) -> (&[u8], usize) {
    let len = src.len();
    let eol = src[p..].iter().position(|c| *c == b'\n').map_or(len, |k| p + k);
    let line = &src[p..eol];
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    (line, (eol + 1).min(len))
}

/// What a line is to the scalar.
#[derive(Debug, PartialEq)]
enum Line<'l> {
    /// Nothing but spaces at most (it adds a line break).
    Empty,
    /// The line ends the scalar.
    End,
    /// The line's content, past the indentation.
    Content(&'l [u8]),
}

/// The content indentation, fixed by the indicator or the first non-empty line.
struct Indentation {
    n: Option<usize>,
    /// The most spaces on an empty line before the first content line.
    max_leading: usize,
}

impl Indentation {
    /// What `line` is, inside a block collection indented `block_indent`; `None`
    /// when the scalar fails (a first content line less indented than an empty line
    /// before it).
    fn classify<'l>(&mut self, block_indent: Option<usize>, line: &'l [u8]) -> Option<Line<'l>> {
        let spaces = line.iter().take_while(|c| **c == b' ').count();
        let n = match self.n {
            Some(n) => n,
            None if spaces == line.len() => {
                // A leading empty line.
                self.max_leading = self.max_leading.max(spaces);
                return Some(Line::Empty);
            }
            None => {
                let min = block_indent.map_or(0, |b| b + 1);
                if spaces < min || is_marker(line) {
                    return Some(Line::End);
                }
                if spaces < self.max_leading {
                    return None;
                }
                self.n = Some(spaces);
                spaces
            }
        };
        if spaces < n || is_marker(line) && n == 0 {
            return Some(if spaces == line.len() { Line::Empty } else { Line::End });
        }
        let content = &line[n..];
        Some(if content.is_empty() {
            Line::Empty
        } else {
            Line::Content(content)
        })
    }
}

/// The scalar's text as its lines come.
#[derive(Default)]
struct Text {
    text: Vec<u8>,
    /// Empty lines since the last content line (or the start).
    empty: usize,
    /// Whether a content line came, and whether the last one started with
    /// whitespace (a "spaced" line, which folding keeps apart).
    last_spaced: Option<bool>,
}

impl Text {
    /// A content line, after the line breaks (or the folding space) before it.
    fn push(&mut self, content: &[u8], folded: bool) {
        let spaced = matches!(content[0], b' ' | b'\t');
        let breaks = match self.last_spaced {
            None => self.empty,
            Some(prev_spaced) if folded && !prev_spaced && !spaced => {
                if self.empty == 0 {
                    self.text.push(b' ');
                }
                self.empty
            }
            Some(_) => self.empty + 1,
        };
        self.text.extend(std::iter::repeat_n(b'\n', breaks));
        self.text.extend_from_slice(content);
        self.empty = 0;
        self.last_spaced = Some(spaced);
    }

    /// The text, chomped.
    fn finish(mut self, chomp: Chomp) -> String {
        let content = self.last_spaced.is_some();
        let breaks = match chomp {
            Chomp::Strip => 0,
            Chomp::Clip => usize::from(content),
            Chomp::Keep => self.empty + usize::from(content),
        };
        self.text.extend(std::iter::repeat_n(b'\n', breaks));
        String::from_utf8_lossy(&self.text).into_owned()
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

#[cfg(test)]
mod tests {
    use super::*;

    fn read(folded: bool, chomp: Chomp, explicit: Option<usize>, src: &str) -> Result<(String, usize), usize> {
        let b = BlockScalar {
            folded,
            chomp,
            block_indent: None,
            explicit,
        };
        b.read(src.as_bytes(), 0)
    }

    #[test]
    fn a_line_is_cut_at_its_break_and_a_cr_before_it() {
        assert_eq!(line_at(b"ab\r\ncd", 0), (&b"ab"[..], 4));
        assert_eq!(line_at(b"ab\r\ncd", 4), (&b"cd"[..], 6));
    }

    #[test]
    fn the_first_content_line_fixes_the_indentation() {
        let mut i = Indentation {
            n: None,
            max_leading: 0,
        };
        assert_eq!(i.classify(None, b"   "), Some(Line::Empty));
        assert_eq!(i.classify(None, b"  x"), None, "less than a leading empty line");
        let mut i = Indentation {
            n: None,
            max_leading: 0,
        };
        assert_eq!(i.classify(None, b"  x"), Some(Line::Content(b"x")));
        assert_eq!(i.classify(None, b"   y"), Some(Line::Content(b" y")));
        assert_eq!(i.classify(None, b" "), Some(Line::Empty));
        assert_eq!(i.classify(None, b" z"), Some(Line::End));
        let mut i = Indentation {
            n: None,
            max_leading: 0,
        };
        assert_eq!(
            i.classify(Some(2), b"  x"),
            Some(Line::End),
            "not deeper than the collection"
        );
        assert_eq!(i.classify(None, b"--- "), Some(Line::End));
    }

    #[test]
    fn literal_keeps_breaks_folded_joins_and_chomping_decides_the_end() {
        let src = "  a\n  b\n\n  c\n\n\nrest";
        assert_eq!(read(false, Chomp::Clip, None, src), Ok(("a\nb\n\nc\n".into(), 15)));
        assert_eq!(read(true, Chomp::Clip, None, src), Ok(("a b\nc\n".into(), 15)));
        assert_eq!(read(true, Chomp::Strip, None, src), Ok(("a b\nc".into(), 15)));
        assert_eq!(read(true, Chomp::Keep, None, src), Ok(("a b\nc\n\n\n".into(), 15)));
        assert_eq!(
            read(true, Chomp::Clip, None, "  a\n    b\n  c\n"),
            Ok(("a\n  b\nc\n".into(), 14))
        );
        assert_eq!(read(false, Chomp::Clip, Some(1), "  a\n"), Ok((" a\n".into(), 4)));
    }

    #[test]
    fn a_tab_before_content_fails() {
        assert_eq!(read(false, Chomp::Clip, None, "\tx\n"), Err(0));
        assert_eq!(read(false, Chomp::Clip, None, "  x\n\n\ty\n"), Err(5));
    }
}
