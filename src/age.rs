//! Age and freshness text (SPEC §2.8). `now` is always a parameter.

const DAY_MS: f64 = 86_400_000.0;

/// Elapsed whole 24-hour periods; a future mtime gives 0.
pub fn age_days(now_ms: f64, mtime_ms: f64) -> u64 {
    let d = ((now_ms - mtime_ms) / DAY_MS).floor();
    if d.is_nan() || d < 0.0 { 0 } else { d as u64 }
}

/// The age in a table cell: `today`, `1d`, `12d` (`list`, `projects`).
pub fn short_age(days: u64) -> String {
    if days == 0 { "today".into() } else { format!("{days}d") }
}

/// `today`, `yesterday` or `<d> days ago`.
pub fn age_text(days: u64) -> String {
    match days {
        0 => "today".into(),
        1 => "yesterday".into(),
        d => format!("{d} days ago"),
    }
}

/// Claude Code's staleness caveat; empty when `days <= 1`.
pub fn freshness_text(days: u64) -> String {
    if days <= 1 {
        return String::new();
    }
    format!(
        "This memory is {days} days old. Memories are point-in-time observations, not live state — claims about code behavior or file:line citations may be outdated. Verify against current code before asserting as fact."
    )
}

/// The note Claude Code prefixes to a read of a memory file.
pub fn freshness_note(days: u64) -> String {
    let text = freshness_text(days);
    if text.is_empty() {
        text
    } else {
        format!("<system-reminder>{text}</system-reminder>\n")
    }
}

/// The header relevance recall puts before an injected memory (SPEC §2.8, A.7):
/// (2.1.332) `Memory: <path>:`, after the freshness text when stale; version 2's
/// `Memory (saved today): …` is gone.
pub fn recall_header(days: u64, path: &str) -> String {
    if days >= 2 {
        format!("{}\n\nMemory: {path}:", freshness_text(days))
    } else {
        format!("Memory: {path}:")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: f64 = 3_600_000.0;

    #[test]
    fn ages_match_appendix_a7() {
        let now = 1_773_144_000_000.0;
        for (hours, days) in [
            (0.0, 0),
            (12.0, 0),
            (23.97, 0),
            (-72.0, 0),
            (24.0, 1),
            (36.0, 1),
            (48.0, 2),
            (47.0 * 24.0, 47),
        ] {
            assert_eq!(age_days(now, now - hours * H), days, "{hours} h");
        }
        assert_eq!(age_text(0), "today");
        assert_eq!(age_text(1), "yesterday");
        assert_eq!(age_text(2), "2 days ago");
        assert_eq!(freshness_text(1), "");
        assert_eq!(
            freshness_text(2),
            "This memory is 2 days old. Memories are point-in-time observations, not live state — claims about code behavior or file:line citations may be outdated. Verify against current code before asserting as fact."
        );
        assert_eq!(
            freshness_note(47),
            format!("<system-reminder>{}</system-reminder>\n", freshness_text(47))
        );
        assert_eq!(freshness_note(0), "");
    }

    #[test]
    fn recall_headers() {
        assert_eq!(recall_header(0, "/p/x.md"), "Memory: /p/x.md:");
        assert_eq!(recall_header(1, "/p/x.md"), "Memory: /p/x.md:");
        assert_eq!(
            recall_header(47, "/p/x.md"),
            format!("{}\n\nMemory: /p/x.md:", freshness_text(47))
        );
    }
}
