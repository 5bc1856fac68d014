//! `completions/` and `man/` are generated from the clap definition and committed;
//! these tests fail when they are stale. `MEMCTL_BLESS=1` rewrites them. `memctl
//! completions` and `memctl man` print the same bytes.

use std::fs;
use std::path::Path;

use clap_complete::{Generator, Shell};
use memctl::generate;

use crate::support::Env;

fn bless() -> bool {
    std::env::var_os("MEMCTL_BLESS").is_some_and(|v| v == "1")
}

const SHELLS: [Shell; 5] = [Shell::Bash, Shell::Zsh, Shell::Fish, Shell::PowerShell, Shell::Elvish];

#[track_caller]
fn check(path: &Path, expected: &[u8]) {
    if bless() {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, expected).unwrap();
        return;
    }
    let actual = fs::read(path).unwrap_or_default();
    assert!(
        actual == expected,
        "{} is stale; run `MEMCTL_BLESS=1 cargo test --test cli generated`",
        path.display()
    );
}

#[test]
fn completions_are_fresh() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("completions");
    for shell in SHELLS {
        check(&root.join(shell.file_name("memctl")), &generate::completions(shell));
    }
}

#[test]
fn man_pages_are_fresh() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("man");
    let pages = generate::man_pages();
    for (name, page) in &pages {
        check(&root.join(name), page);
    }
    if !bless() {
        let mut committed: Vec<String> = fs::read_dir(&root)
            .map(|rd| rd.map(|e| e.unwrap().file_name().into_string().unwrap()).collect())
            .unwrap_or_default();
        committed.sort();
        let generated: Vec<String> = pages.iter().map(|(n, _)| n.clone()).collect();
        assert_eq!(
            committed, generated,
            "man/ holds other pages than the CLI defines; run `MEMCTL_BLESS=1 cargo test --test cli generated` and remove stale pages"
        );
    }
}

#[test]
fn r14_the_binary_prints_the_committed_completions_and_man_pages() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let run = Env::new().args(["completions", "bash"]).run().success();
    assert_eq!(
        run.stdout.as_bytes(),
        fs::read(root.join("completions/memctl.bash")).unwrap()
    );
    let run = Env::new().args(["man", "lint"]).run().success();
    assert_eq!(run.stdout.as_bytes(), fs::read(root.join("man/memctl-lint.1")).unwrap());
    let run = Env::new().args(["man"]).run().success();
    assert_eq!(run.stdout.as_bytes(), fs::read(root.join("man/memctl.1")).unwrap());
    Env::new()
        .args(["man", "nope"])
        .run()
        .code(2)
        .stderr_starts("memctl: no man page for `nope`\n");
}

/// `memctl __complete --shell SHELL -- memctl WORDS…` (the last word is the one
/// under the cursor).
fn complete(env: Env, shell: &str, words: &[&str]) -> crate::support::Run {
    env.args(["__complete", "--shell", shell, "--", "memctl"])
        .args(words)
        .run()
}

const MEMORY: &str = "---\nname: Deploy Notes\ndescription: how we ship\ntype: project\n---\nBody\n";

#[test]
fn r14_refs_complete_from_the_resolved_dir_and_honour_the_typed_options() {
    let env = Env::new()
        .memory("deploy_notes.md", MEMORY)
        .memory("feedback_tests.md", "---\ntype: feedback\n---\n")
        .memory("team/team_only.md", "---\ntype: user\n---\n");
    complete(env, "bash", &["show", ""])
        .success()
        .stdout("deploy_notes\nfeedback_tests\nteam/team_only\n");
    let env = Env::new().memory("deploy_notes.md", MEMORY);
    complete(env, "fish", &["forget", "x", "dep"])
        .success()
        .stdout("Deploy Notes\tname of deploy_notes.md\ndeploy_notes\thow we ship\n");
    // Names begin case-insensitively, as REF resolves them; bash gets them escaped.
    let env = Env::new().memory("deploy_notes.md", MEMORY);
    complete(env, "bash", &["edit", "Dep"])
        .success()
        .stdout("Deploy\\ Notes\n");
    // --team and --dir typed on the line choose the dir.
    let env = Env::new().memory("team/team_only.md", "---\ntype: user\n---\n");
    complete(env, "zsh", &["--team", "show", ""])
        .success()
        .stdout("team_only:\n");
    let env = Env::new();
    let other = env.root().join("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("elsewhere.md"), "---\ntype: user\n---\n").unwrap();
    complete(env, "bash", &["--dir", other.to_str().unwrap(), "show", "e"])
        .success()
        .stdout("elsewhere\n");
}

/// Issue 34 point 11: the shell passes `--project ~/src/eta` unexpanded; the
/// refs still come from that project's memory dir (and `--dir ~/…` likewise).
#[test]
fn refs_complete_after_a_tilde_path() {
    let env = Env::new().resolved();
    let eta = env.home().join("src/eta");
    std::fs::create_dir_all(eta.join(".git")).unwrap();
    let key = memctl::paths::sanitize::sanitize(&eta.to_string_lossy()).key;
    let mem = env.home().join(".claude/projects").join(key).join("memory");
    std::fs::create_dir_all(&mem).unwrap();
    std::fs::write(mem.join("deploy_notes.md"), MEMORY).unwrap();
    complete(env, "bash", &["--project", "~/src/eta", "show", "de"])
        .success()
        .stdout("Deploy\\ Notes\ndeploy_notes\n");
    let env = Env::new().resolved();
    let notes = env.home().join("notes");
    std::fs::create_dir_all(&notes).unwrap();
    std::fs::write(notes.join("elsewhere.md"), "---\ntype: user\n---\n").unwrap();
    complete(env, "zsh", &["--dir", "~/notes", "show", "e"])
        .success()
        .stdout("elsewhere:\n");
}

#[test]
fn r14_types_and_rule_ids_complete_with_comma_lists() {
    complete(Env::new(), "bash", &["list", "--type", "user,"])
        .success()
        .stdout("user,feedback\nuser,project\nuser,reference\nuser,none\n");
    complete(Env::new(), "bash", &["add", "-t", "re"])
        .success()
        .stdout("reference\n");
    complete(Env::new(), "bash", &["list", "--type", "=", "fe"])
        .success()
        .stdout("feedback\n");
    let run = complete(Env::new(), "zsh", &["lint", "--disable", "ml20"]).success();
    let first = run.stdout.lines().next().unwrap();
    assert!(first.starts_with("ML201:"), "{}", run.stdout);
    assert!(run.stdout.lines().all(|l| l.starts_with("ML20")), "{}", run.stdout);
    complete(Env::new(), "bash", &["lint", "--rule", "index-over-b"])
        .success()
        .stdout("index-over-bytes\n");
}

#[test]
fn r14_other_words_fall_back_to_the_static_script() {
    for words in [
        &["li"][..],
        &["show", "--r"],
        &["show", "a", ""],
        &["--dir", ""],
        &["lint", "--format", ""],
    ] {
        complete(Env::new(), "bash", words).code(1).stdout("").stderr("");
    }
}

#[test]
fn r14_scripts_call_complete_and_man_pages_have_the_extra_sections() {
    let bash = String::from_utf8(generate::completions(Shell::Bash)).unwrap();
    assert!(bash.contains("memctl __complete --shell bash --"));
    assert!(bash.contains("complete -F _memctl_dynamic -o nosort"));
    let zsh = String::from_utf8(generate::completions(Shell::Zsh)).unwrap();
    assert!(zsh.contains("_memctl_static() {") && zsh.contains("memctl __complete --shell zsh --"));
    let fish = String::from_utf8(generate::completions(Shell::Fish)).unwrap();
    assert!(fish.contains("__fish_memctl_using_subcommand lint\" -l rule -r -f -a \"(__memctl_dynamic)\""));
    for (name, page) in generate::man_pages() {
        let page = String::from_utf8(page).unwrap();
        for section in [
            ".SH \"EXIT STATUS\"",
            ".SH ENVIRONMENT",
            ".SH FILES",
            ".SH \"SEE ALSO\"",
        ] {
            assert!(page.contains(section), "{name}: no {section}");
        }
        if name != "memctl.1" {
            assert!(page.contains(".SH EXAMPLES\n.PP\n"), "{name}: no EXAMPLES");
            assert!(!page.contains(".SH EXTRA"), "{name}");
        }
    }
}

/// In a real bash: `complete -p` names the dynamic function, and it fills COMPREPLY.
#[test]
fn r14_bash_completes_a_ref_through_the_committed_script() {
    let env = Env::new().memory("deploy_notes.md", MEMORY);
    let bin = Path::new(env!("CARGO_BIN_EXE_memctl")).parent().unwrap().to_path_buf();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("completions/memctl.bash");
    let test = format!(
        "source '{}'; complete -p memctl; COMP_WORDS=(memctl show dep); COMP_CWORD=2; _memctl_dynamic memctl dep show; echo \"${{COMPREPLY[*]}}\"",
        script.display()
    );
    let out = std::process::Command::new("bash")
        .args(["--norc", "--noprofile", "-c", &test])
        .env_clear()
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .env("HOME", env.home())
        .env("MEMCTL_DIR", env.dir())
        .output()
        .expect("bash runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        stdout,
        "complete -o bashdefault -o default -o nosort -F _memctl_dynamic memctl\nDeploy\\ Notes deploy_notes\n"
    );
}

/// Issue 36 point 1 / SPEC v3 §13: the plugin's hooks file is generated from the list
/// `hook install` writes (every event and matcher, the project-scope command), and the
/// marketplace and plugin manifests name that plugin at the crate's version.
#[test]
fn plugin_hooks_and_manifests_are_fresh() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let plugin = root.join("plugins/memctl");
    check(&plugin.join("hooks/hooks.json"), &generate::plugin_hooks());
    let read = |p: &Path| -> serde_json::Value {
        serde_json::from_slice(&fs::read(p).unwrap_or_default()).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
    };
    let market = read(&root.join(".claude-plugin/marketplace.json"));
    let entry = &market["plugins"][0];
    assert_eq!(market["plugins"].as_array().map(Vec::len), Some(1), "one plugin");
    assert_eq!(entry["name"], "memctl");
    assert_eq!(entry["source"], "./plugins/memctl");
    let manifest = read(&plugin.join(".claude-plugin/plugin.json"));
    assert_eq!(manifest["name"], "memctl");
    assert_eq!(
        manifest["version"],
        env!("CARGO_PKG_VERSION"),
        "plugins/memctl/.claude-plugin/plugin.json: version differs from Cargo.toml's"
    );
    // What `hook install --scope project` writes is what the plugin carries, event by event.
    let env = Env::new();
    let project = env.root().join("proj");
    fs::create_dir_all(&project).unwrap();
    let _run = env
        .resolved()
        .cwd(&project)
        .args(["hook", "install", "--scope", "project"])
        .run()
        .success();
    let installed = read(&project.join(".claude/settings.json"));
    let carried = read(&plugin.join("hooks/hooks.json"));
    assert_eq!(installed["hooks"], carried["hooks"]);
}

/// Issue 34 point 11: on a terminal `memctl man` hands the page to `man -l -`
/// (here a stand-in that records what it got); without `man` on PATH the roff
/// source is printed as before.
#[test]
fn man_on_a_terminal_renders_through_man_l() {
    use std::os::unix::fs::{PermissionsExt, symlink};
    let env = Env::new();
    let bin = env.root().join("bin");
    fs::create_dir_all(&bin).unwrap();
    let got = env.root().join("got");
    let man = bin.join("man");
    fs::write(
        &man,
        format!(
            "#!/bin/sh\necho \"$@\" > '{0}.args'\ncat > '{0}.page'\necho RENDERED\n",
            got.display()
        ),
    )
    .unwrap();
    fs::set_permissions(&man, fs::Permissions::from_mode(0o755)).unwrap();
    for tool in ["script", "sh", "cat"] {
        let found = ["/usr/bin", "/bin"]
            .map(|d| Path::new(d).join(tool))
            .into_iter()
            .find(|p| p.exists());
        symlink(found.expect("script, sh and cat are installed"), bin.join(tool)).unwrap();
    }
    let env = env.env("PATH", &bin);
    let screen = crate::support::run_in_pty(&env, &["man", "lint"], &[]);
    assert!(screen.contains("RENDERED"), "{screen:?}");
    assert!(!screen.contains(".TH"), "{screen:?}");
    assert_eq!(fs::read_to_string(got.with_extension("args")).unwrap(), "-l -\n");
    let page = fs::read(got.with_extension("page")).unwrap();
    assert!(
        page == generate::man_page(Some("lint")).unwrap(),
        "man got another page"
    );
    // No `man`: the roff source.
    fs::remove_file(&man).unwrap();
    let screen = crate::support::run_in_pty(&env, &["man", "lint"], &[]);
    assert!(screen.contains(".TH"), "{screen:?}");
}
