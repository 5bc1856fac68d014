//! The write half of a merge: INTO's files and index, FROM's index, then the
//! moved copies removed from FROM.

use std::fs;

use super::read::read_text;
use super::{Action, MAX_FILE_BYTES, Plan};
use crate::error::{Error, Kind};
use crate::fsread;
use crate::memdir::INDEX;
use crate::store::Writer;

/// Carry out `plan` (made under both locks): copy the moving files into INTO with
/// their mtimes, write INTO's index, then FROM's, then remove the moved copies
/// from FROM. A failure before the removals undoes what was written; a memory that
/// changed in FROM meanwhile stays there (a warning names it).
pub fn apply(plan: &Plan, wf: &mut Writer, wi: &mut Writer) -> Result<Vec<String>, Error> {
    let mut warnings = Vec::new();
    // Both indexes were read when the plan was made: a read of a file another
    // program is rewriting in place (empty, cut, shorter than the copy history
    // kept) is trusted only once it has settled (issue 29 point 1); the plan's
    // lines come from it, so this is checked before the first write.
    if let Some(old) = &plan.source_index {
        wf.ensure_settled(&plan.from.main().join(INDEX), old.as_bytes())?;
    }
    wi.ensure_settled(&plan.into.main().join(INDEX), plan.target_index.as_bytes())?;
    for m in plan.moves.iter().filter(|m| m.action != Action::MergedIdentical) {
        if let Err(e) = wi.create_at(&plan.into.main().join(&m.to), &m.bytes, m.mtime_ns) {
            wi.roll_back();
            return Err(e);
        }
    }
    let dst_index = plan.into.main().join(INDEX);
    // Whether INTO had an index before this write: a rollback removes one it created.
    let had_index = fs::symlink_metadata(&dst_index).is_ok();
    if plan.changes_target_index()
        && let Err(e) = wi.replace_expecting(
            &dst_index,
            plan.target_index.as_bytes(),
            plan.new_target_index.as_bytes(),
        )
    {
        wi.roll_back();
        return Err(e);
    }
    let src_index = plan.from.main().join(INDEX);
    if plan.changes_source_index() {
        let done = match (&plan.source_index, &plan.new_source_index) {
            (Some(old), Some(new)) => wf.replace_expecting(&src_index, old.as_bytes(), new.as_bytes()),
            (Some(old), None) => {
                if read_text(&src_index).is_ok_and(|t| t == *old) {
                    wf.remove(&src_index)
                } else {
                    Err(Error::new(
                        Kind::Conflict,
                        format!("{} changed while memctl was writing it", src_index.display()),
                    )
                    .hint("another program changed it; run the command again"))
                }
            }
            _ => Ok(()),
        };
        if let Err(e) = done {
            if plan.changes_target_index() {
                if !had_index {
                    let _ = wi.remove(&dst_index);
                } else {
                    let _ = wi.replace(&dst_index, plan.target_index.as_bytes());
                }
            }
            wi.roll_back();
            return Err(e);
        }
    }
    for m in &plan.moves {
        let path = plan.from.main().join(&m.file);
        let same = fsread::read_regular(&path, MAX_FILE_BYTES).is_ok_and(|b| b == *m.bytes);
        if !same {
            warnings.push(format!(
                "{} changed in FROM during the merge: both copies are kept",
                m.file
            ));
            continue;
        }
        wf.remove(&path)?;
    }
    Ok(warnings)
}
