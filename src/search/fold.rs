//! Folding and words: how `search` makes `Café`, `CAFE` and `cafe` the same word.
//!
//! Folding is applied to the query and to the text alike, so only its symmetry
//! matters, not its completeness:
//! - case: Unicode lower case (`char::to_lowercase`), plus the full case
//!   foldings a lower-casing misses: `ß`/`ẞ` → `ss` (so `STRASSE`, `Strasse` and
//!   `straße` are one word, as in Unicode's CaseFolding.txt), final `ς` → `σ`;
//! - accents: in Latin, Greek and Cyrillic letters, the canonical decomposition
//!   (NFD, through `unicode-normalization`) with its combining marks dropped
//!   (`é` → `e`, `İ` → `i`, a text already in NFD included), and the few letters
//!   that have a stroke instead of a mark (`ø ł đ ħ ı` → `o l d h i`, `æ œ` → `ae oe`);
//! - compatibility forms: ligatures (`ﬁ` → `fi`) and full-width forms (`Ａ` → `a`)
//!   by their compatibility decomposition (NFKD).
//!
//! Other scripts are only lower-cased: a mark in Japanese kana (`が` vs `か`) or
//! Devanagari changes the word, so it is kept.
//!
//! A word is a run of alphanumeric characters (combining marks included). Scripts
//! written without spaces (Han, kana, Thai, Lao, Khmer, Myanmar) have no visible
//! word boundaries, so every one of their characters starts a word: a query word
//! in them matches anywhere, as a substring does.

use unicode_normalization::char::{decompose_canonical, decompose_compatible, is_combining_mark};

/// `s` folded: lower case, accents removed (see the module comment). Line breaks
/// and every other ASCII character but letters are kept as they are, so the folded
/// text has the lines of `s`.
pub fn fold(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    fold_into(s, &mut out);
    out
}

/// [`fold`], appending to `out`.
pub fn fold_into(s: &str, out: &mut String) {
    // ASCII runs are folded byte by byte; the rest char by char.
    let mut rest = s;
    while !rest.is_empty() {
        let ascii = ascii_prefix(rest.as_bytes());
        let (run, tail) = rest.split_at(ascii);
        let start = out.len();
        out.push_str(run);
        out[start..].make_ascii_lowercase();
        let mut chars = tail.chars();
        if let Some(c) = chars.next() {
            fold_char(c, out);
        }
        rest = chars.as_str();
    }
}

/// Append the folded form of one character.
fn fold_char(c: char, out: &mut String) {
    if c.is_ascii() {
        out.push(c.to_ascii_lowercase());
    } else if let Some(s) = special(c) {
        out.push_str(s);
    } else if is_accented_script(c) {
        decompose_canonical(c, |d| {
            if !is_combining_mark(d) {
                lower_into(d, out);
            }
        });
    } else if is_compatibility_form(c) {
        decompose_compatible(c, |d| {
            if d == c {
                lower_into(d, out);
            } else {
                fold_char(d, out);
            }
        });
    } else {
        lower_into(c, out);
    }
}

/// Lower case, then the special foldings of what lower-casing gives.
fn lower_into(c: char, out: &mut String) {
    for l in c.to_lowercase() {
        match special(l) {
            Some(s) => out.push_str(s),
            None => out.push(l),
        }
    }
}

/// Foldings that neither lower-casing nor decomposition gives.
fn special(c: char) -> Option<&'static str> {
    Some(match c {
        'ß' | 'ẞ' => "ss",
        'ς' => "σ",
        'ø' | 'Ø' => "o",
        'ł' | 'Ł' => "l",
        'đ' | 'Đ' => "d",
        'ħ' | 'Ħ' => "h",
        'ı' => "i",
        'æ' | 'Æ' => "ae",
        'œ' | 'Œ' => "oe",
        _ => return None,
    })
}

/// Latin, Greek and Cyrillic (with their combining marks): accents are dropped.
fn is_accented_script(c: char) -> bool {
    matches!(c, '\u{80}'..='\u{52f}' | '\u{1e00}'..='\u{1fff}')
}

/// Ligatures and full-width or half-width forms.
fn is_compatibility_form(c: char) -> bool {
    matches!(c, '\u{fb00}'..='\u{fb06}' | '\u{ff00}'..='\u{ffef}')
}

/// A character of a word: alphanumeric, or a combining mark kept by folding.
pub fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || (!c.is_ascii() && is_combining_mark(c))
}

/// A script written without spaces: each of its characters starts a word.
pub fn is_spaceless(c: char) -> bool {
    matches!(
        c,
        '\u{0e00}'..='\u{0eff}'      // Thai, Lao
            | '\u{1000}'..='\u{109f}' // Myanmar
            | '\u{1780}'..='\u{17ff}' // Khmer
            | '\u{3040}'..='\u{30ff}' // Hiragana, Katakana
            | '\u{3400}'..='\u{4dbf}' // CJK extension A
            | '\u{4e00}'..='\u{9fff}' // CJK unified ideographs
            | '\u{f900}'..='\u{faff}' // CJK compatibility ideographs
            | '\u{20000}'..='\u{3ffff}'
    )
}

/// Whether a word starts at byte `at` of `text` (a char boundary): the char there
/// is a word char, and either the one before is not, or the char there is of a
/// script without spaces.
pub fn starts_word(text: &str, at: usize) -> bool {
    let Some(c) = text.get(at..).and_then(|t| t.chars().next()) else {
        return false;
    };
    if !is_word_char(c) {
        return false;
    }
    match text.get(..at).and_then(|t| t.chars().next_back()) {
        None => true,
        Some(p) => !is_word_char(p) || is_spaceless(c),
    }
}

/// A word of a query: its folded text, and whether a trailing `*` asks for a prefix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueryWord {
    pub text: String,
    pub prefix: bool,
}

/// The words of a folded query, each once, in order of first appearance. A word
/// followed by `*` is a prefix (`deploy*`); the same word with and without `*`
/// is kept once, as a prefix (it finds all the other finds).
pub fn query_words(folded: &str) -> Vec<QueryWord> {
    let mut words: Vec<QueryWord> = Vec::new();
    let mut start = None;
    let mut push = |text: &str, prefix: bool| match words.iter_mut().find(|x| x.text == text) {
        Some(x) => x.prefix |= prefix,
        None => words.push(QueryWord {
            text: text.to_string(),
            prefix,
        }),
    };
    for (i, c) in folded.char_indices().chain(std::iter::once((folded.len(), ' '))) {
        if is_word_char(c) {
            start.get_or_insert(i);
        } else if let Some(s) = start.take() {
            push(&folded[s..i], c == '*');
        }
    }
    words
}

/// Whether a word ends at byte `at` of `text` (a char boundary, after a word char):
/// the char there is not a word char, or the chars on either side are of a script
/// without spaces (where a word matches anywhere, as a substring does).
pub fn ends_word(text: &str, at: usize) -> bool {
    let Some(c) = text.get(at..).and_then(|t| t.chars().next()) else {
        return at == text.len();
    };
    if !is_word_char(c) || is_spaceless(c) {
        return true;
    }
    text.get(..at)
        .and_then(|t| t.chars().next_back())
        .is_some_and(is_spaceless)
}

/// How many words a folded text holds (the document length of BM25).
pub fn count_words(folded: &str) -> usize {
    let bytes = folded.as_bytes();
    let mut n = 0;
    let mut in_word = false;
    let mut i = 0;
    while i < bytes.len() {
        // 32 ASCII bytes at a time, branch-free (most memory text is ASCII): a
        // word starts at an alphanumeric byte after one that is not. The bytes'
        // 0/1 flags (after the previous byte's) and the u8 sum of the starts are
        // loops the compiler vectorizes.
        if let Some(chunk) = bytes.get(i..i + CHUNK)
            && let Ok(chunk) = <&[u8; CHUNK]>::try_from(chunk)
            && is_ascii_chunk(chunk)
        {
            let mut word = [0u8; CHUNK + 1];
            word[0] = u8::from(in_word);
            for (w, c) in word[1..].iter_mut().zip(chunk) {
                *w = u8::from(alnum(*c));
            }
            let mut starts = 0u8;
            for j in 0..CHUNK {
                starts += word[j + 1] & !word[j] & 1;
            }
            n += usize::from(starts);
            in_word = word[CHUNK] != 0;
            i += CHUNK;
            continue;
        }
        // Else up to the next chunk's start, char by char.
        let end = (i + CHUNK).min(bytes.len());
        while i < end {
            let b = bytes[i];
            if b.is_ascii() {
                let w = b.is_ascii_alphanumeric();
                n += usize::from(w && !in_word);
                in_word = w;
                i += 1;
                continue;
            }
            let Some(c) = folded[i..].chars().next() else { break };
            let w = is_word_char(c);
            n += usize::from(w && (!in_word || is_spaceless(c)));
            in_word = w;
            i += c.len_utf8();
        }
    }
    n
}

/// The bytes the ASCII fast paths take at a time.
const CHUNK: usize = 32;

/// `c.is_ascii_alphanumeric()` without branches.
#[inline(always)]
fn alnum(c: u8) -> bool {
    ((c | 0x20).wrapping_sub(b'a') < 26) | (c.wrapping_sub(b'0') < 10)
}

/// Whether every byte of `chunk` is ASCII (one OR over the chunk).
#[inline(always)]
fn is_ascii_chunk(chunk: &[u8; CHUNK]) -> bool {
    let mut or = 0u8;
    for &c in chunk {
        or |= c;
    }
    or < 0x80
}

/// The length of the ASCII prefix of `b`, found a chunk at a time.
fn ascii_prefix(b: &[u8]) -> usize {
    let mut at = 0;
    while let Some(chunk) = b.get(at..at + CHUNK)
        && let Ok(chunk) = <&[u8; CHUNK]>::try_from(chunk)
        && is_ascii_chunk(chunk)
    {
        at += CHUNK;
    }
    at + b[at..].iter().position(|c| !c.is_ascii()).unwrap_or(b.len() - at)
}

/// The former [`count_words`], byte by byte: the reference of its tests.
#[cfg(test)]
fn count_words_bytewise(folded: &str) -> usize {
    let bytes = folded.as_bytes();
    let mut n = 0;
    let mut in_word = false;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        // ASCII, byte by byte: most memory text is.
        if b.is_ascii() {
            let w = b.is_ascii_alphanumeric();
            n += usize::from(w && !in_word);
            in_word = w;
            i += 1;
            continue;
        }
        let Some(c) = folded[i..].chars().next() else { break };
        let w = is_word_char(c);
        n += usize::from(w && (!in_word || is_spaceless(c)));
        in_word = w;
        i += c.len_utf8();
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 3000, failure_persistence: None, ..Default::default() })]
        /// The chunked word count and ASCII prefix agree with the byte-wise ones.
        #[test]
        fn chunked_counts_agree_with_bytewise(pieces in proptest::collection::vec(proptest::sample::select(vec![
            "a", "word ", "  ", "x1", "-", "\n", "é", "数据", "\u{301}", "ß", "abcdefghijklmnopqrstuvwxyz0123456789", ".", "_",
        ]), 0..60)) {
            let s = pieces.concat();
            proptest::prop_assert_eq!(count_words(&s), count_words_bytewise(&s), "{:?}", s);
            let want = s.bytes().position(|b| !b.is_ascii()).unwrap_or(s.len());
            proptest::prop_assert_eq!(ascii_prefix(s.as_bytes()), want);
            let f = fold(&s);
            proptest::prop_assert_eq!(count_words(&f), count_words_bytewise(&f));
        }
    }

    #[test]
    fn folds_case_and_accents() {
        assert_eq!(fold("Café CRÈME"), "cafe creme");
        // Already decomposed (NFD) text folds the same.
        assert_eq!(fold("Cafe\u{301}"), "cafe");
        assert_eq!(fold("Ærøskøbing Łódź"), "aeroskobing lodz");
        assert_eq!(fold("İstanbul ıspanak"), "istanbul ispanak");
        assert_eq!(fold("Ελληνικά ΟΔΟΣ οδος"), "ελληνικα οδοσ οδοσ");
        assert_eq!(fold("Ёлка"), "елка");
    }

    #[test]
    fn sharp_s_folds_to_ss_both_ways() {
        assert_eq!(fold("Straße"), "strasse");
        assert_eq!(fold("STRASSE"), "strasse");
        assert_eq!(fold("GROẞ"), "gross");
    }

    #[test]
    fn compatibility_forms_fold_but_kana_marks_stay() {
        assert_eq!(fold("ﬁle ＡＢＣ"), "file abc");
        assert_eq!(fold("が"), "が");
        assert_ne!(fold("が"), fold("か"));
        assert_eq!(fold("数据库"), "数据库");
    }

    #[test]
    fn folding_keeps_lines_and_punctuation() {
        let s = "Line ONE\r\nline two: x-y\n\n**Why:** é";
        let f = fold(s);
        assert_eq!(f, "line one\r\nline two: x-y\n\n**why:** e");
        assert_eq!(f.matches('\n').count(), s.matches('\n').count());
    }

    #[test]
    fn query_words_split_on_punctuation_and_dedupe() {
        let texts = |q: &str| query_words(&fold(q)).into_iter().map(|w| w.text).collect::<Vec<_>>();
        assert_eq!(
            texts("Deploy deploy, v1.2 foo-bar"),
            ["deploy", "v1", "2", "foo", "bar"]
        );
        assert!(query_words("--- ...").is_empty());
        assert_eq!(texts("数据库 迁移"), ["数据库", "迁移"]);
    }

    #[test]
    fn a_trailing_star_asks_for_a_prefix() {
        let got: Vec<(String, bool)> = query_words(&fold("PR* review deploy deploy* *x"))
            .into_iter()
            .map(|w| (w.text, w.prefix))
            .collect();
        let want = [("pr", true), ("review", false), ("deploy", true), ("x", false)];
        assert_eq!(got, want.map(|(t, p)| (t.to_string(), p)));
    }

    #[test]
    fn words_end_before_non_word_chars_and_anywhere_in_spaceless_text() {
        let t = "prs pr-x 数据库";
        assert!(!ends_word(t, 2));
        assert!(ends_word(t, 3));
        assert!(ends_word(t, 6));
        assert!(ends_word(t, t.len()));
        // Inside Chinese text every boundary ends a word.
        assert!(ends_word(t, 12));
    }

    #[test]
    fn words_start_after_non_word_chars_and_at_every_spaceless_char() {
        let t = "foo-bar baz数据";
        let starts: Vec<usize> = (0..t.len())
            .filter(|i| t.is_char_boundary(*i) && starts_word(t, *i))
            .collect();
        assert_eq!(starts, [0, 4, 8, 11, 14]);
        assert_eq!(count_words(t), 5);
        assert!(!starts_word(t, 1));
        assert!(!starts_word(t, 3));
        assert!(!starts_word(t, 100));
    }
}
