//! The status flags of SPEC §9, decided over all rows together (a split or a move
//! is a relation between rows): each with its evidence for `--json` and a one-line
//! explanation (`detail`) for the terminal.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::{Live, PathSource, Row};
use crate::paths::{DirSource, Enabled, sanitize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Flag {
    Orphaned,
    Moved,
    Split,
    SharedKey,
    Redirected,
    Disabled,
}

impl Flag {
    pub fn as_str(self) -> &'static str {
        match self {
            Flag::Orphaned => "orphaned",
            Flag::Moved => "moved",
            Flag::Split => "split",
            Flag::SharedKey => "shared-key",
            Flag::Redirected => "redirected",
            Flag::Disabled => "disabled",
        }
    }
}

/// A flag on a row: `detail` is the one-line explanation, `related` the keys (or
/// memory dirs and project paths) of the other side, `evidence` what decided it.
#[derive(Clone, Debug, Serialize)]
pub struct FlagDoc {
    pub flag: Flag,
    pub detail: String,
    pub related: Vec<String>,
    pub evidence: Evidence,
}

/// What decided a flag (the object `evidence` of a flag in `projects --json`).
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum Evidence {
    /// `orphaned`: the project path and where it came from.
    Orphaned { project_path: String, source: PathSource },
    /// `moved`: `by` is `identity` or `directory_name`.
    Moved {
        by: &'static str,
        live_project: String,
        identity: Option<String>,
        live_memories: usize,
    },
    /// `split`: `reason` is `worktree`, `canonical_root`, `hash`, `case`,
    /// `underscore` or `identity`; `variant` names a long key's hash (`wyhash`,
    /// `djb2`) when the project path tells.
    Split {
        reason: &'static str,
        canonical_root: Option<String>,
        variant: Option<&'static str>,
    },
    /// `shared-key`: the project paths of the transcripts that share the key.
    SharedKey { project_paths: Vec<String> },
    /// `redirected`: the stranded memories, the dir Claude Code reads instead and
    /// the lever that moved it.
    Redirected {
        stranded: usize,
        reads: String,
        lever: String,
    },
    /// `disabled`: the lever that turned auto memory off.
    Disabled { lever: String },
}

fn push(row: &mut Row, flag: Flag, detail: String, related: Vec<String>, evidence: Evidence) {
    row.flags.push(FlagDoc {
        flag,
        detail,
        related,
        evidence,
    });
}

/// Decide every flag. `live` maps project paths to what resolution said there;
/// `fallback` is the enabled chain without a project (environment, policy, user).
pub(super) fn decide(
    rows: &mut [Row],
    live: &HashMap<PathBuf, Option<Live>>,
    fallback: &Enabled,
    base_dir: Option<&(PathBuf, String, String)>,
    config_home: &Path,
    memory_base: &Path,
) {
    let live_of = |r: &Row| {
        r.project_path
            .as_ref()
            .and_then(|p| live.get(p))
            .and_then(Option::as_ref)
    };
    let lives: Vec<Option<Live>> = rows.iter().map(|r| live_of(r).cloned()).collect();
    for (row, l) in rows.iter_mut().zip(&lives) {
        orphaned(row);
        disabled(row, l.as_ref(), fallback);
        match l {
            Some(l) => redirected(row, Some(l), config_home, memory_base),
            None => redirected_by_base(row, base_dir),
        }
        shared_key(row);
    }
    split(rows, &lives);
    moved(rows, &lives);
}

fn orphaned(row: &mut Row) {
    let Some(p) = &row.project_path else { return };
    if row.project_exists || row.key.is_none() && row.project_path_source == PathSource::Guess {
        return;
    }
    let shown = p.to_string_lossy().into_owned();
    let detail = match row.project_path_source {
        PathSource::Guess => format!("no existing directory matches the key (guessed {shown})"),
        _ => format!("the project path {shown} no longer exists"),
    };
    let source = row.project_path_source;
    push(
        row,
        Flag::Orphaned,
        detail,
        Vec::new(),
        Evidence::Orphaned {
            project_path: shown,
            source,
        },
    );
}

fn disabled(row: &mut Row, l: Option<&Live>, fallback: &Enabled) {
    let (on, lever) = match l {
        Some(l) => (l.enabled, l.lever.clone()),
        None => (fallback.value, fallback.lever.clone()),
    };
    if !on {
        push(
            row,
            Flag::Disabled,
            format!("auto memory is off: {lever}; Claude Code neither reads nor writes this dir"),
            Vec::new(),
            Evidence::Disabled { lever },
        );
    }
}

fn redirected(row: &mut Row, l: Option<&Live>, config_home: &Path, memory_base: &Path) {
    let Some(l) = l else { return };
    if row.key.is_none() || row.memories == 0 || same_dir(&l.memdir, &row.memory_dir) {
        return;
    }
    let lever = match (&l.setting, l.source) {
        (Some((file, value)), _) => format!("autoMemoryDirectory {value} in {file}"),
        (None, DirSource::CoworkOverride) => "env CLAUDE_COWORK_MEMORY_PATH_OVERRIDE".to_string(),
        (None, DirSource::Default)
            if memory_base != config_home && row.memory_dir.starts_with(config_home.join("projects")) =>
        {
            "env CLAUDE_CODE_REMOTE_MEMORY_DIR".to_string()
        }
        // Another key of the same repository (a worktree): that is `split`.
        _ => return,
    };
    let reads = crate::paths::with_sep(&l.memdir);
    push_redirected(row, reads, lever);
}

/// The `redirected` flag: the row's memories are stranded, Claude Code reads `reads`
/// because of `lever`.
fn push_redirected(row: &mut Row, reads: String, lever: String) {
    let n = row.memories;
    push(
        row,
        Flag::Redirected,
        format!(
            "{n} {} stranded: Claude Code reads {reads} instead ({lever})",
            if n == 1 { "memory" } else { "memories" }
        ),
        vec![reads.clone()],
        Evidence::Redirected {
            stranded: n,
            reads,
            lever,
        },
    );
}

/// A row with no live project to resolve (its path is a guess, or gone): a memory
/// dir that policy or user settings give every project is where Claude Code reads,
/// so a keyed dir's memories are stranded (SPEC §9 `redirected`).
fn redirected_by_base(row: &mut Row, base_dir: Option<&(PathBuf, String, String)>) {
    let Some((dir, file, value)) = base_dir else { return };
    if row.key.is_none() || row.memories == 0 || same_dir(dir, &row.memory_dir) {
        return;
    }
    let lever = format!("autoMemoryDirectory {value} in {file}");
    let reads = crate::paths::with_sep(dir);
    push_redirected(row, reads, lever);
}

fn shared_key(row: &mut Row) {
    let Some(key) = &row.key else { return };
    let paths: Vec<String> = row
        .cwds
        .iter()
        .filter(|c| {
            let k = sanitize::sanitize(c);
            &k.key == key || &k.wyhash == key
        })
        .cloned()
        .collect();
    if paths.len() < 2 {
        return;
    }
    push(
        row,
        Flag::SharedKey,
        format!("{} project paths map to this key: {}", paths.len(), paths.join(", ")),
        paths.clone(),
        Evidence::SharedKey { project_paths: paths },
    );
}

/// A key as the variants of one path would make it: lower case, `_` as `-`, and a
/// long key cut to its shared 200-unit prefix.
fn key_family(key: &str) -> String {
    let k: String = key
        .chars()
        .map(|c| if c == '_' { '-' } else { c.to_ascii_lowercase() })
        .collect();
    if k.len() > sanitize::MAX_KEY_UNITS {
        k.chars().take(sanitize::MAX_KEY_UNITS + 1).collect()
    } else {
        k
    }
}

/// Why two keys of one family differ.
fn family_reason(a: &str, b: &str) -> &'static str {
    let n = sanitize::MAX_KEY_UNITS;
    if a.len() > n && b.len() > n && a.as_bytes()[..n] == b.as_bytes()[..n] {
        "hash"
    } else if a.eq_ignore_ascii_case(b) {
        "case"
    } else {
        "underscore"
    }
}

/// Rows that look like one repository: their indexes (sorted), what grouped them
/// (`family`, `canonical_root` or `identity`), and the canonical root when that did.
type Group = (Vec<usize>, &'static str, Option<String>);

/// `split` (SPEC §9): two keys for one repository. Each row of a group is flagged
/// with the others, under the most precise reason that applies to it.
fn split(rows: &mut [Row], lives: &[Option<Live>]) {
    let groups = split_groups(rows, lives);
    // Keys of one family are one path only when their project paths can be: two
    // existing directories with different real paths (`~/Src/App` and `~/src/app`
    // on a case-sensitive filesystem, `a_b` and `a-b`) are two projects.
    let reals: Vec<Option<PathBuf>> = rows.iter().map(real_project_path).collect();
    let distinct = |i: usize, j: usize| matches!((&reals[i], &reals[j]), (Some(a), Some(b)) if a != b);
    for (group, reason, root) in groups {
        for &i in &group {
            let others: Vec<usize> = group
                .iter()
                .copied()
                .filter(|&j| j != i && (reason != "family" || !distinct(i, j)))
                .collect();
            if others.is_empty() {
                continue;
            }
            let reason = row_reason(rows, i, &others, &group, reason, root.as_deref());
            let related: Vec<String> = others.iter().map(|&j| rows[j].name()).collect();
            add_split(&mut rows[i], reason, root.clone(), related);
        }
    }
}

/// The groups of keyed dirs that exist, at least one with memories: by key family
/// first (its reason is the more precise: two hashes of one path also share their
/// canonical root), then by canonical git root, then by identity. Only keyed dirs
/// that exist: a worktree's key dir with transcripts alone is how Claude Code
/// works, not a split.
fn split_groups(rows: &[Row], lives: &[Option<Live>]) -> Vec<Group> {
    let members: Vec<usize> = (0..rows.len())
        .filter(|&i| rows[i].key.is_some() && rows[i].memory_dir.is_dir())
        .collect();
    let mut groups = group_by(
        rows,
        &members,
        |i| rows[i].key.as_deref().map(key_family),
        "family",
        false,
    );
    let root_of = |i: usize| {
        lives[i]
            .as_ref()
            .map(|l| l.canonical_root.clone())
            .filter(|r| !r.is_empty())
    };
    groups.extend(group_by(rows, &members, root_of, "canonical_root", true));
    groups.extend(group_by(
        rows,
        &members,
        |i| rows[i].identity.clone(),
        "identity",
        false,
    ));
    groups
}

/// The groups of `members` that share `key_of`, of two rows or more with memories
/// in one at least, sorted; `with_root` keeps the shared value as the root.
fn group_by(
    rows: &[Row],
    members: &[usize],
    key_of: impl Fn(usize) -> Option<String>,
    reason: &'static str,
    with_root: bool,
) -> Vec<Group> {
    let mut map: HashMap<String, Vec<usize>> = HashMap::new();
    for &i in members {
        if let Some(k) = key_of(i) {
            map.entry(k).or_default().push(i);
        }
    }
    let mut found: Vec<Group> = map
        .into_iter()
        .filter(|(_, v)| v.len() > 1 && v.iter().any(|&i| rows[i].memories > 0))
        .map(|(k, mut v)| {
            v.sort_unstable();
            (v, reason, with_root.then_some(k))
        })
        .collect();
    found.sort();
    found
}

/// The real path of a row's project path when it exists.
fn real_project_path(row: &Row) -> Option<PathBuf> {
    row.project_path
        .as_ref()
        .filter(|_| row.project_exists)
        .and_then(|p| std::fs::canonicalize(p).ok())
}

/// The reason row `i` is split from `others` in `group`: a key family's precise
/// reason (`hash`, `case`, `underscore`), `worktree` for a canonical root that
/// is not every member's project path, else the group's.
fn row_reason(
    rows: &[Row],
    i: usize,
    others: &[usize],
    group: &[usize],
    reason: &'static str,
    root: Option<&str>,
) -> &'static str {
    let path_of = |j: usize| rows[j].project_path.as_ref().map(|p| p.to_string_lossy().into_owned());
    match reason {
        "family" => family_reason(
            rows[i].key.as_deref().unwrap_or(""),
            rows[others[0]].key.as_deref().unwrap_or(""),
        ),
        "canonical_root" if group.iter().any(|&j| path_of(j).as_deref() != root) => "worktree",
        r => r,
    }
}

/// Flag `row` as split from `related`, or add them to its split flag.
fn add_split(row: &mut Row, reason: &'static str, root: Option<String>, related: Vec<String>) {
    if let Some(f) = row.flags.iter_mut().find(|f| f.flag == Flag::Split) {
        for r in related {
            if !f.related.contains(&r) {
                f.related.push(r);
            }
        }
        return;
    }
    let variant = if reason == "hash" { hash_variant(row) } else { None };
    let detail = format!(
        "one repository under two keys ({}); also: {}",
        split_why(reason, variant),
        related.join(", ")
    );
    let evidence = Evidence::Split {
        reason,
        canonical_root: root,
        variant,
    };
    push(row, Flag::Split, detail, related, evidence);
}

/// Which hash of its long project path a row's key is (`djb2`, `wyhash`), when
/// the path tells.
fn hash_variant(row: &Row) -> Option<&'static str> {
    let key = row.key.as_deref().unwrap_or("");
    let k = sanitize::sanitize(&row.project_path.as_ref()?.to_string_lossy());
    if k.key == key {
        Some("djb2")
    } else if k.wyhash == key {
        Some("wyhash")
    } else {
        None
    }
}

/// The words of a split's detail for its reason (and hash variant).
fn split_why(reason: &str, variant: Option<&str>) -> &'static str {
    match (reason, variant) {
        ("worktree", _) => "a worktree keyed on its own",
        ("canonical_root", _) => "the same git root",
        ("hash", Some("djb2")) => "the djb2 key of a long path, the one Claude Code 2.1.332 reads",
        ("hash", Some(_)) => {
            "the Wyhash key an older native Claude Code build gave a long path; Claude Code 2.1.332 reads the djb2 key"
        }
        ("hash", None) => "the two hash variants of a long path",
        ("case", _) => "a case variant of the path",
        ("underscore", _) => "the path with `_` kept (Windows)",
        _ => "the same identity: one remote or root commit",
    }
}

fn moved(rows: &mut [Row], lives: &[Option<Live>]) {
    let memories_at = |dir: &Path, rows: &[Row]| {
        rows.iter()
            .find(|r| same_dir(&r.memory_dir, dir))
            .map_or(0, |r| r.memories)
    };
    // The memories of each live row's own memory dir, found once per row (a lookup
    // compares real paths) and only for rows an orphan is compared with.
    let mut live_counts: Vec<Option<usize>> = vec![None; rows.len()];
    let mut found = Vec::new();
    for (i, o) in rows.iter().enumerate() {
        if !o.has(Flag::Orphaned) {
            continue;
        }
        let Some(op) = &o.project_path else { continue };
        let name = op.file_name();
        for (j, l) in rows.iter().enumerate() {
            let Some(live) = &lives[j] else { continue };
            let Some(lp) = &l.project_path else { continue };
            if i == j || l.has(Flag::Orphaned) || l.project_path_source == PathSource::Guess {
                continue;
            }
            let live_memories = *live_counts[j].get_or_insert_with(|| memories_at(&live.memdir, rows));
            let by = if o.identity.is_some() && o.identity == l.identity {
                "identity"
            } else if name.is_some() && lp.file_name() == name && live_memories == 0 {
                "directory_name"
            } else {
                continue;
            };
            found.push((i, j, by, live_memories));
        }
    }
    for (i, j, by, live_memories) in found {
        let live = rows[j]
            .project_path
            .clone()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let related = rows[j].name();
        let identity = (by == "identity").then(|| rows[i].identity.clone()).flatten();
        let why = match &identity {
            Some(id) => format!("the same identity {id}"),
            None => "the same directory name, and its memory dir is empty".to_string(),
        };
        let detail = format!("likely moved to {live} ({why}): `memctl projects merge` brings the memories along");
        if rows[i]
            .flags
            .iter()
            .any(|f| f.flag == Flag::Moved && f.related.contains(&related))
        {
            continue;
        }
        push(
            &mut rows[i],
            Flag::Moved,
            detail,
            vec![related],
            Evidence::Moved {
                by,
                live_project: live,
                identity,
                live_memories,
            },
        );
    }
}

fn same_dir(a: &Path, b: &Path) -> bool {
    super::strip_sep(a) == super::strip_sep(b) || super::real(a) == super::real(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_variants_of_one_path_share_a_family() {
        assert_eq!(key_family("C--Users-x-my_proj"), key_family("C--Users-x-my-proj"));
        assert_eq!(key_family("-Users-Alice-app"), key_family("-users-alice-app"));
        assert_ne!(key_family("-src-app"), key_family("-src-app2"));
        let long = format!("/{}", "b".repeat(210));
        let k = sanitize::sanitize(&long);
        assert_ne!(k.wyhash, k.key);
        assert_eq!(key_family(&k.wyhash), key_family(&k.key));
        assert_eq!(family_reason(&k.wyhash, &k.key), "hash");
        assert_eq!(family_reason("-Users-Alice-app", "-users-alice-app"), "case");
        assert_eq!(family_reason("C--x-my_proj", "C--x-my-proj"), "underscore");
    }

    #[test]
    fn flags_serialize_in_kebab_case() {
        for f in [
            Flag::Orphaned,
            Flag::Moved,
            Flag::Split,
            Flag::SharedKey,
            Flag::Redirected,
            Flag::Disabled,
        ] {
            assert_eq!(serde_json::to_value(f).unwrap(), f.as_str());
        }
    }

    fn row(key: &str, memories: usize, path: Option<&str>) -> Row {
        let mut r = Row::for_test(Some(key), &format!("/c/projects/{key}/memory"), memories);
        r.project_path = path.map(PathBuf::from);
        r
    }

    #[test]
    fn rows_group_by_a_shared_value_when_one_has_memories() {
        let rows = [
            row("-a", 0, None),
            row("-A", 2, None),
            row("-b", 0, None),
            row("-B", 0, None),
        ];
        let groups = group_by(
            &rows,
            &[0, 1, 2, 3],
            |i| rows[i].key.as_deref().map(key_family),
            "family",
            false,
        );
        assert_eq!(groups, [(vec![0, 1], "family", None)]);
        let groups = group_by(&rows, &[1, 0], |_| Some("/src/app".to_string()), "canonical_root", true);
        assert_eq!(groups, [(vec![0, 1], "canonical_root", Some("/src/app".to_string()))]);
    }

    #[test]
    fn a_row_is_split_for_the_most_precise_reason() {
        let rows = [
            row("-src-app", 1, Some("/src/app")),
            row("-src-App", 1, Some("/src/App")),
            row("-src-app-wt", 1, Some("/src/app-wt")),
        ];
        assert_eq!(row_reason(&rows, 0, &[1], &[0, 1], "family", None), "case");
        let root = Some("/src/app");
        assert_eq!(row_reason(&rows, 0, &[2], &[0, 2], "canonical_root", root), "worktree");
        assert_eq!(
            row_reason(&rows, 0, &[2], &[0], "canonical_root", root),
            "canonical_root"
        );
        assert_eq!(row_reason(&rows, 0, &[2], &[0, 2], "identity", None), "identity");
    }

    #[test]
    fn a_long_key_names_its_hash_variant() {
        let long = format!("/{}", "b".repeat(210));
        let k = sanitize::sanitize(&long);
        assert_eq!(hash_variant(&row(&k.key, 1, Some(&long))), Some("djb2"));
        assert_eq!(hash_variant(&row(&k.wyhash, 1, Some(&long))), Some("wyhash"));
        assert_eq!(hash_variant(&row(&k.wyhash, 1, None)), None);
        assert!(split_why("hash", Some("wyhash")).starts_with("the Wyhash key"));
        assert_eq!(
            split_why("identity", None),
            "the same identity: one remote or root commit"
        );
    }

    #[test]
    fn a_second_split_adds_to_the_first_flag() {
        let mut r = row("-a", 1, None);
        add_split(&mut r, "case", None, vec!["-A".to_string()]);
        add_split(&mut r, "identity", None, vec!["-A".to_string(), "-x".to_string()]);
        assert_eq!(r.flags.len(), 1);
        assert_eq!(r.flags[0].related, ["-A", "-x"]);
        assert_eq!(
            r.flags[0].detail,
            "one repository under two keys (a case variant of the path); also: -A"
        );
    }
}
