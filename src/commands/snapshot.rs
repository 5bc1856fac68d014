//! `memctl snapshot [-m TEXT]` (SPEC §8.2): record the memory dir now.

use std::process::ExitCode;

use anyhow::Result;
use serde::Serialize;

use crate::cli::SnapshotArgs;
use crate::context::Context;
use crate::error::{Error, Kind};
use crate::history::{self, ChangeDoc, Store};
use crate::output::Output;

/// `snapshot --json` (SPEC §8.3).
#[derive(Serialize)]
struct Doc {
    /// The new snapshot's id; null when nothing changed.
    id: Option<String>,
    trigger: Option<&'static str>,
    changes: Vec<ChangeDoc>,
    message: Option<String>,
}

pub fn run(args: &SnapshotArgs, ctx: &Context, out: &mut Output) -> Result<ExitCode> {
    // SPEC §3.14: `--all-projects` is an option of `snapshot` too.
    if args.all_projects {
        return crate::projects::each::run(ctx, out, |ctx, out| run_one(args, ctx, out));
    }
    run_one(args, ctx, out)
}

fn run_one(args: &SnapshotArgs, ctx: &Context, out: &mut Output) -> Result<ExitCode> {
    let res = ctx.resolve_main_existing()?;
    let main = res.memdir.main();
    ensure_recordable(ctx, main, &res.shown())?;
    // Under the write lock: a memctl write in progress is recorded as its own.
    let _lock = crate::store::lock(main)?;
    let project = ctx.recording("snapshot", &res).project;
    let mut store = Store::open(&ctx.history, main, project.as_deref(), true, ctx.now)?
        .ok_or_else(|| Error::new(Kind::HistoryOff, "history is off"))?;
    let req = history::Request {
        trigger: None,
        recorded_by: "snapshot",
        message: args.message.as_deref(),
        details: &[],
        claude: false,
        now: ctx.now,
    };
    let recorded = store.snapshot(main, &req)?;
    for w in std::mem::take(&mut store.warnings) {
        out.warn(w);
    }
    note_torn(&store, out);
    let doc = match &recorded {
        Some(r) => Doc {
            id: Some(r.id.to_hex_with_len(8).to_string()),
            trigger: Some(r.trigger.as_str()),
            changes: store.change_docs(&r.changes, &Default::default()),
            message: args.message.clone().filter(|m| !m.trim().is_empty()),
        },
        None => Doc {
            id: None,
            trigger: None,
            changes: Vec::new(),
            message: None,
        },
    };
    let head = store.head_id().map(|h| h.to_hex_with_len(8).to_string());
    emit(&doc, head.as_deref(), out)
}

/// A snapshot needs history on and the memory dir there.
fn ensure_recordable(ctx: &Context, main: &std::path::Path, shown: &str) -> Result<(), Error> {
    if !ctx.history.is_on() {
        return Err(Error::new(Kind::HistoryOff, "history is off")
            .hint("unset MEMCTL_HISTORY and drop --no-history to record snapshots"));
    }
    if !main.is_dir() {
        return Err(Error::new(Kind::NotFound, format!("no memory dir yet: {shown}"))
            .hint("Claude Code creates it on the first save; there is nothing to record"));
    }
    Ok(())
}

/// An index that shrank within the last second may be another program's
/// half-write: kept as last recorded (unsettled, SPEC v3 §8.1), so "nothing
/// changed" alone would hide that it did change.
fn note_torn(store: &Store, out: &mut Output) {
    let mut torn: Vec<String> = store
        .torn
        .keys()
        .map(|k| String::from_utf8_lossy(k).into_owned())
        .collect();
    torn.sort();
    for rel in torn {
        out.note(format!(
            "{} shrank within the last second (another program may be rewriting it): kept as last recorded; it is recorded once it settles",
            crate::text::escape_name(&rel)
        ));
    }
}

/// The report: JSON; piped, one record for the snapshot taken, the JSON fields
/// in order (SPEC §3.13), none when nothing changed (said on stderr); else
/// [`render`]. `head`: the newest snapshot's short id.
fn emit(doc: &Doc, head: Option<&str>, out: &mut Output) -> Result<ExitCode> {
    if out.json {
        out.emit_json(serde_json::to_value(doc)?)?;
    } else if !out.stdout_tty {
        match (&doc.id, head) {
            (Some(_), _) => out.print(&crate::output::record(&serde_json::to_value(doc)?))?,
            (None, Some(head)) => out.note(format!("nothing changed since {head}")),
            (None, None) => out.note("nothing to record"),
        }
    } else {
        out.print(&render(doc, head))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// On a terminal: the snapshot recorded and its changes, or that nothing changed.
fn render(doc: &Doc, head: Option<&str>) -> String {
    match (&doc.id, head) {
        (Some(id), _) => {
            let mut text = format!("recorded {id} ({})", doc.trigger.unwrap_or_default());
            if doc.changes.is_empty() {
                text.push_str(": the consolidation lock changed");
            }
            text.push('\n');
            for c in &doc.changes {
                text.push_str(&format!(
                    "  {} {}  (+{} -{})\n",
                    c.change.mark(),
                    crate::text::escape_name(&c.file),
                    c.lines_added,
                    c.lines_removed
                ));
            }
            text
        }
        (None, Some(head)) => format!("nothing changed since {head}\n"),
        (None, None) => "nothing to record\n".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_terminal_report_names_the_snapshot_and_its_changes() {
        let mut doc = Doc {
            id: Some("0123abcd".into()),
            trigger: Some("external"),
            changes: Vec::new(),
            message: None,
        };
        assert_eq!(
            render(&doc, Some("0123abcd")),
            "recorded 0123abcd (external): the consolidation lock changed\n"
        );
        doc.changes.push(ChangeDoc {
            file: "a\nb.md".into(),
            change: history::ChangeKind::Modified,
            lines_added: 2,
            lines_removed: 1,
        });
        assert_eq!(
            render(&doc, Some("0123abcd")),
            "recorded 0123abcd (external)\n  ~ a\\nb.md  (+2 -1)\n"
        );
        doc.id = None;
        assert_eq!(render(&doc, Some("89abcdef")), "nothing changed since 89abcdef\n");
        assert_eq!(render(&doc, None), "nothing to record\n");
    }
}
