//! Rules on `MEMORY.md` (ML201–ML215) and the reachability behind ML203: one
//! module per kind of rule; this one runs them on an index.

mod caps;
mod lines;
mod links;
mod packed;
mod reach;
mod scope;
mod unindexed;

use std::path::Path;

use crate::index::load;
use crate::lint::facts::FileFacts;

use super::{Finding, RuleId, Selection, Severity};

pub use reach::{FileLinks, Reach};
pub use scope::{Scope, scopes};
pub use unindexed::check_files;

/// The files an index links (its memory links' targets), sorted: all ML203 asks
/// of them once ML209 has used their lines.
pub struct Targets(packed::Packed);

impl Targets {
    pub fn contains(&self, rel: &str) -> bool {
        self.0.contains(rel)
    }
}

/// ML217: a `team/MEMORY.md` that Claude Code never loads (no team store, SPEC
/// §2.13), when linting the main dir.
pub fn check_team_index(memdir: &crate::memdir::MemoryDir, team_store: bool, out: &mut Vec<Finding>) {
    if team_store || memdir.is_team() || !memdir.team_dir().is_dir() {
        return;
    }
    let idx = memdir.team_dir().join(crate::memdir::INDEX);
    if std::fs::symlink_metadata(&idx).is_ok() {
        out.push(Finding::file(
            RuleId::ML217,
            &idx,
            "Claude Code never loads team/MEMORY.md without a team store (CLAUDE_MEMORY_STORES): link the team files from MEMORY.md",
        ));
    }
}

/// Run the index rules for one scope; returns the number of files examined.
pub fn check(scope: &Scope, memories: &[&FileFacts], reach: &Reach, warn_at: f64, out: &mut Vec<Finding>) -> usize {
    let (files, targets) = check_index(scope, warn_at, Selection::All, out, None);
    check_files(
        scope,
        memories,
        targets.as_ref(),
        reach,
        &crate::paths::Env::default(),
        None,
        out,
    );
    files
}

/// Where [`check_index`] packs the index's findings as soon as its line rules ran
/// (lint's own run): the linted dir, and the packed files (see
/// [`crate::lint::found`]), which the report's other findings of the index follow.
pub type PackInto<'a> = Option<(&'a Path, &'a mut Vec<Box<[u8]>>)>;

/// The index rules that need neither the topic files nor reachability (all but
/// ML203 and ML213); returns the number of files examined and the index's targets
/// (`None` when there is no readable index: see [`check_files`]). Of `rules`'
/// findings only those it keeps are added to `out`; the rules on the text as a
/// whole and ML208 run only when `rules` is every rule (none is in `dream`'s plan).
///
/// With `pack`, the findings of the link and line rules leave `out` packed before
/// the load is modelled: one per line of a 20 000-line index (ML204), as records
/// with their boxed messages they were the largest table beside the load's.
pub fn check_index(
    scope: &Scope,
    warn_at: f64,
    rules: Selection,
    out: &mut Vec<Finding>,
    pack: PackInto<'_>,
) -> (usize, Option<Targets>) {
    let from = out.len();
    let idx = &scope.index;
    let bytes = match read(idx, out) {
        Ok(bytes) => bytes,
        Err(files) => {
            keep_only(rules, out, from);
            return (files, None);
        }
    };
    let oversize = oversize(idx, bytes.len(), out);
    // Valid UTF-8 is used as read, not copied.
    let text = String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    if rules.all() {
        text_rules(idx, &text, out);
    }
    let (targets, link_lines) = links::check(idx, &scope.base, &text, out);
    lines::check(idx, &text, &link_lines, out);
    drop(link_lines);
    // The line rules may have found one per line (ML204): their list is held to
    // the end of the run, so packed, or without the growth slack, before the load
    // is modelled.
    keep_only(rules, out, from);
    if let Some((dir, packed)) = pack {
        let (files, mut rest) = crate::lint::found::pack_all(dir, out.split_off(from));
        packed.extend(files);
        out.append(&mut rest);
    }
    out.shrink_to_fit();
    // The load takes the text over: modelled last, once the link rules' tables are
    // gone (findings are sorted afterwards, so the order they are found in is free).
    let stripped = if rules.all() {
        frontmatter_part(&text).map(str::to_string)
    } else {
        None
    };
    let loaded = load::load_owned(text);
    out.extend(stripped.map(|part| frontmatter_finding(idx, &part)));
    // Claude Code loads nothing of an oversize index: no entry is cut.
    if !oversize {
        let at = out.len();
        caps::check(idx, &loaded, warn_at, out);
        keep_only(rules, out, at);
    }
    (1, Some(targets))
}

/// Drop from `out[from..]` the findings `rules` does not keep (none when every
/// rule runs).
fn keep_only(rules: Selection, out: &mut Vec<Finding>, from: usize) {
    if rules.all() {
        return;
    }
    let mut rest = out.split_off(from);
    rest.retain(|f| rules.keeps(f.id));
    out.append(&mut rest);
}

/// The index's bytes; else the number of files examined (0 when there is no index,
/// which is ML213's: see `check_files`), after ML216 or ML131 said why Claude Code
/// loads nothing from it.
fn read(idx: &Path, out: &mut Vec<Finding>) -> Result<Vec<u8>, usize> {
    let e = match crate::index::read_index(idx) {
        Ok(b) => return Ok(b),
        Err(_) if std::fs::symlink_metadata(idx).is_err() => return Err(0),
        Err(e) => e,
    };
    out.push(match e {
        crate::fsread::ReadError::NotRegular(what) => Finding::file(
            RuleId::ML216,
            idx,
            format!("the index is not a regular file ({what}); Claude Code loads nothing from it"),
        ),
        // Claude Code then loads no memory at all: an error, whatever the cause
        // (permission, a dangling symlink, a directory, a FIFO or a device).
        e => {
            let why = match e {
                crate::fsread::ReadError::NotFound => "a dangling symlink".to_string(),
                e => e.to_string(),
            };
            Finding::file(
                RuleId::ML131,
                idx,
                format!("the index cannot be read ({why}); Claude Code loads no memory at all"),
            )
        }
    });
    Err(1)
}

/// ML216: an index over Claude Code's 4 MiB read cap; whether it is.
fn oversize(idx: &Path, len: usize, out: &mut Vec<Finding>) -> bool {
    let oversize = len as u64 > crate::index::check::CLAUDE_MAX_INDEX_BYTES;
    if oversize {
        out.push(Finding::file(
            RuleId::ML216,
            idx,
            format!(
                "{} bytes (limit: 4 194 304): Claude Code loads nothing from this MEMORY.md",
                crate::text::group_digits(len as i64)
            ),
        ));
    }
    oversize
}

/// The rules on the index's text as a whole: ML215 (CRLF), ML212 (an unclosed
/// comment), ML116 (relative dates, info) and ML121 (secrets).
fn text_rules(idx: &Path, text: &str, out: &mut Vec<Finding>) {
    if text.contains("\r\n") {
        out.push(Finding::file(
            RuleId::ML215,
            idx,
            "CRLF line endings; each CR counts toward the 25 000 units (the model reads none)",
        ));
    }
    if let Some(pos) = unclosed_comment(text) {
        let line = crate::text::count_byte(&text.as_bytes()[..pos], b'\n') + 1;
        out.push(Finding::new(
            RuleId::ML212,
            idx,
            line,
            1,
            "`<!--` is never closed: Claude Code loads the rest verbatim",
        ));
    }
    for d in crate::dates::find(text) {
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
    // Claude Code loads the index into every session: secrets there matter most.
    super::secrets::check(idx, text, out);
}

/// ML208: the frontmatter block Claude Code strips from the index (`part`); an
/// error when index entries go with it.
fn frontmatter_finding(idx: &Path, part: &str) -> Finding {
    let links = holds_memory_link(part);
    let lines = crate::text::count_byte(part.as_bytes(), b'\n');
    let finding = Finding::file(
        RuleId::ML208,
        idx,
        if links {
            format!(
                "MEMORY.md starts with a frontmatter block that ends at the first `---` anywhere; Claude Code strips it with the index entries in it ({} line{}): remove the leading `---`",
                lines + 1,
                if lines == 0 { "" } else { "s" }
            )
        } else {
            "MEMORY.md has a frontmatter block; Claude Code strips it: remove it".to_string()
        },
    );
    if links {
        finding.with_severity(Severity::Error)
    } else {
        finding
    }
}

/// The part of the index Claude Code strips as frontmatter (SPEC §2.4.2, §2.7
/// step 2), if any.
fn frontmatter_part(text: &str) -> Option<&str> {
    let (body, _, found) = load::strip_frontmatter(text);
    found.then(|| &text[..text.len() - body.len()])
}

/// Whether `text` holds a memory link (`](….md)`).
fn holds_memory_link(text: &str) -> bool {
    text.match_indices("](").any(|(i, _)| {
        let rest = &text[i + 2..];
        rest.find(')').is_some_and(|j| {
            let target = rest[..j].split_whitespace().next().unwrap_or("");
            target.ends_with(".md") && !target.contains("://")
        })
    })
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `dir` with one memory, `here.md`, and a `MEMORY.md` of `head` then `n`
    /// lines made by `line`; its path.
    fn index_of_lines(
        dir: &std::path::Path,
        head: &str,
        n: usize,
        line: impl Fn(usize) -> String,
    ) -> std::path::PathBuf {
        std::fs::write(dir.join("here.md"), "---\nname: here\n---\nx\n").unwrap();
        let mut index = String::from(head);
        for i in 0..n {
            index.push_str(&line(i));
            index.push('\n');
        }
        let idx = dir.join("MEMORY.md");
        std::fs::write(&idx, &index).unwrap();
        idx
    }

    /// lint packs the index's findings early: what it shows must be exactly
    /// the findings of the same rules kept as records, in the report's order.
    #[test]
    fn findings_packed_early_are_the_records_in_order() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let idx = index_of_lines(dir, "---\nabout: [x](here.md)\n---\n# Index\n", 260, |i| match i % 7 {
            0 => format!("- [Long {i}](here.md) — {}", "word ".repeat(40)),
            1 => format!("- **[Bold {i}](gone_{i}.md)** - hook"),
            2 => "Some memory content written into the index.".into(),
            3 => format!("- [Case {i}](HERE.md) — hook"),
            4 => format!("- [Pic {i}](pic_{i}.png) — yesterday"),
            _ => format!("- [Plain {i}](here.md) — hook {i}"),
        });
        let scope = Scope::single(&idx, dir);

        let mut records = Vec::new();
        check_index(&scope, 90.0, Selection::All, &mut records, None);
        let mut loose = Vec::new();
        let mut packed = Vec::new();
        check_index(&scope, 90.0, Selection::All, &mut loose, Some((dir, &mut packed)));
        assert!(!packed.is_empty(), "the line rules' findings are packed");
        assert!(loose.len() < records.len(), "fewer left as records");

        let key = |f: &Finding| (f.line, f.col, f.id);
        records.sort_by_key(key);
        loose.sort_by_key(key);
        let shown: Vec<Finding> = crate::lint::found::Found::new(dir, packed, loose).iter().collect();
        assert_eq!(shown, records);
        for id in [
            RuleId::ML204,
            RuleId::ML208,
            RuleId::ML209,
            RuleId::ML210,
            RuleId::ML211,
            RuleId::ML201,
        ] {
            assert!(records.iter().any(|f| f.id == id), "{id:?} is exercised");
        }
    }

    /// `dream`'s run: of the index rules' findings exactly those of the rules
    /// asked for, in the same order, packed or not.
    #[test]
    fn a_selection_keeps_its_rules_findings_and_no_other() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let idx = index_of_lines(dir, "---\nabout: x\n---\n# Index yesterday\n", 180, |i| match i % 5 {
            0 => format!("- [Long {i}](here.md) — {}", "word ".repeat(40)),
            1 => format!("- [Gone {i}](gone_{i}.md) - hook"),
            2 => "Some memory content written into the index.".into(),
            _ => format!("- [Plain {i}](here.md) — hook {i}"),
        });
        let scope = Scope::single(&idx, dir);
        let only = [RuleId::ML201, RuleId::ML204, RuleId::ML207, RuleId::ML209];
        let mut all = Vec::new();
        check_index(&scope, 90.0, Selection::All, &mut all, None);
        assert!(all.iter().any(|f| !only.contains(&f.id)), "other rules are exercised");
        for pack in [false, true] {
            let mut loose = Vec::new();
            let mut packed = Vec::new();
            let into = pack.then_some((dir, &mut packed));
            check_index(&scope, 90.0, Selection::Index(&only), &mut loose, into);
            let key = |f: &Finding| (f.line, f.col, f.id);
            loose.sort_by_key(key);
            let got: Vec<Finding> = crate::lint::found::Found::new(dir, packed, loose).iter().collect();
            let mut want: Vec<Finding> = all.iter().filter(|f| only.contains(&f.id)).cloned().collect();
            want.sort_by_key(key);
            assert_eq!(got, want, "packed: {pack}");
            for id in only {
                assert!(got.iter().any(|f| f.id == id), "{id:?} is exercised");
            }
        }
    }
}
