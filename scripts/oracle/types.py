#!/usr/bin/env python3
"""types: how Claude Code reads memory files' types and descriptions, and which
files its scan skips (SPEC §2.4.1, §2.4.2, §2.5, §2.6, §2.4.6, §2.7.4).

Writes $CC_ORACLE_OUT/types.jsonl, one row per case. Each row holds the input
(the memory dir: files, contents, mtimes; the environment) and what the client
2.1.332 did with it, never memctl's output. `mode` says which client mode a row
models:

  store     CLAUDE_MEMORY_STORES set (recall mode): the client sends the manifest
            of the scan in its memory-selection request; observed.manifest is that
            text ("Available memories:" removed), or null when none was sent.
  backfill  default mode, no MEMORY.md: the client writes MEMORY.md itself from
            the topic files (§2.7.4); observed.memory_md is the file it wrote
            (null: none), which names the files it scanned and their descriptions.
  rewrite   default mode, a scripted Write of each file: observed.files holds each
            file as the client left it on disk (§2.4.6), with the session id as
            <sid> and the write time as <now>.

Run through scripts/cc-oracle (it sets CC_HARNESS, CC_VERSION, CC_ORACLE_OUT).
Deterministic: cases are fixed, mtimes set explicitly (BASE_MS minus whole hours).
"""
import json
import os
import re
import subprocess
import sys
import tempfile

HARNESS = os.environ.get("CC_HARNESS", "")
VERSION = os.environ.get("CC_VERSION", "2.1.332")
OUT = os.environ.get("CC_ORACLE_OUT", ".")
# 2026-03-10T12:00:00.000Z
BASE_MS = 1773144000000
STORE_USER = '[{"path":"/me","scope":"user"}]'
STORE_TEAM = '[{"path":"/me","scope":"user"},{"path":"/proj/acme","scope":"team"}]'


def f(path, content, hours=0):
    """One file of a case; its mtime is BASE_MS minus `hours` hours."""
    return {"path": path, "content": content, "mtime_ms": BASE_MS - hours * 3600000}


def fm(*lines, body=""):
    return "---\n" + "".join(l + "\n" for l in lines) + "---\n" + body


FILLER = ["# filler %02d" % i for i in range(40)]

STORE = [
    ("flat-type", [f("a.md", fm("name: a", "description: flat", "type: user"))]),
    ("nested-type", [f("a.md", fm("name: a", "description: nested", "metadata:", "  type: project"))]),
    ("nested-type-metadata-trailing-space",
     [f("a.md", fm("description: trailing space", "metadata: ", "  node_type: memory", "  type: feedback"))]),
    ("both-agree", [f("a.md", fm("description: both", "type: user", "metadata:", "  type: user"))]),
    ("both-differ", [f("a.md", fm("description: differ", "type: user", "metadata:", "  type: project"))]),
    ("nested-null-masks-flat", [f("a.md", fm("description: null nested", "type: user", "metadata:", "  type:"))]),
    ("nested-invalid-masks-flat", [f("a.md", fm("description: invalid nested", "type: user", "metadata:", "  type: User"))]),
    ("nested-number-masks-flat", [f("a.md", fm("description: number nested", "type: user", "metadata:", "  type: 3"))]),
    ("metadata-not-mapping", [f("a.md", fm("description: scalar metadata", "type: user", "metadata: notamap"))]),
    ("metadata-list", [f("a.md", fm("description: list metadata", "type: reference", "metadata: []"))]),
    ("flat-invalid", [f("a.md", fm("description: preference", "type: preference"))]),
    ("flat-case", [f("a.md", fm("description: upper", "type: User"))]),
    ("flat-null-nested-valid", [f("a.md", fm("description: flat null", "type:", "metadata:", "  type: reference"))]),
    ("desc-number", [f("a.md", fm("description: 42", "type: user"))]),
    ("desc-float", [f("a.md", fm("description: 1.50", "type: user"))]),
    ("desc-zero", [f("a.md", fm("description: 0", "type: user"))]),
    ("desc-list", [f("a.md", fm("description: [a, b]", "type: user"))]),
    ("desc-true", [f("a.md", fm("description: true", "type: user"))]),
    ("desc-map", [f("a.md", fm("description: {k: v}", "type: user"))]),
    ("desc-empty", [f("a.md", fm('description: ""', "type: user"))]),
    ("desc-null", [f("a.md", fm("description:", "type: user"))]),
    ("desc-number-body-fallback",
     [f("a.md", fm("description: 42", "type: user", body="\n## Heading line\nmore\n"))]),
    ("no-frontmatter-body-fallback", [f("a.md", "\n\njust a body, no frontmatter\n")]),
    ("desc-literal-block", [f("a.md", fm("description: |", "  line one", "  line two", "type: user"))]),
    ("desc-folded-block", [f("a.md", fm("description: >", "  folded one", "  two", "type: project"))]),
    ("desc-comment", [f("a.md", fm("description: use C# #tags", "type: user"))]),
    ("dashes-in-value", [f("a.md", "---\ndescription: a---b\ntype: user\n---\nbody\n")]),
    ("indented-dashes", [f("a.md", "---\ndescription: x\n  ---\ntype: user\n---\nbody\n")]),
    ("four-dash-close", [f("a.md", "---\ndescription: x\ntype: user\n----\nbody\n")]),
    ("close-with-trailing-text", [f("a.md", "---\ndescription: x\ntype: user\n--- trailing\nbody\n")]),
    ("four-dash-open", [f("a.md", "----\ndescription: x\ntype: user\n----\nbody\n")]),
    ("blank-lines-after-open", [f("a.md", "---\n\n\ndescription: blanks\ntype: user\n---\nbody\n")]),
    ("bom", [f("a.md", "\ufeff---\ndescription: bom\ntype: user\n---\nbody\n")]),
    ("crlf", [f("a.md", "---\r\ndescription: crlf\r\nmetadata:\r\n  type: reference\r\n---\r\nbody\r\n")]),
    ("head-close-on-line-30",
     [f("a.md", "---\ndescription: just fits\ntype: user\n" + "\n".join(FILLER[:26]) + "\n---\nbody\n")]),
    ("head-close-on-line-31",
     [f("a.md", "---\ndescription: too late\ntype: user\n" + "\n".join(FILLER[:27]) + "\n---\nbody\n")]),
    ("head-64k-inside",
     [f("a.md", "---\n# " + "x" * 60000 + "\ndescription: under 64k\ntype: user\n---\nbody\n")]),
    ("head-64k-beyond",
     [f("a.md", "---\ndescription: over 64k\n# " + "x" * 70000 + "\ntype: user\n---\nbody\n")]),
    ("head-64k-first-line",
     [f("a.md", "---\ntype: user\ndescription: d\n---\n" + "y" * 70000 + "\n")]),
    ("order-by-mtime", [
        f("b.md", fm("description: newer", "type: user"), 1),
        f("a.md", fm("description: older", "type: user"), 2),
        f("c.md", fm("description: newest"), 0),
    ]),
    ("excluded-dot-paths", [
        f(".hidden/x.md", fm("description: hidden dir", "type: user"), 1),
        f(".dot.md", fm("description: dot file", "type: user"), 2),
        f("sub/.x/y.md", fm("description: dot below", "type: user"), 3),
        f("keep.md", fm("description: kept", "type: user"), 4),
    ]),
    ("excluded-logs-sessions-proposals", [
        f("logs/x.md", fm("description: logs", "type: user"), 1),
        f("Logs./x.md", fm("description: Logs dot", "type: user"), 2),
        f("sessions/s.md", fm("description: sessions", "type: user"), 3),
        f("proposals/p.md", fm("description: proposal", "type: skill-proposal"), 4),
        f("sub/logs/x.md", fm("description: logs below top", "type: user"), 5),
        f("LOGS /y.md", fm("description: upper logs space", "type: user"), 6),
        f("keep.md", fm("description: kept", "type: user"), 7),
    ]),
    ("excluded-team-dirs", [
        f("team/t.md", fm("description: team file", "type: user"), 1),
        f("team/.t.md", fm("description: team dot file", "type: user"), 2),
        f("team/sub/x.md", fm("description: team subdir", "type: user"), 3),
        f("sub/MEMORY.md", fm("description: nested index", "type: user"), 4),
        f("keep.md", fm("description: kept", "type: user"), 5),
    ]),
    ("excluded-suffix-case", [
        f("UPPER.MD", fm("description: upper", "type: user"), 1),
        f("notes.txt", fm("description: txt", "type: user"), 2),
        f("keep.md", fm("description: kept", "type: user"), 3),
    ]),
]

STORE_TEAM_CASES = [
    ("team-store-mounted", [
        f("team/acme/a.md", fm("description: in the store"), 1),
        f("team/other/o.md", fm("description: not a store"), 2),
        f("team/t.md", fm("description: team file", "type: user"), 3),
        f("keep.md", fm("description: kept", "type: user"), 4),
    ]),
]

BACKFILL = [
    ("backfill-exclusions", [
        f(".hidden/x.md", fm("name: h", "description: hidden dir", "type: user"), 1),
        f(".dot.md", fm("name: d", "description: dot file", "type: user"), 2),
        f("logs/x.md", fm("name: l", "description: logs", "type: user"), 3),
        f("Logs./y.md", fm("name: l2", "description: Logs dot", "type: user"), 4),
        f("sessions/s.md", fm("name: s", "description: sessions", "type: user"), 5),
        f("proposals/p.md", fm("name: p", "description: proposal", "type: skill-proposal"), 6),
        f("sub/logs/x.md", fm("name: sl", "description: logs below top", "type: user"), 7),
        f("team/t.md", fm("name: t", "description: team file", "type: user"), 8),
        f("team/sub/x.md", fm("name: ts", "description: team subdir", "type: user"), 9),
        f("deep/e.md", fm("name: e", "description: deep file", "type: user"), 10),
        f("keep.md", fm("name: k", "description: kept", "type: user"), 11),
    ]),
    ("backfill-descriptions", [
        f("num.md", fm("name: n", "description: 42", "type: user"), 1),
        f("list.md", fm("name: l", "description: [a, b]", "type: user"), 2),
        f("bool.md", fm("name: b", "description: true", "type: user"), 3),
        f("map.md", fm("name: m", "description: {k: v}", "type: user"), 4),
        f("empty.md", fm("name: e", 'description: ""', "type: user"), 5),
        f("block.md", fm("name: bl", "description: |", "  line one", "  line two", "type: user"), 6),
        f("dashes.md", "---\nname: d\ndescription: a---b\ntype: user\n---\nbody\n", 7),
        f("indent.md", "---\nname: i\ndescription: x\n  ---\ntype: user\n---\nbody\n", 8),
        f("crlf.md", "---\r\nname: c\r\ndescription: crlf desc\r\n---\r\nbody\r\n", 9),
        f("bom.md", "\ufeff---\nname: bo\ndescription: bom desc\n---\nbody\n", 10),
        f("nofm.md", "just a body\n", 11),
        f("late.md", "---\ndescription: too late\n" + "\n".join(FILLER[:28]) + "\n---\nbody\n", 12),
        f("comment.md", fm("name: cm", "description: use C# #tags"), 13),
        f("nested.md", fm("name: ne", "description: nested desc", "metadata:", "  type: project"), 14),
    ]),
]

REWRITE = [
    ("rewrite-flat-type", fm("name: Testing policy", "description: Integration tests hit a real DB", "type: feedback", body="\nBody line\n")),
    ("rewrite-both-differ", fm("name: b", "description: d", "type: user", "metadata:", "  type: project", body="Body\n")),
    ("rewrite-null-nested-masks", fm("name: n", "description: d", "type: user", "metadata:", "  type:", body="Body\n")),
    ("rewrite-invalid-nested-masks", fm("name: n", "description: d", "type: user", "metadata:", "  type: User", body="Body\n")),
    ("rewrite-metadata-not-mapping", fm("name: n", "description: d", "type: user", "metadata: notamap", body="Body\n")),
    ("rewrite-desc-number", fm("name: n", "description: 42", "type: project", body="Body\n")),
    ("rewrite-desc-list", fm("name: n", "description: [a, b]", "type: project", body="Body\n")),
    ("rewrite-desc-empty", fm("name: n", 'description: ""', "type: project", body="Body\n")),
    ("rewrite-name-unicode", fm("name: Über Café & Co.", "description: d", "type: user", body="Body\n")),
    ("rewrite-name-slug-kept", fm("name: my_slug-1", "description: d", "type: user", body="Body\n")),
    ("rewrite-name-number", fm("name: 42", "description: d", "type: user", body="Body\n")),
    ("rewrite-name-missing", fm("description: d", "type: reference", body="Body\n")),
]


def run(args, env_pairs=(), script=None, prompt="hello there", hold=0.0):
    cmd = [os.path.join(HARNESS, "cc-run")] + args + ["--prompt", prompt]
    for kv in env_pairs:
        cmd += ["--env", kv]
    if script:
        cmd += ["--script", script]
    if hold:
        cmd += ["--hold-main", str(hold)]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    try:
        return json.loads(p.stdout)
    except ValueError:
        sys.exit("types: cc-run printed no summary: " + p.stderr[-2000:])


def setup_dir(mem, files):
    for x in files:
        p = os.path.join(mem, x["path"])
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w", encoding="utf-8", newline="") as fh:
            fh.write(x["content"])
    # mtimes last, files then directories do not matter (only files are read)
    for x in files:
        s = x["mtime_ms"] / 1000.0
        os.utime(os.path.join(mem, x["path"]), (s, s))


def prepared(tmp, case):
    rd = os.path.join(tmp, case)
    mem = os.path.join(rd, "mem")
    os.makedirs(mem)
    settings = json.dumps({"autoMemoryDirectory": mem})
    return rd, mem, ["--run-dir", rd, "--user-settings", settings]


def store_row(tmp, case, files, stores):
    rd, mem, args = prepared(tmp, case)
    setup_dir(mem, files)
    s = run(args, ["CLAUDE_MEMORY_STORES=" + stores], hold=4)
    return {"case": case, "mode": "store", "claude_version": VERSION,
            "setup": {"env": {"CLAUDE_MEMORY_STORES": stores}, "files": files},
            "observed": {"manifest": s.get("manifest")}}


def backfill_row(tmp, case, files):
    rd, mem, args = prepared(tmp, case)
    setup_dir(mem, files)
    s = run(args)
    path = os.path.join(mem, "MEMORY.md")
    text = open(path, encoding="utf-8", newline="").read() if os.path.exists(path) else None
    injected = (s.get("memory_md") or {}).get("text")
    return {"case": case, "mode": "backfill", "claude_version": VERSION,
            "setup": {"env": {}, "files": files},
            "observed": {"memory_md": text, "injected": injected}}


def rewrite_rows(tmp):
    rd, mem, args = prepared(tmp, "rewrite")
    calls = [{"type": "tool_use", "id": "w%d" % i, "name": "Write",
              "input": {"file_path": "{{memdir}}%s.md" % case, "content": content}}
             for i, (case, content) in enumerate(REWRITE)]
    script = os.path.join(rd, "script.json")
    with open(script, "w") as fh:
        json.dump([calls, "Saved."], fh)
    s = run(args, script=script, prompt="save these")
    sid = s.get("session_id")
    rows = []
    for case, content in REWRITE:
        p = os.path.join(mem, case + ".md")
        text = open(p, encoding="utf-8", newline="").read() if os.path.exists(p) else None
        if text is not None:
            text = re.sub(r"(originSessionId: )[0-9a-f-]{36}", r"\1<sid>", text)
            text = re.sub(r"(modified: )\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", r"\1<now>", text)
        rows.append({"case": case, "mode": "rewrite", "claude_version": VERSION,
                     "setup": {"env": {}, "files": [{"path": case + ".md", "content": content}]},
                     "observed": {"files": {case + ".md": text}}})
    return rows


def main():
    only = sys.argv[1:]
    rows = []
    with tempfile.TemporaryDirectory(prefix="cc-types-") as tmp:
        for case, files in STORE:
            if not only or case in only:
                rows.append(store_row(tmp, case, files, STORE_USER))
                print(case, file=sys.stderr)
        for case, files in STORE_TEAM_CASES:
            if not only or case in only:
                rows.append(store_row(tmp, case, files, STORE_TEAM))
        for case, files in BACKFILL:
            if not only or case in only:
                rows.append(backfill_row(tmp, case, files))
                print(case, file=sys.stderr)
        if not only or "rewrite" in only:
            rows += rewrite_rows(tmp)
    out = os.path.join(OUT, "types.jsonl")
    with open(out, "w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n")
    print("types: %d rows -> %s" % (len(rows), out), file=sys.stderr)


if __name__ == "__main__":
    main()
