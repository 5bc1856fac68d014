//! Which editor memctl runs (SPEC §3.8): `$VISUAL`, else `$EDITOR`, split with
//! shell-word rules and found on `PATH`; a set variable that cannot be used is an
//! error, never a silent fall-through. Without either, the `edit` crate's
//! discovery, minus file openers that return before editing ends.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::{Error, Kind};
use crate::paths::Env;

/// A resolved editor command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Editor {
    pub program: PathBuf,
    pub args: Vec<String>,
    /// Where it came from: `$VISUAL`, `$EDITOR` or `default`.
    pub source: String,
}

const HINT: &str = "set $VISUAL or $EDITOR to an editor that waits until you close the file, e.g. `export EDITOR=vim`";

/// Editors tried in order when neither `$VISUAL` nor `$EDITOR` is usable (the `edit`
/// crate's list for Unix).
const FALLBACK: &[&str] = &[
    "sensible-editor",
    "nano",
    "pico",
    "vim",
    "nvim",
    "vi",
    "emacs",
    "code",
    "atom",
    "subl",
    "gedit",
    "gvim",
    "xdg-open",
    "gnome-open",
    "kde-open",
];

/// Programs that hand the file to another program and return at once.
fn is_file_opener(program: &Path, args: &[String]) -> bool {
    let name = program
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    match name.as_str() {
        "xdg-open" | "gnome-open" | "kde-open" | "start" => true,
        "open" => !args.iter().any(|a| a == "-W" || a == "-Wt"),
        _ => false,
    }
}

/// Find `program` on `PATH` (or as a path).
fn find_program(program: &str, env: &Env) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let executable = |p: &Path| p.is_file() && p.metadata().is_ok_and(|m| m.permissions().mode() & 0o111 != 0);
    if program.contains('/') {
        let p = env.cwd.join(program);
        return executable(&p).then_some(p);
    }
    let path = env.get_os("PATH")?;
    std::env::split_paths(path)
        .map(|d| d.join(program))
        .find(|p| executable(p))
}

/// Add the wait flag `code` and `subl` need, as Claude Code's `/memory` does.
fn with_wait_flag(program: &Path, mut args: Vec<String>) -> Vec<String> {
    let name = program
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let has_wait = args.iter().any(|a| a == "-w" || a == "--wait");
    match name.as_str() {
        "code" if !has_wait => args.push("-w".into()),
        "subl" if !has_wait => args.push("--wait".into()),
        _ => {}
    }
    args
}

/// Resolve the editor from the environment.
pub fn resolve(env: &Env) -> Result<Editor, Error> {
    for var in ["VISUAL", "EDITOR"] {
        let Some(value) = env.get(var).filter(|v| !v.trim().is_empty()) else {
            continue;
        };
        let words = shell_words::split(&value).map_err(|e| {
            Error::new(
                Kind::Editor,
                format!("${var} cannot be split into words ({e}): `{value}`"),
            )
            .hint(HINT)
        })?;
        let Some((first, rest)) = words.split_first() else {
            continue;
        };
        let program = find_program(first, env).ok_or_else(|| {
            Error::new(
                Kind::Editor,
                format!("${var} names `{first}`, which is not an executable on PATH"),
            )
            .hint(format!("fix ${var}, or unset it to let memctl look for an editor"))
        })?;
        if is_file_opener(&program, rest) {
            return Err(Error::new(
                Kind::Editor,
                format!("${var} is a file opener that does not wait for the edit: `{value}`"),
            )
            .hint(HINT));
        }
        let args = with_wait_flag(&program, rest.to_vec());
        return Ok(Editor {
            program,
            args,
            source: format!("${var}"),
        });
    }
    // The fallback list of the `edit` crate, looked up here: the crate itself reads
    // `$VISUAL`/`$EDITOR` again and panics on a value made only of whitespace,
    // which memctl treats as unset (above).
    let program = FALLBACK
        .iter()
        .find_map(|name| find_program(name, env))
        .ok_or_else(|| Error::new(Kind::Editor, "no editor found").hint(HINT))?;
    if is_file_opener(&program, &[]) {
        return Err(Error::new(
            Kind::Editor,
            format!(
                "the only editor found is a file opener that does not wait: {}",
                program.display()
            ),
        )
        .hint(HINT));
    }
    let args = with_wait_flag(&program, Vec::new());
    Ok(Editor {
        program,
        args,
        source: "default".into(),
    })
}

/// Run the editor on `file` and wait; a failure or non-zero exit is an `editor` error.
/// While it runs, memctl ignores SIGINT, SIGTERM and SIGHUP (as git does), so a
/// signal aimed at the terminal's foreground job reaches the editor but never kills
/// memctl before it has said where the draft is; the editor gets memctl's original
/// dispositions back, and so does memctl afterwards.
pub fn run(editor: &Editor, file: &Path) -> Result<(), Error> {
    let mut cmd = Command::new(&editor.program);
    cmd.args(&editor.args).arg(file);
    let status = {
        let _ignored = IgnoreSignals::new(&mut cmd);
        cmd.status()
    }
    .map_err(|e| {
        Error::new(
            Kind::Editor,
            format!(
                "cannot run the editor {} ({}): {e}",
                editor.program.display(),
                editor.source
            ),
        )
        .hint(HINT)
    })?;
    if !status.success() {
        return Err(Error::new(
            Kind::Editor,
            format!("the editor {} exited with {status}", editor.program.display()),
        )
        .hint("your draft is kept; see its path above"));
    }
    Ok(())
}

/// The signals memctl survives while the editor runs.
const EDITOR_SIGNALS: [i32; 3] = [
    signal_hook::consts::SIGINT,
    signal_hook::consts::SIGTERM,
    signal_hook::consts::SIGHUP,
];

/// While alive, [`EDITOR_SIGNALS`] do not kill memctl (as git does around its
/// editor), so memctl can still say where the draft is; afterwards they act as
/// before (terminate). The editor is unaffected: exec resets caught signals to
/// their default. signal-hook keeps this free of `unsafe`: its handler, installed
/// once per process, performs the default action whenever `DIE` is set.
struct IgnoreSignals;

fn die_flag() -> &'static std::sync::Arc<std::sync::atomic::AtomicBool> {
    static DIE: std::sync::OnceLock<std::sync::Arc<std::sync::atomic::AtomicBool>> = std::sync::OnceLock::new();
    DIE.get_or_init(|| {
        let die = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
        for sig in EDITOR_SIGNALS {
            let _ = signal_hook::flag::register_conditional_default(sig, std::sync::Arc::clone(&die));
        }
        die
    })
}

impl IgnoreSignals {
    fn new(_cmd: &mut Command) -> IgnoreSignals {
        die_flag().store(false, std::sync::atomic::Ordering::SeqCst);
        IgnoreSignals
    }
}

impl Drop for IgnoreSignals {
    fn drop(&mut self) {
        die_flag().store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

/// A fresh private directory (mode 0700) in the system temp dir for a draft.
pub fn draft_dir(prefix: &str) -> Result<PathBuf, Error> {
    use std::os::unix::fs::DirBuilderExt;
    let base = std::env::temp_dir();
    for _ in 0..16 {
        let dir = base.join(format!("{prefix}-{}", crate::store::random_hex(8)));
        match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(Error::new(
                    Kind::Io,
                    format!("cannot create a draft directory in {}: {e}", base.display()),
                )
                .hint("check TMPDIR"));
            }
        }
    }
    Err(Error::new(
        Kind::Io,
        format!("cannot create a draft directory in {}", base.display()),
    )
    .hint("check TMPDIR"))
}

/// Write a draft with mode 0600.
pub fn write_draft(path: &Path, content: &[u8]) -> Result<(), Error> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .and_then(|mut f| f.write_all(content).and_then(|()| f.sync_all()))
        .map_err(|e| {
            Error::new(Kind::Io, format!("cannot write the draft {}: {e}", path.display())).hint("check TMPDIR")
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(vars: &[(&str, &str)], path: &Path) -> Env {
        let mut e = Env {
            cwd: PathBuf::from("/"),
            ..Env::default()
        };
        e.vars.insert("PATH".into(), path.as_os_str().to_owned());
        for (k, v) in vars {
            e.vars.insert((*k).into(), (*v).into());
        }
        e
    }

    fn stub(dir: &Path, name: &str) {
        use std::os::unix::fs::PermissionsExt;
        let p = dir.join(name);
        std::fs::write(&p, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    #[test]
    fn whitespace_only_variables_are_unset() {
        let dir = tempfile::tempdir().unwrap();
        stub(dir.path(), "nano");
        let e = resolve(&env(&[("VISUAL", " \t "), ("EDITOR", "  ")], dir.path())).unwrap();
        assert_eq!(e.source, "default");
        assert_eq!(e.program, dir.path().join("nano"));
        let empty = tempfile::tempdir().unwrap();
        let e = resolve(&env(&[("VISUAL", " "), ("EDITOR", "\n")], empty.path())).unwrap_err();
        assert_eq!(e.message, "no editor found");
    }

    #[test]
    fn visual_wins_and_is_split_with_shell_words() {
        let dir = tempfile::tempdir().unwrap();
        stub(dir.path(), "vim");
        stub(dir.path(), "nano");
        let e = resolve(&env(
            &[("VISUAL", "vim -c 'set tw=80'"), ("EDITOR", "nano")],
            dir.path(),
        ))
        .unwrap();
        assert_eq!(e.program, dir.path().join("vim"));
        assert_eq!(e.args, vec!["-c", "set tw=80"]);
        assert_eq!(e.source, "$VISUAL");
        let e = resolve(&env(&[("VISUAL", ""), ("EDITOR", "nano")], dir.path())).unwrap();
        assert_eq!(e.source, "$EDITOR");
    }

    #[test]
    fn code_and_subl_get_a_wait_flag() {
        let dir = tempfile::tempdir().unwrap();
        stub(dir.path(), "code");
        stub(dir.path(), "subl");
        assert_eq!(
            resolve(&env(&[("EDITOR", "code")], dir.path())).unwrap().args,
            vec!["-w"]
        );
        assert_eq!(
            resolve(&env(&[("EDITOR", "code --wait")], dir.path())).unwrap().args,
            vec!["--wait"]
        );
        assert_eq!(
            resolve(&env(&[("EDITOR", "subl")], dir.path())).unwrap().args,
            vec!["--wait"]
        );
    }

    #[test]
    fn a_set_but_unusable_variable_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        stub(dir.path(), "nano");
        let e = resolve(&env(&[("VISUAL", "nosuchedit"), ("EDITOR", "nano")], dir.path())).unwrap_err();
        assert_eq!(e.kind, Kind::Editor);
        assert_eq!(
            e.message,
            "$VISUAL names `nosuchedit`, which is not an executable on PATH"
        );
        let e = resolve(&env(&[("EDITOR", "vim 'unclosed")], dir.path())).unwrap_err();
        assert!(e.message.starts_with("$EDITOR cannot be split into words"));
        stub(dir.path(), "xdg-open");
        let e = resolve(&env(&[("EDITOR", "xdg-open")], dir.path())).unwrap_err();
        assert!(e.message.contains("file opener"));
    }
}
