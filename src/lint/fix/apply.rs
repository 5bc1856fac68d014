//! Writing a [`FixPlan`]: every write goes through a [`Sink`] — the one [`Writer`]
//! in a real run, a log in the tests.

use std::path::Path;

use crate::error::Error;
use crate::store::Writer;

use super::{Action, Fix, FixPlan};

/// Where `lint --fix` writes.
pub trait Sink {
    /// Replace (or create) the file at `path`, which read `old` when the plan was
    /// made, with `new`, atomically; with `keep_mtime` the file keeps its mtime.
    fn replace(&mut self, path: &Path, old: &str, new: &str, keep_mtime: bool) -> Result<(), Error>;
    /// Move the entry at `path` (`rel` in the memory dir) into the trash.
    fn trash(&mut self, path: &Path, rel: &str) -> Result<(), Error>;
}

/// Write the plan's changes in order; the first failed write ends it.
pub fn apply(plan: FixPlan, sink: &mut impl Sink) -> Result<Vec<Fix>, Error> {
    let mut out = Vec::with_capacity(plan.fixes.len());
    for f in plan.fixes {
        let done = match &f.action {
            Action::Replace {
                path,
                old,
                new,
                keep_mtime,
            } => sink.replace(path, old, new, *keep_mtime).map(|()| true),
            Action::Trash { path } => sink.trash(path, &f.rel).map(|()| true),
            Action::Skip(_) => Ok(false),
        };
        let applied = done.map_err(|e| already_applied(e, &out))?;
        out.push(f.outcome(applied, None));
    }
    Ok(out)
}

/// A failed write, saying which fixes are already on disk.
fn already_applied(e: Error, out: &[Fix]) -> Error {
    let done: Vec<String> = out
        .iter()
        .filter(|f| f.applied)
        .map(|f| format!("{} {}", f.id, f.rel))
        .collect();
    let said = if done.is_empty() {
        "no fix was applied".to_string()
    } else {
        format!("already applied: {}", done.join(", "))
    };
    let hint = match &e.hint {
        Some(h) => format!("{said}; {h}"),
        None => said,
    };
    e.hint(hint)
}

/// The memory dir through the one [`Writer`]: the plan was made under its lock, and
/// each replace still checks that the file holds what the plan read. A topic
/// file's rewrite is mechanical and keeps its mtime (SPEC §2.4.1).
impl Sink for Writer {
    fn replace(&mut self, path: &Path, old: &str, new: &str, keep_mtime: bool) -> Result<(), Error> {
        if keep_mtime {
            self.replace_expecting_keep_mtime(path, old.as_bytes(), new.as_bytes())
        } else {
            self.replace_expecting(path, old.as_bytes(), new.as_bytes())
        }
    }

    fn trash(&mut self, path: &Path, rel: &str) -> Result<(), Error> {
        if std::fs::symlink_metadata(path).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound) {
            return Ok(()); // a parallel fix moved it already
        }
        let trash = self.trash_dir()?;
        Writer::trash(self, &trash, rel, path).map(|_| ())
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
        fn replace(&mut self, path: &Path, _old: &str, content: &str, _keep_mtime: bool) -> Result<(), Error> {
            let content = content.as_bytes();
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
                        keep_mtime: true,
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
            warnings: Vec::new(),
        };
        let mut log = Log::default();
        let fixes = apply(plan, &mut log).unwrap();
        assert_eq!(log.0, ["replace /m/a.md y", "trash /m/.t.tmp .t.tmp"]);
        let applied: Vec<(bool, Option<&str>)> = fixes.iter().map(|f| (f.applied, f.skipped.as_deref())).collect();
        assert_eq!(applied, [(true, None), (false, Some("why")), (true, None)]);
    }

    /// Fails the second write, as a full disk would.
    struct FailSecond(usize);

    impl Sink for FailSecond {
        fn replace(&mut self, _path: &Path, _old: &str, _new: &str, _keep_mtime: bool) -> Result<(), Error> {
            self.0 += 1;
            if self.0 == 2 {
                return Err(
                    Error::new(crate::error::Kind::Io, "cannot write b.md: No space left on device")
                        .hint("check free space"),
                );
            }
            Ok(())
        }

        fn trash(&mut self, _path: &Path, _rel: &str) -> Result<(), Error> {
            Ok(())
        }
    }

    #[test]
    fn r13_a_fix_run_that_fails_half_way_names_the_fixes_already_applied() {
        let replace = |rel: &str| PlannedFix {
            id: RuleId::ML111,
            rel: rel.into(),
            action: Action::Replace {
                path: PathBuf::from(format!("/m/{rel}")),
                old: "x".into(),
                new: "y".into(),
                keep_mtime: true,
            },
            resolves: Vec::new(),
        };
        let plan = FixPlan {
            fixes: vec![replace("a.md"), replace("b.md"), replace("c.md")],
            warnings: Vec::new(),
        };
        let e = apply(plan, &mut FailSecond(0)).unwrap_err();
        assert_eq!(e.hint.as_deref(), Some("already applied: ML111 a.md; check free space"));
    }
}
