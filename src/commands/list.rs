//! `memctl list` (SPEC §3.4).

use std::process::ExitCode;

use anyhow::Result;

use crate::age;
use crate::cli::{ListArgs, ListFormat};
use crate::context::Context;
use crate::memory::{Memory, MemoryType, TypeFilter};
use crate::output::{Cell, Column, Output, Tone};
use crate::scan::{self, Indexed, MAX_MEMORY_FILES};
use crate::text::iso_ms;

pub fn run(args: &ListArgs, ctx: &Context, out: &mut Output) -> Result<ExitCode> {
    if args.all_projects {
        return crate::projects::each::run(ctx, out, |ctx, out| run_one(args, ctx, out));
    }
    run_one(args, ctx, out)
}

/// The command on one memory dir.
fn run_one(args: &ListArgs, ctx: &Context, out: &mut Output) -> Result<ExitCode> {
    let (filters, notes) = TypeFilter::parse(&args.types)?;
    for n in notes {
        out.note(n);
    }
    let format = if out.json {
        ListFormat::Json
    } else if args.null {
        args.format.unwrap_or(ListFormat::Paths)
    } else {
        args.format.unwrap_or(ListFormat::Table)
    };
    if args.null && format != ListFormat::Paths {
        return Err(
            crate::error::Error::new(crate::error::Kind::Usage, "-0/--null goes with --format paths only")
                .hint("use `memctl list --format paths -0` (names exactly, NUL-separated)")
                .into(),
        );
    }
    let res = ctx.resolve_existing()?;
    note_disabled(&res, out);
    let rules = scan::ScanRules::from_env();
    // Only the table, its records and the JSON show the index (IDX, `indexed`,
    // `loaded`): the manifest and the paths read none.
    let with_index = matches!(format, ListFormat::Table | ListFormat::Json);
    // (2.1.332) The cap applies after the scan's exclusions (SPEC §3.4): without
    // `--all`, the excluded files are left out before the newest 200 are kept, so
    // only those are parsed; `--all` shows every file, the excluded ones marked.
    let (scan, indexed) = if args.all {
        match with_index {
            true => scan::scan_with_index(&res.memdir, None),
            false => scan::scan_without_index(&res.memdir, None),
        }
    } else {
        scan::scan_claude(&res.memdir, Some(MAX_MEMORY_FILES), &rules, with_index)
    };
    let mut view = ClaudeView::of(&scan.memories, &rules);
    if !args.all {
        // Capped: the scan counted what it cut (`total`) and what it left out.
        view.total = scan.total;
        view.excluded = scan.skipped;
    }
    note_scan(&scan, &view, args.all, out);
    // For a reader at a terminal; a script piping the manifest gets only the notes
    // about what is missing from it.
    if format == ListFormat::Manifest && out.stdout_tty {
        note_manifest(&rules, out);
    }
    // (rank in Claude Code's scan or `None` when excluded, memory)
    let shown: Vec<(Option<usize>, &Memory)> = view
        .ranked
        .iter()
        .filter(|(rank, _)| args.all || rank.is_some_and(|r| r < MAX_MEMORY_FILES))
        .filter(|(_, m)| filters.matches(m))
        .copied()
        .collect();
    if shown.is_empty() && out.stdout_tty && !out.json {
        out.eprint(&format!("{}\n", empty_message(&res, view.total, &args.types)));
    }
    let listing = Listing {
        res: &res,
        indexed: &indexed,
        total: view.total,
        excluded: view.excluded,
        all: args.all,
        now_ms: ctx.now_ms(),
        rules: &rules,
    };
    render(format, args.null, &listing, &shown, out)?;
    Ok(ExitCode::SUCCESS)
}

/// The scan as Claude Code 2.1.332 sees it (SPEC §2.5 step 2): each memory with
/// its rank among the files it scans (`None`: excluded), in scan order.
struct ClaudeView<'a> {
    ranked: Vec<(Option<usize>, &'a Memory)>,
    /// Files the scan keeps.
    total: usize,
    /// Files it skips.
    excluded: usize,
}

impl<'a> ClaudeView<'a> {
    fn of(memories: &'a [Memory], rules: &scan::ScanRules) -> ClaudeView<'a> {
        let mut total = 0;
        let ranked: Vec<(Option<usize>, &Memory)> = memories
            .iter()
            .map(|m| match rules.excluded_by(&m.rel) {
                Some(_) => (None, m),
                None => {
                    total += 1;
                    (Some(total - 1), m)
                }
            })
            .collect();
        let excluded = memories.len() - total;
        ClaudeView {
            ranked,
            total,
            excluded,
        }
    }
}

/// What every format renders from, besides the memories shown.
struct Listing<'a> {
    res: &'a crate::paths::Resolution,
    indexed: &'a Indexed,
    total: usize,
    excluded: usize,
    all: bool,
    now_ms: f64,
    rules: &'a scan::ScanRules,
}

/// The note `truncate-check` gives too, when Claude Code's auto memory is off.
fn note_disabled(res: &crate::paths::Resolution, out: &mut Output) {
    if !res.enabled.value && !res.explicit {
        out.note(format!(
            "auto memory is disabled ({}): Claude Code loads none of these memories",
            res.enabled.lever
        ));
    }
}

/// The scan's warnings, a note when the cap hides files, and (2.1.332) one when
/// the scan's exclusions do.
fn note_scan(scan: &scan::Scan, view: &ClaudeView<'_>, all: bool, out: &mut Output) {
    for p in &scan.problems {
        out.warn(p.message());
    }
    let hidden = view.total.saturating_sub(MAX_MEMORY_FILES);
    if hidden > 0 {
        out.note(if all {
            format!("{hidden} of these files are not seen by Claude Code: it sees only the {MAX_MEMORY_FILES} most recently modified")
        } else {
            format!("{hidden} more files are not shown: Claude Code sees only the {MAX_MEMORY_FILES} most recently modified (use --all)")
        });
    }
    let n = view.excluded;
    if n > 0 {
        let (files, are) = if n == 1 { ("file", "is") } else { ("files", "are") };
        out.note(if all {
            format!("{n} {files} under paths Claude Code does not scan {are} marked excluded")
        } else {
            format!("{n} {files} under paths Claude Code does not scan {are} not shown (use --all)")
        });
    }
}

/// When the model sees the manifest at all (SPEC §2.6).
fn note_manifest(rules: &scan::ScanRules, out: &mut Output) {
    if !rules.stores {
        out.note(
            "Claude Code shows the model this manifest only in recall mode (CLAUDE_MEMORY_STORES set) and to background extraction",
        );
    }
}

/// What a terminal is told when nothing is listed (piped output stays empty).
fn empty_message(res: &crate::paths::Resolution, total: usize, types: &[String]) -> String {
    let dir = res.shown();
    if !res.memdir.dir().is_dir() {
        format!("no memories yet in {dir} — Claude Code creates it on the first save")
    } else if total == 0 {
        format!("no memories yet in {dir}")
    } else {
        let types: Vec<&str> = types.iter().map(|t| t.trim()).filter(|t| !t.is_empty()).collect();
        let s = if total == 1 { "y" } else { "ies" };
        format!(
            "no memory of type {} in {dir} ({total} memor{s} of other types)",
            types.join(" or ")
        )
    }
}

/// Print the memories `shown` (rank, memory) in `format`.
fn render(
    format: ListFormat,
    null: bool,
    l: &Listing<'_>,
    shown: &[(Option<usize>, &Memory)],
    out: &mut Output,
) -> Result<()> {
    let memories = || shown.iter().map(|(_, m)| *m).collect::<Vec<&Memory>>();
    match format {
        ListFormat::Json => write_json(out, l, shown)?,
        ListFormat::Manifest => out.print(&render_manifest(&memories(), l.rules))?,
        ListFormat::Paths => {
            // One path a line, a newline, tab or backslash in it escaped (SPEC v3
            // §3.14); with -0 exactly as it is, NUL-terminated.
            for (_, m) in shown {
                let path = m.path.as_os_str().as_encoded_bytes();
                if null {
                    out.write_bytes(path)?;
                    out.write_bytes(b"\0")?;
                } else {
                    out.write_bytes(&crate::text::escape_name_bytes(path))?;
                    out.print("\n")?;
                }
            }
        }
        ListFormat::Table if shown.is_empty() => {}
        ListFormat::Table if out.stdout_tty => {
            let width = crate::output::terminal_width();
            let table = render_table(&memories(), l.indexed, l.rules, l.now_ms, width, out.color_stdout);
            out.print(&table)?;
        }
        ListFormat::Table => out.print(&render_records(&memories(), l.indexed, l.now_ms))?,
    }
    Ok(())
}

/// Stream the `list --json` document.
fn write_json(out: &mut Output, l: &Listing<'_>, ranked: &[(Option<usize>, &Memory)]) -> Result<()> {
    let (res, indexed, total, all, now_ms) = (l.res, l.indexed, l.total, l.all, l.now_ms);
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
    let write = |w: &mut dyn Write| -> std::io::Result<()> {
        write!(w, "{head},\n  \"entries\": [")?;
        write_entries(w, indexed, l.rules, ranked, now_ms)?;
        write!(
            w,
            "{}],\n  \"warnings\": {warnings},\n  \"excluded_by_scan\": {}\n}}\n",
            if ranked.is_empty() { "" } else { "\n  " },
            l.excluded
        )
    };
    if out.collecting() {
        // Under --all-projects: one document among others, not streamed.
        let mut buf = Vec::new();
        write(&mut buf)?;
        out.push_collected(serde_json::from_slice(&buf)?);
    } else {
        write(out.stdout())?;
    }
    Ok(())
}

/// The `entries` array's items, serialized chunk by chunk; on large listings a
/// helper thread renders every other chunk meanwhile, through a short queue, so
/// memory stays bounded.
fn write_entries(
    w: &mut dyn std::io::Write,
    indexed: &Indexed,
    rules: &scan::ScanRules,
    ranked: &[(Option<usize>, &Memory)],
    now_ms: f64,
) -> std::io::Result<()> {
    use std::io::Write;
    let render = |part: &[(Option<usize>, &Memory)], buf: &mut Vec<u8>| {
        for (rank, m) in part {
            let lines = indexed.lines_for(&m.rel);
            let in_view = rank.is_some_and(|r| r < MAX_MEMORY_FILES);
            let mut entry = crate::entry::Entry::new(m, &lines, now_ms, Some(in_view));
            entry.loaded = Some(indexed.loaded(&m.rel));
            entry.excluded_by = rules.excluded_by(&m.rel);
            buf.extend_from_slice(b",\n    ");
            let _ = serde_json::to_writer(&mut *buf, &entry);
        }
    };
    const CHUNK: usize = 512;
    let chunks: Vec<&[(Option<usize>, &Memory)]> = ranked.chunks(CHUNK).collect();
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
            let odd: Vec<&[(Option<usize>, &Memory)]> = chunks.iter().skip(1).step_by(2).copied().collect();
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

/// Claude Code's manifest (SPEC §2.6) plus one final LF; nothing when empty.
/// (2.1.332) With memory stores configured, a memory without a description shows
/// the first line of its body, as in Claude Code's recall request (SPEC §2.5).
pub fn render_manifest(memories: &[&Memory], rules: &scan::ScanRules) -> String {
    if memories.is_empty() {
        return String::new();
    }
    let lines: Vec<String> = memories
        .iter()
        .map(|m| {
            let fallback = (rules.stores && m.fields.description.is_none())
                .then(|| scan::head_body_description(&m.path))
                .flatten();
            manifest_line(m, fallback.as_deref())
        })
        .collect();
    format!("{}\n", lines.join("\n"))
}

/// One manifest line: the type Claude Code reads, the description when it is a
/// non-empty string (else `fallback`), printed as it is (line breaks kept).
pub fn manifest_line(m: &Memory, fallback: Option<&str>) -> String {
    let tag = m
        .claude_type()
        .map(|t| format!("[{}] ", t.as_str()))
        .unwrap_or_default();
    let desc = match (&m.fields.description, fallback) {
        (Some(d), _) => format!(": {}", d.js_string()),
        (None, Some(f)) => format!(": {f}"),
        (None, None) => String::new(),
    };
    format!("- {tag}{} ({}){desc}", m.rel, iso_ms(m.mtime_ms))
}

fn flat(s: &str) -> String {
    s.replace(['\t', '\n', '\r'], " ")
}

/// TYPE: (2.1.332) the type Claude Code reads; no marker for a nested one.
fn type_label(m: &Memory) -> String {
    m.memory_type().map_or_else(|| "-".into(), |t| t.as_str().to_string())
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
            crate::text::escape_name(&m.rel),
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

/// `IDX` on a terminal: `cut` for an entry whose index lines are all past the cut;
/// (2.1.332) `excluded` for a file the scan skips, `store` under a store mount.
fn idx_cell(indexed: &Indexed, rules: &scan::ScanRules, rel: &str) -> Cell {
    if rules.excluded_by(rel).is_some() {
        ("excluded".into(), Some(Tone::Warning))
    } else if rules.in_store_mount(rel) {
        ("store".into(), None)
    } else if indexed.lines_for(rel).is_empty() {
        ("no".into(), None)
    } else if indexed.loaded(rel) {
        ("yes".into(), None)
    } else {
        ("cut".into(), Some(Tone::Warning))
    }
}

/// The name when it says more than the file name: empty when it is the stem
/// spelled another way (case, `-`, `_` or spaces).
fn distinct_name(m: &Memory) -> String {
    let name = flat(&m.name().unwrap_or_default());
    let key = |s: &str| -> String {
        s.chars()
            .map(|c| {
                if matches!(c, '-' | '_' | ' ') {
                    '_'
                } else {
                    c.to_ascii_lowercase()
                }
            })
            .collect()
    };
    let file = m.rel.rsplit('/').next().unwrap_or(&m.rel);
    let stem = file.strip_suffix(".md").unwrap_or(file);
    if key(name.trim()) == key(stem) {
        String::new()
    } else {
        name
    }
}

/// The widths of the columns that give way, in a terminal `width` wide: FILE and
/// DESCRIPTION (and NAME when some name says more than its file name), each cut
/// when the terminal is too narrow for all of it. `None`: too narrow for a
/// readable description beside the file; it goes on a line of its own.
fn flex_widths(fixed: usize, file: usize, desc: usize, name: usize, width: usize) -> Option<(usize, usize, usize)> {
    // Each column's minimum, then growth steps in order of what a reader needs.
    let fits = |cols: usize, mins: usize| width.saturating_sub(fixed + 2 * cols) >= mins;
    let (fmin, dmin, nmin) = (file.min(16), desc.min(20), name.min(10));
    // NAME only when the description still gets a good part of a line beside it.
    let with_name = name > 0 && fits(5, fmin + desc.min(36) + nmin);
    if !with_name && !fits(4, fmin + dmin) {
        return None;
    }
    let cols = if with_name { 5 } else { 4 };
    let mut left = width.saturating_sub(fixed + 2 * cols) - fmin - dmin - if with_name { nmin } else { 0 };
    let mut w = [fmin, dmin, if with_name { nmin } else { 0 }];
    // (column, width it grows to): 0 FILE, 1 DESCRIPTION, 2 NAME.
    let steps = [
        (0, file.min(24)),
        (1, desc.min(48)),
        (2, name.min(20)),
        (0, file),
        (2, name.min(32)),
        (1, desc),
    ];
    for (k, cap) in steps {
        if k == 2 && !with_name {
            continue;
        }
        let grow = cap.saturating_sub(w[k]).min(left);
        w[k] += grow;
        left -= grow;
    }
    Some((w[0], w[1], w[2]))
}

/// The terminal table, fitted to `width` columns: TYPE, AGE and IDX keep their
/// width; FILE is cut in the middle, DESCRIPTION (and NAME, shown only when it
/// says more than the file name) at the end. A terminal too narrow for a readable
/// description puts it on a line of its own under its row. No line is wider than
/// `width` (from 30 columns on).
pub fn render_table(
    memories: &[&Memory],
    indexed: &Indexed,
    rules: &scan::ScanRules,
    now_ms: f64,
    width: usize,
    color: bool,
) -> String {
    use unicode_width::UnicodeWidthStr;
    let rows: Vec<[Cell; 6]> = memories
        .iter()
        .map(|m| {
            let desc = m
                .fields
                .description
                .as_ref()
                .map_or_else(String::new, |d| flat(&d.js_string()));
            [
                (type_label(m), None),
                (distinct_name(m), None),
                (crate::text::escape_name(&m.rel).into_owned(), None),
                (age::short_age(age::age_days(now_ms, m.mtime_ms)), None),
                idx_cell(indexed, rules, &m.rel),
                (desc, None),
            ]
        })
        .collect();
    let header = ["TYPE", "NAME", "FILE", "AGE", "IDX", "DESCRIPTION"];
    let natural: Vec<usize> = (0..6)
        .map(|i| rows.iter().map(|r| r[i].0.width()).max().unwrap_or(0))
        .collect();
    let col = |i: usize| natural[i].max(header[i].width());
    let fixed = col(0) + col(3) + col(4);
    let name = if natural[1] > 0 { col(1) } else { 0 };
    let column = |i: usize, width: usize| Column {
        header: header[i],
        width,
        middle: i == 2,
    };
    match flex_widths(fixed, col(2), col(5), name, width) {
        Some((file_w, desc_w, name_w)) => {
            let mut cols = vec![column(0, col(0))];
            if name_w > 0 {
                cols.push(column(1, name_w));
            }
            cols.extend([
                column(2, file_w),
                column(3, col(3)),
                column(4, col(4)),
                column(5, desc_w),
            ]);
            let rows: Vec<Vec<Cell>> = rows
                .into_iter()
                .map(|[ty, name, file, age, idx, desc]| {
                    let mut r = vec![ty];
                    if name_w > 0 {
                        r.push(name);
                    }
                    r.extend([file, age, idx, desc]);
                    r
                })
                .collect();
            crate::output::table(&cols, &rows, color)
        }
        None => narrow_table(rows, [col(0), col(3), col(4)], width, color),
    }
}

/// The table of a narrow terminal: TYPE, FILE, AGE, IDX, and each description
/// indented on the line below its row. Below about 36 columns AGE gives way to FILE.
fn narrow_table(rows: Vec<[Cell; 6]>, [ty_w, age_w, idx_w]: [usize; 3], width: usize, color: bool) -> String {
    let with_age = width >= ty_w + age_w + idx_w + 6 + 12;
    let others = ty_w + idx_w + if with_age { age_w + 6 } else { 4 };
    let file_w = width.saturating_sub(others).max(8);
    let mut cols = vec![
        Column {
            header: "TYPE",
            width: ty_w,
            middle: false,
        },
        Column {
            header: "FILE",
            width: file_w,
            middle: true,
        },
    ];
    if with_age {
        cols.push(Column {
            header: "AGE",
            width: age_w,
            middle: false,
        });
    }
    cols.push(Column {
        header: "IDX",
        width: idx_w,
        middle: false,
    });
    let descs: Vec<String> = rows.iter().map(|r| r[5].0.clone()).collect();
    let rows: Vec<Vec<Cell>> = rows
        .into_iter()
        .map(|[ty, _, file, age, idx, _]| {
            if with_age {
                vec![ty, file, age, idx]
            } else {
                vec![ty, file, idx]
            }
        })
        .collect();
    let mut lines = crate::output::table_lines(&cols, &rows, color).into_iter();
    let mut s = lines.next().unwrap_or_default();
    for (line, desc) in lines.zip(descs) {
        s.push_str(&line);
        if !desc.is_empty() {
            s.push_str(&format!(
                "  {}\n",
                crate::output::fit_end(&desc, width.saturating_sub(2))
            ));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mem(rel: &str, text: &str) -> Memory {
        Memory::from_text(rel, text)
    }

    fn no_index() -> Indexed {
        Indexed::load(&crate::memdir::MemoryDir::open(
            "/nonexistent",
            crate::memdir::Scope::Main,
        ))
    }

    fn width_of(line: &str) -> usize {
        use unicode_width::UnicodeWidthStr;
        line.width()
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
        let out = render_table(&refs, &no_index(), &scan::ScanRules::default(), 0.0, 80, false);
        let lines: Vec<&str> = out.lines().collect();
        assert!(lines[0].starts_with("TYPE "), "{out}");
        assert!(lines[1].contains("user_long.md") && lines[1].ends_with('…'), "{out}");
        assert!(
            lines[2].starts_with("feedback ") && !lines[2].contains('*') && lines[2].contains("feedback_nested.md"),
            "{out}"
        );
        assert!(lines.iter().all(|l| width_of(l) <= 80), "{out}");
        // (2.1.332) A nested type is Claude Code's type: no footnote.
        assert_eq!(lines.len(), 3, "{out}");
    }

    /// Issue 14 point 1: the table was 101 columns wide at 40, 60 and 80.
    #[test]
    fn table_fits_40_60_and_80_columns() {
        let file = "project_1200_discogs_cover_art_complete_with_more_words.md";
        let text = format!(
            "---\nname: project-1200-discogs-cover-art-complete-with-more-words\ndescription: {}\ntype: reference\n---\n",
            "Issue 1200 shipped: Discogs albums got their cover art ".repeat(3)
        );
        let named = "---\nname: A real title that says more\ndescription: short\ntype: user\n---\n";
        let ms = [mem(file, &text), mem("team/user_日本語_profile.md", named)];
        let refs: Vec<&Memory> = ms.iter().collect();
        for width in [30, 40, 60, 80, 100, 120, 200] {
            let out = render_table(&refs, &no_index(), &scan::ScanRules::default(), 0.0, width, false);
            for l in out.lines() {
                assert!(width_of(l) <= width, "{width}: {l:?} in\n{out}");
            }
            // FILE keeps its start and its extension.
            assert!(
                out.lines().any(|l| l.contains("project") && l.contains("s.md")),
                "{width}:\n{out}"
            );
        }
        let at80 = render_table(&refs, &no_index(), &scan::ScanRules::default(), 0.0, 80, false);
        // The description stays readable, on the row or under it.
        assert!(at80.contains("Issue 1200 shipped: Discogs"), "{at80}");
        // A name that only spells the stem is not repeated.
        assert!(!at80.contains("project-1200"), "{at80}");
        let wide = render_table(&refs, &no_index(), &scan::ScanRules::default(), 0.0, 200, false);
        assert!(wide.starts_with("TYPE       NAME"), "{wide}");
        assert!(wide.contains("A real title that says more"), "{wide}");
        assert!(!wide.contains("project-1200"), "{wide}");
    }

    #[test]
    fn narrow_tables_put_the_description_under_its_row() {
        let m = mem(
            "feedback_a_rather_long_file_name.md",
            "---\ndescription: Always wire up new functionality end to end\ntype: feedback\n---\n",
        );
        let out = render_table(&[&m], &no_index(), &scan::ScanRules::default(), 0.0, 40, false);
        assert_eq!(
            out,
            "TYPE      FILE                AGE    IDX\n\
             feedback  feedback_…_name.md  today  no\n  \
             Always wire up new functionality end …\n"
        );
    }
}
