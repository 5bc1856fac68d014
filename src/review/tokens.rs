//! The words `review`'s topic rules look at (SPEC §12): runs of letters and digits
//! of 3 or more chars with a letter among them, lower-cased, stop words removed.
//! (Statements are compared by [`super::statement`], with its own tokens.)

use std::collections::BTreeSet;

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

/// Two decimals, as scores are printed and compared with their thresholds.
pub fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_lists_are_sorted_for_binary_search() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
        assert!(STOP_WORDS.iter().all(|w| w.len() <= MAX_STOP_WORD));
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
    fn odd_input_does_not_panic() {
        for s in ["", "`", "```", "` `", "\u{0}\u{feff}`é`", "`$ `"] {
            let _ = tokens(s);
        }
    }
}
