//! `memctl hook`: its arguments, declared for clap, and the examples of its
//! long help and man page.

use clap::{Args, Subcommand};

use super::SettingsScope;

#[derive(Debug, Args)]
pub struct HookArgs {
    /// Install, remove or inspect the hook [default: run it on stdin's payload]
    #[command(subcommand)]
    pub command: Option<HookCommand>,
}

#[derive(Debug, Subcommand)]
pub enum HookCommand {
    /// Add memctl's hooks to a Claude Code settings file
    #[command(after_long_help = INSTALL_EXAMPLES)]
    Install(HookAddArgs),
    /// Remove memctl's hooks from a Claude Code settings file
    #[command(after_long_help = UNINSTALL_EXAMPLES)]
    Uninstall(HookInstallArgs),
    /// Show where memctl's hooks are installed and whether Claude Code runs them
    #[command(after_long_help = STATUS_EXAMPLES)]
    Status,
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

pub(super) const EXAMPLES: &str = "\
Examples:
  Install the hooks for every project (user settings):
    memctl hook install
  See where they are installed and whether Claude Code runs them:
    memctl hook status
  Try the hook on a payload by hand:
    echo '{\"hook_event_name\":\"SessionStart\",\"cwd\":\"/home/alice/src/app\"}' | memctl hook";

const INSTALL_EXAMPLES: &str = "\
Examples:
  Preview the change to ~/.claude/settings.json:
    memctl hook install --dry-run
  Install for this project only, on this machine:
    memctl hook install --scope local
  Check writes after they land and at the end of the turn, but never refuse one:
    memctl hook install --no-gate";

const UNINSTALL_EXAMPLES: &str = "\
Examples:
  Remove the hooks from the user settings:
    memctl hook uninstall
  From this project's local settings, previewing first:
    memctl hook uninstall --scope local --dry-run";

const STATUS_EXAMPLES: &str = "\
Examples:
  Show each scope's state:
    memctl hook status
  As JSON:
    memctl hook status --json";
