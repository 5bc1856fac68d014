//! One file per subcommand; this is the dispatch.

mod add;
mod completions;
mod config;
mod diff;
mod dream;
mod edit;
mod export;
mod forget;
mod history;
mod hook;
mod import;
mod index;
mod lint;
mod list;
mod lock;
mod man;
mod mcp;
mod path;
mod projects;
mod projects_merge;
mod restore;
mod review;
mod search;
mod show;
mod snapshot;
mod sync;
mod truncate_check;
mod undo;

use std::process::ExitCode;

use anyhow::Result;

use crate::cli::{Command, ProjectsCommand};
use crate::context::Context;
use crate::output::Output;

pub fn run(command: &Command, ctx: &Context, out: &mut Output) -> Result<ExitCode> {
    match command {
        Command::Path(args) => path::run(args, ctx, out),
        Command::List(args) => list::run(args, ctx, out),
        Command::Show(args) => show::run(args, ctx, out),
        Command::TruncateCheck(args) => truncate_check::run(args, ctx, out),
        Command::Lint(args) => lint::run(args, ctx, out),
        Command::Add(args) => add::run(args, ctx, out),
        Command::Forget(args) => forget::run(args, ctx, out),
        Command::Edit(args) => edit::run(args, ctx, out),
        Command::Lock(args) => lock::run(args, ctx, out),
        Command::Dream(args) => dream::run(args, ctx, out),
        Command::Index(args) => index::run(args, ctx, out),
        Command::Snapshot(args) => snapshot::run(args, ctx, out),
        Command::History(args) => history::run(args, ctx, out),
        Command::Diff(args) => diff::run(args, ctx, out),
        Command::Restore(args) => restore::run(args, ctx, out),
        Command::Undo(args) => undo::run(args, ctx, out),
        Command::Hook(args) => hook::run(args, ctx, out),
        Command::Config(args) => config::run(args, ctx, out),
        Command::Projects(args) => match &args.command {
            Some(ProjectsCommand::Merge(merge)) => projects_merge::run(merge, ctx, out),
            None => projects::run(args, ctx, out),
        },
        Command::Search(args) => search::run(args, ctx, out),
        Command::Export(args) => export::run(args, ctx, out),
        Command::Import(args) => import::run(args, ctx, out),
        Command::Sync(args) => sync::run(args, ctx, out),
        Command::Review(args) => review::run(args, ctx, out),
        Command::Completions(args) => completions::run(args, out),
        Command::Man(args) => man::run(args, out),
        Command::Mcp(args) => mcp::run(args, ctx),
    }
}
