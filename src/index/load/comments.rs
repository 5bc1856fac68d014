//! §2.7.2: block-level HTML comments removed from the index text, as Claude Code's
//! block lexer (`marked`) drops them. Every remaining line keeps its file line; where a
//! comment block can start is decided by [`BlockContext`].

use super::Mapped;
use super::blocks::BlockContext;
use crate::text::{count_byte, is_js_space};

/// CRLF and lone CR become LF (the lexer's normalization); lines keep their origin.
pub(super) fn normalize_line_endings(m: &Mapped) -> Mapped {
    let lines = m.lines();
    let last = lines.len().saturating_sub(1);
    let mut out = Vec::new();
    for (i, (line, origin)) in lines.into_iter().enumerate() {
        let line = if i < last {
            line.strip_suffix('\r').map(str::to_string).unwrap_or(line)
        } else {
            line
        };
        for piece in line.split('\r') {
            out.push((piece.to_string(), origin));
        }
    }
    Mapped::from_lines(out)
}

/// Remove top-level HTML comment blocks. `m` has LF line endings only. Also
/// returns whether a block was removed or rewritten (§2.7.2 rule 4).
pub(super) fn strip_comments(m: &Mapped) -> (Mapped, bool) {
    let mut changed = false;
    let lines = m.lines();
    let mut out: Vec<(String, usize)> = Vec::new();
    let mut ctx = BlockContext::default();
    let mut i = 0;
    while i < lines.len() {
        let (line, origin) = &lines[i];
        if ctx.is_comment_start(line) {
            // The block runs through the line holding the first `-->` after `<!--`.
            let open = line.find("<!--").unwrap_or(0);
            let mut end = i;
            let mut found = line[open + 2..].contains("-->");
            while !found && end + 1 < lines.len() {
                end += 1;
                found = lines[end].0.contains("-->");
            }
            if !found {
                // Unclosed: the block runs to the end of the text and stays.
                out.extend(lines[i..].iter().cloned());
                break;
            }
            let mut absorbed = end;
            while absorbed + 1 < lines.len() && lines[absorbed + 1].0.is_empty() && absorbed + 1 < lines.len() - 1 {
                absorbed += 1;
            }
            // A trailing empty line after the last LF is the text's end, not a line.
            let block: Vec<(String, usize)> = lines[i..=absorbed].to_vec();
            let ends_text = absorbed + 1 == lines.len();
            changed |= replace_block(&block, ends_text, &mut out);
            i = absorbed + 1;
            ctx.after_block();
            continue;
        }
        ctx.consume(line);
        out.push((line.clone(), *origin));
        i += 1;
    }
    let stripped = Mapped::from_lines(if out.is_empty() {
        vec![(String::new(), m.origin.last().copied().unwrap_or(1))]
    } else {
        out
    });
    (stripped, changed)
}

/// Delete the `<!--…-->` spans of a comment block; drop it if only whitespace
/// remains. `ends_text`: the block's last line has no LF after it. Returns whether
/// a `<!--…-->` span was deleted (else the block is pushed back unchanged).
fn replace_block(block: &[(String, usize)], ends_text: bool, out: &mut Vec<(String, usize)>) -> bool {
    let mut text = String::new();
    let mut char_line = Vec::new();
    for (k, (l, o)) in block.iter().enumerate() {
        text.push_str(l);
        char_line.extend(std::iter::repeat_n(*o, l.len()));
        if k + 1 < block.len() || !ends_text {
            text.push('\n');
            char_line.push(*o);
        }
    }
    let mut kept = String::new();
    let mut kept_origin = Vec::new();
    let mut pos = 0;
    while let Some(s) = text[pos..].find("<!--") {
        let start = pos + s;
        match text[start + 4..].find("-->") {
            Some(e) => {
                kept.push_str(&text[pos..start]);
                kept_origin.extend_from_slice(&char_line[pos..start]);
                pos = start + 4 + e + 3;
            }
            None => break,
        }
    }
    let changed = pos > 0;
    kept.push_str(&text[pos..]);
    kept_origin.extend_from_slice(&char_line[pos..]);
    if changed && kept.chars().all(is_js_space) {
        if ends_text && out.is_empty() {
            return true;
        }
        if ends_text {
            // The text ended inside the block: the previous line's LF stays.
            out.push((String::new(), block.last().map_or(1, |b| b.1)));
        }
        return true;
    }
    // Split the remainder into lines; each takes the origin of its first byte.
    let mut start = 0;
    let last = count_byte(kept.as_bytes(), b'\n');
    for (idx, piece) in kept.split('\n').enumerate() {
        let origin = kept_origin
            .get(start)
            .copied()
            .unwrap_or_else(|| block.last().map_or(1, |b| b.1));
        let is_last = idx == last;
        if !(is_last && piece.is_empty() && !ends_text) {
            out.push((piece.to_string(), origin));
        }
        start += piece.len() + 1;
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stripped(text: &str) -> String {
        let m = Mapped::from_lines(
            text.split('\n')
                .enumerate()
                .map(|(i, l)| (l.to_string(), i + 1))
                .collect(),
        );
        if !text.contains("<!--") {
            return m.text;
        }
        match strip_comments(&normalize_line_endings(&m)) {
            (s, true) => s.text,
            (_, false) => m.text,
        }
    }

    #[test]
    fn block_comments_match_appendix_a6() {
        for (input, out) in [
            ("# T\n\n<!-- c -->\n\n- [A](a.md) — a\n", "# T\n\n- [A](a.md) — a\n"),
            ("a\n<!-- c -->\nb\n", "a\nb\n"),
            (
                "- [A](a.md) — a\n<!-- c -->\n- [B](b.md) — b\n",
                "- [A](a.md) — a\n- [B](b.md) — b\n",
            ),
            (
                "- [A](a.md) — a\n  <!-- c -->\n- [B](b.md) — b\n",
                "- [A](a.md) — a\n  <!-- c -->\n- [B](b.md) — b\n",
            ),
            ("<!-- note --> Use bun\nx\n", " Use bun\nx\n"),
            ("a <!-- inline --> b\n", "a <!-- inline --> b\n"),
            (
                "<!-- open\nno close\n- [A](a.md)\n",
                "<!-- open\nno close\n- [A](a.md)\n",
            ),
            ("x\r\n<!-- c -->\r\ny\r\n", "x\ny\n"),
            ("x\r\ny\r\n", "x\r\ny\r\n"),
            (
                "```\n<!-- in code -->\n```\n<!-- a\nb -->\n\n\n  \nz",
                "```\n<!-- in code -->\n```\n  \nz",
            ),
            ("> q\n<!-- c -->\nr\n", "> q\nr\n"),
            ("    <!-- indented -->\n", "    <!-- indented -->\n"),
            ("   <!-- 3 spaces -->\nx", "x"),
            ("<!-- a --><!-- b -->\nx", "x"),
            ("<!-- a --> mid <!-- b -->\nx", " mid \nx"),
            ("<!-- multi\nline\ncomment -->\n- [A](a.md) — a\n", "- [A](a.md) — a\n"),
            (
                "<details>\n<!-- c -->\n</details>\n",
                "<details>\n<!-- c -->\n</details>\n",
            ),
            ("<!-->\nb -->\nx\n", "<!-->\nb -->\nx\n"),
            ("<!--->\nb -->\nx\n", "<!--->\nb -->\nx\n"),
            ("x\n<!-- c -->", "x\n"),
            ("<!-- only -->", ""),
            ("x\r\na <!-- inline --> b\r\n", "x\r\na <!-- inline --> b\r\n"),
            (
                "- [A](a.md) — a\n<details>\n<!-- c -->\n</details>\n",
                "- [A](a.md) — a\n<details>\n<!-- c -->\n</details>\n",
            ),
        ] {
            assert_eq!(stripped(input), out, "{input:?}");
        }
    }
}
