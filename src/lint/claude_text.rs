//! The CLAUDE.md text ML119 compares body lines with, indexed once per run.
//!
//! ML119 asks, for every body line of at least 40 chars (whitespace collapsed),
//! whether it occurs in a CLAUDE.md (collapsed the same way). Searching each
//! CLAUDE.md text for each such line cost (body lines × CLAUDE.md bytes): 81 % of
//! a project lint with a 300-line CLAUDE.md (issue 31). Every line that occurs
//! has all of its 40-byte windows in the text, so a bit table of the text's
//! windows (built once, in one pass) turns away almost every other line after a
//! hash of its first window; only a line whose every window is in the table is
//! searched for, and that search decides (the table only ever says "maybe").

use memchr::memmem::Finder;

/// The window length: a line ML119 compares has at least 40 chars, so at least
/// 40 bytes.
const GRAM: usize = 40;
/// Bits per window in the table (a false "maybe" for about 1 window in 8 when
/// full), and its largest size: 2^25 bits (4 MiB), reached at 4 MiB of text. A
/// fuller table only lets more lines through to the search, which decides.
const BITS_PER_GRAM: usize = 8;
const MAX_BITS_LOG2: u32 = 25;
/// The base of the rolling hash (odd, so that no byte is lost mod 2^64).
const BASE: u64 = 0x100_0000_01b3;

/// The collapsed texts of the project's CLAUDE.md files and their window table.
pub struct ClaudeText {
    texts: Vec<String>,
    /// One bit per hashed 40-byte window of any text.
    bits: Vec<u64>,
    shift: u32,
    /// `BASE^(GRAM-1)`, to drop the byte leaving the window.
    top: u64,
    /// Lines searched for in the texts (every window was in the table).
    #[cfg(test)]
    searched: std::sync::atomic::AtomicUsize,
}

impl ClaudeText {
    /// Index `texts` (each one CLAUDE.md, whitespace collapsed).
    pub fn new(texts: Vec<String>) -> ClaudeText {
        let grams: usize = texts.iter().map(|t| (t.len() + 1).saturating_sub(GRAM)).sum();
        let want = (grams * BITS_PER_GRAM).max(64).next_power_of_two();
        let log2 = want.trailing_zeros().min(MAX_BITS_LOG2);
        let mut s = ClaudeText {
            texts: Vec::new(),
            bits: vec![0; (1usize << log2) / 64],
            shift: 64 - log2,
            top: (1..GRAM).fold(1u64, |p, _| p.wrapping_mul(BASE)),
            #[cfg(test)]
            searched: std::sync::atomic::AtomicUsize::new(0),
        };
        let (shift, top) = (s.shift, s.top);
        for t in &texts {
            windows(t.as_bytes(), shift, top, |slot| {
                s.bits[slot / 64] |= 1 << (slot % 64);
                true
            });
        }
        s.texts = texts;
        s
    }

    /// Whether `line` (whitespace collapsed) occurs in one of the texts: exactly
    /// `texts.iter().any(|t| t.contains(line))`.
    pub fn contains(&self, line: &str) -> bool {
        let b = line.as_bytes();
        let hit = |slot: usize| self.bits[slot / 64] & (1 << (slot % 64)) != 0;
        if b.len() >= GRAM && !windows(b, self.shift, self.top, hit) {
            return false;
        }
        #[cfg(test)]
        self.searched.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let finder = Finder::new(b);
        self.texts.iter().any(|t| finder.find(t.as_bytes()).is_some())
    }
}

impl ClaudeText {
    /// Whether the table alone shows that `line`, whitespace collapsed as
    /// [`ClaudeText::contains`] wants it (`split_whitespace` joined by one space),
    /// occurs in none of the texts: the first 40 bytes of its collapsed form,
    /// made from an ASCII prefix of `line` without building it, are a window the
    /// table does not hold. `false` when this cannot tell (a non-ASCII byte before
    /// 40 collapsed bytes, or fewer than 40): the caller then collapses the line
    /// and asks [`ClaudeText::contains`]. Most body lines end here, after their
    /// first 40 bytes (issue 31: collapsing and counting every long line cost a
    /// project lint a fifth of its instructions).
    pub fn first_window_absent(&self, line: &str) -> bool {
        let b = line.as_bytes();
        // Most lines: 40 printable ASCII bytes, single spaces only between
        // words, are their own collapsed prefix (checked branch-free).
        if let Some(head) = b.get(..GRAM)
            && head[0] != b' '
            && head[GRAM - 1] != b' '
            && head.iter().fold(true, |ok, c| ok & (0x20..0x7f).contains(c))
            && !head
                .windows(2)
                .fold(false, |two, p| two | ((p[0] == b' ') & (p[1] == b' ')))
        {
            return self.absent(head);
        }
        let mut w = [0u8; GRAM];
        let mut n = 0;
        let mut space = false;
        for &c in line.as_bytes() {
            if !c.is_ascii() {
                return false;
            }
            // `char::is_whitespace` on ASCII: U+0009–U+000D and the space.
            if matches!(c, b' ' | b'\t'..=b'\r') {
                space = n > 0;
                continue;
            }
            if space {
                w[n] = b' ';
                n += 1;
                space = false;
                if n == GRAM {
                    break;
                }
            }
            w[n] = c;
            n += 1;
            if n == GRAM {
                break;
            }
        }
        n == GRAM && self.absent(&w)
    }

    /// Whether the table lacks the window `w` (the first [`GRAM`] bytes).
    fn absent(&self, w: &[u8]) -> bool {
        let slot = slot(first_hash(w), self.shift);
        self.bits[slot / 64] & (1 << (slot % 64)) == 0
    }
}

/// The rolling hash of the first [`GRAM`] bytes of `b` (at least that many).
fn first_hash(b: &[u8]) -> u64 {
    b[..GRAM]
        .iter()
        .fold(0u64, |h, &c| h.wrapping_mul(BASE).wrapping_add(u64::from(c)))
}

/// The table slot of a window's hash: its top `64 - shift` bits, mixed.
fn slot(h: u64, shift: u32) -> usize {
    (h.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> shift) as usize
}

/// Calls `f` with the table slot (the top `64 - shift` bits of the mixed rolling
/// hash) of each 40-byte window of `b`, in order, while it returns true; false
/// when `f` stopped it. `top` is `BASE^(GRAM-1)`.
fn windows(b: &[u8], shift: u32, top: u64, mut f: impl FnMut(usize) -> bool) -> bool {
    if b.len() < GRAM {
        return true;
    }
    let slot = |h: u64| slot(h, shift);
    let mut h = first_hash(b);
    if !f(slot(h)) {
        return false;
    }
    for i in GRAM..b.len() {
        h = h
            .wrapping_sub(u64::from(b[i - GRAM]).wrapping_mul(top))
            .wrapping_mul(BASE)
            .wrapping_add(u64::from(b[i]));
        if !f(slot(h)) {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;

    fn collapse(s: &str) -> String {
        s.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    /// 300 rules, as the benchmark's CLAUDE.md has them.
    fn claude() -> String {
        let mut text = String::from("# Project\n\n## Build and test\n\n");
        for i in 0..300 {
            text.push_str(&format!(
                "- Rule {i}: run `cargo test -p crate{i}` before pushing; keep the module {i} formatted\n"
            ));
        }
        collapse(&text)
    }

    #[test]
    fn finds_what_a_search_finds() {
        let t = ClaudeText::new(vec![
            claude(),
            "a second CLAUDE.md with one rule that is long enough".into(),
        ]);
        for line in [
            "- Rule 7: run `cargo test -p crate7` before pushing; keep",
            "run `cargo test -p crate299` before pushing; keep the module 299 formatted",
            "a second CLAUDE.md with one rule that is long enough",
            "CLAUDE.md with one rule that is long",
            "- Rule 7: run `cargo test -p crate8` before pushing; keep",
            "formatted - Rule 12: run `cargo test -p crate12` before pushing",
            "long enough - Rule 0: run `cargo test -p crate0` before",
            "short",
            "",
        ] {
            let want = [claude(), "a second CLAUDE.md with one rule that is long enough".into()]
                .iter()
                .any(|c| c.contains(line));
            assert_eq!(t.contains(line), want, "{line:?}");
        }
        // A window across the two texts is no window of either.
        assert!(!t.contains("formatted a second CLAUDE.md with one rule that"));
    }

    /// Lines that are not in CLAUDE.md are turned away by the table: none is
    /// searched for (the text was searched once per line before).
    #[test]
    fn lines_not_in_claude_md_are_not_searched_for() {
        let t = ClaudeText::new(vec![claude()]);
        for i in 0..300 {
            let line = format!("Rule {i}: deploy the staging pipeline before the release cache is warm");
            assert!(!t.contains(&line));
        }
        assert_eq!(t.searched.load(Ordering::Relaxed), 0);
        assert!(t.contains("- Rule 42: run `cargo test -p crate42` before pushing"));
        assert_eq!(t.searched.load(Ordering::Relaxed), 1);
    }

    #[test]
    fn empty_and_tiny_texts() {
        let t = ClaudeText::new(vec![String::new(), "x".into()]);
        assert!(!t.contains("a line that is long enough to be compared with it"));
        let t = ClaudeText::new(Vec::new());
        assert!(!t.contains("a line that is long enough to be compared with it"));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 3000, failure_persistence: None, ..Default::default() })]
        /// The first-window test never turns away a line whose collapsed form a
        /// search would find, and turns away lines of the benchmark's kind.
        #[test]
        fn the_first_window_never_turns_away_a_line_in_the_text(texts in proptest::collection::vec("[ab \t\x0bé]{0,120}", 0..3), from in 0usize..3, at in 0usize..120, len in 0usize..90, other in "[ab \t\r\x0c\x0bé]{0,90}", pad in "[ \t]{0,3}") {
            let texts: Vec<String> = texts.iter().map(|t| collapse(t)).collect();
            let t = ClaudeText::new(texts.clone());
            let mut lines = vec![other];
            if let Some(src) = texts.get(from) {
                let b = src.as_bytes();
                let s = at.min(b.len());
                let e = (s + len).min(b.len());
                let piece = String::from_utf8_lossy(&b[s..e]).into_owned();
                lines.push(format!("{pad}{}{pad}", piece.replace(' ', &format!(" {pad}"))));
            }
            for line in lines {
                let c = collapse(&line);
                let found = c.chars().count() >= 40 && texts.iter().any(|x| x.contains(c.as_str()));
                proptest::prop_assert!(!(found && t.first_window_absent(&line)), "{:?}", line);
            }
        }
    }

    #[test]
    fn the_first_window_turns_away_other_lines() {
        let t = ClaudeText::new(vec![claude()]);
        assert!(t.first_window_absent("deploy the staging pipeline before the release cache is warm"));
        assert!(!t.first_window_absent("  - Rule 42:  run `cargo test -p crate42` before pushing"));
        // Not told by the table: too short, or not ASCII early enough.
        assert!(!t.first_window_absent("short line"));
        assert!(!t.first_window_absent("é deploy the staging pipeline before the release cache is warm"));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 2000, failure_persistence: None, ..Default::default() })]
        /// The table never turns away a line a search would find.
        #[test]
        fn agrees_with_a_search(texts in proptest::collection::vec("[ab é]{0,120}", 0..4), from in 0usize..4, at in 0usize..120, len in 0usize..90, other in "[ab é]{0,90}") {
            let texts: Vec<String> = texts.iter().map(|t| collapse(t)).collect();
            let t = ClaudeText::new(texts.clone());
            let mut lines = vec![other];
            if let Some(src) = texts.get(from) {
                let b = src.as_bytes();
                let s = at.min(b.len());
                let e = (s + len).min(b.len());
                lines.push(String::from_utf8_lossy(&b[s..e]).into_owned());
            }
            for line in lines {
                proptest::prop_assert_eq!(t.contains(&line), texts.iter().any(|c| c.contains(line.as_str())), "{:?}", line);
            }
        }
    }
}
