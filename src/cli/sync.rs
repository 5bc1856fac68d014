//! `memctl sync`: its arguments, declared for clap, and the examples of its
//! long help and man page.

use clap::{Args, ValueHint};

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

pub(super) const EXAMPLES: &str = "\
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
