//! The index lines that link one memory file, and whether Claude Code loads each
//! (`show FILE.md`, issue 31): found with byte searches over the index, so that
//! only the lines that can link the file are parsed for links, only the lines that
//! can open or close a fence or a comment are masked, and the load is modelled
//! only when one of the lines can be among the first 200 Claude Code keeps.

use std::borrow::Cow;
use std::io::Seek as _;
use std::path::Path;

use super::{Link, LinkScan, Masker};

mod sparse;

use sparse::{Got, sparse};

/// Above this size the index is left to the streaming reader (memory stays flat).
const WHOLE_MAX: u64 = 32 << 20;

/// The index lines (1-based, ascending) with a memory link to `local`, and
/// whether each is loaded in full (not past the cut).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Linked {
    pub lines: Vec<usize>,
    pub loaded: Vec<bool>,
}

/// [`Linked`] for `local` (the file as the index at `index` links it: relative to
/// the index's dir, `/`-separated), as a full parse of the index decoded lossily
/// answers. `None` when this cannot answer (a base name with a `\`, an index over
/// 32 MiB, a name with a U+FFFD): the caller reads the index its own way. A missing or unreadable index
/// links nothing.
pub fn linking(index: &Path, local: &str) -> Option<Linked> {
    let base = local.rsplit('/').next().unwrap_or(local);
    // A backslash in the name could be written as `/` in a link; a U+FFFD could
    // stand for bytes that are not UTF-8 (the byte search would miss it).
    if base.contains(['\\', '\u{fffd}']) {
        return None;
    }
    let mut f = match crate::fsread::open_regular(index) {
        Ok(f) if f.metadata().is_ok_and(|m| m.len() > WHOLE_MAX) => return None,
        Ok(f) => f,
        Err(_) => return Some(Linked::default()),
    };
    // An index read piece by piece keeps only its lines that can matter; one
    // that fits in a piece, or whose load must be modelled, is read whole (as
    // is any index for a name that could be found across two pieces).
    let got = if base.is_empty() || base.contains('\n') {
        Ok(None)
    } else {
        sparse(&mut f, base, super::check::MAX_INDEX_BYTES).map(Some)
    };
    let bytes = match got {
        Ok(Some(Got::Whole(bytes))) => bytes,
        Ok(Some(Got::Sparse(s))) if let Some(l) = s.linking(local) => return Some(l),
        Ok(_) => match f.rewind().ok().and_then(|()| read_bounded(f)) {
            Some(bytes) => bytes,
            None => return Some(Linked::default()),
        },
        Err(_) => return Some(Linked::default()),
    };
    Some(linking_in(&bytes, local))
}

fn read_bounded(f: std::fs::File) -> Option<Vec<u8>> {
    crate::fsread::read_bounded(f, super::check::MAX_INDEX_BYTES).ok()
}

/// [`linking`] on the index's bytes.
pub fn linking_in(bytes: &[u8], local: &str) -> Linked {
    let base = local.rsplit('/').next().unwrap_or(local);
    // A link's target is its destination decoded and normalized, whose last
    // segment is written in the line, unless percent-encoded.
    let mut at: Vec<usize> = memchr::memmem::find_iter(bytes, base.as_bytes()).collect();
    // One pass for the `%`s and for whether a comment can open anywhere.
    let mut comment = false;
    for p in memchr::memchr2_iter(b'%', b'<', bytes) {
        if bytes[p] == b'%' {
            at.push(p);
        } else {
            comment |= bytes[p..].starts_with(b"<!--");
        }
    }
    at.sort_unstable();
    let mut lines = Vec::new();
    links_on(bytes, &lines_at(bytes, &at), |l| {
        if l.memory_target() == Some(local) {
            lines.push(l.line);
        }
    });
    lines.dedup();
    let loaded = loaded_of(bytes, &lines, comment);
    Linked { lines, loaded }
}

/// The links on the lines of `text` that hold one of `names` (base names of
/// memory files) or a `%`, in order, as [`super::extract_links`] finds them
/// there: every line with a link to one of those files is among them (a
/// target's last segment is written in its line unless percent-encoded).
/// `None` when a name has a backslash (it could be written as `/`).
pub fn links_on_lines_naming(text: &str, names: &[&str]) -> Option<Vec<Link>> {
    if names.iter().any(|n| n.contains('\\') || n.is_empty()) {
        return None;
    }
    let bytes = text.as_bytes();
    let mut at: Vec<usize> = memchr::memchr_iter(b'%', bytes).collect();
    for n in names {
        at.extend(memchr::memmem::find_iter(bytes, n.as_bytes()));
    }
    at.sort_unstable();
    let mut links = Vec::new();
    links_on(bytes, &lines_at(bytes, &at), |l| links.push(l));
    Some(links)
}

/// The lines holding the byte offsets `at` (sorted): (1-based number, start, end
/// without the LF), each once, in order.
fn lines_at(bytes: &[u8], at: &[usize]) -> Vec<(usize, usize, usize)> {
    let mut out: Vec<(usize, usize, usize)> = Vec::new();
    let (mut counted_to, mut number) = (0, 1);
    for &p in at {
        if out.last().is_some_and(|l| p <= l.2) {
            continue;
        }
        let start = memchr::memrchr(b'\n', &bytes[..p]).map_or(0, |i| i + 1);
        number += crate::text::count_byte(&bytes[counted_to..start], b'\n');
        counted_to = start;
        let end = memchr::memchr(b'\n', &bytes[p..]).map_or(bytes.len(), |i| p + i);
        out.push((number, start, end));
    }
    out
}

/// The links of the given lines ((number, start, end), in order), as
/// [`super::for_each_link`] finds them on the whole text decoded lossily. The
/// masker sees only the lines before them that can change its state (those with
/// a `<`, `>`, backtick or `~`: a fence or a comment opens or closes only there).
pub(super) fn links_on(bytes: &[u8], lines: &[(usize, usize, usize)], f: impl FnMut(Link)) {
    let bom = if bytes.starts_with(b"\xef\xbb\xbf") { 3 } else { 0 };
    links_on_from(bytes, bom, lines, f);
}

/// [`links_on`] with the length of the BOM that starts `bytes`' first line.
fn links_on_from(bytes: &[u8], bom: usize, lines: &[(usize, usize, usize)], mut f: impl FnMut(Link)) {
    let mut last_close: Option<Option<usize>> = None;
    let mut later = |end: usize| {
        last_close
            .get_or_insert_with(|| memchr::memmem::rfind(bytes, b"-->"))
            .is_some_and(|c| c > end)
    };
    let mut masker = Masker::default();
    let mut specials = Specials::default();
    let mut scratch = (LinkScan::default(), Vec::new());
    let mut found = Vec::new();
    let mut pos = 0;
    for &(number, start, end) in lines {
        while let Some(p) = specials.next(bytes, pos, start) {
            let s = memchr::memrchr(b'\n', &bytes[..p]).map_or(0, |i| i + 1).max(bom);
            let e = memchr::memchr(b'\n', &bytes[p..]).map_or(bytes.len(), |i| p + i);
            let line = String::from_utf8_lossy(&bytes[s..e]);
            // Only a line that may open a comment asks whether one closes later.
            let close = line.contains("<!--") && later(e);
            masker.line(0, &line, close, &mut |_, _, _, _| {});
            pos = e + 1;
        }
        let line: Cow<str> = String::from_utf8_lossy(&bytes[start.max(bom)..end]);
        let close = line.contains("<!--") && later(end);
        masker.line(number, &line, close, &mut |n, line, masked, _| {
            super::find_links(line, masked, n, &mut found, &mut scratch);
        });
        found.drain(..).for_each(&mut f);
        pos = end + 1;
    }
}

/// The next byte that can change the masker's state before a limit, found by two
/// searches whose results are kept while they answer (each byte is searched once).
#[derive(Default)]
struct Specials {
    three: Found,
    tilde: Found,
}

/// One search's last result: the first hit in `[from, to)`, if any.
#[derive(Default)]
struct Found {
    from: usize,
    to: usize,
    at: Option<usize>,
}

impl Found {
    /// The first hit in `[pos, limit)`.
    fn next(&mut self, bytes: &[u8], pos: usize, limit: usize, find: impl Fn(&[u8]) -> Option<usize>) -> Option<usize> {
        let answers = self.from <= pos && self.at.map_or(self.to >= limit, |a| a >= pos);
        if !answers {
            let rest = bytes.get(pos..limit).unwrap_or_default();
            *self = Found {
                from: pos,
                to: limit,
                at: find(rest).map(|i| pos + i),
            };
        }
        self.at.filter(|a| *a < limit)
    }
}

impl Specials {
    /// The first byte at or after `pos` and before `limit` that is a `<`, `>`,
    /// backtick or `~`.
    fn next(&mut self, bytes: &[u8], pos: usize, limit: usize) -> Option<usize> {
        let a = self
            .three
            .next(bytes, pos, limit, |b| memchr::memchr3(b'<', b'>', b'`', b));
        let b = self.tilde.next(bytes, pos, limit, |b| memchr::memchr(b'~', b));
        match (a, b) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

/// Whether each of `lines` (file lines) is loaded in full. Claude Code keeps at
/// most 200 processed lines; without a comment block or a frontmatter block the
/// processed line `k` is file line `s + k`, `s` the line of the first
/// non-blank character: a line at or past `s + 200` cannot be loaded, and the
/// load is modelled only for an index where one may be.
fn loaded_of(bytes: &[u8], lines: &[usize], comment: bool) -> Vec<bool> {
    if lines.is_empty() {
        return Vec::new();
    }
    let body = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let plain = !body.starts_with(b"---") && !comment;
    if plain {
        // Any ASCII graphic byte is not blank: the first non-blank character is
        // at or before the first one.
        let s = body
            .iter()
            .position(u8::is_ascii_graphic)
            .map_or(usize::MAX, |i| 1 + crate::text::count_byte(&body[..i], b'\n'));
        if lines.iter().all(|l| *l >= s.saturating_add(super::load::MAX_LINES)) {
            return vec![false; lines.len()];
        }
    }
    let kept = super::load::loaded_lines(bytes);
    lines.iter().map(|l| kept.binary_search(l).is_ok()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A xorshift64 stream from `seed`: the random tests' inputs, the same each run.
    fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
        move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        }
    }

    /// The reference: every link of the whole text, and the load of the whole text.
    fn full(bytes: &[u8], local: &str) -> Linked {
        let text = String::from_utf8_lossy(bytes);
        let mut lines: Vec<usize> = super::super::extract_links(&text)
            .iter()
            .filter(|l| l.memory_target() == Some(local))
            .map(|l| l.line)
            .collect();
        lines.dedup();
        let kept = super::super::load::loaded_lines(bytes);
        let loaded = lines.iter().map(|l| kept.binary_search(l).is_ok()).collect();
        Linked { lines, loaded }
    }

    fn agree(text: &[u8], locals: &[&str]) {
        for local in locals {
            assert_eq!(
                linking_in(text, local),
                full(text, local),
                "{local} in {:?}",
                String::from_utf8_lossy(text)
            );
        }
    }

    #[test]
    fn the_searched_lines_answer_as_the_whole_parse() {
        let index = "# Index\n- [A](a.md) — a\n- [B](./b.md) — b and [A again](sub/../a.md)\n<!-- - [C](c.md) hidden\n-->\n```\n- [D](d.md) in a fence\n```\n- [D](d.md#frag) — d\n`[E](e.md)` in code, [E2](%65.md) encoded\n[f]: f.md\n- [G](sub/g%20h.md) — g\n- [G2](<sub/g h.md>) — g2\n- [X](sub/a.md)\n~~~\n- [a](a.md) tilde fence\n~~~~\n- [A3](a.md) <!-- open\n- [A4](a.md)\n--> - [A5](a.md) `x\n";
        let locals = [
            "a.md",
            "b.md",
            "c.md",
            "d.md",
            "e.md",
            "f.md",
            "sub/g h.md",
            "sub/a.md",
            "z.md",
        ];
        for text in [
            index.to_string(),
            index.replace('\n', "\r\n"),
            format!("\u{feff}{index}"),
            format!("---\nname: x\n---\n{index}"),
            index.replace("-->", "- ->"),
        ] {
            agree(text.as_bytes(), &locals);
            let mut bad = text.into_bytes();
            bad.splice(20..20, [0xff, 0xfe]);
            agree(&bad, &locals);
        }
    }

    #[test]
    fn lines_past_the_cut_and_in_the_head() {
        let many: String = (0..1000).map(|i| format!("- [M{i}](m{i}.md) — hook {i}\n")).collect();
        let twice = format!("{many}- [again](m5.md)\n- [M5 too](m5.md) [m6](m6.md)\n");
        let locals = ["m0.md", "m5.md", "m199.md", "m200.md", "m999.md", "m6.md"];
        for text in [
            many.clone(),
            twice.clone(),
            format!("\n\n  \n{twice}"),
            format!("\u{feff}\u{a0}\n\n{twice}"),
            format!("<!-- c\n{} -->\n{twice}", "x\n".repeat(300)),
            format!("---\n{}---\n{twice}", "k: v\n".repeat(300)),
            format!("- [L](long.md) {}\n{twice}", "x".repeat(30_000)),
            twice.replace('\n', "\r\n"),
        ] {
            agree(text.as_bytes(), &locals);
        }
        let l = linking_in(twice.as_bytes(), "m5.md");
        assert_eq!((l.lines, l.loaded), (vec![6, 1001, 1002], vec![true, false, false]));
    }

    /// Indexes of random lines from pieces that open and close fences, comments
    /// and code spans around links to the same file.
    #[test]
    fn random_indexes_answer_as_the_whole_parse() {
        const PIECES: [&str; 16] = [
            "- [A](a.md) — a",
            "```",
            "~~~",
            "<!--",
            "-->",
            "`",
            "[B](sub/../a.md)",
            "x <!-- y --> z",
            "   ```js",
            "[c]: a.md",
            "%61.md [E](%61.md)",
            "\r",
            "",
            "---",
            "\u{feff}",
            "[D](<a.md>) `[F](a.md)`",
        ];
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        for _ in 0..400 {
            let n = 1 + (next() % 12) as usize;
            let text: String = (0..n)
                .map(|_| {
                    let k = 1 + (next() % 3) as usize;
                    let line: String = (0..k)
                        .map(|_| PIECES[(next() % 16) as usize])
                        .collect::<Vec<_>>()
                        .join(" ");
                    format!("{line}\n")
                })
                .collect();
            agree(text.as_bytes(), &["a.md", "sub/a.md"]);
        }
    }

    /// `linking` on a file: the index read in pieces (its sparse lines, or read
    /// whole again when the load must be modelled) answers as the whole parse.
    fn agree_on_file(text: &[u8], locals: &[&str]) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("MEMORY.md");
        std::fs::write(&path, text).unwrap();
        // `full`, with the parse and the load done once.
        let links = super::super::extract_links(&String::from_utf8_lossy(text));
        let kept = super::super::load::loaded_lines(text);
        for local in locals {
            let mut lines: Vec<usize> = links
                .iter()
                .filter(|l| l.memory_target() == Some(*local))
                .map(|l| l.line)
                .collect();
            lines.dedup();
            let loaded = lines.iter().map(|l| kept.binary_search(l).is_ok()).collect();
            assert_eq!(
                linking(&path, local),
                Some(Linked { lines, loaded }),
                "{local} in a {}-byte index",
                text.len()
            );
        }
    }

    #[test]
    fn an_index_read_in_pieces_answers_as_the_whole_parse() {
        let filler: String = (0..2600).map(|i| format!("- [F{i}](f{i}.md) — filler {i}\n")).collect();
        let tail = "- [A](a.md) — a\n- [B](./b.md) [A2](sub/../a.md)\n<!-- - [C](c.md) hidden\n-->\n```\n- [D](d.md)\n```\n- [D](d.md#x)\n`[E](e.md)` [E2](%65.md)\n[f]: f.md\n- [G](<sub/g h.md>)\n~~~\n- [a](a.md)\n~~~~\n- [A3](a.md) <!-- open\n- [A4](a.md)\n--> - [A5](a.md) `x\n- [F7](f7.md)";
        let locals = [
            "a.md",
            "b.md",
            "c.md",
            "d.md",
            "e.md",
            "f.md",
            "sub/g h.md",
            "f7.md",
            "f2599.md",
            "z.md",
        ];
        let long = "y".repeat(140_000);
        for text in [
            format!("{filler}{tail}"),
            format!("{filler}{tail}\n"),
            format!("\u{feff}{filler}{tail}"),
            format!("\u{feff}- [A](a.md) `\n{filler}{tail}"),
            format!("---\nname: x\n---\n{filler}{tail}"),
            format!("<!-- c\n-->\n{filler}- [A](a.md)\n"),
            format!("```\n{filler}```\n- [A](a.md) x\n"),
            format!("{filler}- [A](a.md) {long}\n- [A](a.md)\n{long}"),
            format!("{long}\n{filler}- [A](a.md)\n"),
            format!("\n\n{filler}{tail}").replace('\n', "\r\n"),
            format!("{filler}- [A](a.md)\n").replace("f1.md", "a.md"),
            "\n".repeat(100_000) + "- [A](a.md)\n",
        ] {
            agree_on_file(text.as_bytes(), &locals);
            let mut bad = text.into_bytes();
            bad.splice(70_000..70_000, [0xff, 0xfe, b'`']);
            agree_on_file(&bad, &locals);
        }
    }

    /// Random lines that open and close fences and comments, spread over an
    /// index of several pieces (so they fall on the pieces' edges).
    #[test]
    fn random_indexes_read_in_pieces_answer_as_the_whole_parse() {
        const PIECES: [&str; 10] = [
            "- [A](a.md) — a",
            "```",
            "~~~",
            "<!--",
            "-->",
            "`[B](sub/../a.md)`",
            "%61.md [E](%61.md)",
            "\r",
            "",
            "\u{feff}",
        ];
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        for i in 0..12 {
            let mut text = String::new();
            while text.len() < 200_000 {
                let k = (next() % 2000) as usize;
                text.push_str(&"- [F](f.md) — filler line\n".repeat(k));
                text.push_str(PIECES[(next() % 10) as usize]);
                text.push_str(PIECES[(next() % 10) as usize]);
                text.push('\n');
            }
            if i % 2 == 1 {
                // No comment: the sparse lines answer alone.
                text = text.replace("<!--", "<!-x");
            }
            agree_on_file(text.as_bytes(), &["a.md", "sub/a.md", "f.md"]);
        }
    }

    #[test]
    fn no_index_links_nothing() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(linking(&dir.path().join("MEMORY.md"), "a.md"), Some(Linked::default()));
        assert_eq!(linking(&dir.path().join("MEMORY.md"), "a\\b.md"), None);
        std::fs::create_dir(dir.path().join("MEMORY.md")).unwrap();
        assert_eq!(linking(&dir.path().join("MEMORY.md"), "a.md"), Some(Linked::default()));
    }
}
