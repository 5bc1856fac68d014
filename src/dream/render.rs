//! The text form of `dream --dry-run` (SPEC §3.11): the gate table, the verdict and
//! the four phases of the plan, rendered from the report's fields.

use std::fmt::Write;

use super::DryRun;
use super::gates::GateName;
use super::plan::{Consolidate, Gather, IndexFinding, Orient, PruneAndIndex};
use crate::text::group_digits;

/// The whole text report: a summary first, then the gates and the four phases.
/// On a terminal (`width`) the gate table's details wrap under their column and
/// each list shows its first [`TERMINAL_LIST`] items, then `… N more` (issue 34
/// point 9: a 108-line index printed ~250 lines); piped output and `--json` keep
/// every item.
pub fn render_text(d: &DryRun, width: Option<usize>) -> String {
    let mut s = String::new();
    summary(&mut s, d, width);
    gates(&mut s, d, width);
    orient(&mut s, &d.plan.orient);
    gather(&mut s, &d.plan.gather, width);
    consolidate(&mut s, &d.plan.consolidate, width);
    prune_and_index(&mut s, &d.plan.prune_and_index, width);
    s
}

/// The most items a list shows on a terminal.
pub const TERMINAL_LIST: usize = 5;

/// The verdict, the index against its caps, and the count of each finding of the
/// plan (the lists follow, in their phases).
fn summary(s: &mut String, d: &DryRun, width: Option<usize>) {
    let p = &d.plan;
    let caps = &p.prune_and_index.caps;
    let _ = writeln!(s, "auto-dream for {}", d.memory_dir);
    s.push_str(&crate::output::hang(
        "summary: ",
        &format!(
            "{}; MEMORY.md {} of 200 lines, {} of 25 000 units{}",
            d.verdict.as_str(),
            caps.line_count(),
            group_digits(caps.unit_count() as i64),
            if caps.truncated() {
                format!(", {} entries not loaded", caps.dropped_total())
            } else {
                String::new()
            }
        ),
        width,
    ));
    let counts: Vec<String> = [
        (
            p.prune_and_index.dangling.len(),
            "dangling index line",
            "dangling index lines",
        ),
        (p.prune_and_index.unindexed.len(), "unindexed file", "unindexed files"),
        (
            p.prune_and_index.long_lines.len(),
            "long index line",
            "long index lines",
        ),
        (
            p.prune_and_index.duplicate_targets.len(),
            "duplicate target",
            "duplicate targets",
        ),
        (
            p.prune_and_index.near_caps.len(),
            "finding near the caps",
            "findings near the caps",
        ),
        (p.consolidate.relative_dates.len(), "relative date", "relative dates"),
        (
            p.consolidate.duplicate_clusters.len(),
            "duplicate cluster",
            "duplicate clusters",
        ),
        (p.consolidate.superseded.len(), "superseded fact", "superseded facts"),
        (
            p.gather.missing_citations.len(),
            "cited file not found",
            "cited files not found",
        ),
    ]
    .into_iter()
    .filter(|(n, _, _)| *n > 0)
    .map(|(n, one, many)| plural(n, one, many))
    .collect();
    let found = if counts.is_empty() {
        "nothing to fix".to_string()
    } else {
        counts.join(", ")
    };
    s.push_str(&crate::output::hang("  to review: ", &found, width));
    if width.is_some() && !counts.is_empty() {
        let _ = writeln!(
            s,
            "  (lists below show {TERMINAL_LIST} items each; `memctl dream --json` or a pipe shows all)"
        );
    }
    s.push('\n');
}

/// How many items of a list to show: all when piped, [`TERMINAL_LIST`] on a terminal.
fn cap(width: Option<usize>) -> usize {
    width.map_or(usize::MAX, |_| TERMINAL_LIST)
}

/// One item of a list, indented 4; on a terminal wrapped to `width`, its
/// further lines indented 6.
fn item(s: &mut String, text: &str, width: Option<usize>) {
    let wrapped = crate::output::hang("    ", text, width.map(|w| w.saturating_sub(2)));
    for (i, l) in wrapped.lines().enumerate() {
        if i > 0 {
            s.push_str("  ");
        }
        s.push_str(l);
        s.push('\n');
    }
}

/// `    … N more` after the items shown of a list of `total`.
fn more(s: &mut String, total: usize, width: Option<usize>) {
    if total > cap(width) {
        let _ = writeln!(s, "    … {} more", total - cap(width));
    }
}

fn gates(s: &mut String, d: &DryRun, width: Option<usize>) {
    s.push_str("Claude Code dreams only in interactive sessions: `claude -p` and SDK never do.\n");
    let source = match d.tail.thresholds_source {
        super::ThresholdsSource::Options => "options",
        super::ThresholdsSource::Flag => "cached flag",
        super::ThresholdsSource::Default => "defaults",
    };
    let _ = write!(
        s,
        "thresholds: {} h, {} sessions ({source})\ngates:\n",
        crate::text::js_number(d.min_hours),
        crate::text::js_number(d.min_sessions)
    );
    for gate in &d.gates {
        let prefix = format!("  {:<14} {:<8} ", gate.gate.as_str(), gate.status.as_str());
        s.push_str(&crate::output::hang(&prefix, &gate.detail, width));
        if gate.gate == GateName::Sessions {
            // One column per field, as wide as its widest entry.
            let rows: Vec<(&str, String, &str)> = d
                .sessions
                .iter()
                .map(|x| {
                    let m = x.mtime().map_or_else(|| "-".to_string(), |m| m.to_string());
                    (x.name.as_str(), m, x.reason.as_str())
                })
                .collect();
            let w = rows.iter().map(|r| r.0.chars().count()).max().unwrap_or(0);
            let wm = rows.iter().map(|r| r.1.chars().count()).max().unwrap_or(0);
            let total = rows.len();
            for (name, m, reason) in rows.into_iter().take(cap(width)) {
                let _ = writeln!(s, "      {name:<w$}  {m:<wm$}  {reason}");
            }
            if total > cap(width) {
                let _ = writeln!(s, "      … {} more", total - cap(width));
            }
        }
    }
    let _ = writeln!(s, "verdict: {}", d.verdict.as_str());
    if let Some(l) = &d.log_line {
        let _ = writeln!(s, "log: {l}");
    }
}

fn orient(s: &mut String, o: &Orient) {
    let t = &o.by_type;
    s.push_str("\nPhase 1 — Orient\n");
    let _ = writeln!(
        s,
        "  {}: {} user, {} feedback, {} project, {} reference, {} untyped\n    ({} typed only under metadata:)",
        plural(o.topic_files, "topic file", "topic files"),
        t.user,
        t.feedback,
        t.project,
        t.reference,
        t.untyped,
        t.nested_only
    );
    // The file's own line count, then the caps' counts, which Claude Code takes
    // after trimming (so they can differ): two statements, two lines.
    let _ = writeln!(
        s,
        "  MEMORY.md: {} on {}\n    caps, after trimming: {} of 200 lines, {} of 25 000 units",
        plural(o.index_links, "memory link", "memory links"),
        plural(o.index_lines, "line", "lines"),
        o.index_line_count,
        group_digits(o.index_units as i64)
    );
    if o.sessions_dir {
        s.push_str("  sessions/: present (the dream reviews it in Phase 1)\n");
    }
    if let (Some(n), Some(old)) = (&o.newest, &o.oldest) {
        let _ = writeln!(
            s,
            "  newest: {} ({})\n  oldest: {} ({})",
            n.file, n.mtime, old.file, old.mtime
        );
    }
    match o.last_consolidated_at {
        Some(t) => {
            let _ = writeln!(s, "  last consolidated: {t}");
        }
        None => s.push_str("  last consolidated: never\n"),
    }
}

fn gather(s: &mut String, g: &Gather, width: Option<usize>) {
    s.push_str("\nPhase 2 — Gather recent signal\n");
    let _ = writeln!(
        s,
        "  sessions since the last consolidation ({}), in\n    {}",
        g.sessions.len(),
        g.transcripts_dir.as_deref().unwrap_or("(no project)")
    );
    for x in g.sessions.iter().take(cap(width)) {
        let mtime = x.mtime.map(|m| m.to_string()).unwrap_or_default();
        let _ = writeln!(s, "    - {}  {mtime}", x.id.as_deref().unwrap_or(""));
    }
    more(s, g.sessions.len(), width);
    capped_section(
        s,
        "cited files not found",
        &g.missing_citations,
        |v| &v.file,
        |v| format!("{}:{}: {}", v.file, v.line, v.path),
        width,
    );
}

fn consolidate(s: &mut String, c: &Consolidate, width: Option<usize>) {
    s.push_str("\nPhase 3 — Consolidate\n");
    section(s, "relative dates", &c.relative_dates, width, |v| {
        let sug = v.suggestion.as_ref().map_or_else(
            || "write the absolute date".to_string(),
            |d| format!("→ {d} (from {})", v.based_on.as_str()),
        );
        format!("{}:{}:{}: `{}` {sug}", v.file, v.line, v.col, v.phrase)
    });
    section(s, "duplicate clusters", &c.duplicate_clusters, width, |v| {
        let files = v.files.join(", ");
        if v.lines.is_empty() {
            format!("{}: {files}", v.reason)
        } else {
            let lines: Vec<String> = v.lines.iter().map(usize::to_string).collect();
            format!("{}: {files} on MEMORY.md lines {}", v.reason, lines.join(", "))
        }
    });
    section(s, "superseded", &c.superseded, width, |v| {
        format!("{}:{}: {}", v.file, v.line, v.detail)
    });
}

fn prune_and_index(s: &mut String, p: &PruneAndIndex, width: Option<usize>) {
    s.push_str("\nPhase 4 — Prune and index\n");
    let f = |v: &IndexFinding| format!("{}:{}: {}", v.file.as_deref().unwrap_or("-"), v.line, v.message);
    section(s, "dangling index lines", &p.dangling, width, f);
    section(s, "unindexed files", &p.unindexed, width, f);
    section(s, "long index lines", &p.long_lines, width, f);
    let truncated = if p.caps.truncated() {
        format!("; truncated, {} entries dropped", p.caps.dropped_total())
    } else {
        String::new()
    };
    let _ = writeln!(
        s,
        "  caps: {} / 200 lines, {} / 25 000 units{truncated}",
        p.caps.line_count(),
        group_digits(p.caps.unit_count() as i64)
    );
    section(s, "near the caps", &p.near_caps, width, f);
    section(s, "duplicate targets", &p.duplicate_targets, width, f);
}

/// `1 line`, `2 lines`.
fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{} {}", group_digits(n as i64), if n == 1 { one } else { many })
}

/// The most items of one memory a capped section lists.
pub const CAP_PER_FILE: usize = 20;

/// As [`section`], listing at most [`CAP_PER_FILE`] items of one file, then `… and
/// N more in FILE` (the JSON lists them all); on a terminal (`width`) as
/// [`section`] does.
fn capped_section<T>(
    s: &mut String,
    title: &str,
    items: &[T],
    file: impl Fn(&T) -> &str,
    line: impl Fn(&T) -> String,
    width: Option<usize>,
) {
    if items.is_empty() {
        let _ = writeln!(s, "  {title}: none");
        return;
    }
    let _ = writeln!(s, "  {title} ({}):", items.len());
    if width.is_some() {
        for v in items.iter().take(cap(width)) {
            item(s, &line(v), width);
        }
        more(s, items.len(), width);
        return;
    }
    let mut k = 0;
    while k < items.len() {
        let f = file(&items[k]);
        let n = items[k..].iter().take_while(|v| file(v) == f).count();
        for v in &items[k..k + n.min(CAP_PER_FILE)] {
            let _ = writeln!(s, "    {}", line(v));
        }
        if n > CAP_PER_FILE {
            let _ = writeln!(s, "    … and {} more in {f}", n - CAP_PER_FILE);
        }
        k += n;
    }
}

/// `  title: none`, or `  title (n):` and one indented line per item (on a
/// terminal the first [`TERMINAL_LIST`], wrapped to `width`, then `… N more`).
fn section<T>(s: &mut String, title: &str, items: &[T], width: Option<usize>, line: impl Fn(&T) -> String) {
    if items.is_empty() {
        let _ = writeln!(s, "  {title}: none");
        return;
    }
    let _ = writeln!(s, "  {title} ({}):", items.len());
    for v in items.iter().take(cap(width)) {
        item(s, &line(v), width);
    }
    more(s, items.len(), width);
}
