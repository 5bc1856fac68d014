//! The links of an index (ML201, ML202, ML209, ML214): where each memory link
//! points, and whether its target exists under that exact name.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::index::{self, Target};

use super::Targets;
use crate::lint::{Finding, RuleId};

/// The memory links of the index `idx` (text `text`, links resolved in `dir`):
/// the findings about them, the targets with their lines, and the lines that
/// hold a memory link.
pub(super) fn check(idx: &Path, dir: &Path, text: &str, out: &mut Vec<Finding>) -> (Targets, HashSet<usize>) {
    let mut listings = Listings(HashMap::new());
    let mut targets: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    let mut link_lines: HashSet<usize> = HashSet::new();
    index::for_each_link(text, |l| match &l.target {
        Target::Inside(p) if l.is_memory_link() => {
            link_lines.insert(l.line);
            let lines_for = targets.entry(p.clone()).or_default();
            if lines_for.last() != Some(&l.line) {
                lines_for.push(l.line);
            }
            match listings.find(dir, p) {
                Ok(()) => {}
                Err(Some(actual)) => out.push(Finding::new(
                    RuleId::ML201,
                    idx,
                    l.line,
                    l.col,
                    format!("link target {p}: case differs from {actual}"),
                )),
                Err(None) => out.push(Finding::new(
                    RuleId::ML201,
                    idx,
                    l.line,
                    l.col,
                    format!("link target {p} does not exist"),
                )),
            }
        }
        Target::Outside(p) if l.is_memory_link() => {
            link_lines.insert(l.line);
            out.push(Finding::new(
                RuleId::ML202,
                idx,
                l.line,
                l.col,
                format!("link {} leaves the memory dir", l.dest),
            ));
        }
        Target::Inside(p) => out.push(Finding::new(
            RuleId::ML214,
            idx,
            l.line,
            l.col,
            format!("link {p} is not a memory file (.md)"),
        )),
        Target::Outside(p) if !p.starts_with('/') => out.push(Finding::new(
            RuleId::ML214,
            idx,
            l.line,
            l.col,
            format!("link {p} is not a memory file (.md)"),
        )),
        _ => {}
    });
    for (file, ls) in &targets {
        for extra in ls.iter().skip(1) {
            out.push(Finding::new(
                RuleId::ML209,
                idx,
                *extra,
                1,
                format!("{file} is already indexed on line {}", ls[0]),
            ));
        }
    }
    (Targets::new(targets), link_lines)
}

/// Exact-name existence of `rel` under `dir` (lstat semantics), with a cached
/// listing per directory: `Ok(())`, `Err(Some(actual))` for a case mismatch, or
/// `Err(None)` when missing.
struct Listings(HashMap<PathBuf, Listing>);

/// A directory's entry names, exact, and lower-cased once a name is missing.
#[derive(Default)]
struct Listing {
    exact: HashSet<String>,
    lower: Option<HashMap<String, String>>,
}

impl Listing {
    fn read(dir: &Path) -> Listing {
        let exact = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        Listing { exact, lower: None }
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
