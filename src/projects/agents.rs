//! Agent memory dirs (SPEC §2.14) and the configured memory stores (§2.13) for the
//! all-projects view (memctl choice): where a subagent with `memory: user|project|
//! local` keeps its memory, and which of those dirs exist on this machine.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::paths::sanitize::sanitize;
use crate::paths::stores::{RecallMode, Store, Stores};

/// `memory:` of an agent definition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AgentScope {
    User,
    Project,
    Local,
}

/// The agent type as a dir name: every char outside `[A-Za-z0-9_-]` made `-`,
/// `unknown` when empty (SPEC §2.14).
pub fn agent_dir_name(agent: &str) -> String {
    if agent.is_empty() {
        return "unknown".into();
    }
    agent
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect()
}

/// The parent of every agent's dir of one scope (SPEC §2.14): `user` under the
/// memory base, `project`/`local` under the project root, `local` under
/// `CLAUDE_CODE_REMOTE_MEMORY_DIR` when that is set (keyed by the canonical root).
/// `None` when the scope needs a project and there is none.
pub fn agents_parent(
    scope: AgentScope,
    memory_base: &Path,
    project_root: Option<&Path>,
    canonical_root: Option<&Path>,
    remote_memory_dir: Option<&str>,
) -> Option<PathBuf> {
    match scope {
        AgentScope::User => Some(memory_base.join("agent-memory")),
        AgentScope::Project => Some(project_root?.join(".claude").join("agent-memory")),
        AgentScope::Local => match remote_memory_dir.filter(|d| !d.is_empty()) {
            Some(remote) => {
                let root = canonical_root.or(project_root)?;
                let key = sanitize(&root.to_string_lossy()).djb2;
                Some(Path::new(remote).join("projects").join(key).join("agent-memory-local"))
            }
            None => Some(project_root?.join(".claude").join("agent-memory-local")),
        },
    }
}

/// One agent memory dir that exists.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AgentDir {
    pub scope: AgentScope,
    /// The dir name (the sanitized agent type).
    pub agent: String,
    /// The dir, with its trailing separator.
    #[serde(serialize_with = "dir_str")]
    pub dir: PathBuf,
    /// The project it belongs to (null for the user scope).
    pub project_path: Option<String>,
    /// `*.md` files in it other than `MEMORY.md` (non-recursive).
    pub memories: usize,
    /// Whether it has a `MEMORY.md` (what Claude Code loads).
    pub has_index: bool,
}

fn dir_str<S: serde::Serializer>(p: &Path, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&crate::paths::with_sep(p))
}

/// The agent dirs that exist under `parent` (one per subdirectory, name order).
pub fn list_agents(scope: AgentScope, parent: &Path, project: Option<&Path>) -> Vec<AgentDir> {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return Vec::new();
    };
    let mut out: Vec<AgentDir> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| {
            let agent = e.file_name().into_string().ok()?;
            let dir = e.path();
            let (memories, has_index) = count(&dir);
            Some(AgentDir {
                scope,
                agent,
                dir,
                project_path: project.map(|p| p.to_string_lossy().into_owned()),
                memories,
                has_index,
            })
        })
        .collect();
    out.sort_by(|a, b| a.agent.cmp(&b.agent));
    out
}

fn count(dir: &Path) -> (usize, bool) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return (0, false);
    };
    let mut n = 0;
    let mut index = false;
    for e in entries.filter_map(Result::ok) {
        let name = e.file_name();
        let name = name.to_string_lossy();
        if !e.file_type().is_ok_and(|t| t.is_file()) {
            continue;
        }
        if name == "MEMORY.md" {
            index = true;
        } else if name.ends_with(".md") {
            n += 1;
        }
    }
    (n, index)
}

/// Every agent memory dir of this machine: the user scope's, then the project and
/// local scopes' of each project path (`(project root, canonical root)`), deduplicated.
pub fn all_agent_dirs(
    memory_base: &Path,
    projects: &[(PathBuf, Option<PathBuf>)],
    remote_memory_dir: Option<&str>,
) -> Vec<AgentDir> {
    let mut out = Vec::new();
    if let Some(p) = agents_parent(AgentScope::User, memory_base, None, None, remote_memory_dir) {
        out.extend(list_agents(AgentScope::User, &p, None));
    }
    for (root, canonical) in projects {
        for scope in [AgentScope::Project, AgentScope::Local] {
            if let Some(p) = agents_parent(scope, memory_base, Some(root), canonical.as_deref(), remote_memory_dir) {
                out.extend(list_agents(scope, &p, Some(root)));
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|a| seen.insert(a.dir.clone()));
    out
}

/// `memory_stores` of `projects --json`: what `CLAUDE_MEMORY_STORES` configures and
/// whether Claude Code runs in recall mode with memctl's environment.
#[derive(Clone, Debug, Serialize)]
pub struct StoresDoc {
    /// The variable is set to a non-blank value.
    pub set: bool,
    pub stores: Vec<Store>,
    /// Claude Code's message for an invalid value, else null.
    pub error: Option<String>,
    pub recall_mode: RecallMode,
}

impl StoresDoc {
    pub fn of(stores: &Stores, recall_mode: RecallMode) -> StoresDoc {
        StoresDoc {
            set: stores.is_set(),
            stores: stores.stores.clone(),
            error: stores.error.clone(),
            recall_mode,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agent_dirs_of_each_scope() {
        assert_eq!(agent_dir_name("code reviewer/v2"), "code-reviewer-v2");
        assert_eq!(agent_dir_name(""), "unknown");
        let base = Path::new("/h/.claude");
        let root = Path::new("/w/app");
        assert_eq!(
            agents_parent(AgentScope::User, base, None, None, None),
            Some(PathBuf::from("/h/.claude/agent-memory"))
        );
        assert_eq!(
            agents_parent(AgentScope::Project, base, Some(root), None, None),
            Some(PathBuf::from("/w/app/.claude/agent-memory"))
        );
        assert_eq!(
            agents_parent(AgentScope::Local, base, Some(root), None, None),
            Some(PathBuf::from("/w/app/.claude/agent-memory-local"))
        );
        assert_eq!(
            agents_parent(
                AgentScope::Local,
                base,
                Some(root),
                Some(Path::new("/w/main")),
                Some("/r")
            ),
            Some(PathBuf::from("/r/projects/-w-main/agent-memory-local"))
        );
        assert_eq!(agents_parent(AgentScope::Project, base, None, None, None), None);
    }

    #[test]
    fn existing_agent_dirs_are_listed_with_their_counts() {
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path().join("claude");
        let proj = tmp.path().join("proj");
        std::fs::create_dir_all(base.join("agent-memory/reviewer")).unwrap();
        std::fs::write(base.join("agent-memory/reviewer/MEMORY.md"), "- [a](a.md)\n").unwrap();
        std::fs::write(base.join("agent-memory/reviewer/a.md"), "x").unwrap();
        std::fs::create_dir_all(proj.join(".claude/agent-memory-local/tester")).unwrap();
        let all = all_agent_dirs(&base, &[(proj.clone(), None), (proj.clone(), None)], None);
        let got: Vec<(AgentScope, &str, usize, bool)> = all
            .iter()
            .map(|a| (a.scope, a.agent.as_str(), a.memories, a.has_index))
            .collect();
        assert_eq!(
            got,
            [
                (AgentScope::User, "reviewer", 1, true),
                (AgentScope::Local, "tester", 0, false)
            ]
        );
        assert_eq!(all[1].project_path.as_deref(), Some(proj.to_string_lossy().as_ref()));
    }
}
