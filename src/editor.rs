//! Which editor memctl runs (SPEC §3.8): `$VISUAL`, else `$EDITOR`, split with
//! shell-word rules and found on `PATH`; a set variable that cannot be used is an
//! error, never a silent fall-through. Without either, the `edit` crate's
//! discovery, minus file openers that return before editing ends, and only on a
//! terminal: an editor found that way (vim, nano) on a pipe would sit waiting for
//! keys nobody can type.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::{Error, Kind, io_words};
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

/// Whether memctl's stdin and stdout are a terminal an editor could run on.
pub fn on_terminal() -> bool {
    use std::io::IsTerminal;
    std::io::stdin().is_terminal() && std::io::stdout().is_terminal()
}

/// Resolve the editor from the environment; `terminal`: whether an editor memctl
/// finds itself (neither `$VISUAL` nor `$EDITOR` set) may be started.
pub fn resolve(env: &Env, terminal: bool) -> Result<Editor, Error> {
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
    if !terminal {
        return Err(Error::new(
            Kind::Editor,
            "no terminal for an editor, and neither $VISUAL nor $EDITOR is set",
        )
        .hint(HINT));
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
        let _survive = crate::prompt::SurviveSignals::new();
        cmd.status()
    }
    .map_err(|e| {
        Error::new(
            Kind::Editor,
            format!(
                "cannot run the editor {} ({}): {}",
                editor.program.display(),
                editor.source,
                io_words(&e)
            ),
        )
        .hint(HINT)
    })?;
    if !status.success() {
        return Err(Error::new(
            Kind::Editor,
            format!("the editor {} {}", editor.program.display(), exit_text(status)),
        )
        .hint("your draft is kept; see its path above"));
    }
    Ok(())
}

/// How a child ended, in words: `exited with status 3`, `was killed by signal 9`
/// (Rust's `Display` says `exit status: 3`).
pub fn exit_text(status: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exited with status {code}"),
        (None, Some(sig)) => format!("was killed by signal {sig}"),
        (None, None) => "failed".to_string(),
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
            Error::new(
                Kind::Io,
                format!("cannot write the draft {}: {}", path.display(), io_words(&e)),
            )
            .hint("check TMPDIR")
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

    fn resolve_t(env: &Env) -> Result<Editor, Error> {
        resolve(env, true)
    }

    #[test]
    fn no_fallback_editor_without_a_terminal() {
        let dir = tempfile::tempdir().unwrap();
        stub(dir.path(), "vim");
        let e = resolve(&env(&[], dir.path()), false).unwrap_err();
        assert_eq!(e.kind, Kind::Editor);
        assert_eq!(
            e.message,
            "no terminal for an editor, and neither $VISUAL nor $EDITOR is set"
        );
        assert_eq!(e.hint.as_deref(), Some(HINT));
        // A set variable is the user's choice: it runs without a terminal too.
        let e = resolve(&env(&[("EDITOR", "vim")], dir.path()), false).unwrap();
        assert_eq!(e.source, "$EDITOR");
    }

    #[test]
    fn exit_texts_read_as_words() {
        use std::os::unix::process::ExitStatusExt;
        let s = std::process::ExitStatus::from_raw(3 << 8);
        assert_eq!(exit_text(s), "exited with status 3");
        let s = std::process::ExitStatus::from_raw(9);
        assert_eq!(exit_text(s), "was killed by signal 9");
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
        let e = resolve_t(&env(&[("VISUAL", " \t "), ("EDITOR", "  ")], dir.path())).unwrap();
        assert_eq!(e.source, "default");
        assert_eq!(e.program, dir.path().join("nano"));
        let empty = tempfile::tempdir().unwrap();
        let e = resolve_t(&env(&[("VISUAL", " "), ("EDITOR", "\n")], empty.path())).unwrap_err();
        assert_eq!(e.message, "no editor found");
    }

    #[test]
    fn visual_wins_and_is_split_with_shell_words() {
        let dir = tempfile::tempdir().unwrap();
        stub(dir.path(), "vim");
        stub(dir.path(), "nano");
        let e = resolve_t(&env(
            &[("VISUAL", "vim -c 'set tw=80'"), ("EDITOR", "nano")],
            dir.path(),
        ))
        .unwrap();
        assert_eq!(e.program, dir.path().join("vim"));
        assert_eq!(e.args, vec!["-c", "set tw=80"]);
        assert_eq!(e.source, "$VISUAL");
        let e = resolve_t(&env(&[("VISUAL", ""), ("EDITOR", "nano")], dir.path())).unwrap();
        assert_eq!(e.source, "$EDITOR");
    }

    #[test]
    fn code_and_subl_get_a_wait_flag() {
        let dir = tempfile::tempdir().unwrap();
        stub(dir.path(), "code");
        stub(dir.path(), "subl");
        assert_eq!(
            resolve_t(&env(&[("EDITOR", "code")], dir.path())).unwrap().args,
            vec!["-w"]
        );
        assert_eq!(
            resolve_t(&env(&[("EDITOR", "code --wait")], dir.path())).unwrap().args,
            vec!["--wait"]
        );
        assert_eq!(
            resolve_t(&env(&[("EDITOR", "subl")], dir.path())).unwrap().args,
            vec!["--wait"]
        );
    }

    #[test]
    fn a_set_but_unusable_variable_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        stub(dir.path(), "nano");
        let e = resolve_t(&env(&[("VISUAL", "nosuchedit"), ("EDITOR", "nano")], dir.path())).unwrap_err();
        assert_eq!(e.kind, Kind::Editor);
        assert_eq!(
            e.message,
            "$VISUAL names `nosuchedit`, which is not an executable on PATH"
        );
        let e = resolve_t(&env(&[("EDITOR", "vim 'unclosed")], dir.path())).unwrap_err();
        assert!(e.message.starts_with("$EDITOR cannot be split into words"));
        stub(dir.path(), "xdg-open");
        let e = resolve_t(&env(&[("EDITOR", "xdg-open")], dir.path())).unwrap_err();
        assert!(e.message.contains("file opener"));
    }
}
