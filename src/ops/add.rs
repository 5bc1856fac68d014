//! `add` (SPEC §3.6): a validated new memory becomes a file and an index line.

use std::fmt::Write as _;
use std::path::Path;

use chrono::{DateTime, Duration, Utc};
use serde::Serialize;

use crate::error::{Error, Kind};
use crate::frontmatter::{self, Fields, Status};
use crate::index::check::{Checked, checked};
use crate::index::place::{newly_cut, place};
use crate::index::report::{JSON_DROPPED, LIST_DROPPED, TruncationReport};
use crate::memdir::MemoryDir;
use crate::memory::MemoryType;
use crate::ops::survey::{Seen, Survey};
use crate::store::{self, Writer};
use crate::yaml::Value;
use crate::{dates, index};

/// Everything `add` writes, validated.
pub struct NewMemory {
    pub ty: MemoryType,
    pub name: String,
    pub description: String,
    /// The body as written to the file (possibly empty).
    pub body: String,
    pub file: String,
    pub title: String,
    pub hook: String,
    /// The values were asked for on the terminal: warnings name no flags.
    pub asked: bool,
}

/// What `add` will do: the file, its content, the index before and after.
pub struct Plan {
    pub dir: MemoryDir,
    pub file: String,
    pub content: String,
    /// The index line, `None` with `--no-index`.
    pub entry: Option<String>,
    pub old_index: String,
    /// The truncation check of the index with the new line: it holds that
    /// index's text ([`Plan::new_index`]; 20 000 lines are not copied twice).
    pub check: Checked,
    /// 1-based line of the new entry in the new index.
    pub line_number: Option<usize>,
    pub warnings: Vec<String>,
    /// The type and `--at-top`, to place the line again in the fresh index.
    pub ty: MemoryType,
    pub at_top: bool,
}

/// The JSON document of `add` (SPEC §3.6).
#[derive(Serialize)]
pub struct Outcome<'a> {
    pub file: &'a str,
    pub path: String,
    pub index_path: Option<String>,
    pub index_line: Option<&'a str>,
    pub index_line_number: Option<usize>,
    pub dry_run: bool,
    pub content: Option<&'a str>,
    pub truncation: Option<TruncationReport>,
    /// Paths were printed with U+FFFD: the dir is not valid UTF-8 (SPEC §3.1).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub lossy: bool,
}

impl Plan {
    /// The index with the new line (the old one with `--no-index`).
    pub fn new_index(&self) -> &str {
        // `checked` holds the text it is given.
        self.check.text().unwrap_or_default()
    }

    pub fn outcome(&self, dry_run: bool) -> Outcome<'_> {
        let indexed = self.entry.is_some();
        Outcome {
            file: &self.file,
            path: self.dir.dir().join(&self.file).to_string_lossy().into_owned(),
            index_path: indexed.then(|| self.dir.index_path().to_string_lossy().into_owned()),
            index_line: self.entry.as_deref(),
            index_line_number: if indexed { self.line_number } else { None },
            dry_run,
            content: dry_run.then_some(self.content.as_str()),
            truncation: indexed.then(|| self.check.report(None, JSON_DROPPED)),
            lossy: self.dir.dir().to_str().is_none(),
        }
    }
}

/// Plan the write: render and check the file, compute the index with the new line,
/// collect the warnings. Reads the dir; writes nothing.
/// How `add` places its index line (SPEC §10.2, §3.13).
#[derive(Clone, Copy, Debug, Default)]
pub struct Placement {
    /// `--no-index`: no line at all.
    pub no_index: bool,
    /// `--at-top`: before the first entry instead of in the type's section.
    pub at_top: bool,
    /// `--force`: place it even when the index would be cut (a warning names the
    /// entries dropped).
    pub force: bool,
}

pub fn plan(
    dir: &MemoryDir,
    m: &NewMemory,
    placement: Placement,
    enabled: (bool, &str),
    now: DateTime<Utc>,
    (cache, seen): (Option<&Path>, Option<Seen>),
) -> Result<Plan, Error> {
    let no_index = placement.no_index;
    let name = stored_name(&m.name, &m.file);
    let content = frontmatter::render_memory(&name, &m.description, m.ty.as_str(), &m.body);
    ensure_round_trip(&content, &name, m)?;
    let mut warnings = input_warnings(m, now);
    warnings.extend(secret_warnings(&dir.dir().join(&m.file), &m.file, &content));
    if !enabled.0 {
        warnings.push(format!(
            "auto memory is disabled ({}): Claude Code will not read this memory",
            enabled.1
        ));
    }
    warnings.extend(duplicate_name(dir, m, cache, seen));
    let (entry, entry_too_long) = index::render_entry(&m.title, &m.file, &m.hook);
    if entry_too_long && !no_index {
        warnings.push(format!(
            "the index line is longer than {} chars even shortened: the file name is too long",
            index::MAX_ENTRY_CHARS
        ));
    }
    ensure_absent(dir, &m.file)?;
    let old_index = read_index(dir);
    let (new_index, line_number) = if no_index {
        (old_index.clone(), None)
    } else {
        let p = with_entry(&old_index, &entry, m.ty, placement.at_top);
        (p.text, Some(p.line))
    };
    let label = dir.index_label();
    let mut check = checked(label.into(), Some(dir.index_path()), new_index);
    if !no_index {
        ensure_loads(&old_index, check.text().unwrap_or_default(), &m.file, label, placement)?;
        if let Some(w) = truncation_warning(&check, label, &entry) {
            warnings.push(w);
        }
    }
    // What is left to read of it: the index to write and the JSON report.
    check.keep_for_report(JSON_DROPPED);
    Ok(Plan {
        dir: dir.clone(),
        file: m.file.clone(),
        content,
        entry: (!no_index).then_some(entry),
        old_index,
        check,
        line_number,
        warnings,
        ty: m.ty,
        at_top: placement.at_top,
    })
}

/// Create the file and add the index line against the fresh index; if the index
/// write fails, the created file is removed again (a failed `add` writes nothing).
pub fn apply(plan: &Plan, w: &mut Writer) -> Result<(), Error> {
    ensure_absent(w.memdir(), &plan.file)?;
    let target = w.memdir().dir().join(&plan.file);
    if plan.entry.is_some() {
        // Everything the index write will refuse (a symlink out, a directory, a
        // FIFO) is refused before the file is created.
        let index = w.memdir().index_path();
        store::ensure_contained(w.memdir().dir(), &index)?;
        store::ensure_updatable(&index)?;
    }
    w.create(&target, plan.content.as_bytes())?;
    if let Some(entry) = &plan.entry {
        let index = w.memdir().index_path();
        if let Err(e) = w.update_raw(&index, Some(plan.old_index.as_bytes()), |fresh| {
            // The index as planned (the usual case): the text placed then is the
            // one placing it again gives (20 000 lines: not scanned a second
            // time, nor copied).
            if fresh == plan.old_index {
                return Ok(plan.new_index().into());
            }
            Ok(with_entry(fresh, entry, plan.ty, plan.at_top).text.into())
        }) {
            w.roll_back();
            return Err(e);
        }
    }
    Ok(())
}

fn ensure_absent(dir: &MemoryDir, file: &str) -> Result<(), Error> {
    let target = dir.dir().join(file);
    if std::fs::symlink_metadata(&target).is_ok() {
        return Err(Error::new(Kind::Exists, format!("file exists: {}", target.display()))
            .hint("pass --file with another name, or choose another --name; memctl never overwrites"));
    }
    Ok(())
}

fn read_index(dir: &MemoryDir) -> String {
    crate::index::read_index_text(&dir.index_path())
}

/// The index with `entry` placed for its type (SPEC §10.2), in the index's own
/// line ending.
pub fn with_entry(index: &str, entry: &str, ty: MemoryType, at_top: bool) -> crate::index::place::Placed {
    place(index, entry, Some(ty.as_str()), at_top)
}

/// Refuse (`over_budget`, SPEC §3.13) when the new line would be cut or push a
/// loaded entry past the cut, unless `--force`.
fn ensure_loads(old: &str, new: &str, file: &str, label: &str, placement: Placement) -> Result<(), Error> {
    // `--force` adds it whatever the cut: the two load models are not needed.
    if placement.force {
        return Ok(());
    }
    let (own, pushed) = newly_cut(old, new, file);
    if !own && pushed.is_empty() {
        return Ok(());
    }
    let what = if own {
        format!("its index line would fall past Claude Code's cut of {label}")
    } else {
        format!(
            "its index line would push {} past Claude Code's cut of {label}",
            pushed.join(", ")
        )
    };
    Err(Error::new(Kind::OverBudget, format!("{what}: {file}")).hint(
        "make room with `memctl index rebuild`, add it with --no-index, or pass --force to add it anyway (the cut entries are named)",
    ))
}

/// The `name` written for `--name` (SPEC §3.6): (2.1.332) its slug by Claude Code's
/// rule, so that Claude Code's first write keeps it; a name without ASCII letters
/// or digits becomes `memory-<the first 8 hex digits of the SHA-256 of the file name>`.
pub fn stored_name(name: &str, file: &str) -> String {
    let slug = crate::memory::claude_slug(name);
    if !slug.is_empty() {
        return slug;
    }
    use sha2::Digest;
    let digest = sha2::Sha256::digest(file.as_bytes());
    let hex: String = digest.iter().take(4).map(|b| format!("{b:02x}")).collect();
    format!("memory-{hex}")
}

/// The first parse of what memctl writes must give back exactly the name, the
/// description and `metadata.type`.
fn ensure_round_trip(content: &str, name: &str, m: &NewMemory) -> Result<(), Error> {
    let (fm, _) = frontmatter::parse_document(content);
    let f = Fields::from(&fm);
    let s = |v: &str| Some(Value::String(v.to_string()));
    if fm.status != Status::Ok
        || f.type_source != frontmatter::TypeSource::Nested
        || f.name != s(name)
        || f.description != s(&m.description)
        || f.type_raw != s(m.ty.as_str())
    {
        return Err(Error::new(
            Kind::Internal,
            format!("the rendered frontmatter does not parse back to the given values: {content:?}"),
        )
        .hint("this is a bug in memctl; please report it"));
    }
    Ok(())
}

/// The body as written: trailing line breaks removed, then the Why/How lines.
pub fn compose_body(text: &str, why: Option<&str>, how: Option<&str>) -> String {
    let mut s = text.trim_end_matches(['\n', '\r']).to_string();
    let lines: Vec<String> = [
        why.map(|w| format!("**Why:** {w}")),
        how.map(|h| format!("**How to apply:** {h}")),
    ]
    .into_iter()
    .flatten()
    .collect();
    if !lines.is_empty() {
        if !s.is_empty() {
            s.push_str("\n\n");
        }
        s.push_str(&lines.join("\n"));
    }
    if !s.is_empty() {
        s.push('\n');
    }
    s
}

/// Secret-like tokens (lint ML121) in a memory's text, one warning each naming
/// the file and line: the memory is loaded into the model's context and, by
/// `sync` or `export`, leaves the machine (refused there without
/// `--allow-secrets`; issue 34 point 4). `add` and `edit` share it.
pub fn secret_warnings(path: &Path, file: &str, content: &str) -> Vec<String> {
    crate::lint::secret_findings(path, content)
        .into_iter()
        .map(|f| {
            format!(
                "{file}:{}: ML121 {} (`memctl sync` and `memctl export` refuse it without --allow-secrets)",
                f.line, f.message
            )
        })
        .collect()
}

fn input_warnings(m: &NewMemory, now: DateTime<Utc>) -> Vec<String> {
    let mut w = Vec::new();
    if m.description.chars().count() > 200 {
        w.push(format!(
            "the description is {} chars; Claude Code's manifest shows it whole: keep it under 200",
            m.description.chars().count()
        ));
    }
    if matches!(m.ty, MemoryType::Feedback | MemoryType::Project) {
        let has = |p: &str| m.body.lines().any(|l| l.trim_start().starts_with(p));
        for (flag, label) in [("--why", "**Why:**"), ("--how", "**How to apply:**")] {
            if !has(label) {
                let pass = if m.asked {
                    String::new()
                } else {
                    format!(" (pass {flag})")
                };
                w.push(format!(
                    "no {label} line: Claude Code asks for one in {} memories{pass}",
                    m.ty.as_str()
                ));
            }
        }
    }
    for (what, text) in [
        ("name", m.name.as_str()),
        ("description", m.description.as_str()),
        ("body", m.body.as_str()),
    ] {
        for d in dates::find(text) {
            let fix = match d.offset_days {
                Some(off) => format!("write {}", (now + Duration::days(off)).format("%Y-%m-%d")),
                None => "write the absolute date".to_string(),
            };
            w.push(format!("relative date `{}` in the {what}: {fix}", d.phrase));
        }
    }
    w
}

/// Another memory with the same name or slug. `cache`: where the survey's cache
/// lives (`None`: every memory is read).
fn duplicate_name(dir: &MemoryDir, m: &NewMemory, cache: Option<&Path>, seen: Option<Seen>) -> Option<String> {
    let survey = Survey::take_seen(dir.dir(), cache, seen);
    let lower = m.name.to_lowercase();
    // (2.1.332) Also the slug: Claude Code stores names as slugs (SPEC §3.6).
    let slug = crate::memory::claude_slug(&m.name);
    let (rel, name) = survey.named(|n| lowercase_is(n, &lower) || (!slug.is_empty() && lowercase_is(n, &slug)))?;
    Some(format!(
        "`{rel}` already has the name `{name}`: Claude Code prefers updating a memory to adding a duplicate (`memctl edit {rel}`)"
    ))
}

/// Whether `n.to_lowercase()` is `want`, without making it for an ASCII `n`.
fn lowercase_is(n: &str, want: &str) -> bool {
    if n.is_ascii() {
        n.len() == want.len() && n.bytes().zip(want.bytes()).all(|(a, b)| a.to_ascii_lowercase() == b)
    } else {
        n.to_lowercase() == want
    }
}

/// The write-time truncation warning: the first [`LIST_DROPPED`] entries past the
/// cut (as `truncate-check` lists them), how many more, and the new entry when it is
/// past the cut too (20 000 dropped lines are not a warning anyone reads; `--json`'s
/// `truncation` names each).
fn truncation_warning(check: &Checked, label: &str, entry: &str) -> Option<String> {
    let l = &check.load;
    let reason = l.reason.as_ref()?;
    let mut s = format!("Claude Code would truncate {label}: {reason}\nThese entries would not be loaded:");
    let line = |s: &mut String, d: &crate::index::load::Dropped| {
        let text = check.file_line(d.line).unwrap_or(l.dropped_text(d));
        let new = text.trim_end() == entry;
        let _ = write!(s, "\n  {label}:{}: ", d.line);
        crate::text::push_ellipsized(s, text, 100);
        if new {
            s.push_str("   ← the new entry");
        }
        new
    };
    let mut shown_new = false;
    for d in l.dropped.iter().take(LIST_DROPPED) {
        shown_new |= line(&mut s, d);
    }
    if let Some(rest) = l.dropped.get(LIST_DROPPED..).filter(|r| !r.is_empty()) {
        // From the end: the new entry is mostly the index's last line.
        let new = (!shown_new)
            .then(|| {
                rest.iter()
                    .rposition(|d| check.file_line(d.line).unwrap_or(l.dropped_text(d)).trim_end() == entry)
            })
            .flatten();
        let more = rest.len() - usize::from(new.is_some());
        if more > 0 {
            let _ = write!(s, "\n  … and {} more", crate::text::group_digits(more as i64));
        }
        if let Some(i) = new {
            line(&mut s, &rest[i]);
        }
    }
    s.push_str("\nhint: shorten or remove index lines (memctl lint), or move detail into topic files");
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn body_composition() {
        assert_eq!(
            compose_body("Rule.\n\n", Some("w"), Some("h")),
            "Rule.\n\n**Why:** w\n**How to apply:** h\n"
        );
        assert_eq!(compose_body("Rule.", None, Some("h")), "Rule.\n\n**How to apply:** h\n");
        assert_eq!(compose_body("Text\n", None, None), "Text\n");
        assert_eq!(compose_body("", None, None), "");
    }
}
