//! The parallel scan: the walk feeds batches of files to reader threads, so
//! walking and reading overlap. Each reader reads a file's window, runs the
//! visitor on the open file and sends its batch back; the main thread walks,
//! runs `meanwhile`, then reads too. Every batch is merged as soon as it is read
//! (bounded to the newest `cap` as it goes), then sorted into Claude Code's order.

use std::fs::{self, File};
use std::path::Path;
use std::sync::Mutex;
use std::sync::mpsc::{self, Receiver, TrySendError};

use super::order::{keep_newest, sort_claude_order_with};
use super::walk::{self, BATCH, Item};
use super::window::{read_memory_from, slim};
use super::{Problem, ProblemKind, Scan};
use crate::memory::Memory;

/// One batch's memories, problems and visitor results.
type Batch<R> = (Vec<Memory>, Vec<Problem>, Vec<R>);

/// How many batches may wait for a reader: the walk runs ahead of the readers by
/// at most this much (beyond it, the walking thread reads the batch itself), so
/// the queue of paths stays small however many files the dir holds.
const QUEUED: usize = 4;

/// What the readers have read so far, merged batch by batch as each is read (so
/// no batch waits in a queue holding its memories): with `cap`, cut back to the
/// newest `cap` whenever it grows past twice that.
struct Gathered<R> {
    memories: Vec<Memory>,
    problems: Vec<Problem>,
    results: Vec<R>,
    /// Memories read, all of them (also those cut).
    total: usize,
    cap: Option<usize>,
}

impl<R> Gathered<R> {
    fn merge(&mut self, (ok, bad, res): Batch<R>) {
        self.total += ok.len();
        self.memories.extend(ok);
        self.problems.extend(bad);
        self.results.extend(res);
        if let Some(c) = self.cap
            && self.memories.len() > 2 * c + BATCH
        {
            keep_newest(&mut self.memories, &mut self.results, c);
        }
    }
}

/// Scan `dir`, keeping the newest `cap` memories (all without `cap`), running
/// `visit` on every memory file as it is read and `meanwhile` on the main thread
/// once the walk is done. A missing dir gives an empty scan.
pub(super) fn run<R, T, V>(
    dir: &Path,
    cap: Option<usize>,
    meanwhile: impl FnOnce() -> T,
    visit: &V,
) -> (Scan, Vec<R>, T)
where
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
    let gathered = Mutex::new(Gathered {
        memories: Vec::new(),
        problems: Vec::new(),
        results: Vec::new(),
        total: 0,
        cap,
    });
    let extra = std::thread::scope(|s| {
        // One thread per core, the main thread included: it walks first (reading
        // a batch itself whenever the readers are behind), then reads.
        for _ in 1..threads.max(2) {
            let (rx, gathered) = (&rx, &gathered);
            s.spawn(move || drain(rx, gathered, visit));
        }
        walk::walk(dir, &real_dir, &root_meta, &mut out, |batch| {
            if let Err(TrySendError::Full(batch) | TrySendError::Disconnected(batch)) = tx.try_send(batch) {
                read_into(batch, &gathered, visit);
            }
        });
        drop(tx);
        let extra = meanwhile();
        drain(&rx, &gathered, visit);
        extra
    });
    let g = gathered.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
    let (mut memories, mut results) = (g.memories, g.results);
    out.total = g.total;
    out.problems.extend(g.problems);
    match cap {
        Some(c) => {
            keep_newest(&mut memories, &mut results, c);
            memories.shrink_to_fit();
        }
        None => sort_claude_order_with(&mut memories, &mut results),
    }
    out.memories = memories;
    (out, results, extra)
}

/// Read batches until the walk is over and the queue is empty.
fn drain<R, V>(rx: &Mutex<Receiver<Vec<Item>>>, gathered: &Mutex<Gathered<R>>, visit: &V)
where
    V: Fn(&Memory, &mut File, &mut Vec<u8>) -> R,
{
    loop {
        let batch = match rx.lock() {
            Ok(r) => r.recv(),
            Err(_) => break,
        };
        let Ok(batch) = batch else { break };
        read_into(batch, gathered, visit);
    }
}

/// Read one batch and merge it into `gathered`.
fn read_into<R, V>(batch: Vec<Item>, gathered: &Mutex<Gathered<R>>, visit: &V)
where
    V: Fn(&Memory, &mut File, &mut Vec<u8>) -> R,
{
    let mut acc = (
        Vec::with_capacity(batch.len()),
        Vec::new(),
        Vec::with_capacity(batch.len()),
    );
    read_batch(batch, &mut acc, visit);
    match gathered.lock() {
        Ok(mut g) => g.merge(acc),
        Err(poisoned) => poisoned.into_inner().merge(acc),
    }
}

fn read_batch<R>(batch: Vec<Item>, acc: &mut Batch<R>, visit: &impl Fn(&Memory, &mut File, &mut Vec<u8>) -> R) {
    let mut buf = Vec::with_capacity(16 << 10);
    for item in batch {
        let file = item.open();
        let Item { rel, path, .. } = item;
        let mut file = match file {
            Ok(f) => f,
            Err(e) => {
                acc.1.push(Problem {
                    rel,
                    path,
                    kind: ProblemKind::Unreadable(e.to_string()),
                });
                continue;
            }
        };
        match read_memory_from(&mut file, &mut buf) {
            Ok(mut m) => {
                if crate::text::looks_binary(&buf) {
                    acc.1.push(Problem {
                        rel: rel.clone(),
                        path: path.clone(),
                        kind: ProblemKind::Binary,
                    });
                }
                if m.window_exceeded {
                    acc.1.push(Problem {
                        rel: rel.clone(),
                        path: path.clone(),
                        kind: ProblemKind::WindowTooLarge,
                    });
                }
                m.rel = rel;
                m.path = path;
                acc.2.push(visit(&m, &mut file, &mut buf));
                slim(&mut m);
                acc.0.push(m);
            }
            Err(e) => acc.1.push(Problem {
                rel,
                path,
                kind: ProblemKind::Unreadable(e.to_string()),
            }),
        }
    }
}
