//! Project identity (SPEC §11.1): what names a project across machines, where its
//! absolute path (and so its key) differs. In order: the normalised URL of the git
//! remote `origin`, else the repository's root commit, else none.
//!
//! The remote is parsed with `gix-url` (already in the tree through `gix`): it knows
//! every form git accepts (URLs, scp-like `host:path`, local paths, remote helpers)
//! and decodes credentials and ports, which a hand-written splitter would get wrong
//! at the edges. The repository is opened with `gix::open` under isolated options:
//! only the repository's own config is read (no global or system config, no
//! environment), so the answer does not depend on who runs memctl.

use std::path::{Path, PathBuf};

use serde::Serialize;

/// Where an identity came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    /// `remote.origin.url`, normalised.
    Origin,
    /// The root commit reached by first parents from `HEAD`.
    RootCommit,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Origin => "origin",
            Source::RootCommit => "root-commit",
        }
    }
}

/// A project's identity: `github.com/alice/app`, `local:/srv/git/app`, `root:<sha>`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Identity {
    pub id: String,
    pub source: Source,
}

/// The key in a history store's config that caches the root commit.
pub const ROOT_COMMIT_KEY: &str = "memctl.rootCommit";
/// The key in a history store's config that records the identity (read by
/// `memctl projects` to find moved repositories).
pub const IDENTITY_KEY: &str = "memctl.identity";

/// At most this many first-parent steps from `HEAD` (a hang guard: a history is
/// acyclic, but replace refs could make a loop).
const MAX_WALK: usize = 50_000_000;

/// The normalised form of a remote URL (SPEC §11.1): host lower-cased, no scheme,
/// no user or password, no default port (a non-default one kept as `host:port`),
/// no trailing `/` or `.git`, scp-style `host:path` as `host/path`; owner and
/// repository keep their case. A local path or `file://` remote gives
/// `local:<real path>` (a relative path is taken from `repo_root`, as git takes it
/// from the work tree). `None` for an empty or unparsable URL, or an `ext::`
/// command (it names a program to run, not a repository).
pub fn normalize_remote(url: &str, repo_root: &Path) -> Option<String> {
    use gix::url::Scheme;
    let url = url.trim();
    if url.is_empty() {
        return None;
    }
    let parsed = gix::url::parse(url.as_bytes()).ok()?;
    match &parsed.scheme {
        Scheme::File => {
            let raw = String::from_utf8_lossy(&parsed.path).into_owned();
            if raw.is_empty() {
                return None;
            }
            Some(format!("local:{}", real_path(&raw, repo_root)))
        }
        Scheme::Ext => None,
        Scheme::Helper(name) => {
            let address = trim_repo(&String::from_utf8_lossy(&parsed.path)).to_string();
            (!address.is_empty()).then(|| format!("{name}::{address}"))
        }
        scheme => {
            let host = parsed.host()?.to_lowercase();
            if host.is_empty() {
                return None;
            }
            let port = parsed.port.filter(|p| Some(*p) != scheme.default_port());
            let path = match scheme {
                Scheme::Http | Scheme::Https => parsed.path_query_fragment().path.to_owned(),
                _ => parsed.path.clone(),
            };
            let path = String::from_utf8_lossy(&path).into_owned();
            let path = trim_repo(path.trim_start_matches('/'));
            let mut id = host;
            if let Some(p) = port {
                id.push_str(&format!(":{p}"));
            }
            if !path.is_empty() {
                id.push('/');
                id.push_str(path);
            }
            Some(id)
        }
    }
}

/// A repository path without trailing `/` and one `.git` suffix (`app.git/` → `app`).
fn trim_repo(path: &str) -> &str {
    let p = path.trim_end_matches('/');
    let p = p.strip_suffix(".git").unwrap_or(p);
    p.trim_end_matches('/')
}

/// The real path of a local remote, relative to `base`; the lexically normalised
/// absolute path when it does not resolve (the remote was moved or deleted).
fn real_path(raw: &str, base: &Path) -> String {
    let abs = if raw.starts_with('/') {
        PathBuf::from(raw)
    } else {
        base.join(raw)
    };
    match std::fs::canonicalize(&abs) {
        Ok(real) => real.to_string_lossy().into_owned(),
        Err(_) => {
            let shown = crate::paths::validate::normalize(&abs.to_string_lossy());
            if shown.len() > 1 {
                shown.trim_end_matches('/').to_string()
            } else {
                shown
            }
        }
    }
}

/// The identity of the project whose canonical root (SPEC §2.2.6) is
/// `canonical_root`, with `cache` the memory dir's history store (the root commit is
/// read from and, computed once, written to its config as `memctl.rootCommit`).
/// `None`: not a repository, no `origin` and no commit (or a shallow clone, whose
/// root commit is not the repository's).
pub fn of_project(canonical_root: &Path, cache: Option<&Path>) -> Option<Identity> {
    let cached = cache.and_then(|store| store_value(store, ROOT_COMMIT_KEY));
    let found = resolve(canonical_root, cached.as_deref())?;
    if let (Some(store), Some(root)) = (cache, &found.fresh_root) {
        // Best effort: a cache that cannot be written is computed again next time.
        let _ = cache_root_unlocked(store, root);
    }
    Some(found.identity)
}

/// What [`resolve`] found: the identity, and the root commit when it was computed
/// now (not taken from the cache) so the caller can cache it.
#[derive(Debug)]
pub struct Found {
    pub identity: Identity,
    pub fresh_root: Option<String>,
}

/// The identity of the repository at `canonical_root`, with `cached_root` a root
/// commit cached earlier. Pure of writes: the caller caches [`Found::fresh_root`].
pub fn resolve(canonical_root: &Path, cached_root: Option<&str>) -> Option<Found> {
    if !plain_files(canonical_root) {
        return None;
    }
    let repo = gix::open_opts(canonical_root, gix::open::Options::isolated()).ok()?;
    if let Some(url) = repo.config_snapshot().string("remote.origin.url") {
        let base = repo.workdir().unwrap_or(canonical_root).to_path_buf();
        if let Some(id) = normalize_remote(&url.to_string(), &base) {
            return Some(Found {
                identity: Identity {
                    id,
                    source: Source::Origin,
                },
                fresh_root: None,
            });
        }
    }
    let identity = |sha: &str| Identity {
        id: format!("root:{sha}"),
        source: Source::RootCommit,
    };
    // The cache is not keyed by `HEAD`: the root reached by first parents does not
    // change when commits are added, merged or checked out on top, so a moved `HEAD`
    // keeps it. It is checked to still be a parentless commit of this repository
    // (another repository may now live at the path). A branch with another root
    // checked out (`git checkout --orphan`) keeps the cached one: the project is
    // still the one first recorded.
    if let Some(sha) = cached_root
        && is_root_commit(&repo, sha)
    {
        return Some(Found {
            identity: identity(sha),
            fresh_root: None,
        });
    }
    let sha = root_commit(&repo)?;
    Some(Found {
        identity: identity(&sha),
        fresh_root: Some(sha),
    })
}

/// Whether the files `gix::open` and `HEAD` read first are regular files (or
/// absent): a FIFO or device there would block the read, and memctl never blocks
/// on a file. The git dir is `<root>/.git` (a dir, or a `gitdir:` file), else the
/// root itself (a bare repository).
fn plain_files(root: &Path) -> bool {
    let dot_git = root.join(".git");
    let git_dir = match std::fs::metadata(&dot_git) {
        Ok(m) if m.is_dir() => dot_git,
        Ok(m) if m.is_file() => {
            let Some(text) = crate::fsread::read_small_text(&dot_git) else {
                return false;
            };
            let Some(link) = text.trim().strip_prefix("gitdir:") else {
                return false;
            };
            root.join(link.trim())
        }
        Ok(_) => return false,
        Err(_) => root.to_path_buf(),
    };
    let plain = |rel: &str| match std::fs::metadata(git_dir.join(rel)) {
        Ok(m) => m.is_file(),
        Err(_) => true,
    };
    if !["HEAD", "config", "commondir", "packed-refs", "shallow"]
        .into_iter()
        .all(plain)
    {
        return false;
    }
    // The branch `HEAD` names, as a loose ref.
    match crate::fsread::read_small_text(&git_dir.join("HEAD")) {
        Some(head) => match head.trim().strip_prefix("ref:") {
            Some(r) if !r.trim().contains("..") => plain(r.trim()),
            Some(_) => false,
            None => true,
        },
        None => true,
    }
}

fn is_root_commit(repo: &gix::Repository, sha: &str) -> bool {
    let Ok(id) = gix::ObjectId::from_hex(sha.as_bytes()) else {
        return false;
    };
    repo.find_commit(id).is_ok_and(|c| c.parent_ids().next().is_none())
}

/// The root commit reached by first parents from `HEAD`: one commit read per step,
/// linear in the length of that chain. `None` without commits, in a shallow clone,
/// or when a commit cannot be read.
fn root_commit(repo: &gix::Repository) -> Option<String> {
    if repo.is_shallow().unwrap_or(true) {
        return None;
    }
    let mut id = repo.head_id().ok()?.detach();
    for _ in 0..MAX_WALK {
        let commit = repo.find_commit(id).ok()?;
        match commit.parent_ids().next() {
            Some(parent) => id = parent.detach(),
            None => return Some(id.to_hex().to_string()),
        }
    }
    None
}

/// A `memctl.*` value from a history store's config file (`None` when the store or
/// the key does not exist).
pub fn store_value(store: &Path, key: &str) -> Option<String> {
    let bytes = crate::fsread::read_small_text(&store.join("config"))?;
    let file = gix::config::File::from_bytes_no_includes(
        bytes.as_bytes(),
        gix::config::file::Metadata::from(gix::config::Source::Local),
        Default::default(),
    )
    .ok()?;
    file.string(key).map(|v| v.to_string())
}

/// Set `memctl.<name>` keys in a history store's config: the file is parsed, the
/// values set (escaped by `gix-config`) and written back atomically (temp file and
/// rename). The caller holds the store's lock or accepts that a concurrent update
/// of another key may be lost (both keys are recomputed and rewritten when missing).
pub fn set_store_values(store: &Path, values: &[(&str, &str)]) -> std::io::Result<()> {
    let config = store.join("config");
    let text = crate::fsread::read_small_text(&config)
        .ok_or_else(|| std::io::Error::other("the store's config cannot be read"))?;
    let mut file = gix::config::File::from_bytes_owned(
        &mut text.into_bytes(),
        gix::config::file::Metadata::from(gix::config::Source::Local),
        Default::default(),
    )
    .map_err(std::io::Error::other)?;
    for (key, value) in values {
        let name = key.strip_prefix("memctl.").unwrap_or(key);
        file.set_raw_value_by("memctl", None, name, *value)
            .map_err(std::io::Error::other)?;
    }
    let mut out = Vec::new();
    file.write_to(&mut out)?;
    let tmp = store.join(format!(
        "config.{}.{}.tmp",
        std::process::id(),
        crate::tmpname::random_hex(8)
    ));
    let written = std::fs::write(&tmp, &out).and_then(|()| std::fs::rename(&tmp, &config));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// Cache the root commit in a store this process does not hold: only when its lock
/// can be taken at once (another process writing it wins; the cache waits).
fn cache_root_unlocked(store: &Path, root: &str) -> std::io::Result<()> {
    if !store.join("HEAD").is_file() {
        return Ok(());
    }
    // Non-blocking and regular only: a FIFO put there must not stall `path`.
    let lock =
        crate::fsread::open_regular(&store.join("memctl.lock")).map_err(|e| std::io::Error::other(e.to_string()))?;
    if lock.try_lock().is_err() {
        return Ok(());
    }
    set_store_values(store, &[(ROOT_COMMIT_KEY, root)])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(url: &str) -> Option<String> {
        normalize_remote(url, Path::new("/work/app"))
    }

    #[test]
    fn https_urls_lose_scheme_credentials_default_port_and_suffix() {
        assert_eq!(
            n("https://github.com/alice/app.git").as_deref(),
            Some("github.com/alice/app")
        );
        assert_eq!(
            n("https://github.com/alice/app").as_deref(),
            Some("github.com/alice/app")
        );
        assert_eq!(
            n("https://github.com/alice/app/").as_deref(),
            Some("github.com/alice/app")
        );
        assert_eq!(
            n("https://github.com/alice/app.git/").as_deref(),
            Some("github.com/alice/app")
        );
        assert_eq!(
            n("http://github.com/alice/app").as_deref(),
            Some("github.com/alice/app")
        );
        assert_eq!(
            n("https://github.com:443/alice/app").as_deref(),
            Some("github.com/alice/app")
        );
        assert_eq!(
            n("  https://github.com/alice/app\n").as_deref(),
            Some("github.com/alice/app")
        );
    }

    #[test]
    fn credentials_never_reach_the_identity() {
        for url in [
            "https://alice:s3cret@github.com/alice/app.git",
            "https://x-access-token:ghp_abc123@github.com/alice/app",
            "https://ghp_abc123@github.com/alice/app",
            "https://al%40ice:p%3Ass@github.com/alice/app",
            "ssh://git:pw@github.com/alice/app.git",
        ] {
            let id = n(url).unwrap();
            assert_eq!(id, "github.com/alice/app", "{url}");
        }
    }

    #[test]
    fn hosts_are_lowered_owner_and_repository_keep_their_case() {
        assert_eq!(
            n("https://GitHub.COM/Alice/App.git").as_deref(),
            Some("github.com/Alice/App")
        );
        assert_eq!(
            n("git@GITHUB.com:Alice/App.git").as_deref(),
            Some("github.com/Alice/App")
        );
        assert_eq!(
            n("ssh://git@GitHub.com/Alice/App").as_deref(),
            Some("github.com/Alice/App")
        );
    }

    #[test]
    fn ssh_and_scp_style_urls_meet_the_https_form() {
        assert_eq!(
            n("ssh://git@github.com/alice/app.git").as_deref(),
            Some("github.com/alice/app")
        );
        assert_eq!(
            n("ssh://git@github.com:22/alice/app.git").as_deref(),
            Some("github.com/alice/app")
        );
        assert_eq!(
            n("git+ssh://git@github.com/alice/app").as_deref(),
            Some("github.com/alice/app")
        );
        assert_eq!(
            n("git@github.com:alice/app.git").as_deref(),
            Some("github.com/alice/app")
        );
        assert_eq!(n("github.com:alice/app").as_deref(), Some("github.com/alice/app"));
        assert_eq!(
            n("git@github.com:/alice/app.git").as_deref(),
            Some("github.com/alice/app")
        );
        assert_eq!(
            n("git://github.com/alice/app.git").as_deref(),
            Some("github.com/alice/app")
        );
        assert_eq!(
            n("git://github.com:9418/alice/app").as_deref(),
            Some("github.com/alice/app")
        );
    }

    #[test]
    fn non_default_ports_stay_as_host_port() {
        assert_eq!(
            n("ssh://git@git.example.com:2222/team/app.git").as_deref(),
            Some("git.example.com:2222/team/app")
        );
        assert_eq!(
            n("https://git.example.com:8443/team/app").as_deref(),
            Some("git.example.com:8443/team/app")
        );
        assert_eq!(
            n("http://git.example.com:443/team/app").as_deref(),
            Some("git.example.com:443/team/app")
        );
        assert_eq!(
            n("https://git.example.com:80/team/app").as_deref(),
            Some("git.example.com:80/team/app")
        );
    }

    #[test]
    fn queries_and_fragments_of_http_urls_are_dropped() {
        assert_eq!(
            n("https://example.com/app.git?ref=x#top").as_deref(),
            Some("example.com/app")
        );
    }

    #[test]
    fn local_remotes_give_their_real_path() {
        let t = tempfile::tempdir().unwrap();
        let real = std::fs::canonicalize(t.path()).unwrap();
        let bare = real.join("git/app.git");
        std::fs::create_dir_all(&bare).unwrap();
        let link = real.join("link");
        std::os::unix::fs::symlink(real.join("git"), &link).unwrap();
        let work = real.join("work");
        std::fs::create_dir_all(&work).unwrap();
        let want = format!("local:{}", bare.display());
        let at = |u: &str| normalize_remote(u, &work);
        assert_eq!(at(&bare.to_string_lossy()), Some(want.clone()));
        assert_eq!(at(&format!("{}/", bare.display())), Some(want.clone()));
        assert_eq!(at(&format!("file://{}", bare.display())), Some(want.clone()));
        assert_eq!(at(&format!("{}/app.git", link.display())), Some(want.clone()));
        assert_eq!(at("../git/app.git"), Some(want));
        // Gone: the lexical absolute path.
        assert_eq!(at("../gone/app/"), Some(format!("local:{}/gone/app", real.display())));
    }

    #[test]
    fn empty_and_command_remotes_have_no_identity() {
        assert_eq!(n(""), None);
        assert_eq!(n("   "), None);
        assert_eq!(n("ext::ssh -i key host %S repo"), None);
    }

    #[test]
    fn remote_helpers_keep_their_address() {
        assert_eq!(
            n("codecommit::us-east-1://my-repo").as_deref(),
            Some("codecommit::us-east-1://my-repo")
        );
    }

    #[test]
    fn hostile_urls_do_not_panic() {
        for url in [
            "://",
            "@:",
            "ssh://",
            "https://",
            "git@:",
            ":::",
            "[::1]:x",
            "ssh://[::1]:22/a",
            "https://\u{0}/a",
            "file://",
            "\\\\srv\\share",
            "~alice/app",
            "-oProxyCommand=x:a",
        ] {
            let _ = n(url);
        }
        assert_eq!(n("ssh://git@[::1]:2222/a.git").as_deref(), Some("[::1]:2222/a"));
    }

    #[test]
    fn store_values_round_trip_with_escaping_and_keep_the_rest() {
        let t = tempfile::tempdir().unwrap();
        let config = t.path().join("config");
        let before = "[core]\n\tbare = true\n[memctl]\n\tformat = 1\n\tmemoryDir = \"/m/a \\\"b\\\"\"\n";
        std::fs::write(&config, before).unwrap();
        assert_eq!(store_value(t.path(), "memctl.memoryDir").as_deref(), Some("/m/a \"b\""));
        assert_eq!(store_value(t.path(), IDENTITY_KEY), None);
        let odd = "local:/srv/a;b#c \"q\" \\";
        set_store_values(t.path(), &[(IDENTITY_KEY, odd), (ROOT_COMMIT_KEY, "abc")]).unwrap();
        assert_eq!(store_value(t.path(), IDENTITY_KEY).as_deref(), Some(odd));
        assert_eq!(store_value(t.path(), ROOT_COMMIT_KEY).as_deref(), Some("abc"));
        assert_eq!(store_value(t.path(), "memctl.memoryDir").as_deref(), Some("/m/a \"b\""));
        assert_eq!(store_value(t.path(), "core.bare").as_deref(), Some("true"));
        set_store_values(t.path(), &[(IDENTITY_KEY, "github.com/a/b")]).unwrap();
        assert_eq!(store_value(t.path(), IDENTITY_KEY).as_deref(), Some("github.com/a/b"));
        let text = std::fs::read_to_string(&config).unwrap();
        assert_eq!(text.matches("identity").count(), 1, "{text}");
        let leftovers: Vec<_> = std::fs::read_dir(t.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(leftovers, ["config"]);
    }
}
