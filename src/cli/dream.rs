//! `memctl dream`: its arguments, declared for clap, and the examples of its
//! long help and man page.

use clap::Args;

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

pub(super) const EXAMPLES: &str = "\
Examples:
  Would auto-dream run now, and what would it consolidate?
    memctl dream
  What if the time gate were 12 hours:
    memctl dream --min-hours 12
  Leave out the session doing the check, as Claude Code does:
    memctl dream --current-session 3f2a9c1e-7b4d-4e8a-9c0f-1d2e3f4a5b6c";
