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
    /// `memctl.rootCommit`, the cached root commit (SPEC §11.1), when recorded.
    pub root_commit: Option<String>,
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

/// The `[memctl]` section of a git config text, parsed by gix-config as git reads
/// it (comments, quoting, escapes); `None` without `memoryDir`.
pub fn parse(text: &str) -> Option<StoreInfo> {
    let file = gix::config::File::from_bytes_no_includes(
        text.as_bytes(),
        gix::config::file::Metadata::from(gix::config::Source::Local),
        Default::default(),
    )
    .ok()?;
    let value = |key: &str| file.string(key).map(|v| v.to_string());
    Some(StoreInfo {
        memory_dir: PathBuf::from(value("memctl.memoryDir")?),
        project_root: value("memctl.projectRoot").map(PathBuf::from),
        identity: value("memctl.identity").filter(|v| !v.is_empty()),
        root_commit: value(crate::identity::ROOT_COMMIT_KEY).filter(|v| !v.is_empty()),
    })
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
        // Comments and a subsection are read as git reads them.
        let commented = "[memctl \"x\"]\n\tmemoryDir = /wrong\n[memctl] # the store\n\tmemoryDir = /m ; a comment\n";
        assert_eq!(parse(commented).unwrap().memory_dir, PathBuf::from("/m"));
    }
}
