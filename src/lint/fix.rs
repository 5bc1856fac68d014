//! `lint --fix` (SPEC §3.9.4): the four mechanical rewrites, computed on fresh
//! content under the write lock and written atomically, or shown as diffs.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use crate::error::Error;
use crate::frontmatter::{self, Fields, Status};
use crate::index::{self, load};
use crate::scan;
use crate::store;
use crate::yaml::Value;

use super::Finding;

/// What one fix did (or would do).
#[derive(Clone, Debug)]
pub struct Fix {
    pub id: &'static str,
    /// The file changed or moved, relative to the linted dir.
    pub rel: String,
    pub applied: bool,
    /// Unified diff (or `moved: …` line) for `--dry-run`.
    pub diff: Option<String>,
    /// Why a fix was skipped.
    pub skipped: Option<String>,
    /// The files whose findings this fix resolves.
    pub resolves: Vec<PathBuf>,
}

/// The fixing context.
pub struct Fixer<'a> {
    pub dir: &'a Path,
    pub main_dir: &'a Path,
    pub now: DateTime<Utc>,
    pub dry_run: bool,
    pub force: bool,
    /// Files under `team/` belong to `team/MEMORY.md` (linting the main dir).
    pub team_scope: bool,
}

fn rel_of(dir: &Path, p: &Path) -> String {
    p.strip_prefix(dir).unwrap_or(p).to_string_lossy().into_owned()
}

impl Fixer<'_> {
    /// Apply (or preview) the fixes for `findings`.
    pub fn run(&self, findings: &[Finding]) -> Result<Vec<Fix>, Error> {
        let _lock = if self.dry_run {
            None
        } else {
            Some(store::lock(self.main_dir)?)
        };
        if !self.dry_run {
            store::ensure_no_dream(self.main_dir, self.now, self.force)?;
        }
        let mut fixes = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for f in findings.iter().filter(|f| matches!(f.id, "ML102" | "ML111")) {
            if let Some(p) = &f.path
                && seen.insert(p.clone())
            {
                fixes.push(self.frontmatter_fix(f.id, p)?);
            }
        }
        let unindexed: Vec<&Path> = findings
            .iter()
            .filter(|f| f.id == "ML203")
            .filter_map(|f| f.path.as_deref())
            .collect();
        fixes.extend(self.index_fixes(&unindexed)?);
        for f in findings.iter().filter(|f| f.id == "ML132") {
            if let Some(p) = &f.path {
                fixes.push(self.move_temp(p)?);
            }
        }
        Ok(fixes)
    }

    fn write(&self, id: &'static str, path: &Path, old: &str, new: &str) -> Result<Fix, Error> {
        let rel = rel_of(self.dir, path);
        if self.dry_run {
            return Ok(Fix {
                id,
                diff: Some(crate::diff::unified(&rel, old, new)),
                rel,
                applied: false,
                skipped: None,
                resolves: vec![path.to_path_buf()],
            });
        }
        store::write_atomic(self.dir, path, new.as_bytes())?;
        Ok(Fix {
            id,
            rel,
            applied: true,
            diff: None,
            skipped: None,
            resolves: vec![path.to_path_buf()],
        })
    }

    fn skip(&self, id: &'static str, path: &Path, why: String) -> Fix {
        Fix {
            id,
            rel: rel_of(self.dir, path),
            applied: false,
            diff: None,
            skipped: Some(why),
            resolves: Vec::new(),
        }
    }

    fn frontmatter_fix(&self, id: &'static str, path: &Path) -> Result<Fix, Error> {
        let Ok(bytes) = std::fs::read(path) else {
            return Ok(self.skip(id, path, "cannot be read".into()));
        };
        let Ok(text) = String::from_utf8(bytes) else {
            return Ok(self.skip(id, path, "not valid UTF-8; fix it by hand".into()));
        };
        let new = if id == "ML102" {
            move_block_to_top(&text)
        } else {
            requote(&text)
        };
        match new {
            Some(new) => self.write(id, path, &text, &new),
            None => Ok(self.skip(
                id,
                path,
                "the rewrite would not give the same fields; fix it by hand".into(),
            )),
        }
    }

    fn index_fixes(&self, files: &[&Path]) -> Result<Vec<Fix>, Error> {
        let mut out = Vec::new();
        let mut by_index: std::collections::BTreeMap<PathBuf, Vec<(String, &Path)>> = Default::default();
        for p in files {
            let rel = rel_of(self.dir, p);
            let (index, local) = match rel.strip_prefix("team/") {
                Some(inner) if self.team_scope => (self.dir.join("team/MEMORY.md"), inner.to_string()),
                _ => (self.dir.join("MEMORY.md"), rel.clone()),
            };
            by_index.entry(index).or_default().push((local, p));
        }
        for (index_path, entries) in by_index {
            let old = std::fs::read(&index_path)
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .unwrap_or_default();
            let mut new = old.clone();
            let eol = index::edit::line_ending(&old);
            let mut added = Vec::new();
            for (local, path) in entries {
                let Ok(m) = scan::read_memory(path, &local) else {
                    out.push(self.skip("ML203", path, "cannot be read".into()));
                    continue;
                };
                let title = match &m.fields.name {
                    Some(Value::String(s)) => s.clone(),
                    _ => m.stem().to_string(),
                };
                let Some(Value::String(hook)) = &m.fields.description else {
                    out.push(self.skip("ML203", path, "no string description to use as the hook".into()));
                    continue;
                };
                let (line, _) = index::render_entry(title.trim(), &local, hook.trim());
                let candidate = index::edit::append_line(&new, &line, eol);
                let loaded = load::load(&candidate);
                let last_line = index::lines(&candidate)
                    .iter()
                    .rposition(|l| !l.trim().is_empty())
                    .map_or(0, |i| i + 1);
                if loaded.dropped.iter().any(|d| d.line == last_line) {
                    out.push(self.skip(
                        "ML203",
                        path,
                        "the new index line would fall past Claude Code's truncation cut".into(),
                    ));
                    continue;
                }
                new = candidate;
                added.push(path.to_path_buf());
            }
            if !added.is_empty() {
                let mut fix = self.write("ML203", &index_path, &old, &new)?;
                fix.resolves = added;
                out.push(fix);
            }
        }
        Ok(out)
    }

    fn move_temp(&self, path: &Path) -> Result<Fix, Error> {
        let rel = rel_of(self.dir, path);
        if self.dry_run {
            let shown = format!("moved: {rel} -> .trash/{}/{rel}", self.now.format("%Y%m%dT%H%M%SZ"));
            return Ok(Fix {
                id: "ML132",
                rel,
                applied: false,
                diff: Some(shown),
                skipped: None,
                resolves: vec![path.to_path_buf()],
            });
        }
        let trash = store::trash_dir(self.dir, self.now)?;
        store::move_entry(self.dir, path, &trash.join(&rel))?;
        Ok(Fix {
            id: "ML132",
            rel,
            applied: true,
            diff: None,
            skipped: None,
            resolves: vec![path.to_path_buf()],
        })
    }
}

/// ML102: move the block to line 1; the lines before it follow the closing `---`.
pub fn move_block_to_top(text: &str) -> Option<String> {
    let lines = frontmatter::scan_lines(text);
    let fm = frontmatter::parse_lines(&lines);
    let (Some(open), Some(close)) = (fm.open_line, fm.close_line) else {
        return None;
    };
    if fm.status != Status::NotAtStart {
        return None;
    }
    let raw: Vec<&str> = text.split_inclusive('\n').collect();
    if raw.len() <= close {
        return None;
    }
    let mut block: Vec<String> = raw[open..=close].iter().map(|s| s.to_string()).collect();
    if let Some(last) = block.last_mut()
        && !last.ends_with('\n')
    {
        last.push('\n');
    }
    let mut out = block.concat();
    out.push_str(&raw[..open].concat());
    out.push_str(&raw[close + 1..].concat());
    let fixed = frontmatter::parse_lines(&frontmatter::scan_lines(&out));
    (fixed.status.has_fields() && fixed.map == fm.map).then_some(out)
}

/// ML111: the quote-retry rewrite on exactly the lines it changes, kept only when
/// the first parse of the result gives the fields the retry gave.
pub fn requote(text: &str) -> Option<String> {
    let lines = frontmatter::scan_lines(text);
    let fm = frontmatter::parse_lines(&lines);
    let (Some(0), Some(close)) = (fm.open_line, fm.close_line) else {
        return None;
    };
    if fm.status != Status::Retried || fm.limit_hit {
        return None;
    }
    let body = text.strip_prefix('\u{feff}');
    let bom = body.is_some();
    let raw: Vec<&str> = body.unwrap_or(text).split_inclusive('\n').collect();
    let mut out = String::from(if bom { "\u{feff}" } else { "" });
    for (i, r) in raw.iter().enumerate() {
        let content = r.strip_suffix('\n').unwrap_or(r);
        let (content, cr) = match content.strip_suffix('\r') {
            Some(c) => (c, "\r"),
            None => (content, ""),
        };
        let nl = if r.ends_with('\n') { "\n" } else { "" };
        match (i > 0 && i < close)
            .then(|| frontmatter::requote_line(content))
            .flatten()
        {
            Some(new) => out.push_str(&format!("{new}{cr}{nl}")),
            None => out.push_str(r),
        }
    }
    let fixed = frontmatter::parse_lines(&frontmatter::scan_lines(&out));
    (fixed.status == Status::Ok && Fields::from(&fixed) == Fields::from(&fm) && fixed.map == fm.map).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_moves_to_the_top() {
        let text = "<!-- banner -->\n---\ndescription: x\ntype: user\n---\nbody\n";
        assert_eq!(
            move_block_to_top(text).as_deref(),
            Some("---\ndescription: x\ntype: user\n---\n<!-- banner -->\nbody\n")
        );
    }

    #[test]
    fn requote_changes_only_the_bad_lines_and_keeps_crlf() {
        let text = "---\r\nname: Project Context: SS\r\ntype: project\r\n---\r\nbody\r\n";
        assert_eq!(
            requote(text).as_deref(),
            Some("---\r\nname: \"Project Context: SS\"\r\ntype: project\r\n---\r\nbody\r\n")
        );
        assert_eq!(requote("---\nname: ok\n---\n"), None);
    }
}
