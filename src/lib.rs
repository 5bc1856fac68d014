//! memctl: inspect and manage Claude Code's file-based auto memory.
//!
//! The binary is thin: `main` parses the command line and calls [`run`]; errors are
//! printed by [`report`] in the form of SPEC §3.1.
//!
//! Layers, lowest first: a module uses its own layer and those below, never one
//! above (`scripts/structure` checks it; modules of one layer may use each other).
//!
//! 1. text, error, dates, age, fx, claude, fsread, yaml, frontmatter, prompt, lock, sessions, bundle, tmpname, heap, spare:
//!    base utilities (`tmpname`: the temp-file names the store writes and the scan skips;
//!    `heap`: free memory given back; `spare`: cache files written over a spare)
//! 2. cli, command_tree, output, diff: the command line as data and the output it asks
//!    for; below the model because `output` takes its colour choice from `cli` and
//!    `history` renders diffs
//! 3. memdir, memory, paths, scan, index, identity, entry: the model (where memory lives,
//!    what a memory and an index are); `identity` is here because `paths` reports it
//! 4. store, history, claude_md: writing and recording (the writer records history,
//!    history locks through the store, `claude_md` stats files as history does)
//! 5. lint, dream, review, search, sync, ops, projects, context, editor, settings_file:
//!    the features over the model (`ops` and `projects` use each other)
//! 6. commands, hook, mcp, complete, generate: the entry points

pub mod age;
pub mod bundle;
pub mod claude;
pub mod claude_md;
pub mod cli;
pub mod command_tree;
pub mod commands;
pub mod complete;
pub mod context;
pub mod dates;
pub mod diff;
pub mod dream;
pub mod editor;
pub mod entry;
pub mod error;
pub mod frontmatter;
pub mod fsread;
pub mod fx;
pub mod generate;
pub mod heap;
pub mod history;
pub mod hook;
pub mod identity;
pub mod index;
pub mod lint;
pub mod lock;
pub mod mcp;
pub mod memdir;
pub mod memory;
pub mod ops;
pub mod output;
pub mod paths;
pub mod projects;
pub mod prompt;
pub mod review;
pub mod scan;
pub mod search;
pub mod sessions;
pub mod settings_file;
pub mod spare;
pub mod store;
pub mod sync;
pub mod text;
pub mod tmpname;
pub mod yaml;

#[cfg(test)]
mod props;

use std::io;
use std::process::ExitCode;

use cli::Cli;
use error::{Error, ExitPolicy, Kind};

/// Run a parsed command line. `Ok` carries 0 or 1 (findings); errors are reported
/// by [`report`].
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    // Lets the tests prove that a panic becomes an `internal` error (debug builds only).
    #[cfg(debug_assertions)]
    if std::env::var_os("MEMCTL_DEBUG_PANIC").is_some() {
        panic!("MEMCTL_DEBUG_PANIC is set");
    }
    let mut out = output::Output::new(wants_json(&cli), cli.color);
    let ctx = context::Context::from_cli(&cli)?;
    let code = commands::run(&cli.command, &ctx, &mut out)?;
    out.flush()?;
    Ok(code)
}

/// `--json`, or a `--format json` that implies the JSON contract (SPEC §3.1).
pub fn wants_json(cli: &Cli) -> bool {
    cli.json
        || matches!(&cli.command, cli::Command::List(a) if a.format == Some(cli::ListFormat::Json))
        || matches!(&cli.command, cli::Command::Lint(a) if a.format == Some(cli::LintFormat::Json))
}

/// A broken pipe anywhere in the chain: the reader went away, exit quietly with 0.
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<io::Error>()
            .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
    })
}

/// Classify any error as a memctl [`Error`] with its kind.
pub fn classify(err: &anyhow::Error) -> Error {
    if let Some(e) = err.chain().find_map(|e| e.downcast_ref::<Error>()) {
        return e.clone();
    }
    if err.chain().any(|e| e.downcast_ref::<io::Error>().is_some()) {
        return Error::new(Kind::Io, format!("{err:#}")).hint("check the path and its permissions");
    }
    Error::new(Kind::Internal, format!("{err:#}")).hint("this is a bug in memctl; please report it")
}

/// Print an error on stderr (text with its `hint:` line, or the JSON object) and
/// return its exit code.
pub fn report(err: &anyhow::Error, json: bool) -> ExitCode {
    print_error(&classify(err), json)
}

/// The exit policy of a command line: the Claude Code hook's own, else standard.
pub fn exit_policy(cli: &Cli) -> ExitPolicy {
    match &cli.command {
        cli::Command::Hook(a) if a.command.is_none() => ExitPolicy::Hook,
        _ => ExitPolicy::Standard,
    }
}

/// [`report`] under `policy`.
pub fn report_with(err: &anyhow::Error, json: bool, policy: ExitPolicy) -> ExitCode {
    print_error_with(&classify(err), json, policy)
}

/// Print a classified error; returns its exit code under the standard policy.
pub fn print_error(e: &Error, json: bool) -> ExitCode {
    print_error_with(e, json, ExitPolicy::Standard)
}

/// Print a classified error on stderr and map it to an exit code by `policy`.
/// A closed stderr is ignored: it must not turn an error into an abort.
pub fn print_error_with(e: &Error, json: bool, policy: ExitPolicy) -> ExitCode {
    use std::io::Write;
    let text = if json {
        #[derive(serde::Serialize)]
        struct Doc<'a> {
            error: &'a Error,
        }
        format!("{}\n", serde_json::to_string(&Doc { error: e }).unwrap_or_default())
    } else {
        match &e.hint {
            Some(h) => format!("memctl: {}\nhint: {h}\n", e.message),
            None => format!("memctl: {}\n", e.message),
        }
    };
    let _ = io::stderr().lock().write_all(text.as_bytes());
    ExitCode::from(policy.exit_code(e.kind))
}

/// Turn clap's parse error into a `usage` error (help and version pass through).
/// `args` is the command line, to find the subcommand whose help the hint names
/// when clap's message has no usage line.
pub fn usage_error(e: &clap::Error, args: &[std::ffi::OsString]) -> Option<Error> {
    use clap::error::ErrorKind as K;
    if matches!(
        e.kind(),
        K::DisplayHelp | K::DisplayVersion | K::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        return None;
    }
    let rendered = e.render().to_string();
    let mut lines = rendered.lines().filter(|l| !l.trim().is_empty());
    let first = lines.next().unwrap_or("invalid command line");
    let mut message = first.strip_prefix("error: ").unwrap_or(first).replace('\'', "`");
    // "Usage: memctl show [OPTIONS] <REF>": the subcommand whose help to point at.
    let sub = rendered
        .lines()
        .find_map(|l| l.trim().strip_prefix("Usage: memctl "))
        .and_then(|u| command_path(u.split_whitespace()))
        .or_else(|| subcommand_in(args));
    if e.kind() == K::MissingRequiredArgument {
        message = missing_arguments(&rendered, sub.as_deref());
    }
    let help = match &sub {
        Some(s) => format!("run `memctl {s} --help` for usage"),
        None => "run `memctl --help` for usage".into(),
    };
    let hint = match rendered
        .lines()
        .find_map(|l| l.trim().strip_prefix("tip: ").map(|t| t.replace('\'', "`")))
    {
        Some(tip) => format!("{tip}; {help}"),
        None => help,
    };
    Some(Error::new(Kind::Usage, message).hint(hint))
}

/// The leading `words` that name a command and its subcommands (`projects merge`
/// from `projects merge [OPTIONS] <FROM> <INTO>`), or `None`.
fn command_path<'a>(words: impl Iterator<Item = &'a str>) -> Option<String> {
    let root = generate::command();
    let mut cmd = &root;
    let mut path: Vec<&str> = Vec::new();
    for w in words {
        match cmd.find_subcommand(w) {
            Some(sub) if w.chars().all(|c| c.is_ascii_lowercase() || c == '-') => {
                cmd = sub;
                path.push(w);
            }
            _ => break,
        }
    }
    (!path.is_empty()).then(|| path.join(" "))
}

/// The command named by a path such as `projects merge`.
fn find_path<'a>(root: &'a clap::Command, path: &str) -> Option<&'a clap::Command> {
    path.split(' ').try_fold(root, |c, w| c.find_subcommand(w))
}

/// The first word of `args` that names a subcommand, skipping the values of the
/// global options that take one.
fn subcommand_in(args: &[std::ffi::OsString]) -> Option<String> {
    let root = generate::command();
    let mut skip = false;
    for a in args.iter().skip(1) {
        let a = a.to_str()?;
        if std::mem::take(&mut skip) {
            continue;
        }
        if matches!(a, "--dir" | "--project" | "--color") {
            skip = true;
        } else if !a.starts_with('-') {
            return root.find_subcommand(a).map(|s| s.get_name().to_string());
        }
    }
    None
}

/// "missing <REF>: the memory to show, by file, stem or name" from clap's list of
/// missing arguments, with each argument's help line.
fn missing_arguments(rendered: &str, sub: Option<&str>) -> String {
    let root = generate::command();
    let cmd = sub.and_then(|s| find_path(&root, s)).unwrap_or(&root);
    let names: Vec<&str> = rendered
        .lines()
        .skip_while(|l| !l.contains("were not provided"))
        .skip(1)
        .map(str::trim)
        .take_while(|l| !l.is_empty() && !l.starts_with("Usage:"))
        .collect();
    let described: Vec<String> = names
        .iter()
        .map(|n| {
            let bare = n
                .trim_start_matches('-')
                .trim_matches(['<', '>', '.'])
                .split([' ', '='])
                .next()
                .unwrap_or("");
            let help = cmd
                .get_arguments()
                .find(|a| {
                    a.get_value_names()
                        .is_some_and(|v| v.iter().any(|v| v.as_str() == bare))
                        || a.get_long() == Some(bare)
                })
                .and_then(|a| a.get_help())
                .map(|h| h.to_string().to_lowercase());
            match help {
                Some(h) => format!("{n}: {}", h.trim_end_matches('.')),
                None => n.to_string(),
            }
        })
        .collect();
    if described.is_empty() {
        "a required argument is missing".into()
    } else {
        format!("missing {}", described.join("; "))
    }
}

/// Install a panic hook that reports any panic as an `internal` error (exit 2).
pub fn install_panic_hook(json: bool) {
    install_panic_hook_with(json, ExitPolicy::Standard);
}

/// [`install_panic_hook`] with the exit code of `policy` (1 for the hook).
pub fn install_panic_hook_with(json: bool, policy: ExitPolicy) {
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "panic".into());
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        let e = Error::new(Kind::Internal, format!("internal error: {what}{at}"))
            .hint("this is a bug in memctl; please report it with the command you ran");
        let code = policy.exit_code(Kind::Internal);
        let _ = print_error_with(&e, json, policy);
        std::process::exit(i32::from(code));
    }));
}
