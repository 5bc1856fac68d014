//! The whole clap command tree, undeferred: the one source that completion
//! (`complete`), generation (`generate`) and the usage-error lookups read.

use clap::{Args, CommandFactory};

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

#[cfg(test)]
mod tests {
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
}
