#!/usr/bin/env python3
"""plugin.py: record how Claude Code installs and runs memctl's plugin (SPEC v3 §13) -> plugin.jsonl.

Run through scripts/cc-oracle plugin (it sets CC_HARNESS, CC_VERSION, CC_ORACLE_OUT).
In a fake home (cc-run), the real client adds this checkout as a plugin marketplace
(`claude plugin marketplace add <repo>`) and installs `memctl@memctl`; then a scripted
session (print mode) saves a memory with the plugin's hooks on: a Write the gate
refuses, a Write with a relative date (PostToolUse context), the end of the turn
(Stop: the new file is not indexed). `memctl` is put on PATH through a logging
wrapper, so each hook call is logged with its event and exit status.

Rows (paths as $CONFIG = the client's config dir, $REPO = this checkout):
  {"case": "install", "commands", "observed": {"settings", "installed_plugins",
   "plugin_files"}}: the user settings file and the client's plugin records after the
   install, and the files of the installed copy.
  {"case": "session", "script", "observed": {"hook_calls", "hook_events",
   "session_start", "tool_calls", "stop_feedback"}}: which hooks the client ran, what
   memctl answered, and what the model received.
  {"case": "check-command", "prompt", "observed": {"rc", "command_text"}}: the
   model's view of /memctl:check (the command file with its `!` lines run).
usage: plugin.py [--keep]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HARNESS = os.environ.get("CC_HARNESS") or sys.exit("plugin.py: run it through scripts/cc-oracle")
OUT = os.environ.get("CC_ORACLE_OUT", ".")
VERSION = os.environ.get("CC_VERSION", "2.1.332")
CC_RUN = os.path.join(HARNESS, "cc-run")
REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MEMCTL = os.path.abspath(os.environ.get("MEMCTL_BIN") or os.path.join(REPO, "target", "debug", "memctl"))

WRAPPER = r'''#!{python} -S
import json, os, subprocess, sys
data = sys.stdin.buffer.read() if sys.argv[1:] == ["hook"] else b""
p = subprocess.run([{real!r}] + sys.argv[1:], input=data, capture_output=True)
try:
    info = json.loads(data or b"{{}}")
except ValueError:
    info = {{}}
out = p.stdout.decode("utf-8", "replace")
rec = {{"args": sys.argv[1:], "event": info.get("hook_event_name"), "tool": info.get("tool_name"),
       "rc": p.returncode, "output": json.loads(out) if out.strip().startswith("{{") else out}}
with open({log!r}, "a", encoding="utf-8") as f:
    f.write(json.dumps(rec, ensure_ascii=False) + "\n")
sys.stdout.buffer.write(p.stdout)
sys.stderr.buffer.write(p.stderr)
sys.exit(p.returncode)
'''

TOPIC = "---\nname: Build\ndescription: How to build and test the project\ntype: project\n---\n\nRun `cargo test`.\n"
INDEX = "- [Build](project_build.md) — how to build and test the project\n"
SCRIPT = [
    [{"type": "text", "text": "I'll remember that."},
     {"type": "tool_use", "name": "Write", "input": {
         "file_path": "{{memdir}}feedback_bad.md",
         "content": "---\nname: bad\ndescription: a memory with a type Claude Code does not know\ntype: preference\n---\n\nBody.\n"}}],
    {"type": "tool_use", "name": "Write", "input": {
        "file_path": "{{memdir}}feedback_release.md",
        "content": "---\nname: release-freeze\ndescription: No merges during the release freeze\nmetadata:\n  type: feedback\n---\n\nThe release freeze starts next Thursday; no merges after it.\n\n**Why:** the release branch is cut then.\n**How to apply:** hold merges until the tag is out.\n"}},
    "Saved.",
    "Done.",
]


def cc_run(args, env):
    p = subprocess.run([CC_RUN, *args], stdout=subprocess.PIPE, text=True, env=env)
    if p.returncode == 2 or not p.stdout.strip():
        sys.exit("plugin.py: cc-run failed")
    return json.loads(p.stdout)


def templated(value, names):
    """`value` with each path of `names` (longest first) replaced by its placeholder."""
    text = json.dumps(value, ensure_ascii=False)
    for path, name in sorted(names.items(), key=lambda kv: -len(kv[0])):
        text = text.replace(path, name)
    return json.loads(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--keep", action="store_true", help="keep the run dir")
    args = ap.parse_args()
    run = tempfile.mkdtemp(prefix="cc-plugin.")
    bindir = os.path.join(run, "bin")
    os.makedirs(bindir)
    log = os.path.join(run, "memctl-calls.jsonl")
    wrapper = os.path.join(bindir, "memctl")
    with open(wrapper, "w") as f:
        f.write(WRAPPER.format(python=sys.executable, real=MEMCTL, log=log))
    os.chmod(wrapper, 0o755)
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", "/usr/bin:/bin"))

    first = cc_run(["--run-dir", run], env)  # the fake home, and where memory lives
    memdir = first["memory_dir"] or sys.exit("plugin.py: memory is off in this setup")
    with open(first["logs"]["env"]) as f:
        client_env = json.load(f)
    cfg = client_env["CLAUDE_CONFIG_DIR"]
    claude = subprocess.run([os.path.join(HARNESS, "fetch-claude")], capture_output=True,
                            text=True, check=True).stdout.strip().splitlines()[-1]
    names = {cfg: "$CONFIG", REPO: "$REPO", run: "$RUN"}
    commands = [["plugin", "marketplace", "add", REPO], ["plugin", "install", "memctl@memctl"]]
    for c in commands:
        p = subprocess.run([claude, *c], env=client_env, cwd=os.path.join(run, "project"),
                           capture_output=True, text=True, timeout=120)
        print("$ claude %s  (rc %d)\n%s%s" % (" ".join(c), p.returncode, p.stdout, p.stderr), file=sys.stderr)
        if p.returncode != 0:
            sys.exit("plugin.py: the client refused the plugin")
    with open(os.path.join(cfg, "settings.json")) as f:
        settings = json.load(f)
    with open(os.path.join(cfg, "plugins", "installed_plugins.json")) as f:
        installed = json.load(f)
    install_path = installed["plugins"]["memctl@memctl"][0]["installPath"]
    files = sorted(os.path.relpath(os.path.join(d, n), install_path)
                   for d, _, ns in os.walk(install_path) for n in ns)
    for key in ("installedAt", "lastUpdated", "gitCommitSha"):
        for e in installed["plugins"]["memctl@memctl"]:
            e.pop(key, None)
    rows = [{"case": "install", "claude_version": VERSION,
             "commands": ["claude " + " ".join(c).replace(REPO, "$REPO") for c in commands],
             "observed": {"settings": templated(settings, names),
                          "installed_plugins": templated(installed, names),
                          "plugin_files": files}}]

    with open(os.path.join(memdir, "project_build.md"), "w") as f:
        f.write(TOPIC)
    with open(os.path.join(memdir, "reference_old.md"), "w") as f:
        f.write("---\nname: Old\ndescription: an old note nobody indexed\ntype: reference\n---\n\nOld.\n")
    with open(os.path.join(memdir, "MEMORY.md"), "w") as f:
        f.write(INDEX)
    script = os.path.join(run, "script.json")
    with open(script, "w") as f:
        json.dump(SCRIPT, f)
    open(log, "w").close()
    s = cc_run(["--run-dir", run, "--script", script, "--prompt", "remember the release freeze"], env)
    with open(log) as f:
        calls = [json.loads(line) for line in f]
    with open(s["logs"]["api"]) as f:
        requests = [json.loads(line) for line in f]
    stop_feedback = []
    for r in requests:
        for m in (r.get("body") or {}).get("messages", []):
            for b in m.get("content") if isinstance(m.get("content"), list) else []:
                t = b.get("text") if isinstance(b, dict) else None
                if t and "Stop hook" in t and t not in stop_feedback:
                    stop_feedback.append(t)
    session = {"case": "session", "claude_version": VERSION, "script": SCRIPT,
               "observed": {
                   "hook_calls": [{k: c[k] for k in ("event", "tool", "rc", "output")} for c in calls],
                   "hook_events": s["hook_events"],
                   "session_start": s["session_start"],
                   "tool_calls": [{k: t.get(k) for k in ("input", "result", "is_error", "then")}
                                  for t in s["tool_calls"]],
                   "stop_feedback": stop_feedback}}
    rows.append(templated(session, dict(names, **{memdir.rstrip("/"): "$MEMDIR"})))

    # The plugin's /memctl:check: the client runs the command file's `!` lines and
    # gives the model their output. A dangling index line makes `memctl lint` exit 1:
    # the client drops a command whose `!` line fails ("Shell command failed for
    # pattern …"), so the command files end each one with `|| true`.
    with open(os.path.join(memdir, "MEMORY.md"), "a") as f:
        f.write("- [Gone](gone.md) — a memory deleted by hand\n")
    c = cc_run(["--run-dir", run, "--prompt", "/memctl:check"], env)
    with open(c["logs"]["api"]) as f:
        first = next((json.loads(line)["body"] for line in f if json.loads(line)["body"].get("tools")), {})
    texts = [b.get("text", "") for m in first.get("messages", []) if isinstance(m.get("content"), list)
             for b in m["content"] if isinstance(b, dict)]
    rows.append(templated({"case": "check-command", "claude_version": VERSION, "prompt": "/memctl:check",
                           "observed": {"rc": c["rc"], "command_text": [t for t in texts if "memctl lint" in t]}},
                          dict(names, **{memdir: "$MEMDIR/"})))
    out = os.path.join(OUT, "plugin.jsonl")
    with open(out, "w") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(json.dumps(session["observed"], indent=2, ensure_ascii=False))
    print("plugin.py: wrote %s (run dir %s)" % (out, run), file=sys.stderr)
    if not args.keep:
        shutil.rmtree(run, ignore_errors=True)


if __name__ == "__main__":
    main()
