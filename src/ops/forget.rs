//! `forget` (SPEC §3.7): memories leave the dir for the trash, with the index lines
//! that link them.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::{Error, Kind};
use crate::index;
use crate::memdir::{Covering, MemoryDir};
use crate::ops::survey::{Seen, Survey};
use crate::paths::with_sep;
use crate::scan;
use crate::store::{self, Writer};

/// One memory to forget.
pub struct Target {
    /// Relative to the dir, `/`-separated.
    pub rel: String,
    pub path: PathBuf,
    /// The index that covers it, and the file's path as that index sees it.
    pub index: PathBuf,
    pub local: String,
    /// For a `team/` file, the main `MEMORY.md` too: the only index Claude Code
    /// 2.1.332 loads (SPEC §3.7, §2.13), where its line is `team/<file>`.
    pub loaded_by: Option<Covering>,
    /// The hubs of `index rebuild` beside its index (SPEC §10.1): a memory linked
    /// from one counts as indexed, so its hub line goes with it (issue 29 point 15).
    pub hubs: Vec<PathBuf>,
}

impl Target {
    /// Every index that may link it, each with the file's path as it links it.
    fn indexes(&self) -> impl Iterator<Item = (&Path, &str)> {
        std::iter::once((self.index.as_path(), self.local.as_str()))
            .chain(self.loaded_by.iter().map(|c| (c.index.as_path(), c.local.as_str())))
            .chain(self.hubs.iter().map(|h| (h.as_path(), self.local.as_str())))
    }
}

/// One removed index line: the index (`MEMORY.md`, `team/MEMORY.md`), its 1-based
/// number there, and the line with its terminator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RemovedAt {
    pub index: String,
    pub line: usize,
    pub text: String,
}

/// The removed index lines of each target, in index then line order.
pub type Removed = BTreeMap<String, Vec<RemovedAt>>;

/// What `forget` will do.
pub struct Plan {
    pub dir: MemoryDir,
    pub targets: Vec<Target>,
    /// The removed lines as the index reads now (the apply step re-reads it).
    pub removed: Removed,
    /// Per index file: its label, text now and text after (empty when
    /// planned without them, see [`plan_targets`]).
    pub diffs: Vec<(String, String, String)>,
    pub warnings: Vec<String>,
}

/// Find the memories `refs` name and what removing them does to their indexes.
/// An index line that also links a memory that stays refuses the plan
/// (`invalid_input`, SPEC §3.13) unless `force`, which warns instead.
pub fn plan(dir: &MemoryDir, refs: &[String], force: bool) -> Result<Plan, Error> {
    plan_cached(dir, refs, force, None)
}

/// [`plan`], surveying the dir through the cache under `cache` (`None`: every
/// memory is read).
pub fn plan_cached(dir: &MemoryDir, refs: &[String], force: bool, cache: Option<&Path>) -> Result<Plan, Error> {
    plan_targets(dir, targets(dir, refs)?, force, (cache, None), true)
}

/// The memories `refs` name: the first step of [`plan`], which refuses a `REF`
/// that names none (or the index).
pub fn targets(dir: &MemoryDir, refs: &[String]) -> Result<Targets, Error> {
    resolve_targets(dir, refs).map(Targets)
}

/// The memories of one `forget`, found by [`targets`].
pub struct Targets(Vec<Target>);

/// The rest of [`plan_cached`] for `targets`, the survey through `cache` taking
/// its files from `seen` (a walk of the dir under the lock, see [`Seen`]) when it
/// can tell them. Without `with_diffs`, [`Plan::diffs`] is left empty (a
/// `forget --yes` shows none: 20 000 index lines not copied).
pub fn plan_targets(
    dir: &MemoryDir,
    Targets(mut targets): Targets,
    force: bool,
    (cache, seen): (Option<&Path>, Option<Seen>),
    with_diffs: bool,
) -> Result<Plan, Error> {
    // One survey answers which files are hubs and which still link a target.
    let survey = Survey::take_seen(dir.dir(), cache, seen);
    for t in &mut targets {
        // Hubs lie beside their index (a name without `/`); a hub forgotten
        // itself has no line of its own in it.
        t.hubs = hubs_beside(dir, &survey, &t.index, &t.rel);
    }
    let mut warnings = Vec::new();
    let mut shared = Vec::new();
    let mut removed = Removed::new();
    let mut diffs = Vec::new();
    for (index_path, ts) in group(&targets) {
        let text = read(&index_path);
        let label = index_label(dir, &index_path);
        let base = index_path.parent().unwrap_or(dir.dir());
        for &(t, local) in &ts {
            let (lines, _) = lines_linking(&text, &[local]);
            let (at, others) = staying_on(&lines, local, &ts, base, &label);
            if !others.is_empty() {
                let (it, its) = if others.len() == 1 {
                    ("it", "its")
                } else {
                    ("them", "their")
                };
                shared.push(format!(
                    "the index line of {} ({}) also links {}: forgetting {} would unindex {it}",
                    t.rel,
                    at.join(", "),
                    others.join(", "),
                    t.rel
                ));
                warnings.push(format!(
                    "{} loses {its} index line ({}) with {}",
                    others.join(", "),
                    at.join(", "),
                    t.rel
                ));
            }
            removed
                .entry(t.rel.clone())
                .or_default()
                .extend(removed_at(&label, lines));
        }
        if !with_diffs {
            continue;
        }
        let files: Vec<&str> = ts.iter().map(|(_, l)| *l).collect();
        let (all, _) = lines_linking(&text, &files);
        if !all.is_empty() {
            let after = without_lines(&text, &all);
            diffs.push((label, text, after));
        }
    }
    if !shared.is_empty() && !force {
        return Err(Error::new(
            Kind::InvalidInput,
            shared.join("; "),
        )
        .hint("link the other memories on lines of their own first (memctl edit --index), or pass --force to remove the whole line"));
    }
    warnings.extend(backlink_warnings(&survey, &targets));
    for t in &targets {
        removed.entry(t.rel.clone()).or_default();
    }
    Ok(Plan {
        dir: dir.clone(),
        targets,
        removed,
        diffs,
        warnings,
    })
}

/// Of the index lines `lines` (of the index `label`, beside `base`) that link
/// `local`, the ones that also link memories that stay (none of `ts`, and on
/// disk), as `label:n`, and those memories (sorted, once each).
fn staying_on(
    lines: &BTreeMap<usize, String>,
    local: &str,
    ts: &[(&Target, &str)],
    base: &Path,
    label: &str,
) -> (Vec<String>, Vec<String>) {
    let mut at = Vec::new();
    let mut others: Vec<String> = Vec::new();
    for (n, line) in lines {
        let (_, mut o) = lines_linking(line, &[local]);
        o.retain(|o| !ts.iter().any(|(_, l)| l == o) && std::fs::symlink_metadata(base.join(o)).is_ok());
        if !o.is_empty() {
            at.push(format!("{label}:{n}"));
            others.extend(o);
        }
    }
    others.sort();
    others.dedup();
    (at, others)
}

/// Where the forgotten copies are kept.
#[derive(Clone, Debug)]
pub enum Kept {
    /// In the history snapshot taken before (its short id), SPEC §3.13.
    History(Option<String>),
    /// In this trash dir (history off or failing, SPEC §3.7).
    Trash(PathBuf),
}

/// Forget every target: with history on, remove it (its copy is in the snapshot the
/// Writer took before); else move it to a fresh trash dir. Index lines go too,
/// re-read under the lock. Everything is checked before anything changes; if a
/// later step still fails, what was done is undone: the files come back (bytes
/// and mtime), the indexes get their original bytes, notes and an empty trash dir
/// are removed.
pub fn apply(plan: &Plan, w: &mut Writer) -> Result<(Kept, Removed), Error> {
    for t in &plan.targets {
        store::ensure_ancestor_contained(w.memdir().dir(), &t.path)?;
    }
    if let Some(id) = w.before_snapshot() {
        let mut entries = Vec::new();
        for t in &plan.targets {
            let e = crate::ops::restore::read_entry(&t.path)?;
            entries.push(e);
        }
        // Only a copy the snapshot really holds may be removed without a trash copy.
        let held = plan
            .targets
            .iter()
            .zip(&entries)
            .all(|(t, e)| e.as_ref().is_some_and(|e| w.history_holds(&t.path, &e.bytes, e.link)));
        if held {
            let mut done = Done::default();
            let result = unindex_all(plan, w, None, &mut done).and_then(|removed| {
                for (t, e) in plan.targets.iter().zip(entries) {
                    w.remove(&t.path)
                        .map_err(|e| e.hint("nothing was forgotten: the index and the removed files were put back"))?;
                    done.removed.push((t.path.clone(), e));
                }
                Ok(removed)
            });
            return match result {
                Ok(removed) => Ok((Kept::History(Some(id)), removed)),
                Err(e) => {
                    done.undo(w);
                    Err(e)
                }
            };
        }
    }
    let trash = w.trash_dir()?;
    let mut done = Done::default();
    let result = unindex_all(plan, w, Some(&trash), &mut done).and_then(|removed| {
        move_all(plan, w, &trash, &mut done)?;
        Ok(removed)
    });
    match result {
        Ok(removed) => Ok((Kept::Trash(trash), removed)),
        Err(e) => {
            done.undo(w);
            Err(e)
        }
    }
}

/// What `apply` changed so far, to undo on failure.
#[derive(Default)]
struct Done {
    /// Each rewritten index and its bytes before.
    indexes: Vec<(PathBuf, Vec<u8>, Option<i128>)>,
    /// Each moved entry: where it is now and where it was.
    moved: Vec<(PathBuf, PathBuf)>,
    /// Each removed entry (history on) and what it held.
    removed: Vec<(PathBuf, Option<crate::ops::restore::Entry>)>,
}

impl Done {
    fn undo(&self, w: &mut Writer) {
        for (path, was) in self.removed.iter().rev() {
            let _ = crate::ops::restore::put_entry(w, path, was.as_ref());
        }
        for (now, was) in self.moved.iter().rev() {
            let _ = w.untrash(now, was);
        }
        for (index_path, old, mtime) in &self.indexes {
            let _ = match mtime {
                Some(ns) => w.put(index_path, old, *ns),
                None => w.replace(index_path, old),
            };
        }
        w.roll_back();
    }
}

/// Save each target's index lines into the trash (when there is one) and remove
/// them from the index.
fn unindex_all(plan: &Plan, w: &mut Writer, trash: Option<&Path>, done: &mut Done) -> Result<Removed, Error> {
    let mut removed = Removed::new();
    for t in &plan.targets {
        removed.insert(t.rel.clone(), Vec::new());
    }
    for (index_path, ts) in group(&plan.targets) {
        let files: Vec<&str> = ts.iter().map(|(_, l)| *l).collect();
        let fresh = read(&index_path);
        let label = index_label(&plan.dir, &index_path);
        let mut claimed = HashSet::new();
        for &(t, local) in &ts {
            let (lines, _) = lines_linking(&fresh, &[local]);
            // A line linking two forgotten files is kept with the first one only.
            let lines: BTreeMap<usize, String> = lines.into_iter().filter(|(n, _)| claimed.insert(*n)).collect();
            // The lines of the index that covers the file go where `restore` looks
            // for them; a team file's lines in the main index beside them. A hub's
            // line gets no note: `restore` links the memory from the index.
            let note = if index_path == t.index {
                Some(format!("{}.index-lines", t.rel))
            } else if t.loaded_by.as_ref().is_some_and(|c| c.index == index_path) {
                Some(format!("{}.main-index-lines", t.rel))
            } else {
                None
            };
            if let (Some(trash), Some(note)) = (trash, note)
                && !lines.is_empty()
            {
                let text: String = lines.values().cloned().collect();
                w.trash_note(trash, &note, text.as_bytes())?;
            }
            removed
                .entry(t.rel.clone())
                .or_default()
                .extend(removed_at(&label, lines));
        }
        if index_path.exists() {
            let mtime = std::fs::metadata(&index_path)
                .ok()
                .map(|m| crate::history::tracked::mtime_ns(&m));
            // The bytes it replaced are what undo puts back (valid UTF-8 or not).
            let updated = w.update_raw(&index_path, Some(fresh.as_bytes()), |text| {
                Ok(without_lines(text, &lines_linking(text, &files).0).into())
            })?;
            if updated.old != updated.new {
                done.indexes.push((index_path, updated.old_bytes(), mtime));
            }
        }
    }
    Ok(removed)
}

/// Move every target into the trash.
fn move_all(plan: &Plan, w: &mut Writer, trash: &Path, done: &mut Done) -> Result<(), Error> {
    for t in &plan.targets {
        let dest = w
            .trash(trash, &t.rel, &t.path)
            .map_err(|e| e.hint("nothing was forgotten: the index and the moved files were put back"))?;
        done.moved.push((dest, t.path.clone()));
    }
    Ok(())
}

/// One forgotten memory in the JSON document (SPEC §3.7, §3.13).
#[derive(Serialize)]
pub struct Forgotten {
    pub file: String,
    pub trash_dir: Option<String>,
    pub trash_file: Option<String>,
    pub index_lines_file: Option<String>,
    pub removed_index_lines: Vec<RemovedLine>,
    /// The command that brings it back (`memctl [global options] restore FILE`).
    pub restore: String,
    pub kept_in: &'static str,
    /// The snapshot that holds the copy (null in a trash or a dry run).
    pub snapshot: Option<String>,
}

#[derive(Serialize)]
pub struct RemovedLine {
    /// The index it was removed from: `MEMORY.md` or `team/MEMORY.md`.
    pub index: String,
    pub line: usize,
    pub text: String,
}

/// The JSON document of `forget`.
#[derive(Serialize)]
pub struct Outcome {
    pub forgotten: Vec<Forgotten>,
    pub dry_run: bool,
    /// Paths were printed with U+FFFD: the dir is not valid UTF-8 (SPEC §3.1).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub lossy: bool,
}

/// The outcome of forgetting `targets` (kept as `kept`; a placeholder `<stamp>`
/// trash dir in a dry run). `memctl` is the restore command's start, with the
/// global options the user gave.
pub fn outcome(
    dir: &MemoryDir,
    kept: &Kept,
    targets: &[Target],
    removed: &Removed,
    dry_run: bool,
    memctl: &str,
) -> Outcome {
    // Paths as a user reads them: `--dir /x/.` gives `/x/.trash/…`, not `/x/./.trash/…`.
    let clean = |p: &Path| -> PathBuf { p.components().collect() };
    let forgotten = targets
        .iter()
        .map(|t| {
            let lines = removed.get(&t.rel).cloned().unwrap_or_default();
            let own = lines.iter().any(|l| l.index == index_label(dir, &t.index));
            let (trash_dir, trash_file, index_lines_file) = match kept {
                Kept::Trash(trash) => {
                    let trash = clean(trash);
                    (
                        Some(with_sep(&trash)),
                        Some(trash.join(format!("{}.deleted", t.rel)).to_string_lossy().into_owned()),
                        own.then(|| {
                            trash
                                .join(format!("{}.index-lines", t.rel))
                                .to_string_lossy()
                                .into_owned()
                        }),
                    )
                }
                Kept::History(_) => (None, None, None),
            };
            Forgotten {
                file: t.rel.clone(),
                trash_dir,
                trash_file,
                index_lines_file,
                removed_index_lines: lines
                    .iter()
                    .map(|l| RemovedLine {
                        index: l.index.clone(),
                        line: l.line,
                        text: l.text.trim_end_matches(['\n', '\r']).to_string(),
                    })
                    .collect(),
                restore: format!("{memctl} restore {}", shell_word(&t.rel)),
                kept_in: match kept {
                    Kept::History(_) => "history",
                    Kept::Trash(_) => "trash",
                },
                snapshot: match kept {
                    Kept::History(id) => id.clone(),
                    Kept::Trash(_) => None,
                },
            }
        })
        .collect();
    Outcome {
        forgotten,
        dry_run,
        lossy: dir.dir().to_str().is_none(),
    }
}

/// A word for a POSIX shell: as is when it holds only safe characters, else quoted.
pub fn shell_word(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-+=:,@%".contains(&b))
    {
        s.to_string()
    } else {
        shell_quote(s)
    }
}

/// Single-quote a string for a POSIX shell. A string with a control character
/// (a newline or tab in a file name) is ANSI-C quoted instead (`$'a\nb.md'`, bash,
/// zsh, ksh), so the command stays on one line and copies back exactly.
pub fn shell_quote(s: &str) -> String {
    if s.chars().any(char::is_control) {
        let mut out = String::from("$'");
        for c in s.chars() {
            match c {
                '\'' => out.push_str("\\'"),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\t' => out.push_str("\\t"),
                '\r' => out.push_str("\\r"),
                c if c.is_control() => {
                    let mut buf = [0u8; 4];
                    for b in c.encode_utf8(&mut buf).bytes() {
                        out.push_str(&format!("\\x{b:02x}"));
                    }
                }
                c => out.push(c),
            }
        }
        out.push('\'');
        return out;
    }
    format!("'{}'", s.replace('\'', "'\\''"))
}

fn resolve_targets(dir: &MemoryDir, refs: &[String]) -> Result<Vec<Target>, Error> {
    // An exact relative path is one stat away (SPEC §3.2); the dir is scanned
    // only for a `REF` that is not one.
    let mut scanned: Option<scan::Scan> = None;
    let shown = dir.shown();
    let mut out: Vec<Target> = Vec::new();
    for r in refs {
        if r.rsplit('/').next().is_some_and(|b| b == "MEMORY.md" || b == "MEMORY") {
            return Err(
                Error::new(Kind::InvalidInput, format!("`{r}` is the index, not a memory"))
                    .hint("use `memctl edit --index` to change the index"),
            );
        }
        let resolved = match scan::exact_ref(dir.dir(), r) {
            Some(m) => Ok(m.rel),
            None => scanned
                .get_or_insert_with(|| scan::scan(dir.dir()))
                .resolve(r, &shown)
                .map(|m| m.rel.clone()),
        };
        let rel = match resolved {
            Ok(rel) => rel,
            Err(e) => {
                // A dangling symlink is not scanned, but `forget` moves the link.
                let with_md = if r.ends_with(".md") {
                    r.clone()
                } else {
                    format!("{r}.md")
                };
                match std::fs::symlink_metadata(dir.dir().join(&with_md)) {
                    Ok(m) if m.file_type().is_symlink() => with_md,
                    _ => return Err(e),
                }
            }
        };
        if out.iter().any(|t| t.rel == rel) {
            continue;
        }
        let c = dir.covering(&rel);
        out.push(Target {
            path: dir.dir().join(&rel),
            loaded_by: dir.loaded_by(&rel),
            rel,
            index: c.index,
            local: c.local,
            hubs: Vec::new(),
        });
    }
    Ok(out)
}

/// The lines of `text` (1-based numbers, with their terminators) that link any of
/// `files`, and the other memories such lines link.
fn lines_linking(text: &str, files: &[&str]) -> (BTreeMap<usize, String>, Vec<String>) {
    // Only the lines that name one of the files are parsed (issue 31).
    let names: Vec<&str> = files.iter().map(|f| f.rsplit('/').next().unwrap_or(f)).collect();
    let links = index::one::links_on_lines_naming(text, &names).unwrap_or_else(|| index::extract_links(text));
    let wanted: std::collections::BTreeSet<usize> = links
        .iter()
        .filter(|l| l.memory_target().is_some_and(|t| files.contains(&t)))
        .map(|l| l.line)
        .collect();
    // Each line copied once (a long line of links), found by memchr up to the
    // last one wanted, not every line of the index split.
    let last = wanted.last().copied().unwrap_or(0);
    let mut lines: BTreeMap<usize, String> = line_ranges(text, last)
        .filter(|(n, _)| wanted.contains(n))
        .map(|(n, r)| (n, text[r].to_string()))
        .collect();
    for n in wanted {
        lines.entry(n).or_default();
    }
    let others: Vec<String> = links
        .iter()
        .filter(|l| lines.contains_key(&l.line))
        .filter_map(|l| l.memory_target())
        .filter(|t| !files.contains(t))
        .map(str::to_string)
        .collect();
    (lines, others)
}

/// The index without the given lines; a non-empty result ends with a line ending.
fn without_lines(text: &str, remove: &BTreeMap<usize, String>) -> String {
    let eol = if text.split('\n').next().is_some_and(|l| l.ends_with('\r')) {
        "\r\n"
    } else {
        "\n"
    };
    // The text between removed lines copied whole, not line by line.
    let last = remove.keys().next_back().copied().unwrap_or(0);
    let mut s = String::with_capacity(text.len());
    let mut from = 0;
    for (n, r) in line_ranges(text, last) {
        if remove.contains_key(&n) {
            s.push_str(&text[from..r.start]);
            from = r.end;
        }
    }
    s.push_str(&text[from..]);
    if !s.is_empty() && !s.ends_with('\n') {
        s.push_str(eol);
    }
    s
}

/// The lines of `text` as `split_inclusive('\n')` cuts them, each its 1-based
/// number and byte range (its terminator included), up to line `last`.
fn line_ranges(text: &str, last: usize) -> impl Iterator<Item = (usize, std::ops::Range<usize>)> + '_ {
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut n = 0;
    std::iter::from_fn(move || {
        if start >= bytes.len() || n >= last {
            return None;
        }
        let end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i + 1);
        n += 1;
        let range = start..end;
        start = end;
        Some((n, range))
    })
}

fn read(p: &Path) -> String {
    index::read_index_text(p)
}

/// The hubs of `index rebuild` beside `index` (a hub lies beside its index and is
/// linked from it, SPEC §10.1), other than `rel` itself: the files the index
/// links, as the survey saw them.
fn hubs_beside(dir: &MemoryDir, survey: &Survey, index: &Path, rel: &str) -> Vec<PathBuf> {
    let Some(parent) = index.parent() else {
        return Vec::new();
    };
    // Most dirs hold no hub: the index's links need not be parsed then.
    if !survey.may_have_hubs() {
        return Vec::new();
    }
    let mut hubs: Vec<PathBuf> = Vec::new();
    for l in index::extract_links(&read(index)) {
        let Some(index::Target::Inside(local)) = index::resolve_dest(&l.dest, "") else {
            continue;
        };
        if local.contains('/') {
            continue;
        }
        let path = parent.join(&local);
        let Some(hub_rel) = path.strip_prefix(dir.dir()).ok().and_then(|p| p.to_str()) else {
            continue;
        };
        if hub_rel == rel || hubs.contains(&path) {
            continue;
        }
        if survey.is_hub(hub_rel) {
            hubs.push(path);
        }
    }
    hubs
}

/// Per index, the targets it may link, each with its path as that index links it.
fn group(targets: &[Target]) -> BTreeMap<PathBuf, Vec<(&Target, &str)>> {
    let mut m: BTreeMap<PathBuf, Vec<(&Target, &str)>> = BTreeMap::new();
    for t in targets {
        for (index, local) in t.indexes() {
            m.entry(index.to_path_buf()).or_default().push((t, local));
        }
    }
    m
}

/// How an index is named in messages and JSON: relative to the dir worked on
/// (`MEMORY.md`, `team/MEMORY.md`; under `--team`, the main index is `../MEMORY.md`).
fn index_label(dir: &MemoryDir, index: &Path) -> String {
    match index.strip_prefix(dir.dir()) {
        Ok(rel) => rel.to_string_lossy().into_owned(),
        Err(_) => format!(
            "../{}",
            index.strip_prefix(dir.main()).unwrap_or(index).to_string_lossy()
        ),
    }
}

fn removed_at(label: &str, lines: BTreeMap<usize, String>) -> impl Iterator<Item = RemovedAt> + '_ {
    lines.into_iter().map(move |(line, text)| RemovedAt {
        index: label.to_string(),
        line,
        text,
    })
}

/// Warnings for other topic files that still link a forgotten file.
fn backlink_warnings(survey: &Survey, targets: &[Target]) -> Vec<String> {
    let mut warnings = Vec::new();
    for t in targets {
        // A target links nothing left behind; a hub's line goes with the
        // memory (it is not a backlink left behind).
        let skip = |rel: &str, path: &Path| targets.iter().any(|x| x.rel == rel) || t.hubs.iter().any(|h| h == path);
        let linking: Vec<&str> = survey.linking(&t.rel, skip).collect();
        if !linking.is_empty() {
            warnings.push(format!(
                "{} is still linked from {} (not changed)",
                t.rel,
                linking.join(", ")
            ));
        }
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn r13_a_move_that_fails_puts_back_the_moved_files_and_the_index_bytes() {
        use crate::memdir::{MemoryDir, Scope};
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let memory = |n: &str| format!("---\nname: {n}\ndescription: d\ntype: user\n---\nbody\n");
        std::fs::write(dir.join("a.md"), memory("a")).unwrap();
        std::fs::write(dir.join("b.md"), memory("b")).unwrap();
        // Bytes that are not UTF-8 must come back as they were.
        let index = b"- [A](a.md) \xff caf\xe9\n- [B](b.md) \xe9\n".to_vec();
        std::fs::write(dir.join("MEMORY.md"), &index).unwrap();
        let memdir = MemoryDir::open(dir, Scope::Main);
        let plan = plan(&memdir, &["a".to_string(), "b".to_string()], false).unwrap();
        // b.md goes away after the plan: its move fails after a.md's succeeded.
        std::fs::remove_file(dir.join("b.md")).unwrap();
        let now = chrono::DateTime::parse_from_rfc3339("2026-11-30T12:00:00Z")
            .unwrap()
            .to_utc();
        let mut w = Writer::open(&memdir, now, false, &crate::store::Recording::off("forget")).unwrap();
        assert!(apply(&plan, &mut w).is_err());
        // With history on the file is removed, not moved: undoing puts it back
        // with its bytes and its mtime to the nanosecond.
        let entry = crate::ops::restore::read_entry(&dir.join("a.md")).unwrap();
        std::fs::remove_file(dir.join("a.md")).unwrap();
        let done = Done {
            removed: vec![(dir.join("a.md"), entry.clone())],
            ..Done::default()
        };
        done.undo(&mut w);
        assert_eq!(crate::ops::restore::read_entry(&dir.join("a.md")).unwrap(), entry);
        drop(w);
        assert_eq!(
            std::fs::read(dir.join("MEMORY.md")).unwrap(),
            index,
            "the index is put back byte for byte"
        );
        assert_eq!(
            std::fs::read_to_string(dir.join("a.md")).unwrap(),
            memory("a"),
            "a.md is moved back"
        );
        let trash = dir.join(".trash");
        let left: Vec<_> = std::fs::read_dir(&trash)
            .map(|d| d.flatten().collect())
            .unwrap_or_default();
        assert!(left.is_empty(), "no empty stamp dir is left: {left:?}");
    }

    #[test]
    fn quoting_survives_single_quotes() {
        assert_eq!(shell_quote("/a b/it's.md"), "'/a b/it'\\''s.md'");
        assert_eq!(shell_word("a\nb\t'c\\.md"), "$'a\\nb\\t\\'c\\\\.md'");
    }

    #[test]
    fn every_linking_line_in_any_form_is_found() {
        let text = "# I\n- [A](a.md) — a\n- **[a.md](a.md)** — bold\n- 🔔 [x](./a.md)\n- [B](b.md) — b\n- [A and B](a.md) [b](b.md)\n";
        let (lines, others) = lines_linking(text, &["a.md"]);
        assert_eq!(lines.keys().copied().collect::<Vec<_>>(), vec![2, 3, 4, 6]);
        assert_eq!(others, vec!["b.md"]);
        assert_eq!(without_lines(text, &lines), "# I\n- [B](b.md) — b\n");
        assert_eq!(
            without_lines("- [A](a.md)", &lines_linking("- [A](a.md)", &["a.md"]).0),
            ""
        );
    }

    /// The lines removed by number are the ones `split_inclusive` numbers, for
    /// every subset of lines of texts with and without a last line ending,
    /// with CRLF and with empty lines.
    #[test]
    fn lines_are_removed_as_split_inclusive_numbers_them() {
        let reference = |text: &str, remove: &BTreeMap<usize, String>| -> String {
            let s: String = text
                .split_inclusive('\n')
                .enumerate()
                .filter(|(i, _)| !remove.contains_key(&(i + 1)))
                .map(|(_, l)| l)
                .collect();
            if !s.is_empty() && !s.ends_with('\n') {
                let crlf = text.split('\n').next().is_some_and(|l| l.ends_with('\r'));
                return s + if crlf { "\r\n" } else { "\n" };
            }
            s
        };
        for text in ["", "a", "a\n", "a\nb", "a\n\nb\n", "\n\n", "a\r\nb\r\nc", "é\n— x\ny"] {
            let n = text.split_inclusive('\n').count() + 2;
            for mask in 0u32..(1 << n) {
                let remove: BTreeMap<usize, String> = (1..=n)
                    .filter(|i| mask & (1 << (i - 1)) != 0)
                    .map(|i| (i, String::new()))
                    .collect();
                assert_eq!(
                    without_lines(text, &remove),
                    reference(text, &remove),
                    "{text:?} {mask:b}"
                );
            }
            let ranges: Vec<&str> = line_ranges(text, usize::MAX).map(|(_, r)| &text[r]).collect();
            assert_eq!(ranges, text.split_inclusive('\n').collect::<Vec<_>>(), "{text:?}");
        }
    }

    /// Only the lines naming a file are parsed: the same lines and other links
    /// as parsing every link of the index.
    #[test]
    fn the_lines_naming_the_files_answer_as_parsing_all() {
        let reference = |text: &str, files: &[&str]| {
            let raw: Vec<&str> = text.split_inclusive('\n').collect();
            let links = index::extract_links(text);
            let lines: BTreeMap<usize, String> = links
                .iter()
                .filter(|l| l.memory_target().is_some_and(|t| files.contains(&t)))
                .map(|l| (l.line, raw[l.line - 1].to_string()))
                .collect();
            let others: Vec<String> = links
                .iter()
                .filter(|l| lines.contains_key(&l.line))
                .filter_map(|l| l.memory_target())
                .filter(|t| !files.contains(t))
                .map(str::to_string)
                .collect();
            (lines, others)
        };
        let text = "# I\n- [A](a.md) [B](b.md)\n<!-- [A](a.md)\n-->\n```\n[A](a.md)\n```\n`[A](a.md)` [x](sub/../a.md)\n[E](%61.md) [s](sub/a.md)\n[w](sub\\a.md)\n- [B](b.md) <!-- c\n- [A](a.md)\n-->\n";
        for t in [text.to_string(), text.replace('\n', "\r\n"), format!("\u{feff}{text}")] {
            for files in [&["a.md"][..], &["b.md"], &["sub/a.md"], &["a.md", "b.md"], &["z.md"]] {
                assert_eq!(lines_linking(&t, files), reference(&t, files), "{files:?} in {t:?}");
            }
        }
    }
}
