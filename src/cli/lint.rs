//! `memctl lint`: its arguments, declared for clap, and the examples of its
//! long help and man page.

use clap::{Args, ValueEnum};

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

pub(super) const EXAMPLES: &str = "\
Examples:
  Check the memory dir of the current project:
    memctl lint
  Preview, then apply, the fixes of fixable rules:
    memctl lint --fix --dry-run
    memctl lint --fix
  Only the index rules, as SARIF for code scanning:
    memctl lint --rule ML201,ML202,ML203 --format sarif";
