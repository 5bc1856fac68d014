//! Writing a [`FixPlan`]: every write goes through a [`Sink`], so the plan does not
//! care which store takes it ([`StoreSink`] is today's `store` functions).

use std::path::Path;

use chrono::{DateTime, Utc};

use crate::error::Error;
use crate::store;

use super::{Action, Fix, FixPlan};

/// Where `lint --fix` writes.
pub trait Sink {
    /// Replace (or create) the file at `path` with `content`, atomically.
    fn replace(&mut self, path: &Path, content: &[u8]) -> Result<(), Error>;
    /// Move the entry at `path` (`rel` in the memory dir) into the trash.
    fn trash(&mut self, path: &Path, rel: &str) -> Result<(), Error>;
}

/// Write the plan's changes in order; the first failed write ends it.
pub fn apply(plan: FixPlan, sink: &mut impl Sink) -> Result<Vec<Fix>, Error> {
    let mut out = Vec::with_capacity(plan.fixes.len());
    for f in plan.fixes {
        let applied = match &f.action {
            Action::Replace { path, new, .. } => sink.replace(path, new.as_bytes()).map(|()| true)?,
            Action::Trash { path } => sink.trash(path, &f.rel).map(|()| true)?,
            Action::Skip(_) => false,
        };
        out.push(f.outcome(applied, None));
    }
    Ok(out)
}

/// The memory dir through `store`: holds the write lock while it lives.
pub struct StoreSink<'a> {
    dir: &'a Path,
    now: DateTime<Utc>,
    _lock: store::WriteLock,
}

impl<'a> StoreSink<'a> {
    /// Take the write lock of `main_dir`, then refuse a live auto-dream unless
    /// `force` (SPEC §3.9.4); writes go into `dir`.
    pub fn open(dir: &'a Path, main_dir: &Path, now: DateTime<Utc>, force: bool) -> Result<StoreSink<'a>, Error> {
        let lock = store::lock(main_dir)?;
        store::ensure_no_dream(main_dir, now, force)?;
        Ok(StoreSink { dir, now, _lock: lock })
    }
}

impl Sink for StoreSink<'_> {
    fn replace(&mut self, path: &Path, content: &[u8]) -> Result<(), Error> {
        store::write_atomic(self.dir, path, content)
    }

    fn trash(&mut self, path: &Path, rel: &str) -> Result<(), Error> {
        // A trash dir of its own for each move, as memctl has always done.
        let trash = store::trash_dir(self.dir, self.now)?;
        store::move_entry(self.dir, path, &trash.join(rel))
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::super::PlannedFix;
    use super::*;
    use crate::lint::RuleId;

    /// Records the writes.
    #[derive(Default)]
    struct Log(Vec<String>);

    impl Sink for Log {
        fn replace(&mut self, path: &Path, content: &[u8]) -> Result<(), Error> {
            self.0.push(format!(
                "replace {} {}",
                path.display(),
                String::from_utf8_lossy(content)
            ));
            Ok(())
        }

        fn trash(&mut self, path: &Path, rel: &str) -> Result<(), Error> {
            self.0.push(format!("trash {} {rel}", path.display()));
            Ok(())
        }
    }

    #[test]
    fn writes_go_through_the_sink_in_plan_order() {
        let fix = |id, rel: &str, action| PlannedFix {
            id,
            rel: rel.into(),
            action,
            resolves: Vec::new(),
        };
        let plan = FixPlan {
            fixes: vec![
                fix(
                    RuleId::ML111,
                    "a.md",
                    Action::Replace {
                        path: PathBuf::from("/m/a.md"),
                        old: "x".into(),
                        new: "y".into(),
                    },
                ),
                fix(RuleId::ML203, "b.md", Action::Skip("why".into())),
                fix(
                    RuleId::ML132,
                    ".t.tmp",
                    Action::Trash {
                        path: PathBuf::from("/m/.t.tmp"),
                    },
                ),
            ],
        };
        let mut log = Log::default();
        let fixes = apply(plan, &mut log).unwrap();
        assert_eq!(log.0, ["replace /m/a.md y", "trash /m/.t.tmp .t.tmp"]);
        let applied: Vec<(bool, Option<&str>)> = fixes.iter().map(|f| (f.applied, f.skipped.as_deref())).collect();
        assert_eq!(applied, [(true, None), (false, Some("why")), (true, None)]);
    }
}
