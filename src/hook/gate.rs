//! The gate (SPEC §7.3 PreToolUse): before a `Write` or `Edit` into the memory
//! dir lands, compute the file as it would be after it and deny, with the reason
//! and the fix, a write that would make a memory unreadable to Claude Code
//! (ML101/ML102/ML104, or an invalid type, ML108), push index entries that load
//! now past the load cut, or put a secret (ML121) into a memory. Everything else
//! passes silently. The gate never fails a write for its own failure: it then
//! says nothing and appends the error to `hook.log` in memctl's state dir.

use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;

use chrono::{DateTime, Utc};

use super::payload::Payload;
use super::react::{fix_for, introduced};
use super::render::{HookOutput, Specific, one_line};
use super::{Call, Written, ends_with_md, locate, resolve};
use crate::fsread::ReadError;
use crate::index::load;
use crate::lint::{self, RuleId};
use crate::paths::Env;

/// `hook.log` is kept under this size.
const LOG_MAX: u64 = 1 << 20;

/// PreToolUse: `Some` only to deny.
pub fn pre_tool_use(p: &Payload, call: &Call) -> Option<HookOutput> {
    match judge(p, call) {
        Ok(deny) => deny,
        Err(e) => {
            log(call.env, call.now, &format!("gate: {e}"));
            None
        }
    }
}

/// The file as the write would leave it, and as it is now (`None`: new).
/// `Ok(None)`: the write cannot be judged (the tool will fail on its own).
fn after_write(p: &Payload, w: &Written) -> Result<Option<(Option<String>, String)>, String> {
    let Some(ti) = p.tool_input() else {
        return Ok(None);
    };
    let disk = match crate::fsread::read_regular(&w.path, lint::READ_CAP) {
        Ok(b) => Some(String::from_utf8_lossy(&b).into_owned()),
        Err(ReadError::NotFound) => None,
        Err(e) => return Err(format!("cannot read {}: {e}", w.path.display())),
    };
    let after = match p.tool() {
        "Write" => match ti.content.get() {
            Some(c) => c.to_string(),
            None => return Ok(None),
        },
        _ => {
            let (Some(old), Some(new)) = (ti.old_string.get(), ti.new_string.get()) else {
                return Ok(None);
            };
            match &disk {
                None if old.is_empty() => new.to_string(),
                None => return Ok(None),
                Some(_) if old.is_empty() => return Ok(None),
                Some(text) => {
                    let n = text.matches(old).count();
                    if n == 0 || (n > 1 && !ti.replace_all.0) {
                        // Not found, or ambiguous: the Edit fails on its own.
                        return Ok(None);
                    }
                    if ti.replace_all.0 {
                        text.replace(old, new)
                    } else {
                        text.replacen(old, new, 1)
                    }
                }
            }
        }
    };
    Ok(Some((disk, after)))
}

fn judge(p: &Payload, call: &Call) -> Result<Option<HookOutput>, String> {
    if !matches!(p.tool(), "Write" | "Edit") {
        return Ok(None);
    }
    let Some(file) = p.file_path() else {
        return Ok(None);
    };
    if !ends_with_md(file) {
        return Ok(None);
    }
    let res = resolve(p, call.env).map_err(|e| e.message.to_string())?;
    let base = p.cwd.get().map(PathBuf::from).unwrap_or_else(|| call.env.cwd.clone());
    let mounts: Vec<String> = crate::paths::stores::Stores::from_env(call.env)
        .team()
        .map(|s| s.mount.clone())
        .collect();
    let Some(w) = locate(std::path::Path::new(file), &base, res.memdir.main(), &mounts) else {
        return Ok(None);
    };
    let Some((before, after)) = after_write(p, &w)? else {
        return Ok(None);
    };
    let problems = if w.is_index() {
        index_problems(&w, before.as_deref().unwrap_or(""), &after)
    } else {
        topic_problems(&w, before.as_deref(), &after)
    };
    if problems.is_empty() {
        return Ok(None);
    }
    Ok(Some(deny(&w, &problems)))
}

/// The deny document: each problem with its fix, under about 2 000 characters.
fn deny(w: &Written, problems: &[String]) -> HookOutput {
    let mut reason = format!("memctl: this write to {} was not made:", w.label());
    let shown = problems.iter().take(5);
    for p in shown {
        reason.push_str("\n- ");
        reason.push_str(&one_line(p, 600));
    }
    if problems.len() > 5 {
        reason.push_str(&format!("\n- … and {} more (run memctl lint)", problems.len() - 5));
    }
    reason.push_str("\nWrite it again with this fixed.");
    HookOutput {
        hook_specific_output: Some(Specific {
            hook_event_name: "PreToolUse".to_string(),
            permission_decision: Some("deny"),
            permission_decision_reason: Some(reason),
            ..Specific::default()
        }),
        ..HookOutput::default()
    }
}

/// A topic file: unreadable frontmatter or an invalid type this write would
/// introduce (where the file had readable frontmatter or is new), and secrets.
fn topic_problems(w: &Written, before: Option<&str>, after: &str) -> Vec<String> {
    let old = before.map(|t| lint::text_findings(&w.path, &w.rel, t));
    let was_unreadable = old.as_ref().is_some_and(|o| {
        o.iter()
            .any(|f| matches!(f.id, RuleId::ML101 | RuleId::ML102 | RuleId::ML104))
    });
    let new = lint::text_findings(&w.path, &w.rel, after);
    let label = w.label();
    let mut out = Vec::new();
    for f in introduced(new, old) {
        let at = format!("{label}:{}", f.line);
        match f.id {
            RuleId::ML101 | RuleId::ML102 | RuleId::ML104 | RuleId::ML108 if !was_unreadable => {
                let what = if f.id == RuleId::ML108 {
                    "an invalid type"
                } else {
                    "frontmatter Claude Code cannot read (the memory would load untyped, with no description)"
                };
                out.push(if f.message.contains(": write `") {
                    format!("{at}: {what}: {}", f.message)
                } else {
                    format!("{at}: {what}: {} — fix: {}", f.message, fix_for(f.id))
                });
            }
            RuleId::ML121 => out.push(secret(&at, &f.message)),
            _ => {}
        }
    }
    out
}

fn secret(at: &str, message: &str) -> String {
    let kind = message.split(';').next().unwrap_or(message);
    format!(
        "{at}: a secret ({kind}) would be loaded into model context in every later session — fix: leave it out; save where it lives instead"
    )
}

/// The index: entries loaded now that the write would push past the load cut,
/// and secrets. A write that only removes lines passes.
fn index_problems(w: &Written, before: &str, after: &str) -> Vec<String> {
    let label = w.label();
    let mut old_lines: HashMap<&str, usize> = HashMap::new();
    for l in crate::index::lines(before) {
        *old_lines.entry(l).or_default() += 1;
    }
    let removes_only = crate::index::lines(after)
        .into_iter()
        .all(|l| match old_lines.get_mut(l) {
            Some(n) if *n > 0 => {
                *n -= 1;
                true
            }
            _ => false,
        });
    if removes_only {
        return Vec::new();
    }
    let mut out = Vec::new();
    let pushed = pushed_past_cut(before, after);
    if !pushed.is_empty() {
        let names: Vec<String> = pushed
            .iter()
            .take(5)
            .map(|(n, t)| format!("{label}:{n}: {}", one_line(t, 120)))
            .collect();
        let more = if pushed.len() > 5 {
            format!("; … and {} more", pushed.len() - 5)
        } else {
            String::new()
        };
        out.push(format!(
            "it would push {} that Claude Code loads now past the load cut, so {} would stop loading: {}{more} — fix: keep one short line per memory and move detail into topic files, or run `memctl index rebuild` first",
            if pushed.len() == 1 { "an entry" } else { "entries" },
            if pushed.len() == 1 { "it" } else { "they" },
            names.join("; ")
        ));
    }
    let old_secrets = lint::secret_findings(&w.path, before);
    for f in introduced(lint::secret_findings(&w.path, after), Some(old_secrets)) {
        out.push(secret(&format!("{label}:{}", f.line), &f.message));
    }
    out
}

/// The non-blank lines of `after` past its load cut that `before` loads, with
/// their line numbers in `after`.
fn pushed_past_cut(before: &str, after: &str) -> Vec<(usize, String)> {
    let new = load::load(after);
    if new.dropped.is_empty() {
        return Vec::new();
    }
    let old = load::load(before);
    let old_cut: std::collections::HashSet<usize> = old.dropped.iter().map(|d| d.line).collect();
    let mut loaded: HashMap<&str, usize> = HashMap::new();
    for (i, l) in crate::index::lines(before).into_iter().enumerate() {
        if !l.trim().is_empty() && !old_cut.contains(&(i + 1)) {
            *loaded.entry(l.trim()).or_default() += 1;
        }
    }
    let after_lines = crate::index::lines(after);
    let mut out = Vec::new();
    for d in &new.dropped {
        let Some(text) = after_lines.get(d.line.wrapping_sub(1)).map(|l| l.trim()) else {
            continue;
        };
        if text.is_empty() {
            continue;
        }
        if let Some(n) = loaded.get_mut(text).filter(|n| **n > 0) {
            *n -= 1;
            out.push((d.line, text.to_string()));
        }
    }
    out
}

/// Append `msg` to `hook.log` in memctl's state dir, keeping the file under
/// 1 MiB (its older half is dropped). Failures are ignored: this is the last
/// resort of a hook that must not fail.
pub fn log(env: &Env, now: DateTime<Utc>, msg: &str) {
    let Some(dir) = super::turn::state_dir(env) else {
        return;
    };
    if crate::store::create_dir(&dir).is_err() {
        return;
    }
    let path = dir.join("hook.log");
    let line = format!("{} {}\n", now.to_rfc3339(), one_line(msg, 2_000));
    let size = std::fs::symlink_metadata(&path).map(|m| m.len()).unwrap_or(0);
    if size + line.len() as u64 > LOG_MAX {
        let old = crate::fsread::read_regular(&path, LOG_MAX * 2).unwrap_or_default();
        let keep = &old[old.len() / 2..];
        let start = memchr::memchr(b'\n', keep).map_or(keep.len(), |i| i + 1);
        let mut text = keep[start..].to_vec();
        text.extend_from_slice(line.as_bytes());
        let tmp = path.with_extension(format!("log.tmp{}", std::process::id()));
        if std::fs::write(&tmp, &text).is_ok() {
            let _ = std::fs::rename(&tmp, &path);
        }
        return;
    }
    if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(&path) {
        let _ = f.write_all(line.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_entries_loaded_before_count_as_pushed() {
        let before: String = (1..=200).map(|i| format!("- [T{i}](t{i}.md) — hook {i}\n")).collect();
        // A new line at the end: itself past the cut, nothing loaded is pushed.
        let after = format!("{before}- [New](new.md) — new\n");
        assert!(pushed_past_cut(&before, &after).is_empty());
        // A new line at the top pushes the last loaded entry out.
        let after = format!("- [New](new.md) — new\n{before}");
        assert_eq!(
            pushed_past_cut(&before, &after),
            vec![(201, "- [T200](t200.md) — hook 200".to_string())]
        );
    }
}
