//! Diff colours (issue 34 point 11): additions green, removals red, file and hunk
//! headers told by position (a removed `---` fence is a removal, not a header), in
//! `diff` and in the previews of `forget`, `add`, `index rebuild` and `lint --fix`;
//! only when colour is on (a terminal, `--color always`; never with NO_COLOR).

use std::fs;

use crate::support::{Env, run_in_pty};

const A: &str = "---\nname: Alpha\ndescription: first\ntype: user\n---\nA body\n";
const B: &str = "---\nname: Beta\ndescription: second\ntype: user\n---\nB body\n";

fn red(s: &str) -> String {
    format!("\x1b[31m{s}\x1b[0m\n")
}

fn green(s: &str) -> String {
    format!("\x1b[32m{s}\x1b[0m\n")
}

fn bold(s: &str) -> String {
    format!("\x1b[1m{s}\x1b[0m\n")
}

/// `a.md` and `b.md`; the index links `a.md` and a file that is gone.
fn dir() -> Env {
    Env::new()
        .memory("a.md", A)
        .memory("b.md", B)
        .index("# Index\n- [Alpha](a.md) — first\n- [Gone](gone.md) — x\n")
}

fn stdout(env: &Env, args: &[&str]) -> String {
    let out = env.command().args(args).output().unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn diff_paints_additions_green_and_a_removed_fence_red() {
    let env = dir();
    assert!(env.command().arg("snapshot").status().unwrap().success());
    // The frontmatter fences go, a line comes.
    fs::write(env.dir().join("a.md"), "name: Alpha\nA body\n+++ more\n").unwrap();
    let out = stdout(&env, &["--color", "always", "diff"]);
    assert!(out.starts_with(&(bold("--- a/a.md") + &bold("+++ b/a.md"))), "{out:?}");
    assert_eq!(out.matches(&red("----")).count(), 2, "removed fences are red: {out:?}");
    assert!(!out.contains(&bold("----")), "not painted as a header: {out:?}");
    assert!(out.contains(&green("++++ more")), "an addition is green: {out:?}");
    assert!(!out.contains("\x1b[34m"), "no blue: {out:?}");
    // Piped without --color: plain.
    let plain = stdout(&env, &["diff"]);
    assert!(!plain.contains('\x1b'), "{plain:?}");
    assert!(plain.contains("\n----\n"), "{plain:?}");
}

#[test]
fn the_previews_of_forget_add_rebuild_and_fix_are_painted() {
    let env = dir();
    let forget = stdout(&env, &["--color", "always", "forget", "--dry-run", "a"]);
    assert!(forget.contains(&bold("--- a/MEMORY.md")), "{forget:?}");
    assert!(forget.contains(&red("-- [Alpha](a.md) — first")), "{forget:?}");
    let add = stdout(
        &env,
        &[
            "--color",
            "always",
            "add",
            "--dry-run",
            "--type",
            "user",
            "--name",
            "T",
            "--description",
            "d",
        ],
    );
    assert!(add.contains(&green("+- [T](user_t.md) — d")), "{add:?}");
    assert!(add.contains("\x1b[36m@@ -1,3 +1,4 @@\x1b[0m\n"), "{add:?}");
    let rebuild = stdout(&env, &["--color", "always", "index", "rebuild", "--dry-run"]);
    assert!(rebuild.contains(&red("-- [Gone](gone.md) — x")), "{rebuild:?}");
    assert!(rebuild.contains(&green("+- [Beta](b.md) — second")), "{rebuild:?}");
    let fix = stdout(&env, &["--color", "always", "lint", "--fix", "--dry-run"]);
    assert!(fix.contains(&green("+- [Beta](b.md) — second")), "{fix:?}");
    // Piped: plain.
    for args in [
        &["forget", "--dry-run", "a"][..],
        &["index", "rebuild", "--dry-run"][..],
        &["lint", "--fix", "--dry-run"][..],
    ] {
        let plain = stdout(&env, args);
        assert!(!plain.contains('\x1b'), "{args:?}: {plain:?}");
    }
}

#[test]
fn on_a_terminal_previews_are_painted_unless_no_color() {
    let env = dir().env("COLUMNS", "80");
    let screen = run_in_pty(&env, &["forget", "--dry-run", "a"], &[]);
    assert!(screen.contains("\x1b[31m-- [Alpha](a.md) — first\x1b[0m"), "{screen:?}");
    let env = env.env("NO_COLOR", "1");
    let screen = run_in_pty(&env, &["forget", "--dry-run", "a"], &[]);
    assert!(!screen.contains('\x1b'), "{screen:?}");
    assert!(screen.contains("-- [Alpha](a.md) — first"), "{screen:?}");
}
