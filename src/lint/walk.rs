//! The rules on what the dir's walk found beside the memories: entries the scan
//! could not use (ML128, ML131), files it skips (ML136), the 200-file cap (ML127),
//! `.MD` names (ML129), symlinks leaving the dir (ML130), stale temp files (ML132)
//! and sync conflict files (ML135).

use std::path::Path;

use super::{FileFacts, Finding, RuleId, Severity};
use crate::scan::{self, Problem, Scan, ScanRules, TempFile};

/// Findings about entries the scan could not use, the cap (`memories` are the
/// scan's, in its order) and temp files. `root` is the memory dir (`dir` is the
/// team dir under `--team`): conflict files are named from it, as `sync --resolve`
/// takes them.
#[allow(clippy::too_many_arguments)]
pub(super) fn walk_findings<K>(
    scan: &Scan<K>,
    memories: &[&FileFacts],
    dir: &Path,
    root: &Path,
    now_ms: f64,
    rules: &ScanRules,
    out: &mut Vec<Finding>,
    notes: &mut Vec<String>,
) {
    problems(&scan.problems, out, notes);
    let scanned = excluded(memories, dir, root, rules, out);
    out.extend(scan_cap(&scanned, dir, rules));
    extension_case(&scan.extension_case, out);
    escaping(&scan.escaping, dir, out);
    stale_temps(&scan.temp_files, now_ms, out);
    out.extend(
        scan.conflict_files
            .iter()
            .filter_map(|(_, path)| conflict_finding(root, path)),
    );
}

/// ML131 and ML128: entries the scan drops; walk problems that are no rule's
/// (cycles, dirs it cannot list) become notes.
fn problems(problems: &[Problem], out: &mut Vec<Finding>, notes: &mut Vec<String>) {
    use crate::scan::ProblemKind as P;
    for p in problems {
        match &p.kind {
            P::Unreadable(e) => out.push(Finding::file(
                RuleId::ML131,
                &p.path,
                format!("cannot be read ({e}); Claude Code silently drops it"),
            )),
            P::Dangling => out.push(Finding::file(
                RuleId::ML131,
                &p.path,
                "dangling symlink; Claude Code silently drops it",
            )),
            P::Directory => out.push(
                Finding::file(RuleId::ML131, &p.path, "a directory named `.md`; the scan drops it")
                    .with_severity(Severity::Info),
            ),
            P::NotUtf8Name => out.push(Finding::file(
                RuleId::ML128,
                &p.path,
                format!("file name `{}` is not valid UTF-8; rename it with mv", p.rel),
            )),
            P::Cycle | P::UnlistableDir(_) => notes.push(p.message()),
            // Listed memories: ML133 and ML104 report these.
            P::Binary | P::WindowTooLarge => {}
        }
    }
}

/// (2.1.332) ML136: files the scan skips (SPEC §2.5 step 2); memctl's own
/// `.trash/` is not walked. Returns the files of the scan, in order.
fn excluded<'m>(
    memories: &[&'m FileFacts],
    dir: &Path,
    root: &Path,
    rules: &ScanRules,
    out: &mut Vec<Finding>,
) -> Vec<&'m FileFacts> {
    let mut scanned = Vec::with_capacity(memories.len());
    for &m in memories {
        let rel = scope_rel(dir, root, m.rel());
        match rules.excluded_by(&rel) {
            Some(why) => out.push(Finding::file(
                RuleId::ML136,
                &m.path(dir),
                format!(
                    "{} is {}: Claude Code's scan skips it, so it is never in the manifest or recall; only an index link reaches it",
                    m.rel(),
                    why.describe()
                ),
            )),
            None => scanned.push(m),
        }
    }
    scanned
}

/// ML127, once per run (issue 14), anchored at the newest file past the cap,
/// among the files of the 2.1.332 scan (`scanned`).
fn scan_cap(scanned: &[&FileFacts], dir: &Path, rules: &ScanRules) -> Option<Finding> {
    let total = scanned.len();
    let beyond: &[&FileFacts] = scanned.get(scan::MAX_MEMORY_FILES..).unwrap_or_default();
    let first = beyond.first()?;
    const NAMED: usize = 10;
    let names: Vec<&str> = beyond.iter().take(NAMED).map(|m| m.rel()).collect();
    let more = beyond.len().saturating_sub(NAMED);
    let more = if more > 0 {
        format!(" … and {more} more")
    } else {
        String::new()
    };
    let (is, them) = if beyond.len() == 1 {
        ("is", "it")
    } else {
        ("are", "them")
    };
    let finding = Finding::file(
        RuleId::ML127,
        &first.path(dir),
        format!(
            "{} of {total} files {is} not among the 200 most recently modified; Claude Code's manifest does not list {them}: {}{more}",
            beyond.len(),
            names.join(", ")
        ),
    );
    // The manifest reaches the model in recall mode (SPEC §2.6).
    Some(if rules.stores {
        finding.with_severity(Severity::Warning)
    } else {
        finding
    })
}

/// ML129: `.MD` and other case forms the scan does not take.
fn extension_case(found: &[(String, std::path::PathBuf)], out: &mut Vec<Finding>) {
    for (rel, path) in found {
        out.push(Finding::file(
            RuleId::ML129,
            path,
            format!("`{rel}` is not scanned: rename it to end in lower-case `.md`"),
        ));
    }
}

/// ML130: symlinks that leave the memory dir.
fn escaping(found: &[(String, std::path::PathBuf)], dir: &Path, out: &mut Vec<Finding>) {
    for (rel, target) in found {
        out.push(Finding::file(
            RuleId::ML130,
            &dir.join(rel),
            format!("symlink leaves the memory dir (to {})", target.display()),
        ));
    }
}

/// ML132: memctl temp files old enough and of a process no longer running.
fn stale_temps(temps: &[TempFile], now_ms: f64, out: &mut Vec<Finding>) {
    for t in temps {
        let old = now_ms - t.mtime_ms >= crate::lock::HOLDER_STALE_MS;
        let live = matches!(
            crate::lock::liveness(i64::from(t.pid)),
            crate::lock::PidStatus::Alive | crate::lock::PidStatus::Eperm
        );
        if old && !live {
            out.push(Finding::file(
                RuleId::ML132,
                &t.path,
                format!(
                    "stale memctl temp file of PID {} (not running); `memctl lint --fix` moves it to .trash/",
                    t.pid
                ),
            ));
        }
    }
}

/// `rel` (relative to the linted `dir`) relative to the memory dir `root`, as the
/// scan's exclusions read it (the team dir under `--team` is `team/…`).
pub(super) fn scope_rel(dir: &Path, root: &Path, rel: &str) -> String {
    match dir.strip_prefix(root) {
        Ok(p) if !p.as_os_str().is_empty() => format!("{}/{rel}", crate::scan::escape_path(p)),
        _ => rel.to_string(),
    }
}

/// ML135: a sync conflict file beside the memory it conflicts with, both named
/// relative to the memory dir `root`.
fn conflict_finding(root: &Path, path: &Path) -> Option<Finding> {
    let name = path.file_name()?.to_str()?;
    let c = crate::scan::conflict::parse_conflict_name(name)?;
    let rel = crate::scan::escape_path(path.strip_prefix(root).unwrap_or(path));
    let dir = rel.strip_suffix(name).unwrap_or("");
    let original = format!("{dir}{}", c.original);
    Some(Finding::file(
        RuleId::ML135,
        path,
        format!(
            "sync conflict: the version of `{original}` from machine `{}` ({}); merge it into `{original}` by hand and delete this file, or run `memctl sync --resolve {rel}` to keep the local version",
            c.machine,
            c.date_iso()
        ),
    ))
}
