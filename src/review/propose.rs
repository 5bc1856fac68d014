//! SPEC §12's classification of one memory against the CLAUDE/AGENTS statements,
//! in order: an **update** when a statement pair contradicts, else a **remove**
//! when a statement is stated there, else a promotion ([`super::promote`]); and
//! the **conflicts** between private and team memories. Also the evidence lines
//! and the final numbering.

use std::collections::HashSet;

use crate::memory::{Memory, MemoryType};

use super::compare::{self, Found, Item, Postings, Unit};
use super::statement::{self, Interner, Stmt, Thresholds};
use super::{ClaudeFile, Detail, Evidence, Input, Kind, Proposal, UpdateDetail, tokens};

/// The CLAUDE/AGENTS statements as the memories meet them.
pub(super) struct Claude<'a> {
    pub files: &'a [ClaudeFile],
    pub units: &'a [Unit],
    pub stmts: Vec<&'a Stmt>,
    pub index: Postings,
}

impl<'a> Claude<'a> {
    pub fn new(files: &'a [ClaudeFile], units: &'a [Unit]) -> Claude<'a> {
        let stmts: Vec<&Stmt> = units.iter().map(|u| &u.stmt).collect();
        let index = Postings::new(&stmts);
        Claude {
            files,
            units,
            stmts,
            index,
        }
    }

    /// Statement `u` as evidence (its age is its file's).
    fn evidence(&self, u: usize, now_ms: f64) -> Evidence {
        let unit = &self.units[u];
        let c = &self.files[unit.file];
        Evidence {
            file: c.label.clone(),
            line: unit.line,
            text: unit.stmt.text.clone(),
            age_days: crate::age::age_days(now_ms, c.mtime_ms),
            mtime_ms: c.mtime_ms,
        }
    }
}

/// What classifying a memory reads besides the memory.
pub(super) struct Ctx<'a> {
    pub input: &'a Input<'a>,
    pub claude: &'a Claude<'a>,
    pub names: &'a Interner,
    /// Memories marked superseded (§3.11): not promoted, they are on their way out.
    pub stale: &'a HashSet<String>,
    /// Private memories in a conflict: not promoted.
    pub in_conflict: &'a HashSet<&'a str>,
}

/// The memory's proposal, the first of: update, remove, promotion (SPEC §12).
pub(super) fn classify(it: &Item, cx: &Ctx) -> Option<Proposal> {
    let found = compare::find(it, &cx.claude.stmts, &cx.claude.index, &cx.input.thresholds, cx.names);
    update(it, &found, cx).or_else(|| remove(it, &found, cx)).or_else(|| {
        promotable(it, cx)
            .then(|| super::promote::promotion(it, cx.input))
            .flatten()
    })
}

/// Memories marked superseded by a newer one (§3.11), by relative path.
pub(super) fn stale(memories: &[Memory]) -> HashSet<String> {
    crate::dream::superseded(memories)
        .into_iter()
        .filter(|s| !s.detail.starts_with("supersedes "))
        .map(|s| s.file)
        .collect()
}

/// Whether a memory may be promoted: private, not superseded, not in a conflict.
fn promotable(it: &Item, cx: &Ctx) -> bool {
    !it.team && !cx.stale.contains(it.memory.rel.as_str()) && !cx.in_conflict.contains(it.memory.rel.as_str())
}

/// An update: a memory statement contradicts a CLAUDE/AGENTS statement; the
/// newer side is proposed as the winner.
fn update(it: &Item, found: &Found, cx: &Ctx) -> Option<Proposal> {
    let (score, k, u, why) = found.contradiction.as_ref()?;
    let (score, k, u) = (*score, *k, *u);
    let ev = cx.claude.evidence(u, cx.input.now_ms);
    let unit = &cx.claude.units[u];
    let memory_newer = it.memory.mtime_ms > ev.mtime_ms;
    let reason = format!(
        "{} memory contradicts {}:{}: {why}; matched {}; containment {:.2} ≥ {:.2}; the {} is newer",
        type_word(it.memory),
        ev.file,
        ev.line,
        statement::shared_words(&it.statements[k], &unit.stmt, cx.names),
        score,
        cx.input.thresholds.related,
        if memory_newer { "memory" } else { "CLAUDE line" }
    );
    let (target, action) = update_action(it, &ev, memory_newer);
    Some(Proposal {
        n: 0,
        kind: Kind::Update,
        memory: it.memory.rel.clone(),
        target: Some(target),
        reason,
        action,
        evidence: vec![statement_evidence(it, k, cx.input.now_ms), ev],
        score: Some(tokens::round2(score)),
        detail: Detail {
            update: Some(UpdateDetail {
                memory_newer,
                layer: cx.claude.files[unit.file].layer,
                line: unit.line,
                old: unit.stmt.text.clone(),
                new: it.statement_text(k),
            }),
            ..Detail::default()
        },
    })
}

/// An update's target and action: the CLAUDE line replaced when the memory is
/// newer, else the memory forgotten (`N`: numbered once sorted).
fn update_action(it: &Item, ev: &Evidence, memory_newer: bool) -> (String, String) {
    if memory_newer {
        (
            ev.file.clone(),
            format!(
                "replace the statement at {}:{} with the newer memory's (apply it on its own: --apply N), or edit it yourself",
                ev.file, ev.line
            ),
        )
    } else {
        (
            it.memory.rel.clone(),
            format!(
                "forget {}: the newer {} says otherwise (apply it on its own: --apply N), or edit it yourself",
                it.memory.rel, ev.file
            ),
        )
    }
}

/// A removal: one of its statements is said by a CLAUDE/AGENTS statement (SPEC
/// §12), so promoting it would say it twice; the reason says how many of its
/// statements are stated.
fn remove(it: &Item, found: &Found, cx: &Ctx) -> Option<Proposal> {
    let (score, k, u) = found.same?;
    let ev = cx.claude.evidence(u, cx.input.now_ms);
    let n = it.statements.len();
    Some(Proposal {
        n: 0,
        kind: Kind::Remove,
        memory: it.memory.rel.clone(),
        target: None,
        reason: format!(
            "{} memory already stated in {}:{}: matched {}; containment {:.2} ≥ {:.2}; {} of its {} statement{} stated",
            type_word(it.memory),
            ev.file,
            ev.line,
            statement::shared_words(&it.statements[k], &cx.claude.units[u].stmt, cx.names),
            score,
            cx.input.thresholds.remove,
            found.covered,
            n,
            if n == 1 { "" } else { "s" }
        ),
        action: format!("forget {} (history keeps it)", it.memory.rel),
        evidence: vec![statement_evidence(it, k, cx.input.now_ms), ev],
        score: Some(tokens::round2(score)),
        detail: Detail::default(),
    })
}

/// Private memories against team memories: a private memory one of whose
/// statements contradicts a team memory's is a conflict (and is not promoted).
/// Returns the proposals and the private memories in a conflict.
pub(super) fn conflicts<'a>(
    items: &[Item<'a>],
    th: &Thresholds,
    names: &Interner,
    now_ms: f64,
) -> (Vec<Proposal>, HashSet<&'a str>) {
    let mut out = Vec::new();
    let mut involved = HashSet::new();
    let team: Vec<&Item> = items.iter().filter(|i| i.team).collect();
    if team.is_empty() {
        return (out, involved);
    }
    // Every team statement, with the team memory it belongs to.
    let (owner, stmts): (Vec<(usize, usize)>, Vec<&Stmt>) = team
        .iter()
        .enumerate()
        .flat_map(|(t, it)| it.statements.iter().enumerate().map(move |(k, s)| ((t, k), s)))
        .unzip();
    let index = Postings::new(&stmts);
    for it in items.iter().filter(|i| !i.team) {
        let found = compare::find(it, &stmts, &index, th, names);
        let Some((score, k, o, why)) = found.contradiction else {
            continue;
        };
        let (t, tk) = owner[o];
        let other = team[t];
        involved.insert(it.memory.rel.as_str());
        out.push(Proposal {
            n: 0,
            kind: Kind::Conflict,
            memory: it.memory.rel.clone(),
            target: None,
            reason: format!(
                "private {} memory contradicts team memory {}: {}; matched {}; containment {:.2} ≥ {:.2}",
                type_word(it.memory),
                other.memory.rel,
                why.replace("the other", "the team memory"),
                statement::shared_words(&it.statements[k], stmts[o], names),
                score,
                th.related
            ),
            action: format!(
                "decide which holds and edit or forget {} or {}; not applied automatically",
                it.memory.rel, other.memory.rel
            ),
            evidence: vec![statement_evidence(it, k, now_ms), statement_evidence(other, tk, now_ms)],
            score: Some(tokens::round2(score)),
            detail: Detail::default(),
        });
    }
    (out, involved)
}

/// `feedback`, `project`, … or `untyped`.
pub(super) fn type_word(m: &Memory) -> &'static str {
    m.memory_type().map_or("untyped", MemoryType::as_str)
}

/// The memory's rule line as evidence.
pub(super) fn memory_evidence(it: &Item, now_ms: f64) -> Evidence {
    rule_evidence(it.memory, it.rule.line, &it.rule.first_line, now_ms)
}

/// A memory's rule line as evidence: its first line, on line `line`.
pub(super) fn rule_evidence(memory: &Memory, line: usize, first_line: &str, now_ms: f64) -> Evidence {
    Evidence {
        file: memory.rel.clone(),
        line,
        text: first_line.to_string(),
        age_days: crate::age::age_days(now_ms, memory.mtime_ms),
        mtime_ms: memory.mtime_ms,
    }
}

/// A memory's statement `k` as evidence: its text, on the rule line it starts on.
fn statement_evidence(it: &Item, k: usize, now_ms: f64) -> Evidence {
    let text = it.statement_text(k);
    let probe: String = text.chars().take(24).collect();
    let offset = it
        .rule
        .paragraph
        .lines()
        .position(|l| l.contains(probe.as_str()))
        .unwrap_or(0);
    Evidence {
        line: it.rule.line + offset,
        text,
        ..memory_evidence(it, now_ms)
    }
}

/// Sort the proposals into their listed order and number them from 1; the
/// actions that name their own number get it.
pub(super) fn number(out: &mut [Proposal]) {
    out.sort_by(|a, b| {
        (
            a.kind,
            &a.memory,
            &a.target,
            a.evidence.first().map(|e| (&e.file, e.line)),
        )
            .cmp(&(
                b.kind,
                &b.memory,
                &b.target,
                b.evidence.first().map(|e| (&e.file, e.line)),
            ))
    });
    for (i, p) in out.iter_mut().enumerate() {
        p.n = i + 1;
        if p.kind == Kind::Ambiguous {
            p.action = super::promote::ambiguous_action(p);
        }
        if p.kind == Kind::Update {
            p.action = p.action.replace("--apply N", &format!("--apply {}", p.n));
        }
    }
}
