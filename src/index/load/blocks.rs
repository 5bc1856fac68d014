//! The CommonMark block context (fenced code, HTML blocks, lists, block quotes,
//! paragraphs) needed to decide where an HTML comment block can start (SPEC §2.7.2).

/// The CommonMark block context needed to decide where a comment block can start.
#[derive(Default)]
pub(super) struct BlockContext {
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
    pub(super) fn is_comment_start(&mut self, line: &str) -> bool {
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
        } else if self.paragraph && line.starts_with([' ', '\t']) {
            // `marked` lets only an unindented `<!--` interrupt a paragraph
            // (2.1.332 client: ` <!-- c -->` after a paragraph line stays).
            return false;
        }
        self.quote = false;
        true
    }

    pub(super) fn after_block(&mut self) {
        self.paragraph = false;
    }

    /// Advance over a line that is not a comment start.
    pub(super) fn consume(&mut self, line: &str) {
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
            if list_marker(line).is_none() && html_begin(line) {
                // The item ends; the line starts a block of its own.
                self.list = None;
                self.paragraph = false;
            } else if list_marker(line).is_none() && (!self.paragraph || starts_block(line, false)) {
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
        if self.quote && self.paragraph && !starts_block(line, true) {
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

/// A line that starts a block and so ends a lazy paragraph continuation;
/// `html`: also an HTML block of types 1–6 (a block quote's paragraph ends at
/// `</details>`, 2.1.332 oracle; a list item's does not, see [`html_begin`]).
fn starts_block(line: &str, html: bool) -> bool {
    let t = line.trim_start_matches([' ', '\t']);
    indent_of(line) <= 3
        && (fence_of(line).is_some()
            || t.starts_with('#')
            || t.starts_with('>')
            || t.starts_with("<!--")
            || list_marker(line).is_some()
            || (html && html_start(line, true).is_some()))
}

/// A line that ends a list item in Claude Code's lexer (`marked`'s
/// `htmlBeginRegex`, case-insensitive): up to 3 spaces, then `<` + a letter and
/// a later `>`, or `<!--`. A closing tag (`</details>`) does not end it (2.1.332
/// oracle: `<details>` right after a list item ends the item).
fn html_begin(line: &str) -> bool {
    if indent_of(line) > 3 {
        return false;
    }
    let t = line.trim_start_matches(' ');
    let Some(rest) = t.strip_prefix('<') else {
        return false;
    };
    rest.starts_with("!--") || (rest.starts_with(|c: char| c.is_ascii_alphabetic()) && rest.contains('>'))
}
