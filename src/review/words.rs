//! The word lists of review's statements ([`super::statement`]): tools, short
//! terms, stop words, negations, command spellings, abbreviations, and the
//! look-ups on them.

use crate::fx::HashMap;

/// Known tools and commands: as plain words they are terms (weight 2), and two
/// statements naming different ones for the same subject contradict each other.
/// (Not `make`, `node`, `test`: common English words; in a backticked command
/// they are its first word, a tool all the same.)
pub(super) const TOOLS: &[&str] = &[
    "ansible",
    "apt",
    "bazel",
    "biome",
    "black",
    "brew",
    "bun",
    "bunx",
    "cargo",
    "clang",
    "clippy",
    "cmake",
    "composer",
    "conda",
    "curl",
    "deno",
    "docker",
    "esbuild",
    "eslint",
    "flake8",
    "gcc",
    "gradle",
    "helm",
    "isort",
    "jest",
    "kubectl",
    "maven",
    "mocha",
    "mvn",
    "mypy",
    "nextest",
    "ninja",
    "nix",
    "node",
    "nodemon",
    "npm",
    "npx",
    "nvm",
    "pip",
    "pipenv",
    "playwright",
    "pnpm",
    "podman",
    "poetry",
    "prettier",
    "psql",
    "pyright",
    "pytest",
    "python",
    "rollup",
    "rspec",
    "ruff",
    "rustfmt",
    "sqlite",
    "terraform",
    "tox",
    "tsc",
    "turbo",
    "unittest",
    "uv",
    "vite",
    "vitest",
    "webpack",
    "wget",
    "yarn",
];

/// Words shorter than 3 letters that still say something.
pub(super) const SHORT_TERMS: &[&str] = &["ci", "db", "js", "pr", "py", "qa", "ts", "ui", "uv"];

/// English words too common to say what a statement is about (negations are
/// handled before these are dropped).
pub(super) const STOP_WORDS: &[&str] = &[
    "about", "above", "after", "again", "all", "also", "always", "and", "any", "are", "because", "been", "before",
    "being", "below", "between", "both", "but", "can", "could", "did", "does", "doing", "done", "down", "during",
    "each", "else", "etc", "even", "ever", "every", "few", "for", "from", "further", "get", "gets", "had", "has",
    "have", "having", "her", "here", "him", "his", "how", "into", "its", "itself", "just", "let", "like", "may",
    "more", "most", "much", "must", "need", "needs", "nor", "now", "off", "once", "one", "only", "other", "our",
    "ours", "out", "over", "own", "per", "please", "same", "say", "says", "she", "should", "since", "some", "such",
    "than", "that", "the", "their", "them", "then", "there", "these", "they", "this", "those", "through", "too",
    "under", "until", "upon", "use", "used", "uses", "using", "very", "via", "want", "wants", "was", "way", "were",
    "what", "when", "where", "whether", "which", "while", "who", "whom", "why", "will", "with", "within", "would",
    "yet", "you", "your", "yours",
];

/// Words that negate the rest of their clause.
pub(super) const NEGATIONS: &[&str] = &[
    "avoid", "cannot", "dont", "never", "no", "not", "nothing", "stop", "without",
];

/// Words that negate what came before them in their clause ("eslint was removed").
pub(super) const NEGATED_BEFORE: &[&str] = &[
    "deprecated",
    "discouraged",
    "dropped",
    "forbidden",
    "obsolete",
    "removed",
    "retired",
    "unsupported",
];

/// Words that do so after a negation ("bun is not supported").
pub(super) const NEGATED_BEFORE_AFTER_NOT: &[&str] =
    &["allowed", "needed", "recommended", "supported", "used", "wanted"];

/// Spellings of one command folded to one (on the lower-cased text).
pub(super) const COMMAND_SPELLINGS: &[(&str, &str)] = &[
    ("npm run ", "npm "),
    ("yarn run ", "yarn "),
    ("pnpm run ", "pnpm "),
    ("bun run ", "bun "),
    ("python3 -m ", ""),
    ("python -m ", ""),
    ("pnpm exec ", ""),
    ("npx ", ""),
    ("bunx ", ""),
    ("uv run ", ""),
    ("poetry run ", ""),
    ("python3 ", "python "),
    ("pip3 ", "pip "),
];

/// Abbreviations whose `.` does not end a sentence.
pub(super) const ABBREVIATIONS: &[&str] = &["approx", "cf", "e.g", "eg", "etc", "i.e", "ie", "incl", "no", "vs"];

pub(super) fn in_list(list: &[&str], w: &str) -> bool {
    list.binary_search(&w).is_ok()
}

/// Which of the scanner's word lists a chunk is in (bits).
pub(super) const IN_NEGATIONS: u8 = 1;
pub(super) const IN_NEGATED_BEFORE: u8 = 2;
pub(super) const IN_AFTER_NOT: u8 = 4;
pub(super) const IN_ABBREVIATIONS: u8 = 8;

/// The (first byte, length) pairs of a word list's words: a word whose pair is
/// not among them is in none (no hash look-up, which most words would miss).
pub(crate) struct Shapes([u16; 256]);

impl Shapes {
    pub(crate) fn of<'a>(words: impl IntoIterator<Item = &'a str>) -> Shapes {
        let mut t = [0u16; 256];
        for w in words {
            if let Some(&b) = w.as_bytes().first() {
                // A word of 16 bytes or more marks every length of its first byte.
                t[usize::from(b)] |= if w.len() < 16 { 1 << w.len() } else { u16::MAX };
            }
        }
        Shapes(t)
    }

    /// Whether a word of the list may be `w` (`false`: it is none of them).
    pub(crate) fn may_hold(&self, w: &[u8]) -> bool {
        match w.first() {
            Some(&b) => self.may_have(b, w.len()),
            None => true,
        }
    }

    /// Whether a word of the list may start with `first` and be `len` bytes long.
    pub(crate) fn may_have(&self, first: u8, len: usize) -> bool {
        self.0[usize::from(first)] & (1 << len.min(15)) != 0 || len >= 16
    }
}

/// The lists `c` is in ([`in_list`] of each): one hash look-up per chunk that
/// may be in one.
#[inline]
pub(super) fn lists_of(c: &str) -> u8 {
    if !LIST_SHAPES.may_hold(c.as_bytes()) {
        return 0;
    }
    lists_of_listed(c)
}

/// The shapes of the scanner's word lists ([`Shapes::of`], made at compile time).
const LIST_SHAPES: Shapes = {
    let lists: [&[&str]; 4] = [NEGATIONS, NEGATED_BEFORE, NEGATED_BEFORE_AFTER_NOT, ABBREVIATIONS];
    let mut t = [0u16; 256];
    let mut l = 0;
    while l < lists.len() {
        let mut i = 0;
        while i < lists[l].len() {
            let w = lists[l][i].as_bytes();
            if !w.is_empty() {
                t[w[0] as usize] |= if w.len() < 16 { 1 << w.len() } else { u16::MAX };
            }
            i += 1;
        }
        l += 1;
    }
    Shapes(t)
};

/// [`lists_of`] of a chunk whose shape is a listed word's.
#[inline(never)]
fn lists_of_listed(c: &str) -> u8 {
    static LISTS: std::sync::OnceLock<HashMap<&'static str, u8>> = std::sync::OnceLock::new();
    let lists = LISTS.get_or_init(|| {
        let mut m: HashMap<&'static str, u8> = HashMap::default();
        for (list, bit) in [
            (NEGATIONS, IN_NEGATIONS),
            (NEGATED_BEFORE, IN_NEGATED_BEFORE),
            (NEGATED_BEFORE_AFTER_NOT, IN_AFTER_NOT),
            (ABBREVIATIONS, IN_ABBREVIATIONS),
        ] {
            for w in list {
                *m.entry(w).or_default() |= bit;
            }
        }
        m
    });
    if c.len() > 11 {
        return 0;
    }
    lists.get(c).copied().unwrap_or(0)
}

/// The sentences of `text` (a statement may hold several): split after `.`, `!`
/// or `?` followed by white space, outside backticked spans, not after a known
/// abbreviation or a single letter.
pub fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let b = text.as_bytes();
    let mut start = 0;
    // Only the sentence ends matter, each inside or outside a backticked span:
    // the backticks before it are counted (both searches SIMD, not byte by byte).
    let mut code = false;
    let mut ticks_from = 0;
    for i in memchr::memchr3_iter(b'.', b'!', b'?', b) {
        code ^= memchr::memchr_iter(b'`', &b[ticks_from..i]).count() % 2 == 1;
        ticks_from = i;
        if code {
            continue;
        }
        let next_space = b.get(i + 1).is_none_or(|c| c.is_ascii_whitespace());
        if !next_space || i + 1 >= b.len() {
            continue;
        }
        let word_start = text[..i]
            .rfind(|c: char| c.is_whitespace() || c == '(')
            .map_or(0, |p| p + 1);
        let word = &text[word_start..i];
        if b[i] == b'.' && (word.chars().count() == 1 || ABBREVIATIONS.iter().any(|a| a.eq_ignore_ascii_case(word))) {
            continue;
        }
        let s = text[start..=i].trim();
        if !s.is_empty() {
            out.push(s);
        }
        start = i + 1;
    }
    let s = text[start.min(text.len())..].trim();
    if !s.is_empty() {
        out.push(s);
    }
    out
}

/// A word's folded form into `s` (cleared first): plural, `-ing` and `-ed`
/// endings removed, a final `e` dropped, a doubled final consonant undoubled.
pub(super) fn stem_into(w: &str, s: &mut String) {
    s.clear();
    s.push_str(w);
    let n = s.len();
    if n > 4 && s.ends_with("ies") {
        s.truncate(n - 3);
        s.push('y');
    } else if n > 4 && (s.ends_with("sses") || s.ends_with("shes") || s.ends_with("ches") || s.ends_with("xes")) {
        s.truncate(n - 2);
    } else if n > 3 && s.ends_with('s') && !s.ends_with("ss") && !s.ends_with("us") && !s.ends_with("is") {
        s.truncate(n - 1);
    }
    for suffix in ["ing", "ed"] {
        if s.len() >= suffix.len() + 3 && s.ends_with(suffix) {
            s.truncate(s.len() - suffix.len());
            break;
        }
    }
    let b = s.as_bytes();
    let l = b.len();
    let doubled = b[l.saturating_sub(2)..].len() == 2
        && b[l - 1] == b[l - 2]
        && !matches!(b[l - 1], b'l' | b's' | b'z' | b'e')
        && b[l - 1].is_ascii_alphabetic();
    if l > 3 && (doubled || b[l - 1] == b'e') {
        s.truncate(l - 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_shapes_are_those_of_the_lists() {
        let made = Shapes::of([NEGATIONS, NEGATED_BEFORE, NEGATED_BEFORE_AFTER_NOT, ABBREVIATIONS].concat());
        assert_eq!(LIST_SHAPES.0, made.0);
        for w in [NEGATIONS, NEGATED_BEFORE, NEGATED_BEFORE_AFTER_NOT, ABBREVIATIONS].concat() {
            assert_ne!(lists_of(w), 0, "{w}");
        }
        assert_eq!(lists_of("deploy"), 0);
    }
}
