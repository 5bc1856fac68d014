//! Auto-dream insight (SPEC §2.11, §3.11): the gates in Claude Code's order and a
//! deterministic consolidation plan. Pure: the command gathers the facts (lock,
//! sessions, scan, texts) and passes `now`.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::lock::{self, LockInfo, PidStatus, State};
use crate::memory::Memory;
use crate::sessions::Session;
use crate::text::to_fixed1;
use crate::yaml::Value;

/// Claude Code's defaults.
pub const MIN_HOURS: f64 = 24.0;
pub const MIN_SESSIONS: usize = 5;

/// What the gates look at.
pub struct GateInput<'a> {
    pub memory_enabled: bool,
    pub memory_lever: &'a str,
    /// `CLAUDE_CODE_REMOTE` is truthy (a remote session).
    pub remote: bool,
    pub auto_dream: Option<bool>,
    pub auto_dream_lever: &'a str,
    pub lock: &'a LockInfo,
    /// `None` without a project (`--dir` without `--project`).
    pub sessions: Option<&'a [Session]>,
    pub min_hours: f64,
    pub min_sessions: usize,
    pub now_ms: f64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Gate {
    pub gate: &'static str,
    /// `pass`, `closed`, `unknown` or `n/a`.
    pub status: &'static str,
    pub detail: String,
}

/// The gates and their outcome.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Gates {
    pub gates: Vec<Gate>,
    pub verdict: String,
    pub would_fire: Option<bool>,
    pub log_line: Option<String>,
    pub hours_since: f64,
    pub sessions_counted: Option<usize>,
}

fn gate(gate: &'static str, status: &'static str, detail: impl Into<String>) -> Gate {
    Gate {
        gate,
        status,
        detail: detail.into(),
    }
}

/// Evaluate the five gates of SPEC §2.11 as memctl can see them.
pub fn gates(i: &GateInput) -> Gates {
    let enabled = if !i.memory_enabled {
        gate(
            "enabled",
            "closed",
            format!("auto memory is disabled ({})", i.memory_lever),
        )
    } else if i.remote {
        gate("enabled", "closed", "a remote session (CLAUDE_CODE_REMOTE)")
    } else {
        match i.auto_dream {
            Some(true) => gate("enabled", "pass", format!("auto memory on; {}", i.auto_dream_lever)),
            Some(false) => gate("enabled", "closed", format!("auto-dream off: {}", i.auto_dream_lever)),
            None => gate(
                "enabled",
                "unknown",
                "autoDreamEnabled is unset: Claude Code uses a server-side default",
            ),
        }
    };
    let h = lock::hours_since(i.lock, i.now_ms);
    let hs = to_fixed1(h);
    let min_h = crate::text::js_number(i.min_hours);
    let time = if h >= i.min_hours {
        gate(
            "time",
            "pass",
            format!("{hs} h since the last consolidation ≥ {min_h} h"),
        )
    } else {
        gate(
            "time",
            "closed",
            format!("{hs} h since the last consolidation < {min_h} h"),
        )
    };
    let throttle = gate(
        "scan throttle",
        "n/a",
        "per Claude Code process: at most one session scan every 10 minutes",
    );
    let counted = i.sessions.map(|s| s.iter().filter(|x| x.counted).count());
    let sessions = match counted {
        None => gate(
            "sessions",
            "unknown",
            "no project: pass --project to count its sessions",
        ),
        Some(n) if n >= i.min_sessions => gate(
            "sessions",
            "pass",
            format!("{n} sessions since the last consolidation ≥ {}", i.min_sessions),
        ),
        Some(n) => gate(
            "sessions",
            "closed",
            format!("{n} sessions since the last consolidation < {}", i.min_sessions),
        ),
    };
    let lock = if i.lock.unreadable.is_some() {
        gate(
            "lock",
            "unknown",
            "the lock file exists but cannot be read; Claude Code's acquire would fail",
        )
    } else if i.lock.state == State::Held {
        let ago = ((i.now_ms - i.lock.mtime_ms.unwrap_or(i.now_ms)) / 1000.0).round();
        gate(
            "lock",
            "closed",
            format!(
                "held by live PID {} ([autoDream] lock held by live PID {} (mtime {ago}s ago))",
                i.lock.pid.unwrap_or_default(),
                i.lock.pid.unwrap_or_default()
            ),
        )
    } else {
        let what = match i.lock.state {
            State::Absent => "acquire creates it".to_string(),
            _ => format!("acquire reclaims it ({})", i.lock.state.as_str()),
        };
        gate("lock", "pass", what)
    };
    let all = vec![enabled, time, throttle, sessions, lock];
    let n = counted.unwrap_or(0);
    let (verdict, would_fire, log_line) = if let Some(g) = all.iter().find(|g| g.status == "closed") {
        let log = if g.gate == "sessions" {
            format!(
                "[autoDream] skip — {n} sessions since last consolidation, need {}",
                i.min_sessions
            )
        } else {
            "silent".to_string()
        };
        (format!("closed at {}", g.gate), Some(false), Some(log))
    } else if let Some(g) = all.iter().find(|g| g.status == "unknown" && g.gate != "enabled") {
        (format!("unknown at {}", g.gate), None, None)
    } else {
        let firing = format!("[autoDream] firing — {hs}h since last, {n} sessions to review");
        if all[0].status == "unknown" {
            ("would fire if auto-dream is enabled".to_string(), None, Some(firing))
        } else {
            ("would fire".to_string(), Some(true), Some(firing))
        }
    };
    Gates {
        gates: all,
        verdict,
        would_fire,
        log_line,
        hours_since: h,
        sessions_counted: counted,
    }
}

/// Tokens for the Jaccard rule (SPEC §3.11): lower-cased runs of word chars; runs
/// without chars ≥ U+2E80 count from 3 chars; others give their char bigrams.
pub fn tokens(s: &str) -> BTreeSet<String> {
    let lower = s.to_lowercase();
    let is_word = |c: char| c.is_alphanumeric() || c == '_' || ('\u{300}'..='\u{36f}').contains(&c);
    let mut out = BTreeSet::new();
    for run in lower.split(|c: char| !is_word(c)).filter(|r| !r.is_empty()) {
        let chars: Vec<char> = run.chars().collect();
        if chars.iter().any(|c| *c >= '\u{2e80}') {
            if chars.len() == 1 {
                out.insert(run.to_string());
            } else {
                for w in chars.windows(2) {
                    out.insert(w.iter().collect());
                }
            }
        } else if chars.len() >= 3 {
            out.insert(run.to_string());
        }
    }
    out
}

/// |A ∩ B| / |A ∪ B| (0 for two empty sets).
pub fn jaccard(a: &BTreeSet<String>, b: &BTreeSet<String>) -> f64 {
    let union = a.union(b).count();
    if union == 0 {
        0.0
    } else {
        a.intersection(b).count() as f64 / union as f64
    }
}

/// A group of memories that may say the same thing.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Cluster {
    /// `index lines`, `same name`, `same description` or `similar (Jaccard 0.54)`.
    pub reason: String,
    pub files: Vec<String>,
    /// The index lines, for `index lines` clusters.
    pub lines: Vec<usize>,
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
}

/// Duplicate clusters: (a) index lines pointing to one file, (b) the same name or
/// description, (c) Jaccard similarity ≥ 0.5, grouped transitively.
pub fn duplicate_clusters(memories: &[Memory], index_targets: &BTreeMap<String, Vec<usize>>) -> Vec<Cluster> {
    let mut out: Vec<Cluster> = index_targets
        .iter()
        .filter(|(_, l)| l.len() > 1)
        .map(|(f, l)| Cluster {
            reason: "index lines".into(),
            files: vec![f.clone()],
            lines: l.clone(),
        })
        .collect();
    for (reason, key) in [("same name", 0), ("same description", 1)] {
        let mut groups: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for m in memories {
            let v = if key == 0 {
                m.name()
            } else {
                m.fields.description.as_ref().map(Value::js_string)
            };
            if let Some(v) = v.map(|v| collapse(&v)).filter(|v| !v.is_empty()) {
                groups.entry(v).or_default().push(m.rel.clone());
            }
        }
        out.extend(groups.into_values().filter(|g| g.len() > 1).map(|files| Cluster {
            reason: reason.into(),
            files,
            lines: vec![],
        }));
    }
    let toks: Vec<BTreeSet<String>> = memories
        .iter()
        .map(|m| {
            tokens(&format!(
                "{} {}",
                m.name().unwrap_or_default(),
                m.fields.description.as_ref().map(Value::js_string).unwrap_or_default()
            ))
        })
        .collect();
    let mut parent: Vec<usize> = (0..memories.len()).collect();
    fn find(p: &mut [usize], x: usize) -> usize {
        let mut r = x;
        while p[r] != r {
            r = p[r];
        }
        p[x] = r;
        r
    }
    for a in 0..memories.len() {
        for b in a + 1..memories.len() {
            if jaccard(&toks[a], &toks[b]) >= 0.5 {
                let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
                parent[ra.max(rb)] = ra.min(rb);
            }
        }
    }
    let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for i in 0..memories.len() {
        let r = find(&mut parent, i);
        groups.entry(r).or_default().push(i);
    }
    for members in groups.into_values().filter(|g| g.len() > 1) {
        let mut sim: f64 = 0.0;
        for (k, &a) in members.iter().enumerate() {
            for &b in &members[k + 1..] {
                sim = sim.max(jaccard(&toks[a], &toks[b]));
            }
        }
        let mut files: Vec<String> = members.iter().map(|&i| memories[i].rel.clone()).collect();
        files.sort();
        out.push(Cluster {
            reason: format!("similar (Jaccard {sim:.2})"),
            files,
            lines: vec![],
        });
    }
    out
}

/// A memory that says it is superseded, or supersedes another.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Superseded {
    pub file: String,
    pub line: usize,
    pub detail: String,
}

/// `supersedes:` pointing at a file, `status: superseded…`, or a description
/// starting with `SUPERSEDED`.
pub fn superseded(memories: &[Memory]) -> Vec<Superseded> {
    let mut out = Vec::new();
    for m in memories {
        let get = |k: &str| {
            m.frontmatter
                .get(k)
                .cloned()
                .or_else(|| m.frontmatter.get("metadata").and_then(|x| x.get(k)).cloned())
        };
        if let Some(v) = get("supersedes") {
            out.push(Superseded {
                file: m.rel.clone(),
                line: 1,
                detail: format!("supersedes {}", v.js_string()),
            });
        }
        if let Some(v) = get("status")
            .map(|v| v.js_string())
            .filter(|s| s.to_lowercase().starts_with("superseded"))
        {
            out.push(Superseded {
                file: m.rel.clone(),
                line: 1,
                detail: format!("status: {v}"),
            });
        }
        if let Some(d) = m
            .fields
            .description
            .as_ref()
            .map(Value::js_string)
            .filter(|d| d.starts_with("SUPERSEDED"))
        {
            out.push(Superseded {
                file: m.rel.clone(),
                line: 1,
                detail: format!("description: {}", crate::text::ellipsize(&d, 80)),
            });
        }
    }
    out
}

/// Project-file citations in a body: inline code spans and whitespace-delimited
/// tokens containing `/`, without a URI scheme, optionally ending in `:N` or
/// `:N-M`. Returns (1-based line, token as written, path part).
pub fn citations(text: &str) -> Vec<(usize, String, String)> {
    let mut out = Vec::new();
    let mut fence = false;
    for (li, line) in text.split('\n').enumerate() {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            fence = !fence;
            continue;
        }
        if fence {
            continue;
        }
        let mut cands: Vec<String> = Vec::new();
        let mut rest = line;
        while let Some(a) = rest.find('`') {
            match rest[a + 1..].find('`') {
                Some(b) => {
                    cands.push(rest[a + 1..a + 1 + b].to_string());
                    rest = &rest[a + 2 + b..];
                }
                None => break,
            }
        }
        cands.extend(line.split_whitespace().map(|w| {
            w.trim_start_matches(['(', '[', '<', '"', '\'', '`'])
                .trim_end_matches(['.', ',', ';', ':', ')', ']', '>', '"', '\'', '`'])
                .to_string()
        }));
        for c in cands {
            if !c.contains('/')
                || c.chars().any(char::is_whitespace)
                || c.contains("://")
                || c.starts_with("mailto:")
                || c.contains("](")
            {
                continue;
            }
            let path = strip_line_suffix(&c);
            if path.is_empty() || path.starts_with('~') || path == "/" {
                continue;
            }
            if !out
                .iter()
                .any(|(l, tok, _): &(usize, String, String)| *l == li + 1 && *tok == c)
            {
                out.push((li + 1, c.clone(), path.to_string()));
            }
        }
    }
    out
}

/// `path:N` or `path:N-M` → `path`.
fn strip_line_suffix(s: &str) -> &str {
    if let Some((p, n)) = s.rsplit_once(':') {
        let ok = n
            .split_once('-')
            .map_or(!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()), |(a, b)| {
                !a.is_empty() && !b.is_empty() && (a.bytes().chain(b.bytes())).all(|x| x.is_ascii_digit())
            });
        if ok {
            return p;
        }
    }
    s
}

/// Whether the lock says a consolidation may be running (for notes).
pub fn live_holder(l: &LockInfo) -> bool {
    l.state == State::Held && l.pid_status == PidStatus::Alive
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn lock_at(mtime: Option<f64>) -> LockInfo {
        LockInfo {
            path: PathBuf::from("/m/.consolidate-lock"),
            exists: mtime.is_some(),
            unreadable: None,
            body: mtime.map(|_| "999999999".into()),
            pid: None,
            pid_status: PidStatus::Dead,
            mtime_ms: mtime,
            state: if mtime.is_some() {
                State::Reclaimable
            } else {
                State::Absent
            },
        }
    }

    fn sess(n: usize) -> Vec<Session> {
        (0..n)
            .map(|i| Session {
                name: format!("{i}.jsonl"),
                id: None,
                mtime_ms: Some(0),
                counted: true,
                reason: crate::sessions::Reason::Counted,
            })
            .collect()
    }

    fn run(lock: &LockInfo, sessions: Option<&[Session]>, dream: Option<bool>, now: f64) -> Gates {
        gates(&GateInput {
            memory_enabled: true,
            memory_lever: "default",
            remote: false,
            auto_dream: dream,
            auto_dream_lever: "autoDreamEnabled=true in /s (user)",
            lock,
            sessions,
            min_hours: MIN_HOURS,
            min_sessions: MIN_SESSIONS,
            now_ms: now,
        })
    }

    const N: f64 = 1_773_144_000_000.0;
    const H: f64 = 3_600_000.0;

    #[test]
    fn walkthroughs_of_appendix_a11() {
        let g = run(&lock_at(Some(N - 23.0 * H)), Some(&sess(9)), Some(true), N);
        assert_eq!(
            (g.verdict.as_str(), g.log_line.as_deref()),
            ("closed at time", Some("silent"))
        );
        let g = run(&lock_at(Some(N - 25.0 * H)), Some(&sess(4)), Some(true), N);
        assert_eq!(g.verdict, "closed at sessions");
        assert_eq!(
            g.log_line.as_deref(),
            Some("[autoDream] skip — 4 sessions since last consolidation, need 5")
        );
        let g = run(&lock_at(Some(N - 25.0 * H)), Some(&sess(5)), Some(true), N);
        assert_eq!((g.verdict.as_str(), g.would_fire), ("would fire", Some(true)));
        assert_eq!(
            g.log_line.as_deref(),
            Some("[autoDream] firing — 25.0h since last, 5 sessions to review")
        );
        assert_eq!(g.gates[2].status, "n/a");
        let g = run(&lock_at(None), Some(&sess(3)), Some(true), N);
        assert_eq!(g.gates[1].status, "pass");
        assert!(g.hours_since > 4.9e5);
        assert_eq!(
            g.log_line.as_deref(),
            Some("[autoDream] skip — 3 sessions since last consolidation, need 5")
        );
        let g = run(&lock_at(Some(N - 25.0 * H)), Some(&sess(5)), None, N);
        assert_eq!(
            (g.verdict.as_str(), g.would_fire),
            ("would fire if auto-dream is enabled", None)
        );
        let g = run(&lock_at(Some(N - 25.0 * H)), None, Some(true), N);
        assert_eq!((g.verdict.as_str(), g.log_line.clone()), ("unknown at sessions", None));
    }

    #[test]
    fn a_held_lock_closes_the_last_gate() {
        let mut l = lock_at(Some(N - 25.0 * H));
        l.state = State::Held;
        l.pid = Some(42);
        let g = run(&l, Some(&sess(5)), Some(true), N);
        assert_eq!(g.verdict, "closed at lock");
        assert_eq!(g.log_line.as_deref(), Some("silent"));
    }

    #[test]
    fn tokenizer_and_similarity() {
        assert_eq!(
            tokens("The DB is a real DB!"),
            ["real", "the"].iter().map(|s| s.to_string()).collect()
        );
        assert_eq!(
            tokens("因子状态机"),
            ["因子", "子状", "状态", "态机"].iter().map(|s| s.to_string()).collect()
        );
        assert_eq!(tokens("机 x"), ["机"].iter().map(|s| s.to_string()).collect());
        let a = tokens("concurrent sessions write memory");
        let b = tokens("multi session writes memory");
        assert!((jaccard(&a, &b) - 1.0 / 7.0).abs() < 1e-9);
    }

    #[test]
    fn citation_tokens() {
        let c = citations(
            "See `src/main.rs:12` and (docs/guide.md). Not https://x.y/z or `plain`.\n```\nin/code.rs\n```\nlib/a.rs:3-9,",
        );
        let paths: Vec<&str> = c.iter().map(|x| x.2.as_str()).collect();
        assert_eq!(paths, vec!["src/main.rs", "docs/guide.md", "lib/a.rs"]);
        assert_eq!(c[2].0, 5);
    }
}
