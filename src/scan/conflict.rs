//! Sync conflict files (SPEC §11.2): `<file name>.conflict-<machine>-<YYYYMMDD>[-N]`,
//! the incoming version of a memory that `import` or `sync` kept beside the local
//! one. They do not end in `.md`, so Claude Code never reads them; lint reports
//! them (ML135) and the SessionStart hook counts them.

/// The parts of a conflict file's name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConflictName<'a> {
    /// The name of the file it conflicts with, in the same directory (`testing.md`).
    pub original: &'a str,
    /// The machine the incoming version came from.
    pub machine: &'a str,
    /// The day it was kept, `YYYYMMDD` (UTC).
    pub date: &'a str,
    /// The collision counter (`-2`, `-3`, …), when there is one.
    pub n: Option<u32>,
}

impl ConflictName<'_> {
    /// The date as `YYYY-MM-DD`.
    pub fn date_iso(&self) -> String {
        format!("{}-{}-{}", &self.date[..4], &self.date[4..6], &self.date[6..])
    }
}

const MARK: &str = ".conflict-";

/// A plausible `YYYYMMDD`: eight digits, month 01–12, day 01–31.
fn is_date(s: &str) -> bool {
    if s.len() != 8 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    let month: u32 = s[4..6].parse().unwrap_or(0);
    let day: u32 = s[6..].parse().unwrap_or(0);
    (1..=12).contains(&month) && (1..=31).contains(&day)
}

/// `rest` = `<machine>-<YYYYMMDD>`: the machine and the date.
fn machine_date(rest: &str) -> Option<(&str, &str)> {
    let (machine, date) = rest.rsplit_once('-')?;
    (!machine.is_empty() && is_date(date)).then_some((machine, date))
}

/// Parse a file name (no directory) as a conflict file's name. Linear in the name.
pub fn parse_conflict_name(name: &str) -> Option<ConflictName<'_>> {
    if name.ends_with(".md") {
        return None;
    }
    // The last mark: a machine name never holds `.conflict-` in practice, and an
    // original name may (`a.conflict-x-20260101.md.conflict-y-20260102`).
    let at = name.rfind(MARK)?;
    let original = &name[..at];
    if original.is_empty() {
        return None;
    }
    let rest = &name[at + MARK.len()..];
    // Without a counter first (`-20261201` is a date, not a counter), then with one.
    if let Some((machine, date)) = machine_date(rest) {
        return Some(ConflictName {
            original,
            machine,
            date,
            n: None,
        });
    }
    let (head, n) = rest.rsplit_once('-')?;
    if n.is_empty() || n.len() > 9 || !n.bytes().all(|b| b.is_ascii_digit()) || n.starts_with('0') {
        return None;
    }
    let n: u32 = n.parse().ok()?;
    if n < 2 {
        return None;
    }
    let (machine, date) = machine_date(head)?;
    Some(ConflictName {
        original,
        machine,
        date,
        n: Some(n),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(name: &str) -> Option<(&str, &str, &str, Option<u32>)> {
        parse_conflict_name(name).map(|c| (c.original, c.machine, c.date, c.n))
    }

    #[test]
    fn names_as_import_and_sync_write_them_parse() {
        assert_eq!(
            parts("testing.md.conflict-laptop-20261201"),
            Some(("testing.md", "laptop", "20261201", None))
        );
        assert_eq!(
            parts("testing.md.conflict-laptop-20261201-2"),
            Some(("testing.md", "laptop", "20261201", Some(2)))
        );
        // Machine names keep `-`, `.` and `_` (import's machine_part).
        assert_eq!(
            parts("a.md.conflict-bob-s-mac.local-20260309-13"),
            Some(("a.md", "bob-s-mac.local", "20260309", Some(13)))
        );
        // A machine named like a date.
        assert_eq!(
            parts("a.md.conflict-20260101-20260102"),
            Some(("a.md", "20260101", "20260102", None))
        );
        assert_eq!(
            parse_conflict_name("x.md.conflict-m-20261201").unwrap().date_iso(),
            "2026-12-01"
        );
    }

    #[test]
    fn other_names_do_not() {
        for name in [
            "testing.md",
            "a.md.conflict-laptop-20261201.md",
            ".conflict-laptop-20261201",
            "a.md.conflict--20261201",
            "a.md.conflict-laptop",
            "a.md.conflict-laptop-2026120",
            "a.md.conflict-laptop-20261301",
            "a.md.conflict-laptop-20261200",
            "a.md.conflict-laptop-20261201-1",
            "a.md.conflict-laptop-20261201-02",
            "a.md.conflict-laptop-20261201-",
            "a.md.conflict-laptop-20261201-x",
            "a.md.conflicts-laptop-20261201",
            "MEMORY.md",
            "",
        ] {
            assert_eq!(parse_conflict_name(name), None, "{name}");
        }
    }

    #[test]
    fn long_names_parse_in_linear_time() {
        let name = format!("{}.conflict-{}-20260101", "a-".repeat(100_000), "b-".repeat(100_000));
        assert!(parse_conflict_name(&name).is_some());
    }
}
