//! memctl's Claude Code plugin (issue 36 point 1, SPEC v3 §13): `hook status`
//! recognises the plugin as the real client records it, and `hook install` will not
//! add the same hooks a second time. The client's records come from
//! `tests/golden/claude-code-2.1.332/plugin.jsonl` (`scripts/cc-oracle plugin`).

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::support::Env;

const EVENTS: [&str; 6] = [
    "PreToolUse",
    "PostToolUse",
    "Stop",
    "SubagentStop",
    "SessionStart",
    "SessionEnd",
];

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A row of the recorded plugin data.
fn golden(case: &str) -> Value {
    let text = fs::read_to_string(repo().join("tests/golden/claude-code-2.1.332/plugin.jsonl")).unwrap();
    text.lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|r| r["case"] == case)
        .unwrap_or_else(|| panic!("no {case} row"))
}

/// `value` with the recorded placeholders replaced by this test's paths.
fn place(value: &Value, config: &Path) -> Value {
    let text = serde_json::to_string(value)
        .unwrap()
        .replace("$CONFIG", config.to_str().unwrap())
        .replace("$REPO", repo().to_str().unwrap());
    serde_json::from_str(&text).unwrap()
}

/// An Env whose config dir holds what `claude plugin marketplace add` and `claude
/// plugin install memctl@memctl` left (2.1.332, recorded): the user settings, the
/// plugin records, and the installed copy of this checkout's plugin.
fn with_plugin(env: Env) -> (Env, PathBuf) {
    let config = env.home().join(".claude");
    let row = golden("install");
    let observed = place(&row["observed"], &config);
    fs::create_dir_all(config.join("plugins")).unwrap();
    let settings = config.join("settings.json");
    fs::write(&settings, serde_json::to_string_pretty(&observed["settings"]).unwrap()).unwrap();
    fs::write(
        config.join("plugins/installed_plugins.json"),
        serde_json::to_string_pretty(&observed["installed_plugins"]).unwrap(),
    )
    .unwrap();
    let install = PathBuf::from(
        observed["installed_plugins"]["plugins"]["memctl@memctl"][0]["installPath"]
            .as_str()
            .unwrap(),
    );
    for f in observed["plugin_files"].as_array().unwrap() {
        let f = f.as_str().unwrap();
        let to = install.join(f);
        fs::create_dir_all(to.parent().unwrap()).unwrap();
        fs::copy(repo().join("plugins/memctl").join(f), to).unwrap();
    }
    (env, settings)
}

#[test]
fn r36_status_reports_the_plugin_the_client_installed() {
    let (env, settings) = with_plugin(Env::new().resolved());
    let empty = env.root().join("empty-bin");
    fs::create_dir_all(&empty).unwrap();
    let run = env
        .env("PATH", &empty)
        .args(["hook", "status", "--json"])
        .run()
        .success();
    let doc: Value = serde_json::from_str(&run.stdout).unwrap();
    let plugins = doc["plugins"].as_array().expect("a plugins list");
    assert_eq!(plugins.len(), 1, "{doc}");
    assert_eq!(plugins[0]["id"], "memctl@memctl");
    assert_eq!(plugins[0]["scope"], "user");
    assert_eq!(plugins[0]["file"], settings.to_str().unwrap());
    assert_eq!(plugins[0]["events"], json!(EVENTS));
    // No settings scope has memctl's hooks: nothing runs twice; but the plugin's
    // hooks find no memctl on this PATH.
    assert_eq!(
        doc["warnings"],
        json!([
            "the plugin `memctl@memctl` runs `memctl` from PATH, and it is not on the PATH Claude Code would use from here, so its hooks do nothing; put memctl on PATH"
        ])
    );
}

#[test]
fn r36_status_on_a_terminal_has_a_plugin_line() {
    let (env, settings) = with_plugin(Env::new().resolved());
    let text = crate::support::run_in_pty(&env, &["hook", "status"], &[]);
    assert!(
        text.contains(&format!(
            "plugin   installed      memctl@memctl (enabled in {})",
            settings.display()
        )),
        "{text}"
    );
    // Piped: stdout keeps one record per settings scope; the plugin line goes to stderr.
    let (env, settings) = with_plugin(Env::new().resolved());
    let bin = Path::new(env!("CARGO_BIN_EXE_memctl")).parent().unwrap().to_path_buf();
    let run = env.env("PATH", bin).args(["hook", "status"]).run().success();
    assert_eq!(run.stdout.lines().count(), 3, "{}", run.stdout);
    assert_eq!(
        run.stderr,
        format!(
            "plugin   installed      memctl@memctl (enabled in {})\n",
            settings.display()
        )
    );
}

#[test]
fn r36_install_refuses_while_the_plugin_is_enabled_and_writes_nothing() {
    let (env, settings) = with_plugin(Env::new().resolved());
    let before = fs::read(&settings).unwrap();
    let run = env.args(["hook", "install"]).run();
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert_eq!(
        run.stderr,
        format!(
            "memctl: memctl's hooks already run from the Claude Code plugin `memctl@memctl` (enabled in {}); nothing was written\nhint: keep the plugin, or disable it first (`claude plugin disable memctl@memctl`) to install the hooks into a settings file\n",
            settings.display()
        )
    );
    assert_eq!(fs::read(&settings).unwrap(), before);
    assert!(!settings.with_file_name("settings.json.memctl-backup").exists());
}

#[test]
fn r36_a_disabled_plugin_does_not_count_and_install_then_works() {
    // What `claude plugin disable memctl@memctl` writes (2.1.332, observed).
    let disabled = || {
        let (env, settings) = with_plugin(Env::new().resolved());
        let mut s: Value = serde_json::from_slice(&fs::read(&settings).unwrap()).unwrap();
        s["enabledPlugins"]["memctl@memctl"] = json!(false);
        fs::write(&settings, serde_json::to_string_pretty(&s).unwrap()).unwrap();
        env
    };
    let run = disabled().args(["hook", "status", "--json"]).run().success();
    let doc: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(doc["plugins"], json!([]));
    disabled().args(["hook", "install"]).run().success();
}

#[test]
fn r36_a_settings_install_beside_the_plugin_is_reported_as_running_twice() {
    // memctl's hooks as `hook install` writes them into the user's settings.
    let first = Env::new().resolved();
    let f = first.root().join("home/.claude/settings.json");
    let run = first.args(["hook", "install"]).run().success();
    let hooks = serde_json::from_slice::<Value>(&fs::read(f).unwrap()).unwrap()["hooks"].clone();
    drop(run);
    // Then the client installed the plugin beside them.
    let (env, settings) = with_plugin(Env::new().resolved());
    let mut s: Value = serde_json::from_slice(&fs::read(&settings).unwrap()).unwrap();
    s["hooks"] = hooks;
    fs::write(&settings, serde_json::to_string_pretty(&s).unwrap()).unwrap();
    let bin = Path::new(env!("CARGO_BIN_EXE_memctl")).parent().unwrap().to_path_buf();
    let run = env.env("PATH", bin).args(["hook", "status", "--json"]).run().success();
    let doc: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(doc["scopes"][0]["installed"], true);
    assert_eq!(doc["plugins"][0]["id"], "memctl@memctl");
    assert_eq!(
        doc["warnings"],
        json!([format!(
            "memctl's hooks run twice: from the plugin `memctl@memctl` (enabled in {0}) and from {0} (user scope); keep one: `memctl hook uninstall --scope user`, or `claude plugin disable memctl@memctl`",
            settings.display()
        )])
    );
}

/// The recorded session (2.1.332): the client ran the plugin's hooks (the project
/// command form, memctl on PATH) for each event the session had, and the model got
/// their output.
#[test]
fn r36_the_recorded_session_ran_the_plugins_hooks_and_the_model_got_their_output() {
    let row = golden("session");
    let observed = &row["observed"];
    let events: Vec<&str> = observed["hook_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["event"].as_str().unwrap())
        .collect();
    for e in ["SessionStart", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"] {
        assert!(events.contains(&e), "{e} not run: {events:?}");
        assert!(EVENTS.contains(&e));
    }
    assert!(
        observed["session_start"][0]
            .as_str()
            .unwrap()
            .starts_with("SessionStart hook additional context: memctl:")
    );
    assert!(
        observed["tool_calls"][0]["result"]
            .as_str()
            .unwrap()
            .starts_with("PreToolUse:Write hook error: memctl: this write to feedback_bad.md was not made")
    );
    assert!(
        observed["tool_calls"][1]["then"][0]
            .as_str()
            .unwrap()
            .starts_with("PostToolUse:Write hook additional context: memctl:")
    );
    let stop = observed["stop_feedback"][0].as_str().unwrap();
    let plugin_hooks: Value =
        serde_json::from_slice(&fs::read(repo().join("plugins/memctl/hooks/hooks.json")).unwrap()).unwrap();
    let command = plugin_hooks["hooks"]["Stop"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap();
    assert!(
        stop.starts_with(&format!(
            "Stop hook blocking error from command: \"{command}\": memctl:"
        )),
        "{stop}"
    );
}

/// (2.1.332, observed) The client drops a plugin command whose `!` line exits
/// non-zero ("Shell command failed for pattern …", nothing sent to the model), and
/// `memctl lint` and `truncate-check` exit 1 exactly when they have something to
/// say: each `!` line ends with `|| true`. The recorded `/memctl:check` on a dir
/// with a lint error shows the model got the finding and the task.
#[test]
fn r36_plugin_commands_reach_the_model_when_memctl_finds_something() {
    let dir = repo().join("plugins/memctl/commands");
    let mut lines = 0;
    for entry in fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        for line in fs::read_to_string(&path).unwrap().lines() {
            if line.starts_with("!`") {
                lines += 1;
                assert!(line.ends_with(" || true`"), "{}: {line}", path.display());
            }
        }
    }
    assert!(lines >= 4, "{lines}");
    let row = golden("check-command");
    assert_eq!(row["observed"]["rc"], 0);
    let text = row["observed"]["command_text"][0].as_str().unwrap();
    assert!(
        text.contains("$MEMDIR/MEMORY.md:2:3: error[ML201/index-dangling]: link target gone.md does not exist\n"),
        "{text}"
    );
    assert!(text.contains("\n## Your task\n"), "{text}");
}
