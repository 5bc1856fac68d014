//! Applying `review` proposals (SPEC §12): a promotion appends the memory's rule
//! under `## From memory` in its CLAUDE file (or moves the memory into `team/`),
//! then forgets it; a removal forgets; a merge rewrites the kept memory with the
//! lines only the others hold and forgets them; an update (chosen on its own)
//! rewrites the older CLAUDE/AGENTS statement with the newer memory's, or forgets
//! the memory when it is the older side. Conflicts are never applied. Everything is planned (and refused) before anything is written; the
//! writes go through one [`Writer`], so one snapshot pair covers them and
//! `memctl undo` puts everything back, CLAUDE files included.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use serde::Serialize;

use crate::claude_md::{ClaudeText, Located, append_from_memory};
use crate::error::{Error, Kind};
use crate::memdir::MemoryDir;
use crate::memory::Memory;
use crate::ops::forget;
use crate::review::{Kind as ProposalKind, Layer, Proposal};
use crate::store::Writer;

/// One `--apply` item: `N`, or `N=claude|local|team` to pick the target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Choice {
    pub n: usize,
    pub layer: Option<Layer>,
}

/// Parse the `--apply` items (already split at commas; blanks ignored).
pub fn parse_choices(raw: &[String]) -> Result<Vec<Choice>, Error> {
    let mut out: Vec<Choice> = Vec::new();
    for item in raw.iter().map(|s| s.trim()).filter(|s| !s.is_empty()) {
        let (num, target) = match item.split_once(['=', ':']) {
            Some((n, t)) => (n.trim(), Some(t.trim())),
            None => (item, None),
        };
        let bad = || {
            Error::new(Kind::Usage, format!("not a proposal number: `{item}`")).hint(
                "pass numbers as printed, e.g. --apply 2,5, and pick a target as 3=claude, 3=agents, 3=local or 3=team",
            )
        };
        let n: usize = num.parse().map_err(|_| bad())?;
        if n == 0 {
            return Err(bad());
        }
        let layer = match target {
            None => None,
            Some(t) => Some(Layer::parse(t).ok_or_else(|| {
                Error::new(Kind::Usage, format!("unknown target `{t}` in `{item}`")).hint(
                    "the targets are claude (CLAUDE.md), agents (AGENTS.md), local (CLAUDE.local.md) and team (team/)",
                )
            })?),
        };
        if let Some(prev) = out.iter_mut().find(|c| c.n == n) {
            prev.layer = layer.or(prev.layer);
        } else {
            out.push(Choice { n, layer });
        }
    }
    Ok(out)
}

/// A proposal applied, in `review --apply --json`.
#[derive(Clone, Debug, Serialize)]
pub struct Applied {
    pub n: usize,
    pub kind: ProposalKind,
    /// Every file it changes: the CLAUDE files (relative to the project root), the
    /// memories and the indexes that lose or gain a line (relative to the memory dir).
    pub files_changed: Vec<String>,
}

/// A proposal chosen but not applied, and why.
#[derive(Clone, Debug, Serialize)]
pub struct Skipped {
    pub n: usize,
    pub kind: ProposalKind,
    pub reason: String,
}

/// A CLAUDE file's new bytes.
struct Outside {
    root: PathBuf,
    path: PathBuf,
    label: String,
    expected: Option<Vec<u8>>,
    /// The mtime of `expected` (ns), to put it back as it was.
    mtime_ns: i128,
    new: Vec<u8>,
}

/// A memory written: its path, bytes before (`None`: created), bytes after.
type MemoryWrite = (PathBuf, Option<Vec<u8>>, Vec<u8>);

/// What applying the chosen proposals does.
pub struct Plan {
    pub applied: Vec<Applied>,
    pub skipped: Vec<Skipped>,
    /// Per changed file: its label, text now and text after.
    pub diffs: Vec<(String, String, String)>,
    /// The memories forgotten (relative to the memory dir).
    pub forgotten: Vec<String>,
    outside: Vec<Outside>,
    /// Memories rewritten (merges) or created (moves into team/): path, bytes before
    /// (`None`: created), bytes after.
    memories: Vec<MemoryWrite>,
    pub forget: Option<forget::Plan>,
}

impl Plan {
    pub fn is_empty(&self) -> bool {
        self.applied.is_empty()
    }
}

/// What the plan reads besides the proposals.
pub struct Sources<'a> {
    pub memdir: &'a MemoryDir,
    pub located: &'a Located,
    pub claude_md: Option<&'a ClaudeText>,
    pub claude_local_md: Option<&'a ClaudeText>,
    pub agents_md: Option<&'a ClaudeText>,
    pub memories: &'a [Memory],
    /// Each memory's whole text, by relative path.
    pub texts: &'a HashMap<String, String>,
    pub team_dir: bool,
}

/// Plan the `choices` among `proposals`. A number that is not listed, or an
/// ambiguous promotion without a target, refuses the whole plan (`usage`);
/// updates, conflicts and proposals about a memory an earlier choice already
/// consumed are skipped.
pub fn plan(src: &Sources, proposals: &[Proposal], choices: &[Choice]) -> Result<Plan, Error> {
    let mut applied = Vec::new();
    let mut skipped = Vec::new();
    // The bullets per CLAUDE layer, and the memories consumed (by proposal number).
    let mut bullets: BTreeMap<Layer, Vec<String>> = BTreeMap::new();
    // The statements updates rewrite, per file: (line, old, new).
    let mut edits: BTreeMap<Layer, Vec<(usize, String, String)>> = BTreeMap::new();
    // An update is applied only on its own (SPEC §12): never in a list with other kinds.
    let only_updates = choices
        .iter()
        .all(|c| proposals.iter().any(|p| p.n == c.n && p.kind == ProposalKind::Update));
    let mut consumed: HashMap<String, usize> = HashMap::new();
    let mut forget_refs: Vec<String> = Vec::new();
    let mut memories = Vec::new();
    let mut diffs = Vec::new();
    for c in choices {
        let Some(p) = proposals.iter().find(|p| p.n == c.n) else {
            return Err(Error::new(Kind::Usage, format!("no proposal {}", c.n)).hint(format!(
                "the proposals are numbered 1 to {}; run `memctl review` to list them",
                proposals.len()
            )));
        };
        if !p.kind.applicable() {
            skipped.push(Skipped {
                n: p.n,
                kind: p.kind,
                reason: format!(
                    "{} proposals are never applied automatically; edit the files yourself",
                    p.kind.as_str()
                ),
            });
            continue;
        }
        if p.kind == ProposalKind::Update && !only_updates {
            skipped.push(Skipped {
                n: p.n,
                kind: p.kind,
                reason: format!(
                    "an update is applied only on its own, not with other kinds: pass --apply {}",
                    p.n
                ),
            });
            continue;
        }
        let involved: Vec<String> = match p.kind {
            ProposalKind::Merge => p.target.iter().chain(&p.detail.others).cloned().collect(),
            _ => vec![p.memory.clone()],
        };
        if let Some((m, by)) = involved.iter().find_map(|m| consumed.get(m).map(|by| (m, *by))) {
            skipped.push(Skipped {
                n: p.n,
                kind: p.kind,
                reason: format!("{m} is already changed by proposal {by}"),
            });
            continue;
        }
        let layer = match (p.kind, c.layer) {
            (ProposalKind::Promote | ProposalKind::Ambiguous, Some(l)) => Some(l),
            (ProposalKind::Promote, None) => p.detail.layer,
            (ProposalKind::Ambiguous, None) => {
                return Err(Error::new(
                    Kind::Usage,
                    format!("proposal {} ({}) has no default target", p.n, p.memory),
                )
                .hint(format!(
                    "pick one: --apply {}",
                    p.detail
                        .layers
                        .iter()
                        .map(|l| format!("{}={}", p.n, l.word()))
                        .collect::<Vec<_>>()
                        .join(", ")
                )));
            }
            (_, Some(_)) => {
                return Err(Error::new(
                    Kind::Usage,
                    format!("proposal {} is a {}: it takes no target", p.n, p.kind.as_str()),
                )
                .hint(format!("pass --apply {}", p.n)));
            }
            (_, None) => None,
        };
        if layer == Some(Layer::Team) && !src.team_dir {
            return Err(Error::new(Kind::Usage, "there is no team dir to promote to")
                .hint("pick claude or local as the target"));
        }
        let mut files = Vec::new();
        match (p.kind, layer) {
            (ProposalKind::Promote | ProposalKind::Ambiguous, Some(Layer::Team)) => {
                let Some(m) = src.memories.iter().find(|m| m.rel == p.memory) else {
                    continue;
                };
                let base = m.rel.rsplit('/').next().unwrap_or(&m.rel);
                let dest = src.memdir.team_dir().join(base);
                if std::fs::symlink_metadata(&dest).is_ok() {
                    skipped.push(Skipped {
                        n: p.n,
                        kind: p.kind,
                        reason: format!("team/{base} exists already"),
                    });
                    continue;
                }
                let text = src.texts.get(&m.rel).cloned().unwrap_or_default();
                diffs.push((format!("team/{base}"), String::new(), text.clone()));
                memories.push((dest, None, text.into_bytes()));
                let index = src.memdir.team_dir().join("MEMORY.md");
                // Read as every index memctl finds itself: a regular file only (a
                // FIFO would block), bounded; absent is an empty index.
                let old = match crate::index::read_index(&index) {
                    Ok(b) => Some(b),
                    Err(crate::fsread::ReadError::NotFound) => None,
                    Err(e) => {
                        return Err(Error::new(Kind::Io, format!("cannot read {}: {e}", index.display()))
                            .hint("team/MEMORY.md must be a regular file; fix or remove it, then apply again"));
                    }
                };
                let old_text = old
                    .as_deref()
                    .map(String::from_utf8_lossy)
                    .unwrap_or_default()
                    .into_owned();
                // The canonical line (SPEC §3.6), placed by type as `add` places it
                // (SPEC §10.2).
                let line = m.index_line(base);
                let ty = m.memory_type().map(|t| t.as_str());
                let new = crate::index::place::place(&old_text, line.trim_end_matches(" — "), ty, false).text;
                diffs.push(("team/MEMORY.md".into(), old_text, new.clone()));
                memories.push((index, old, new.into_bytes()));
                files.push(format!("team/{base}"));
                files.push("team/MEMORY.md".into());
            }
            (ProposalKind::Promote | ProposalKind::Ambiguous, Some(l)) => {
                bullets.entry(l).or_default().push(p.detail.bullet.clone());
                files.push(claude_file(src, l).display());
            }
            (ProposalKind::Update, _) => {
                let Some(u) = p.detail.update.as_ref().filter(|u| u.memory_newer) else {
                    // The memory is the older side: it is forgotten (below).
                    consumed.insert(p.memory.clone(), p.n);
                    forget_refs.push(p.memory.clone());
                    files.push(p.memory.clone());
                    applied.push(Applied {
                        n: p.n,
                        kind: p.kind,
                        files_changed: files,
                    });
                    continue;
                };
                let text = layer_text(src, u.layer);
                let fits = text.and_then(|t| crate::claude_md::replace_in_line(&t.bytes, u.line, &u.old, &u.new));
                if fits.is_none() {
                    skipped.push(Skipped {
                        n: p.n,
                        kind: p.kind,
                        reason: format!(
                            "{}:{} does not hold the statement on one line any more (wrapped or changed); edit it yourself",
                            claude_file(src, u.layer).display(),
                            u.line
                        ),
                    });
                    continue;
                }
                edits
                    .entry(u.layer)
                    .or_default()
                    .push((u.line, u.old.clone(), u.new.clone()));
                files.push(claude_file(src, u.layer).display());
                consumed.insert(p.memory.clone(), p.n);
                applied.push(Applied {
                    n: p.n,
                    kind: p.kind,
                    files_changed: files,
                });
                continue;
            }
            (ProposalKind::Merge, _) => {
                let keep = p.target.clone().unwrap_or_default();
                let old = src.texts.get(&keep).cloned().unwrap_or_default();
                let others: Vec<&str> = p
                    .detail
                    .others
                    .iter()
                    .filter_map(|o| src.texts.get(o).map(String::as_str))
                    .collect();
                let new = merged_text(&old, &others);
                if new != old {
                    diffs.push((keep.clone(), old.clone(), new.clone()));
                    let path = src.memdir.main().join(&keep);
                    memories.push((path, Some(old.into_bytes()), new.into_bytes()));
                    files.push(keep.clone());
                }
                consumed.insert(keep, p.n);
            }
            _ => {}
        }
        let gone: Vec<String> = match p.kind {
            ProposalKind::Merge => p.detail.others.clone(),
            _ => vec![p.memory.clone()],
        };
        for g in &gone {
            consumed.insert(g.clone(), p.n);
            forget_refs.push(g.clone());
            files.push(g.clone());
        }
        applied.push(Applied {
            n: p.n,
            kind: p.kind,
            files_changed: files,
        });
    }
    let mut outside = Vec::new();
    let layers: std::collections::BTreeSet<Layer> = bullets.keys().chain(edits.keys()).copied().collect();
    for layer in &layers {
        let file = claude_file(src, *layer);
        let text = layer_text(src, *layer);
        let expected = text.map(|t| t.bytes.clone());
        let mut edited = expected.clone();
        for (line, old, new) in edits.get(layer).map_or(&[][..], Vec::as_slice) {
            let cur = edited.as_deref().unwrap_or_default();
            edited = Some(crate::claude_md::replace_in_line(cur, *line, old, new).ok_or_else(|| {
                Error::new(
                    Kind::Usage,
                    format!("two updates rewrite the same line {line} of {}", file.display()),
                )
                .hint("apply them one at a time")
            })?);
        }
        let new = match bullets.get(layer) {
            Some(bs) => append_from_memory(edited.as_deref(), bs),
            None => edited.clone().unwrap_or_default(),
        };
        if Some(&new) == expected.as_ref() {
            // Every bullet is there already: the file is not changed.
            let label = file.display();
            for a in &mut applied {
                a.files_changed.retain(|f| *f != label);
            }
            continue;
        }
        diffs.insert(
            0,
            (
                file.display(),
                String::from_utf8_lossy(expected.as_deref().unwrap_or_default()).into_owned(),
                String::from_utf8_lossy(&new).into_owned(),
            ),
        );
        outside.push(Outside {
            root: file.root.clone(),
            path: file.path.clone(),
            label: file.display(),
            expected,
            mtime_ns: text.map_or(0, |t| t.mtime_ns),
            new,
        });
    }
    let forget = if forget_refs.is_empty() {
        None
    } else {
        let f = forget::plan(src.memdir, &forget_refs, false)?;
        diffs.extend(f.diffs.iter().cloned());
        // Each index a forgotten memory's line is removed from changes too (a
        // team memory's: the team index and the main one, SPEC §3.7).
        let index_of: HashMap<&str, Vec<String>> = f
            .removed
            .iter()
            .map(|(rel, lines)| {
                let mut labels: Vec<String> = lines.iter().map(|l| l.index.clone()).collect();
                labels.dedup();
                (rel.as_str(), labels)
            })
            .collect();
        for a in &mut applied {
            let indexes: Vec<String> = a
                .files_changed
                .iter()
                .filter_map(|m| index_of.get(m.as_str()))
                .flatten()
                .cloned()
                .collect();
            for i in indexes {
                if !a.files_changed.contains(&i) {
                    a.files_changed.push(i);
                }
            }
        }
        Some(f)
    };
    Ok(Plan {
        applied,
        skipped,
        diffs,
        forgotten: forget_refs,
        outside,
        memories,
        forget,
    })
}

/// The text of a layer's file as read (`None`: it does not exist).
fn layer_text<'a>(src: &'a Sources, l: Layer) -> Option<&'a ClaudeText> {
    match l {
        Layer::Claude => src.claude_md,
        Layer::Agents => src.agents_md,
        _ => src.claude_local_md,
    }
}

fn claude_file<'a>(src: &'a Sources, l: Layer) -> &'a crate::claude_md::ClaudeFile {
    match l {
        Layer::Claude => &src.located.claude_md,
        Layer::Agents => &src.located.agents_md,
        _ => &src.located.claude_local_md,
    }
}

/// The kept memory's text with the body lines only the others hold appended
/// (after a blank line, in the others' order); unchanged when they add nothing.
pub fn merged_text(keep: &str, others: &[&str]) -> String {
    let norm = |l: &str| l.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut have: std::collections::HashSet<String> = keep.lines().map(norm).collect();
    let mut add: Vec<String> = Vec::new();
    for o in others {
        let (_, body) = crate::frontmatter::parse_document(o);
        for l in body.lines() {
            let l = l.trim_end_matches('\r');
            let n = norm(l);
            if !n.is_empty() && have.insert(n) {
                add.push(l.to_string());
            }
        }
    }
    if add.is_empty() {
        return keep.to_string();
    }
    let eol = if keep.contains("\r\n") { "\r\n" } else { "\n" };
    let mut s = keep.trim_end().to_string();
    s.push_str(eol);
    s.push_str(eol);
    s.push_str(&add.join(eol));
    s.push_str(eol);
    s
}

/// Apply the plan: the CLAUDE files, the rewritten and created memories, then the
/// forgotten ones. A failure puts back what was written before it.
pub fn apply(plan: &Plan, w: &mut Writer) -> Result<Option<forget::Kept>, Error> {
    let mut outside_done: Vec<&Outside> = Vec::new();
    let mut memories_done: Vec<&MemoryWrite> = Vec::new();
    let result = (|| {
        for o in &plan.outside {
            w.replace_outside(&o.root, &o.path, o.expected.as_deref(), &o.new)
                .map_err(|e| {
                    if e.kind == Kind::Conflict {
                        let hint = format!("{} changed while review ran; run `memctl review` again", o.label);
                        e.hint(hint)
                    } else {
                        e
                    }
                })?;
            outside_done.push(o);
        }
        for m in &plan.memories {
            match &m.1 {
                Some(old) => w.replace_expecting(&m.0, old, &m.2)?,
                None => w.create(&m.0, &m.2)?,
            }
            memories_done.push(m);
        }
        match &plan.forget {
            Some(f) => forget::apply(f, w).map(|(kept, _)| Some(kept)),
            None => Ok(None),
        }
    })();
    if result.is_err() {
        for m in memories_done.iter().rev() {
            let _ = match &m.1 {
                Some(old) => w.replace(&m.0, old),
                None => w.remove(&m.0),
            };
        }
        for o in outside_done.iter().rev() {
            let _ = w.restore_outside(
                &o.root,
                &o.path,
                Some(&o.new),
                o.expected.as_deref().map(|b| (b, o.mtime_ns)),
            );
        }
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choices_parse_numbers_and_targets() {
        let raw: Vec<String> = ["2", " 5=local", "3:claude", "", "2"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let c = parse_choices(&raw).unwrap();
        assert_eq!(
            c,
            [
                Choice { n: 2, layer: None },
                Choice {
                    n: 5,
                    layer: Some(Layer::Local)
                },
                Choice {
                    n: 3,
                    layer: Some(Layer::Claude)
                },
            ]
        );
        for bad in ["0", "x", "2=nowhere", "-1"] {
            assert!(parse_choices(&[bad.to_string()]).is_err(), "{bad}");
        }
    }

    #[test]
    fn merged_text_adds_only_new_lines() {
        let keep = "---\nname: a\n---\n\nRun tests.\n";
        let other = "---\nname: b\n---\n\nRun tests.\nAlso lint.\n";
        assert_eq!(
            merged_text(keep, &[other]),
            "---\nname: a\n---\n\nRun tests.\n\nAlso lint.\n"
        );
        assert_eq!(merged_text(keep, &[keep]), keep);
    }
}
