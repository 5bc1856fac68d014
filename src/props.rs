//! Property tests (SPEC §6 reliability): the frontmatter finder and YAML wrapper,
//! the index link parser, the HTML-comment stripper, the truncation model and the
//! project key, each against a straightforward reference or invariant.
//!
//! `cargo test --lib props` runs a modest, deterministic number of cases (CI). A long
//! campaign with fresh random seeds runs each target for a given time:
//!
//! ```sh
//! MEMCTL_FUZZ_SECS=600 cargo test --release --lib props -- --test-threads 8 --nocapture
//! ```

use std::fmt::Debug;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

use crate::frontmatter::{self, Status};
use crate::index::{self, load};
use crate::paths::sanitize;
use crate::text::{is_js_space, utf16_len};
use crate::yaml;

/// Run `test` on `strategy`: `cases` deterministic cases, or random rounds until
/// `MEMCTL_FUZZ_SECS` seconds have passed. A failure panics with the shrunk input.
fn check<S>(name: &str, cases: u32, strategy: S, test: impl Fn(S::Value) -> Result<(), TestCaseError>)
where
    S: Strategy,
    S::Value: Debug,
{
    let secs: u64 = std::env::var("MEMCTL_FUZZ_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    let started = Instant::now();
    let mut total = 0u64;
    loop {
        let mut runner = if secs == 0 {
            TestRunner::new_with_rng(
                config.clone(),
                proptest::test_runner::TestRng::deterministic_rng(config.rng_algorithm),
            )
        } else {
            TestRunner::new(config.clone())
        };
        if let Err(e) = runner.run(&strategy, &test) {
            panic!("{name}: {e}");
        }
        total += u64::from(cases);
        if started.elapsed() >= Duration::from_secs(secs) {
            break;
        }
    }
    if secs > 0 {
        eprintln!("{name}: {total} cases in {:.0?}, no failure", started.elapsed());
    }
}

/// Text made of pieces that matter to the code under test, plus arbitrary chars.
fn soup(pieces: &'static [&'static str], max: usize) -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        8 => proptest::sample::select(pieces).prop_map(str::to_string),
        1 => any::<char>().prop_map(|c| c.to_string()),
    ];
    proptest::collection::vec(piece, 0..max).prop_map(|v| v.concat())
}

const YAML_PIECES: &[&str] = &[
    "---",
    "\n",
    "\r\n",
    "\n",
    ":",
    ": ",
    " ",
    "  ",
    "\t",
    "name",
    "description",
    "type",
    "user",
    "metadata",
    "a",
    "x1",
    "[",
    "]",
    "{",
    "}",
    ",",
    "&a ",
    "*a",
    "- ",
    "\"",
    "'",
    "\\",
    " #",
    "#",
    "|",
    ">",
    "!tag ",
    "!!str ",
    "?",
    "é",
    "😀",
    "\u{feff}",
    "null",
    "~",
    "true",
    "0x1F",
    "1e3",
    ".5",
    "-",
    "...",
    "%YAML",
    "@",
    "`",
];

/// The finder, written plainly from SPEC §2.4.1: line 1 (after a BOM, without one
/// trailing CR) is `---` plus spaces or tabs, and the block closes on the next such line.
fn reference_block(text: &str) -> Option<(usize, String)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let lines: Vec<&str> = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l)).collect();
    let delim = |l: &str| l.starts_with("---") && l[3..].chars().all(|c| c == ' ' || c == '\t');
    if !delim(lines[0]) {
        return None;
    }
    let close = (1..lines.len()).find(|&i| delim(lines[i]))?;
    Some((close, lines[1..close].join("\n")))
}

#[test]
fn frontmatter_finder_and_yaml_wrapper() {
    check("frontmatter", 512, soup(YAML_PIECES, 60), |text| {
        let (fm, body) = frontmatter::parse_document(&text);
        prop_assert!(text.ends_with(body), "the body is a suffix of the file");
        match reference_block(&text) {
            Some((close, yaml_text)) => {
                prop_assert_eq!(fm.open_line, Some(0));
                prop_assert_eq!(fm.close_line, Some(close));
                if yaml_text.trim_matches(is_js_space).is_empty() {
                    prop_assert_eq!(fm.status, Status::None, "an empty block");
                } else {
                    prop_assert!(
                        matches!(
                            fm.status,
                            Status::Ok | Status::Retried | Status::Failed | Status::NotMapping
                        ),
                        "{:?}",
                        fm.status
                    );
                }
            }
            None => prop_assert!(
                matches!(fm.status, Status::None | Status::NotAtStart),
                "{:?}",
                fm.status
            ),
        }
        prop_assert_eq!(
            fm.map.is_some(),
            fm.status.has_fields(),
            "fields only from a parsed mapping"
        );
        if fm.status == Status::Ok {
            // The first parse of the block succeeded, so parsing it again agrees.
            let (_, yaml_text) = reference_block(&text).ok_or_else(|| TestCaseError::fail("ok without a block"))?;
            let doc = yaml::parse(&yaml_text).map_err(|e| TestCaseError::fail(format!("{e:?}")))?;
            prop_assert_eq!(doc.root.as_ref(), fm.map.as_ref());
        }
        Ok(())
    });
}

const SIMPLE_PIECES: &[&str] = &[
    "name",
    "description",
    "type",
    "metadata",
    "k",
    ":",
    ": ",
    " ",
    "  ",
    "    ",
    "\n",
    "\n  ",
    "user",
    "x",
    "\"",
    "'",
    "''",
    "\\",
    "#",
    " #",
    "-",
    "1",
    "0",
    ".",
    "e",
    "null",
    "true",
    "Yes",
    "~",
    "é",
    "\t",
    "\r",
    "[",
    "&",
];

#[test]
fn yaml_fast_path_agrees_with_the_event_parser() {
    check("yaml fast path", 1024, soup(SIMPLE_PIECES, 40), |text| {
        if let Some(fast) = yaml::parse_simple(&text) {
            let full = yaml::parse_events(&text);
            prop_assert_eq!(Ok(fast), full, "text: {:?}", text);
        }
        Ok(())
    });
}

#[test]
fn written_memories_parse_back_on_the_first_try() {
    let value =
        || soup(YAML_PIECES, 12).prop_filter("one printable line", |s: &String| !s.chars().any(char::is_control));
    check(
        "render_memory",
        512,
        (value(), value()),
        |(name, description): (String, String)| {
            let text = frontmatter::render_memory(&name, &description, "feedback", "body\n");
            let (fm, body) = frontmatter::parse_document(&text);
            prop_assert_eq!(fm.status, Status::Ok, "{}", text);
            let get = |k: &str| fm.get(k).and_then(|v| v.as_str().map(str::to_string));
            prop_assert_eq!(get("name"), Some(name));
            prop_assert_eq!(get("description"), Some(description));
            let fields = frontmatter::Fields::from(&fm);
            prop_assert_eq!(fields.type_raw, Some(crate::yaml::Value::String("feedback".into())));
            prop_assert_eq!(body.trim_start_matches('\n'), "body\n");
            Ok(())
        },
    );
}

const INDEX_PIECES: &[&str] = &[
    "- ",
    "[",
    "]",
    "(",
    ")",
    "](",
    "]: ",
    "a.md",
    "b c.md",
    "../x.md",
    "/abs.md",
    "https://e.x",
    "<",
    ">",
    "`",
    "```",
    "    ",
    "\n",
    "\r\n",
    " — ",
    "**",
    "\\",
    "%20",
    "#frag",
    "\"t\"",
    "<!--",
    "-->",
    "> ",
    "# ",
    "é",
    " ",
];

#[test]
fn index_link_parser() {
    check("links", 1024, soup(INDEX_PIECES, 50), |text| {
        let links = index::extract_links(&text);
        let lines = index::lines(&text);
        let mut last = (0, 0);
        for l in &links {
            prop_assert!(
                l.line >= 1 && l.line <= lines.len(),
                "line {} of {}",
                l.line,
                lines.len()
            );
            let line = lines[l.line - 1];
            prop_assert!(
                l.col >= 1 && l.col <= line.chars().count(),
                "col {} in {:?}",
                l.col,
                line
            );
            prop_assert!((l.line, l.col) > last, "links in file order");
            last = (l.line, l.col);
            if let Some(t) = l.memory_target() {
                prop_assert!(!t.starts_with("../") && !t.starts_with('/'), "inside target {:?}", t);
            }
        }
        Ok(())
    });
    // Canonical entries, generated: exactly their targets, one per line.
    let file = proptest::collection::vec(proptest::sample::select(&["a", "b_c", "x-1", "é"][..]), 1..4)
        .prop_map(|v| format!("{}.md", v.concat()));
    check(
        "canonical links",
        256,
        proptest::collection::vec(file, 1..30),
        |files| {
            let text: String = files.iter().map(|f| format!("- [Title {f}]({f}) — hook\n")).collect();
            let found: Vec<String> = index::extract_links(&text)
                .iter()
                .filter_map(|l| l.memory_target().map(str::to_string))
                .collect();
            prop_assert_eq!(found, files);
            Ok(())
        },
    );
}

/// The pieces of [`INDEX_PIECES`] plus what only the escape- and NUL-aware paths
/// of the parser react to.
const LINEAR_PIECES: &[&str] = &[
    "- ", "[", "[", "]", "]", "(", ")", "](", "]: ", "[a]: ", "![", "a.md", "b c.md", "<", ">", "`", "``", "```", "\\",
    "\\\\", "\\)", "\\[", "\\]", "\0", "\t", " ", "   ", "\n", "\r\n", "<!--", "-->", "\"t\"", "é", "x",
];

/// The linear link parser and comment-line finder give exactly what the old
/// quadratic ones (kept as `index::reference`) give.
#[test]
fn linear_link_parser_matches_the_old_one() {
    check("linear links", 2048, soup(LINEAR_PIECES, 40), |text| {
        prop_assert_eq!(index::extract_links(&text), index::reference::extract_links(&text));
        prop_assert_eq!(index::comment_lines(&text), index::reference::comment_lines(&text));
        Ok(())
    });
}

const COMMENT_PIECES: &[&str] = &[
    "<!--", "-->", "<!-->", "<!--->", "\n", "\n", "\r\n", "\r", "```", "~~~", "    ", "   ", "- ", "> ", "<div>",
    "</div>", "a", "text", " ", "\t", "*", "1. ", "é",
];

/// The characters of `s` that are not whitespace.
fn visible(s: &str) -> Vec<char> {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

#[test]
fn comment_stripper() {
    check("comments", 1024, soup(COMMENT_PIECES, 40), |text| {
        let l = load::load(&text);
        let file_lines = text.split('\n').count();
        let origins = &l.processed.origin;
        prop_assert_eq!(
            origins.len(),
            l.processed.text.split('\n').count(),
            "one origin per line"
        );
        prop_assert!(origins.iter().all(|&o| o >= 1 && o <= file_lines), "{:?}", origins);
        prop_assert!(
            origins.windows(2).all(|w| w[0] <= w[1]),
            "origins in order: {:?}",
            origins
        );
        // Stripping only removes text: what stays is a subsequence of the file.
        let (kept, all) = (visible(&l.processed.text), visible(&text));
        let mut it = all.iter();
        prop_assert!(
            kept.iter().all(|c| it.any(|a| a == c)),
            "{:?} is not a subsequence",
            l.processed.text
        );
        if !text.contains("<!--") {
            prop_assert_eq!(&l.processed.text, text.trim_matches(is_js_space));
            prop_assert!(!l.html_comments_stripped);
        }
        Ok(())
    });
}

/// §2.7.1 step 8's `shorten` written plainly on UTF-16 units.
fn reference_shorten(s: &str, n: usize) -> String {
    let u: Vec<u16> = s.encode_utf16().collect();
    if u.len() <= n {
        return s.to_string();
    }
    let mut head = u[..n - 1].to_vec();
    if head.last().is_some_and(|&x| (0xd800..0xdc00).contains(&x)) {
        head.pop();
    }
    let space = |x: u16| char::from_u32(u32::from(x)).is_some_and(is_js_space);
    if let Some(i) = head.iter().rposition(|&x| space(x))
        && i > n / 2
    {
        head.truncate(i);
    }
    while head.last().is_some_and(|&x| space(x)) {
        head.pop();
    }
    format!("{}…", String::from_utf16_lossy(&head))
}

/// §2.7.1 written plainly on UTF-16 units.
fn reference_truncate(text: &str) -> (usize, usize, bool, bool, String) {
    let t = text.trim_matches(is_js_space);
    let line_count = t.split('\n').count();
    let units: Vec<u16> = t.encode_utf16().collect();
    let (line_cut, unit_cut) = (line_count > 200, units.len() > 25_000);
    if !line_cut && !unit_cut {
        return (line_count, units.len(), false, false, t.to_string());
    }
    let k: Vec<u16> = if line_cut {
        t.split('\n')
            .take(200)
            .collect::<Vec<_>>()
            .join("\n")
            .encode_utf16()
            .collect()
    } else {
        units.clone()
    };
    let n = if k.len() > 25_000 {
        let cut = k[..=25_000].iter().rposition(|&u| u == u16::from(b'\n')).unwrap_or(0);
        if cut > 0 { cut } else { 25_000 }
    } else {
        k.len()
    };
    let kept = String::from_utf16_lossy(&k[..n]);
    let size = crate::text::format_file_size;
    let reason = match (line_cut, unit_cut) {
        (false, true) => format!(
            "{} (limit: {}) \u{2014} index entries are too long",
            size(units.len()),
            size(25_000)
        ),
        (true, false) => format!("{line_count} lines (limit: 200)"),
        _ => format!("{line_count} lines and {}", size(units.len())),
    };
    // k is a prefix of t: the unit after the kept ones says where the cut fell.
    let detail = if units.get(n) == Some(&u16::from(b'\n')) {
        let c = k[..n].iter().filter(|&&u| u == u16::from(b'\n')).count() + 1;
        let l = t.split('\n').nth(c).unwrap_or("").trim_matches(is_js_space);
        let quote = if l.is_empty() {
            String::new()
        } else {
            format!(" (\"{}\")", reference_shorten(l, 80))
        };
        format!(
            "{} of {line_count} lines were cut off, starting at line {}{quote}",
            line_count - c,
            c + 1
        )
    } else {
        format!("everything after the first {n} characters of line 1 was cut off")
    };
    let loaded = format!(
        "{kept}\n\n> WARNING: MEMORY.md is {reason}. Only part of it was loaded: {detail}. Keep index entries to one line under ~200 chars; move detail into topic files."
    );
    (line_count, units.len(), line_cut, unit_cut, loaded)
}

#[test]
fn truncation_model() {
    // Lines long and many enough to cross both caps; no `---` or `<!--`, so only
    // trimming and truncation apply.
    let line = prop_oneof![
        4 => (0usize..300).prop_map(|n| "a".repeat(n)),
        1 => soup(&["a", " ", "\t", "\r", "é", "😀", "\u{a0}", "\u{feff}", "\u{2028}", "- [T](t.md)"], 30),
    ];
    let text = (
        proptest::collection::vec(line, 0..400),
        proptest::sample::select(&[1usize, 1, 2, 40][..]),
    )
        .prop_map(|(lines, rep)| lines.join("\n").repeat(rep));
    check("truncation", 128, text, |text| {
        let l = load::load(&text);
        let (lines, units, line_cut, unit_cut, loaded) = reference_truncate(&text);
        prop_assert_eq!(l.line_count, lines);
        prop_assert_eq!(l.unit_count, units);
        prop_assert_eq!(l.utf8_bytes, text.trim_matches(is_js_space).len());
        prop_assert_eq!((l.line_truncated, l.unit_truncated), (line_cut, unit_cut));
        prop_assert!(l.loaded == loaded, "loaded text differs");
        let file_lines: Vec<&str> = text.split('\n').collect();
        for d in &l.dropped {
            prop_assert!(d.line >= 1 && d.line <= file_lines.len(), "line {}", d.line);
            prop_assert!(
                file_lines[d.line - 1].contains(l.dropped_text(d)),
                "line {} holds {:?}",
                d.line,
                l.dropped_text(d)
            );
        }
        if !l.truncated() {
            prop_assert!(l.dropped.is_empty());
        }
        Ok(())
    });
}

/// A reader handing out its bytes in pieces of the given sizes, in turn.
struct Pieces<'a> {
    data: &'a [u8],
    sizes: &'a [usize],
    turn: usize,
}

impl std::io::Read for Pieces<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let want = self.sizes[self.turn % self.sizes.len()].max(1);
        self.turn += 1;
        let n = want.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

#[test]
fn streamed_load_reports_what_the_whole_text_does() {
    use crate::index::check::{checked, checked_streamed};
    use crate::index::report::{JSON_DROPPED, LIST_DROPPED, render_text};
    use std::sync::atomic::{AtomicUsize, Ordering};
    // Many lines around both caps: blank and space-only ones (also at both ends),
    // CRs, JavaScript-only spaces, astral chars, a BOM; now and then an opening
    // `---` or a `<!--`, which the stream leaves to the whole-text model.
    let short = || {
        prop_oneof![
            6 => (1usize..160).prop_map(|n| format!("- [T{n}](t{n}.md) \u{2014} {}", "h".repeat(n))),
            2 => Just(String::new()),
            2 => soup(&["a", " ", "\t", "\r", "é", "😀", "\u{a0}", "\u{feff}", "\u{2028}", "- [T](t.md)", "x"], 12),
            1 => proptest::sample::select(&["   ", "\r", " \u{3000}"][..]).prop_map(str::to_string),
        ]
    };
    let line = prop_oneof![
        10 => short(),
        1 => (0usize..3000).prop_map(|n| "w".repeat(n)),
        // Around the unit cap on its own, with leading space and an astral char.
        1 => (24_990usize..25_010).prop_map(|n| format!(" \t{}😀w", "w".repeat(n))),
    ];
    // Short lines only (the line cap comes first), or long ones too.
    let lines = prop_oneof![
        proptest::collection::vec(short(), 0..700),
        proptest::collection::vec(line, 0..700),
    ];
    let text = (
        lines,
        proptest::sample::select(&["", "", "", "\u{feff}", "\n\n  \n", "---\n", "\u{feff}--- \r\n"][..]),
        proptest::sample::select(&["", "\n", "\n\n \n\t", " \u{a0}"][..]),
        proptest::option::weighted(0.1, any::<proptest::sample::Index>()),
    )
        .prop_map(|(mut lines, head, tail, comment)| {
            if let Some(at) = comment {
                let at = at.index(lines.len() + 1);
                lines.insert(at, "<!-- c -->".to_string());
            }
            format!("{head}{}{tail}", lines.join("\n"))
        });
    let sizes = proptest::collection::vec(prop_oneof![1usize..8, 8usize..5000, Just(70_000)], 1..6);
    let streamed = AtomicUsize::new(0);
    check("streamed load", 160, (text, sizes), |(text, sizes)| {
        let whole = checked("MEMORY.md".into(), None, text.clone());
        // The text report, the JSON report, and `--print-loaded` (which quotes none).
        for (quotes, json) in [(LIST_DROPPED, false), (JSON_DROPPED, true), (0, false)] {
            let mut reader = Pieces {
                data: text.as_bytes(),
                sizes: &sizes,
                turn: 0,
            };
            let Ok(Some(s)) = load::load_stream(&mut reader, quotes) else {
                continue;
            };
            streamed.fetch_add(1, Ordering::Relaxed);
            let c = checked_streamed("MEMORY.md".into(), None, s, text.len() as u64);
            prop_assert_eq!(&c.load.loaded, &whole.load.loaded);
            if quotes == 0 {
                continue;
            }
            if json {
                prop_assert_eq!(
                    c.report(Some(80.0), JSON_DROPPED),
                    whole.report(Some(80.0), JSON_DROPPED)
                );
            } else {
                prop_assert_eq!(
                    render_text(&c.report(Some(80.0), LIST_DROPPED)),
                    render_text(&whole.report(Some(80.0), LIST_DROPPED))
                );
            }
        }
        Ok(())
    });
    assert!(
        streamed.load(Ordering::Relaxed) > 20,
        "too few cases took the streamed path"
    );
}

/// Wyhash as SPEC §2.2.7 describes it, step by step with byte-wise reads.
fn reference_wyhash(bytes: &[u8]) -> u64 {
    let s = [
        0xa0761d6478bd642fu64,
        0xe7037ed1a0b428db,
        0x8ebc6af09c88c6e3,
        0x589965cc75374cc3,
    ];
    let read = |i: usize, n: usize| (0..n).fold(0u64, |acc, k| acc | (u64::from(bytes[i + k]) << (8 * k)));
    let mum = |a: u64, b: u64| {
        let p = (a as u128) * (b as u128);
        (p as u64, (p >> 64) as u64)
    };
    let mix = |a: u64, b: u64| {
        let (lo, hi) = mum(a, b);
        lo ^ hi
    };
    let len = bytes.len();
    let seed = 0u64;
    let init = seed ^ mix(seed ^ s[0], s[1]);
    let (mut st0, mut st1, mut st2) = (init, init, init);
    let (a, b);
    if len <= 16 {
        if len >= 4 {
            let q = (len >> 3) << 2;
            a = (read(0, 4) << 32) | read(q, 4);
            b = (read(len - 4, 4) << 32) | read(len - 4 - q, 4);
        } else if len >= 1 {
            a = (u64::from(bytes[0]) << 16) | (u64::from(bytes[len >> 1]) << 8) | u64::from(bytes[len - 1]);
            b = 0;
        } else {
            a = 0;
            b = 0;
        }
    } else {
        let mut i = 0;
        if len >= 48 {
            while i + 48 < len {
                st0 = mix(read(i, 8) ^ s[1], read(i + 8, 8) ^ st0);
                st1 = mix(read(i + 16, 8) ^ s[2], read(i + 24, 8) ^ st1);
                st2 = mix(read(i + 32, 8) ^ s[3], read(i + 40, 8) ^ st2);
                i += 48;
            }
            st0 = st0 ^ st1 ^ st2;
        }
        let tail = len - i;
        let mut j = 0;
        while j + 16 < tail {
            st0 = mix(read(i + j, 8) ^ s[1], read(i + j + 8, 8) ^ st0);
            j += 16;
        }
        a = read(len - 16, 8);
        b = read(len - 8, 8);
    }
    let (a, b) = mum(a ^ s[1], b ^ st0);
    mix(a ^ s[0] ^ len as u64, b ^ s[1])
}

/// `sanitizePath` written plainly: each UTF-16 unit that is not `[A-Za-z0-9]` becomes `-`.
fn reference_key(name: &str) -> (String, String) {
    let units: Vec<u16> = name.encode_utf16().collect();
    let clean: String = units
        .iter()
        .map(|&u| match char::from_u32(u32::from(u)) {
            Some(c) if c.is_ascii_alphanumeric() => c,
            _ => '-',
        })
        .collect();
    if units.len() <= 200 {
        return (clean.clone(), clean);
    }
    let mut h: i32 = 0;
    for &u in &units {
        h = h.wrapping_mul(31).wrapping_add(i32::from(u));
    }
    let base36 = |mut n: u64| {
        let mut d = Vec::new();
        loop {
            d.push(std::char::from_digit((n % 36) as u32, 36).unwrap_or('?'));
            n /= 36;
            if n == 0 {
                break;
            }
        }
        d.iter().rev().collect::<String>()
    };
    let prefix = &clean[..200];
    (
        format!("{prefix}-{}", base36(reference_wyhash(name.as_bytes()))),
        format!("{prefix}-{}", base36(u64::from(h.unsigned_abs()))),
    )
}

#[test]
fn sanitize_path_and_wyhash() {
    let name = prop_oneof![
        soup(
            &[
                "/", "home", "a", "Z9", " ", ".", "-", "_", "é", "😀", "\\", ":", "u\u{308}"
            ],
            120
        ),
        any::<String>(),
    ];
    check("sanitizePath", 1024, name, |name| {
        let key = sanitize::sanitize(&name);
        let (wy, dj) = reference_key(&name);
        prop_assert_eq!(&key.wyhash, &wy);
        prop_assert_eq!(&key.key, &dj);
        prop_assert_eq!(key.units, utf16_len(&name));
        Ok(())
    });
}

#[test]
fn wyhash_against_the_reference() {
    check(
        "wyhash",
        2048,
        proptest::collection::vec(any::<u8>(), 0..300),
        |bytes| {
            prop_assert_eq!(sanitize::wyhash(&bytes), reference_wyhash(&bytes));
            Ok(())
        },
    );
}
