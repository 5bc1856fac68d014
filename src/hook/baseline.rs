//! The file before a write when the payload does not carry it (SPEC v3 §7.3
//! PostToolUse step 2): "compared with `tool_response.originalFile`, else the last
//! snapshot's copy". Read before the hook records its own snapshot of the write.

use std::path::Path;

use chrono::{DateTime, Utc};

use super::payload::Original;

/// The copy of `rel` (relative to the main memory dir `main`) in the latest
/// history snapshot: its text, `New` when that snapshot did not hold it, `None`
/// when there is no history to ask (off, no store yet, its lock busy for 200 ms).
pub fn last_copy(
    history: &crate::history::Settings,
    main: &Path,
    project: Option<&Path>,
    rel: &str,
    now: DateTime<Utc>,
) -> Option<Original> {
    let store = crate::history::Store::open_waiting(history, main, project, false, now, 200).ok()??;
    let state = store.state(store.head_id()?).ok()?;
    match state.files.get(rel.as_bytes()) {
        None => Some(Original::New),
        Some(f) if f.link => None,
        Some(f) => {
            let bytes = store.blob(f.oid).ok()?;
            Some(Original::Text(String::from_utf8_lossy(&bytes).into_owned()))
        }
    }
}
