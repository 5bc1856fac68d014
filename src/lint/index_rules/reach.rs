//! Reachability behind ML203's info level: which topic files link which, by
//! markdown links and `[[name]]` wikilinks.

use std::collections::{HashMap, HashSet, VecDeque};

use crate::index::{self, Target};
use crate::lint::facts::FileFacts;

/// Which topic files link which (markdown links and `[[name]]` wikilinks).
pub struct Reach {
    edges: HashMap<String, Vec<String>>,
}

impl Reach {
    /// The names wikilinks resolve by: frontmatter `name`, case-insensitive, and
    /// (2.1.332) its slug, the name Claude Code's first write stores (SPEC §2.4.6).
    pub fn names(memories: &[&FileFacts]) -> HashMap<String, String> {
        let mut by_name: HashMap<String, String> = HashMap::new();
        for m in memories {
            if let Some(n) = m.name() {
                by_name.entry(n.to_lowercase()).or_insert_with(|| m.rel().to_string());
                let slug = crate::memory::claude_slug(n);
                if !slug.is_empty() {
                    by_name.entry(slug).or_insert_with(|| m.rel().to_string());
                }
            }
        }
        by_name
    }

    /// The links of one file: markdown links to files inside the dir, and the
    /// names of its `[[name]]` wikilinks (resolved with [`Reach::resolve`] once
    /// every memory's name is known). `links` are the text's links
    /// ([`index::extract_links`]).
    pub fn links_of(rel: &str, text: &str, links: &[index::Link]) -> FileLinks {
        let base = rel.rsplit_once('/').map_or("", |(d, _)| d);
        let inside = links
            .iter()
            .filter_map(|l| match index::resolve_dest(&l.dest, base) {
                Some(Target::Inside(p)) => Some(p),
                _ => None,
            })
            .collect();
        let wiki = if text.contains("[[") {
            wikilinks(text)
        } else {
            Vec::new()
        };
        FileLinks { inside, wiki }
    }

    /// The memories a file's links reach, its wikilinks resolved by `by_name`.
    pub fn resolve(links: FileLinks, by_name: &HashMap<String, String>) -> Vec<String> {
        let mut targets = links.inside;
        targets.extend(links.wiki.iter().filter_map(|w| {
            by_name
                .get(&w.to_lowercase())
                .or_else(|| by_name.get(&crate::memory::claude_slug(w)))
                .cloned()
        }));
        targets
    }

    /// The files `f` links directly.
    pub fn direct(&self, f: &str) -> &[String] {
        self.edges.get(f).map_or(&[], Vec::as_slice)
    }

    pub fn new(edges: HashMap<String, Vec<String>>) -> Reach {
        Reach { edges }
    }

    /// Every file reachable from `start` through links, but not in `start` (no
    /// copy of `start`: 20 000 names at the peak of a large dir's lint).
    pub(super) fn beyond<'a>(&'a self, start: &HashSet<&'a str>) -> HashSet<&'a str> {
        let mut seen = HashSet::new();
        let mut queue: VecDeque<&str> = start.iter().copied().filter(|f| self.edges.contains_key(*f)).collect();
        while let Some(f) = queue.pop_front() {
            for t in self.edges.get(f).into_iter().flatten() {
                if !start.contains(t.as_str()) && seen.insert(t.as_str()) {
                    queue.push_back(t);
                }
            }
        }
        seen
    }
}

/// One file's links, as [`Reach::links_of`] finds them.
#[derive(Default)]
pub struct FileLinks {
    inside: Vec<String>,
    wiki: Vec<String>,
}

impl FileLinks {
    pub fn has_wikilinks(&self) -> bool {
        !self.wiki.is_empty()
    }

    pub fn is_empty(&self) -> bool {
        self.inside.is_empty() && self.wiki.is_empty()
    }
}

/// `[[name]]` wikilink targets (the part before `|` or `#`).
fn wikilinks(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("[[") {
        rest = &rest[i + 2..];
        if let Some(j) = rest.find("]]") {
            let inner = &rest[..j];
            if !inner.contains('\n') {
                out.push(inner.split(['|', '#']).next().unwrap_or(inner).trim().to_string());
            }
            rest = &rest[j + 2..];
        } else {
            // No `]]` after this `[[`, so none after any later one: stop (linear).
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wikilink_targets() {
        assert_eq!(
            wikilinks("see [[feedback-commit-style]] and [[a|alias]]"),
            vec!["feedback-commit-style", "a"]
        );
    }

    /// The breadth-first search `beyond` replaced: every file reachable from
    /// `start`, `start` included.
    fn reachable_with_start<'a>(r: &'a Reach, start: &HashSet<&'a str>) -> HashSet<&'a str> {
        let mut seen = start.clone();
        let mut queue: VecDeque<&str> = start.iter().copied().collect();
        while let Some(f) = queue.pop_front() {
            for t in r.edges.get(f).into_iter().flatten() {
                if seen.insert(t) {
                    queue.push_back(t);
                }
            }
        }
        seen
    }

    proptest::proptest! {
        #[test]
        fn beyond_is_the_reachable_files_outside_start(
            edges in proptest::collection::vec((0u8..12, 0u8..12), 0..30),
            start in proptest::collection::vec(0u8..12, 0..6),
        ) {
            let name = |i: u8| format!("f{i}.md");
            let mut map: HashMap<String, Vec<String>> = HashMap::new();
            for (a, b) in edges {
                map.entry(name(a)).or_default().push(name(b));
            }
            let r = Reach::new(map);
            let names: Vec<String> = start.into_iter().map(name).collect();
            let start: HashSet<&str> = names.iter().map(String::as_str).collect();
            let all = reachable_with_start(&r, &start);
            let want: HashSet<&str> = all.difference(&start).copied().collect();
            proptest::prop_assert_eq!(r.beyond(&start), want);
        }
    }
}
