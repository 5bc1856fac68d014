//! Matching one memory file against a query: which words each field holds, how
//! often the body holds each (for BM25), and the line to show.
//!
//! A query word matches a whole word of the folded text (`pr` matches `PR`, not
//! `prod` or `PRs`); a word written with a trailing `*` matches where a word starts
//! with it (`deploy*` matches `deployment`, not `redeploy`); in scripts without
//! spaces, anywhere, as a substring (see [`super::fold`]). A file whose every query
//! word matches a whole word somewhere is an exact match: exact matches rank first. A file matches when every query word is in its name,
//! description or body; its field is where the query is first complete: `name`
//! when the name holds every word, `description` when name and description do,
//! else `body`. The name is the frontmatter `name` and the file's name without
//! `.md` (`feedback_testing.md` is named `feedback`, `testing`): memories are
//! known by both, and many have no `name`.

use memchr::memmem::Finder;
use serde::Serialize;

use super::fold::{QueryWord, count_words, ends_word, fold, fold_into, starts_word};

/// The most query words: one bit each in a `u64` mask.
pub const MAX_WORDS: usize = 64;

/// Where a memory matches, best first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Field {
    Name,
    Description,
    Body,
}

/// A compiled query: its folded words and a substring finder for each.
pub struct Query {
    pub words: Vec<QueryWord>,
    finders: Vec<Finder<'static>>,
}

impl Query {
    /// The query of `text`'s words (folded, each once, at most [`MAX_WORDS`]).
    pub fn new(text: &str) -> Query {
        let mut words = super::fold::query_words(&fold(text));
        words.truncate(MAX_WORDS);
        let finders = words
            .iter()
            .map(|w| Finder::new(w.text.as_bytes()).into_owned())
            .collect();
        Query { words, finders }
    }

    /// The mask with one bit per query word.
    pub fn all(&self) -> u64 {
        if self.words.len() >= 64 {
            u64::MAX
        } else {
            (1u64 << self.words.len()) - 1
        }
    }

    /// The byte offsets in `folded` where word `k` matches: a whole word, or the
    /// start of one for a prefix.
    fn hits<'a>(&'a self, k: usize, folded: &'a str) -> impl Iterator<Item = usize> + 'a {
        let prefix = self.words[k].prefix;
        self.finders[k]
            .find_iter(folded.as_bytes())
            .filter(move |at| starts_word(folded, *at) && (prefix || self.ends(k, folded, *at)))
    }

    /// Whether the match of word `k` at `at` ends a word.
    fn ends(&self, k: usize, folded: &str, at: usize) -> bool {
        ends_word(folded, at + self.words[k].text.len())
    }

    /// The mask of the words `folded` holds.
    pub fn mask(&self, folded: &str) -> u64 {
        (0..self.words.len())
            .filter(|k| self.hits(*k, folded).next().is_some())
            .fold(0, |m, k| m | (1 << k))
    }

    /// The mask of the words `folded` holds as whole words (a prefix word too).
    pub fn exact_mask(&self, folded: &str) -> u64 {
        (0..self.words.len())
            .filter(|k| self.hits(*k, folded).any(|at| self.ends(*k, folded, at)))
            .fold(0, |m, k| m | (1 << k))
    }
}

/// A memory file as matching sees it.
pub struct Document<'a> {
    /// The whole text (lossily decoded).
    pub text: &'a str,
    pub name: Option<&'a str>,
    /// The file name without `.md`.
    pub stem: &'a str,
    pub description: Option<&'a str>,
    /// The 0-based lines of the frontmatter's opening and closing `---`, when the
    /// block opens on line 1; the body is what follows.
    pub block: Option<(usize, usize)>,
}

/// What a file gives the search: its body statistics (every file, for BM25) and,
/// when it matches, where.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FileMatch {
    /// How often the body holds each query word.
    pub tf: Vec<u32>,
    /// The body's length in words.
    pub len: u32,
    pub hit: Option<Hit>,
}

/// Where a matching file matches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hit {
    /// Every query word matches a whole word somewhere in the file (not only as
    /// the prefix a `*` asks for).
    pub exact: bool,
    pub field: Field,
    /// The 1-based line in the file.
    pub line: usize,
    /// That line, without its line break and surrounding white space.
    pub text: String,
}

/// Match one document.
pub fn match_document(q: &Query, doc: &Document<'_>) -> FileMatch {
    let (body_start, body) = match doc.block {
        Some((_, close)) => split_after_line(doc.text, close),
        None => (0, doc.text),
    };
    let body_line0 = doc.block.map_or(0, |(_, close)| close + 1);
    let folded = fold(body);
    let mut tf = vec![0u32; q.words.len()];
    let mut body_mask = 0u64;
    // Every match in the body, found once: counted here, placed by `best_line`.
    let mut hits: Vec<(usize, usize)> = Vec::new();
    for (k, n) in tf.iter_mut().enumerate() {
        let before = hits.len();
        hits.extend(q.hits(k, &folded).map(|at| (at, k)));
        *n = (hits.len() - before).min(u32::MAX as usize) as u32;
        if *n > 0 {
            body_mask |= 1 << k;
        }
    }
    let len = count_words(&folded).min(u32::MAX as usize) as u32;
    let (name_text, stem) = (doc.name.map(fold), fold(doc.stem));
    let desc_text = doc.description.map(fold);
    let name = name_text.as_deref().map_or(0, |n| q.mask(n)) | q.mask(&stem);
    let desc = desc_text.as_deref().map_or(0, |d| q.mask(d));
    let all = q.all();
    let mut hit = if name | desc | body_mask != all {
        None
    } else if name == all {
        Some(field_hit(q, doc, Field::Name, "name"))
    } else if name | desc == all {
        Some(field_hit(q, doc, Field::Description, "description"))
    } else {
        let (k, _) = best_line(hits, &folded);
        let line = body_line0 + k;
        Some(Hit {
            exact: false,
            field: Field::Body,
            line: line + 1,
            text: line_text(doc.text, line, body_start, body_line0),
        })
    };
    if let Some(h) = hit.as_mut() {
        // Only a prefix word can match without matching exactly.
        h.exact = !q.words.iter().any(|w| w.prefix)
            || [name_text.as_deref(), Some(&stem), desc_text.as_deref(), Some(&folded)]
                .into_iter()
                .flatten()
                .fold(0, |m, t| m | q.exact_mask(t))
                == all;
    }
    FileMatch { tf, len, hit }
}

/// The text after line `line` (0-based) and the byte offset where it starts.
fn split_after_line(text: &str, line: usize) -> (usize, &str) {
    let mut at = 0;
    for _ in 0..=line {
        match memchr::memchr(b'\n', &text.as_bytes()[at..]) {
            Some(i) => at += i + 1,
            None => return (text.len(), ""),
        }
    }
    (at, &text[at..])
}

/// The 0-based line of `folded` holding the most distinct query words (then the
/// most matches, then the first), and its count of distinct words. `hits`: every
/// match in `folded`, (byte offset, query word), in any order.
fn best_line(mut hits: Vec<(usize, usize)>, folded: &str) -> (usize, u32) {
    hits.sort_unstable();
    let bytes = folded.as_bytes();
    let (mut line, mut pos) = (0usize, 0usize);
    // (line, mask, matches) of the line being counted and of the best so far.
    let mut cur = (usize::MAX, 0u64, 0u32);
    let mut best = (0usize, 0u64, 0u32);
    let better = |a: (usize, u64, u32), b: (usize, u64, u32)| (a.1.count_ones(), a.2) > (b.1.count_ones(), b.2);
    for (at, k) in hits {
        line += memchr::memchr_iter(b'\n', &bytes[pos..at]).count();
        pos = at;
        if cur.0 != line {
            if cur.0 != usize::MAX && better(cur, best) {
                best = cur;
            }
            cur = (line, 0, 0);
        }
        cur.1 |= 1 << k;
        cur.2 += 1;
    }
    if cur.0 != usize::MAX && better(cur, best) {
        best = cur;
    }
    (best.0, best.1.count_ones())
}

/// The frontmatter line of `key` that holds the most query words (the first one
/// when none does); without a line for it (a name only in the file name), the
/// line after the opening `---`, or line 1 without a block. A block that does not
/// open on line 1 is looked for in the frontmatter window.
fn field_hit(q: &Query, doc: &Document<'_>, field: Field, key: &str) -> Hit {
    let (open, close) = doc.block.unwrap_or((0, crate::frontmatter::FRONTMATTER_MAX_LINES));
    let mut best: Option<(usize, u32)> = None;
    let mut folded = String::new();
    for (i, l) in doc.text.split('\n').enumerate().take(close).skip(open + 1) {
        let t = l.trim_start_matches('\u{feff}').trim_start();
        if !t.strip_prefix(key).is_some_and(|r| r.trim_start().starts_with(':')) {
            continue;
        }
        folded.clear();
        fold_into(t, &mut folded);
        let n = q.mask(&folded).count_ones();
        if best.is_none_or(|(_, b)| n > b) {
            best = Some((i, n));
        }
    }
    let fallback = if doc.block.is_some() { open + 1 } else { 0 };
    let line = best.map_or(fallback, |(i, _)| i);
    Hit {
        exact: false,
        field,
        line: line + 1,
        text: line_text(doc.text, line, 0, 0),
    }
}

/// Line `line` (0-based) of `text`, counting from byte `from`, which starts line
/// `from_line`; trimmed, without its BOM.
fn line_text(text: &str, line: usize, from: usize, from_line: usize) -> String {
    let rest = &text[from.min(text.len())..];
    // The line's start found with memchr's vectorized search.
    let start = match line - from_line.min(line) {
        0 => Some(0),
        n => memchr::memchr_iter(b'\n', rest.as_bytes()).nth(n - 1).map(|i| i + 1),
    };
    let l = start.map_or("", |s| rest[s..].split('\n').next().unwrap_or_default());
    l.trim_start_matches('\u{feff}').trim().to_string()
}

/// The char index in `line` where the first match of a query word begins, for
/// showing the part of a long line that matches.
pub fn first_match(q: &Query, line: &str) -> Option<usize> {
    // Fold char by char, remembering which char each folded byte comes from.
    let mut folded = String::with_capacity(line.len());
    let mut from = Vec::with_capacity(line.len());
    for (i, c) in line.chars().enumerate() {
        fold_into(c.encode_utf8(&mut [0; 4]), &mut folded);
        from.resize(folded.len(), i);
    }
    (0..q.words.len())
        .filter_map(|k| q.hits(k, &folded).next())
        .min()
        .and_then(|at| from.get(at).copied())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc<'a>(text: &'a str, name: Option<&'a str>, description: Option<&'a str>) -> Document<'a> {
        let block = text.starts_with("---\n").then(|| {
            let close = text.split('\n').skip(1).position(|l| l == "---").unwrap() + 1;
            (0, close)
        });
        Document {
            text,
            name,
            stem: "file",
            description,
            block,
        }
    }

    const FILE: &str = "---\nname: Deploy checklist\ndescription: steps before a Friday release\ntype: project\n---\n\nWe deploy from main.\nThe release train leaves on Friday; deployments wait.\n";

    #[test]
    fn the_field_is_where_the_query_is_first_complete() {
        let d = doc(FILE, Some("Deploy checklist"), Some("steps before a Friday release"));
        let m = match_document(&Query::new("deploy"), &d);
        assert_eq!(m.hit.as_ref().map(|h| (h.field, h.line)), Some((Field::Name, 2)));
        assert_eq!(m.hit.unwrap().text, "name: Deploy checklist");
        let m = match_document(&Query::new("deploy friday"), &d);
        let h = m.hit.unwrap();
        assert_eq!((h.field, h.line), (Field::Description, 3));
        assert_eq!(h.text, "description: steps before a Friday release");
        let m = match_document(&Query::new("train deploy*"), &d);
        let h = m.hit.unwrap();
        assert_eq!((h.field, h.line), (Field::Body, 8));
        assert_eq!(h.text, "The release train leaves on Friday; deployments wait.");
    }

    #[test]
    fn every_word_must_match_somewhere() {
        let d = doc(FILE, Some("Deploy checklist"), Some("steps before a Friday release"));
        assert!(match_document(&Query::new("deploy tuesday"), &d).hit.is_none());
        // Words match at word starts only.
        assert!(match_document(&Query::new("ploy"), &d).hit.is_none());
        assert!(match_document(&Query::new("DEPLOYMENTS"), &d).hit.is_some());
        // And whole words, unless a `*` asks for a prefix.
        assert!(match_document(&Query::new("deployment"), &d).hit.is_none());
        assert!(match_document(&Query::new("deployment*"), &d).hit.is_some());
        assert!(match_document(&Query::new("check"), &d).hit.is_none());
    }

    #[test]
    fn a_prefix_match_is_exact_only_where_a_whole_word_matches_too() {
        let prs = doc("Open PRs against main.\n", None, None);
        assert!(match_document(&Query::new("pr"), &prs).hit.is_none());
        let h = match_document(&Query::new("pr*"), &prs).hit.unwrap();
        assert!(!h.exact);
        let pr = doc("Every PR needs a review.\n", None, None);
        assert!(match_document(&Query::new("pr*"), &pr).hit.unwrap().exact);
        assert!(match_document(&Query::new("pr"), &pr).hit.unwrap().exact);
        // A name in the file name counts.
        let mut d = doc("body\n", None, None);
        d.stem = "feedback_pr";
        assert!(match_document(&Query::new("pr* body"), &d).hit.unwrap().exact);
    }

    #[test]
    fn text_without_spaces_matches_as_a_substring() {
        let d = doc("我们的数据库迁移在周五。\n", None, None);
        let h = match_document(&Query::new("数据"), &d).hit.unwrap();
        assert!(h.exact);
        assert!(match_document(&Query::new("据库迁"), &d).hit.is_some());
        assert!(match_document(&Query::new("库存"), &d).hit.is_none());
    }

    #[test]
    fn the_file_name_is_part_of_the_name() {
        let mut d = doc(FILE, Some("Deploy checklist"), None);
        d.stem = "project_release_train";
        let h = match_document(&Query::new("train project"), &d).hit.unwrap();
        assert_eq!((h.field, h.line), (Field::Name, 2));
    }

    #[test]
    fn body_term_frequencies_and_length() {
        let d = doc(FILE, Some("Deploy checklist"), None);
        let m = match_document(&Query::new("deploy* friday zzz"), &d);
        assert_eq!(m.tf, [2, 1, 0]);
        assert_eq!(m.len, 12);
        assert!(m.hit.is_none());
    }

    #[test]
    fn line_text_is_the_split_line() {
        let reference = |text: &str, line: usize, from: usize, from_line: usize| {
            let rest = &text[from.min(text.len())..];
            let l = rest.split('\n').nth(line - from_line.min(line)).unwrap_or_default();
            l.trim_start_matches('\u{feff}').trim().to_string()
        };
        let texts = [
            "",
            "a",
            "\u{feff} one \r\ntwo\n\nfour  ",
            "---\nx\n---\nbody\nmore\n",
            "\n\n\n",
        ];
        for t in texts {
            for from in [0, 2, 4, 100] {
                let from = (0..=from.min(t.len()))
                    .rev()
                    .find(|i| t.is_char_boundary(*i))
                    .unwrap_or(0);
                for from_line in 0..3 {
                    for line in 0..7 {
                        assert_eq!(line_text(t, line, from, from_line), reference(t, line, from, from_line));
                    }
                }
            }
        }
    }

    #[test]
    fn best_line_holds_the_most_distinct_words() {
        let text = "alpha alpha alpha\nalpha beta\nbeta\n";
        let m = match_document(&Query::new("alpha beta"), &doc(text, None, None));
        let h = m.hit.unwrap();
        assert_eq!((h.field, h.line, h.text.as_str()), (Field::Body, 2, "alpha beta"));
    }

    #[test]
    fn accents_case_and_crlf() {
        let text = "\u{feff}Notes\r\n  Le CAFÉ de la Straße  \r\n";
        let m = match_document(&Query::new("cafe strasse"), &doc(text, None, None));
        let h = m.hit.unwrap();
        assert_eq!((h.line, h.text.as_str()), (2, "Le CAFÉ de la Straße"));
        let m = match_document(&Query::new("notes"), &doc(text, None, None));
        assert_eq!(m.hit.unwrap().text, "Notes");
    }

    #[test]
    fn first_match_maps_folded_offsets_back_to_chars() {
        let q = Query::new("cafe");
        assert_eq!(first_match(&q, "Straße, ein Café"), Some(12));
        assert_eq!(first_match(&q, "décaféiné"), None);
        assert_eq!(first_match(&Query::new("ss"), "Straße ss"), Some(7));
    }

    #[test]
    fn a_block_without_a_body_and_a_query_without_words() {
        let text = "---\nname: x\n---";
        let m = match_document(&Query::new("x"), &doc(text, Some("x"), None));
        assert_eq!(m.hit.unwrap().line, 2);
        assert_eq!(m.len, 0);
        let q = Query::new("--");
        assert_eq!(q.all(), 0);
    }
}
