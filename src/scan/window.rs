//! The 30-line frontmatter window (SPEC §2.5): read only the bytes the
//! frontmatter result depends on (at most 1 MiB), parse them, and tell a block
//! that closes beyond line 30 from one that never closes.

use std::fs::File;
use std::io::{self, Read};
use std::path::PathBuf;

use super::{WINDOW_MAX_BYTES, mtime_ms};
use crate::frontmatter::{self, FRONTMATTER_MAX_LINES, Fields, Status};
use crate::memory::Memory;

/// Read one memory from an open file. `buf` ends up holding every byte read, and
/// the file is positioned just after them.
pub(super) fn read_memory_from(file: &mut File, buf: &mut Vec<u8>) -> io::Result<Memory> {
    let head = read_head(file, buf)?;
    parse_head(file, buf, &head)
}

/// A file's metadata and its frontmatter window, read but not parsed yet.
pub(super) struct Head {
    meta: std::fs::Metadata,
    window: Window,
}

impl Head {
    pub(super) fn mtime_ms(&self) -> f64 {
        mtime_ms(&self.meta)
    }

    /// Whether 1 MiB was read without reaching the end of the window: only
    /// parsing tells whether that is a problem (a block still open).
    pub(super) fn cut(&self) -> bool {
        self.window.exceeded
    }
}

/// Stat an open file and read its window into `buf` (every byte read), without
/// parsing it: all a file the top-k cut drops needs (see `pipeline`).
pub(super) fn read_head(file: &mut File, buf: &mut Vec<u8>) -> io::Result<Head> {
    let meta = file.metadata()?;
    if meta.is_dir() {
        return Err(io::Error::new(io::ErrorKind::IsADirectory, "is a directory"));
    }
    let window = read_window(file, buf, meta.len())?;
    Ok(Head { meta, window })
}

/// Parse the window [`read_head`] read into `buf`.
pub(super) fn parse_head(file: &mut File, buf: &[u8], head: &Head) -> io::Result<Memory> {
    let (meta, window) = (&head.meta, &head.window);
    let text = match std::str::from_utf8(&buf[..window.len]) {
        Ok(t) => std::borrow::Cow::Borrowed(t),
        Err(_) => String::from_utf8_lossy(&buf[..window.len]),
    };
    let mut lines = frontmatter::scan_lines(&text);
    let all_lines = lines.len();
    // (2.1.332) The head stops before the line that would take it past 64 KiB.
    let head_cut = head_lines(&lines);
    lines.truncate(head_cut);
    let mut fm = frontmatter::parse_lines(&lines);
    let opens = lines.first().is_some_and(|l| frontmatter::is_opening(l));
    let exceeded = opens && window.exceeded && fm.close_line.is_none();
    let cut = head_cut < all_lines;
    if exceeded {
        // The block is still open after 1 MiB: treated as no frontmatter (§2.5).
        fm = frontmatter::Frontmatter::beyond_window();
    } else if opens
        && fm.close_line.is_none()
        && (window.more || cut)
        && closes_later(file, window.bytes_read, buf.len())?
    {
        fm.status = Status::BeyondWindow;
    }
    let fields = Fields::take(&mut fm);
    Ok(Memory {
        rel: String::new(),
        path: PathBuf::new(),
        mtime_ms: mtime_ms(meta),
        size: meta.len(),
        frontmatter: fm,
        fields,
        window_exceeded: exceeded,
    })
}

/// `HEAD_MAX_BYTES`: (2.1.332) Claude Code reads at most 64 KiB of a file's head.
pub const HEAD_MAX_BYTES: usize = 65_536;

/// How many of `lines` (BOM and CRs removed) Claude Code's head keeps (SPEC §2.5
/// step 3): at most 30, and none from the first line that would take the text,
/// joined with LF, past 64 KiB.
pub fn head_lines(lines: &[&str]) -> usize {
    let mut total = 0;
    for (i, l) in lines.iter().take(FRONTMATTER_MAX_LINES).enumerate() {
        total += l.len() + usize::from(i > 0);
        if total > HEAD_MAX_BYTES {
            return i;
        }
    }
    lines.len().min(FRONTMATTER_MAX_LINES)
}

/// Keep only what is read after the scan: the fields are already moved out, the
/// YAML text and other keys would only cost memory on large dirs.
pub(super) fn slim(m: &mut Memory) {
    m.frontmatter.yaml_text = None;
    m.frontmatter.map = m.frontmatter.map.take().and_then(keep_plan_keys);
}

struct Window {
    /// Length of the first 30 lines in the buffer (BOM and CRs are handled later).
    len: usize,
    /// 1 MiB was read without reaching line 30 or a closing line.
    exceeded: bool,
    /// The file has more text after the window.
    more: bool,
    bytes_read: usize,
}

/// Read the lines the frontmatter result depends on: the first 30, or fewer when
/// line 1 opens a block that closes earlier (the lines after the closing line
/// change nothing). Reads at most 1 MiB: only a block still open then exceeds it.
fn read_window(file: &mut File, buf: &mut Vec<u8>, size: u64) -> io::Result<Window> {
    buf.clear();
    let mut line_start = 0;
    let mut lines = 0;
    let mut opener = false;
    let mut end = None;
    let mut want = 1024;
    loop {
        let old = buf.len();
        let room = WINDOW_MAX_BYTES - old;
        if room == 0 {
            break;
        }
        buf.resize(old + want.min(room), 0);
        let n = file.read(&mut buf[old..])?;
        buf.truncate(old + n);
        want = 8192;
        if n == 0 {
            break;
        }
        let mut pos = old;
        while let Some(off) = buf[pos..].iter().position(|b| *b == b'\n') {
            let lf = pos + off;
            let line = &buf[line_start..lf];
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            lines += 1;
            if lines == 1 {
                opener = frontmatter::is_opening_bytes(line.strip_prefix(b"\xef\xbb\xbf").unwrap_or(line));
            } else if opener && line.windows(3).any(|w| w == b"---") {
                // (2.1.332) The block ends at the first `---` anywhere (SPEC §2.4.2);
                // it closed within 30 lines and 1 MiB: the lines after it change
                // nothing, however long they are (SPEC §2.5 step 3).
                end = Some((lf, true));
                break;
            }
            if lines == FRONTMATTER_MAX_LINES {
                end = Some((lf, false));
                break;
            }
            line_start = lf + 1;
            pos = lf + 1;
        }
        // The size from fstat saves the read that would return 0.
        if end.is_some() || buf.len() >= WINDOW_MAX_BYTES || buf.len() as u64 >= size {
            break;
        }
    }
    let bytes_read = buf.len();
    let (len, exceeded, more) = match end {
        Some((e, true)) => (e, false, true),
        Some((e, false)) => (
            e,
            false,
            bytes_read > e + 1 || size > (e + 1) as u64 || (size == 0 && file_has_more(file, buf)?),
        ),
        None if buf.len() >= WINDOW_MAX_BYTES => (WINDOW_MAX_BYTES, true, true),
        None => (buf.len(), false, false),
    };
    Ok(Window {
        len,
        exceeded,
        more,
        bytes_read,
    })
}

/// Whether a read past the end the size promised still gives a byte (kept in
/// `buf`, which holds every byte read).
fn file_has_more(file: &mut File, buf: &mut Vec<u8>) -> io::Result<bool> {
    let mut one = [0u8; 1];
    let n = file.read(&mut one)?;
    buf.extend_from_slice(&one[..n]);
    Ok(n > 0)
}

/// The frontmatter keys read after the scan (dream's superseded check; the hub mark).
fn keep_plan_keys(map: crate::yaml::Value) -> Option<crate::yaml::Value> {
    use crate::yaml::Value;
    const KEEP: [&str; 3] = ["supersedes", "status", crate::memory::HUB_KEY];
    let Value::Map(entries) = map else { return Some(map) };
    let kept = entries
        .into_iter()
        .filter_map(|(k, v)| match (k.as_str(), v) {
            (k2, v) if KEEP.contains(&k2) => Some((k, v)),
            ("metadata", Value::Map(inner)) => {
                let inner: Vec<(String, Value)> =
                    inner.into_iter().filter(|(k, _)| KEEP.contains(&k.as_str())).collect();
                (!inner.is_empty()).then_some((k, Value::Map(inner)))
            }
            _ => None,
        })
        .collect::<Vec<_>>();
    // A fresh, exact allocation (or none): the parser's vector had room to spare.
    (!kept.is_empty()).then(|| {
        let mut kept = kept;
        kept.shrink_to_fit();
        Value::Map(kept)
    })
}

/// Whether a closing delimiter line appears after the window (bounded by 1 MiB).
/// Leaves the file at `resume` (just after the bytes read so far).
fn closes_later(file: &mut File, already: usize, resume: usize) -> io::Result<bool> {
    use std::io::{Seek, SeekFrom};
    file.seek(SeekFrom::Start(0))?;
    let mut rest = Vec::new();
    file.take((WINDOW_MAX_BYTES.max(already) + WINDOW_MAX_BYTES) as u64)
        .read_to_end(&mut rest)?;
    file.seek(SeekFrom::Start(resume as u64))?;
    let text = String::from_utf8_lossy(&rest);
    Ok(frontmatter::scan_lines(&text).iter().skip(1).any(|l| l.contains("---")))
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;
    use crate::scan::read_memory;

    fn status_of(text: &str) -> (Status, Option<String>) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("m.md");
        fs::write(&p, text).unwrap();
        let m = read_memory(&p, "m.md").unwrap();
        (m.frontmatter.status, m.fields.description.map(|d| d.js_string()))
    }

    #[test]
    fn closing_line_30_is_inside_the_window() {
        let text = format!("---\ndescription: just fits\n{}---\nbody\n", "# c\n".repeat(27));
        assert_eq!(status_of(&text), (Status::Ok, Some("just fits".into())));
    }

    #[test]
    fn closing_line_31_is_beyond_the_window() {
        let text = format!("---\ndescription: too late\n{}---\nbody\n", "# c\n".repeat(28));
        assert_eq!(status_of(&text), (Status::BeyondWindow, None));
    }

    #[test]
    fn a_block_that_never_closes_is_no_frontmatter() {
        let text = format!("---\ndescription: x\n{}", "line\n".repeat(40));
        assert_eq!(status_of(&text), (Status::None, None));
    }

    #[test]
    fn thirty_lines_over_one_mib_are_beyond_the_window() {
        let text = format!("---\ndescription: {}\n---\n", "x".repeat(WINDOW_MAX_BYTES));
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("m.md");
        fs::write(&p, text).unwrap();
        let m = read_memory(&p, "m.md").unwrap();
        assert_eq!(m.frontmatter.status, Status::BeyondWindow);
        assert!(m.window_exceeded);
    }

    #[test]
    fn a_block_closed_early_is_read_however_long_the_later_lines_are() {
        // 2 MB, the block closes on line 4: read as Claude Code reads it.
        let text = format!(
            "---\ndescription: early\ntype: user\n---\n{}",
            format!("{}\n", "y".repeat(100_000)).repeat(20)
        );
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("m.md");
        fs::write(&p, &text).unwrap();
        let m = read_memory(&p, "m.md").unwrap();
        assert_eq!(m.frontmatter.status, Status::Ok);
        assert!(!m.window_exceeded);
        assert_eq!(m.fields.description.map(|d| d.js_string()).as_deref(), Some("early"));
    }

    #[test]
    fn crlf_and_bom_are_handled_in_the_window() {
        assert_eq!(
            status_of("\u{feff}---\r\ndescription: crlf\r\n---\r\n"),
            (Status::Ok, Some("crlf".into()))
        );
    }
}
