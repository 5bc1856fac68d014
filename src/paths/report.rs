//! What `path` shows besides the resolution (SPEC §3.3): the `path --json`
//! document, the server flags cached in the global config and the agent memory dirs.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::enabled::merged_bool;
use super::roots::absolutize;
use super::{DirSource, Enabled, Env, KeySource, LegacyDir, Resolution, Step, flags, sanitize, stores, with_sep};

/// The `path --json` document (SPEC §3.3).
#[derive(Serialize)]
pub struct PathReport<'a> {
    pub memory_dir: String,
    pub index_path: String,
    pub team_dir: String,
    pub transcripts_dir: Option<&'a str>,
    pub exists: bool,
    pub source: DirSource,
    pub project_root: Option<&'a str>,
    pub git_root: Option<&'a str>,
    pub canonical_root: Option<&'a str>,
    pub canonical_reason: Option<&'static str>,
    /// The project identity (SPEC §11.1); null without a project or when it has none.
    pub identity: Option<String>,
    pub config_home: Option<&'a str>,
    pub memory_base: Option<&'a str>,
    pub key: Option<&'a str>,
    pub hash_variant: Option<&'static str>,
    /// `sanitized` or `named` (SPEC §2.2.1 step 3); null without a project.
    pub key_source: Option<KeySource>,
    pub enabled: &'a Enabled,
    pub auto_dream: PathDream<'a>,
    pub steps: &'a [Step],
    pub warnings: &'a [String],
    /// (2.1.332) Memory dirs under the legacy Wyhash key (SPEC §2.2.7).
    pub legacy_dirs: &'a [LegacyDir],
    /// (2.1.332) Recall mode (SPEC §2.13).
    pub recall_mode: &'a stores::RecallMode,
    /// (2.1.332) The agent memory dirs that exist (SPEC §2.14).
    pub agent_memory_dirs: &'a [String],
    /// (2.1.332) The modelled Claude Code build (SPEC §1.5).
    pub claude_code_version: &'static str,
    /// Paths were printed with U+FFFD: the dir is not valid UTF-8 (SPEC §3.1).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub lossy: bool,
}

/// What `path` reads besides the resolution (SPEC §3.3 items 7, 9, 10): the server
/// flags cached in the global config and the agent memory dirs. Only `path` asks,
/// so every other command stays off the (possibly large) global config.
#[derive(Clone, Debug)]
pub struct ServerView {
    pub dream_flag: flags::Flag,
    pub dream: flags::DreamEnablement,
    pub recall_mode: stores::RecallMode,
    /// `CLAUDE_MEMORY_STORES` holds a team store: Claude Code treats `team/` as team
    /// memory (SPEC §2.13); otherwise it is a plain subdir.
    pub team_memory: bool,
    pub agent_memory_dirs: Vec<String>,
}

/// `auto_dream` of `path --json` (2.1.332: the flag and the setting appended).
#[derive(Serialize)]
pub struct PathDream<'a> {
    pub value: Option<bool>,
    pub lever: &'a str,
    pub flag: flags::OnyxPloverReport,
    pub setting: Option<bool>,
}

impl Resolution {
    /// The `path --json` document, with the project's identity (SPEC §11.1, computed
    /// by the caller: it reads the project's repository).
    pub fn report<'a>(&'a self, identity: Option<&crate::identity::Identity>, view: &'a ServerView) -> PathReport<'a> {
        let p = self.project.as_ref();
        PathReport {
            memory_dir: self.shown(),
            index_path: self.index_path().to_string_lossy().into_owned(),
            team_dir: with_sep(&self.team_dir()),
            transcripts_dir: self.transcripts_dir.as_deref(),
            exists: self.memdir.dir().is_dir(),
            source: self.source,
            project_root: p.map(|p| p.root.as_str()),
            git_root: p.and_then(|p| p.git_root.as_deref()),
            canonical_root: p.map(|p| p.canonical_root.as_str()),
            canonical_reason: p.map(|p| p.reason.code()),
            identity: identity.map(|i| i.id.clone()),
            config_home: self.config_home.as_deref(),
            memory_base: self.memory_base.as_deref(),
            key: self.key.as_ref().map(|k| k.key.as_str()),
            hash_variant: self.hash_variant,
            key_source: self.key_source,
            enabled: &self.enabled,
            auto_dream: PathDream {
                value: view.dream.value,
                lever: &view.dream.lever,
                flag: flags::OnyxPloverReport::of(&view.dream_flag),
                setting: self.auto_dream.value,
            },
            steps: &self.steps,
            warnings: &self.warnings,
            legacy_dirs: &self.legacy_dirs,
            recall_mode: &view.recall_mode,
            agent_memory_dirs: &view.agent_memory_dirs,
            claude_code_version: crate::claude::CLAUDE_CODE_VERSION,
            lossy: self.memdir.dir().to_str().is_none(),
        }
    }

    /// The server flags and agent memory dirs `path` shows (SPEC §3.3, §2.13, §2.14,
    /// §2.16).
    pub fn server_view(&self, env: &Env) -> ServerView {
        let file = self.global_config.as_deref();
        let dream_flag = flags::lookup(env, file, flags::ONYX_PLOVER);
        let setting = merged_bool(&self.settings, "autoDreamEnabled");
        let dream = flags::dream_enablement(&dream_flag, setting);
        let recall = flags::lookup(env, file, flags::MOTH_COPSE);
        let stores = stores::Stores::from_env(env);
        let recall_mode = stores::recall_mode(&stores, &recall);
        ServerView {
            dream_flag,
            dream,
            recall_mode,
            team_memory: stores.has_team(),
            agent_memory_dirs: self.agent_memory_dirs(env),
        }
    }

    /// The agent memory dirs that exist (SPEC §2.14): `<memory base>/agent-memory/*/`,
    /// `<project>/.claude/agent-memory/*/` and `<project>/.claude/agent-memory-local/*/`
    /// (under `CLAUDE_CODE_REMOTE_MEMORY_DIR`:
    /// `<it>/projects/<key of the canonical root>/agent-memory-local/*/`).
    fn agent_memory_dirs(&self, env: &Env) -> Vec<String> {
        let mut parents = Vec::new();
        if let Some(base) = &self.memory_base {
            parents.push(PathBuf::from(base).join("agent-memory"));
        }
        if let Some(p) = &self.project {
            parents.push(Path::new(&p.root).join(".claude/agent-memory"));
            match env.get("CLAUDE_CODE_REMOTE_MEMORY_DIR").filter(|v| !v.is_empty()) {
                Some(r) => parents.push(
                    Path::new(&absolutize(&r, &p.root))
                        .join("projects")
                        .join(sanitize::sanitize(&p.canonical_root).key)
                        .join("agent-memory-local"),
                ),
                None => parents.push(Path::new(&p.root).join(".claude/agent-memory-local")),
            }
        }
        let mut out = Vec::new();
        for parent in parents {
            let Ok(rd) = std::fs::read_dir(&parent) else { continue };
            let mut dirs: Vec<String> = rd
                .filter_map(Result::ok)
                .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                .map(|e| with_sep(&e.path()))
                .collect();
            dirs.sort();
            out.extend(dirs);
        }
        out
    }

    /// (2.1.332) List the model switch in `enabled.conditions` when the cached server
    /// flags name models (SPEC §2.3 row 7, §2.16): memctl cannot know the session's
    /// model, so it is never decisive. Reads the global config, so only `path` asks.
    pub fn add_model_switch_condition(&mut self, env: &Env) {
        if !self.enabled.value {
            return;
        }
        if let Some(models) = model_switch(env, self.global_config.as_deref()) {
            self.enabled.conditions.push(format!("model switch: {models}"));
        }
    }
}

/// The model patterns of the cached `tengu_sepia_cormorant` when the switch could be
/// on: `tengu_umber_petrel` not cached as off (SPEC §2.3 row 7).
fn model_switch(env: &Env, file: Option<&str>) -> Option<String> {
    let models = flags::lookup(env, file, flags::SEPIA_CORMORANT);
    let patterns: Vec<&str> = models.value()?.as_array()?.iter().filter_map(|v| v.as_str()).collect();
    if patterns.is_empty() {
        return None;
    }
    let switch = flags::lookup(env, file, flags::UMBER_PETREL);
    if matches!(switch.state, flags::FlagState::Cached { .. }) && !switch.is_on() {
        return None;
    }
    Some(patterns.join(", "))
}
