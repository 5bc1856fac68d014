//! `memctl projects [--all] [--json]` (SPEC §9): every memory dir of this machine,
//! as a table fitted to the terminal, one tab-separated record per row when piped,
//! or the JSON document.

use std::process::ExitCode;

use anyhow::Result;

use crate::cli::ProjectsArgs;
use crate::context::Context;
use crate::index::load::{MAX_LINES, MAX_UNITS};
use crate::output::{Cell, Column, Output, Tone};
use crate::projects::{self, PathSource, Row};

pub fn run(args: &ProjectsArgs, ctx: &Context, out: &mut Output) -> Result<ExitCode> {
    let found = projects::discover(ctx, args.all)?;
    for w in found.warnings.clone() {
        out.warn(w);
    }
    if out.json {
        #[derive(serde::Serialize)]
        struct Doc<'a> {
            config_home: String,
            projects: &'a [Row],
            agent_memory_dirs: &'a [projects::agents::AgentDir],
            memory_stores: &'a projects::agents::StoresDoc,
        }
        let doc = Doc {
            config_home: found.config_home.to_string_lossy().into_owned(),
            projects: &found.rows,
            agent_memory_dirs: &found.agent_dirs,
            memory_stores: &found.stores,
        };
        out.emit_json(serde_json::to_value(doc)?)?;
    } else if out.stdout_tty {
        let mut text = if found.rows.is_empty() {
            empty_message(args.all, &found.config_home)
        } else {
            render_table(
                &found.rows,
                ctx.now_ms(),
                ctx.env.home().as_deref(),
                crate::output::terminal_width(),
                out.color_stdout,
            )
        };
        text.push_str(&render_extras(&found));
        out.print(&text)?;
    } else {
        out.print(&render_records(&found.rows))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The agent memory dirs and the configured stores, after the table (terminal only;
/// piped records stay one per memory dir).
fn render_extras(found: &projects::Discovery) -> String {
    let mut s = String::new();
    if !found.agent_dirs.is_empty() {
        s.push_str("\nagent memory (memctl --dir DIR works on each):\n");
        for a in &found.agent_dirs {
            let scope = match a.scope {
                projects::agents::AgentScope::User => "user",
                projects::agents::AgentScope::Project => "project",
                projects::agents::AgentScope::Local => "local",
            };
            let index = if a.has_index { "" } else { ", no MEMORY.md" };
            s.push_str(&format!(
                "  {scope:<8} {}  {}  ({} {}{index})\n",
                a.agent,
                crate::paths::with_sep(&a.dir),
                a.memories,
                if a.memories == 1 { "memory" } else { "memories" }
            ));
        }
    }
    let st = &found.stores;
    if st.set {
        s.push_str("\nmemory stores (CLAUDE_MEMORY_STORES):\n");
        if let Some(e) = &st.error {
            s.push_str(&format!("  invalid: {e}\n"));
        }
        for store in &st.stores {
            let at = match store.scope {
                crate::paths::stores::StoreScope::Team => format!("synced into <memdir>team/{}/", store.mount),
                crate::paths::stores::StoreScope::User => "user store".to_string(),
            };
            let mode = match store.mode {
                crate::paths::stores::Mode::Rw => "rw",
                crate::paths::stores::Mode::Ro => "ro",
            };
            s.push_str(&format!("  {}  {} ({mode}): {at}\n", store.mount, store.path));
        }
    }
    if let Some(lever) = &st.recall_mode.lever {
        s.push_str(&format!(
            "recall mode: on ({lever}): Claude Code injects no MEMORY.md; it picks memories per prompt\n"
        ));
    }
    s
}

fn empty_message(all: bool, config_home: &std::path::Path) -> String {
    let more = if all {
        String::new()
    } else {
        " (`--all` also shows dirs with no memories)".to_string()
    };
    format!(
        "no memory dirs with memories under {}/projects/{more}\n",
        config_home.display()
    )
}

/// The project path as shown: `~` for the home dir, a guess ends in `?`, a dir a
/// setting names follows its project after `→`; a dir without a project path
/// shows itself.
fn project_cell(r: &Row, home: Option<&str>) -> String {
    let short = |p: &std::path::Path| {
        let s = p.to_string_lossy();
        match home.filter(|h| h.len() > 1).and_then(|h| s.strip_prefix(h)) {
            Some(rest) if rest.is_empty() || rest.starts_with('/') => format!("~{rest}"),
            _ => s.into_owned(),
        }
    };
    match &r.project_path {
        Some(p) if r.project_path_source == PathSource::Guess => format!("{}?", short(p)),
        // A dir a setting names: the project, then where its memory went.
        Some(p) if r.project_path_source == PathSource::Settings => {
            format!("{} → {}/", short(p), short(&r.memory_dir))
        }
        Some(p) => short(p),
        None => short(&r.memory_dir),
    }
}

fn flags_cell(r: &Row) -> String {
    if r.flags.is_empty() {
        return "-".into();
    }
    let names: Vec<&str> = r.flags.iter().map(|f| f.flag.as_str()).collect();
    names.join(",")
}

/// Piped: `key  project_path  memories  index_lines  truncated  errors  warnings
/// flags`, one record per row (a dir outside `projects/` is named by its path).
pub fn render_records(rows: &[Row]) -> String {
    let mut s = String::new();
    for r in rows {
        let project = r
            .project_path
            .as_ref()
            .map_or_else(|| "-".to_string(), |p| p.to_string_lossy().into_owned());
        // A tab or newline in a path or key is escaped (SPEC v3 §3.14).
        s.push_str(&format!(
            "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n",
            crate::text::escape_name(&r.name()),
            crate::text::escape_name(&project),
            r.memories,
            r.index.lines,
            r.index.truncated,
            r.lint.errors,
            r.lint.warnings,
            flags_cell(r)
        ));
    }
    s
}

/// Index lines and units against the caps, and `cut` when Claude Code truncates it.
fn index_cell(r: &Row) -> Cell {
    let units = if r.index.units >= 1000 {
        format!("{:.1}k", r.index.units as f64 / 1000.0)
    } else {
        r.index.units.to_string()
    };
    if r.index.truncated {
        (format!("{}/{MAX_LINES} {units} cut", r.index.lines), Some(Tone::Error))
    } else if r.index.lines >= MAX_LINES * 9 / 10 || r.index.units >= MAX_UNITS * 9 / 10 {
        (format!("{}/{MAX_LINES} {units}", r.index.lines), Some(Tone::Warning))
    } else {
        (format!("{}/{MAX_LINES} {units}", r.index.lines), None)
    }
}

fn lint_cell(r: &Row) -> Cell {
    match (r.lint.errors, r.lint.warnings) {
        (0, 0) => ("-".into(), None),
        (0, w) => (format!("{w}w"), Some(Tone::Warning)),
        (e, 0) => (format!("{e}e"), Some(Tone::Error)),
        (e, w) => (format!("{e}e {w}w"), Some(Tone::Error)),
    }
}

/// The terminal table, fitted to `width` columns: PROJECT is cut in the middle
/// and gets what the other columns leave; on a narrow terminal the least needed
/// columns give way (SESS, then DREAMED, SIZE, CHANGED, FLAGS, LINT). Under each row with
/// flags, one line per flag explains it.
pub fn render_table(rows: &[Row], now_ms: f64, home: Option<&str>, width: usize, color: bool) -> String {
    use unicode_width::UnicodeWidthStr;
    let header = [
        "PROJECT", "MEM", "SIZE", "INDEX", "LINT", "CHANGED", "DREAMED", "SESS", "FLAGS",
    ];
    let cells: Vec<[Cell; 9]> = rows
        .iter()
        .map(|r| {
            let age = |ms: Option<f64>| {
                ms.map_or("-".to_string(), |m| {
                    crate::age::short_age(crate::age::age_days(now_ms, m))
                })
            };
            [
                (project_cell(r, home), None),
                (r.memories.to_string(), None),
                (crate::text::format_file_size(r.size_bytes as usize), None),
                index_cell(r),
                lint_cell(r),
                (age(r.last_change.map(|t| t.0)), None),
                (age(r.last_consolidated_at.map(|t| t.0)), None),
                (r.sessions_since.map_or("-".into(), |n| n.to_string()), None),
                (
                    flags_cell(r),
                    if r.flags.is_empty() { None } else { Some(Tone::Warning) },
                ),
            ]
        })
        .collect();
    let natural: Vec<usize> = (0..9)
        .map(|i| {
            cells
                .iter()
                .map(|c| c[i].0.width())
                .max()
                .unwrap_or(0)
                .max(header[i].width())
        })
        .collect();
    // Columns in the order they give way to PROJECT (at least 24 wide); MEM (1)
    // and INDEX (3) stay (the lines under a row name its flags when FLAGS goes).
    let mut shown: Vec<usize> = (0..9).collect();
    let min_project = natural[0].min(24);
    for drop in [7, 6, 2, 5, 8, 4] {
        let others: usize = shown.iter().filter(|&&i| i != 0).map(|&i| natural[i] + 2).sum();
        if others + min_project <= width {
            break;
        }
        shown.retain(|&i| i != drop);
    }
    let others: usize = shown.iter().filter(|&&i| i != 0).map(|&i| natural[i] + 2).sum();
    let project_w = width.saturating_sub(others).clamp(natural[0].min(8), natural[0]);
    let cols: Vec<Column> = shown
        .iter()
        .map(|&i| Column {
            header: header[i],
            width: if i == 0 { project_w } else { natural[i] },
            middle: i == 0,
        })
        .collect();
    let table_rows: Vec<Vec<Cell>> = cells
        .into_iter()
        .map(|c| shown.iter().map(|&i| c[i].clone()).collect())
        .collect();
    let mut lines = crate::output::table_lines(&cols, &table_rows, color).into_iter();
    let mut s = lines.next().unwrap_or_default();
    for (line, r) in lines.zip(rows) {
        s.push_str(&line);
        for f in &r.flags {
            let name = crate::output::paint(color, Tone::Warning, f.flag.as_str());
            let pad = " ".repeat(f.flag.as_str().width() + 2);
            let wrapped = crate::output::hang(&format!("  {pad}"), &f.detail, Some(width));
            // The flag's name replaces the padding of the first line.
            let first = wrapped.replacen(&format!("  {pad}"), &format!("  {name}: "), 1);
            s.push_str(&first);
        }
    }
    s
}
