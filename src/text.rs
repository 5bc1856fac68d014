//! The text model of SPEC §2.1: how Claude Code (a JavaScript program) measures,
//! trims, rounds and prints. Everything here is pure.

use chrono::{DateTime, TimeZone, Utc};

/// Length in UTF-16 code units, the unit Claude Code compares with its limits.
pub fn utf16_len(s: &str) -> usize {
    if s.is_ascii() {
        return s.len();
    }
    // One unit per char (every byte that is not a continuation byte `10xxxxxx`), one
    // more for each 4-byte sequence (lead byte `11110xxx`, an astral char). Counted
    // in byte lanes over blocks small enough not to overflow them, which the
    // compiler turns into vector code.
    s.as_bytes()
        .chunks(127)
        .map(|block| {
            block
                .iter()
                .fold(0u8, |n, &b| n + u8::from((b as i8) >= -64) + u8::from(b >= 0xf0)) as usize
        })
        .sum()
}

/// Whether every LF-separated line of `b` starts with a printable ASCII character
/// (so none is blank); lines that start otherwise need a closer look. Blocks of
/// byte pairs are scanned without branches, which the compiler vectorizes.
pub fn every_line_starts_printable(b: &[u8]) -> bool {
    let printable = |c: u8| (0x21..=0x7e).contains(&c);
    if !b.first().is_some_and(|c| printable(*c)) || b.last() == Some(&b'\n') {
        return false;
    }
    b[..b.len() - 1]
        .chunks(4096)
        .zip(b[1..].chunks(4096))
        .all(|(prev, next)| {
            !prev
                .iter()
                .zip(next)
                .fold(false, |bad, (&p, &c)| bad | (p == b'\n' && !printable(c)))
        })
}

/// Binary content, as memctl judges it: a NUL byte within the first 8 KiB.
pub fn looks_binary(bytes: &[u8]) -> bool {
    bytes[..bytes.len().min(8192)].contains(&0)
}

/// How many times `byte` occurs in `bytes`, counted in byte lanes over blocks
/// small enough not to overflow them (vector code).
pub fn count_byte(bytes: &[u8], byte: u8) -> usize {
    bytes
        .chunks(255)
        .map(|block| block.iter().fold(0u8, |n, &b| n + u8::from(b == byte)) as usize)
        .sum()
}

/// The characters JavaScript's `trim` and `\s` remove (SPEC §2.1.3). Not Rust's set:
/// U+0085 is excluded and U+FEFF included.
pub fn is_js_space(c: char) -> bool {
    matches!(
        c,
        '\u{9}'..='\u{d}'
            | ' '
            | '\u{a0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200a}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202f}'
            | '\u{205f}'
            | '\u{3000}'
            | '\u{feff}'
    )
}

/// JavaScript's `String.prototype.trim`.
pub fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_space)
}

/// JavaScript line terminators for `.` in regular expressions.
pub fn is_js_line_terminator(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}')
}

/// JavaScript's `Number.prototype.toFixed(1)`: nearest decimal to the exact binary
/// value, exact ties away from zero (SPEC §2.1.6).
pub fn to_fixed1(x: f64) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if x.abs() >= 1e21 {
        return js_number(x);
    }
    let sign = if x < 0.0 { "-" } else { "" };
    // `{:.1074}` prints the exact binary expansion: every f64 has at most 1074
    // fractional binary digits, hence at most 1074 decimal ones.
    let exact = format!("{:.1074}", x.abs());
    let (int_part, frac) = exact.split_once('.').unwrap_or((&exact, "0"));
    let mut digits: Vec<u8> = int_part.bytes().map(|b| b - b'0').collect();
    let frac = frac.as_bytes();
    digits.push(frac.first().map_or(0, |b| b - b'0'));
    if frac.get(1).map_or(0, |b| b - b'0') >= 5 {
        let mut i = digits.len();
        loop {
            if i == 0 {
                digits.insert(0, 1);
                break;
            }
            i -= 1;
            if digits[i] == 9 {
                digits[i] = 0;
            } else {
                digits[i] += 1;
                break;
            }
        }
    }
    let n = digits.len();
    let int: String = digits[..n - 1].iter().map(|d| char::from(b'0' + d)).collect();
    format!("{sign}{int}.{}", digits[n - 1])
}

/// JavaScript's `String(number)`: the shortest round-trip form (`42`, `1.5`, `1e+21`).
pub fn js_number(x: f64) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    let mut buf = ryu_js::Buffer::new();
    buf.format(x).to_string()
}

/// Claude Code's `formatFileSize` (SPEC §2.7.1).
pub fn format_file_size(n: usize) -> String {
    let kb = n as f64 / 1024.0;
    if kb < 1.0 {
        return format!("{n} bytes");
    }
    let short = |v: f64| {
        let s = to_fixed1(v);
        s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
    };
    if kb < 1024.0 {
        return format!("{}KB", short(kb));
    }
    let mb = kb / 1024.0;
    if mb < 1024.0 {
        return format!("{}MB", short(mb));
    }
    format!("{}GB", short(mb / 1024.0))
}

/// `Date.prototype.toISOString` for a millisecond timestamp, fractional milliseconds
/// truncated toward zero (SPEC §2.1.7).
pub fn iso_ms(ms: f64) -> String {
    IsoMs(ms).to_string()
}

/// A millisecond timestamp that formats as [`iso_ms`] without allocating (for
/// serializers and `write!`).
#[derive(Clone, Copy, Debug)]
pub struct IsoMs(pub f64);

impl std::fmt::Display for IsoMs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match Utc.timestamp_millis_opt(self.0.trunc() as i64).single() {
            Some(t) => write_iso(f, t),
            None => f.write_str("invalid-date"),
        }
    }
}

impl serde::Serialize for IsoMs {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// An instant in Claude Code's form `YYYY-MM-DDTHH:MM:SS.sssZ`.
pub fn iso(t: DateTime<Utc>) -> String {
    let mut s = String::with_capacity(24);
    let _ = write_iso(&mut s, t);
    s
}

/// [`iso`] into any writer: years outside 0–9999 in chrono's extended form.
fn write_iso(w: &mut impl std::fmt::Write, t: DateTime<Utc>) -> std::fmt::Result {
    use chrono::{Datelike, Timelike};
    let y = t.year();
    if !(0..=9999).contains(&y) {
        return write!(w, "{}", t.format("%Y-%m-%dT%H:%M:%S%.3fZ"));
    }
    write!(
        w,
        "{y:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        t.month(),
        t.day(),
        t.hour(),
        t.minute(),
        t.second(),
        t.timestamp_subsec_millis().min(999)
    )
}

/// An instant as fractional milliseconds since the epoch.
pub fn millis(t: DateTime<Utc>) -> f64 {
    t.timestamp() as f64 * 1000.0 + f64::from(t.timestamp_subsec_nanos()) / 1e6
}

/// Group an integer's digits by three with spaces (`25 500`), for text output.
pub fn group_digits(n: i64) -> String {
    let s = n.unsigned_abs().to_string();
    if s.len() < 4 {
        return n.to_string();
    }
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(' ');
        }
        out.push(c);
    }
    if n < 0 { format!("-{out}") } else { out }
}

/// Levenshtein distance over chars, case-insensitive (for did-you-mean hints).
pub fn levenshtein_ci(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.to_lowercase().chars().collect();
    let b: Vec<char> = b.to_lowercase().chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur.push(sub.min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

/// Up to three candidates within max(2, len/3) edits of `word`, nearest first.
pub fn suggestions<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let limit = 2.max(word.chars().count() / 3);
    let mut scored: Vec<(usize, &str)> = candidates
        .into_iter()
        .map(|c| (levenshtein_ci(word, c), c))
        .filter(|(d, _)| *d <= limit)
        .collect();
    scored.sort();
    scored.dedup_by(|a, b| a.1 == b.1);
    scored.into_iter().take(3).map(|(_, c)| c.to_string()).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn counting_matches_a_char_by_char_count() {
        for s in ["", "a", "a\nb\n", "é\n😀x\n\n日本語\n", &"ab\n😀é".repeat(37)] {
            assert_eq!(super::utf16_len(s), s.encode_utf16().count(), "{s:?}");
            assert_eq!(super::count_byte(s.as_bytes(), b'\n'), s.matches('\n').count(), "{s:?}");
        }
    }

    use super::*;

    #[test]
    fn to_fixed1_rounds_exact_ties_away_from_zero() {
        assert_eq!(to_fixed1(1.25), "1.3");
        assert_eq!(to_fixed1(-1.25), "-1.3");
        assert_eq!(to_fixed1(25.25), "25.3");
        assert_eq!(to_fixed1(1.15), "1.1");
        assert_eq!(to_fixed1(25.04), "25.0");
        assert_eq!(to_fixed1(9.96), "10.0");
        assert_eq!(to_fixed1(0.0), "0.0");
        assert_eq!(to_fixed1(-0.04), "-0.0");
        assert_eq!(to_fixed1(25.0), "25.0");
    }

    #[test]
    fn format_file_size_matches_appendix_a12() {
        for (n, s) in [
            (0, "0 bytes"),
            (1023, "1023 bytes"),
            (1024, "1KB"),
            (1280, "1.3KB"),
            (1536, "1.5KB"),
            (25000, "24.4KB"),
            (30000, "29.3KB"),
            (201_728, "197KB"),
            (1_048_576, "1MB"),
        ] {
            assert_eq!(format_file_size(n), s, "{n}");
        }
    }

    #[test]
    fn js_trim_uses_the_javascript_set() {
        assert_eq!(js_trim("\u{feff} a \u{3000}"), "a");
        assert_eq!(js_trim("\u{85}a"), "\u{85}a");
    }

    #[test]
    fn line_starts_are_judged_per_line() {
        let long = format!("{}\nb", "a".repeat(5000));
        for (s, all) in [
            ("a\nb\n-c", true),
            ("a", true),
            (long.as_str(), true),
            ("", false),
            ("a\n", false),
            ("a\n\nb", false),
            (" a\nb", false),
            ("a\n b", false),
            ("a\n\tb", false),
            ("a\n\rb", false),
            ("a\n\u{a0}b", false),
            ("a\nb\n\u{3000}", false),
        ] {
            assert_eq!(every_line_starts_printable(s.as_bytes()), all, "{s:?}");
        }
        // Across the 4 KiB blocks.
        let mut at_block = "a".repeat(4095);
        at_block.push_str("\n ");
        assert!(!every_line_starts_printable(at_block.as_bytes()));
    }

    #[test]
    fn utf16_counts_astral_as_two() {
        assert_eq!(utf16_len("a😀é"), 4);
        for s in ["", "abc", "é", "因子", "😀😀", "a\u{10ffff}b\u{feff}"] {
            assert_eq!(utf16_len(s), s.encode_utf16().count(), "{s}");
        }
    }

    #[test]
    fn js_number_is_shortest_round_trip() {
        assert_eq!(js_number(42.0), "42");
        assert_eq!(js_number(1.5), "1.5");
        assert_eq!(js_number(1e21), "1e+21");
        assert_eq!(js_number(1e-7), "1e-7");
    }

    #[test]
    fn iso_matches_strftime() {
        for ms in [
            0i64,
            1,
            999,
            1_700_000_000_123,
            1_796_073_503_408,
            -1,
            -86_400_001,
            253_402_300_799_999,
        ] {
            let t = Utc.timestamp_millis_opt(ms).unwrap();
            assert_eq!(iso(t), t.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string(), "{ms}");
        }
    }

    #[test]
    fn iso_truncates_fractional_milliseconds() {
        assert_eq!(iso_ms(1000.9), "1970-01-01T00:00:01.000Z");
        assert_eq!(iso_ms(1_700_000_000_000.0), "2023-11-14T22:13:20.000Z");
    }

    #[test]
    fn digits_group_by_three() {
        assert_eq!(group_digits(25500), "25 500");
        assert_eq!(group_digits(-500), "-500");
        assert_eq!(group_digits(1180), "1 180");
        assert_eq!(group_digits(999), "999");
    }

    #[test]
    fn suggestions_are_nearest_first() {
        let s = suggestions("deploy-notes", ["deploy-note", "other", "deploy-nots"]);
        assert_eq!(s, vec!["deploy-note", "deploy-nots"]);
    }
}

/// A `--warn-at` percentage: a decimal number in (0, 100].
pub fn parse_percent(s: &str) -> Result<f64, String> {
    let t = s.trim();
    match t.strip_suffix('%').unwrap_or(t).trim_end().parse::<f64>() {
        Ok(p) if p > 0.0 && p <= 100.0 => Ok(p),
        _ => Err(format!("`{s}` is not a percentage in (0, 100]")),
    }
}

/// A finite number greater than 0 (`--min-hours`).
pub fn parse_positive(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(format!("`{s}` is not a number greater than 0")),
    }
}

/// A file name as one field of a piped record (SPEC v3 §3.14): a backslash, tab
/// and newline are written `\\`, `\t`, `\n`; a carriage return `\r`; any other
/// control character `\xHH` (C0, DEL) or `\u{HHHH}` (C1), so every record stays
/// on one line, its fields split at tabs, and a terminal is never sent a control
/// sequence. A name without such characters is returned as it is.
/// `--format paths -0` prints exact names instead.
pub fn escape_name(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.chars().any(|c| c == '\\' || c.is_control()) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x80 && c.is_control() => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if c.is_control() => out.push_str(&format!("\\u{{{:04x}}}", c as u32)),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// A message or other text that may quote a file name, kept on one line in a
/// piped record: control characters escaped as in [`escape_name`]; a backslash,
/// common in messages, is kept as it is.
pub fn escape_controls(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.chars().any(char::is_control) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    let mut buf = [0u8; 4];
    for c in s.chars() {
        if c.is_control() {
            out.push_str(&escape_name(c.encode_utf8(&mut buf)));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// [`escape_name`] for a path's raw bytes (a path need not be UTF-8): ASCII
/// control bytes and the backslash are escaped, every other byte is kept.
pub fn escape_name_bytes(b: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    if !b.iter().any(|&c| c == b'\\' || c < 0x20 || c == 0x7f) {
        return std::borrow::Cow::Borrowed(b);
    }
    let mut out = Vec::with_capacity(b.len() + 8);
    for &c in b {
        match c {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\t' => out.extend_from_slice(b"\\t"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            c if c < 0x20 || c == 0x7f => out.extend_from_slice(format!("\\x{c:02x}").as_bytes()),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Cut `s` to `max` chars, the last being `…`, when it is longer.
pub fn ellipsize(s: &str, max: usize) -> String {
    let mut out = String::new();
    push_ellipsized(&mut out, s, max);
    out
}

/// [`ellipsize`] appended to `out` (no string of its own per line).
pub fn push_ellipsized(out: &mut String, s: &str, max: usize) {
    // Only the first `max` chars are looked at, by their bytes (issue 31: `add
    // --force` names 20 000 dropped index lines, each counted and copied char by
    // char before).
    if char_start(s, max).is_none() {
        out.push_str(s);
        return;
    }
    let cut = max.checked_sub(1).and_then(|n| char_start(s, n)).unwrap_or(0);
    out.reserve(cut + '…'.len_utf8());
    out.push_str(&s[..cut]);
    out.push('…');
}

/// The byte offset of the char `n` (0-based) of `s`; `None` when `s` has no more
/// than `n` chars.
fn char_start(s: &str, n: usize) -> Option<usize> {
    // An ASCII head (the usual index line): char `n` is byte `n`.
    let head = &s.as_bytes()[..s.len().min(n.saturating_add(1))];
    if head.is_ascii() {
        return (s.len() > n).then_some(n);
    }
    let mut seen = 0;
    for (i, &b) in s.as_bytes().iter().enumerate() {
        // Not a UTF-8 continuation byte: a char starts here.
        if (b as i8) >= -0x40 {
            if seen == n {
                return Some(i);
            }
            seen += 1;
        }
    }
    None
}

#[cfg(test)]
mod percent_tests {
    use super::*;

    #[test]
    fn ellipsize_cuts_as_counting_every_char_did() {
        let reference = |s: &str, max: usize| -> String {
            if s.chars().count() <= max {
                return s.to_string();
            }
            let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
            out.push('…');
            out
        };
        for s in [
            "",
            "a",
            "abc",
            "abcdefghijklmnopq",
            "hello wörld",
            "héllo wörld",
            "日本語のテキスト",
            "a\u{301}b",
        ] {
            for max in 0..14 {
                assert_eq!(ellipsize(s, max), reference(s, max), "{s:?} {max}");
            }
        }
    }

    #[test]
    fn percent_range() {
        assert_eq!(parse_percent("90"), Ok(90.0));
        assert_eq!(parse_percent("100"), Ok(100.0));
        assert_eq!(parse_percent("90%"), Ok(90.0));
        assert!(parse_percent("%").is_err());
        assert_eq!(parse_percent("0.5"), Ok(0.5));
        assert!(parse_percent("0").is_err());
        assert!(parse_percent("100.1").is_err());
        assert!(parse_percent("x").is_err());
        assert!(parse_percent("NaN").is_err());
    }

    #[test]
    fn ellipsize_counts_chars() {
        assert_eq!(ellipsize("abcdef", 4), "abc…");
        assert_eq!(ellipsize("abcd", 4), "abcd");
    }
}

#[cfg(test)]
mod escape_tests {
    use super::escape_name;

    #[test]
    fn names_stay_on_one_line_and_split_at_tabs() {
        assert_eq!(escape_name("user_a.md"), "user_a.md");
        assert_eq!(escape_name("a\nb\tc\\d.md"), "a\\nb\\tc\\\\d.md");
        assert_eq!(
            escape_name("r\re\u{1b}[31m\u{7f}\u{85}.md"),
            "r\\re\\x1b[31m\\x7f\\u{0085}.md"
        );
        assert_eq!(escape_name("café 📝.md"), "café 📝.md");
        assert_eq!(&*super::escape_name_bytes(b"/m/a\n\xff\t.md"), b"/m/a\\n\xff\\t.md");
    }
}
