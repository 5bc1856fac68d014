//! Rules on the dream lock and the settings (ML301, ML302, ML401–ML403), and the
//! CLAUDE.md text ML119 compares with.

use std::path::Path;

use crate::fsread::{self, ReadError};
use crate::lock::{self, State};
use crate::paths::Resolution;
use crate::paths::settings::Source;
use crate::paths::validate::validate_memory_path;

use super::{Finding, Input, RuleId};

/// The project's CLAUDE.md files, whitespace collapsed and indexed for ML119; `None` (with a note) without
/// a project.
pub fn claude_md_lines(
    res: &crate::paths::Resolution,
    notes: &mut Vec<String>,
) -> Option<super::claude_text::ClaudeText> {
    let Some(p) = &res.project else {
        notes.push("ML119 skipped: no project (pass --project with --dir to compare with its CLAUDE.md)".into());
        return None;
    };
    let files = [
        Path::new(&p.canonical_root).join("CLAUDE.md"),
        Path::new(&p.canonical_root).join(".claude/CLAUDE.md"),
        Path::new(&p.root).join("CLAUDE.md"),
    ];
    let mut out = Vec::new();
    for (i, f) in files.iter().enumerate() {
        if files[..i].contains(f) {
            continue;
        }
        // Regular files only, bounded: a FIFO or a `/dev/zero` link here would hang.
        match fsread::read_regular(f, fsread::MAX_CLAUDE_MD_BYTES) {
            Ok(b) => out.push(
                String::from_utf8_lossy(&b)
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" "),
            ),
            Err(ReadError::NotFound) => {}
            Err(e) => notes.push(format!(
                "ML119 does not compare with {}: cannot be read ({e})",
                f.display()
            )),
        }
    }
    Some(super::claude_text::ClaudeText::new(out))
}

fn json_key_line(file: &str, key: &str) -> usize {
    fsread::read_regular(Path::new(file), fsread::MAX_SETTINGS_BYTES)
        .ok()
        .and_then(|b| {
            String::from_utf8_lossy(&b)
                .split('\n')
                .position(|l| l.contains(&format!("\"{key}\"")))
        })
        .map_or(1, |i| i + 1)
}

/// The lock and settings rules; the settings rules need a project (else a note).
pub fn check(input: &Input, out: &mut Vec<Finding>, notes: &mut Vec<String>) {
    lock_rules(input, out);
    recall_mode(input, out);
    let res = input.res;
    if res.project.is_none() {
        notes.push("ML401–ML403 skipped: no project (pass --project with --dir to check the settings)".into());
        return;
    }
    project_setting(res, out);
    masked_setting(res, out);
    memory_disabled(res, out);
}

/// ML301 (a lock dated in the future) and ML302 (a rolled-back consolidation).
fn lock_rules(input: &Input, out: &mut Vec<Finding>) {
    let info = lock::inspect(input.res.memdir.main(), input.now_ms);
    if let Some(m) = info.mtime_ms.filter(|m| *m > input.now_ms) {
        out.push(Finding::file(RuleId::ML301, &info.path, format!("lock mtime {} is in the future; auto-dream waits until it is 24 h in the past: touch the file or delete it", crate::text::iso_ms(m))));
    }
    if info.state == State::RolledBack {
        out.push(Finding::file(
            RuleId::ML302,
            &info.path,
            "empty lock file: the last consolidation failed or was killed and was rolled back",
        ));
    }
}

/// ML401: the checked-in project settings decide the memory dir.
fn project_setting(res: &Resolution, out: &mut Vec<Finding>) {
    // (2.1.332) Project settings decide the memory dir: honoured without trust. Also
    // under --dir/MEMCTL_DIR, where memctl's own choice shadows the steps: the project
    // value decides for Claude Code when no policy or local value comes first.
    let decides = |s: &crate::paths::settings::Settings| {
        let higher = [Source::Policy, Source::Local].iter().any(|src| {
            res.settings
                .iter()
                .any(|o| o.source == *src && o.get("autoMemoryDirectory").is_some())
        });
        let skipped = res.steps.iter().any(|st| {
            st.step == crate::paths::StepName::Project && st.status == crate::paths::StepStatus::SkippedIgnoreTrust
        });
        res.source == crate::paths::DirSource::Setting(Source::Project)
            || (res.explicit && !higher && !skipped && s.get("autoMemoryDirectory").is_some())
    };
    if let Some(s) = res.settings.iter().find(|s| s.source == Source::Project)
        && let Some((v, _)) = s.get("autoMemoryDirectory")
        && decides(s)
    {
        out.push(Finding::new(
            RuleId::ML401,
            Path::new(&s.file),
            json_key_line(&s.file, "autoMemoryDirectory"),
            1,
            format!("autoMemoryDirectory {v} in this checked-in file decides where every user's memory is written (Claude Code {} honours it in print mode without trust and in every trusted interactive session); move it to .claude/settings.local.json (untracked) or the user settings", crate::claude::CLAUDE_CODE_VERSION),
        ));
    }
}

/// ML402: the first `autoMemoryDirectory` is invalid and masks a valid lower one.
fn masked_setting(res: &Resolution, out: &mut Vec<Finding>) {
    let home = res.home.clone();
    // Local and project values skipped under CLAUDE_CODE_IGNORE_PERSISTED_TRUST mask nothing.
    let skipped = |src: &Source| {
        res.steps.iter().any(|st| {
            st.step == crate::paths::StepName::of(*src) && st.status == crate::paths::StepStatus::SkippedIgnoreTrust
        })
    };
    let defined: Vec<(&str, String)> = [Source::Policy, Source::Local, Source::Project, Source::User]
        .iter()
        .filter(|src| !skipped(src))
        .filter_map(|src| res.settings.iter().find(|s| s.source == *src))
        .filter_map(|s| {
            s.get("autoMemoryDirectory")
                .and_then(|(v, _)| v.as_str().map(|v| (s.file.as_str(), v.to_string())))
        })
        .collect();
    if let Some((file, first)) = defined.first()
        && let Err(why) = validate_memory_path(Some(first), true, home.as_deref())
        && let Some((lower_file, lower)) = defined
            .iter()
            .skip(1)
            .find(|(_, v)| validate_memory_path(Some(v), true, home.as_deref()).is_ok())
    {
        out.push(Finding::new(
            RuleId::ML402,
            Path::new(file),
            json_key_line(file, "autoMemoryDirectory"),
            1,
            format!("autoMemoryDirectory `{first}` is invalid ({why}) and masks `{lower}` in {lower_file}; Claude Code uses the default path"),
        ));
    }
}

/// ML403: auto memory is disabled, anchored at the setting that disables it.
fn memory_disabled(res: &Resolution, out: &mut Vec<Finding>) {
    if res.enabled.value {
        return;
    }
    let msg = format!(
        "auto memory is disabled ({}): Claude Code loads and saves nothing",
        res.enabled.lever
    );
    out.push(match &res.enabled.file {
        Some(f) => Finding::new(
            RuleId::ML403,
            Path::new(f),
            json_key_line(
                f,
                if res.enabled.lever.starts_with("permissions.") {
                    "blockReadsOutsideWorkingDirectories"
                } else {
                    "autoMemoryEnabled"
                },
            ),
            1,
            msg,
        ),
        None => Finding {
            id: RuleId::ML403,
            severity: super::Severity::Info,
            path: None,
            line: 1,
            col: 1,
            message: msg.into_boxed_str(),
        },
    });
}

/// ML404 (SPEC §2.13): recall mode is on, by `CLAUDE_MEMORY_STORES` in memctl's
/// environment or the cached server flag `tengu_moth_copse` (§2.16).
fn recall_mode(input: &Input, out: &mut Vec<Finding>) {
    use crate::paths::{flags, stores};
    let env = match crate::paths::Env::from_process() {
        Ok(e) => e,
        Err(_) => return,
    };
    let configured = stores::Stores::from_env(&env);
    let flag = flags::lookup(&env, input.res.global_config.as_deref(), flags::MOTH_COPSE);
    if let Some(lever) = stores::recall_mode(&configured, &flag).lever {
        out.push(Finding {
            id: RuleId::ML404,
            severity: super::Severity::Info,
            path: None,
            line: 1,
            col: 1,
            message: format!(
                "recall mode is on ({lever}): Claude Code injects no MEMORY.md and picks up to 5 memories per prompt from their names and descriptions"
            )
            .into_boxed_str(),
        });
    }
}
