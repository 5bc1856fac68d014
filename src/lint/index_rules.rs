//! Rules on `MEMORY.md` (ML201–ML215) and the reachability behind ML203.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};

use crate::index::{self, Target, load};
use crate::memory::Memory;
use crate::text::is_js_space;

use super::{Finding, RuleId, Severity};

/// An index file and the topic files it is expected to link.
pub struct Scope {
    pub index: PathBuf,
    /// The directory the index's links resolve in.
    base: PathBuf,
    /// The index's dir relative to the linted dir (`""` or `team`).
    pub prefix: String,
    /// Files under `team/` belong to another scope.
    exclude_team: bool,
}

impl Scope {
    /// An index file checked on its own, its links resolved in `base`.
    pub fn single(index: &Path, base: &Path) -> Scope {
        Scope {
            index: index.to_path_buf(),
            base: base.to_path_buf(),
            prefix: String::new(),
            exclude_team: false,
        }
    }

    /// Whether a scanned file (relative to the linted dir) belongs to this index.
    fn owns(&self, rel: &str) -> bool {
        if rel.starts_with("logs/") {
            return false;
        }
        match self.prefix.as_str() {
            "" => !(self.exclude_team && rel.starts_with("team/")),
            p => rel.strip_prefix(p).is_some_and(|r| r.starts_with('/')),
        }
    }

    /// `rel` as the index sees it (relative to the index's dir).
    fn local<'a>(&self, rel: &'a str) -> &'a str {
        if self.prefix.is_empty() {
            rel
        } else {
            rel.strip_prefix(&self.prefix)
                .map_or(rel, |r| r.trim_start_matches('/'))
        }
    }
}

/// The index files lint checks: the dir's `MEMORY.md`, and `team/MEMORY.md` when
/// linting the main dir.
pub fn scopes(dir: &Path, with_team: bool) -> Vec<Scope> {
    let team = with_team && dir.join("team").is_dir();
    let mut out = vec![Scope {
        index: dir.join("MEMORY.md"),
        base: dir.to_path_buf(),
        prefix: String::new(),
        exclude_team: team,
    }];
    if team {
        out.push(Scope {
            index: dir.join("team").join("MEMORY.md"),
            base: dir.join("team"),
            prefix: "team".into(),
            exclude_team: false,
        });
    }
    out
}

/// Which topic files link which (markdown links and `[[name]]` wikilinks).
pub struct Reach {
    edges: HashMap<String, Vec<String>>,
}

impl Reach {
    /// The names wikilinks resolve by: frontmatter `name`, case-insensitive.
    pub fn names(memories: &[Memory]) -> HashMap<String, String> {
        let mut by_name: HashMap<String, String> = HashMap::new();
        for m in memories {
            if let Some(n) = m.name() {
                by_name.entry(n.to_lowercase()).or_insert_with(|| m.rel.clone());
            }
        }
        by_name
    }

    /// The links of one file: markdown links to files inside the dir, and the
    /// names of its `[[name]]` wikilinks (resolved with [`Reach::resolve`] once
    /// every memory's name is known).
    pub fn links_of(rel: &str, text: &str) -> FileLinks {
        let base = rel.rsplit_once('/').map_or("", |(d, _)| d);
        let inside = index::extract_links(text)
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
        targets.extend(
            links
                .wiki
                .iter()
                .filter_map(|w| by_name.get(&w.to_lowercase()).cloned()),
        );
        targets
    }

    pub fn new(edges: HashMap<String, Vec<String>>) -> Reach {
        Reach { edges }
    }

    /// Every file reachable from `start` through links.
    fn from<'a>(&'a self, start: &HashSet<&'a str>) -> HashSet<&'a str> {
        let mut seen = start.clone();
        let mut queue: VecDeque<&str> = start.iter().copied().collect();
        while let Some(f) = queue.pop_front() {
            for t in self.edges.get(f).into_iter().flatten() {
                if seen.insert(t) {
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
        }
    }
    out
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

fn is_canonical(line: &str) -> bool {
    // ^- \[(?:[^\]\\]|\\.)+\]\([^)\s]+\.md\) — \S.*$ with JavaScript \s and `.`.
    let Some(rest) = line.strip_prefix("- [") else {
        return false;
    };
    let chars: Vec<char> = rest.chars().collect();
    let mut i = 0;
    while i < chars.len() && chars[i] != ']' {
        if chars[i] == '\\' {
            i += 1;
        }
        i += 1;
    }
    if i == 0 || i >= chars.len() || chars.get(i + 1) != Some(&'(') {
        return false;
    }
    let after: String = chars[i + 2..].iter().collect();
    let Some(close) = after.find(')') else { return false };
    let file = &after[..close];
    if file.len() < 4 || !file.ends_with(".md") || file.chars().any(is_js_space) {
        return false;
    }
    let Some(hook) = after[close + 1..].strip_prefix(" — ") else {
        return false;
    };
    hook.chars().next().is_some_and(|c| !is_js_space(c)) && !hook.chars().any(crate::text::is_js_line_terminator)
}

fn list_lines(lines: &[usize]) -> String {
    let shown: Vec<String> = lines.iter().take(20).map(usize::to_string).collect();
    let more = lines.len().saturating_sub(20);
    if more > 0 {
        format!("{} … and {more} more", shown.join(", "))
    } else {
        shown.join(", ")
    }
}

/// Run the index rules for one scope; returns the number of files examined.
pub fn check(scope: &Scope, memories: &[Memory], reach: &Reach, warn_at: f64, out: &mut Vec<Finding>) -> usize {
    let (files, targets) = check_index(scope, warn_at, out);
    check_files(scope, memories, targets.as_ref(), reach, out);
    files
}

/// The index rules on the scope's topic files, once they are known: ML203 with
/// the index's `targets`, ML213 when there was no readable index.
pub fn check_files(
    scope: &Scope,
    memories: &[Memory],
    targets: Option<&Targets>,
    reach: &Reach,
    out: &mut Vec<Finding>,
) {
    match targets {
        Some(targets) => check_unindexed(scope, memories, targets, reach, out),
        None => check_missing(scope, memories, out),
    }
}

/// ML213: topic files but no index (for a scope whose index could not be read).
fn check_missing(scope: &Scope, memories: &[Memory], out: &mut Vec<Finding>) {
    let owned = memories.iter().filter(|m| scope.owns(&m.rel)).count();
    let idx = &scope.index;
    if owned > 0 && std::fs::symlink_metadata(idx).is_err() {
        out.push(Finding::file(
            RuleId::ML213,
            idx,
            format!("{owned} topic files but no MEMORY.md: Claude Code loads no memory; create the index"),
        ));
    }
}

/// The memory links of an index: target → lines.
pub type Targets = BTreeMap<String, Vec<usize>>;

/// The index rules that need neither the topic files nor reachability (all but
/// ML203 and ML213); returns the number of files examined and the index's targets
/// (`None` when there is no readable index: see [`check_files`]).
pub fn check_index(scope: &Scope, warn_at: f64, out: &mut Vec<Finding>) -> (usize, Option<Targets>) {
    let idx = &scope.index;
    let Ok(bytes) = std::fs::read(idx) else {
        return (0, None);
    };
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let dir = scope.base.as_path();
    let lines = index::lines(&text);
    let loaded = load::load(&text);
    if loaded.frontmatter_stripped {
        out.push(Finding::file(
            RuleId::ML208,
            idx,
            "MEMORY.md has a frontmatter block; Claude Code strips it: remove it",
        ));
    }
    if text.contains("\r\n") {
        out.push(Finding::file(
            RuleId::ML215,
            idx,
            "CRLF line endings; each CR counts toward the 25 000 units",
        ));
    }
    if let Some(pos) = unclosed_comment(&text) {
        let line = crate::text::count_byte(&text.as_bytes()[..pos], b'\n') + 1;
        out.push(Finding::new(
            RuleId::ML212,
            idx,
            line,
            1,
            "`<!--` is never closed: Claude Code loads the rest verbatim",
        ));
    }
    for d in crate::dates::find(&text) {
        out.push(
            Finding::new(
                RuleId::ML116,
                idx,
                d.line,
                d.col,
                format!("relative date `{}` in the index: write the absolute date", d.phrase),
            )
            .with_severity(Severity::Info),
        );
    }
    let links = index::extract_links(&text);
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
    let comment = index::comment_lines(&text);
    let mut run_start: Option<usize> = None;
    for (i, line) in lines.iter().enumerate() {
        let n = i + 1;
        if link_lines.contains(&n) {
            let len = line.chars().count();
            if len > 200 {
                out.push(
                    Finding::new(
                        RuleId::ML204,
                        idx,
                        n,
                        1,
                        format!("index line is {len} chars (guidance: under ~150; the load warning says ~200)"),
                    )
                    .with_severity(Severity::Warning),
                );
            } else if len > 150 {
                out.push(
                    Finding::new(
                        RuleId::ML204,
                        idx,
                        n,
                        1,
                        format!("index line is {len} chars (guidance: under ~150)"),
                    )
                    .with_severity(Severity::Info),
                );
            }
            if !is_canonical(line) {
                out.push(Finding::new(
                    RuleId::ML210,
                    idx,
                    n,
                    1,
                    "not in the canonical form `- [Title](file.md) — hook`",
                ));
            }
        }
        let t = line.trim();
        let structural = t.is_empty()
            || t.starts_with('#')
            || t.starts_with('>')
            || comment[i]
            || link_lines.contains(&n)
            || (t.len() >= 3
                && (t.chars().all(|c| c == '-' || c == ' ')
                    || t.chars().all(|c| c == '*' || c == ' ')
                    || t.chars().all(|c| c == '_' || c == ' ')));
        match (structural, run_start) {
            (false, None) => run_start = Some(n),
            (true, Some(s)) => {
                out.push(content_run(idx, s, n - 1));
                run_start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = run_start {
        out.push(content_run(idx, s, lines.len()));
    }
    cap_rules(idx, &loaded, warn_at, out);
    (1, Some(targets))
}

/// ML203: files the index does not link.
fn check_unindexed(scope: &Scope, memories: &[Memory], targets: &Targets, reach: &Reach, out: &mut Vec<Finding>) {
    let owned: Vec<&Memory> = memories.iter().filter(|m| scope.owns(&m.rel)).collect();
    unindexed(scope, &owned, targets, reach, out);
}

fn content_run(idx: &Path, from: usize, to: usize) -> Finding {
    let what = if from == to {
        format!("line {from} is")
    } else {
        format!("lines {from}–{to} are")
    };
    Finding::new(
        RuleId::ML211,
        idx,
        from,
        1,
        format!("{what} memory content, not index entries; move it into a topic file"),
    )
}

fn unclosed_comment(text: &str) -> Option<usize> {
    let mut pos = 0;
    while let Some(i) = text[pos..].find("<!--") {
        let start = pos + i;
        match text[start + 4..].find("-->") {
            Some(j) => pos = start + 4 + j + 3,
            None => return Some(start),
        }
    }
    None
}

fn cap_rules(idx: &Path, l: &load::Load, warn_at: f64, out: &mut Vec<Finding>) {
    if l.line_truncated {
        let after: Vec<usize> = l
            .dropped
            .iter()
            .filter(|d| d.index >= load::MAX_LINES)
            .map(|d| d.line)
            .collect();
        let line = after.first().copied().unwrap_or(1);
        out.push(Finding::new(
            RuleId::ML205,
            idx,
            line,
            1,
            format!(
                "{} lines (limit: 200): entries after line 200 are not loaded: lines {}",
                l.line_count,
                list_lines(&after)
            ),
        ));
    }
    if l.unit_truncated {
        let cut: Vec<usize> = l
            .dropped
            .iter()
            .filter(|d| d.index < load::MAX_LINES)
            .map(|d| d.line)
            .collect();
        let line = cut.first().copied().unwrap_or(1);
        out.push(Finding::new(
            RuleId::ML206,
            idx,
            line,
            1,
            format!(
                "{} units (limit: 25 000): entries cut by the unit cap: lines {}",
                crate::text::group_digits(l.unit_count as i64),
                if cut.is_empty() {
                    "none beyond the line cap".into()
                } else {
                    list_lines(&cut)
                }
            ),
        ));
    }
    if !l.truncated() {
        let line_pct = 100.0 * l.line_count as f64 / load::MAX_LINES as f64;
        let unit_pct = 100.0 * l.unit_count as f64 / load::MAX_UNITS as f64;
        if line_pct >= warn_at || unit_pct >= warn_at {
            out.push(Finding::file(
                RuleId::ML207,
                idx,
                format!(
                    "near Claude Code's cut: {} of 200 lines, {} of 25 000 units ({}%)",
                    l.line_count,
                    l.unit_count,
                    crate::text::to_fixed1(unit_pct)
                ),
            ));
        }
    }
}

fn unindexed(
    scope: &Scope,
    owned: &[&Memory],
    targets: &BTreeMap<String, Vec<usize>>,
    reach: &Reach,
    out: &mut Vec<Finding>,
) {
    let indexed: HashSet<&str> = owned
        .iter()
        .filter(|m| targets.contains_key(scope.local(&m.rel)))
        .map(|m| m.rel.as_str())
        .collect();
    let reachable = reach.from(&indexed);
    let index_name = if scope.prefix.is_empty() {
        "MEMORY.md".to_string()
    } else {
        format!("{}/MEMORY.md", scope.prefix)
    };
    for m in owned {
        if indexed.contains(m.rel.as_str()) {
            continue;
        }
        if reachable.contains(m.rel.as_str()) {
            out.push(
                Finding::file(
                    RuleId::ML203,
                    &m.path,
                    format!("not in {index_name}, but linked from an indexed memory"),
                )
                .with_severity(Severity::Info),
            );
        } else {
            out.push(Finding::file(
                RuleId::ML203,
                &m.path,
                format!("not in {index_name}: Claude Code never loads it; add an index line (`memctl lint --fix`)"),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_lines() {
        assert!(is_canonical("- [Title](file.md) — hook"));
        assert!(is_canonical("- [T \\] x](sub/f.md) — h"));
        assert!(!is_canonical("- **[Title](file.md)** — hook"));
        assert!(!is_canonical("- [Title](file.md) - hook"));
        assert!(!is_canonical("- [Title](file.txt) — hook"));
        assert!(!is_canonical("- [Title](file.md) —  "));
    }

    #[test]
    fn wikilink_targets() {
        assert_eq!(
            wikilinks("see [[feedback-commit-style]] and [[a|alias]]"),
            vec!["feedback-commit-style", "a"]
        );
    }
}
