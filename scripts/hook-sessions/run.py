#!/usr/bin/env python3
"""hook-sessions: memctl's hooks in the real Claude Code client (issue 30, "Done when").

usage: scripts/hook-sessions/run.py [--memctl PATH] [--only NAME] [--record DIR]

Runs scripted sessions in the shipped client through the cc-harness (`$CC_HARNESS`,
default ../shared/cc-harness beside the repository), each with `memctl hook install`
in the run's config (cc-run --log-hooks: every hook call is logged), and prints what
the model got back after each tool call, what memctl printed on each hook call, and
a verdict line per session:

  two-step-save   Write a topic file, then Edit MEMORY.md: no memctl message at all.
  line-201        A save whose index line is MEMORY.md's 201st: exactly one memctl
                  message (PostToolUse), naming the dropped entry, beside the
                  client's own advisory; the Stop is silent.
  unindexed-stop  The turn ends with an unindexed memory: the Stop blocks once, the
                  scripted model adds the index line, the second Stop passes.
  subagent        A subagent runs (and writes nothing): the SubagentStop payload's
                  shape is recorded; memctl says nothing.
  broken-write    A Write with unreadable frontmatter over a good memory is denied
                  before it lands; the file on disk is unchanged.
  shell-edit      A memory edited through the shell, then a two-step save: history
                  records each Write/Edit alone as the model's (PostToolUse looks
                  at the written file only, issue 31) and the shell's edit as
                  external, by the Stop hook's snapshot.

--record DIR writes each session's hook payloads (the client's stdin to memctl) as
DIR/<session>.jsonl with the run's paths replaced by $MEMDIR, $PROJECT, $RUN: the
fixtures of tests/cli/hook_gate.rs. Exit 1 when a verdict fails.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HARNESS = os.environ.get("CC_HARNESS") or os.path.join(ROOT, "..", "shared", "cc-harness")
CC_RUN = os.path.join(HARNESS, "cc-run")

BUILD = """---
name: Build
description: How to build and test the project
type: project
---

Run `cargo build`, then `cargo test`.
"""
BUILD_LINE = "- [Build](project_build.md) — how to build and test the project\n"
HAND = "---\nname: hand\ndescription: Written by hand\ntype: user\n---\n\nThe user keeps this one by hand.\n"
HAND_LINE = "- [Hand](user_hand.md) — written by hand\n"
TERSE = ("---\nname: terse-replies\ndescription: No recap of what was just done at the end of a reply\n"
         "metadata:\n  type: feedback\n---\n\nEnd replies without a summary of the work just done.\n\n"
         "**Why:** the user reads the diff and finds the recap noise.\n"
         "**How to apply:** close with open questions or next steps only.\n")
TERSE_LINE = "- [Terse replies](feedback_terse.md) — no recap at the end of a reply\n"


def write(tool, path, **kw):
    return {"type": "tool_use", "name": tool, "input": {"file_path": "{{memdir}}" + path, **kw}}


def full_index():
    """200 index lines, each linking a topic file that exists."""
    return "".join("- [Note %d](project_note%d.md) — note number %d\n" % (i, i, i) for i in range(1, 201))


def note(i):
    return "---\nname: Note %d\ndescription: note number %d\ntype: project\n---\n\nNote %d.\n" % (i, i, i)


SESSIONS = {
    "two-step-save": {
        "seed": {"project_build.md": BUILD, "MEMORY.md": BUILD_LINE},
        "prompt": "From now on, no recap at the end of your replies. Remember that.",
        "script": [
            [{"type": "text", "text": "I'll remember that."}, write("Write", "feedback_terse.md", content=TERSE)],
            write("Edit", "MEMORY.md", old_string=BUILD_LINE, new_string=BUILD_LINE + TERSE_LINE),
            "Saved: I'll keep replies free of recaps.",
        ],
    },
    "line-201": {
        "seed": dict({"project_note%d.md" % i: note(i) for i in range(1, 201)}, **{"MEMORY.md": full_index()}),
        "prompt": "From now on, no recap at the end of your replies. Remember that.",
        "script": [
            [{"type": "text", "text": "I'll remember that."}, write("Write", "feedback_terse.md", content=TERSE)],
            write("Edit", "MEMORY.md", old_string="- [Note 200](project_note200.md) — note number 200\n",
                  new_string="- [Note 200](project_note200.md) — note number 200\n" + TERSE_LINE),
            "Saved.",
        ],
    },
    "unindexed-stop": {
        "seed": {"project_build.md": BUILD, "MEMORY.md": BUILD_LINE},
        "prompt": "From now on, no recap at the end of your replies. Remember that.",
        "script": [
            [{"type": "text", "text": "I'll remember that."}, write("Write", "feedback_terse.md", content=TERSE)],
            "Saved.",
            write("Edit", "MEMORY.md", old_string=BUILD_LINE, new_string=BUILD_LINE + TERSE_LINE),
            "Indexed it.",
        ],
    },
    "subagent": {
        "seed": {"project_build.md": BUILD, "MEMORY.md": BUILD_LINE},
        "prompt": "Look around please.",
        "script": [
            {"type": "tool_use", "name": "Agent",
             "input": {"description": "look around", "prompt": "List the files.", "subagent_type": "general-purpose"}},
            "Done here.",
        ],
    },
    "shell-edit": {
        "seed": {"project_build.md": BUILD, "user_hand.md": HAND, "MEMORY.md": BUILD_LINE + HAND_LINE},
        "prompt": "Append a line to my hand-kept memory, and remember: no recaps.",
        "script": [
            {"type": "tool_use", "name": "Bash",
             "input": {"command": "echo 'Edited in the shell.' >> {{memdir}}user_hand.md"}},
            [{"type": "text", "text": "I'll remember that."}, write("Write", "feedback_terse.md", content=TERSE)],
            write("Edit", "MEMORY.md", old_string=BUILD_LINE, new_string=BUILD_LINE + TERSE_LINE),
            "Saved.",
        ],
    },
    "broken-write": {
        "seed": {"project_build.md": BUILD, "MEMORY.md": BUILD_LINE},
        "prompt": "Note that the build also needs `make gen` first.",
        "script": [
            write("Write", "project_build.md",
                  content=BUILD.replace("How to build and test the project", '"How to build (make gen first) and test')),
            "Could not save that.",
        ],
    },
}


def cc_run(*args):
    p = subprocess.run([CC_RUN, *args], stdout=subprocess.PIPE, text=True)
    if p.returncode == 2 or not p.stdout.strip():
        sys.exit("hook-sessions: cc-run failed")
    return json.loads(p.stdout)


def indent(text, prefix="      "):
    return textwrap.indent(text.rstrip("\n") or "(empty)", prefix)


def memctl_messages(s):
    """Hook calls where memctl printed something (what reaches the model or the user)."""
    return [h for h in s["hooks"] or [] if h["output"]]


def sanitize(obj, subs):
    if isinstance(obj, str):
        for a, b in subs:
            obj = obj.replace(a, b)
        return obj
    if isinstance(obj, list):
        return [sanitize(x, subs) for x in obj]
    if isinstance(obj, dict):
        return {k: sanitize(v, subs) for k, v in obj.items()}
    return obj


def verdict(name, s, memdir):
    msgs = memctl_messages(s)
    stops = [h for h in s["hooks"] or [] if h["event"] == "Stop"]
    if name == "two-step-save":
        ok = not msgs and all(not c["then"] for c in s["tool_calls"])
        return ok, "%d memctl messages, %d hook messages after tool calls" % (
            len(msgs), sum(len(c["then"]) for c in s["tool_calls"]))
    if name == "line-201":
        named = [h for h in msgs if "MEMORY.md:201" in json.dumps(h["output"], ensure_ascii=False)]
        client = [t for c in s["tool_calls"] for t in c["then"] if "over its 200-line read limit" in t]
        ok = len(msgs) == 1 and len(named) == 1 and msgs[0]["event"] == "PostToolUse" and len(client) == 1
        return ok, "%d memctl message(s) (%s), naming MEMORY.md:201: %d; the client's own advisory: %d" % (
            len(msgs), ", ".join(h["event"] for h in msgs), len(named), len(client))
    if name == "unindexed-stop":
        blocks = [h for h in stops if isinstance(h["output"], dict) and h["output"].get("decision") == "block"]
        with open(os.path.join(memdir, "MEMORY.md")) as f:
            indexed = "(feedback_terse.md)" in f.read()
        # What the model got: the Stop's reason in the next request's messages.
        seen = ""
        with open(os.path.join(s["logs"]["dir"], "api.jsonl")) as f:
            for line in f:
                for m in json.loads(line).get("body", {}).get("messages", []):
                    text = json.dumps(m["content"], ensure_ascii=False)
                    if "is not in MEMORY.md" in text and not seen:
                        i = text.index("Stop hook") if "Stop hook" in text else text.index("memctl:")
                        seen = text[i:i + 260]
        print("The model got (next request):\n" + indent(seen or "(not found)"))
        ok = (len(stops) == 2 and len(blocks) == 1 and stops[0] is blocks[0] and not stops[1]["output"]
              and stops[1]["input"].get("stop_hook_active") is True and indexed
              and len(msgs) == 1 and bool(seen))
        return ok, "%d Stop calls, %d blocked (the first), second Stop output %r, index fixed: %s" % (
            len(stops), len(blocks), stops[1]["output"] if len(stops) > 1 else None, indexed)
    if name == "subagent":
        sub = [h for h in s["hooks"] or [] if h["event"] == "SubagentStop"]
        ok = len(sub) == 1 and sub[0]["input"].get("agent_id") and not msgs
        return ok, "%d SubagentStop call(s) with agent_id %r, %d memctl messages" % (
            len(sub), sub[0]["input"].get("agent_id") if sub else None, len(msgs))
    if name == "broken-write":
        pre = [h for h in msgs if h["event"] == "PreToolUse"]
        with open(os.path.join(memdir, "project_build.md")) as f:
            unchanged = f.read() == BUILD
        denied = bool(pre) and pre[0]["output"]["hookSpecificOutput"]["permissionDecision"] == "deny"
        post = [h for h in s["hooks"] or [] if h["event"] == "PostToolUse"]
        ok = denied and unchanged and not post and len(msgs) == 1
        return ok, "denied by PreToolUse: %s, file on disk unchanged: %s, PostToolUse calls: %d" % (
            denied, unchanged, len(post))
    if name == "shell-edit":
        snaps = history(memdir)
        got = [(x["trigger"], x["recorded_by"], sorted(c["file"] for c in x["changes"])) for x in snaps]
        want = [("external", "hook:Stop", ["user_hand.md"]),
                ("claude", "hook:PostToolUse", ["MEMORY.md"]),
                ("claude", "hook:PostToolUse", ["feedback_terse.md"])]
        ok = got[:3] == want and len(got) == 4 and got[3][0] == "baseline" and not msgs
        print("History (newest first):\n" + indent("\n".join("%s %s %s" % g for g in got)))
        return ok, "the model's writes alone as claude: %s, the shell's edit as external by Stop: %s, %d memctl messages" % (
            got[1:3] == want[1:], got[:1] == want[:1], len(msgs))
    return False, "unknown session"


def history(memdir):
    """`memctl history --json` of the run's memory dir, in the run's own environment."""
    run = RUN["dir"]
    env = dict(os.environ, HOME=os.path.join(run, "home"), CLAUDE_CONFIG_DIR=os.path.join(run, "home", ".claude"),
               XDG_STATE_HOME=os.path.join(run, "xdg", "state"), XDG_CONFIG_HOME=os.path.join(run, "xdg", "config"))
    p = subprocess.run([RUN["memctl"], "--dir", memdir, "--json", "history"], stdout=subprocess.PIPE, text=True, env=env)
    return json.loads(p.stdout or "{}").get("snapshots", [])


# The run being judged: its dir and the memctl it ran (for `history`).
RUN = {}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--memctl", default=os.environ.get("MEMCTL_BIN") or os.path.join(ROOT, "target/debug/memctl"))
    ap.add_argument("--only")
    ap.add_argument("--record")
    args = ap.parse_args()
    if not os.access(CC_RUN, os.X_OK):
        sys.exit("hook-sessions: no harness at %s (set CC_HARNESS)" % HARNESS)
    failed = 0
    for name, sess in SESSIONS.items():
        if args.only and name != args.only:
            continue
        run = tempfile.mkdtemp(prefix="hook-sessions.")
        RUN.update(dir=run, memctl=args.memctl)
        memdir = cc_run("--run-dir", run)["memory_dir"]
        for rel, text in sess["seed"].items():
            with open(os.path.join(memdir, rel), "w") as f:
                f.write(text)
        script = os.path.join(run, "script.json")
        with open(script, "w") as f:
            json.dump(sess["script"], f)
        s = cc_run("--run-dir", run, "--log-hooks", "--memctl", args.memctl, "--script", script,
                   "--prompt", sess["prompt"])
        print("== %s: client %s, exit %s, %.1fs" % (name, s["claude_version"], s["rc"], s["seconds"]))
        for n, call in enumerate(s["tool_calls"], 1):
            target = (call["input"] or {}).get("file_path", "")
            print("%d. %s %s" % (n, call["tool"], target.replace(memdir, "<memdir>/")))
            print("   tool result%s:" % (" (error)" if call["is_error"] else ""))
            print(indent((call["result"] or "").replace(memdir, "<memdir>/")))
            print("   then:")
            print(indent("\n\n".join(call["then"]).replace(memdir, "<memdir>/") or "(nothing)"))
        print("Hook calls (event, tool, file, exit, memctl's output):")
        for h in s["hooks"] or []:
            out = json.dumps(h["output"], ensure_ascii=False).replace(memdir, "<memdir>/") if h["output"] else "-"
            print("  %-12s %-5s %-20s rc=%s  %s" % (h["event"], h["tool"] or "", os.path.basename(h["file_path"] or ""),
                                                  h["rc"], out))
        ok, why = verdict(name, s, memdir)
        print("VERDICT %s: %s (%s)\n" % (name, "PASS" if ok else "FAIL", why))
        failed += not ok
        if args.record:
            os.makedirs(args.record, exist_ok=True)
            subs = [(memdir.rstrip("/"), "$MEMDIR"), (os.path.join(run, "project"), "$PROJECT"), (run, "$RUN")]
            with open(os.path.join(args.record, name + ".jsonl"), "w") as f:
                for h in s["hooks"] or []:
                    f.write(json.dumps(sanitize(h["input"], subs), ensure_ascii=False) + "\n")
        shutil.rmtree(run, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
