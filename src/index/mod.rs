//! `MEMORY.md` as an index (SPEC §2.9): the links it holds, with their lines, and
//! which memory files they point to.

pub mod backfill;
pub mod check;
pub mod edit;
pub mod load;
pub mod one;
pub mod place;
pub mod rebuild;
pub mod report;

use crate::paths::validate::normalize;

/// Read an index file memctl found itself (SPEC §2.5 step 8): a regular file only,
/// never opened otherwise (a FIFO blocks, `/dev/zero` never ends), at most 256 MiB.
pub fn read_index(path: &std::path::Path) -> Result<Vec<u8>, crate::fsread::ReadError> {
    crate::fsread::read_regular(path, check::MAX_INDEX_BYTES)
}

/// [`read_index`] as text (lossily decoded), empty when it cannot be read.
pub fn read_index_text(path: &std::path::Path) -> String {
    // Valid UTF-8 (the usual index) becomes the text without a copy.
    read_index(path)
        .map(|b| String::from_utf8(b).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
        .unwrap_or_default()
}

/// Where a link points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A URI with a scheme (`https:`, `mailto:`…): ignored.
    External,
    /// Absolute, or leaving the index's directory after normalization (lint ML202).
    Outside(String),
    /// A path inside the index's directory, normalized, `/`-separated.
    Inside(String),
}

/// One link of the index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Link {
    /// 1-based line number in the file.
    pub line: usize,
    /// 1-based column in chars.
    pub col: usize,
    /// The destination as written.
    pub dest: String,
    pub target: Target,
}

impl Link {
    /// A link whose normalized destination ends in `.md` (case-insensitive).
    pub fn is_memory_link(&self) -> bool {
        let path = match &self.target {
            Target::Inside(p) | Target::Outside(p) => p,
            Target::External => return false,
        };
        path.len() >= 3 && path.as_bytes()[path.len() - 3..].eq_ignore_ascii_case(b".md")
    }

    /// The memory file (relative to the index's dir) this link points to, if inside.
    pub fn memory_target(&self) -> Option<&str> {
        match &self.target {
            Target::Inside(p) if self.is_memory_link() => Some(p),
            _ => None,
        }
    }
}

/// The lines of an index: BOM removed, LF-split, one trailing CR removed.
pub fn lines(text: &str) -> Vec<&str> {
    crate::frontmatter::scan_lines(text)
}

/// Every inline link and reference definition outside code and closed comments.
pub fn extract_links(text: &str) -> Vec<Link> {
    let mut links = Vec::new();
    for_each_link(text, |l| links.push(l));
    links
}

/// [`extract_links`] one link at a time, in order: the links are never held together.
pub fn for_each_link(text: &str, mut f: impl FnMut(Link)) {
    let b = text.as_bytes();
    if !memchr::memchr_iter(b']', b).any(|k| matches!(b.get(k + 1), Some(b'(' | b':'))) {
        return;
    }
    let mut links = Vec::new();
    let mut scratch = (LinkScan::default(), Vec::new());
    masked_lines(text, |n, line, masked, _| {
        find_links(line, masked, n, &mut links, &mut scratch);
        links.drain(..).for_each(&mut f);
    });
}

/// Walk the index's lines (BOM removed, one trailing CR dropped) with code fences,
/// closed HTML comments and code spans blanked out (NUL bytes), byte positions
/// kept (all the syntax is ASCII). `f` gets the 1-based line number, the line, the
/// masked bytes and what was blanked. Linear in the text: each search either
/// moves the position past what it found or is answered from a per-line table.
fn masked_lines(text: &str, mut f: impl FnMut(usize, &str, &[u8], LineKind)) {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    // A `<!--` is a comment only if some `-->` follows it.
    let last_close = memchr::memmem::rfind(text.as_bytes(), b"-->");
    let mut masker = Masker::default();
    let mut offset = 0;
    for (li, raw) in text.split('\n').enumerate() {
        let line_end = offset + raw.len();
        offset = line_end + 1;
        masker.line(li + 1, raw, last_close.is_some_and(|c| c > line_end), &mut f);
    }
}

/// The state [`masked_lines`] carries from line to line: an open fence, an open
/// comment, and the masked copy of the line (one buffer for all lines).
#[derive(Default)]
struct Masker {
    fence: Option<(u8, usize)>,
    in_comment: bool,
    out: Vec<u8>,
}

impl Masker {
    /// Mask line `number` (`raw`, LF removed) and pass it to `f`; `later_close` tells
    /// whether some `-->` starts on a later line.
    fn line(&mut self, number: usize, raw: &str, later_close: bool, f: &mut impl FnMut(usize, &str, &[u8], LineKind)) {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        let orig = line.as_bytes();
        self.out.clear();
        self.out.extend_from_slice(orig);
        let mut kind = LineKind::default();
        if let Some((ch, len)) = self.fence {
            if fence_marker(orig)
                .is_some_and(|(c, n, rest)| c == ch && n >= len && rest.iter().all(u8::is_ascii_whitespace))
            {
                self.fence = None;
            }
            self.out.fill(0);
            kind.code = true;
            f(number, line, &self.out, kind);
            return;
        }
        if !self.in_comment
            && let Some((c, n, rest)) = fence_marker(orig)
            && !(c == b'`' && rest.contains(&b'`'))
        {
            self.fence = Some((c, n));
            self.out.fill(0);
            kind.code = true;
            f(number, line, &self.out, kind);
            return;
        }
        // Some `-->` starts at or after p iff the line's last one does.
        // Looked up once per line, and only on a line that opens a comment.
        let mut line_last_close: Option<Option<usize>> = None;
        let mut runs: Option<BacktickRuns> = None;
        let mut i = 0;
        while i < orig.len() {
            if self.in_comment {
                kind.comment = true;
                match find(orig, i, b"-->") {
                    Some(end) => {
                        self.out[i..end + 3].fill(0);
                        i = end + 3;
                        self.in_comment = false;
                    }
                    None => {
                        self.out[i..].fill(0);
                        i = orig.len();
                    }
                }
                continue;
            }
            if orig[i..].starts_with(b"<!--") {
                let line_close = *line_last_close.get_or_insert_with(|| line.rfind("-->"));
                let closes = line_close.is_some_and(|c| c >= i + 4) || later_close;
                if closes {
                    self.out[i..i + 4].fill(0);
                    kind.comment = true;
                    i += 4;
                    self.in_comment = true;
                    continue;
                }
            }
            if orig[i] == b'`' {
                let n = orig[i..].iter().take_while(|c| **c == b'`').count();
                let runs = runs.get_or_insert_with(|| BacktickRuns::new(orig));
                match runs.next(i + n, n) {
                    Some(end) => {
                        self.out[i..end + n].fill(0);
                        i = end + n;
                    }
                    None => i += n,
                }
                continue;
            }
            // Nothing else starts a masked span: jump to the next `<` or backtick.
            i = memchr::memchr2(b'<', b'`', &orig[i + 1..]).map_or(orig.len(), |k| i + 1 + k);
        }
        f(number, line, &self.out, kind);
    }
}

/// Each LF-separated line of `r` (LF removed; the last, empty after a final LF,
/// too), with its 0-based number and a BOM removed from the first, as
/// `text.split('\n')` gives them. Holds one line and a 64 KiB chunk at most.
/// `Ok(false)` when `r` holds more than `max` bytes.
fn for_each_line(r: &mut impl std::io::Read, max: u64, mut f: impl FnMut(usize, &[u8])) -> std::io::Result<bool> {
    let mut buf = vec![0u8; 64 << 10];
    let (mut filled, mut total, mut li) = (0, 0u64, 0);
    let mut emit = |li: &mut usize, line: &[u8]| {
        let line = if *li == 0 {
            line.strip_prefix(b"\xef\xbb\xbf").unwrap_or(line)
        } else {
            line
        };
        f(*li, line);
        *li += 1;
    };
    loop {
        if filled == buf.len() {
            // A line longer than the buffer.
            buf.resize(2 * buf.len(), 0);
        }
        let n = match r.read(&mut buf[filled..]) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if n == 0 {
            break;
        }
        total += n as u64;
        if total > max {
            return Ok(false);
        }
        // The bytes before `filled` hold no LF: they are the start of a line.
        let old = filled;
        filled += n;
        let mut start = 0;
        for lf in memchr::memchr_iter(b'\n', &buf[old..filled]) {
            emit(&mut li, &buf[start..old + lf]);
            start = old + lf + 1;
        }
        buf.copy_within(start..filled, 0);
        filled -= start;
    }
    emit(&mut li, &buf[..filled]);
    Ok(true)
}

/// [`extract_links`] on an index read in chunks (two passes: the first finds the
/// last line with a `-->`, which decides whether a `<!--` opens a comment), so
/// only a line and a chunk are held, however large the index. `f` gets each link
/// in order. `Ok(false)` when the index is not UTF-8 or larger than `max` (decode
/// it whole then, with [`extract_links`]); the links given so far are void then.
pub fn stream_links<R: std::io::Read + std::io::Seek>(
    r: &mut R,
    max: u64,
    f: impl FnMut(&Link),
) -> std::io::Result<bool> {
    stream_links_where(r, max, |_| true, f)
}

/// [`stream_links`] of only the lines `may_link` keeps: the others still go
/// through the masker (comments and fences span lines), but no link is looked
/// for in them. `may_link` must keep every line holding a link the caller wants
/// (a link never spans lines).
pub fn stream_links_where<R: std::io::Read + std::io::Seek>(
    r: &mut R,
    max: u64,
    may_link: impl Fn(&str) -> bool,
    mut f: impl FnMut(&Link),
) -> std::io::Result<bool> {
    let (mut valid, mut any, mut last_close) = (true, false, None);
    let read = for_each_line(r, max, |li, line| {
        valid &= std::str::from_utf8(line).is_ok();
        if memchr::memmem::find(line, b"-->").is_some() {
            last_close = Some(li);
        }
        any |= memchr::memchr_iter(b']', line).any(|k| matches!(line.get(k + 1), Some(b'(' | b':')));
    })?;
    if !read || !valid {
        return Ok(false);
    }
    if !any {
        return Ok(true);
    }
    r.seek(std::io::SeekFrom::Start(0))?;
    let mut masker = Masker::default();
    let mut links = Vec::new();
    let mut scratch = (LinkScan::default(), Vec::new());
    let read = for_each_line(r, max, |li, line| {
        // Changed since the first pass: `valid` voids the result.
        let Ok(line) = std::str::from_utf8(line) else {
            valid = false;
            return;
        };
        let later = last_close.is_some_and(|c| c > li);
        let wanted = may_link(line);
        masker.line(li + 1, line, later, &mut |n, line, masked, _| {
            if wanted {
                find_links(line, masked, n, &mut links, &mut scratch);
            }
        });
        for l in links.drain(..) {
            f(&l);
        }
    })?;
    Ok(read && valid)
}

/// What blanked part of a line out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct LineKind {
    /// A fence delimiter or a line inside fenced code.
    code: bool,
    /// Part of a closed HTML comment.
    comment: bool,
}

/// A fence opener/closer: up to 3 spaces, then 3 or more backticks or tildes.
fn fence_marker(line: &[u8]) -> Option<(u8, usize, &[u8])> {
    let indent = line.iter().take_while(|c| **c == b' ').count();
    if indent > 3 {
        return None;
    }
    let c = *line.get(indent)?;
    if c != b'`' && c != b'~' {
        return None;
    }
    let n = line[indent..].iter().take_while(|x| **x == c).count();
    (n >= 3).then_some((c, n, &line[indent + n..]))
}

fn find(line: &[u8], from: usize, pat: &[u8]) -> Option<usize> {
    line.get(from..)?
        .windows(pat.len())
        .position(|w| w == pat)
        .map(|p| p + from)
}

/// The maximal backtick runs of a line, by length: where a code span opened by a
/// run of `n` closes is the first run of exactly `n` after it, found by binary
/// search instead of a scan to the end of the line from every unmatched run.
struct BacktickRuns(std::collections::HashMap<usize, Vec<usize>>);

impl BacktickRuns {
    fn new(line: &[u8]) -> BacktickRuns {
        let mut by_len: std::collections::HashMap<usize, Vec<usize>> = std::collections::HashMap::new();
        let mut i = 0;
        while i < line.len() {
            if line[i] == b'`' {
                let run = line[i..].iter().take_while(|c| **c == b'`').count();
                by_len.entry(run).or_default().push(i);
                i += run;
            } else {
                i += 1;
            }
        }
        BacktickRuns(by_len)
    }

    /// The start of the first run of exactly `n` backticks at or after `from`
    /// (`from` is never inside a run: it follows one).
    fn next(&self, from: usize, n: usize) -> Option<usize> {
        let starts = self.0.get(&n)?;
        starts.get(starts.partition_point(|&s| s < from)).copied()
    }
}

/// One masked line read once, left to right, along the path an escape-aware scan
/// takes (a `\` and the byte after it are one step). Every scan memctl's link
/// syntax needs starts on that path (at the line's start or right after a byte
/// that is not `\`, where all such scans agree), so the tables answer them all:
/// each `[`'s matching `]`, where a destination ends, the next `)` and `>`.
/// Memory proportional to the bytes that matter, not to the line.
#[derive(Default)]
struct LinkScan {
    /// (`[` position, its matching `]`), by position; `None` when unmatched.
    brackets: Vec<(usize, Option<usize>)>,
    /// Unescaped whitespace and NUL: where an unbracketed destination stops.
    stops: Vec<usize>,
    /// Unescaped `(` and `)`: (position, depth after it), by position.
    parens: Vec<(usize, i64)>,
    /// Unescaped `)` by the depth before it: such a `)` closes a destination
    /// that started at that depth.
    closers: Vec<(i64, usize)>,
    /// Every `)` and `>`, escaped or not (the title and `<…>` searches ignore escapes).
    raw_close: Vec<usize>,
    raw_angle: Vec<usize>,
}

impl LinkScan {
    /// Fill the tables for `line`, reusing the buffers of the previous line (one
    /// allocation per buffer per index, not per line).
    fn fill(&mut self, line: &[u8], open: &mut Vec<usize>) {
        let s = self;
        s.brackets.clear();
        s.stops.clear();
        s.parens.clear();
        s.closers.clear();
        s.raw_close.clear();
        s.raw_angle.clear();
        open.clear();
        let mut depth = 0i64;
        let mut i = 0;
        while i < line.len() {
            let c = line[i];
            match c {
                b'\\' => {
                    // The escaped byte is skipped by the escape-aware path but
                    // still counts for the raw searches.
                    match line.get(i + 1) {
                        Some(b')') => s.raw_close.push(i + 1),
                        Some(b'>') => s.raw_angle.push(i + 1),
                        _ => {}
                    }
                    i += 2;
                    continue;
                }
                b'>' => s.raw_angle.push(i),
                0 => {
                    // A bracket is never matched across a NUL.
                    open.clear();
                    s.stops.push(i);
                }
                b'[' => {
                    open.push(s.brackets.len());
                    s.brackets.push((i, None));
                }
                b']' => {
                    if let Some(k) = open.pop() {
                        s.brackets[k].1 = Some(i);
                    }
                }
                b'(' => {
                    depth += 1;
                    s.parens.push((i, depth));
                }
                b')' => {
                    s.raw_close.push(i);
                    s.closers.push((depth, i));
                    depth -= 1;
                    s.parens.push((i, depth));
                }
                c if c.is_ascii_whitespace() => s.stops.push(i),
                _ => {}
            }
            i += 1;
        }
        // By depth, then position: one sorted run of positions per depth.
        s.closers.sort_unstable();
    }

    /// The `]` matching the `[` at `open`.
    fn matching_bracket(&self, open: usize) -> Option<usize> {
        let k = self.brackets.binary_search_by_key(&open, |b| b.0).ok()?;
        self.brackets[k].1
    }

    /// Where an unbracketed destination starting at `from` ends: the first stop, or
    /// the first `)` that brings the depth back below where it started.
    fn dest_end(&self, from: usize, len: usize) -> usize {
        let k = self.parens.partition_point(|p| p.0 < from);
        let depth = if k == 0 { 0 } else { self.parens[k - 1].1 };
        let k = self.closers.partition_point(|c| *c < (depth, from));
        let close = self.closers.get(k).filter(|c| c.0 == depth).map(|c| c.1);
        let stop = next_at(&self.stops, from);
        close.into_iter().chain(stop).min().unwrap_or(len)
    }
}

/// The first position in the sorted `v` at or after `from`.
fn next_at(v: &[usize], from: usize) -> Option<usize> {
    v.get(v.partition_point(|&p| p < from)).copied()
}

/// Links on one masked line; `orig` is the line's text for destinations and columns.
fn find_links(orig: &str, line: &[u8], number: usize, out: &mut Vec<Link>, scratch: &mut (LinkScan, Vec<usize>)) {
    if !line.contains(&b'[') {
        return;
    }
    let (scan, open) = scratch;
    scan.fill(line, open);
    let scan = &*scan;
    // Columns counted incrementally: links come left to right.
    let (mut counted, mut chars) = (0, 0);
    let mut i = 0;
    while i < line.len() {
        if line[i] == b'\\' {
            i += 2;
            continue;
        }
        if line[i] != b'[' || (i > 0 && line[i - 1] == b'!') {
            i += 1;
            continue;
        }
        let Some(close) = scan.matching_bracket(i) else {
            i += 1;
            continue;
        };
        let next = line.get(close + 1).copied();
        let dest = if next == Some(b'(') {
            parse_dest(scan, line, close + 2, true)
        } else if next == Some(b':') && i <= 3 && line[..i].iter().all(|c| *c == b' ') {
            parse_dest(scan, line, close + 2, false)
        } else {
            None
        };
        match dest {
            Some((a, b, end)) => {
                let dest = String::from_utf8_lossy(&orig.as_bytes()[a..b]).into_owned();
                if let Some(target) = classify(&dest) {
                    // `[` is ASCII in `orig` too, so `i` is a char boundary.
                    chars += orig.get(counted..i).map_or(0, |p| p.chars().count());
                    counted = i;
                    out.push(Link {
                        line: number,
                        col: chars + 1,
                        dest,
                        target,
                    });
                }
                i = end;
            }
            None => i += 1,
        }
    }
}

/// A link destination starting at `from`: its byte range and the index after the
/// link.
fn parse_dest(scan: &LinkScan, line: &[u8], from: usize, inline: bool) -> Option<(usize, usize, usize)> {
    let mut i = from;
    while i < line.len() && (line[i] == b' ' || line[i] == b'\t') {
        i += 1;
    }
    let (a, b);
    if line.get(i) == Some(&b'<') {
        let end = next_at(&scan.raw_angle, i + 1)?;
        (a, b) = (i + 1, end);
        i = end + 1;
    } else {
        let start = i;
        i = scan.dest_end(start, line.len());
        (a, b) = (start, i);
    }
    if inline {
        // Skip an optional title up to the closing parenthesis.
        let close = next_at(&scan.raw_close, i)?;
        return Some((a, b, close + 1));
    }
    Some((a, b, i))
}

/// The parser as it was before it was made linear (quadratic on long lines: every
/// `[` scanned forward for its `]`, every `](` to the end of the line): the
/// reference the property tests compare [`extract_links`] and [`comment_lines`] with.
#[cfg(test)]
pub(crate) mod reference {
    use super::{Link, classify};

    pub(crate) fn extract_links(text: &str) -> Vec<Link> {
        let mut links = Vec::new();
        let b = text.as_bytes();
        if !memchr::memchr_iter(b']', b).any(|k| matches!(b.get(k + 1), Some(b'(' | b':'))) {
            return links;
        }
        masked_lines(text, |n, line, masked, _| find_links(line, masked, n, &mut links));
        links
    }

    pub(crate) fn comment_lines(text: &str) -> Vec<bool> {
        let mut out = Vec::new();
        masked_lines(text, |_, line, masked, kind| {
            let blank = line
                .char_indices()
                .all(|(b, c)| masked.get(b) == Some(&0) || c.is_whitespace());
            out.push(kind.comment && blank)
        });
        out
    }

    /// Walk the index's lines (BOM removed, one trailing CR dropped) with code fences,
    /// closed HTML comments and code spans blanked out (NUL bytes), byte positions
    /// kept (all the syntax is ASCII). `f` gets the 1-based line number, the line, the
    /// masked bytes and what was blanked.
    fn masked_lines(text: &str, mut f: impl FnMut(usize, &str, &[u8], LineKind)) {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        // A `<!--` is a comment only if some `-->` follows it.
        let last_close = memchr::memmem::rfind(text.as_bytes(), b"-->");
        let mut fence: Option<(u8, usize)> = None;
        let mut in_comment = false;
        let mut out: Vec<u8> = Vec::new();
        let mut offset = 0;
        for (li, raw) in text.split('\n').enumerate() {
            let line_end = offset + raw.len();
            offset = line_end + 1;
            let line = raw.strip_suffix('\r').unwrap_or(raw);
            let orig = line.as_bytes();
            out.clear();
            out.extend_from_slice(orig);
            let mut kind = LineKind::default();
            if let Some((ch, len)) = fence {
                if fence_marker(orig)
                    .is_some_and(|(c, n, rest)| c == ch && n >= len && rest.iter().all(u8::is_ascii_whitespace))
                {
                    fence = None;
                }
                out.fill(0);
                kind.code = true;
                f(li + 1, line, &out, kind);
                continue;
            }
            if !in_comment
                && let Some((c, n, rest)) = fence_marker(orig)
                && !(c == b'`' && rest.contains(&b'`'))
            {
                fence = Some((c, n));
                out.fill(0);
                kind.code = true;
                f(li + 1, line, &out, kind);
                continue;
            }
            let mut i = 0;
            while i < orig.len() {
                if in_comment {
                    kind.comment = true;
                    match find(orig, i, b"-->") {
                        Some(end) => {
                            out[i..end + 3].fill(0);
                            i = end + 3;
                            in_comment = false;
                        }
                        None => {
                            out[i..].fill(0);
                            i = orig.len();
                        }
                    }
                    continue;
                }
                if orig[i..].starts_with(b"<!--") {
                    let closes = find(orig, i + 4, b"-->").is_some() || last_close.is_some_and(|c| c > line_end);
                    if closes {
                        out[i..i + 4].fill(0);
                        kind.comment = true;
                        i += 4;
                        in_comment = true;
                        continue;
                    }
                }
                if orig[i] == b'`' {
                    let n = orig[i..].iter().take_while(|c| **c == b'`').count();
                    match find_backtick_run(orig, i + n, n) {
                        Some(end) => {
                            out[i..end + n].fill(0);
                            i = end + n;
                        }
                        None => i += n,
                    }
                    continue;
                }
                i += 1;
            }
            f(li + 1, line, &out, kind);
        }
    }

    /// What blanked part of a line out.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    struct LineKind {
        /// A fence delimiter or a line inside fenced code.
        code: bool,
        /// Part of a closed HTML comment.
        comment: bool,
    }

    /// A fence opener/closer: up to 3 spaces, then 3 or more backticks or tildes.
    fn fence_marker(line: &[u8]) -> Option<(u8, usize, &[u8])> {
        let indent = line.iter().take_while(|c| **c == b' ').count();
        if indent > 3 {
            return None;
        }
        let c = *line.get(indent)?;
        if c != b'`' && c != b'~' {
            return None;
        }
        let n = line[indent..].iter().take_while(|x| **x == c).count();
        (n >= 3).then_some((c, n, &line[indent + n..]))
    }

    fn find(line: &[u8], from: usize, pat: &[u8]) -> Option<usize> {
        line.get(from..)?
            .windows(pat.len())
            .position(|w| w == pat)
            .map(|p| p + from)
    }

    fn find_backtick_run(line: &[u8], from: usize, n: usize) -> Option<usize> {
        let mut i = from;
        while i < line.len() {
            if line[i] == b'`' {
                let run = line[i..].iter().take_while(|c| **c == b'`').count();
                if run == n {
                    return Some(i);
                }
                i += run;
            } else {
                i += 1;
            }
        }
        None
    }

    /// Links on one masked line; `orig` is the line's text for destinations and columns.
    fn find_links(orig: &str, line: &[u8], number: usize, out: &mut Vec<Link>) {
        let mut i = 0;
        while i < line.len() {
            if line[i] == b'\\' {
                i += 2;
                continue;
            }
            if line[i] != b'[' || (i > 0 && line[i - 1] == b'!') {
                i += 1;
                continue;
            }
            let Some(close) = matching_bracket(line, i) else {
                i += 1;
                continue;
            };
            let next = line.get(close + 1).copied();
            let dest = if next == Some(b'(') {
                parse_dest(line, close + 2, true)
            } else if next == Some(b':') && line[..i].iter().all(|c| *c == b' ') && i <= 3 {
                parse_dest(line, close + 2, false)
            } else {
                None
            };
            match dest {
                Some((a, b, end)) => {
                    let dest = String::from_utf8_lossy(&orig.as_bytes()[a..b]).into_owned();
                    if let Some(target) = classify(&dest) {
                        let col = orig.get(..i).map_or(i, |p| p.chars().count()) + 1;
                        out.push(Link {
                            line: number,
                            col,
                            dest,
                            target,
                        });
                    }
                    i = end;
                }
                None => i += 1,
            }
        }
    }

    fn matching_bracket(line: &[u8], open: usize) -> Option<usize> {
        let mut depth = 0;
        let mut i = open;
        while i < line.len() {
            match line[i] {
                b'\\' => i += 1,
                0 => return None,
                b'[' => depth += 1,
                b']' => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(i);
                    }
                }
                _ => {}
            }
            i += 1;
        }
        None
    }

    /// A link destination starting at `from`: its byte range and the index after the
    /// link.
    fn parse_dest(line: &[u8], from: usize, inline: bool) -> Option<(usize, usize, usize)> {
        let mut i = from;
        while i < line.len() && (line[i] == b' ' || line[i] == b'\t') {
            i += 1;
        }
        let (a, b);
        if line.get(i) == Some(&b'<') {
            let end = (i + 1..line.len()).find(|&j| line[j] == b'>')?;
            (a, b) = (i + 1, end);
            i = end + 1;
        } else {
            let start = i;
            let mut depth = 0i32;
            while i < line.len() {
                let c = line[i];
                if c.is_ascii_whitespace() || c == 0 {
                    break;
                }
                if c == b'\\' {
                    i += 2;
                    continue;
                }
                if c == b'(' {
                    depth += 1;
                } else if c == b')' {
                    if depth == 0 {
                        break;
                    }
                    depth -= 1;
                }
                i += 1;
            }
            i = i.min(line.len());
            (a, b) = (start, i);
        }
        if inline {
            // Skip an optional title up to the closing parenthesis.
            let close = (i..line.len()).find(|&j| line[j] == b')')?;
            return Some((a, b, close + 1));
        }
        Some((a, b, i))
    }
}

/// Classify a destination (SPEC §2.9 step 4); `None` for an empty one.
fn classify(dest: &str) -> Option<Target> {
    resolve_dest(dest, "")
}

/// Classify a destination written in a file whose directory is `base` (relative
/// to the memory dir, `""` for the dir itself).
pub fn resolve_dest(dest: &str, base: &str) -> Option<Target> {
    let cut = dest.find(['#', '?']).map_or(dest, |p| &dest[..p]);
    if cut.is_empty() {
        return None;
    }
    if let Some(p) = cut.find(':')
        && p >= 2
        && cut.as_bytes()[0].is_ascii_alphabetic()
        && cut[..p]
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'.' || b == b'-')
    {
        return Some(Target::External);
    }
    // A backslash is a separator (a Windows-style link); an encoded one (`%5C`,
    // what memctl writes for a file name holding one) is part of the name.
    let decoded = percent_decode(&cut.replace('\\', "/"));
    let b = decoded.as_bytes();
    if decoded.starts_with('/') || (b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':') {
        return Some(Target::Outside(decoded));
    }
    let joined = if base.is_empty() {
        decoded
    } else {
        format!("{base}/{decoded}")
    };
    let n = normalize(&joined);
    if n == ".." || n.starts_with("../") {
        return Some(Target::Outside(n));
    }
    Some(Target::Inside(n.trim_start_matches("./").to_string()))
}

/// Lines (0-based) that hold nothing but (parts of) closed HTML comments.
pub fn comment_lines(text: &str) -> Vec<bool> {
    let mut out = Vec::new();
    masked_lines(text, |_, line, masked, kind| {
        // Only comment bytes (NUL) and whitespace remain.
        let blank = line
            .char_indices()
            .all(|(b, c)| masked.get(b) == Some(&0) || c.is_whitespace());
        out.push(kind.comment && blank)
    });
    out
}

/// Percent-decoding; invalid UTF-8 results are decoded lossily.
pub fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && let (Some(h), Some(l)) = ((b[i + 1] as char).to_digit(16), (b[i + 2] as char).to_digit(16))
        {
            out.push((h * 16 + l) as u8);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Index lines longer than this are shortened (memctl choice, after Claude Code's
/// "under ~150 characters").
pub const MAX_ENTRY_CHARS: usize = 150;

/// `[`, `]` and `\` escaped for link text.
fn escape_title(t: &str) -> String {
    let mut s = String::new();
    for c in t.chars() {
        if matches!(c, '[' | ']' | '\\') {
            s.push('\\');
        }
        s.push(c);
    }
    s
}

/// Space, `#`, `?`, `%`, `(`, `)`, `<`, `>`, `\` and control characters (a newline or
/// tab in a file name would break the line) percent-encoded (UTF-8, upper-case hex).
pub fn encode_file(f: &str) -> String {
    let mut s = String::new();
    for c in f.chars() {
        if matches!(c, ' ' | '#' | '?' | '%' | '(' | ')' | '<' | '>' | '\\') || c.is_control() {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                s.push_str(&format!("%{b:02X}"));
            }
        } else {
            s.push(c);
        }
    }
    s
}

/// Cut `text` for a line that fits when `text` has at most `n` chars plus `…`:
/// before the last space among chars max(2, n−29)..=n+1 (1-based), else after
/// char max(1, n).
pub(crate) fn shorten(text: &str, n: usize) -> String {
    let chars: Vec<char> = text.chars().collect();
    let lo = 2.max(n.saturating_sub(29));
    let hi = (n + 1).min(chars.len());
    let cut = (lo..=hi)
        .rev()
        .find(|k| chars.get(k - 1) == Some(&' '))
        .map_or(1.max(n).min(chars.len()), |k| k - 1);
    let mut s: String = chars[..cut].iter().collect();
    s.push('…');
    s
}

/// The canonical index line `- [title](file) — hook` (SPEC §3.6), kept within 150
/// chars by shortening the hook, then the title. The flag is true when the line
/// is still too long (the file name alone is). A memory without a description
/// gets its title (its name, else its file stem) as the hook, never a bare
/// trailing dash (SPEC v3 §3.14).
pub fn render_entry(title: &str, file: &str, hook: &str) -> (String, bool) {
    let line = |t: &str, h: &str| format!("- [{}]({}) — {h}", escape_title(t), encode_file(file));
    let len = |s: &str| s.chars().count();
    let mut hook = match hook.trim() {
        "" if title.trim().is_empty() => {
            let base = file.rsplit('/').next().unwrap_or(file);
            base.strip_suffix(".md").unwrap_or(base).to_string()
        }
        "" => title.trim().to_string(),
        h => h.to_string(),
    };
    let mut title = title.to_string();
    if len(&line(&title, &hook)) > MAX_ENTRY_CHARS {
        let fixed = len(&line(&title, ""));
        let n = MAX_ENTRY_CHARS.saturating_sub(fixed + 1);
        hook = shorten(&hook, n);
    }
    if len(&line(&title, &hook)) > MAX_ENTRY_CHARS {
        let fixed = len(&line("", &hook));
        let escapes = len(&escape_title(&title)) - len(&title);
        let n = MAX_ENTRY_CHARS.saturating_sub(fixed + 1 + escapes);
        title = shorten(&title, n);
    }
    let out = line(&title, &hook);
    let too_long = len(&out) > MAX_ENTRY_CHARS;
    (out, too_long)
}

#[cfg(test)]
mod tests {
    /// Found by the property tests: the `.md` check sliced inside a char.
    #[test]
    fn link_ending_in_a_multibyte_char_is_not_a_memory_link() {
        let links = super::extract_links("- [x](aѨ)\n- [y](aѨ.MD)\n");
        assert_eq!(links.len(), 2);
        assert!(!links[0].is_memory_link());
        assert_eq!(links[1].memory_target(), Some("aѨ.MD"));
    }

    use super::*;

    fn targets(text: &str) -> Vec<(usize, Option<String>)> {
        extract_links(text)
            .iter()
            .map(|l| (l.line, l.memory_target().map(str::to_string)))
            .collect()
    }

    #[test]
    fn canonical_bold_and_emoji_lines() {
        let text =
            "# Index\n- [Title](a.md) — hook\n- **[B](b.md)** — hook\n- 🔔 **[C](sub/c.md)** — x\n- [d.md](d.md)\n";
        assert_eq!(
            targets(text),
            vec![
                (2, Some("a.md".into())),
                (3, Some("b.md".into())),
                (4, Some("sub/c.md".into())),
                (5, Some("d.md".into()))
            ]
        );
    }

    #[test]
    fn code_and_comments_are_ignored() {
        let text = "```\n- [A](a.md)\n```\n<!-- - [B](b.md)\nmore -->\n`[C](c.md)` [D](d.md)\n";
        assert_eq!(targets(text), vec![(6, Some("d.md".into()))]);
    }

    #[test]
    fn unclosed_comment_is_not_ignored() {
        assert_eq!(targets("<!-- open\n- [A](a.md)\n"), vec![(2, Some("a.md".into()))]);
    }

    #[test]
    fn images_externals_and_fragments() {
        let text = "![img](x.md) [w](https://x.md) [f](a.md#sec) [q](b.md?x=1) [p](my%20file.md) [o](../up.md) [abs](/etc/x.md) [dot](./c.MD)\n";
        let links = extract_links(text);
        let t: Vec<_> = links.iter().map(|l| l.target.clone()).collect();
        assert_eq!(
            t,
            vec![
                Target::External,
                Target::Inside("a.md".into()),
                Target::Inside("b.md".into()),
                Target::Inside("my file.md".into()),
                Target::Outside("../up.md".into()),
                Target::Outside("/etc/x.md".into()),
                Target::Inside("c.MD".into()),
            ]
        );
        assert!(links[6].is_memory_link());
    }

    #[test]
    fn reference_definitions_and_angle_brackets() {
        assert_eq!(
            targets("[a]: ref.md\n[b](<with space.md> \"title\")\n"),
            vec![(1, Some("ref.md".into())), (2, Some("with space.md".into()))]
        );
    }

    #[test]
    fn crlf_and_wikilinks() {
        assert_eq!(
            targets("- [A](a.md) — x\r\n[[wiki]]\r\n"),
            vec![(1, Some("a.md".into()))]
        );
    }

    #[test]
    fn comment_lines_cover_closed_comments_only() {
        let text = "a\n<!-- x\ny -->\n```\ncode\n```\n<!-- open\nz";
        assert_eq!(
            comment_lines(text),
            vec![false, true, true, false, false, false, false, false]
        );
    }

    #[test]
    fn entries_are_canonical_escaped_and_short() {
        assert_eq!(
            render_entry(
                "Testing policy",
                "feedback_testing_policy.md",
                "Integration tests hit a real DB"
            )
            .0,
            "- [Testing policy](feedback_testing_policy.md) — Integration tests hit a real DB"
        );
        assert_eq!(
            render_entry("a [b] \\c", "my file (1).md", "h").0,
            "- [a \\[b\\] \\\\c](my%20file%20%281%29.md) — h"
        );
        let hook = "word ".repeat(60);
        let (line, long) = render_entry("T", "t.md", hook.trim());
        assert!(!long);
        assert!(line.chars().count() <= MAX_ENTRY_CHARS, "{line}");
        assert!(line.ends_with("word…"), "{line}");
        let (line, long) = render_entry(&"title ".repeat(40), "t.md", "h");
        assert!(!long && line.chars().count() <= MAX_ENTRY_CHARS, "{line}");
        let (_, long) = render_entry("T", &format!("{}.md", "f".repeat(200)), "h");
        assert!(long);
    }

    /// SPEC v3 §3.14: no bare trailing dash for a memory without a description.
    #[test]
    fn an_entry_without_a_hook_uses_the_title_then_the_file_stem() {
        assert_eq!(
            render_entry("no-desc", "feedback_nodesc.md", "").0,
            "- [no-desc](feedback_nodesc.md) — no-desc"
        );
        assert_eq!(
            render_entry("", "team/feedback_nodesc.md", "  ").0,
            "- [](team/feedback_nodesc.md) — feedback_nodesc"
        );
    }

    #[test]
    fn columns_are_one_based_chars() {
        let links = extract_links("é [A](a.md)");
        assert_eq!(links[0].col, 3);
    }

    /// Reads at most 7 bytes at a time: every chunk boundary falls inside lines.
    struct Trickle(std::io::Cursor<Vec<u8>>);

    impl std::io::Read for Trickle {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = buf.len().min(7);
            self.0.read(&mut buf[..n])
        }
    }

    impl std::io::Seek for Trickle {
        fn seek(&mut self, to: std::io::SeekFrom) -> std::io::Result<u64> {
            self.0.seek(to)
        }
    }

    fn streamed(bytes: &[u8], trickle: bool) -> Option<Vec<Link>> {
        let mut links = Vec::new();
        let ok = if trickle {
            stream_links(&mut Trickle(std::io::Cursor::new(bytes.to_vec())), 1 << 30, |l| {
                links.push(l.clone())
            })
        } else {
            stream_links(&mut std::io::Cursor::new(bytes), 1 << 30, |l| links.push(l.clone()))
        };
        ok.unwrap().then_some(links)
    }

    #[test]
    fn streamed_links_are_the_whole_text_links() {
        let long = format!("- [L](l.md) {}[M](m.md)\n", "x".repeat(200_000));
        let texts = [
            "",
            "\n",
            "- [A](a.md)",
            "\u{feff}- [A](a.md)\r\n- [B](b.md)\r\n",
            "```\n- [A](a.md)\n```\n<!-- - [B](b.md)\nmore -->\n`[C](c.md)` [D](d.md)\n",
            "<!-- open\n- [A](a.md)\n",
            "<!-- a --> [A](a.md) <!-- b\n[B](b.md)\n-->\n[C](c.md) <!-- c\n[D](d.md)\n",
            "[ref]: r.md\n   [r2]: <r 2.md>\n[x](y.md \"t\") [z](<w (1).md>)\n",
            "é [A](a.md)\n\n\n[B](b.md)\n",
            long.as_str(),
        ];
        for text in texts {
            let whole = extract_links(text);
            assert_eq!(streamed(text.as_bytes(), false).as_ref(), Some(&whole), "{text:?}");
            assert_eq!(streamed(text.as_bytes(), true).as_ref(), Some(&whole), "{text:?}");
        }
        // Not UTF-8, or larger than the bound: declined (decoded whole instead).
        assert_eq!(streamed(b"- [A](a.md)\n\xff\n", false), None);
        let mut c = std::io::Cursor::new(b"- [A](a.md)\n".to_vec());
        assert!(!stream_links(&mut c, 5, |_| {}).unwrap());
    }
}
