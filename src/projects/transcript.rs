//! The project path of a transcripts dir (SPEC §9): the `cwd` field of the first
//! transcript line that has one, reading at most the first 8 lines and 64 KiB of
//! each line of at most 3 transcripts, newest first; else a guess from the key.
//!
//! Transcripts are opened only when regular (a FIFO never blocks) and read in
//! bounded pieces, so a huge first line (a pasted log) costs 64 KiB, not its size.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};

use crate::sessions::Session;

/// Lines read per transcript.
pub const MAX_LINES: usize = 8;
/// Bytes read per line.
pub const MAX_LINE_BYTES: u64 = 64 << 10;
/// Transcripts read per dir.
pub const MAX_TRANSCRIPTS: usize = 3;

/// The `cwd` of each of the newest [`MAX_TRANSCRIPTS`] transcripts that has one,
/// newest first (`sessions` is the dir's listing; any `*.jsonl` counts).
pub fn cwds(dir: &Path, sessions: &[Session]) -> Vec<String> {
    let mut newest: Vec<&Session> = sessions.iter().filter(|s| s.mtime_ms.is_some()).collect();
    newest.sort_by(|a, b| b.mtime_ms.cmp(&a.mtime_ms).then_with(|| a.name.cmp(&b.name)));
    newest
        .into_iter()
        .take(MAX_TRANSCRIPTS)
        .filter_map(|s| cwd_of(&dir.join(&s.name)))
        .collect()
}

/// The `cwd` of the first of the first [`MAX_LINES`] lines that has one.
pub fn cwd_of(path: &Path) -> Option<String> {
    let file = crate::fsread::open_regular(path).ok()?;
    first_cwd(BufReader::new(file))
}

fn first_cwd<R: BufRead>(mut reader: R) -> Option<String> {
    let mut line = Vec::new();
    for _ in 0..MAX_LINES {
        line.clear();
        let n = (&mut reader).take(MAX_LINE_BYTES).read_until(b'\n', &mut line).ok()?;
        if n == 0 {
            return None;
        }
        if let Some(cwd) = cwd_in(&line) {
            return Some(cwd);
        }
        // The rest of a line longer than the bound is skipped, unread into memory.
        if !line.ends_with(b"\n") && !skip_line(&mut reader) {
            return None;
        }
    }
    None
}

/// Skip to the next line; false at the end of the file or on an error.
fn skip_line<R: BufRead>(reader: &mut R) -> bool {
    loop {
        let (done, used) = match reader.fill_buf() {
            Ok([]) | Err(_) => return false,
            Ok(buf) => match buf.iter().position(|b| *b == b'\n') {
                Some(i) => (true, i + 1),
                None => (false, buf.len()),
            },
        };
        reader.consume(used);
        if done {
            return true;
        }
    }
}

/// The top-level string `cwd` of a JSON object line, also when the line was cut
/// after it (the object need not be complete; a nested `cwd` does not count).
fn cwd_in(line: &[u8]) -> Option<String> {
    let found = std::cell::RefCell::new(None);
    let mut de = serde_json::Deserializer::from_slice(line);
    // The visitor stores `cwd` as soon as it meets it; what follows may be cut.
    let _ = (&mut de).deserialize_map(CwdVisitor(&found));
    found.into_inner().filter(|c: &String| !c.is_empty())
}

struct CwdVisitor<'a>(&'a std::cell::RefCell<Option<String>>);

impl<'de> Visitor<'de> for CwdVisitor<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            if key == "cwd" {
                if let Ok(v) = map.next_value::<String>() {
                    *self.0.borrow_mut() = Some(v);
                    return Err(de::Error::custom("found"));
                }
                return Err(de::Error::custom("cwd is not a string"));
            }
            map.next_value::<IgnoredAny>()?;
        }
        Ok(())
    }
}

/// A guess of the project path from a key alone (the key is lossy: `-` stands for
/// any unit but an ASCII letter or digit). Walks down from `/`, at each level taking
/// the entry whose sanitized name matches the longest run of the key's words, so an
/// existing path with `_`, `.` or `-` is found; the rest is taken word for word.
/// Returns the guess and whether it exists.
pub fn guess(key: &str) -> (PathBuf, bool) {
    let words: Vec<&str> = key.strip_prefix('-').unwrap_or(key).split('-').collect();
    let mut path = PathBuf::from("/");
    let mut i = 0;
    // Each level lists one directory; the key has at most a few hundred units.
    while i < words.len() {
        let Some((name, used)) = best_entry(&path, &words[i..]) else {
            break;
        };
        path.push(name);
        i += used;
    }
    if i == words.len() {
        return (path, true);
    }
    for w in &words[i..] {
        path.push(if w.is_empty() { "-" } else { w });
    }
    (path, false)
}

/// The entry of `dir` whose sanitized name is the longest prefix of `words`
/// (joined by `-`), and how many words it covers.
fn best_entry(dir: &Path, words: &[&str]) -> Option<(String, usize)> {
    let entries = std::fs::read_dir(dir).ok()?;
    let mut best: Option<(String, usize)> = None;
    for e in entries.filter_map(Result::ok) {
        let Ok(name) = e.file_name().into_string() else {
            continue;
        };
        let s = crate::paths::sanitize::sanitize(&name).key;
        let n = s.split('-').count();
        if n > words.len() || best.as_ref().is_some_and(|(_, b)| *b >= n) {
            continue;
        }
        if words[..n].join("-") == s && e.path().is_dir() {
            best = Some((name, n));
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first(text: &str) -> Option<String> {
        first_cwd(std::io::Cursor::new(text.as_bytes().to_vec()))
    }

    #[test]
    fn the_first_line_with_a_top_level_cwd_wins() {
        assert_eq!(
            first("{\"type\":\"summary\",\"message\":{\"cwd\":\"/nested\"}}\n{\"a\":1,\"cwd\":\"/home/a/app\"}\n{\"cwd\":\"/later\"}\n")
                .as_deref(),
            Some("/home/a/app")
        );
        assert_eq!(first("not json\n[1,2]\n{\"cwd\":\"/x\"}\n").as_deref(), Some("/x"));
        assert_eq!(first("{\"cwd\":3}\n{\"cwd\":\"\"}\n"), None);
    }

    #[test]
    fn only_eight_lines_are_read() {
        let text = format!("{}{{\"cwd\":\"/ninth\"}}\n", "{}\n".repeat(8));
        assert_eq!(first(&text), None);
        let text = format!("{}{{\"cwd\":\"/eighth\"}}\n", "{}\n".repeat(7));
        assert_eq!(first(&text).as_deref(), Some("/eighth"));
    }

    #[test]
    fn a_long_line_is_read_to_64_kib() {
        // cwd early in a line longer than the bound: found in the prefix.
        let text = format!("{{\"cwd\":\"/early\",\"x\":\"{}\"}}\n", "y".repeat(200_000));
        assert_eq!(first(&text).as_deref(), Some("/early"));
        // cwd past the bound: not seen, and the next line is read from its start.
        let text = format!(
            "{{\"x\":\"{}\",\"cwd\":\"/late\"}}\n{{\"cwd\":\"/next\"}}\n",
            "y".repeat(70_000)
        );
        assert_eq!(first(&text).as_deref(), Some("/next"));
    }

    #[test]
    fn a_guess_follows_existing_dirs() {
        let d = tempfile::tempdir().unwrap();
        let real = std::fs::canonicalize(d.path()).unwrap();
        let p = real.join("my_app.v2").join("sub");
        std::fs::create_dir_all(&p).unwrap();
        let key = crate::paths::sanitize::sanitize(&p.to_string_lossy()).key;
        assert_eq!(guess(&key), (p.clone(), true));
        let gone = crate::paths::sanitize::sanitize(&real.join("gone-away").to_string_lossy()).key;
        assert_eq!(guess(&gone), (real.join("gone").join("away"), false));
    }
}
