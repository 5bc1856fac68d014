//! `memctl lint` (SPEC §3.9): the findings, and the driver that walks a memory
//! dir, its index files, the lock and the settings. The rules table is in
//! [`rules`], topic-file rules in `topic`, index rules in `index_rules`, lock and
//! settings rules in `config`, `--fix` in [`fix`], the output formats in
//! [`format`].

mod claude_text;
mod config;
pub mod explain;
mod facts;
pub mod fix;
pub mod format;
mod found;
mod index_rules;
mod page;
pub mod repo;
pub mod rules;
mod secrets;
mod topic;
mod walk;

use std::borrow::Cow;
use std::collections::HashMap;
use std::fs::File;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use crate::memory::Memory;
use crate::paths::Resolution;
use crate::scan::{self, Kept, Scan};
pub use facts::FileFacts;
pub use found::Found;
use index_rules::FileLinks;
pub use rules::{RULES, Rule, RuleId, Severity};
use walk::{scope_rel, walk_findings};

/// `path` as an `Arc`, the same one as the previous finding's on this thread when
/// the path is the same: a file's findings are made one after the other, and on
/// large dirs (25 000 findings) one copy of each path instead of one per finding
/// saves megabytes.
fn shared_path(path: &Path) -> Arc<Path> {
    thread_local! {
        static LAST: std::cell::RefCell<Option<Arc<Path>>> = const { std::cell::RefCell::new(None) };
    }
    LAST.with(|last| {
        let mut last = last.borrow_mut();
        match last.as_ref() {
            // Bytes, not components: `a//b` keeps its own spelling.
            Some(p) if p.as_os_str() == path.as_os_str() => Arc::clone(p),
            _ => {
                let p: Arc<Path> = Arc::from(path);
                *last = Some(Arc::clone(&p));
                p
            }
        }
    })
}

/// ML121 (secret-like tokens) alone on one file's text: what `export` lists
/// before it writes a bundle (SPEC §11.2).
pub fn secret_findings(path: &Path, text: &str) -> Vec<Finding> {
    let mut out = Vec::new();
    secrets::check(path, text, &mut out);
    out
}

/// One problem found.
#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    pub id: RuleId,
    pub severity: Severity,
    /// The file concerned (absolute), or `None` (e.g. ML403 decided by a variable);
    /// shared by the findings of one file (see [`shared_path`]).
    pub path: Option<Arc<Path>>,
    /// 1-based line and column (chars); 1:1 for a whole file.
    pub line: usize,
    pub col: usize,
    /// Boxed: held until the report is put together (25 000 of them on large
    /// dirs), without the slack `format!` leaves.
    pub message: Box<str>,
}

impl Finding {
    pub fn new(id: RuleId, path: &Path, line: usize, col: usize, message: impl Into<String>) -> Finding {
        let message = message.into().into_boxed_str();
        Finding {
            id,
            severity: id.rule().severity,
            path: Some(shared_path(path)),
            line: line.max(1),
            col: col.max(1),
            message,
        }
    }

    pub fn file(id: RuleId, path: &Path, message: impl Into<String>) -> Finding {
        Finding::new(id, path, 1, 1, message)
    }

    pub fn with_severity(mut self, s: Severity) -> Finding {
        self.severity = s;
        self
    }

    pub fn rule(&self) -> &'static Rule {
        self.id.rule()
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
    /// The environment Claude Code would run in, for ML213 (whether it writes a
    /// missing index, SPEC §2.7.4); `None`: no variable set.
    pub env: Option<&'a crate::paths::Env>,
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

/// The topic rules on a memory whose file the scan has begun.
fn check_file(
    m: &Memory,
    file: &mut File,
    buf: &mut Vec<u8>,
    claude_md: Option<&claude_text::ClaudeText>,
) -> Vec<Finding> {
    check_file_extracting::<()>(m, file, buf, Selection::All, claude_md, None).findings
}

/// What a caller of [`lint_extracting`] takes from a topic file's text while it is
/// in memory (`None`: nothing worth holding), given the text (lossily decoded, BOM
/// included). Runs in the scan's reader threads.
pub type Extract<'a, X> = &'a (dyn Fn(&Memory, &str) -> Option<X> + Sync);

/// Which rules a run checks.
#[derive(Clone, Copy, Debug)]
pub enum Selection<'a> {
    /// Every rule: `lint`.
    All,
    /// Only the index rules (ML2xx), and of their findings only those of these
    /// rules: what `dream`'s plan shows. The topic files are read for their links
    /// alone (the reachability behind ML203); the topic, walk, config and settings
    /// rules do not run.
    Index(&'a [RuleId]),
}

impl Selection<'_> {
    /// Whether every rule runs.
    fn all(self) -> bool {
        matches!(self, Selection::All)
    }

    /// Whether a finding of rule `id` is kept.
    pub fn keeps(self, id: RuleId) -> bool {
        match self {
            Selection::All => true,
            Selection::Index(only) => only.contains(&id),
        }
    }
}

/// What a topic file's own rules leave for the rest of the run.
struct FileOutcome<X> {
    findings: Vec<Finding>,
    links: FileLinks,
    /// What [`lint_extracting`]'s caller took from the text.
    extra: Option<X>,
}

impl<X> Default for FileOutcome<X> {
    fn default() -> Self {
        FileOutcome {
            findings: Vec::new(),
            links: FileLinks::default(),
            extra: None,
        }
    }
}

/// A file's [`FileOutcome`], boxed, `None` when empty (most files of a large dir
/// have no finding and no link: a pointer each, not three vectors).
type Outcome<X> = Option<Box<FileOutcome<X>>>;

impl<X> FileOutcome<X> {
    fn boxed(self) -> Outcome<X> {
        let empty = self.findings.is_empty() && self.links.is_empty() && self.extra.is_none();
        (!empty).then(|| Box::new(self))
    }
}

/// The topic rules (when `rules` has them) on a memory whose file the scan has
/// begun, its links, and what `extract` takes from its text (lossily decoded, at
/// most [`READ_CAP`] bytes; nothing when the file could not be read). The text
/// itself is dropped here.
fn check_file_extracting<X>(
    m: &Memory,
    file: &mut File,
    buf: &mut Vec<u8>,
    rules: Selection,
    claude_md: Option<&claude_text::ClaudeText>,
    extract: Option<Extract<X>>,
) -> FileOutcome<X> {
    let mut out = Vec::new();
    if read_rest(file, buf, m.size).is_err() {
        return FileOutcome::default();
    }
    let t = FileText::new(buf, m.size);
    if rules.all() {
        topic::check(m, &t, claude_md, &mut out);
    }
    let links = crate::index::extract_links(&t.text);
    if rules.all() {
        topic::dangling(m, &t.text, &links, &mut out);
    }
    let links = index_rules::Reach::links_of(&m.rel, &t.text, &links);
    let extra = extract.and_then(|f| f(m, &t.text));
    FileOutcome {
        findings: out,
        links,
        extra,
    }
}

/// The outcome of a lint run.
pub struct Report {
    /// In the report's order.
    pub findings: Found,
    /// Files examined.
    pub files: usize,
    /// Notes about skipped rules and walk problems.
    pub notes: Vec<String>,
}

/// Per index: files examined and its link targets.
type IndexResult = (usize, Option<index_rules::Targets>);

/// Run every rule on the dir. Of each topic file only its [`FileFacts`] are
/// held once its own rules ran (its text is dropped then).
pub fn lint(input: &Input) -> Report {
    lint_inner::<FileFacts, ()>(input, Selection::All, None).0
}

/// What [`lint_extracting`] gives beside the report: the scan of the dir and what
/// was taken from the text of each of its memories, in the scan's order (`None`
/// where nothing was, or the file could not be read).
pub struct Scanned<K, X> {
    pub scan: Scan<K>,
    pub extracts: Vec<Option<X>>,
}

/// The index rules of lint's run, their findings those of `only` (see
/// [`Selection::Index`]), keeping the scan (`K` of each memory: its
/// [`FileFacts`] and what else the caller needs) and what `extract` takes from
/// each text as it is read, so that a caller that needs them too (`dream`)
/// neither walks and reads the dir a second time nor holds every text. The
/// report's `files` and `notes` are those of the index rules alone.
pub fn lint_extracting<K: Kept + AsRef<FileFacts>, X: Send>(
    input: &Input,
    only: &[RuleId],
    extract: Extract<X>,
) -> (Report, Scanned<K, X>) {
    let (report, scan, extracts) = lint_inner::<K, X>(input, Selection::Index(only), Some(extract));
    (report, Scanned { scan, extracts })
}

/// The lint run of `rules`, keeping `K` of each memory (the rules across files
/// read its [`FileFacts`] where it is, not a copy) and, with `extract`, what it
/// takes of the texts.
fn lint_inner<K: Kept + AsRef<FileFacts>, X: Send>(
    input: &Input,
    rules: Selection,
    extract: Option<Extract<X>>,
) -> (Report, Scan<K>, Vec<Option<X>>) {
    let mut notes = Vec::new();
    let claude_md = if rules.all() {
        config::claude_md_lines(input.res, &mut notes)
    } else {
        None
    };
    let team_store = input.env.is_some_and(crate::index::check::team_store_configured);
    let scopes = index_rules::scopes(&input.res.memdir, team_store);
    // A small index is checked beside the readers (on the main thread, once it has
    // walked); a large one first (see [`index_first`]). Only when, not what: the
    // findings and their order are the same either way.
    let beside = indexes_are_small(&scopes);
    let (early, first, first_results) = match (!beside).then(|| index_first(input, rules, &scopes, team_store)) {
        Some((p, f, r)) => (p, f, Some(r)),
        None => (Vec::new(), Vec::new(), None),
    };
    // The scan's reader threads read each file whole and check it as they go (one
    // open and read per file; each text is dropped as soon as its findings and
    // links are known). A file's findings are packed at once (see [`Found`]), as
    // the index's were; one at another path (none today) joins the report's list.
    let (packed, first) = found::pack_all(input.dir, first);
    // An index's findings packed early come before its others (the report
    // shows a file's findings in the order found where they sort equal).
    let packed: Vec<_> = early.into_iter().chain(packed).collect();
    let (packed, sink) = (Mutex::new(packed), Mutex::new(first));
    let visit = |m: &Memory, file: &mut File, buf: &mut Vec<u8>| {
        let mut o = check_file_extracting(m, file, buf, rules, claude_md.as_ref(), extract);
        let (own, mut other) = found::pack(input.dir, &m.path, std::mem::take(&mut o.findings));
        if let Some(own) = own {
            packed.lock().unwrap_or_else(PoisonError::into_inner).push(own);
        }
        if !other.is_empty() {
            sink.lock().unwrap_or_else(PoisonError::into_inner).append(&mut other);
        }
        o.boxed()
    };
    let meanwhile = || beside.then(|| index_first(input, rules, &scopes, team_store));
    let (scan, results, during) = scan::scan_visit_keeping::<K, Outcome<X>, _, _>(input.dir, meanwhile, &visit);
    let mut findings = sink.into_inner().unwrap_or_else(PoisonError::into_inner);
    let mut packed = packed.into_inner().unwrap_or_else(PoisonError::into_inner);
    // Beside the readers, the index's findings come first all the same.
    let index_results = match (during, first_results) {
        (Some((early, f, r)), _) => {
            let (p, mut f) = found::pack_all(input.dir, f);
            packed.extend(early);
            packed.extend(p);
            f.append(&mut findings);
            findings = f;
            r
        }
        (None, r) => r.unwrap_or_default(),
    };
    let memories: Vec<&FileFacts> = scan.memories.iter().map(AsRef::as_ref).collect();
    let (edges, extracts) = gather(&memories, results, extract.is_some());
    // (2.1.332) What decides the scan's exclusions and recall mode (SPEC §2.13).
    let scan_rules = scan::ScanRules::from_env();
    let root = input.res.memdir.main();
    let (dir, now) = (input.dir, input.now_ms);
    if rules.all() {
        walk_findings(&scan, &memories, dir, root, now, &scan_rules, &mut findings, &mut notes);
    }
    let reach = index_rules::Reach::new(edges);
    let index_files = index_files(
        input,
        &scopes,
        index_results,
        &memories,
        &reach,
        &scan_rules,
        &mut findings,
    );
    let files = memories.len() + index_files;
    drop(memories);
    if rules.all() {
        config::check(input, &mut findings, &mut notes);
    } else {
        findings.retain(|f| rules.keeps(f.id));
    }
    sort_findings(&mut findings);
    let findings = Found::new(input.dir, packed, findings);
    (Report { findings, files, notes }, scan, extracts)
}

/// Indexes up to this size (all of a run's together) are checked beside the
/// scan's readers: on two cores the readers overlap them (8.5 M of the 37 M
/// instructions of `lint --project` on the 200-file bench dir), and their tables
/// are small (the 2 000-line bench index is 326 KB).
const BESIDE_MAX_BYTES: u64 = 1 << 20;

/// Whether the run's index files together are at most [`BESIDE_MAX_BYTES`] (a
/// missing or unreadable one counts as empty: it is decided by a stat alone).
fn indexes_are_small(scopes: &[index_rules::Scope]) -> bool {
    let size = |s: &index_rules::Scope| std::fs::metadata(&s.index).map_or(0, |m| m.len());
    scopes.iter().map(size).sum::<u64>() <= BESIDE_MAX_BYTES
}

/// The index rules that need no topic file. A large index's run first, on this
/// thread: their tables (the index text, its links and lines, the load model:
/// about 8 MB for a 20 000-line index) are gone before the scan's records grow.
/// Beside the readers, the two peaked together: 3 MB more at 20 000 files for 6 %
/// less wall time on two cores. The findings (ML217's after the indexes') start
/// the report's list: those of the link and line rules already packed (17 000
/// on the bench's 20 000-line index), then the others.
fn index_first(input: &Input, rules: Selection, scopes: &[index_rules::Scope], team_store: bool) -> IndexFirst {
    let mut ml217 = Vec::new();
    if rules.keeps(RuleId::ML217) {
        index_rules::check_team_index(&input.res.memdir, team_store, &mut ml217);
    }
    let mut findings = Vec::new();
    let mut packed = Vec::new();
    let index_results: Vec<IndexResult> = scopes
        .iter()
        .map(|scope| {
            let pack = Some((input.dir, &mut packed));
            index_rules::check_index(scope, input.warn_at, rules, &mut findings, pack)
        })
        .collect();
    findings.shrink_to_fit();
    findings.append(&mut ml217);
    (packed, findings, index_results)
}

/// What [`index_first`] found: packed files, other findings, each index's result.
type IndexFirst = (Vec<Box<[u8]>>, Vec<Finding>, Vec<IndexResult>);

/// The topic files' outcomes (in the scan's order, beside `memories`; their
/// findings are already packed): their links into the graph of which memory
/// links which, and, when `keep`, what was extracted of each.
fn gather<X>(
    memories: &[&FileFacts],
    results: Vec<Outcome<X>>,
    keep: bool,
) -> (HashMap<String, Vec<String>>, Vec<Option<X>>) {
    // Names are looked up only for wikilinks; files without links add no edge.
    let by_name = if results.iter().flatten().any(|o| o.links.has_wikilinks()) {
        index_rules::Reach::names(memories)
    } else {
        HashMap::new()
    };
    let mut edges = HashMap::new();
    let mut extracts = Vec::with_capacity(if keep { results.len() } else { 0 });
    for (m, outcome) in memories.iter().zip(results) {
        let Some(o) = outcome else {
            if keep {
                extracts.push(None);
            }
            continue;
        };
        let FileOutcome { links, extra, .. } = *o;
        if keep {
            extracts.push(extra);
        }
        let targets = index_rules::Reach::resolve(links, &by_name);
        if !targets.is_empty() {
            edges.insert(m.rel().to_string(), targets);
        }
    }
    (edges, extracts)
}

/// The index rules across files, on the files Claude Code's scan judges; the
/// number of index files examined.
fn index_files(
    input: &Input,
    scopes: &[index_rules::Scope],
    index_results: Vec<IndexResult>,
    memories: &[&FileFacts],
    reach: &index_rules::Reach,
    rules: &scan::ScanRules,
    findings: &mut Vec<Finding>,
) -> usize {
    let judged = judged(input, memories, rules);
    let before = findings.len();
    let env = input.env.cloned().unwrap_or_default();
    // Recall mode: CLAUDE_MEMORY_STORES, or the cached server flag (SPEC §2.13).
    let recall = crate::index::check::recall_mode_lever(&env, input.res.global_config.as_deref());
    let mut files = 0;
    for (scope, (n, targets)) in scopes.iter().zip(index_results) {
        files += n;
        let targets = targets.as_ref();
        index_rules::check_files(scope, &judged, targets, reach, &env, recall.as_deref(), findings);
    }
    // (2.1.332) In recall mode an unindexed memory can still be found by relevance.
    if rules.stores || recall.is_some() {
        for f in findings[before..].iter_mut().filter(|f| f.id == RuleId::ML203) {
            f.severity = Severity::Info;
        }
    }
    files
}

/// The memories ML203 judges: only the files of Claude Code's scan, not the
/// excluded ones (ML136), not the synced content of a store mount (SPEC §3.9.3) —
/// unless `--team` works in that mount: its index is then linted as a team index.
fn judged<'a, 'm>(input: &Input, memories: &'a [&'m FileFacts], rules: &scan::ScanRules) -> Cow<'a, [&'m FileFacts]> {
    let root = input.res.memdir.main();
    let in_mount = input.res.memdir.mount().is_some() && input.res.memdir.is_team();
    let rel_in = |m: &FileFacts| {
        let rel = scope_rel(input.dir, root, m.rel());
        rules.excluded_by(&rel).is_none() && (in_mount || !rules.in_store_mount(&rel))
    };
    if memories.iter().all(|m| rel_in(m)) {
        Cow::Borrowed(memories)
    } else {
        Cow::Owned(memories.iter().copied().filter(|m| rel_in(m)).collect())
    }
}

/// What the all-projects view needs of a memory dir in one scan: the memories
/// (window only) and the findings of the index rules and the frontmatter windows
/// (SPEC §9). No body is read, so ML203 cannot see links between memories: a file
/// only another memory links counts as unindexed (a warning, not lint's info).
pub struct WindowLint {
    pub scan: Scan,
    pub findings: Vec<Finding>,
}

/// Scan `memdir` reading only the windows, and run the rules that need nothing more.
pub fn window_lint(memdir: &crate::memdir::MemoryDir, now_ms: f64) -> WindowLint {
    let scopes = index_rules::scopes(memdir, false);
    let mut index_findings = Vec::new();
    let check_indexes = || -> Vec<IndexResult> {
        scopes
            .iter()
            .map(|scope| index_rules::check_index(scope, 90.0, Selection::All, &mut index_findings, None))
            .collect()
    };
    let visit = |m: &Memory, _: &mut File, buf: &mut Vec<u8>| {
        let mut out = Vec::new();
        topic::check_window(m, &String::from_utf8_lossy(buf), &mut out);
        out
    };
    let (scan, results, index_results) = scan::scan_visit(memdir.dir(), check_indexes, &visit);
    let mut findings: Vec<Finding> = results.into_iter().flatten().collect();
    findings.extend(index_findings);
    let mut notes = Vec::new();
    let facts: Vec<FileFacts> = scan.memories.iter().map(FileFacts::of).collect();
    let memories: Vec<&FileFacts> = facts.iter().collect();
    walk_findings(
        &scan,
        &memories,
        memdir.dir(),
        memdir.main(),
        now_ms,
        &scan::ScanRules::from_env(),
        &mut findings,
        &mut notes,
    );
    let reach = index_rules::Reach::new(HashMap::new());
    for (scope, (_, targets)) in scopes.iter().zip(index_results) {
        index_rules::check_files(
            scope,
            &memories,
            targets.as_ref(),
            &reach,
            &crate::paths::Env::default(),
            None,
            &mut findings,
        );
    }
    WindowLint { scan, findings }
}

/// By path (byte order), line, column and rule; equal findings keep the order
/// they were found in.
fn sort_findings(findings: &mut [Finding]) {
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
    type Key<'a> = (Option<&'a [u8]>, usize, usize, RuleId, usize);
    let mut keyed: Vec<Key> = findings
        .iter()
        .enumerate()
        .map(|(i, f)| (bytes(f).map(|p| &p[common..]), f.line, f.col, f.id, i))
        .collect();
    keyed.sort_unstable();
    // Where each finding goes, applied in place by swaps (each puts one finding
    // in its place): no second list of findings is built.
    let mut dest = vec![0; keyed.len()];
    for (k, key) in keyed.iter().enumerate() {
        dest[key.4] = k;
    }
    drop(keyed);
    for i in 0..dest.len() {
        while dest[i] != i {
            let d = dest[i];
            findings.swap(i, d);
            dest.swap(i, d);
        }
    }
}

/// The single-file rules (ML101–ML133 that need no directory) on one topic file.
pub fn file_findings(path: &Path) -> Vec<Finding> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    scan::read_memory_then(path, &name, |m, file, buf| check_file(m, file, buf, None)).unwrap_or_default()
}

/// The single-file rules on a file's text (a former version of it, which the hook
/// compares with the file on disk), reported at `path`.
pub fn text_findings(path: &Path, rel: &str, text: &str) -> Vec<Finding> {
    let mut m = Memory::from_text(rel, text);
    m.path = path.to_path_buf();
    let t = FileText::new(text.as_bytes(), text.len() as u64);
    let mut out = Vec::new();
    topic::check(&m, &t, None, &mut out);
    let links = crate::index::extract_links(&t.text);
    topic::dangling(&m, &t.text, &links, &mut out);
    out
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
pub fn filter(findings: Vec<Finding>, only: &[RuleId], disable: &[RuleId], min: Severity) -> Vec<Finding> {
    findings
        .into_iter()
        .filter(|f| (only.is_empty() || only.contains(&f.id)) && !disable.contains(&f.id) && f.severity >= min)
        .collect()
}

/// Counts by severity.
pub fn counts(findings: &[Finding]) -> (usize, usize, usize) {
    let n = |s| findings.iter().filter(|f| f.severity == s).count();
    (n(Severity::Error), n(Severity::Warning), n(Severity::Info))
}
