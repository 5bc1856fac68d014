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
    // An update is applied only on its own (SPEC §12): never in a list with other kinds.
    let only_updates = choices
        .iter()
        .all(|c| proposals.iter().any(|p| p.n == c.n && p.kind == ProposalKind::Update));
    let mut st = Staged::default();
    for c in choices {
        let p = chosen(proposals, c.n)?;
        if let Some(reason) = refusal(p, only_updates, &st.consumed) {
            st.skip(p, reason);
            continue;
        }
        let layer = target(p, c.layer, src.team_dir)?;
        st.stage(src, p, layer)?;
    }
    let outside = claude_writes(src, &mut st)?;
    let forget = forget_step(src, &mut st)?;
    Ok(Plan {
        applied: st.applied,
        skipped: st.skipped,
        diffs: st.diffs,
        forgotten: st.forget_refs,
        outside,
        memories: st.memories,
        forget,
    })
}

/// What the chosen proposals add up to while they are planned.
#[derive(Default)]
struct Staged {
    applied: Vec<Applied>,
    skipped: Vec<Skipped>,
    /// The bullets per CLAUDE layer.
    bullets: BTreeMap<Layer, Vec<String>>,
    /// The statements updates rewrite, per file: (line, old, new).
    edits: BTreeMap<Layer, Vec<(usize, String, String)>>,
    /// The memories consumed, by proposal number.
    consumed: HashMap<String, usize>,
    forget_refs: Vec<String>,
    memories: Vec<MemoryWrite>,
    diffs: Vec<(String, String, String)>,
}

/// The proposal numbered `n`, or a `usage` error.
fn chosen(proposals: &[Proposal], n: usize) -> Result<&Proposal, Error> {
    proposals.iter().find(|p| p.n == n).ok_or_else(|| {
        Error::new(Kind::Usage, format!("no proposal {n}")).hint(format!(
            "the proposals are numbered 1 to {}; run `memctl review` to list them",
            proposals.len()
        ))
    })
}

/// Why a chosen proposal is skipped: a conflict, an update among other kinds, or
/// a memory an earlier choice already changes.
fn refusal(p: &Proposal, only_updates: bool, consumed: &HashMap<String, usize>) -> Option<String> {
    if !p.kind.applicable() {
        return Some(format!(
            "{} proposals are never applied automatically; edit the files yourself",
            p.kind.as_str()
        ));
    }
    if p.kind == ProposalKind::Update && !only_updates {
        return Some(format!(
            "an update is applied only on its own, not with other kinds: pass --apply {}",
            p.n
        ));
    }
    let involved: Vec<&String> = match p.kind {
        ProposalKind::Merge => p.target.iter().chain(&p.detail.others).collect(),
        _ => vec![&p.memory],
    };
    involved.into_iter().find_map(|m| {
        consumed
            .get(m)
            .map(|by| format!("{m} is already changed by proposal {by}"))
    })
}

/// The layer a promotion goes to (the one picked, else its default); a `usage`
/// error for an ambiguous promotion without a pick, a pick on another kind, or
/// `team` without a team dir.
fn target(p: &Proposal, pick: Option<Layer>, team_dir: bool) -> Result<Option<Layer>, Error> {
    let layer = match (p.kind, pick) {
        (ProposalKind::Promote | ProposalKind::Ambiguous, Some(l)) => Some(l),
        (ProposalKind::Promote, None) => p.detail.layer,
        (ProposalKind::Ambiguous, None) => {
            return Err(Error::new(
                Kind::Usage,
                format!("proposal {} ({}) has no default target", p.n, p.memory),
            )
            .hint(format!("pick one: --apply {}", p.layer_picks().join(", "))));
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
    if layer == Some(Layer::Team) && !team_dir {
        return Err(
            Error::new(Kind::Usage, "there is no team dir to promote to").hint("pick claude or local as the target")
        );
    }
    Ok(layer)
}

impl Staged {
    fn skip(&mut self, p: &Proposal, reason: String) {
        self.skipped.push(Skipped {
            n: p.n,
            kind: p.kind,
            reason,
        });
    }

    fn record(&mut self, p: &Proposal, files: Vec<String>) {
        self.applied.push(Applied {
            n: p.n,
            kind: p.kind,
            files_changed: files,
        });
    }

    /// Stage one proposal's changes: a promotion's bullet or move into `team/`,
    /// an update's rewrite, a merge's kept memory; then the memories it forgets.
    fn stage(&mut self, src: &Sources, p: &Proposal, layer: Option<Layer>) -> Result<(), Error> {
        let files = match (p.kind, layer) {
            (ProposalKind::Promote | ProposalKind::Ambiguous, Some(Layer::Team)) => self.move_to_team(src, p)?,
            (ProposalKind::Promote | ProposalKind::Ambiguous, Some(l)) => {
                self.bullets.entry(l).or_default().push(p.detail.bullet());
                Some(vec![claude_file(src, l).display()])
            }
            (ProposalKind::Update, _) => {
                self.update(src, p);
                None
            }
            (ProposalKind::Merge, _) => Some(self.merge(src, p)),
            _ => Some(Vec::new()),
        };
        if let Some(mut files) = files {
            let gone: Vec<String> = match p.kind {
                ProposalKind::Merge => p.detail.others.clone(),
                _ => vec![p.memory.clone()],
            };
            for g in &gone {
                self.consumed.insert(g.clone(), p.n);
                self.forget_refs.push(g.clone());
                files.push(g.clone());
            }
            self.record(p, files);
        }
        Ok(())
    }

    /// A move into `team/`: the memory created there and its line placed in the
    /// team index; `None` (nothing applied) when the memory is not found or a
    /// team memory of its name exists.
    fn move_to_team(&mut self, src: &Sources, p: &Proposal) -> Result<Option<Vec<String>>, Error> {
        let Some(m) = src.memories.iter().find(|m| m.rel == p.memory) else {
            return Ok(None);
        };
        let base = m.rel.rsplit('/').next().unwrap_or(&m.rel);
        let dest = src.memdir.team_dir().join(base);
        if std::fs::symlink_metadata(&dest).is_ok() {
            self.skip(p, format!("team/{base} exists already"));
            return Ok(None);
        }
        let text = src.texts.get(&m.rel).cloned().unwrap_or_default();
        self.diffs.push((format!("team/{base}"), String::new(), text.clone()));
        self.memories.push((dest, None, text.into_bytes()));
        let index = src.memdir.team_dir().join("MEMORY.md");
        let old = read_team_index(&index)?;
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
        self.diffs.push(("team/MEMORY.md".into(), old_text, new.clone()));
        self.memories.push((index, old, new.into_bytes()));
        Ok(Some(vec![format!("team/{base}"), "team/MEMORY.md".into()]))
    }

    /// An update: the older CLAUDE/AGENTS statement rewritten with the newer
    /// memory's (skipped when its line no longer holds it), or the older memory
    /// forgotten.
    fn update(&mut self, src: &Sources, p: &Proposal) {
        let Some(u) = p.detail.update.as_ref().filter(|u| u.memory_newer) else {
            // The memory is the older side: it is forgotten.
            self.consumed.insert(p.memory.clone(), p.n);
            self.forget_refs.push(p.memory.clone());
            self.record(p, vec![p.memory.clone()]);
            return;
        };
        let text = layer_text(src, u.layer);
        let fits = text.and_then(|t| crate::claude_md::replace_in_line(&t.bytes, u.line, &u.old, &u.new));
        let file = claude_file(src, u.layer).display();
        if fits.is_none() {
            self.skip(
                p,
                format!(
                    "{file}:{} does not hold the statement on one line any more (wrapped or changed); edit it yourself",
                    u.line
                ),
            );
            return;
        }
        self.edits
            .entry(u.layer)
            .or_default()
            .push((u.line, u.old.clone(), u.new.clone()));
        self.consumed.insert(p.memory.clone(), p.n);
        self.record(p, vec![file]);
    }

    /// A merge: the kept memory rewritten with the lines only the others hold.
    fn merge(&mut self, src: &Sources, p: &Proposal) -> Vec<String> {
        let mut files = Vec::new();
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
            self.diffs.push((keep.clone(), old.clone(), new.clone()));
            let path = src.memdir.main().join(&keep);
            self.memories.push((path, Some(old.into_bytes()), new.into_bytes()));
            files.push(keep.clone());
        }
        self.consumed.insert(keep, p.n);
        files
    }
}

/// `team/MEMORY.md` read as every index memctl finds itself: a regular file only
/// (a FIFO would block), bounded; absent is an empty index (`None`).
fn read_team_index(index: &std::path::Path) -> Result<Option<Vec<u8>>, Error> {
    match crate::index::read_index(index) {
        Ok(b) => Ok(Some(b)),
        Err(crate::fsread::ReadError::NotFound) => Ok(None),
        Err(e) => Err(Error::new(Kind::Io, format!("cannot read {}: {e}", index.display()))
            .hint("team/MEMORY.md must be a regular file; fix or remove it, then apply again")),
    }
}

/// The CLAUDE/AGENTS files that change: per layer, the updates' rewrites then the
/// bullets appended; a file that would not change is dropped from what the
/// proposals change.
fn claude_writes(src: &Sources, st: &mut Staged) -> Result<Vec<Outside>, Error> {
    let mut outside = Vec::new();
    let layers: std::collections::BTreeSet<Layer> = st.bullets.keys().chain(st.edits.keys()).copied().collect();
    for layer in &layers {
        let file = claude_file(src, *layer);
        let text = layer_text(src, *layer);
        let expected = text.map(|t| t.bytes.clone());
        let edits = st.edits.get(layer).map_or(&[][..], Vec::as_slice);
        let new = layer_bytes(expected.as_ref(), edits, st.bullets.get(layer), &file.display())?;
        if Some(&new) == expected.as_ref() {
            // Every bullet is there already: the file is not changed.
            let label = file.display();
            for a in &mut st.applied {
                a.files_changed.retain(|f| *f != label);
            }
            continue;
        }
        st.diffs.insert(
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
    Ok(outside)
}

/// A CLAUDE/AGENTS file's new bytes: `expected` (`None`: absent) with `edits`
/// rewritten, then `bullets` appended under `## From memory`.
fn layer_bytes(
    expected: Option<&Vec<u8>>,
    edits: &[(usize, String, String)],
    bullets: Option<&Vec<String>>,
    label: &str,
) -> Result<Vec<u8>, Error> {
    let mut edited = expected.cloned();
    for (line, old, new) in edits {
        let cur = edited.as_deref().unwrap_or_default();
        edited = Some(crate::claude_md::replace_in_line(cur, *line, old, new).ok_or_else(|| {
            Error::new(
                Kind::Usage,
                format!("two updates rewrite the same line {line} of {label}"),
            )
            .hint("apply them one at a time")
        })?);
    }
    Ok(match bullets {
        Some(bs) => append_from_memory(edited.as_deref(), bs),
        None => edited.unwrap_or_default(),
    })
}

/// The forget plan of every memory the proposals forget; each index a forgotten
/// memory's line is removed from changes too (a team memory's: the team index
/// and the main one, SPEC §3.7).
fn forget_step(src: &Sources, st: &mut Staged) -> Result<Option<forget::Plan>, Error> {
    if st.forget_refs.is_empty() {
        return Ok(None);
    }
    let f = forget::plan(src.memdir, &st.forget_refs, false)?;
    st.diffs.extend(f.diffs.iter().cloned());
    let index_of: HashMap<&str, Vec<String>> = f
        .removed
        .iter()
        .map(|(rel, lines)| {
            let mut labels: Vec<String> = lines.iter().map(|l| l.index.clone()).collect();
            labels.dedup();
            (rel.as_str(), labels)
        })
        .collect();
    for a in &mut st.applied {
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
    Ok(Some(f))
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

    fn proposal(n: usize, kind: ProposalKind, memory: &str) -> Proposal {
        Proposal {
            n,
            kind,
            memory: memory.into(),
            target: None,
            evidence: Vec::new(),
            score: None,
            reason: String::new(),
            action: String::new(),
            detail: crate::review::Detail {
                layer: Some(Layer::Claude),
                layers: vec![Layer::Claude, Layer::Local],
                ..Default::default()
            },
        }
    }

    #[test]
    fn refusals_of_conflicts_mixed_updates_and_consumed_memories() {
        let none = HashMap::new();
        let conflict = proposal(1, ProposalKind::Conflict, "a.md");
        assert!(refusal(&conflict, false, &none).unwrap().contains("never applied"));
        let update = proposal(2, ProposalKind::Update, "a.md");
        assert!(refusal(&update, true, &none).is_none());
        assert!(refusal(&update, false, &none).unwrap().contains("--apply 2"));
        let mut merge = proposal(3, ProposalKind::Merge, "b.md");
        merge.target = Some("a.md".into());
        merge.detail.others = vec!["b.md".into()];
        let consumed: HashMap<String, usize> = [("b.md".to_string(), 1)].into();
        assert_eq!(
            refusal(&merge, false, &consumed).as_deref(),
            Some("b.md is already changed by proposal 1")
        );
        assert!(refusal(&proposal(4, ProposalKind::Promote, "c.md"), false, &consumed).is_none());
    }

    #[test]
    fn targets_default_picked_or_refused() {
        let promote = proposal(1, ProposalKind::Promote, "a.md");
        assert_eq!(target(&promote, None, false).unwrap(), Some(Layer::Claude));
        assert_eq!(target(&promote, Some(Layer::Local), false).unwrap(), Some(Layer::Local));
        assert!(target(&promote, Some(Layer::Team), false).is_err());
        assert_eq!(target(&promote, Some(Layer::Team), true).unwrap(), Some(Layer::Team));
        let ambiguous = proposal(2, ProposalKind::Ambiguous, "a.md");
        let e = target(&ambiguous, None, false).unwrap_err();
        assert!(e.to_string().contains("no default target"), "{e}");
        assert!(target(&proposal(3, ProposalKind::Remove, "a.md"), Some(Layer::Claude), false).is_err());
        assert_eq!(
            target(&proposal(3, ProposalKind::Remove, "a.md"), None, false).unwrap(),
            None
        );
    }

    #[test]
    fn layer_bytes_rewrites_then_appends() {
        let old = b"# Rules\n- use npm test\n".to_vec();
        let edits = [(2, "use npm test".to_string(), "use bun test".to_string())];
        let new = layer_bytes(Some(&old), &edits, None, "CLAUDE.md").unwrap();
        assert_eq!(new, b"# Rules\n- use bun test\n");
        let twice = [edits[0].clone(), edits[0].clone()];
        assert!(layer_bytes(Some(&old), &twice, None, "CLAUDE.md").is_err());
        let bullets = vec!["- run the linter".to_string()];
        let added = String::from_utf8(layer_bytes(None, &[], Some(&bullets), "CLAUDE.md").unwrap()).unwrap();
        assert!(
            added.contains("## From memory") && added.contains("run the linter"),
            "{added}"
        );
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
