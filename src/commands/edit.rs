//! `memctl edit REF` and `memctl edit --index` (SPEC §3.8).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;

use crate::cli::EditArgs;
use crate::context::Context;
use crate::editor;
use crate::error::{Error, Kind};
use crate::lint::{self, Finding, RuleId, Severity};
use crate::memory;
use crate::output::Output;
use crate::paths::Resolution;
use crate::scan;
use crate::store::{self, Writer};
use chrono::{DateTime, Utc};

use crate::index::check::checked;
use crate::index::report::{JSON_DROPPED, LIST_DROPPED, render_text};

/// Files above this size are not edited through memctl.
const MAX_EDIT_BYTES: u64 = 10 << 20;

/// What memctl remembers of the original to notice a concurrent change.
#[derive(PartialEq)]
struct Original {
    stamp: store::Stamp,
    bytes: Vec<u8>,
}

fn original(path: &Path) -> Original {
    Original {
        stamp: store::stamp(path),
        bytes: crate::fsread::read_regular(path, store::MAX_INDEX_BYTES).unwrap_or_default(),
    }
}

pub fn run(args: &EditArgs, ctx: &Context, out: &mut Output) -> Result<ExitCode> {
    if let Some(r) = &args.reference {
        memory::ensure_valid_name(r, false)?;
    }
    let res = ctx.resolve()?;
    let target = resolve_target(args, &res, ctx, out)?;
    ensure_editable_size(&target)?;
    // With --from the draft is given: no editor unless the user asks to edit again.
    let given = args.from.as_deref().map(read_given_draft).transpose()?;
    let editor = match given {
        Some(_) => None,
        None => Some(editor::resolve(&ctx.env, editor::on_terminal())?),
    };
    let before = original(&target);
    let base = target
        .file_name()
        .map_or_else(|| "MEMORY.md".into(), |n| n.to_string_lossy().into_owned());
    let draft_dir = editor::draft_dir("memctl-edit")?;
    let draft = draft_dir.join(&base);
    editor::write_draft(&draft, given.as_deref().unwrap_or(&before.bytes))?;
    let rel = target
        .strip_prefix(res.memdir.dir())
        .unwrap_or(&target)
        .to_string_lossy()
        .into_owned();
    let session = Session {
        args,
        ctx,
        editor,
        res: &res,
        target: &target,
        rel: &rel,
        draft: &draft,
        before: &before,
    };
    let outcome = session.edit_loop(out, given.is_none());
    if matches!(outcome, Ok((_, true))) {
        let _ = std::fs::remove_dir_all(&draft_dir);
        if let Some(from) = &args.from {
            remove_own_draft(from);
        }
    }
    outcome.map(|(code, _)| code)
}

/// `s` as one shell word: as is when it needs no quotes.
fn shell_word(s: &str) -> String {
    let plain = !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "._/-+@%:,=".contains(c));
    if plain {
        s.to_string()
    } else {
        crate::ops::forget::shell_quote(s)
    }
}

/// The draft `--from` names: a regular file of at most 10 MiB.
fn read_given_draft(path: &Path) -> Result<Vec<u8>, Error> {
    crate::fsread::read_regular(path, MAX_EDIT_BYTES).map_err(|e| {
        let kind = match e {
            crate::fsread::ReadError::NotFound => Kind::NotFound,
            crate::fsread::ReadError::Io(_) => Kind::Io,
            _ => Kind::InvalidInput,
        };
        let reason = match &e {
            crate::fsread::ReadError::Io(io) => crate::error::io_words(io),
            other => other.to_string().to_lowercase(),
        };
        Error::new(kind, format!("cannot read the draft {}: {reason}", path.display()))
            .hint("pass the path memctl printed when it kept the draft")
    })
}

/// After `--from` saved it, remove the draft when it lies in a draft dir memctl
/// made (`$TMPDIR/memctl-edit-*` holding only it); any other file stays.
fn remove_own_draft(draft: &Path) {
    let Some(dir) = draft.parent() else { return };
    let ours = dir.parent() == Some(std::env::temp_dir().as_path())
        && dir
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("memctl-edit-"));
    let alone = std::fs::read_dir(dir).is_ok_and(|d| d.count() == 1);
    if ours && alone {
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// Refuse files above [`MAX_EDIT_BYTES`].
fn ensure_editable_size(target: &Path) -> Result<(), Error> {
    let meta = std::fs::metadata(target).map_err(|e| {
        Error::new(
            Kind::Io,
            format!("cannot read {}: {}", target.display(), crate::error::io_words(&e)),
        )
        .hint("check the file's permissions")
    })?;
    if meta.len() > MAX_EDIT_BYTES {
        return Err(Error::new(
            Kind::InvalidInput,
            format!("file larger than 10 MiB: {}", target.display()),
        )
        .hint("edit it directly with your editor"));
    }
    Ok(())
}

/// One `edit`: the file, its draft and what it held when the draft was made.
struct Session<'a> {
    args: &'a EditArgs,
    ctx: &'a Context,
    /// `None` with `--from` until the user asks to edit again.
    editor: Option<editor::Editor>,
    res: &'a Resolution,
    target: &'a Path,
    rel: &'a str,
    draft: &'a Path,
    before: &'a Original,
}

impl Session<'_> {
    fn kept(&self, out: &mut Output, why: &str) {
        out.warn(format!("{why}; your edit is kept in {}", self.draft.display()));
        out.note(self.resume_hint());
    }

    /// The command that saves the kept draft.
    fn resume_hint(&self) -> String {
        let what = if self.args.index {
            "--index".to_string()
        } else {
            shell_word(self.args.reference.as_deref().unwrap_or(self.rel))
        };
        format!(
            "to save it later: memctl edit {what} --from {}",
            shell_word(&self.draft.to_string_lossy())
        )
    }

    /// Run the editor (unless the draft was given) until the draft is unchanged,
    /// saved, or kept; the exit code and whether the draft can go.
    fn edit_loop(&self, out: &mut Output, mut run_editor: bool) -> Result<(ExitCode, bool)> {
        let cwd = &self.ctx.env.cwd;
        let mut editor = self.editor.clone();
        loop {
            if run_editor {
                let ed = match editor.take() {
                    Some(e) => e,
                    None => editor::resolve(&self.ctx.env, editor::on_terminal()).inspect_err(|_| {
                        self.kept(out, "no editor to edit again");
                    })?,
                };
                if let Err(e) = editor::run(&ed, self.draft) {
                    self.kept(out, "the editor failed");
                    return Err(e.into());
                }
                editor = Some(ed);
            }
            run_editor = true;
            let after = std::fs::read(self.draft).map_err(|e| {
                self.kept(out, "cannot read the draft");
                Error::new(
                    Kind::Io,
                    format!(
                        "cannot read the draft {}: {}",
                        self.draft.display(),
                        crate::error::io_words(&e)
                    ),
                )
            })?;
            if after == self.before.bytes {
                out.note("no changes");
                let code = finish(
                    out,
                    self.args,
                    self.res,
                    self.target,
                    self.rel,
                    false,
                    None,
                    Vec::new(),
                    cwd,
                )?;
                return Ok((code, true));
            }
            let new_errors = blocking_errors(self.args.index, self.res, self.target, self.draft, &self.before.bytes);
            if !new_errors.is_empty() {
                match self.ask_about_errors(out, &new_errors)? {
                    0 => continue,
                    1 => {}
                    _ => {
                        let lost = new_errors.iter().all(|f| f.id == RuleId::ML103);
                        self.kept(
                            out,
                            if lost {
                                "not saved: the edit lost the frontmatter block"
                            } else {
                                "not saved: the edit has new errors"
                            },
                        );
                        let (t, r, d) = (self.target, self.rel, Some(self.draft));
                        finish(out, self.args, self.res, t, r, false, d, new_errors, cwd)?;
                        return Ok((ExitCode::from(1), false));
                    }
                }
            }
            save(self.ctx, self.args, self.res, self.target, self.draft, self.before, out)?;
            let code = finish(
                out,
                self.args,
                self.res,
                self.target,
                self.rel,
                true,
                None,
                new_errors,
                cwd,
            )?;
            return Ok((code, true));
        }
    }

    /// Print the new errors and ask what to do: 0 edit again, 1 save, 2 keep and quit
    /// (the answer without a terminal).
    fn ask_about_errors(&self, out: &mut Output, errors: &[Finding]) -> Result<usize, Error> {
        let n = errors.iter().filter(|f| f.severity == Severity::Error).count();
        let mut text = String::new();
        if errors.iter().any(|f| f.id == RuleId::ML103) {
            text.push_str(
                "memctl: the edit loses the frontmatter block: Claude Code would see no type and no description\n",
            );
        }
        if n > 0 {
            text.push_str(&format!(
                "memctl: the edit adds {n} error{}:\n",
                if n == 1 { "" } else { "s" }
            ));
        }
        for f in errors {
            text.push_str(&format!(
                "  {}:{}: {}[{}]: {}\n",
                self.rel,
                f.line,
                f.severity.as_str(),
                f.id,
                f.message
            ));
        }
        out.eprint(&text);
        if !out.interactive() {
            return Ok(2);
        }
        let items = ["edit again", "save anyway", "keep the draft and quit"].map(String::from);
        let draft = self.draft.display().to_string();
        let resume = self.resume_hint();
        crate::prompt::select_with("What now", &items, 0, &move || {
            eprintln!("memctl: your edit is kept in {draft}\n{resume}");
        })
    }
}

/// Which file to edit; `--index` creates a missing dir and index.
fn resolve_target(args: &EditArgs, res: &Resolution, ctx: &Context, out: &mut Output) -> Result<PathBuf, Error> {
    if args.index {
        let index = res.index_path();
        if std::fs::symlink_metadata(&index).is_err() {
            if res.explicit && !res.memdir.main().is_dir() {
                return Err(
                    Error::new(Kind::NotFound, format!("memory dir does not exist: {}", res.shown()))
                        .hint("check --dir or MEMCTL_DIR"),
                );
            }
            let ok = if args.yes {
                true
            } else if out.interactive() {
                crate::prompt::yes_no(&format!("Create {}?", index.display()), true)?
            } else {
                return Err(Error::new(
                    Kind::Usage,
                    format!(
                        "{} does not exist, and there is no terminal to confirm creating it",
                        index.display()
                    ),
                )
                .hint("pass --yes to create it"));
            };
            if !ok {
                return Err(Error::new(Kind::Usage, "MEMORY.md not created").hint("pass --yes to create it"));
            }
            let mut writer = Writer::open(&res.memdir, ctx.now, args.force, &ctx.recording("edit", res))?;
            match writer.create(&index, b"") {
                Ok(()) | Err(Error { kind: Kind::Exists, .. }) => {}
                Err(e) => return Err(e),
            }
            for w in writer.finish() {
                out.warn(w);
            }
        }
        store::ensure_contained(res.memdir.dir(), &index)?;
        return Ok(index);
    }
    let reference = args.reference.as_deref().unwrap_or_default();
    memory::ensure_valid_name(reference, false)?;
    if res.explicit && !res.memdir.main().is_dir() {
        return Err(
            Error::new(Kind::NotFound, format!("memory dir does not exist: {}", res.shown()))
                .hint("check --dir or MEMCTL_DIR"),
        );
    }
    let scan = scan::scan(res.memdir.dir());
    let m = scan.resolve(reference, &res.shown())?;
    store::ensure_contained(res.memdir.dir(), &m.path)?;
    Ok(m.path.clone())
}

/// Error findings of the draft that the original did not have (rule and message),
/// ignoring ML205/ML206 (reported after saving); and a lost frontmatter block: the
/// draft's ML103 (no frontmatter) when the original's block was readable (no
/// ML101–ML104), so Claude Code would lose the type and description (SPEC v3
/// §3.14, "`edit` that loses frontmatter").
fn blocking_errors(is_index: bool, res: &Resolution, target: &Path, draft: &Path, before: &[u8]) -> Vec<Finding> {
    let findings = |path: &Path| -> Vec<Finding> {
        if is_index {
            lint::index_findings(path, res.memdir.dir())
        } else {
            lint::file_findings(path)
        }
    };
    let blocks = |f: &Finding, readable_before: bool| {
        (f.severity == Severity::Error && f.id != RuleId::ML205 && f.id != RuleId::ML206)
            || (f.id == RuleId::ML103 && readable_before)
    };
    let old_dir = match editor::draft_dir("memctl-orig") {
        Ok(d) => d,
        Err(_) => return findings(draft).into_iter().filter(|f| blocks(f, false)).collect(),
    };
    let old = old_dir.join(target.file_name().unwrap_or_default());
    let _ = std::fs::write(&old, before);
    let had_all = findings(&old);
    let _ = std::fs::remove_dir_all(&old_dir);
    let readable_before = !is_index && !had_all.iter().any(|f| FRONTMATTER_UNREADABLE.contains(&f.id));
    let had: Vec<(String, String)> = had_all
        .into_iter()
        .map(|f| (f.id.to_string(), f.message.into_string()))
        .collect();
    findings(draft)
        .into_iter()
        .filter(|f| blocks(f, readable_before))
        .filter(|f| !had.contains(&(f.id.to_string(), f.message.to_string())))
        .collect()
}

/// The rules that say a file's frontmatter block is missing or unreadable.
const FRONTMATTER_UNREADABLE: [RuleId; 4] = [RuleId::ML101, RuleId::ML102, RuleId::ML103, RuleId::ML104];

/// Replace the original with the draft under the write lock, unless it changed
/// meanwhile (`conflict`) or a live dream holds the lock. Every failure says where
/// the draft is kept (busy, read-only filesystem, permission denied, conflict).
fn save(
    ctx: &Context,
    args: &EditArgs,
    res: &Resolution,
    target: &Path,
    draft: &Path,
    before: &Original,
    out: &mut Output,
) -> Result<(), Error> {
    let result = (|| {
        let mut writer = Writer::open(&res.memdir, ctx.now, args.force, &ctx.recording("edit", res))?;
        if original(target) != *before {
            return Err(Error::new(
                Kind::Conflict,
                format!("{} changed on disk while you were editing it", target.display()),
            )
            .hint(format!("compare it with your draft {} and edit again", draft.display())));
        }
        let content = std::fs::read(draft).map_err(|e| {
            Error::new(
                Kind::Io,
                format!(
                    "cannot read the draft {}: {}",
                    draft.display(),
                    crate::error::io_words(&e)
                ),
            )
        })?;
        let content = restamped(content, ctx.now);
        if writer.replace_if(target, &content, before.stamp)? {
            let mut warnings = writer.finish();
            // Issue 34 point 4: a token saved into a memory is named at once.
            let rel = target.strip_prefix(res.memdir.dir()).unwrap_or(target);
            warnings.extend(crate::ops::add::secret_warnings(
                target,
                &rel.to_string_lossy(),
                &String::from_utf8_lossy(&content),
            ));
            return Ok(warnings);
        }
        Err(Error::new(
            Kind::Conflict,
            format!("{} changed on disk while saving", target.display()),
        )
        .hint("edit again"))
    })();
    let result = result.map(|warnings| warnings.into_iter().for_each(|w| out.warn(w)));
    if result.is_err() {
        out.warn(format!("not saved; your edit is kept in {}", draft.display()));
        let what = if args.index {
            "--index".to_string()
        } else {
            shell_word(args.reference.as_deref().unwrap_or_default())
        };
        out.note(format!(
            "to save it later: memctl edit {what} --from {}",
            shell_word(&draft.to_string_lossy())
        ));
    }
    result
}

/// The draft with its frontmatter `modified` field set to the write time, when it
/// has one (SPEC §2.4.1; `frontmatter::restamp_modified` keeps every other byte). A
/// draft that is not UTF-8 is restamped when its frontmatter lies in the valid prefix.
fn restamped(content: Vec<u8>, now: DateTime<Utc>) -> Vec<u8> {
    let valid = match std::str::from_utf8(&content) {
        Ok(text) => text.len(),
        Err(e) => e.valid_up_to(),
    };
    let head = std::str::from_utf8(&content[..valid]).unwrap_or_default();
    match crate::frontmatter::restamp_modified(head, now) {
        Some(text) => {
            let mut bytes = text.into_bytes();
            bytes.extend_from_slice(&content[valid..]);
            bytes
        }
        None => content,
    }
}

#[allow(clippy::too_many_arguments)]
fn finish(
    out: &mut Output,
    args: &EditArgs,
    res: &Resolution,
    target: &Path,
    rel: &str,
    saved: bool,
    draft: Option<&Path>,
    mut findings: Vec<Finding>,
    cwd: &Path,
) -> Result<ExitCode> {
    for f in &mut findings {
        f.path = Some(std::sync::Arc::from(target));
    }
    let mut code = ExitCode::SUCCESS;
    let truncation = if args.index && saved {
        let text = crate::index::read_index_text(target);
        let label = res.memdir.index_label();
        let c = checked(label.into(), Some(target.to_path_buf()), &text);
        if c.load.truncated() {
            out.warn(format!(
                "Claude Code would truncate {label}: {}",
                c.load.reason.clone().unwrap_or_default()
            ));
            if args.strict {
                code = ExitCode::from(1);
            }
        }
        if !out.json {
            out.eprint(&render_text(&c.report(None, LIST_DROPPED)));
        }
        Some(c.report(None, JSON_DROPPED))
    } else {
        None
    };
    if out.json {
        /// The `edit --json` document (SPEC §3.8).
        #[derive(serde::Serialize)]
        struct Outcome<'a> {
            file: &'a str,
            path: String,
            saved: bool,
            draft_path: Option<String>,
            findings: Vec<lint::format::JsonFinding<'a>>,
            truncation: Option<crate::index::report::TruncationReport>,
        }
        let report = lint::format::JsonReport::new(&findings, 1, "", &[], cwd);
        let doc = Outcome {
            file: rel,
            path: target.to_string_lossy().into_owned(),
            saved,
            draft_path: draft.map(|d| d.to_string_lossy().into_owned()),
            findings: report.findings,
            truncation,
        };
        out.emit_json(serde_json::to_value(doc)?)?;
    } else if saved {
        out.print(&format!("saved {rel}\n"))?;
    }
    Ok(code)
}
