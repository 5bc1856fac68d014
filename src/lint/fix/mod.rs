//! `lint --fix` (SPEC §3.9.4, §3.13) in two steps: [`plan`] reads the files the
//! fixable findings name and decides every change on an in-memory state (it writes
//! nothing), then the same plan is either shown ([`FixPlan::preview`], `--dry-run`:
//! diffs and `moved:` lines) or written ([`apply`], under the write lock, through a
//! [`Sink`]). There is no other path, so the preview predicts the real run.

mod apply;
mod rewrite;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::index;
use crate::memory::Memory;
use crate::scan;
use crate::yaml::Value;

use super::{Finding, RuleId};
use crate::memdir::MemoryDir;

pub use apply::{Sink, apply};
pub use rewrite::{move_block_to_top, requote};

/// Where the fixes apply.
pub struct Scope<'a> {
    /// The linted memory dir and scope; it says which index covers each file.
    pub memdir: &'a MemoryDir,
    /// Whether a team store is configured (SPEC §2.13): only then is `team/` team
    /// memory with its own index; without one, Claude Code 2.1.332 scans
    /// `team/<file>.md` as a personal memory that the main `MEMORY.md` must link.
    pub team_store: bool,
    /// Whether a finding of the rule is shown (`--rule`, `--disable`,
    /// `--min-severity`): a rule that a fix reveals (ML111 in a block ML102
    /// moves to line 1) is fixed in the same run only when its findings are shown.
    pub shown: &'a dyn Fn(RuleId) -> bool,
}

/// Every change `lint --fix` would make, in the order it makes them.
#[derive(Debug)]
pub struct FixPlan {
    pub fixes: Vec<PlannedFix>,
    /// The entries the index lines placed past Claude Code's cut, each named
    /// (SPEC §3.14 "Budget refusals": `lint --fix` never skips for the budget).
    pub warnings: Vec<String>,
}

/// One fix: a rewrite, a move into the trash, or a reason not to.
#[derive(Debug)]
pub struct PlannedFix {
    pub id: RuleId,
    /// The file changed or moved, relative to the linted dir.
    pub rel: String,
    pub action: Action,
    /// The files whose findings this fix resolves.
    pub resolves: Vec<PathBuf>,
}

#[derive(Debug)]
pub enum Action {
    /// Replace the file at `path`, read as `old`, with `new`; a mechanical
    /// rewrite of a topic file keeps its mtime (`keep_mtime`), an index gains lines.
    Replace {
        path: PathBuf,
        old: String,
        new: String,
        keep_mtime: bool,
    },
    /// Move the entry at `path` into `.trash/<stamp>/<rel>.deleted`.
    Trash { path: PathBuf },
    /// Not fixed, and why.
    Skip(String),
}

/// What one fix did (or would do): the `fixes` items of `lint --json`.
#[derive(Clone, Debug, Serialize)]
pub struct Fix {
    pub id: RuleId,
    /// The file changed or moved, relative to the linted dir.
    #[serde(rename = "path")]
    pub rel: String,
    pub applied: bool,
    /// Unified diff (or `moved: …` line) for `--dry-run`.
    pub diff: Option<String>,
    /// Why a fix was skipped.
    pub skipped: Option<String>,
    /// The files whose findings this fix resolves.
    #[serde(skip)]
    pub resolves: Vec<PathBuf>,
}

impl PlannedFix {
    fn skip(id: RuleId, scope: &Scope, path: &Path, why: &str) -> PlannedFix {
        PlannedFix {
            id,
            rel: rel_of(scope.memdir.dir(), path),
            action: Action::Skip(why.into()),
            resolves: Vec::new(),
        }
    }

    /// The outcome, before the change is written (or when it is only shown).
    fn outcome(&self, applied: bool, diff: Option<String>) -> Fix {
        Fix {
            id: self.id,
            rel: self.rel.clone(),
            applied,
            diff,
            skipped: match &self.action {
                Action::Skip(why) => Some(why.clone()),
                _ => None,
            },
            resolves: self.resolves.clone(),
        }
    }
}

impl FixPlan {
    /// The fixes as `--dry-run` shows them: each change as a unified diff or a
    /// `moved:` line (with the trash stamp of `now`), nothing applied.
    pub fn preview(&self, now: DateTime<Utc>) -> Vec<Fix> {
        let stamp = now.format("%Y%m%dT%H%M%SZ");
        let shown = |f: &PlannedFix| match &f.action {
            Action::Replace { old, new, .. } => Some(crate::diff::unified(&f.rel, old, new)),
            Action::Trash { .. } => Some(format!("moved: {} -> .trash/{stamp}/{}.deleted", f.rel, f.rel)),
            Action::Skip(_) => None,
        };
        self.fixes.iter().map(|f| f.outcome(false, shown(f))).collect()
    }
}

fn rel_of(dir: &Path, p: &Path) -> String {
    p.strip_prefix(dir).unwrap_or(p).to_string_lossy().into_owned()
}

/// The memory dir as the plan leaves it: the text of every file a planned fix has
/// read or rewritten, so that each fix starts from what the fixes before it wrote.
/// The plan is made on this state alone, then either shown (`--dry-run`) or written
/// (`apply`): both are the same plan, so the preview is exactly the real run.
#[derive(Default)]
struct State {
    texts: HashMap<PathBuf, String>,
}

impl State {
    /// A topic file's text as the plan has it (read from disk the first time).
    fn topic(&mut self, path: &Path) -> Result<String, &'static str> {
        if let Some(t) = self.texts.get(path) {
            return Ok(t.clone());
        }
        let bytes = crate::fsread::read_regular(path, crate::store::MAX_INDEX_BYTES).map_err(|_| "cannot be read")?;
        let text = String::from_utf8(bytes).map_err(|_| "not valid UTF-8; fix it by hand")?;
        self.texts.insert(path.to_path_buf(), text.clone());
        Ok(text)
    }

    /// An index's text as the plan has it (read from disk the first time).
    fn index(&mut self, path: &Path) -> String {
        self.texts
            .entry(path.to_path_buf())
            .or_insert_with(|| crate::index::read_index_text(path))
            .clone()
    }

    /// A memory as the plan leaves it: parsed from the planned text when a fix
    /// rewrote it, else read as the scan reads it.
    fn memory(&self, path: &Path, rel: &str) -> std::io::Result<Memory> {
        match self.texts.get(path) {
            Some(text) => {
                let mut m = Memory::from_text(rel, text);
                m.path = path.to_path_buf();
                Ok(m)
            }
            None => scan::read_memory(path, rel),
        }
    }

    /// Plan `path`'s change from `old` to `new`.
    fn replace(&mut self, path: &Path, old: String, new: String, keep_mtime: bool) -> Action {
        self.texts.insert(path.to_path_buf(), new.clone());
        Action::Replace {
            path: path.to_path_buf(),
            old,
            new,
            keep_mtime,
        }
    }
}

/// The frontmatter rewrites, in the order they run on one file.
const FRONTMATTER_RULES: [RuleId; 2] = [RuleId::ML102, RuleId::ML111];

/// Plan the fixes for `findings`, on one in-memory [`State`]: per file the
/// frontmatter rewrites (ML102, ML111, each on the text the one before it
/// left), then the index lines (ML203, from the frontmatter as rewritten), then the
/// temp-file moves (ML132). `--dry-run` shows this plan and `lint --fix` writes it
/// (under the write lock), so both make the same fixes in the same order.
pub fn plan(scope: &Scope, findings: &[Finding]) -> FixPlan {
    let mut state = State::default();
    let mut fixes = Vec::new();
    // Each file once, in the order of its first finding, with its rules.
    let mut files: Vec<(&Path, Vec<RuleId>)> = Vec::new();
    for f in findings.iter().filter(|f| FRONTMATTER_RULES.contains(&f.id)) {
        let Some(p) = f.path.as_deref() else { continue };
        match files.iter_mut().find(|(q, _)| *q == p) {
            Some((_, rules)) => rules.push(f.id),
            None => files.push((p, vec![f.id])),
        }
    }
    for (path, rules) in files {
        let mut moved = false;
        for id in FRONTMATTER_RULES {
            // Once ML102 has moved the block to line 1, Claude Code reads its
            // fields: the rules they break are fixed now, as the next lint would
            // report them.
            let revealed = moved && (scope.shown)(id) && state.texts.get(path).is_some_and(|t| reveals(id, t));
            if rules.contains(&id) || revealed {
                let fix = frontmatter_fix(scope, &mut state, id, path);
                moved |= id == RuleId::ML102 && matches!(fix.action, Action::Replace { .. });
                fixes.push(fix);
            }
        }
    }
    let mut seen = HashSet::new();
    let unindexed: Vec<&Path> = findings
        .iter()
        .filter(|f| f.id == RuleId::ML203)
        .filter_map(|f| f.path.as_deref())
        .filter(|p| seen.insert(*p))
        .collect();
    let mut warnings = Vec::new();
    fixes.extend(index_fixes(scope, &mut state, &unindexed, &mut warnings));
    for f in findings.iter().filter(|f| f.id == RuleId::ML132) {
        if let Some(p) = &f.path {
            fixes.push(PlannedFix {
                id: RuleId::ML132,
                rel: rel_of(scope.memdir.dir(), p),
                action: Action::Trash { path: p.to_path_buf() },
                resolves: vec![p.to_path_buf()],
            });
        }
    }
    FixPlan { fixes, warnings }
}

/// Whether lint reports `id` (ML111) on a file holding `text`.
fn reveals(id: RuleId, text: &str) -> bool {
    let m = Memory::from_text("", text);
    match id {
        RuleId::ML111 => m.frontmatter.status == crate::frontmatter::Status::Retried && !m.frontmatter.limit_hit,
        _ => false,
    }
}

/// ML102 or ML111 on one file, from its text in `state`.
fn frontmatter_fix(scope: &Scope, state: &mut State, id: RuleId, path: &Path) -> PlannedFix {
    let text = match state.topic(path) {
        Ok(t) => t,
        Err(why) => return PlannedFix::skip(id, scope, path, why),
    };
    const BY_HAND: &str = "the rewrite would not give the same fields; fix it by hand";
    let new = match id {
        RuleId::ML102 => move_block_to_top(&text).ok_or(BY_HAND),
        _ => requote(&text).ok_or(BY_HAND),
    };
    match new {
        Ok(new) => PlannedFix {
            id,
            rel: rel_of(scope.memdir.dir(), path),
            action: state.replace(path, text, new, true),
            resolves: vec![path.to_path_buf()],
        },
        Err(why) => PlannedFix::skip(id, scope, path, why),
    }
}

/// ML203: one rewrite per index file that gains lines, and a skip for each file
/// that cannot be indexed; each memory as the plan's frontmatter fixes left it.
fn index_fixes(scope: &Scope, state: &mut State, files: &[&Path], warnings: &mut Vec<String>) -> Vec<PlannedFix> {
    let mut by_index: BTreeMap<PathBuf, Vec<(String, &Path)>> = BTreeMap::new();
    for p in files {
        let rel = rel_of(scope.memdir.dir(), p);
        let c = match scope.memdir.in_team(&rel) {
            Some(_) if !scope.team_store => scope.memdir.covering_main(&rel),
            _ => scope.memdir.covering(&rel),
        };
        by_index.entry(c.index).or_default().push((c.local, p));
    }
    let mut out = Vec::new();
    for (index_path, entries) in by_index {
        let old = state.index(&index_path);
        let mut new = old.clone();
        let mut added = Vec::new();
        // The findings were made before the write lock was taken: another
        // `lint --fix` or an `add` may have indexed the file since. The index read
        // here, under the lock, decides (the sink then refuses an index that
        // changes before the rename).
        let mut linked: HashSet<String> = index::extract_links(&old)
            .iter()
            .filter_map(|l| l.memory_target().map(str::to_string))
            .collect();
        for (local, path) in entries {
            if !linked.insert(local.clone()) {
                out.push(PlannedFix::skip(
                    RuleId::ML203,
                    scope,
                    path,
                    "already indexed (another process added the line meanwhile)",
                ));
                continue;
            }
            match index_line(state.memory(path, &local), &local, &new) {
                Ok(candidate) => {
                    new = candidate;
                    added.push(path.to_path_buf());
                }
                Err(why) => out.push(PlannedFix::skip(RuleId::ML203, scope, path, why)),
            }
        }
        if !added.is_empty() {
            // Never a skip for the budget (SPEC §3.14): the line is placed by
            // §10.2 and each entry now past the cut is named.
            let rel = rel_of(scope.memdir.dir(), &index_path);
            let rebuild = if scope.memdir.in_team(&rel).is_some() && scope.team_store {
                "memctl --team index rebuild"
            } else {
                "memctl index rebuild"
            };
            warnings.extend(index::place::cut_warnings(
                &rel,
                &index::place::cut_entries(&old, &new),
                rebuild,
            ));
            out.push(PlannedFix {
                id: RuleId::ML203,
                rel: rel_of(scope.memdir.dir(), &index_path),
                action: state.replace(&index_path, old, new, false),
                resolves: added,
            });
        }
    }
    out
}

/// `index` with the memory's line placed for its type (SPEC §10.2), or why it
/// cannot be added: it cannot be read or has no string description. A line past
/// Claude Code's cut is added all the same (SPEC §3.14); the plan names it.
fn index_line(memory: std::io::Result<Memory>, local: &str, index: &str) -> Result<String, &'static str> {
    let m = memory.map_err(|_| "cannot be read")?;
    let title = match &m.fields.name {
        Some(Value::String(s)) => s.clone(),
        _ => m.stem().to_string(),
    };
    let Some(Value::String(hook)) = &m.fields.description else {
        return Err("no string description to use as the hook");
    };
    let (line, _) = index::render_entry(title.trim(), local, hook.trim());
    let ty = m.claude_type().map(|t| t.as_str());
    Ok(index::place::place(index, &line, ty, false).text)
}
