//! The command line, declared with clap's derive API. Declarations only: doc
//! comments here are the `--help` text, the completions and the man pages.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum, ValueHint};

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
    #[command(after_long_help = examples::PATH)]
    Path(PathArgs),
    /// List memories in Claude Code's scan order
    #[command(after_long_help = examples::LIST)]
    List(ListArgs),
    /// Show one memory
    #[command(after_long_help = examples::SHOW)]
    Show(ShowArgs),
    /// Report exactly what Claude Code loads from MEMORY.md, and what it drops
    ///
    /// Claude Code loads MEMORY.md into every conversation but cuts it at 200 lines or
    /// 25 000 UTF-16 units, and loads nothing of a file over 4 MiB. Exit status 1 when
    /// it would be cut, is over 4 MiB, or is over --warn-at.
    #[command(after_long_help = examples::TRUNCATE_CHECK)]
    TruncateCheck(TruncateCheckArgs),
    /// Check the memory dir for everything that makes Claude Code lose or misread memories
    ///
    /// Exit status 1 when errors (or, with --strict, warnings) are found.
    #[command(after_long_help = examples::LINT)]
    Lint(LintArgs),
    /// Create a memory file and its index line
    ///
    /// Missing values are prompted for on a terminal; without one, give them as flags.
    #[command(after_long_help = examples::ADD)]
    Add(AddArgs),
    /// Remove memories and their index lines, keeping a copy in history (.trash/ with history off)
    #[command(after_long_help = examples::FORGET)]
    Forget(ForgetArgs),
    /// Edit a memory (or, with --index, MEMORY.md) in $VISUAL or $EDITOR
    ///
    /// The edit happens on a draft outside the memory dir; it is validated, and saved
    /// only if the file did not change meanwhile. A draft is never deleted unsaved.
    #[command(after_long_help = examples::EDIT)]
    Edit(EditArgs),
    /// Inspect the auto-dream lock (.consolidate-lock)
    #[command(after_long_help = examples::LOCK)]
    Lock(LockArgs),
    /// Print a shell completion script
    ///
    /// Install, e.g.: `memctl completions bash > ~/.local/share/bash-completion/completions/memctl`,
    /// `memctl completions zsh > ~/.zfunc/_memctl`, `memctl completions fish > ~/.config/fish/completions/memctl.fish`.
    #[command(after_long_help = examples::COMPLETIONS)]
    Completions(CompletionsArgs),
    /// Print a man page (memctl's, or one command's)
    ///
    /// Read it with `memctl man lint | man -l -`.
    #[command(after_long_help = examples::MAN)]
    Man(ManArgs),
    /// Preview auto-dream: whether it would run now, and a consolidation plan
    ///
    /// `memctl dream` alone shows the dry run; consolidating needs a model, so the dry
    /// run is all memctl does.
    #[command(after_long_help = examples::DREAM)]
    Dream(DreamArgs),
    /// Record a history snapshot of the memory dir now (nothing when unchanged)
    #[command(after_long_help = examples::SNAPSHOT)]
    Snapshot(SnapshotArgs),
    /// List the history snapshots of the memory dir (or of one memory), newest first
    #[command(after_long_help = examples::HISTORY)]
    History(HistoryArgs),
    /// Show what changed between two snapshots, or since the last one
    #[command(after_long_help = examples::DIFF)]
    Diff(DiffArgs),
    /// Bring back one memory as a snapshot (or .trash/) has it: bytes, mtime, index line
    #[command(after_long_help = examples::RESTORE)]
    Restore(RestoreArgs),
    /// Revert the changes of a snapshot (default: the newest), or of the last dream run
    #[command(after_long_help = examples::UNDO)]
    Undo(UndoArgs),
    /// Keep MEMORY.md within what Claude Code loads
    #[command(after_long_help = examples::INDEX)]
    Index(IndexArgs),
    /// Claude Code hook: check each write into memory as it happens
    ///
    /// Alone, `memctl hook` is the command Claude Code runs (it reads one hook JSON
    /// object on stdin); `memctl hook install` registers it.
    #[command(after_long_help = examples::HOOK)]
    Hook(HookArgs),
    /// Show or change Claude Code's memory settings and where each comes from
    #[command(after_long_help = examples::CONFIG)]
    Config(ConfigArgs),
    /// Every memory dir on this machine: sizes, index budget, and what is stranded
    ///
    /// One row per memory dir (Claude Code's `projects/*/memory/`, `autoMemoryDirectory`
    /// targets, and dirs known to memctl's history), with flags for orphaned, moved,
    /// split, shared-key, redirected and disabled projects.
    #[command(after_long_help = examples::PROJECTS)]
    Projects(ProjectsArgs),
    /// Find memories by words in their name, description or body
    ///
    /// Every word must match the start of a word (case-insensitive, accents folded:
    /// `cafe` finds `Café`, `strasse` finds `Straße`). Matches in the name rank
    /// first, then the description, then the body by BM25; each with its best line.
    /// Exit 0 when something matches, 1 when nothing does (as grep), 2 on errors.
    #[command(after_long_help = examples::SEARCH)]
    Search(SearchArgs),
    /// Write a project's memory (or every project's) into a .tar.gz bundle
    ///
    /// Only tracked memory files travel, under the project's identity (the normalised
    /// `origin` URL, else the root commit). Secret-like tokens (lint ML121) are listed
    /// first; --strict refuses to write them.
    #[command(after_long_help = examples::EXPORT)]
    Export(ExportArgs),
    /// Place the projects of a bundle into this machine's memory dirs, by identity
    ///
    /// New files are added with their mtime, identical ones skipped, different ones
    /// kept beside the local file as `<name>.conflict-<machine>-<date>`; index lines
    /// are merged into MEMORY.md.
    #[command(after_long_help = examples::IMPORT)]
    Import(ImportArgs),
    /// Keep this project's memory (or every project's) in step across machines over git
    ///
    /// Commits the memory, fetches the remote, merges per file against the last synced
    /// state, writes the result into the memory dir and pushes. Conflicts are kept beside
    /// the file as `<name>.conflict-<machine>-<date>` and listed by --status.
    #[command(after_long_help = examples::SYNC)]
    Sync(SyncArgs),
    /// Propose moving memories into CLAUDE.md, CLAUDE.local.md or team/, and apply the chosen
    ///
    /// Reads every memory file and the project's CLAUDE files; proposes promotions,
    /// removals of what CLAUDE.md already says, updates, merges and conflicts. Nothing
    /// is applied without --apply (or the picker on a terminal).
    #[command(after_long_help = examples::REVIEW)]
    Review(ReviewArgs),
    /// Serve read-only memory tools to Claude Code (or any MCP client) over stdio
    ///
    /// Speaks the Model Context Protocol on stdin/stdout until stdin closes. Tools:
    /// search, show, list, truncate_check and lint; each returns the command's --json
    /// document, and none writes anything (history is off). Register it with
    /// `claude mcp add memctl -- memctl mcp`.
    #[command(after_long_help = examples::MCP)]
    Mcp(McpArgs),
}

#[derive(Debug, Args)]
pub struct McpArgs {}

#[derive(Debug, Args)]
pub struct SyncArgs {
    /// The git remote to sync through (set once; remembered in the sync repository)
    #[arg(long, value_name = "URL")]
    pub remote: Option<String>,

    /// Sync every project with memories (see `memctl projects`)
    #[arg(long, conflicts_with = "as_id")]
    pub all_projects: bool,

    /// The identity to use for a project that has none (no git remote, no commit)
    #[arg(long = "as", value_name = "ID")]
    pub as_id: Option<String>,

    /// Show what a sync would change; write and push nothing
    #[arg(long, short = 'n')]
    pub dry_run: bool,

    /// List unresolved conflicts (exit 1 when there are any)
    #[arg(long, conflicts_with_all = ["dry_run", "resolve"])]
    pub status: bool,

    /// Mark a conflict done, keeping the local version (the conflict file goes to .trash/)
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub resolve: Option<std::path::PathBuf>,

    /// Apply a change (sent or received) that deletes more than half of a project's memories
    #[arg(long)]
    pub allow_mass_delete: bool,

    /// After the remote was rolled back or rewritten: take it as it is (deletes here what it no longer holds)
    #[arg(long, conflicts_with_all = ["push_local", "status", "resolve"])]
    pub accept_remote: bool,

    /// After the remote was rolled back or rewritten: restore it from this machine
    #[arg(long, conflicts_with_all = ["status", "resolve"])]
    pub push_local: bool,

    /// Secret-like tokens (lint ML121) refuse as strict_refused (exit 1) instead of exit 2
    #[arg(long)]
    pub strict: bool,

    /// Push memories that hold secret-like tokens (lint ML121); refused by default
    #[arg(long, conflicts_with = "strict")]
    pub allow_secrets: bool,

    /// Remove FILE (a path below the project's dir in the sync repository, e.g. user_a.md) from the sync remote's whole history
    #[arg(long, value_name = "FILE", conflicts_with_all = ["status", "resolve", "dry_run", "accept_remote", "push_local", "all_projects"])]
    pub purge: Option<String>,

    /// Accepted for scripts; sync never prompts
    #[arg(long, short = 'y')]
    pub yes: bool,
}

#[derive(Debug, Args)]
pub struct ReviewArgs {
    /// Apply these proposals (numbers as printed, e.g. 2,5)
    #[arg(long, value_name = "N,...", value_delimiter = ',')]
    pub apply: Vec<String>,

    /// Do not ask for confirmation (required with --apply without a terminal)
    #[arg(long, short = 'y')]
    pub yes: bool,
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The bundle to write (a .tar.gz)
    #[arg(long, short = 'o', value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub output: std::path::PathBuf,

    /// Export every project with memories (see `memctl projects`)
    #[arg(long, conflicts_with = "as_id")]
    pub all_projects: bool,

    /// The identity to record for a project that has none (no git remote, no commit)
    #[arg(long = "as", value_name = "ID")]
    pub as_id: Option<String>,

    /// Secret-like tokens (lint ML121) refuse as strict_refused (exit 1) instead of exit 2
    #[arg(long)]
    pub strict: bool,

    /// Write memories that hold secret-like tokens (lint ML121) into the bundle; refused by default
    #[arg(long, conflicts_with = "strict")]
    pub allow_secrets: bool,
}

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The bundle written by `memctl export`
    #[arg(value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub file: std::path::PathBuf,

    /// The memory dir to import into (for a bundle of one project)
    #[arg(long, value_name = "DIR", value_hint = ValueHint::DirPath)]
    pub into: Option<std::path::PathBuf>,

    /// Print what would be imported; change nothing
    #[arg(long, short = 'n')]
    pub dry_run: bool,

    /// Do not ask for confirmation (required without a terminal)
    #[arg(long, short = 'y')]
    pub yes: bool,
}

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct ProjectsArgs {
    /// Move the memories of one memory dir into another
    #[command(subcommand)]
    pub command: Option<ProjectsCommand>,

    /// Include memory dirs that hold no memories
    #[arg(long)]
    pub all: bool,
}

#[derive(Debug, Subcommand)]
pub enum ProjectsCommand {
    /// Move every memory of FROM into INTO (identical files merge; others get a -2 suffix)
    ///
    /// FROM and INTO are each an existing directory, a key under <config home>/projects/
    /// (a key begins with `-`, so put `--` before it), or a project path.
    #[command(after_long_help = examples::PROJECTS_MERGE)]
    Merge(MergeArgs),
}

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The memory dir to empty: a dir, a key or a project path
    #[arg(value_name = "FROM", value_hint = ValueHint::DirPath)]
    pub from: OsString,

    /// The memory dir that receives the memories: a dir, a key or a project path
    #[arg(value_name = "INTO", value_hint = ValueHint::DirPath, required_unless_present = "into_dir")]
    pub into: Option<OsString>,

    /// Take DIR as the receiving memory dir as it is, whatever it holds
    #[arg(long, value_name = "DIR", value_hint = ValueHint::DirPath, conflicts_with = "into")]
    pub into_dir: Option<PathBuf>,

    /// Print what would move; change nothing
    #[arg(long, short = 'n')]
    pub dry_run: bool,

    /// Do not ask for confirmation (required without a terminal)
    #[arg(long, short = 'y')]
    pub yes: bool,

    /// Write even while a live auto-dream holds either lock
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Args)]
pub struct SearchArgs {
    /// Words every match must contain (case-insensitive, accents folded)
    #[arg(value_name = "QUERY", required = true, num_args = 1..)]
    pub query: Vec<String>,

    /// Search the memory dirs of every project (see `memctl projects`)
    #[arg(long)]
    pub all_projects: bool,

    /// Only these types: user, feedback, project, reference, none (repeatable or comma-separated)
    #[arg(long = "type", short = 't', value_name = "T", value_delimiter = ',')]
    pub types: Vec<String>,

    /// Show at most N results (0: all)
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub limit: usize,
}

#[derive(Debug, Args)]
pub struct HookArgs {
    /// Install, remove or inspect the hook [default: run it on stdin's payload]
    #[command(subcommand)]
    pub command: Option<HookCommand>,
}

#[derive(Debug, Subcommand)]
pub enum HookCommand {
    /// Add memctl's hooks to a Claude Code settings file
    #[command(after_long_help = examples::HOOK_INSTALL)]
    Install(HookAddArgs),
    /// Remove memctl's hooks from a Claude Code settings file
    #[command(after_long_help = examples::HOOK_UNINSTALL)]
    Uninstall(HookInstallArgs),
    /// Show where memctl's hooks are installed and whether Claude Code runs them
    #[command(after_long_help = examples::HOOK_STATUS)]
    Status,
}

/// Which Claude Code settings file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SettingsScope {
    /// <config home>/settings.json
    User,
    /// <project>/.claude/settings.local.json
    Local,
    /// <project>/.claude/settings.json (usually committed)
    Project,
}

#[derive(Debug, Args)]
pub struct HookAddArgs {
    #[command(flatten)]
    pub target: HookInstallArgs,

    /// Leave out the PreToolUse gate that refuses a Write or Edit which would lose memory
    #[arg(long)]
    pub no_gate: bool,
}

#[derive(Debug, Args)]
pub struct HookInstallArgs {
    /// The settings file to edit
    #[arg(long, value_enum, default_value_t = SettingsScope::User)]
    pub scope: SettingsScope,

    /// Print the diff; change nothing
    #[arg(long, short = 'n')]
    pub dry_run: bool,

    /// Accepted for scripts (these commands never ask)
    #[arg(long, short = 'y')]
    pub yes: bool,
}

#[derive(Debug, Args)]
pub struct ConfigArgs {
    /// Change a setting [default: show the effective settings]
    #[command(subcommand)]
    pub command: Option<ConfigCommand>,
}

#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Write a memory setting into a settings file
    #[command(after_long_help = examples::CONFIG_SET)]
    Set(ConfigSetArgs),
    /// Remove a memory setting from a settings file
    #[command(after_long_help = examples::CONFIG_UNSET)]
    Unset(ConfigUnsetArgs),
}

#[derive(Debug, Args)]
pub struct ConfigSetArgs {
    /// autoMemoryEnabled, autoDreamEnabled or autoMemoryDirectory
    #[arg(value_name = "KEY")]
    pub key: String,

    /// true/false for the booleans; a path for autoMemoryDirectory
    #[arg(value_name = "VALUE", allow_hyphen_values = true)]
    pub value: String,

    /// The settings file to edit (project only for the two booleans)
    #[arg(long, value_enum, default_value_t = SettingsScope::User)]
    pub scope: SettingsScope,

    /// Print the diff; change nothing
    #[arg(long, short = 'n')]
    pub dry_run: bool,

    /// Accepted for scripts (these commands never ask)
    #[arg(long, short = 'y')]
    pub yes: bool,
}

#[derive(Debug, Args)]
pub struct ConfigUnsetArgs {
    /// autoMemoryEnabled, autoDreamEnabled or autoMemoryDirectory
    #[arg(value_name = "KEY")]
    pub key: String,

    /// The settings file to edit
    #[arg(long, value_enum, default_value_t = SettingsScope::User)]
    pub scope: SettingsScope,

    /// Print the diff; change nothing
    #[arg(long, short = 'n')]
    pub dry_run: bool,

    /// Accepted for scripts (these commands never ask)
    #[arg(long, short = 'y')]
    pub yes: bool,
}

#[derive(Debug, Args)]
pub struct SnapshotArgs {
    /// A note kept in the snapshot's message
    #[arg(long, short = 'm', value_name = "TEXT")]
    pub message: Option<String>,

    /// Take a snapshot of every project with memories (see `memctl projects`)
    #[arg(long)]
    pub all_projects: bool,
}

#[derive(Debug, Args)]
pub struct HistoryArgs {
    /// Only snapshots that changed this memory (also a deleted one)
    #[arg(value_name = "REF")]
    pub reference: Option<String>,

    /// Show at most N snapshots
    #[arg(long, value_name = "N", default_value_t = 50)]
    pub limit: usize,
}

#[derive(Debug, Args)]
pub struct DiffArgs {
    /// Only this memory
    #[arg(value_name = "REF")]
    pub reference: Option<String>,

    /// From this state: a snapshot id (7+ hex digits), @~N, or a time (2026-03-10, 3h, 2d)
    #[arg(long, value_name = "SNAP", conflicts_with = "dream")]
    pub from: Option<String>,

    /// To this state (default: the dir now)
    #[arg(long, value_name = "SNAP", conflicts_with = "dream")]
    pub to: Option<String>,

    /// Print changed files with line counts only
    #[arg(long)]
    pub stat: bool,

    /// The changes of the last dream run
    #[arg(long)]
    pub dream: bool,
}

#[derive(Debug, Args)]
pub struct RestoreArgs {
    /// The memory to bring back, by relative path, file stem or frontmatter name
    #[arg(value_name = "REF")]
    pub reference: String,

    /// From this snapshot (default: the newest one that has it)
    #[arg(long, value_name = "SNAP")]
    pub at: Option<String>,

    /// Show what would be restored; change nothing
    #[arg(long, short = 'n')]
    pub dry_run: bool,

    /// Overwrite a file with different content; write while a live auto-dream holds the lock
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Args)]
pub struct UndoArgs {
    /// The snapshot to revert (default: the newest that is not the baseline)
    #[arg(value_name = "SNAP", conflicts_with = "dream")]
    pub snapshot: Option<String>,

    /// Revert the whole last dream run
    #[arg(long)]
    pub dream: bool,

    /// Show what would be reverted; change nothing
    #[arg(long, short = 'n')]
    pub dry_run: bool,

    /// Do not ask for confirmation (required without a terminal)
    #[arg(long, short = 'y')]
    pub yes: bool,

    /// Revert files changed again since, too; write while a live auto-dream holds the lock
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Args)]
pub struct IndexArgs {
    #[command(subcommand)]
    pub command: IndexCommand,
}

#[derive(Debug, Subcommand)]
pub enum IndexCommand {
    /// Rewrite MEMORY.md to load whole within a budget, moving the least important
    /// entries into a hub file it links; no memory is ever unlinked
    #[command(after_long_help = examples::INDEX_REBUILD)]
    Rebuild(RebuildArgs),
}

#[derive(Debug, Args)]
pub struct RebuildArgs {
    /// Percent of both caps (200 lines, 25 000 units) the loaded index may use
    #[arg(long, value_name = "PERCENT", default_value = "70", value_parser = crate::text::parse_percent)]
    pub budget: f64,

    /// Keep this memory's line in MEMORY.md (repeatable; or end its line with `<!-- pin -->`)
    #[arg(long, value_name = "REF")]
    pub pin: Vec<String>,

    /// The hub file entries move into
    #[arg(long, value_name = "FILE", default_value = "reference_memory_index_archive.md")]
    pub hub: String,

    /// Print the diff and the summary; change nothing
    #[arg(long, short = 'n')]
    pub dry_run: bool,

    /// Do not ask for confirmation (required without a terminal)
    #[arg(long, short = 'y')]
    pub yes: bool,

    /// Write even while a live auto-dream holds the lock
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Args)]
pub struct PathArgs {
    /// Print the MEMORY.md path instead
    #[arg(long, conflicts_with_all = ["transcripts", "key_for"])]
    pub index: bool,

    /// Print the session transcripts dir instead
    #[arg(long, conflicts_with_all = ["key_for"])]
    pub transcripts: bool,

    /// Explain every step of the resolution
    #[arg(long, conflicts_with_all = ["index", "transcripts", "key_for"])]
    pub explain: bool,

    /// Print the project key Claude Code derives from STRING (lexically)
    #[arg(long, value_name = "STRING", allow_hyphen_values = true)]
    pub key_for: Option<String>,
}

/// Output formats of `list`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ListFormat {
    /// A table on a terminal, tab-separated records otherwise
    Table,
    /// Exactly the manifest Claude Code shows the model
    Manifest,
    /// One JSON document
    Json,
    /// One absolute path per line
    Paths,
}

#[derive(Debug, Args)]
pub struct ListArgs {
    /// Only these types: user, feedback, project, reference, none (repeatable or comma-separated)
    #[arg(long = "type", short = 't', value_name = "T", value_delimiter = ',')]
    pub types: Vec<String>,

    /// Output format [default: table, or json with --json]
    #[arg(long, short = 'f', value_enum, value_name = "FORMAT")]
    pub format: Option<ListFormat>,

    /// Lift Claude Code's 200-file cap
    #[arg(long)]
    pub all: bool,

    /// List the memories of every project (see `memctl projects`), grouped by project
    #[arg(long)]
    pub all_projects: bool,

    /// With --format paths: end each path with a NUL byte and print it exactly (no escapes)
    #[arg(long, short = '0')]
    pub null: bool,
}

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The memory to show, by relative path, file stem or frontmatter name
    #[arg(value_name = "REF")]
    pub reference: String,

    /// Write the file's bytes unchanged, nothing else
    #[arg(long)]
    pub raw: bool,
}

#[derive(Debug, Args)]
pub struct TruncateCheckArgs {
    /// The index file to check, or - for standard input [default: the dir's MEMORY.md]
    #[arg(value_name = "PATH", value_hint = ValueHint::FilePath)]
    pub path: Option<PathBuf>,

    /// Print exactly the text the model reads (after Claude Code's clean-up), and nothing else
    #[arg(long)]
    pub print_loaded: bool,

    /// Also exit 1 when lines or units reach PERCENT of a cap
    #[arg(long, value_name = "PERCENT", value_parser = crate::text::parse_percent)]
    pub warn_at: Option<f64>,

    /// Check the index of every project (see `memctl projects`)
    #[arg(long, conflicts_with_all = ["path", "print_loaded"])]
    pub all_projects: bool,
}

/// Output formats of `lint`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LintFormat {
    /// One line per finding, and a summary on stderr
    Text,
    /// One JSON document
    Json,
    /// SARIF 2.1.0, for code-scanning tools
    Sarif,
    /// GitHub Actions workflow commands
    Github,
}

/// The lowest severity `lint` shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum MinSeverity {
    Error,
    Warning,
    Info,
}

#[derive(Debug, Args)]
pub struct LintArgs {
    /// Output format [default: text, or json with --json]
    #[arg(long, short = 'f', value_enum, value_name = "FORMAT")]
    pub format: Option<LintFormat>,

    /// Print the rule table (id, name, severity, fixable, what Claude Code does) and exit
    #[arg(long, conflicts_with_all = ["fix", "rules", "disable", "explain", "summary"])]
    pub list_rules: bool,

    /// Explain one rule (an id in any case or a rule name): what Claude Code does, why it matters, how to fix it
    #[arg(long, value_name = "ID", conflicts_with_all = ["fix", "rules", "disable", "summary"])]
    pub explain: Option<String>,

    /// Print only the counts of findings by rule (text format)
    #[arg(long)]
    pub summary: bool,

    /// Warnings also cause exit status 1
    #[arg(long)]
    pub strict: bool,

    /// Apply the fixes of fixable rules (ML102, ML111, ML203, ML132)
    #[arg(long)]
    pub fix: bool,

    /// With --fix: print unified diffs and write nothing
    #[arg(long, short = 'n', requires = "fix")]
    pub dry_run: bool,

    /// Run only this rule: an id in any case or a rule name (repeatable or comma-separated)
    #[arg(long = "rule", value_name = "ID", value_delimiter = ',')]
    pub rules: Vec<String>,

    /// Skip this rule: an id in any case or a rule name (repeatable or comma-separated)
    #[arg(long = "disable", value_name = "ID", value_delimiter = ',')]
    pub disable: Vec<String>,

    /// Hide findings below this severity
    #[arg(long, value_enum, value_name = "LEVEL", default_value_t = MinSeverity::Info)]
    pub min_severity: MinSeverity,

    /// ML207 threshold: warn when lines or units reach PERCENT of a cap
    #[arg(long, value_name = "PERCENT", default_value = "90", value_parser = crate::text::parse_percent)]
    pub warn_at: f64,

    /// With --fix: write even while a live auto-dream holds the lock
    #[arg(long, requires = "fix")]
    pub force: bool,

    /// Lint (with --fix: fix) every project's memory dir (see `memctl projects`); exit 1 when any has findings
    #[arg(long, conflicts_with_all = ["list_rules", "explain"])]
    pub all_projects: bool,
}

#[derive(Debug, Args)]
pub struct AddArgs {
    /// Memory type: user, feedback, project or reference
    #[arg(long = "type", short = 't', value_name = "T")]
    pub memory_type: Option<String>,

    /// Name (one line, 1–100 characters)
    #[arg(long, value_name = "TEXT")]
    pub name: Option<String>,

    /// One-line description, the manifest's hook (1–500 characters)
    #[arg(long, value_name = "TEXT")]
    pub description: Option<String>,

    /// The memory's content
    #[arg(long, value_name = "TEXT", conflicts_with = "body_file")]
    pub body: Option<String>,

    /// Read the content from a file, or - for standard input
    #[arg(long, value_name = "PATH", value_hint = ValueHint::FilePath)]
    pub body_file: Option<PathBuf>,

    /// Why the rule or fact holds (feedback and project only)
    #[arg(long, value_name = "TEXT")]
    pub why: Option<String>,

    /// How to apply it (feedback and project only)
    #[arg(long, value_name = "TEXT")]
    pub how: Option<String>,

    /// Compose the content in the editor
    #[arg(long, conflicts_with_all = ["body", "body_file"])]
    pub edit: bool,

    /// File name instead of the generated <type>_<slug>.md
    #[arg(long, value_name = "NAME")]
    pub file: Option<String>,

    /// Index line title [default: the name]
    #[arg(long, value_name = "TEXT")]
    pub title: Option<String>,

    /// Index line hook [default: the description]
    #[arg(long, value_name = "TEXT")]
    pub hook: Option<String>,

    /// Do not touch MEMORY.md
    #[arg(long)]
    pub no_index: bool,

    /// Refuse to write when there is any warning
    #[arg(long)]
    pub strict: bool,

    /// Print the file and the index diff; write nothing
    #[arg(long, short = 'n')]
    pub dry_run: bool,

    /// Put the index line at the top of MEMORY.md instead of in its type's section
    #[arg(long, conflicts_with = "no_index")]
    pub at_top: bool,

    /// Write even while a live auto-dream holds the lock, and even when the index
    /// line would be cut or push another entry past the cut
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Args)]
pub struct ForgetArgs {
    /// The memories to forget, by relative path, file stem or frontmatter name
    #[arg(value_name = "REF", required = true)]
    pub references: Vec<String>,

    /// Do not ask for confirmation (required without a terminal)
    #[arg(long, short = 'y')]
    pub yes: bool,

    /// Show what would be moved and the index diff; change nothing
    #[arg(long, short = 'n')]
    pub dry_run: bool,

    /// Write even while a live auto-dream holds the lock, and remove index lines
    /// that also link other memories
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Args)]
pub struct EditArgs {
    /// The memory to edit, by relative path, file stem or frontmatter name
    #[arg(value_name = "REF", required_unless_present = "index", conflicts_with = "index")]
    pub reference: Option<String>,

    /// Edit MEMORY.md (the team index with --team)
    #[arg(long)]
    pub index: bool,

    /// With --index: create a missing MEMORY.md without asking
    #[arg(long, short = 'y')]
    pub yes: bool,

    /// With --index: exit 1 when Claude Code would truncate the saved index
    #[arg(long)]
    pub strict: bool,

    /// Save even while a live auto-dream holds the lock
    #[arg(long)]
    pub force: bool,

    /// Save DRAFT (one kept after a failed edit) instead of starting the editor;
    /// it is checked and saved like an edit
    #[arg(long, value_name = "DRAFT", value_hint = ValueHint::FilePath)]
    pub from: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct LockArgs {
    /// What to do with the lock [default: status]
    #[command(subcommand)]
    pub command: Option<LockCommand>,
}

#[derive(Debug, Subcommand)]
pub enum LockCommand {
    /// Show the lock's state and what Claude Code's next acquire would do
    #[command(after_long_help = examples::LOCK_STATUS)]
    Status,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to print the script for
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
pub struct ManArgs {
    /// The command whose page to print (e.g. lint, lock-status) [default: memctl's own]
    #[arg(value_name = "COMMAND")]
    pub command: Option<String>,
}

#[derive(Debug, Args)]
pub struct DreamArgs {
    /// Show the gates and the plan; change nothing (the default, and the only mode)
    #[arg(long, short = 'n', conflicts_with = "run")]
    pub dry_run: bool,

    /// Consolidate now: memctl cannot (it needs a model), and says what to do instead
    #[arg(long)]
    pub run: bool,

    /// What-if threshold for the time gate, in hours [default: the cached flag's minHours, else 24]
    #[arg(long, value_name = "H", value_parser = crate::text::parse_positive)]
    pub min_hours: Option<f64>,

    /// What-if threshold for the sessions gate [default: the cached flag's minSessions, else 5]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub min_sessions: Option<u64>,

    /// Exclude this session id, as Claude Code excludes the session doing the check
    #[arg(long, value_name = "UUID")]
    pub current_session: Option<String>,
}

/// The EXAMPLES of each command's long help and man page: a two-space line says what
/// the four-space command under it does.
mod examples {
    pub const PROJECTS: &str = "\
Examples:
  Every project with memories, newest change first:
    memctl projects
  Also the empty ones, as JSON:
    memctl projects --all --json
  Projects whose index Claude Code cuts:
    memctl projects | awk -F'\\t' '$5 == \"true\"'";

    pub const PROJECTS_MERGE: &str = "\
Examples:
  A repository moved from ~/old/app to ~/src/app; bring its memories along:
    memctl projects merge ~/old/app ~/src/app --dry-run
  By key (a key begins with -, so it follows --):
    memctl projects merge -- -home-alice-old-app ~/src/app";

    pub const EXPORT: &str = "\
Examples:
  This project's memory, for another machine:
    memctl export -o app-memory.tar.gz
  Every project, refusing if a memory holds a token:
    memctl export --all-projects --strict -o all-memory.tar.gz
  A project with no git remote, named by hand (use the same ID on every machine):
    memctl export --as notes/scratch -o scratch.tar.gz";

    pub const IMPORT: &str = "\
Examples:
  See what a bundle would change, then import it:
    memctl import app-memory.tar.gz --dry-run
    memctl import app-memory.tar.gz
  Into a memory dir named by hand (a bundle of one project):
    memctl import scratch.tar.gz --into \"$(memctl path)\" --yes";

    pub const SYNC: &str = "\
Examples:
  First sync of this project, through a private repository:
    memctl sync --remote git@github.com:alice/memory.git
  Conflicts left by the last sync, then keep the local version of one:
    memctl sync --status
    memctl sync --resolve testing.md.conflict-laptop-20261201
  A token was synced: forget it, sync, then remove it from the remote's history:
    memctl forget user_token.md --yes && memctl sync && memctl sync --purge user_token.md

Exit status of sync:
  0  in step
  1  done, but conflict files need you (named); or refused because earlier
     conflict files are still open (`memctl sync --status` lists them)
  2  usage or runtime error, and every other refusal (a secret-like token
     without --allow-secrets, a mass deletion, a rewritten remote, a dream)";

    pub const MCP: &str = "\
Examples:
  Let Claude Code look up memory in every project (or add the memctl plugin):
    claude mcp add --scope user memctl -- memctl mcp
  Serve one project's memory, wherever the client starts the server:
    memctl --project ~/src/app mcp
  Serve a memory dir kept in the repository:
    memctl --dir .claude/memory mcp";

    pub const REVIEW: &str = "\
Examples:
  What could move into CLAUDE.md:
    memctl review
  Apply proposals 2 and 5 without asking:
    memctl review --apply 2,5 --yes";

    pub const SEARCH: &str = "\
Examples:
  Memories about the deploy freeze:
    memctl search deploy freeze
  Open every match in vim's quickfix list (piped output is path:line:text):
    vim -q <(memctl search --limit 0 deploy)
  Only feedback, across every project:
    memctl search --all-projects -t feedback testing";

    pub const PATH: &str = "\
Examples:
  Change into this project's memory dir:
    cd \"$(memctl path)\"
  Show every resolution step and why it decided:
    memctl path --explain
  Find where another checkout's memory lives:
    memctl path --key-for /home/alice/src/app";

    pub const LIST: &str = "\
Examples:
  List the memories of the current project, newest first:
    memctl list
  Only the feedback memories, as absolute paths:
    memctl list -t feedback -f paths
  The manifest exactly as Claude Code shows it to the model:
    memctl list --format manifest";

    pub const SHOW: &str = "\
Examples:
  Show a memory by its file stem:
    memctl show feedback_testing_policy
  By its frontmatter name (exact, then case-insensitive):
    memctl show \"merge freeze\"
  The file's bytes, unchanged:
    memctl show project_auth_rewrite --raw";

    pub const TRUNCATE_CHECK: &str = "\
Examples:
  Check the project's MEMORY.md against Claude Code's caps:
    memctl truncate-check
  Fail early, at 80% of a cap (for CI):
    memctl truncate-check --warn-at 80%
  Print exactly what Claude Code loads from a draft index:
    memctl truncate-check --print-loaded draft.md";

    pub const LINT: &str = "\
Examples:
  Check the memory dir of the current project:
    memctl lint
  Preview, then apply, the fixes of fixable rules:
    memctl lint --fix --dry-run
    memctl lint --fix
  Only the index rules, as SARIF for code scanning:
    memctl lint --rule ML201,ML202,ML203 --format sarif";

    pub const ADD: &str = "\
Examples:
  Add a memory, asking for what is missing:
    memctl add
  Add a feedback memory without prompts:
    memctl add -t feedback --name \"Terse summaries\" --description \"Keep end-of-task summaries short\" --why \"the user skims them\" --how \"three bullets at most\" --body \"Summaries stay short.\"
  See the file and the index change first:
    memctl add -t user --name Profile --description \"Backend engineer\" --body \"Go and Postgres.\" --dry-run";

    pub const FORGET: &str = "\
Examples:
  Remove a memory and its index line, after confirming:
    memctl forget project_merge_freeze
  Preview what would be removed, and the index diff:
    memctl forget project_merge_freeze --dry-run
  Without a terminal (scripts):
    memctl forget reference_linear_ingest --yes";

    pub const EDIT: &str = "\
Examples:
  Edit a memory in $VISUAL or $EDITOR:
    memctl edit feedback_testing_policy
  Edit the index, MEMORY.md:
    memctl edit --index
  Edit the team index, failing if Claude Code would truncate it:
    memctl --team edit --index --strict";

    pub const LOCK: &str = "\
Examples:
  Show the auto-dream lock's state:
    memctl lock
  The same, as JSON:
    memctl lock status --json";

    pub const LOCK_STATUS: &str = "\
Examples:
  Show the auto-dream lock's state:
    memctl lock status
  For another project:
    memctl --project ~/src/app lock status";

    pub const COMPLETIONS: &str = "\
Examples:
  Install bash completion for your user:
    memctl completions bash > ~/.local/share/bash-completion/completions/memctl
  Install zsh completion (with fpath+=(~/.zfunc) in ~/.zshrc):
    memctl completions zsh > ~/.zfunc/_memctl
  Install fish completion:
    memctl completions fish > ~/.config/fish/completions/memctl.fish";

    pub const MAN: &str = "\
Examples:
  Read memctl's man page:
    memctl man | man -l -
  Read one command's page:
    memctl man lint | man -l -
  Install a page where man(1) finds it:
    memctl man lock-status > ~/.local/share/man/man1/memctl-lock-status.1";

    pub const DREAM: &str = "\
Examples:
  Would auto-dream run now, and what would it consolidate?
    memctl dream
  What if the time gate were 12 hours:
    memctl dream --min-hours 12
  Leave out the session doing the check, as Claude Code does:
    memctl dream --current-session 3f2a9c1e-7b4d-4e8a-9c0f-1d2e3f4a5b6c";

    pub const INDEX: &str = "\
Examples:
  Fit MEMORY.md into 70 % of Claude Code's caps, preview first:
    memctl index rebuild --dry-run
  Then write it, without asking:
    memctl index rebuild --yes";

    pub const INDEX_REBUILD: &str = "\
Examples:
  Preview the rebuild:
    memctl index rebuild --dry-run
  Rebuild to half the caps, keeping two memories in MEMORY.md:
    memctl index rebuild --budget 50 --pin user_profile --pin feedback_testing_policy --yes";

    pub const SNAPSHOT: &str = "\
Examples:
  Record the memory dir now, with a note:
    memctl snapshot -m \"before cleaning up\"
  From a cron job or CI, as JSON:
    memctl snapshot --json";

    pub const HISTORY: &str = "\
Examples:
  The last 50 changes of this project's memory:
    memctl history
  Every snapshot that touched one memory, even a deleted one:
    memctl history feedback_testing_policy";

    pub const DIFF: &str = "\
Examples:
  What changed since the last snapshot:
    memctl diff
  What the last dream did:
    memctl diff --dream
  One memory, between yesterday and now, as counts:
    memctl diff feedback_testing_policy --from 1d --stat";

    pub const RESTORE: &str = "\
Examples:
  Bring back a forgotten memory:
    memctl restore feedback_testing_policy.md
  As it was in a given snapshot, preview first:
    memctl restore project_auth_rewrite --at 3f2a9c1 --dry-run";

    pub const UNDO: &str = "\
Examples:
  Revert the newest change (asks first on a terminal):
    memctl undo
  Revert everything the last dream did, without asking:
    memctl undo --dream --yes
  Preview reverting one snapshot:
    memctl undo 3f2a9c1 --dry-run";

    pub const HOOK: &str = "\
Examples:
  Install the hooks for every project (user settings):
    memctl hook install
  See where they are installed and whether Claude Code runs them:
    memctl hook status
  Try the hook on a payload by hand:
    echo '{\"hook_event_name\":\"SessionStart\",\"cwd\":\"/home/alice/src/app\"}' | memctl hook";

    pub const HOOK_INSTALL: &str = "\
Examples:
  Preview the change to ~/.claude/settings.json:
    memctl hook install --dry-run
  Install for this project only, on this machine:
    memctl hook install --scope local
  Check writes after they land and at the end of the turn, but never refuse one:
    memctl hook install --no-gate";

    pub const HOOK_UNINSTALL: &str = "\
Examples:
  Remove the hooks from the user settings:
    memctl hook uninstall
  From this project's local settings, previewing first:
    memctl hook uninstall --scope local --dry-run";

    pub const HOOK_STATUS: &str = "\
Examples:
  Show each scope's state:
    memctl hook status
  As JSON:
    memctl hook status --json";

    pub const CONFIG: &str = "\
Examples:
  Show the effective memory settings and their sources:
    memctl config
  Turn auto-dream off for this machine:
    memctl config set autoDreamEnabled false
  Keep this project's memory in another dir (local settings only):
    memctl config set autoMemoryDirectory ~/notes/app-memory --scope local";

    pub const CONFIG_SET: &str = "\
Examples:
  Turn auto memory off for every project:
    memctl config set autoMemoryEnabled false
  Move this project's memory, previewing first:
    memctl config set autoMemoryDirectory ~/notes/app-memory --scope local --dry-run";

    pub const CONFIG_UNSET: &str = "\
Examples:
  Go back to Claude Code's default memory dir:
    memctl config unset autoMemoryDirectory --scope local
  Remove the user-level auto-dream setting:
    memctl config unset autoDreamEnabled";
}
