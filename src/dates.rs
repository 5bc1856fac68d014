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

fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Words of a line: (start char index, end char index, lower-cased text).
fn words(chars: &[char]) -> Vec<(usize, usize, String)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if is_word(chars[i]) {
            let start = i;
            while i < chars.len() && is_word(chars[i]) {
                i += 1;
            }
            out.push((
                start,
                i,
                chars[start..i].iter().collect::<String>().to_ascii_lowercase(),
            ));
        } else {
            i += 1;
        }
    }
    out
}

/// Blank out inline code spans (fenced blocks are skipped by the caller).
fn mask_code_spans(line: &str) -> Vec<char> {
    let mut chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '`' {
            i += 1;
            continue;
        }
        let n = chars[i..].iter().take_while(|c| **c == '`').count();
        let mut j = i + n;
        let mut close = None;
        while j < chars.len() {
            if chars[j] == '`' {
                let m = chars[j..].iter().take_while(|c| **c == '`').count();
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
                chars[i..c + n].fill(' ');
                i = c + n;
            }
            None => i += n,
        }
    }
    chars
}

/// Every relative-date phrase outside fenced code and inline code.
pub fn find(text: &str) -> Vec<DateMatch> {
    let mut out = Vec::new();
    let mut fence: Option<(char, usize)> = None;
    for (li, raw) in text.split('\n').enumerate() {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        let t = line.trim_start_matches(' ');
        let marker = t
            .chars()
            .next()
            .filter(|c| *c == '`' || *c == '~')
            .map(|c| (c, t.chars().take_while(|x| *x == c).count()));
        if let Some((c, n)) = fence {
            if marker.is_some_and(|(c2, n2)| c2 == c && n2 >= n) {
                fence = None;
            }
            continue;
        }
        if let Some((c, n)) = marker.filter(|(_, n)| *n >= 3)
            && line.len() - t.len() <= 3
        {
            fence = Some((c, n));
            continue;
        }
        let chars = mask_code_spans(line);
        find_in_line(&chars, li + 1, &mut out);
    }
    out
}

fn only_spaces(chars: &[char], from: usize, to: usize) -> bool {
    from < to && chars[from..to].iter().all(|c| *c == ' ' || *c == '\t')
}

fn find_in_line(chars: &[char], line: usize, out: &mut Vec<DateMatch>) {
    let w = words(chars);
    let mut i = 0;
    while i < w.len() {
        let (s, e, ref word) = w[i];
        let next = w.get(i + 1).filter(|n| only_spaces(chars, e, n.0));
        let next2 = next
            .and_then(|_| w.get(i + 2))
            .filter(|n| only_spaces(chars, w[i + 1].1, n.0));
        let mut hit = |end: usize, offset: Option<i64>, consumed: usize| {
            out.push(DateMatch {
                line,
                col: s + 1,
                phrase: chars[s..end].iter().collect(),
                offset_days: offset,
            });
            consumed
        };
        let consumed = match word.as_str() {
            "today" => {
                let possessive = matches!(chars.get(e), Some('\'' | '’'))
                    && matches!(chars.get(e + 1), Some('s' | 'S'))
                    && !chars.get(e + 2).is_some_and(|c| is_word(*c));
                if possessive { 1 } else { hit(e, Some(0), 1) }
            }
            "tonight" => hit(e, Some(0), 1),
            "tomorrow" => hit(e, Some(1), 1),
            "yesterday" => hit(e, Some(-1), 1),
            "this" | "last" | "next" | "coming" => match next.map(|n| n.2.as_str()) {
                Some("morning" | "afternoon" | "evening") if word == "this" => hit(next.map_or(e, |n| n.1), Some(0), 2),
                Some("night") if word == "last" => hit(next.map_or(e, |n| n.1), Some(-1), 2),
                Some("week" | "month") if word != "coming" => hit(next.map_or(e, |n| n.1), None, 2),
                Some(d) if WEEKDAYS.contains(&d) => hit(next.map_or(e, |n| n.1), None, 2),
                _ => 1,
            },
            "in" if next.is_some_and(|n| n.2.bytes().all(|b| b.is_ascii_digit()))
                && next2.is_some_and(|n| n.2 == "days") =>
            {
                hit(next2.map_or(e, |n| n.1), None, 3)
            }
            n if n.bytes().all(|b| b.is_ascii_digit())
                && next.is_some_and(|x| x.2 == "days")
                && next2.is_some_and(|x| x.2 == "ago") =>
            {
                hit(next2.map_or(e, |x| x.1), None, 3)
            }
            _ => 1,
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

    #[test]
    fn columns_are_one_based() {
        assert_eq!(find("é tomorrow")[0].col, 3);
    }
}
