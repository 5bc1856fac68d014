//! Which layer a memory belongs to (SPEC §12): a team convention (how the project
//! is built, tested, reviewed or released) for `CLAUDE.md`, a personal one for
//! `CLAUDE.local.md`, editor or IDE preferences for neither, and practices about
//! pull requests, merges and branches with no default layer. The topics are word
//! lists matched against the memory's tokens (name, description and rule); the
//! words that matched are part of the proposal's reason.

use crate::memory::MemoryType;

use super::tokens::Tokens;

/// What a memory is about, for the promotion rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Topic {
    /// Editor or IDE preferences: promoted nowhere.
    Editor,
    /// Pull requests, merges, branches: `ambiguous`.
    Branches,
    /// How the project is built, tested, reviewed or released.
    Convention,
    /// How the user likes to work with Claude (replies, questions, language).
    Personal,
}

impl Topic {
    pub fn as_str(self) -> &'static str {
        match self {
            Topic::Editor => "editor/IDE",
            Topic::Branches => "pull requests/merges/branches",
            Topic::Convention => "build/test/review/release",
            Topic::Personal => "personal workflow",
        }
    }
}

const EDITOR: &[&str] = &[
    "editor",
    "emacs",
    "ide",
    "intellij",
    "jetbrains",
    "keybinding",
    "keybindings",
    "keymap",
    "neovim",
    "nvim",
    "pycharm",
    "sublime",
    "vim",
    "vscode",
    "webstorm",
    "xcode",
];

const BRANCHES: &[&str] = &[
    "branch",
    "branches",
    "branching",
    "cherry",
    "merge",
    "merged",
    "merges",
    "merging",
    "pull",
    "rebase",
    "rebased",
    "rebasing",
    "squash",
    "trunk",
    "worktree",
    "worktrees",
];

const CONVENTION: &[&str] = &[
    "build",
    "building",
    "builds",
    "changelog",
    "clippy",
    "commit",
    "commits",
    "compile",
    "compiles",
    "compiling",
    "coverage",
    "deploy",
    "deployed",
    "deploying",
    "deployment",
    "deploys",
    "eslint",
    "formatter",
    "formatting",
    "jest",
    "lint",
    "linter",
    "linting",
    "prettier",
    "publish",
    "publishing",
    "pytest",
    "regression",
    "regressions",
    "release",
    "released",
    "releases",
    "releasing",
    "review",
    "reviewed",
    "reviewer",
    "reviewers",
    "reviewing",
    "reviews",
    "rustfmt",
    "tdd",
    "test",
    "testing",
    "tests",
    "typecheck",
    "vitest",
];

const PERSONAL: &[&str] = &[
    "answer",
    "answers",
    "chinese",
    "communication",
    "concise",
    "emoji",
    "english",
    "explain",
    "explanations",
    "replies",
    "reply",
    "respond",
    "response",
    "responses",
    "summaries",
    "summary",
    "terse",
    "tone",
    "verbose",
];

/// The words of `tokens` in `list`.
fn hits(tokens: &Tokens, list: &[&str]) -> Vec<String> {
    tokens
        .iter()
        .filter(|t| list.binary_search(&t.as_str()).is_ok())
        .cloned()
        .collect()
}

/// The topic of a memory of type `ty` with these tokens, and the words that decided
/// it; `None` when it is about none of them. Pull requests (`PR`, `PRs` are too
/// short for a token) are looked for in `raw`, the text the tokens come from.
pub fn topic(ty: Option<MemoryType>, tokens: &Tokens, raw: &str) -> Option<(Topic, Vec<String>)> {
    let editor = hits(tokens, EDITOR);
    if !editor.is_empty() {
        return Some((Topic::Editor, editor));
    }
    let mut branches = hits(tokens, BRANCHES);
    if raw
        .split(|c: char| !c.is_alphanumeric())
        .any(|w| matches!(w, "PR" | "PRs" | "pr" | "prs"))
    {
        branches.insert(0, "PR".into());
    }
    // `pull` alone (a data pull, `git pull`) is not a pull request.
    if branches.iter().all(|w| w == "pull") {
        branches.clear();
    }
    if !branches.is_empty() && ty != Some(MemoryType::User) {
        return Some((Topic::Branches, branches));
    }
    let convention = hits(tokens, CONVENTION);
    let personal = hits(tokens, PERSONAL);
    match ty {
        Some(MemoryType::User) => Some((Topic::Personal, personal)),
        Some(MemoryType::Feedback | MemoryType::Project) if !convention.is_empty() => {
            Some((Topic::Convention, convention))
        }
        Some(MemoryType::Feedback) if !personal.is_empty() => Some((Topic::Personal, personal)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::tokens::tokens;

    fn of(ty: MemoryType, s: &str) -> Option<Topic> {
        topic(Some(ty), &tokens(s), s).map(|t| t.0)
    }

    #[test]
    fn lists_are_sorted_for_binary_search() {
        for l in [EDITOR, BRANCHES, CONVENTION, PERSONAL] {
            assert!(l.windows(2).all(|w| w[0] < w[1]), "{l:?}");
        }
    }

    #[test]
    fn topics_of_typical_memories() {
        assert_eq!(
            of(MemoryType::Feedback, "Write the tests first (TDD)"),
            Some(Topic::Convention)
        );
        assert_eq!(
            of(MemoryType::Feedback, "Open a PR for every change"),
            Some(Topic::Branches)
        );
        assert_eq!(
            of(MemoryType::Feedback, "Never rebase shared branches"),
            Some(Topic::Branches)
        );
        assert_eq!(
            of(MemoryType::Feedback, "The user edits in Neovim"),
            Some(Topic::Editor)
        );
        assert_eq!(
            of(MemoryType::Feedback, "Keep replies short, no emoji"),
            Some(Topic::Personal)
        );
        assert_eq!(of(MemoryType::User, "Senior Rust developer"), Some(Topic::Personal));
        assert_eq!(
            of(MemoryType::Project, "The release ships on Fridays"),
            Some(Topic::Convention)
        );
        assert_eq!(of(MemoryType::Project, "The parser lives in src/yaml"), None);
        assert_eq!(of(MemoryType::Reference, "Tests run in CI at ci.example.com"), None);
        assert_eq!(of(MemoryType::Feedback, "Pull the data nightly"), None);
    }
}
