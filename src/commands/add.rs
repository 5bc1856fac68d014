//! `memctl add` (SPEC §3.6).

use std::io::Read;
use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;

use crate::cli::AddArgs;
use crate::context::Context;
use crate::diff::unified as unified_diff;
use crate::error::{Error, Kind};
use crate::memory::{self, MemoryType};
use crate::ops::add::{self, NewMemory, compose_body};
use crate::ops::survey::Seen;
use crate::output::Output;
use crate::store::Writer;

pub fn run(args: &AddArgs, ctx: &Context, out: &mut Output) -> Result<ExitCode> {
    let m = gather(args, ctx, out)?;
    let res = ctx.resolve()?;
    let dir = &res.memdir;
    // After prompts the lock is taken once the summary is confirmed, not while a
    // person reads it.
    let confirm = m.asked && out.interactive() && !args.dry_run;
    // The before-snapshot's walk shows the survey (the duplicate-name check)
    // the dir's files under the lock: one walk of the dir, not two.
    let mut seen = (!dir.is_team()).then(Seen::default);
    let mut writer = if args.dry_run || confirm {
        None
    } else {
        let visit: &mut crate::history::tracked::Visit = &mut |e, rel, ft, md| {
            if let Some(s) = seen.as_mut() {
                s.visit(e, rel, ft, md);
            }
        };
        let rec = ctx.recording("add", &res);
        Some(Writer::open_visiting(dir, ctx.now, args.force, &rec, Some(visit))?)
    };
    let enabled = (res.enabled.value, res.enabled.lever.as_str());
    let placement = add::Placement {
        no_index: args.no_index,
        at_top: args.at_top,
        force: args.force,
    };
    let cache = crate::ops::survey::cache_root(&ctx.env, &ctx.history, args.dry_run);
    let mut plan = add::plan(dir, &m, placement, enabled, ctx.now, (cache.as_deref(), seen))?;
    if args.strict && !plan.warnings.is_empty() {
        return Err(Error::new(
            Kind::StrictRefused,
            format!(
                "refusing to write because of a warning (--strict): {}",
                plan.warnings[0]
            ),
        )
        .hint("resolve the warning, or drop --strict")
        .into());
    }
    for w in &plan.warnings {
        out.warn(w.clone());
    }
    if confirm {
        out.eprint(&summary(&plan));
        if !crate::prompt::yes_no("Write it?", true)? {
            out.note("nothing written");
            return Ok(ExitCode::SUCCESS);
        }
        writer = Some(Writer::open(dir, ctx.now, args.force, &ctx.recording("add", &res))?);
    }
    if let Some(w) = writer.as_mut() {
        add::apply(&plan, w)?;
        // Written: the index read at planning is not needed again, and its
        // memory serves the after-snapshot (20 000 lines: 3.3 MB).
        plan.old_index = String::new();
        for warning in w.finish() {
            out.warn(warning);
        }
    }
    report(out, args, &plan)?;
    Ok(ExitCode::SUCCESS)
}

fn report(out: &mut Output, args: &AddArgs, plan: &add::Plan) -> Result<()> {
    let label = plan.dir.index_label();
    if out.json {
        let doc = serde_json::to_value(plan.outcome(args.dry_run))?;
        out.emit_json(doc)?;
    } else if args.dry_run {
        out.print(&format!("would create {}:\n{}", plan.file, plan.content))?;
        if !args.no_index {
            let diff = unified_diff(label, &plan.old_index, plan.new_index());
            out.print(&crate::diff::paint(out.color_stdout, &diff))?;
        }
    } else {
        out.print(&format!("created {}\n", plan.file))?;
        if let (false, Some(n)) = (args.no_index, plan.line_number) {
            out.print(&format!("indexed in {label}:{n}\n"))?;
        }
    }
    Ok(())
}

/// What will be written, shown before the interactive `add` asks to write it.
fn summary(plan: &add::Plan) -> String {
    let indent = |text: &str| -> String { text.lines().map(|l| format!("  {l}\n")).collect() };
    let mut s = format!("\n{} will be:\n{}", plan.file, indent(&plan.content));
    match (&plan.entry, plan.line_number) {
        (Some(entry), Some(n)) => {
            s.push_str(&format!("line {n} of {}:\n{}", plan.dir.index_label(), indent(entry)));
        }
        _ => s.push_str(&format!("(no line in {})\n", plan.dir.index_label())),
    }
    s
}

/// The largest body `--body-file` takes.
const MAX_BODY_BYTES: u64 = 10 << 20;

/// Read `--body-file` (`-` for stdin), refusing a body over 10 MiB rather than
/// cutting it (one byte more than the limit is read to tell).
fn read_body_file(p: &Path) -> Result<String, Error> {
    let mut bytes = Vec::new();
    let shown = p.display().to_string();
    let read = if shown == "-" {
        std::io::stdin().lock().take(MAX_BODY_BYTES + 1).read_to_end(&mut bytes)
    } else {
        std::fs::File::open(p).and_then(|f| f.take(MAX_BODY_BYTES + 1).read_to_end(&mut bytes))
    };
    read.map_err(|e| {
        let kind = if e.kind() == std::io::ErrorKind::NotFound {
            Kind::NotFound
        } else {
            Kind::Io
        };
        Error::new(
            kind,
            format!("cannot read the body file {shown}: {}", crate::error::io_words(&e)),
        )
        .hint("check the path given to --body-file")
    })?;
    if bytes.len() as u64 > MAX_BODY_BYTES {
        return Err(Error::new(
            Kind::InvalidInput,
            format!("the body file is larger than 10 MiB: {shown}"),
        )
        .hint("shorten the body, or split it into several memories"));
    }
    String::from_utf8(bytes).map_err(|_| {
        Error::new(Kind::InvalidInput, format!("the body file is not valid UTF-8: {shown}")).hint("convert it to UTF-8")
    })
}

/// A line from the terminal; a required answer is asked again until given.
fn ask(prompt: &str, allow_empty: bool) -> Result<String, Error> {
    loop {
        let answer = crate::prompt::line(prompt)?;
        if allow_empty || !answer.trim().is_empty() {
            return Ok(answer);
        }
    }
}

/// The `**Why:**` or `**How to apply:**` text; an empty answer is asked once more,
/// with the reason, then skipped.
fn ask_fact_line(out: &Output, prompt: &str, ty: MemoryType) -> Result<Option<String>, Error> {
    let answer = ask(prompt, true)?;
    if !answer.trim().is_empty() {
        return Ok(Some(answer));
    }
    let ty = ty.as_str();
    let reason = match prompt {
        "Why" => format!(
            "  Claude Code asks for the reason behind a {ty} memory (a past incident,\n  a strong preference): it lets it judge edge cases. Enter again to skip.\n"
        ),
        _ => format!(
            "  Claude Code asks when and where a {ty} memory applies: it tells it\n  when to act on it. Enter again to skip.\n"
        ),
    };
    out.eprint(&reason);
    let answer = ask(prompt, true)?;
    Ok(Some(answer).filter(|a| !a.trim().is_empty()))
}

/// What each type is for, one line each (SPEC §1.3), for the type picker.
const TYPE_PURPOSES: [(MemoryType, &str); 4] = [
    (MemoryType::User, "who the user is: role, goals, expertise, preferences"),
    (
        MemoryType::Feedback,
        "how to work: guidance or corrections, never repeated",
    ),
    (
        MemoryType::Project,
        "ongoing work: goals, decisions, deadlines not in git",
    ),
    (
        MemoryType::Reference,
        "where information lives: trackers, dashboards, chats",
    ),
];

/// Collect and validate the values: flags, the editor, or prompts on a terminal.
fn gather(args: &AddArgs, ctx: &Context, out: &Output) -> Result<NewMemory, Error> {
    if let Some(f) = &args.file {
        memory::ensure_valid_name(f, true)?;
    }
    let interactive = out.interactive();
    let mut asked = interactive && args.memory_type.is_none();
    let ty = gather_type(args, interactive)?;
    let needs_fact = matches!(ty, Some(MemoryType::Feedback | MemoryType::Project));
    if !interactive {
        ensure_flags_given(args, ty.is_some(), needs_fact)?;
    }
    let Some(ty) = ty else {
        return Err(Error::new(Kind::Usage, "missing --type").hint("pass --type"));
    };
    if (args.why.is_some() || args.how.is_some()) && !needs_fact {
        return Err(Error::new(
            Kind::Usage,
            format!(
                "--why and --how are for feedback and project memories, not `{}`",
                ty.as_str()
            ),
        )
        .hint("drop --why/--how, or put the text in --body"));
    }
    asked |= args.name.is_none() || args.description.is_none();
    let name = line_given_or_asked(&args.name, "--name", "Name", 100)?;
    let description = line_given_or_asked(&args.description, "--description", "Description", 500)?;
    let body = gather_body(args, ctx, out, ty, needs_fact)?;
    asked |= body.asked;
    let (text, why, how) = (body.text, body.why, body.how);
    if args.edit && needs_fact && text.trim().is_empty() {
        return Err(Error::new(Kind::Usage, "the body is empty: nothing added")
            .hint("write the rule or fact in the editor, above the scissors line"));
    }
    if needs_fact && text.trim().is_empty() {
        return Err(Error::new(
            Kind::Usage,
            format!("a {} memory needs the rule or fact in its body", ty.as_str()),
        )
        .hint("pass --body, --body-file or --edit"));
    }
    let why = why.map(|w| memory::ensure_line("--why", &w, 500)).transpose()?;
    let how = how.map(|h| memory::ensure_line("--how", &h, 500)).transpose()?;
    let file = match &args.file {
        Some(f) => f.replace('\\', "/"),
        None => format!("{}_{}.md", ty.as_str(), memory::slug(&name)),
    };
    let title = optional_line(&args.title, "--title", 100)?.unwrap_or_else(|| name.clone());
    let hook = optional_line(&args.hook, "--hook", 500)?.unwrap_or_else(|| description.clone());
    let body = compose_body(&text, why.as_deref(), how.as_deref());
    Ok(NewMemory {
        ty,
        name,
        description,
        body,
        file,
        title,
        hook,
        asked,
    })
}

/// `--type`, or a choice on a terminal.
fn gather_type(args: &AddArgs, interactive: bool) -> Result<Option<MemoryType>, Error> {
    let raw = match &args.memory_type {
        Some(t) => Some(t.clone()),
        None if interactive => {
            let items: Vec<String> = TYPE_PURPOSES
                .iter()
                .map(|(t, what)| format!("{:<10} {what}", t.as_str()))
                .collect();
            let i = crate::prompt::select("Type", &items, 0)?;
            Some(TYPE_PURPOSES[i].0.as_str().to_string())
        }
        None => None,
    };
    raw.as_deref().map(memory::parse_type).transpose()
}

/// Without a terminal, every required flag must be given: name them all at once.
fn ensure_flags_given(args: &AddArgs, has_type: bool, needs_fact: bool) -> Result<(), Error> {
    let body_given = args.body.is_some() || args.body_file.is_some() || args.edit;
    let mut missing: Vec<&str> = [
        ("--type", has_type),
        ("--name", args.name.is_some()),
        ("--description", args.description.is_some()),
    ]
    .into_iter()
    .filter(|(_, given)| !given)
    .map(|(flag, _)| flag)
    .collect();
    if needs_fact && !body_given {
        missing.push("--body");
    }
    if missing.is_empty() {
        return Ok(());
    }
    Err(Error::new(
        Kind::Usage,
        format!("missing {} (no terminal to ask)", missing.join(", ")),
    )
    .hint("pass the values as flags, e.g. --type feedback --name \"Testing policy\" --description \"…\" --body \"…\""))
}

/// A one-line value: the flag's, checked naming the flag; else asked at `prompt`,
/// checked naming the prompt (never a flag the user did not type) and asked
/// again while it is not valid (issue 34 point 11).
fn line_given_or_asked(given: &Option<String>, flag: &str, prompt: &str, max: usize) -> Result<String, Error> {
    if let Some(v) = given {
        return memory::ensure_line(flag, v, max);
    }
    let what = format!("the {}", prompt.to_lowercase());
    loop {
        match memory::ensure_line(&what, &ask(prompt, false)?, max) {
            Ok(v) => return Ok(v),
            Err(e) => eprintln!("memctl: {}", e.message),
        }
    }
}

fn optional_line(value: &Option<String>, flag: &str, max: usize) -> Result<Option<String>, Error> {
    value.as_deref().map(|v| memory::ensure_line(flag, v, max)).transpose()
}

/// The body text and the Why/How lines, and whether any was asked for.
struct Body {
    text: String,
    why: Option<String>,
    how: Option<String>,
    asked: bool,
}

/// The body text and the Why/How lines: flags, the body file, the editor, or prompts.
fn gather_body(args: &AddArgs, ctx: &Context, out: &Output, ty: MemoryType, needs_fact: bool) -> Result<Body, Error> {
    let interactive = out.interactive();
    let (mut why, mut how) = (args.why.clone(), args.how.clone());
    let mut asked = false;
    let text = if let Some(b) = &args.body {
        b.clone()
    } else if let Some(p) = &args.body_file {
        read_body_file(p)?
    } else if args.edit {
        // The template carries the Why/How lines (pre-filled from the flags).
        let text = compose_in_editor(ctx, out, ty, why.take(), how.take())?;
        asked = interactive;
        text
    } else if interactive && needs_fact {
        asked = true;
        let fact = ask("Rule or fact", false)?;
        if why.is_none() {
            why = ask_fact_line(out, "Why", ty)?;
        }
        if how.is_none() {
            how = ask_fact_line(out, "How to apply", ty)?;
        }
        fact
    } else if interactive {
        asked = true;
        ask("Content", true)?
    } else {
        String::new()
    };
    Ok(Body { text, why, how, asked })
}

/// The line below which the `--edit` template's guidance sits; it and everything
/// after it are removed on save (git's scissors line). A marker line rather than
/// `#` comments, which are Markdown headings, or HTML comments, which a memory may
/// hold on purpose: only this exact line, which memctl wrote, cuts anything.
const SCISSORS: &str = "------------------------ >8 ------------------------";

/// The `--edit` template of a memory of type `ty`.
fn template(ty: MemoryType, why: Option<&str>, how: Option<&str>) -> String {
    let purpose = TYPE_PURPOSES.iter().find(|(t, _)| *t == ty).map_or("", |(_, p)| p);
    let mut s = String::from("\n");
    let fact = matches!(ty, MemoryType::Feedback | MemoryType::Project);
    if fact {
        s.push_str(&format!(
            "\n**Why:** {}\n**How to apply:** {}\n",
            why.unwrap_or_default(),
            how.unwrap_or_default()
        ));
    }
    s.push_str(&format!("\n{SCISSORS}\n"));
    s.push_str("Do not change or remove the line above: it and everything below it are\n");
    s.push_str("removed when you save.\n\n");
    s.push_str(&format!("A {} memory: {purpose}.\n", ty.as_str()));
    if fact {
        s.push_str("Write the rule or fact on the first line, then complete\n");
        s.push_str("  **Why:**          the reason (often a past incident or a strong preference)\n");
        s.push_str("  **How to apply:** when and where it applies\n");
        s.push_str("A **Why:** or **How to apply:** line left empty is dropped.\n");
        s.push_str("Save an empty body to cancel.\n");
    } else {
        s.push_str("Write the memory's text above the line; the frontmatter is added for you.\n");
    }
    s
}

/// The body from a saved template: cut at the scissors line, empty Why/How
/// placeholders dropped, blank lines at either end removed.
fn from_template(text: &str) -> String {
    let kept: Vec<&str> = text
        .lines()
        .take_while(|l| l.trim_end_matches('\r') != SCISSORS)
        .filter(|l| !matches!(l.trim(), "**Why:**" | "**How to apply:**"))
        .collect();
    kept.join("\n").trim_matches(['\n', '\r']).to_string()
}

/// Write the template as a draft outside the memory dir, run the editor, read it
/// back. On a failure the draft is kept, and its path said.
fn compose_in_editor(
    ctx: &Context,
    out: &Output,
    ty: MemoryType,
    why: Option<String>,
    how: Option<String>,
) -> Result<String, Error> {
    let editor = crate::editor::resolve(&ctx.env, crate::editor::on_terminal())?;
    let dir = crate::editor::draft_dir("memctl-add")?;
    let draft = dir.join("body.md");
    crate::editor::write_draft(&draft, template(ty, why.as_deref(), how.as_deref()).as_bytes())?;
    let kept = |e: Error| {
        out.eprint(&format!("memctl: your text is kept in {}\n", draft.display()));
        e
    };
    crate::editor::run(&editor, &draft).map_err(kept)?;
    let text = std::fs::read_to_string(&draft)
        .map_err(|e| {
            Error::new(
                Kind::Io,
                format!(
                    "cannot read the draft {}: {}",
                    draft.display(),
                    crate::error::io_words(&e)
                ),
            )
        })
        .map_err(kept)?;
    let _ = std::fs::remove_dir_all(&dir);
    Ok(from_template(&text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_saved_template_keeps_only_the_text_above_the_scissors() {
        let t = template(MemoryType::Feedback, None, Some("in tests"));
        assert!(t.contains("**Why:** \n**How to apply:** in tests\n"), "{t}");
        let edited = t.replacen('\n', "Never mock the database.\n", 1);
        assert_eq!(
            from_template(&edited),
            "Never mock the database.\n\n**How to apply:** in tests"
        );
        // Headings and HTML comments are the user's: kept.
        let t = format!("# Heading\n<!-- note -->\ntext\n{SCISSORS}\nguidance\n");
        assert_eq!(from_template(&t), "# Heading\n<!-- note -->\ntext");
        assert_eq!(from_template(&template(MemoryType::Project, None, None)), "");
        assert!(TYPE_PURPOSES.iter().all(|(_, p)| p.len() + 13 <= 78));
    }
}
