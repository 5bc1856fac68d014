//! The load of a large index modelled from a stream: the head of the processed
//! text (all the cut of §2.7.1 can depend on) is kept, the rest only counted, and
//! the result is that of the whole-text model.

use super::truncate::{cut_units, dropped_lines, next_line};
use super::{Dropped, Load, MAX_LINES, MAX_UNITS, Mapped, is_js_blank, may_open_frontmatter, strip_cr};
use crate::text::{count_byte, is_js_space, utf16_len};

/// A load modelled from a stream (see [`load_stream`]).
pub struct Streamed {
    /// The load; `dropped` holds only the first `quote_limit` entries.
    pub load: Load,
    /// How many entries are dropped in all.
    pub dropped_total: usize,
    /// The file lines (one CR removed) of the first dropped entries, by line.
    pub quotes: Vec<(usize, String)>,
    /// NUL bytes in the first 8 KiB.
    pub binary: bool,
}

/// Bytes memctl models at most (a larger index is not streamed).
const STREAM_MAX_BYTES: u64 = 256 << 20;

/// Model the load of a large index without holding it: read line by line, keep
/// the head of the processed text (the first 200 lines, at most ~25 000 units
/// of them) and count the rest. The result is that of [`load`](super::load) on
/// the whole text. Only what this can model is streamed; `None` asks the caller to
/// read the whole text instead: a text whose processed lines all fit in the head
/// (nothing is cut, or the cut is decided by lines the head holds), invalid
/// UTF-8, a frontmatter block, an HTML comment, more than 256 MiB.
/// `quote_limit`: how many dropped lines to quote.
pub fn load_stream(r: &mut impl std::io::Read, quote_limit: usize) -> std::io::Result<Option<Streamed>> {
    load_stream_with(r, quote_limit, true)
}

/// [`load_stream`] without the texts of the cut (`loaded`, `injected`, the
/// warning, the reason and `cut` stay empty, their clean-up is most of the
/// work): for a caller that asks only which lines are kept.
pub(super) fn load_stream_lines(r: &mut impl std::io::Read) -> std::io::Result<Option<Streamed>> {
    load_stream_with(r, 1, false)
}

fn load_stream_with(r: &mut impl std::io::Read, quote_limit: usize, texts: bool) -> std::io::Result<Option<Streamed>> {
    let mut st = Stream {
        quote_limit,
        texts,
        ..Stream::default()
    };
    let mut data = vec![0u8; 64 << 10];
    let mut filled = 0;
    let mut total: u64 = 0;
    let mut binary = false;
    loop {
        if filled == data.len() {
            // A line longer than the buffer.
            data.resize(2 * data.len(), 0);
        }
        let n = loop {
            match r.read(&mut data[filled..]) {
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                other => break other?,
            }
        };
        if n == 0 {
            break;
        }
        let old = filled;
        filled += n;
        if total < 8192 {
            binary |= data[old..old + n.min((8192 - total) as usize)].contains(&0);
        }
        total += n as u64;
        if total > STREAM_MAX_BYTES {
            return Ok(None);
        }
        // Complete lines end at the last LF (which no UTF-8 sequence contains);
        // the bytes before `old` hold none.
        let Some(last_lf) = data[old..filled].iter().rposition(|b| *b == b'\n').map(|i| old + i) else {
            continue;
        };
        let Ok(lines) = std::str::from_utf8(&data[..last_lf]) else {
            return Ok(None);
        };
        if st.lines(lines).is_none() {
            return Ok(None);
        }
        data.copy_within(last_lf + 1..filled, 0);
        filled -= last_lf + 1;
    }
    // The last line (empty after a final LF).
    match std::str::from_utf8(&data[..filled]) {
        Ok(last) if st.lines(last).is_some() => Ok(st.finish(binary)),
        _ => Ok(None),
    }
}

/// The state of [`load_stream`].
#[derive(Default)]
struct Stream {
    quote_limit: usize,
    /// Whether the cut's texts are made.
    texts: bool,
    /// 1-based number of the last file line seen.
    next_line: usize,
    /// Whether a non-blank line was seen (the leading trim is over).
    started: bool,
    /// The file text of the first processed line (before the trim).
    first_file_line: String,
    first_origin: usize,
    /// Index of the next processed line.
    index: usize,
    /// The first processed lines, joined by LF.
    head: String,
    head_lines: usize,
    head_units: usize,
    /// Units and bytes of the processed lines so far (untrimmed end).
    run_units: usize,
    run_bytes: usize,
    /// The same up to the end of the last non-blank line (the trimmed end).
    lines: usize,
    units: usize,
    bytes: usize,
    /// The first processed line after the head (the line a cut at the end of
    /// the head quotes).
    first_beyond: Option<String>,
    /// Non-blank lines after the head: how many, the first of them, quoted.
    beyond_total: usize,
    beyond: Vec<Dropped>,
    quotes: Vec<(usize, String)>,
}

impl Stream {
    /// Whole lines, joined by LF; `None` for what only the whole text models.
    fn lines(&mut self, text: &str) -> Option<()> {
        if text.contains("<!--") {
            return None;
        }
        // Line by line into the head, then in bulk.
        let mut rest = text;
        while !self.head_full() {
            match rest.split_once('\n') {
                Some((line, more)) => {
                    self.line(line)?;
                    rest = more;
                }
                None => return self.line(rest),
            }
        }
        self.bulk(rest);
        Some(())
    }

    /// The head holds all the cut can depend on: 200 processed lines, or more
    /// than 25 000 units of them.
    fn head_full(&self) -> bool {
        self.index >= MAX_LINES || self.head_units > MAX_UNITS + 2
    }

    /// One file line (without its LF) while the head is open.
    fn line(&mut self, line: &str) -> Option<()> {
        self.next_line += 1;
        let no = self.next_line;
        let file_line = if no == 1 {
            line.strip_prefix('\u{feff}').unwrap_or(line)
        } else {
            line
        };
        if no == 1 && may_open_frontmatter(line) {
            return None;
        }
        let mut l = file_line;
        if !self.started {
            if is_js_blank(l) {
                return Some(());
            }
            self.started = true;
            self.first_origin = no;
            self.first_file_line = strip_cr(file_line).to_string();
            l = l.trim_start_matches(is_js_space);
        }
        let i = self.index;
        self.index += 1;
        let units = utf16_len(l);
        let sep = usize::from(i > 0);
        self.run_units += units + sep;
        self.run_bytes += l.len() + sep;
        if !is_js_blank(l) {
            self.lines = i + 1;
            self.trailing(&l[l.trim_end_matches(is_js_space).len()..]);
        }
        if i > 0 {
            self.head.push('\n');
        }
        self.head.push_str(l);
        self.head_lines += 1;
        self.head_units += units + sep;
        Some(())
    }

    /// Lines after the head, joined by LF: all dropped but blank ones, counted,
    /// the first ones quoted.
    fn bulk(&mut self, text: &str) {
        if self.first_beyond.is_none() {
            self.first_beyond = Some(text.split('\n').next().unwrap_or(text).to_string());
        }
        // Every line here has an LF before it.
        self.run_units += utf16_len(text) + 1;
        self.run_bytes += text.len() + 1;
        if self.beyond.len() >= self.quote_limit && crate::text::every_line_starts_printable(text.as_bytes()) {
            // No line is blank, and no more are quoted: only counts change.
            let n = count_byte(text.as_bytes(), b'\n') + 1;
            self.next_line += n;
            self.index += n;
            self.lines = self.index;
            self.beyond_total += n;
            self.trailing(&text[text.trim_end_matches(is_js_space).len()..]);
            return;
        }
        let mut last_end = None;
        let mut offset = 0;
        for l in text.split('\n') {
            self.next_line += 1;
            let i = self.index;
            self.index += 1;
            if !is_js_blank(l) {
                self.lines = i + 1;
                last_end = Some(offset + l.trim_end_matches(is_js_space).len());
                self.beyond_total += 1;
                if self.beyond.len() < self.quote_limit {
                    self.beyond.push(Dropped {
                        line: self.next_line,
                        index: i,
                        span: 0..0,
                    });
                    self.quotes.push((self.next_line, strip_cr(l).to_string()));
                }
            }
            offset += l.len() + 1;
        }
        if let Some(end) = last_end {
            self.trailing(&text[end..]);
        }
    }

    /// The processed text so far ends with a non-blank line followed by
    /// `trailing` (its trailing blank space and any blank lines): the trimmed end.
    fn trailing(&mut self, trailing: &str) {
        self.units = self.run_units - utf16_len(trailing);
        self.bytes = self.run_bytes - trailing.len();
    }

    /// The load, when a non-blank line lies beyond the head: the cut is then
    /// certain and falls inside the head.
    fn finish(self, binary: bool) -> Option<Streamed> {
        if !self.started || self.lines <= self.head_lines {
            return None;
        }
        let mut load = Load::counted(self.lines, self.units, self.bytes, false, false);
        let origin: Vec<usize> = (self.first_origin..self.first_origin + self.head_lines).collect();
        // The head is the first 200 lines, or holds more than 25 000 units of them:
        // the cut sees nothing after it.
        let (kept, lone_high) = cut_units(&self.head);
        let (mut dropped, fully_kept) = dropped_lines(self.head.split('\n'), &origin, kept.len());
        load.kept_lines = fully_kept;
        if self.texts {
            let next = next_line(&self.head, kept.len()).or_else(|| {
                // The whole head is kept: the cut fell on the LF after it.
                (kept.len() == self.head.len())
                    .then_some(self.first_beyond.as_deref())
                    .flatten()
            });
            load.cut(kept, lone_high, next);
        }
        let mut quotes: Vec<(usize, String)> = dropped
            .iter()
            .take(self.quote_limit)
            .map(|d| {
                let text = if d.index == 0 {
                    self.first_file_line.clone()
                } else {
                    strip_cr(&self.head[d.span.clone()]).to_string()
                };
                (d.line, text)
            })
            .collect();
        let dropped_total = dropped.len() + self.beyond_total;
        let room = self.quote_limit.saturating_sub(dropped.len());
        quotes.extend(self.quotes.into_iter().take(room));
        dropped.extend(self.beyond.into_iter().take(room));
        dropped.truncate(self.quote_limit);
        load.dropped = dropped;
        load.processed = Mapped {
            text: self.head,
            origin,
        };
        Some(Streamed {
            load,
            dropped_total,
            quotes,
            binary,
        })
    }
}
