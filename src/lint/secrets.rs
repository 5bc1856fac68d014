//! ML121: secret-like tokens in topic files and in the index files Claude Code
//! loads into every session (SPEC §3.9.3). The scan is linear: a byte prefilter
//! skips texts without a token's prefix, and each position is checked against a
//! fixed set of prefixes with a bounded look-ahead. A finding names the kind of
//! token and its line, never the token.

use std::path::Path;

use super::{Finding, RuleId};

/// ML121 on the text of the file at `p` (lines 1-based as LF-split).
pub(super) fn check(p: &Path, text: &str, out: &mut Vec<Finding>) {
    // Every token kind and the private-key header contain a `_`, a `-` or
    // start with `A`: a vectorized search for those three bytes finds the first
    // place a finding can start, and the lines before it have none (most texts
    // have none at all).
    let b = text.as_bytes();
    let Some(first) = memchr::memchr3_iter(b'_', b'-', b'A', b).find(|&i| may_start_token(b, i)) else {
        return;
    };
    let skipped = memchr::memchr_iter(b'\n', &b[..first]).count();
    let from = memchr::memrchr(b'\n', &b[..first]).map_or(0, |k| k + 1);
    for (i, l) in text[from..].split('\n').enumerate() {
        if let Some(kind) = secret_in(l) {
            out.push(Finding::new(
                RuleId::ML121,
                p,
                skipped + i + 1,
                1,
                format!("looks like {kind}; memory is loaded into model context: remove it"),
            ));
        }
    }
}

/// Whether the `_`, `-` or `A` at `i` is part of a marker some token kind or
/// the private-key header contains (a superset of where [`secret_in`] finds one).
fn may_start_token(b: &[u8], i: usize) -> bool {
    let (head, rest) = b.split_at(i);
    match b[i] {
        b'_' => {
            ["ghp", "gho", "ghs", "ghu", "github", "npm"]
                .iter()
                .any(|m| head.ends_with(m.as_bytes()))
                || rest.starts_with(b"_live_")
        }
        b'-' => {
            head.ends_with(b"sk")
                || head.ends_with(b"glpat")
                || (head.len() >= 4 && head[head.len() - 4..head.len() - 1] == *b"xox")
                || rest.starts_with(b"-----BEGIN ")
        }
        _ => rest.starts_with(b"AKIA") || rest.starts_with(b"AIza"),
    }
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// `[A-Za-z0-9_-]`
fn is_token(b: u8) -> bool {
    is_word(b) || b == b'-'
}

/// Whether at least `min` bytes from `start` satisfy `ok` (looks at `min` at most).
fn run_of(b: &[u8], start: usize, min: usize, ok: fn(u8) -> bool) -> bool {
    b.get(start..start + min).is_some_and(|s| s.iter().all(|c| ok(*c)))
}

/// The kind of secret-like token on a line, if any, with its article.
pub(super) fn secret_in(line: &str) -> Option<&'static str> {
    if line.contains("-----BEGIN ") && line.contains("PRIVATE KEY-----") {
        return Some("a private key");
    }
    let b = line.as_bytes();
    // Tokens start at a non-word boundary; a non-ASCII byte is not a word char.
    (0..b.len()).find_map(|i| {
        if i > 0 && is_word(b[i - 1]) {
            None
        } else {
            kind_at(b, i)
        }
    })
}

/// The kind of token starting at `i` of `b`, if one does (its look-ahead stops
/// at a newline: no token byte is one).
fn kind_at(b: &[u8], i: usize) -> Option<&'static str> {
    let rest = &b[i..];
    let after = |prefix: &[u8]| rest.starts_with(prefix).then_some(i + prefix.len());
    match b[i] {
        b'g' => ["ghp_", "gho_", "ghs_", "ghu_", "github_pat_"]
            .iter()
            .find_map(|p| after(p.as_bytes()))
            .filter(|&s| run_of(b, s, 20, is_token))
            .map(|_| "a GitHub token")
            .or_else(|| {
                after(b"glpat-")
                    .filter(|&s| run_of(b, s, 20, is_token))
                    .map(|_| "a GitLab token")
            }),
        b's' | b'r' => after(b"sk-")
            .filter(|&s| run_of(b, s, 20, is_token))
            .map(|_| "an API token")
            .or_else(|| {
                after(b"sk_live_")
                    .or_else(|| after(b"rk_live_"))
                    .filter(|&s| run_of(b, s, 20, |c| c.is_ascii_alphanumeric()))
                    .map(|_| "a Stripe live key")
            }),
        b'x' => (rest.len() > 4
            && rest.starts_with(b"xox")
            && matches!(rest[3], b'a' | b'b' | b'p' | b'r' | b'e')
            && rest[4] == b'-'
            && run_of(b, i + 5, 10, is_token))
        .then_some("a Slack token"),
        b'A' => after(b"AKIA")
            .filter(|&s| run_of(b, s, 16, |c| c.is_ascii_uppercase() || c.is_ascii_digit()))
            .map(|_| "an AWS access key")
            .or_else(|| {
                after(b"AIza")
                    .filter(|&s| run_of(b, s, 35, is_token))
                    .map(|_| "a Google API key")
            }),
        b'n' => after(b"npm_")
            .filter(|&s| run_of(b, s, 36, |c| c.is_ascii_alphanumeric()))
            .map(|_| "an npm token"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        check(Path::new("/m/MEMORY.md"), text, &mut out);
        out.iter().map(|f| format!("{}:{}", f.line, f.message)).collect()
    }

    /// The prefilter skips lines with no marker; what it keeps must equal the
    /// plain per-line scan on every mix of clean lines, markers and tokens.
    #[test]
    fn prefilter_agrees_with_the_per_line_scan() {
        let a = |n| "a".repeat(n);
        let pieces = [
            "plain words - a list_item and An Apple".to_string(),
            format!("token ghp_{}", a(36)),
            format!("x-ghp_{}", a(36)),
            format!("key xoxb-{}", a(12)),
            format!("sk_live_{}", a(24)),
            format!("rk-{} sk-{}", a(3), a(24)),
            format!("AKIA{}", "A".repeat(16)),
            "-----BEGIN RSA PRIVATE KEY-----".to_string(),
            "-----BEGIN CERTIFICATE-----".to_string(),
            format!("npm_{}", a(36)),
            String::new(),
        ];
        let naive = |text: &str| -> Vec<String> {
            text.split('\n')
                .enumerate()
                .filter_map(|(i, l)| secret_in(l).map(|k| format!("{}:{k}", i + 1)))
                .collect()
        };
        for x in 0..pieces.len() {
            for y in 0..pieces.len() {
                for z in 0..pieces.len() {
                    let text = format!("{}\n{}\n{}\r\n{}", pieces[0], pieces[x], pieces[y], pieces[z]);
                    let got: Vec<String> = found(&text)
                        .into_iter()
                        .map(|f| {
                            f.replace("looks like ", "")
                                .replace("; memory is loaded into model context: remove it", "")
                        })
                        .collect();
                    assert_eq!(got, naive(&text), "{text:?}");
                }
            }
        }
    }

    #[test]
    fn each_kind_with_a_real_shaped_token_and_a_near_miss() {
        let a = |n| "a".repeat(n);
        let cases: Vec<(String, String, &str)> = vec![
            (format!("ghp_{}", a(36)), format!("ghp_{}", a(19)), "a GitHub token"),
            (format!("ghu_{}", a(36)), format!("xghu_{}", a(36)), "a GitHub token"),
            (
                format!("github_pat_11ABCDEFG0_{}", a(59)),
                format!("github_pat_{}", a(19)),
                "a GitHub token",
            ),
            (format!("sk-proj-{}", a(40)), format!("sk-{}", a(19)), "an API token"),
            ("xoxb-1234567890-abc".into(), "xoxq-1234567890".into(), "a Slack token"),
            ("xoxe-1234567890".into(), "xoxb-123456789".into(), "a Slack token"),
            (
                "AKIAIOSFODNN7EXAMPLE".into(),
                "AKIAiosfodnn7example".into(),
                "an AWS access key",
            ),
            (
                "AIzaSyA1b2C3d4E5f6G7h8I9j0K_L-mNoPqRsTu".into(),
                "AIzaSyA1b2C3d4E5f6G7h8I9j0K_L-mNoPqRsT".into(),
                "a Google API key",
            ),
            (
                "glpat-xYz12AbC3dEf4GhI5jKl".into(),
                "glpat-xYz12AbC3dEf4GhI5jK".into(),
                "a GitLab token",
            ),
            (
                "sk_live_51HabcdEFGhijKLmnoPQrs".into(),
                "sk_test_51HabcdEFGhijKLmnoPQrs".into(),
                "a Stripe live key",
            ),
            (
                "rk_live_51HabcdEFGhijKLmnoPQrs".into(),
                "rk_live_51Habcd-EFGhijKLmnoPQrs".into(),
                "a Stripe live key",
            ),
            (
                "npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8".into(),
                "npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R".into(),
                "an npm token",
            ),
            (
                "-----BEGIN OPENSSH PRIVATE KEY-----".into(),
                "-----BEGIN PUBLIC KEY-----".into(),
                "a private key",
            ),
        ];
        for (hit, miss, kind) in cases {
            assert_eq!(secret_in(&format!("key: {hit} here")), Some(kind), "{hit}");
            assert_eq!(secret_in(&format!("key: {miss} here")), None, "{miss}");
            let shown = found(&format!("# x\n- [A](a.md) — {hit}\n"));
            assert_eq!(shown.len(), 1, "{hit}");
            assert!(shown[0].starts_with("2:looks like "), "{shown:?}");
            assert!(!shown[0].contains(&hit), "the finding echoes the token: {shown:?}");
        }
    }

    #[test]
    fn a_github_pat_is_found_without_gh_elsewhere() {
        let text = format!("token github_pat_{}\n", "B".repeat(30));
        assert!(!text.contains("gh"));
        assert_eq!(found(&text).len(), 1);
    }

    #[test]
    fn tokens_start_at_a_word_boundary() {
        assert_eq!(secret_in(&format!("xghp_{}", "a".repeat(20))), None);
        assert_eq!(secret_in(&format!("é ghp_{}", "a".repeat(20))), Some("a GitHub token"));
        assert_eq!(
            secret_in(&format!("(AIza{})", "x".repeat(35))),
            Some("a Google API key")
        );
    }

    #[test]
    fn repeated_prefixes_stay_linear() {
        // Each position looks ahead a bounded number of bytes.
        let near = format!(
            " AIza{} glpat-{} npm_{}",
            "x".repeat(34),
            "y".repeat(19),
            "z".repeat(35)
        );
        assert_eq!(secret_in(&near.repeat(20_000)), None);
    }
}
