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
    "conversational",
    "emoji",
    "english",
    "explain",
    "explanations",
    "question",
    "questions",
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

/// The longest word of the topic lists, in bytes.
const MAX_TOPIC_WORD: usize = 14;

/// Whether `w` is in one of the topic lists (one hash look-up: most words are
/// in none).
fn is_topic_word(w: &str) -> bool {
    static WORDS: std::sync::OnceLock<crate::fx::HashSet<&'static str>> = std::sync::OnceLock::new();
    w.len() <= MAX_TOPIC_WORD
        && topic_shapes().may_hold(w.as_bytes())
        && WORDS
            .get_or_init(|| [EDITOR, BRANCHES, CONVENTION, PERSONAL].concat().into_iter().collect())
            .contains(w)
}

/// The topic word whose bytes are `w` (lower-case ASCII), if any: the words
/// are bucketed by first byte and length, so a look-up compares a few bytes
/// with at most a few words (no hashing, no UTF-8 check).
#[cfg(test)]
fn topic_word_of(w: &[u8]) -> Option<&'static str> {
    topic_word_at(w).map(|(_, t)| t)
}

/// [`topic_word_of`] with the word's place among all topic words (below 128).
fn topic_word_at(w: &[u8]) -> Option<(usize, &'static str)> {
    type Buckets = Vec<Vec<(u128, usize, &'static str)>>;
    static BUCKETS: std::sync::OnceLock<Buckets> = std::sync::OnceLock::new();
    let at = |first: u8, len: usize| usize::from(first) * (MAX_TOPIC_WORD + 1) + len;
    // A word of at most 16 bytes as one number (zero-padded): compared at once.
    let key = |w: &[u8]| {
        let mut b = [0u8; 16];
        b[..w.len()].copy_from_slice(w);
        u128::from_le_bytes(b)
    };
    let buckets = BUCKETS.get_or_init(|| {
        let mut b = vec![Vec::new(); 256 * (MAX_TOPIC_WORD + 1)];
        for (k, word) in [EDITOR, BRANCHES, CONVENTION, PERSONAL]
            .concat()
            .into_iter()
            .enumerate()
        {
            b[at(word.as_bytes()[0], word.len())].push((key(word.as_bytes()), k, word));
        }
        b
    });
    let (&first, _) = w.split_first()?;
    if w.len() > MAX_TOPIC_WORD {
        return None;
    }
    let k = key(w);
    buckets[at(first, w.len())]
        .iter()
        .find(|(t, _, _)| *t == k)
        .map(|&(_, i, t)| (i, t))
}

/// The (first letter, last letter, length) triples of the topic words, a
/// letter's case ignored: a run whose triple is not among them is no topic word.
struct Ends([u16; 32 * 32]);

impl Ends {
    fn at(first: u8, last: u8) -> usize {
        usize::from(first & 31) * 32 + usize::from(last & 31)
    }

    /// Whether a topic word may start with `first`, end with `last` and be `len`
    /// bytes long (`len` below 16).
    fn may_have(&self, first: u8, last: u8, len: usize) -> bool {
        self.0[Ends::at(first, last)] & (1 << len.min(15)) != 0
    }
}

fn topic_ends() -> &'static Ends {
    static ENDS: std::sync::OnceLock<Ends> = std::sync::OnceLock::new();
    ENDS.get_or_init(|| {
        let mut t = [0u16; 32 * 32];
        for w in [EDITOR, BRANCHES, CONVENTION, PERSONAL].concat() {
            let b = w.as_bytes();
            t[Ends::at(b[0], b[b.len() - 1])] |= 1 << w.len();
        }
        Ends(t)
    })
}

/// The (first byte, length) pairs of the topic words.
fn topic_shapes() -> &'static super::words::Shapes {
    static SHAPES: std::sync::OnceLock<super::words::Shapes> = std::sync::OnceLock::new();
    SHAPES.get_or_init(|| super::words::Shapes::of([EDITOR, BRANCHES, CONVENTION, PERSONAL].concat()))
}

/// The tokens of `s` ([`super::tokens::tokens`]) that are in a topic list: all
/// [`topic`] looks at (it matches tokens against the lists), without a `String`
/// per word. ASCII runs are lower-cased on the stack; any other run takes
/// `tokens`' own path.
pub fn topic_tokens(s: &str) -> Tokens {
    /// The ASCII separators: every ASCII byte but letters, digits and `_`.
    const SEP: [bool; 256] = {
        let mut t = [false; 256];
        let mut b = 0;
        while b < 128 {
            let c = b as u8;
            t[b] = !(c.is_ascii_alphanumeric() || c == b'_');
            b += 1;
        }
        t
    };
    let mut out = Tokens::new();
    // The topic words met (by their place: [`topic_word_at`]).
    let mut met: u128 = 0;
    let ends = topic_ends();
    // Runs between ASCII separators, read as bytes; a run with a non-ASCII char
    // is split again by `tokens`' own rule (its non-ASCII separators).
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if SEP[usize::from(bytes[i])] {
            i += 1;
            continue;
        }
        let start = i;
        let mut ascii = true;
        while i < bytes.len() && !SEP[usize::from(bytes[i])] {
            ascii &= bytes[i].is_ascii();
            i += 1;
        }
        let r = &s[start..i];
        if !ascii {
            out.extend(super::tokens::words(r).filter(|w| is_topic_word(w)));
            continue;
        }
        // The shape of the lower-cased run, before copying it.
        let (first, last) = (r.as_bytes()[0], r.as_bytes()[r.len() - 1]);
        if r.len() < 3 || r.len() > MAX_TOPIC_WORD || !ends.may_have(first, last, r.len()) {
            continue;
        }
        let mut buf = [0u8; MAX_TOPIC_WORD];
        for (d, &b) in buf.iter_mut().zip(r.as_bytes()) {
            *d = b.to_ascii_lowercase();
        }
        // A word already met in this text is not looked up in the set again.
        if let Some((k, w)) = topic_word_at(&buf[..r.len()])
            && met & (1 << k) == 0
        {
            met |= 1 << k;
            if !out.contains(w) {
                out.insert(w.to_string());
            }
        }
    }
    out
}

/// What a memory says, as the classifier reads it.
pub struct Subject<'a> {
    pub ty: Option<MemoryType>,
    /// The tokens of its name and description: what it is about.
    pub about: &'a Tokens,
    /// The tokens of its rule's first paragraph.
    pub rule: &'a Tokens,
    /// The raw name, description and first paragraph (for `PR`, which is too
    /// short to be a token, and for the dates and issue numbers of a status).
    pub raw_about: &'a str,
    pub raw_rule: &'a str,
}

/// Whether `raw` names a pull request (`PR`, `PRs`).
fn names_pr(raw: &str) -> bool {
    memchr::memmem::find(raw.as_bytes(), b"PR").is_some()
        && raw
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| matches!(w, "PR" | "PRs"))
}

/// Whether a name or description records a state rather than a practice: a date
/// (`2026-05-18`) or an issue or PR number (`#548`).
fn is_status(raw: &str) -> bool {
    let b = raw.as_bytes();
    let date = b.windows(10).any(|w| {
        w[..4].iter().all(u8::is_ascii_digit)
            && w[4] == b'-'
            && w[5..7].iter().all(u8::is_ascii_digit)
            && w[7] == b'-'
            && w[8..].iter().all(u8::is_ascii_digit)
    });
    let issue = b.windows(2).any(|w| w[0] == b'#' && w[1].is_ascii_digit());
    date || issue
}

/// The topic of a memory and the words that decided it; `None` when it is about
/// none of them. Editor words anywhere win (promoted nowhere); then pull
/// requests, merges and branches in a feedback memory (`ambiguous`); a `user`
/// memory is personal. A feedback or project memory goes by the topic whose
/// words weigh most (twice in the name or description, once in the rule), which
/// must appear in the name or description; a project memory that records a state
/// (a date or an issue number in its name or description) is not promoted.
pub fn topic<'a>(s: &Subject<'a>) -> Option<(Topic, Vec<String>)> {
    // Each token's lists, looked up once.
    const LISTS: [&[&str]; 4] = [EDITOR, BRANCHES, CONVENTION, PERSONAL];
    let (editor, branch, convention, personal) = (1u8, 2u8, 4u8, 8u8);
    let marked = |t: &'a Tokens| -> Vec<(&'a str, u8)> {
        t.iter()
            .map(|w| {
                let bits = LISTS
                    .iter()
                    .enumerate()
                    .filter(|(_, l)| l.binary_search(&w.as_str()).is_ok())
                    .fold(0u8, |m, (k, _)| m | (1 << k));
                (w.as_str(), bits)
            })
            .filter(|(_, bits)| *bits != 0)
            .collect()
    };
    let (about, rule) = (marked(s.about), marked(s.rule));
    // The words of `tokens` in the list `bit`, in the tokens' order.
    let hits = |tokens: &[(&str, u8)], bit: u8| -> Vec<String> {
        tokens
            .iter()
            .filter(|(_, m)| m & bit != 0)
            .map(|(w, _)| (*w).to_string())
            .collect()
    };
    let count = |tokens: &[(&str, u8)], bit: u8| tokens.iter().filter(|(_, m)| m & bit != 0).count();
    let both = |bit: u8| {
        let mut v = hits(&about, bit);
        for w in hits(&rule, bit) {
            if !v.contains(&w) {
                v.push(w);
            }
        }
        v
    };
    let editor = both(editor);
    if !editor.is_empty() {
        return Some((Topic::Editor, editor));
    }
    if s.ty == Some(MemoryType::Feedback) {
        let mut branches = both(branch);
        if names_pr(s.raw_about) || names_pr(s.raw_rule) {
            branches.insert(0, "PR".into());
        }
        // `pull` alone (a data pull, `git pull`) is not a pull request.
        if !branches.iter().all(|w| w == "pull") {
            return Some((Topic::Branches, branches));
        }
    }
    if s.ty == Some(MemoryType::User) {
        return Some((Topic::Personal, both(personal)));
    }
    if s.ty == Some(MemoryType::Project) && is_status(s.raw_about) {
        return None;
    }
    let weigh = |bit: u8| 2 * count(&about, bit) + count(&rule, bit);
    let conv = (weigh(convention), count(&about, convention) > 0);
    let pers = (weigh(personal), count(&about, personal) > 0);
    match s.ty {
        Some(MemoryType::Feedback) if pers.1 && pers.0 > conv.0 => Some((Topic::Personal, both(personal))),
        Some(MemoryType::Feedback | MemoryType::Project) if conv.1 => Some((Topic::Convention, both(convention))),
        Some(MemoryType::Feedback) if pers.1 => Some((Topic::Personal, both(personal))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::tokens::tokens;

    fn of(ty: MemoryType, s: &str) -> Option<Topic> {
        let t = tokens(s);
        let none = tokens("");
        topic(&Subject {
            ty: Some(ty),
            about: &t,
            rule: &none,
            raw_about: s,
            raw_rule: "",
        })
        .map(|t| t.0)
    }

    #[test]
    fn lists_are_sorted_for_binary_search() {
        for l in [EDITOR, BRANCHES, CONVENTION, PERSONAL] {
            assert!(l.windows(2).all(|w| w[0] < w[1]), "{l:?}");
            assert!(l.iter().all(|w| w.len() <= MAX_TOPIC_WORD), "{l:?}");
            // Topic words are tokens: 3 letters or more, lower-case, no stop word.
            assert!(l.iter().all(|w| tokens(w).contains(*w) && w.len() >= 3), "{l:?}");
            // The shapes' pre-filter lets every topic word through, and the
            // buckets find each.
            assert!(l.iter().all(|w| is_topic_word(w)), "{l:?}");
            assert!(l.iter().all(|w| topic_word_of(w.as_bytes()) == Some(*w)), "{l:?}");
            let (b, up) = (
                |w: &str| w.as_bytes().to_vec(),
                |w: &str| w.to_ascii_uppercase().into_bytes(),
            );
            assert!(
                l.iter().all(|w| [b(w), up(w)]
                    .iter()
                    .all(|x| topic_ends().may_have(x[0], x[x.len() - 1], x.len()))),
                "{l:?}"
            );
        }
        let all = [EDITOR, BRANCHES, CONVENTION, PERSONAL].concat();
        // [`topic_tokens`] marks the words met in a `u128`, by their place.
        assert!(all.len() <= 128);
        for (k, w) in all.iter().enumerate() {
            assert_eq!(topic_word_at(w.as_bytes()), Some((k, *w)));
        }
    }

    #[test]
    fn topic_tokens_are_the_tokens_in_the_lists() {
        for s in [
            "Write the tests first (TDD); REVIEW every PR, squash-merge branches.",
            "Ünïcode Tests: ÉDITOR vim \u{212A}eymap keymap_x emoji, Replies; naïve 2026 cherry-pick",
            "review review reviewed reviewing build_tests deploy.Release",
            "reviews reviewz revie merge merges mergesx vim vimx ide ides pull pulls",
            "",
        ] {
            let all = tokens(s);
            let want: Tokens = all.iter().filter(|w| is_topic_word(w)).cloned().collect();
            assert_eq!(topic_tokens(s), want, "{s}");
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
        assert_eq!(of(MemoryType::Project, "PR #548 merged, tests green"), None);
        assert_eq!(
            of(MemoryType::Feedback, "Terse replies; commit messages in English"),
            Some(Topic::Personal)
        );
    }
}
