//! `memctl diff [REF] [--from X] [--to Y] [--stat] [--dream]` (SPEC §8.3): a
//! unified diff between two states of the memory dir: two snapshots, or a
//! snapshot and the dir now. A report: it exits 0 whatever it finds.

use std::collections::HashMap;
use std::process::ExitCode;

use anyhow::Result;
use serde::Serialize;
use unicode_width::UnicodeWidthStr;

use crate::cli::DiffArgs;
use crate::context::Context;
use crate::error::{Error, Kind};
use crate::history::{self, Change, ChangeKind, Reader, Snap, State, Store};
use crate::output::{self, Output, Tone};

/// `diff --json` (SPEC §8.3).
#[derive(Serialize)]
struct Doc {
    /// The snapshot diffed from; null: the empty state before the baseline.
    from: Option<String>,
    /// The snapshot diffed to; null: the dir now.
    to: Option<String>,
    files: Vec<FileDoc>,
}

#[derive(Serialize)]
struct FileDoc {
    file: String,
    change: ChangeKind,
    /// The unified diff; null for a touched file (mtime only) and with `--stat`.
    diff: Option<String>,
    #[serde(skip)]
    lines: (usize, usize),
}

/// The two ends of a diff: a snapshot's id (or none) and its state.
struct End {
    id: Option<gix::ObjectId>,
    state: State,
}

pub fn run(args: &DiffArgs, ctx: &Context, out: &mut Output) -> Result<ExitCode> {
    let res = ctx.resolve_existing()?;
    let memdir = &res.memdir;
    if args.dream {
        record_dream(ctx, &res, out);
    }
    let mut store = Store::open_existing(&ctx.history, memdir.main(), ctx.now)?;
    let log = store.log()?;
    // Snapshots of the stores set aside as unreadable are accepted too (SPEC v3 §8.1).
    let asides = history::aside::open_all(&ctx.history, memdir.main());
    let (from, to, fresh) = ends(args, &mut store, &log, &asides, ctx, memdir.main())?;
    for w in std::mem::take(&mut store.warnings) {
        out.warn(w);
    }
    let changes = wanted_changes(memdir, args.reference.as_deref(), &store, &log, &from, &to)?;
    let text_of = |f: &Option<history::FileState>, rel: &[u8]| -> String {
        let bytes = match f {
            None => Vec::new(),
            Some(f) => store
                .blob(f.oid)
                .ok()
                .or_else(|| asides.iter().find_map(|a| a.blob(f.oid).ok()))
                .or_else(|| fresh.get(rel).cloned())
                .unwrap_or_default(),
        };
        String::from_utf8_lossy(&bytes).into_owned()
    };
    let doc = Doc {
        from: from.id.map(|i| i.to_hex_with_len(8).to_string()),
        to: to.id.map(|i| i.to_hex_with_len(8).to_string()),
        files: changes.iter().map(|c| file_doc(c, args.stat, &text_of)).collect(),
    };
    drop(store);
    emit(&doc, &changes, args.stat, out)
}

/// A dream that just ran is not in the history until something records it:
/// record it first, as `undo --dream` does (issue 34 point 7). Without that
/// snapshot the run shown may be an older one: said, not fatal for a report.
fn record_dream(ctx: &Context, res: &crate::paths::Resolution, out: &mut Output) {
    let project = ctx.recording("diff", res).project;
    match crate::ops::undo::record_outside(res.memdir.main(), &ctx.history, project.as_deref(), ctx.now, "diff") {
        Ok(warnings) => warnings.into_iter().for_each(|w| out.warn(w)),
        Err(e) => out.warn(format!(
            "cannot record the changes made since the last snapshot ({e}): the dream run shown may not be the newest"
        )),
    }
}

/// The changes from `from` to `to` in the scope, or (with a REF) of the memory
/// it names, now or in any snapshot.
fn wanted_changes(
    memdir: &crate::memdir::MemoryDir,
    reference: Option<&str>,
    store: &Store,
    log: &[Snap],
    from: &End,
    to: &End,
) -> Result<Vec<Change>> {
    let prefix = history::scope_prefix(memdir);
    let prefix = prefix.as_bytes();
    let target = match reference {
        Some(r) => {
            let states = store.states(log, log.len())?;
            let mut all = vec![from.state.clone(), to.state.clone()];
            all.extend(states);
            Some(history::resolve_ref(memdir, r, &all, &mut |id| {
                store.blob(id).ok().and_then(|b| history::frontmatter_name(&b))
            })?)
        }
        None => None,
    };
    Ok(history::changes(&from.state, &to.state)
        .into_iter()
        .filter(|c| match &target {
            Some(t) => &c.rel == t,
            None => c.rel.starts_with(prefix),
        })
        .collect())
}

/// The report item of one change: its unified diff (none for a touched file or
/// with `stat`) and line counts, from the texts `text_of` gives of each end.
fn file_doc(c: &Change, stat: bool, text_of: &dyn Fn(&Option<history::FileState>, &[u8]) -> String) -> FileDoc {
    let label = c.file();
    let (diff, lines) = if c.kind == ChangeKind::Touched {
        (None, (0, 0))
    } else {
        let (a, b) = (text_of(&c.before, &c.rel), text_of(&c.after, &c.rel));
        let lines = crate::diff::line_counts(&a, &b);
        ((!stat).then(|| crate::diff::unified(&label, &a, &b)), lines)
    };
    FileDoc {
        file: label,
        change: c.kind,
        diff,
        lines,
    }
}

/// The report: JSON, `--stat` (lines on a terminal, records piped), or the diffs.
fn emit(doc: &Doc, changes: &[Change], stat: bool, out: &mut Output) -> Result<ExitCode> {
    if out.json {
        out.emit_json(serde_json::to_value(doc)?)?;
    } else if stat {
        let text = if out.stdout_tty {
            render_stat(doc, output::terminal_width(), out.color_stdout)
        } else {
            stat_records(doc)
        };
        out.print(&text)?;
    } else {
        out.print(&render_diff(doc, changes, out.color_stdout))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The states to compare: `--dream` (the parent of the newest run of dream
/// snapshots → its newest), `--from`/`--to`, else the newest snapshot → the dir
/// now. `--to Y` alone shows what `Y` changed (its parent → `Y`). The map holds
/// the bytes of files read from the dir now that are not stored yet.
fn ends(
    args: &DiffArgs,
    store: &mut Store,
    log: &[Snap],
    asides: &[history::aside::Aside],
    ctx: &Context,
    main: &std::path::Path,
) -> Result<(End, End, history::Fresh)> {
    if log.is_empty() {
        return Err(Error::new(Kind::NotFound, "the history has no snapshots yet")
            .hint("`memctl snapshot` records one")
            .into());
    }
    // A snapshot of this store, or (with the set-aside store) of one set aside.
    type Id<'a> = (Option<&'a history::aside::Aside>, gix::ObjectId);
    let at = |store: &Store, id: Option<Id>| -> Result<End, Error> {
        Ok(End {
            id: id.map(|(_, id)| id),
            state: match id {
                Some((Some(a), id)) => a.state(id)?,
                Some((None, id)) => store.state(id)?,
                None => State::default(),
            },
        })
    };
    fn parent_of<'a>(log: &[Snap], (a, id): Id<'a>) -> Option<Id<'a>> {
        match a {
            Some(a) => a.get(id).and_then(|(s, _)| s.parent).map(|p| (Some(a), p)),
            None => log
                .iter()
                .find(|s| s.id == id)
                .and_then(|s| s.parent)
                .map(|p| (None, p)),
        }
    }
    if args.dream {
        let Some(newest) = log.iter().position(|s| s.trigger() == "dream") else {
            return Err(Error::new(Kind::NotFound, "no dream run in the history")
                .hint("`memctl history` lists the snapshots; a dream run is recorded when files and the lock's mtime change together")
                .into());
        };
        let oldest = newest + log[newest..].iter().take_while(|s| s.trigger() == "dream").count() - 1;
        return Ok((
            at(store, log[oldest].parent.map(|p| (None, p)))?,
            at(store, Some((None, log[newest].id)))?,
            HashMap::new(),
        ));
    }
    let from = match &args.from {
        Some(x) => Some(history::aside::resolve(store, log, asides, x, ctx.now)?),
        None => None,
    };
    let to = match &args.to {
        Some(y) => Some(history::aside::resolve(store, log, asides, y, ctx.now)?),
        None => None,
    };
    match (from, to) {
        (from, Some(to)) => {
            let from = from.or_else(|| parent_of(log, to));
            Ok((at(store, from)?, at(store, Some(to))?, HashMap::new()))
        }
        (from, None) => {
            let from = at(store, Some(from.unwrap_or((None, log[0].id))))?;
            let (state, fresh) = store.state_now(main)?;
            Ok((from, End { id: None, state }, fresh))
        }
    }
}

/// The unified diffs, one after another as `git diff` prints them; a touched
/// file gets one line naming its old and new mtime.
fn render_diff(doc: &Doc, changes: &[Change], color: bool) -> String {
    let mut text = String::new();
    for (f, c) in doc.files.iter().zip(changes) {
        match &f.diff {
            None => {
                let ns = |s: &Option<history::FileState>| {
                    s.as_ref()
                        .map(|s| crate::text::iso_ms((s.mtime_ns / 1_000_000) as f64))
                        .unwrap_or_default()
                };
                let line = format!("touched {}: mtime {} -> {}\n", f.file, ns(&c.before), ns(&c.after));
                text.push_str(&output::paint(color, Tone::Bold, &line));
            }
            Some(d) if d.is_empty() => {
                // An added or deleted empty file: no hunk to show.
                let what = if f.change == ChangeKind::Added {
                    "added"
                } else {
                    "deleted"
                };
                text.push_str(&output::paint(
                    color,
                    Tone::Bold,
                    &format!("{what} {} (empty)\n", f.file),
                ));
            }
            Some(d) => text.push_str(&crate::diff::paint(color, d)),
        }
    }
    text
}

/// `--stat` on a terminal: one line per file (`~ file  +2 -1`), then a total.
fn render_stat(doc: &Doc, width: usize, color: bool) -> String {
    if doc.files.is_empty() {
        return "no changes\n".into();
    }
    let counts: Vec<String> = doc
        .files
        .iter()
        .map(|f| match f.change {
            ChangeKind::Touched => "mtime only".into(),
            _ => format!("+{} -{}", f.lines.0, f.lines.1),
        })
        .collect();
    let longest_count = counts.iter().map(String::len).max().unwrap_or(0);
    let names: Vec<String> = doc
        .files
        .iter()
        .map(|f| crate::text::escape_name(&f.file).into_owned())
        .collect();
    let longest_file = names.iter().map(|f| f.width()).max().unwrap_or(0);
    let room = longest_file
        .min(width.max(40).saturating_sub(4 + longest_count))
        .max(10);
    let mut text = String::new();
    for ((f, counts), name) in doc.files.iter().zip(&counts).zip(&names) {
        let file = output::fit_middle(name, room);
        let pad = room.saturating_sub(file.width());
        let tone = match f.change {
            ChangeKind::Added => Tone::Added,
            ChangeKind::Deleted => Tone::Error,
            ChangeKind::Modified => Tone::Note,
            ChangeKind::Touched => Tone::Dim,
        };
        let mark = output::paint(color, tone, &f.change.mark().to_string());
        text.push_str(&format!("{mark} {file}{}  {counts}\n", " ".repeat(pad)));
    }
    let (added, removed) = doc
        .files
        .iter()
        .fold((0, 0), |(a, r), f| (a + f.lines.0, r + f.lines.1));
    let n = doc.files.len();
    text.push_str(&format!(
        "{n} file{} changed, {added} line{} added, {removed} removed\n",
        if n == 1 { "" } else { "s" },
        if added == 1 { "" } else { "s" },
    ));
    text
}

/// `--stat` piped: `file  change  lines_added  lines_removed`, one record a file.
fn stat_records(doc: &Doc) -> String {
    let mut text = String::new();
    for f in &doc.files {
        let file = crate::text::escape_name(&f.file);
        let change = f.change.as_str();
        text.push_str(&format!("{file}\t{change}\t{}\t{}\n", f.lines.0, f.lines.1));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(kind: ChangeKind) -> Change {
        let state = |oid| history::FileState {
            oid,
            link: false,
            mtime_ns: 0,
        };
        Change {
            rel: b"a.md".to_vec(),
            kind,
            before: Some(state(gix::ObjectId::null(gix::hash::Kind::Sha1))),
            after: Some(state(gix::ObjectId::empty_blob(gix::hash::Kind::Sha1))),
        }
    }

    #[test]
    fn a_file_doc_has_the_diff_and_counts_of_its_two_ends() {
        let text_of = |f: &Option<history::FileState>, _: &[u8]| match f {
            Some(f) if f.oid.is_null() => "a\nb\n".to_string(),
            _ => "a\nc\nd\n".to_string(),
        };
        let doc = file_doc(&change(ChangeKind::Modified), false, &text_of);
        assert_eq!((doc.file.as_str(), doc.lines), ("a.md", (2, 1)));
        assert_eq!(doc.diff, Some(crate::diff::unified("a.md", "a\nb\n", "a\nc\nd\n")));
        let stat = file_doc(&change(ChangeKind::Modified), true, &text_of);
        assert_eq!((stat.diff, stat.lines), (None, (2, 1)));
        let touched = file_doc(&change(ChangeKind::Touched), false, &text_of);
        assert_eq!((touched.diff, touched.lines), (None, (0, 0)));
    }
}
