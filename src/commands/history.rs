//! `memctl history [REF] [--limit N]` (SPEC §8.3): the snapshots of the memory
//! dir (or of one memory, also a deleted one), newest first, with what changed.

use std::process::ExitCode;

use anyhow::Result;
use serde::Serialize;
use unicode_width::UnicodeWidthStr;

use crate::cli::HistoryArgs;
use crate::context::Context;
use crate::history::{self, ChangeDoc, Reader, Snap, State, Store};
use crate::output::{self, Output, Tone};

/// `history --json` (SPEC §8.3).
#[derive(Serialize)]
struct Doc {
    memory_dir: String,
    store: String,
    snapshots: Vec<SnapDoc>,
}

/// One snapshot, fields in SPEC §8.3's order.
#[derive(Serialize)]
struct SnapDoc {
    id: String,
    time: String,
    trigger: String,
    session: Option<String>,
    agent: Option<String>,
    tool: Option<String>,
    command: Option<String>,
    /// The `.consolidate-lock` mtime this snapshot recorded (null: no lock).
    lock_mtime: Option<String>,
    changes: Vec<ChangeDoc>,
    recorded_by: Option<String>,
    message: Option<String>,
    /// The store set aside as unreadable that holds this snapshot (SPEC v3 §8.1);
    /// null for the dir's own store.
    set_aside_store: Option<String>,
}

pub fn run(args: &HistoryArgs, ctx: &Context, out: &mut Output) -> Result<ExitCode> {
    let res = ctx.resolve_existing()?;
    let memdir = &res.memdir;
    let store = Store::open_existing(&ctx.history, memdir.main(), ctx.now)?;
    for w in store.warnings.clone() {
        out.warn(w);
    }
    // The snapshots of the stores set aside as unreadable come after this store's
    // (they are older), each marked with its store (SPEC v3 §8.1).
    let asides = history::aside::open_all(&ctx.history, memdir.main());
    for path in history::aside::stores(&ctx.history, memdir.main()) {
        if !asides.iter().any(|a| a.path == path && !a.snaps.is_empty()) {
            out.warn(format!(
                "an older history of this dir was set aside as unreadable: {} (no snapshot in it can be read)",
                path.display()
            ));
        }
    }
    let log = store.log()?;
    let prefix = history::scope_prefix(memdir);
    let prefix = prefix.as_bytes();
    // Without a REF or a scope only the shown snapshots and one parent are read.
    let whole = args.reference.is_some() || !prefix.is_empty();
    let states = store.states(&log, if whole { log.len() } else { args.limit.saturating_add(1) })?;
    let target = match &args.reference {
        Some(r) => {
            let mut all = states.clone();
            all.extend(asides.iter().flat_map(|a| a.snaps.iter().map(|(_, st)| st.clone())));
            Some(history::resolve_ref(memdir, r, &all, &mut |id| {
                store
                    .blob(id)
                    .ok()
                    .or_else(|| asides.iter().find_map(|a| a.blob(id).ok()))
                    .and_then(|b| history::frontmatter_name(&b))
            })?)
        }
        None => None,
    };
    let wanted = |c: &history::Change| match &target {
        Some(t) => &c.rel == t,
        None => c.rel.starts_with(prefix),
    };
    let empty = State::default();
    let mut snapshots = Vec::new();
    let mut more = 0;
    for (i, snap) in log.iter().enumerate() {
        if !whole && snapshots.len() == args.limit {
            more = log.len() - i;
            break;
        }
        let (Some(state), Some(parent)) = (
            states.get(i),
            states.get(i + 1).or(snap.parent.is_none().then_some(&empty)),
        ) else {
            break;
        };
        let changes: Vec<history::Change> = history::changes(parent, state).into_iter().filter(wanted).collect();
        if whole && changes.is_empty() {
            continue;
        }
        if snapshots.len() == args.limit {
            more += 1;
            continue;
        }
        snapshots.push(snap_doc(
            snap,
            state,
            store.change_docs(&changes, &Default::default()),
            None,
        ));
    }
    for a in &asides {
        for (snap, state) in &a.snaps {
            // A snapshot whose parent cannot be read shows no changes (they are unknown).
            let changes: Vec<history::Change> = match a.parent_state(snap) {
                Some(parent) => history::changes(&parent, state).into_iter().filter(wanted).collect(),
                None => Vec::new(),
            };
            if whole && changes.is_empty() {
                continue;
            }
            if snapshots.len() == args.limit {
                more += 1;
                continue;
            }
            let docs = changes
                .iter()
                .map(|c| history::change_doc(c, &mut |id| a.blob(id).unwrap_or_default()))
                .collect();
            snapshots.push(snap_doc(snap, state, docs, Some(a.path.display().to_string())));
        }
    }
    if more > 0 {
        out.note(format!(
            "{more} older snapshot{} not shown; --limit {} shows them",
            if more == 1 { "" } else { "s" },
            args.limit + more
        ));
    }
    let doc = Doc {
        memory_dir: res.shown(),
        store: store.path().display().to_string(),
        snapshots,
    };
    drop(store);
    if out.json {
        out.emit_json(serde_json::to_value(&doc)?)?;
    } else if out.stdout_tty {
        let text = render_log(&doc, ctx.now.timestamp(), output::terminal_width(), out.color_stdout);
        out.print(&text)?;
    } else {
        out.print(&render_records(&doc)?)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn snap_doc(snap: &Snap, state: &State, changes: Vec<ChangeDoc>, set_aside_store: Option<String>) -> SnapDoc {
    let t = |k: &str| snap.trailer(k).map(str::to_string);
    SnapDoc {
        id: snap.short(),
        time: time_iso(snap.time),
        trigger: snap.trigger().to_string(),
        session: t("Session"),
        agent: t("Agent"),
        tool: t("Tool"),
        command: t("Command"),
        lock_mtime: state
            .lock
            .as_ref()
            .map(|l| crate::text::iso_ms((l.mtime_ns / 1_000_000) as f64)),
        changes,
        recorded_by: t("Recorded-By"),
        message: snap.message.clone(),
        set_aside_store,
    }
}

fn time_iso(secs: i64) -> String {
    crate::text::iso_ms(secs as f64 * 1000.0)
}

/// Piped: one tab-separated record per snapshot, the JSON fields in order (the
/// changes as compact JSON, where a file name's control characters are JSON
/// escapes), `-` for null; a tab, newline or other control character inside a
/// field is escaped (`\t`, `\n`; SPEC v3 §3.14), so a record stays one line.
fn render_records(doc: &Doc) -> Result<String> {
    let mut text = String::new();
    for s in &doc.snapshots {
        let field = |v: &Option<String>| v.as_deref().map(flat).unwrap_or_else(|| "-".into());
        let fields = [
            s.id.clone(),
            s.time.clone(),
            flat(&s.trigger),
            field(&s.session),
            field(&s.agent),
            field(&s.tool),
            field(&s.command),
            field(&s.lock_mtime),
            serde_json::to_string(&s.changes)?,
            field(&s.recorded_by),
            field(&s.message),
            field(&s.set_aside_store),
        ];
        text.push_str(&fields.join("\t"));
        text.push('\n');
    }
    Ok(text)
}

fn flat(s: &str) -> String {
    crate::text::escape_controls(s).into_owned()
}

/// On a terminal: per snapshot a header line (id, time and age, trigger, who
/// recorded it), the message, and one line per changed file with its counts.
fn render_log(doc: &Doc, now: i64, width: usize, color: bool) -> String {
    let width = width.max(40);
    let mut text = String::new();
    if doc.snapshots.is_empty() {
        return "no snapshots\n".into();
    }
    for (n, s) in doc.snapshots.iter().enumerate() {
        if n > 0 {
            text.push('\n');
        }
        let when = parse_secs(&s.time).map_or_else(
            || s.time.clone(),
            |t| {
                format!(
                    "{} ({})",
                    chrono::DateTime::from_timestamp(t, 0)
                        .map(|d| d.format("%Y-%m-%d %H:%M UTC").to_string())
                        .unwrap_or_default(),
                    ago(now - t)
                )
            },
        );
        let mut details = Vec::new();
        if let Some(by) = s.recorded_by.as_deref().filter(|b| *b != s.trigger) {
            details.push(format!("recorded by {by}"));
        }
        for (label, v) in [
            ("session", &s.session),
            ("agent", &s.agent),
            ("tool", &s.tool),
            ("command", &s.command),
        ] {
            if let Some(v) = v {
                details.push(format!("{label} {}", flat(v)));
            }
        }
        let mut head = format!("{}  {when}  {}", s.id, s.trigger);
        if !details.is_empty() {
            head.push_str(&format!("  {}", details.join(", ")));
        }
        let head = output::fit_end(&head, width);
        let (id, rest) = head.split_at(s.id.len().min(head.len()));
        text.push_str(&output::paint(color, Tone::Warning, id));
        text.push_str(&output::paint(color, Tone::Bold, rest));
        text.push('\n');
        if let Some(store) = &s.set_aside_store {
            let from = format!("    from the history store set aside as unreadable: {store}");
            text.push_str(&output::paint(color, Tone::Dim, &output::fit_end(&from, width)));
            text.push('\n');
        }
        if let Some(m) = &s.message {
            for line in m.lines() {
                for w in output::wrap(line, width - 4) {
                    text.push_str(&format!("    {w}\n"));
                }
            }
        }
        if s.changes.is_empty() {
            let lock = if s.lock_mtime.is_some() {
                "the consolidation lock changed"
            } else {
                "the consolidation lock was removed"
            };
            text.push_str(&format!("  {}\n", output::paint(color, Tone::Dim, lock)));
        }
        let counts: Vec<String> = s
            .changes
            .iter()
            .map(|c| match c.change {
                history::ChangeKind::Touched => "mtime only".to_string(),
                _ => format!("+{} -{}", c.lines_added, c.lines_removed),
            })
            .collect();
        let longest_count = counts.iter().map(String::len).max().unwrap_or(0);
        // A newline or a terminal escape in a name is shown escaped.
        let names: Vec<String> = s
            .changes
            .iter()
            .map(|c| crate::text::escape_name(&c.file).into_owned())
            .collect();
        let longest_file = names.iter().map(|f| f.width()).max().unwrap_or(0);
        let room = longest_file.min(width.saturating_sub(6 + longest_count)).max(10);
        for ((c, counts), name) in s.changes.iter().zip(&counts).zip(&names) {
            let file = output::fit_middle(name, room);
            let pad = room.saturating_sub(file.width());
            let tone = match c.change {
                history::ChangeKind::Added => Tone::Added,
                history::ChangeKind::Deleted => Tone::Error,
                history::ChangeKind::Modified => Tone::Note,
                history::ChangeKind::Touched => Tone::Dim,
            };
            let mark = output::paint(color, tone, &c.change.mark().to_string());
            text.push_str(&format!("  {mark} {file}{}  {counts}\n", " ".repeat(pad)));
        }
    }
    text
}

fn parse_secs(iso: &str) -> Option<i64> {
    chrono::DateTime::parse_from_rfc3339(iso).ok().map(|t| t.timestamp())
}

/// A past span in words: `just now`, `5 min ago`, `3 h ago`, `2 days ago`.
fn ago(secs: i64) -> String {
    match secs {
        s if s < 60 => "just now".into(),
        s if s < 3600 => format!("{} min ago", s / 60),
        s if s < 86_400 => format!("{} h ago", s / 3600),
        s if s < 2 * 86_400 => "1 day ago".into(),
        s => format!("{} days ago", s / 86_400),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_in_words() {
        assert_eq!(ago(-5), "just now");
        assert_eq!(ago(59), "just now");
        assert_eq!(ago(61), "1 min ago");
        assert_eq!(ago(3 * 3600 + 5), "3 h ago");
        assert_eq!(ago(86_400), "1 day ago");
        assert_eq!(ago(5 * 86_400), "5 days ago");
    }
}
