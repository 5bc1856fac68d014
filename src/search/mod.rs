//! `memctl search` (SPEC §9): the memories whose name, description or body hold
//! every word of a query, ranked exact matches first (every word matched whole,
//! not only as the prefix a `*` asks for), then by where they match (name >
//! description > body) and then by BM25 over the bodies, each with its best
//! matching line.
//!
//! [`search_dirs`] takes the memory dirs to search, so one dir and every project's
//! dirs are searched alike. Files are enumerated by the scan, as `list --all`
//! does (every memory file, `MEMORY.md` excluded, never a FIFO), and read whole
//! (at most [`MAX_FILE_BYTES`]) by the scan's reader threads, which fold and match
//! each as they go; only the matches' lines are kept. `fold`, `matcher` and `rank`
//! are pure.

use std::fs::File;
use std::io::Read;

use serde::Serialize;

use crate::memdir::MemoryDir;
use crate::memory::{Memory, MemoryType, TypeFilter};

pub mod fold;
pub mod matcher;
pub mod rank;

pub use matcher::{Field, Query};

/// The most of one file that is searched.
pub const MAX_FILE_BYTES: u64 = 16 << 20;
/// The default `--limit`.
pub const DEFAULT_LIMIT: usize = 20;

/// What to search for besides the words.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub types: TypeFilter,
    /// The most results kept (`None`: all).
    pub limit: Option<usize>,
}

/// The outcome of a search: `search --json` is this document.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub query: String,
    pub results: Vec<SearchResult>,
    /// Warnings about the files that could not be searched.
    pub warnings: Vec<String>,
    /// Matches past the limit.
    #[serde(skip)]
    pub more: usize,
    /// Memory files searched.
    #[serde(skip)]
    pub searched: usize,
}

/// One matching memory.
#[derive(Clone, Debug, Serialize)]
pub struct SearchResult {
    /// The memory dir, with a trailing separator.
    pub memory_dir: String,
    /// The file, relative to the memory dir.
    pub file: String,
    pub name: Option<String>,
    #[serde(rename = "type")]
    pub memory_type: Option<MemoryType>,
    /// BM25 of the body (three decimals); results are ordered by field first.
    pub score: f64,
    #[serde(skip)]
    pub exact: bool,
    pub field: Field,
    /// The 1-based line shown, and its text (trimmed).
    pub line: usize,
    pub text: String,
    #[serde(skip)]
    pub mtime_ms: f64,
}

/// Search `dirs` for `query`: every word of it must match (see [`matcher`]).
pub fn search_dirs(dirs: &[MemoryDir], query: &str, opts: &Options) -> Report {
    let q = Query::new(query);
    let mut corpus = rank::Corpus::new(q.words.len());
    let mut warnings = Vec::new();
    let mut found = Vec::new();
    let visit = |m: &Memory, file: &mut File, buf: &mut Vec<u8>| visit(&q, m, file, buf);
    for dir in dirs {
        let (scan, matches, ()) = crate::scan::scan_visit(dir.dir(), || (), &visit);
        let prefix = if dirs.len() > 1 { dir.shown() } else { String::new() };
        warnings.extend(scan.problems.iter().map(|p| format!("{prefix}{}", p.message())));
        for (m, fm) in scan.memories.iter().zip(matches) {
            corpus.add(&fm.tf, fm.len);
            if let Some(hit) = fm.hit
                && opts.types.matches(m)
            {
                found.push((result(dir, m, hit), fm.tf, fm.len));
            }
        }
    }
    let mut results: Vec<SearchResult> = found
        .into_iter()
        .map(|(mut r, tf, len)| {
            r.score = rank::rounded(corpus.score(&tf, len));
            r
        })
        .collect();
    results.sort_by(|a, b| {
        b.exact
            .cmp(&a.exact)
            .then(a.field.cmp(&b.field))
            .then(b.score.total_cmp(&a.score))
            .then(b.mtime_ms.total_cmp(&a.mtime_ms))
            .then_with(|| (&a.memory_dir, &a.file).cmp(&(&b.memory_dir, &b.file)))
    });
    let limit = opts.limit.unwrap_or(usize::MAX);
    let more = results.len().saturating_sub(limit);
    results.truncate(limit);
    Report {
        query: query.to_string(),
        results,
        warnings,
        more,
        searched: corpus.docs as usize,
    }
}

/// Read the rest of one file the scan has begun and match it.
fn visit(q: &Query, m: &Memory, file: &mut File, buf: &mut Vec<u8>) -> matcher::FileMatch {
    // The size from fstat (the scan's) saves the read that would return 0, as
    // the scan's window does; a file whose size says nothing is read to its end.
    let end = match m.size {
        0 => MAX_FILE_BYTES,
        size => size.min(MAX_FILE_BYTES),
    };
    let left = end.saturating_sub(buf.len() as u64);
    // A read error leaves what was read: the window at least.
    let _ = file.take(left).read_to_end(buf);
    // Valid UTF-8 (nearly every file) is checked by the validator's ASCII fast
    // path; `from_utf8_lossy` walks it in chunks three times slower.
    let text = match std::str::from_utf8(buf) {
        Ok(t) => std::borrow::Cow::Borrowed(t),
        Err(_) => String::from_utf8_lossy(buf),
    };
    let name = m.name();
    let description = m.fields.description.as_ref().map(crate::yaml::Value::js_string);
    let block = match (m.frontmatter.open_line, m.frontmatter.close_line) {
        (Some(0), Some(close)) => Some((0, close)),
        _ => None,
    };
    let doc = matcher::Document {
        text: &text,
        name: name.as_deref(),
        stem: m.stem(),
        description: description.as_deref(),
        block,
    };
    matcher::match_document(q, &doc)
}

fn result(dir: &MemoryDir, m: &Memory, hit: matcher::Hit) -> SearchResult {
    SearchResult {
        memory_dir: dir.shown(),
        file: m.rel.clone(),
        name: m.name(),
        memory_type: m.memory_type(),
        score: 0.0,
        exact: hit.exact,
        field: hit.field,
        line: hit.line,
        text: hit.text,
        mtime_ms: m.mtime_ms,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir_with(files: &[(&str, &str)]) -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        for (rel, text) in files {
            let p = d.path().join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        d
    }

    fn files(r: &Report) -> Vec<(&str, Field)> {
        r.results.iter().map(|h| (h.file.as_str(), h.field)).collect()
    }

    #[test]
    fn ranks_name_then_description_then_body_by_bm25() {
        let d = dir_with(&[
            ("a.md", "---\nname: notes\ndescription: x\n---\nredis redis redis\n"),
            (
                "b.md",
                "---\nname: other\ndescription: x\n---\nredis once, in a long body of many words here\n",
            ),
            ("c.md", "---\nname: other\ndescription: about Redis\n---\nnothing\n"),
            ("d.md", "---\nname: Redis setup\ndescription: x\n---\nnothing\n"),
            ("e.md", "---\nname: other\ndescription: x\n---\nnothing at all\n"),
            ("MEMORY.md", "- [redis](d.md) redis\n"),
        ]);
        let dirs = [MemoryDir::open(d.path(), crate::memdir::Scope::Main)];
        let r = search_dirs(&dirs, "REDIS", &Options::default());
        assert_eq!(
            files(&r),
            [
                ("d.md", Field::Name),
                ("c.md", Field::Description),
                ("a.md", Field::Body),
                ("b.md", Field::Body)
            ]
        );
        assert_eq!(r.searched, 5);
        assert_eq!(
            (r.results[2].line, r.results[2].text.as_str()),
            (5, "redis redis redis")
        );
        assert!(r.results[2].score > r.results[3].score);
    }

    #[test]
    fn whole_words_match_and_exact_matches_rank_first() {
        let d = dir_with(&[
            ("prod.md", "---\nname: pr prod notes\n---\nprod prod prod\n"),
            ("prs.md", "---\nname: open prs\n---\nnothing\n"),
            ("review.md", "---\nname: review\n---\nEvery PR needs a review.\n"),
        ]);
        let dirs = [MemoryDir::open(d.path(), crate::memdir::Scope::Main)];
        let r = search_dirs(&dirs, "pr", &Options::default());
        assert_eq!(files(&r), [("prod.md", Field::Name), ("review.md", Field::Body)]);
        let r = search_dirs(&dirs, "prs", &Options::default());
        assert_eq!(files(&r), [("prs.md", Field::Name)]);
        // A prefix: the body's exact `PR` ranks before the names' prefixes.
        let r = search_dirs(&dirs, "needs pr*", &Options::default());
        assert_eq!(files(&r), [("review.md", Field::Body)]);
        let r = search_dirs(&dirs, "pr*", &Options::default());
        // `prs.md` matches by name, but only as a prefix: last.
        assert_eq!(
            files(&r),
            [
                ("prod.md", Field::Name),
                ("review.md", Field::Body),
                ("prs.md", Field::Name)
            ]
        );
    }

    #[test]
    fn limit_and_type_filter() {
        let d = dir_with(&[
            ("a.md", "---\ntype: user\n---\nword\n"),
            ("b.md", "---\ntype: project\n---\nword\n"),
            ("c.md", "word\n"),
        ]);
        let dirs = [MemoryDir::open(d.path(), crate::memdir::Scope::Main)];
        let opts = Options {
            limit: Some(1),
            ..Options::default()
        };
        let r = search_dirs(&dirs, "word", &opts);
        assert_eq!((r.results.len(), r.more), (1, 2));
        let (types, _) = TypeFilter::parse(&["project".into(), "none".into()]).unwrap();
        let r = search_dirs(&dirs, "word", &Options { types, limit: None });
        let mut got: Vec<&str> = r.results.iter().map(|h| h.file.as_str()).collect();
        got.sort();
        assert_eq!(got, ["b.md", "c.md"]);
    }

    #[test]
    fn a_missing_dir_finds_nothing() {
        let dirs = [MemoryDir::open("/nonexistent/memctl", crate::memdir::Scope::Main)];
        let r = search_dirs(&dirs, "x", &Options::default());
        assert!(r.results.is_empty() && r.warnings.is_empty());
    }
}
