#!/usr/bin/env python3
"""Record what the real Claude Code client does with `memctl mcp` (SPEC v3 §13), as
tests/golden/claude-code-<version>/mcp.jsonl.

Two print-mode runs of the client (cc-run), each in a fresh fake home whose project
has one memory (MEMORY.md + a topic file, fixed texts): one with the server added by
`claude mcp add --scope user memctl -- memctl mcp`, one with the plugin's
`plugins/memctl/.mcp.json` (`--plugin-dir plugins/memctl`). memctl is found on PATH
(the directory of MEMCTL_BIN goes first), as a user's install is. The scripted model
loads the tools with ToolSearch, then calls search, truncate_check and a show of a
missing memory.

Rows (memory dir paths written as `$MEMDIR/`):
  {"kind": "tools", "registration", "deferred": the memctl tool names the client
   lists for ToolSearch, "definitions": [{name, description, input_schema}] as the
   client sent them to the model after ToolSearch loaded them}
  {"kind": "call", "registration", "tool": the client's name, "input", "memory":
   {file: text}, "result": the tool_result content the model got in the next
   request, "is_error"}

Needs CC_HARNESS, CC_ORACLE_OUT (scripts/cc-oracle exports them) and MEMCTL_BIN
(default target/debug/memctl).
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

HARNESS = os.environ["CC_HARNESS"]
OUT = os.environ["CC_ORACLE_OUT"]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MEMCTL = os.path.abspath(os.environ.get("MEMCTL_BIN", os.path.join(ROOT, "target/debug/memctl")))
PLUGIN = os.path.join(ROOT, "plugins", "memctl")

MEMORY = {
    "MEMORY.md": "- [Deploy freeze](deploy_freeze.md) — no deploys on Fridays\n",
    "deploy_freeze.md": "---\nname: Deploy freeze\ndescription: no deploys on Fridays\ntype: feedback\n---\n"
                        "Never deploy on Friday. The freeze starts Thursday at 18:00 UTC.\n",
}
CALLS = [
    ("search", {"query": "deploy friday"}),
    ("truncate_check", {}),
    ("show", {"ref": "no-such-memory"}),
]
PREFIX = {"mcp add": "mcp__memctl__", "plugin": "mcp__plugin_memctl_memctl__"}


def cc_run(run_dir, env_path, *args):
    cmd = [os.path.join(HARNESS, "cc-run"), "--run-dir", run_dir, "--memctl", MEMCTL, *args]
    env = dict(os.environ, PATH=env_path)
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=240, env=env)
    text = out.stdout
    return json.loads(text[text.index("{"):])


def session(registration):
    run_dir = tempfile.mkdtemp(prefix="cc-mcp-")
    path = os.path.dirname(MEMCTL) + os.pathsep + os.environ.get("PATH", "")
    prep = cc_run(run_dir, path, "--prepare-only")
    env = json.load(open(prep["logs"]["env"], encoding="utf-8"))
    project = os.path.join(run_dir, "project")
    where = subprocess.run([MEMCTL, "path", "--json"], env=env, cwd=project,
                           capture_output=True, text=True, check=True)
    mem = json.loads(where.stdout)["memory_dir"]
    os.makedirs(mem, exist_ok=True)
    for name, text in MEMORY.items():
        with open(os.path.join(mem, name), "w", encoding="utf-8") as f:
            f.write(text)
    extra = []
    if registration == "mcp add":
        claude = subprocess.run([os.path.join(HARNESS, "fetch-claude")], capture_output=True,
                                text=True, check=True).stdout.strip()
        subprocess.run([claude, "mcp", "add", "--scope", "user", "memctl", "--", "memctl", "mcp"],
                       env=env, cwd=project, check=True, capture_output=True)
    else:
        extra = ["--", "--plugin-dir", PLUGIN]
    prefix = PREFIX[registration]
    script = [{"type": "tool_use", "name": "ToolSearch",
               "input": {"query": "select:" + ",".join(prefix + t for t, _ in CALLS)}}]
    script += [{"type": "tool_use", "name": prefix + t, "input": a} for t, a in CALLS]
    script.append("Done.")
    script_file = os.path.join(run_dir, "script.json")
    with open(script_file, "w", encoding="utf-8") as f:
        json.dump(script, f)
    s = cc_run(run_dir, path, "--project", project, "--script", script_file,
               "--prompt", "what do you remember about deploys?", *extra)
    reqs = [json.loads(line) for line in open(s["logs"]["api"], encoding="utf-8")]
    main = [r["body"] for r in reqs if isinstance(r["body"], dict) and r["body"].get("tools")]
    shown = lambda v: json.loads(json.dumps(v, ensure_ascii=False).replace(mem, "$MEMDIR/"))
    first = json.dumps(main[0], ensure_ascii=False)
    names = sorted({n for n in (prefix + t for t in ("search", "show", "list", "truncate_check", "lint"))
                    if n in first})
    loaded = [t for t in main[1]["tools"] if t["name"].startswith(prefix)]
    rows = [{
        "kind": "tools", "registration": registration, "claude_version": s["claude_version"],
        "deferred": names,
        "definitions": [{"name": t["name"], "description": t["description"],
                         "input_schema": t["input_schema"]} for t in loaded],
    }]
    for call, (tool, args) in zip(s["tool_calls"][1:], CALLS):
        rows.append({
            "kind": "call", "registration": registration, "claude_version": s["claude_version"],
            "tool": prefix + tool, "input": args, "memory": MEMORY,
            "result": shown(call["result"]), "is_error": call["is_error"],
        })
    shutil.rmtree(run_dir, ignore_errors=True)
    return rows


def main():
    rows = []
    for registration in ("mcp add", "plugin"):
        got = session(registration)
        print(f"{registration:<8} tools={len(got[0]['definitions'])} calls={len(got) - 1}", file=sys.stderr)
        rows += got
    dest = os.path.join(OUT, "mcp.jsonl")
    with open(dest, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n")
    print(dest)


if __name__ == "__main__":
    main()
