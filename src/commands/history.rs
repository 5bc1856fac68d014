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
    let asides = open_asides(ctx, memdir.main(), out);
    let log = store.log()?;
    let prefix = history::scope_prefix(memdir);
    let prefix = prefix.as_bytes();
    // Without a REF or a scope only the shown snapshots and one parent are read.
    let whole = args.reference.is_some() || !prefix.is_empty();
    let states = store.states(&log, if whole { log.len() } else { args.limit.saturating_add(1) })?;
    let target = match &args.reference {
        Some(r) => Some(target(memdir, r, &store, &states, &asides)?),
        None => None,
    };
    let wanted = |c: &history::Change| match &target {
        Some(t) => &c.rel == t,
        None => c.rel.starts_with(prefix),
    };
    let mut listing = Listing {
        limit: args.limit,
        whole,
        snapshots: Vec::new(),
        more: 0,
    };
    listing.add_store(&store, &log, &states, &wanted);
    listing.add_asides(&asides, &wanted);
    if listing.more > 0 {
        out.note(more_note(listing.more, args.limit));
    }
    let doc = Doc {
        memory_dir: res.shown(),
        store: store.path().display().to_string(),
        snapshots: listing.snapshots,
    };
    drop(store);
    emit(&doc, ctx, out)
}

/// The stores set aside as unreadable: their snapshots come after this store's
/// (they are older), each marked with its store (SPEC v3 §8.1). One with no
/// readable snapshot is named in a warning.
fn open_asides(ctx: &Context, main: &std::path::Path, out: &mut Output) -> Vec<history::aside::Aside> {
    let asides = history::aside::open_all(&ctx.history, main);
    for path in history::aside::stores(&ctx.history, main) {
        if !asides.iter().any(|a| a.path == path && !a.snaps.is_empty()) {
            out.warn(format!(
                "an older history of this dir was set aside as unreadable: {} (no snapshot in it can be read)",
                path.display()
            ));
        }
    }
    asides
}

/// The store path of the memory `reference` names, among this store's states
/// and those of the stores set aside.
fn target(
    memdir: &crate::memdir::MemoryDir,
    reference: &str,
    store: &Store,
    states: &[State],
    asides: &[history::aside::Aside],
) -> Result<Vec<u8>, crate::error::Error> {
    let mut all = states.to_vec();
    all.extend(asides.iter().flat_map(|a| a.snaps.iter().map(|(_, st)| st.clone())));
    history::resolve_ref(memdir, reference, &all, &mut |id| {
        store
            .blob(id)
            .ok()
            .or_else(|| asides.iter().find_map(|a| a.blob(id).ok()))
            .and_then(|b| history::frontmatter_name(&b))
    })
}

/// The snapshots shown, at most `limit`, and how many more there are.
struct Listing {
    limit: usize,
    /// With a REF or a scope: every snapshot is read, and only those that
    /// changed something wanted are shown.
    whole: bool,
    snapshots: Vec<SnapDoc>,
    more: usize,
}

impl Listing {
    /// Whether a snapshot that made `changes` is shown (else it is skipped, or
    /// counted among the `more` past the limit).
    fn admits(&mut self, changes: &[history::Change]) -> bool {
        if self.whole && changes.is_empty() {
            return false;
        }
        if self.snapshots.len() == self.limit {
            self.more += 1;
            return false;
        }
        true
    }

    /// This store's snapshots, newest first, each with its changes from its parent.
    fn add_store(&mut self, store: &Store, log: &[Snap], states: &[State], wanted: &dyn Fn(&history::Change) -> bool) {
        let empty = State::default();
        for (i, snap) in log.iter().enumerate() {
            if !self.whole && self.snapshots.len() == self.limit {
                self.more = log.len() - i;
                break;
            }
            let (Some(state), Some(parent)) = (
                states.get(i),
                states.get(i + 1).or(snap.parent.is_none().then_some(&empty)),
            ) else {
                break;
            };
            let changes: Vec<history::Change> = history::changes(parent, state).into_iter().filter(wanted).collect();
            if self.admits(&changes) {
                let docs = store.change_docs(&changes, &Default::default());
                self.snapshots.push(snap_doc(snap, state, docs, None));
            }
        }
    }

    /// The snapshots of the stores set aside, each marked with its store.
    fn add_asides(&mut self, asides: &[history::aside::Aside], wanted: &dyn Fn(&history::Change) -> bool) {
        for a in asides {
            for (snap, state) in &a.snaps {
                // A snapshot whose parent cannot be read shows no changes (they are unknown).
                let changes: Vec<history::Change> = match a.parent_state(snap) {
                    Some(parent) => history::changes(&parent, state).into_iter().filter(wanted).collect(),
                    None => Vec::new(),
                };
                if !self.admits(&changes) {
                    continue;
                }
                let docs = changes
                    .iter()
                    .map(|c| history::change_doc(c, &mut |id| a.blob(id).unwrap_or_default()))
                    .collect();
                self.snapshots
                    .push(snap_doc(snap, state, docs, Some(a.path.display().to_string())));
            }
        }
    }
}

/// The note on the snapshots past `--limit`.
fn more_note(more: usize, limit: usize) -> String {
    format!(
        "{more} older snapshot{} not shown; --limit {} shows them",
        if more == 1 { "" } else { "s" },
        limit + more
    )
}

/// The report: JSON, the log on a terminal, else one record per snapshot.
fn emit(doc: &Doc, ctx: &Context, out: &mut Output) -> Result<ExitCode> {
    if out.json {
        out.emit_json(serde_json::to_value(doc)?)?;
    } else if out.stdout_tty {
        let text = render_log(doc, ctx.now.timestamp(), output::terminal_width(), out.color_stdout);
        out.print(&text)?;
    } else {
        out.print(&render_records(doc)?)?;
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
        text.push_str(&render_head(s, now, width, color));
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
        text.push_str(&render_changes(&s.changes, width, color));
    }
    text
}

/// A snapshot's header line: its id, time and age, trigger, and who recorded it
/// (cut to `width`).
fn render_head(s: &SnapDoc, now: i64, width: usize, color: bool) -> String {
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
    format!(
        "{}{}\n",
        output::paint(color, Tone::Warning, id),
        output::paint(color, Tone::Bold, rest)
    )
}

/// One line per changed file: its mark, its name (cut in the middle to fit) and
/// its line counts, aligned.
fn render_changes(changes: &[ChangeDoc], width: usize, color: bool) -> String {
    let counts: Vec<String> = changes
        .iter()
        .map(|c| match c.change {
            history::ChangeKind::Touched => "mtime only".to_string(),
            _ => format!("+{} -{}", c.lines_added, c.lines_removed),
        })
        .collect();
    let longest_count = counts.iter().map(String::len).max().unwrap_or(0);
    // A newline or a terminal escape in a name is shown escaped.
    let names: Vec<String> = changes
        .iter()
        .map(|c| crate::text::escape_name(&c.file).into_owned())
        .collect();
    let longest_file = names.iter().map(|f| f.width()).max().unwrap_or(0);
    let room = longest_file.min(width.saturating_sub(6 + longest_count)).max(10);
    let mut text = String::new();
    for ((c, counts), name) in changes.iter().zip(&counts).zip(&names) {
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

    fn snap(trigger: &str) -> SnapDoc {
        SnapDoc {
            id: "0123abcd".into(),
            time: "2026-03-10T12:00:00.000Z".into(),
            trigger: trigger.into(),
            session: None,
            agent: None,
            tool: Some("Write\tx".into()),
            command: None,
            lock_mtime: None,
            changes: Vec::new(),
            recorded_by: Some("hook".into()),
            message: None,
            set_aside_store: None,
        }
    }

    #[test]
    fn the_listing_shows_up_to_the_limit_and_counts_the_rest() {
        let change = history::Change {
            rel: b"a.md".to_vec(),
            kind: history::ChangeKind::Added,
            before: None,
            after: None,
        };
        let mut l = Listing {
            limit: 1,
            whole: true,
            snapshots: Vec::new(),
            more: 0,
        };
        assert!(
            !l.admits(&[]),
            "with a REF, a snapshot that changed nothing wanted is skipped"
        );
        assert!(l.admits(std::slice::from_ref(&change)));
        l.snapshots.push(snap("claude"));
        assert!(!l.admits(std::slice::from_ref(&change)));
        assert!(!l.admits(&[]));
        assert_eq!(l.more, 1);
        l.whole = false;
        assert!(!l.admits(&[]));
        assert_eq!(l.more, 2);
        assert_eq!(more_note(1, 20), "1 older snapshot not shown; --limit 21 shows them");
        assert_eq!(more_note(3, 2), "3 older snapshots not shown; --limit 5 shows them");
    }

    #[test]
    fn the_head_line_names_time_age_trigger_and_who_recorded() {
        let now = 1_773_144_000 + 7200;
        let head = render_head(&snap("claude"), now, 200, false);
        assert_eq!(
            head,
            "0123abcd  2026-03-10 12:00 UTC (2 h ago)  claude  recorded by hook, tool Write\\tx\n"
        );
        let mut same = snap("hook");
        same.tool = None;
        assert_eq!(
            render_head(&same, now, 200, false),
            "0123abcd  2026-03-10 12:00 UTC (2 h ago)  hook\n"
        );
        assert!(render_head(&snap("claude"), now, 40, false).chars().count() <= 41);
    }

    #[test]
    fn changed_files_are_aligned_with_their_counts() {
        // Names get at least 10 columns.
        let doc = |file: &str, change, lines_added, lines_removed| ChangeDoc {
            file: file.into(),
            change,
            lines_added,
            lines_removed,
        };
        let changes = [
            doc("a.md", history::ChangeKind::Added, 3, 0),
            doc("longer.md", history::ChangeKind::Touched, 0, 0),
        ];
        assert_eq!(
            render_changes(&changes, 80, false),
            "  + a.md        +3 -0\n  t longer.md   mtime only\n"
        );
    }
}
