//! The undo's writes, under the lock, put back as a whole on any failure.

use super::{Action, Plan};
use crate::error::{Error, Kind};
use crate::ops::restore::{Undo, read_entry};
use crate::store::Writer;

/// Write every action under the lock. A file that changed since the plan is a
/// conflict and nothing more is written; on any failure what was written is put
/// back, so a failed undo leaves the dir as it found it.
pub fn apply(plan: &Plan, w: &mut Writer) -> Result<(), Error> {
    let mut undo = Undo::default();
    let failed = |e: Error| e.hint("nothing was undone: the files written so far were put back");
    for a in &plan.actions {
        let result = check(a).and_then(|()| undo.put(w, &a.path, a.put.as_ref()));
        if let Err(e) = result {
            undo.roll_back(w);
            return Err(failed(e));
        }
    }
    for (i, o) in plan.outside.iter().enumerate() {
        let put = o.put.as_ref().map(|(b, ns)| (b.as_slice(), *ns));
        let now = o.now.as_ref().map(|n| n.0.as_slice());
        if let Err(e) = w.restore_outside(&o.root, &o.path, now, put) {
            for done in plan.outside[..i].iter().rev() {
                let back = done.now.as_ref().map(|(b, ns)| (b.as_slice(), *ns));
                let put = done.put.as_ref().map(|p| p.0.as_slice());
                let _ = w.restore_outside(&done.root, &done.path, put, back);
            }
            undo.roll_back(w);
            return Err(failed(e));
        }
    }
    Ok(())
}

fn check(a: &Action) -> Result<(), Error> {
    let now = read_entry(&a.path)?.map(|e| (e.link, e.mtime_ns));
    if now == a.seen {
        return Ok(());
    }
    Err(Error::new(
        Kind::Conflict,
        format!("{} changed while memctl was undoing", a.rel),
    ))
}
