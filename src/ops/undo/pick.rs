//! The snapshots an undo reverts (SPEC §8.3): the newest that is not the
//! baseline, one named, or the last dream run; in this store or, failing that, in
//! a store set aside as unreadable (SPEC v3 §8.1).

use chrono::{DateTime, Utc};

use super::Target;
use crate::error::{Error, Kind};
use crate::history::aside::{self, Aside};
use crate::history::{ChangeKind, Reader, Snap, State, Store, changes};

/// The snapshots `target` names, newest first, and the set-aside store they
/// were found in. The set-aside stores are older than every snapshot of `store`.
pub(super) fn snapshots<'a>(
    store: &Store,
    log: &[Snap],
    asides: &'a [Aside],
    target: Target,
    now: DateTime<Utc>,
) -> Result<(Vec<Snap>, Option<&'a Aside>), Error> {
    match target {
        Target::Newest => newest(store, log, asides).map(|(s, a)| (vec![s], a)),
        Target::Named(spec) => named(store, log, asides, spec, now).map(|(s, a)| (vec![s], a)),
        Target::Dream => dream_run(log, asides),
    }
}

/// The first snapshot of a store, or one its trigger calls the baseline.
fn is_baseline(s: &Snap) -> bool {
    s.parent.is_none() || s.trigger() == "baseline"
}

/// The newest snapshot that changed some file's content: one that only touched
/// files (an mtime moved, the bytes the same) is not what a user means by "the
/// last change" (SPEC §8.3: conflicts are changed files).
fn newest<'a>(store: &Store, log: &[Snap], asides: &'a [Aside]) -> Result<(Snap, Option<&'a Aside>), Error> {
    let here = pick_newest(log.iter().filter(|s| !is_baseline(s)), &|p| store.state(p).ok(), store);
    let found = match here {
        Some(s) => Some((s.clone(), None)),
        None => asides.iter().find_map(|a| {
            let cands = a.snaps.iter().map(|(s, _)| s).filter(|s| !is_baseline(s));
            pick_newest(cands, &|p| a.get(p).map(|(_, st)| st.clone()), a).map(|s| (s.clone(), Some(a)))
        }),
    };
    found.ok_or_else(|| {
        Error::new(Kind::NotFound, "nothing to undo: history holds only the baseline")
            .hint("the baseline records what was there when history started; it is never undone")
    })
}

/// The snapshot `spec` names (an id, `@~N` or a time); never the baseline.
fn named<'a>(
    store: &Store,
    log: &[Snap],
    asides: &'a [Aside],
    spec: &str,
    now: DateTime<Utc>,
) -> Result<(Snap, Option<&'a Aside>), Error> {
    let (a, id) = aside::resolve(store, log, asides, spec, now)?;
    let s = match a {
        Some(a) => a.get(id).map(|(s, _)| s.clone()),
        None => log.iter().find(|s| s.id == id).cloned(),
    }
    .ok_or_else(|| Error::new(Kind::NotFound, format!("no snapshot {spec}")))?;
    if is_baseline(&s) {
        return Err(Error::new(
            Kind::InvalidInput,
            format!("{} is the baseline: undoing it would delete every memory", s.short()),
        )
        .hint("undo a later snapshot, or restore single memories with `memctl restore REF --at SNAP`"));
    }
    Ok((s, a))
}

/// The last dream run: the newest `dream` snapshot and the contiguous `dream`
/// snapshots before it.
fn dream_run<'a>(log: &[Snap], asides: &'a [Aside]) -> Result<(Vec<Snap>, Option<&'a Aside>), Error> {
    if let Some(start) = log.iter().position(|s| s.trigger() == "dream") {
        let run = log[start..]
            .iter()
            .take_while(|s| s.trigger() == "dream" && !is_baseline(s))
            .cloned()
            .collect();
        return Ok((run, None));
    }
    let (run, a) = asides.iter().find_map(|a| Some((aside_dream_run(a)?, a))).ok_or_else(|| {
        Error::new(Kind::NotFound, "no dream in history")
            .hint("a dream is recorded when the consolidation lock moved with the files; `memctl history` lists the snapshots")
    })?;
    Ok((run, Some(a)))
}

/// The newest dream snapshot of a set-aside store, and the dream snapshots
/// before it along its parents.
fn aside_dream_run(a: &Aside) -> Option<Vec<Snap>> {
    let (first, _) = a
        .snaps
        .iter()
        .find(|(s, _)| s.trigger() == "dream" && !is_baseline(s))?;
    let mut run = vec![first.clone()];
    while let Some((p, _)) = run[run.len() - 1].parent.and_then(|p| a.get(p)) {
        if p.trigger() != "dream" || is_baseline(p) || run.len() > a.snaps.len() {
            break;
        }
        run.push(p.clone());
    }
    Some(run)
}

/// The first of `cands` (newest first) that changed some file's content, else
/// the first one; `parent_state` gives a snapshot's parent's state.
fn pick_newest<'a>(
    mut cands: impl Iterator<Item = &'a Snap>,
    parent_state: &dyn Fn(gix::ObjectId) -> Option<State>,
    reader: &dyn Reader,
) -> Option<&'a Snap> {
    let only_touches = |s: &Snap| -> bool {
        let (Some(from), Ok(to)) = (s.parent.and_then(parent_state), reader.state(s.id)) else {
            return false;
        };
        let c = changes(&from, &to);
        !c.is_empty() && c.iter().all(|c| c.kind == ChangeKind::Touched)
    };
    let first = cands.next()?;
    if !only_touches(first) {
        return Some(first);
    }
    Some(cands.find(|s| !only_touches(s)).unwrap_or(first))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: u8) -> gix::ObjectId {
        gix::ObjectId::from_hex(format!("{n:040x}").as_bytes()).unwrap()
    }

    fn snap(n: u8, parent: Option<u8>, trigger: &str) -> Snap {
        Snap {
            id: id(n),
            parent: parent.map(id),
            time: i64::from(n),
            summary: String::new(),
            message: None,
            trailers: vec![("Trigger".into(), trigger.into())],
        }
    }

    #[test]
    fn the_baseline_is_the_first_snapshot_or_one_so_called() {
        assert!(is_baseline(&snap(1, None, "command")));
        assert!(is_baseline(&snap(2, Some(1), "baseline")));
        assert!(!is_baseline(&snap(2, Some(1), "dream")));
    }

    #[test]
    fn the_dream_run_is_the_newest_contiguous_dream_snapshots() {
        let log = vec![
            snap(6, Some(5), "command"),
            snap(5, Some(4), "dream"),
            snap(4, Some(3), "dream"),
            snap(3, Some(2), "command"),
            snap(2, Some(1), "dream"),
            snap(1, None, "baseline"),
        ];
        let (run, aside) = dream_run(&log, &[]).unwrap();
        assert!(aside.is_none());
        assert_eq!(run.iter().map(|s| s.id).collect::<Vec<_>>(), vec![id(5), id(4)]);
        let Err(none) = dream_run(&log[3..4], &[]) else {
            panic!("a log without a dream has no dream run");
        };
        assert_eq!(none.kind, Kind::NotFound);
    }
}
