//! `completions/` and `man/` are generated from the clap definition and committed;
//! these tests fail when they are stale. `MEMCTL_BLESS=1` rewrites them.

use std::fs;
use std::path::Path;

use clap::CommandFactory;
use clap_complete::{Generator, Shell};
use memctl::cli::Cli;

fn bless() -> bool {
    std::env::var_os("MEMCTL_BLESS").is_some_and(|v| v == "1")
}

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
    for shell in [Shell::Bash, Shell::Zsh, Shell::Fish, Shell::PowerShell, Shell::Elvish] {
        let mut buf = Vec::new();
        clap_complete::generate(shell, &mut Cli::command(), "memctl", &mut buf);
        check(&root.join(shell.file_name("memctl")), &buf);
    }
}

#[test]
fn man_pages_are_fresh() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("man");
    let tmp = tempfile::tempdir().unwrap();
    clap_mangen::generate_to(Cli::command(), tmp.path()).unwrap();
    let mut generated: Vec<String> = fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    generated.sort();
    for name in &generated {
        check(&root.join(name), &fs::read(tmp.path().join(name)).unwrap());
    }
    if !bless() {
        let mut committed: Vec<String> = fs::read_dir(&root)
            .map(|rd| rd.map(|e| e.unwrap().file_name().into_string().unwrap()).collect())
            .unwrap_or_default();
        committed.sort();
        assert_eq!(
            committed, generated,
            "man/ holds other pages than the CLI defines; run `MEMCTL_BLESS=1 cargo test --test cli generated` and remove stale pages"
        );
    }
}
