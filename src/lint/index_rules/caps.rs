//! Claude Code's caps on an index (ML205, ML206, ML207): the entries the line cap
//! and the unit cap drop, and an index near them.

use std::path::Path;

use crate::index::load;
use crate::lint::{Finding, RuleId};

pub(super) fn check(idx: &Path, l: &load::Load, warn_at: f64, out: &mut Vec<Finding>) {
    if l.line_truncated {
        let after: Vec<usize> = l
            .dropped
            .iter()
            .filter(|d| d.index >= load::MAX_LINES)
            .map(|d| d.line)
            .collect();
        let line = after.first().copied().unwrap_or(1);
        out.push(Finding::new(
            RuleId::ML205,
            idx,
            line,
            1,
            format!(
                "{} lines (limit: 200): entries after line 200 are not loaded: lines {}",
                l.line_count,
                list_lines(&after)
            ),
        ));
    }
    if l.unit_truncated {
        let cut: Vec<usize> = l
            .dropped
            .iter()
            .filter(|d| d.index < load::MAX_LINES)
            .map(|d| d.line)
            .collect();
        let line = cut.first().copied().unwrap_or(1);
        out.push(Finding::new(
            RuleId::ML206,
            idx,
            line,
            1,
            format!(
                "{} units (limit: 25 000): {}",
                crate::text::group_digits(l.unit_count as i64),
                if cut.is_empty() {
                    "the unit cap cuts no entry that the line cap keeps".into()
                } else {
                    format!("entries cut by the unit cap: lines {}", list_lines(&cut))
                }
            ),
        ));
    }
    if !l.truncated() {
        let line_pct = 100.0 * l.line_count as f64 / load::MAX_LINES as f64;
        let unit_pct = 100.0 * l.unit_count as f64 / load::MAX_UNITS as f64;
        if line_pct >= warn_at || unit_pct >= warn_at {
            out.push(Finding::file(
                RuleId::ML207,
                idx,
                format!(
                    "near Claude Code's cut: {} of 200 lines, {} of 25 000 units ({}%)",
                    l.line_count,
                    l.unit_count,
                    crate::text::to_fixed1(unit_pct)
                ),
            ));
        }
    }
}

fn list_lines(lines: &[usize]) -> String {
    let shown: Vec<String> = lines.iter().take(20).map(usize::to_string).collect();
    let more = lines.len().saturating_sub(20);
    if more > 0 {
        format!("{} … and {more} more", shown.join(", "))
    } else {
        shown.join(", ")
    }
}
