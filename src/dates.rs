//! Relative dates in memory text (SPEC §3.9.3 ML116, §3.11): phrases that turn
//! wrong as time passes, found outside code, with the day offset of those that can
//! be made absolute.

/// One relative-date phrase in a text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DateMatch {
    /// 1-based line and column (chars).
    pub line: usize,
    pub col: usize,
    /// The phrase as written.
    pub phrase: String,
    /// Days from the base date for phrases that have a suggestion
    /// (`today` 0, `yesterday` −1, `tomorrow` +1 …).
    pub offset_days: Option<i64>,
}

const WEEKDAYS: [&str; 7] = [
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
];

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Every phrase contains one of these fragments (ASCII case-insensitively):
/// `day` (today, yesterday, the weekdays, days), `night` (tonight), `morrow`,
/// `ning` (morning, evening), `noon` (afternoon), `week` and `month`. A line
/// without one has no phrase, so only the lines that hold one are tokenized.
const FRAGMENTS: [&str; 7] = ["day", "night", "morrow", "ning", "noon", "week", "month"];

thread_local! {
    /// The text folded to ASCII lower case, reused from file to file, and the
    /// fragment finders (built once per thread).
    static FOLD: std::cell::RefCell<(Vec<u8>, Vec<memchr::memmem::Finder<'static>>)> =
        std::cell::RefCell::new((Vec::new(), FRAGMENTS.iter().map(|f| memchr::memmem::Finder::new(f.as_bytes())).collect()));
}

/// The sorted start offsets of the fragments in `text`: one ASCII case-folding
/// pass into a buffer reused across files, then a vectorized substring search
/// per fragment on the folded bytes.
fn fragment_hits(text: &str) -> Vec<usize> {
    let mut hits = Vec::new();
    FOLD.with(|cell| {
        let Ok(mut guard) = cell.try_borrow_mut() else {
            return;
        };
        let (folded, finders) = &mut *guard;
        folded.clear();
        folded.extend_from_slice(text.as_bytes());
        folded.make_ascii_lowercase();
        for f in finders.iter() {
            hits.extend(f.find_iter(folded));
        }
        // Keep the buffer from holding on to one huge file's worth of memory.
        if folded.capacity() > 1 << 20 {
            *folded = Vec::new();
        }
    });
    hits.sort_unstable();
    hits
}

/// Every relative-date phrase outside fenced code and inline code.
pub fn find(text: &str) -> Vec<DateMatch> {
    let mut out = Vec::new();
    let hits = fragment_hits(text);
    if hits.is_empty() {
        return out;
    }
    let mut next_hit = hits.iter().copied().peekable();
    let mut fence: Option<(u8, usize)> = None;
    let mut masked: Vec<u8> = Vec::new();
    let mut line_start = 0;
    for (li, raw) in text.split('\n').enumerate() {
        let line_end = line_start + raw.len();
        // Hits before this line are passed; is there one on it?
        while next_hit.next_if(|&h| h < line_start).is_some() {}
        let on_line = next_hit.peek().is_some_and(|&h| h < line_end);
        line_start = line_end + 1;
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        let b = line.as_bytes();
        let indent = b.iter().take_while(|c| **c == b' ').count();
        let marker = b
            .get(indent)
            .filter(|c| **c == b'`' || **c == b'~')
            .map(|c| (*c, b[indent..].iter().take_while(|x| *x == c).count()));
        if let Some((c, n)) = fence {
            if marker.is_some_and(|(c2, n2)| c2 == c && n2 >= n) {
                fence = None;
            }
            continue;
        }
        if let Some((c, n)) = marker.filter(|(_, n)| *n >= 3)
            && indent <= 3
        {
            fence = Some((c, n));
            continue;
        }
        if !on_line {
            continue;
        }
        masked.clear();
        masked.extend_from_slice(b);
        if b.contains(&b'`') {
            mask_code_spans(&mut masked);
        }
        find_in_line(line, &masked, li + 1, &mut out);
    }
    out
}

/// Blank out inline code spans (NUL bytes).
fn mask_code_spans(b: &mut [u8]) {
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'`' {
            i += 1;
            continue;
        }
        let n = b[i..].iter().take_while(|c| **c == b'`').count();
        let mut j = i + n;
        let mut close = None;
        while j < b.len() {
            if b[j] == b'`' {
                let m = b[j..].iter().take_while(|c| **c == b'`').count();
                if m == n {
                    close = Some(j);
                    break;
                }
                j += m;
            } else {
                j += 1;
            }
        }
        match close {
            Some(c) => {
                b[i..c + n].fill(0);
                i = c + n;
            }
            None => i += n,
        }
    }
}

/// Word byte ranges of a masked line.
fn words(b: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if is_word(b[i]) {
            let start = i;
            while i < b.len() && is_word(b[i]) {
                i += 1;
            }
            out.push((start, i));
        } else {
            i += 1;
        }
    }
    out
}

fn only_spaces(b: &[u8], from: usize, to: usize) -> bool {
    from < to && b[from..to].iter().all(|c| *c == b' ' || *c == b'\t')
}

fn find_in_line(line: &str, b: &[u8], number: usize, out: &mut Vec<DateMatch>) {
    let w = words(b);
    let is = |k: usize, word: &str| {
        w.get(k)
            .is_some_and(|(s, e)| b[*s..*e].eq_ignore_ascii_case(word.as_bytes()))
    };
    let any = |k: usize, list: &[&str]| list.iter().any(|x| is(k, x));
    let digits = |k: usize| w.get(k).is_some_and(|(s, e)| b[*s..*e].iter().all(u8::is_ascii_digit));
    let mut i = 0;
    while i < w.len() {
        let (s, e) = w[i];
        let next_ok = w.get(i + 1).is_some_and(|n| only_spaces(b, e, n.0));
        let next2_ok = next_ok && w.get(i + 2).is_some_and(|n| only_spaces(b, w[i + 1].1, n.0));
        let mut hit = |end: usize, offset: Option<i64>, consumed: usize| {
            let col = line.get(..s).map_or(s, |p| p.chars().count()) + 1;
            out.push(DateMatch {
                line: number,
                col,
                phrase: line.get(s..end).unwrap_or_default().to_string(),
                offset_days: offset,
            });
            consumed
        };
        let consumed = if is(i, "today") {
            let possessive = (b.get(e) == Some(&b'\'')
                && matches!(b.get(e + 1), Some(b's' | b'S'))
                && !b.get(e + 2).is_some_and(|c| is_word(*c)))
                || (b.get(e..e + 3) == Some("’".as_bytes())
                    && matches!(b.get(e + 3), Some(b's' | b'S'))
                    && !b.get(e + 4).is_some_and(|c| is_word(*c)));
            if possessive { 1 } else { hit(e, Some(0), 1) }
        } else if is(i, "tonight") {
            hit(e, Some(0), 1)
        } else if is(i, "tomorrow") {
            hit(e, Some(1), 1)
        } else if is(i, "yesterday") {
            hit(e, Some(-1), 1)
        } else if any(i, &["this", "last", "next", "coming"]) && next_ok {
            let end = w[i + 1].1;
            if is(i, "this") && any(i + 1, &["morning", "afternoon", "evening"]) {
                hit(end, Some(0), 2)
            } else if is(i, "last") && is(i + 1, "night") {
                hit(end, Some(-1), 2)
            } else if (!is(i, "coming") && any(i + 1, &["week", "month"])) || any(i + 1, &WEEKDAYS) {
                hit(end, None, 2)
            } else {
                1
            }
        } else if next2_ok
            && ((is(i, "in") && digits(i + 1) && is(i + 2, "days"))
                || (digits(i) && is(i + 1, "days") && is(i + 2, "ago")))
        {
            hit(w[i + 2].1, None, 3)
        } else {
            1
        };
        i += consumed;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn phrases(text: &str) -> Vec<(usize, String, Option<i64>)> {
        find(text)
            .into_iter()
            .map(|m| (m.line, m.phrase, m.offset_days))
            .collect()
    }

    #[test]
    fn finds_every_listed_phrase() {
        let text = "Today we ship. Tonight and tomorrow, not yesterday.\nthis morning, this Afternoon, this evening, last night\nthis week, next month, last week, coming Friday, next monday\n3 days ago and in 10 days";
        let p = phrases(text);
        let got: Vec<&str> = p.iter().map(|x| x.1.as_str()).collect();
        assert_eq!(
            got,
            [
                "Today",
                "Tonight",
                "tomorrow",
                "yesterday",
                "this morning",
                "this Afternoon",
                "this evening",
                "last night",
                "this week",
                "next month",
                "last week",
                "coming Friday",
                "next monday",
                "3 days ago",
                "in 10 days"
            ]
        );
        assert_eq!(p[2].2, Some(1));
        assert_eq!(p[3].2, Some(-1));
        assert_eq!(p[7].2, Some(-1));
        assert_eq!(p[8].2, None);
    }

    #[test]
    fn possessive_today_and_partial_words_do_not_match() {
        assert!(phrases("Today's plan, todays, yesterdays, intoday, today_x").is_empty());
        assert_eq!(phrases("today’s x today").len(), 1);
    }

    #[test]
    fn code_is_skipped() {
        let text = "```\ntoday\n```\n`tomorrow` is code; yesterday is not\n";
        assert_eq!(phrases(text), vec![(4, "yesterday".to_string(), Some(-1))]);
    }

    /// The former `find`: a lower-cased copy of the whole text searched for each
    /// fragment, then every line tokenized.
    fn find_before(text: &str) -> Vec<DateMatch> {
        const FRAGMENTS: [&str; 8] = ["day", "week", "month", "night", "morrow", "morning", "noon", "evening"];
        let mut out = Vec::new();
        let lower = text.to_ascii_lowercase();
        if !FRAGMENTS.iter().any(|f| lower.contains(f)) {
            return out;
        }
        let mut fence: Option<(u8, usize)> = None;
        let mut masked: Vec<u8> = Vec::new();
        for (li, raw) in text.split('\n').enumerate() {
            let line = raw.strip_suffix('\r').unwrap_or(raw);
            let b = line.as_bytes();
            let indent = b.iter().take_while(|c| **c == b' ').count();
            let marker = b
                .get(indent)
                .filter(|c| **c == b'`' || **c == b'~')
                .map(|c| (*c, b[indent..].iter().take_while(|x| *x == c).count()));
            if let Some((c, n)) = fence {
                if marker.is_some_and(|(c2, n2)| c2 == c && n2 >= n) {
                    fence = None;
                }
                continue;
            }
            if let Some((c, n)) = marker.filter(|(_, n)| *n >= 3)
                && indent <= 3
            {
                fence = Some((c, n));
                continue;
            }
            masked.clear();
            masked.extend_from_slice(b);
            if b.contains(&b'`') {
                mask_code_spans(&mut masked);
            }
            find_in_line(line, &masked, li + 1, &mut out);
        }
        out
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 4000, failure_persistence: None, ..Default::default() })]
        /// The shared folding pass and the per-line prefilter find exactly what the
        /// former whole-text scan found, on texts made of phrases, near misses,
        /// code and line breaks in any case.
        #[test]
        fn prefiltered_find_agrees_with_the_former_scan(pieces in proptest::collection::vec(proptest::sample::select(vec![
            "today", "ToDay", "TONIGHT", "tomorrow", "YesterDay", "this", "This", "last", "next", "coming", "morning",
            "Afternoon", "evening", "night", "week", "WEEK", "month", "Monday", "friday", "in", "3", "10", "days", "ago",
            "day", "noon", "morrow", "ning", "'s", "’s", " ", " ", "  ", "\t", "\n", "\r\n", "`", "```", "~~~", "    ",
            "é", "x", "_", "-", "holiday", "weekday", "dAy",
        ]), 0..40)) {
            let text = pieces.concat();
            proptest::prop_assert_eq!(find(&text), find_before(&text), "{:?}", text);
        }
    }

    #[test]
    fn columns_are_one_based() {
        assert_eq!(find("é tomorrow")[0].col, 3);
    }
}
