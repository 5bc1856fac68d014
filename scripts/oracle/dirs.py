#!/usr/bin/env python3
"""dirs: record which memory dir the real Claude Code client uses, and whether auto
memory is on, for many setups (SPEC §2.2, §2.3, A.3-A.5).

usage: scripts/cc-oracle dirs [--root DIR] [--only NAME]... [--no-memctl]

Each setup is built in <root>/<name>/ (a fake home under home/, the project, settings
files, git repositories and worktrees), the client runs once there in print mode
(cc-run), and one JSON line goes to $CC_ORACLE_OUT/dirs.jsonl:

  {"setup": NAME, "mode": "default", "input": {...}, "claude_version": "2.1.332",
   "observed": {"memory_dir": "$RUN/home/.claude/projects/$RUN_KEY-project/memory/"
                               or null when memory is off,
                "transcripts_dir": "$RUN/home/.claude/projects/..." or null}}

Paths are written with the setup's dir as $RUN and its sanitizePath form as $RUN_KEY,
so a test can rebuild the setup anywhere. Long paths (over 200 sanitized units) get a
hashed key that depends on the whole path: those rows also record `project_path`,
`memory_key` and `transcripts_key` exactly, and a test compares them with
`memctl path --key-for`. The setups are fixed (no randomness); the default root is a
fixed path so the long keys are reproducible.

With a memctl binary ($MEMCTL_BIN, default target/debug/memctl) each setup also prints
memctl's answer beside the client's; memctl's answer is never written to the file.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

HARNESS = os.environ.get("CC_HARNESS", "")
CC_RUN = os.path.join(HARNESS, "cc-run")
OUT = os.environ.get("CC_ORACLE_OUT", ".")
HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_MEMCTL = os.path.join(HERE, "..", "..", "target", "debug", "memctl")

LOCAL = ".claude/settings.local.json"
PROJ = ".claude/settings.json"


def units(s):
    return len(s.encode("utf-16-le")) // 2


# A setup: layout (git | plain | worktree | worktree-rel | bare-worktree | symlink |
# long), cwd (relative to the project), files (relative to the run dir; JSON objects
# are written as JSON, strings as they are), user (user settings), env, unset,
# untrusted, global (extra `projects` entries of the global config, keys relative to
# the run dir). "$RUN" in any string is the run dir; "~" stays for the client.
SETUPS = [
    ("git-root", {}),
    ("git-subdir", {"cwd": "src/deep"}),
    ("not-git", {"layout": "plain"}),
    ("not-git-subdir", {"layout": "plain", "cwd": "sub"}),
    ("symlinked-cwd", {"layout": "symlink"}),
    # user settings: autoMemoryDirectory values (SPEC §2.2.4, A.3)
    ("user-tilde", {"user": {"autoMemoryDirectory": "~/notes-memory"}}),
    ("user-absolute", {"user": {"autoMemoryDirectory": "$RUN/abs-mem//x/../y/"}}),
    ("user-tilde-dotdot", {"user": {"autoMemoryDirectory": "~/.."}}),
    ("user-tilde-dotdot-x", {"user": {"autoMemoryDirectory": "~/../x"}}),
    ("user-tilde-foo-dotdot-dotdot-x", {"user": {"autoMemoryDirectory": "~/foo/../../x"}}),
    ("user-tilde-dotdotx", {"user": {"autoMemoryDirectory": "~/..x"}}),
    ("user-tilde-slash", {"user": {"autoMemoryDirectory": "~/"}}),
    ("user-bare-tilde", {"user": {"autoMemoryDirectory": "~"}}),
    ("user-relative", {"user": {"autoMemoryDirectory": "relative/dir"}}),
    ("user-empty", {"user": {"autoMemoryDirectory": ""}}),
    ("user-net", {"user": {"autoMemoryDirectory": "/net/host/mem"}}),
    ("user-vol", {"user": {"autoMemoryDirectory": "/.vol/1/2"}}),
    ("user-root-slash", {"user": {"autoMemoryDirectory": "/"}}),
    ("user-unc", {"user": {"autoMemoryDirectory": "//server/share"}}),
    ("user-invalid-json", {"files": {"home/.claude/settings.json": '{"autoMemoryDirectory": "~/x",'}}),
    ("user-wrong-type-enabled", {"user": {"autoMemoryDirectory": "~/x", "autoMemoryEnabled": "no"}}),
    ("user-wrong-type-dir", {"user": {"autoMemoryDirectory": 42, "autoMemoryEnabled": False}}),
    ("user-null-dir", {"user": {"autoMemoryDirectory": None}}),
    ("user-top-level-array", {"files": {"home/.claude/settings.json": "[1]"}}),
    ("user-enabled-false", {"user": {"autoMemoryEnabled": False}}),
    # project settings and trust (SPEC §2.2.1 step 2, A.4)
    ("project-enabled-false", {"files": {"project/" + PROJ: {"autoMemoryEnabled": False}}}),
    ("user-true-project-false", {"user": {"autoMemoryEnabled": True},
                                 "files": {"project/" + PROJ: {"autoMemoryEnabled": False}}}),
    ("project-enabled-false-untrusted", {"untrusted": True,
                                         "files": {"project/" + PROJ: {"autoMemoryEnabled": False}}}),
    ("project-false-at-root-from-subdir", {"cwd": "sub",
                                           "files": {"project/" + PROJ: {"autoMemoryEnabled": False}}}),
    ("project-dir-trusted", {"files": {"project/" + PROJ: {"autoMemoryDirectory": "~/proj-memory"}}}),
    ("project-dir-untrusted", {"untrusted": True,
                               "files": {"project/" + PROJ: {"autoMemoryDirectory": "~/proj-memory"}}}),
    ("project-dir-trust-false", {"untrusted": True,
                                 "global": {"project": {"hasTrustDialogAccepted": False}},
                                 "files": {"project/" + PROJ: {"autoMemoryDirectory": "~/proj-memory"}}}),
    ("project-dir-over-user-untrusted", {"untrusted": True, "user": {"autoMemoryDirectory": "~/mymem"},
                                         "files": {"project/" + PROJ: {"autoMemoryDirectory": "~/proj-memory"}}}),
    ("project-dir-ignore-trust", {"env": {"CLAUDE_CODE_IGNORE_PERSISTED_TRUST": "1"},
                                  "files": {"project/" + PROJ: {"autoMemoryDirectory": "~/proj-memory"}}}),
    ("project-dir-ignore-trust-user", {"env": {"CLAUDE_CODE_IGNORE_PERSISTED_TRUST": "1"},
                                       "user": {"autoMemoryDirectory": "~/mymem"},
                                       "files": {"project/" + PROJ: {"autoMemoryDirectory": "~/proj-memory"}}}),
    ("local-dir-ignore-trust", {"env": {"CLAUDE_CODE_IGNORE_PERSISTED_TRUST": "1"},
                                "files": {"project/" + LOCAL: {"autoMemoryDirectory": "~/local-memory"}}}),
    ("project-dir-at-root-from-subdir", {"cwd": "sub",
                                         "files": {"project/" + PROJ: {"autoMemoryDirectory": "~/proj-memory"}}}),
    ("project-dir-invalid-masks-user", {"user": {"autoMemoryDirectory": "~/mymem"},
                                        "files": {"project/" + PROJ: {"autoMemoryDirectory": "rel"}}}),
    # local settings at the canonical git root (SPEC §2.2.3)
    ("local-dir", {"files": {"project/" + LOCAL: {"autoMemoryDirectory": "~/local-memory"}}}),
    ("local-dir-untrusted", {"untrusted": True,
                             "files": {"project/" + LOCAL: {"autoMemoryDirectory": "~/local-memory"}}}),
    ("local-at-root-from-subdir", {"cwd": "src",
                                   "files": {"project/" + LOCAL: {"autoMemoryDirectory": "~/local-memory"}}}),
    ("local-both-files-root-wins", {"cwd": "sub",
                                    "files": {"project/" + LOCAL: {"autoMemoryDirectory": "~/root"},
                                              "project/sub/" + LOCAL: {"autoMemoryDirectory": "~/legacy"}}}),
    ("local-both-files-merge", {"cwd": "sub",
                                "files": {"project/" + LOCAL: {"autoMemoryEnabled": True},
                                          "project/sub/" + LOCAL: {"autoMemoryDirectory": "~/legacy"}}}),
    ("local-subdir-only", {"cwd": "sub",
                           "files": {"project/sub/" + LOCAL: {"autoMemoryDirectory": "~/legacy"}}}),
    ("local-false-at-root-from-subdir", {"cwd": "sub",
                                         "files": {"project/" + LOCAL: {"autoMemoryEnabled": False}}}),
    ("local-false-subdir-only", {"cwd": "sub",
                                 "files": {"project/sub/" + LOCAL: {"autoMemoryEnabled": False}}}),
    ("local-in-non-git-parent", {"layout": "plain", "cwd": "sub",
                                 "files": {"project/" + LOCAL: {"autoMemoryDirectory": "~/local-memory"}}}),
    ("local-relative-masks-user", {"user": {"autoMemoryDirectory": "~/mymem"},
                                   "files": {"project/" + LOCAL: {"autoMemoryDirectory": "relative"}}}),
    ("local-empty-masks-user", {"user": {"autoMemoryDirectory": "~/mymem"},
                                "files": {"project/" + LOCAL: {"autoMemoryDirectory": ""}}}),
    ("local-invalid-json-user", {"user": {"autoMemoryDirectory": "~/mymem"},
                                 "files": {"project/" + LOCAL: "{not json"}}),
    ("local-false-disable-env-false", {"env": {"CLAUDE_CODE_DISABLE_AUTO_MEMORY": "false"},
                                       "files": {"project/" + LOCAL: {"autoMemoryEnabled": False}}}),
    # environment switches (SPEC §2.3, A.5)
    ("disable-1", {"env": {"CLAUDE_CODE_DISABLE_AUTO_MEMORY": "1"}}),
    ("disable-true-padded", {"env": {"CLAUDE_CODE_DISABLE_AUTO_MEMORY": " TRUE "}}),
    ("disable-foo", {"env": {"CLAUDE_CODE_DISABLE_AUTO_MEMORY": "foo"}}),
    ("disable-empty", {"env": {"CLAUDE_CODE_DISABLE_AUTO_MEMORY": ""}}),
    ("disable-0-user-false", {"env": {"CLAUDE_CODE_DISABLE_AUTO_MEMORY": "0"},
                              "user": {"autoMemoryEnabled": False}}),
    ("simple-1", {"env": {"CLAUDE_CODE_SIMPLE": "1"}}),
    ("simple-1-disable-0", {"env": {"CLAUDE_CODE_SIMPLE": "1", "CLAUDE_CODE_DISABLE_AUTO_MEMORY": "0"}}),
    ("safe-mode-1", {"env": {"CLAUDE_CODE_SAFE_MODE": "1"}}),
    ("safe-mode-1-disable-0", {"env": {"CLAUDE_CODE_SAFE_MODE": "1", "CLAUDE_CODE_DISABLE_AUTO_MEMORY": "0"}}),
    ("remote-1", {"env": {"CLAUDE_CODE_REMOTE": "1"}}),
    ("remote-1-memory-dir", {"env": {"CLAUDE_CODE_REMOTE": "1", "CLAUDE_CODE_REMOTE_MEMORY_DIR": "$RUN/rmem"}}),
    ("remote-1-cowork", {"env": {"CLAUDE_CODE_REMOTE": "1", "CLAUDE_COWORK_MEMORY_PATH_OVERRIDE": "$RUN/cw"}}),
    ("remote-1-cowork-relative", {"env": {"CLAUDE_CODE_REMOTE": "1",
                                          "CLAUDE_COWORK_MEMORY_PATH_OVERRIDE": "relative"}}),
    ("remote-1-disable-0", {"env": {"CLAUDE_CODE_REMOTE": "1", "CLAUDE_CODE_DISABLE_AUTO_MEMORY": "0"}}),
    ("remote-memory-dir", {"env": {"CLAUDE_CODE_REMOTE_MEMORY_DIR": "$RUN/rmem"}}),
    ("cowork", {"env": {"CLAUDE_COWORK_MEMORY_PATH_OVERRIDE": "$RUN/cw"}}),
    ("cowork-padded", {"env": {"CLAUDE_COWORK_MEMORY_PATH_OVERRIDE": "  $RUN/cw  "}}),
    ("cowork-blank", {"env": {"CLAUDE_COWORK_MEMORY_PATH_OVERRIDE": "   "}}),
    ("cowork-relative", {"env": {"CLAUDE_COWORK_MEMORY_PATH_OVERRIDE": "relative/cw"}}),
    ("cowork-tilde", {"env": {"CLAUDE_COWORK_MEMORY_PATH_OVERRIDE": "~/cw"},
                      "user": {"autoMemoryDirectory": "~/mymem"}}),
    ("cowork-over-user", {"env": {"CLAUDE_COWORK_MEMORY_PATH_OVERRIDE": "$RUN/cw"},
                          "user": {"autoMemoryDirectory": "~/mymem"}}),
    ("cowork-net", {"env": {"CLAUDE_COWORK_MEMORY_PATH_OVERRIDE": "/net/host/cw"}}),
    # the named key (SPEC §2.2.1 step 3)
    ("named-valid", {"env": {"CLAUDE_CODE_PROJECT_DIR_NAME": "my_proj-1"}}),
    ("named-dot", {"env": {"CLAUDE_CODE_PROJECT_DIR_NAME": "a.b"}}),
    ("named-device", {"env": {"CLAUDE_CODE_PROJECT_DIR_NAME": "con"}}),
    ("named-too-long", {"env": {"CLAUDE_CODE_PROJECT_DIR_NAME": "x" * 65}}),
    ("named-without-config-dir", {"unset": ["CLAUDE_CONFIG_DIR"],
                                  "env": {"CLAUDE_CODE_PROJECT_DIR_NAME": "my_proj-1"}}),
    ("named-remote-memory-dir", {"env": {"CLAUDE_CODE_PROJECT_DIR_NAME": "my_proj-1",
                                         "CLAUDE_CODE_REMOTE_MEMORY_DIR": "$RUN/rmem"}}),
    # git roots (SPEC §2.2.6)
    ("worktree-absolute", {"layout": "worktree"}),
    ("worktree-relative", {"layout": "worktree-rel"}),
    ("worktree-local-in-main", {"layout": "worktree",
                                "files": {"app/" + LOCAL: {"autoMemoryDirectory": "~/m"}}}),
    ("worktree-subdir", {"layout": "worktree", "cwd": "sub"}),
    ("bare-repo-worktree", {"layout": "bare-worktree"}),
    # long paths (SPEC §2.2.7, A.1)
    ("long-220-ascii", {"layout": "long", "total": 220, "fill": "long"}),
    ("long-251-ascii", {"layout": "long", "total": 251, "fill": "path"}),
    ("long-201-ascii", {"layout": "long", "total": 201, "fill": "x"}),
    ("long-200-ascii", {"layout": "long", "total": 200, "fill": "y"}),
    ("long-umlaut-emoji", {"layout": "long", "total": 230, "head": "\u00fcber-\U0001F600-", "fill": "d"}),
    ("long-cjk", {"layout": "long", "total": 240, "head": "\u65e5\u672c\u8a9e-", "fill": "z"}),
    ("long-decomposed", {"layout": "long", "total": 210, "head": "u\u0308ber-", "fill": "q"}),
    ("long-git-subdir", {"layout": "long", "total": 215, "fill": "r", "cwd": "sub"}),
]


def sub(v, run):
    if isinstance(v, str):
        return v.replace("$RUN", run)
    if isinstance(v, dict):
        return {k: sub(x, run) for k, x in v.items()}
    if isinstance(v, list):
        return [sub(x, run) for x in v]
    return v


def git(*args, cwd=None):
    subprocess.run(["git", "-c", "user.name=o", "-c", "user.email=o@o", "-c", "init.defaultBranch=main",
                    *args], cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def write(path, content):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(content if isinstance(content, str) else json.dumps(content))


def long_name(run, spec):
    """The project dir name that makes `<run>/<name>` exactly spec["total"] units."""
    head = spec.get("head", "project-")
    need = spec["total"] - units(run + "/") - units(head)
    if need < 1:
        sys.exit("dirs: the root is too long for %s" % spec)
    return head + (spec["fill"] * need)[:need]


def build(run, spec):
    """Create the setup; returns (project root as started, cwd, cc-run args)."""
    layout = spec.get("layout", "git")
    if layout in ("git", "plain"):
        project = os.path.join(run, "project")
        os.makedirs(project)
        if layout == "git":
            git("init", "-q", project)
    elif layout == "long":
        project = os.path.join(run, long_name(run, spec))
        os.makedirs(project)
        git("init", "-q", project)
    elif layout == "symlink":
        real = os.path.join(run, "real-project")
        os.makedirs(real)
        git("init", "-q", real)
        project = os.path.join(run, "link")
        os.symlink("real-project", project)
    elif layout in ("worktree", "worktree-rel"):
        app = os.path.join(run, "app")
        os.makedirs(app)
        git("init", "-q", app)
        git("commit", "-q", "--allow-empty", "-m", "init", cwd=app)
        git("worktree", "add", "-q", "../app-wt", cwd=app)
        project = os.path.join(run, "app-wt")
        if layout == "worktree-rel":
            # what git >= 2.48 writes with worktree.useRelativePaths
            write(os.path.join(project, ".git"), "gitdir: ../app/.git/worktrees/app-wt\n")
            write(os.path.join(app, ".git/worktrees/app-wt/gitdir"), "../../../../app-wt/.git\n")
    elif layout == "bare-worktree":
        bare = os.path.join(run, "bare.git")
        git("init", "-q", "--bare", bare)
        tree = subprocess.run(["git", "--git-dir", bare, "hash-object", "-w", "-t", "tree", "/dev/null"],
                              check=True, stdout=subprocess.PIPE, text=True).stdout.strip()
        commit = subprocess.run(["git", "-c", "user.name=o", "-c", "user.email=o@o", "--git-dir", bare,
                                 "commit-tree", tree, "-m", "init"],
                                check=True, stdout=subprocess.PIPE, text=True).stdout.strip()
        git("--git-dir", bare, "update-ref", "refs/heads/main", commit)
        git("--git-dir", bare, "worktree", "add", "-q", os.path.join(run, "bwt"), "main")
        project = os.path.join(run, "bwt")
    else:
        sys.exit("dirs: unknown layout " + layout)
    cwd = os.path.join(project, spec.get("cwd", ""))
    os.makedirs(cwd, exist_ok=True)
    for rel, content in spec.get("files", {}).items():
        write(os.path.join(run, rel), sub(content, run))
    if "user" in spec:
        write(os.path.join(run, "home/.claude/settings.json"), sub(spec["user"], run))
    if "global" in spec:
        projects = {os.path.join(run, k): v for k, v in spec["global"].items()}
        write(os.path.join(run, "home/.claude/.claude.json"), {"projects": projects})
    args = ["--run-dir", run, "--project", cwd]
    args += ["--untrusted"] if spec.get("untrusted") else ["--trust", project]
    for k, v in spec.get("env", {}).items():
        args += ["--env", "%s=%s" % (k, sub(v, run))]
    for k in spec.get("unset", []):
        args += ["--unset", k]
    return project, cwd, args


def cc_run(*args):
    p = subprocess.run([CC_RUN, *args], stdout=subprocess.PIPE, text=True)
    if p.returncode == 2 or not p.stdout.strip():
        sys.exit("dirs: cc-run failed")
    return json.loads(p.stdout)


def memctl_dir(memctl, cwd, env):
    p = subprocess.run([memctl, "path", "--json"], cwd=cwd, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    try:
        out = json.loads(p.stdout)
    except ValueError:
        return "error: " + (p.stderr.strip() or "rc %d" % p.returncode)
    return out["memory_dir"] if out.get("enabled", {}).get("value", True) else None


def transcripts(config_dir):
    """The dirs of <config>/projects holding a session transcript the run wrote."""
    projects = os.path.join(config_dir, "projects")
    found = []
    if os.path.isdir(projects):
        for name in sorted(os.listdir(projects)):
            d = os.path.join(projects, name)
            if os.path.isdir(d) and any(n.endswith(".jsonl") for n in os.listdir(d)):
                found.append(d)
    return found[0] if len(found) == 1 else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default="/tmp/memctl-oracle-dirs")
    ap.add_argument("--only", action="append", metavar="NAME")
    ap.add_argument("--no-memctl", action="store_true")
    args = ap.parse_args()
    memctl = None if args.no_memctl else (os.environ.get("MEMCTL_BIN") or DEFAULT_MEMCTL)
    if memctl and not os.access(memctl, os.X_OK):
        memctl = None
    root = os.path.abspath(args.root)
    names = [n for n, _ in SETUPS]
    if len(set(names)) != len(names):
        sys.exit("dirs: duplicate setup names")
    rows = []
    agree = differ = 0
    for name, spec in SETUPS:
        if args.only and name not in args.only:
            continue
        run = os.path.join(root, name)
        if os.path.lexists(run):
            shutil.rmtree(run)
        os.makedirs(run)
        project, cwd, cc_args = build(run, spec)
        prep = cc_run(*cc_args, "--prepare-only")
        with open(prep["logs"]["env"]) as f:
            env = dict(json.load(f), MEMCTL_HISTORY="off")
        mine = memctl_dir(memctl, cwd, env) if memctl else None
        summary = cc_run(*cc_args)
        client = summary["memory_dir"]
        config_dir = env.get("CLAUDE_CONFIG_DIR") or os.path.join(env["HOME"], ".claude")
        tdir = transcripts(config_dir)
        key = re.sub(r"[^A-Za-z0-9]", "-", run)

        def rel(d):
            return None if d is None else d.replace(run, "$RUN").replace(key, "$RUN_KEY")

        observed = {"memory_dir": rel(client), "transcripts_dir": rel(tdir)}
        if spec.get("layout") == "long":
            real = os.path.realpath(project)
            observed = {"memory_dir": None if client is None else client.replace(run + "/", "$RUN/", 1),
                        "transcripts_dir": None if tdir is None else tdir.replace(run + "/", "$RUN/", 1),
                        "project_path": real, "project_units": units(real),
                        "memory_key": None if client is None else client.rstrip("/").split("/")[-2],
                        "transcripts_key": None if tdir is None else os.path.basename(tdir),
                        "cwd_path": os.path.realpath(cwd)}
        rows.append({"setup": name, "mode": "default", "input": spec,
                     "claude_version": summary["claude_version"], "rc": summary["rc"],
                     "observed": observed})
        if memctl:
            same = mine == client
            agree += same
            differ += not same
            print("%-4s  %-34s client %s" % ("same" if same else "DIFF", name, rel(client) or "off"))
            if not same:
                print("      %-34s memctl %s" % ("", rel(mine) if mine and not mine.startswith("error") else mine or "off"))
        else:
            print("%-34s client %s" % (name, rel(client) or "off"))
        sys.stdout.flush()
    out = os.path.join(OUT, "dirs.jsonl")
    if args.only:
        out = os.path.join(OUT, "dirs.only.jsonl")
    with open(out, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print("%d setups -> %s%s" % (len(rows), out,
                                 "; memctl: %d same, %d differ" % (agree, differ) if memctl else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
