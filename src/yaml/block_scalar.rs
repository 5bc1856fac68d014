//! Block scalars (`|`, `>`) as Bun 1.3.14 reads them, for [`super::prepare`]: the
//! pass writes each one as the double-quoted scalar of the text computed here.

#[derive(Clone, Copy, PartialEq)]
pub(super) enum Chomp {
    Strip,
    Clip,
    Keep,
}

/// A block scalar's content, read the way Bun 1.3.14 reads it (its own rules, not
/// the YAML specification's): the first non-blank line sets the content
/// indentation, and a blank line before it indented deeper fails; a line ends the
/// scalar when it is indented no deeper than the enclosing block collection (with
/// none, less than the content), whatever the content indentation; a line's spaces
/// past the content indentation are kept; a line led by a tab ends the scalar, or
/// fails after a blank line; folding joins two lines with a space only until a
/// deeper-indented line comes; `+` keeps one line break more at the end of the
/// text; and a scalar that ends on the line right after its header fails, unless
/// that line is a comment or a document marker (Bun does not count the header's line
/// break, so the next token seems to be on the key's line).
pub(super) struct BlockScalar {
    pub folded: bool,
    pub chomp: Chomp,
    /// The indentation of the block collection around the scalar, if any.
    pub block_indent: Option<usize>,
    /// Bun keeps the header line's indentation until a content line sets its own.
    pub header_indent: usize,
}

/// What precedes a block scalar's first content line.
struct Leading {
    newlines: usize,
    max_leading: usize,
    line_indent: usize,
    /// Bun does not count the header's line break: a scalar that ends on the line
    /// after it leaves the next token on the header's line, which fails.
    crossed: bool,
}

impl BlockScalar {
    /// Read from byte `p` of `src` (the line after the header): the text and the byte
    /// where the scalar ends, or the byte at fault.
    pub fn read(&self, src: &[u8], mut p: usize) -> Result<(String, usize), usize> {
        let len = src.len();
        if src.get(p) == Some(&b'\t') {
            return Err(p);
        }
        let mut text: Vec<u8> = Vec::new();
        let Some(lead) = self.leading(src, &mut p)? else {
            return Ok((String::new(), len));
        };
        let Leading {
            mut newlines,
            max_leading,
            mut line_indent,
            mut crossed,
        } = lead;
        let content_indent = line_indent;
        let mut previous_indent = content_indent;
        loop {
            let Some(&c) = src.get(p) else {
                return Ok((self.finish(text, newlines, true), len));
            };
            match c {
                b'\r' if src.get(p + 1) == Some(&b'\n') => p += 1,
                b'\n' | b'\r' => {
                    newlines += 1;
                    p += 1;
                    line_indent = 0;
                    crossed = true;
                    loop {
                        match src.get(p) {
                            Some(b'\r') if src.get(p + 1) == Some(&b'\n') => p += 1,
                            Some(b'\n' | b'\r') => {
                                newlines += 1;
                                p += 1;
                                if src.get(p) == Some(&b'\t') {
                                    return Err(p);
                                }
                            }
                            Some(b' ') => {
                                let n = src[p..].iter().take_while(|c| **c == b' ').count();
                                if n > content_indent {
                                    // The spaces past the content indentation are text.
                                    if self.folded && newlines == 0 {
                                        text.push(b' ');
                                    } else {
                                        text.extend(std::iter::repeat_n(b'\n', newlines));
                                        newlines = 0;
                                        text.push(b' ');
                                    }
                                    text.extend(std::iter::repeat_n(b' ', n - content_indent - 1));
                                    previous_indent = 0;
                                }
                                p += n;
                                line_indent = n;
                                break;
                            }
                            _ => break,
                        }
                    }
                }
                _ => {
                    let marker = (c == b'-' || c == b'.')
                        && line_indent == 0
                        && src[p..].starts_with(&[c, c, c])
                        && matches!(src.get(p + 3), None | Some(b' ' | b'\t' | b'\n' | b'\r'));
                    let outdented = match self.block_indent {
                        Some(bi) => line_indent <= bi,
                        None => line_indent < content_indent,
                    };
                    if marker || outdented {
                        if !crossed && !marker && c != b'#' {
                            return Err(p);
                        }
                        return Ok((self.finish(text, newlines, false), p));
                    }
                    if text.is_empty() && content_indent < max_leading {
                        return Err(p);
                    }
                    match (self.folded, newlines) {
                        (_, 0) => {}
                        (true, 1) if previous_indent == content_indent => text.push(b' '),
                        (true, 1) => text.push(b'\n'),
                        (true, n) => text.extend(std::iter::repeat_n(b'\n', n - 1)),
                        (false, n) => text.extend(std::iter::repeat_n(b'\n', n)),
                    }
                    newlines = 0;
                    text.push(c);
                    p += 1;
                }
            }
        }
    }

    /// The blank lines before the first content line; `None` at the end of input.
    /// The content indentation is the indentation of the first non-blank line.
    fn leading(&self, src: &[u8], p: &mut usize) -> Result<Option<Leading>, usize> {
        let mut l = Leading {
            newlines: 0,
            max_leading: 0,
            line_indent: self.header_indent,
            crossed: false,
        };
        loop {
            match src.get(*p) {
                None => return Ok(None),
                Some(b'\r') if src.get(*p + 1) == Some(&b'\n') => *p += 1,
                Some(b'\n' | b'\r') => {
                    *p += 1;
                    l.line_indent = 0;
                    if src.get(*p) == Some(&b'\t') {
                        return Err(*p);
                    }
                    l.newlines += 1;
                    l.crossed = true;
                }
                Some(b' ') => {
                    let n = src[*p..].iter().take_while(|c| **c == b' ').count();
                    *p += n;
                    l.max_leading = l.max_leading.max(n);
                    l.line_indent = n;
                }
                Some(_) => return Ok(Some(l)),
            }
        }
    }

    fn finish(&self, mut text: Vec<u8>, newlines: usize, eof: bool) -> String {
        match self.chomp {
            Chomp::Keep if eof => text.extend(std::iter::repeat_n(b'\n', newlines + 1)),
            Chomp::Keep if !text.is_empty() => text.extend(std::iter::repeat_n(b'\n', newlines)),
            Chomp::Clip if eof || !text.is_empty() => text.push(b'\n'),
            _ => {}
        }
        String::from_utf8_lossy(&text).into_owned()
    }
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
