//! The index read piece by piece for [`super::linking`] (issue 31): of an index
//! larger than one piece only the lines that can matter are kept (those that can
//! link the file, and those that can open or close a fence or a comment), so a
//! large index is never held whole and every byte is searched while it is in cache.

use std::io::Read as _;

use memchr::memmem::Finder;

use super::Linked;
use crate::index::load::MAX_LINES;

/// Bytes read at a time (more for a longer line).
const PIECE: usize = 64 << 10;

const BOM: &[u8] = b"\xef\xbb\xbf";

/// The positions in `chunk` of the bytes that put their line in [`Sparse`]
/// (besides the file's base name), each with whether it is `%` (a
/// percent-encoded name): `%`, `<`, `>`, backtick, `~` (a comment or fence can
/// open or close only on such a line). Two of memchr's vectorized searches, so
/// the common byte that is none of them costs a fraction of an instruction.
fn specials(chunk: &[u8]) -> impl Iterator<Item = (usize, bool)> + '_ {
    let percent_backtick_tilde = memchr::memchr3_iter(b'%', b'`', b'~', chunk).map(|p| (p, chunk[p] == b'%'));
    let angles = memchr::memchr2_iter(b'<', b'>', chunk).map(|p| (p, false));
    percent_backtick_tilde.chain(angles)
}

/// The LFs in `bytes` (memchr's vectorized count).
fn lfs(bytes: &[u8]) -> usize {
    memchr::memchr_iter(b'\n', bytes).count()
}

/// What reading an index gave.
pub(super) enum Got {
    /// The whole index: it fit in one piece.
    Whole(Vec<u8>),
    /// The lines of a larger one that can matter.
    Sparse(Sparse),
}

/// One kept line: its 1-based number in the file, where it is in [`Sparse::text`]
/// (without its LF), and whether it can link the file (it holds the file's base
/// name or a `%`); the others hold a `<`, `>`, backtick or `~`.
struct Kept {
    number: usize,
    start: usize,
    end: usize,
    candidate: bool,
}

/// The lines of an index that can matter to the links of one file, in order,
/// and what the load model asks of the rest.
#[derive(Default)]
pub(super) struct Sparse {
    /// The kept lines, each followed by an LF.
    text: Vec<u8>,
    lines: Vec<Kept>,
    /// The index starts with a BOM.
    bom: bool,
    /// The index (after a BOM) starts with `---`.
    dashes: bool,
    /// The file line of the first ASCII graphic byte, once one is seen.
    first_graphic: Option<usize>,
    /// The number of the next line to be read.
    next_line: usize,
    /// The positions searched in a piece (kept for its allocation).
    at: Vec<(usize, bool)>,
}

/// Read the index `f` (at most `max` bytes, else an error) in pieces, keeping
/// what [`Sparse`] keeps for the file whose base name is `base` (no LF in it).
pub(super) fn sparse(f: &mut std::fs::File, base: &str, max: u64) -> std::io::Result<Got> {
    let finder = Finder::new(base.as_bytes());
    let mut data = vec![0u8; PIECE];
    let (mut filled, mut total) = (0, 0u64);
    let mut s = Sparse {
        next_line: 1,
        ..Sparse::default()
    };
    loop {
        if filled == data.len() {
            match memchr::memrchr(b'\n', &data[..filled]) {
                Some(lf) => {
                    s.piece(&data[..=lf], &finder);
                    data.copy_within(lf + 1..filled, 0);
                    filled -= lf + 1;
                }
                // A line longer than the buffer.
                None => data.resize(2 * data.len(), 0),
            }
        }
        let n = match f.read(&mut data[filled..]) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            other => other?,
        };
        if n == 0 {
            break;
        }
        filled += n;
        total += n as u64;
        if total > max {
            return Err(std::io::Error::other("index too large"));
        }
    }
    if s.next_line == 1 {
        data.truncate(filled);
        return Ok(Got::Whole(data));
    }
    s.piece(&data[..filled], &finder);
    Ok(Got::Sparse(s))
}

impl Sparse {
    /// Whole lines of the index (the last one may lack its LF), from line
    /// `next_line` on.
    fn piece(&mut self, chunk: &[u8], finder: &Finder) {
        if self.next_line == 1 {
            self.bom = chunk.starts_with(BOM);
            self.dashes = chunk.strip_prefix(BOM).unwrap_or(chunk).starts_with(b"---");
        }
        if self.first_graphic.is_none()
            && let Some(i) = chunk.iter().position(u8::is_ascii_graphic)
        {
            self.first_graphic = Some(self.next_line + lfs(&chunk[..i]));
        }
        let mut at = std::mem::take(&mut self.at);
        at.clear();
        at.extend(finder.find_iter(chunk).map(|p| (p, true)));
        at.extend(specials(chunk));
        at.sort_unstable();
        let (mut counted_to, mut number) = (0, self.next_line);
        // The end (in `chunk`) of the line last kept.
        let mut kept_end = None;
        for &(p, candidate) in &at {
            if kept_end.is_some_and(|e| p <= e) {
                if let Some(last) = self.lines.last_mut() {
                    last.candidate |= candidate;
                }
                continue;
            }
            let start = memchr::memrchr(b'\n', &chunk[..p]).map_or(0, |i| i + 1);
            number += lfs(&chunk[counted_to..start]);
            counted_to = start;
            let end = memchr::memchr(b'\n', &chunk[p..]).map_or(chunk.len(), |i| p + i);
            kept_end = Some(end);
            let from = self.text.len();
            self.text.extend_from_slice(&chunk[start..end]);
            self.lines.push(Kept {
                number,
                start: from,
                end: self.text.len(),
                candidate,
            });
            self.text.push(b'\n');
        }
        self.next_line = number + lfs(&chunk[counted_to..]);
        self.at = at;
    }

    /// [`super::linking_in`]'s answer on the whole index, or `None` when the
    /// load must be modelled (a linking line can be among the 200 loaded lines,
    /// or the index has a frontmatter block or a comment).
    pub(super) fn linking(&self, local: &str) -> Option<Linked> {
        let candidates: Vec<(usize, usize, usize)> = self
            .lines
            .iter()
            .filter(|l| l.candidate)
            .map(|l| (l.number, l.start, l.end))
            .collect();
        // The BOM is cut from line 1 only.
        let bom = if self.bom && self.lines.first().is_some_and(|l| l.number == 1) {
            BOM.len()
        } else {
            0
        };
        let mut lines = Vec::new();
        super::links_on_from(&self.text, bom, &candidates, |l| {
            if l.memory_target() == Some(local) {
                lines.push(l.line);
            }
        });
        lines.dedup();
        if lines.is_empty() {
            return Some(Linked::default());
        }
        // Every line that can open a comment is kept.
        let comment = memchr::memmem::find(&self.text, b"<!--").is_some();
        let first = self.first_graphic?;
        let past = |l: &usize| *l >= first.saturating_add(MAX_LINES);
        (!self.dashes && !comment && lines.iter().all(past)).then(|| Linked {
            loaded: vec![false; lines.len()],
            lines,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_bytes_found_anywhere() {
        for len in [0, 1, 31, 32, 33, 64, 65, 255, 256] {
            let plain = vec![b'a'; len];
            assert_eq!(specials(&plain).count(), 0);
            for at in 0..len {
                for b in 0..=255u8 {
                    let mut bytes = plain.clone();
                    bytes[at] = b;
                    let found: Vec<(usize, bool)> = specials(&bytes).collect();
                    let want = if b"%<>`~".contains(&b) {
                        vec![(at, b == b'%')]
                    } else {
                        vec![]
                    };
                    assert_eq!(found, want, "{b} at {at} of {len}");
                }
            }
        }
        // Many, of every kind, in one chunk: each once, as a byte scan finds them.
        let text: Vec<u8> = (0..5000u32).map(|i| b"ab%c<d>e`f~g\n"[(i * 7 % 13) as usize]).collect();
        let mut found: Vec<(usize, bool)> = specials(&text).collect();
        found.sort_unstable();
        let scanned: Vec<(usize, bool)> = (text.iter().enumerate())
            .filter(|(_, b)| b"%<>`~".contains(b))
            .map(|(i, b)| (i, *b == b'%'))
            .collect();
        assert_eq!(found, scanned);
    }
}
