//! Reading snapshots back: a commit's tracked files with their mtimes and lock
//! state, its trailers, and the changes between two states.

use std::collections::BTreeMap;

use gix::ObjectId;

use super::tracked::LockState;

/// One tracked file in a snapshot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileState {
    pub oid: ObjectId,
    pub link: bool,
    pub mtime_ns: i128,
}

/// What a snapshot recorded: the files by path bytes, and the lock.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct State {
    pub files: BTreeMap<Vec<u8>, FileState>,
    pub lock: Option<LockState>,
}

/// A snapshot's metadata.
#[derive(Clone, Debug)]
pub struct Snap {
    pub id: ObjectId,
    pub parent: Option<ObjectId>,
    pub time: i64,
    pub summary: String,
    /// The body between the summary and the trailers (`snapshot -m`), if any.
    pub message: Option<String>,
    pub trailers: Vec<(String, String)>,
}

impl Snap {
    pub fn trailer(&self, key: &str) -> Option<&str> {
        self.trailers.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    pub fn trigger(&self) -> &str {
        self.trailer("Trigger").unwrap_or("external")
    }

    pub fn short(&self) -> String {
        self.id.to_hex_with_len(8).to_string()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ChangeKind {
    Added,
    Modified,
    Deleted,
    Touched,
}

impl ChangeKind {
    /// The word the JSON documents use (`added`, `modified`, `deleted`, `touched`).
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Added => "added",
            ChangeKind::Modified => "modified",
            ChangeKind::Deleted => "deleted",
            ChangeKind::Touched => "touched",
        }
    }

    pub fn mark(self) -> char {
        match self {
            ChangeKind::Added => '+',
            ChangeKind::Modified => '~',
            ChangeKind::Deleted => '-',
            ChangeKind::Touched => 't',
        }
    }
}

/// One file's change between two states.
#[derive(Clone, Debug)]
pub struct Change {
    pub rel: Vec<u8>,
    pub kind: ChangeKind,
    pub before: Option<FileState>,
    pub after: Option<FileState>,
}

impl Change {
    pub fn file(&self) -> String {
        String::from_utf8_lossy(&self.rel).into_owned()
    }
}

/// The file changes from `a` to `b`, by path: one pass over both sorted maps
/// (20 000 files: no lookup per file).
pub fn changes(a: &State, b: &State) -> Vec<Change> {
    use std::cmp::Ordering;
    let change = |rel: &Vec<u8>, kind, before: Option<&FileState>, after: Option<&FileState>| Change {
        rel: rel.clone(),
        kind,
        before: before.cloned(),
        after: after.cloned(),
    };
    let mut out = Vec::new();
    let (mut xs, mut ys) = (a.files.iter().peekable(), b.files.iter().peekable());
    loop {
        let order = match (xs.peek(), ys.peek()) {
            (None, None) => break,
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (Some((r, _)), Some((q, _))) => r.cmp(q),
        };
        match order {
            Ordering::Less => {
                let Some((rel, x)) = xs.next() else { break };
                out.push(change(rel, ChangeKind::Deleted, Some(x), None));
            }
            Ordering::Greater => {
                let Some((rel, y)) = ys.next() else { break };
                out.push(change(rel, ChangeKind::Added, None, Some(y)));
            }
            Ordering::Equal => {
                let (Some((rel, x)), Some((_, y))) = (xs.next(), ys.next()) else {
                    break;
                };
                if y != x {
                    let kind = if y.oid == x.oid && y.link == x.link {
                        ChangeKind::Touched
                    } else {
                        ChangeKind::Modified
                    };
                    out.push(change(rel, kind, Some(x), Some(y)));
                }
            }
        }
    }
    out
}

/// The state a commit recorded.
pub fn load_state(repo: &gix::Repository, commit: ObjectId) -> Result<State, String> {
    let c = repo.find_commit(commit).map_err(|e| e.to_string())?;
    let tree = c.tree_id().map_err(|e| e.to_string())?.detach();
    let mut blobs: Vec<(Vec<u8>, ObjectId, bool)> = Vec::new();
    let mut meta: BTreeMap<Vec<u8>, ObjectId> = BTreeMap::new();
    let mut stack = vec![(tree, Vec::new())];
    while let Some((id, prefix)) = stack.pop() {
        let t = repo.find_tree(id).map_err(|e| e.to_string())?;
        let decoded = t.decode().map_err(|e| e.to_string())?;
        for e in &decoded.entries {
            let mut rel = prefix.clone();
            if !rel.is_empty() {
                rel.push(b'/');
            }
            rel.extend_from_slice(e.filename);
            let oid = e.oid.to_owned();
            if prefix.is_empty() && e.filename == b".memctl".as_slice() {
                let t = repo.find_tree(oid).map_err(|e| e.to_string())?;
                for m in &t.decode().map_err(|e| e.to_string())?.entries {
                    meta.insert(m.filename.to_vec(), m.oid.to_owned());
                }
                continue;
            }
            if e.mode.is_tree() {
                stack.push((oid, rel));
            } else {
                blobs.push((rel, oid, e.mode.is_link()));
            }
        }
    }
    // Looked up once per file: hashed, not searched (SPEC v3 §7.2 latency).
    let mtimes: crate::fx::HashMap<Vec<u8>, i128> = match meta.get(b"mtimes".as_slice()) {
        Some(id) => mtime_lines(&blob(repo, *id)?).collect(),
        None => Default::default(),
    };
    let lock = match meta.get(b"consolidate-lock".as_slice()) {
        Some(id) => parse_lock(&blob(repo, *id)?),
        None => None,
    };
    let files = blobs
        .into_iter()
        .map(|(rel, oid, link)| {
            let mtime_ns = mtimes.get(&rel).copied().unwrap_or(0);
            (rel, FileState { oid, link, mtime_ns })
        })
        .collect();
    Ok(State { files, lock })
}

pub fn blob(repo: &gix::Repository, id: ObjectId) -> Result<Vec<u8>, String> {
    // Taken, not cloned: a large blob is held once.
    Ok(repo.find_blob(id).map_err(|e| e.to_string())?.take_data())
}

/// A snapshot's metadata from its commit.
pub fn snap(repo: &gix::Repository, id: ObjectId) -> Result<Snap, String> {
    let c = repo.find_commit(id).map_err(|e| e.to_string())?;
    let parent = c.parent_ids().next().map(|p| p.detach());
    let time = c.time().map_err(|e| e.to_string())?.seconds;
    let msg = c.message_raw().map_err(|e| e.to_string())?.to_string();
    let (summary, message, trailers) = parse_message(&msg);
    Ok(Snap {
        id,
        parent,
        time,
        summary,
        message,
        trailers,
    })
}

/// Every snapshot from `head` back along first parents, newest first.
pub fn log(repo: &gix::Repository, head: Option<ObjectId>) -> Result<Vec<Snap>, String> {
    let mut out = Vec::new();
    let mut next = head;
    while let Some(id) = next {
        let s = snap(repo, id)?;
        next = s.parent;
        out.push(s);
    }
    Ok(out)
}

/// Summary, body and trailers (`Key: value` lines of the last paragraph).
fn parse_message(msg: &str) -> (String, Option<String>, Vec<(String, String)>) {
    let msg = msg.trim_end();
    let (summary, rest) = msg.split_once('\n').unwrap_or((msg, ""));
    let rest = rest.trim_start_matches('\n');
    let (body, last) = rest.rsplit_once("\n\n").unwrap_or(("", rest));
    let is_trailer = |l: &str| {
        l.split_once(": ")
            .is_some_and(|(k, _)| !k.is_empty() && k.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'))
    };
    let (body, trailers) = if !last.is_empty() && last.lines().all(is_trailer) {
        let t = last
            .lines()
            .filter_map(|l| l.split_once(": "))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        (body, t)
    } else {
        (rest, Vec::new())
    };
    let body = body.trim();
    (
        summary.to_string(),
        (!body.is_empty()).then(|| body.to_string()),
        trailers,
    )
}

/// `<ns>\t<path>` lines, the path C-quoted when needed.
pub fn render_mtimes(files: &[(Vec<u8>, i128)]) -> Vec<u8> {
    let mut out = Vec::new();
    for (rel, ns) in files {
        out.extend_from_slice(ns.to_string().as_bytes());
        out.push(b'\t');
        out.extend_from_slice(&c_quote(rel));
        out.push(b'\n');
    }
    out
}

pub fn parse_mtimes(text: &[u8]) -> BTreeMap<Vec<u8>, i128> {
    mtime_lines(text).collect()
}

fn mtime_lines(text: &[u8]) -> impl Iterator<Item = (Vec<u8>, i128)> + '_ {
    text.split(|b| *b == b'\n').filter_map(|l| {
        let tab = l.iter().position(|b| *b == b'\t')?;
        let ns = std::str::from_utf8(&l[..tab]).ok()?.parse().ok()?;
        Some((c_unquote(&l[tab + 1..]), ns))
    })
}

pub fn render_lock(lock: &LockState) -> Vec<u8> {
    let mut out = lock.mtime_ns.to_string().into_bytes();
    out.push(b'\t');
    out.extend_from_slice(&lock.body);
    out
}

fn parse_lock(text: &[u8]) -> Option<LockState> {
    let tab = text.iter().position(|b| *b == b'\t')?;
    let mtime_ns = std::str::from_utf8(&text[..tab]).ok()?.parse().ok()?;
    Some(LockState {
        mtime_ns,
        body: text[tab + 1..].to_vec(),
    })
}

/// Git's C-quoting, applied when a path holds a tab, a newline, a `"` or a `\`.
pub(super) fn c_quote(p: &[u8]) -> Vec<u8> {
    if !p.iter().any(|b| matches!(b, b'\t' | b'\n' | b'"' | b'\\')) {
        return p.to_vec();
    }
    let mut out = vec![b'"'];
    for &b in p {
        match b {
            b'\t' => out.extend_from_slice(b"\\t"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b => out.push(b),
        }
    }
    out.push(b'"');
    out
}

pub(super) fn c_unquote(p: &[u8]) -> Vec<u8> {
    let Some(inner) = p.strip_prefix(b"\"").and_then(|p| p.strip_suffix(b"\"")) else {
        return p.to_vec();
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < inner.len() {
        if inner[i] == b'\\' && i + 1 < inner.len() {
            out.push(match inner[i + 1] {
                b't' => b'\t',
                b'n' => b'\n',
                other => other,
            });
            i += 2;
        } else {
            out.push(inner[i]);
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The changes as they were computed before the one-pass merge: a lookup per
    /// file, then the added ones, sorted by path.
    fn changes_by_lookup(a: &State, b: &State) -> Vec<Change> {
        let mut out = Vec::new();
        for (rel, x) in &a.files {
            match b.files.get(rel) {
                None => out.push((rel.clone(), ChangeKind::Deleted, Some(x.clone()), None)),
                Some(y) if y == x => {}
                Some(y) => {
                    let kind = if y.oid == x.oid && y.link == x.link {
                        ChangeKind::Touched
                    } else {
                        ChangeKind::Modified
                    };
                    out.push((rel.clone(), kind, Some(x.clone()), Some(y.clone())));
                }
            }
        }
        for (rel, y) in &b.files {
            if !a.files.contains_key(rel) {
                out.push((rel.clone(), ChangeKind::Added, None, Some(y.clone())));
            }
        }
        out.sort_by(|x, y| x.0.cmp(&y.0));
        out.into_iter()
            .map(|(rel, kind, before, after)| Change {
                rel,
                kind,
                before,
                after,
            })
            .collect()
    }

    #[test]
    fn the_one_pass_changes_are_the_looked_up_ones() {
        let oid = |n: u8| ObjectId::from_bytes_or_panic(&[n; 20]);
        let st = |files: &[(&str, u8, bool, i128)]| State {
            files: files
                .iter()
                .map(|(r, o, l, m)| {
                    (
                        r.as_bytes().to_vec(),
                        FileState {
                            oid: oid(*o),
                            link: *l,
                            mtime_ns: *m,
                        },
                    )
                })
                .collect(),
            lock: None,
        };
        let a = st(&[
            ("a.md", 1, false, 1),
            ("b.md", 2, false, 1),
            ("d/x.md", 3, false, 1),
            ("d.md", 4, false, 1),
            ("e.md", 5, false, 1),
            ("z.md", 6, true, 1),
        ]);
        let b = st(&[
            ("a-b.md", 9, false, 1),
            ("a.md", 1, false, 1),
            ("b.md", 2, false, 2),
            ("d.md", 7, false, 1),
            ("d/y.md", 3, false, 1),
            ("z.md", 6, false, 1),
            ("zz.md", 8, false, 1),
        ]);
        let empty = State::default();
        for (x, y) in [
            (&a, &b),
            (&b, &a),
            (&a, &a),
            (&empty, &a),
            (&a, &empty),
            (&empty, &empty),
        ] {
            let got: Vec<_> = changes(x, y)
                .into_iter()
                .map(|c| (c.rel, c.kind, c.before, c.after))
                .collect();
            let want: Vec<_> = changes_by_lookup(x, y)
                .into_iter()
                .map(|c| (c.rel, c.kind, c.before, c.after))
                .collect();
            assert_eq!(got, want);
        }
        assert_eq!(changes(&a, &b).len(), 8);
    }

    #[test]
    fn quoted_paths_and_messages_round_trip() {
        let files = vec![
            (b"a\tb.md".to_vec(), 5i128),
            (b"q\"\\.md".to_vec(), -1),
            (b"plain.md".to_vec(), 7),
        ];
        let parsed = parse_mtimes(&render_mtimes(&files));
        assert_eq!(parsed.len(), 3);
        assert_eq!(parsed[b"a\tb.md".as_slice()], 5);
        assert_eq!(parsed[b"q\"\\.md".as_slice()], -1);
        let (s, body, t) = parse_message("add: a.md\n\nhand note\n\nTrigger: add\nRecorded-By: add\n");
        assert_eq!((s.as_str(), body.as_deref()), ("add: a.md", Some("hand note")));
        assert_eq!(
            t,
            vec![("Trigger".into(), "add".into()), ("Recorded-By".into(), "add".into())]
        );
        let (_, body, t) = parse_message("baseline\n\nTrigger: baseline\n");
        assert_eq!((body, t.len()), (None, 1));
    }
}

/// A change as the commands report it (SPEC §8.3 `changes` items).
#[derive(Clone, Debug, serde::Serialize)]
pub struct ChangeDoc {
    pub file: String,
    pub change: ChangeKind,
    pub lines_added: usize,
    pub lines_removed: usize,
}

/// Line counts of one change (0/0 for a touch); `bytes` gives a blob's content.
pub fn change_doc(c: &Change, bytes: &mut dyn FnMut(ObjectId) -> Vec<u8>) -> ChangeDoc {
    let text = |f: &Option<FileState>, bytes: &mut dyn FnMut(ObjectId) -> Vec<u8>| {
        f.as_ref()
            .map(|f| String::from_utf8_lossy(&bytes(f.oid)).into_owned())
            .unwrap_or_default()
    };
    // An added or deleted file's lines are counted on its bytes: no text copy and
    // no diff of a large file (issue 29 point 7).
    let (added, removed) = match (&c.before, &c.after) {
        _ if c.kind == ChangeKind::Touched => (0, 0),
        (None, Some(a)) => (count_lines(&bytes(a.oid)), 0),
        (Some(b), None) => (0, count_lines(&bytes(b.oid))),
        _ => crate::diff::line_counts(&text(&c.before, bytes), &text(&c.after, bytes)),
    };
    ChangeDoc {
        file: c.file(),
        change: c.kind,
        lines_added: added,
        lines_removed: removed,
    }
}

/// The lines of `bytes` as [`crate::diff::line_counts`] counts them against an empty
/// file: each line break ends one, and a last line without one counts too.
fn count_lines(bytes: &[u8]) -> usize {
    memchr::memchr_iter(b'\n', bytes).count() + usize::from(bytes.last().is_some_and(|b| *b != b'\n'))
}

#[cfg(test)]
mod count_tests {
    #[test]
    fn lines_of_an_added_file_count_as_the_diff_does() {
        for t in ["", "a", "a\n", "a\nb", "a\r\nb\r\n", "\n\n", "x\u{fffd}\ny"] {
            assert_eq!(
                super::count_lines(t.as_bytes()),
                crate::diff::line_counts("", t).0,
                "{t:?}"
            );
            assert_eq!(
                super::count_lines(t.as_bytes()),
                crate::diff::line_counts(t, "").1,
                "{t:?}"
            );
        }
    }
}
