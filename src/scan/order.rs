//! Claude Code's manifest order (newest first; ties by relative path in byte
//! order, memctl's tie rule) and the top-k cut that keeps only the newest `cap`
//! memories, each with its visitor result alongside.

use super::Kept;

/// Sort `memories` into Claude Code's order, moving `extra[i]` (one per memory)
/// along with `memories[i]`.
pub(super) fn sort_claude_order_with<K: Kept, R>(memories: &mut [K], extra: &mut [R]) {
    debug_assert_eq!(memories.len(), extra.len());
    // Sort keys, then apply the permutation in place, cycle by cycle: each (large)
    // memory moves a few times instead of being shuffled by the sort or copied.
    let mut order: Vec<(f64, usize)> = memories.iter().enumerate().map(|(i, m)| (m.mtime_ms(), i)).collect();
    order.sort_by(|(ta, a), (tb, b)| {
        tb.total_cmp(ta)
            .then_with(|| memories[*a].rel().as_bytes().cmp(memories[*b].rel().as_bytes()))
    });
    let mut done = vec![false; order.len()];
    for start in 0..order.len() {
        let mut cur = start;
        while !done[cur] {
            done[cur] = true;
            let next = order[cur].1;
            if next == start {
                break;
            }
            memories.swap(cur, next);
            extra.swap(cur, next);
            cur = next;
        }
    }
}

/// Sort, then keep the newest `cap` memories and their extras.
pub(super) fn keep_newest<K: Kept, R>(memories: &mut Vec<K>, extra: &mut Vec<R>, cap: usize) {
    sort_claude_order_with(memories, extra);
    memories.truncate(cap);
    extra.truncate(cap);
}
