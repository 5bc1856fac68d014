#!/usr/bin/env python3
"""load.py: record how Claude Code loads MEMORY.md (SPEC §2.7, A.6, A.13) -> load.jsonl.

Run through scripts/cc-oracle load (it sets CC_HARNESS, CC_VERSION, CC_ORACLE_OUT).
Every case is built by a seeded generator below; the real client runs once per case
(cc-run, print mode, default mode: auto memory on, no stores) with the case's
MEMORY.md in its memory dir, and the row records the input and what the client
injected after "Contents of <memdir>MEMORY.md (...):" and its blank line.

Row fields:
  case           unique name
  mode           "default" (no CLAUDE_MEMORY_STORES); env cases add "env"
  input          the MEMORY.md text (UTF-8), or
  recipe         {"fill": LINE, "bytes": N}: LINE repeated and cut to exactly N bytes
                 (the 4 MiB cases; not committed as data)
  env            extra client environment (CLAUDE_COWORK_MEMORY_INDEX_CONTENT, ...)
  files          backfill cases: no MEMORY.md; topic files [{path, text, age}] (age in
                 seconds before the run: larger is older), "links" for symlinks/hard links
  observed       {"loaded": bool, "text": the injected text or null}; backfill cases also
                 "written": the MEMORY.md the client wrote (null: none)
usage: load.py [--only NAME]... [--limit N]
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

HARNESS = os.environ.get("CC_HARNESS") or sys.exit("load.py: run it through scripts/cc-oracle")
OUT = os.environ.get("CC_ORACLE_OUT", ".")
VERSION = os.environ.get("CC_VERSION", "2.1.332")
CC_RUN = os.path.join(HARNESS, "cc-run")
HEADER = " (user's auto-memory, persists across conversations):\n\n"
SEED = 20260332


def entry(n, hook="hook"):
    return "- [T%d](t%d.md) — %s %d" % (n, n, hook, n)


def lines(n, hook="hook", sep="\n"):
    return sep.join(entry(i) for i in range(1, n + 1))


def cases():
    r = random.Random(SEED)
    out = []

    def add(name, text=None, **kw):
        row = dict(case=name, mode="default")
        if text is not None:
            row["input"] = text
        row.update(kw)
        out.append(row)

    # --- the line cap ---
    for n in (1, 2, 150, 199, 200, 201, 202, 203, 250, 400):
        add("lines-%d" % n, lines(n) + "\n")
    add("lines-200-blank-tail", lines(200) + "\n\n\n\n")
    add("lines-200-then-blank-then-202", lines(200) + "\n\n" + entry(202) + "\n")
    add("lines-200-then-spaced", lines(200) + "\n   - [Z](z.md) — z   \n")
    add("lines-200-then-long", lines(200) + "\n- [Very long title here](very_long_file_name.md) — "
        "this hook goes on and on and on well past eighty characters\n")
    add("lines-200-then-100y", lines(200) + "\n" + "y" * 100 + "\n")
    add("lines-200-then-80y", lines(200) + "\n" + "y" * 80 + "\n")
    add("lines-200-then-81y", lines(200) + "\n" + "y" * 81 + "\n")
    add("lines-leading-blank-201", "\n\n\n" + lines(201) + "\n")
    add("lines-201-inner-blanks", "\n".join(entry(i) if i % 3 else "" for i in range(1, 202)) + "x\n")
    add("lines-201-whitespace-line-201", lines(200) + "\n \t \n" + entry(202))
    for k in range(6):  # random line counts near the cap, random hooks
        n = r.randint(195, 230)
        ls = []
        for i in range(n):
            w = " ".join(r.choice(["alpha", "beta", "γάμμα", "δ", "deploy", "note", "x" * r.randint(1, 40)])
                         for _ in range(r.randint(1, 20)))
            ls.append("- [%s %d](f%d.md) — %s" % (r.choice(["Fix", "Use", "Ask"]), i, i, w))
        add("lines-random-%d" % k, "\n".join(ls) + "\n")
    # words around the 80-unit quote with spaces at various places
    for k in range(8):
        words = []
        while sum(len(w) + 1 for w in words) < 120:
            words.append("w" * r.randint(1, 15))
        add("quote-words-%d" % k, lines(200) + "\n" + " ".join(words) + "\n")
    add("quote-cjk", lines(200) + "\n" + "- [中文](zh.md) — " + "漢字" * 50 + "\n")
    add("quote-emoji-split", lines(200) + "\n" + "a" * 78 + "😀😀😀" + "\n")
    add("quote-emoji-77", lines(200) + "\n" + "a" * 77 + "😀😀😀" + "\n")
    add("quote-space-at-40", lines(200) + "\n" + "a" * 40 + " " + "b" * 60 + "\n")
    add("quote-space-at-39", lines(200) + "\n" + "a" * 39 + " " + "b" * 60 + "\n")
    add("quote-space-at-41", lines(200) + "\n" + "a" * 41 + " " + "b" * 60 + "\n")
    add("quote-tab-space", lines(200) + "\n" + "a " * 30 + "\t" + "b" * 30 + "\n")

    # --- the unit cap ---
    for n in (24999, 25000, 25001, 25002, 30000):
        add("units-one-line-%d" % n, "x" * n)
    for extra in (-1, 0, 1, 2):  # lines of 100 units + LF; total 25000+extra units
        body = ("y" * 99 + "\n") * 250
        t = body[:25000 + extra].rstrip("\n")
        t = t + "z" * (25000 + extra - len(t))
        add("units-multi-%+d" % extra, t)
    add("units-10x2999", "\n".join(["x" * 2999] * 10))
    add("units-a-then-30000b", "a\n" + "b" * 30000)
    add("units-300-lines-203x", "\n".join(str(i) + "x" * 203 for i in range(300)))
    add("units-lf-at-25000", "x" * 24999 + "\n" + "y" * 100)
    add("units-lf-at-25001", "x" * 25000 + "\n" + "y" * 100)
    add("units-lf-at-24999", "x" * 24998 + "\n" + "y" * 100)
    add("units-eacute-20000", "é" * 20000)
    add("units-eacute-25001", "é" * 25001)
    add("units-emoji-12600", "x" + "😀" * 12600)
    add("units-emoji-even", "😀" * 12600)
    add("units-cjk-25001", "漢" * 25001)
    add("units-cjk-lines", "\n".join("漢字" * 100 for _ in range(130)))
    add("units-emoji-lines", "\n".join("😀" * 60 for _ in range(250)))
    add("units-both-caps", "\n".join("- [x](x.md) " + "q" * 200 for _ in range(260)))
    add("units-crlf-cap", "\r\n".join("- [x](x.md) " + "q" * 200 for _ in range(118)))
    add("units-u2028-long", "\u2028".join("z" * 120 for _ in range(230)))
    for k in range(10):  # random long lines
        n = r.randint(80, 220)
        ls = ["- [E%d](e%d.md) — %s" % (i, i, "".join(r.choice("abc def😀漢é ") for _ in range(r.randint(20, 400))))
              for i in range(n)]
        add("units-random-%d" % k, "\n".join(ls) + "\n")
    for k in range(6):  # a long first line cut inside line 1, with CJK/emoji
        add("units-line1-random-%d" % k,
            "".join(r.choice("ab 漢😀") for _ in range(r.randint(13000, 26000))) + "\nnext\n")

    # --- HTML comments ---
    comment_cases = [
        ("c-block", "# T\n\n<!-- c -->\n\n- [A](a.md) — a\n"),
        ("c-between", "a\n<!-- c -->\nb\n"),
        ("c-list", "- [A](a.md) — a\n<!-- c -->\n- [B](b.md) — b\n"),
        ("c-in-item", "- [A](a.md) — a\n  <!-- c -->\n- [B](b.md) — b\n"),
        ("c-rest", "<!-- note --> Use bun\nx\n"),
        ("c-inline", "a <!-- inline --> b\n"),
        ("c-unclosed", "<!-- open\nno close\n- [A](a.md)\n"),
        ("c-crlf", "x\r\n<!-- c -->\r\ny\r\n"),
        ("c-crlf-inline", "x\r\na <!-- inline --> b\r\n"),
        ("c-code", "```\n<!-- in code -->\n```\n<!-- a\nb -->\n\n\n  \nz"),
        ("c-quote", "> q\n<!-- c -->\nr\n"),
        ("c-indented", "    <!-- indented -->\n"),
        ("c-indented-then", "    <!-- indented -->\nx\n"),
        ("c-3spaces", "   <!-- 3 spaces -->\nx"),
        ("c-two", "<!-- a --><!-- b -->\nx"),
        ("c-mid", "<!-- a --> mid <!-- b -->\nx"),
        ("c-multi", "<!-- multi\nline\ncomment -->\n- [A](a.md) — a\n"),
        ("c-details", "<details>\n<!-- c -->\n</details>\n"),
        ("c-details-after-item", "- [A](a.md) — a\n<details>\n<!-- c -->\n</details>\n"),
        ("c-details-after-item-blank", "- [A](a.md) — a\n\n<details>\n\n<!-- c -->\n</details>\n"),
        ("c-div", "<div>\n<!-- c -->\n</div>\n\n<!-- d -->\nx\n"),
        ("c-open-arrow", "<!-->\nb -->\nx\n"),
        ("c-open-dash-arrow", "<!--->\nb -->\nx\n"),
        ("c-only", "<!-- only a comment -->\n"),
        ("c-only-crlf", "<!-- only -->\r\n\r\n"),
        ("c-lone-cr", "a\r<!-- c -->\rb\r\n<!-- d -->\nc\n"),
        ("c-lone-cr-nothing-removed", "a\rb <!-- x --> c\r\n"),
        ("c-bom", "\ufeff<!-- c -->\n- [A](a.md)\n"),
        ("c-bom-line2", "\ufeff# T\n<!-- c -->\n- [A](a.md)\n"),
        ("c-after-heading", "# Index\n<!-- c -->\n- [A](a.md)\n"),
        ("c-trailing-text", "<!-- a --> tail\n<!-- b -->\n"),
        ("c-blank-absorb", "<!-- a -->\n\n\n\n- [A](a.md)\n"),
        ("c-space-line", "<!-- a -->\n \n- [A](a.md)\n"),
        ("c-nested-list", "- a\n  - b\n<!-- c -->\n- d\n"),
        ("c-ordered-list", "1. a\n<!-- c -->\n2. b\n"),
        ("c-fence-tilde", "~~~\n<!-- in -->\n~~~\n<!-- out -->\nz\n"),
        ("c-unclosed-fence", "```\n<!-- in -->\nz\n"),
        ("c-setext", "Title\n<!-- c -->\n===\n"),
        ("c-table", "| a | b |\n<!-- c -->\n| 1 | 2 |\n"),
        ("c-many", "".join("<!-- c%d -->\n- [E%d](e%d.md) — e\n" % (i, i, i) for i in range(60))),
        ("c-with-201", "<!-- header -->\n" + lines(201) + "\n"),
        ("c-makes-200", lines(200) + "\n<!-- tail comment -->\n"),
        ("c-crlf-201", "<!-- h -->\r\n" + lines(201, sep="\r\n") + "\r\n"),
        ("c-script", "<script>\n<!-- c -->\n</script>\n<!-- d -->\nx\n"),
        ("c-pre-blank", "<pre>\n\n<!-- c -->\n</pre>\nx\n"),
        ("c-html-after-para", "para\n<div>\n<!-- c -->\n</div>\n"),
        ("c-link-ref", "[a]: http://x\n<!-- c -->\nb\n"),
    ]
    for name, t in comment_cases:
        add(name, t)
    for k in range(12):  # random mixes of entries, comments, blanks, CRs
        parts = []
        for i in range(r.randint(5, 40)):
            parts.append(r.choice([entry(i), "<!-- c %d -->" % i, "", "  <!-- x -->", "<!-- a\nb -->",
                                   "a <!-- i --> b", "<details>", "</details>", "> q", "# H"]))
        sep = r.choice(["\n", "\n", "\r\n"])
        add("c-random-%d" % k, sep.join(parts) + sep)

    # --- frontmatter ---
    fm_cases = [
        ("fm-plain", "---\nname: idx\n---\n- [A](a.md) — a\n"),
        ("fm-value-dashes", "---\ndescription: a---b\n---\n- [A](a.md) — a"),
        ("fm-rule-line1", "---\n- [A](a.md) — a\n- [B](b.md) — b --- c\n- [C](c.md) — c"),
        ("fm-rule-only", "---\n- [A](a.md) — a\n- [B](b.md) — b\n"),
        ("fm-rule-two", "---\n- [A](a.md)\n---\n- [B](b.md)\n---\n- [C](c.md)\n"),
        ("fm-four-dashes", "----\n- [A](a.md)\n---\n- [B](b.md)\n"),
        ("fm-open-trailing", "--- x\nname: y\n---\n- [A](a.md)\n"),
        ("fm-open-spaces", "--- \t\nname: y\n---\n- [A](a.md)\n"),
        ("fm-crlf", "---\r\nname: y\r\n---\r\n- [A](a.md)\r\n"),
        ("fm-close-trailing", "---\nname: y\n--- trailing\n- [A](a.md)\n"),
        ("fm-close-four", "---\nname: y\n----\n- [A](a.md)\n"),
        ("fm-indented-close", "---\nname: y\n  ---\n- [A](a.md)\n"),
        ("fm-bom", "\ufeff---\nname: y\n---\n- [A](a.md)\n"),
        ("fm-then-comment", "---\nname: y\n---\n<!-- c -->\n- [A](a.md)\n"),
        ("fm-bad-yaml", "---\n: : [\n---\n- [A](a.md)\n"),
        ("fm-no-close", "---\nname: y\n- [A](a.md)\n"),
        ("fm-blank-after-open", "---\n\n\nname: y\n---\n\n\n- [A](a.md)\n"),
        ("fm-leading-blank", "\n---\nname: y\n---\n- [A](a.md)\n"),
        ("fm-201", "---\nname: y\n---\n" + lines(201) + "\n"),
        ("fm-rule-201", "---\n" + lines(205) + "\n---\n" + lines(201) + "\n"),
        ("fm-only", "---\nname: y\n---\n"),
        ("fm-dashes-in-entry", "# I\n- [A](a.md) — x---y\n"),
    ]
    for name, t in fm_cases:
        add(name, t)

    # --- line endings, BOM, whitespace ---
    add("crlf-201", "\r\n".join("l%d" % i for i in range(201)))
    add("crlf-200", "\r\n".join("l%d" % i for i in range(200)) + "\r\n")
    add("crlf-plain", "- [A](a.md) — a\r\n- [B](b.md) — b\r\n")
    add("cr-lone", "- [A](a.md) — a\r- [B](b.md) — b\r")
    add("cr-lone-250", "\r".join(entry(i) for i in range(1, 251)))
    add("cr-mixed", "a\r\nb\rc\nd\r\r\ne")
    add("crlf-unit-cap", "\r\n".join("x" * 99 for _ in range(251)))
    add("bom-plain", "\ufeff- [A](a.md) — a\n")
    add("bom-only", "\ufeff")
    add("bom-201", "\ufeff" + lines(201))
    add("bom-twice", "\ufeff\ufeff- [A](a.md)\n")
    add("u2028", "- [C](c.md) — line\u2028sep")
    add("u2029", "- [C](c.md) — para\u2029sep")
    add("u2028-201", "\u2028".join(entry(i) for i in range(1, 202)) + "\n" + entry(999))
    add("u2028-lines-201", lines(201) + "\u2028tail")
    add("u0085", "- [N](n.md) — next\u0085line\n")
    add("empty", "")
    add("blank", "\n\n\n")
    add("whitespace", " \t \n  \n\t")
    add("nbsp-only", "\u00a0\u3000\n")
    add("zwsp-only", "\u200b\n")
    add("trim-inner", "\n\n  hello\nworld  \n\n")
    add("tabs", "\t- [A](a.md)\t—\ta\t\n")

    # --- control, invisible, private use, reserved tags ---
    odd = [
        ("ctl-bell", "- [D](d.md) — bell\x07 nbsp\u00a0x"),
        ("ctl-nul-esc", "a\x00b\x1bc\x7fd\x85e\x9ff\n"),
        ("ctl-vt-ff", "a\x0bb\x0cc\n"),
        ("fmt-zwsp", "- [A](a.md) — zero\u200bwidth\ufeffbom"),
        ("fmt-bidi", "a\u200eb\u200fc\u202ad\u202ee\u2066f\u2069g\n"),
        ("fmt-soft-hyphen", "co\u00adop\n"),
        ("fmt-zwj", "👨\u200d👩\u200d👧 ❤\ufe0f x\u200cy \ufe0e\n"),
        ("fmt-flag-tags", "🏴\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f flag\n"),
        ("fmt-private", "a\ue000b\U000f0000c\n"),
        ("fmt-unassigned", "a\u0378b\U0001fffec\n"),
        ("fmt-variation", "a\ufe00b\ufe0fc\U000e0100d\n"),
        ("fmt-ignorable", "a\u115fb\u3164c\u180bd\u034fe\u2060f\u2064g\n"),
        ("fmt-hangul-filler", "\u3164\n- [A](a.md)\n"),
        ("tag-system-reminder", "- [B](b.md) — <system-reminder>x</system-reminder>"),
        ("tag-mixed", 'a <function_results>x</function_results> <channel source="x">y</channel> <foo>z</foo>'),
        ("tag-case-attr", '<System-Reminder attr="1">x</SYSTEM-REMINDER >'),
        ("tag-space", "< system-reminder> </ system-reminder> <  /tick>"),
        ("tag-name-char", "<system-reminders> <tick-tock> <ticker> <tick> <tick/>"),
        ("tag-all", " ".join("<%s>" % t for t in (
            "system_reminder", "tool_use_error", "sandbox_violations", "persisted-output", "total_tokens",
            "user-prompt-submit-hook", "command-name", "command-message", "command-args", "bash-input",
            "bash-stdout", "bash-stderr", "bash-exit-code", "local-command-stdout", "local-command-stderr",
            "local-command-caveat", "task-notification", "agent-message", "teammate-message",
            "cross-session-message", "remote-review", "slack-ping", "slack-tag-message",
            "fetched-web-content", "untrusted-widget-state", "coordinator-relay", "artifact-type-instructions",
            "cowritten-artifact-html", "artifact-file-content", "artifact-origin-notes",
            "artifact-stored-declaration"))),
        ("tag-channel", "<channel>a</channel> <channel id=1> <channel source> <channel  source='y'>"),
        ("tag-in-comment", "<!-- <system-reminder> -->\nx <system-reminder>\n"),
        ("tag-after-cut", lines(200) + "\n<system-reminder> cut\n"),
        ("tag-in-quote", lines(200) + "\n<tick> quoted " + "q" * 100 + "\n"),
        ("ctl-in-quote", lines(200) + "\n\x07bell\u200b zw " + "q" * 100 + "\n"),
        ("ctl-at-unit-cap", "x" * 24999 + "\u200b" + "y" * 10),
    ]
    for name, t in odd:
        add(name, t)
    for k in range(10):  # random soup of odd chars in index lines
        pool = ["a", "b", " ", "\t", "\r", "\r\n", "\x01", "\x1f", "\u200b", "\u2028", "\ufeff", "😀", "漢",
                "\ue000", "<tick>", "</system-reminder>", "<!-- c -->", "\u00a0", "\u0085", "é", "\u0301"]
        t = "\n".join("- [R%d](r%d.md) — " % (i, i) + "".join(r.choice(pool) for _ in range(r.randint(0, 30)))
                      for i in range(r.randint(3, 30)))
        add("soup-%d" % k, t)

    # --- the 4 MiB rule ---
    fill = "- [Index entry](index_entry.md) — a line for the four MiB case\n"
    for n in (4194304, 4194305):
        add("size-%d" % n, recipe={"fill": fill, "bytes": n})
    add("size-4194304-multibyte", recipe={"fill": "- [漢字](k.md) — 😀 emoji é\n", "bytes": 4194304})
    add("size-4194305-multibyte", recipe={"fill": "- [漢字](k.md) — 😀 emoji é\n", "bytes": 4194305})

    # --- the environment override (step 0) ---
    body = "- [A](a.md) — FILE-INDEX\n"
    add("env-empty", body, mode="env", env={"CLAUDE_COWORK_MEMORY_INDEX_CONTENT": ""})
    add("env-content", body, mode="env",
        env={"CLAUDE_COWORK_MEMORY_INDEX_CONTENT": "- [Env](env.md) — ENV-INDEX-MARKER"})
    add("env-content-201", body, mode="env",
        env={"CLAUDE_COWORK_MEMORY_INDEX_CONTENT": lines(201)})
    add("env-content-fm", body, mode="env",
        env={"CLAUDE_COWORK_MEMORY_INDEX_CONTENT": "---\nname: x\n---\n<!-- c -->\n- [E](e.md) <tick>"})
    add("env-blank", body, mode="env", env={"CLAUDE_COWORK_MEMORY_INDEX_CONTENT": "  \n "})
    add("stores-set", body, mode="recall", env={"CLAUDE_MEMORY_STORES": '[{"path":"/me","scope":"user"}]'})

    # --- backfill: no MEMORY.md (§2.7.4, A.13) ---
    def fm(name, desc, typ="project"):
        return "---\nname: %s\ndescription: %s\ntype: %s\n---\nbody\n" % (name, desc, typ)
    add("backfill-a13", kind="backfill", files=[
        {"path": "long.md", "text": fm("long", "L" + " word" * 60), "age": 10},
        {"path": "paren(x).md", "text": fm("p", "paren"), "age": 20},
        {"path": "sub/logs/x.md", "text": fm("x", "sub logs"), "age": 30},
        {"path": "team/t.md", "text": fm("t", "team"), "age": 40},
        {"path": "num.md", "text": "---\nname: num\ndescription: 42\ntype: user\n---\nb\n", "age": 50},
        {"path": "nested.md", "text": "---\nname: nested\ndescription: nested type desc\nmetadata:\n  type: user\n---\nb\n", "age": 60},
        {"path": "sessions/s.md", "text": fm("s", "sessions"), "age": 70},
        {"path": "Logs/up.md", "text": fm("up", "upper logs"), "age": 80},
        {"path": "deep/e.md", "text": fm("e", "deep file"), "age": 90},
        {"path": "hard.md", "text": fm("hard", "hard link"), "age": 100},
        {"path": "target.md", "text": fm("target", "symlink target"), "age": 110},
        {"path": "nofm.md", "text": "no frontmatter here\n", "age": 120},
        {"path": "multi.md", "text": fm("multi", "multi   space\ttab desc"), "age": 130},
        {"path": "x y.md", "text": fm("xy", "space in name"), "age": 140},
        {"path": "notes.txt", "text": "not md\n", "age": 150},
    ], links=[{"path": "link.md", "symlink": "target.md"}, {"path": "hard2.md", "hardlink": "hard.md"}])
    add("backfill-150", kind="backfill", files=[
        {"path": "f%03d.md" % i, "text": fm("f%03d" % i, "d%03d" % i), "age": 1000 - i} for i in range(150)])
    add("backfill-130-long", kind="backfill", files=[
        {"path": "n%s.md" % ("%03d" % i).rjust(21, "q"), "text": fm("n%d" % i, ("long description %03d " % i * 8)[:155]),
         "age": 1000 - i} for i in range(130)])
    add("backfill-empty-index", kind="backfill", index="",
        files=[{"path": "a.md", "text": fm("a", "aa"), "age": 10}])
    add("backfill-hidden-logs", kind="backfill", files=[
        {"path": ".hidden/a.md", "text": fm("a", "aa"), "age": 10},
        {"path": "logs/b.md", "text": fm("b", "bb"), "age": 20}])
    add("backfill-empty-subdir", kind="backfill", files=[], dirs=["sub"])
    add("backfill-odd-desc", kind="backfill", files=[
        {"path": "tag.md", "text": fm("tag", "has <system-reminder> tag"), "age": 10},
        {"path": "zw.md", "text": fm("zw", "zero\u200bwidth"), "age": 20},
        {"path": "br[x].md", "text": fm("br", "bracket"), "age": 30},
        {"path": "emoji.md", "text": fm("emoji", "😀" * 100), "age": 40},
        {"path": "nodesc.md", "text": "---\nname: nodesc\ntype: user\n---\nb\n", "age": 50}])
    return out


def build(row):
    if "recipe" in row:
        rc = row["recipe"]
        line = rc["fill"].encode()
        n = rc["bytes"]
        return (line * (n // len(line) + 1))[:n]
    return row.get("input", "").encode("utf-8", "surrogatepass")


def cc_run(run, env):
    args = [CC_RUN, "--run-dir", run]
    for k, v in env.items():
        args += ["--env", "%s=%s" % (k, v)]
    p = subprocess.run(args, stdout=subprocess.PIPE, text=True)
    if p.returncode == 2 or not p.stdout.strip():
        sys.exit("load.py: cc-run failed")
    return json.loads(p.stdout)


def injected(summary):
    """The text after the MEMORY.md header, up to the end of its system-reminder."""
    with open(summary["logs"]["api"]) as f:
        reqs = [json.loads(l) for l in f]
    for r in reqs:
        b = r.get("body")
        if not isinstance(b, dict) or not b.get("tools"):
            continue
        first = next((m for m in b.get("messages") or [] if m.get("role") == "user"), None)
        content = first.get("content") if first else []
        for c in content if isinstance(content, list) else [{"text": content}]:
            t = c.get("text", "") if isinstance(c, dict) else ""
            i = t.find(HEADER)
            if i < 0:
                continue
            rest = t[i + len(HEADER):]
            end = rest.rfind("\n</system-reminder>")
            return rest if end < 0 else rest[:end]
        return None
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", action="append")
    ap.add_argument("--limit", type=int)
    ap.add_argument("--out", default=os.path.join(OUT, "load.jsonl"))
    args = ap.parse_args()
    rows = [c for c in cases() if not args.only or c["case"] in args.only]
    names = [c["case"] for c in rows]
    assert len(names) == len(set(names)), "duplicate case names"
    if args.limit:
        rows = rows[:args.limit]
    run = tempfile.mkdtemp(prefix="cc-oracle-load.")
    probe = cc_run(run, {})
    memdir = probe["memory_dir"] or sys.exit("load.py: memory is off in this setup")
    out = open(args.out, "w", encoding="utf-8")
    for row in rows:
        shutil.rmtree(memdir, ignore_errors=True)
        os.makedirs(memdir)
        now = time.time()
        if row.get("kind") == "backfill":
            for d in row.get("dirs", []):
                os.makedirs(os.path.join(memdir, d), exist_ok=True)
            for f in row["files"]:
                p = os.path.join(memdir, f["path"])
                os.makedirs(os.path.dirname(p), exist_ok=True)
                with open(p, "w", encoding="utf-8") as fh:
                    fh.write(f["text"])
                os.utime(p, (now - f["age"], now - f["age"]))
            for l in row.get("links", []):
                p = os.path.join(memdir, l["path"])
                if "symlink" in l:
                    os.symlink(l["symlink"], p)
                else:
                    os.link(os.path.join(memdir, l["hardlink"]), p)
            if "index" in row:
                with open(os.path.join(memdir, "MEMORY.md"), "w") as fh:
                    fh.write(row["index"])
        else:
            with open(os.path.join(memdir, "MEMORY.md"), "wb") as fh:
                fh.write(build(row))
        summary = cc_run(run, row.get("env", {}))
        text = injected(summary)
        obs = {"loaded": text is not None, "text": text}
        if row.get("kind") == "backfill":
            p = os.path.join(memdir, "MEMORY.md")
            obs["written"] = open(p, encoding="utf-8").read() if os.path.isfile(p) else None
        rec = dict(row, claude_version=summary["claude_version"], observed=obs)
        out.write(json.dumps(rec, ensure_ascii=False) + "\n")
        out.flush()
        print("%-36s %s" % (row["case"], "nothing" if text is None else "%d chars" % len(text)), flush=True)
    out.close()
    print("%d cases -> %s (runs in %s)" % (len(rows), args.out, run))


if __name__ == "__main__":
    main()
