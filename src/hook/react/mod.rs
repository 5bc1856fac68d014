//! What the hook says about a write (SPEC §7.3): the findings the write
//! introduced, split into what the model must fix now (a block) and warnings
//! (context), and what a session start finds invisible.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use chrono::{DateTime, Duration, Utc};

use super::Written;
use super::payload::Original;
use super::render::{AIM, HookOutput, Item, Specific, one_line, render};
use crate::index::load::{self, Load};
use crate::lint::{self, Finding, RuleId};

mod session_start;

pub use session_start::{Between, session_start};

/// Findings for the model, and the line for the user.
#[derive(Default)]
struct Outcome {
    block: Vec<Item>,
    context: Vec<Item>,
    /// The `systemMessage` when something specific deserves it.
    summary: Option<String>,
}

/// React to a write of `w`; `original` is the file before the write.
pub fn post_tool_use(w: &Written, original: &Original, now: DateTime<Utc>) -> Option<HookOutput> {
    let before: Option<&str> = match original {
        Original::Text(t) => Some(t),
        Original::New => Some(""),
        Original::Unknown => None,
    };
    let mut o = if w.is_index() {
        index_write(w, before)?
    } else {
        topic_write(w, before, now)?
    };
    if before.is_none() {
        // Without the file before the write, nothing is known to be this write's.
        let mut moved = std::mem::take(&mut o.block);
        moved.append(&mut o.context);
        o.context = moved;
    }
    finish("PostToolUse", &w.label(), o, before.is_some())
}

/// Assemble the output document; `None` when there is nothing to say.
fn finish(event: &str, label: &str, o: Outcome, known: bool) -> Option<HookOutput> {
    if o.block.is_empty() && o.context.is_empty() {
        return None;
    }
    let mut doc = HookOutput::default();
    if !o.block.is_empty() {
        doc.decision = Some("block");
        doc.reason = Some(format!(
            "memctl: this write to {label} left problems Claude Code cannot work around; fix them now:\n{}",
            render(&o.block, AIM)
        ));
    }
    if !o.context.is_empty() {
        let head = if event != "PostToolUse" {
            "memctl: some memories are not visible to Claude Code:".to_string()
        } else if known {
            format!("memctl: notes on this write to {label}:")
        } else {
            format!("memctl: checked {label} (the file before this write is unknown, so some of these may be older):")
        };
        doc.hook_specific_output = Some(Specific {
            hook_event_name: event.to_string(),
            additional_context: format!("{head}\n{}", render(&o.context, AIM)),
            ..Specific::default()
        });
    }
    let summary = o.summary.unwrap_or_else(|| {
        let mut parts = Vec::new();
        if !o.block.is_empty() {
            parts.push(plural(o.block.len(), "problem", "problems") + " to fix");
        }
        if !o.context.is_empty() {
            parts.push(plural(o.context.len(), "warning", "warnings"));
        }
        format!("memctl: {label}: {}", parts.join(", "))
    });
    doc.system_message = Some(one_line(&summary, 300));
    Some(doc)
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The fix for a finding that blocks.
pub(crate) fn fix_for(id: RuleId) -> &'static str {
    match id {
        RuleId::ML101 => {
            "make the frontmatter valid YAML (quote values that contain `: ` or start with `[`, `{`, `*`, `&`, `!`, `|`, `>`, `%`, `@`)"
        }
        RuleId::ML102 => "move the `---` frontmatter block to the very first line",
        RuleId::ML104 => "close the frontmatter (`---`) within the first 30 lines",
        RuleId::ML108 => "set `type:` to one of user, feedback, project, reference",
        RuleId::ML201 => "create the linked file, or correct or remove the link",
        _ => "see `memctl lint --explain` for this rule",
    }
}

/// Findings in `new` that are not in `old` (as a multiset of rule and message:
/// line numbers move when text is added above).
pub(crate) fn introduced(new: Vec<Finding>, old: Option<Vec<Finding>>) -> Vec<Finding> {
    let Some(old) = old else {
        return new;
    };
    let mut seen: HashMap<(RuleId, Box<str>), usize> = HashMap::new();
    for f in old {
        *seen.entry((f.id, f.message)).or_default() += 1;
    }
    new.into_iter()
        .filter(|f| match seen.get_mut(&(f.id, f.message.clone())) {
            Some(n) if *n > 0 => {
                *n -= 1;
                false
            }
            _ => true,
        })
        .collect()
}

fn topic_write(w: &Written, before: Option<&str>, now: DateTime<Utc>) -> Option<Outcome> {
    let bytes = crate::fsread::read_regular(&w.path, lint::READ_CAP).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let new = lint::file_findings(&w.path);
    let old = before.map(|t| lint::text_findings(&w.path, &w.rel, t));
    let label = w.label();
    let mut o = Outcome::default();
    let dates = crate::dates::find(&text);
    for f in introduced(new, old) {
        let at = format!("{label}:{}", f.line);
        match f.id {
            RuleId::ML101 | RuleId::ML102 | RuleId::ML104 | RuleId::ML108 => {
                let text = if f.message.contains(": write `") {
                    format!("{at}: {}", f.message)
                } else {
                    format!("{at}: {} — fix: {}", f.message, fix_for(f.id))
                };
                o.block.push(Item::new(text));
            }
            RuleId::ML116 => {
                let d = dates.iter().find(|d| d.line == f.line && d.col == f.col);
                let fix = match d.and_then(|d| d.offset_days) {
                    Some(off) => format!("write {}", (now + Duration::days(off)).format("%Y-%m-%d")),
                    None => "write the absolute date".to_string(),
                };
                let phrase = d.map_or("a relative date".to_string(), |d| format!("`{}`", d.phrase));
                o.context.push(Item::new(format!(
                    "{at}: relative date {phrase}: {fix} (it is read in later sessions)"
                )));
            }
            RuleId::ML115 | RuleId::ML117 | RuleId::ML118 | RuleId::ML119 | RuleId::ML120 | RuleId::ML121 => {
                o.context.push(Item::new(format!("{at}: {}", f.message)));
            }
            _ => {}
        }
    }
    // A new topic file that is not indexed yet is step one of a correct save: the
    // index line is checked at the end of the turn (Stop), not here (SPEC §7.3).
    Some(o)
}

/// ML203 for the written file: the exact index line to add, and where (the Stop
/// check, SPEC §7.3).
/// `index` is the index text with the lines suggested before in the same message
/// already placed, so that each suggestion names the line it will really take;
/// the returned text has this one placed too.
pub(crate) fn unindexed(w: &Written, index: &str) -> Option<(Item, String)> {
    let linked = crate::index::extract_links(index)
        .iter()
        .any(|l| l.memory_target() == Some(w.rel.as_str()));
    if linked {
        return None;
    }
    let m = crate::scan::read_memory(&w.path, &w.rel).ok()?;
    let title = m
        .name()
        .filter(|n| !n.trim().is_empty())
        .unwrap_or_else(|| m.stem().to_string());
    let hook = m.description_text();
    let (line, _) = crate::index::render_entry(one_line(&title, 100).trim(), &w.rel, one_line(&hook, 150).trim());
    let ty = m.claude_type().map(|t| t.as_str());
    let placed = crate::index::place::place(index, &line, ty, false);
    let index_label = w.memdir.index_label();
    let mut text = format!(
        "{} is not in {index_label}, so Claude Code never loads it: add this line at {index_label}:{}: {line}",
        w.label(),
        placed.line
    );
    let (own, pushed) = crate::index::place::newly_cut(index, &placed.text, &w.rel);
    if own || !pushed.is_empty() {
        text.push_str(" — the index is full there: run `memctl index rebuild` to make room");
    }
    Some((Item::new(text), placed.text))
}

/// Non-blank dropped lines, with their file line numbers.
fn dropped(l: &Load) -> Vec<(usize, String)> {
    l.dropped
        .iter()
        .map(|d| (d.line, l.dropped_text(d).trim().to_string()))
        .filter(|(_, t)| !t.is_empty())
        .collect()
}

/// How full the index is, for the user's line.
fn fullness(label: &str, l: &Load) -> String {
    if l.unit_truncated && !l.line_truncated {
        format!(
            "{label} {}/{} units",
            crate::text::group_digits(l.unit_count as i64),
            "25 000"
        )
    } else {
        format!("{label} {}/{} lines", l.line_count, load::MAX_LINES)
    }
}

/// The dropped entries of an index as a block item.
fn dropped_item(label: &str, l: &Load, lines: &[(usize, String)]) -> Item {
    let why = l.reason.clone().unwrap_or_default();
    Item::new(format!(
        "{label} is over Claude Code's cap ({why}): {} will not load; shorten lines, move detail into topic files, or run `memctl index rebuild`",
        plural(lines.len(), "line", "lines")
    ))
    .with_list(lines.iter().map(|(n, t)| format!("{label}:{n}: {t}")).collect())
}

/// Entries a write pushed past the load cut, in the one voice of SPEC §7.3: the
/// entries (file, line, text) and the fixing command, no figures of memctl's own.
fn cut_item(label: &str, lines: &[(usize, String)]) -> Item {
    Item::new(format!(
        "past the load cut, so Claude Code does not load {}: run `memctl index rebuild` to bring every entry back within the load",
        if lines.len() == 1 { "this entry" } else { "these entries" }
    ))
    .with_list(lines.iter().map(|(n, t)| format!("{label}:{n}: {t}")).collect())
}

fn index_write(w: &Written, before: Option<&str>) -> Option<Outcome> {
    let bytes = crate::index::read_index(&w.path).ok()?;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let label = w.label();
    let now_load = load::load(&text);
    let old_load = before.map(load::load);
    let mut o = Outcome::default();

    let mut old_dropped: HashMap<String, usize> = HashMap::new();
    if let Some(ol) = &old_load {
        for (_, t) in dropped(ol) {
            *old_dropped.entry(t).or_default() += 1;
        }
    }
    let new_dropped: Vec<(usize, String)> = dropped(&now_load)
        .into_iter()
        .filter(|(_, t)| match old_dropped.get_mut(t) {
            Some(n) if *n > 0 => {
                *n -= 1;
                false
            }
            _ => true,
        })
        .collect();
    // One voice with the client (SPEC §7.3): Claude Code itself reports an index
    // over or near its caps, with its own numbers and targets; memctl adds only
    // which entries are dropped and the command that fixes it, and says nothing
    // of an index that is only near a cap.
    if !new_dropped.is_empty() {
        o.block.push(cut_item(&label, &new_dropped));
        let mut lines: Vec<String> = new_dropped.iter().take(3).map(|(n, _)| format!("line {n}")).collect();
        if new_dropped.len() > 3 {
            lines.push(format!("… and {} more", new_dropped.len() - 3));
        }
        o.summary = Some(format!(
            "memctl: not loaded from {label}: {} (fix: memctl index rebuild)",
            lines.join(", ")
        ));
    }

    // Index rules on lines this write added.
    let old_lines: Option<HashSet<&str>> = before.map(|b| crate::index::lines(b).into_iter().collect());
    let new_lines = crate::index::lines(&text);
    let added = |line: usize| match &old_lines {
        None => true,
        Some(set) => new_lines.get(line.wrapping_sub(1)).is_none_or(|l| !set.contains(l)),
    };
    let mut dangling = Vec::new();
    let mut content = Vec::new();
    for f in lint::index_findings(&w.path, w.memdir.dir()) {
        if !added(f.line) {
            continue;
        }
        match f.id {
            RuleId::ML201 => dangling.push(format!("{label}:{}: {}", f.line, f.message)),
            RuleId::ML211 => content.push(format!("{label}:{}: {}", f.line, f.message)),
            _ => {}
        }
    }
    if !dangling.is_empty() {
        o.block.push(
            Item::new(format!(
                "{} to a memory that does not exist — fix: {}",
                plural(dangling.len(), "link points", "links point"),
                fix_for(RuleId::ML201)
            ))
            .with_list(dangling),
        );
    }
    if !content.is_empty() {
        o.context.push(
            Item::new(
                "memory content written into the index (it counts toward the caps): move it into a topic file and keep one line linking it",
            )
            .with_list(content),
        );
    }
    Some(o)
}

/// A memory written into `other`, a memory dir Claude Code does not load for this
/// project (SPEC v3 §7.3): name the dir it loads (`loaded`) and how to move it.
pub fn wrong_dir(other: &Path, rel: &str, loaded: &Path) -> HookOutput {
    let q = |p: &Path| shell_words::quote(&p.to_string_lossy()).into_owned();
    let dir = |p: &Path| format!("{}/", p.display());
    let text = format!(
        "memctl: this memory was written to {}, which Claude Code does not load for this project; it loads {}. Move it there: `mv {} {}`, then add its line to {}MEMORY.md (or, when everything in that dir belongs to this project, `memctl projects merge {} {}`).",
        dir(other),
        dir(loaded),
        q(&other.join(rel)),
        q(&loaded.join(rel)),
        dir(loaded),
        q(other),
        q(loaded),
    );
    post_context(
        &text,
        &format!(
            "memctl: {rel} was written to another project's memory dir ({}), not loaded here",
            dir(other)
        ),
    )
}

/// PostToolUse context for the model (`text`) with one line for the user.
fn post_context(text: &str, user: &str) -> HookOutput {
    HookOutput {
        hook_specific_output: Some(Specific {
            hook_event_name: "PostToolUse".to_string(),
            additional_context: crate::text::ellipsize(text, AIM),
            ..Specific::default()
        }),
        system_message: Some(one_line(user, 300)),
        ..HookOutput::default()
    }
}

/// A write into a path Claude Code's scan skips (SPEC v3 §7.3): context that
/// Claude Code never loads files there, and where to move the file if it is
/// meant to be a memory. `dir` is the excluded directory (or the dir holding a
/// dot-named file), `rel` the file relative to the memory dir `main`.
pub fn excluded(rel: &str, dir: &Path, why: crate::scan::Exclusion, main: &Path) -> HookOutput {
    let q = |p: &Path| shell_words::quote(&p.to_string_lossy()).into_owned();
    let name = rel.rsplit('/').next().unwrap_or(rel).trim_start_matches('.');
    let name = if name.is_empty() { "memory.md" } else { name };
    let under = match why {
        crate::scan::Exclusion::DotSegment if dir == main || !rel.contains('/') => {
            format!("{}/ whose names begin with a dot", dir.display())
        }
        _ => format!("{}/", dir.display()),
    };
    let text = format!(
        "memctl: {rel} is not a memory file: Claude Code never loads files under {under} (its scan skips paths {}: never in the manifest or recall; only a link in MEMORY.md reaches them). If it is meant to be a memory, move it: `mv {} {}`, then add its line to {}/MEMORY.md.",
        why.describe(),
        q(&main.join(rel)),
        q(&main.join(name)),
        main.display(),
    );
    post_context(
        &text,
        &format!(
            "memctl: {rel} is {}: Claude Code never loads it as a memory",
            why.describe()
        ),
    )
}
