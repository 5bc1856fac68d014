//! `memctl lint` (SPEC §3.9): read the options, lint the dir (and fix it), render
//! the findings in the chosen format.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;

use crate::cli::{LintArgs, LintFormat, MinSeverity};
use crate::context::Context;
use crate::error::{Error, Kind};
use crate::lint::fix::{self, Fix};
use crate::lint::{self, Finding, Found, Input, RULES, Report, RuleId, Severity, format};
use crate::output::Output;
use crate::paths::Resolution;
use crate::store::Writer;
use crate::text::suggestions;

pub fn run(args: &LintArgs, ctx: &Context, out: &mut Output) -> Result<ExitCode> {
    if args.list_rules {
        return list_rules(out);
    }
    if let Some(id) = &args.explain {
        return explain(id, out);
    }
    let shown = Shown::from_args(args)?;
    let format = if out.json {
        LintFormat::Json
    } else {
        args.format.unwrap_or(LintFormat::Text)
    };
    if args.summary && format != LintFormat::Text {
        return Err(Error::new(
            Kind::Usage,
            "--summary is a text view: it cannot be combined with --json or --format",
        )
        .hint("the JSON document's `summary` and `findings` hold the counts: `memctl lint --json`")
        .into());
    }
    if args.all_projects {
        return match format {
            LintFormat::Sarif | LintFormat::Github => one_stream(args, ctx, out, &shown, format),
            _ => crate::projects::each::run(ctx, out, |ctx, out| lint_one(args, ctx, out, &shown, format)),
        };
    }
    lint_one(args, ctx, out, &shown, format)
}

/// Lint one memory dir and render its findings.
fn lint_one(args: &LintArgs, ctx: &Context, out: &mut Output, shown: &Shown, format: LintFormat) -> Result<ExitCode> {
    let (outcome, res) = check(args, ctx, out, shown)?;
    let dir = res.memdir.dir();
    let layout = Layout {
        terminal: out.stdout_tty,
        summary_only: args.summary,
        dir,
    };
    render(out, format, args.dry_run, &outcome, &res.shown(), &ctx.env.cwd, &layout)?;
    Ok(exit_code(args, &outcome.findings))
}

/// 1 when errors (or, with --strict, warnings) are among the findings shown.
fn exit_code(args: &LintArgs, findings: &Found) -> ExitCode {
    let (errors, warnings, _) = findings.counts();
    if errors > 0 || (args.strict && warnings > 0) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// `--all-projects --format sarif|github`: one document (or stream) for every
/// project's findings; their absolute paths say which project each is in.
fn one_stream(args: &LintArgs, ctx: &Context, out: &mut Output, shown: &Shown, format: LintFormat) -> Result<ExitCode> {
    let (mut findings, mut files) = (Vec::new(), 0);
    let mut failed = false;
    for row in crate::projects::each::rows(ctx, out)? {
        match check(args, &crate::projects::each::context_for(ctx, &row), out, shown) {
            Ok((outcome, _)) => {
                files += outcome.files;
                findings.extend(outcome.findings.iter().map(|f| in_project(f, &row)));
            }
            Err(e) => {
                failed = true;
                out.warn(format!("{}: {}", row.name(), crate::classify(&e).message));
            }
        }
    }
    let all = Outcome {
        findings: Found::from_sorted(findings),
        files,
        fixes: Vec::new(),
        warnings: Vec::new(),
    };
    let layout = Layout {
        terminal: false,
        summary_only: false,
        dir: &ctx.env.cwd,
    };
    render(out, format, false, &all, "", &ctx.env.cwd, &layout)?;
    Ok(if failed {
        ExitCode::from(2)
    } else {
        exit_code(args, &all.findings)
    })
}

/// A finding with no file (decided by a setting or variable) names its project.
fn in_project(mut f: Finding, row: &crate::projects::Row) -> Finding {
    if f.path.is_none() {
        f.message = format!("{}: {}", row.name(), f.message).into_boxed_str();
    }
    f
}

/// Lint one memory dir (and fix it with --fix), giving its notes and warnings to `out`.
fn check(args: &LintArgs, ctx: &Context, out: &mut Output, shown: &Shown) -> Result<(Outcome, Resolution)> {
    let res = ctx.resolve_existing()?;
    let input = Input {
        dir: res.memdir.dir(),
        res: &res,
        now_ms: ctx.now_ms(),
        warn_at: args.warn_at,
        env: Some(&ctx.env),
    };
    let mut report = lint::lint(&input);
    let notes = std::mem::take(&mut report.notes);
    let outcome = if args.fix {
        fix_and_relint(args, ctx, &input, shown, report)?
    } else {
        let mut findings = report.findings;
        if !shown.keeps_all() {
            findings.retain(|id, severity| shown.keeps(id, severity));
        }
        Outcome {
            findings,
            files: report.files,
            fixes: Vec::new(),
            warnings: Vec::new(),
        }
    };
    for n in notes {
        out.note(n);
    }
    // Not a rule of SPEC §3.9.3: a stderr warning, as in `path` (issue 13).
    if let Some(w) = res.tracked_local_setting_warning() {
        out.warn(w);
    }
    // As `path` says it (issue 14): once, whatever the rules shown.
    if !res.enabled.value {
        out.warn(format!(
            "auto memory is disabled ({}): Claude Code will not read or write this directory",
            res.enabled.lever
        ));
    }
    // memctl's own files in a repository (issue 14).
    if let Some(n) = lint::repo::untracked_own_files_note(res.memdir.main()) {
        out.note(n);
    }
    note_fixes(out, &outcome.fixes);
    for w in &outcome.warnings {
        out.warn(w.clone());
    }
    Ok((outcome, res))
}

/// `--list-rules`: the rule table, one rule per line (a JSON array with `--json`).
fn list_rules(out: &mut Output) -> Result<ExitCode> {
    #[derive(serde::Serialize)]
    struct Row {
        id: RuleId,
        name: &'static str,
        severity: Severity,
        fixable: bool,
        consequence: &'static str,
    }
    let rows: Vec<Row> = RULES
        .iter()
        .map(|r| Row {
            id: r.id,
            name: r.name,
            severity: r.severity,
            fixable: r.fixable,
            consequence: &r.consequence,
        })
        .collect();
    if out.json {
        #[derive(serde::Serialize)]
        struct Doc {
            rules: Vec<Row>,
        }
        out.emit_json(serde_json::to_value(Doc { rules: rows })?)?;
        return Ok(ExitCode::SUCCESS);
    }
    // On a terminal the consequence wraps under itself to fit the width.
    let wrap_to = crate::output::row_width(out);
    let width = rows.iter().map(|r| r.name.len()).max().unwrap_or(0);
    let mut text = String::new();
    for r in &rows {
        let fix = if r.fixable { "fix" } else { "-" };
        let sev = r.severity.as_str();
        let prefix = format!("{}  {:<width$}  {sev:<7}  {fix:<3}  ", r.id, r.name);
        text.push_str(&crate::output::hang(&prefix, r.consequence, wrap_to));
    }
    out.print(&text)?;
    Ok(ExitCode::SUCCESS)
}

/// `--explain ID`: one rule, what Claude Code does, why it matters, how to fix it.
fn explain(id: &str, out: &mut Output) -> Result<ExitCode> {
    let Some(id) = RuleId::lookup(id) else {
        return Err(unknown_rule(id).into());
    };
    if out.json {
        out.emit_json(explain_json(id)?)?;
    } else {
        let text = explain_text(id, out);
        out.print(&text)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The `usage` error for an unknown rule given to `--explain`, with the nearest id
/// or name.
fn unknown_rule(id: &str) -> Error {
    let near = suggestions(
        id,
        RULES.iter().map(|r| r.id.as_str()).chain(RULES.iter().map(|r| r.name)),
    );
    let hint = near.first().map_or_else(
        || {
            "rule ids look like ML203 (or a rule name such as index-unindexed); `memctl lint --list-rules` lists them"
                .to_string()
        },
        |n| format!("did you mean `{n}`? (`memctl lint --list-rules` lists the rules)"),
    );
    Error::new(Kind::Usage, format!("unknown rule `{id}` given to --explain")).hint(hint)
}

/// `--explain ID --json`: the rule and its explanation as one object.
fn explain_json(id: RuleId) -> Result<serde_json::Value> {
    #[derive(serde::Serialize)]
    struct Doc {
        id: RuleId,
        name: &'static str,
        severity: Severity,
        fixable: bool,
        consequence: &'static str,
        claude_code: &'static str,
        why: &'static str,
        fix: &'static str,
    }
    let (rule, x) = (id.rule(), lint::explain::explain(id));
    Ok(serde_json::to_value(Doc {
        id,
        name: rule.name,
        severity: rule.severity,
        fixable: rule.fixable,
        consequence: &rule.consequence,
        claude_code: &x.claude_code,
        why: &x.why,
        fix: &x.fix,
    })?)
}

/// `--explain ID` as text: a heading, then each section of the rule's page under
/// its label, wrapped to the terminal (80 columns piped, at most 100).
fn explain_text(id: RuleId, out: &Output) -> String {
    let (rule, x) = (id.rule(), lint::explain::explain(id));
    // A pty that reports no size says 0: then 80.
    let width = match crate::output::terminal_width() {
        w if w >= 40 => w.min(100),
        _ => 80,
    };
    let fixable = if rule.fixable {
        ", fixable with `memctl lint --fix`"
    } else {
        ""
    };
    let mut text = out.bold(&format!("{id} {}", rule.name));
    text.push_str(&format!(" ({}{fixable})\n", rule.severity.as_str()));
    // The labels are the sections of the rule's page.
    for (label, body) in lint::explain::SECTIONS.iter().zip([&x.claude_code, &x.why, &x.fix]) {
        text.push('\n');
        text.push_str(&out.bold(&format!("{label}:")));
        text.push('\n');
        text.push_str(&format::wrap_indented(body, "  ", width));
    }
    text
}

/// The rule ids given to `flag`; an unknown one is a `usage` error.
fn parse_rule_ids(ids: &[String], flag: &str) -> Result<Vec<RuleId>, Error> {
    ids.iter()
        .filter(|id| !id.trim().is_empty())
        .map(|id| {
            RuleId::lookup(id).ok_or_else(|| {
                let near = suggestions(id, RULES.iter().map(|r| r.id.as_str()));
                let hint = near.first().map_or_else(
                    || "rule ids look like ML101 (or a rule name); `memctl lint --list-rules` lists them".to_string(),
                    |n| format!("did you mean `{n}`?"),
                );
                Error::new(Kind::Usage, format!("unknown rule `{id}` given to {flag}")).hint(hint)
            })
        })
        .collect()
}

/// Which findings are shown: `--rule`, `--disable`, `--min-severity`.
struct Shown {
    only: Vec<RuleId>,
    disable: Vec<RuleId>,
    min: Severity,
}

impl Shown {
    fn from_args(args: &LintArgs) -> Result<Shown, Error> {
        Ok(Shown {
            only: parse_rule_ids(&args.rules, "--rule")?,
            disable: parse_rule_ids(&args.disable, "--disable")?,
            min: match args.min_severity {
                MinSeverity::Error => Severity::Error,
                MinSeverity::Warning => Severity::Warning,
                MinSeverity::Info => Severity::Info,
            },
        })
    }

    /// Whether findings of `id` (at its default severity) are shown.
    fn allows(&self, id: RuleId) -> bool {
        (self.only.is_empty() || self.only.contains(&id))
            && !self.disable.contains(&id)
            && id.rule().severity >= self.min
    }

    fn keep(&self, findings: Vec<Finding>) -> Vec<Finding> {
        lint::filter(findings, &self.only, &self.disable, self.min)
    }

    /// Whether every finding is shown (no option narrows them).
    fn keeps_all(&self) -> bool {
        self.only.is_empty() && self.disable.is_empty() && self.min == Severity::Info
    }

    /// Whether a finding of `id` at `severity` is shown (as [`Shown::keep`]).
    fn keeps(&self, id: RuleId, severity: Severity) -> bool {
        (self.only.is_empty() || self.only.contains(&id)) && !self.disable.contains(&id) && severity >= self.min
    }
}

/// What is rendered: the findings shown, the files examined, the fixes.
struct Outcome {
    findings: Found,
    files: usize,
    fixes: Vec<Fix>,
    /// The entries the fixes placed past Claude Code's cut (SPEC §3.14) and the
    /// writer's warnings (a history snapshot that failed).
    warnings: Vec<String>,
}

/// `--fix`: plan the fixes of the findings shown; with `--dry-run` show them and
/// drop the findings they resolve, else write them and lint again.
fn fix_and_relint(args: &LintArgs, ctx: &Context, input: &Input, shown: &Shown, report: Report) -> Result<Outcome> {
    let res = input.res;
    let findings = shown.keep(report.findings.to_vec());
    let scope = fix::Scope {
        memdir: &res.memdir,
        team_store: crate::index::check::team_store_configured(&ctx.env),
        shown: &|id| shown.allows(id),
    };
    if args.dry_run {
        let plan = fix::plan(&scope, &findings);
        let fixes = plan.preview(ctx.now);
        let resolved = |f: &Finding| {
            fixes
                .iter()
                .any(|x| x.id == f.id && f.path.as_deref().is_some_and(|p| x.resolves.iter().any(|r| r == p)))
        };
        let findings = findings.into_iter().filter(|f| !resolved(f)).collect();
        return Ok(Outcome {
            findings: Found::from_sorted(findings),
            files: report.files,
            fixes,
            warnings: plan.warnings,
        });
    }
    let (fixes, warnings) = {
        // The plan reads the files under the write lock the sink holds.
        let mut writer = Writer::open(&res.memdir, ctx.now, args.force, &ctx.recording("fix", res))?;
        let mut plan = fix::plan(&scope, &findings);
        let mut warnings = std::mem::take(&mut plan.warnings);
        let fixes = fix::apply(plan, &mut writer)?;
        warnings.extend(writer.finish());
        (fixes, warnings)
    };
    let again = lint::lint(input);
    Ok(Outcome {
        findings: Found::from_sorted(shown.keep(again.findings.to_vec())),
        files: again.files,
        fixes,
        warnings,
    })
}

fn note_fixes(out: &mut Output, fixes: &[Fix]) {
    for f in fixes {
        match (&f.skipped, f.applied) {
            (Some(why), _) => out.note(format!("not fixed: {} {}: {why}", f.id, f.rel)),
            (None, true) => out.note(format!("fixed {} in {}", f.id, f.rel)),
            _ => {}
        }
    }
}

/// How text output is laid out.
struct Layout<'a> {
    /// stdout is a terminal: the layout of SPEC §3.13.
    terminal: bool,
    /// `--summary`.
    summary_only: bool,
    /// The dir linted: terminal paths are relative to it.
    dir: &'a Path,
}

fn render(
    out: &mut Output,
    format: LintFormat,
    dry_run: bool,
    o: &Outcome,
    memory_dir: &str,
    cwd: &Path,
    layout: &Layout,
) -> Result<()> {
    match format {
        LintFormat::Json => out.emit_json_streamed(&format::json(&o.findings, o.files, memory_dir, &o.fixes, cwd))?,
        LintFormat::Sarif => {
            if dry_run {
                out.note("--fix --dry-run diffs are not part of SARIF; use --format json to see them");
            }
            let log = serde_json::to_string_pretty(&format::sarif(&o.findings.to_vec(), cwd))?;
            out.print(&format!("{log}\n"))?;
        }
        LintFormat::Github => out.print(&format::github(&o.findings.to_vec(), cwd))?,
        LintFormat::Text => {
            for diff in o.fixes.iter().filter_map(|f| f.diff.as_ref()) {
                out.print(&crate::diff::paint(out.color_stdout, diff))?;
            }
            if layout.summary_only {
                out.print(&format::by_rule(&o.findings.to_vec()))?;
            } else if layout.terminal {
                let (text, aggregated) = format::terminal(&o.findings.to_vec(), layout.dir, cwd, out.color_stdout);
                out.print(&text)?;
                if aggregated {
                    out.flush()?;
                    out.note(format!(
                        "a rule firing on more than {} lines of a file is shown once; pipe the output or use --json to see every finding",
                        format::AGGREGATE_OVER
                    ));
                }
            } else {
                let color = out.color_stdout;
                format::text_chunked(o.findings.iter(), cwd, color, |chunk| out.print(chunk))?;
            }
            // The findings first: stdout is buffered, stderr is not.
            out.flush()?;
            // Through `Output`: a closed stderr must not abort (SPEC §3.1).
            out.eprint(&format!("{}\n", format::summary(o.findings.counts(), o.files)));
        }
    }
    Ok(())
}
