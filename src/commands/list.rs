//! `memctl list` (SPEC §3.4).

use std::process::ExitCode;

use anyhow::Result;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use crate::age;
use crate::cli::{ListArgs, ListFormat};
use crate::context::Context;
use crate::error::{Error, Kind};
use crate::memory::{Memory, MemoryType};
use crate::output::Output;
use crate::scan::{self, Indexed, MAX_MEMORY_FILES};
use crate::text::{iso_ms, suggestions};

/// A `--type` filter value: one of the four types, or untyped.
type TypeFilter = Option<MemoryType>;

pub fn run(args: &ListArgs, ctx: &Context, out: &mut Output) -> Result<ExitCode> {
    let filters = parse_types(&args.types, out)?;
    let format = if out.json {
        ListFormat::Json
    } else {
        args.format.unwrap_or(ListFormat::Table)
    };
    let res = ctx.resolve_existing()?;
    let cap = (!args.all).then_some(MAX_MEMORY_FILES);
    let (scan, indexed) = scan::scan_with_index(&res.memdir, cap);
    for p in &scan.problems {
        out.warn(p.message());
    }
    let total = scan.total;
    let visible = if args.all {
        &scan.memories[..]
    } else {
        scan.claude_view()
    };
    let hidden = total.saturating_sub(MAX_MEMORY_FILES);
    if hidden > 0 {
        out.note(if args.all {
            format!("{hidden} of these files are not seen by Claude Code: it sees only the {MAX_MEMORY_FILES} most recently modified")
        } else {
            format!("{hidden} more files are not shown: Claude Code sees only the {MAX_MEMORY_FILES} most recently modified (use --all)")
        });
    }
    let manifest = format == ListFormat::Manifest;
    let shown: Vec<&Memory> = visible
        .iter()
        .filter(|m| filters.is_empty() || filters.contains(&if manifest { m.claude_type() } else { m.memory_type() }))
        .collect();
    let now_ms = ctx.now_ms();
    match format {
        ListFormat::Json => {
            // `visible` is a prefix of the scan order, so a memory's rank is its
            // position there; entries are written one by one, not built as a tree.
            let ranked: Vec<(usize, &Memory)> = visible
                .iter()
                .enumerate()
                .filter(|(_, m)| filters.is_empty() || filters.contains(&m.memory_type()))
                .collect();
            write_json(out, &res, &indexed, &ranked, total, args.all, now_ms)?;
        }
        ListFormat::Manifest => out.print(&render_manifest(&shown))?,
        ListFormat::Paths => {
            for m in &shown {
                out.write_bytes(m.path.as_os_str().as_encoded_bytes())?;
                out.print("\n")?;
            }
        }
        ListFormat::Table if out.stdout_tty => {
            // A terminal that reports no size (0 columns) gets a sensible width.
            let width = crate::output::terminal_width().filter(|w| *w >= 40).unwrap_or(100);
            let table = render_table(&shown, &indexed, now_ms, width, out.color_stdout);
            out.print(&table)?;
        }
        ListFormat::Table => out.print(&render_records(&shown, &indexed, now_ms))?,
    }
    Ok(ExitCode::SUCCESS)
}

/// Stream the `list --json` document.
fn write_json(
    out: &mut Output,
    res: &crate::paths::Resolution,
    indexed: &Indexed,
    ranked: &[(usize, &Memory)],
    total: usize,
    all: bool,
    now_ms: f64,
) -> Result<()> {
    use std::io::Write;
    /// The fields before `entries` in `list --json`.
    #[derive(serde::Serialize)]
    struct Head {
        memory_dir: String,
        total: usize,
        shown: usize,
        cap: usize,
        capped: bool,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        lossy: bool,
    }
    let head = Head {
        memory_dir: res.shown(),
        total,
        shown: ranked.len(),
        cap: MAX_MEMORY_FILES,
        capped: !all && total > MAX_MEMORY_FILES,
        lossy: res.memdir.dir().to_str().is_none(),
    };
    let mut head = serde_json::to_string_pretty(&head)?;
    head.truncate(head.trim_end_matches(['}', '\n', ' ']).len());
    let warnings = serde_json::to_string(&std::mem::take(&mut out.warnings))?;
    let w = out.stdout();
    write!(w, "{head},\n  \"entries\": [")?;
    write_entries(w, indexed, ranked, now_ms)?;
    write!(
        w,
        "{}],\n  \"warnings\": {warnings}\n}}\n",
        if ranked.is_empty() { "" } else { "\n  " }
    )?;
    Ok(())
}

/// The `entries` array's items, serialized chunk by chunk; on large listings a
/// helper thread renders every other chunk meanwhile, through a short queue, so
/// memory stays bounded.
fn write_entries(
    w: &mut impl std::io::Write,
    indexed: &Indexed,
    ranked: &[(usize, &Memory)],
    now_ms: f64,
) -> std::io::Result<()> {
    use std::io::Write;
    let render = |part: &[(usize, &Memory)], buf: &mut Vec<u8>| {
        for (rank, m) in part {
            let lines = indexed.lines_for(&m.rel);
            let entry = crate::entry::Entry::new(m, &lines, now_ms, Some(*rank < MAX_MEMORY_FILES));
            buf.extend_from_slice(b",\n    ");
            let _ = serde_json::to_writer(&mut *buf, &entry);
        }
    };
    const CHUNK: usize = 512;
    let chunks: Vec<&[(usize, &Memory)]> = ranked.chunks(CHUNK).collect();
    let mut first = true;
    let mut emit = |w: &mut dyn Write, bytes: &[u8]| -> std::io::Result<()> {
        let bytes = if first {
            bytes.get(1..).unwrap_or_default()
        } else {
            bytes
        };
        first = false;
        w.write_all(bytes)
    };
    std::thread::scope(|s| -> std::io::Result<()> {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<u8>>(2);
        let helper = chunks.len() > 2;
        if helper {
            let odd: Vec<&[(usize, &Memory)]> = chunks.iter().skip(1).step_by(2).copied().collect();
            s.spawn(move || {
                for c in odd {
                    let mut buf = Vec::with_capacity(c.len() * 700);
                    render(c, &mut buf);
                    if tx.send(buf).is_err() {
                        break;
                    }
                }
            });
        }
        let mut buf = Vec::with_capacity(CHUNK * 700);
        for (k, c) in chunks.iter().enumerate() {
            if helper && k % 2 == 1 {
                let part = rx.recv().unwrap_or_default();
                emit(w, &part)?;
            } else {
                buf.clear();
                render(c, &mut buf);
                emit(w, &buf)?;
            }
        }
        Ok(())
    })
}

/// `--type` values: exact, or in any case when exactly one type matches (with a
/// note naming it, SPEC §3.13).
fn parse_types(raw: &[String], out: &mut Output) -> Result<Vec<TypeFilter>, Error> {
    const NAMES: [&str; 5] = ["user", "feedback", "project", "reference", "none"];
    let mut filters = Vec::new();
    for t in raw.iter().map(|t| t.trim()).filter(|t| !t.is_empty()) {
        let exact = NAMES.iter().find(|n| **n == t);
        let name = match exact.or_else(|| NAMES.iter().find(|n| n.eq_ignore_ascii_case(t))) {
            Some(n) => {
                if exact.is_none() {
                    out.note(format!("--type `{t}` read as `{n}`"));
                }
                *n
            }
            None => {
                let near = suggestions(t, NAMES);
                let hint = match near.first() {
                    Some(n) => format!("did you mean `{n}`?"),
                    None => "use one of user, feedback, project, reference, none".into(),
                };
                return Err(Error::new(
                    Kind::InvalidInput,
                    format!("invalid type `{t}`: expected one of user, feedback, project, reference, none"),
                )
                .hint(hint));
            }
        };
        filters.push(if name == "none" { None } else { MemoryType::parse(name) });
    }
    Ok(filters)
}

/// Claude Code's manifest (SPEC §2.6) plus one final LF; nothing when empty.
pub fn render_manifest(memories: &[&Memory]) -> String {
    if memories.is_empty() {
        return String::new();
    }
    let lines: Vec<String> = memories.iter().map(|m| manifest_line(m)).collect();
    format!("{}\n", lines.join("\n"))
}

/// One manifest line, using only the top-level `type`.
pub fn manifest_line(m: &Memory) -> String {
    let tag = m
        .claude_type()
        .map(|t| format!("[{}] ", t.as_str()))
        .unwrap_or_default();
    let desc = m
        .fields
        .description
        .as_ref()
        .map(|d| format!(": {}", d.js_string()))
        .unwrap_or_default();
    format!("- {tag}{} ({}){desc}", m.rel, iso_ms(m.mtime_ms))
}

fn flat(s: &str) -> String {
    s.replace(['\t', '\n', '\r'], " ")
}

fn type_label(m: &Memory) -> String {
    match (m.memory_type(), m.claude_type()) {
        (Some(t), Some(_)) => t.as_str().to_string(),
        (Some(t), None) => format!("{}*", t.as_str()),
        (None, _) => "-".into(),
    }
}

/// The tab-separated records printed when stdout is not a terminal.
pub fn render_records(memories: &[&Memory], indexed: &Indexed, now_ms: f64) -> String {
    let mut s = String::new();
    for m in memories {
        let desc = m
            .fields
            .description
            .as_ref()
            .map_or_else(|| "-".to_string(), |d| flat(&d.js_string()));
        s.push_str(&format!(
            "{}\t{}\t{}\t{}\t{}\t{}\n",
            m.memory_type().map_or("-", MemoryType::as_str),
            flat(&m.rel),
            age::age_days(now_ms, m.mtime_ms),
            if indexed.lines_for(&m.rel).is_empty() {
                "no"
            } else {
                "yes"
            },
            m.name().map_or_else(|| "-".to_string(), |n| flat(&n)),
            desc
        ));
    }
    s
}

/// The terminal table, cut to `width` columns: TYPE, FILE, AGE and IDX keep their
/// width; NAME and DESCRIPTION share the rest and are cut with `…`.
pub fn render_table(memories: &[&Memory], indexed: &Indexed, now_ms: f64, width: u16, bold: bool) -> String {
    let rows: Vec<[String; 6]> = memories
        .iter()
        .map(|m| {
            [
                type_label(m),
                flat(&m.name().unwrap_or_default()),
                m.rel.clone(),
                age::age_text(age::age_days(now_ms, m.mtime_ms)),
                if indexed.lines_for(&m.rel).is_empty() {
                    "no".into()
                } else {
                    "yes".into()
                },
                m.fields
                    .description
                    .as_ref()
                    .map_or_else(String::new, |d| d.js_string().replace('\n', "⏎")),
            ]
        })
        .collect();
    let header = ["TYPE", "NAME", "FILE", "AGE", "IDX", "DESCRIPTION"];
    let col = |i: usize| {
        rows.iter()
            .map(|r| r[i].width())
            .chain([header[i].width()])
            .max()
            .unwrap_or(0)
    };
    let fixed = col(0) + col(2) + col(3) + col(4) + 6 * 2;
    let rest = usize::from(width).saturating_sub(fixed).max(24);
    let name_w = col(1).min((rest * 2 / 5).max(10));
    let desc_w = rest.saturating_sub(name_w);
    let rows: Vec<Vec<String>> = rows
        .into_iter()
        .map(|[ty, name, file, age, idx, desc]| vec![ty, fit(&name, name_w), file, age, idx, fit(&desc, desc_w)])
        .collect();
    let mut s = crate::output::table(&header, rows, bold);
    if memories
        .iter()
        .any(|m| m.memory_type().is_some() && m.claude_type().is_none())
    {
        s.push_str("* type only under `metadata:`; Claude Code sees this memory as untyped\n");
    }
    s
}

/// Cut `s` to `width` terminal columns, ending in `…` when cut.
fn fit(s: &str, width: usize) -> String {
    if s.width() <= width {
        return s.to_string();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        let w = c.width().unwrap_or(0);
        if used + w + 1 > width {
            break;
        }
        used += w;
        out.push(c);
    }
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mem(rel: &str, text: &str) -> Memory {
        Memory::from_text(rel, text)
    }

    #[test]
    fn table_cuts_long_descriptions_and_marks_nested_types() {
        let long = format!(
            "---\nname: Long one\ndescription: {}\ntype: user\n---\n",
            "word ".repeat(40)
        );
        let nested = "---\nname: Nested\ndescription: d\nmetadata:\n  type: feedback\n---\n";
        let ms = [mem("user_long.md", &long), mem("feedback_nested.md", nested)];
        let refs: Vec<&Memory> = ms.iter().collect();
        let out = render_table(
            &refs,
            &Indexed::load(&crate::memdir::MemoryDir::open(
                "/nonexistent",
                crate::memdir::Scope::Main,
            )),
            0.0,
            80,
            false,
        );
        let lines: Vec<&str> = out.lines().collect();
        assert!(lines[0].starts_with(" TYPE "), "{out}");
        assert!(lines[1].contains("user_long.md") && lines[1].ends_with('…'), "{out}");
        assert!(
            lines[2].contains("feedback*") && lines[2].contains("feedback_nested.md"),
            "{out}"
        );
        assert!(lines.iter().all(|l| l.chars().count() <= 80), "{out}");
        assert_eq!(
            lines[3],
            "* type only under `metadata:`; Claude Code sees this memory as untyped"
        );
    }
}
