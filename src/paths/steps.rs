//! The resolution trace (`steps` in `path --json`): which source was asked for the
//! memory dir, in precedence order, and what it said (SPEC §2.2.1).

use serde::Serialize;

use super::Env;
use super::settings::{Settings, Source, State};
use super::validate::validate_memory_path;

/// A step of the precedence, named as in `path --json`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum StepName {
    #[serde(rename = "cowork_override")]
    CoworkOverride,
    #[serde(rename = "settings.policy")]
    Policy,
    #[serde(rename = "settings.flag")]
    Flag,
    #[serde(rename = "settings.local")]
    Local,
    #[serde(rename = "settings.user")]
    User,
    #[serde(rename = "settings.project")]
    Project,
    #[serde(rename = "default")]
    Default,
}

impl StepName {
    pub fn as_str(self) -> &'static str {
        match self {
            StepName::CoworkOverride => "cowork_override",
            StepName::Policy => "settings.policy",
            StepName::Flag => "settings.flag",
            StepName::Local => "settings.local",
            StepName::User => "settings.user",
            StepName::Project => "settings.project",
            StepName::Default => "default",
        }
    }

    /// The step that reads a settings source.
    pub fn of(source: Source) -> StepName {
        match source {
            Source::Policy => StepName::Policy,
            Source::Flag => StepName::Flag,
            Source::Local => StepName::Local,
            Source::User => StepName::User,
            Source::Project => StepName::Project,
        }
    }
}

/// What a step said.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StepStatus {
    Unset,
    Used,
    Rejected,
    NotVisible,
    NoFile,
    Ignored,
    NotSet,
    Shadowed,
    ProjectIgnored,
}

impl StepStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            StepStatus::Unset => "unset",
            StepStatus::Used => "used",
            StepStatus::Rejected => "rejected",
            StepStatus::NotVisible => "not_visible",
            StepStatus::NoFile => "no_file",
            StepStatus::Ignored => "ignored",
            StepStatus::NotSet => "not_set",
            StepStatus::Shadowed => "shadowed",
            StepStatus::ProjectIgnored => "project_ignored",
        }
    }
}

/// Where the memory dir came from (`source` in `path --json`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DirSource {
    DirFlag,
    EnvMemctlDir,
    CoworkOverride,
    Setting(Source),
    Default,
}

impl DirSource {
    pub fn as_str(self) -> &'static str {
        match self {
            DirSource::DirFlag => "dir_flag",
            DirSource::EnvMemctlDir => "env_MEMCTL_DIR",
            DirSource::CoworkOverride => "cowork_override",
            DirSource::Setting(Source::Policy) => "setting:policy",
            DirSource::Setting(Source::Flag) => "setting:flag",
            DirSource::Setting(Source::Local) => "setting:local",
            DirSource::Setting(Source::User) => "setting:user",
            DirSource::Setting(Source::Project) => "setting:project",
            DirSource::Default => "default",
        }
    }
}

impl std::fmt::Display for DirSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for DirSource {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// One row of the resolution trace (`steps` in `path --json`).
#[derive(Clone, Debug, Serialize)]
pub struct Step {
    pub step: StepName,
    pub file: Option<String>,
    pub status: StepStatus,
    pub value: Option<String>,
    pub detail: Option<String>,
}

/// Steps 1 and 2 of the precedence; returns the chosen dir and its source.
pub fn setting_steps(
    env: &Env,
    settings: &[Settings],
    home: Option<&str>,
    steps: &mut Vec<Step>,
    warnings: &mut Vec<String>,
) -> Option<(String, DirSource)> {
    let mut chosen: Option<(String, DirSource)> = None;
    let cowork = env.get("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE");
    steps.push(match &cowork {
        None => Step {
            step: StepName::CoworkOverride,
            file: None,
            status: StepStatus::Unset,
            value: None,
            detail: None,
        },
        Some(raw) => match validate_memory_path(Some(raw), false, home) {
            Ok(dir) => {
                chosen = Some((dir, DirSource::CoworkOverride));
                Step {
                    step: StepName::CoworkOverride,
                    file: None,
                    status: StepStatus::Used,
                    value: Some(raw.clone()),
                    detail: None,
                }
            }
            Err(why) => Step {
                step: StepName::CoworkOverride,
                file: None,
                status: StepStatus::Rejected,
                value: Some(raw.clone()),
                detail: Some(why),
            },
        },
    });
    let mut decided = chosen.is_some();
    for source in [Source::Policy, Source::Flag, Source::Local, Source::User] {
        let name = StepName::of(source);
        let Some(s) = settings.iter().find(|s| s.source == source) else {
            continue;
        };
        let file = Some(s.file.clone());
        let step = match &s.state {
            State::NotVisible => Step {
                step: name,
                file: None,
                status: StepStatus::NotVisible,
                value: None,
                detail: None,
            },
            State::NoFile => Step {
                step: name,
                file,
                status: StepStatus::NoFile,
                value: None,
                detail: None,
            },
            State::Ignored(why) => Step {
                step: name,
                file,
                status: StepStatus::Ignored,
                value: None,
                detail: Some(why.clone()),
            },
            State::Loaded(_) => match s.get("autoMemoryDirectory") {
                None => Step {
                    step: name,
                    file,
                    status: StepStatus::NotSet,
                    value: None,
                    detail: None,
                },
                Some((v, _)) if decided => Step {
                    step: name,
                    file,
                    status: StepStatus::Shadowed,
                    value: v.as_str().map(str::to_string),
                    detail: None,
                },
                Some((v, _)) => {
                    decided = true;
                    let raw = v.as_str().unwrap_or_default().to_string();
                    match validate_memory_path(Some(&raw), true, home) {
                        Ok(dir) => {
                            chosen = Some((dir, DirSource::Setting(source)));
                            Step {
                                step: name,
                                file,
                                status: StepStatus::Used,
                                value: Some(raw),
                                detail: None,
                            }
                        }
                        Err(why) => {
                            warnings.push(format!("autoMemoryDirectory `{raw}` in {} is invalid ({why}); Claude Code uses the default path and does not try lower settings", s.file));
                            Step {
                                step: name,
                                file,
                                status: StepStatus::Rejected,
                                value: Some(raw),
                                detail: Some(format!("{why}; masks lower sources")),
                            }
                        }
                    }
                }
            },
        };
        steps.push(step);
    }
    match chosen {
        Some((dir, source)) => {
            steps.push(Step {
                step: StepName::Default,
                file: None,
                status: StepStatus::Shadowed,
                value: None,
                detail: None,
            });
            Some((dir, source))
        }
        None => None,
    }
}
