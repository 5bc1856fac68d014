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

/// Token strings to small ids, shared by every statement of one analysis.
#[derive(Default)]
pub struct Interner {
    ids: HashMap<String, u32>,
    names: Vec<String>,
}

impl Interner {
    fn id(&mut self, s: &str) -> u32 {
        if let Some(&i) = self.ids.get(s) {
            return i;
        }
        let i = self.names.len() as u32;
        self.ids.insert(s.to_string(), i);
        self.names.push(s.to_string());
        i
    }

    /// The text of a token.
    pub fn name(&self, id: u32) -> &str {
        self.names.get(id as usize).map_or("", String::as_str)
    }
}

/// One distinct token of a statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Tok {
    id: u32,
    weight: u8,
    /// Whether it is a term (weight 2) and among them a tool or a number.
    tool: bool,
    number: bool,
    /// Seen outside a negated clause / inside one.
    pos: bool,
    neg: bool,
}

/// A statement as compared.
#[derive(Clone, Debug)]
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

/// Known tools and commands: as plain words they are terms (weight 2), and two
/// statements naming different ones for the same subject contradict each other.
/// (Not `make`, `node`, `test`: common English words; in a backticked command
/// they are its first word, a tool all the same.)
const TOOLS: &[&str] = &[
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
const SHORT_TERMS: &[&str] = &["ci", "db", "js", "pr", "py", "qa", "ts", "ui", "uv"];

/// English words too common to say what a statement is about (negations are
/// handled before these are dropped).
const STOP_WORDS: &[&str] = &[
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
const NEGATIONS: &[&str] = &[
    "avoid", "cannot", "dont", "never", "no", "not", "nothing", "stop", "without",
];

/// Words that negate what came before them in their clause ("eslint was removed").
const NEGATED_BEFORE: &[&str] = &[
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
const NEGATED_BEFORE_AFTER_NOT: &[&str] = &["allowed", "needed", "recommended", "supported", "used", "wanted"];

/// Spellings of one command folded to one (on the lower-cased text).
const COMMAND_SPELLINGS: &[(&str, &str)] = &[
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
const ABBREVIATIONS: &[&str] = &["approx", "cf", "e.g", "eg", "etc", "i.e", "ie", "incl", "no", "vs"];

fn in_list(list: &[&str], w: &str) -> bool {
    list.binary_search(&w).is_ok()
}

/// The sentences of `text` (a statement may hold several): split after `.`, `!`
/// or `?` followed by white space, outside backticked spans, not after a known
/// abbreviation or a single letter.
pub fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let b = text.as_bytes();
    let mut start = 0;
    let mut code = false;
    for i in 0..b.len() {
        match b[i] {
            b'`' => code = !code,
            b'.' | b'!' | b'?' if !code => {
                let next_space = b.get(i + 1).is_none_or(|c| c.is_ascii_whitespace());
                if !next_space || i + 1 >= b.len() {
                    continue;
                }
                let word_start = text[..i]
                    .rfind(|c: char| c.is_whitespace() || c == '(')
                    .map_or(0, |p| p + 1);
                let word = text[word_start..i].to_ascii_lowercase();
                if b[i] == b'.' && (word.chars().count() == 1 || in_list(ABBREVIATIONS, &word)) {
                    continue;
                }
                let s = text[start..=i].trim();
                if !s.is_empty() {
                    out.push(s);
                }
                start = i + 1;
            }
            _ => {}
        }
    }
    let s = text[start.min(text.len())..].trim();
    if !s.is_empty() {
        out.push(s);
    }
    out
}

/// A word's folded form: plural, `-ing` and `-ed` endings removed, a final `e`
/// dropped and a doubled final consonant undoubled (`tests`, `testing`, `tested`
/// → `test`; `committing` → `commit`; `writes`, `writing` → `writ`).
fn stem(w: &str) -> String {
    let mut s = w.to_string();
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
    s
}

/// One token found while scanning, before deduplication.
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
fn scan(text: &str) -> Vec<Raw> {
    let folded = normalise(text);
    let mut sc = Scanner::default();
    for (i, part) in folded.split('`').enumerate() {
        let code = i % 2 == 1;
        let words_in_span = if code { part.split_whitespace().count() } else { 0 };
        let mut first_in_span = true;
        for chunk in part.split_whitespace() {
            if sc.chunk(chunk, code, code && first_in_span && words_in_span >= 2) {
                first_in_span = false;
            }
        }
    }
    sc.out
}

/// Folded (case, accents), `’` as `'`, common command spellings as one.
fn normalise(text: &str) -> String {
    let mut folded = crate::search::fold::fold(text).replace(['’', '‘'], "'");
    for (from, to) in COMMAND_SPELLINGS {
        if folded.contains(from) {
            folded = folded.replace(from, to);
        }
    }
    folded
}

/// A chunk without the quotes, brackets and punctuation around it.
fn trim_chunk(chunk: &str) -> &str {
    chunk
        .trim_start_matches(['"', '\'', '(', '[', '{', '<', '*', '“', '$', '>'])
        .trim_end_matches(['"', '\'', ')', ']', '}', '>', '*', ',', ';', ':', '!', '?', '.', '”'])
}

/// The scan's state: the tokens so far, whether the clause is negated, the word
/// before, and where the current clause's tokens start in `out` (for a negation
/// that follows what it negates: "eslint was removed", "bun is not supported").
#[derive(Default)]
struct Scanner<'t> {
    out: Vec<Raw>,
    negated: bool,
    prev: &'t str,
    clause_start: usize,
}

impl<'t> Scanner<'t> {
    /// One chunk; `lead`: it starts a backticked command (its first word is a
    /// tool). Returns whether it reached the tokens (not a dash or a negation).
    fn chunk(&mut self, chunk: &'t str, code: bool, lead: bool) -> bool {
        let c = trim_chunk(chunk);
        // `,` `;` `.` `:` `!` `?` end a clause, not an abbreviation's `.`.
        let clause_end = !code && chunk.ends_with([',', ';', '.', ':', '!', '?']) && !in_list(ABBREVIATIONS, c);
        // A dash ends a clause; a lone `,` between code spans (`a`, `b`) does not.
        if c.is_empty() || c.chars().all(|ch| matches!(ch, '-' | '—' | '–' | '=' | '|')) {
            if !code && !c.is_empty() {
                self.end_clause();
            }
            return false;
        }
        if !code && self.negation(c, clause_end) {
            return false;
        }
        self.tokens(c, code, lead);
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
        let marker = in_list(NEGATIONS, c)
            || c.ends_with("n't")
            || (c == "of" && prev == "instead")
            || (c == "than" && prev == "rather");
        let after = in_list(NEGATED_BEFORE, c)
            || (c == "longer" && prev == "no")
            || (in_list(NEGATED_BEFORE_AFTER_NOT, c) && (in_list(NEGATIONS, prev) || prev.ends_with("n't")));
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
    fn tokens(&mut self, c: &str, code: bool, mut lead: bool) {
        let neg = self.negated;
        if (code && c.contains('/')) || (!code && is_path(c)) {
            let p = c.trim_start_matches("./").trim_end_matches('/');
            if !p.is_empty() {
                self.out.push(Raw::term(p.to_string(), false, false, neg));
            }
        } else if is_flag(c) || c.contains('_') || is_dotted(c) {
            self.out.push(Raw::term(c.to_string(), false, false, neg));
        } else {
            for piece in c.split(|ch: char| !ch.is_alphanumeric()).filter(|p| !p.is_empty()) {
                self.out.extend(piece_token(piece, code, lead, neg));
                lead = false;
            }
        }
    }
}

impl Raw {
    fn term(text: String, tool: bool, number: bool, neg: bool) -> Raw {
        Raw {
            text,
            weight: TERM,
            tool,
            number,
            neg,
        }
    }
}

/// The token of an alphanumeric piece, if it counts: a number, a mixed
/// identifier, a tool (or a command's first word), a code span's word (2 letters
/// or more, stemmed), or a prose word (3 letters or a known short term, stemmed);
/// stop words do not count.
fn piece_token(piece: &str, code: bool, lead: bool, neg: bool) -> Option<Raw> {
    let letters = piece.chars().all(char::is_alphabetic);
    let digits = piece.chars().all(|ch| ch.is_ascii_digit());
    if digits {
        Some(Raw::term(piece.to_string(), false, true, neg))
    } else if !letters {
        Some(Raw::term(piece.to_string(), false, false, neg))
    } else if in_list(TOOLS, piece) || lead {
        Some(Raw::term(piece.to_string(), true, false, neg))
    } else if code {
        (piece.chars().count() >= 2 && !in_list(STOP_WORDS, piece)).then(|| Raw::term(stem(piece), false, false, neg))
    } else if (piece.chars().count() >= 3 || in_list(SHORT_TERMS, piece)) && !in_list(STOP_WORDS, piece) {
        Some(Raw {
            text: stem(piece),
            weight: WORD,
            tool: false,
            number: false,
            neg,
        })
    } else {
        None
    }
}

/// The statement of `text`, its tokens interned.
pub fn statement(text: &str, interner: &mut Interner) -> Stmt {
    let mut toks: Vec<Tok> = Vec::new();
    for r in scan(text) {
        let id = interner.id(&r.text);
        toks.push(Tok {
            id,
            weight: r.weight,
            tool: r.tool,
            number: r.number,
            pos: !r.neg,
            neg: r.neg,
        });
    }
    toks.sort_by_key(|t| t.id);
    let mut merged: Vec<Tok> = Vec::with_capacity(toks.len());
    for t in toks {
        match merged.last_mut() {
            Some(m) if m.id == t.id => {
                m.weight = m.weight.max(t.weight);
                m.tool |= t.tool;
                m.number |= t.number;
                m.pos |= t.pos;
                m.neg |= t.neg;
            }
            _ => merged.push(t),
        }
    }
    let weight = merged.iter().map(|t| u32::from(t.weight)).sum();
    Stmt {
        text: text.trim().to_string(),
        toks: merged,
        weight,
    }
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
    let mut s = v.iter().take(8).copied().collect::<Vec<_>>().join(", ");
    if v.len() > 8 {
        s.push_str(", …");
    }
    if s.is_empty() { "no words".into() } else { s }
}

/// The tokens of `s` that `pick` selects, stated (not only negated), that `o` does
/// not name at all.
fn unnamed<'a>(s: &'a Stmt, o: &'a Stmt, pick: fn(&Tok) -> bool) -> impl Iterator<Item = &'a Tok> + 'a {
    s.toks
        .iter()
        .filter(move |t| pick(t) && t.pos && o.toks.binary_search_by_key(&t.id, |u| u.id).is_err())
}

/// Whether and how `a` and `b` contradict each other (their containment is
/// `score`).
fn contradiction(a: &Stmt, b: &Stmt, score: f64, th: &Thresholds, names: &Interner) -> Option<String> {
    let quote = |t: &Tok| format!("`{}`", names.name(t.id));
    // One rejects a term the other uses.
    for (x, y) in pairs(a, b) {
        let term = x.weight == TERM || y.weight == TERM;
        if term && x.neg && !x.pos && y.pos && !y.neg {
            return Some(format!("the memory rejects {} where the other uses it", quote(x)));
        }
        if term && y.neg && !y.pos && x.pos && !x.neg {
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
                .filter(|t| t.neg && !t.pos)
                .map(|t| u32::from(t.weight))
                .sum();
            if negated == 0 {
                continue;
            }
            let stated: u32 = pairs(s, o)
                .filter(|(x, y)| x.neg && !x.pos && y.pos && !y.neg)
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
