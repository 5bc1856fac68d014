#!/usr/bin/env python3
"""Record when Claude Code injects MEMORY.md: default mode vs recall mode (SPEC §2.13,
§2.16), as tests/golden/claude-code-<version>/recall.jsonl.

Each case is one print-mode run of the client (cc-run) in a fresh fake home with one
memory (MEMORY.md + a topic file). A case sets CLAUDE_MEMORY_STORES and/or caches the
server flag tengu_moth_copse in the global config, with or without
CLAUDE_CODE_GB_DISK_CACHE_WHEN_TELEMETRY_OFF (cc-run turns non-essential traffic and
telemetry off, so a cached flag is read only with that switch). A row holds the
input (`env`: every variable the case depends on, cc-run's own two included;
`cached_flags`: the cachedGrowthBookFeatures written, or null) and what the client
did (`memory_md_injected`, `manifest_sent`); `models` names the mode the case sets
out to exercise (`default` or `store`). Deterministic: fixed cases, fixed texts.

Needs CC_HARNESS, CC_ORACLE_OUT (scripts/cc-oracle exports them) and MEMCTL_BIN
(default target/debug/memctl; only used to find the memory dir of the fake project).
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
MEMCTL = os.environ.get("MEMCTL_BIN", os.path.join(ROOT, "target/debug/memctl"))

# What cc-run sets for every run; recorded in each row so memctl sees the same.
HARNESS_ENV = {"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_TELEMETRY": "1"}
STORE_USER = '[{"path":"/me","scope":"user"}]'

# (name, models, extra env, cached flags)
CASES = [
    ("default", "default", {}, None),
    ("store-user", "store", {"CLAUDE_MEMORY_STORES": STORE_USER}, None),
    ("store-team-string", "store", {"CLAUDE_MEMORY_STORES": '["/orgs/acme/shared"]'}, None),
    ("store-invalid-json", "store", {"CLAUDE_MEMORY_STORES": "not json"}, None),
    ("store-blank", "store", {"CLAUDE_MEMORY_STORES": "   "}, None),
    ("flag-cached-telemetry-off", "store", {}, {"tengu_moth_copse": True}),
    ("flag-cached-disk-cache-on", "store",
     {"CLAUDE_CODE_GB_DISK_CACHE_WHEN_TELEMETRY_OFF": "1"}, {"tengu_moth_copse": True}),
    ("flag-cached-false-disk-cache-on", "default",
     {"CLAUDE_CODE_GB_DISK_CACHE_WHEN_TELEMETRY_OFF": "1"}, {"tengu_moth_copse": False}),
]

INDEX = "- [Deploy](deploy.md) — staging first, always\n"
TOPIC = "---\nname: Deploy\ndescription: staging first, always\ntype: project\n---\nDeploy to staging first.\n"


def cc_run(run_dir, *args):
    cmd = [os.path.join(HARNESS, "cc-run"), "--run-dir", run_dir, "--memctl", MEMCTL, *args]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
    text = out.stdout
    return json.loads(text[text.index("{"):])


def one(name, models, extra, flags):
    run_dir = tempfile.mkdtemp(prefix="cc-recall-")
    prep = cc_run(run_dir, "--prepare-only")
    env = json.load(open(prep["logs"]["env"], encoding="utf-8"))
    path = subprocess.run([MEMCTL, "path", "--json"], env=env, cwd=os.path.join(run_dir, "project"),
                          capture_output=True, text=True, check=True)
    mem = json.loads(path.stdout)["memory_dir"]
    os.makedirs(mem, exist_ok=True)
    with open(os.path.join(mem, "MEMORY.md"), "w", encoding="utf-8") as f:
        f.write(INDEX)
    with open(os.path.join(mem, "deploy.md"), "w", encoding="utf-8") as f:
        f.write(TOPIC)
    if flags is not None:
        cfg = os.path.join(env["CLAUDE_CONFIG_DIR"], ".claude.json")
        glob = json.load(open(cfg, encoding="utf-8"))
        glob["cachedGrowthBookFeatures"] = flags
        with open(cfg, "w", encoding="utf-8") as f:
            json.dump(glob, f, indent=2)
    args = ["--prompt", "what do we know about deploys", "--hold-main", "4"]
    for k, v in extra.items():
        args += ["--env", f"{k}={v}"]
    s = cc_run(run_dir, *args)
    shutil.rmtree(run_dir, ignore_errors=True)
    return {
        "case": name,
        "models": models,
        "env": {**HARNESS_ENV, **extra},
        "cached_flags": flags,
        "memory_md_injected": s["memory_md"] is not None,
        "manifest_sent": s["manifest"] is not None,
        "client_rc": s["rc"],
    }


def main():
    rows = []
    for case in CASES:
        row = one(*case)
        print(f"{row['case']:<34} injected={row['memory_md_injected']!s:<5} manifest={row['manifest_sent']}",
              file=sys.stderr)
        rows.append(row)
    dest = os.path.join(OUT, "recall.jsonl")
    with open(dest, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n")
    print(dest)


if __name__ == "__main__":
    main()
