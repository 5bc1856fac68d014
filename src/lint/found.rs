//! A lint run's findings as they are held until shown (issue 31): each topic
//! file's own findings packed into one byte string (no `Finding` record, boxed
//! message or shared path each: at 20 000 files they were 8 of lint's 15 MB), the
//! rest (the index's, the rules across files') as [`Finding`]s. They are unpacked
//! one file at a time, in the report's order, as they are shown.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{Finding, RULES, RuleId, Severity};

/// The findings of a run, in the report's order (by path bytes, line, column,
/// rule; equal ones in the order found).
#[derive(Default)]
pub struct Found {
    /// Findings not packed, in the report's order.
    loose: Vec<Finding>,
    /// One packed file each (see [`pack`]), sorted by path bytes once complete.
    files: Vec<Box<[u8]>>,
    /// The linted dir: a packed path below it holds only what follows it.
    dir: PathBuf,
    /// The packed findings by severity (infos, warnings, errors).
    packed: [usize; 3],
}

impl Found {
    /// Findings all held as records, already in the report's order.
    pub fn from_sorted(findings: Vec<Finding>) -> Found {
        Found {
            loose: findings,
            ..Found::default()
        }
    }

    /// The packed files of a run in `dir` (in the order found) beside the other
    /// findings, `loose` (sorted); the files are sorted here.
    pub(super) fn new(dir: &Path, files: Vec<Box<[u8]>>, loose: Vec<Finding>) -> Found {
        // Each path's parts found once, then sorted (stable: should two files
        // have one path, the first found is shown first).
        let mut order: Vec<(&[u8], &[u8], usize)> = files
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let (prefix, rest) = Packed(f).path_parts(dir);
                (prefix, rest, i)
            })
            .collect();
        order.sort_by(|a, b| match (a.0.is_empty(), b.0.is_empty()) {
            // Both below the dir (the usual case): only the rests differ.
            (false, false) => a.1.cmp(b.1),
            _ => a.0.iter().chain(a.1).cmp(b.0.iter().chain(b.1)),
        });
        let order: Vec<usize> = order.into_iter().map(|(_, _, i)| i).collect();
        let mut files: Vec<Option<Box<[u8]>>> = files.into_iter().map(Some).collect();
        let files = order.into_iter().filter_map(|i| files[i].take()).collect();
        let mut found = Found {
            loose,
            files,
            dir: dir.to_path_buf(),
            packed: [0; 3],
        };
        found.count_packed();
        found
    }

    fn count_packed(&mut self) {
        self.packed = [0; 3];
        for f in &self.files {
            for e in Packed(f).entries() {
                self.packed[e.severity as usize] += 1;
            }
        }
    }

    /// Drop what `keep` (given a finding's rule and severity) does not keep:
    /// `--rule`, `--disable`, `--min-severity`.
    pub fn retain(&mut self, keep: impl Fn(RuleId, Severity) -> bool) {
        self.loose.retain(|f| keep(f.id, f.severity));
        let mut changed = false;
        for file in &mut self.files {
            let p = Packed(file);
            if p.entries().all(|e| keep(e.id, e.severity)) {
                continue;
            }
            changed = true;
            let mut kept = p.head().to_vec();
            for e in p.entries().filter(|e| keep(e.id, e.severity)) {
                e.write(&mut kept);
            }
            *file = kept.into_boxed_slice();
        }
        if changed {
            self.files.retain(|f| Packed(f).entries().next().is_some());
            self.count_packed();
        }
    }

    /// Counts by severity: errors, warnings, infos.
    pub fn counts(&self) -> (usize, usize, usize) {
        let mut n = self.packed;
        for f in &self.loose {
            n[f.severity as usize] += 1;
        }
        (n[2], n[1], n[0])
    }

    pub fn len(&self) -> usize {
        self.loose.len() + self.packed.iter().sum::<usize>()
    }

    pub fn is_empty(&self) -> bool {
        self.loose.is_empty() && self.files.is_empty()
    }

    /// Every finding, in the report's order, unpacked a file at a time.
    pub fn iter(&self) -> Iter<'_> {
        Iter {
            found: self,
            loose: 0,
            file: 0,
            pending: Vec::new(),
            path: (0, Vec::new()),
        }
    }

    /// Every finding as records (what the views that regroup them need).
    pub fn to_vec(&self) -> Vec<Finding> {
        self.iter().collect()
    }
}

/// The findings of a [`Found`] in order (see [`Found::iter`]).
pub struct Iter<'a> {
    found: &'a Found,
    loose: usize,
    file: usize,
    /// The current file's findings, reversed (the next one last).
    pending: Vec<Finding>,
    /// The path of `files[.0 - 1]` (none when `.0` is 0).
    path: (usize, Vec<u8>),
}

impl Iterator for Iter<'_> {
    type Item = Finding;

    fn next(&mut self) -> Option<Finding> {
        if let Some(f) = self.pending.pop() {
            return Some(f);
        }
        let found = self.found;
        let loose = found.loose.get(self.loose);
        let Some(file) = found.files.get(self.file) else {
            self.loose += 1;
            return loose.cloned();
        };
        if self.path.0 != self.file + 1 {
            let (prefix, rest) = Packed(file).path_parts(&found.dir);
            self.path = (self.file + 1, [prefix, rest].concat());
        }
        let path = &self.path.1[..];
        if let Some(l) = loose
            && path_bytes(l) < Some(path)
        {
            self.loose += 1;
            return Some(l.clone());
        }
        let shared: Arc<Path> = Arc::from(Path::new(OsStr::from_bytes(path)));
        let mut all = std::mem::take(&mut self.pending);
        while let Some(file) = found.files.get(self.file)
            && Packed(file).is_at(path, &found.dir)
        {
            self.file += 1;
            all.extend(Packed(file).entries().map(|e| Finding {
                id: e.id,
                severity: e.severity,
                path: Some(Arc::clone(&shared)),
                line: e.line,
                col: e.col,
                message: message(e.message),
            }));
        }
        while let Some(l) = found.loose.get(self.loose)
            && path_bytes(l) == Some(path)
        {
            all.push(l.clone());
            self.loose += 1;
        }
        // Stable: the file's own findings, then the others, each in the order found.
        all.sort_by_key(|f| (f.line, f.col, f.id));
        all.reverse();
        self.pending = all;
        self.pending.pop()
    }
}

/// One file's findings, packed: a flag (1: the path follows the linted dir's
/// bytes, 0: it is whole), the path's length and bytes, then each finding: rule,
/// severity, line, column, message length (variable-length integers) and message.
/// Returns the findings it cannot pack (not at `path`), in the order found.
pub(super) fn pack(dir: &Path, path: &Path, findings: Vec<Finding>) -> (Option<Box<[u8]>>, Vec<Finding>) {
    let at = |f: &Finding| f.path.as_deref().is_some_and(|p| p.as_os_str() == path.as_os_str());
    let (own, other) = if findings.iter().all(at) {
        (findings, Vec::new())
    } else {
        findings.into_iter().partition(at)
    };
    if own.is_empty() {
        return (None, other);
    }
    // Packed into this thread's buffer, then copied out at its exact size.
    thread_local! {
        static BUF: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    let packed = BUF.with(|buf| {
        let mut out = buf.borrow_mut();
        out.clear();
        pack_into(&mut out, dir, path, &own);
        let packed = Box::<[u8]>::from(&out[..]);
        // A large buffer (the index's findings, 0.5 MB at 20 000 lines) is not
        // kept for the rest of the run.
        if out.capacity() > 64 << 10 {
            *out = Vec::new();
        }
        packed
    });
    (Some(packed), other)
}

/// [`pack`]'s bytes of `own`, the findings at `path`.
fn pack_into(out: &mut Vec<u8>, dir: &Path, path: &Path, own: &[Finding]) {
    let (d, p) = (dir.as_os_str().as_bytes(), path.as_os_str().as_bytes());
    match p.strip_prefix(d).filter(|_| !d.is_empty()) {
        Some(rest) => {
            out.push(1);
            put(out, rest.len());
            out.extend_from_slice(rest);
        }
        None => {
            out.push(0);
            put(out, p.len());
            out.extend_from_slice(p);
        }
    }
    for f in own {
        Entry::head(f.id, f.severity, f.line, f.col, out);
        put_message(out, f.id, &f.message);
    }
}

/// [`pack`] for findings at any paths: one packed file per path (each in the
/// order found), and the findings with no path, in order.
pub(super) fn pack_all(dir: &Path, mut findings: Vec<Finding>) -> (Vec<Box<[u8]>>, Vec<Finding>) {
    let key = |f: &Finding| f.path.as_ref().map(Arc::clone);
    // Stable: a path's findings keep the order they were found in.
    findings.sort_by(|a, b| path_bytes(a).cmp(&path_bytes(b)));
    let mut packed = Vec::new();
    let mut rest = Vec::new();
    let mut findings = findings.into_iter().peekable();
    while let Some(f) = findings.next() {
        let Some(path) = key(&f) else {
            rest.push(f);
            continue;
        };
        let mut same = vec![f];
        while let Some(g) = findings.next_if(|g| path_bytes(g) == Some(path.as_os_str().as_bytes())) {
            same.push(g);
        }
        let (own, mut other) = pack(dir, &path, same);
        packed.extend(own);
        rest.append(&mut other);
    }
    (packed, rest)
}

/// A finding's path as bytes.
fn path_bytes(f: &Finding) -> Option<&[u8]> {
    f.path.as_deref().map(|p| p.as_os_str().as_bytes())
}

/// A LEB128 integer.
fn put(out: &mut Vec<u8>, mut n: usize) {
    loop {
        let b = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

/// A LEB128 integer at `*at` (packed by [`put`]: never malformed).
fn get(bytes: &[u8], at: &mut usize) -> usize {
    let (mut n, mut shift) = (0usize, 0);
    while let Some(&b) = bytes.get(*at) {
        *at += 1;
        n |= ((b & 0x7f) as usize) << shift.min(63);
        shift += 7;
        if b & 0x80 == 0 {
            break;
        }
    }
    n
}

/// Long constant parts of the messages most frequent on large dirs (ML137 on
/// every file of the bench dirs, ML204 on most index lines, ML122), each packed
/// as two bytes: [`PHRASE`] and its index. A message without them is packed as
/// it is; one with them comes back the same.
const PHRASES: [&str; 4] = [
    "` is not a slug: Claude Code's first Write or Edit of this file stores `name: ",
    " chars (guidance: under ~150",
    "; the load warning says ~200)",
    ": relevance recall reads only 200 lines / 4096 bytes",
];

/// Never a byte of UTF-8.
const PHRASE: u8 = 0xff;

/// The phrases a rule's messages may hold.
fn phrases_of(id: RuleId) -> &'static [usize] {
    match id {
        RuleId::ML137 => &[0],
        RuleId::ML204 => &[1, 2],
        RuleId::ML122 => &[3],
        _ => &[],
    }
}

/// Where `needle` (a phrase) first is in `hay`: at one of the places of its
/// first byte (few in these messages; a searcher costs more to set up than the
/// search of a message this short). Linear in `hay`: the phrases are short.
fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    let first = *needle.first()?;
    memchr::memchr_iter(first, hay).find(|&i| hay[i..].starts_with(needle))
}

/// `message` (of rule `id`) as the pieces it is packed as: text, and the
/// indexes of phrases.
fn pieces(id: RuleId, message: &str, mut piece: impl FnMut(Result<&str, u8>)) {
    let mut rest = message;
    let phrases = phrases_of(id);
    loop {
        let first = phrases
            .iter()
            .filter_map(|&i| find(rest.as_bytes(), PHRASES[i].as_bytes()).map(|at| (at, i)))
            .min();
        let Some((at, i)) = first else { break };
        if at > 0 {
            piece(Ok(&rest[..at]));
        }
        piece(Err(i as u8));
        rest = &rest[at + PHRASES[i].len()..];
    }
    if !rest.is_empty() {
        piece(Ok(rest));
    }
}

/// A message of rule `id`, packed: its length, then its pieces.
fn put_message(out: &mut Vec<u8>, id: RuleId, message: &str) {
    if phrases_of(id).is_empty() {
        put(out, message.len());
        out.extend_from_slice(message.as_bytes());
        return;
    }
    let mut len = 0;
    pieces(id, message, |p| len += p.map_or(2, str::len));
    put(out, len);
    pieces(id, message, |p| match p {
        Ok(text) => out.extend_from_slice(text.as_bytes()),
        Err(i) => out.extend_from_slice(&[PHRASE, i]),
    });
}

/// A message as packed by [`put_message`], whole again.
fn message(packed: &[u8]) -> Box<str> {
    fn text(b: &[u8]) -> &str {
        std::str::from_utf8(b).unwrap_or_default()
    }
    if memchr::memchr(PHRASE, packed).is_none() {
        return text(packed).into();
    }
    let phrase = |at: usize| packed.get(at + 1).and_then(|&k| PHRASES.get(k as usize)).copied();
    // The exact length: each phrase's two bytes give way to it.
    let len = memchr::memchr_iter(PHRASE, packed)
        .map(|at| phrase(at).map_or(0, str::len))
        .sum::<usize>()
        + packed.len();
    let mut s = String::with_capacity(len);
    let mut from = 0;
    for at in memchr::memchr_iter(PHRASE, packed) {
        s.push_str(text(packed.get(from..at).unwrap_or_default()));
        s.push_str(phrase(at).unwrap_or_default());
        from = at + 2;
    }
    s.push_str(text(packed.get(from..).unwrap_or_default()));
    s.into_boxed_str()
}

/// One packed finding, read (its message as packed).
struct Entry<'a> {
    id: RuleId,
    severity: Severity,
    line: usize,
    col: usize,
    message: &'a [u8],
}

impl Entry<'_> {
    fn head(id: RuleId, severity: Severity, line: usize, col: usize, out: &mut Vec<u8>) {
        out.push(id as u8);
        out.push(severity as u8);
        put(out, line);
        put(out, col);
    }

    fn write(&self, out: &mut Vec<u8>) {
        Entry::head(self.id, self.severity, self.line, self.col, out);
        put(out, self.message.len());
        out.extend_from_slice(self.message);
    }
}

/// A packed file (see [`pack`]).
#[derive(Clone, Copy)]
struct Packed<'a>(&'a [u8]);

impl<'a> Packed<'a> {
    /// The flag, the path's length and its bytes; where the findings start.
    fn head_len(&self) -> usize {
        let mut at = 1;
        let n = get(self.0, &mut at);
        at + n
    }

    fn head(&self) -> &'a [u8] {
        &self.0[..self.head_len().min(self.0.len())]
    }

    /// The file's path as the dir's bytes (or nothing) and the rest.
    fn path_parts(&self, dir: &'a Path) -> (&'a [u8], &'a [u8]) {
        let head = self.head();
        let mut at = 1;
        let _ = get(head, &mut at);
        let prefix: &[u8] = if head.first() == Some(&1) {
            dir.as_os_str().as_bytes()
        } else {
            &[]
        };
        (prefix, &head[at.min(head.len())..])
    }

    /// Whether the file's path is `path` (bytes), `dir` its dir.
    fn is_at(&self, path: &[u8], dir: &'a Path) -> bool {
        let (prefix, rest) = self.path_parts(dir);
        path.len() == prefix.len() + rest.len() && path.starts_with(prefix) && path.ends_with(rest)
    }

    fn entries(self) -> impl Iterator<Item = Entry<'a>> + 'a {
        let bytes = self.0;
        let mut at = self.head_len();
        std::iter::from_fn(move || {
            if at + 2 > bytes.len() {
                return None;
            }
            let id = RULES.get(bytes[at] as usize)?.id;
            let severity = match bytes[at + 1] {
                0 => Severity::Info,
                1 => Severity::Warning,
                _ => Severity::Error,
            };
            at += 2;
            let line = get(bytes, &mut at);
            let col = get(bytes, &mut at);
            let len = get(bytes, &mut at);
            let end = (at + len).min(bytes.len());
            let message = &bytes[at..end];
            at = end;
            Some(Entry {
                id,
                severity,
                line,
                col,
                message,
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (xorshift).
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }
    }

    /// Findings at a few paths (inside the dir, outside it, none), lines, columns
    /// and rules, many of them equal but for their message (the order found).
    fn findings(rng: &mut Rng, n: usize) -> Vec<Finding> {
        let paths = ["/d/a.md", "/d/b.md", "/d/sub/a.md", "/d/MEMORY.md", "/e/x.md", "/d"];
        let ids = [RuleId::ML122, RuleId::ML137, RuleId::ML203, RuleId::ML204];
        (0..n)
            .map(|i| {
                let mut f = Finding::new(
                    ids[rng.below(ids.len())],
                    Path::new(paths[rng.below(paths.len())]),
                    1 + rng.below(3),
                    1 + rng.below(200),
                    format!("message {i} é\n"),
                );
                if rng.below(10) == 0 {
                    f.path = None;
                }
                if rng.below(5) == 0 {
                    f.severity = Severity::Error;
                }
                f
            })
            .collect()
    }

    /// `all` split as a run splits them: those found first packed by path, then
    /// per file packed as the readers pack them, the rest (found last) loose.
    fn split(dir: &Path, all: &[Finding], rng: &mut Rng) -> Found {
        let first = rng.below(all.len() + 1);
        let second = first + rng.below(all.len() - first + 1);
        let (mut packed, mut loose) = pack_all(dir, all[..first].to_vec());
        for f in &all[first..second] {
            let path = f.path.as_deref().unwrap_or_else(|| Path::new("/d/a.md"));
            let (own, mut other) = pack(dir, path, vec![f.clone()]);
            packed.extend(own);
            loose.append(&mut other);
        }
        loose.extend_from_slice(&all[second..]);
        crate::lint::sort_findings(&mut loose);
        Found::new(dir, packed, loose)
    }

    #[test]
    fn unpacked_in_the_order_of_the_sort_of_all() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for round in 0..200 {
            let mut all = findings(&mut rng, 1 + round % 40);
            let found = split(Path::new("/d"), &all, &mut rng);
            crate::lint::sort_findings(&mut all);
            assert_eq!(found.to_vec(), all, "round {round}");
            assert_eq!(found.len(), all.len());
            assert_eq!(found.counts(), crate::lint::counts(&all));
        }
    }

    #[test]
    fn retain_keeps_what_filter_keeps() {
        let mut rng = Rng(7);
        for round in 0..100 {
            let mut all = findings(&mut rng, 1 + round % 30);
            let mut found = split(Path::new("/d"), &all, &mut rng);
            crate::lint::sort_findings(&mut all);
            let keep = |id: RuleId, s: Severity| id != RuleId::ML137 && s >= Severity::Warning;
            found.retain(keep);
            let kept: Vec<Finding> = all.into_iter().filter(|f| keep(f.id, f.severity)).collect();
            assert_eq!(found.to_vec(), kept, "round {round}");
            assert_eq!(found.is_empty(), kept.is_empty());
        }
    }

    #[test]
    fn a_path_outside_the_dir_and_odd_bytes_come_back_whole() {
        use std::os::unix::ffi::OsStrExt;
        let odd = Path::new(OsStr::from_bytes(b"/d/x\xff\n.md"));
        let outside = Path::new("/dd/y.md");
        let a = Finding::new(RuleId::ML137, odd, 300, 70_000, "a\u{0}b");
        let b = Finding::new(RuleId::ML203, outside, 1, 1, "");
        let (p, rest) = pack_all(Path::new("/d"), vec![b.clone(), a.clone()]);
        assert!(rest.is_empty());
        assert_eq!(Found::new(Path::new("/d"), p, Vec::new()).to_vec(), vec![a, b]);
    }

    #[test]
    fn messages_round_trip_and_phrases_pack_small() {
        let slug = "name `a b` is not a slug: Claude Code's first Write or Edit of this file stores `name: a-b`";
        let all = PHRASES.concat();
        let twice = format!("{}x{}", PHRASES[1], PHRASES[1]);
        let messages = [
            slug,
            "",
            "plain é",
            &all,
            &twice,
            "index line is 160 chars (guidance: under ~150)",
        ];
        for id in [RuleId::ML137, RuleId::ML204, RuleId::ML122, RuleId::ML101] {
            for m in messages {
                let mut v = Vec::new();
                put_message(&mut v, id, m);
                let mut at = 0;
                let len = get(&v, &mut at);
                assert_eq!(at + len, v.len(), "{m}");
                assert_eq!(&*message(&v[at..]), m);
            }
        }
        let mut v = Vec::new();
        put_message(&mut v, RuleId::ML137, slug);
        assert!(v.len() < 30, "{} bytes", v.len());
    }

    #[test]
    fn integers_round_trip() {
        for n in [0, 1, 127, 128, 300, 16_383, 16_384, usize::MAX] {
            let mut v = Vec::new();
            put(&mut v, n);
            let mut at = 0;
            assert_eq!(get(&v, &mut at), n);
            assert_eq!(at, v.len());
        }
    }
}
