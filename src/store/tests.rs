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
        &*keep_original_bytes(old, &new),
        b"- [a](a.md) \xff caf\xe9\n- [c](c.md)\n"
    );
    assert_eq!(&*keep_original_bytes(b"plain\n", "plain\nmore\n"), b"plain\nmore\n");
}

#[test]
fn an_index_that_reads_empty_after_it_was_seen_full_is_used_once_it_has_stayed_so() {
    // Emptied and left alone (by hand, not a writer mid-rewrite): once it has been
    // unchanged for settle::SETTLE the read is trusted (issue 29 point 1). The
    // interleavings with a writer are driven in tests/cli/torn.rs.
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("MEMORY.md");
    fs::write(&p, "").unwrap();
    let (old, new) = update(dir.path(), &p, Some(b"- [a](a.md)\n"), |t| Ok(format!("{t}- b\n"))).unwrap();
    assert_eq!((old.as_str(), new.as_str()), ("", "- b\n"));
    assert_eq!(fs::read_to_string(&p).unwrap(), "- b\n");
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

mod outside {
    use std::fs;
    use std::path::PathBuf;

    use super::super::{Recording, Writer};
    use crate::error::Kind;
    use crate::history::{Settings, Store};
    use crate::memdir::{MemoryDir, Scope};

    struct Fixture {
        _t: tempfile::TempDir,
        root: PathBuf,
        mem: MemoryDir,
        settings: Settings,
    }

    fn fixture() -> Fixture {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("project");
        let main = t.path().join("memory");
        fs::create_dir_all(&root).unwrap();
        fs::create_dir_all(&main).unwrap();
        fs::write(main.join("MEMORY.md"), "- [A](a.md) — a\n").unwrap();
        fs::write(main.join("a.md"), "---\nname: a\n---\nbody\n").unwrap();
        let settings = Settings::On {
            root: t.path().join("state"),
        };
        Fixture {
            root,
            mem: MemoryDir::open(&main, Scope::Main),
            settings,
            _t: t,
        }
    }

    fn now() -> chrono::DateTime<chrono::Utc> {
        "2026-03-10T12:00:00Z".parse().unwrap()
    }

    fn writer(f: &Fixture, settings: &Settings) -> Writer {
        let rec = Recording {
            settings: settings.clone(),
            command: "review",
            project: Some(f.root.clone()),
        };
        Writer::open(&f.mem, now(), false, &rec).unwrap()
    }

    fn recorded(f: &Fixture) -> Vec<crate::history::OutsideFile> {
        let store = Store::open_existing(&f.settings, f.mem.main(), now()).unwrap();
        store.outside(store.head_id().unwrap()).unwrap()
    }

    #[test]
    fn replace_outside_writes_and_records_the_previous_bytes() {
        let f = fixture();
        let claude = f.root.join("CLAUDE.md");
        fs::write(&claude, "# P\r\n").unwrap();
        let mut w = writer(&f, &f.settings);
        w.replace_outside(&f.root, &claude, Some(b"# P\r\n"), b"# P\r\n- a\r\n")
            .unwrap();
        // Written twice in one command: the first previous bytes, the last result.
        w.replace_outside(&f.root, &claude, Some(b"# P\r\n- a\r\n"), b"# P\r\n- a\r\n- b\r\n")
            .unwrap();
        let local = f.root.join("CLAUDE.local.md");
        w.replace_outside(&f.root, &local, None, b"- mine\n").unwrap();
        assert!(w.finish().is_empty());
        drop(w);
        assert_eq!(fs::read(&claude).unwrap(), b"# P\r\n- a\r\n- b\r\n");
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(fs::metadata(&local).unwrap().permissions().mode() & 0o777, 0o644);
        let files = recorded(&f);
        assert_eq!(files.len(), 2);
        assert_eq!(
            (files[0].path.as_path(), files[0].root.as_path()),
            (claude.as_path(), f.root.as_path())
        );
        assert_eq!(files[0].before.as_ref().unwrap().0, b"# P\r\n");
        assert_eq!(
            (files[1].path.as_path(), files[1].before.is_none()),
            (local.as_path(), true)
        );
        let store = Store::open_existing(&f.settings, f.mem.main(), now()).unwrap();
        assert!(store.is_blob(files[0].after.unwrap(), b"# P\r\n- a\r\n- b\r\n"));
        let log = store.log().unwrap();
        // Only outside files changed: still a snapshot, labelled with the command.
        assert_eq!(log[0].trigger(), "review");
        assert!(log[0].summary.contains("~CLAUDE.md"), "{}", log[0].summary);
        assert_eq!(log[0].trailer("Outside"), Some(claude.to_str().unwrap()));
        // Plain git reads it: the list and the previous bytes, and fsck is clean.
        let git = |args: &[&str]| {
            std::process::Command::new("git")
                .arg("--git-dir")
                .arg(store.path())
                .args(args)
                .output()
        };
        if let Ok(out) = git(&["show", "main:.memctl/outside/files"]) {
            let list = String::from_utf8_lossy(&out.stdout).into_owned();
            assert!(list.starts_with("1-CLAUDE.md\t"), "{list}");
            assert!(list.contains("\n2-CLAUDE.local.md\t-\t"), "{list}");
            let prev = git(&["show", "main:.memctl/outside/1-CLAUDE.md"]).unwrap();
            assert_eq!(prev.stdout, b"# P\r\n");
            let fsck = git(&["fsck"]).unwrap();
            assert!(fsck.status.success(), "{}", String::from_utf8_lossy(&fsck.stderr));
        }
    }

    #[test]
    fn a_file_changed_since_it_was_read_is_a_conflict_and_untouched() {
        let f = fixture();
        let claude = f.root.join("CLAUDE.md");
        fs::write(&claude, "edited\n").unwrap();
        let mut w = writer(&f, &f.settings);
        let e = w
            .replace_outside(&f.root, &claude, Some(b"read\n"), b"new\n")
            .unwrap_err();
        assert_eq!(e.kind, Kind::Conflict);
        assert!(e.message.contains("CLAUDE.md"), "{}", e.message);
        let e = w.replace_outside(&f.root, &claude, None, b"new\n").unwrap_err();
        assert_eq!(e.kind, Kind::Conflict);
        assert_eq!(fs::read(&claude).unwrap(), b"edited\n");
        w.finish();
    }

    #[test]
    fn an_inside_symlink_is_written_through_and_an_escaping_one_refused() {
        let f = fixture();
        fs::create_dir(f.root.join("docs")).unwrap();
        fs::write(f.root.join("docs/agents.md"), "a\n").unwrap();
        let claude = f.root.join("CLAUDE.md");
        std::os::unix::fs::symlink("docs/agents.md", &claude).unwrap();
        let mut w = writer(&f, &f.settings);
        w.replace_outside(&f.root, &claude, Some(b"a\n"), b"b\n").unwrap();
        assert!(fs::symlink_metadata(&claude).unwrap().file_type().is_symlink());
        assert_eq!(fs::read(f.root.join("docs/agents.md")).unwrap(), b"b\n");

        let away = tempfile::tempdir().unwrap();
        fs::write(away.path().join("x.md"), "x\n").unwrap();
        let local = f.root.join("CLAUDE.local.md");
        std::os::unix::fs::symlink(away.path().join("x.md"), &local).unwrap();
        let e = w.replace_outside(&f.root, &local, Some(b"x\n"), b"y\n").unwrap_err();
        assert_eq!(e.kind, Kind::Containment);
        assert!(e.message.contains("CLAUDE.local.md"), "{}", e.message);
        assert_eq!(fs::read(away.path().join("x.md")).unwrap(), b"x\n");
        // A target outside the root altogether.
        let e = w
            .replace_outside(&f.root, &away.path().join("y.md"), None, b"y\n")
            .unwrap_err();
        assert_eq!(e.kind, Kind::Containment);
        w.finish();
        drop(w);
        assert_eq!(recorded(&f).len(), 1);
    }

    #[test]
    fn with_history_off_the_write_still_happens() {
        let f = fixture();
        let claude = f.root.join("CLAUDE.md");
        let mut w = writer(&f, &Settings::Off);
        w.replace_outside(&f.root, &claude, None, b"- a\n").unwrap();
        assert!(w.finish().is_empty());
        assert_eq!(fs::read(&claude).unwrap(), b"- a\n");
        drop(w);
        assert!(Store::open_existing(&f.settings, f.mem.main(), now()).is_err());
    }
}
