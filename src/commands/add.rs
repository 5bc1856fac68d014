//! `memctl add` (SPEC §3.6).

use std::io::Read;
use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;
use chrono::{DateTime, Duration, Utc};
use serde_json::json;

use crate::cli::AddArgs;
use crate::context::Context;
use crate::dates;
use crate::diff::unified as unified_diff;
use crate::error::{Error, Kind};
use crate::frontmatter::{self, Fields, Status};
use crate::index;
use crate::index::edit::append_line;
use crate::memory::{self, MemoryType};
use crate::output::Output;
use crate::paths::Resolution;
use crate::yaml::Value;
use crate::{scan, store};

use super::truncate_check::{checked, truncation_json};

/// Everything `add` writes, validated.
struct NewMemory {
    ty: MemoryType,
    name: String,
    description: String,
    /// The body as written to the file (possibly empty).
    body: String,
    file: String,
    title: String,
    hook: String,
}

pub fn run(args: &AddArgs, ctx: &Context, out: &mut Output) -> Result<ExitCode> {
    let m = gather(args, ctx, out)?;
    let res = ctx.resolve()?;
    let content = frontmatter::render_memory(&m.name, &m.description, m.ty.as_str(), &m.body);
    ensure_round_trip(&content, &m)?;
    let mut warnings = input_warnings(&m, &res, ctx.now);
    if let Some(w) = duplicate_name(&res.dir, &m) {
        warnings.push(w);
    }
    let (entry, entry_too_long) = index::render_entry(&m.title, &m.file, &m.hook);
    if entry_too_long && !args.no_index {
        warnings.push(format!(
            "the index line is longer than {} chars even shortened: the file name is too long",
            index::MAX_ENTRY_CHARS
        ));
    }
    let target = res.dir.join(&m.file);
    let index_path = res.index_path();
    if !args.dry_run {
        store::create_dir(&res.dir)?;
    }
    let _lock = if args.dry_run {
        None
    } else {
        Some(store::lock(&res.main_dir)?)
    };
    if !args.dry_run {
        store::ensure_no_dream(&res.main_dir, ctx.now, args.force)?;
    }
    if std::fs::symlink_metadata(&target).is_ok() {
        return Err(Error::new(Kind::Exists, format!("file exists: {}", target.display()))
            .hint("pass --file with another name, or choose another --name; memctl never overwrites")
            .into());
    }
    let old_index = std::fs::read(&index_path)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    let new_index = if args.no_index {
        old_index.clone()
    } else {
        with_entry(&old_index, &entry)
    };
    let label = if res.team { "team/MEMORY.md" } else { "MEMORY.md" };
    let check = checked(label.into(), Some(index_path.clone()), &new_index);
    if !args.no_index
        && let Some(w) = truncation_warning(&check, label, &entry)
    {
        warnings.push(w);
    }
    if args.strict && !warnings.is_empty() {
        return Err(Error::new(
            Kind::StrictRefused,
            format!("refusing to write because of a warning (--strict): {}", warnings[0]),
        )
        .hint("resolve the warning, or drop --strict")
        .into());
    }
    for w in &warnings {
        out.warn(w.clone());
    }
    let line_number = index::lines(&new_index)
        .iter()
        .rposition(|l| l.trim_end() == entry)
        .map(|i| i + 1);
    if !args.dry_run {
        if let Some(parent) = target.parent() {
            store::create_dir(parent)?;
        }
        store::create_new(&res.dir, &target, content.as_bytes())?;
        if !args.no_index {
            store::update(&res.dir, &index_path, |fresh| Ok(with_entry(fresh, &entry)))?;
        }
    }
    report(
        out,
        args,
        &res,
        &m,
        &content,
        &entry,
        line_number,
        (&old_index, &new_index),
        &check,
    )?;
    Ok(ExitCode::SUCCESS)
}

/// The index with `entry` appended in the index's own line ending.
fn with_entry(index: &str, entry: &str) -> String {
    let crlf = index.split('\n').next().is_some_and(|l| l.ends_with('\r')) && index.contains('\n');
    append_line(index, entry, if crlf { "\r\n" } else { "\n" })
}

#[allow(clippy::too_many_arguments)]
fn report(
    out: &mut Output,
    args: &AddArgs,
    res: &Resolution,
    m: &NewMemory,
    content: &str,
    entry: &str,
    line: Option<usize>,
    index: (&str, &str),
    check: &super::truncate_check::Checked,
) -> Result<()> {
    let label = if res.team { "team/MEMORY.md" } else { "MEMORY.md" };
    if out.json {
        let doc = json!({
            "file": m.file,
            "path": res.dir.join(&m.file).to_string_lossy(),
            "index_path": (!args.no_index).then(|| res.index_path().to_string_lossy().into_owned()),
            "index_line": (!args.no_index).then_some(entry),
            "index_line_number": if args.no_index { None } else { line },
            "dry_run": args.dry_run,
            "content": args.dry_run.then_some(content),
            "truncation": (!args.no_index).then(|| truncation_json(check, None)),
        });
        out.emit_json(super::with_lossy(doc, &res.dir))?;
    } else if args.dry_run {
        out.print(&format!("would create {}:\n{content}", m.file))?;
        if !args.no_index {
            out.print(&unified_diff(label, index.0, index.1))?;
        }
    } else {
        out.print(&format!("created {}\n", m.file))?;
        if let (false, Some(n)) = (args.no_index, line) {
            out.print(&format!("indexed in {label}:{n}\n"))?;
        }
    }
    Ok(())
}

/// The first parse of what memctl writes must give back exactly the three strings.
fn ensure_round_trip(content: &str, m: &NewMemory) -> Result<(), Error> {
    let (fm, _) = frontmatter::parse_document(content);
    let f = Fields::from(&fm);
    let s = |v: &str| Some(Value::String(v.to_string()));
    if fm.status != Status::Ok
        || f.name != s(&m.name)
        || f.description != s(&m.description)
        || f.type_raw != s(m.ty.as_str())
    {
        return Err(Error::new(
            Kind::Internal,
            format!("the rendered frontmatter does not parse back to the given values: {content:?}"),
        )
        .hint("this is a bug in memctl; please report it"));
    }
    Ok(())
}

fn read_body_file(p: &Path) -> Result<String, Error> {
    let mut bytes = Vec::new();
    let shown = p.display().to_string();
    let read = if shown == "-" {
        std::io::stdin().lock().take(10 << 20).read_to_end(&mut bytes)
    } else {
        std::fs::File::open(p).and_then(|f| f.take(10 << 20).read_to_end(&mut bytes))
    };
    read.map_err(|e| {
        let kind = if e.kind() == std::io::ErrorKind::NotFound {
            Kind::NotFound
        } else {
            Kind::Io
        };
        Error::new(kind, format!("cannot read the body file {shown}: {e}")).hint("check the path given to --body-file")
    })?;
    String::from_utf8(bytes).map_err(|_| {
        Error::new(Kind::InvalidInput, format!("the body file is not valid UTF-8: {shown}")).hint("convert it to UTF-8")
    })
}

/// The body as written: trailing line breaks removed, then the Why/How lines.
fn compose_body(text: &str, why: Option<&str>, how: Option<&str>) -> String {
    let mut s = text.trim_end_matches(['\n', '\r']).to_string();
    let lines: Vec<String> = [
        why.map(|w| format!("**Why:** {w}")),
        how.map(|h| format!("**How to apply:** {h}")),
    ]
    .into_iter()
    .flatten()
    .collect();
    if !lines.is_empty() {
        if !s.is_empty() {
            s.push_str("\n\n");
        }
        s.push_str(&lines.join("\n"));
    }
    if !s.is_empty() {
        s.push('\n');
    }
    s
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
    let body_given = args.body.is_some() || args.body_file.is_some() || args.edit;
    let ty_raw = match &args.memory_type {
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
    let ty = ty_raw.as_deref().map(memory::parse_type).transpose()?;
    let needs_fact = matches!(ty, Some(MemoryType::Feedback | MemoryType::Project));
    if !interactive {
        let mut missing = Vec::new();
        for (flag, given) in [
            ("--type", ty.is_some()),
            ("--name", args.name.is_some()),
            ("--description", args.description.is_some()),
        ] {
            if !given {
                missing.push(flag);
            }
        }
        if needs_fact && !body_given {
            missing.push("--body");
        }
        if !missing.is_empty() {
            return Err(Error::new(Kind::Usage, format!("missing {} (no terminal to ask)", missing.join(", "))).hint("pass the values as flags, e.g. --type feedback --name \"Testing policy\" --description \"…\" --body \"…\""));
        }
    }
    let ty = match ty {
        Some(t) => t,
        None => return Err(Error::new(Kind::Usage, "missing --type").hint("pass --type")),
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
    let name = memory::ensure_line(
        "--name",
        &match &args.name {
            Some(n) => n.clone(),
            None => ask("Name", false)?,
        },
        100,
    )?;
    let description = memory::ensure_line(
        "--description",
        &match &args.description {
            Some(d) => d.clone(),
            None => ask("Description", false)?,
        },
        500,
    )?;
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
    let title = args
        .title
        .as_deref()
        .map(|t| memory::ensure_line("--title", t, 100))
        .transpose()?
        .unwrap_or_else(|| name.clone());
    let hook = args
        .hook
        .as_deref()
        .map(|h| memory::ensure_line("--hook", h, 500))
        .transpose()?
        .unwrap_or_else(|| description.clone());
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

fn input_warnings(m: &NewMemory, res: &Resolution, now: DateTime<Utc>) -> Vec<String> {
    let mut w = Vec::new();
    if m.description.chars().count() > 200 {
        w.push(format!(
            "the description is {} chars; Claude Code's manifest shows it whole: keep it under 200",
            m.description.chars().count()
        ));
    }
    if matches!(m.ty, MemoryType::Feedback | MemoryType::Project) {
        let has = |p: &str| m.body.lines().any(|l| l.trim_start().starts_with(p));
        for (flag, label) in [("--why", "**Why:**"), ("--how", "**How to apply:**")] {
            if !has(label) {
                w.push(format!(
                    "no {label} line: Claude Code asks for one in {} memories (pass {flag})",
                    m.ty.as_str()
                ));
            }
        }
    }
    for (what, text) in [
        ("name", m.name.as_str()),
        ("description", m.description.as_str()),
        ("body", m.body.as_str()),
    ] {
        for d in dates::find(text) {
            let fix = match d.offset_days {
                Some(off) => format!("write {}", (now + Duration::days(off)).format("%Y-%m-%d")),
                None => "write the absolute date".to_string(),
            };
            w.push(format!("relative date `{}` in the {what}: {fix}", d.phrase));
        }
    }
    if !res.enabled.value {
        w.push(format!(
            "auto memory is disabled ({}): Claude Code will not read this memory",
            res.enabled.lever
        ));
    }
    w
}

fn duplicate_name(dir: &Path, m: &NewMemory) -> Option<String> {
    let scan = scan::scan(dir);
    let lower = m.name.to_lowercase();
    let other = scan
        .memories
        .iter()
        .find(|x| x.name().is_some_and(|n| n.to_lowercase() == lower))?;
    Some(format!(
        "`{}` already has the name `{}`: Claude Code prefers updating a memory to adding a duplicate (`memctl edit {}`)",
        other.rel, m.name, other.rel
    ))
}

/// The write-time truncation warning, naming every entry past the cut.
fn truncation_warning(check: &super::truncate_check::Checked, label: &str, entry: &str) -> Option<String> {
    let l = &check.load;
    let reason = l.reason.as_ref()?;
    let mut s = format!("Claude Code would truncate {label}: {reason}\nThese entries would not be loaded:");
    for d in &l.dropped {
        let text = check.file_line(d.line).unwrap_or(l.dropped_text(d)).to_string();
        let mark = if text.trim_end() == entry {
            "   ← the new entry"
        } else {
            ""
        };
        s.push_str(&format!(
            "\n  {label}:{}: {}{mark}",
            d.line,
            crate::text::ellipsize(&text, 100)
        ));
    }
    s.push_str("\nhint: shorten or remove index lines (memctl lint), or move detail into topic files");
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn body_composition() {
        assert_eq!(
            compose_body("Rule.\n\n", Some("w"), Some("h")),
            "Rule.\n\n**Why:** w\n**How to apply:** h\n"
        );
        assert_eq!(compose_body("Rule.", None, Some("h")), "Rule.\n\n**How to apply:** h\n");
        assert_eq!(compose_body("Text\n", None, None), "Text\n");
        assert_eq!(compose_body("", None, None), "");
    }
}
