//! Project-file citations in memory bodies (SPEC §3.11 phase 2, §3.13): the tokens
//! that name a file of the project, so the plan can list those that no longer exist.
//!
//! A line is read once, left to right: code spans first (a backtick run closed by
//! the next run of the same length, as in CommonMark), then the words of the text
//! between them, with enclosing punctuation and emphasis (`**`, `*`, `_`) taken
//! off. A token is a candidate when it contains a `/` and no whitespace, URI
//! scheme or link syntax; it is a citation only when it also looks like a path
//! ([`Shape`]).

use std::collections::{HashMap, HashSet, VecDeque};

/// What makes a candidate token look like a path (SPEC §3.13).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Shape {
    /// A file extension, or a leading `./`, `../` or `/`: a path whatever the
    /// project holds.
    Path,
    /// A leading `~/`: a path below the home directory (the part after `~/`).
    Home,
    /// None of those: a path only if its first segment names an existing entry of
    /// the project root (`src/gone/` when `src` exists).
    FirstSegment(String),
}

/// A candidate citation in a body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cited {
    /// 1-based line.
    pub line: usize,
    /// The token as written (`src/main.rs:12`).
    pub citation: String,
    /// Its path part (`src/main.rs`).
    pub path: String,
    pub shape: Shape,
}

/// The candidate citations of a body, outside fenced code blocks, each token once
/// per line. Linear in the text.
pub fn citations(text: &str) -> Vec<Cited> {
    let mut out = Vec::new();
    let mut fence = false;
    let mut words = Vec::new();
    for (li, line) in text.split('\n').enumerate() {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            fence = !fence;
            continue;
        }
        if fence {
            continue;
        }
        words.clear();
        tokens(line, &mut words);
        // A set, not a scan of `out`: a long line of distinct tokens stays linear.
        let mut seen = HashSet::new();
        for w in words.iter().copied() {
            let Some((path, shape)) = candidate(w) else {
                continue;
            };
            if seen.insert(w) {
                out.push(Cited {
                    line: li + 1,
                    citation: w.to_string(),
                    path: path.to_string(),
                    shape,
                });
            }
        }
    }
    out
}

/// The tokens of one line: each code span's content (trimmed), and the words of
/// the text around the spans, cleaned by [`clean`]. A backtick run without a
/// closer of its length is text.
fn tokens<'a>(line: &'a str, out: &mut Vec<&'a str>) {
    // Every backtick run (start, length), and per length the queue of its runs.
    let b = line.as_bytes();
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'`' {
            let s = i;
            while i < b.len() && b[i] == b'`' {
                i += 1;
            }
            runs.push((s, i - s));
        } else {
            i += 1;
        }
    }
    let mut by_len: HashMap<usize, VecDeque<usize>> = HashMap::new();
    for (k, &(_, n)) in runs.iter().enumerate() {
        by_len.entry(n).or_default().push_back(k);
    }
    let mut text_from = 0;
    let mut k = 0;
    while k < runs.len() {
        let (s, n) = runs[k];
        // The closer: the next run of the same length after this one. Every queue
        // entry is popped at most once, so the whole line stays linear.
        let Some(q) = by_len.get_mut(&n) else {
            k += 1;
            continue;
        };
        while q.front().is_some_and(|&j| j <= k) {
            q.pop_front();
        }
        match q.front().copied() {
            Some(j) => {
                words(&line[text_from..s], out);
                let code = line[s + n..runs[j].0].trim();
                if !code.is_empty() {
                    out.push(code);
                }
                text_from = runs[j].0 + n;
                k = j + 1;
            }
            None => k += 1,
        }
    }
    words(&line[text_from..], out);
}

/// Words split at whitespace and at CJK and full-width punctuation (`。`, `、`,
/// `（`), each cleaned; empty results are dropped.
fn words<'a>(text: &'a str, out: &mut Vec<&'a str>) {
    let split =
        |c: char| c.is_whitespace() || ('\u{3000}'..='\u{303f}').contains(&c) || ('\u{ff00}'..='\u{ff65}').contains(&c);
    out.extend(text.split(split).map(clean).filter(|w| !w.is_empty()));
}

const LEADING: [char; 6] = ['(', '[', '<', '"', '\'', '`'];
const TRAILING: [char; 10] = ['.', ',', ';', ':', ')', ']', '>', '"', '\'', '`'];

/// A word without its enclosing punctuation (SPEC §3.11's lists, and backticks)
/// and emphasis: `**docs/a.md**,` → `docs/a.md`. An asterisk that is part of a
/// glob (`*.md`, `docs/*`) stays, and so do underscores unless they pair up at
/// both ends (`__init__.py` stays whole).
fn clean(w: &str) -> &str {
    let mut w = w.trim_start_matches(LEADING).trim_end_matches(TRAILING);
    for _ in 0..2 {
        let lead = w.len() - w.trim_start_matches('*').len();
        if lead > 0 && !w[lead..].starts_with(['/', '.']) {
            w = &w[lead..];
        }
        let trail = w.len() - w.trim_end_matches('*').len();
        if trail > 0 && !w[..w.len() - trail].ends_with(['/', '.']) {
            w = &w[..w.len() - trail];
        }
        let lead = w.len() - w.trim_start_matches('_').len();
        let trail = w.len() - w.trim_end_matches('_').len();
        if lead > 0 && lead == trail && 2 * lead < w.len() {
            w = &w[lead..w.len() - lead];
        }
        w = w.trim_start_matches(LEADING).trim_end_matches(TRAILING);
    }
    w
}

/// The path part and shape of a token that is a citation, else `None`.
fn candidate(w: &str) -> Option<(&str, Shape)> {
    if !w.contains('/')
        || w.chars().any(char::is_whitespace)
        || w.contains("://")
        || w.starts_with("mailto:")
        || w.contains("](")
    {
        return None;
    }
    let path = strip_line_suffix(w);
    // Globs, placeholders, queries and quoted fragments name no one file.
    if path.is_empty() || path == "/" || path.contains(['*', '?', '<', '>', '{', '}', '|', '\\', '"', '\'', '…']) {
        return None;
    }
    let shape = if path.starts_with("~/") {
        Shape::Home
    } else if path.starts_with('~') {
        return None;
    } else if path.starts_with("./") || path.starts_with("../") || path.starts_with('/') || has_extension(path) {
        Shape::Path
    } else {
        let first = path.split('/').next().unwrap_or_default();
        if first.is_empty() || first == "." || first == ".." {
            return None;
        }
        Shape::FirstSegment(first.to_string())
    };
    Some((path, shape))
}

/// The last segment has a file extension: `name.ext` with 1–10 ASCII letters and
/// digits after the dot, at least one a letter (`gates.py`, `a.tar.gz`; not `1.5`,
/// `v2.0`, `.env` or the `i.e` of `e.g./i.e.`).
fn has_extension(path: &str) -> bool {
    let last = path.rsplit('/').next().unwrap_or_default();
    match last.rfind('.') {
        Some(d) if d > 0 => {
            let ext = &last[d + 1..];
            (1..=10).contains(&ext.len())
                && (d > 1 || ext.len() > 1)
                && ext.bytes().all(|b| b.is_ascii_alphanumeric())
                && ext.bytes().any(|b| b.is_ascii_alphabetic())
        }
        _ => false,
    }
}

/// `path:N` or `path:N-M` → `path`; `file.py::name` → `file.py` (a pytest node id).
fn strip_line_suffix(s: &str) -> &str {
    let s = match s.find("::") {
        Some(i) if i > 0 => &s[..i],
        _ => s,
    };
    if let Some((p, n)) = s.rsplit_once(':') {
        let ok = n
            .split_once('-')
            .map_or(!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()), |(a, b)| {
                !a.is_empty() && !b.is_empty() && (a.bytes().chain(b.bytes())).all(|x| x.is_ascii_digit())
            });
        if ok {
            return p;
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(text: &str) -> Vec<String> {
        citations(text).into_iter().map(|c| c.path).collect()
    }

    #[test]
    fn citation_tokens() {
        let c = citations(
            "See `src/main.rs:12` and (docs/guide.md). Not https://x.y/z or `plain`.\n```\nin/code.rs\n```\nlib/a.rs:3-9,",
        );
        let paths: Vec<&str> = c.iter().map(|x| x.path.as_str()).collect();
        assert_eq!(paths, vec!["src/main.rs", "docs/guide.md", "lib/a.rs"]);
        assert_eq!(c[2].line, 5);
        assert!(c.iter().all(|x| x.shape == Shape::Path));
    }

    /// Issue 14 §4: slashes in prose are not paths unless they look like one.
    #[test]
    fn prose_with_slashes_is_not_a_path_unless_its_first_segment_could_be() {
        let c = citations("green/green N/A 1/2 38/38 React/ReactDOM e.g./i.e v2.0/v3.0 5.5/1.5%");
        let shapes: Vec<(&str, &Shape)> = c.iter().map(|x| (x.path.as_str(), &x.shape)).collect();
        // Only a project root entry called `green`, `N`, `1`, … could make these paths.
        assert!(
            shapes.iter().all(|(_, s)| matches!(s, Shape::FirstSegment(_))),
            "{shapes:?}"
        );
        assert_eq!(c[0].shape, Shape::FirstSegment("green".into()));
    }

    #[test]
    fn emphasis_and_code_spans_are_parsed_before_tokens() {
        assert_eq!(
            paths("**`harness/`** and **docs/a.md**, *lib/b.py*"),
            vec!["harness/", "docs/a.md", "lib/b.py"]
        );
        assert_eq!(paths("**see docs/a.md**"), vec!["docs/a.md"]);
        assert_eq!(
            paths("`__init__.py` src/__init__.py __tests__/fixtures/"),
            vec!["src/__init__.py", "__tests__/fixtures/"]
        );
        assert_eq!(paths("_docs/a.md_"), vec!["docs/a.md"]);
        // A double-backtick span holds single backticks; an unclosed run is text.
        assert_eq!(paths("``a/`b`.md`` then ` x/y.md"), vec!["a/`b`.md", "x/y.md"]);
        // The span ends at its closer: what follows it is another token.
        assert_eq!(
            paths("`docs/design/*.md`。见 `ops/cli/combo.py`）"),
            vec!["ops/cli/combo.py"]
        );
        assert_eq!(paths("`scripts/pre-push`**"), vec!["scripts/pre-push"]);
    }

    #[test]
    fn shapes() {
        let one = |t: &str| citations(t).pop().map(|c| (c.path, c.shape));
        assert_eq!(one("./run.sh"), Some(("./run.sh".into(), Shape::Path)));
        assert_eq!(one("../up/x"), Some(("../up/x".into(), Shape::Path)));
        assert_eq!(one("/var/lib/x"), Some(("/var/lib/x".into(), Shape::Path)));
        assert_eq!(one("~/notes/x"), Some(("~/notes/x".into(), Shape::Home)));
        assert_eq!(one("~bob/x"), None);
        assert_eq!(
            one("tests/helpers.py::build/current"),
            Some(("tests/helpers.py".into(), Shape::Path))
        );
        assert_eq!(
            one("src/module/"),
            Some(("src/module/".into(), Shape::FirstSegment("src".into())))
        );
        for glob in [
            "docs/*.md",
            "src/<game>/x",
            "/table?table=",
            "a/{b,c}",
            "/blank?x=…",
            "type=\"text/babel",
        ] {
            assert_eq!(one(glob), None, "{glob}");
        }
    }

    #[test]
    fn long_lines_of_backticks_stay_linear() {
        // Runs of every length 1..n with no closer: each is looked up once.
        let line: String = (1..400).map(|n| "`".repeat(n) + " a/b.md ").collect();
        assert_eq!(citations(&line).len(), 1);
        let line = "` ".repeat(100_000);
        assert!(citations(&line).is_empty());
    }
}
