//! `memctl dream --dry-run` (SPEC §3.11).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;
use chrono::{Duration, TimeZone, Utc};
use serde_json::{Value, json};

use crate::cli::DreamArgs;
use crate::context::Context;
use crate::dream::{self, GateInput, MIN_HOURS, MIN_SESSIONS};
use crate::error::{Error, Kind};
use crate::lint::{self, Finding, Input};
use crate::memory::MemoryType;
use crate::output::Output;
use crate::paths::{self, Resolution};
use crate::text::iso_ms;
use crate::{dates, index, lock, scan, sessions};

use super::truncate_check::{checked, truncation_json};

pub fn run(args: &DreamArgs, ctx: &Context, out: &mut Output) -> Result<ExitCode> {
    if !args.dry_run {
        return Err(Error::new(Kind::Unsupported, "memctl cannot consolidate memories: merging and rewriting them needs a model.")
            .hint("run `memctl dream --dry-run` for the plan, `memctl lint --fix` for the mechanical fixes, or let Claude Code's auto-dream run")
            .into());
    }
    let res = ctx.resolve_existing()?;
    if res.team {
        out.note("--team is ignored: auto-dream works on the main memory dir");
    }
    let now_ms = ctx.now_ms();
    let min_hours = args.min_hours.unwrap_or(MIN_HOURS);
    let min_sessions = args.min_sessions.map_or(MIN_SESSIONS, |n| n as usize);
    let info = lock::inspect(&res.main_dir, now_ms);
    if let Some(e) = &info.unreadable {
        out.warn(format!("{} exists but cannot be read ({e})", info.path.display()));
    }
    let since = info.mtime_ms.unwrap_or(0.0);
    let sessions = res
        .transcripts_dir
        .as_ref()
        .map(|d| sessions::list(Path::new(d), since, args.current_session.as_deref()));
    let g = dream::gates(&GateInput {
        memory_enabled: res.enabled.value,
        memory_lever: &res.enabled.lever,
        remote: paths::is_remote(&ctx.env),
        auto_dream: res.auto_dream.value,
        auto_dream_lever: &res.auto_dream.lever,
        lock: &info,
        sessions: sessions.as_deref(),
        min_hours,
        min_sessions,
        now_ms,
    });
    let plan = plan(&res, ctx, sessions.as_deref().unwrap_or_default(), &info, out);
    let lock_status = lock::status(info.clone(), now_ms, min_hours);
    if out.json {
        let sess: Vec<Value> = sessions.iter().flatten().map(|s| json!({"name": s.name, "id": s.id, "mtime": s.mtime_ms.map(|m| iso_ms(m as f64)), "counted": s.counted, "reason": s.reason})).collect();
        let doc = json!({
            "memory_dir": paths::with_sep(&res.main_dir),
            "transcripts_dir": res.transcripts_dir,
            "gates": g.gates,
            "verdict": g.verdict,
            "would_fire": g.would_fire,
            "log_line": g.log_line,
            "last_consolidated_at": info.mtime_ms.map(iso_ms),
            "hours_since": g.hours_since,
            "min_hours": min_hours,
            "min_sessions": min_sessions,
            "sessions": sess,
            "lock": lock_status,
            "plan": plan,
        });
        out.emit_json(doc)?;
    } else {
        out.print(&render(&res, &g, sessions.as_deref(), &plan))?;
    }
    Ok(ExitCode::SUCCESS)
}

fn item(f: &Finding, dir: &Path, extra: Value) -> Value {
    let file = f
        .path
        .as_ref()
        .map(|p| p.strip_prefix(dir).unwrap_or(p).to_string_lossy().into_owned());
    let mut v = json!({"file": file, "line": f.line, "message": f.message});
    if let (Value::Object(m), Value::Object(e)) = (&mut v, extra) {
        m.extend(e);
    }
    v
}

/// The four phases of the plan as one JSON value (text is rendered from it).
fn plan(
    res: &Resolution,
    ctx: &Context,
    sessions: &[sessions::Session],
    info: &lock::LockInfo,
    out: &mut Output,
) -> Value {
    let dir = &res.main_dir;
    let scan = scan::scan(dir);
    let index_text = std::fs::read(res.main_dir.join("MEMORY.md"))
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    let links = index::extract_links(&index_text);
    let mut targets: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for l in &links {
        if let Some(t) = l.memory_target() {
            let v = targets.entry(t.to_string()).or_default();
            if v.last() != Some(&l.line) {
                v.push(l.line);
            }
        }
    }
    // Phase 1.
    let count = |t: Option<MemoryType>| scan.memories.iter().filter(|m| m.memory_type() == t).count();
    let nested = scan
        .memories
        .iter()
        .filter(|m| m.memory_type().is_some() && m.claude_type().is_none())
        .count();
    let c = checked("MEMORY.md".into(), Some(dir.join("MEMORY.md")), &index_text);
    let newest = scan
        .memories
        .first()
        .map(|m| json!({"file": m.rel, "line": 1, "mtime": iso_ms(m.mtime_ms)}));
    let oldest = scan
        .memories
        .last()
        .map(|m| json!({"file": m.rel, "line": 1, "mtime": iso_ms(m.mtime_ms)}));
    let orient = json!({
        "topic_files": scan.memories.len(),
        "by_type": {"user": count(Some(MemoryType::User)), "feedback": count(Some(MemoryType::Feedback)), "project": count(Some(MemoryType::Project)), "reference": count(Some(MemoryType::Reference)), "untyped": count(None), "nested_only": nested},
        "index_lines": if index_text.is_empty() { 0 } else { index::lines(&index_text).len() },
        "index_links": links.iter().filter(|l| l.is_memory_link()).count(),
        "index_units": c.load.unit_count,
        "index_line_count": c.load.line_count,
        "newest": newest,
        "oldest": oldest,
        "last_consolidated_at": info.mtime_ms.map(iso_ms),
    });
    // Phase 2.
    let texts: Vec<(String, String, f64)> = scan
        .memories
        .iter()
        .filter_map(|m| {
            std::fs::read(&m.path)
                .ok()
                .map(|b| (m.rel.clone(), String::from_utf8_lossy(&b).into_owned(), m.mtime_ms))
        })
        .collect();
    let mut missing = Vec::new();
    match &res.project {
        Some(p) => {
            for (rel, text, _) in &texts {
                for (line, token, path) in dream::citations(text) {
                    let full = if path.starts_with('/') {
                        Path::new(&path).to_path_buf()
                    } else {
                        Path::new(&p.canonical_root).join(&path)
                    };
                    if std::fs::symlink_metadata(&full).is_err() {
                        missing.push(json!({"file": rel, "line": line, "citation": token, "path": path}));
                    }
                }
            }
        }
        None => out.note("missing-citation check skipped: no project (pass --project with --dir)"),
    }
    let counted: Vec<Value> = sessions
        .iter()
        .filter(|s| s.counted)
        .map(|s| json!({"id": s.id, "mtime": s.mtime_ms.map(|m| iso_ms(m as f64))}))
        .collect();
    let gather = json!({"transcripts_dir": res.transcripts_dir, "sessions": counted, "missing_citations": missing});
    // Phase 3.
    let mut relative = Vec::new();
    for (rel, text, mtime) in &texts {
        for d in dates::find(text) {
            let suggestion = d.offset_days.and_then(|off| {
                Utc.timestamp_millis_opt(*mtime as i64)
                    .single()
                    .map(|t| (t + Duration::days(off)).format("%Y-%m-%d").to_string())
            });
            relative
                .push(json!({"file": rel, "line": d.line, "col": d.col, "phrase": d.phrase, "suggestion": suggestion}));
        }
    }
    let clusters: Vec<Value> = dream::duplicate_clusters(&scan.memories, &targets)
        .into_iter()
        .map(|c| {
            let line = c.lines.first().copied().unwrap_or(1);
            let file = if c.reason == "index lines" {
                "MEMORY.md".to_string()
            } else {
                c.files[0].clone()
            };
            json!({"reason": c.reason, "files": c.files, "file": file, "line": line, "lines": c.lines})
        })
        .collect();
    let superseded: Vec<Value> = dream::superseded(&scan.memories)
        .into_iter()
        .map(|s| json!({"file": s.file, "line": s.line, "detail": s.detail}))
        .collect();
    let consolidate = json!({"relative_dates": relative, "duplicate_clusters": clusters, "superseded": superseded});
    // Phase 4.
    let main = Resolution {
        dir: res.main_dir.clone(),
        team: false,
        ..res.clone()
    };
    let report = lint::lint(&Input {
        dir,
        res: &main,
        now_ms: ctx.now_ms(),
        warn_at: 90.0,
    });
    let pick = |ids: &[&str]| -> Vec<Value> {
        report
            .findings
            .iter()
            .filter(|f| ids.contains(&f.id))
            .map(|f| item(f, dir, json!({"severity": f.severity})))
            .collect()
    };
    let prune = json!({
        "dangling": pick(&["ML201"]),
        "unindexed": pick(&["ML203"]),
        "long_lines": pick(&["ML204"]),
        "caps": truncation_json(&c, Some(90.0)),
        "near_caps": pick(&["ML207"]),
        "duplicate_targets": pick(&["ML209"]),
    });
    json!({"orient": orient, "gather": gather, "consolidate": consolidate, "prune_and_index": prune})
}

fn render(res: &Resolution, g: &dream::Gates, sessions: Option<&[sessions::Session]>, plan: &Value) -> String {
    let mut s = format!("auto-dream for {}\ngates:\n", paths::with_sep(&res.main_dir));
    for gate in &g.gates {
        s.push_str(&format!("  {:<14} {:<8} {}\n", gate.gate, gate.status, gate.detail));
        if gate.gate == "sessions"
            && let Some(list) = sessions
        {
            for x in list {
                let m = x.mtime_ms.map_or_else(|| "-".to_string(), |m| iso_ms(m as f64));
                s.push_str(&format!("      {}  {m}  {}\n", x.name, x.reason.as_str()));
            }
        }
    }
    s.push_str(&format!("verdict: {}\n", g.verdict));
    if let Some(l) = &g.log_line {
        s.push_str(&format!("log: {l}\n"));
    }
    let o = &plan["orient"];
    let t = &o["by_type"];
    s.push_str("\nPhase 1 — Orient\n");
    s.push_str(&format!(
        "  {} topic files: {} user, {} feedback, {} project, {} reference, {} untyped ({} typed only under metadata:)\n",
        o["topic_files"], t["user"], t["feedback"], t["project"], t["reference"], t["untyped"], t["nested_only"]
    ));
    s.push_str(&format!(
        "  MEMORY.md: {} lines, {} memory links; {} / 200 lines and {} / 25 000 units as loaded\n",
        o["index_lines"],
        o["index_links"],
        o["index_line_count"],
        crate::text::group_digits(o["index_units"].as_i64().unwrap_or(0))
    ));
    if let (Some(n), Some(old)) = (o["newest"].as_object(), o["oldest"].as_object()) {
        s.push_str(&format!(
            "  newest: {} ({}); oldest: {} ({})\n",
            n["file"].as_str().unwrap_or(""),
            n["mtime"].as_str().unwrap_or(""),
            old["file"].as_str().unwrap_or(""),
            old["mtime"].as_str().unwrap_or("")
        ));
    }
    s.push_str(&format!(
        "  last consolidated: {}\n",
        o["last_consolidated_at"].as_str().unwrap_or("never")
    ));
    let gth = &plan["gather"];
    s.push_str("\nPhase 2 — Gather recent signal\n");
    let sess = gth["sessions"].as_array().map_or(&[][..], Vec::as_slice);
    s.push_str(&format!(
        "  sessions since the last consolidation ({}) in {}\n",
        sess.len(),
        gth["transcripts_dir"].as_str().unwrap_or("(no project)")
    ));
    for x in sess {
        s.push_str(&format!(
            "    - {}  {}\n",
            x["id"].as_str().unwrap_or(""),
            x["mtime"].as_str().unwrap_or("")
        ));
    }
    section(&mut s, "missing file citations", &gth["missing_citations"], |v| {
        format!(
            "{}:{}: `{}` does not exist",
            v["file"].as_str().unwrap_or(""),
            v["line"],
            v["path"].as_str().unwrap_or("")
        )
    });
    let c = &plan["consolidate"];
    s.push_str("\nPhase 3 — Consolidate\n");
    section(&mut s, "relative dates", &c["relative_dates"], |v| {
        let sug = v["suggestion"]
            .as_str()
            .map_or_else(|| "write the absolute date".to_string(), |d| format!("→ {d}"));
        format!(
            "{}:{}:{}: `{}` {sug}",
            v["file"].as_str().unwrap_or(""),
            v["line"],
            v["col"],
            v["phrase"].as_str().unwrap_or("")
        )
    });
    section(&mut s, "duplicate clusters", &c["duplicate_clusters"], |v| {
        let files: Vec<&str> = v["files"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let lines: Vec<String> = v["lines"]
            .as_array()
            .map(|a| a.iter().map(|x| x.to_string()).collect())
            .unwrap_or_default();
        if lines.is_empty() {
            format!("{}: {}", v["reason"].as_str().unwrap_or(""), files.join(", "))
        } else {
            format!(
                "{}: {} on MEMORY.md lines {}",
                v["reason"].as_str().unwrap_or(""),
                files.join(", "),
                lines.join(", ")
            )
        }
    });
    section(&mut s, "superseded", &c["superseded"], |v| {
        format!(
            "{}:{}: {}",
            v["file"].as_str().unwrap_or(""),
            v["line"],
            v["detail"].as_str().unwrap_or("")
        )
    });
    let p = &plan["prune_and_index"];
    s.push_str("\nPhase 4 — Prune and index\n");
    let f = |v: &Value| {
        format!(
            "{}:{}: {}",
            v["file"].as_str().unwrap_or("-"),
            v["line"],
            v["message"].as_str().unwrap_or("")
        )
    };
    section(&mut s, "dangling index lines", &p["dangling"], f);
    section(&mut s, "unindexed files", &p["unindexed"], f);
    section(&mut s, "long index lines", &p["long_lines"], f);
    let caps = &p["caps"];
    s.push_str(&format!(
        "  caps: {} / 200 lines, {} / 25 000 units{}\n",
        caps["line_count"],
        crate::text::group_digits(caps["byte_count"].as_i64().unwrap_or(0)),
        if caps["truncated"] == true {
            format!("; truncated, {} entries dropped", caps["dropped_entries_total"])
        } else {
            String::new()
        }
    ));
    section(&mut s, "near the caps", &p["near_caps"], f);
    section(&mut s, "duplicate targets", &p["duplicate_targets"], f);
    s
}

fn section(s: &mut String, title: &str, items: &Value, line: impl Fn(&Value) -> String) {
    let list = items.as_array().map_or(&[][..], Vec::as_slice);
    if list.is_empty() {
        s.push_str(&format!("  {title}: none\n"));
        return;
    }
    s.push_str(&format!("  {title} ({}):\n", list.len()));
    for v in list {
        s.push_str(&format!("    {}\n", line(v)));
    }
}
