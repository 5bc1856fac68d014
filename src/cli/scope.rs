//! Which Claude Code settings file a command edits (`hook`, `config`).

use clap::ValueEnum;

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
