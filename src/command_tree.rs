//! The whole clap command tree, undeferred: the one source that completion
//! (`complete`), generation (`generate`) and the usage-error lookups read; and
//! the command line parsed by a tree that holds only the command it runs.

use std::ffi::OsString;
use std::mem::ManuallyDrop;

use clap::{Args, CommandFactory, FromArgMatches};

use crate::cli::{self, Cli};

/// The whole command tree, as clap declares it without deferral: for completions,
/// man pages, `__complete` and the lookups behind usage errors.
///
/// `Cli::command()` defers each command's arguments (`#[command(defer = true)]` on
/// `cli::Command`) so that a run builds only the command it runs: building all of
/// them cost more start-up than `truncate-check` spends on its work. A deferred
/// command resolved by [`clap::Command::build`] gets the global options before its
/// own and a `help` subcommand in each nested help tree, which would change every
/// generated file; so each command's arguments are added here first, as the
/// derive does without `defer`, and its deferral cleared.
pub fn command() -> clap::Command {
    Cli::command().mut_subcommands(|sub| match own_args(sub.get_name()) {
        Some(augment) => augment(sub.defer(std::convert::identity)),
        None => sub,
    })
}

/// The arguments (and nested subcommands) of the top-level command `name`, by
/// the `Args` type of its `cli::Command` variant.
fn own_args(name: &str) -> Option<fn(clap::Command) -> clap::Command> {
    Some(match name {
        "path" => cli::PathArgs::augment_args,
        "list" => cli::ListArgs::augment_args,
        "show" => cli::ShowArgs::augment_args,
        "truncate-check" => cli::TruncateCheckArgs::augment_args,
        "lint" => cli::LintArgs::augment_args,
        "add" => cli::AddArgs::augment_args,
        "forget" => cli::ForgetArgs::augment_args,
        "edit" => cli::EditArgs::augment_args,
        "lock" => cli::LockArgs::augment_args,
        "completions" => cli::CompletionsArgs::augment_args,
        "man" => cli::ManArgs::augment_args,
        "dream" => cli::DreamArgs::augment_args,
        "snapshot" => cli::SnapshotArgs::augment_args,
        "history" => cli::HistoryArgs::augment_args,
        "diff" => cli::DiffArgs::augment_args,
        "restore" => cli::RestoreArgs::augment_args,
        "undo" => cli::UndoArgs::augment_args,
        "index" => cli::IndexArgs::augment_args,
        "hook" => cli::HookArgs::augment_args,
        "config" => cli::ConfigArgs::augment_args,
        "projects" => cli::ProjectsArgs::augment_args,
        "search" => cli::SearchArgs::augment_args,
        "export" => cli::ExportArgs::augment_args,
        "import" => cli::ImportArgs::augment_args,
        "sync" => cli::SyncArgs::augment_args,
        "review" => cli::ReviewArgs::augment_args,
        "mcp" => cli::McpArgs::augment_args,
        _ => return None,
    })
}

/// The command line `args` (with the program name first) as `Cli::try_parse_from`
/// reads it.
///
/// First by a tree that holds only the command the line names: clap copies every
/// global option into every command of the tree it parses with (6 options into 27
/// commands, ~150 KB of arguments built and first touched on every run; issue 31,
/// where `show FILE.md` is held to 2x `cat`). Any line that tree does not parse
/// (an error, `--help`, `--version`, a line naming no command, `help`) is parsed
/// again by the whole tree, so its errors and help are the whole tree's. What the
/// one-command tree accepts, the whole tree reads the same: the same global
/// options before the command, the same command (deferred alike), nothing else.
///
/// Neither tree is dropped: freeing every argument, help text and subcommand
/// costs about a third as much as building them, for memory the process returns
/// at exit anyway.
pub fn parse(args: &[OsString]) -> Result<Cli, clap::Error> {
    let full = ManuallyDrop::new(Cli::command());
    if let Some(cli) = parse_in_one(&full, args) {
        return Ok(cli);
    }
    let mut cmd = ManuallyDrop::new(ManuallyDrop::into_inner(full));
    let mut matches = ManuallyDrop::new(cmd.try_get_matches_from_mut(args)?);
    Cli::from_arg_matches_mut(&mut matches).map_err(|e| e.format(&mut cmd))
}

/// `args` parsed by a tree with `full`'s global options and only the command the
/// line names, or `None` when that tree does not parse it.
fn parse_in_one(full: &clap::Command, args: &[OsString]) -> Option<Cli> {
    let globals: Vec<&clap::Arg> = full.get_arguments().collect();
    let name = command_named(args, &globals)?;
    let command = full.find_subcommand(name).filter(|c| c.get_name() == name)?;
    let one = clap::Command::new("memctl")
        .args(globals.into_iter().cloned())
        .subcommand(command.clone())
        .subcommand_required(true);
    let mut one = ManuallyDrop::new(one);
    let mut matches = ManuallyDrop::new(one.try_get_matches_from_mut(args).ok()?);
    Cli::from_arg_matches_mut(&mut matches).ok()
}

/// The command `args` names: the first word after the program name that is
/// neither a global option nor such an option's value. `None` at anything else
/// before it (`--`, a short option, an option the top level does not have, a
/// word that is not UTF-8): the whole tree then decides.
fn command_named<'a>(args: &'a [OsString], globals: &[&clap::Arg]) -> Option<&'a str> {
    let mut words = args.iter().skip(1);
    while let Some(word) = words.next() {
        let word = word.to_str()?;
        let Some(long) = word.strip_prefix("--") else {
            return (!word.starts_with('-')).then_some(word);
        };
        if long.is_empty() {
            return None;
        }
        let (long, inline) = match long.split_once('=') {
            Some((l, _)) => (l, true),
            None => (long, false),
        };
        let arg = globals.iter().find(|a| a.get_long() == Some(long))?;
        if !inline && arg.get_action().takes_values() {
            words.next()?;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[test]
    fn every_command_has_its_own_arguments_listed() {
        let missing: Vec<String> = Cli::command()
            .get_subcommands()
            .map(|s| s.get_name().to_string())
            .filter(|n| own_args(n).is_none())
            .collect();
        assert!(missing.is_empty(), "add to command_tree::own_args: {missing:?}");
    }

    fn line(words: &[&str]) -> Vec<OsString> {
        std::iter::once("memctl")
            .chain(words.iter().copied())
            .map(OsString::from)
            .collect()
    }

    /// What the whole tree alone reads of `args`, as text (an error as its kind,
    /// exit code and message).
    fn by_whole_tree(args: &[OsString]) -> Result<String, String> {
        Cli::try_parse_from(args)
            .map(|c| format!("{c:?}"))
            .map_err(|e| error_text(&e))
    }

    fn error_text(e: &clap::Error) -> String {
        format!("{} {} {}", e.kind(), e.exit_code(), e.render())
    }

    #[test]
    fn a_line_the_one_command_tree_parses_reads_as_the_whole_tree_reads_it() {
        let names: Vec<String> = Cli::command()
            .get_subcommands()
            .map(|s| s.get_name().to_string())
            .collect();
        let mut lines: Vec<Vec<OsString>> = Vec::new();
        for name in &names {
            let n = name.as_str();
            for words in [
                vec![n],
                vec!["--json", n],
                vec!["--dir", "d", n, "--json"],
                vec!["--dir=d", "--color", "never", n, "x"],
                vec![n, "--dir", "d", "--no-history", "--team"],
                vec!["--project", "p", n, "--color=always", "--format", "json"],
                vec![n, "x", "y", "--json"],
                vec![n, "--help"],
                vec!["--version", n],
                vec!["--bogus", n],
                vec!["--", n],
                vec!["-q", n],
                vec!["--dir", n, "list"],
                vec!["help", n],
                vec![n, "--", "--json"],
            ] {
                lines.push(line(&words));
            }
        }
        // Nested commands, and values that look like options.
        for words in [
            "hook install --scope project -n",
            "--json lock status",
            "lock status --json --dir d",
            "config set autoMemoryEnabled -1",
            "path --x -y",
            "index rebuild --dry-run",
            "hook status --color=never",
            "--dir=-d show x",
            "show -",
            "show --raw -- --json",
        ] {
            lines.push(line(&words.split(' ').collect::<Vec<_>>()));
        }
        let mut one_parsed = 0;
        for args in &lines {
            let Some(cli) = parse_in_one(&Cli::command(), args) else {
                continue;
            };
            one_parsed += 1;
            assert_eq!(Ok(format!("{cli:?}")), by_whole_tree(args), "{args:?}");
        }
        // Most of the lines above are ones a user runs.
        assert!(
            one_parsed > names.len() * 3,
            "only {one_parsed} of {} parsed in one",
            lines.len()
        );
        // And `parse` reads every line as the whole tree does, errors included.
        for args in &lines {
            let got = parse(args).map(|c| format!("{c:?}")).map_err(|e| error_text(&e));
            assert_eq!(got, by_whole_tree(args), "{args:?}");
        }
    }

    #[test]
    fn the_lines_users_run_most_are_parsed_by_the_one_command_tree() {
        for words in [
            "--dir /m show feedback_x.md",
            "show x --json",
            "hook",
            "list",
            "--json lint",
            "add --type user --name n --description d --body b",
            "forget x --dir=/m",
        ] {
            let args = line(&words.split(' ').collect::<Vec<_>>());
            assert!(parse_in_one(&Cli::command(), &args).is_some(), "{words:?}");
        }
    }

    #[test]
    fn the_command_is_the_first_word_neither_a_global_option_nor_its_value() {
        let full = Cli::command();
        let globals: Vec<&clap::Arg> = full.get_arguments().collect();
        let named = |words: &[&str]| command_named(&line(words), &globals).map(str::to_string);
        assert_eq!(named(&["show", "x"]).as_deref(), Some("show"));
        assert_eq!(named(&["--dir", "show", "list"]).as_deref(), Some("list"));
        assert_eq!(named(&["--dir=show", "list"]).as_deref(), Some("list"));
        assert_eq!(
            named(&["--json", "--team", "--no-history", "path"]).as_deref(),
            Some("path")
        );
        assert_eq!(
            named(&["--color", "never", "--project", "p", "lint"]).as_deref(),
            Some("lint")
        );
        assert_eq!(named(&["--", "show"]), None);
        assert_eq!(named(&["-h", "show"]), None);
        assert_eq!(named(&["--bogus", "show"]), None);
        assert_eq!(named(&["--dir"]), None);
        assert_eq!(named(&[]), None);
    }
}
