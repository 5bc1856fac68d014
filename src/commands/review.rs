//! `memctl review [--apply N,...] [--yes]` (SPEC §12): read every memory and the
//! project's CLAUDE files, print numbered proposals, apply the chosen ones.

use std::collections::HashMap;
use std::fs::File;
use std::io::Read;
use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;
use serde::Serialize;

use crate::claude_md::{self, ClaudeText, Located};
use crate::cli::ReviewArgs;
use crate::context::Context;
use crate::diff::unified;
use crate::error::{Error, Kind};
use crate::memory::Memory;
use crate::ops::review::{self as apply_op, Applied, Choice, Skipped, Sources};
use crate::output::Output;
use crate::review::{self, Analysis, ClaudeFile, Layer, Prepared, Proposal};
use crate::scan::Scan;
use crate::store::Writer;

/// The most of a memory file review reads.
const MAX_MEMORY_BYTES: u64 = 4 << 20;

#[derive(Serialize)]
struct Report<'a> {
    memory_dir: String,
    claude_md: String,
    claude_local_md: String,
    agents_md: String,
    proposals: &'a [Proposal],
}

#[derive(Serialize)]
struct ApplyReport<'a> {
    applied: &'a [Applied],
    skipped: &'a [Skipped],
}

/// Everything read: the scan, the texts, the CLAUDE files.
struct Gathered {
    memories: Vec<Memory>,
    texts: HashMap<String, String>,
    located: Located,
    claude_md: Option<ClaudeText>,
    claude_local_md: Option<ClaudeText>,
    agents_md: Option<ClaudeText>,
    team_dir: bool,
    analysis: Analysis,
}

pub fn run(args: &ReviewArgs, ctx: &Context, out: &mut Output) -> Result<ExitCode> {
    if ctx.request.team {
        out.note("--team is ignored: review works on the main memory dir and its team dir together");
    }
    let res = ctx.resolve_main_existing()?;
    let Some(project) = &res.project else {
        return Err(Error::new(
            Kind::Usage,
            "review needs a project: the CLAUDE files it compares with live there",
        )
        .hint("pass --project DIR with --dir (or run memctl review inside the project)")
        .into());
    };
    let choices = apply_op::parse_choices(&args.apply)?;
    if !choices.is_empty() && !args.yes && !out.interactive() {
        return Err(Error::new(
            Kind::Usage,
            "review --apply needs confirmation, and there is no terminal to ask",
        )
        .hint("pass --yes to apply without asking")
        .into());
    }
    // The texts are kept only when something may be applied (a merge and a move
    // to `team/` rewrite a memory from the text analysed): otherwise only the rules.
    let keep_texts = !choices.is_empty() || out.interactive();
    let g = gather(&res.memdir, Path::new(&project.canonical_root), ctx, keep_texts)?;
    for w in &g.analysis.warnings {
        out.warn(w.clone());
    }
    if !choices.is_empty() {
        return apply(args, ctx, out, &res, &g, &choices);
    }
    if out.json {
        out.emit_json_streamed(&report(&res.memdir, &g))?;
        return Ok(ExitCode::SUCCESS);
    }
    let width = crate::output::row_width(out);
    let interactive = out.interactive();
    render(&res.memdir, &g, ctx.now_ms(), interactive, width, out.stdout())?;
    if out.interactive() && g.analysis.proposals.iter().any(|p| p.kind.applicable()) {
        let answer = out.ask_line("Apply which proposals? (e.g. 1,3 or 2=local; Enter for none)")?;
        let picked = apply_op::parse_choices(&answer.split(',').map(String::from).collect::<Vec<_>>())?;
        if picked.is_empty() {
            out.note("nothing applied");
            return Ok(ExitCode::SUCCESS);
        }
        return apply(args, ctx, out, &res, &g, &picked);
    }
    Ok(ExitCode::SUCCESS)
}

fn report<'a>(memdir: &crate::memdir::MemoryDir, g: &'a Gathered) -> Report<'a> {
    Report {
        memory_dir: memdir.shown(),
        claude_md: g.located.claude_md.path.display().to_string(),
        claude_local_md: g.located.claude_local_md.path.display().to_string(),
        agents_md: g.located.agents_md.path.display().to_string(),
        proposals: &g.analysis.proposals,
    }
}

/// Scan every memory file (reading each whole, bounded, its rule cut into
/// statements and its topic taken on the reader threads; its text kept when
/// `keep_texts`), read the CLAUDE files, and analyse.
fn gather(memdir: &crate::memdir::MemoryDir, root: &Path, ctx: &Context, keep_texts: bool) -> Result<Gathered, Error> {
    let located = claude_md::locate(root)?;
    let claude_md = claude_md::read(&located.claude_md)?;
    let claude_local_md = claude_md::read(&located.claude_local_md)?;
    let agents_md = claude_md::read(&located.agents_md)?;
    let files: Vec<ClaudeFile> = [
        (Layer::Claude, &claude_md),
        (Layer::Local, &claude_local_md),
        (Layer::Agents, &agents_md),
    ]
    .into_iter()
    .filter_map(|(layer, t)| {
        t.as_ref().map(|t| ClaudeFile {
            layer,
            label: t.file.display(),
            statements: t.statements(),
            mtime_ms: t.mtime_ns as f64 / 1e6,
        })
    })
    .collect();
    let Scanned {
        scan,
        prepared,
        texts,
        cutters,
        claude,
    } = scan_compared(memdir, &files, keep_texts);
    let mut warnings: Vec<String> = scan.problems.iter().map(|p| p.message()).collect();
    for f in [&located.claude_md, &located.claude_local_md, &located.agents_md] {
        if let Some(n) = &f.note {
            warnings.push(n.clone());
        }
    }
    let team: Vec<bool> = scan.memories.iter().map(|m| in_team(memdir, m)).collect();
    let team_dir = memdir.team_dir().is_dir();
    let mut analysis = review::analyze_prepared(
        &review::Input {
            memories: &scan.memories,
            texts: &[],
            team: &team,
            claude: &files,
            team_dir,
            thresholds: review::THRESHOLDS,
            now_ms: ctx.now_ms(),
        },
        prepared,
        cutters,
        claude,
    );
    warnings.append(&mut analysis.warnings);
    analysis.warnings = warnings;
    let texts: HashMap<String, String> = scan
        .memories
        .iter()
        .zip(texts)
        .filter_map(|(m, t)| t.map(|t| (m.rel.clone(), t)))
        .collect();
    Ok(Gathered {
        memories: scan.memories,
        texts,
        located,
        claude_md,
        claude_local_md,
        agents_md,
        team_dir,
        analysis,
    })
}

/// Whether review's team layer holds `m` (SPEC §12): the `team/` dir of the
/// main scope, shared or not (whether Claude Code treats it as team memory is
/// §2.13's matter).
fn in_team(memdir: &crate::memdir::MemoryDir, m: &Memory) -> bool {
    !memdir.is_team() && m.rel.starts_with("team/")
}

/// [`scan_prepared`], keeping nothing of the memories that cannot meet a
/// CLAUDE/AGENTS statement ([`review::Only`]) unless a team memory is compared
/// with them: when there is no `team/` entry before the scan and the scan finds
/// no team memory (one made meanwhile: scanned again, keeping everything).
fn scan_compared(memdir: &crate::memdir::MemoryDir, files: &[ClaudeFile], keep_texts: bool) -> Scanned {
    let team = !memdir.is_team() && std::fs::symlink_metadata(memdir.team_dir()).is_ok();
    if team {
        return scan_prepared(memdir, keep_texts, None);
    }
    let only = review::Only {
        vocab: review::vocab(files, review::THRESHOLDS.related),
        rules: keep_texts,
    };
    let mut scanned = scan_prepared(memdir, keep_texts, Some(&only));
    if scanned.scan.memories.iter().any(|m| in_team(memdir, m)) {
        drop(scanned);
        return scan_prepared(memdir, keep_texts, None);
    }
    // The CLAUDE/AGENTS statements cut for the check are interned, not cut again.
    let (cuts, cutter) = only.vocab.into_cuts();
    scanned.cutters.extend(cutter);
    scanned.claude = Some(cuts);
    scanned
}

/// What [`scan_prepared`] read.
struct Scanned {
    scan: Scan,
    /// Each memory prepared on the reader threads (`None`: unread).
    prepared: Vec<Option<Prepared>>,
    /// Each memory's text, when kept.
    texts: Vec<Option<String>>,
    /// The cutters that prepared them: each a cache of prose words and the token
    /// texts its cuts name.
    cutters: Vec<review::Cutter>,
    /// The CLAUDE/AGENTS statements as cut for [`review::Only`] (their cutter
    /// among `cutters`), when it was used.
    claude: Option<review::Cuts>,
}

/// Scan every memory, each prepared on the reader threads (its text kept when
/// `keep_texts`). A reader takes a cutter for each memory it prepares and puts
/// it back: as many cutters as memories prepared at once, all handed to the
/// analysis.
fn scan_prepared(memdir: &crate::memdir::MemoryDir, keep_texts: bool, only: Option<&review::Only>) -> Scanned {
    let cutters: std::sync::Mutex<Vec<review::Cutter>> = Default::default();
    let take = || cutters.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let visit = |m: &Memory, file: &mut File, buf: &mut Vec<u8>| -> Option<(Option<String>, Option<Prepared>)> {
        let left = MAX_MEMORY_BYTES.saturating_sub(buf.len() as u64);
        file.take(left).read_to_end(buf).ok()?;
        let text = lossy(buf);
        let mut cutter = take().pop().unwrap_or_default();
        let prepared = review::prepare_only(m, &text, &mut cutter, only);
        take().push(cutter);
        Some((keep_texts.then(|| text.into_owned()), prepared))
    };
    let (scan, read, ()) = crate::scan::scan_visit(memdir.dir(), || (), &visit);
    let (prepared, texts) = read
        .into_iter()
        .map(|r| r.map_or((None, None), |(text, p)| (p, text)))
        .unzip();
    let cutters = cutters.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
    Scanned {
        scan,
        prepared,
        texts,
        cutters,
        claude: None,
    }
}

/// `buf` as text, invalid UTF-8 replaced: valid UTF-8 (nearly every file) is
/// checked word by word, not char by char.
fn lossy(buf: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(buf) {
        Ok(t) => std::borrow::Cow::Borrowed(t),
        Err(_) => String::from_utf8_lossy(buf),
    }
}

/// The numbered proposals as text. On a terminal (`width` `Some`) the `why:` and
/// `action:` lines wrap to it and evidence lines are cut with `…`; piped output
/// keeps each on one line, whole. Written to `w` a proposal at a time (the text
/// of 20 000 memories is 12 MB: no buffer of it all).
fn render(
    memdir: &crate::memdir::MemoryDir,
    g: &Gathered,
    now_ms: f64,
    interactive: bool,
    width: Option<usize>,
    w: &mut impl std::io::Write,
) -> std::io::Result<()> {
    let age = |ms: f64| crate::age::age_text(crate::age::age_days(now_ms, ms));
    let shown = |t: &Option<ClaudeText>, f: &claude_md::ClaudeFile| match t {
        Some(t) => format!(
            "{} ({}, {} line{})",
            f.path.display(),
            age(t.mtime_ns as f64 / 1e6),
            t.lines.len(),
            if t.lines.len() == 1 { "" } else { "s" }
        ),
        None => format!("{} (missing)", f.path.display()),
    };
    let mut s = format!(
        "memory dir:      {}\nCLAUDE.md:       {}\nCLAUDE.local.md: {}\nAGENTS.md:       {}\n",
        memdir.shown(),
        shown(&g.claude_md, &g.located.claude_md),
        shown(&g.claude_local_md, &g.located.claude_local_md),
        shown(&g.agents_md, &g.located.agents_md)
    );
    if g.analysis.proposals.is_empty() {
        s.push_str("\nno proposals: no memory to remove, update, merge or promote\n");
        return w.write_all(s.as_bytes());
    }
    for p in &g.analysis.proposals {
        if s.len() >= 16 << 10 {
            w.write_all(s.as_bytes())?;
            s.clear();
        }
        proposal_rows(&mut s, p, now_ms, width);
    }
    let n = g.analysis.proposals.len();
    if !interactive {
        s.push_str(&format!(
            "\n{n} proposal{}; apply with `memctl review --apply N,... --yes`\n(pick a target as N=claude, {}N=local{})\n",
            if n == 1 { "" } else { "s" },
            if g.agents_md.is_some() { "N=agents, " } else { "" },
            if g.team_dir { " or N=team" } else { "" }
        ));
    }
    w.write_all(s.as_bytes())
}

/// One proposal's rows ([`render`]), appended to `s`. On a terminal (`width`
/// `Some`) evidence lines are cut with `…`; piped, every row is whole.
fn proposal_rows(s: &mut String, p: &Proposal, now_ms: f64, width: Option<usize>) {
    use std::fmt::Write as _;

    use crate::output::{fit_end, hang_into};
    let target = match (p.kind, p.target.as_deref()) {
        (review::Kind::Merge, Some(t)) => format!(" into {t}"),
        (_, Some(t)) => format!(" → {t}"),
        (_, None) => String::new(),
    };
    s.push('\n');
    let title = format!("{} {}{target}", p.kind.as_str(), p.memory);
    hang_into(s, &format!("{}. ", p.n), &title, width);
    hang_into(s, "   why:    ", &p.reason, width);
    for e in &p.evidence {
        let age = crate::age::age_text(crate::age::age_days(now_ms, e.mtime_ms));
        let at = s.len();
        let _ = write!(s, "   {}:{} ({age}): {}", e.file, e.line, e.text);
        if let Some(w) = width {
            let cut = fit_end(&s[at..], w);
            s.truncate(at);
            s.push_str(&cut);
        }
        s.push('\n');
    }
    hang_into(s, "   action: ", &p.action, width);
}

fn apply(
    args: &ReviewArgs,
    ctx: &Context,
    out: &mut Output,
    res: &crate::paths::Resolution,
    g: &Gathered,
    choices: &[Choice],
) -> Result<ExitCode> {
    let src = Sources {
        memdir: &res.memdir,
        located: &g.located,
        claude_md: g.claude_md.as_ref(),
        claude_local_md: g.claude_local_md.as_ref(),
        agents_md: g.agents_md.as_ref(),
        memories: &g.memories,
        texts: &g.texts,
        team_dir: g.team_dir,
    };
    let plan = apply_op::plan(&src, &g.analysis.proposals, choices)?;
    for s in &plan.skipped {
        out.warn(format!("proposal {} ({}) skipped: {}", s.n, s.kind.as_str(), s.reason));
    }
    for w in plan.forget.iter().flat_map(|f| &f.warnings) {
        out.warn(w.clone());
    }
    if !out.json {
        for (label, old, new) in &plan.diffs {
            out.print(&unified(label, old, new))?;
        }
        for f in &plan.forgotten {
            out.print(&format!("forget {f}\n"))?;
        }
    }
    if plan.is_empty() {
        out.note("nothing to apply");
        return finish(out, &plan);
    }
    if !args.yes && !out.ask_yes_no("Apply these changes?", false)? {
        out.note("nothing applied");
        return Ok(ExitCode::SUCCESS);
    }
    let mut writer = Writer::open(&res.memdir, ctx.now, false, &ctx.recording("review", res))?;
    let kept = apply_op::apply(&plan, &mut writer);
    if kept.is_err() {
        writer.roll_back();
    }
    let kept = kept?;
    for w in writer.finish() {
        out.warn(w);
    }
    if !out.json {
        for a in &plan.applied {
            out.print(&format!(
                "applied {} ({}): {}\n",
                a.n,
                a.kind.as_str(),
                a.files_changed.join(", ")
            ))?;
        }
        if let Some(crate::ops::forget::Kept::Trash(dir)) = &kept {
            out.print(&format!("forgotten memories kept in {}\n", dir.display()))?;
        } else if kept.is_some() || !plan.applied.is_empty() {
            out.print("undo with `memctl undo`\n")?;
        }
    }
    finish(out, &plan)
}

fn finish(out: &mut Output, plan: &apply_op::Plan) -> Result<ExitCode> {
    if out.json {
        out.emit_json(serde_json::to_value(ApplyReport {
            applied: &plan.applied,
            skipped: &plan.skipped,
        })?)?;
    }
    Ok(ExitCode::SUCCESS)
}
