//! The parallel scan: the walk feeds batches of files to reader threads, so
//! walking and reading overlap. Each reader reads a file's window, runs the
//! visitor on the open file and sends its batch back; the main thread walks,
//! runs `meanwhile`, then reads too. Every batch is merged as soon as it is read
//! (bounded to the newest `cap` as it goes), then sorted into Claude Code's order.
//!
//! With `cap`, the scan is a bounded top-k by mtime: once `cap` memories are
//! gathered, a file older than the oldest of them can never be among the newest
//! `cap`, so its window is read (for the binary and size problems, which are
//! reported for every file) but not parsed, and no memory is built for it.

use std::fs::{self, File};
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, TrySendError};

use super::order::{keep_newest, sort_claude_order_with};
use super::walk::{self, BATCH, Item};
use super::window::{parse_head, read_head};
use super::{Kept, Problem, ProblemKind, Scan};
use crate::memory::Memory;

/// One batch's memories, problems and visitor results, and how many memories
/// were read but dropped unparsed by the top-k cut.
struct Batch<K, R> {
    memories: Vec<K>,
    problems: Vec<Problem>,
    results: Vec<R>,
    dropped: usize,
    /// Files the `skip` predicate left out (read for their problems, not parsed).
    skipped: usize,
}

/// Files a scan reads for their problems but neither parses nor counts: the paths
/// Claude Code's own scan excludes (SPEC §2.5 step 2), so that the top-k cut of a
/// capped scan applies after the exclusions, as Claude Code's does.
pub type Skip<'a> = &'a (dyn Fn(&str) -> bool + Sync);

/// How many batches may wait for a reader: the walk runs ahead of the readers by
/// at most this much (beyond it, the walking thread reads the batch itself), so
/// the queue of paths stays small however many files the dir holds.
const QUEUED: usize = 4;

/// What the readers have read so far, merged batch by batch as each is read (so
/// no batch waits in a queue holding its memories): with `cap`, cut back to the
/// newest `cap` whenever it grows past that, raising the [`Floor`].
struct Gathered<K, R> {
    memories: Vec<K>,
    problems: Vec<Problem>,
    results: Vec<R>,
    /// Memories read, all of them (also those cut).
    total: usize,
    skipped: usize,
    cap: Option<usize>,
}

impl<K: Kept, R> Gathered<K, R> {
    fn merge(&mut self, batch: Batch<K, R>, floor: Option<&Floor>) {
        self.total += batch.memories.len() + batch.dropped;
        self.skipped += batch.skipped;
        self.memories.extend(batch.memories);
        self.problems.extend(batch.problems);
        self.results.extend(batch.results);
        if let Some(c) = self.cap
            && self.memories.len() > c
        {
            keep_newest(&mut self.memories, &mut self.results, c);
            if let (Some(oldest), Some(floor)) = (self.memories.last(), floor) {
                floor.raise(oldest.mtime_ms());
            }
        }
    }
}

/// The mtime of the oldest of the newest `cap` memories gathered so far: a file
/// modified strictly earlier sorts after all of them (ties are broken by path, so
/// an equal mtime is still read). Only rises; shared with the readers unlocked.
struct Floor(AtomicU64);

impl Floor {
    fn new() -> Floor {
        Floor(AtomicU64::new(f64::NEG_INFINITY.to_bits()))
    }

    fn get(&self) -> f64 {
        f64::from_bits(self.0.load(Ordering::Relaxed))
    }

    /// Called under the [`Gathered`] lock, so loads and stores do not race.
    fn raise(&self, mtime_ms: f64) {
        if mtime_ms.total_cmp(&self.get()).is_gt() {
            self.0.store(mtime_ms.to_bits(), Ordering::Relaxed);
        }
    }

    fn below(&self, mtime_ms: f64) -> bool {
        mtime_ms.total_cmp(&self.get()).is_lt()
    }
}

/// What every reader shares: the gathered results, the floor (with `cap`), the
/// visitor.
struct Shared<'a, K, R, V> {
    gathered: Mutex<Gathered<K, R>>,
    floor: Option<Floor>,
    visit: &'a V,
    skip: Option<Skip<'a>>,
}

/// Scan `dir`, keeping the newest `cap` memories (all without `cap`), running
/// `visit` on every memory file as it is read and `meanwhile` on the main thread
/// once the walk is done. A missing dir gives an empty scan.
pub(super) fn run<K, R, T, V>(
    dir: &Path,
    cap: Option<usize>,
    skip: Option<Skip<'_>>,
    meanwhile: impl FnOnce() -> T,
    visit: &V,
) -> (Scan<K>, Vec<R>, T)
where
    K: Kept,
    R: Send,
    V: Fn(&Memory, &mut File, &mut Vec<u8>) -> R + Sync,
{
    let mut out = Scan::default();
    let Ok(root_meta) = fs::metadata(dir) else {
        return (out, Vec::new(), meanwhile());
    };
    let real_dir = fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(8);
    let (tx, rx) = mpsc::sync_channel::<Vec<Item>>(QUEUED);
    let rx = Mutex::new(rx);
    let shared = Shared {
        gathered: Mutex::new(Gathered {
            // Never more than `cap` plus a batch per thread with `cap`.
            memories: Vec::with_capacity(cap.map_or(0, |c| c + BATCH)),
            problems: Vec::new(),
            results: Vec::new(),
            total: 0,
            skipped: 0,
            cap,
        }),
        floor: cap.map(|_| Floor::new()),
        visit,
        skip,
    };
    let extra = std::thread::scope(|s| {
        // One thread per core, the main thread included: it walks first (reading
        // a batch itself whenever the readers are behind), then reads.
        for _ in 1..threads.max(2) {
            let (rx, shared) = (&rx, &shared);
            s.spawn(move || drain(rx, shared));
        }
        let mut files = 0;
        walk::walk(dir, &real_dir, &root_meta, &mut out, |batch| {
            files += batch.len();
            if let Err(TrySendError::Full(batch) | TrySendError::Disconnected(batch)) = tx.try_send(batch) {
                read_into(batch, &shared);
            }
        });
        drop(tx);
        if cap.is_none() {
            // Every file walked is at most one memory: the lists grow no further
            // (by doubling, a third of them was slack at 20 000 files).
            let mut g = shared
                .gathered
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let left = files.saturating_sub(g.memories.len());
            g.memories.reserve_exact(left);
            g.results.reserve_exact(left);
        }
        // On this thread, so that what the index rules free is reused by the
        // merges (on a thread of their own, with its own malloc arena, lint's
        // peak RSS at 20 000 files grew by 3 MB).
        let extra = meanwhile();
        drain(&rx, &shared);
        extra
    });
    let g = shared
        .gathered
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let (mut memories, mut results) = (g.memories, g.results);
    out.total = g.total;
    out.skipped = g.skipped;
    out.problems.extend(g.problems);
    match cap {
        Some(c) => keep_newest(&mut memories, &mut results, c),
        None => sort_claude_order_with(&mut memories, &mut results),
    }
    // Cut back, or grown by doubling while the walk still found files (room for
    // 32 768 at 20 000): the slack goes (a large list is a mapping, shrunk in place).
    memories.shrink_to_fit();
    results.shrink_to_fit();
    out.memories = memories;
    (out, results, extra)
}

/// Read batches until the walk is over and the queue is empty.
fn drain<K: Kept, R, V>(rx: &Mutex<Receiver<Vec<Item>>>, shared: &Shared<'_, K, R, V>)
where
    V: Fn(&Memory, &mut File, &mut Vec<u8>) -> R,
{
    loop {
        let batch = match rx.lock() {
            Ok(r) => r.recv(),
            Err(_) => break,
        };
        let Ok(batch) = batch else { break };
        read_into(batch, shared);
    }
}

/// Read one batch and merge it into the gathered results.
fn read_into<K: Kept, R, V>(batch: Vec<Item>, shared: &Shared<'_, K, R, V>)
where
    V: Fn(&Memory, &mut File, &mut Vec<u8>) -> R,
{
    let mut acc = Batch {
        memories: Vec::new(),
        problems: Vec::new(),
        results: Vec::new(),
        dropped: 0,
        skipped: 0,
    };
    let floor = shared.floor.as_ref();
    read_batch(batch, &mut acc, shared.visit, floor, shared.skip);
    match shared.gathered.lock() {
        Ok(mut g) => g.merge(acc, floor),
        Err(poisoned) => poisoned.into_inner().merge(acc, floor),
    }
}

/// Read the files of a batch into `acc`. With a `floor` (a capped scan), a file
/// older than it is counted but not parsed, and its visitor does not run.
fn read_batch<K: Kept, R>(
    batch: Vec<Item>,
    acc: &mut Batch<K, R>,
    visit: &impl Fn(&Memory, &mut File, &mut Vec<u8>) -> R,
    floor: Option<&Floor>,
    skip: Option<Skip<'_>>,
) {
    let mut buf = Vec::with_capacity(16 << 10);
    for item in batch {
        let file = item.open();
        let Item { rel, path, .. } = item;
        let mut file = match file {
            Ok(f) => f,
            Err(e) => {
                acc.problems.push(Problem {
                    rel,
                    path,
                    kind: ProblemKind::Unreadable(e.to_string()),
                });
                continue;
            }
        };
        let skipped = skip.is_some_and(|skip| skip(&rel));
        let read = read_head(&mut file, &mut buf).and_then(|head| {
            // The binary check sees the bytes the window read, parsed or not.
            let binary = crate::text::looks_binary(&buf);
            if skipped {
                return Ok((binary, None));
            }
            // A window cut at 1 MiB is parsed: only parsing tells a problem.
            if !head.cut() && floor.is_some_and(|f| f.below(head.mtime_ms())) {
                return Ok((binary, None));
            }
            parse_head(&mut file, &buf, &head).map(|m| (binary, Some(m)))
        });
        match read {
            Ok((binary, m)) => {
                if binary {
                    acc.problems.push(Problem {
                        rel: rel.clone(),
                        path: path.clone(),
                        kind: ProblemKind::Binary,
                    });
                }
                let Some(mut m) = m else {
                    if skipped {
                        acc.skipped += 1;
                    } else {
                        acc.dropped += 1;
                    }
                    continue;
                };
                if m.window_exceeded {
                    acc.problems.push(Problem {
                        rel: rel.clone(),
                        path: path.clone(),
                        kind: ProblemKind::WindowTooLarge,
                    });
                }
                m.rel = rel;
                m.path = path;
                acc.results.push(visit(&m, &mut file, &mut buf));
                acc.memories.push(K::keep(m));
            }
            Err(e) => acc.problems.push(Problem {
                rel,
                path,
                kind: ProblemKind::Unreadable(e.to_string()),
            }),
        }
    }
}
