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
    let links = index::extract_links(text);
    let mut listings = Listings(HashMap::new());
    let mut targets: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    let mut link_lines: HashSet<usize> = HashSet::new();
    for l in &links {
        match &l.target {
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
        }
    }
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
    (targets, link_lines)
}

/// Exact-name existence of `rel` under `dir` (lstat semantics), with a cached
/// listing per directory: `Ok(())`, `Err(Some(actual))` for a case mismatch, or
/// `Err(None)` when missing.
struct Listings(HashMap<PathBuf, Listing>);

/// A directory's entry names, exact and lower-cased.
#[derive(Default)]
struct Listing {
    exact: HashSet<String>,
    lower: HashMap<String, String>,
}

impl Listings {
    fn find(&mut self, dir: &Path, rel: &str) -> Result<(), Option<String>> {
        let mut cur = dir.to_path_buf();
        let mut actual = Vec::new();
        let mut mismatch = false;
        for seg in rel.split('/') {
            let listing = self.0.entry(cur.clone()).or_insert_with(|| {
                let mut l = Listing::default();
                for e in std::fs::read_dir(&cur).into_iter().flatten().flatten() {
                    let name = e.file_name().to_string_lossy().into_owned();
                    l.lower.entry(name.to_lowercase()).or_insert_with(|| name.clone());
                    l.exact.insert(name);
                }
                l
            });
            if listing.exact.contains(seg) {
                actual.push(seg.to_string());
            } else if let Some(n) = listing.lower.get(&seg.to_lowercase()) {
                mismatch = true;
                actual.push(n.clone());
            } else {
                return Err(None);
            }
            cur = cur.join(actual.last().map_or(seg, String::as_str));
        }
        if mismatch { Err(Some(actual.join("/"))) } else { Ok(()) }
    }
}
