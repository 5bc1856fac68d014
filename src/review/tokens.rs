//! The words `review` compares (SPEC §12): runs of letters and digits of 3 or more
//! chars with a letter among them, lower-cased, stop words removed; token-set
//! Jaccard similarity; and the commands or tools a text names (the first word of
//! each backticked span, and the words that are executables on `PATH`).

use std::collections::{BTreeSet, HashSet};
use std::path::Path;

/// English words too common to say what a text is about. Only words of 3 letters
/// or more: shorter ones never become tokens.
const STOP_WORDS: &[&str] = &[
    "about", "above", "after", "again", "against", "all", "also", "always", "and", "any", "are", "because", "been",
    "before", "being", "below", "between", "both", "but", "can", "cannot", "could", "did", "does", "doing", "don",
    "done", "down", "during", "each", "else", "etc", "even", "ever", "every", "few", "for", "from", "further", "get",
    "gets", "had", "has", "have", "having", "her", "here", "hers", "him", "his", "how", "into", "its", "itself",
    "just", "let", "like", "may", "more", "most", "much", "must", "never", "nor", "not", "now", "off", "once", "one",
    "only", "other", "our", "ours", "out", "over", "own", "per", "same", "say", "says", "she", "should", "since",
    "some", "such", "than", "that", "the", "their", "theirs", "them", "then", "there", "these", "they", "this",
    "those", "through", "too", "under", "until", "upon", "use", "used", "uses", "using", "very", "via", "want",
    "wants", "was", "way", "were", "what", "when", "where", "whether", "which", "while", "who", "whom", "why", "will",
    "with", "within", "without", "would", "yet", "you", "your", "yours",
];

/// Executables on `PATH` that are also common English words: as plain words they
/// name no tool (`test` in "run the tests", `make` in "make sure").
const COMMON_EXECUTABLES: &[&str] = &[
    "apply", "base", "cat", "check", "clear", "column", "comm", "date", "echo", "env", "expand", "expr", "false",
    "file", "find", "fold", "free", "head", "host", "info", "install", "join", "kill", "last", "less", "link", "list",
    "locale", "look", "make", "more", "mount", "nice", "open", "paste", "patch", "print", "read", "rename", "reset",
    "run", "script", "see", "sort", "split", "start", "stat", "sum", "tail", "tee", "test", "time", "top", "touch",
    "true", "unlink", "users", "wait", "watch", "which", "who", "write", "yes",
];

/// The most `PATH` entries read (directories, then names in all).
const MAX_PATH_DIRS: usize = 64;
const MAX_PATH_NAMES: usize = 50_000;

/// A token set.
pub type Tokens = BTreeSet<String>;

/// The longest stop word, in bytes: a longer word is none (no search).
const MAX_STOP_WORD: usize = 7;

fn is_stop_word(w: &str) -> bool {
    w.len() <= MAX_STOP_WORD && STOP_WORDS.binary_search(&w).is_ok()
}

/// At least 3 chars with a letter among them (ASCII words, nearly all of them,
/// without decoding chars).
fn counts(r: &str) -> bool {
    if r.len() < 3 {
        return false;
    }
    if r.is_ascii() {
        r.bytes().any(|b| b.is_ascii_alphabetic())
    } else {
        r.chars().count() >= 3 && r.chars().any(char::is_alphabetic)
    }
}

fn lower(r: &str) -> String {
    if r.is_ascii() {
        r.to_ascii_lowercase()
    } else {
        r.to_lowercase()
    }
}

/// The words of `s` that count: runs of alphanumeric chars (and `_`), at least 3
/// chars with at least one letter, lower-cased, stop words removed.
pub fn words(s: &str) -> impl Iterator<Item = String> + '_ {
    s.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|r| counts(r))
        .map(lower)
        .filter(|w| !is_stop_word(w))
}

/// The token set of `s`.
pub fn tokens(s: &str) -> Tokens {
    words(s).collect()
}

/// |A ∩ B| / |A ∪ B| from the sizes and the overlap (0 for two empty sets).
pub fn jaccard_of(a: usize, b: usize, overlap: usize) -> f64 {
    let union = a + b - overlap.min(a.min(b));
    if union == 0 { 0.0 } else { overlap as f64 / union as f64 }
}

/// The Jaccard similarity of two token sets.
pub fn jaccard(a: &Tokens, b: &Tokens) -> f64 {
    jaccard_of(a.len(), b.len(), a.intersection(b).count())
}

/// Two decimals, as scores are printed and compared with their thresholds.
pub fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// The executables on `PATH`, looked up once: the names of the regular files with
/// an execute bit in each listed directory (stat only, nothing is opened; at most
/// [`MAX_PATH_DIRS`] directories and [`MAX_PATH_NAMES`] names).
pub fn path_executables(path_var: Option<&str>) -> HashSet<String> {
    use std::os::unix::fs::PermissionsExt;
    let mut out = HashSet::new();
    let Some(var) = path_var else { return out };
    let mut seen = 0usize;
    for dir in var.split(':').filter(|d| !d.is_empty()).take(MAX_PATH_DIRS) {
        let Ok(entries) = std::fs::read_dir(Path::new(dir)) else {
            continue;
        };
        for e in entries.flatten() {
            seen += 1;
            if seen > MAX_PATH_NAMES {
                return out;
            }
            let Some(name) = e.file_name().to_str().map(str::to_string) else {
                continue;
            };
            if name.len() < 3 || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
                continue;
            }
            // `metadata` follows a symlink with stat: no open, so no FIFO can block.
            if std::fs::metadata(e.path()).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0) {
                out.insert(name.to_lowercase());
            }
        }
    }
    out
}

/// The commands and tools `s` names: the first word of each backticked span
/// (lower-cased, a leading `$ ` dropped), and the plain words that are executables
/// on `PATH` but not common English words.
pub fn commands(s: &str, executables: &HashSet<String>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut plain = String::with_capacity(s.len());
    for (i, part) in s.split('`').enumerate() {
        if i % 2 == 1 {
            let word = part
                .trim()
                .trim_start_matches("$ ")
                .split_whitespace()
                .next()
                .unwrap_or("");
            let word = word.trim_matches(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_' || c == '.'));
            if word.chars().any(char::is_alphabetic) {
                out.insert(word.to_lowercase());
            }
        } else {
            plain.push_str(part);
            plain.push(' ');
        }
    }
    for w in plain
        .split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_'))
        .filter(|w| w.len() >= 3)
    {
        let w = w.to_lowercase();
        if executables.contains(&w) && COMMON_EXECUTABLES.binary_search(&w.as_str()).is_err() && !is_stop_word(&w) {
            out.insert(w);
        }
    }
    out
}

/// Whether two command sets name different commands: each names one the other
/// does not (`npm` against `bun`; a text that only adds a tool is no contradiction).
pub fn differ(a: &BTreeSet<String>, b: &BTreeSet<String>) -> bool {
    a.difference(b).next().is_some() && b.difference(a).next().is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_lists_are_sorted_for_binary_search() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
        assert!(STOP_WORDS.iter().all(|w| w.len() <= MAX_STOP_WORD));
        assert!(COMMON_EXECUTABLES.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn tokens_drop_short_words_stop_words_and_numbers() {
        let t = tokens("Run the `npm test` suite before ALL commits, in CI 2026.");
        let v: Vec<&str> = t.iter().map(String::as_str).collect();
        assert_eq!(v, ["commits", "npm", "run", "suite", "test"]);
    }

    #[test]
    fn ascii_and_unicode_words_count_alike() {
        let t = tokens("ÉTÉ été Straße naïve ab ÀB 123 a_1 X9z ÅÄÖ Über");
        let v: Vec<&str> = t.iter().map(String::as_str).collect();
        assert_eq!(v, ["a_1", "naïve", "straße", "x9z", "åäö", "été", "über"]);
    }

    #[test]
    fn jaccard_counts_shared_words() {
        let a = tokens("run npm test before pushing");
        let b = tokens("run bun test before pushing");
        assert!((jaccard(&a, &b) - 0.6).abs() < 1e-9);
        assert_eq!(jaccard(&Tokens::new(), &Tokens::new()), 0.0);
    }

    #[test]
    fn commands_come_from_backticks_and_path() {
        let exe: HashSet<String> = ["cargo", "test", "make"].iter().map(|s| s.to_string()).collect();
        let c = commands("Use `npm test`, or `$ bun x`; cargo works; make sure to test", &exe);
        let v: Vec<&str> = c.iter().map(String::as_str).collect();
        assert_eq!(v, ["bun", "cargo", "npm"]);
    }

    #[test]
    fn differ_needs_a_command_on_each_side() {
        let s = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
        assert!(differ(&s(&["npm"]), &s(&["bun"])));
        assert!(!differ(&s(&["npm"]), &s(&["npm", "bun"])));
        assert!(!differ(&s(&[]), &s(&["bun"])));
    }

    #[test]
    fn odd_input_does_not_panic() {
        for s in ["", "`", "```", "` `", "\u{0}\u{feff}`é`", "`$ `"] {
            let _ = commands(s, &HashSet::new());
            let _ = tokens(s);
        }
    }
}
