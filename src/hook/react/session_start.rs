//! SessionStart (SPEC v3 §7.3): what makes memories invisible now, and what
//! happened between sessions, each problem once (what is new since this
//! project's previous SessionStart). The driver [`session_start`] runs the
//! reactions in the order their items appear: index entries past the cut, files
//! Claude Code cannot read, unindexed files, unresolved sync conflicts, and what a
//! dream or another program changed since the last snapshot.

use std::mem;
use std::path::Path;

use super::{Outcome, dropped, dropped_item, finish, fullness, plural};
use crate::fx::{HashMap, HashSet};
use crate::hook::render::{HookOutput, Item};
use crate::hook::session::{self, Found, Mark, Seen, Stamp};
use crate::index::load::{self, Load};
use crate::paths::Resolution;
use crate::paths::stores::Stores;
use crate::scan::ScanRules;

/// What the SessionStart snapshot recorded: its trigger and how many files changed.
pub struct Between {
    pub trigger: &'static str,
    pub files: usize,
}

/// The memory files each index links, by the index's label.
type Links = HashMap<String, HashSet<String>>;

/// SessionStart (SPEC §7.3): what makes memories invisible now.
/// `walked`: the memory files and conflict files [`session::walk`] finds, when the
/// snapshot's walk found them already.
pub fn session_start(
    res: &Resolution,
    env: &crate::paths::Env,
    between: Option<Between>,
    walked: Option<(Vec<Found>, Vec<String>)>,
) -> Option<HookOutput> {
    let dir = res.memdir.main();
    if !res.enabled.value || !dir.is_dir() {
        return None;
    }
    let stores = Stores::from_env(env);
    let rules = ScanRules::from_stores(&stores);
    let mounts: Vec<String> = stores.team().map(|s| s.mount.clone()).collect();
    let mut indexes = Indexes::new(dir, res.memdir.team_store(), mounts);
    let record = session::state_path(env, dir);
    let mut prev = record.as_deref().map(session::load).unwrap_or_default();
    let (files, conflict_files) = walked.unwrap_or_else(|| session::walk(dir, &rules));
    let mut next = Seen {
        indexes: indexes.stamps(),
        ..Seen::default()
    };
    let same_index = prev.same_indexes(&next.indexes);
    let mut report = Report::default();
    indexes.links = past_the_cut(&indexes, same_index, &mut prev, &mut next, &mut report);
    let check = check_files(&files, &prev, &mut next, same_index, &mut indexes);
    report_unreadable(&mut report, check.unreadable);
    report_unindexed(&mut report, check.unindexed);
    let conflicts = new_conflicts(&conflict_files, &prev.conflicts);
    next.conflicts = conflict_files.into_iter().collect();
    // The record is written when an index, a file or a flag changed, one is gone,
    // or the conflict files differ (no full comparison of the sets).
    if let Some(path) = &record
        && (!same_index || check.dirty || next.conflicts != prev.conflicts)
    {
        session::save(path, &next);
    }
    report_conflicts(&mut report, conflicts);
    report_between(&mut report, between);
    report.finish()
}

/// The items for the model and the parts of the user's line, in the order found.
#[derive(Default)]
struct Report {
    context: Vec<Item>,
    parts: Vec<String>,
}

impl Report {
    fn add(&mut self, part: String, item: Item) {
        self.parts.push(part);
        self.context.push(item);
    }

    /// The output document; `None` when nothing was found.
    fn finish(self) -> Option<HookOutput> {
        if self.context.is_empty() {
            return None;
        }
        let o = Outcome {
            context: self.context,
            summary: Some(format!("memctl: {}", self.parts.join("; "))),
            ..Outcome::default()
        };
        finish("SessionStart", "", o, true)
    }
}

/// The indexes Claude Code loads from the memory dir, and (once read) their links.
struct Indexes<'a> {
    dir: &'a Path,
    team_store: bool,
    mounts: Vec<String>,
    /// Labels relative to the memory dir: `MEMORY.md`, then the team indexes.
    names: Vec<String>,
    links: Option<Links>,
}

impl<'a> Indexes<'a> {
    fn new(dir: &'a Path, team_store: bool, mounts: Vec<String>) -> Indexes<'a> {
        Indexes {
            dir,
            team_store,
            names: index_names(team_store, &mounts),
            mounts,
            links: None,
        }
    }

    /// Each index's stamp. Stamped before they are read: an index that changes
    /// in between is read again next session.
    fn stamps(&self) -> Vec<(String, Option<Stamp>)> {
        self.names
            .iter()
            .map(|l| (l.clone(), session::stamp(&self.dir.join(l))))
            .collect()
    }

    /// Whether `index` exists and does not link `local`; the links are read the
    /// first time they are needed. A missing index is written by Claude Code
    /// itself (SPEC §2.7.4): no unindexed files then.
    fn unindexed(&mut self, index: &str, local: &str) -> bool {
        let (dir, names) = (self.dir, &self.names);
        self.links
            .get_or_insert_with(|| read_links(dir, names))
            .get(index)
            .is_some_and(|set| !set.contains(local))
    }
}

/// The labels of the indexes: `MEMORY.md`, and with a team store `team/MEMORY.md`
/// and each mount's `team/<mount>/MEMORY.md`.
fn index_names(team_store: bool, mounts: &[String]) -> Vec<String> {
    let mut names = vec![crate::memdir::INDEX.to_string()];
    if team_store {
        names.push("team/MEMORY.md".to_string());
        names.extend(mounts.iter().map(|m| format!("team/{m}/MEMORY.md")));
    }
    names
}

/// The memory files an index's text links.
fn links_of(text: &str) -> HashSet<String> {
    crate::index::extract_links(text)
        .iter()
        .filter_map(|l| l.memory_target().map(str::to_string))
        .collect()
}

/// The links of every index that can be read.
fn read_links(dir: &Path, names: &[String]) -> Links {
    names
        .iter()
        .filter_map(|label| {
            let bytes = crate::index::read_index(&dir.join(label)).ok()?;
            Some((label.clone(), links_of(&String::from_utf8_lossy(&bytes))))
        })
        .collect()
}

/// Index entries past the cut, not reported before. When no index changed since
/// the previous SessionStart its cut entries are the ones already reported, and
/// its links are read only if a memory file changed (an unchanged file keeps its
/// verdict): at 20 000 files that is a 3 MB index not parsed at every session
/// start (issue 31, SPEC v3 §7.2). Returns the links when the indexes were read.
fn past_the_cut(
    ix: &Indexes,
    same_index: bool,
    prev: &mut Seen,
    next: &mut Seen,
    report: &mut Report,
) -> Option<Links> {
    if same_index {
        next.dropped = mem::take(&mut prev.dropped);
        return None;
    }
    let mut all = Links::default();
    for label in &ix.names {
        let Ok(bytes) = crate::index::read_index(&ix.dir.join(label)) else {
            continue;
        };
        let text = String::from_utf8_lossy(&bytes);
        all.insert(label.clone(), links_of(&text));
        newly_dropped(label, &load::load(&text), &prev.dropped, &mut next.dropped, report);
    }
    Some(all)
}

/// One index's entries past the cut: each recorded in `now`, and reported when
/// the index is cut and some were not in `before`.
fn newly_dropped(label: &str, l: &Load, before: &HashSet<u64>, now: &mut HashSet<u64>, report: &mut Report) {
    let mut new: Vec<(usize, String)> = Vec::new();
    for (n, t) in dropped(l) {
        let key = session::dropped_key(label, &t);
        if !before.contains(&key) {
            new.push((n, t));
        }
        now.insert(key);
    }
    if l.truncated() && !new.is_empty() {
        report.add(
            format!(
                "{} — {} not loaded",
                fullness(label, l),
                plural(new.len(), "entry", "entries")
            ),
            dropped_item(label, l, &new),
        );
    }
}

/// What the memory files showed: the problems new since the previous
/// SessionStart, and whether the record must be written.
#[derive(Default)]
struct FileCheck {
    unreadable: Vec<String>,
    unindexed: Vec<String>,
    dirty: bool,
}

/// The memory files: only a new or changed one is read; each problem once. Both
/// lists (the walk's and the record's) are sorted by path: one merge.
fn check_files(files: &[Found], prev: &Seen, next: &mut Seen, same_index: bool, ix: &mut Indexes) -> FileCheck {
    let mut check = FileCheck {
        dirty: files.len() != prev.files.len(),
        ..FileCheck::default()
    };
    let mut before_it = prev.files.iter().peekable();
    next.files.reserve(files.len());
    for f in files {
        while before_it.next_if(|(r, _)| r.as_str() < f.rel.as_str()).is_some() {}
        let before = before_it.next_if(|(r, _)| *r == f.rel).map(|(_, m)| m);
        let mark = check_file(f, before, same_index, ix, &mut check);
        next.files.push((f.rel.clone(), mark));
    }
    check
}

/// One memory file against what the previous SessionStart saw of it (`before`):
/// its new mark, with its problems added to `check` when they are new.
fn check_file(f: &Found, before: Option<&Mark>, same_index: bool, ix: &mut Indexes, check: &mut FileCheck) -> Mark {
    let changed = before.is_none_or(|m| m.size != f.size || m.mtime_ns != f.mtime_ns);
    let bad = if changed { session::unreadable(&f.path) } else { None };
    let unreadable = if changed {
        bad.is_some()
    } else {
        before.is_some_and(|m| m.unreadable)
    };
    let (index, local) = session::index_of(&f.rel, ix.team_store, &ix.mounts);
    let unindexed = match before {
        Some(m) if !changed && same_index => m.unindexed,
        _ => ix.unindexed(&index, local),
    };
    if let Some((line, msg)) = bad
        && !before.is_some_and(|m| m.unreadable)
    {
        check.unreadable.push(format!("{}:{line}: {msg}", f.rel));
    }
    if unindexed && !before.is_some_and(|m| m.unindexed) {
        check
            .unindexed
            .push(format!("{}: not in {index}: Claude Code never loads it", f.rel));
    }
    check.dirty |= changed || before.is_some_and(|m| m.unindexed != unindexed);
    Mark {
        size: f.size,
        mtime_ns: f.mtime_ns,
        unreadable,
        unindexed,
    }
}

/// Files Claude Code cannot read (their frontmatter).
fn report_unreadable(report: &mut Report, list: Vec<String>) {
    if list.is_empty() {
        return;
    }
    report.add(
        plural(
            list.len(),
            "file Claude Code cannot read",
            "files Claude Code cannot read",
        ),
        Item::new("frontmatter Claude Code cannot read (the memory is untyped, with no description)").with_list(list),
    );
}

/// Memory files no index links.
fn report_unindexed(report: &mut Report, list: Vec<String>) {
    if list.is_empty() {
        return;
    }
    report.add(
        plural(list.len(), "unindexed file", "unindexed files"),
        Item::new("not linked from the index, so never loaded (`memctl lint --fix` adds the lines)").with_list(list),
    );
}

/// The conflict files not reported before, as lines of the list.
fn new_conflicts(files: &[String], before: &HashSet<String>) -> Vec<String> {
    files
        .iter()
        .filter(|c| !before.contains(*c))
        .cloned()
        .map(conflict_line)
        .collect()
}

/// A conflict file (relative to the memory dir) as one line of the SessionStart
/// list: its name and where the other version came from.
fn conflict_line(rel: String) -> String {
    let name = rel.rsplit('/').next().unwrap_or(&rel);
    match crate::scan::conflict::parse_conflict_name(name) {
        Some(c) => format!("{rel} (from {}, {})", c.machine, c.date_iso()),
        None => rel,
    }
}

/// Unresolved sync conflicts (SPEC §7.3, §11.3): another machine's version of a
/// memory waits beside it, and `memctl sync` refuses until it is resolved.
fn report_conflicts(report: &mut Report, conflicts: Vec<String>) {
    if conflicts.is_empty() {
        return;
    }
    let n = conflicts.len();
    report.add(
        format!(
            "{} (memctl sync --status)",
            plural(n, "unresolved sync conflict", "unresolved sync conflicts")
        ),
        Item::new(format!(
            "{} another machine's version of a memory, kept beside it and not loaded; merge it by hand and delete the file, or `memctl sync --resolve FILE` keeps the local version (`memctl sync --status` lists them)",
            plural(n, "sync conflict file holds", "sync conflict files hold")
        ))
        .with_list(conflicts),
    );
}

/// What happened between sessions (SPEC §7.3): a dream or another program.
fn report_between(report: &mut Report, between: Option<Between>) {
    let Some(b) = between.filter(|b| matches!(b.trigger, "dream" | "external") && b.files > 0) else {
        return;
    };
    let files = plural(b.files, "file", "files");
    let (what, how) = if b.trigger == "dream" {
        (
            format!("a dream changed {files} since the last snapshot"),
            "`memctl diff --dream` shows what; `memctl undo --dream` reverts it",
        )
    } else {
        (
            format!("{files} changed outside Claude Code since the last session"),
            "`memctl history` and `memctl diff` show what",
        )
    };
    report.add(what.clone(), Item::new(format!("{what}: {how}")));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mark(size: u64, unreadable: bool, unindexed: bool) -> Mark {
        Mark {
            size,
            mtime_ns: 7,
            unreadable,
            unindexed,
        }
    }

    fn found(rel: &str, size: u64) -> Found {
        Found {
            rel: rel.to_string(),
            path: Path::new("/nonexistent").join(rel),
            size,
            mtime_ns: 7,
        }
    }

    #[test]
    fn the_team_indexes_follow_the_main_one_only_with_a_team_store() {
        let mounts = vec!["infra".to_string()];
        assert_eq!(index_names(false, &mounts), ["MEMORY.md"]);
        assert_eq!(
            index_names(true, &mounts),
            ["MEMORY.md", "team/MEMORY.md", "team/infra/MEMORY.md"]
        );
    }

    #[test]
    fn links_of_keeps_memory_targets_only() {
        let links = links_of("- [A](a.md) — one\n- [Site](https://example.com)\n- [B](sub/b.md)\n");
        assert!(links.contains("a.md"));
        assert!(links.contains("sub/b.md"));
        assert_eq!(links.len(), 2);
    }

    #[test]
    fn entries_past_the_cut_are_reported_once() {
        let text: String = (1..=210).map(|i| format!("- [M{i}](m{i}.md) — entry {i}\n")).collect();
        let l = load::load(&text);
        let mut report = Report::default();
        let mut seen = HashSet::default();
        newly_dropped("MEMORY.md", &l, &HashSet::default(), &mut seen, &mut report);
        assert_eq!(seen.len(), 10);
        assert_eq!(report.parts, ["MEMORY.md 210/200 lines — 10 entries not loaded"]);
        assert_eq!(report.context[0].list.len(), 10);
        assert!(report.context[0].list[0].starts_with("MEMORY.md:201: - [M201]"));

        let mut again = Report::default();
        let mut now = HashSet::default();
        newly_dropped("MEMORY.md", &l, &seen, &mut now, &mut again);
        assert_eq!(now, seen);
        assert!(again.parts.is_empty() && again.context.is_empty());
    }

    #[test]
    fn an_unchanged_file_keeps_its_verdict_and_is_not_reported_again() {
        let dir = Path::new("/nonexistent");
        let mut ix = Indexes::new(dir, false, Vec::new());
        let mut check = FileCheck::default();
        let before = mark(10, true, true);
        let m = check_file(&found("a.md", 10), Some(&before), true, &mut ix, &mut check);
        assert_eq!(m, before);
        assert!(check.unreadable.is_empty() && check.unindexed.is_empty());
        assert!(!check.dirty);
        assert!(ix.links.is_none(), "no index read for an unchanged file");
    }

    #[test]
    fn a_file_is_unindexed_only_when_its_index_exists_and_misses_it() {
        let mut ix = Indexes::new(Path::new("/nonexistent"), false, Vec::new());
        assert!(
            !ix.unindexed("MEMORY.md", "a.md"),
            "a missing index leaves nothing unindexed"
        );
        let mut links = Links::default();
        links.insert("MEMORY.md".to_string(), links_of("- [A](a.md)\n"));
        ix.links = Some(links);
        assert!(!ix.unindexed("MEMORY.md", "a.md"));
        assert!(ix.unindexed("MEMORY.md", "b.md"));
    }

    #[test]
    fn a_file_that_newly_lost_its_index_line_is_reported_and_recorded() {
        let mut ix = Indexes::new(Path::new("/nonexistent"), false, Vec::new());
        let mut links = Links::default();
        links.insert("MEMORY.md".to_string(), HashSet::default());
        ix.links = Some(links);
        let mut check = FileCheck::default();
        let before = mark(10, false, false);
        let m = check_file(&found("a.md", 10), Some(&before), false, &mut ix, &mut check);
        assert!(m.unindexed);
        assert_eq!(check.unindexed, ["a.md: not in MEMORY.md: Claude Code never loads it"]);
        assert!(check.dirty);
    }

    #[test]
    fn the_merge_with_the_record_pairs_files_by_path() {
        let mut ix = Indexes::new(Path::new("/nonexistent"), false, Vec::new());
        let prev = Seen {
            files: vec![
                ("a.md".to_string(), mark(1, false, true)),
                ("b.md".to_string(), mark(2, false, false)),
                ("c.md".to_string(), mark(3, false, true)),
            ],
            ..Seen::default()
        };
        let mut next = Seen::default();
        let check = check_files(&[found("a.md", 1), found("c.md", 3)], &prev, &mut next, true, &mut ix);
        assert!(check.dirty, "b.md is gone");
        assert_eq!(next.files, [prev.files[0].clone(), prev.files[2].clone()]);
        assert!(check.unindexed.is_empty());
    }

    #[test]
    fn file_problems_become_items_with_their_lists() {
        let mut report = Report::default();
        report_unreadable(&mut report, Vec::new());
        report_unindexed(&mut report, Vec::new());
        assert!(report.finish().is_none());

        let mut report = Report::default();
        report_unreadable(&mut report, vec!["a.md:2: bad".to_string()]);
        report_unindexed(&mut report, vec!["b.md: x".to_string(), "c.md: y".to_string()]);
        assert_eq!(report.parts, ["1 file Claude Code cannot read", "2 unindexed files"]);
        assert_eq!(report.context[1].list, ["b.md: x", "c.md: y"]);
        let doc = report.finish().expect("a document");
        assert_eq!(
            doc.system_message.as_deref(),
            Some("memctl: 1 file Claude Code cannot read; 2 unindexed files")
        );
    }

    #[test]
    fn conflicts_are_new_ones_only_and_name_their_machine_and_date() {
        let mut before = HashSet::default();
        before.insert("old.md.conflict-desk-20261130".to_string());
        let files = vec![
            "old.md.conflict-desk-20261130".to_string(),
            "sub/t.md.conflict-laptop-20261201".to_string(),
        ];
        let lines = new_conflicts(&files, &before);
        assert_eq!(lines, ["sub/t.md.conflict-laptop-20261201 (from laptop, 2026-12-01)"]);
        assert_eq!(conflict_line("odd".to_string()), "odd");

        let mut report = Report::default();
        report_conflicts(&mut report, lines);
        assert_eq!(report.parts, ["1 unresolved sync conflict (memctl sync --status)"]);
        assert!(report.context[0].text.starts_with("1 sync conflict file holds"));
    }

    #[test]
    fn a_dream_or_an_outside_change_between_sessions_is_reported() {
        let mut report = Report::default();
        report_between(&mut report, None);
        report_between(
            &mut report,
            Some(Between {
                trigger: "claude",
                files: 3,
            }),
        );
        report_between(
            &mut report,
            Some(Between {
                trigger: "dream",
                files: 0,
            }),
        );
        assert!(report.parts.is_empty());
        report_between(
            &mut report,
            Some(Between {
                trigger: "dream",
                files: 2,
            }),
        );
        report_between(
            &mut report,
            Some(Between {
                trigger: "external",
                files: 1,
            }),
        );
        assert_eq!(
            report.parts,
            [
                "a dream changed 2 files since the last snapshot",
                "1 file changed outside Claude Code since the last session"
            ]
        );
        assert!(report.context[0].text.ends_with("`memctl undo --dream` reverts it"));
    }
}
