//! The survey of a memory dir for `add` and `forget` (issue 31): of every memory
//! the scan would read, its frontmatter `name`, whether it is a hub of `index
//! rebuild`, and the paths its links resolve to inside the dir. `add` asks it
//! for a memory with the same name, `forget` for the hubs beside an index and
//! the memories still linking a forgotten one.
//!
//! With a cache path (memctl's state dir, one file per memory dir), every file
//! is stat'ed but only those changed since the cache was written are read, as
//! git's index does ([`cache`]); the answers are the same as reading every file
//! (the tests compare both on random edits). The cache is never in the memory
//! dir, and failing to read or write it only costs the reads it would save.

mod cache;
mod walk;

#[cfg(test)]
mod tests;

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::fsread::Lstat;
use crate::history::tracked::{Entered, Kind};
use crate::index;
use crate::scan;

/// What the survey reads of one memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Facts {
    /// The frontmatter `name` as text ([`crate::memory::Memory::name`]).
    pub(crate) name: Option<String>,
    /// [`crate::memory::Memory::is_hub`].
    pub(crate) hub: bool,
    /// Where its links point inside the dir (relative, normalized as
    /// [`index::resolve_dest`] does against the file's own dir), sorted, each once;
    /// none for a file larger than an index may be.
    pub(crate) links: Vec<String>,
}

/// What the survey holds of one file the walk found: its facts where the
/// cache holds them (an entry of [`cache::Old`]), or as read; none when it
/// could not be read (not a memory the survey answers for).
enum Held {
    Cached(usize),
    Read(Box<Facts>),
    None,
}

/// Every memory of a dir, in the order the walk found them; the queries answer
/// in Claude Code's order (newest first, ties by path).
pub struct Survey {
    dir: PathBuf,
    found: Vec<walk::Found>,
    /// What is held of each file of `found`.
    held: Vec<Held>,
    /// The cache as read: the facts of the files it answered for.
    old: cache::Old,
    /// Index of each memory by its path, made when first asked.
    by_rel: std::cell::OnceCell<crate::fx::HashMap<String, usize>>,
    /// How many memories the cache answered for (the tests ask).
    #[cfg_attr(not(test), allow(dead_code))]
    hits: usize,
    /// The walk saw every directory: a regular file on a path without symlinks
    /// is a memory of the survey or not readable at all.
    complete: bool,
}

/// Where memctl keeps the survey caches: `${XDG_STATE_HOME:-~/.local/state}/memctl/survey`;
/// `None` with history off (memctl then keeps no state) or on a dry run (which
/// writes nothing).
pub fn cache_root(env: &crate::paths::Env, history: &crate::history::Settings, dry_run: bool) -> Option<PathBuf> {
    if !history.is_on() || dry_run {
        return None;
    }
    let nonempty = |k: &str| env.get_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    nonempty("XDG_STATE_HOME")
        .or_else(|| env.home().map(|h| PathBuf::from(h).join(".local/state")))
        .map(|s| s.join("memctl/survey"))
}

/// The cache file of `dir` under `root`, keyed by the dir's real path, and that path.
fn cache_file(root: &Path, dir: &Path) -> Option<(PathBuf, Vec<u8>)> {
    use sha2::Digest;
    use std::os::unix::ffi::OsStrExt;
    let real = std::fs::canonicalize(dir).ok()?;
    let bytes = real.as_os_str().as_bytes().to_vec();
    let digest = sha2::Sha256::digest(&bytes);
    let hex: String = digest.iter().take(10).map(|b| format!("{b:02x}")).collect();
    Some((root.join(hex), bytes))
}

impl Survey {
    /// Survey `dir`: with `cache_root`, through the cache there (read, and
    /// written again when it changed); without, reading every memory.
    pub fn take(dir: &Path, cache_root: Option<&Path>) -> Survey {
        Survey::take_found(dir, cache_root, young_ns(), None)
    }

    /// [`Survey::take`] from the files `seen` found, when it could tell them
    /// (see [`Seen`]), instead of a walk of its own.
    pub fn take_seen(dir: &Path, cache_root: Option<&Path>, seen: Option<Seen>) -> Survey {
        let found = seen.and_then(Seen::files).map(|f| (f, true));
        Survey::take_found(dir, cache_root, young_ns(), found)
    }

    /// [`Survey::take`], keeping in the cache only files whose ctime is `young`
    /// older than the stamp.
    #[cfg(test)]
    fn take_with(dir: &Path, cache_root: Option<&Path>, young: i128) -> Survey {
        Survey::take_found(dir, cache_root, young, None)
    }

    /// [`Survey::take_with`] of the files `found` (and whether they are every
    /// one), else of a walk of `dir`. Files stat'ed before the stamp is taken
    /// keep the racy rule: a file is read after the stamp, and a change after
    /// that read moves its mtime past the stat that is cached with it.
    fn take_found(
        dir: &Path,
        cache_root: Option<&Path>,
        young: i128,
        found: Option<(Vec<walk::Found>, bool)>,
    ) -> Survey {
        let cache = cache_root.and_then(|r| cache_file(r, dir));
        let stamp = cache.as_ref().and_then(|(p, _)| cache::begin(p));
        let old = match &cache {
            Some((p, real)) => cache::read(p, real),
            None => cache::Old::default(),
        };
        let (found, complete) = found.unwrap_or_else(|| walk::files(dir));
        let mut held: Vec<Held> = Vec::with_capacity(found.len());
        let mut misses = Vec::new();
        let mut hits = 0;
        let mut matcher = old.matcher();
        let mut changed = false;
        for (i, f) in found.iter().enumerate() {
            match matcher.take(&f.rel) {
                Some(j) if old.stat(j) == Some(f.stat) => {
                    hits += 1;
                    held.push(Held::Cached(j));
                }
                other => {
                    changed |= other.is_some();
                    held.push(Held::None);
                    misses.push(i);
                }
            }
        }
        // Entries of files gone, or changed: the cache is rewritten without them.
        changed |= matcher.matched < old.len();
        let read = read_all(dir, &found, &misses);
        // Young files are kept out only when they are few (the files a command
        // or the model just wrote): when many are (a copy, a checkout, an
        // import), keeping them out would read them all again at every survey
        // for [`cache::YOUNG_NS`] (20 000 files: ~50 ms a command).
        let racy_ok = |i: usize, young| stamp.as_ref().is_some_and(|s| found[i].stat.keepable(s.ns, young));
        let young_ones = misses.iter().filter(|&&i| racy_ok(i, 0) && !racy_ok(i, young)).count();
        let young = if young_ones > YOUNG_FEW { 0 } else { young };
        let mut kept = vec![true; found.len()];
        for (&i, r) in misses.iter().zip(read) {
            match r {
                Some((f, whole)) => {
                    // A failed read is not kept: it may succeed next time.
                    kept[i] = whole && racy_ok(i, young);
                    changed |= kept[i];
                    held[i] = Held::Read(Box::new(f));
                }
                None => kept[i] = false,
            }
        }
        if let (Some(stamp), Some((path, real))) = (stamp, &cache) {
            if changed {
                let entries = found.iter().zip(&held).zip(&kept).filter_map(|((f, h), k)| match h {
                    Held::Cached(j) => Some(cache::Out::Same(old.entry(*j))),
                    Held::Read(x) if *k => Some(cache::Out::New(&f.rel, &f.stat, x)),
                    _ => None,
                });
                cache::write(stamp, path, real, entries);
            } else {
                cache::abandon(stamp);
            }
        }
        Survey {
            dir: dir.to_path_buf(),
            found,
            held,
            old,
            by_rel: std::cell::OnceCell::new(),
            hits,
            complete,
        }
    }

    /// The frontmatter `name` of file `i` ([`Facts::name`]).
    fn name(&self, i: usize) -> Option<&str> {
        match &self.held[i] {
            Held::Cached(j) => self.old.name(*j),
            Held::Read(f) => f.name.as_deref(),
            Held::None => None,
        }
    }

    /// Whether file `i` is a memory of the survey and a hub on a path without
    /// symlinks.
    fn plain_hub(&self, i: usize) -> bool {
        self.found[i].plain
            && match &self.held[i] {
                Held::Cached(j) => self.old.hub(*j),
                Held::Read(f) => f.hub,
                Held::None => false,
            }
    }

    /// Whether file `i` is a memory of the survey with a link to `rel`.
    fn links_to(&self, i: usize, rel: &str) -> bool {
        match &self.held[i] {
            Held::Cached(j) => self.old.links_to(*j, rel),
            Held::Read(f) => f.links.binary_search_by(|l| l.as_str().cmp(rel)).is_ok(),
            Held::None => false,
        }
    }

    /// Whether file `a` comes before file `b` in Claude Code's order.
    fn before(&self, a: usize, b: usize) -> std::cmp::Ordering {
        let (a, b) = (&self.found[a], &self.found[b]);
        b.mtime_ms
            .total_cmp(&a.mtime_ms)
            .then_with(|| a.rel.as_bytes().cmp(b.rel.as_bytes()))
    }

    /// The first memory (in Claude Code's order) whose `name` satisfies `pred`:
    /// its relative path and name.
    pub fn named(&self, pred: impl Fn(&str) -> bool) -> Option<(&str, &str)> {
        let mut first: Option<(usize, &str)> = None;
        for i in 0..self.found.len() {
            let Some(n) = self.name(i).filter(|n| pred(n)) else {
                continue;
            };
            if first.is_none_or(|(f, _)| self.before(i, f).is_lt()) {
                first = Some((i, n));
            }
        }
        first.map(|(i, n)| (self.found[i].rel.as_str(), n))
    }

    /// Whether `reference` names a hub by its exact path, as
    /// `scan::exact_ref(dir, reference).is_some_and(|m| m.is_hub())` answers.
    pub fn is_hub(&self, reference: &str) -> bool {
        let rel = if reference.ends_with(".md") {
            reference.to_string()
        } else {
            format!("{reference}.md")
        };
        let by_rel = self.by_rel.get_or_init(|| {
            (0..self.found.len())
                .filter(|&i| !matches!(self.held[i], Held::None))
                .map(|i| (self.found[i].rel.clone(), i))
                .collect()
        });
        match by_rel.get(&rel) {
            Some(&i) => self.plain_hub(i),
            // Not a memory the walk found (or none at all): as it would answer.
            None => scan::exact_ref(&self.dir, reference).is_some_and(|m| m.is_hub()),
        }
    }

    /// Whether [`Survey::is_hub`] may say yes for some path: the survey holds a
    /// hub on a path without symlinks, or missed a directory.
    pub fn may_have_hubs(&self) -> bool {
        !self.complete || (0..self.found.len()).any(|i| self.plain_hub(i))
    }

    /// The memories (in Claude Code's order) with a link to `rel`, other than
    /// those `skip` leaves out: relative path and path.
    pub fn linking<'a>(
        &'a self,
        rel: &'a str,
        skip: impl Fn(&str, &Path) -> bool + 'a,
    ) -> impl Iterator<Item = &'a str> + 'a {
        let mut linking: Vec<usize> = (0..self.found.len())
            .filter(|&i| self.links_to(i, rel))
            .filter(|&i| !skip(&self.found[i].rel, &self.dir.join(&self.found[i].rel)))
            .collect();
        linking.sort_by(|&a, &b| self.before(a, b));
        linking.into_iter().map(|i| self.found[i].rel.as_str())
    }

    /// Each memory's path, mtime, way and facts, in Claude Code's order (the
    /// tests compare surveys).
    #[cfg(test)]
    fn view(&self) -> Vec<(String, f64, bool, Facts)> {
        let mut order: Vec<usize> = (0..self.found.len())
            .filter(|&i| !matches!(self.held[i], Held::None))
            .collect();
        order.sort_by(|&a, &b| self.before(a, b));
        order
            .into_iter()
            .map(|i| {
                let f = &self.found[i];
                let facts = match &self.held[i] {
                    Held::Cached(j) => self.old.facts(*j).unwrap(),
                    Held::Read(x) => (**x).clone(),
                    Held::None => unreachable!(),
                };
                (f.rel.clone(), f.mtime_ms, f.plain, facts)
            })
            .collect()
    }
}

/// The memory files of a flat dir as another walk of it read them (a writer's
/// before-snapshot, [`crate::history::tracked::Visit`]), in the order read: what
/// [`walk::files`] would list, without a `stat` of its own per file. Only a dir
/// without subdirectories (but `.trash/`) or symlinks is told this way: there
/// both walks read the same entries in the same order and stat each file alike
/// (`lstat` is `stat` for a file); anything else is walked by the survey.
#[derive(Default)]
pub struct Seen {
    found: Vec<walk::Found>,
    /// An entry was shown: the walk read the dir.
    walked: bool,
    /// A subdirectory or a symlink was shown: the survey walks itself.
    other: bool,
}

impl Seen {
    /// Look at one entry of the walk (its path below the dir, its type, its
    /// `lstat` when the walk took one).
    pub fn visit(&mut self, e: &Entered, rel: &[u8], ft: Kind, md: Option<&Lstat>) {
        self.walked = true;
        if self.other || (ft.is_dir() && rel == scan::TRASH.as_bytes()) {
            return;
        }
        if ft.is_dir() || ft.is_symlink() || rel.contains(&b'/') {
            self.other = true;
            self.found = Vec::new();
            return;
        }
        if !ft.is_file() || !rel.ends_with(b".md") || rel == b"MEMORY.md" {
            return;
        }
        let (Some(md), Ok(rel)) = (md.filter(|m| m.is_file()), std::str::from_utf8(rel)) else {
            return;
        };
        debug_assert_eq!(e.name(), rel.as_bytes());
        self.found.push(walk::Found {
            rel: rel.to_string(),
            stat: cache::Stat::of_lstat(md),
            mtime_ms: md.mtime_ms(),
            plain: true,
        });
    }

    fn files(self) -> Option<Vec<walk::Found>> {
        (self.walked && !self.other).then_some(self.found)
    }
}

/// The most young files a survey keeps out of the cache: more than this many
/// are a batch written at once, not files likely to change again.
const YOUNG_FEW: usize = 32;

/// How recent a change keeps a file out of the cache: [`cache::YOUNG_NS`]; in
/// debug builds `MEMCTL_DEBUG_SURVEY_YOUNG_MS` sets it, so that the CLI tests
/// reach the cache without waiting.
fn young_ns() -> i128 {
    #[cfg(debug_assertions)]
    if let Some(ms) = std::env::var("MEMCTL_DEBUG_SURVEY_YOUNG_MS")
        .ok()
        .and_then(|v| v.parse::<i128>().ok())
    {
        return ms * 1_000_000;
    }
    cache::YOUNG_NS
}

/// Read the files `misses` of `found`, on every core when they are many: per
/// file, its facts and whether it was read whole (`None`: the scan would not
/// read it either).
fn read_all(dir: &Path, found: &[walk::Found], misses: &[usize]) -> Vec<Option<(Facts, bool)>> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(8);
    if misses.len() < 256 || threads < 2 {
        return misses.iter().map(|&i| read_one(dir, &found[i])).collect();
    }
    let chunk = misses.len().div_ceil(threads);
    std::thread::scope(|s| {
        let handles: Vec<_> = misses
            .chunks(chunk)
            .map(|c| s.spawn(move || c.iter().map(|&i| read_one(dir, &found[i])).collect::<Vec<_>>()))
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap_or_default()).collect()
    })
}

/// Read one memory as the scan does, then the rest of it for its links (as
/// `forget`'s backlink check did: up to an index's size limit).
fn read_one(dir: &Path, f: &walk::Found) -> Option<(Facts, bool)> {
    scan::read_memory_then(&dir.join(&f.rel), &f.rel, |m, file, buf| {
        let max = crate::store::MAX_INDEX_BYTES;
        let left = (max + 1).saturating_sub(buf.len() as u64);
        let (links, whole) = match file.take(left).read_to_end(buf) {
            Err(_) => (Vec::new(), false),
            Ok(_) if buf.len() as u64 > max => (Vec::new(), true),
            Ok(_) => (links_of(&String::from_utf8_lossy(buf), &f.rel), true),
        };
        (
            Facts {
                name: m.name(),
                hub: m.is_hub(),
                links,
            },
            whole,
        )
    })
    .ok()
}

/// Where the links of `text`, the file `rel`, point inside the dir: sorted, each once.
fn links_of(text: &str, rel: &str) -> Vec<String> {
    let base = rel.rsplit_once('/').map_or("", |(d, _)| d);
    let mut out: Vec<String> = Vec::new();
    index::for_each_link(text, |l| {
        if let Some(index::Target::Inside(p)) = index::resolve_dest(&l.dest, base) {
            out.push(p);
        }
    });
    out.sort_unstable();
    out.dedup();
    out
}
