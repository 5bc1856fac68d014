//! The restored memory's index lines back in its index: beside their old
//! neighbours when that keeps them loaded, else by SPEC §10.2.

use super::Source;
use crate::memory::{Memory, MemoryType};
use crate::ops::place;
use crate::{frontmatter, index};

/// The index `text` with the source's lines back: beside their old neighbours when
/// that keeps them loaded, else by SPEC §10.2; a canonical line when a snapshot's
/// index had none. Warns with the entries Claude Code would not load.
pub(super) fn place_lines(
    text: &str,
    source: &Source,
    local: &str,
    label: &str,
) -> (String, Vec<(usize, String)>, Vec<String>) {
    let mut lines = source.lines.clone();
    if lines.is_empty() && source.index_text.is_some() && !source.link {
        lines.push((0, canonical_line(source, local)));
    }
    let ty = memory_type(&source.bytes);
    let mut cur = text.to_string();
    let mut placed: Vec<(usize, String)> = Vec::new();
    for (n, line) in &lines {
        if cur
            .split_inclusive('\n')
            .any(|l| l.trim_end_matches(['\n', '\r']) == line)
        {
            continue;
        }
        let anchored = source
            .index_text
            .as_deref()
            .filter(|_| *n > 0)
            .and_then(|was| place::place_where_it_was(&cur, line, was, *n))
            .filter(|(t, at)| !is_cut(t, *at) && in_its_section(t, *at, ty));
        let (next, at) = anchored.unwrap_or_else(|| place::place_by_type(&cur, line, ty));
        for p in &mut placed {
            if p.0 >= at {
                p.0 += 1;
            }
        }
        placed.push((at, line.clone()));
        cur = next;
    }
    placed.sort();
    // Never a refusal (SPEC §3.14): each entry now past the cut, named with its
    // file, line and text.
    let warnings = crate::index::place::cut_warnings(
        label,
        &crate::index::place::cut_entries(text, &cur),
        "memctl index rebuild",
    );
    (cur, placed, warnings)
}

/// Whether line `at` (1-based) of `text` stands where SPEC §10.2 puts a line of
/// type `ty`: inside the section for its type when the index has one; else in no
/// other type's section (issue 32 point 8: never beside an old neighbour that
/// now lies in another type's section).
fn in_its_section(text: &str, at: usize, ty: Option<MemoryType>) -> bool {
    let i = at.saturating_sub(1);
    let inside =
        |t: MemoryType| crate::index::place::type_section(text, t.as_str()).map(|(start, end)| start < i && i < end);
    if let Some(own) = ty.and_then(inside) {
        return own;
    }
    MemoryType::ALL
        .into_iter()
        .filter(|t| Some(*t) != ty)
        .all(|t| inside(t) != Some(true))
}

fn is_cut(text: &str, line: usize) -> bool {
    index::load::load(text).dropped.iter().any(|d| d.line == line)
}

fn memory_type(bytes: &[u8]) -> Option<MemoryType> {
    let text = String::from_utf8_lossy(bytes);
    let (fm, _) = frontmatter::parse_document(&text);
    MemoryType::of(frontmatter::Fields::from(&fm).type_raw.as_ref())
}

/// `- [name](file) — description` from the copy's frontmatter.
fn canonical_line(source: &Source, local: &str) -> String {
    Memory::from_text(&source.rel, &String::from_utf8_lossy(&source.bytes)).index_line(local)
}
