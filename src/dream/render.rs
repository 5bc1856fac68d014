//! The text form of `dream --dry-run` (SPEC §3.11): the gate table, the verdict and
//! the four phases of the plan, rendered from the report's fields.

use std::fmt::Write;

use super::DryRun;
use super::gates::GateName;
use super::plan::{Consolidate, Gather, IndexFinding, Orient, PruneAndIndex};
use crate::text::group_digits;

/// The whole text report; on a terminal (`width`) the gate table's details wrap
/// under their column.
pub fn render_text(d: &DryRun, width: Option<usize>) -> String {
    let mut s = String::new();
    gates(&mut s, d, width);
    orient(&mut s, &d.plan.orient);
    gather(&mut s, &d.plan.gather);
    consolidate(&mut s, &d.plan.consolidate);
    prune_and_index(&mut s, &d.plan.prune_and_index);
    s
}

fn gates(s: &mut String, d: &DryRun, width: Option<usize>) {
    let _ = write!(
        s,
        "auto-dream for {}\nClaude Code dreams only in interactive sessions: `claude -p` and SDK never do.\n",
        d.memory_dir
    );
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
            for (name, m, reason) in rows {
                let _ = writeln!(s, "      {name:<w$}  {m:<wm$}  {reason}");
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

fn gather(s: &mut String, g: &Gather) {
    s.push_str("\nPhase 2 — Gather recent signal\n");
    let _ = writeln!(
        s,
        "  sessions since the last consolidation ({}), in\n    {}",
        g.sessions.len(),
        g.transcripts_dir.as_deref().unwrap_or("(no project)")
    );
    for x in &g.sessions {
        let mtime = x.mtime.map(|m| m.to_string()).unwrap_or_default();
        let _ = writeln!(s, "    - {}  {mtime}", x.id.as_deref().unwrap_or(""));
    }
    capped_section(
        s,
        "cited files not found",
        &g.missing_citations,
        |v| &v.file,
        |v| format!("{}:{}: {}", v.file, v.line, v.path),
    );
}

fn consolidate(s: &mut String, c: &Consolidate) {
    s.push_str("\nPhase 3 — Consolidate\n");
    section(s, "relative dates", &c.relative_dates, |v| {
        let sug = v.suggestion.as_ref().map_or_else(
            || "write the absolute date".to_string(),
            |d| format!("→ {d} (from {})", v.based_on.as_str()),
        );
        format!("{}:{}:{}: `{}` {sug}", v.file, v.line, v.col, v.phrase)
    });
    section(s, "duplicate clusters", &c.duplicate_clusters, |v| {
        let files = v.files.join(", ");
        if v.lines.is_empty() {
            format!("{}: {files}", v.reason)
        } else {
            let lines: Vec<String> = v.lines.iter().map(usize::to_string).collect();
            format!("{}: {files} on MEMORY.md lines {}", v.reason, lines.join(", "))
        }
    });
    section(s, "superseded", &c.superseded, |v| {
        format!("{}:{}: {}", v.file, v.line, v.detail)
    });
}

fn prune_and_index(s: &mut String, p: &PruneAndIndex) {
    s.push_str("\nPhase 4 — Prune and index\n");
    let f = |v: &IndexFinding| format!("{}:{}: {}", v.file.as_deref().unwrap_or("-"), v.line, v.message);
    section(s, "dangling index lines", &p.dangling, f);
    section(s, "unindexed files", &p.unindexed, f);
    section(s, "long index lines", &p.long_lines, f);
    let load = p.caps.load();
    let truncated = if load.truncated() {
        format!("; truncated, {} entries dropped", p.caps.dropped_total())
    } else {
        String::new()
    };
    let _ = writeln!(
        s,
        "  caps: {} / 200 lines, {} / 25 000 units{truncated}",
        load.line_count,
        group_digits(load.unit_count as i64)
    );
    section(s, "near the caps", &p.near_caps, f);
    section(s, "duplicate targets", &p.duplicate_targets, f);
}

/// `1 line`, `2 lines`.
fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{} {}", group_digits(n as i64), if n == 1 { one } else { many })
}

/// The most items of one memory a capped section lists.
pub const CAP_PER_FILE: usize = 20;

/// As [`section`], listing at most [`CAP_PER_FILE`] items of one file, then `… and
/// N more in FILE` (the JSON lists them all).
fn capped_section<T>(s: &mut String, title: &str, items: &[T], file: impl Fn(&T) -> &str, line: impl Fn(&T) -> String) {
    if items.is_empty() {
        let _ = writeln!(s, "  {title}: none");
        return;
    }
    let _ = writeln!(s, "  {title} ({}):", items.len());
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

/// `  title: none`, or `  title (n):` and one indented line per item.
fn section<T>(s: &mut String, title: &str, items: &[T], line: impl Fn(&T) -> String) {
    if items.is_empty() {
        let _ = writeln!(s, "  {title}: none");
        return;
    }
    let _ = writeln!(s, "  {title} ({}):", items.len());
    for v in items {
        let _ = writeln!(s, "    {}", line(v));
    }
}
