//! `lint --fix` (SPEC §3.9.4) in two steps: [`plan`] reads the files the fixable
//! findings name and decides every change (it writes nothing), then the plan is
//! either shown ([`FixPlan::preview`], `--dry-run`: diffs and `moved:` lines) or
//! written ([`apply`], under the write lock, through a [`Sink`]).

mod apply;
mod rewrite;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::index::{self, edit, load};
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
    /// Planning for `--dry-run`: see [`plan`].
    pub preview: bool,
}

/// Every change `lint --fix` would make, in the order it makes them.
#[derive(Debug)]
pub struct FixPlan {
    pub fixes: Vec<PlannedFix>,
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

/// Plan the fixes for `findings`: the frontmatter rewrites (ML102, ML111), the
/// index lines (ML203), then the temp-file moves (ML132), each from the files'
/// current content.
///
/// A real run plans an ML203 line from the frontmatter the same plan rewrites
/// (the fixes used to be written one after another, each reading the files
/// afresh); a preview plans every fix from the files as they are on disk.
pub fn plan(scope: &Scope, findings: &[Finding]) -> FixPlan {
    let mut fixes = Vec::new();
    let mut seen = HashSet::new();
    for f in findings
        .iter()
        .filter(|f| matches!(f.id, RuleId::ML102 | RuleId::ML111))
    {
        if let Some(p) = &f.path
            && seen.insert(p.clone())
        {
            fixes.push(frontmatter_fix(scope, f.id, p));
        }
    }
    let rewritten: HashMap<&Path, &str> = if scope.preview {
        HashMap::new()
    } else {
        fixes.iter().filter_map(rewritten_text).collect()
    };
    let unindexed: Vec<&Path> = findings
        .iter()
        .filter(|f| f.id == RuleId::ML203)
        .filter_map(|f| f.path.as_deref())
        .collect();
    let index_fixes = index_fixes(scope, &unindexed, &rewritten);
    fixes.extend(index_fixes);
    for f in findings.iter().filter(|f| f.id == RuleId::ML132) {
        if let Some(p) = &f.path {
            fixes.push(PlannedFix {
                id: RuleId::ML132,
                rel: rel_of(scope.memdir.dir(), p),
                action: Action::Trash { path: p.clone() },
                resolves: vec![p.clone()],
            });
        }
    }
    FixPlan { fixes }
}

fn rewritten_text(f: &PlannedFix) -> Option<(&Path, &str)> {
    match &f.action {
        Action::Replace { path, new, .. } => Some((path.as_path(), new.as_str())),
        _ => None,
    }
}

/// ML102 or ML111 on one file.
fn frontmatter_fix(scope: &Scope, id: RuleId, path: &Path) -> PlannedFix {
    let Ok(bytes) = crate::fsread::read_regular(path, crate::store::MAX_INDEX_BYTES) else {
        return PlannedFix::skip(id, scope, path, "cannot be read");
    };
    let Ok(text) = String::from_utf8(bytes) else {
        return PlannedFix::skip(id, scope, path, "not valid UTF-8; fix it by hand");
    };
    let new = if id == RuleId::ML102 {
        move_block_to_top(&text)
    } else {
        requote(&text)
    };
    match new {
        Some(new) => PlannedFix {
            id,
            rel: rel_of(scope.memdir.dir(), path),
            action: Action::Replace {
                path: path.to_path_buf(),
                old: text,
                new,
                keep_mtime: true,
            },
            resolves: vec![path.to_path_buf()],
        },
        None => PlannedFix::skip(
            id,
            scope,
            path,
            "the rewrite would not give the same fields; fix it by hand",
        ),
    }
}

/// ML203: one rewrite per index file that gains lines, and a skip for each file
/// that cannot be indexed. `rewritten` holds the planned text of files whose
/// frontmatter the plan rewrites.
fn index_fixes(scope: &Scope, files: &[&Path], rewritten: &HashMap<&Path, &str>) -> Vec<PlannedFix> {
    let mut by_index: BTreeMap<PathBuf, Vec<(String, &Path)>> = BTreeMap::new();
    for p in files {
        let rel = rel_of(scope.memdir.dir(), p);
        let c = scope.memdir.covering(&rel);
        by_index.entry(c.index).or_default().push((c.local, p));
    }
    let mut out = Vec::new();
    for (index_path, entries) in by_index {
        let old = crate::index::read_index_text(&index_path);
        let mut new = old.clone();
        let eol = edit::line_ending(&old);
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
            let memory = match rewritten.get(path) {
                Some(text) => Ok(Memory::from_text(&local, text)),
                None => scan::read_memory(path, &local),
            };
            match index_line(memory, &new, eol) {
                Ok(candidate) => {
                    new = candidate;
                    added.push(path.to_path_buf());
                }
                Err(why) => out.push(PlannedFix::skip(RuleId::ML203, scope, path, why)),
            }
        }
        if !added.is_empty() {
            out.push(PlannedFix {
                id: RuleId::ML203,
                rel: rel_of(scope.memdir.dir(), &index_path),
                action: Action::Replace {
                    path: index_path,
                    old,
                    new,
                    keep_mtime: false,
                },
                resolves: added,
            });
        }
    }
    out
}

/// `index` with the memory's line appended, or why it cannot be added.
fn index_line(memory: std::io::Result<Memory>, index: &str, eol: &str) -> Result<String, &'static str> {
    let m = memory.map_err(|_| "cannot be read")?;
    let title = match &m.fields.name {
        Some(Value::String(s)) => s.clone(),
        _ => m.stem().to_string(),
    };
    let Some(Value::String(hook)) = &m.fields.description else {
        return Err("no string description to use as the hook");
    };
    let (line, _) = index::render_entry(title.trim(), &m.rel, hook.trim());
    let candidate = edit::append_line(index, &line, eol);
    let loaded = load::load(&candidate);
    let last_line = index::lines(&candidate)
        .iter()
        .rposition(|l| !l.trim().is_empty())
        .map_or(0, |i| i + 1);
    if loaded.dropped.iter().any(|d| d.line == last_line) {
        return Err("the new index line would fall past Claude Code's truncation cut");
    }
    Ok(candidate)
}
