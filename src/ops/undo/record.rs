//! The snapshot of what changed outside memctl since the last one, taken before
//! an undo (and by `diff --dream`).

use chrono::{DateTime, Utc};

use crate::error::{Error, Kind};
use crate::history::{Settings, Store};

/// Record what changed outside memctl since the last snapshot (a dream that just
/// ran, a hand edit), under the write lock, as every write's before-snapshot does:
/// then "the newest snapshot" and "the last dream run" include it. Only the store
/// is written. A failure refuses the undo (SPEC v3 §8.1): without that snapshot
/// the newest one may be an older command's, which undo would revert instead of
/// the last change (issue 29 point 6).
pub fn record_pending(
    main: &std::path::Path,
    history: &Settings,
    project: Option<&std::path::Path>,
    now: DateTime<Utc>,
) -> Result<Vec<String>, Error> {
    if !history.is_on() || !main.is_dir() {
        return Ok(Vec::new());
    }
    let _lock = crate::store::lock(main)?;
    snapshot_outside(main, history, project, now, "undo").map_err(|e| {
        Error::new(
            Kind::Io,
            format!("undo refused: it cannot record the changes made since the last snapshot: {e}"),
        )
        .hint("nothing was written; free space in the history dir (or fix its permissions) and run undo again")
    })
}

/// Snapshot the changes memctl did not make since the last snapshot (labelled
/// `dream` or `external` by SPEC §8.2), recorded by `command`; no store yet or
/// history off: nothing. `diff --dream` calls it so that a dream that just ran
/// is the last dream run it shows (issue 34 point 7).
pub fn record_outside(
    main: &std::path::Path,
    history: &Settings,
    project: Option<&std::path::Path>,
    now: DateTime<Utc>,
    command: &'static str,
) -> Result<Vec<String>, Error> {
    if !history.is_on() || !main.is_dir() {
        return Ok(Vec::new());
    }
    let _lock = crate::store::lock(main)?;
    snapshot_outside(main, history, project, now, command)
}

/// The snapshot of [`record_outside`], under the caller's write lock.
fn snapshot_outside(
    main: &std::path::Path,
    history: &Settings,
    project: Option<&std::path::Path>,
    now: DateTime<Utc>,
    command: &'static str,
) -> Result<Vec<String>, Error> {
    let Some(mut store) = Store::open(history, main, project, false, now)? else {
        return Ok(Vec::new());
    };
    let req = crate::history::Request {
        trigger: None,
        recorded_by: command,
        message: None,
        details: &[],
        claude: false,
        now,
    };
    store.snapshot(main, &req)?;
    Ok(std::mem::take(&mut store.warnings))
}
