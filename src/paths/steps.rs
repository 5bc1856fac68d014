//! The resolution trace (`steps` in `path --json`): which source was asked for the
//! memory dir, in precedence order, and what it said (SPEC §2.2.1).

use serde::Serialize;

use super::Env;
use super::enabled::truthy;
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
    /// Local or project settings skipped: `CLAUDE_CODE_IGNORE_PERSISTED_TRUST` is
    /// truthy, so a print-mode run does not read them (2.1.332).
    SkippedIgnoreTrust,
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
            StepStatus::SkippedIgnoreTrust => "skipped_ignore_trust",
        }
    }
}

/// Where the memory dir came from (`source` in `path --json`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DirSource {
    DirFlag,
    EnvMemctlDir,
    /// The current directory is inside a memory dir (SPEC v3 §3.14).
    InsideDir,
    CoworkOverride,
    Setting(Source),
    Default,
}

impl DirSource {
    pub fn as_str(self) -> &'static str {
        match self {
            DirSource::DirFlag => "dir_flag",
            DirSource::EnvMemctlDir => "env_MEMCTL_DIR",
            DirSource::InsideDir => "inside_memory_dir",
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
    /// The trust lookup, when local or project settings had to be asked.
    pub trust: Option<Trust>,
}

/// `CLAUDE_CODE_IGNORE_PERSISTED_TRUST` is truthy: memctl models a print-mode run,
/// which skips `autoMemoryDirectory` in local and project settings (SPEC §2.2.1).
pub fn ignores_trust(env: &Env) -> bool {
    env.get("CLAUDE_CODE_IGNORE_PERSISTED_TRUST")
        .as_deref()
        .is_some_and(truthy)
}

/// The settings sources of step 2, in precedence order.
pub const SETTING_ORDER: [Source; 5] = [
    Source::Policy,
    Source::Flag,
    Source::Local,
    Source::Project,
    Source::User,
];

/// Steps 1 and 2 of the precedence. `trust` is asked only when local or project
/// settings define `autoMemoryDirectory` and no higher source decided; it only
/// names the record (2.1.332: Claude Code reads them without one).
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
        ignore_trust: ignores_trust(env),
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
    /// `CLAUDE_CODE_IGNORE_PERSISTED_TRUST`: local and project values are skipped.
    ignore_trust: bool,
    /// A defined value was met (valid or not): lower sources are not asked.
    decided: bool,
    decision: Decision,
    steps: &'a mut Vec<Step>,
    warnings: &'a mut Vec<String>,
}

impl Walk<'_> {
    /// Step 1: `CLAUDE_COWORK_MEMORY_PATH_OVERRIDE`, trimmed (a blank value counts as
    /// unset), never `~`-expanded.
    fn cowork(&mut self, env: &Env) {
        let name = StepName::CoworkOverride;
        let step = match env.get("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE") {
            None => Step::new(name, None, StepStatus::Unset),
            Some(raw) if crate::text::js_trim(&raw).is_empty() => Step::new(name, None, StepStatus::Unset)
                .value(Some(&raw))
                .detail("blank: counts as unset"),
            Some(raw) => match validate_memory_path(Some(crate::text::js_trim(&raw)), false, self.home) {
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
                    if matches!(s.source, Source::Project | Source::Local) {
                        self.workspace(s, raw, trust)
                    } else {
                        self.defined(s, raw, None)
                    }
                }
            },
        };
        // Local settings read at the canonical root name the legacy file they merge.
        let step = match (&s.legacy, &step.detail) {
            (Some(l), None) => step.detail(l.clone()),
            _ => step,
        };
        self.steps.push(step);
    }

    /// A local or project value (2.1.332): consulted without a trust record, unless
    /// `CLAUDE_CODE_IGNORE_PERSISTED_TRUST` makes this a print-mode run that skips it.
    fn workspace(&mut self, s: &Settings, raw: &str, trust: &mut dyn FnMut() -> Trust) -> Step {
        let name = StepName::of(s.source);
        if self.ignore_trust {
            return Step::new(name, Some(s.file.clone()), StepStatus::SkippedIgnoreTrust)
                .value(Some(raw))
                .detail("CLAUDE_CODE_IGNORE_PERSISTED_TRUST: a print-mode run skips it; an interactive session would use it");
        }
        let trust = trust();
        let record = trust.describe();
        let step = self.defined(s, raw, Some(&record));
        if s.source == Source::Project && step.status == StepStatus::Used {
            self.warnings.push(project_setting_warning(&s.file, raw));
        }
        self.warnings.extend(trust.warning());
        self.decision.trust = Some(trust);
        step
    }

    /// The first defined value: validated with `~` expansion; an invalid value masks
    /// lower sources. `record` names the trust record of a local or project value.
    fn defined(&mut self, s: &Settings, raw: &str, record: Option<&str>) -> Step {
        let name = StepName::of(s.source);
        let file = Some(s.file.clone());
        self.decided = true;
        match validate_memory_path(Some(raw), true, self.home) {
            Ok(dir) => {
                self.choose(dir, DirSource::Setting(s.source));
                let step = Step::new(name, file, StepStatus::Used).value(Some(raw));
                match (record, &s.legacy) {
                    (Some(r), Some(l)) => step.detail(format!("{r}; {l}")),
                    (Some(r), None) => step.detail(r),
                    (None, _) => step,
                }
            }
            Err(why) => {
                self.warnings.push(format!("autoMemoryDirectory `{raw}` in {} is invalid ({why}); Claude Code uses the default path and does not try lower settings", s.file));
                let record = record.map(|r| format!(" ({r})")).unwrap_or_default();
                Step::new(name, file, StepStatus::Rejected)
                    .value(Some(raw))
                    .detail(format!("{why}; masks lower sources{record}"))
            }
        }
    }
}

/// The warning when project settings decide the memory dir (SPEC §3.3 step 5, lint
/// ML401): a checked-in file moves every user's memory.
pub fn project_setting_warning(file: &str, raw: &str) -> String {
    format!(
        "{file} sets autoMemoryDirectory to {}: this checked-in file decides where every user's memory is written (Claude Code 2.1.332 honours it in print mode without trust and in every trusted interactive session; lint ML401); move it to .claude/settings.local.json (untracked) or the user settings",
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
            legacy: None,
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

    fn run_env(values: &[(Source, Option<&str>)], vars: &[(&str, &str)]) -> (Decision, Vec<Step>, Vec<String>, usize) {
        let settings: Vec<Settings> = values.iter().map(|(s, v)| source(*s, *v)).collect();
        let (mut steps, mut warnings, mut asked) = (Vec::new(), Vec::new(), 0);
        let mut ask = || {
            asked += 1;
            trust(false)
        };
        let env = Env {
            vars: vars.iter().map(|(k, v)| (k.to_string(), (*v).into())).collect(),
            ..Env::default()
        };
        let d = setting_steps(&env, &settings, Some("/h"), &mut ask, &mut steps, &mut warnings);
        (d, steps, warnings, asked)
    }

    #[test]
    fn precedence_is_policy_flag_local_project_user_without_trust() {
        use Source::*;
        let all = [
            (Policy, Some("/pol")),
            (Local, Some("/loc")),
            (Project, Some("/proj")),
            (User, Some("/usr")),
        ];
        for trusted in [true, false] {
            let chosen = |v: &[(Source, Option<&str>)]| run(v, trusted).0.chosen.map(|(d, _)| d);
            assert_eq!(chosen(&all).as_deref(), Some("/pol/"));
            assert_eq!(chosen(&all[1..]).as_deref(), Some("/loc/"));
            assert_eq!(chosen(&all[2..]).as_deref(), Some("/proj/"));
            assert_eq!(chosen(&all[3..]).as_deref(), Some("/usr/"));
        }
        let (d, steps, warnings, _) = run(&all[2..], false);
        assert_eq!(d.chosen.unwrap().1, DirSource::Setting(Project));
        let order: Vec<_> = steps.iter().map(|s| s.step.as_str()).collect();
        assert_eq!(
            order,
            ["cowork_override", "settings.project", "settings.user", "default"]
        );
        assert_eq!(status(&steps, StepName::User), StepStatus::Shadowed);
        assert!(
            steps[1]
                .detail
                .as_deref()
                .unwrap()
                .starts_with("no trust record in /h/.claude.json")
        );
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].contains("lint ML401"));
        let (_, steps, _, _) = run(&all[2..], true);
        assert_eq!(
            steps[1].detail.as_deref(),
            Some("projects[\"/p\"].hasTrustDialogAccepted in /h/.claude.json")
        );
    }

    #[test]
    fn ignore_persisted_trust_skips_local_and_project() {
        use Source::*;
        let vars = [("CLAUDE_CODE_IGNORE_PERSISTED_TRUST", "1")];
        let (d, steps, warnings, asked) = run_env(
            &[(Local, Some("/loc")), (Project, Some("/proj")), (User, Some("/usr"))],
            &vars,
        );
        assert_eq!(d.chosen.unwrap(), ("/usr/".to_string(), DirSource::Setting(User)));
        assert_eq!(asked, 0);
        assert_eq!(status(&steps, StepName::Local), StepStatus::SkippedIgnoreTrust);
        assert_eq!(status(&steps, StepName::Project), StepStatus::SkippedIgnoreTrust);
        assert!(warnings.is_empty());
        let (d, _, _, _) = run_env(&[(Project, Some("relative")), (User, Some("/usr"))], &vars);
        assert_eq!(d.chosen.unwrap().0, "/usr/", "a skipped invalid value masks nothing");
        let (d, _, _, _) = run_env(
            &[(Project, Some("/proj"))],
            &[("CLAUDE_CODE_IGNORE_PERSISTED_TRUST", "0")],
        );
        assert_eq!(d.chosen.unwrap().0, "/proj/");
    }

    #[test]
    fn the_cowork_override_is_trimmed_and_blank_is_unset() {
        let (d, steps, _, _) = run_env(&[], &[("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", "  /cw/cowork  ")]);
        assert_eq!(
            d.chosen.unwrap(),
            ("/cw/cowork/".to_string(), DirSource::CoworkOverride)
        );
        assert_eq!(steps[0].status, StepStatus::Used);
        let (d, steps, _, _) = run_env(
            &[(Source::User, Some("/usr"))],
            &[("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", " \t ")],
        );
        assert_eq!(d.chosen.unwrap().0, "/usr/");
        assert_eq!(steps[0].status, StepStatus::Unset);
        let (d, steps, _, _) = run_env(
            &[(Source::User, Some("/usr"))],
            &[("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", "~/x")],
        );
        assert_eq!(d.chosen.unwrap().0, "/usr/");
        assert_eq!(steps[0].status, StepStatus::Rejected);
    }

    #[test]
    fn trust_is_asked_only_when_a_workspace_value_could_decide() {
        use Source::*;
        let (d, steps, warnings, asked) = run(&[(Policy, Some("/pol")), (Project, Some("/proj"))], false);
        assert_eq!(asked, 0);
        assert!(d.trust.is_none() && warnings.is_empty());
        assert_eq!(status(&steps, StepName::Project), StepStatus::Shadowed);
        let (_, _, _, asked) = run(&[(Local, Some("/loc")), (Project, Some("/proj"))], false);
        assert_eq!(asked, 1);
        let (_, steps, _, asked) = run(&[(Project, None), (User, Some("/usr"))], false);
        assert_eq!(asked, 0);
        assert_eq!(status(&steps, StepName::Project), StepStatus::NotSet);
    }

    #[test]
    fn an_invalid_project_value_masks_the_user_value() {
        use Source::*;
        let (d, steps, warnings, _) = run(&[(Project, Some("relative")), (User, Some("/usr"))], false);
        assert!(d.chosen.is_none());
        assert_eq!(status(&steps, StepName::Project), StepStatus::Rejected);
        assert!(
            steps[1]
                .detail
                .as_deref()
                .unwrap()
                .contains("masks lower sources (no trust record")
        );
        assert_eq!(status(&steps, StepName::User), StepStatus::Shadowed);
        assert_eq!(warnings.len(), 1);
    }
}
