//! The resolution trace (`steps` in `path --json`): which source was asked for the
//! memory dir, in precedence order, and what it said (SPEC §2.2.1).

use serde::Serialize;

use super::Env;
use super::settings::{Settings, Source, State};
use super::trust::Trust;
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

impl Step {
    /// A step with no value and no detail.
    pub fn new(step: StepName, file: Option<String>, status: StepStatus) -> Step {
        Step {
            step,
            file,
            status,
            value: None,
            detail: None,
        }
    }

    pub fn value(mut self, value: Option<&str>) -> Step {
        self.value = value.map(str::to_string);
        self
    }

    pub fn detail(mut self, detail: impl Into<String>) -> Step {
        self.detail = Some(detail.into());
        self
    }
}

/// What steps 1 and 2 decided.
#[derive(Debug, Default)]
pub struct Decision {
    /// The chosen dir and its source; `None` goes on to the default (step 3).
    pub chosen: Option<(String, DirSource)>,
    /// The trust lookup, when project settings had to be asked.
    pub trust: Option<Trust>,
}

/// The settings sources of step 2, in precedence order.
pub const SETTING_ORDER: [Source; 5] = [
    Source::Policy,
    Source::Flag,
    Source::Local,
    Source::Project,
    Source::User,
];

/// Steps 1 and 2 of the precedence. `trust` is asked only when project settings
/// define `autoMemoryDirectory` and no higher source decided.
pub fn setting_steps(
    env: &Env,
    settings: &[Settings],
    home: Option<&str>,
    trust: &mut dyn FnMut() -> Trust,
    steps: &mut Vec<Step>,
    warnings: &mut Vec<String>,
) -> Decision {
    let mut walk = Walk {
        home,
        decided: false,
        decision: Decision::default(),
        steps,
        warnings,
    };
    walk.cowork(env);
    for source in SETTING_ORDER {
        if let Some(s) = settings.iter().find(|s| s.source == source) {
            walk.setting(s, trust);
        }
    }
    if walk.decision.chosen.is_some() {
        walk.steps
            .push(Step::new(StepName::Default, None, StepStatus::Shadowed));
    }
    walk.decision
}

/// The state of the walk through steps 1 and 2.
struct Walk<'a> {
    home: Option<&'a str>,
    /// A defined value was met (valid or not): lower sources are not asked.
    decided: bool,
    decision: Decision,
    steps: &'a mut Vec<Step>,
    warnings: &'a mut Vec<String>,
}

impl Walk<'_> {
    /// Step 1: `CLAUDE_COWORK_MEMORY_PATH_OVERRIDE`, never `~`-expanded.
    fn cowork(&mut self, env: &Env) {
        let name = StepName::CoworkOverride;
        let step = match env.get("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE") {
            None => Step::new(name, None, StepStatus::Unset),
            Some(raw) => match validate_memory_path(Some(&raw), false, self.home) {
                Ok(dir) => {
                    self.choose(dir, DirSource::CoworkOverride);
                    Step::new(name, None, StepStatus::Used).value(Some(&raw))
                }
                Err(why) => Step::new(name, None, StepStatus::Rejected)
                    .value(Some(&raw))
                    .detail(why),
            },
        };
        self.steps.push(step);
    }

    fn choose(&mut self, dir: String, source: DirSource) {
        self.decided = true;
        self.decision.chosen = Some((dir, source));
    }

    /// Step 2 for one settings source.
    fn setting(&mut self, s: &Settings, trust: &mut dyn FnMut() -> Trust) {
        let name = StepName::of(s.source);
        let file = Some(s.file.clone());
        let step = match &s.state {
            State::NotVisible => Step::new(name, None, StepStatus::NotVisible),
            State::NoFile => Step::new(name, file, StepStatus::NoFile),
            State::Ignored(why) => Step::new(name, file, StepStatus::Ignored).detail(why.clone()),
            State::Loaded(_) => match s.get("autoMemoryDirectory") {
                None => Step::new(name, file, StepStatus::NotSet),
                Some((v, _)) if self.decided => Step::new(name, file, StepStatus::Shadowed).value(v.as_str()),
                Some((v, _)) => {
                    let raw = v.as_str().unwrap_or_default();
                    if s.source == Source::Project {
                        self.project(s, raw, trust())
                    } else {
                        self.defined(s, raw, None)
                    }
                }
            },
        };
        self.steps.push(step);
    }

    /// A project value: it decides only in a trusted workspace.
    fn project(&mut self, s: &Settings, raw: &str, trust: Trust) -> Step {
        let record = trust.describe();
        let step = if trust.trusted() {
            self.defined(s, raw, Some(&record))
        } else {
            self.warnings.push(project_setting_warning(&s.file, raw));
            Step::new(StepName::Project, Some(s.file.clone()), StepStatus::ProjectIgnored)
                .value(Some(raw))
                .detail(record)
        };
        self.warnings.extend(trust.warning());
        self.decision.trust = Some(trust);
        step
    }

    /// The first defined value: validated with `~` expansion; an invalid value masks
    /// lower sources. `record` names the trust record of a project value.
    fn defined(&mut self, s: &Settings, raw: &str, record: Option<&str>) -> Step {
        let name = StepName::of(s.source);
        let file = Some(s.file.clone());
        self.decided = true;
        match validate_memory_path(Some(raw), true, self.home) {
            Ok(dir) => {
                self.choose(dir, DirSource::Setting(s.source));
                let step = Step::new(name, file, StepStatus::Used).value(Some(raw));
                match record {
                    Some(r) => step.detail(r),
                    None => step,
                }
            }
            Err(why) => {
                self.warnings.push(format!("autoMemoryDirectory `{raw}` in {} is invalid ({why}); Claude Code uses the default path and does not try lower settings", s.file));
                let trusted = record.map(|r| format!(" (trusted: {r})")).unwrap_or_default();
                Step::new(name, file, StepStatus::Rejected)
                    .value(Some(raw))
                    .detail(format!("{why}; masks lower sources{trusted}"))
            }
        }
    }
}

/// The warning for `autoMemoryDirectory` in the project settings of an untrusted
/// workspace (SPEC §3.3 step 5).
pub fn project_setting_warning(file: &str, raw: &str) -> String {
    format!(
        "{file} sets autoMemoryDirectory to {}, but Claude Code ignores it in project settings (checked-in settings cannot move memory); set it in .claude/settings.local.json (kept untracked by git: list it in .gitignore) or the user settings instead",
        serde_json::Value::String(raw.to_string())
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::paths::trust::Lookup;
    use serde_json::Value;

    fn source(source: Source, dir: Option<&str>) -> Settings {
        let file = format!("/{}.json", source.name());
        let keys = dir
            .map(|d| vec![("autoMemoryDirectory".to_string(), Value::String(d.into()), file.clone())])
            .unwrap_or_default();
        Settings {
            source,
            file,
            state: State::Loaded(keys),
        }
    }

    fn trust(trusted: bool) -> Trust {
        Trust {
            file: "/h/.claude.json".into(),
            lookup: if trusted {
                Lookup::Trusted("/p".into())
            } else {
                Lookup::NoRecord
            },
        }
    }

    /// Run steps 1–2 over `(source, value)` pairs; returns the decision, the steps,
    /// the warnings and how often trust was asked.
    fn run(values: &[(Source, Option<&str>)], trusted: bool) -> (Decision, Vec<Step>, Vec<String>, usize) {
        let settings: Vec<Settings> = values.iter().map(|(s, v)| source(*s, *v)).collect();
        let (mut steps, mut warnings, mut asked) = (Vec::new(), Vec::new(), 0);
        let mut ask = || {
            asked += 1;
            trust(trusted)
        };
        let d = setting_steps(
            &Env::default(),
            &settings,
            Some("/h"),
            &mut ask,
            &mut steps,
            &mut warnings,
        );
        (d, steps, warnings, asked)
    }

    fn status(steps: &[Step], name: StepName) -> StepStatus {
        steps.iter().find(|s| s.step == name).unwrap().status
    }

    #[test]
    fn precedence_is_policy_flag_local_trusted_project_user() {
        use Source::*;
        let all = [
            (Policy, Some("/pol")),
            (Local, Some("/loc")),
            (Project, Some("/proj")),
            (User, Some("/usr")),
        ];
        let chosen = |v: &[(Source, Option<&str>)], t| run(v, t).0.chosen.map(|(d, _)| d);
        assert_eq!(chosen(&all, true).as_deref(), Some("/pol/"));
        assert_eq!(chosen(&all[1..], true).as_deref(), Some("/loc/"));
        assert_eq!(chosen(&all[2..], true).as_deref(), Some("/proj/"));
        assert_eq!(chosen(&all[2..], false).as_deref(), Some("/usr/"));
        assert_eq!(chosen(&all[3..], true).as_deref(), Some("/usr/"));
        let (d, steps, _, _) = run(&all[2..], true);
        assert_eq!(d.chosen.unwrap().1, DirSource::Setting(Project));
        let order: Vec<_> = steps.iter().map(|s| s.step.as_str()).collect();
        assert_eq!(
            order,
            ["cowork_override", "settings.project", "settings.user", "default"]
        );
        assert_eq!(status(&steps, StepName::User), StepStatus::Shadowed);
        assert_eq!(
            steps[1].detail.as_deref(),
            Some("projects[\"/p\"].hasTrustDialogAccepted in /h/.claude.json")
        );
    }

    #[test]
    fn an_untrusted_project_is_skipped_with_the_warning() {
        use Source::*;
        let (d, steps, warnings, asked) = run(&[(Project, Some("/proj")), (User, Some("/usr"))], false);
        assert_eq!(d.chosen.unwrap(), ("/usr/".to_string(), DirSource::Setting(User)));
        assert_eq!(asked, 1);
        assert_eq!(status(&steps, StepName::Project), StepStatus::ProjectIgnored);
        assert!(steps[1].detail.as_deref().unwrap().starts_with("untrusted: "));
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].contains("ignores it in project settings"));
        assert!(!d.trust.unwrap().trusted());
    }

    #[test]
    fn trust_is_asked_only_when_the_project_value_could_decide() {
        use Source::*;
        let (d, steps, warnings, asked) = run(&[(Local, Some("/loc")), (Project, Some("/proj"))], false);
        assert_eq!(asked, 0);
        assert!(d.trust.is_none() && warnings.is_empty());
        assert_eq!(status(&steps, StepName::Project), StepStatus::Shadowed);
        let (_, steps, _, asked) = run(&[(Project, None), (User, Some("/usr"))], false);
        assert_eq!(asked, 0);
        assert_eq!(status(&steps, StepName::Project), StepStatus::NotSet);
    }

    #[test]
    fn an_invalid_trusted_project_value_masks_the_user_value() {
        use Source::*;
        let (d, steps, warnings, _) = run(&[(Project, Some("relative")), (User, Some("/usr"))], true);
        assert!(d.chosen.is_none());
        assert_eq!(status(&steps, StepName::Project), StepStatus::Rejected);
        assert!(
            steps[1]
                .detail
                .as_deref()
                .unwrap()
                .contains("masks lower sources (trusted: projects[")
        );
        assert_eq!(status(&steps, StepName::User), StepStatus::Shadowed);
        assert_eq!(warnings.len(), 1);
    }
}
