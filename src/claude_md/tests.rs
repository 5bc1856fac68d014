//! Locating and reading CLAUDE files, and their statements.

use std::fs;
use std::os::unix::fs::symlink;

use super::*;

fn project() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

#[test]
fn the_root_claude_md_is_chosen_and_wins_over_the_nested_one() {
    let p = project();
    let root = p.path();
    // Neither exists: the root's path, where it would be created.
    let f = locate_one(root, Which::ClaudeMd).unwrap();
    assert_eq!(
        (f.path.clone(), f.exists, f.note.clone()),
        (root.join("CLAUDE.md"), false, None)
    );
    // Only .claude/CLAUDE.md exists: that one.
    fs::create_dir(root.join(".claude")).unwrap();
    fs::write(root.join(".claude/CLAUDE.md"), "nested\n").unwrap();
    let f = locate_one(root, Which::ClaudeMd).unwrap();
    assert_eq!((f.path.clone(), f.exists), (root.join(".claude/CLAUDE.md"), true));
    assert_eq!(f.display(), ".claude/CLAUDE.md");
    // Both: the root's, with a note saying so.
    fs::write(root.join("CLAUDE.md"), "root\n").unwrap();
    let f = locate_one(root, Which::ClaudeMd).unwrap();
    assert_eq!(f.path, root.join("CLAUDE.md"));
    assert!(
        f.note.as_deref().is_some_and(|n| n.contains("using CLAUDE.md")),
        "{:?}",
        f.note
    );
    // CLAUDE.local.md is always the root's, even when only .claude/ has one.
    fs::write(root.join(".claude/CLAUDE.local.md"), "x").unwrap();
    let l = locate(root).unwrap().claude_local_md;
    assert_eq!((l.path, l.exists), (root.join("CLAUDE.local.md"), false));
}

#[test]
fn a_symlink_is_followed_only_inside_the_project() {
    let p = project();
    let root = p.path();
    fs::create_dir(root.join("docs")).unwrap();
    fs::write(root.join("docs/agents.md"), "- rule\n").unwrap();
    symlink("docs/agents.md", root.join("CLAUDE.md")).unwrap();
    let f = locate_one(root, Which::ClaudeMd).unwrap();
    assert_eq!(f.path, root.join("CLAUDE.md"));
    assert_eq!(
        f.link_target,
        Some(fs::canonicalize(root.join("docs/agents.md")).unwrap())
    );
    assert_eq!(read(&f).unwrap().unwrap().lines[0].text, "- rule");

    let elsewhere = tempfile::tempdir().unwrap();
    fs::write(elsewhere.path().join("mine.md"), "x").unwrap();
    symlink(elsewhere.path().join("mine.md"), root.join("CLAUDE.local.md")).unwrap();
    let e = locate_one(root, Which::ClaudeLocalMd).unwrap_err();
    assert_eq!(e.kind, Kind::Containment);
    assert!(e.message.contains("CLAUDE.local.md"), "{}", e.message);
    assert!(locate(root).is_err());

    fs::remove_file(root.join("CLAUDE.local.md")).unwrap();
    symlink("missing.md", root.join("CLAUDE.local.md")).unwrap();
    let e = locate_one(root, Which::ClaudeLocalMd).unwrap_err();
    assert_eq!(e.kind, Kind::InvalidInput);
    assert!(e.message.contains("CLAUDE.local.md"), "{}", e.message);
}

#[test]
fn reading_strips_a_bom_handles_crlf_and_a_missing_newline() {
    let p = project();
    let root = p.path();
    fs::write(
        root.join("CLAUDE.md"),
        b"\xef\xbb\xbf# Title\r\n\r\n- Run `bun test`\r\nlast",
    )
    .unwrap();
    let f = locate_one(root, Which::ClaudeMd).unwrap();
    let t = read(&f).unwrap().unwrap();
    let got: Vec<(usize, &str)> = t.lines.iter().map(|l| (l.number, l.text.as_str())).collect();
    assert_eq!(got, [(1, "# Title"), (2, ""), (3, "- Run `bun test`"), (4, "last")]);
    assert!(t.bytes.starts_with(b"\xef\xbb\xbf"), "the bytes stay as read");
    let md = fs::metadata(root.join("CLAUDE.md")).unwrap();
    assert_eq!(t.mtime_ns, crate::history::tracked::mtime_ns(&md));
    assert_eq!(lines(b"a\n\n").len(), 2);
    assert!(lines(b"").is_empty());
    assert!(lines(b"\xef\xbb\xbf").is_empty());
    // A missing file reads as None.
    let l = locate_one(root, Which::ClaudeLocalMd).unwrap();
    assert!(read(&l).unwrap().is_none());
}

#[test]
fn a_fifo_or_an_oversized_file_is_an_error_naming_it_without_blocking() {
    let p = project();
    let root = p.path();
    rustix::fs::mkfifoat(
        rustix::fs::CWD,
        root.join("CLAUDE.md"),
        rustix::fs::Mode::from_raw_mode(0o600),
    )
    .unwrap();
    let f = locate_one(root, Which::ClaudeMd).unwrap();
    let e = read(&f).unwrap_err();
    assert!(
        e.message.contains("CLAUDE.md") && e.message.contains("FIFO"),
        "{}",
        e.message
    );

    let big = fs::File::create(root.join("CLAUDE.local.md")).unwrap();
    big.set_len(MAX_BYTES + 1).unwrap();
    let f = locate_one(root, Which::ClaudeLocalMd).unwrap();
    let e = read(&f).unwrap_err();
    assert!(
        e.message.contains("CLAUDE.local.md") && e.message.contains("4 MiB"),
        "{}",
        e.message
    );
}

#[test]
fn statements_are_bullets_and_paragraphs_outside_code() {
    let text = "# Title\n\nIntro line one\nand two.\n\n- Use `bun test`\n  **Why:** fast\n* second\n1. third\n-\n\n```sh\n- not a bullet\n```\n<!-- a\ncomment -->\n| a | b |\n|---|---|\n## H\nlast";
    let got: Vec<(usize, String)> = statements(&lines(text.as_bytes()))
        .into_iter()
        .map(|s| (s.line, s.text))
        .collect();
    assert_eq!(
        got,
        [
            (3, "Intro line one and two.".to_string()),
            (6, "Use `bun test` **Why:** fast".to_string()),
            (8, "second".to_string()),
            (9, "third".to_string()),
            (17, "| a | b |".to_string()),
            (20, "last".to_string()),
        ]
    );
}

#[test]
fn a_dot_claude_dir_symlink_that_leaves_the_project_is_containment() {
    let p = project();
    let root = p.path();
    let elsewhere = tempfile::tempdir().unwrap();
    fs::write(elsewhere.path().join("CLAUDE.md"), "- outside rule\n").unwrap();
    symlink(elsewhere.path(), root.join(".claude")).unwrap();
    let e = locate_one(root, Which::ClaudeMd).unwrap_err();
    assert_eq!(e.kind, Kind::Containment);
    assert!(e.message.contains(".claude"), "{}", e.message);
    // A `.claude` link inside the project is followed.
    fs::remove_file(root.join(".claude")).unwrap();
    fs::create_dir(root.join("conf")).unwrap();
    fs::write(root.join("conf/CLAUDE.md"), "- inside rule\n").unwrap();
    symlink("conf", root.join(".claude")).unwrap();
    let f = locate_one(root, Which::ClaudeMd).unwrap();
    assert_eq!(read(&f).unwrap().unwrap().lines[0].text, "- inside rule");
}
