//! `validateMemoryPath` (SPEC §2.2.4), `~` expansion, NFC, and Node's lexical
//! `path.normalize`/`path.join` on POSIX.

use unicode_normalization::UnicodeNormalization;

/// NFC-normalize a path string (SPEC §2.1.5).
pub fn nfc(s: &str) -> String {
    s.nfc().collect()
}

/// Node's `path.posix.normalize`.
pub fn normalize(p: &str) -> String {
    if p.is_empty() {
        return ".".into();
    }
    let absolute = p.starts_with('/');
    let trailing = p.ends_with('/');
    let mut out: Vec<&str> = Vec::new();
    for seg in p.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                if out.last().is_some_and(|l| *l != "..") {
                    out.pop();
                } else if !absolute {
                    out.push("..");
                }
            }
            s => out.push(s),
        }
    }
    let mut body = out.join("/");
    if body.is_empty() && !absolute {
        body.push('.');
    }
    if !body.is_empty() && trailing {
        body.push('/');
    }
    if absolute { format!("/{body}") } else { body }
}

/// Node's `path.posix.join`.
pub fn join(parts: &[&str]) -> String {
    let joined = parts
        .iter()
        .filter(|p| !p.is_empty())
        .copied()
        .collect::<Vec<_>>()
        .join("/");
    normalize(&joined)
}

/// `validateMemoryPath(raw, expandTilde)`: an absolute directory with one trailing
/// separator, or `Err(reason)`.
pub fn validate_memory_path(raw: Option<&str>, expand_tilde: bool, home: Option<&str>) -> Result<String, String> {
    let raw = match raw {
        None | Some("") => return Err("empty".into()),
        Some(r) => r,
    };
    let candidate = if expand_tilde && (raw.starts_with("~/") || raw.starts_with("~\\")) {
        let rest = &raw[2..];
        let n = normalize(if rest.is_empty() { "." } else { rest });
        if n == "." || n == ".." || n.starts_with("../") || n.starts_with("..\\") {
            return Err(format!("`{raw}` names the home directory itself or leaves it"));
        }
        let home = home.ok_or_else(|| "no home directory to expand `~`".to_string())?;
        join(&[home, rest])
    } else {
        raw.to_string()
    };
    let normalized = normalize(&candidate);
    let normalized = normalized.trim_end_matches(['/', '\\']);
    if !candidate.starts_with('/') {
        return Err("not an absolute path".into());
    }
    if normalized.encode_utf16().count() < 3 {
        return Err("too short (a filesystem root or a one-letter directory)".into());
    }
    let b = normalized.as_bytes();
    if b.len() == 2 && b[0].is_ascii_alphabetic() && b[1] == b':' {
        return Err("a bare drive letter".into());
    }
    if b.len() >= 2 && is_sep(b[0]) && is_sep(b[1]) {
        return Err("a UNC path".into());
    }
    if normalized.contains('\0') {
        return Err("contains a NUL character".into());
    }
    if normalized.starts_with("/??/") || normalized.starts_with("\\??\\") {
        return Err("a Windows device namespace path".into());
    }
    if let Some(why) = special_root(normalized) {
        return Err(why.into());
    }
    Ok(nfc(&format!("{normalized}/")))
}

fn is_sep(b: u8) -> bool {
    b == b'/' || b == b'\\'
}

/// Invisible format characters Claude Code ignores when it compares path segments.
fn invisible(c: char) -> bool {
    matches!(c, '\u{ad}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{206f}' | '\u{feff}')
}

/// A network automount path (`/net/<host>`, `/Network/Servers/<host>`) or a macOS
/// special root (`/.vol`, `/.file`, `/.nofollow`, `/.resolve`), compared
/// case-insensitively on the normalized segments (SPEC §2.2.4, 2.1.332).
fn special_root(normalized: &str) -> Option<&'static str> {
    let segs: Vec<String> = normalized
        .split('/')
        .filter(|s| !s.is_empty())
        .map(|s| s.chars().filter(|c| !invisible(*c)).collect::<String>().to_lowercase())
        .collect();
    let first = segs.first()?.as_str();
    if first == "net" && segs.len() >= 2 {
        return Some("a network automount path (/net/<host>)");
    }
    if first == "network" && segs.get(1).is_some_and(|s| s == "servers") && segs.len() >= 3 {
        return Some("a network automount path (/Network/Servers/<host>)");
    }
    if matches!(first, ".vol" | ".file" | ".nofollow" | ".resolve") {
        return Some("a macOS special root");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOME: Option<&str> = Some("/home/alice");

    fn v(raw: &str, tilde: bool) -> Result<String, String> {
        validate_memory_path(Some(raw), tilde, HOME)
    }

    #[test]
    fn rejections_match_appendix_a3() {
        assert!(validate_memory_path(None, true, HOME).is_err());
        for raw in ["", "~", "~/", "~/.", "~/..", "~/foo/..", "~/foo/../..", "~user/mem"] {
            assert!(v(raw, true).is_err(), "{raw:?}");
        }
        assert!(v("~/mem", false).is_err());
        for raw in [
            "/",
            "/a",
            "C:\\",
            "C:",
            "relative/dir",
            "../foo",
            "/tmp/a\0b",
            "\\\\server\\share",
            "/tmp/../..",
        ] {
            assert!(v(raw, true).is_err(), "{raw:?}");
        }
    }

    #[test]
    fn rejections_new_in_2_1_332_match_appendix_a3() {
        for raw in ["~/../x", "~/foo/../../x"] {
            assert!(v(raw, true).is_err(), "{raw:?}");
        }
        for raw in [
            "/.vol/123/456",
            "/.VOL/1",
            "/a/../.vol/x",
            "/.file/id=1",
            "/.nofollow/x",
            "/.resolve/1/2",
            "/net/host/mem",
            "/NET/host",
            "/Network/Servers/h/m",
            "/net/h/../x",
            "/n\u{200b}et/host",
            "/??/C:/x",
            "\\??\\C:\\x",
            "///\\x",
            "/\\server\\share",
        ] {
            assert!(v(raw, true).is_err(), "{raw:?}");
            assert!(v(raw, false).is_err(), "{raw:?}");
        }
        for (raw, out) in [
            ("~/..x", "/home/alice/..x/"),
            ("/net", "/net/"),
            ("/Network/Servers", "/Network/Servers/"),
            ("/tmp/net/x", "/tmp/net/x/"),
            ("/home/u/.volume/x", "/home/u/.volume/x/"),
        ] {
            assert_eq!(v(raw, true).as_deref(), Ok(out), "{raw:?}");
        }
    }

    #[test]
    fn accepted_values_match_appendix_a3() {
        for (raw, out) in [
            ("~/mem", "/home/alice/mem/"),
            ("~/mem/", "/home/alice/mem/"),
            ("~\\mem", "/home/alice/mem/"),
            ("~/mem//x/../y///", "/home/alice/mem/y/"),
            ("/ab", "/ab/"),
            ("/ab/", "/ab/"),
            ("//server/share", "/server/share/"),
            ("///tmp/x", "/tmp/x/"),
            ("/tmp/../etc", "/etc/"),
            ("/tmp/./mem/", "/tmp/mem/"),
            ("/home/x/mem///", "/home/x/mem/"),
            ("/tmp/cafe\u{301}", "/tmp/caf\u{e9}/"),
        ] {
            assert_eq!(v(raw, true).as_deref(), Ok(out), "{raw:?}");
        }
    }

    #[test]
    fn normalize_is_nodes() {
        assert_eq!(normalize("./"), "./");
        assert_eq!(normalize("foo/.."), ".");
        assert_eq!(normalize("/.."), "/");
        assert_eq!(normalize("a//b/./c/"), "a/b/c/");
        assert_eq!(
            join(&["/home/alice/.claude", "projects", "k", "memory"]),
            "/home/alice/.claude/projects/k/memory"
        );
    }
}
