//! `memctl forget REF...` (SPEC §3.7).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;
use serde_json::{Value, json};

use crate::cli::ForgetArgs;
use crate::context::Context;
use crate::diff::unified as unified_diff;
use crate::error::{Error, Kind};
use crate::index;
use crate::memory;
use crate::output::Output;
use crate::paths::{Resolution, with_sep};
use crate::{scan, store};

/// One memory to forget.
struct Target {
    /// Relative to the dir, `/`-separated.
    rel: String,
    path: PathBuf,
    /// The index that covers it, and the file's path as that index sees it.
    index: PathBuf,
    local: String,
}

/// Single-quote a string for a POSIX shell.
pub fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

fn resolve_targets(args: &ForgetArgs, res: &Resolution) -> Result<Vec<Target>, Error> {
    let scan = scan::scan(&res.dir);
    let shown = res.shown();
    let mut out: Vec<Target> = Vec::new();
    for r in &args.references {
        if r.rsplit('/').next().is_some_and(|b| b == "MEMORY.md" || b == "MEMORY") {
            return Err(
                Error::new(Kind::InvalidInput, format!("`{r}` is the index, not a memory"))
                    .hint("use `memctl edit --index` to change the index"),
            );
        }
        let rel = match memory::resolve_ref(r, &scan.memories, &shown) {
            Ok(m) => m.rel.clone(),
            Err(e) => {
                // A dangling symlink is not scanned, but `forget` moves the link.
                let with_md = if r.ends_with(".md") {
                    r.clone()
                } else {
                    format!("{r}.md")
                };
                match std::fs::symlink_metadata(res.dir.join(&with_md)) {
                    Ok(m) if m.file_type().is_symlink() => with_md,
                    _ => return Err(e),
                }
            }
        };
        if out.iter().any(|t| t.rel == rel) {
            continue;
        }
        let (index, local) = match rel.strip_prefix("team/") {
            Some(inner) if !res.team => (res.dir.join("team").join("MEMORY.md"), inner.to_string()),
            _ => (res.index_path(), rel.clone()),
        };
        out.push(Target {
            path: res.dir.join(&rel),
            rel,
            index,
            local,
        });
    }
    Ok(out)
}

/// The lines of `text` (1-based numbers, with their terminators) that link any of
/// `files`, and the other memories such lines link.
fn lines_linking(text: &str, files: &[&str]) -> (BTreeMap<usize, String>, Vec<String>) {
    let raw: Vec<&str> = text.split_inclusive('\n').collect();
    let links = index::extract_links(text);
    let mut lines = BTreeMap::new();
    for l in &links {
        if l.memory_target().is_some_and(|t| files.contains(&t)) {
            lines.insert(l.line, raw.get(l.line - 1).map_or(String::new(), |s| s.to_string()));
        }
    }
    let others: Vec<String> = links
        .iter()
        .filter(|l| lines.contains_key(&l.line))
        .filter_map(|l| l.memory_target())
        .filter(|t| !files.contains(t))
        .map(str::to_string)
        .collect();
    (lines, others)
}

/// The index without the given lines; a non-empty result ends with a line ending.
fn without_lines(text: &str, remove: &BTreeMap<usize, String>) -> String {
    let eol = if text.split('\n').next().is_some_and(|l| l.ends_with('\r')) {
        "\r\n"
    } else {
        "\n"
    };
    let mut s: String = text
        .split_inclusive('\n')
        .enumerate()
        .filter(|(i, _)| !remove.contains_key(&(i + 1)))
        .map(|(_, l)| l)
        .collect();
    if !s.is_empty() && !s.ends_with('\n') {
        s.push_str(eol);
    }
    s
}

pub fn run(args: &ForgetArgs, ctx: &Context, out: &mut Output) -> Result<ExitCode> {
    for r in &args.references {
        memory::ensure_valid_name(r, false)?;
    }
    let res = ctx.resolve_existing()?;
    let targets = resolve_targets(args, &res)?;
    if !args.yes && !args.dry_run && !out.interactive() {
        return Err(Error::new(
            Kind::Usage,
            "forget needs confirmation, and there is no terminal to ask",
        )
        .hint("pass --yes to forget without asking")
        .into());
    }
    let by_index = group(&targets);
    let mut planned: Vec<(usize, &Target)> = Vec::new();
    for (index_path, ts) in &by_index {
        let text = read(index_path);
        for t in ts {
            let (lines, others) = lines_linking(&text, &[t.local.as_str()]);
            if !others.is_empty() {
                out.warn(format!(
                    "a removed index line of {} also links {}; they become unindexed",
                    t.rel,
                    others.join(", ")
                ));
            }
            planned.push((lines.len(), t));
        }
    }
    warn_backlinks(&res.dir, &targets, out);
    if args.dry_run {
        return dry_run(&res, &targets, &by_index, out);
    }
    if out.interactive() && !args.yes {
        let what = planned
            .iter()
            .map(|(n, t)| format!("{} and {n} index line{}", t.rel, if *n == 1 { "" } else { "s" }))
            .collect::<Vec<_>>()
            .join(", ");
        let ok = dialoguer::Confirm::new()
            .with_prompt(format!("Forget {what}?"))
            .default(false)
            .interact()
            .map_err(|e| Error::new(Kind::Io, format!("cannot read the answer: {e}")).hint("pass --yes"))?;
        if !ok {
            out.note("nothing forgotten");
            return Ok(ExitCode::SUCCESS);
        }
    }
    let _lock = store::lock(&res.main_dir)?;
    store::ensure_no_dream(&res.main_dir, ctx.now, args.force)?;
    let trash = store::trash_dir(&res.dir, ctx.now)?;
    let mut removed: BTreeMap<String, BTreeMap<usize, String>> = BTreeMap::new();
    for (index_path, ts) in &by_index {
        let files: Vec<&str> = ts.iter().map(|t| t.local.as_str()).collect();
        let fresh = read(index_path);
        let mut claimed = std::collections::HashSet::new();
        for t in ts {
            let (lines, _) = lines_linking(&fresh, &[t.local.as_str()]);
            // A line linking two forgotten files is kept with the first one only.
            let lines: BTreeMap<usize, String> = lines.into_iter().filter(|(n, _)| claimed.insert(*n)).collect();
            if !lines.is_empty() {
                let f = trash.join(format!("{}.index-lines", t.rel));
                if let Some(p) = f.parent() {
                    store::create_dir(p)?;
                }
                std::fs::write(&f, lines.values().cloned().collect::<String>())
                    .map_err(|e| Error::new(Kind::Io, format!("cannot write {}: {e}", f.display())))?;
            }
            removed.insert(t.rel.clone(), lines);
        }
        if index_path.exists() {
            store::update(&res.dir, index_path, |text| {
                Ok(without_lines(text, &lines_linking(text, &files).0))
            })?;
        }
    }
    for t in &targets {
        store::move_entry(&res.dir, &t.path, &trash.join(format!("{}.deleted", t.rel)))?;
    }
    report(out, &res, &trash, &targets, &removed, false)
}

fn read(p: &Path) -> String {
    std::fs::read(p)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default()
}

fn group(targets: &[Target]) -> BTreeMap<PathBuf, Vec<&Target>> {
    let mut m: BTreeMap<PathBuf, Vec<&Target>> = BTreeMap::new();
    for t in targets {
        m.entry(t.index.clone()).or_default().push(t);
    }
    m
}

/// Warn when other topic files still link a forgotten file.
fn warn_backlinks(dir: &Path, targets: &[Target], out: &mut Output) {
    let scan = scan::scan(dir);
    for t in targets {
        let linking: Vec<&str> = scan
            .memories
            .iter()
            .filter(|m| m.rel != t.rel && !targets.iter().any(|x| x.rel == m.rel))
            .filter(|m| {
                let base = m.rel.rsplit_once('/').map_or("", |(d, _)| d);
                std::fs::read(&m.path).ok().is_some_and(|b| {
                    index::extract_links(&String::from_utf8_lossy(&b)).iter().any(
                        |l| matches!(index::resolve_dest(&l.dest, base), Some(index::Target::Inside(p)) if p == t.rel),
                    )
                })
            })
            .map(|m| m.rel.as_str())
            .collect();
        if !linking.is_empty() {
            out.warn(format!(
                "{} is still linked from {} (not changed)",
                t.rel,
                linking.join(", ")
            ));
        }
    }
}

fn dry_run(
    res: &Resolution,
    targets: &[Target],
    by_index: &BTreeMap<PathBuf, Vec<&Target>>,
    out: &mut Output,
) -> Result<ExitCode> {
    let mut removed: BTreeMap<String, BTreeMap<usize, String>> = BTreeMap::new();
    let mut diffs = String::new();
    for (index_path, ts) in by_index {
        let text = read(index_path);
        let files: Vec<&str> = ts.iter().map(|t| t.local.as_str()).collect();
        let (all, _) = lines_linking(&text, &files);
        for t in ts {
            removed.insert(t.rel.clone(), lines_linking(&text, &[t.local.as_str()]).0);
        }
        if !all.is_empty() {
            let label = index_path
                .strip_prefix(&res.dir)
                .unwrap_or(index_path)
                .to_string_lossy()
                .into_owned();
            diffs.push_str(&unified_diff(&label, &text, &without_lines(&text, &all)));
        }
    }
    let trash = res.dir.join(".trash").join("<stamp>");
    if !out.json {
        for t in targets {
            out.print(&format!("would move {} to .trash/<stamp>/{}.deleted\n", t.rel, t.rel))?;
        }
        out.print(&diffs)?;
    }
    report(out, res, &trash, targets, &removed, true)
}

fn report(
    out: &mut Output,
    res: &Resolution,
    trash: &Path,
    targets: &[Target],
    removed: &BTreeMap<String, BTreeMap<usize, String>>,
    dry_run: bool,
) -> Result<ExitCode> {
    let dir = with_sep(&res.dir);
    let mut items = Vec::new();
    for t in targets {
        let lines = removed.get(&t.rel).cloned().unwrap_or_default();
        let trash_file = trash.join(format!("{}.deleted", t.rel));
        let lines_file = trash.join(format!("{}.index-lines", t.rel));
        let mut restore = format!(
            "mv {} {}",
            shell_quote(&trash_file.to_string_lossy()),
            shell_quote(&format!("{dir}{}", t.rel))
        );
        if !lines.is_empty() {
            restore.push_str(&format!(
                " && cat {} >> {}",
                shell_quote(&lines_file.to_string_lossy()),
                shell_quote(&t.index.to_string_lossy())
            ));
        }
        if !out.json && !dry_run {
            let rel_trash = trash
                .strip_prefix(&res.dir)
                .unwrap_or(trash)
                .to_string_lossy()
                .into_owned();
            let n = lines.len();
            out.print(&format!(
                "forgot {} ({n} index line{})\n  kept in {rel_trash}/\n  restore: {restore}\n",
                t.rel,
                if n == 1 { "" } else { "s" }
            ))?;
        }
        items.push(json!({
            "file": t.rel,
            "trash_dir": with_sep(trash),
            "trash_file": trash_file.to_string_lossy(),
            "index_lines_file": (!lines.is_empty()).then(|| lines_file.to_string_lossy().into_owned()),
            "removed_index_lines": lines.iter().map(|(n, text)| json!({"line": n, "text": text.trim_end_matches(['\n', '\r'])})).collect::<Vec<Value>>(),
            "restore": restore,
        }));
    }
    if out.json {
        out.emit_json(super::with_lossy(
            json!({"forgotten": items, "dry_run": dry_run}),
            &res.dir,
        ))?;
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_survives_single_quotes() {
        assert_eq!(shell_quote("/a b/it's.md"), "'/a b/it'\\''s.md'");
    }

    #[test]
    fn every_linking_line_in_any_form_is_found() {
        let text = "# I\n- [A](a.md) — a\n- **[a.md](a.md)** — bold\n- 🔔 [x](./a.md)\n- [B](b.md) — b\n- [A and B](a.md) [b](b.md)\n";
        let (lines, others) = lines_linking(text, &["a.md"]);
        assert_eq!(lines.keys().copied().collect::<Vec<_>>(), vec![2, 3, 4, 6]);
        assert_eq!(others, vec!["b.md"]);
        assert_eq!(without_lines(text, &lines), "# I\n- [B](b.md) — b\n");
        assert_eq!(
            without_lines("- [A](a.md)", &lines_linking("- [A](a.md)", &["a.md"]).0),
            ""
        );
    }
}
