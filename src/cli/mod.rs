//! The command line, declared with clap's derive API. Declarations only: doc
//! comments here are the `--help` text, the completions and the man pages.
//! This file holds the top level (`Cli`, the global options, `Command`); each
//! command's arguments and examples live in the file named after it.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum, ValueHint};

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
mod restore;
mod review;
mod scope;
mod search;
mod show;
mod snapshot;
mod sync;
mod truncate_check;
mod undo;

pub use add::AddArgs;
pub use completions::CompletionsArgs;
pub use config::{ConfigArgs, ConfigCommand, ConfigSetArgs, ConfigUnsetArgs};
pub use diff::DiffArgs;
pub use dream::DreamArgs;
pub use edit::EditArgs;
pub use export::ExportArgs;
pub use forget::ForgetArgs;
pub use history::HistoryArgs;
pub use hook::{HookAddArgs, HookArgs, HookCommand, HookInstallArgs};
pub use import::ImportArgs;
pub use index::{IndexArgs, IndexCommand, RebuildArgs};
pub use lint::{LintArgs, LintFormat, MinSeverity};
pub use list::{ListArgs, ListFormat};
pub use lock::{LockArgs, LockCommand};
pub use man::ManArgs;
pub use mcp::McpArgs;
pub use path::PathArgs;
pub use projects::{MergeArgs, ProjectsArgs, ProjectsCommand};
pub use restore::RestoreArgs;
pub use review::ReviewArgs;
pub use scope::SettingsScope;
pub use search::SearchArgs;
pub use show::ShowArgs;
pub use snapshot::SnapshotArgs;
pub use sync::SyncArgs;
pub use truncate_check::TruncateCheckArgs;
pub use undo::UndoArgs;

/// The help heading of the global options, apart from each command's own.
const GLOBAL: &str = "Global options";

const AFTER_HELP: &str = "\
Exit status:
  0  success (also: no findings; broken pipe on stdout)
  1  findings
  2  usage or runtime error

Environment:
  MEMCTL_DIR   memory dir to operate on (like --dir)
  MEMCTL_NOW   fixed \"now\" in RFC 3339 form, for ages and reproducible output
  NO_COLOR     disable colour when --color is auto";

/// Inspect and manage Claude Code's auto-memory directory
///
/// memctl resolves the memory directory exactly as Claude Code does, lists and shows
/// the memories in it, and explains what Claude Code sees.
#[derive(Debug, Parser)]
#[command(name = "memctl", version = crate::claude::VERSION_LINE, after_help = AFTER_HELP, max_term_width = 100)]
pub struct Cli {
    /// Operate on this memory dir instead of resolving it [env: MEMCTL_DIR]
    #[arg(long, global = true, help_heading = GLOBAL, value_name = "DIR", value_hint = ValueHint::DirPath)]
    pub dir: Option<OsString>,

    /// Resolve for this project instead of the current directory
    #[arg(long, global = true, help_heading = GLOBAL, value_name = "PATH", value_hint = ValueHint::DirPath)]
    pub project: Option<PathBuf>,

    /// Operate on the team memory dir (<memdir>team/<mount>/ of the one team store in
    /// CLAUDE_MEMORY_STORES, else <memdir>team/)
    #[arg(long, global = true, help_heading = GLOBAL)]
    pub team: bool,

    /// Print one JSON document on stdout (errors as JSON on stderr)
    #[arg(long, global = true, help_heading = GLOBAL)]
    pub json: bool,

    /// When to use colour
    #[arg(long, global = true, help_heading = GLOBAL, value_enum, value_name = "WHEN", default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,

    /// Do not record history snapshots for this command [env: MEMCTL_HISTORY=off]
    #[arg(long, global = true, help_heading = GLOBAL)]
    pub no_history: bool,

    #[command(subcommand)]
    pub command: Command,
}

/// When to colour output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// Colour when the stream is a terminal and NO_COLOR is unset or empty
    Auto,
    /// Always colour, even when NO_COLOR is set
    Always,
    /// Never colour
    Never,
}

// Each command's arguments are built only when it runs (see `generate::command`).
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum Command {
    /// Print the memory dir Claude Code uses for this project
    #[command(after_long_help = path::EXAMPLES)]
    Path(PathArgs),
    /// List memories in Claude Code's scan order
    #[command(after_long_help = list::EXAMPLES)]
    List(ListArgs),
    /// Show one memory
    #[command(after_long_help = show::EXAMPLES)]
    Show(ShowArgs),
    /// Report exactly what Claude Code loads from MEMORY.md, and what it drops
    ///
    /// Claude Code loads MEMORY.md into every conversation but cuts it at 200 lines or
    /// 25 000 UTF-16 units, and loads nothing of a file over 4 MiB. Exit status 1 when
    /// it would be cut, is over 4 MiB, or is over --warn-at.
    #[command(after_long_help = truncate_check::EXAMPLES)]
    TruncateCheck(TruncateCheckArgs),
    /// Check the memory dir for everything that makes Claude Code lose or misread memories
    ///
    /// Exit status 1 when errors (or, with --strict, warnings) are found.
    #[command(after_long_help = lint::EXAMPLES)]
    Lint(LintArgs),
    /// Create a memory file and its index line
    ///
    /// Missing values are prompted for on a terminal; without one, give them as flags.
    #[command(after_long_help = add::EXAMPLES)]
    Add(AddArgs),
    /// Remove memories and their index lines, keeping a copy in history (.trash/ with history off)
    #[command(after_long_help = forget::EXAMPLES)]
    Forget(ForgetArgs),
    /// Edit a memory (or, with --index, MEMORY.md) in $VISUAL or $EDITOR
    ///
    /// The edit happens on a draft outside the memory dir; it is validated, and saved
    /// only if the file did not change meanwhile. A draft is never deleted unsaved.
    #[command(after_long_help = edit::EXAMPLES)]
    Edit(EditArgs),
    /// Inspect the auto-dream lock (.consolidate-lock)
    #[command(after_long_help = lock::EXAMPLES)]
    Lock(LockArgs),
    /// Print a shell completion script
    ///
    /// Install, e.g.: `memctl completions bash > ~/.local/share/bash-completion/completions/memctl`,
    /// `memctl completions zsh > ~/.zfunc/_memctl`, `memctl completions fish > ~/.config/fish/completions/memctl.fish`.
    #[command(after_long_help = completions::EXAMPLES)]
    Completions(CompletionsArgs),
    /// Print a man page (memctl's, or one command's)
    ///
    /// Read it with `memctl man lint | man -l -`.
    #[command(after_long_help = man::EXAMPLES)]
    Man(ManArgs),
    /// Preview auto-dream: whether it would run now, and a consolidation plan
    ///
    /// `memctl dream` alone shows the dry run; consolidating needs a model, so the dry
    /// run is all memctl does.
    #[command(after_long_help = dream::EXAMPLES)]
    Dream(DreamArgs),
    /// Record a history snapshot of the memory dir now (nothing when unchanged)
    #[command(after_long_help = snapshot::EXAMPLES)]
    Snapshot(SnapshotArgs),
    /// List the history snapshots of the memory dir (or of one memory), newest first
    #[command(after_long_help = history::EXAMPLES)]
    History(HistoryArgs),
    /// Show what changed between two snapshots, or since the last one
    #[command(after_long_help = diff::EXAMPLES)]
    Diff(DiffArgs),
    /// Bring back one memory as a snapshot (or .trash/) has it: bytes, mtime, index line
    #[command(after_long_help = restore::EXAMPLES)]
    Restore(RestoreArgs),
    /// Revert the changes of a snapshot (default: the newest), or of the last dream run
    #[command(after_long_help = undo::EXAMPLES)]
    Undo(UndoArgs),
    /// Keep MEMORY.md within what Claude Code loads
    #[command(after_long_help = index::EXAMPLES)]
    Index(IndexArgs),
    /// Claude Code hook: check each write into memory as it happens
    ///
    /// Alone, `memctl hook` is the command Claude Code runs (it reads one hook JSON
    /// object on stdin); `memctl hook install` registers it.
    #[command(after_long_help = hook::EXAMPLES)]
    Hook(HookArgs),
    /// Show or change Claude Code's memory settings and where each comes from
    #[command(after_long_help = config::EXAMPLES)]
    Config(ConfigArgs),
    /// Every memory dir on this machine: sizes, index budget, and what is stranded
    ///
    /// One row per memory dir (Claude Code's `projects/*/memory/`, `autoMemoryDirectory`
    /// targets, and dirs known to memctl's history), with flags for orphaned, moved,
    /// split, shared-key, redirected and disabled projects.
    #[command(after_long_help = projects::EXAMPLES)]
    Projects(ProjectsArgs),
    /// Find memories by words in their name, description or body
    ///
    /// Every word must match the start of a word (case-insensitive, accents folded:
    /// `cafe` finds `Café`, `strasse` finds `Straße`). Matches in the name rank
    /// first, then the description, then the body by BM25; each with its best line.
    /// Exit 0 when something matches, 1 when nothing does (as grep), 2 on errors.
    #[command(after_long_help = search::EXAMPLES)]
    Search(SearchArgs),
    /// Write a project's memory (or every project's) into a .tar.gz bundle
    ///
    /// Only tracked memory files travel, under the project's identity (the normalised
    /// `origin` URL, else the root commit). Secret-like tokens (lint ML121) are listed
    /// first; --strict refuses to write them.
    #[command(after_long_help = export::EXAMPLES)]
    Export(ExportArgs),
    /// Place the projects of a bundle into this machine's memory dirs, by identity
    ///
    /// New files are added with their mtime, identical ones skipped, different ones
    /// kept beside the local file as `<name>.conflict-<machine>-<date>`; index lines
    /// are merged into MEMORY.md.
    #[command(after_long_help = import::EXAMPLES)]
    Import(ImportArgs),
    /// Keep this project's memory (or every project's) in step across machines over git
    ///
    /// Commits the memory, fetches the remote, merges per file against the last synced
    /// state, writes the result into the memory dir and pushes. Conflicts are kept beside
    /// the file as `<name>.conflict-<machine>-<date>` and listed by --status.
    #[command(after_long_help = sync::EXAMPLES)]
    Sync(SyncArgs),
    /// Propose moving memories into CLAUDE.md, CLAUDE.local.md or team/, and apply the chosen
    ///
    /// Reads every memory file and the project's CLAUDE files; proposes promotions,
    /// removals of what CLAUDE.md already says, updates, merges and conflicts. Nothing
    /// is applied without --apply (or the picker on a terminal).
    #[command(after_long_help = review::EXAMPLES)]
    Review(ReviewArgs),
    /// Serve read-only memory tools to Claude Code (or any MCP client) over stdio
    ///
    /// Speaks the Model Context Protocol on stdin/stdout until stdin closes. Tools:
    /// search, show, list, truncate_check and lint; each returns the command's --json
    /// document, and none writes anything (history is off). Register it with
    /// `claude mcp add memctl -- memctl mcp`.
    #[command(after_long_help = mcp::EXAMPLES)]
    Mcp(McpArgs),
}
