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
