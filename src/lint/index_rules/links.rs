//! The links of an index (ML201, ML202, ML209, ML214): where each memory link
//! points, and whether its target exists under that exact name.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::index::{self, Link, Target};

use super::Targets;
use super::packed::Packed;
use crate::lint::{Finding, RuleId};

/// The memory links of the index `idx` (text `text`, links resolved in `dir`):
/// the findings about them, the targets, and the lines that hold a memory link
/// (sorted).
pub(super) fn check(idx: &Path, dir: &Path, text: &str, out: &mut Vec<Finding>) -> (Targets, Vec<usize>) {
    let (mut links, mut link_lines) = each_link(idx, dir, text, out);
    duplicates(idx, &mut links, out);
    let targets = Targets(Packed::new(links.spans.iter().map(|s| links.at(s))));
    link_lines.sort_unstable();
    link_lines.dedup();
    (targets, link_lines)
}

/// Each memory link's target (back to back in one string) and line.
#[derive(Default)]
struct MemoryLinks {
    names: String,
    /// Start and length in `names`, and the line.
    spans: Vec<(u32, u32, usize)>,
}

impl MemoryLinks {
    fn push(&mut self, target: &str, line: usize) {
        self.spans.push((self.names.len() as u32, target.len() as u32, line));
        self.names.push_str(target);
    }

    fn at(&self, &(start, len, _): &(u32, u32, usize)) -> &str {
        &self.names[start as usize..(start + len) as usize]
    }
}

/// The rules on each link by itself (ML201, ML202, ML214); the memory links and
/// the lines that hold one (in text order, a line once per run of its links).
fn each_link(idx: &Path, dir: &Path, text: &str, out: &mut Vec<Finding>) -> (MemoryLinks, Vec<usize>) {
    let mut listings = Listings(HashMap::new());
    let mut links = MemoryLinks::default();
    let mut link_lines: Vec<usize> = Vec::new();
    let mut memory_link = |line: usize| {
        if link_lines.last() != Some(&line) {
            link_lines.push(line);
        }
    };
    index::for_each_link(text, |l| match &l.target {
        Target::Inside(p) if l.is_memory_link() => {
            memory_link(l.line);
            links.push(p, l.line);
            out.extend(dangling(&mut listings, idx, dir, &l, p));
        }
        Target::Outside(_) if l.is_memory_link() => {
            memory_link(l.line);
            out.push(Finding::new(
                RuleId::ML202,
                idx,
                l.line,
                l.col,
                format!("link {} leaves the memory dir", l.dest),
            ));
        }
        Target::Inside(p) => out.push(not_md(idx, &l, p)),
        Target::Outside(p) if !p.starts_with('/') => out.push(not_md(idx, &l, p)),
        _ => {}
    });
    (links, link_lines)
}

/// ML201: the memory link `l` to `p` inside the dir names no file, or one whose
/// case differs.
fn dangling(listings: &mut Listings, idx: &Path, dir: &Path, l: &Link, p: &str) -> Option<Finding> {
    let message = match listings.find(dir, p) {
        Ok(()) => return None,
        Err(Some(actual)) => format!("link target {p}: case differs from {actual}"),
        Err(None) => format!("link target {p} does not exist"),
    };
    Some(Finding::new(RuleId::ML201, idx, l.line, l.col, message))
}

/// ML214: a relative link to something not `.md`.
fn not_md(idx: &Path, l: &Link, p: &str) -> Finding {
    Finding::new(
        RuleId::ML214,
        idx,
        l.line,
        l.col,
        format!("link {p} is not a memory file (.md)"),
    )
}

/// ML209: every line after a target's first that links it again. Leaves `links`
/// sorted by target, then line, one per target and line.
fn duplicates(idx: &Path, links: &mut MemoryLinks, out: &mut Vec<Finding>) {
    let MemoryLinks { names, spans } = links;
    let at = |&(start, len, _): &(u32, u32, usize)| &names[start as usize..(start + len) as usize];
    // A stable sort keeps the links of a line in order.
    spans.sort_by(|a, b| at(a).cmp(at(b)).then(a.2.cmp(&b.2)));
    spans.dedup_by(|a, b| a.2 == b.2 && at(a) == at(b));
    for pair in spans.windows(2) {
        let (first, next) = (&pair[0], &pair[1]);
        if at(first) == at(next) {
            let file = at(next);
            let first_line = spans[spans.partition_point(|l| at(l) < file)].2;
            out.push(Finding::new(
                RuleId::ML209,
                idx,
                next.2,
                1,
                format!("{file} is already indexed on line {first_line}"),
            ));
        }
    }
}

/// Exact-name existence of `rel` under `dir` (lstat semantics), with a cached
/// listing per directory: `Ok(())`, `Err(Some(actual))` for a case mismatch, or
/// `Err(None)` when missing.
struct Listings(HashMap<PathBuf, Listing>);

/// A directory's entry names, exact, and lower-cased once a name is missing.
#[derive(Default)]
struct Listing {
    exact: Packed,
    lower: Option<HashMap<String, String>>,
}

impl Listing {
    fn read(dir: &Path) -> Listing {
        let mut exact = super::packed::Builder::default();
        for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            exact.push(&e.file_name().to_string_lossy());
        }
        Listing {
            exact: exact.finish(),
            lower: None,
        }
    }

    /// The entry whose lower-cased name is `lower`; among several, the first the
    /// directory listed (the map is built in listing order, so rebuild it so).
    fn case_insensitive(&mut self, dir: &Path, seg: &str) -> Option<&String> {
        let map = self.lower.get_or_insert_with(|| {
            let mut map = HashMap::new();
            for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                map.entry(name.to_lowercase()).or_insert(name);
            }
            map
        });
        map.get(&seg.to_lowercase())
    }
}

impl Listings {
    fn find(&mut self, dir: &Path, rel: &str) -> Result<(), Option<String>> {
        let mut cur = dir.to_path_buf();
        let mut actual: Vec<String> = Vec::new();
        let mut mismatch = false;
        let mut segs = rel.split('/').peekable();
        while let Some(seg) = segs.next() {
            // Looked up by reference: the path is cloned only for a new directory.
            if !self.0.contains_key(&cur) {
                let l = Listing::read(&cur);
                self.0.insert(cur.clone(), l);
            }
            let Some(listing) = self.0.get_mut(&cur) else {
                return Err(None);
            };
            let name = if listing.exact.contains(seg) {
                seg.to_string()
            } else if let Some(n) = listing.case_insensitive(&cur, seg) {
                mismatch = true;
                n.clone()
            } else {
                return Err(None);
            };
            if segs.peek().is_some() {
                cur.push(&name);
            }
            actual.push(name);
        }
        if mismatch { Err(Some(actual.join("/"))) } else { Ok(()) }
    }
}
