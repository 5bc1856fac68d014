//! `index rebuild` (SPEC §10.1): plan from the dir (the index, its memories, the
//! hubs, the pins), apply through the [`Writer`].

use std::collections::BTreeSet;

use serde::Serialize;

use crate::error::{Error, Kind};
use crate::index::check::checked;
use crate::index::rebuild::{self, Hub, Input, Memory};
use crate::index::report::{JSON_DROPPED, TruncationReport};
use crate::memdir::MemoryDir;
use crate::store::Writer;
use crate::yaml::Value;

pub struct Options<'a> {
    /// Where history stores live: a dropped line names the snapshot that still
    /// has its file.
    pub history: &'a crate::history::Settings,
    pub now: chrono::DateTime<chrono::Utc>,
    pub budget: f64,
    pub pins: &'a [String],
    pub hub: &'a str,
}

/// What the rebuild will write.
pub struct Plan {
    pub dir: MemoryDir,
    pub old_index: String,
    pub out: rebuild::Output,
    pub hub: String,
    pub budget: f64,
    pub warnings: Vec<String>,
    /// Dropped lines whose file a snapshot still has: line → (file, snapshot id).
    pub kept_in: std::collections::BTreeMap<usize, (String, String)>,
}

/// Plan the rebuild: the hub name checked, the index and its memories, hubs and
/// pins read, SPEC §10.1 steps 1–4 run ([`rebuild::rebuild`]), step 5's refusal
/// when the pinned entries and free text alone are over budget, and the hubs to
/// create checked free. Writes nothing.
pub fn plan(dir: &MemoryDir, opts: &Options) -> Result<Plan, Error> {
    ensure_hub_name(opts.hub)?;
    let index_path = dir.index_path();
    let old_index = crate::index::read_index_text(&index_path);
    let scan = crate::scan::scan(dir.dir());
    let g = gather(dir, &scan.memories, &index_path);
    let pins = pins(dir, &scan, opts.pins)?;
    let input = Input {
        index: &old_index,
        memories: &g.memories,
        elsewhere: &g.elsewhere,
        hubs: &g.hubs,
        pins: &pins,
        hub: opts.hub,
        budget: opts.budget,
    };
    let out = rebuild::rebuild(&input).map_err(|e| over_budget(dir, opts.budget, &e))?;
    ensure_new_hubs_free(dir, &out)?;
    let kept_in = kept_in_history(dir, opts, &out.dropped);
    let mut warnings = dropped_warnings(dir.index_label(), &out.dropped, &kept_in);
    warnings.extend(hub_dropped_warnings(dir, &out.hub_dropped));
    Ok(Plan {
        dir: dir.clone(),
        old_index,
        out,
        hub: opts.hub.to_string(),
        budget: opts.budget,
        warnings,
        kept_in,
    })
}

/// `--hub` names a file in the memory dir itself, ending in `.md`, not the index.
fn ensure_hub_name(hub: &str) -> Result<(), Error> {
    crate::memory::ensure_valid_name(hub, false)?;
    if !hub.ends_with(".md") || hub.contains('/') || hub == "MEMORY.md" {
        return Err(Error::new(Kind::Usage, format!("not a hub file name: {hub}"))
            .hint("give a file name in the memory dir ending in .md, e.g. reference_memory_index_archive.md"));
    }
    Ok(())
}

/// The rebuild's view of the dir's memories: those the index covers, those
/// another index covers that this one links, and the hubs.
#[derive(Default)]
struct Gathered {
    memories: Vec<Memory>,
    elsewhere: Vec<Memory>,
    hubs: Vec<Hub>,
}

/// Sort the scanned memories for the index at `index_path`.
fn gather(dir: &MemoryDir, scanned: &[crate::memory::Memory], index_path: &std::path::Path) -> Gathered {
    let mut g = Gathered::default();
    for m in scanned {
        let mut cov = dir.covering(&m.rel);
        let mut owned = true;
        if cov.index != index_path {
            // A `team/` file the main index links: Claude Code loads that line
            // (SPEC §2.13, as `list` says), so it is no line to a gone file.
            match dir.loaded_by(&m.rel) {
                Some(by) if by.index == index_path && !m.is_hub() => {
                    cov = by;
                    owned = false;
                }
                _ => continue,
            }
        }
        if m.is_hub() {
            g.hubs.push(Hub {
                rel: cov.local.clone(),
                text: crate::index::read_index_text(&m.path),
            });
        } else if owned {
            g.memories.push(rebuild_memory(m, cov.local));
        } else {
            g.elsewhere.push(rebuild_memory(m, cov.local));
        }
    }
    g
}

/// A memory as the rebuild sees it: linked as `rel`, titled by its name (else
/// its stem), hooked by its description.
fn rebuild_memory(m: &crate::memory::Memory, rel: String) -> Memory {
    let text = |v: &Option<Value>| match v {
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.trim().to_string()),
        _ => None,
    };
    Memory {
        rel,
        title: text(&m.fields.name).unwrap_or_else(|| m.stem().to_string()),
        hook: text(&m.fields.description),
        ty: m.claude_type(),
        mtime_ns: (m.mtime_ms * 1e6) as i128,
    }
}

/// The `--pin` references, as the index links them.
fn pins(dir: &MemoryDir, scan: &crate::scan::Scan, refs: &[String]) -> Result<BTreeSet<String>, Error> {
    let mut pins = BTreeSet::new();
    for p in refs {
        let m = scan.resolve(p, &dir.shown())?;
        pins.insert(dir.covering(&m.rel).local);
    }
    Ok(pins)
}

/// SPEC §10.1 step 5: the pinned entries and free text alone exceed the budget.
fn over_budget(dir: &MemoryDir, budget: f64, e: &rebuild::OverBudget) -> Error {
    let (max_lines, max_units) = rebuild::limits(budget);
    let g = |v: usize| crate::text::group_digits(v as i64);
    let what = if e.pinned.is_empty() {
        "the free text alone needs".to_string()
    } else {
        format!(
            "the pinned entries ({}) and the free text alone need",
            e.pinned.join(", ")
        )
    };
    Error::new(
        Kind::OverBudget,
        format!(
            "{what} {} lines and {} units, over the budget of {} lines and {} units: {}",
            g(e.lines),
            g(e.units),
            g(max_lines),
            g(max_units),
            dir.index_label()
        ),
    )
    .hint("unpin some entries, shorten the free text (memctl edit --index), or raise --budget")
}

/// A hub to create must not take the place of a file already there (an
/// ordinary memory named with --hub, or a later hub's `_2` name): refused
/// before anything is printed or written (issue 32 point 11).
fn ensure_new_hubs_free(dir: &MemoryDir, out: &rebuild::Output) -> Result<(), Error> {
    for h in out.hubs.iter().filter(|h| h.old.is_none()) {
        let path = dir.dir().join(&h.rel);
        if std::fs::symlink_metadata(&path).is_ok() {
            let prefix = dir.index_label().strip_suffix("MEMORY.md").unwrap_or("");
            return Err(Error::new(
                Kind::Exists,
                format!("not a hub, but the rebuild would write its entries there: {}", path.display()),
            )
            .hint(format!(
                "{prefix}{} is not a hub (no `memctl-hub: true` in its frontmatter); pass --hub with a new file name (e.g. reference_memory_index_archive.md) or an existing hub",
                h.rel
            )));
        }
    }
    Ok(())
}

/// One warning per line a hub dropped (the file it links is gone).
fn hub_dropped_warnings(dir: &MemoryDir, hub_dropped: &[(String, usize, String)]) -> Vec<String> {
    let prefix = dir.index_label().strip_suffix("MEMORY.md").unwrap_or("");
    hub_dropped
        .iter()
        .map(|(hub, line, text)| {
            format!(
                "{prefix}{hub}:{line}: dropped (the file it links is gone): {}",
                crate::text::ellipsize(text, 100)
            )
        })
        .collect()
}

/// For each dropped line whose file is gone, the newest snapshot that still has
/// the file (the 200 newest snapshots are searched), by the dropped line's number.
fn kept_in_history(
    dir: &MemoryDir,
    opts: &Options,
    dropped: &[(usize, String, &'static str)],
) -> std::collections::BTreeMap<usize, (String, String)> {
    let mut found = std::collections::BTreeMap::new();
    let gone: Vec<(usize, String)> = dropped
        .iter()
        .filter(|d| d.2.starts_with("the file"))
        .filter_map(|d| {
            crate::index::extract_links(&d.1)
                .iter()
                .find_map(|l| l.memory_target().map(str::to_string))
                .map(|f| (d.0, f))
        })
        .collect();
    if gone.is_empty() {
        return found;
    }
    let Ok(store) = crate::history::Store::open_existing(opts.history, dir.main(), opts.now) else {
        return found;
    };
    let Ok(log) = store.log() else { return found };
    let prefix = crate::history::scope_prefix(dir);
    for snap in log.iter().take(200) {
        let Ok(state) = store.state(snap.id) else { continue };
        for (line, file) in &gone {
            let rel = format!("{prefix}{file}");
            if !found.contains_key(line) && state.files.contains_key(rel.as_bytes()) {
                found.insert(*line, (file.clone(), snap.short()));
            }
        }
        if found.len() == gone.len() {
            break;
        }
    }
    found
}

/// One warning per dropped line, or one for all when there are more than 5 (the
/// diff shows each).
fn dropped_warnings(
    label: &str,
    dropped: &[(usize, String, &'static str)],
    kept_in: &std::collections::BTreeMap<usize, (String, String)>,
) -> Vec<String> {
    if dropped.len() <= 5 {
        return dropped
            .iter()
            .map(|(line, text, why)| {
                let mut w = format!("{label}:{line}: dropped ({why}): {}", crate::text::ellipsize(text, 100));
                if let Some((file, id)) = kept_in.get(line) {
                    w.push_str(&format!(
                        "; snapshot {id} still has it: memctl restore {file} --at {id}"
                    ));
                }
                w
            })
            .collect();
    }
    let gone: Vec<usize> = dropped
        .iter()
        .filter(|d| d.2.starts_with("the file"))
        .map(|d| d.0)
        .collect();
    let shown: Vec<String> = gone.iter().take(10).map(usize::to_string).collect();
    let more = if gone.len() > 10 {
        format!(", … and {} more", gone.len() - 10)
    } else {
        String::new()
    };
    let mut w = format!(
        "{} lines of {label} are dropped: {} link files that are gone (lines {}{more})",
        dropped.len(),
        gone.len(),
        shown.join(", ")
    );
    let dups = dropped.len() - gone.len();
    if dups > 0 {
        w.push_str(&format!(", {dups} repeat a file another line links"));
    }
    w.push_str("; the diff shows each");
    if !kept_in.is_empty() {
        w.push_str(&format!(
            "; history still has {} of those files (`memctl index rebuild --json` names the snapshots)",
            kept_in.len()
        ));
    }
    vec![w]
}

/// Write the hubs first, then the index: a failure half-way leaves every memory
/// reachable (a hub nobody links yet, or the old index).
pub fn apply(plan: &Plan, w: &mut Writer) -> Result<(), Error> {
    let dir = plan.dir.dir().to_path_buf();
    for h in plan.out.hubs.iter().filter(|h| h.changed) {
        let path = dir.join(&h.rel);
        match &h.old {
            // Against the text the plan read: a hub changed since is a conflict.
            Some(old) => w.replace_expecting(&path, old.as_bytes(), h.text.as_bytes())?,
            None => w.create(&path, h.text.as_bytes())?,
        }
    }
    let index = plan.dir.index_path();
    if index.exists() {
        w.replace_expecting(&index, plan.old_index.as_bytes(), plan.out.index.as_bytes())
    } else {
        w.create(&index, plan.out.index.as_bytes())
    }
}

#[derive(Serialize)]
pub struct Document {
    pub index_path: String,
    pub hub: String,
    pub before: TruncationReport,
    pub after: TruncationReport,
    pub moved: Vec<FileLine>,
    pub shortened: Vec<Shortened>,
    pub dropped: Vec<DroppedLine>,
    pub added: Vec<FileLine>,
    pub diff: String,
    pub dry_run: bool,
}

#[derive(Serialize)]
pub struct FileLine {
    pub file: String,
    pub line: usize,
}

#[derive(Serialize)]
pub struct Shortened {
    pub file: String,
    pub from: String,
    pub to: String,
}

#[derive(Serialize)]
pub struct DroppedLine {
    pub line: usize,
    pub text: String,
    pub reason: &'static str,
    /// The newest snapshot that still has the file, when history has it.
    pub snapshot: Option<String>,
    /// The hub the line was in; `null` for a line of the index itself.
    pub hub: Option<String>,
}

impl Plan {
    pub fn changed(&self) -> bool {
        self.out.index != self.old_index || self.out.hubs.iter().any(|h| h.changed)
    }

    pub fn index_label(&self) -> &str {
        self.dir.index_label()
    }

    fn report(&self, text: &str) -> TruncationReport {
        checked(self.index_label().into(), Some(self.dir.index_path()), text).into_report(None, JSON_DROPPED)
    }

    /// The unified diffs of the index and of every hub it writes.
    pub fn diff(&self) -> String {
        let mut d = crate::diff::unified(self.index_label(), &self.old_index, &self.out.index);
        let prefix = self.index_label().strip_suffix("MEMORY.md").unwrap_or("");
        for h in self.out.hubs.iter().filter(|h| h.changed) {
            let old = h.old.as_deref().unwrap_or_default();
            d.push_str(&crate::diff::unified(&format!("{prefix}{}", h.rel), old, &h.text));
        }
        d
    }

    /// `204 → 131 lines, 26 120 → 16 980 units; 61 entries moved to x.md`.
    pub fn summary(&self) -> String {
        let (a, b) = (
            crate::index::load::load(&self.old_index),
            crate::index::load::load(&self.out.index),
        );
        let n = |v: usize| crate::text::group_digits(v as i64);
        if !self.changed() {
            return format!(
                "{} already fits {}% of Claude Code's caps ({} {}, {} units): nothing to do",
                self.index_label(),
                self.budget,
                n(a.line_count),
                plural(a.line_count, "line", "lines"),
                n(a.unit_count)
            );
        }
        let mut s = format!(
            "{} → {} lines, {} → {} units",
            n(a.line_count),
            n(b.line_count),
            n(a.unit_count),
            n(b.unit_count)
        );
        let mut parts = Vec::new();
        if !self.out.moved.is_empty() {
            let hubs: Vec<&str> = self
                .out
                .hubs
                .iter()
                .filter(|h| h.changed)
                .map(|h| h.rel.as_str())
                .collect();
            let k = self.out.moved.len();
            let to = match hubs.as_slice() {
                [one] => one.to_string(),
                [first, .., last] if hubs.len() > 2 => format!("{} hub files ({first} … {last})", hubs.len()),
                _ => hubs.join(" and "),
            };
            parts.push(format!("{} {} moved to {to}", n(k), plural(k, "entry", "entries")));
        }
        for (k, what) in [
            (self.out.added.len(), "added"),
            (self.out.shortened.len(), "shortened"),
            (self.out.dropped.len() + self.out.hub_dropped.len(), "dropped"),
        ] {
            if k > 0 {
                parts.push(format!("{} {} {what}", n(k), plural(k, "line", "lines")));
            }
        }
        if !parts.is_empty() {
            s.push_str("; ");
            s.push_str(&parts.join(", "));
        }
        s
    }

    pub fn document(&self, dry_run: bool) -> Document {
        Document {
            index_path: self.dir.index_path().display().to_string(),
            hub: self.hub.clone(),
            before: self.report(&self.old_index),
            after: self.report(&self.out.index),
            moved: self
                .out
                .moved
                .iter()
                .map(|(f, l)| FileLine {
                    file: f.clone(),
                    line: *l,
                })
                .collect(),
            shortened: self
                .out
                .shortened
                .iter()
                .map(|(f, a, b)| Shortened {
                    file: f.clone(),
                    from: a.clone(),
                    to: b.clone(),
                })
                .collect(),
            dropped: self
                .out
                .dropped
                .iter()
                .map(|(l, t, r)| DroppedLine {
                    line: *l,
                    text: t.clone(),
                    reason: r,
                    snapshot: self.kept_in.get(l).map(|(_, id)| id.clone()),
                    hub: None,
                })
                .chain(self.out.hub_dropped.iter().map(|(h, l, t)| DroppedLine {
                    line: *l,
                    text: t.clone(),
                    reason: "the file it links is gone",
                    snapshot: None,
                    hub: Some(h.clone()),
                }))
                .collect(),
            added: self
                .out
                .added
                .iter()
                .map(|(f, l)| FileLine {
                    file: f.clone(),
                    line: *l,
                })
                .collect(),
            diff: self.diff(),
            dry_run,
        }
    }
}

fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 { one } else { many }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memdir::Scope;

    #[test]
    fn a_hub_is_a_markdown_file_in_the_dir_itself() {
        assert!(ensure_hub_name("reference_memory_index_archive.md").is_ok());
        assert_eq!(ensure_hub_name("hub.txt").unwrap_err().kind, Kind::Usage);
        for bad in ["MEMORY.md", "sub/hub.md"] {
            assert!(ensure_hub_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_memory_is_titled_by_its_name_else_its_stem() {
        let named = crate::memory::Memory::from_text(
            "user_role.md",
            "---\nname: Role\ndescription: ' what I do '\ntype: user\n---\nx\n",
        );
        let m = rebuild_memory(&named, "user_role.md".into());
        assert_eq!((m.title.as_str(), m.hook.as_deref()), ("Role", Some("what I do")));
        let bare = crate::memory::Memory::from_text("notes.md", "---\nname: '  '\n---\nx\n");
        let m = rebuild_memory(&bare, "notes.md".into());
        assert_eq!((m.title.as_str(), m.hook), ("notes", None));
    }

    #[test]
    fn over_budget_names_the_pins_and_the_budget() {
        let dir = MemoryDir::open("/m", Scope::Main);
        let e = rebuild::OverBudget {
            pinned: vec!["a.md".into(), "b.md".into()],
            lines: 150,
            units: 30_000,
        };
        let err = over_budget(&dir, 70.0, &e);
        assert_eq!(err.kind, Kind::OverBudget);
        let (lines, units) = rebuild::limits(70.0);
        let g = |v: usize| crate::text::group_digits(v as i64);
        assert_eq!(
            err.to_string(),
            format!(
                "the pinned entries (a.md, b.md) and the free text alone need 150 lines and {} units, over the budget of {} lines and {} units: MEMORY.md",
                g(30_000),
                g(lines),
                g(units)
            )
        );
    }

    #[test]
    fn a_hub_dropped_line_names_the_hub_and_line() {
        let dir = MemoryDir::open("/m", Scope::Team);
        let w = hub_dropped_warnings(&dir, &[("hub.md".into(), 4, "- [G](gone.md) — g".into())]);
        assert_eq!(w.len(), 1);
        assert!(
            w[0].ends_with("hub.md:4: dropped (the file it links is gone): - [G](gone.md) — g"),
            "{}",
            w[0]
        );
    }
}
