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
use crate::output::Output;
use crate::store::Writer;

pub fn run(args: &AddArgs, ctx: &Context, out: &mut Output) -> Result<ExitCode> {
    let m = gather(args, ctx, out)?;
    let res = ctx.resolve()?;
    let dir = &res.memdir;
    let mut writer = if args.dry_run {
        None
    } else {
        Some(Writer::open(dir, ctx.now, args.force)?)
    };
    let enabled = (res.enabled.value, res.enabled.lever.as_str());
    let plan = add::plan(dir, &m, args.no_index, enabled, ctx.now)?;
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
    if let Some(w) = writer.as_mut() {
        add::apply(&plan, w)?;
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
            out.print(&unified_diff(label, &plan.old_index, &plan.new_index))?;
        }
    } else {
        out.print(&format!("created {}\n", plan.file))?;
        if let (false, Some(n)) = (args.no_index, plan.line_number) {
            out.print(&format!("indexed in {label}:{n}\n"))?;
        }
    }
    Ok(())
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
        Error::new(kind, format!("cannot read the body file {shown}: {e}")).hint("check the path given to --body-file")
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

fn prompt_error(e: dialoguer::Error) -> Error {
    Error::new(Kind::Io, format!("cannot read the answer: {e}")).hint("pass the values as flags instead")
}

fn ask(prompt: &str, allow_empty: bool) -> Result<String, Error> {
    dialoguer::Input::<String>::new()
        .with_prompt(prompt)
        .allow_empty(allow_empty)
        .interact_text()
        .map_err(prompt_error)
}

/// Collect and validate the values: flags, the editor, or prompts on a terminal.
fn gather(args: &AddArgs, ctx: &Context, out: &Output) -> Result<NewMemory, Error> {
    if let Some(f) = &args.file {
        memory::ensure_valid_name(f, true)?;
    }
    let interactive = out.interactive();
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
    let name = memory::ensure_line("--name", &given_or_ask(&args.name, "Name")?, 100)?;
    let description = memory::ensure_line("--description", &given_or_ask(&args.description, "Description")?, 500)?;
    let (text, why, how) = gather_body(args, ctx, interactive, needs_fact)?;
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
    })
}

/// `--type`, or a choice on a terminal.
fn gather_type(args: &AddArgs, interactive: bool) -> Result<Option<MemoryType>, Error> {
    let raw = match &args.memory_type {
        Some(t) => Some(t.clone()),
        None if interactive => {
            let items = MemoryType::ALL.map(MemoryType::as_str);
            let i = dialoguer::Select::new()
                .with_prompt("Type")
                .items(items)
                .default(0)
                .interact()
                .map_err(prompt_error)?;
            Some(items[i].to_string())
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

fn given_or_ask(given: &Option<String>, prompt: &str) -> Result<String, Error> {
    match given {
        Some(v) => Ok(v.clone()),
        None => ask(prompt, false),
    }
}

fn optional_line(value: &Option<String>, flag: &str, max: usize) -> Result<Option<String>, Error> {
    value.as_deref().map(|v| memory::ensure_line(flag, v, max)).transpose()
}

/// The body text and the Why/How lines: flags, the body file, the editor, or prompts.
fn gather_body(
    args: &AddArgs,
    ctx: &Context,
    interactive: bool,
    needs_fact: bool,
) -> Result<(String, Option<String>, Option<String>), Error> {
    let (mut why, mut how) = (args.why.clone(), args.how.clone());
    let text = if let Some(b) = &args.body {
        b.clone()
    } else if let Some(p) = &args.body_file {
        read_body_file(p)?
    } else if args.edit {
        compose_in_editor(ctx)?
    } else if interactive && needs_fact {
        let fact = ask("Rule or fact", false)?;
        why = why.or(Some(ask("Why", true)?)).filter(|w| !w.trim().is_empty());
        how = how
            .or(Some(ask("How to apply", true)?))
            .filter(|h| !h.trim().is_empty());
        fact
    } else if interactive {
        ask("Content", true)?
    } else {
        String::new()
    };
    Ok((text, why, how))
}

/// Write an empty draft outside the memory dir, run the editor, read it back.
fn compose_in_editor(ctx: &Context) -> Result<String, Error> {
    let editor = crate::editor::resolve(&ctx.env)?;
    let dir = crate::editor::draft_dir("memctl-add")?;
    let draft = dir.join("body.md");
    crate::editor::write_draft(&draft, b"")?;
    crate::editor::run(&editor, &draft)?;
    let text = std::fs::read_to_string(&draft).map_err(|e| {
        Error::new(Kind::Io, format!("cannot read the draft {}: {e}", draft.display())).hint("the draft is kept there")
    })?;
    let _ = std::fs::remove_dir_all(&dir);
    Ok(text)
}
