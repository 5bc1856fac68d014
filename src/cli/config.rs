//! `memctl config`: its arguments, declared for clap, and the examples of its
//! long help and man page.

use clap::{Args, Subcommand};

use super::SettingsScope;

#[derive(Debug, Args)]
pub struct ConfigArgs {
    /// Change a setting [default: show the effective settings]
    #[command(subcommand)]
    pub command: Option<ConfigCommand>,
}

#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Write a memory setting into a settings file
    #[command(after_long_help = SET_EXAMPLES)]
    Set(ConfigSetArgs),
    /// Remove a memory setting from a settings file
    #[command(after_long_help = UNSET_EXAMPLES)]
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

pub(super) const EXAMPLES: &str = "\
Examples:
  Show the effective memory settings and their sources:
    memctl config
  Turn auto-dream off for this machine:
    memctl config set autoDreamEnabled false
  Keep this project's memory in another dir (local settings only):
    memctl config set autoMemoryDirectory ~/notes/app-memory --scope local";

const SET_EXAMPLES: &str = "\
Examples:
  Turn auto memory off for every project:
    memctl config set autoMemoryEnabled false
  Move this project's memory, previewing first:
    memctl config set autoMemoryDirectory ~/notes/app-memory --scope local --dry-run";

const UNSET_EXAMPLES: &str = "\
Examples:
  Go back to Claude Code's default memory dir:
    memctl config unset autoMemoryDirectory --scope local
  Remove the user-level auto-dream setting:
    memctl config unset autoDreamEnabled";
