//! `memctl lint` (SPEC §3.9): a table of rules, the findings they produce, and the
//! driver that walks a memory dir, its index files, the lock and the settings.

mod config;
pub mod fix;
pub mod format;
mod index_rules;
mod topic;

use std::borrow::Cow;
use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::memory::Memory;
use crate::paths::Resolution;
use crate::scan::{self, Scan};
use index_rules::FileLinks;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// One lint rule (SPEC §3.9.3).
#[derive(Debug)]
pub struct Rule {
    pub id: &'static str,
    pub name: &'static str,
    /// The default severity (some rules lower or raise it per finding).
    pub severity: Severity,
    /// What Claude Code does because of the problem.
    pub consequence: &'static str,
    pub fixable: bool,
}

macro_rules! rules {
    ($($id:literal $name:literal $sev:ident $fix:literal $cons:literal;)*) => {
        pub static RULES: &[Rule] = &[$(Rule { id: $id, name: $name, severity: Severity::$sev, consequence: $cons, fixable: $fix }),*];
    };
}

rules! {
    "ML101" "frontmatter-unparseable" Error false "all fields dropped: untyped, no description in the manifest";
    "ML102" "frontmatter-not-at-start" Error true "no frontmatter seen";
    "ML103" "frontmatter-missing" Warning false "untyped, no description; relevance selection sees only the file name";
    "ML104" "frontmatter-beyond-window" Error false "the scan reads 30 lines: description and type invisible";
    "ML105" "description-missing" Warning false "manifest line without description";
    "ML106" "description-not-string" Warning false "manifest prints `42`, `a,b`, `[object Object]` or several lines";
    "ML107" "type-missing" Warning false "untyped memory";
    "ML108" "type-invalid" Error false "untyped memory";
    "ML109" "type-nested-only" Info false "Claude Code's scan reads only the top-level `type`";
    "ML110" "name-missing" Warning false "against the frontmatter format Claude Code asks for";
    "ML111" "yaml-needs-quoting" Warning true "parsed only thanks to the retry; stricter YAML readers drop the file";
    "ML112" "value-cut-by-comment" Warning false "text after ` #` silently lost";
    "ML113" "duplicate-key" Warning false "last value wins; other readers reject the file";
    "ML114" "type-prefix-mismatch" Info false "none directly; misleads readers";
    "ML115" "why-how-missing" Info false "weaker memory (Claude Code asks for **Why:** and **How to apply:**)";
    "ML116" "relative-date" Warning false "the memory becomes wrong or unreadable as time passes";
    "ML117" "content-code-heavy" Info false "\"code patterns are derivable from the code\"";
    "ML118" "content-git-history" Info false "\"git history belongs to git\"";
    "ML119" "content-in-claude-md" Info false "\"already in CLAUDE.md\"";
    "ML120" "content-ephemeral" Info false "\"ephemeral task details\"";
    "ML121" "secret-like" Warning false "loaded into model context";
    "ML122" "file-large" Warning false "relevance recall reads only 200 lines / 4096 bytes of a file";
    "ML123" "content-not-utf8" Error false "Claude Code reads U+FFFD in place of the bytes";
    "ML124" "bom" Info false "none (handled)";
    "ML125" "tool-artifact" Info false "stray text loaded with the memory";
    "ML126" "frontmatter-ambiguous-close" Warning false "some Claude Code versions end the block at the first `---` anywhere, dropping the fields after it";
    "ML127" "scan-cap" Warning false "only the 200 newest files reach the manifest";
    "ML128" "name-not-utf8" Error false "invisible to Claude Code";
    "ML129" "extension-case" Warning false "not scanned (`.md` is case-sensitive)";
    "ML130" "symlink-escape" Warning false "Claude Code reads it; memctl will not write through it";
    "ML131" "unreadable" Error false "silently dropped from the scan";
    "ML132" "stale-temp" Info true "none (not `.md`); left by an interrupted write";
    "ML133" "binary" Error false "garbage in context";
    "ML201" "index-dangling" Error false "the model follows a pointer to nothing";
    "ML202" "index-link-outside" Warning false "outside the memory dir; Claude Code's memory agents may not write there";
    "ML203" "index-unindexed" Warning true "the memory is never loaded: Claude Code loads only the index";
    "ML204" "index-line-long" Info false "against Claude Code's guidance; consumes the 25 000-unit budget";
    "ML205" "index-over-lines" Error false "lines after 200 are not loaded";
    "ML206" "index-over-bytes" Error false "the index is cut at the last line break before 25 000 units";
    "ML207" "index-near-cap" Warning false "the next entries will be dropped";
    "ML208" "index-frontmatter" Warning false "stripped before loading; Claude Code says the index has none";
    "ML209" "index-duplicate-target" Warning false "one memory indexed several times (wasted budget, conflicting hooks)";
    "ML210" "index-noncanonical" Info false "none; harder to maintain";
    "ML211" "index-content" Info false "memory content in the index counts toward the caps";
    "ML212" "index-unclosed-comment" Warning false "an unclosed `<!--` is loaded verbatim";
    "ML213" "index-missing" Warning false "no memory is loaded at all";
    "ML214" "index-link-not-md" Info false "none";
    "ML215" "index-crlf" Info false "each CR counts toward the 25 000 units (unless the file has comments)";
    "ML301" "lock-future-mtime" Warning false "auto-dream blocked until the mtime is 24 h in the past";
    "ML302" "lock-rolled-back" Info false "the last consolidation failed or was killed";
    "ML401" "project-setting-ignored" Warning false "the memory is not where the user thinks";
    "ML402" "setting-masked" Warning false "the default path is used instead of the intended one";
    "ML403" "memory-disabled" Info false "nothing is loaded or saved";
}

/// The rule with this id (`RULES` is sorted by id; every finding looks its rule up).
pub fn rule(id: &str) -> Option<&'static Rule> {
    RULES.binary_search_by(|r| r.id.cmp(id)).ok().map(|i| &RULES[i])
}

/// One problem found.
#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    pub id: &'static str,
    pub severity: Severity,
    /// The file concerned (absolute), or `None` (e.g. ML403 decided by a variable).
    pub path: Option<PathBuf>,
    /// 1-based line and column (chars); 1:1 for a whole file.
    pub line: usize,
    pub col: usize,
    pub message: String,
}

impl Finding {
    pub fn new(id: &'static str, path: &Path, line: usize, col: usize, message: impl Into<String>) -> Finding {
        let severity = rule(id).map_or(Severity::Error, |r| r.severity);
        Finding {
            id,
            severity,
            path: Some(path.to_path_buf()),
            line: line.max(1),
            col: col.max(1),
            message: message.into(),
        }
    }

    pub fn file(id: &'static str, path: &Path, message: impl Into<String>) -> Finding {
        Finding::new(id, path, 1, 1, message)
    }

    pub fn with_severity(mut self, s: Severity) -> Finding {
        self.severity = s;
        self
    }

    pub fn rule(&self) -> &'static Rule {
        rule(self.id).unwrap_or(&RULES[0])
    }
}

/// What lint looks at.
pub struct Input<'a> {
    /// The dir linted (the team dir under `--team`).
    pub dir: &'a Path,
    pub res: &'a Resolution,
    pub now_ms: f64,
    /// `--warn-at` for ML207.
    pub warn_at: f64,
}

/// A topic file's whole content, as lint reads it.
pub struct FileText<'a> {
    pub text: Cow<'a, str>,
    pub size: u64,
    /// Byte offset of the first invalid UTF-8 sequence.
    pub invalid_utf8_at: Option<usize>,
    pub has_nul: bool,
    pub bom: bool,
}

/// Lint reads at most this much of a file for its content rules.
pub const READ_CAP: u64 = 16 << 20;

impl<'a> FileText<'a> {
    /// A file's bytes (at most [`READ_CAP`] of them) and its size.
    pub fn new(bytes: &'a [u8], size: u64) -> FileText<'a> {
        let (text, invalid_utf8_at) = match std::str::from_utf8(bytes) {
            Ok(t) => (Cow::Borrowed(t), None),
            Err(e) => (String::from_utf8_lossy(bytes), Some(e.valid_up_to())),
        };
        FileText {
            text,
            size,
            invalid_utf8_at,
            has_nul: crate::text::looks_binary(bytes),
            bom: bytes.starts_with(b"\xef\xbb\xbf"),
        }
    }
}

/// Read the rest of a file the scan has begun (see [`scan::scan_visit`]) into `buf`,
/// which then holds its first [`READ_CAP`] bytes at most.
fn read_rest(file: &mut File, buf: &mut Vec<u8>, size: u64) -> std::io::Result<()> {
    use std::io::Read;
    let left = READ_CAP.saturating_sub(buf.len() as u64);
    buf.reserve(size.min(READ_CAP).saturating_sub(buf.len() as u64) as usize);
    file.take(left).read_to_end(buf)?;
    Ok(())
}

/// The topic rules on a memory whose file the scan has begun, and its links.
fn check_file(m: &Memory, file: &mut File, buf: &mut Vec<u8>, claude_md: Option<&Vec<String>>) -> FileResult {
    let mut out = Vec::new();
    if read_rest(file, buf, m.size).is_err() {
        return (out, FileLinks::default());
    }
    let t = FileText::new(buf, m.size);
    topic::check(m, &t, claude_md, &mut out);
    (out, index_rules::Reach::links_of(&m.rel, &t.text))
}

/// The outcome of a lint run.
pub struct Report {
    pub findings: Vec<Finding>,
    /// Files examined.
    pub files: usize,
    /// Notes about skipped rules and walk problems.
    pub notes: Vec<String>,
}

/// Per file: its findings and its links.
type FileResult = (Vec<Finding>, FileLinks);
/// Per index: files examined and its link targets.
type IndexResult = (usize, Option<index_rules::Targets>);

/// Run every rule on the dir.
pub fn lint(input: &Input) -> Report {
    let mut notes = Vec::new();
    let claude_md = config::claude_md_lines(input.res, &mut notes);
    let scopes = index_rules::scopes(input.dir, !input.res.team);
    // The scan's reader threads read each file whole and check it as they go (one
    // open and read per file; each text is dropped as soon as its findings and
    // links are known); the index rules run on this thread meanwhile.
    let mut index_findings = Vec::new();
    let check_indexes = || -> Vec<IndexResult> {
        scopes
            .iter()
            .map(|scope| index_rules::check_index(scope, input.warn_at, &mut index_findings))
            .collect()
    };
    let visit = |m: &Memory, file: &mut File, buf: &mut Vec<u8>| check_file(m, file, buf, claude_md.as_ref());
    let (scan, results, index_results) = scan::scan_visit(input.dir, check_indexes, &visit);
    // Names are looked up only for wikilinks; files without links add no edge.
    let by_name = if results.iter().any(|(_, links)| links.has_wikilinks()) {
        index_rules::Reach::names(&scan.memories)
    } else {
        HashMap::new()
    };
    let mut findings = Vec::with_capacity(results.iter().map(|(f, _)| f.len()).sum::<usize>() + scan.memories.len());
    let mut edges = HashMap::new();
    for (m, (f, links)) in scan.memories.iter().zip(results) {
        findings.extend(f);
        let targets = index_rules::Reach::resolve(links, &by_name);
        if !targets.is_empty() {
            edges.insert(m.rel.clone(), targets);
        }
    }
    findings.extend(index_findings);
    walk_findings(&scan, input, &mut findings, &mut notes);
    let mut files = scan.memories.len();
    let reach = index_rules::Reach::new(edges);
    for (scope, (n, targets)) in scopes.iter().zip(index_results) {
        files += n;
        index_rules::check_files(scope, &scan.memories, targets.as_ref(), &reach, &mut findings);
    }
    config::check(input, &mut findings, &mut notes);
    sort_findings(&mut findings);
    Report { findings, files, notes }
}

/// By path (byte order), line, column and rule; equal findings keep the order
/// they were found in.
fn sort_findings(findings: &mut Vec<Finding>) {
    fn bytes(f: &Finding) -> Option<&[u8]> {
        f.path.as_deref().map(|p| p.as_os_str().as_encoded_bytes())
    }
    // The paths share the linted dir's prefix: keys hold only what follows it,
    // so comparisons do not walk it again and again.
    let mut paths = findings.iter().filter_map(bytes);
    let first = paths.next().unwrap_or_default();
    let common = paths.fold(first.len(), |n, p| {
        first[..n].iter().zip(p).take_while(|(a, b)| a == b).count()
    });
    /// Path after the common prefix, line, column, rule, and where it was found.
    type Key<'a> = (Option<&'a [u8]>, usize, usize, &'static str, usize);
    let mut keyed: Vec<Key> = findings
        .iter()
        .enumerate()
        .map(|(i, f)| (bytes(f).map(|p| &p[common..]), f.line, f.col, f.id, i))
        .collect();
    keyed.sort_unstable();
    let order: Vec<usize> = keyed.into_iter().map(|k| k.4).collect();
    let mut slots: Vec<Option<Finding>> = std::mem::take(findings).into_iter().map(Some).collect();
    findings.extend(order.into_iter().filter_map(|i| slots[i].take()));
}

/// Findings about entries the scan could not use, the cap and temp files.
fn walk_findings(scan: &Scan, input: &Input, out: &mut Vec<Finding>, notes: &mut Vec<String>) {
    use crate::scan::ProblemKind as P;
    for p in &scan.problems {
        match &p.kind {
            P::Unreadable(e) => out.push(Finding::file(
                "ML131",
                &p.path,
                format!("cannot be read ({e}); Claude Code silently drops it"),
            )),
            P::Dangling => out.push(Finding::file(
                "ML131",
                &p.path,
                "dangling symlink; Claude Code silently drops it",
            )),
            P::Directory => out.push(
                Finding::file("ML131", &p.path, "a directory named `.md`; the scan drops it")
                    .with_severity(Severity::Info),
            ),
            P::NotUtf8Name => out.push(Finding::file(
                "ML128",
                &p.path,
                format!("file name `{}` is not valid UTF-8; rename it with mv", p.rel),
            )),
            P::Cycle | P::UnlistableDir(_) => notes.push(p.message()),
            // Listed memories: ML133 and ML104 report these.
            P::Binary | P::WindowTooLarge => {}
        }
    }
    let total = scan.memories.len();
    for m in scan.memories.iter().skip(scan::MAX_MEMORY_FILES) {
        out.push(Finding::file(
            "ML127",
            &m.path,
            format!(
                "not among the 200 most recently modified of {total} files; Claude Code's manifest does not list it"
            ),
        ));
    }
    for (rel, path) in &scan.extension_case {
        out.push(Finding::file(
            "ML129",
            path,
            format!("`{rel}` is not scanned: rename it to end in lower-case `.md`"),
        ));
    }
    for (rel, target) in &scan.escaping {
        out.push(Finding::file(
            "ML130",
            &input.dir.join(rel),
            format!("symlink leaves the memory dir (to {})", target.display()),
        ));
    }
    for t in &scan.temp_files {
        let old = input.now_ms - t.mtime_ms >= crate::lock::HOLDER_STALE_MS;
        let live = matches!(
            crate::lock::liveness(i64::from(t.pid)),
            crate::lock::PidStatus::Alive | crate::lock::PidStatus::Eperm
        );
        if old && !live {
            out.push(Finding::file(
                "ML132",
                &t.path,
                format!(
                    "stale memctl temp file of PID {} (not running); `memctl lint --fix` moves it to .trash/",
                    t.pid
                ),
            ));
        }
    }
}

/// The single-file rules (ML101–ML133 that need no directory) on one topic file.
pub fn file_findings(path: &Path) -> Vec<Finding> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    scan::read_memory_then(path, &name, |m, file, buf| check_file(m, file, buf, None).0).unwrap_or_default()
}

/// The index rules on an index file at `path` whose links resolve in `dir`.
pub fn index_findings(path: &Path, dir: &Path) -> Vec<Finding> {
    let mut out = Vec::new();
    let scope = index_rules::Scope::single(path, dir);
    let reach = index_rules::Reach::new(HashMap::new());
    index_rules::check(&scope, &[], &reach, 90.0, &mut out);
    out
}

/// Which findings `--rule`, `--disable` and `--min-severity` keep.
pub fn filter(findings: Vec<Finding>, only: &[String], disable: &[String], min: Severity) -> Vec<Finding> {
    findings
        .into_iter()
        .filter(|f| {
            (only.is_empty() || only.iter().any(|r| r == f.id))
                && !disable.iter().any(|r| r == f.id)
                && f.severity >= min
        })
        .collect()
}

/// Counts by severity.
pub fn counts(findings: &[Finding]) -> (usize, usize, usize) {
    let n = |s| findings.iter().filter(|f| f.severity == s).count();
    (n(Severity::Error), n(Severity::Warning), n(Severity::Info))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_is_found_by_its_id() {
        // `rule` searches by bisection: the table must stay sorted by id.
        assert!(RULES.windows(2).all(|w| w[0].id < w[1].id), "RULES out of order");
        assert!(
            RULES.iter().all(|r| r.id.len() <= 8),
            "ids are compared by their first 8 bytes"
        );
        for r in RULES {
            assert_eq!(rule(r.id).map(|x| x.name), Some(r.name));
        }
        assert!(rule("ML999").is_none());
        assert!(rule("ml101").is_none());
    }
}
