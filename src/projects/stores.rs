//! What the history stores (SPEC §8.1) record about their memory dirs: the
//! `[memctl]` section of each store's config (`memoryDir`, `projectRoot`,
//! `identity`). Read as text, bounded, regular files only; no store is opened or
//! locked.

use std::path::PathBuf;

/// One store's record.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StoreInfo {
    pub memory_dir: PathBuf,
    pub project_root: Option<PathBuf>,
    /// `memctl.identity` (SPEC §11.1), when recorded.
    pub identity: Option<String>,
}

/// Every store under the history root, in name order; none when history is off.
pub fn read_all(settings: &crate::history::Settings) -> Vec<StoreInfo> {
    let crate::history::Settings::On { root } = settings else {
        return Vec::new();
    };
    let Ok(entries) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    let mut names: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "git"))
        .collect();
    names.sort();
    names
        .iter()
        .filter_map(|p| crate::fsread::read_small_text(&p.join("config")))
        .filter_map(|text| parse(&text))
        .collect()
}

/// The `[memctl]` section of a git config text; `None` without `memoryDir`.
pub fn parse(text: &str) -> Option<StoreInfo> {
    let mut info = StoreInfo::default();
    let mut in_memctl = false;
    let mut dir = None;
    for line in text.lines() {
        let t = line.trim();
        if let Some(section) = t.strip_prefix('[') {
            let name = section.split([']', ' ', '"']).next().unwrap_or("");
            in_memctl = name.eq_ignore_ascii_case("memctl");
            continue;
        }
        if !in_memctl {
            continue;
        }
        let Some((k, v)) = t.split_once('=') else { continue };
        let v = unquote(v.trim());
        match k.trim().to_ascii_lowercase().as_str() {
            "memorydir" => dir = Some(PathBuf::from(v)),
            "projectroot" => info.project_root = Some(PathBuf::from(v)),
            "identity" if !v.is_empty() => info.identity = Some(v),
            _ => {}
        }
    }
    info.memory_dir = dir?;
    Some(info)
}

/// A git config value: double quotes removed, `\"`, `\\`, `\n`, `\t` unescaped.
fn unquote(v: &str) -> String {
    let mut out = String::new();
    let mut chars = v.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => {}
            '\\' => match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some(o) => out.push(o),
                None => {}
            },
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_memctl_section_is_read() {
        let text = "[core]\n\tbare = true\n[memctl]\n\tformat = 1\n\tmemoryDir = \"/h/.claude/projects/-a/memory\"\n\tprojectRoot = \"/a \\\"q\\\"\"\n\tidentity = github.com/alice/app\n";
        let i = parse(text).unwrap();
        assert_eq!(i.memory_dir, PathBuf::from("/h/.claude/projects/-a/memory"));
        assert_eq!(i.project_root, Some(PathBuf::from("/a \"q\"")));
        assert_eq!(i.identity.as_deref(), Some("github.com/alice/app"));
        assert_eq!(parse("[core]\n\tbare = true\n"), None);
    }
}
