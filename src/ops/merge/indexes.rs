//! The index half of a merge: FROM's index lines that go with moved files are
//! placed in INTO's index by SPEC §10.2, deduplicated, renamed links rewritten;
//! the rest stays in FROM's index.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use super::{Action, Cut, Line, Move, Plan};
use crate::index::load::{Load, load};
use crate::index::place::Cuts;
use crate::memdir::{MemoryDir, Scope};
use crate::memory::MemoryType;
use crate::{frontmatter, index};

fn memory_type(bytes: &[u8]) -> Option<MemoryType> {
    let text = String::from_utf8_lossy(head(bytes));
    let (fm, _) = frontmatter::parse_document(&text);
    MemoryType::of(frontmatter::Fields::from(&fm).type_raw.as_ref())
}

/// The part of a memory file its frontmatter is read from: when line 1 opens a
/// block, up to the end of the first later line holding `---` (all that
/// [`frontmatter::parse_document`] reads of it then); else the whole file.
/// An import decodes 10 000 headers, not 28 MB of bodies (issue 31).
fn head(bytes: &[u8]) -> &[u8] {
    let start = if bytes.starts_with("\u{feff}".as_bytes()) { 3 } else { 0 };
    let first_end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i);
    let first = &bytes[start..first_end];
    if first_end == bytes.len() || !frontmatter::is_opening_bytes(first.strip_suffix(b"\r").unwrap_or(first)) {
        return bytes;
    }
    let rest = &bytes[first_end + 1..];
    match memchr::memmem::find(rest, b"---") {
        Some(at) => {
            let end = memchr::memchr(b'\n', &rest[at..]).map_or(bytes.len(), |i| first_end + 1 + at + i + 1);
            &bytes[..end]
        }
        None => bytes,
    }
}

/// The line without its line ending.
fn bare(l: &str) -> &str {
    l.trim_end_matches(['\n', '\r'])
}

/// Split FROM's index into the lines that go with moved files and the rest; place
/// the former in INTO's index (§10.2), deduplicated, renamed links rewritten.
pub(super) fn plan_indexes(p: &mut Plan) {
    let sorted = sort_source_lines(p.source_index.as_deref().unwrap_or(""), &p.target_index, &p.moves);
    let (new_target, added) = place_lines(&p.target_index, sorted.placing);
    p.kept = sorted.kept;
    p.skipped = sorted.skipped;
    p.added = added;
    p.unindexed = unindexed(&p.moves, &sorted.indexed, &sorted.linked);
    if p.source_index.is_some() {
        p.new_source_index = source_after(sorted.remaining);
    }
    p.new_target_index = new_target;
    let load = measure_target(p);
    if p.changes_target_index() {
        let cuts = Cuts::of(&p.target_index, &p.new_target_index, &load);
        p.cut = cut(&cuts, &sorted.added_files);
        if p.cut.is_some() {
            p.cut_entries = cuts.entries(&p.new_target_index);
        }
    }
}

/// FROM's index lines, sorted: those that stay, those INTO already has, those to
/// place in INTO.
#[derive(Debug, Default)]
struct Sorted {
    /// FROM's index without the lines that go (its BOM kept).
    remaining: String,
    /// FROM's other lines that are not blank, numbered in FROM.
    kept: Vec<Line>,
    /// Lines for moved files that INTO's index already has, numbered in FROM.
    skipped: Vec<Line>,
    /// The lines to place in INTO, links rewritten, with the type of their first file.
    placing: Vec<(String, Option<String>)>,
    /// The files (names in INTO) the placed lines link.
    added_files: Vec<String>,
    /// Moved files (names in FROM) that FROM's index links.
    indexed: HashSet<String>,
    /// The files INTO's index links once the lines are placed.
    linked: HashSet<String>,
}

/// Sort the lines of `source` (FROM's index) against `target` (INTO's index):
/// a line that links moved files goes (skipped when INTO has its text or links
/// all its files already), every other line stays.
fn sort_source_lines(source: &str, target: &str, moves: &[Move]) -> Sorted {
    let body = source.strip_prefix('\u{feff}').unwrap_or(source);
    let goes = lines_by_move(body, moves);
    let mut s = Sorted {
        remaining: source[..source.len() - body.len()].to_string(),
        linked: link_targets(target),
        ..Sorted::default()
    };
    // A line's type only chooses its section: none to choose, none read.
    let typed = index::place::has_type_sections(target);
    let mut target_lines: HashSet<String> = index::lines(target).iter().map(|l| l.trim_end().to_string()).collect();
    for (i, l) in body.split_inclusive('\n').enumerate() {
        let Some(links) = goes.get(&i) else {
            s.remaining.push_str(l);
            if !l.trim().is_empty() {
                s.kept.push(Line {
                    line: i + 1,
                    text: bare(l).to_string(),
                });
            }
            continue;
        };
        s.indexed.extend(links.iter().map(|(m, _)| m.file.clone()));
        let text = rewritten(l, links);
        let dup = target_lines.contains(text.trim_end()) || links.iter().all(|(m, _)| s.linked.contains(&m.to));
        if dup {
            s.skipped.push(Line { line: i + 1, text });
            continue;
        }
        for (m, _) in links {
            s.linked.insert(m.to.clone());
            s.added_files.push(m.to.clone());
        }
        target_lines.insert(text.trim_end().to_string());
        let ty = typed
            .then(|| memory_type(&links[0].0.bytes))
            .flatten()
            .map(|t| t.as_str().to_string());
        s.placing.push((text, ty));
    }
    s
}

/// Each line (0-based) of `body` that links moved files → those moves, with the
/// links as written.
fn lines_by_move<'a>(body: &str, moves: &'a [Move]) -> BTreeMap<usize, Vec<(&'a Move, index::Link)>> {
    let by_file: HashMap<&str, &Move> = moves.iter().map(|m| (m.file.as_str(), m)).collect();
    let mut goes: BTreeMap<usize, Vec<(&Move, index::Link)>> = BTreeMap::new();
    for link in index::extract_links(body) {
        if let Some(m) = link.memory_target().and_then(|t| by_file.get(t)) {
            goes.entry(link.line - 1).or_default().push((m, link.clone()));
        }
    }
    goes
}

/// The memory files `text` links.
fn link_targets(text: &str) -> HashSet<String> {
    index::extract_links(text)
        .iter()
        .filter_map(|l| l.memory_target().map(str::to_string))
        .collect()
}

/// The line `l` (without its end) with each link to a renamed file pointing at
/// its new name. Also a file that a killed run already put under its new name
/// (merged identical now): the line links where the memory is.
fn rewritten(l: &str, links: &[(&Move, index::Link)]) -> String {
    let mut text = bare(l).to_string();
    for (m, link) in links {
        if m.to != m.file {
            text = rewrite_link(&text, link, &index::encode_file(&m.to));
        }
    }
    text
}

/// `target` with `placing` placed by §10.2, and the placed lines numbered there.
fn place_lines(target: &str, placing: Vec<(String, Option<String>)>) -> (String, Vec<Line>) {
    // All at once (one by one re-reads the index per line: quadratic in an import).
    let (placed, numbers) = index::place::place_all(target, &placing);
    let mut added: Vec<Line> = placing
        .into_iter()
        .zip(numbers)
        .map(|((text, _), line)| Line { line, text })
        .collect();
    added.sort_by_key(|a| a.line);
    (placed, added)
}

/// The moved files (names in INTO) that no index line links: FROM's index did not
/// link them, and INTO's may link them already (its own copy, or one a killed
/// merge moved and indexed before FROM's line went).
fn unindexed(moves: &[Move], indexed: &HashSet<String>, linked: &HashSet<String>) -> Vec<String> {
    moves
        .iter()
        .filter(|m| !indexed.contains(&m.file) && !linked.contains(&m.to))
        .map(|m| m.to.clone())
        .collect()
}

/// FROM's index afterwards: `None` (removed) when nothing but blanks is left.
fn source_after(remaining: String) -> Option<String> {
    if remaining.trim_start_matches('\u{feff}').trim().is_empty() {
        None
    } else {
        Some(remaining)
    }
}

/// The truncation model's counts of INTO's new index (§2.7), from its load.
fn measure_target(p: &mut Plan) -> Load {
    let l = load(&p.new_target_index);
    p.target_lines = l.line_count;
    p.target_units = l.unit_count;
    p.target_truncated = l.line_truncated || l.unit_truncated;
    p.target_reason = l.reason.clone();
    l
}

/// Whether the new index cuts lines for `added_files` or pushes entries the
/// old one loaded past the cut (§10.2): `None` when neither.
fn cut(cuts: &Cuts, added_files: &[String]) -> Option<Cut> {
    let after = cuts.after_targets();
    let added: BTreeSet<&str> = added_files.iter().map(String::as_str).collect();
    let own: Vec<String> = after
        .iter()
        .filter(|t| added.contains(*t))
        .map(|t| t.to_string())
        .collect();
    let pushed: Vec<String> = after
        .iter()
        .filter(|t| !cuts.before.contains(**t) && !added.contains(*t))
        .map(|t| t.to_string())
        .collect();
    (!own.is_empty() || !pushed.is_empty()).then_some(Cut { own, pushed })
}

/// The index half of a merge alone (`import`, SPEC §11.2): the lines of `source`
/// that link `files` (memories INTO holds under the same names after the import,
/// with their bytes) placed into `target` by §10.2, deduplicated by link target.
/// The plan's `new_target_index`, `added`, `skipped`, `cut` and `target_*` say
/// the result; nothing is read or written.
pub fn merge_index(source: &str, target: &str, files: &[(String, std::sync::Arc<Vec<u8>>)]) -> Plan {
    let moves = files
        .iter()
        .map(|(f, b)| Move {
            file: f.clone(),
            to: f.clone(),
            action: Action::MergedIdentical,
            bytes: b.clone(),
            mtime_ns: 0,
        })
        .collect();
    let nowhere = || MemoryDir::open("", Scope::Main);
    Plan::new(
        nowhere(),
        nowhere(),
        moves,
        Vec::new(),
        Some(source.to_string()),
        target.to_string(),
    )
}

/// `line` with the destination of `link` replaced by `dest`.
fn rewrite_link(line: &str, link: &index::Link, dest: &str) -> String {
    let start = line
        .char_indices()
        .nth(link.col.saturating_sub(1))
        .map_or(0, |(b, _)| b);
    let from = line[start..]
        .find("](")
        .or_else(|| line[start..].find("]:"))
        .map_or(start, |k| start + k);
    match line[from..].find(link.dest.as_str()) {
        Some(k) => {
            let at = from + k;
            format!("{}{dest}{}", &line[..at], &line[at + link.dest.len()..])
        }
        None => line.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(file: &str, to: &str, action: Action, ty: &str) -> Move {
        Move {
            file: file.into(),
            to: to.into(),
            action,
            bytes: format!("---\nname: n\ndescription: d\ntype: {ty}\n---\nx\n")
                .into_bytes()
                .into(),
            mtime_ns: 0,
        }
    }

    fn planned(moves: Vec<Move>, src: &str, dst: &str) -> Plan {
        let (f, i) = (MemoryDir::open("/f", Scope::Main), MemoryDir::open("/i", Scope::Main));
        Plan::new(f, i, moves, vec![], Some(src.into()), dst.into())
    }

    #[test]
    fn the_type_is_read_from_the_head_alone_as_from_the_whole_file() {
        for text in [
            "---\nname: n\ntype: user\n---\nbody\n---\nmore \u{fffd}\n",
            "\u{feff}---\r\ntype: feedback\r\n---\r\nbody",
            "---\nmetadata:\n  type: project\n--- trailing\nbody",
            "---\ntype: user",
            "no block\n---\ntype: user\n---\n",
            "---",
            "",
        ] {
            let whole = {
                let (fm, _) = frontmatter::parse_document(text);
                MemoryType::of(frontmatter::Fields::from(&fm).type_raw.as_ref())
            };
            assert_eq!(memory_type(text.as_bytes()), whole, "{text:?}");
        }
        let mut bad = b"---\ntype: reference\n---\n".to_vec();
        bad.extend_from_slice(&[0xff, 0xfe, b'\n']);
        assert_eq!(head(&bad), b"---\ntype: reference\n---\n");
        assert_eq!(memory_type(&bad), Some(MemoryType::Reference));
    }

    #[test]
    fn lines_go_with_their_files_to_their_sections() {
        let src = "# Old\n\n## Feedback\n- [T](feedback_t.md) — t\n- [U](user_u.md) — u\nnotes\n- [K](kept.md) — k\n";
        let dst = "# Index\n## User\n- [A](user_a.md) — a\n## Feedback\n- [F](feedback_f.md) — f\n";
        let p = planned(
            vec![
                mv("feedback_t.md", "feedback_t-2.md", Action::Renamed, "feedback"),
                mv("user_u.md", "user_u.md", Action::Moved, "user"),
            ],
            src,
            dst,
        );
        assert_eq!(
            p.new_target_index,
            "# Index\n## User\n- [A](user_a.md) — a\n- [U](user_u.md) — u\n## Feedback\n- [F](feedback_f.md) — f\n- [T](feedback_t-2.md) — t\n"
        );
        assert_eq!(
            p.added,
            vec![
                Line {
                    line: 4,
                    text: "- [U](user_u.md) — u".into()
                },
                Line {
                    line: 7,
                    text: "- [T](feedback_t-2.md) — t".into()
                }
            ]
        );
        assert_eq!(
            p.new_source_index.as_deref(),
            Some("# Old\n\n## Feedback\nnotes\n- [K](kept.md) — k\n")
        );
        assert_eq!(p.kept.iter().map(|l| l.line).collect::<Vec<_>>(), vec![1, 3, 6, 7]);
    }

    #[test]
    fn duplicates_are_skipped_and_an_emptied_index_goes() {
        let src = "- [U](user_u.md) — u\n\n";
        let dst = "- [U](user_u.md) — other words\n";
        let p = planned(
            vec![mv("user_u.md", "user_u.md", Action::MergedIdentical, "user")],
            src,
            dst,
        );
        assert_eq!(p.skipped.len(), 1);
        assert!(p.added.is_empty());
        assert!(!p.changes_target_index());
        assert_eq!(p.new_source_index, None);
    }

    #[test]
    fn a_renamed_link_keeps_its_text() {
        for (line, want) in [
            ("- [x.md](./x.md) — see x.md", "- [x.md](x-2.md) — see x.md"),
            ("- [x.md](x.md) — x.md", "- [x.md](x-2.md) — x.md"),
        ] {
            let l = &index::extract_links(line)[0];
            assert_eq!(rewrite_link(line, l, "x-2.md"), want);
        }
    }

    #[test]
    fn source_lines_sort_into_kept_skipped_and_placed() {
        let moves = vec![
            mv("a.md", "a-2.md", Action::Renamed, "user"),
            mv("b.md", "b.md", Action::MergedIdentical, "user"),
        ];
        let src = "\u{feff}# S\n- [A](a.md) — a\n- [B](b.md) — b\n- [K](k.md) — k\n";
        let s = sort_source_lines(src, "## User\n- [B](b.md) — other\n", &moves);
        assert_eq!(s.remaining, "\u{feff}# S\n- [K](k.md) — k\n");
        assert_eq!(s.kept.iter().map(|l| l.line).collect::<Vec<_>>(), vec![1, 4]);
        assert_eq!(s.skipped.iter().map(|l| l.line).collect::<Vec<_>>(), vec![3]);
        assert_eq!(
            s.placing,
            vec![("- [A](a-2.md) — a".to_string(), Some("user".to_string()))]
        );
        assert_eq!(s.added_files, vec!["a-2.md".to_string()]);
        assert!(s.indexed.contains("a.md") && s.indexed.contains("b.md"));
        assert!(s.linked.contains("a-2.md") && s.linked.contains("b.md"));
        // No section for any type: every line is appended, its type unread.
        let s = sort_source_lines(src, "# Index\n- [B](b.md) — other\n", &moves);
        assert_eq!(s.placing, vec![("- [A](a-2.md) — a".to_string(), None)]);
    }

    #[test]
    fn lines_by_move_numbers_lines_from_zero() {
        let moves = vec![mv("a.md", "a.md", Action::Moved, "user")];
        let goes = lines_by_move("# I\n- [A](a.md) and [again](a.md)\n- [X](x.md)\n", &moves);
        assert_eq!(goes.keys().copied().collect::<Vec<_>>(), vec![1]);
        assert_eq!(goes[&1].len(), 2);
    }

    #[test]
    fn unindexed_files_are_those_no_index_links() {
        let moves = vec![
            mv("a.md", "a.md", Action::Moved, "user"),
            mv("b.md", "b-2.md", Action::Renamed, "user"),
            mv("c.md", "c.md", Action::Moved, "user"),
        ];
        let indexed: HashSet<String> = ["a.md".to_string()].into();
        let linked: HashSet<String> = ["c.md".to_string()].into();
        assert_eq!(unindexed(&moves, &indexed, &linked), vec!["b-2.md".to_string()]);
    }

    #[test]
    fn a_source_index_of_blanks_goes() {
        assert_eq!(source_after("\u{feff}\n \n".into()), None);
        assert_eq!(source_after(String::new()), None);
        assert_eq!(source_after("# kept\n".into()).as_deref(), Some("# kept\n"));
    }

    #[test]
    fn the_cut_names_added_lines_and_pushed_entries() {
        let cut = |before: &str, after: &str, added: &[String]| cut(&Cuts::of(before, after, &load(after)), added);
        let within = "- [A](a.md) — a\n- [B](b.md) — b\n";
        assert_eq!(cut("- [A](a.md) — a\n", within, &["b.md".into()]), None);
        let many: String = (0..199).map(|i| format!("- [M{i}](m{i}.md) — m\n")).collect();
        let own = cut(
            &many,
            &format!("{many}- [C](c.md) — c\n- [D](d.md) — d\n"),
            &["d.md".into()],
        )
        .unwrap();
        assert_eq!((own.own, own.pushed), (vec!["d.md".to_string()], vec![]));
        let before = format!("{many}- [B](b.md) — b\n");
        let pushed = cut(&before, &format!("- [C](c.md) — c\n{before}"), &["c.md".into()]).unwrap();
        assert_eq!((pushed.own, pushed.pushed), (vec![], vec!["b.md".to_string()]));
    }
}
