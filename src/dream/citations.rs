//! Project-file citations in memory bodies (SPEC §3.11 phase 2): the tokens that
//! name a file of the project, so the plan can list those that no longer exist.

/// Project-file citations in a body: inline code spans and whitespace-delimited
/// tokens containing `/`, without a URI scheme, optionally ending in `:N` or
/// `:N-M`. Returns (1-based line, token as written, path part).
pub fn citations(text: &str) -> Vec<(usize, String, String)> {
    let mut out = Vec::new();
    let mut fence = false;
    for (li, line) in text.split('\n').enumerate() {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            fence = !fence;
            continue;
        }
        if fence {
            continue;
        }
        let mut seen = std::collections::HashSet::new();
        for c in candidates(line) {
            if !c.contains('/')
                || c.chars().any(char::is_whitespace)
                || c.contains("://")
                || c.starts_with("mailto:")
                || c.contains("](")
            {
                continue;
            }
            let path = strip_line_suffix(&c);
            if path.is_empty() || path.starts_with('~') || path == "/" {
                continue;
            }
            // A set, not a scan of `out`: a long line of distinct tokens stays linear.
            if seen.insert(c.clone()) {
                out.push((li + 1, c.clone(), path.to_string()));
            }
        }
    }
    out
}

/// The inline code spans of a line, then its whitespace-delimited words with
/// enclosing punctuation stripped.
fn candidates(line: &str) -> Vec<String> {
    let mut cands: Vec<String> = Vec::new();
    let mut rest = line;
    while let Some(a) = rest.find('`') {
        match rest[a + 1..].find('`') {
            Some(b) => {
                cands.push(rest[a + 1..a + 1 + b].to_string());
                rest = &rest[a + 2 + b..];
            }
            None => break,
        }
    }
    cands.extend(line.split_whitespace().map(|w| {
        w.trim_start_matches(['(', '[', '<', '"', '\'', '`'])
            .trim_end_matches(['.', ',', ';', ':', ')', ']', '>', '"', '\'', '`'])
            .to_string()
    }));
    cands
}

/// `path:N` or `path:N-M` → `path`.
fn strip_line_suffix(s: &str) -> &str {
    if let Some((p, n)) = s.rsplit_once(':') {
        let ok = n
            .split_once('-')
            .map_or(!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()), |(a, b)| {
                !a.is_empty() && !b.is_empty() && (a.bytes().chain(b.bytes())).all(|x| x.is_ascii_digit())
            });
        if ok {
            return p;
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn citation_tokens() {
        let c = citations(
            "See `src/main.rs:12` and (docs/guide.md). Not https://x.y/z or `plain`.\n```\nin/code.rs\n```\nlib/a.rs:3-9,",
        );
        let paths: Vec<&str> = c.iter().map(|x| x.2.as_str()).collect();
        assert_eq!(paths, vec!["src/main.rs", "docs/guide.md", "lib/a.rs"]);
        assert_eq!(c[2].0, 5);
    }
}
