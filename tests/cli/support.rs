//! The test harness: a temp memory dir and home, an isolated environment, and a
//! builder that runs memctl and compares exact output.

#![allow(dead_code)]

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, UNIX_EPOCH};

use tempfile::TempDir;

/// `MEMCTL_NOW` in every test unless changed: 2026-03-10T12:00:00Z.
pub const NOW: &str = "2026-03-10T12:00:00Z";
pub const NOW_MS: u64 = 1_773_144_000_000;

pub struct Env {
    pub tmp: TempDir,
    args: Vec<OsString>,
    vars: Vec<(String, OsString)>,
    removed: Vec<String>,
    use_memctl_dir: bool,
    cwd: Option<PathBuf>,
    stdin: Option<Vec<u8>>,
}

/// The result of a run. It owns the `Env`, so the temp dir lives as long as the
/// `Run` is kept (bind it to read files afterwards).
pub struct Run {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
    _env: Env,
}

impl Env {
    /// A temp dir holding `home/` and the memory dir `mem/` (passed as `MEMCTL_DIR`).
    pub fn new() -> Env {
        let tmp = tempfile::tempdir().expect("tempdir");
        fs::create_dir_all(tmp.path().join("home")).unwrap();
        fs::create_dir_all(tmp.path().join("mem")).unwrap();
        fs::create_dir_all(tmp.path().join("tmp")).unwrap();
        Env {
            tmp,
            args: Vec::new(),
            vars: Vec::new(),
            removed: Vec::new(),
            use_memctl_dir: true,
            cwd: None,
            stdin: None,
        }
    }

    /// The canonical temp root (tempdirs may live behind a symlink).
    pub fn root(&self) -> PathBuf {
        fs::canonicalize(self.tmp.path()).unwrap()
    }

    pub fn home(&self) -> PathBuf {
        self.root().join("home")
    }

    pub fn dir(&self) -> PathBuf {
        self.root().join("mem")
    }

    /// `<mem>/` as memctl prints it.
    pub fn dir_shown(&self) -> String {
        format!("{}/", self.dir().display())
    }

    /// Write a memory file with its mtime `hours` before `NOW`.
    pub fn memory_aged(self, rel: &str, content: &str, hours: f64) -> Env {
        let path = self.dir().join(rel);
        write_aged(&path, content.as_bytes(), hours);
        self
    }

    /// Write a memory file modified one day before `NOW`.
    pub fn memory(self, rel: &str, content: &str) -> Env {
        self.memory_aged(rel, content, 24.0)
    }

    pub fn index(self, content: &str) -> Env {
        let path = self.dir().join("MEMORY.md");
        fs::write(path, content).unwrap();
        self
    }

    pub fn file(self, rel: &str, content: &[u8]) -> Env {
        let path = self.root().join(rel);
        if let Some(p) = path.parent() {
            fs::create_dir_all(p).unwrap();
        }
        fs::write(path, content).unwrap();
        self
    }

    pub fn arg(mut self, a: impl Into<OsString>) -> Env {
        self.args.push(a.into());
        self
    }

    pub fn args<I, S>(mut self, args: I) -> Env
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    pub fn env(mut self, k: &str, v: impl Into<OsString>) -> Env {
        self.vars.push((k.into(), v.into()));
        self
    }

    pub fn env_remove(mut self, k: &str) -> Env {
        self.removed.push(k.into());
        self
    }

    /// Resolve the memory dir instead of passing `MEMCTL_DIR`.
    pub fn resolved(mut self) -> Env {
        self.use_memctl_dir = false;
        self
    }

    pub fn cwd(mut self, p: impl Into<PathBuf>) -> Env {
        self.cwd = Some(p.into());
        self
    }

    pub fn stdin(mut self, bytes: impl Into<Vec<u8>>) -> Env {
        self.stdin = Some(bytes.into());
        self
    }

    pub fn command(&self) -> std::process::Command {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_memctl"));
        // A clean slate: every variable SPEC v3 reads is unset unless a test sets it —
        // the Claude ones and also DO_NOT_TRACK, DISABLE_TELEMETRY, DISABLE_GROWTHBOOK,
        // CLAUDE_CODE_DISABLE_FEATURE_FLAGS, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC,
        // CLAUDE_CODE_GB_DISK_CACHE_WHEN_TELEMETRY_OFF (server flags, §2.16),
        // CLAUDE_MEMORY_STORES (§2.13), CLAUDE_CODE_SAFE_MODE, CLAUDE_CODE_SIMPLE,
        // CLAUDE_CODE_ENTRYPOINT, CLAUDE_CODE_IGNORE_PERSISTED_TRUST,
        // CLAUDE_COWORK_MEMORY_INDEX_CONTENT, CLAUDE_CODE_POST_TURN_MEMORY, NO_COLOR,
        // MEMCTL_HISTORY, MEMCTL_MACHINE: a developer's shell never leaks in.
        cmd.env_clear();
        cmd.env("PATH", std::env::var_os("PATH").unwrap_or_default());
        cmd.env("HOME", self.home());
        cmd.env("CLAUDE_CONFIG_DIR", self.home().join(".claude"));
        cmd.env("MEMCTL_NOW", NOW);
        // History stores (SPEC §8.1) stay inside the temp dir.
        cmd.env("XDG_STATE_HOME", self.root().join("state"));
        // Drafts a refused `edit` keeps (`$TMPDIR/memctl-edit-*`) too: a test run
        // leaves nothing in the machine's /tmp.
        cmd.env("TMPDIR", self.root().join("tmp"));
        if self.use_memctl_dir {
            cmd.env("MEMCTL_DIR", self.dir());
        }
        for (k, v) in &self.vars {
            cmd.env(k, v);
        }
        for k in &self.removed {
            cmd.env_remove(k);
        }
        cmd.current_dir(self.cwd.clone().unwrap_or_else(|| self.root()));
        cmd.args(&self.args);
        cmd
    }

    #[track_caller]
    pub fn run(self) -> Run {
        let out = output_with_stdin(self.command(), self.stdin.clone());
        Run {
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            code: out.status.code().unwrap_or(-1),
            _env: self,
        }
    }
}

impl Run {
    #[track_caller]
    pub fn stdout(self, expected: &str) -> Run {
        assert_eq!(self.stdout, expected, "stdout differs; stderr was:\n{}", self.stderr);
        self
    }

    #[track_caller]
    pub fn stderr(self, expected: &str) -> Run {
        assert_eq!(self.stderr, expected, "stderr differs; stdout was:\n{}", self.stdout);
        self
    }

    /// Assert that stderr starts with `prefix` (a message's first words).
    #[track_caller]
    pub fn stderr_starts(&self, prefix: &str) -> &Run {
        assert!(
            self.stderr.starts_with(prefix),
            "stderr does not start with {prefix:?}:\n{}",
            self.stderr
        );
        self
    }

    /// Assert that stderr holds `part` (a warning among others).
    #[track_caller]
    pub fn stderr_has(&self, part: &str) -> &Run {
        assert!(self.stderr.contains(part), "stderr lacks {part:?}:\n{}", self.stderr);
        self
    }

    #[track_caller]
    pub fn code(self, code: i32) -> Run {
        assert_eq!(
            self.code, code,
            "exit code; stdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        self
    }

    #[track_caller]
    pub fn success(self) -> Run {
        self.code(0)
    }

    #[track_caller]
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", self.stdout))
    }

    #[track_caller]
    pub fn stderr_json(&self) -> serde_json::Value {
        serde_json::from_str(self.stderr.trim())
            .unwrap_or_else(|e| panic!("stderr is not JSON ({e}):\n{}", self.stderr))
    }
}

/// Write an executable shell script (a stub editor) under the temp root.
pub fn script(env: &Env, name: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let p = env.root().join(name);
    fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
    fs::set_permissions(&p, fs::Permissions::from_mode(0o755)).unwrap();
    p
}

/// `add` of a minimal user memory into the file `file`.
pub fn add_file_args(file: &str) -> [&str; 9] {
    [
        "add",
        "--type",
        "user",
        "--name",
        "n",
        "--description",
        "d",
        "--file",
        file,
    ]
}

/// Read a file under the memory dir.
#[track_caller]
pub fn read(env_dir: &Path, rel: &str) -> String {
    fs::read_to_string(env_dir.join(rel)).unwrap_or_else(|e| panic!("cannot read {rel}: {e}"))
}

/// Write a file whose mtime is `hours` before `NOW`.
pub fn write_aged(path: &Path, content: &[u8], hours: f64) {
    if let Some(p) = path.parent() {
        fs::create_dir_all(p).unwrap();
    }
    fs::write(path, content).unwrap();
    set_age(path, hours);
}

pub fn set_age(path: &Path, hours: f64) {
    let ms = NOW_MS as f64 - hours * 3_600_000.0;
    let t = UNIX_EPOCH + Duration::from_micros((ms * 1000.0).round() as u64);
    let f = fs::File::options()
        .write(true)
        .open(path)
        .or_else(|_| fs::File::open(path))
        .unwrap();
    f.set_modified(t).unwrap();
}

/// A unix time in ms as Claude Code prints it.
pub fn iso_hours_before_now(hours: f64) -> String {
    let ms = (NOW_MS as f64 - hours * 3_600_000.0) as i64;
    chrono::DateTime::from_timestamp_millis(ms)
        .unwrap()
        .format("%Y-%m-%dT%H:%M:%S%.3fZ")
        .to_string()
}

/// Run git in `dir`.
#[track_caller]
/// What `git --git-dir <git_dir> <args>` prints, when it succeeds (a bare repo's
/// refs, trees and files: the sync remote and state).
pub fn bare_git(git_dir: &Path, args: &[&str]) -> Option<String> {
    let out = std::process::Command::new("git")
        .arg("--git-dir")
        .arg(git_dir)
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// A git checkout at `dir` (created) whose `origin` is `url`: a project with an
/// identity (SPEC §11.1).
pub fn checkout(dir: &Path, url: &str) {
    std::fs::create_dir_all(dir).unwrap();
    git(dir, &["init", "-q"]);
    git(dir, &["remote", "add", "origin", url]);
}

/// Run git in `dir` with a fixed identity and no system or user config; its
/// stdout, trimmed.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args([
            "-c",
            "user.email=t@example.com",
            "-c",
            "user.name=t",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Run memctl in a pseudo-terminal (through util-linux `script`), answering
/// prompts: for each step, wait until the output holds `wait_for`, then type
/// `send`. Returns the terminal output once memctl exits.
#[track_caller]
pub fn run_in_pty(env: &Env, args: &[&str], steps: &[(&str, &str)]) -> String {
    let (output, status) = run_in_pty_status(env, args, steps);
    assert!(status.success(), "memctl in the pty failed: {output:?}");
    output
}

/// [`run_in_pty`], also returning how memctl ended (`script -e` passes it on).
#[track_caller]
pub fn run_in_pty_status(env: &Env, args: &[&str], steps: &[(&str, &str)]) -> (String, std::process::ExitStatus) {
    use std::io::{Read, Write};
    let mut cmd = env.command();
    cmd.args(args);
    let program = cmd.get_program().to_string_lossy().into_owned();
    let mut line = shell_words_quote(&program);
    for a in cmd.get_args() {
        line.push(' ');
        line.push_str(&shell_words_quote(&a.to_string_lossy()));
    }
    let mut script = std::process::Command::new("script");
    script
        .args(["-qec", &line, "/dev/null"])
        .current_dir(cmd.get_current_dir().unwrap_or(Path::new("/")));
    script.env_clear();
    for (k, v) in cmd.get_envs() {
        if let Some(v) = v {
            script.env(k, v);
        }
    }
    let mut child = script
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("script runs");
    // The reader hands over what the terminal shows as it comes; the channel
    // closes when memctl's side of the pty does.
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = stdout.read(&mut buf) {
            if n == 0 || tx.send(String::from_utf8_lossy(&buf[..n]).into_owned()).is_err() {
                break;
            }
        }
    });
    let mut output = String::new();
    let mut stdin = child.stdin.take().unwrap();
    for (wait_for, send) in steps {
        // Wait for the prompt itself, not for a while: the output or its end.
        while !output.contains(wait_for) {
            match rx.recv() {
                Ok(chunk) => output.push_str(&chunk),
                Err(_) => panic!("memctl ended before the prompt {wait_for:?}: {output:?}"),
            }
        }
        stdin.write_all(send.as_bytes()).unwrap();
        stdin.flush().unwrap();
    }
    // A Ctrl-C that reaches the terminal while the prompt is being drawn, before
    // console puts it in raw mode for the next key, is a SIGINT memctl holds until
    // that read returns: the prompt then waits for another key, as it does for a
    // person, who presses Ctrl-C again. So a last step of Ctrl-C is sent again
    // after each look at memctl that finds it still running, at most 900 times (a
    // count, not a deadline); a loaded machine makes that window wide enough to hit.
    let repeat = steps.last().is_some_and(|(_, send)| *send == "\x03");
    let mut looks = 0;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        looks += 1;
        if looks > 900 {
            let _ = child.kill();
            panic!("memctl did not exit after {looks} looks; output: {output:?}");
        }
        std::thread::sleep(Duration::from_millis(200));
        if repeat && child.try_wait().unwrap().is_none() {
            let _ = stdin.write_all(b"\x03");
            let _ = stdin.flush();
        }
    };
    drop(stdin);
    reader.join().unwrap();
    output.extend(rx.try_iter());
    (output, status)
}

/// Run `cmd` to completion with stdout and stderr captured and, when given, `input`
/// written to its stdin from a thread (so a child that writes before it reads cannot
/// deadlock the test); without input the child inherits the test's stdin.
pub fn output_with_stdin(mut cmd: std::process::Command, input: Option<Vec<u8>>) -> std::process::Output {
    use std::io::Write;
    use std::process::Stdio;
    if input.is_some() {
        cmd.stdin(Stdio::piped());
    }
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("memctl runs");
    let writer = input.map(|bytes| {
        let mut stdin = child.stdin.take().expect("piped stdin");
        std::thread::spawn(move || {
            // memctl may exit without reading everything: a broken pipe is fine.
            let _ = stdin.write_all(&bytes);
        })
    });
    let out = child.wait_with_output().expect("memctl runs");
    if let Some(w) = writer {
        w.join().expect("stdin writer");
    }
    out
}

/// Run `cmd` with captured output, killing it if it has not ended after `limit`: only
/// to turn a hang into a failure, never to judge speed.
pub fn output_within(mut cmd: std::process::Command, limit: Duration) -> std::process::Output {
    use std::process::Stdio;
    use std::sync::mpsc;
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let child = cmd.spawn().expect("memctl runs");
    let pid = child.id();
    let (tx, rx) = mpsc::channel::<()>();
    let watchdog = std::thread::spawn(move || {
        if rx.recv_timeout(limit).is_err() {
            let _ = std::process::Command::new("kill")
                .arg("-9")
                .arg(pid.to_string())
                .status();
        }
    });
    let out = child.wait_with_output().expect("memctl runs");
    let _ = tx.send(());
    watchdog.join().unwrap();
    out
}

fn shell_words_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// The lines of a terminal run ([`run_in_pty`]), without the CRs the pty adds.
pub fn pty_lines(out: &str) -> Vec<String> {
    out.lines().map(|l| l.trim_end_matches('\r').to_string()).collect()
}

/// At most `width` columns, unless the line is one unbreakable word (a path)
/// after its indent.
pub fn fits(line: &str, width: usize) -> bool {
    line.chars().count() <= width || !line.trim_start().contains(' ')
}

/// Wait for `child`, which was given the FIFO `fifo`, while a probe watches for a
/// reader on it: opening a FIFO's write end without blocking succeeds only while
/// someone holds its read end. Returns how `child` ended and whether it ever
/// opened the FIFO (the probe then closes it at once, so a memctl blocked on it
/// reads EOF and ends instead of hanging the test). No clock involved.
pub fn wait_never_opening(mut child: std::process::Child, fifo: &Path) -> (std::process::Output, bool) {
    use std::os::unix::fs::OpenOptionsExt;
    use std::sync::atomic::{AtomicBool, Ordering};
    let done = std::sync::Arc::new(AtomicBool::new(false));
    let probe = {
        let (done, fifo) = (std::sync::Arc::clone(&done), fifo.to_path_buf());
        std::thread::spawn(move || {
            let mut opened = false;
            while !done.load(Ordering::SeqCst) {
                let w = fs::OpenOptions::new()
                    .write(true)
                    .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
                    .open(&fifo);
                opened |= w.is_ok();
                std::thread::sleep(Duration::from_millis(5));
            }
            opened
        })
    };
    let out = {
        let status = child.wait().unwrap();
        let mut stderr = Vec::new();
        if let Some(mut e) = child.stderr.take() {
            let _ = std::io::Read::read_to_end(&mut e, &mut stderr);
        }
        std::process::Output {
            status,
            stdout: Vec::new(),
            stderr,
        }
    };
    done.store(true, Ordering::SeqCst);
    (out, probe.join().unwrap())
}
