//! The survey, cached or not, answers as reading every file with the scan does
//! (the code `add` and `forget` ran before the survey, kept here as reference),
//! on random dirs under random edits made behind its back.

use std::fs;
use std::io::Read;
use std::path::Path;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

use super::*;

/// `add`'s duplicate check as it was: the first memory of a full scan whose name
/// is `name` in any case.
fn reference_named(dir: &Path, name: &str) -> Option<(String, String)> {
    let scan = scan::scan(dir);
    let lower = name.to_lowercase();
    let m = scan
        .memories
        .iter()
        .find(|x| x.name().is_some_and(|n| n.to_lowercase() == lower))?;
    Some((m.rel.clone(), m.name()?))
}

/// `forget`'s backlink scan as it was: every memory but `rel` whose links
/// (the whole file, up to an index's size) resolve to `rel`.
fn reference_linking(dir: &Path, rel: &str) -> Vec<String> {
    let visit = |m: &crate::memory::Memory, file: &mut std::fs::File, buf: &mut Vec<u8>| -> bool {
        if m.rel == rel {
            return false;
        }
        let max = crate::store::MAX_INDEX_BYTES;
        let left = (max + 1).saturating_sub(buf.len() as u64);
        if file.take(left).read_to_end(buf).is_err() || buf.len() as u64 > max {
            return false;
        }
        let base = m.rel.rsplit_once('/').map_or("", |(d, _)| d);
        index::extract_links(&String::from_utf8_lossy(buf))
            .iter()
            .any(|l| matches!(index::resolve_dest(&l.dest, base), Some(index::Target::Inside(p)) if p == rel))
    };
    let (scan, linked, ()) = scan::scan_visit(dir, || (), &visit);
    scan.memories
        .iter()
        .zip(linked)
        .filter(|(_, l)| *l)
        .map(|(m, _)| m.rel.clone())
        .collect()
}

fn reference_hub(dir: &Path, reference: &str) -> bool {
    scan::exact_ref(dir, reference).is_some_and(|m| m.is_hub())
}

const NAMES: [&str; 6] = ["a.md", "b.md", "sub/c.md", "sub/d.md", "deep/x/e.md", "f.md"];

/// A memory's text: a name (from a few, so that names repeat), maybe the hub
/// key, links to some of the names.
fn text(name: u8, hub: bool, links: &[u8], pad: u8) -> String {
    let mut s = format!("---\nname: N{}\ndescription: d\n", name % 3);
    if hub {
        s.push_str("metadata:\n  memctl-hub: true\n");
    }
    s.push_str("---\n");
    for &l in links {
        let target = NAMES[l as usize % NAMES.len()];
        // Relative to the top, and sometimes written from a subdirectory.
        s.push_str(&format!("- [x](../{target}) [y]({target}) [z](./{target})\n"));
    }
    s.push_str(&"pad\n".repeat(usize::from(pad)));
    s
}

/// Apply one edit to the dir: (which file, what, the text's parameters).
fn edit(dir: &Path, e: &(u8, u8, u8, bool, Vec<u8>, u8)) {
    let (file, op, name, hub, links, pad) = e;
    let rel = NAMES[*file as usize % NAMES.len()];
    let path = dir.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    match op % 5 {
        0 => {
            let _ = fs::remove_file(&path);
        }
        1 => {
            // Same size, mtime put back: only the ctime (and the racy rule) tell.
            if fs::symlink_metadata(&path).is_ok_and(|m| m.is_file())
                && let Ok(old) = fs::read(&path)
            {
                let meta = fs::metadata(&path).unwrap();
                let mut new = text(*name, *hub, links, *pad).into_bytes();
                new.resize(old.len(), b'\n');
                fs::write(&path, new).unwrap();
                let f = fs::File::options().write(true).open(&path).unwrap();
                f.set_modified(meta.modified().unwrap()).unwrap();
            }
        }
        2 => {
            // Renamed to another of the names.
            let to = dir.join(NAMES[(*file as usize + 1) % NAMES.len()]);
            fs::create_dir_all(to.parent().unwrap()).unwrap();
            let _ = fs::rename(&path, to);
        }
        3 => {
            let _ = fs::remove_file(&path);
            std::os::unix::fs::symlink(dir.join(NAMES[0]), &path).unwrap();
        }
        _ => {
            if fs::symlink_metadata(&path).is_ok_and(|m| m.is_symlink()) {
                fs::remove_file(&path).unwrap();
            }
            fs::write(&path, text(*name, *hub, links, *pad)).unwrap();
        }
    }
}

/// Every answer of the survey against the reference.
fn agree(dir: &Path, s: &Survey) -> Result<(), String> {
    for n in 0..3 {
        let want = reference_named(dir, &format!("n{n}"));
        let got = s
            .named(|x| x.to_lowercase() == format!("n{n}"))
            .map(|(r, x)| (r.to_string(), x.to_string()));
        if got != want {
            return Err(format!("named n{n}: {got:?} != {want:?}"));
        }
    }
    for rel in NAMES {
        let want = reference_linking(dir, rel);
        let got: Vec<String> = s.linking(rel, |r, _| r == rel).map(str::to_string).collect();
        if got != want {
            return Err(format!("linking {rel}: {got:?} != {want:?}"));
        }
        for r in [rel, rel.trim_end_matches(".md"), "x/../a.md", ".trash/a.md"] {
            let want = reference_hub(dir, r);
            if s.is_hub(r) != want || (want && !s.may_have_hubs()) {
                return Err(format!("is_hub {r}"));
            }
        }
    }
    Ok(())
}

#[test]
fn cached_and_uncached_surveys_answer_as_the_full_scan_under_random_edits() {
    let edit_s = (
        any::<u8>(),
        any::<u8>(),
        any::<u8>(),
        any::<bool>(),
        proptest::collection::vec(any::<u8>(), 0..3),
        0u8..3,
    );
    let strategy = proptest::collection::vec(proptest::collection::vec(edit_s, 1..4), 2..6);
    let config = Config {
        cases: 24,
        failure_persistence: None,
        ..Config::default()
    };
    let hits = std::cell::Cell::new(0);
    TestRunner::new(config)
        .run(&strategy, |rounds| {
            let tmp = tempfile::tempdir().unwrap();
            let dir = tmp.path().join("mem");
            let state = tmp.path().join("state");
            fs::create_dir_all(&dir).unwrap();
            for rounds in &rounds {
                for e in rounds {
                    edit(&dir, e);
                }
                // Files count as young for no time: the cache keeps what the
                // racy rule allows.
                let cached = Survey::take_with(&dir, Some(&state), 0);
                agree(&dir, &cached).map_err(TestCaseError::fail)?;
                hits.set(hits.get() + cached.hits);
                let uncached = Survey::take(&dir, None);
                agree(&dir, &uncached).map_err(TestCaseError::fail)?;
                // A clock tick, so that the next stamp is past every write so
                // far (it only decides what the cache keeps, never an answer).
                std::thread::sleep(std::time::Duration::from_millis(12));
            }
            Ok(())
        })
        .unwrap();
    assert!(hits.get() > 0, "the cache answered for some files");
}

/// The survey of a flat dir from a writer's walk ([`Seen`]) is the survey's own:
/// the same memories in the same order, the same facts, and the same cache
/// bytes; a dir with a subdirectory or a symlink is left to the survey's walk.
#[test]
fn a_survey_from_the_snapshots_walk_is_the_surveys_own() {
    use std::os::unix::ffi::OsStrExt;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("mem");
    fs::create_dir_all(dir.join(".trash/x")).unwrap();
    fs::write(dir.join(".trash/x/old.md"), text(1, false, &[], 0)).unwrap();
    for i in 0..40u8 {
        let name = format!("m{i}.md");
        fs::write(dir.join(&name), text(i % 4, i % 7 == 0, &[i % 6, (i + 1) % 6], i % 3)).unwrap();
    }
    fs::write(dir.join("MEMORY.md"), "- [A](a.md) — a\n").unwrap();
    fs::write(dir.join("notes.txt"), "n").unwrap();
    fs::write(
        dir.join(std::ffi::OsStr::from_bytes(b"bad\xff.md")),
        text(2, false, &[], 0),
    )
    .unwrap();
    rustix::fs::mknodat(
        rustix::fs::CWD,
        dir.join("pipe.md").as_path(),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
        0,
    )
    .unwrap();
    // A clock tick: both stamps are past every write (it decides what a cache
    // keeps).
    std::thread::sleep(std::time::Duration::from_millis(12));
    let seen = |dir: &Path| {
        let mut s = Seen::default();
        crate::history::tracked::walk_visiting(dir, &mut Vec::new(), &mut |e, rel, ft, md| s.visit(e, rel, ft, md));
        s
    };
    let view = Survey::view;
    let (own_state, seen_state) = (tmp.path().join("own"), tmp.path().join("seen"));
    let own = Survey::take_found(&dir, Some(&own_state), 0, None);
    let files = seen(&dir).files().expect("a flat dir is told by the walk");
    let from_walk = Survey::take_found(&dir, Some(&seen_state), 0, Some((files, true)));
    assert_eq!(view(&from_walk), view(&own));
    assert_eq!(own.view().len(), 40);
    assert!(own.complete && from_walk.complete);
    let bytes = |root: &Path| {
        let (p, _) = cache_file(root, &dir).unwrap();
        fs::read(p).unwrap()
    };
    assert_eq!(bytes(&seen_state), bytes(&own_state), "the same cache");
    // What only the survey's walk can tell.
    fs::create_dir_all(dir.join("sub")).unwrap();
    assert!(seen(&dir).files().is_none(), "a subdirectory");
    fs::remove_dir(dir.join("sub")).unwrap();
    std::os::unix::fs::symlink("m1.md", dir.join("link.md")).unwrap();
    assert!(seen(&dir).files().is_none(), "a symlink");
    assert!(Seen::default().files().is_none(), "no walk");
}

/// Files changed within the young window stay out of the cache while they are
/// few (the file a command just wrote: the next survey reads it again), and
/// are kept when many changed at once (a copy, a checkout, an import: the next
/// survey does not read them all again). Either way the answers are the scan's.
#[test]
fn a_few_young_files_stay_out_of_the_cache_and_a_batch_of_them_is_kept() {
    let hour = 3_600 * 1_000_000_000;
    for (n, kept) in [(YOUNG_FEW, false), (YOUNG_FEW + 1, true)] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("mem");
        let state = tmp.path().join("state");
        fs::create_dir_all(&dir).unwrap();
        for i in 0..n {
            fs::write(dir.join(format!("m{i}.md")), text((i % 4) as u8, false, &[], 0)).unwrap();
        }
        // A clock tick, so that the stamp is past every write (the racy rule).
        std::thread::sleep(std::time::Duration::from_millis(12));
        let first = Survey::take_with(&dir, Some(&state), hour);
        agree(&dir, &first).unwrap();
        let second = Survey::take_with(&dir, Some(&state), hour);
        agree(&dir, &second).unwrap();
        assert_eq!(second.hits, if kept { n } else { 0 }, "{n} young files");
    }
}
