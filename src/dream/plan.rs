//! The consolidation plan of SPEC §3.11, grouped by Claude Code's four phases. Pure:
//! the caller gathers the scan, the texts, the lint findings and the sessions, and
//! says which cited paths exist.

use std::collections::{BTreeMap, HashMap as StdHashMap};

use crate::fx::HashMap;
use std::path::{Path, PathBuf};

use chrono::{Duration, TimeZone, Utc};
use serde::Serialize;

use super::caps::Caps;
use super::citations::{Cited, Shape, citations};
use super::duplicates::{Cluster, Superseded, record_clusters};
use super::record::Record;
use crate::dates;
use crate::index::{self, Link};
use crate::lint::RuleId;
use crate::lint::{Found, Severity};
use crate::memory::MemoryType;
use crate::sessions::Session;
use crate::text::IsoMs;

/// What the plan is made from.
pub struct PlanInput<'a> {
    /// The main memory dir.
    pub dir: &'a Path,
    /// Its memories, newest first (the scan's order).
    /// Mutable only for the duplicate search, which lets each description go once
    /// read ([`Record::forget_description`]).
    pub memories: &'a mut [Record],
    /// What [`BodyFacts::of`] found in the text of each of `memories`, in the same
    /// order; `None` when nothing, or the file could not be read (most files:
    /// boxed, a pointer each).
    pub bodies: &'a [Option<Box<BodyFacts>>],
    /// The lint findings on the main dir (the index rules are picked from them:
    /// those of [`PLAN_RULES`] are enough).
    pub findings: &'a Found,
    /// The transcripts dir's entries (none without a project).
    pub sessions: &'a [Session],
    pub transcripts_dir: Option<&'a str>,
    /// The lock's mtime: the last consolidation.
    pub last_consolidated_ms: Option<f64>,
    /// (2.1.332) The memory dir has a `sessions/` subdirectory (the dream reviews it).
    pub sessions_dir: bool,
    /// The canonical project root relative citations resolve against; `None`
    /// skips the missing-citation check (no project).
    pub project_root: Option<&'a Path>,
    /// The home directory `~/` citations resolve against; `None` skips them.
    pub home: Option<&'a Path>,
    /// Whether a cited path exists (not following a final symlink).
    pub exists: &'a dyn Fn(&Path) -> bool,
}

/// What the plan takes of `MEMORY.md`, taken from its text before the scan (so
/// that the load model behind the caps, ~7.6 MB at 20 000 files, is never held
/// beside the scan's records).
pub struct IndexPart {
    /// Its memory links.
    links: usize,
    /// Each memory file it links from two lines or more, with those lines.
    targets: BTreeMap<String, Vec<usize>>,
    /// Its lines (0 when empty or missing).
    lines: usize,
    caps: Caps,
}

impl IndexPart {
    /// The part of `text`, `MEMORY.md` of `dir` as read (empty when missing);
    /// the caps quote the dropped index entries only `for_json`.
    pub fn of(dir: &Path, text: String, for_json: bool) -> IndexPart {
        // Of the links (20 000 at 20 000 files) only their count and the files
        // linked from two lines or more (rule (a)'s clusters) are kept; they are
        // met one at a time, never held as a list.
        let (links, targets) = index_targets(&text);
        let lines = if text.is_empty() { 0 } else { index::lines(&text).len() };
        // The text moves into the model (no copy of a 3 MB index).
        let caps = Caps::of_index(dir, text, for_json);
        IndexPart {
            links,
            targets,
            lines,
            caps,
        }
    }
}

/// What the plan needs of a memory's text, taken while lint reads it (so that no
/// text is held until the plan is built): its relative dates and, with a project,
/// its candidate citations.
#[derive(Debug, Default)]
pub struct BodyFacts {
    pub dates: Vec<dates::DateMatch>,
    pub citations: Vec<Cited>,
}

impl BodyFacts {
    /// The facts of `text` (the whole file as read, BOM included: the plan's
    /// columns count it, a char of line 1); `None` when it has none. Citations are
    /// looked for only `with_citations` (a project).
    pub fn of(text: &str, with_citations: bool) -> Option<Box<BodyFacts>> {
        let dates = dates::find(text);
        let citations = if with_citations { citations(text) } else { Vec::new() };
        (!dates.is_empty() || !citations.is_empty()).then(|| Box::new(BodyFacts { dates, citations }))
    }
}

/// The plan: `plan` in `dream --dry-run --json`.
#[derive(Debug, Serialize)]
pub struct Plan {
    pub orient: Orient,
    pub gather: Gather,
    pub consolidate: Consolidate,
    pub prune_and_index: PruneAndIndex,
}

/// Phase 1: what the memory dir holds.
#[derive(Debug, Serialize)]
pub struct Orient {
    pub topic_files: usize,
    pub by_type: ByType,
    /// Lines of `MEMORY.md` (0 when empty or missing).
    pub index_lines: usize,
    pub index_links: usize,
    /// UTF-16 units and lines as loaded (after trimming and stripping).
    pub index_units: usize,
    pub index_line_count: usize,
    pub newest: Option<Dated>,
    pub oldest: Option<Dated>,
    pub last_consolidated_at: Option<IsoMs>,
    /// (2.1.332) A `sessions/` subdirectory exists: Phase 1 of the dream reviews it.
    pub sessions_dir: bool,
}

/// Topic files by `type`; untyped and typed-only-under-`metadata:` counted apart.
#[derive(Debug, Serialize)]
pub struct ByType {
    pub user: usize,
    pub feedback: usize,
    pub project: usize,
    pub reference: usize,
    pub untyped: usize,
    pub nested_only: usize,
}

/// A memory and its mtime (the newest or the oldest).
#[derive(Debug, Serialize)]
pub struct Dated {
    pub file: String,
    pub line: usize,
    pub mtime: IsoMs,
}

/// Phase 2: the sessions to review and citations of files that are gone.
#[derive(Debug, Serialize)]
pub struct Gather {
    pub transcripts_dir: Option<String>,
    pub sessions: Vec<Recent>,
    pub missing_citations: Vec<MissingCitation>,
}

/// A session touched since the last consolidation.
#[derive(Debug, Serialize)]
pub struct Recent {
    pub id: Option<String>,
    pub mtime: Option<IsoMs>,
}

/// A cited project file that does not exist.
#[derive(Debug, Serialize)]
pub struct MissingCitation {
    pub file: String,
    pub line: usize,
    /// The token as written (`src/gone.rs:10`).
    pub citation: String,
    /// Its path part (`src/gone.rs`).
    pub path: String,
}

/// Phase 3: what to rewrite, merge or drop.
#[derive(Debug, Serialize)]
pub struct Consolidate {
    pub relative_dates: Vec<RelativeDate>,
    pub duplicate_clusters: Vec<Cluster>,
    pub superseded: Vec<Superseded>,
}

/// A relative-date phrase (ML116) and the absolute date to write, when one follows
/// from the file's `modified` field or its mtime.
#[derive(Debug, Serialize)]
pub struct RelativeDate {
    pub file: String,
    pub line: usize,
    pub col: usize,
    pub phrase: String,
    /// `YYYY-MM-DD`.
    pub suggestion: Option<String>,
    /// What the suggestion counts from: the frontmatter's `modified` time when it
    /// parses, else the file's mtime (SPEC §3.13).
    pub based_on: BasedOn,
}

/// The "written at" time a relative-date suggestion counts from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BasedOn {
    Modified,
    Mtime,
}

impl BasedOn {
    /// `modified` or `mtime`, as in the JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            BasedOn::Modified => "modified",
            BasedOn::Mtime => "mtime",
        }
    }
}

/// Phase 4: the index rules' findings and the caps.
#[derive(Debug, Serialize)]
pub struct PruneAndIndex {
    /// ML201.
    pub dangling: Vec<IndexFinding>,
    /// ML203.
    pub unindexed: Vec<IndexFinding>,
    /// ML204.
    pub long_lines: Vec<IndexFinding>,
    /// The `truncate-check` object.
    pub caps: Caps,
    /// ML207.
    pub near_caps: Vec<IndexFinding>,
    /// ML209.
    pub duplicate_targets: Vec<IndexFinding>,
}

/// A lint finding as a plan item.
#[derive(Debug, Serialize)]
pub struct IndexFinding {
    /// Relative to the memory dir; `None` for a finding without a file.
    pub file: Option<String>,
    pub line: usize,
    pub message: String,
    pub severity: Severity,
}

/// Build the plan from what it takes of `MEMORY.md` and the rest.
pub fn plan(i: &mut PlanInput, index: IndexPart) -> Plan {
    let IndexPart {
        links: index_links,
        targets,
        lines: index_lines,
        caps,
    } = index;
    // The duplicate search, the plan's largest part, runs on this thread: on a
    // second one (its own malloc arena) what it allocated and freed was not
    // reused by the rest, and at 20 000 files the peak RSS held both.
    let duplicate_clusters = record_clusters(i.memories, targets);
    let i = &*i;
    let orient = orient(i, &caps, index_links, index_lines);
    let gather = gather(i);
    let relative_dates = relative_dates(i);
    let superseded = superseded(i.memories);
    // The index findings (16 820 long lines at 20 000 files) are unpacked once
    // the search's structures are freed: the two are not held together.
    let prune_and_index = prune_and_index(i, caps);
    Plan {
        orient,
        gather,
        consolidate: Consolidate {
            relative_dates,
            duplicate_clusters,
            superseded,
        },
        prune_and_index,
    }
}

fn orient(i: &PlanInput, caps: &Caps, index_links: usize, index_lines: usize) -> Orient {
    let count = |t: Option<MemoryType>| i.memories.iter().filter(|m| m.memory_type() == t).count();
    let dated = |m: &Record| Dated {
        file: m.rel().to_string(),
        line: 1,
        mtime: IsoMs(m.mtime_ms()),
    };
    Orient {
        topic_files: i.memories.len(),
        by_type: ByType {
            user: count(Some(MemoryType::User)),
            feedback: count(Some(MemoryType::Feedback)),
            project: count(Some(MemoryType::Project)),
            reference: count(Some(MemoryType::Reference)),
            untyped: count(None),
            nested_only: i
                .memories
                .iter()
                .filter(|m| m.memory_type().is_some() && m.claude_type().is_none())
                .count(),
        },
        index_lines,
        index_links,
        index_units: caps.unit_count(),
        index_line_count: caps.line_count(),
        newest: i.memories.first().map(dated),
        oldest: i.memories.last().map(dated),
        last_consolidated_at: i.last_consolidated_ms.map(IsoMs),
        sessions_dir: i.sessions_dir,
    }
}

/// The memories whose text had facts, with them.
fn read<'a>(i: &'a PlanInput) -> impl Iterator<Item = (&'a Record, &'a BodyFacts)> {
    i.memories
        .iter()
        .zip(i.bodies)
        .filter_map(|(m, b)| b.as_deref().map(|b| (m, b)))
}

fn gather(i: &PlanInput) -> Gather {
    let mut missing = Vec::new();
    if let Some(root) = i.project_root {
        // Whether the project root has an entry of that name, asked once per name.
        let mut roots: StdHashMap<String, bool> = StdHashMap::new();
        for (m, body) in read(i) {
            for c in &body.citations {
                let full = match &c.shape {
                    Shape::Home => match i.home {
                        Some(h) => h.join(&c.path[2..]),
                        None => continue,
                    },
                    Shape::Path if c.path.starts_with('/') => PathBuf::from(&c.path),
                    Shape::Path => root.join(&c.path),
                    Shape::FirstSegment(first) => {
                        let known = *roots
                            .entry(first.clone())
                            .or_insert_with(|| (i.exists)(&root.join(first)));
                        if !known {
                            continue;
                        }
                        root.join(&c.path)
                    }
                };
                if !(i.exists)(&full) {
                    missing.push(MissingCitation {
                        file: m.rel().to_string(),
                        line: c.line,
                        citation: c.citation.clone(),
                        path: c.path.clone(),
                    });
                }
            }
        }
    }
    Gather {
        transcripts_dir: i.transcripts_dir.map(str::to_string),
        sessions: i
            .sessions
            .iter()
            .filter(|s| s.counted)
            .map(|s| Recent {
                id: s.id.clone(),
                mtime: s.mtime(),
            })
            .collect(),
        missing_citations: missing,
    }
}

/// Relative dates in every body, each with the absolute date it stands for.
fn relative_dates(i: &PlanInput) -> Vec<RelativeDate> {
    let mut relative = Vec::new();
    for (m, body) in read(i) {
        let (written_ms, based_on) = match m.modified_ms() {
            Some(ms) => (ms, BasedOn::Modified),
            None => (m.mtime_ms(), BasedOn::Mtime),
        };
        for d in &body.dates {
            let suggestion = d.offset_days.and_then(|off| {
                Utc.timestamp_millis_opt(written_ms as i64)
                    .single()
                    .map(|t| (t + Duration::days(off)).format("%Y-%m-%d").to_string())
            });
            relative.push(RelativeDate {
                file: m.rel().to_string(),
                line: d.line,
                col: d.col,
                phrase: d.phrase.clone(),
                suggestion,
                based_on,
            });
        }
    }
    relative
}

/// The memories marked superseded, as [`super::duplicates::superseded`] lists
/// them (each record holds its own details).
fn superseded(memories: &[Record]) -> Vec<Superseded> {
    let mut out = Vec::new();
    for m in memories {
        out.extend(m.superseded().iter().map(|detail| Superseded {
            file: m.rel().to_string(),
            line: 1,
            detail: detail.clone(),
        }));
    }
    out
}

/// The index's memory links (their count), and each memory file it links from
/// two lines or more, with those lines. Each file's first line is kept beside
/// its name until a second line links it (most are linked once).
fn index_targets(text: &str) -> (usize, BTreeMap<String, Vec<usize>>) {
    let mut count = 0;
    let mut first: HashMap<Box<str>, usize> = HashMap::default();
    let mut more: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    index::for_each_link(text, |l: Link| {
        count += usize::from(l.is_memory_link());
        let Some(t) = l.memory_target() else {
            return;
        };
        match first.get(t) {
            None => {
                first.insert(t.into(), l.line);
            }
            Some(&line) if line == l.line && !more.contains_key(t) => {}
            Some(&line) => {
                let v = more.entry(t.to_string()).or_insert_with(|| vec![line]);
                if v.last() != Some(&l.line) {
                    v.push(l.line);
                }
            }
        }
    });
    (count, more)
}

/// The rules whose findings the plan shows (see [`PlanInput::findings`]).
pub const PLAN_RULES: [RuleId; 5] = [
    RuleId::ML201,
    RuleId::ML203,
    RuleId::ML204,
    RuleId::ML207,
    RuleId::ML209,
];

fn prune_and_index(i: &PlanInput, caps: Caps) -> PruneAndIndex {
    // One pass over the findings (unpacked a file at a time), each kept one moved
    // into its rule's list: in the report's order within each.
    let mut picked: [Vec<IndexFinding>; PLAN_RULES.len()] = Default::default();
    for f in i.findings.iter() {
        let Some(k) = PLAN_RULES.iter().position(|&id| id == f.id) else {
            continue;
        };
        picked[k].push(IndexFinding {
            file: f
                .path
                .as_ref()
                .map(|p| p.strip_prefix(i.dir).unwrap_or(p).to_string_lossy().into_owned()),
            line: f.line,
            message: f.message.into_string(),
            severity: f.severity,
        });
    }
    let [dangling, unindexed, long_lines, near_caps, duplicate_targets] = picked;
    PruneAndIndex {
        dangling,
        unindexed,
        long_lines,
        caps,
        near_caps,
        duplicate_targets,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lint::Finding;

    #[test]
    fn index_targets_are_the_files_linked_from_two_lines_or_more() {
        let text = "# I\n- [a](a.md) [a again](a.md) [b](b.md)\n- [b](b.md) [c](c.md) [x](https://x.md)\n\
                    - [pic](p.png) [out](../o.md) [d](d.md)\n- [a](a.md)\n- [d](./d.md)\n";
        // What the plan kept before: every link's lines, consecutive repeats once.
        let links = index::extract_links(text);
        let mut want: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for l in &links {
            if let Some(t) = l.memory_target() {
                let v = want.entry(t.to_string()).or_default();
                if v.last() != Some(&l.line) {
                    v.push(l.line);
                }
            }
        }
        want.retain(|_, lines| lines.len() > 1);
        let count = links.iter().filter(|l| l.is_memory_link()).count();
        assert_eq!(index_targets(text), (count, want.clone()));
        assert_eq!(want.len(), 3, "{want:?}");
        assert_eq!(want["a.md"], [2, 5]);
    }

    #[test]
    fn each_plan_rule_lists_its_findings_in_the_reports_order() {
        let dir = Path::new("/m");
        let ids = [
            RuleId::ML204,
            RuleId::ML201,
            RuleId::ML101,
            RuleId::ML204,
            RuleId::ML209,
            RuleId::ML203,
            RuleId::ML207,
            RuleId::ML201,
        ];
        let findings: Vec<Finding> = ids
            .iter()
            .enumerate()
            .map(|(k, &id)| Finding::new(id, &dir.join(format!("f{k}.md")), k + 1, 1, format!("m{k}")))
            .collect();
        let found = Found::from_sorted(findings.clone());
        let input = PlanInput {
            dir,
            memories: &mut [],
            bodies: &[],
            findings: &found,
            sessions: &[],
            transcripts_dir: None,
            last_consolidated_ms: None,
            sessions_dir: false,
            project_root: None,
            home: None,
            exists: &|_| false,
        };
        let p = prune_and_index(&input, Caps::of_index(dir, String::new(), false));
        let lists = [
            &p.dangling,
            &p.unindexed,
            &p.long_lines,
            &p.near_caps,
            &p.duplicate_targets,
        ];
        for (id, list) in PLAN_RULES.iter().zip(lists) {
            let want: Vec<(Option<String>, usize, String)> = findings
                .iter()
                .filter(|f| f.id == *id)
                .map(|f| (Some(format!("f{}.md", f.line - 1)), f.line, f.message.to_string()))
                .collect();
            let got: Vec<(Option<String>, usize, String)> = list
                .iter()
                .map(|f| (f.file.clone(), f.line, f.message.clone()))
                .collect();
            assert_eq!(got, want, "{id:?}");
        }
        assert_eq!(p.long_lines.len(), 2);
    }
}
