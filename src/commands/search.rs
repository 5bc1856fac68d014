//! `memctl search` (SPEC §9): gather the query and the dirs, call
//! [`search::search_dirs`], render. Exit 1 when nothing matches, as grep does.

use std::collections::HashMap;
use std::process::ExitCode;

use anyhow::Result;

use crate::cli::SearchArgs;
use crate::context::Context;
use crate::error::{Error, Kind};
use crate::memdir::{MemoryDir, Scope as DirScope};
use crate::memory::TypeFilter;
use crate::output::{Column, Output, Tone, fit_end};
use crate::search::{self, Options, Query, Report, SearchResult};

pub fn run(args: &SearchArgs, ctx: &Context, out: &mut Output) -> Result<ExitCode> {
    let query = args.query.join(" ");
    if Query::new(&query).words.is_empty() {
        return Err(Error::new(Kind::Usage, format!("the query has no words: `{query}`"))
            .hint("search for letters or digits, e.g. `memctl search deploy`")
            .into());
    }
    let (types, notes) = TypeFilter::parse(&args.types)?;
    for n in notes {
        out.note(n);
    }
    let opts = Options {
        types,
        limit: (args.limit > 0).then_some(args.limit),
    };
    let (dirs, scope) = if args.all_projects {
        all_dirs(ctx, out)?
    } else {
        let res = ctx.resolve_existing()?;
        (vec![res.memdir.clone()], Scope::One(res.shown()))
    };
    let mut report = search::search_dirs(&dirs, &query, &opts);
    for w in std::mem::take(&mut report.warnings) {
        out.warn(w);
    }
    render(&report, &scope, out)?;
    Ok(if report.results.is_empty() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// What was searched: one memory dir, or every project's (with the label each
/// result's file is shown under in the table).
enum Scope {
    One(String),
    All(HashMap<String, String>),
}

/// `--all-projects`: every project's memory dir, labelled by its project's
/// directory name (else its key).
fn all_dirs(ctx: &Context, out: &mut Output) -> Result<(Vec<MemoryDir>, Scope)> {
    let rows = crate::projects::each::rows(ctx, out)?;
    let mut labels = HashMap::new();
    let mut dirs = Vec::new();
    for row in &rows {
        let scope = if ctx.request.team {
            DirScope::Team
        } else {
            DirScope::Main
        };
        let dir = MemoryDir::open(row.memory_dir.clone(), scope);
        let label = row
            .project_path
            .as_ref()
            .and_then(|p| p.file_name())
            .map_or_else(|| row.name(), |n| n.to_string_lossy().into_owned());
        labels.insert(dir.shown(), label);
        dirs.push(dir);
    }
    Ok((dirs, Scope::All(labels)))
}

fn render(report: &Report, scope: &Scope, out: &mut Output) -> Result<()> {
    let more = (report.more > 0).then(|| {
        let s = if report.more == 1 { "" } else { "es" };
        format!("… and {} more match{s} (--limit 0 shows all)", report.more)
    });
    if out.json {
        if let Some(m) = &more {
            out.note(m.trim_start_matches("… and ").to_string());
        }
        return Ok(out.emit_json(serde_json::to_value(report)?)?);
    }
    if report.results.is_empty() {
        if out.stdout_tty {
            let s = if report.searched == 1 { "y" } else { "ies" };
            let dir = match scope {
                Scope::One(dir) => dir.clone(),
                Scope::All(labels) => format!("any of {} projects", labels.len()),
            };
            out.eprint(&format!(
                "no memory in {dir} matches every word of `{}` ({} memor{s} searched)\n",
                report.query, report.searched
            ));
        }
        return Ok(());
    }
    if out.stdout_tty {
        let q = Query::new(&report.query);
        let width = crate::output::terminal_width();
        let labels = match scope {
            Scope::All(labels) => Some(labels),
            Scope::One(_) => None,
        };
        out.print(&render_table(&report.results, labels, &q, width, out.color_stdout))?;
        if let Some(m) = more {
            out.print(&format!("{}\n", fit_end(&m, width)))?;
        }
    } else {
        out.print(&render_lines(&report.results))?;
        if let Some(m) = more {
            out.note(m.trim_start_matches("… and ").to_string());
        }
    }
    Ok(())
}

/// Piped: `path:line:text`, one match per line, as `grep -n` prints (paths
/// relative to the current dir when below it), so editors read it as a list of
/// locations.
fn render_lines(results: &[SearchResult]) -> String {
    let cwd = std::env::current_dir().unwrap_or_default();
    let mut s = String::new();
    for r in results {
        let path = std::path::Path::new(&r.memory_dir).join(&r.file);
        let shown = crate::lint::format::shown_path(&path, &cwd);
        // One match a line: a newline or tab in the name is escaped (SPEC v3 §3.14).
        s.push_str(&format!(
            "{}:{}:{}\n",
            crate::text::escape_name(&shown),
            r.line,
            crate::text::escape_controls(&r.text)
        ));
    }
    s
}

/// The terminal table, fitted to `width` columns: TYPE, FILE, LINE and TEXT when
/// the files fit whole and the text gets 40 columns beside them; otherwise TYPE,
/// FILE (cut in the middle) and LINE, with each text on a line of its own under
/// its row. A text is cut at the end and, when its first match would be cut
/// away, at the start too.
fn render_table(
    results: &[SearchResult],
    labels: Option<&HashMap<String, String>>,
    q: &Query,
    width: usize,
    color: bool,
) -> String {
    use unicode_width::UnicodeWidthStr;
    // Across projects, a file is shown as `<project>/<file>`.
    let file = |r: &SearchResult| match labels.and_then(|l| l.get(&r.memory_dir)) {
        Some(label) => format!("{label}/{}", crate::text::escape_name(&r.file)),
        None => crate::text::escape_name(&r.file).into_owned(),
    };
    let ty = |r: &SearchResult| r.memory_type.map_or("-", |t| t.as_str()).to_string();
    let type_w = results.iter().map(|r| ty(r).width()).max().unwrap_or(0).max(4);
    let line_w = results
        .iter()
        .map(|r| r.line.to_string().len())
        .max()
        .unwrap_or(0)
        .max(4);
    let file_nat = results.iter().map(|r| file(r).width()).max().unwrap_or(0).max(4);
    let text_w = width.saturating_sub(type_w + line_w + file_nat + 6);
    let beside = text_w >= 40;
    let file_w = if beside {
        file_nat
    } else {
        file_nat.min(width.saturating_sub(type_w + line_w + 4).max(8))
    };
    let col = |header, width, middle| Column { header, width, middle };
    let mut cols = vec![
        col("TYPE", type_w, false),
        col("FILE", file_w, true),
        col("LINE", line_w, false),
    ];
    if beside {
        cols.push(col("TEXT", text_w, false));
    }
    let text_of = |r: &SearchResult, w: usize| snippet(&r.text, search::matcher::first_match(q, &r.text), w);
    let rows: Vec<Vec<crate::output::Cell>> = results
        .iter()
        .map(|r| {
            let mut row = vec![
                (ty(r), None),
                (file(r), Some(Tone::Bold)),
                (r.line.to_string(), Some(Tone::Dim)),
            ];
            if beside {
                row.push((text_of(r, text_w), None));
            }
            row
        })
        .collect();
    let mut lines = crate::output::table_lines(&cols, &rows, color).into_iter();
    let mut s = lines.next().unwrap_or_default();
    for (line, r) in lines.zip(results) {
        s.push_str(&line);
        if !beside {
            s.push_str(&format!("  {}\n", text_of(r, width.saturating_sub(2))));
        }
    }
    s
}

/// `text` in `width` columns, showing the match that starts at char `at`: cut at
/// the end while the match keeps some context before the cut; else cut at the
/// start (`…`) too, as little as shows the rest of the line, and at most so far
/// that the match starts a third of the way in.
fn snippet(text: &str, at: Option<usize>, width: usize) -> String {
    use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};
    let text = text.replace('\t', " ");
    let total = text.width();
    let Some(at) = at.filter(|_| total > width && width >= 8) else {
        return fit_end(&text, width);
    };
    let before: usize = text.chars().take(at).map(|c| c.width().unwrap_or(0)).sum();
    if before + 16.min(width / 3) <= width {
        return fit_end(&text, width);
    }
    let drop = (total - (width - 1)).min(before - width / 3);
    let mut skip = 0;
    let mut dropped = 0;
    for c in text.chars() {
        if dropped >= drop {
            break;
        }
        dropped += c.width().unwrap_or(0);
        skip += c.len_utf8();
    }
    format!("…{}", fit_end(&text[skip..], width - 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(file: &str, line: usize, text: &str) -> SearchResult {
        SearchResult {
            memory_dir: "/m/".into(),
            file: file.into(),
            name: None,
            memory_type: crate::memory::MemoryType::parse("feedback"),
            score: 1.0,
            exact: true,
            field: search::Field::Body,
            line,
            text: text.into(),
            mtime_ms: 0.0,
        }
    }

    #[test]
    fn the_table_fits_40_60_and_80_columns() {
        use unicode_width::UnicodeWidthStr;
        let long = format!("{} and here the deploy word comes late", "padding words ".repeat(8));
        let rs = [
            result("feedback_a_rather_long_file_name_for_tables.md", 12, &long),
            result("b.md", 3, "deploy early"),
        ];
        let q = Query::new("deploy");
        for width in [30, 40, 60, 80, 120] {
            let t = render_table(&rs, None, &q, width, false);
            for l in t.lines() {
                assert!(l.width() <= width, "{width}: {l:?}\n{t}");
            }
            assert!(t.contains("deploy"), "{width}: the match stays visible\n{t}");
        }
        let t = render_table(&rs, None, &q, 80, false);
        assert!(t.starts_with("TYPE      FILE"), "{t}");
        // Too narrow for the text beside the whole file name: under its row.
        assert_eq!(
            t.lines().nth(2),
            Some("  …adding words padding words padding words  and here the deploy word comes late"),
            "{t}"
        );
        let t = render_table(&rs, None, &q, 120, false);
        assert!(
            t.starts_with("TYPE      FILE") && t.lines().next().unwrap().ends_with("TEXT"),
            "{t}"
        );
        assert!(
            t.contains("12    …ords padding words  and here the deploy word comes late"),
            "{t}"
        );
    }

    #[test]
    fn snippets_keep_short_lines_whole() {
        assert_eq!(snippet("short\tline", Some(0), 20), "short line");
        assert_eq!(snippet("abcdefghij", None, 5), "abcd…");
        // Cut at the start only as far as the end of the line needs.
        assert_eq!(snippet("0123456789 match", Some(11), 12), "…56789 match");
        let line = "description: Non-critical merges frozen from 2026-03-05 for the mobile release cut";
        assert_eq!(
            snippet(line, Some(68), 78),
            "…iption: Non-critical merges frozen from 2026-03-05 for the mobile release cut"
        );
        // A match far into a long line starts a third of the way in.
        let long = format!("{}match{}", "x ".repeat(100), " y".repeat(100));
        let s = snippet(&long, Some(200), 30);
        assert!(s.starts_with("…x x") && s.contains("match") && s.ends_with('…'), "{s}");
        assert_eq!(s.find("match"), Some(13), "{s}");
    }
}
