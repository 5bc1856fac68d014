//! `memctl export` and `memctl import` (SPEC §11.2): two fake homes whose project
//! checkouts share an `origin` URL at different paths.

use std::fs;
use std::io::Write;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::support::{Env, checkout};

const ORIGIN: &str = "https://github.com/Alice/App.git";

/// A home with a git checkout at `<root>/<name>` (origin set), and its memory dir
/// as Claude Code resolves it there.
fn machine(name: &str) -> (Env, PathBuf, PathBuf) {
    let env = Env::new().resolved();
    let proj = env.root().join(name);
    checkout(&proj, ORIGIN);
    let (_, out, _) = memctl(&env, &proj, &[], &["path"]);
    let mem = PathBuf::from(out.trim());
    fs::create_dir_all(&mem).unwrap();
    (env, proj, mem)
}

fn memctl(env: &Env, cwd: &Path, vars: &[(&str, &str)], args: &[&str]) -> (i32, String, String) {
    let mut cmd = env.command();
    cmd.current_dir(cwd).args(args).stdin(std::process::Stdio::null());
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn memory(name: &str, ty: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: d\ntype: {ty}\n---\n{body}\n")
}

/// Every file below `dir`, relative, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap().flatten() {
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            } else {
                out.push(e.path().strip_prefix(dir).unwrap().display().to_string());
            }
        }
    }
    out.sort();
    out
}

/// A laptop with three memories exported to `<laptop root>/b.tar.gz`.
fn exported() -> (Env, PathBuf) {
    let (env, proj, mem) = machine("app");
    fs::write(mem.join("user_a.md"), memory("a", "user", "body a")).unwrap();
    fs::write(mem.join("feedback_b.md"), memory("b", "feedback", "laptop b")).unwrap();
    fs::write(mem.join("project_c.md"), memory("c", "project", "same c")).unwrap();
    fs::write(mem.join("notes.txt"), "not tracked").unwrap();
    fs::write(
        mem.join("MEMORY.md"),
        "# Index\n## User\n- [A](user_a.md) — a\n## Feedback\n- [B](feedback_b.md) — b\n- [C](project_c.md) — c\n",
    )
    .unwrap();
    let old = filetime(&mem.join("user_a.md"), 1_700_000_000);
    assert_eq!(old, 1_700_000_000);
    let bundle = env.root().join("b.tar.gz");
    let (code, out, err) = memctl(
        &env,
        &proj,
        &[("MEMCTL_MACHINE", "laptop")],
        &["export", "-o", bundle.to_str().unwrap(), "--json"],
    );
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["projects"][0]["identity"], "github.com/Alice/App");
    assert_eq!(doc["projects"][0]["files"], 4, "notes.txt stays: {doc}");
    (env, bundle)
}

/// Set the mtime of `p` to `secs`; returns the mtime read back.
fn filetime(p: &Path, secs: i64) -> i64 {
    let f = fs::File::options().write(true).open(p).unwrap();
    f.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs as u64))
        .unwrap();
    fs::metadata(p).unwrap().mtime()
}

#[test]
fn import_adds_skips_keeps_conflicts_and_merges_the_index() {
    let (laptop, bundle) = exported();
    let (desk, proj, mem) = machine("checkout-elsewhere");
    fs::write(mem.join("feedback_b.md"), memory("b", "feedback", "desktop b")).unwrap();
    fs::write(mem.join("project_c.md"), memory("c", "project", "same c")).unwrap();
    fs::write(
        mem.join("MEMORY.md"),
        "# Index\n## Feedback\n- [B](feedback_b.md) — desktop b\n",
    )
    .unwrap();
    // The history store records the project root and identity for `projects`.
    let (code, _, err) = memctl(&desk, &proj, &[], &["snapshot"]);
    assert_eq!(code, 0, "{err}");
    let before = listing(&mem);
    let b = bundle.to_str().unwrap();
    let (code, out, err) = memctl(&desk, &proj, &[], &["import", b, "--dry-run"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("dry run: nothing written"), "{out}");
    assert_eq!(listing(&mem), before);
    let (code, _, err) = memctl(&desk, &proj, &[], &["import", b]);
    assert_eq!(code, 2, "no terminal and no --yes is a usage error: {err}");
    assert_eq!(listing(&mem), before);
    let (code, out, err) = memctl(&desk, &proj, &[], &["import", b, "--yes", "--json"]);
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let p = &doc["projects"][0];
    assert_eq!(p["identity"], "github.com/Alice/App");
    assert_eq!(p["memory_dir"], format!("{}", mem.display()));
    assert_eq!(p["added"], serde_json::json!(["user_a.md"]));
    assert_eq!(p["updated"], serde_json::json!(["MEMORY.md"]));
    assert_eq!(p["skipped"], serde_json::json!(["project_c.md"]));
    let kept = "feedback_b.md.conflict-laptop-20260310";
    assert_eq!(
        p["conflicts"],
        serde_json::json!([{"file": "feedback_b.md", "kept_as": kept, "reason": "the local file differs"}])
    );
    assert_eq!(fs::metadata(mem.join("user_a.md")).unwrap().mtime(), 1_700_000_000);
    assert!(
        fs::read_to_string(mem.join("feedback_b.md"))
            .unwrap()
            .contains("desktop b")
    );
    assert!(fs::read_to_string(mem.join(kept)).unwrap().contains("laptop b"));
    let index = fs::read_to_string(mem.join("MEMORY.md")).unwrap();
    assert_eq!(
        index,
        "# Index\n## Feedback\n- [B](feedback_b.md) — desktop b\n- [A](user_a.md) — a\n- [C](project_c.md) — c\n"
    );
    // Imported again: nothing new.
    let (code, out, _) = memctl(&desk, &proj, &[], &["import", b, "--yes", "--json"]);
    assert_eq!(code, 0);
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["projects"][0]["added"], serde_json::json!([]));
    assert_eq!(doc["projects"][0]["updated"], serde_json::json!([]));
    assert!(!mem.join(format!("{kept}-2")).exists());
    drop(laptop);
}

#[test]
fn a_conflict_name_collision_gets_a_number() {
    let (_laptop, bundle) = exported();
    let (desk, _proj, mem) = machine("other");
    fs::write(mem.join("feedback_b.md"), memory("b", "feedback", "desktop b")).unwrap();
    fs::write(mem.join("feedback_b.md.conflict-laptop-20260310"), "older conflict").unwrap();
    let m = mem.display().to_string();
    let (code, out, err) = memctl(
        &desk,
        &desk.root(),
        &[],
        &["import", bundle.to_str().unwrap(), "--into", &m, "--yes", "--json"],
    );
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        doc["projects"][0]["conflicts"][0]["kept_as"],
        "feedback_b.md.conflict-laptop-20260310-2"
    );
}

#[test]
fn export_strict_refuses_a_secret_and_writes_nothing() {
    let (env, proj, mem) = machine("app");
    fs::write(
        mem.join("user_a.md"),
        memory("a", "user", "token ghp_abcdefghijklmnopqrstuvwxyz0123456789"),
    )
    .unwrap();
    let out = env.root().join("s.tar.gz");
    let (code, _, err) = memctl(&env, &proj, &[], &["export", "--strict", "-o", out.to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("secret-like") && err.contains("user_a.md:6"), "{err}");
    assert!(!out.exists());
    // Issue 34 point 4 (SPEC v3 §11.2): refused by default too (exit 2), naming
    // the file and line; written only with --allow-secrets.
    let (code, _, err) = memctl(&env, &proj, &[], &["export", "-o", out.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("export refused: the bundle would hold 1 secret-like token (ML121), nothing written"),
        "{err}"
    );
    assert!(err.contains("user_a.md:6: ML121"), "{err}");
    assert!(err.contains("hint:") && err.contains("--allow-secrets"), "{err}");
    assert!(!out.exists());
    let (code, _, err) = memctl(
        &env,
        &proj,
        &[],
        &["export", "--allow-secrets", "-o", out.to_str().unwrap()],
    );
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("secret-like") && err.contains("user_a.md:6"), "{err}");
    assert!(out.exists());
}

#[test]
fn a_project_without_identity_needs_as() {
    let env = Env::new();
    fs::write(env.dir().join("user_a.md"), memory("a", "user", "a")).unwrap();
    let out = env.root().join("n.tar.gz");
    let o = out.to_str().unwrap();
    let (code, _, err) = memctl(&env, &env.root(), &[], &["export", "-o", o]);
    assert_ne!(code, 0);
    assert!(err.contains("--as ID"), "{err}");
    assert!(!out.exists());
    let (code, _, err) = memctl(&env, &env.root(), &[], &["export", "--as", "notes/scratch", "-o", o]);
    assert_eq!(code, 0, "{err}");
}

/// Write a `.tar.gz` with `manifest` and `members` (name, bytes, tar entry type).
fn raw_bundle(path: &Path, manifest: &serde_json::Value, members: &[(&str, &[u8], tar::EntryType)]) {
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let mut t = tar::Builder::new(gz);
    let json = serde_json::to_vec(manifest).unwrap();
    let mut h = tar::Header::new_gnu();
    h.set_size(json.len() as u64);
    h.set_mode(0o600);
    t.append_data(&mut h, "memctl-bundle.json", &json[..]).unwrap();
    for (name, bytes, kind) in members {
        if name.len() > 99 {
            // A long name (GNU extension); the builder writes it, as it holds no `..`.
            let mut h = tar::Header::new_gnu();
            h.set_size(bytes.len() as u64);
            h.set_mode(0o600);
            t.append_data(&mut h, name, *bytes).unwrap();
            continue;
        }
        let mut h = tar::Header::new_old();
        h.set_entry_type(*kind);
        h.set_mode(0o600);
        h.set_size(if *kind == tar::EntryType::Symlink {
            0
        } else {
            bytes.len() as u64
        });
        // Written raw: the builder itself refuses `..`.
        let field = &mut h.as_old_mut().name;
        field[..name.len()].copy_from_slice(name.as_bytes());
        if *kind == tar::EntryType::Symlink {
            h.set_link_name("/etc/passwd").unwrap();
        }
        h.set_cksum();
        let data: &[u8] = if *kind == tar::EntryType::Symlink { &[] } else { bytes };
        t.append(&h, data).unwrap();
    }
    let gz = t.into_inner().unwrap();
    fs::File::create(path)
        .unwrap()
        .write_all(&gz.finish().unwrap())
        .unwrap();
}

fn manifest(format: u64, files: serde_json::Value) -> serde_json::Value {
    serde_json::json!({
        "format": format, "memctl_version": "0", "created_at": "2026-01-01T00:00:00.000Z",
        "machine": "evil", "projects": [{"identity": "github.com/Alice/App", "key": null,
        "project_path": null, "files": files}]
    })
}

fn sha(b: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(b).iter().map(|x| format!("{x:02x}")).collect()
}

#[test]
fn bad_bundles_are_refused_before_anything_is_written() {
    let env = Env::new();
    let body = memory("a", "user", "a");
    let good =
        serde_json::json!([{"path": "user_a.md", "size": body.len(), "mtime_ns": 0, "sha256": sha(body.as_bytes())}]);
    let reg = tar::EntryType::Regular;
    let member = "projects/github.com__Alice__App/user_a.md";
    type Members = Vec<(String, Vec<u8>, tar::EntryType)>;
    let cases: Vec<(&str, serde_json::Value, Members, &str)> = vec![
        (
            "tampered",
            manifest(1, good.clone()),
            vec![(member.into(), b"tampered".to_vec(), reg)],
            "checksum",
        ),
        (
            "dotdot",
            manifest(1, good.clone()),
            vec![
                (member.into(), body.clone().into_bytes(), reg),
                ("projects/../../x.md".into(), b"x".to_vec(), reg),
            ],
            "unsafe member path",
        ),
        (
            "symlink",
            manifest(1, good.clone()),
            vec![(member.into(), Vec::new(), tar::EntryType::Symlink)],
            "not a regular file",
        ),
        (
            "version",
            manifest(2, good.clone()),
            vec![(member.into(), body.clone().into_bytes(), reg)],
            "format version 2",
        ),
        (
            "unsafe-manifest-path",
            manifest(
                1,
                serde_json::json!([{"path": "../user_a.md", "size": 1, "mtime_ns": 0, "sha256": sha(b"x")}]),
            ),
            vec![],
            "unsafe file path",
        ),
    ];
    let before = listing(&env.dir());
    for (name, m, members, want) in cases {
        let path = env.root().join(format!("{name}.tar.gz"));
        let members: Vec<(&str, &[u8], tar::EntryType)> =
            members.iter().map(|(n, b, k)| (n.as_str(), b.as_slice(), *k)).collect();
        raw_bundle(&path, &m, &members);
        let d = env.dir().display().to_string();
        let (code, _, err) = memctl(
            &env,
            &env.root(),
            &[],
            &["import", path.to_str().unwrap(), "--into", &d, "--yes"],
        );
        assert_ne!(code, 0, "{name}");
        assert!(err.contains(want), "{name}: {err}");
        assert_eq!(listing(&env.dir()), before, "{name}");
    }
}

#[test]
fn a_bundle_of_very_many_members_is_bounded() {
    let env = Env::new();
    let path = env.root().join("bomb.tar.gz");
    let names: Vec<String> = (0..10_050).map(|i| format!("projects/x/m{i}.md")).collect();
    let members: Vec<(&str, &[u8], tar::EntryType)> = names
        .iter()
        .map(|n| (n.as_str(), &b""[..], tar::EntryType::Regular))
        .collect();
    raw_bundle(&path, &manifest(1, serde_json::json!([])), &members);
    let d = env.dir().display().to_string();
    let (code, _, err) = memctl(
        &env,
        &env.root(),
        &[],
        &["import", path.to_str().unwrap(), "--into", &d, "--yes"],
    );
    assert_ne!(code, 0);
    assert!(err.contains("more than 10000 members"), "{err}");
    assert!(listing(&env.dir()).is_empty());
}

#[test]
fn a_bundle_is_never_written_inside_the_memory_dir() {
    let (env, proj, mem) = machine("app");
    fs::write(mem.join("user_a.md"), memory("a", "user", "body a")).unwrap();
    let before = listing(&mem);
    let inside = mem.join("b.tar.gz");
    let (code, _, err) = memctl(&env, &proj, &[], &["export", "-o", inside.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("inside the memory dir"), "{err}");
    assert_eq!(listing(&mem), before);
}

/// Import `path` into `env`'s dir with `--yes`: (exit code, stderr).
fn import_into(env: &Env, path: &Path) -> (i32, String) {
    let d = env.dir().display().to_string();
    let (code, _, err) = memctl(
        env,
        &env.root(),
        &[],
        &["import", path.to_str().unwrap(), "--into", &d, "--yes"],
    );
    (code, err)
}

#[test]
fn paths_into_dot_dirs_or_too_deep_are_refused_and_nothing_is_written() {
    let env = Env::new();
    let body = memory("evil", "user", "x");
    let reg = tar::EntryType::Regular;
    let deep = format!("{}x.md", "d/".repeat(33));
    for (path, want) in [
        (".memctl/evil.md", "`.memctl/` is a dot path"),
        (".trash/x.md", "`.trash/` is a dot path"),
        (".git/x.md", "`.git/` is a dot path"),
        ("sub/.hidden/x.md", "`.hidden/` is a dot path"),
        (".x.md", "`.x.md` is a dot path"),
        (deep.as_str(), "nest 33 deep, past the limit of 32"),
    ] {
        let files = serde_json::json!([
            {"path": "user_a.md", "size": body.len(), "mtime_ns": 0, "sha256": sha(body.as_bytes())},
            {"path": path, "size": body.len(), "mtime_ns": 0, "sha256": sha(body.as_bytes())},
        ]);
        let a = "projects/github.com__Alice__App/user_a.md".to_string();
        let member = format!("projects/github.com__Alice__App/{path}");
        let bundle = env.root().join("dot.tar.gz");
        raw_bundle(
            &bundle,
            &manifest(1, files),
            &[(&a, body.as_bytes(), reg), (&member, body.as_bytes(), reg)],
        );
        let (code, err) = import_into(&env, &bundle);
        assert_eq!(code, 2, "{path}: {err}");
        assert!(err.contains(want), "{path}: {err}");
        assert!(listing(&env.dir()).is_empty(), "{path}: nothing written");
    }
}

#[test]
fn export_leaves_out_what_import_would_refuse() {
    let (env, proj, mem) = machine("app");
    fs::write(mem.join("user_a.md"), memory("a", "user", "a")).unwrap();
    fs::create_dir_all(mem.join(".git")).unwrap();
    fs::write(mem.join(".git/x.md"), memory("x", "user", "x")).unwrap();
    let out = env.root().join("b.tar.gz");
    let (code, _, err) = memctl(&env, &proj, &[], &["export", "-o", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains(".git/x.md: `.git/` is a dot path"), "{err}");
    let (other, _, omem) = machine("other");
    let d = omem.display().to_string();
    let (code, _, err) = memctl(
        &other,
        &other.root(),
        &[],
        &["import", out.to_str().unwrap(), "--into", &d, "--yes"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(omem.join("user_a.md").exists());
}

#[test]
fn a_file_over_64_mib_is_refused_before_it_is_read() {
    let env = Env::new();
    // Built with the system's tar and gzip (64 MiB of zeros compress to ~64 KiB).
    let src = env.root().join("src");
    let dir = src.join("projects/github.com__Alice__App");
    fs::create_dir_all(&dir).unwrap();
    let size: u64 = (64 << 20) + 1;
    fs::File::create(dir.join("user_big.md"))
        .unwrap()
        .set_len(size)
        .unwrap();
    let sum = std::process::Command::new("sha256sum")
        .arg(dir.join("user_big.md"))
        .output()
        .unwrap();
    let sum = String::from_utf8_lossy(&sum.stdout)
        .split(' ')
        .next()
        .unwrap()
        .to_string();
    let files = serde_json::json!([{"path": "user_big.md", "size": size, "mtime_ns": 0, "sha256": sum}]);
    fs::write(src.join("memctl-bundle.json"), manifest(1, files).to_string()).unwrap();
    let bundle = env.root().join("big.tar.gz");
    let ok = std::process::Command::new("tar")
        .arg("-czf")
        .arg(&bundle)
        .arg("-C")
        .arg(&src)
        .args(["memctl-bundle.json", "projects/github.com__Alice__App/user_big.md"])
        .status()
        .unwrap();
    assert!(ok.success());
    let (code, err) = import_into(&env, &bundle);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("user_big.md is 67108865 bytes, over the limit of 64 MiB per file"),
        "{err}"
    );
    assert!(listing(&env.dir()).is_empty());
}

#[test]
fn bundle_mtimes_are_clamped_with_a_note() {
    let env = Env::new();
    let reg = tar::EntryType::Regular;
    let year_2248: i64 = 8_800_000_000 * 1_000_000_000;
    let year_1901: i64 = -2_177_452_800 * 1_000_000_000;
    let mut files = Vec::new();
    let mut members = Vec::new();
    for (name, mtime) in [
        ("user_future.md", year_2248),
        ("user_old.md", year_1901),
        ("user_ok.md", 1_700_000_000_000_000_000),
    ] {
        let body = memory(name, "user", name);
        files.push(
            serde_json::json!({"path": name, "size": body.len(), "mtime_ns": mtime, "sha256": sha(body.as_bytes())}),
        );
        members.push((format!("projects/github.com__Alice__App/{name}"), body));
    }
    let bundle = env.root().join("t.tar.gz");
    let m: Vec<(&str, &[u8], tar::EntryType)> = members.iter().map(|(n, b)| (n.as_str(), b.as_bytes(), reg)).collect();
    raw_bundle(&bundle, &manifest(1, serde_json::Value::Array(files)), &m);
    let (code, err) = import_into(&env, &bundle);
    assert_eq!(code, 0, "{err}");
    let secs = |f: &str| fs::metadata(env.dir().join(f)).unwrap().mtime();
    let now = 1_773_144_000; // support::NOW
    assert_eq!(secs("user_future.md"), now + 86_400);
    assert_eq!(secs("user_old.md"), 86_400);
    assert_eq!(secs("user_ok.md"), 1_700_000_000);
    assert!(
        err.contains("memctl: note: github.com/Alice/App: 2 incoming files had an mtime outside 1970-01-02 … now + 1 day and got the nearest bound: user_future.md (2248-11-10 → 2026-03-11), user_old.md (1901-01-01 → 1970-01-02)"),
        "{err}"
    );
}

/// The system calls of `memctl import` of `n` memories (two of them in a
/// subdirectory) into an empty dir, counted by strace: (fsyncs, readlinks, syncfs calls).
/// `None` without strace.
fn import_syscalls(n: usize) -> Option<(usize, usize, usize)> {
    let env = Env::new();
    let src = env.root().join(format!("src-{n}"));
    fs::create_dir_all(src.join("sub")).unwrap();
    let mut index = String::from("# Index\n");
    for i in 0..n {
        let rel = if i < 2 {
            format!("sub/user_{i}.md")
        } else {
            format!("user_{i}.md")
        };
        fs::write(src.join(&rel), memory(&format!("m{i}"), "user", "body")).unwrap();
        index.push_str(&format!("- [M{i}]({rel}) — m\n"));
    }
    fs::write(src.join("MEMORY.md"), index).unwrap();
    let bundle = env.root().join(format!("b-{n}.tar.gz"));
    let s = src.display().to_string();
    let (code, _, err) = memctl(
        &env,
        &env.root(),
        &[("MEMCTL_HISTORY", "off")],
        &[
            "--dir",
            &s,
            "export",
            "--as",
            "bench/app",
            "-o",
            bundle.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0, "{err}");
    let into = env.root().join(format!("into-{n}"));
    fs::create_dir_all(&into).unwrap();
    let trace = env.root().join(format!("trace-{n}"));
    let cmd = env.command();
    let program = cmd.get_program().to_owned();
    let args: Vec<_> = cmd.get_args().map(ToOwned::to_owned).collect();
    let envs: Vec<_> = cmd
        .get_envs()
        .map(|(k, v)| (k.to_owned(), v.map(ToOwned::to_owned)))
        .collect();
    let mut strace = std::process::Command::new("strace");
    strace
        .args(["-f", "-e", "trace=fsync,fdatasync,readlink,syncfs", "-o"])
        .arg(&trace)
        .arg(program)
        .args(args)
        .args([
            "import",
            bundle.to_str().unwrap(),
            "--into",
            into.to_str().unwrap(),
            "--yes",
        ])
        .env("MEMCTL_HISTORY", "off")
        .stdin(std::process::Stdio::null());
    for (k, v) in envs {
        match v {
            Some(v) => strace.env(k, v),
            None => strace.env_remove(k),
        };
    }
    let out = strace.output().ok()?;
    if !trace.exists() {
        return None;
    }
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let files = listing(&into);
    assert_eq!(files.iter().filter(|f| f.ends_with(".md")).count(), n + 1, "{files:?}");
    let text = fs::read_to_string(&trace).unwrap();
    let count = |call: &str| text.lines().filter(|l| l.contains(&format!(" {call}("))).count();
    Some((count("fsync") + count("fdatasync"), count("readlink"), count("syncfs")))
}

/// Issue 31: `import` fsyncs each file once (before its rename) and each directory
/// once, not every file and its directory; and resolves each directory's real
/// path once, not every file's (no `readlink` per file). Counted with strace
/// (skipped without it): ten more files cost ten more fsyncs and no readlink.
#[test]
fn import_fsyncs_each_file_once_and_each_directory_once() {
    let (Some((f3, r3, s3)), Some((f13, r13, _))) = (import_syscalls(3), import_syscalls(13)) else {
        eprintln!("strace is not installed: skipped");
        return;
    };
    assert_eq!(f13 - f3, 10, "fsyncs: {f3} for 3 files, {f13} for 13");
    assert_eq!(r13, r3, "readlinks: {r3} for 3 files, {r13} for 13");
    assert_eq!(
        s3, 0,
        "a few files are fsynced one by one, the filesystem is not synced"
    );
}

/// Issue 31, Linux: a batch of 64 files or more is made durable with one `syncfs`
/// before its renames instead of an fsync per file (20 000 fsyncs took 5.7–11.5 s
/// where one `syncfs` took 0.2 s): more files cost no more fsyncs.
#[cfg(target_os = "linux")]
#[test]
fn a_large_import_syncs_the_filesystem_once_not_each_file() {
    let (Some((f70, _, s70)), Some((f140, _, s140))) = (import_syscalls(70), import_syscalls(140)) else {
        eprintln!("strace is not installed: skipped");
        return;
    };
    assert_eq!(f140, f70, "fsyncs: {f70} for 70 files, {f140} for 140");
    assert!(f70 < 10, "fsyncs: {f70} for 70 files (the directories only)");
    assert_eq!((s70, s140), (1, 1), "syncfs calls for 70 and 140 files");
}

/// SPEC §4.1 for `import`'s batches (issue 31): an import killed after its k-th
/// file is renamed into place leaves exactly those k files, each whole, and the
/// rest of its batch only as temp files (dot names, never scanned as memories);
/// importing again completes it. Both ways a batch is made durable: an fsync per
/// file (a few files), one `syncfs` per group (64 files or more, Linux), a
/// group synced while the next is written (more than 256).
#[test]
fn an_import_killed_between_its_files_leaves_whole_files_and_only_dot_temp_files() {
    killed_import(6, &[1, 2, 3]);
    killed_import(70, &[1, 64, 69]);
    // Groups of 256 synced while the next is written: killed while the first
    // group is renamed (the second written), and within the second.
    killed_import(600, &[100, 300]);
}

fn killed_import(n: usize, kill_after: &[usize]) {
    let env = Env::new();
    let src = env.root().join("src");
    fs::create_dir_all(src.join("sub")).unwrap();
    let mut index = String::from("# Index\n");
    for i in 0..n {
        let rel = if i < 2 {
            format!("sub/user_{i}.md")
        } else {
            format!("user_{i}.md")
        };
        fs::write(src.join(&rel), memory(&format!("m{i}"), "user", &"body ".repeat(500))).unwrap();
        index.push_str(&format!("- [M{i}]({rel}) — m\n"));
    }
    fs::write(src.join("MEMORY.md"), &index).unwrap();
    let bundle = env.root().join("b.tar.gz");
    let s = src.display().to_string();
    let off = [("MEMCTL_HISTORY", "off")];
    let export = [
        "--dir",
        &s,
        "export",
        "--as",
        "bench/app",
        "-o",
        bundle.to_str().unwrap(),
    ];
    let (code, _, err) = memctl(&env, &env.root(), &off, &export);
    assert_eq!(code, 0, "{err}");
    for &k in kill_after {
        let into = env.root().join(format!("into-{k}"));
        fs::create_dir_all(&into).unwrap();
        let i = into.display().to_string();
        let args = ["import", bundle.to_str().unwrap(), "--into", &i, "--yes"];
        let kill = [
            ("MEMCTL_HISTORY", "off"),
            ("MEMCTL_TEST_KILL_AFTER", &k.to_string()[..]),
        ];
        let (code, _, err) = memctl(&env, &env.root(), &kill, &args);
        assert_ne!(code, 0, "killed after file {k}: {err}");
        let files = listing(&into);
        let (temps, whole): (Vec<&String>, Vec<&String>) = files
            .iter()
            .partition(|f| Path::new(f).file_name().unwrap().to_string_lossy().starts_with('.'));
        assert_eq!(whole.len(), k, "{files:?}");
        for f in &whole {
            assert_eq!(fs::read(into.join(f)).unwrap(), fs::read(src.join(f)).unwrap(), "{f}");
        }
        assert!(
            temps.iter().all(|t| t.ends_with(".tmp") || *t == ".memctl.lock"),
            "{files:?}"
        );
        let (code, _, err) = memctl(&env, &env.root(), &off, &args);
        assert_eq!(code, 0, "{err}");
        assert!(into.join("MEMORY.md").is_file());
        for f in listing(&src).iter().filter(|f| *f != "MEMORY.md") {
            assert_eq!(fs::read(into.join(f)).unwrap(), fs::read(src.join(f)).unwrap(), "{f}");
        }
    }
}

#[test]
fn an_origin_added_later_wins_over_the_recorded_root_commit() {
    // issue 32 point 13, SPEC §11.1: the remote comes first, re-derived from the
    // repository's config, never a stale recorded `root:<sha>`.
    let env = Env::new().resolved();
    let proj = env.root().join("app");
    fs::create_dir_all(&proj).unwrap();
    crate::support::git(&proj, &["init", "-q"]);
    fs::write(proj.join("README"), "x\n").unwrap();
    crate::support::git(&proj, &["add", "README"]);
    crate::support::git(&proj, &["commit", "-qm", "init"]);
    let (_, out, _) = memctl(&env, &proj, &[], &["path"]);
    let mem = PathBuf::from(out.trim());
    fs::create_dir_all(&mem).unwrap();
    fs::write(mem.join("user_a.md"), memory("a", "user", "body a")).unwrap();
    fs::write(mem.join("MEMORY.md"), "- [A](user_a.md) — a\n").unwrap();
    // memctl writes to it (its history store records `root:<sha>`) before origin exists.
    let (code, _, err) = memctl(&env, &proj, &[], &["snapshot"]);
    assert_eq!(code, 0, "{err}");
    let (_, out, _) = memctl(&env, &proj, &[], &["projects", "--json"]);
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(
        doc["projects"][0]["identity"].as_str().unwrap().starts_with("root:"),
        "{doc}"
    );
    crate::support::git(&proj, &["remote", "add", "origin", ORIGIN]);
    let (_, out, _) = memctl(&env, &proj, &[], &["projects", "--json"]);
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["projects"][0]["identity"], "github.com/Alice/App", "{doc}");
    // The project's own bundle comes back home.
    let bundle = env.root().join("b.tar.gz");
    let (code, _, err) = memctl(&env, &proj, &[], &["export", "-o", bundle.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    fs::remove_file(mem.join("user_a.md")).unwrap();
    let (code, out, err) = memctl(&env, &proj, &[], &["import", "--yes", bundle.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(!err.contains("skipped"), "{err}");
    assert_eq!(
        fs::read_to_string(mem.join("user_a.md")).unwrap(),
        memory("a", "user", "body a")
    );
}

/// SPEC §3.14 "Budget refusals" (issue 32): an import whose index lines fall past
/// Claude Code's cut imports, then names each entry now past the cut (file, line,
/// text) and suggests `index rebuild`; `--json` lists them in `cut_entries`.
#[test]
fn an_import_that_cuts_the_index_names_each_entry_past_the_cut() {
    let (laptop, bundle) = exported();
    let (desk, proj, mem) = machine("checkout-elsewhere");
    let filler: String = (0..198).map(|i| format!("- [E{i}](e{i}.md) — e\n")).collect();
    fs::write(mem.join("MEMORY.md"), &filler).unwrap();
    let b = bundle.to_str().unwrap();
    let (code, out, err) = memctl(&desk, &proj, &[], &["import", b, "--yes", "--json"]);
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let cut = doc["projects"][0]["cut_entries"].as_array().unwrap();
    assert_eq!(cut.len(), 1, "{out}");
    let index = fs::read_to_string(mem.join("MEMORY.md")).unwrap();
    let line = cut[0]["line"].as_u64().unwrap() as usize;
    assert_eq!(line, 201, "{index}");
    let text = cut[0]["text"].as_str().unwrap();
    assert_eq!(index.lines().nth(line - 1), Some(text));
    assert!(
        text.contains(&format!("]({})", cut[0]["file"].as_str().unwrap())),
        "{text}"
    );
    let warnings: Vec<&str> = doc["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|w| w.as_str())
        .collect();
    assert!(
        warnings.contains(
            &format!("github.com/Alice/App: MEMORY.md:201: past Claude Code's cut, it does not load: {text}").as_str()
        ),
        "{warnings:?}"
    );
    assert!(
        warnings.iter().any(|w| w
            .starts_with("1 entry is past Claude Code's cut in github.com/Alice/App: MEMORY.md: run `memctl --dir ")
            && w.contains(" index rebuild`")),
        "{warnings:?}"
    );
    drop(laptop);
}

/// Issue 34 point 11: `import` run inside a checkout with the bundle's identity
/// finds that checkout's memory dir, though no history names the project (its
/// path has a `-`, so the dir's key cannot tell it), and in a fresh checkout with
/// no memory dir yet it creates the one Claude Code will read.
#[test]
fn import_inside_the_checkout_with_the_identity_finds_its_memory_dir() {
    let (laptop, bundle) = exported();
    let b = bundle.to_str().unwrap();
    let (desk, proj, mem) = machine("checkout-elsewhere");
    let (code, out, err) = memctl(&desk, &proj, &[], &["import", b, "--yes", "--json"]);
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["projects"][0]["memory_dir"], format!("{}", mem.display()), "{out}");
    assert!(mem.join("user_a.md").is_file(), "{out}");

    let fresh = Env::new().resolved();
    let clone = fresh.root().join("fresh-clone");
    checkout(&clone, ORIGIN);
    let (_, out, _) = memctl(&fresh, &clone, &[], &["path"]);
    let mem = PathBuf::from(out.trim());
    assert!(!mem.exists());
    let (code, out, err) = memctl(&fresh, &clone, &[], &["import", b, "--yes"]);
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("no memory dir"), "{out}");
    assert!(mem.join("user_a.md").is_file(), "{out}\n{err}");
    drop(laptop);
}

/// From 32 files a directory, import reads each directory's names once rather
/// than asking for each file: the files already there are still found, the
/// same ones skipped and the different ones kept beside them.
#[test]
fn a_large_import_still_finds_each_file_already_there() {
    let (laptop, proj, mem) = machine("app");
    fs::create_dir(mem.join("notes")).unwrap();
    let mut index = String::from("# Index\n");
    for i in 0..40 {
        for rel in [format!("user_m{i:02}.md"), format!("notes/n{i:02}.md")] {
            fs::write(mem.join(&rel), memory(&rel, "user", &format!("laptop {rel}"))).unwrap();
            index.push_str(&format!("- [{rel}]({rel}) — m\n"));
        }
    }
    fs::write(mem.join("MEMORY.md"), &index).unwrap();
    let bundle = laptop.root().join("many.tar.gz");
    let (code, _, err) = memctl(
        &laptop,
        &proj,
        &[("MEMCTL_MACHINE", "laptop")],
        &["export", "-o", bundle.to_str().unwrap()],
    );
    assert_eq!(code, 0, "{err}");
    let (desk, dproj, dmem) = machine("elsewhere");
    fs::create_dir(dmem.join("notes")).unwrap();
    fs::copy(mem.join("user_m07.md"), dmem.join("user_m07.md")).unwrap();
    fs::write(dmem.join("notes/n31.md"), memory("n31", "user", "desk")).unwrap();
    let (code, out, err) = memctl(
        &desk,
        &dproj,
        &[],
        &["import", bundle.to_str().unwrap(), "--yes", "--json"],
    );
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let p = &doc["projects"][0];
    assert_eq!(p["added"].as_array().unwrap().len(), 78, "{p}");
    assert_eq!(p["skipped"], serde_json::json!(["user_m07.md"]));
    let kept = "notes/n31.md.conflict-laptop-20260310";
    assert_eq!(
        p["conflicts"],
        serde_json::json!([{"file": "notes/n31.md", "kept_as": kept, "reason": "the local file differs"}])
    );
    assert!(fs::read_to_string(dmem.join("notes/n31.md")).unwrap().contains("desk"));
    assert!(
        fs::read_to_string(dmem.join(kept))
            .unwrap()
            .contains("laptop notes/n31.md")
    );
    for i in [0, 39] {
        let rel = format!("notes/n{i:02}.md");
        assert_eq!(fs::read(dmem.join(&rel)).unwrap(), fs::read(mem.join(&rel)).unwrap());
    }
}
