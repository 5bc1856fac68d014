//! Statements and how two of them relate (SPEC §12, v3 matching).
//!
//! Both sides are split into statements: a CLAUDE/AGENTS line, bullet or numbered
//! item, a memory's rule sentences. A statement is normalised (case, accents,
//! `’`, common command spellings such as `npm run test` → `npm test`) and cut into
//! tokens:
//! - **words**: letters only, 3 letters or more (or a known short term such as
//!   `npm`, `git`, `k8s`), stop words removed, plural and `-ing`/`-ed` endings
//!   folded (`tests`, `testing` → `test`); weight 1;
//! - **terms**: the words of a backticked span, tools (`bun`, `npm`, `cargo`, …),
//!   paths (`src/api/`, `./data`, `foo.py`), flags (`--frozen-lockfile`),
//!   identifiers (`__tests__`, `candidate_id`, `k8s`) and numbers (`4` in
//!   `4-space`); weight 2.
//!
//! Each token remembers whether it stood in a negated clause: after `not`,
//! `never`, `no`, `don't`, `avoid`, `instead of`, `rather than`, up to the end of
//! the clause (`,` `;` `.` `:` or a dash).
//!
//! Similarity is containment: the weighted share of the shorter statement's
//! tokens that the longer one holds. Two statements at or above the related
//! threshold **contradict** when one rejects a term the other uses, when they name
//! different tools, when one negates what the other states, or when they give
//! different numbers; they say the **same** thing when, at or above the remove
//! threshold, nothing contradicts and every term the memory names is in the other.
//! Everything here is linear in the text, and comparing two statements is a merge
//! of two sorted token lists.

use crate::fx::HashMap;

pub use super::words::sentences;
use super::words::*;

mod chunks;
mod intern;
mod vocab;
use chunks::{all_alnum, chunks};
pub use intern::Interner;
pub use vocab::{Vocab, token_lists};

/// The weight of an ordinary word.
const WORD: u8 = 1;
/// The weight of a term: a code span's word, a tool, a path, a flag, an
/// identifier, a number.
const TERM: u8 = 2;

/// The thresholds of [`relate`] (chosen on the evaluation set, SPEC §12).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Thresholds {
    /// Containment at or above which a memory statement is "the same" as a CLAUDE one.
    pub remove: f64,
    /// Containment at or above which two statements are on the same subject.
    pub related: f64,
}

/// What cutting statements keeps between them (one per thread): each prose
/// piece (outside backticks, not a command's first word) met, to its token as
/// [`piece_class`] makes it: the same piece always gives the same token, so it is
/// classified and stemmed once; and every token text met, numbered (its local
/// id): the cut statements keep these numbers, not the texts, which the
/// [`Interner`] reads here when it meets a number for the first time.
pub struct Cutter {
    /// Which cutter it is (unique in the process), for [`Interner::stmt`].
    id: u32,
    /// A piece to its token's kind and local id ([`ProseCache`]).
    prose: ProseCache,
    /// Any other token's text to its local id.
    terms: HashMap<Box<str>, u32>,
    /// The token texts, one after the other; per local id, where its text ends.
    words: String,
    ends: Vec<u32>,
    /// Scratch for stemming, and for a memory's cuts ([`Cutter::scratch`]).
    buf: String,
    cuts: Cuts,
    /// Scratch for a statement's normalised text.
    folded: String,
    /// Per local id, its token's id in the vocabulary's numbering
    /// ([`Cutter::meets`]; [`NO_ID`] until met), the texts outside the
    /// vocabulary numbered above it, and scratch for a statement's tokens.
    canon: Vec<u32>,
    others: HashMap<Box<str>, u32>,
    probe: Vec<Tok>,
    /// Per local id and per vocabulary statement, the last stamp that met it
    /// ([`Cutter::firsts`], [`Cutter::meets`]).
    seen: Vec<u32>,
    units: Vec<u32>,
    stamp: u32,
}

/// No id: a local id not met yet.
const NO_ID: u32 = u32::MAX;

impl Default for Cutter {
    fn default() -> Cutter {
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        Cutter {
            id: NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            prose: ProseCache::default(),
            terms: HashMap::default(),
            words: String::new(),
            ends: Vec::new(),
            buf: String::new(),
            cuts: Cuts::default(),
            folded: String::new(),
            canon: Vec::new(),
            others: HashMap::default(),
            probe: Vec::new(),
            seen: Vec::new(),
            units: Vec::new(),
            stamp: 0,
        }
    }
}

/// The prose pieces met, to their tokens: a piece of at most 15 bytes (nearly
/// every word) keyed by its bytes and length as one number (hashed and compared
/// at once, no string compare), a longer one by its text.
#[derive(Default)]
struct ProseCache {
    short: HashMap<u128, Option<Piece>>,
    long: HashMap<Box<str>, Option<Piece>>,
}

impl ProseCache {
    /// A piece of at most 15 bytes as one number: its bytes, zero-padded (a
    /// piece is alphanumeric: it holds no zero byte), and its length in the last.
    fn key(piece: &str) -> Option<u128> {
        let b = piece.as_bytes();
        (b.len() < 16).then(|| {
            let mut k = [0u8; 16];
            k[..b.len()].copy_from_slice(b);
            k[15] = b.len() as u8;
            u128::from_le_bytes(k)
        })
    }

    fn get(&self, piece: &str) -> Option<Option<Piece>> {
        match Self::key(piece) {
            Some(k) => self.short.get(&k).copied(),
            None => self.long.get(piece).copied(),
        }
    }

    fn insert(&mut self, piece: &str, p: Option<Piece>) {
        match Self::key(piece) {
            Some(k) => self.short.insert(k, p),
            None => self.long.insert(piece.into(), p),
        };
    }
}

/// A prose piece's token: its local id and kind.
#[derive(Clone, Copy)]
struct Piece {
    local: u32,
    weight: u8,
    tool: bool,
    number: bool,
}

impl Cutter {
    /// Its kept scratch, emptied, to [`cut_into`]; handed back by [`Cutter::keep`].
    pub fn scratch(&mut self) -> Cuts {
        let mut c = std::mem::take(&mut self.cuts);
        c.at.clear();
        c.toks.clear();
        c.ends.clear();
        c.cutter = self.id;
        c
    }

    /// A copy of `cuts` at its exact length (it lives as long as the analysis);
    /// `cuts` goes back to being the scratch.
    pub fn keep(&mut self, cuts: Cuts) -> Cuts {
        let kept = Cuts {
            at: cuts.at.as_slice().into(),
            toks: cuts.toks.as_slice().into(),
            ends: cuts.ends.as_slice().into(),
            cutter: cuts.cutter,
        };
        self.cuts = cuts;
        kept
    }

    /// The text of the token numbered `local` ([`Cutter::local`]).
    pub(super) fn name(&self, local: u32) -> &str {
        let end = self.ends.get(local as usize).map_or(0, |&e| e as usize);
        let start = (local as usize)
            .checked_sub(1)
            .and_then(|p| self.ends.get(p))
            .map_or(0, |&e| e as usize);
        self.words.get(start..end).unwrap_or_default()
    }

    /// The number of a token text (not a prose piece's: [`Cutter::piece`]),
    /// given in the order texts are first met.
    fn local(&mut self, text: &str) -> u32 {
        if let Some(&l) = self.terms.get(text) {
            return l;
        }
        let l = self.push(text);
        self.terms.insert(text.into(), l);
        l
    }

    /// A new local id for `text`.
    fn push(&mut self, text: &str) -> u32 {
        self.words.push_str(text);
        self.ends.push(self.words.len() as u32);
        (self.ends.len() - 1) as u32
    }

    /// The token of an alphanumeric piece ([`piece_class`]): its weight, whether
    /// a tool, a number, its text's local id; a prose piece's from the cache when
    /// it was met before.
    fn piece(&mut self, piece: &str, code: bool, lead: bool) -> Option<(u8, bool, bool, u32)> {
        let prose = !code && !lead;
        if prose && let Some(p) = self.prose.get(piece) {
            return p.map(|p| (p.weight, p.tool, p.number, p.local));
        }
        let Some((stemmed, weight, tool, number)) = piece_class(piece, code, lead) else {
            if prose {
                self.prose.insert(piece, None);
            }
            return None;
        };
        let mut buf = std::mem::take(&mut self.buf);
        let text = if stemmed {
            stem_into(piece, &mut buf);
            buf.as_str()
        } else {
            piece
        };
        let local = if prose {
            // A prose piece's text has a number of its own (the same text met in
            // code has another: the interner gives both the same id).
            let local = self.push(text);
            let p = Piece {
                local,
                weight,
                tool,
                number,
            };
            self.prose.insert(piece, Some(p));
            local
        } else {
            self.local(text)
        };
        self.buf = buf;
        Some((weight, tool, number, local))
    }
}

/// Statements cut into tokens, not yet interned ([`Interner::stmts`]), one
/// after the other: a memory's tokens are one allocation, their texts are in
/// its [`Cutter`] (by local id). The statements' own texts are not kept: a memory's are
/// its rule's sentences, found again from its rule when one is shown
/// ([`Cuts::number`]).
#[derive(Default)]
pub struct Cuts {
    /// Per statement, the number its cutter's caller gave it ([`Cuts::number`]).
    at: Vec<u32>,
    toks: Vec<RawTok>,
    /// Per statement, where its tokens end in `toks`.
    ends: Vec<u32>,
    /// The [`Cutter::id`] of the cutter that cut them (their tokens' local ids).
    cutter: u32,
}

impl Cuts {
    /// Number the statement [`cut_into`] just added (when it returned `true`):
    /// a memory's rule numbers each its sentence's place among the rule's sentences.
    pub fn number(&mut self, n: u32) {
        self.at.push(n);
    }

    /// The [`Cutter`] that cut them.
    pub fn cutter(&self) -> u32 {
        self.cutter
    }

    /// The numbers of the statements ([`Cuts::number`]), in order.
    pub fn numbers(&self) -> &[u32] {
        &self.at
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Statement `k`'s tokens.
    fn get(&self, k: usize) -> &[RawTok] {
        let tok_start = k
            .checked_sub(1)
            .and_then(|p| self.ends.get(p))
            .map_or(0, |&e| e as usize);
        let tok_end = self.ends.get(k).map_or(0, |&e| e as usize);
        self.toks.get(tok_start..tok_end).unwrap_or_default()
    }
}

/// A token as found: its text's local id in the cutter ([`Cutter::name`]), its
/// kind, whether it stood in a negated clause.
#[derive(Clone, Copy)]
struct RawTok {
    local: u32,
    weight: u8,
    tool: bool,
    number: bool,
    neg: bool,
}

/// One distinct token of a statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Tok {
    id: u32,
    weight: u8,
    /// Whether it is a term (weight 2) and among them a tool or a number.
    tool: bool,
    number: bool,
    /// Seen outside a negated clause ([`POS`]) and inside one ([`NEG`]): one
    /// byte, so that a token is 8 bytes, not 12.
    seen: u8,
}

/// [`Tok::seen`]'s bits.
const POS: u8 = 1;
const NEG: u8 = 2;
const _: () = assert!(std::mem::size_of::<Tok>() == 8);

impl Tok {
    /// Seen outside a negated clause.
    fn pos(&self) -> bool {
        self.seen & POS != 0
    }

    /// Seen inside a negated clause.
    fn neg(&self) -> bool {
        self.seen & NEG != 0
    }
}

/// A statement as compared.
#[derive(Clone, Debug, Default)]
pub struct Stmt {
    /// Its text (as written, trimmed).
    pub text: String,
    /// Distinct tokens sorted by id.
    toks: Vec<Tok>,
    weight: u32,
}

impl Stmt {
    pub fn is_empty(&self) -> bool {
        self.toks.is_empty()
    }

    /// Its tokens' total weight.
    pub fn weight(&self) -> u32 {
        self.weight
    }

    /// The token ids (sorted), for an inverted index.
    pub fn ids(&self) -> impl Iterator<Item = u32> + '_ {
        self.toks.iter().map(|t| t.id)
    }
}

/// How two statements relate.
#[derive(Clone, Debug, PartialEq)]
pub enum Relation {
    /// The memory statement says what the other says.
    Same,
    /// They contradict each other; the words say how.
    Contradicts(String),
}

/// A word's folded form: plural, `-ing` and `-ed` endings removed, a final `e`
/// dropped and a doubled final consonant undoubled (`tests`, `testing`, `tested`
/// → `test`; `committing` → `commit`; `writes`, `writing` → `writ`).
#[cfg(test)]
fn stem(w: &str) -> String {
    let mut s = String::new();
    stem_into(w, &mut s);
    s
}

/// One token found while scanning, before deduplication (tests read them).
#[cfg(test)]
struct Raw {
    text: String,
    weight: u8,
    tool: bool,
    number: bool,
    neg: bool,
}

/// Whether a chunk (outside backticks) is a path: it has a `/` and starts with
/// `/`, `./`, `../` or `~/`, ends with `/`, has two `/` or more, or has a `.` or `_`.
fn is_path(c: &str) -> bool {
    if !c.contains('/') || !c.chars().any(char::is_alphanumeric) || c.contains("://") {
        return c.contains("://");
    }
    c.starts_with('/')
        || c.starts_with("./")
        || c.starts_with("../")
        || c.starts_with("~/")
        || c.ends_with('/')
        || c.matches('/').count() >= 2
        || c.contains('.')
        || c.contains('_')
}

/// Whether a chunk is a flag: `--frozen-lockfile`, `-v`.
fn is_flag(c: &str) -> bool {
    c.len() > 1 && c.starts_with('-') && c[1..].starts_with(|ch: char| ch == '-' || ch.is_alphabetic())
}

/// Whether a chunk is a file name or version: a `.` between alphanumerics, parts
/// not all of one letter (`e.g`).
fn is_dotted(c: &str) -> bool {
    if !c.contains('.') {
        return false;
    }
    let parts: Vec<&str> = c.split('.').collect();
    parts.len() >= 2
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.chars().all(|ch| ch.is_alphanumeric() || ch == '-'))
        && parts.iter().any(|p| p.chars().count() > 1)
}

/// Scan a statement's text into raw tokens: normalised, then each white-space
/// chunk of each backticked span or plain run read in order, negations marking
/// the tokens of their clause.
#[cfg(test)]
fn scan(text: &str) -> Vec<Raw> {
    let mut cutter = Cutter::default();
    let mut c = cutter.scratch();
    cut_into(text, &mut cutter, &mut c);
    c.toks
        .iter()
        .map(|t| Raw {
            text: cutter.name(t.local).to_string(),
            weight: t.weight,
            tool: t.tool,
            number: t.number,
            neg: t.neg,
        })
        .collect()
}

/// The statement of `text` cut into tokens, in the order they are found, added
/// to `into` when it has a token; whether it had one.
pub fn cut_into(text: &str, cutter: &mut Cutter, into: &mut Cuts) -> bool {
    let mut folded = std::mem::take(&mut cutter.folded);
    normalise(text, &mut folded);
    // ASCII white space is Unicode's but for the vertical tab.
    let ascii = folded.is_ascii() && !folded.contains('\x0b');
    let out = std::mem::take(&mut into.toks);
    let first = out.len();
    let mut sc = Scanner {
        clause_start: first,
        out,
        negated: false,
        prev: "",
        cutter,
    };
    for (i, part) in folded.split('`').enumerate() {
        let code = i % 2 == 1;
        let words_in_span = if code { chunks(part, ascii).count() } else { 0 };
        let mut first_in_span = true;
        for (chunk, alnum) in chunks(part, ascii) {
            if sc.chunk(chunk, alnum, code, code && first_in_span && words_in_span >= 2) {
                first_in_span = false;
            }
        }
    }
    into.toks = sc.out;
    cutter.folded = folded;
    if into.toks.len() == first {
        return false;
    }
    into.ends.push(into.toks.len() as u32);
    true
}

/// Folded (case, accents), `’` as `'`, common command spellings as one.
/// Written into `folded` (cleared first: a scratch kept between statements).
fn normalise(text: &str, folded: &mut String) {
    folded.clear();
    crate::search::fold::fold_into(text, folded);
    if !folded.is_ascii() {
        *folded = folded.replace(['’', '‘'], "'");
    }
    if !may_respell(folded) {
        return;
    }
    for (from, to) in COMMAND_SPELLINGS {
        if folded.contains(from) {
            *folded = folded.replace(from, to);
        }
    }
}

/// Whether a spelling of [`COMMAND_SPELLINGS`] may be in `s`: each ends with one
/// of these words and a space (one pass instead of a search per spelling).
fn may_respell(s: &str) -> bool {
    let b = s.as_bytes();
    // The spaces found with `memchr` (SIMD), not byte by byte.
    memchr::memchr_iter(b' ', b).any(|i| {
        matches!(b[..i].last(), Some(b'n' | b'm' | b'c' | b'x' | b'3'))
            && ["run", "-m", "exec", "npx", "bunx", "python3", "pip3"]
                .iter()
                .any(|w| b[..i].ends_with(w.as_bytes()))
    })
}

/// A chunk without the quotes, brackets and punctuation around it.
fn trim_chunk(chunk: &str) -> &str {
    // An end that is an ASCII letter or digit has nothing to trim (most chunks).
    let alnum = |b: Option<&u8>| b.is_some_and(u8::is_ascii_alphanumeric);
    let mut c = chunk;
    if !alnum(c.as_bytes().first()) {
        c = c.trim_start_matches(['"', '\'', '(', '[', '{', '<', '*', '“', '$', '>']);
    }
    if !alnum(c.as_bytes().last()) {
        c = c.trim_end_matches(['"', '\'', ')', ']', '}', '>', '*', ',', ';', ':', '!', '?', '.', '”']);
    }
    c
}

/// The scan's state: the tokens so far, whether the clause is negated, the word
/// before, and where the current clause's tokens start in `out` (for a negation
/// that follows what it negates: "eslint was removed", "bun is not supported").
struct Scanner<'t, 'n> {
    out: Vec<RawTok>,
    negated: bool,
    prev: &'t str,
    clause_start: usize,
    cutter: &'n mut Cutter,
}

impl<'t> Scanner<'t, '_> {
    /// One chunk; `lead`: it starts a backticked command (its first word is a
    /// tool). Returns whether it reached the tokens (not a dash or a negation).
    /// `alnum`: the chunk is all ASCII letters and digits (nothing to trim).
    fn chunk(&mut self, chunk: &'t str, alnum: bool, code: bool, lead: bool) -> bool {
        let c = if alnum { chunk } else { trim_chunk(chunk) };
        // `,` `;` `.` `:` `!` `?` end a clause, not an abbreviation's `.`.
        let clause_end = !code
            && matches!(chunk.as_bytes().last(), Some(b',' | b';' | b'.' | b':' | b'!' | b'?'))
            && lists_of(c) & IN_ABBREVIATIONS == 0;
        // A dash ends a clause; a lone `,` between code spans (`a`, `b`) does not.
        if !alnum && (c.is_empty() || c.chars().all(|ch| matches!(ch, '-' | '—' | '–' | '=' | '|'))) {
            if !code && !c.is_empty() {
                self.end_clause();
            }
            return false;
        }
        if !code && self.negation(c, clause_end) {
            return false;
        }
        self.tokens(c, alnum, code, lead);
        if clause_end {
            self.end_clause();
        }
        true
    }

    fn end_clause(&mut self) {
        self.negated = false;
        self.clause_start = self.out.len();
    }

    /// Whether `c` is a negation: a marker negating what follows (`not`, `never`,
    /// `instead of` …) or a word negating what came before in its clause
    /// (`removed`, `no longer` …), which marks those tokens.
    fn negation(&mut self, c: &'t str, clause_end: bool) -> bool {
        let prev = self.prev;
        let lists = lists_of(c);
        let marker = lists & IN_NEGATIONS != 0
            || c.ends_with("n't")
            || (c == "of" && prev == "instead")
            || (c == "than" && prev == "rather");
        let after = lists & IN_NEGATED_BEFORE != 0
            || (c == "longer" && prev == "no")
            || (lists & IN_AFTER_NOT != 0 && (lists_of(prev) & IN_NEGATIONS != 0 || prev.ends_with("n't")));
        self.prev = c;
        if after {
            for r in &mut self.out[self.clause_start..] {
                r.neg = true;
            }
        }
        if c == "but" {
            self.negated = false;
        }
        if !(marker || after) {
            return false;
        }
        self.negated = marker || self.negated;
        if clause_end {
            self.end_clause();
        }
        true
    }

    /// The tokens of chunk `c`: a path, a flag, identifier or dotted name whole,
    /// else its alphanumeric pieces.
    /// `alnum`: `c` is known to be all ASCII letters and digits.
    fn tokens(&mut self, c: &str, alnum: bool, code: bool, mut lead: bool) {
        let neg = self.negated;
        if alnum || all_alnum(c) {
            // One piece, neither a path, a flag, an identifier nor a dotted name
            // (most chunks): the tests below all fail on it.
            self.piece(c, code, lead, neg);
        } else if (code && c.contains('/')) || (!code && is_path(c)) {
            let p = c.trim_start_matches("./").trim_end_matches('/');
            if !p.is_empty() {
                self.term(p, neg);
            }
        } else if is_flag(c) || c.contains('_') || is_dotted(c) {
            self.term(c, neg);
        } else {
            for piece in c.split(|ch: char| !ch.is_alphanumeric()).filter(|p| !p.is_empty()) {
                self.piece(piece, code, lead, neg);
                lead = false;
            }
        }
    }

    /// The token of an alphanumeric piece, if it counts.
    fn piece(&mut self, piece: &str, code: bool, lead: bool, neg: bool) {
        if let Some((weight, tool, number, local)) = self.cutter.piece(piece, code, lead) {
            self.out.push(RawTok {
                local,
                weight,
                tool,
                number,
                neg,
            });
        }
    }

    /// A term kept whole (a path, a flag, an identifier, a dotted name).
    fn term(&mut self, text: &str, neg: bool) {
        let local = self.cutter.local(text);
        self.out.push(RawTok {
            local,
            weight: TERM,
            tool: false,
            number: false,
            neg,
        });
    }
}

/// The token of an alphanumeric piece, if it counts: a number, a mixed
/// identifier, a tool (or a command's first word), a code span's word (2 letters
/// or more, stemmed), or a prose word (3 letters or a known short term, stemmed);
/// stop words do not count.
#[cfg(test)]
fn piece_token(piece: &str, code: bool, lead: bool, neg: bool) -> Option<Raw> {
    piece_class(piece, code, lead).map(|(stemmed, weight, tool, number)| Raw {
        text: if stemmed { stem(piece) } else { piece.to_string() },
        weight,
        tool,
        number,
        neg,
    })
}

/// How a piece becomes a token ([`piece_token`]): whether its text is stemmed,
/// its weight, whether it is a tool, a number.
fn piece_class(piece: &str, code: bool, lead: bool) -> Option<(bool, u8, bool, bool)> {
    let letters = piece.chars().all(char::is_alphabetic);
    let digits = piece.chars().all(|ch| ch.is_ascii_digit());
    if digits {
        Some((false, TERM, false, true))
    } else if !letters {
        Some((false, TERM, false, false))
    } else if in_list(TOOLS, piece) || lead {
        Some((false, TERM, true, false))
    } else if code {
        (piece.chars().count() >= 2 && !in_list(STOP_WORDS, piece)).then_some((true, TERM, false, false))
    } else if (piece.chars().count() >= 3 || in_list(SHORT_TERMS, piece)) && !in_list(STOP_WORDS, piece) {
        Some((true, WORD, false, false))
    } else {
        None
    }
}

/// The statement of `text`, its tokens interned ([`cut_into`], then [`Interner::stmts`]).
pub fn statement(text: &str, interner: &mut Interner) -> Stmt {
    interner.statement(text)
}

/// The pairs of tokens of `a` and `b` with the same id, in id order (a merge).
fn pairs<'a>(a: &'a Stmt, b: &'a Stmt) -> impl Iterator<Item = (&'a Tok, &'a Tok)> + 'a {
    let (mut i, mut j) = (0, 0);
    std::iter::from_fn(move || {
        while i < a.toks.len() && j < b.toks.len() {
            let (x, y) = (&a.toks[i], &b.toks[j]);
            match x.id.cmp(&y.id) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    i += 1;
                    j += 1;
                    return Some((x, y));
                }
            }
        }
        None
    })
}

/// The weighted share of the shorter statement's tokens the longer one holds.
pub fn containment(a: &Stmt, b: &Stmt) -> f64 {
    let a_shorter = a.weight <= b.weight;
    let denom = a.weight.min(b.weight);
    if denom == 0 {
        return 0.0;
    }
    let shared: u32 = pairs(a, b)
        .map(|(x, y)| u32::from(if a_shorter { x.weight } else { y.weight }))
        .sum();
    f64::from(shared) / f64::from(denom)
}

/// How many distinct tokens `a` and `b` share.
pub fn shared_count(a: &Stmt, b: &Stmt) -> u32 {
    pairs(a, b).count() as u32
}

/// The words `a` and `b` share (for a reason), at most 8.
pub fn shared_words(a: &Stmt, b: &Stmt, interner: &Interner) -> String {
    let v: Vec<&str> = pairs(a, b).map(|(x, _)| interner.name(x.id)).collect();
    let texts = [crate::search::fold::fold(&b.text), crate::search::fold::fold(&a.text)];
    let mut s = v
        .iter()
        .take(8)
        .map(|name| as_written(name, &texts))
        .collect::<Vec<_>>()
        .join(", ");
    if v.len() > 8 {
        s.push_str(", …");
    }
    if s.is_empty() { "no words".into() } else { s }
}

/// A matched word as a user reads it: a folded word (`spac`, `releas`) becomes
/// the first word of the folded `texts`, in order, that folds to it (`space`,
/// `release`); terms, paths and numbers stay as named.
fn as_written(name: &str, texts: &[String]) -> String {
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_lowercase()) {
        return name.to_string();
    }
    let mut stem = String::new();
    for folded in texts {
        for w in folded.split(|c: char| !c.is_alphanumeric()) {
            if w.len() < name.len() || !w.starts_with(&name[..1]) {
                continue;
            }
            stem_into(w, &mut stem);
            if stem == name {
                return w.to_string();
            }
        }
    }
    name.to_string()
}

/// The tokens of `s` that `pick` selects, stated (not only negated), that `o` does
/// not name at all.
fn unnamed<'a>(s: &'a Stmt, o: &'a Stmt, pick: fn(&Tok) -> bool) -> impl Iterator<Item = &'a Tok> + 'a {
    s.toks
        .iter()
        .filter(move |t| pick(t) && t.pos() && o.toks.binary_search_by_key(&t.id, |u| u.id).is_err())
}

/// Whether and how `a` and `b` contradict each other (their containment is
/// `score`).
fn contradiction(a: &Stmt, b: &Stmt, score: f64, th: &Thresholds, names: &Interner) -> Option<String> {
    let quote = |t: &Tok| format!("`{}`", names.name(t.id));
    // One rejects a term the other uses.
    for (x, y) in pairs(a, b) {
        let term = x.weight == TERM || y.weight == TERM;
        if term && x.neg() && !x.pos() && y.pos() && !y.neg() {
            return Some(format!("the memory rejects {} where the other uses it", quote(x)));
        }
        if term && y.neg() && !y.pos() && x.pos() && !x.neg() {
            return Some(format!("the memory uses {} where the other rejects it", quote(x)));
        }
    }
    // Different tools, each unnamed by the other.
    // Counted first, the words only for a contradiction (most pairs have none).
    let only = |s: &Stmt, o: &Stmt, pick: fn(&Tok) -> bool| -> Vec<String> {
        match unnamed(s, o, pick).next() {
            None => Vec::new(),
            Some(_) => unnamed(s, o, pick).map(quote).collect(),
        }
    };
    let differ = |pick: fn(&Tok) -> bool| unnamed(a, b, pick).next().is_some() && unnamed(b, a, pick).next().is_some();
    if differ(|t| t.tool) {
        let (ta, tb) = (only(a, b, |t| t.tool), only(b, a, |t| t.tool));
        return Some(format!(
            "the memory names {} where the other names {}",
            ta.join(", "),
            tb.join(", ")
        ));
    }
    if differ(|t| t.number) {
        let (na, nb) = (only(a, b, |t| t.number), only(b, a, |t| t.number));
        return Some(format!(
            "the memory says {} where the other says {}",
            na.join(", "),
            nb.join(", ")
        ));
    }
    // One negates what the other states: the negated-only tokens of one side,
    // weighted, are stated (not negated) by the other at the remove threshold.
    if score >= th.remove {
        for (s, o, who) in [(a, b, "the memory negates"), (b, a, "the other negates")] {
            let negated: u32 = s
                .toks
                .iter()
                .filter(|t| t.neg() && !t.pos())
                .map(|t| u32::from(t.weight))
                .sum();
            if negated == 0 {
                continue;
            }
            let stated: u32 = pairs(s, o)
                .filter(|(x, y)| x.neg() && !x.pos() && y.pos() && !y.neg())
                .map(|(x, _)| u32::from(x.weight))
                .sum();
            if f64::from(stated) / f64::from(negated) >= th.remove {
                return Some(format!("{who} what the other states"));
            }
        }
    }
    None
}

/// How the memory statement `m` relates to `other` (a CLAUDE/AGENTS statement or
/// a team memory's), with their containment; `None` below the related
/// threshold or when they are merely related.
pub fn relate(m: &Stmt, other: &Stmt, th: &Thresholds, names: &Interner) -> Option<(Relation, f64)> {
    let score = containment(m, other);
    if score < th.related {
        return None;
    }
    if let Some(why) = contradiction(m, other, score, th, names) {
        return Some((Relation::Contradicts(why), score));
    }
    let terms_stated = m
        .toks
        .iter()
        .filter(|t| t.weight == TERM)
        .all(|t| other.toks.binary_search_by_key(&t.id, |u| u.id).is_ok());
    // At least three words' weight on the shorter side: "Run tests." says too little.
    let enough = m.weight.min(other.weight) >= 3;
    (score >= th.remove && terms_stated && enough).then_some((Relation::Same, score))
}

#[cfg(test)]
mod tests {
    use super::*;

    const TH: Thresholds = Thresholds {
        remove: 0.75,
        related: 0.5,
    };

    fn rel(a: &str, b: &str) -> Option<(Relation, f64)> {
        let mut i = Interner::default();
        let (x, y) = (statement(a, &mut i), statement(b, &mut i));
        relate(&x, &y, &TH, &i)
    }

    fn toks(s: &str) -> Vec<String> {
        scan(s).into_iter().map(|r| r.text).collect()
    }

    #[test]
    fn matched_words_are_shown_as_written_not_folded() {
        let mut i = Interner::default();
        let memory = statement("Use 4-space indentation in Python", &mut i);
        let claude = statement("Use 4-space indentation in Python.", &mut i);
        assert_eq!(shared_words(&memory, &claude, &i), "4, space, indentation, python");
        let memory = statement("Deploy to staging before releasing builds", &mut i);
        let claude = statement("Always deploy staging first, then the release build", &mut i);
        // The CLAUDE line's words first (`release`, not the memory's `releasing`).
        assert_eq!(shared_words(&memory, &claude, &i), "deploy, staging, release, build");
        let folded = |a: &str, b: &str| [crate::search::fold::fold(a), crate::search::fold::fold(b)];
        assert_eq!(as_written("caf", &folded("Le Café ouvert", "")), "cafe");
        assert_eq!(as_written("src/api/", &folded("see src/api/", "")), "src/api/");
        assert_eq!(as_written("smok", &folded("nothing here", "smoke tests")), "smoke");
        assert_eq!(as_written("zzz", &folded("nothing here", "")), "zzz");
    }

    #[test]
    fn pieces_are_numbers_identifiers_tools_or_words() {
        let of = |p: &str, code: bool, lead: bool| {
            piece_token(p, code, lead, false).map(|r| (r.text, r.weight, r.tool, r.number))
        };
        assert_eq!(of("4", false, false), Some(("4".into(), TERM, false, true)));
        assert_eq!(of("k8s", false, false), Some(("k8s".into(), TERM, false, false)));
        assert_eq!(of("cargo", false, false), Some(("cargo".into(), TERM, true, false)));
        assert_eq!(of("make", true, true), Some(("make".into(), TERM, true, false)));
        assert_eq!(of("tests", true, false), Some(("test".into(), TERM, false, false)));
        assert_eq!(of("tests", false, false), Some(("test".into(), WORD, false, false)));
        assert_eq!(of("the", false, false), None);
        assert_eq!(of("ab", false, false), None);
    }

    #[test]
    fn negations_mark_their_clause() {
        let neg = |s: &str| -> Vec<(String, bool)> { scan(s).into_iter().map(|r| (r.text, r.neg)).collect() };
        assert_eq!(
            neg("never use yarn, use npm"),
            [("yarn".to_string(), true), ("npm".to_string(), false)]
        );
        assert!(
            neg("eslint was removed").iter().all(|t| t.1),
            "{:?}",
            neg("eslint was removed")
        );
        assert_eq!(trim_chunk("(`npm`),"), "`npm`");
    }

    #[test]
    fn respelling_prefilter_and_list_lookup_agree_with_the_lists() {
        for (from, _) in COMMAND_SPELLINGS {
            assert!(may_respell(from), "{from}");
            assert!(may_respell(&format!("`{from}x`")), "{from}");
        }
        assert!(!may_respell("keep tests green before pushing"));
        for w in ["not", "removed", "supported", "e.g", "no", "xyz", "", "unsupported"] {
            assert_eq!(lists_of(w) & IN_NEGATIONS != 0, in_list(NEGATIONS, w), "{w}");
            assert_eq!(lists_of(w) & IN_NEGATED_BEFORE != 0, in_list(NEGATED_BEFORE, w), "{w}");
            assert_eq!(
                lists_of(w) & IN_AFTER_NOT != 0,
                in_list(NEGATED_BEFORE_AFTER_NOT, w),
                "{w}"
            );
            assert_eq!(lists_of(w) & IN_ABBREVIATIONS != 0, in_list(ABBREVIATIONS, w), "{w}");
        }
        for l in [NEGATIONS, NEGATED_BEFORE, NEGATED_BEFORE_AFTER_NOT, ABBREVIATIONS] {
            assert!(l.iter().all(|w| w.len() <= 11), "{l:?}");
        }
        // The shapes' pre-filter lets every word of every list through.
        for (l, bit) in [
            (NEGATIONS, IN_NEGATIONS),
            (NEGATED_BEFORE, IN_NEGATED_BEFORE),
            (NEGATED_BEFORE_AFTER_NOT, IN_AFTER_NOT),
            (ABBREVIATIONS, IN_ABBREVIATIONS),
        ] {
            assert!(l.iter().all(|w| lists_of(w) & bit != 0), "{l:?}");
        }
    }

    #[test]
    fn lists_are_sorted_for_binary_search() {
        for l in [
            TOOLS,
            SHORT_TERMS,
            STOP_WORDS,
            NEGATIONS,
            ABBREVIATIONS,
            NEGATED_BEFORE,
            NEGATED_BEFORE_AFTER_NOT,
        ] {
            assert!(l.windows(2).all(|w| w[0] < w[1]), "{l:?}");
        }
    }

    #[test]
    fn tokens_keep_terms_whole_and_fold_words() {
        assert_eq!(toks("Tests live in `__tests__`"), ["test", "liv", "__tests__"]);
        assert_eq!(toks("Deploy to k8s from src/api/ now"), ["deploy", "k8s", "src/api"]);
        assert_eq!(toks("Put fixtures in `src/api/`."), ["put", "fixtur", "src/api"]);
        assert_eq!(
            toks("Use 4-space indentation in Python."),
            ["4", "spac", "indentation", "python"]
        );
        assert_eq!(toks("`npm run test` and npm test"), ["npm", "test", "npm", "test"]);
        assert_eq!(toks("Café TESTS, committing"), ["caf", "test", "commit"]);
        assert_eq!(
            toks("pass --frozen-lockfile to pnpm"),
            ["pass", "--frozen-lockfile", "pnpm"]
        );
    }

    #[test]
    fn sentences_split_outside_code_and_abbreviations() {
        // Backticks before a sentence end, in pairs or not, as a byte scan reads them.
        assert_eq!(
            sentences("aa `bb. cc` dd. ee `ff`. gg ``hh. ii"),
            ["aa `bb. cc` dd.", "ee `ff`.", "gg ``hh.", "ii"]
        );
        assert_eq!(sentences("x `y. z. w"), ["x `y. z. w"]);
        assert_eq!(
            sentences("Use bun. Not npm, e.g. `a. b` here! Done"),
            ["Use bun.", "Not npm, e.g. `a. b` here!", "Done"]
        );
    }

    #[test]
    fn containment_is_the_shorter_sides_share() {
        let mut i = Interner::default();
        let a = statement("Run tests with npm test.", &mut i);
        let b = statement("Run tests with `bun test`, not npm", &mut i);
        assert!((containment(&a, &b) - 1.0).abs() < 1e-9);
    }

    #[test]
    fn relations_of_typical_pairs() {
        assert!(matches!(
            rel("Run tests with `bun test`, not npm", "Run tests with npm test."),
            Some((Relation::Contradicts(_), _))
        ));
        assert!(matches!(
            rel("Run `bun test` before pushing", "Run `npm test` before pushing"),
            Some((Relation::Contradicts(_), _))
        ));
        assert!(matches!(
            rel(
                "Use 4-space indentation in Python",
                "Use 4-space indentation in Python."
            ),
            Some((Relation::Same, _))
        ));
        assert!(matches!(
            rel(
                "Use 2-space indentation in Python",
                "Use 4-space indentation in Python."
            ),
            Some((Relation::Contradicts(_), _))
        ));
        assert!(matches!(
            rel("Tests may read `data/`", "Tests must not read `data/`."),
            Some((Relation::Contradicts(_), _))
        ));
        assert_eq!(
            rel(
                "Run `cargo fmt` before committing",
                "Run `cargo clippy` before committing"
            ),
            None
        );
        // A short CLAUDE line does not swallow a memory that names more.
        assert_eq!(rel("Run tests with `bun test`, not npm", "Run tests."), None);
        assert!(matches!(
            rel(
                "Don't mock the database in tests",
                "Integration tests use a real database."
            ),
            None | Some((Relation::Same, _))
        ));
    }

    #[test]
    fn odd_input_does_not_panic() {
        let mut i = Interner::default();
        for s in [
            "",
            "`",
            "```",
            "` `",
            "\u{0}\u{feff}`é`",
            "`$ `",
            "- -- --- / // ./ ~/",
            "n't not",
            ".",
            "a. b. c.",
        ] {
            let st = statement(s, &mut i);
            let _ = relate(&st, &st, &TH, &i);
            let _ = sentences(s);
        }
    }
}
