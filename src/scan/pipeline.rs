//! The parallel scan: the walk feeds batches of files to reader threads, so
//! walking and reading overlap. Each reader reads a file's window, runs the
//! visitor on the open file and sends its batch back; the main thread walks,
//! runs `meanwhile`, reads too, then gathers the batches in Claude Code's order
//! (bounded to the newest `cap` as it goes).

use std::fs::{self, File};
use std::path::Path;
use std::sync::Mutex;
use std::sync::mpsc::{self, Receiver, Sender};

use super::order::{keep_newest, sort_claude_order_with};
use super::walk::{self, BATCH, Item};
use super::window::{read_memory_from, slim};
use super::{Problem, ProblemKind, Scan};
use crate::memory::Memory;

/// One batch's memories, problems and visitor results.
type Batch<R> = (Vec<Memory>, Vec<Problem>, Vec<R>);

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
    let mut results = Vec::new();
    let Ok(root_meta) = fs::metadata(dir) else {
        return (out, results, meanwhile());
    };
    let real_dir = fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(8);
    let (tx, rx) = mpsc::channel::<Vec<Item>>();
    let rx = Mutex::new(rx);
    let (done_tx, done_rx) = mpsc::channel::<Batch<R>>();
    let extra = std::thread::scope(|s| {
        // One thread per core, the main thread included: it walks first, then reads.
        for _ in 1..threads.max(2) {
            let done_tx = done_tx.clone();
            let rx = &rx;
            s.spawn(move || drain(rx, &done_tx, visit));
        }
        let total = walk::walk(dir, &real_dir, &root_meta, &mut out, tx);
        let extra = meanwhile();
        drain(&rx, &done_tx, visit);
        drop(done_tx);
        gather(done_rx, cap, total, &mut out, &mut results);
        extra
    });
    match cap {
        Some(c) => {
            keep_newest(&mut out.memories, &mut results, c);
            out.memories.shrink_to_fit();
        }
        None => sort_claude_order_with(&mut out.memories, &mut results),
    }
    (out, results, extra)
}

/// Read batches until the walk is over and the queue is empty.
fn drain<R, V>(rx: &Mutex<Receiver<Vec<Item>>>, done_tx: &Sender<Batch<R>>, visit: &V)
where
    V: Fn(&Memory, &mut File, &mut Vec<u8>) -> R,
{
    loop {
        let batch = match rx.lock() {
            Ok(r) => r.recv(),
            Err(_) => break,
        };
        let Ok(batch) = batch else { break };
        let mut acc = (
            Vec::with_capacity(batch.len()),
            Vec::new(),
            Vec::with_capacity(batch.len()),
        );
        read_batch(batch, &mut acc, visit);
        if done_tx.send(acc).is_err() {
            break;
        }
    }
}

/// Collect the readers' batches (`total` files in all) into `out` and `results`.
/// With `cap`, memory stays bounded: only the newest `cap` can be shown.
fn gather<R>(done_rx: Receiver<Batch<R>>, cap: Option<usize>, total: usize, out: &mut Scan, results: &mut Vec<R>) {
    if cap.is_none() {
        out.memories.reserve_exact(total);
        results.reserve_exact(total);
    }
    for (ok, bad, res) in done_rx {
        out.total += ok.len();
        out.memories.extend(ok);
        out.problems.extend(bad);
        results.extend(res);
        if let Some(c) = cap
            && out.memories.len() > 2 * c + BATCH
        {
            keep_newest(&mut out.memories, results, c);
        }
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
