use std::fs::{self, File};

use chrono::{DateTime, Utc};

use super::*;
use crate::error::Kind;

#[test]
fn temp_names_round_trip_and_never_end_in_md() {
    let n = temp_name("MEMORY.md");
    assert!(n.starts_with(".MEMORY.md.") && n.ends_with(".tmp"));
    assert_eq!(parse_temp_name(&n), Some(std::process::id()));
    assert_eq!(parse_temp_name(".x.md.123.zzzzzzzz.tmp"), None);
    assert_eq!(parse_temp_name("x.md"), None);
}

#[test]
fn atomic_write_replaces_and_keeps_mode() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("a.md");
    fs::write(&p, "old").unwrap();
    fs::set_permissions(&p, fs::Permissions::from_mode(0o644)).unwrap();
    write_atomic(dir.path(), &p, b"new").unwrap();
    assert_eq!(fs::read_to_string(&p).unwrap(), "new");
    assert_eq!(fs::metadata(&p).unwrap().permissions().mode() & 0o777, 0o644);
    let leftovers: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty());
}

#[test]
fn writes_through_escaping_symlinks_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("x.md"), "x").unwrap();
    std::os::unix::fs::symlink(outside.path().join("x.md"), dir.path().join("x.md")).unwrap();
    let e = write_atomic(dir.path(), &dir.path().join("x.md"), b"y").unwrap_err();
    assert_eq!(e.kind, Kind::Containment);
    assert_eq!(fs::read_to_string(outside.path().join("x.md")).unwrap(), "x");
}

#[test]
fn create_new_never_overwrites() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("a.md");
    create_new(dir.path(), &p, b"one").unwrap();
    let e = create_new(dir.path(), &p, b"two").unwrap_err();
    assert_eq!(e.kind, Kind::Exists);
    assert_eq!(fs::read_to_string(&p).unwrap(), "one");
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn update_applies_the_change_to_fresh_content() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("MEMORY.md");
    let (old, new) = update(dir.path(), &p, None, |t| Ok(format!("{t}- a\n"))).unwrap();
    assert_eq!((old.as_str(), new.as_str()), ("", "- a\n"));
    update(dir.path(), &p, None, |t| Ok(format!("{t}- b\n"))).unwrap();
    assert_eq!(fs::read_to_string(&p).unwrap(), "- a\n- b\n");
}

#[test]
fn bytes_that_are_not_utf8_survive_on_unchanged_lines() {
    let old = b"- [a](a.md) \xff caf\xe9\n- [b](b.md)\n";
    let text = String::from_utf8_lossy(old).into_owned();
    let new = format!("{text}- [c](c.md)\n").replace("- [b](b.md)\n", "");
    assert_eq!(
        keep_original_bytes(old, &new),
        b"- [a](a.md) \xff caf\xe9\n- [c](c.md)\n"
    );
    assert_eq!(keep_original_bytes(b"plain\n", "plain\nmore\n"), b"plain\nmore\n");
}

#[test]
fn an_index_that_reads_empty_after_it_was_seen_full_is_a_conflict() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("MEMORY.md");
    fs::write(&p, "").unwrap();
    let e = update(dir.path(), &p, Some(b"- [a](a.md)\n"), |t| Ok(format!("{t}- b\n"))).unwrap_err();
    assert_eq!(e.kind, Kind::Conflict);
    assert_eq!(fs::read_to_string(&p).unwrap(), "");
}

#[test]
fn special_files_are_never_read_for_an_update() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("MEMORY.md");
    fs::create_dir(&p).unwrap();
    assert_eq!(read_for_update(&p).unwrap_err().kind, Kind::InvalidInput);
}

#[test]
fn trash_stamps_get_suffixes() {
    let dir = tempfile::tempdir().unwrap();
    let now = DateTime::parse_from_rfc3339("2026-11-30T12:00:00Z")
        .unwrap()
        .with_timezone(&Utc);
    let a = trash_dir(dir.path(), now).unwrap();
    let b = trash_dir(dir.path(), now).unwrap();
    assert!(a.ends_with(".trash/20261130T120000Z"));
    assert!(b.ends_with(".trash/20261130T120000Z-2"));
}

#[test]
fn write_lock_is_exclusive() {
    let dir = tempfile::tempdir().unwrap();
    let held = lock(dir.path()).unwrap();
    let other = File::options().write(true).open(dir.path().join(WRITE_LOCK)).unwrap();
    assert!(matches!(other.try_lock(), Err(fs::TryLockError::WouldBlock)));
    drop(held);
    assert!(other.try_lock().is_ok());
}
