#!/usr/bin/env bash
# memctl's GitHub Action (action.yml, SPEC v3 §13): lint every memory dir a
# repository tracks, and check what Claude Code would load of its MEMORY.md.
# Findings become workflow annotations (`memctl lint --format github`); a cut
# index is an `::error` on its MEMORY.md.
#
# Run from the repository's root (the Action's working directory). Inputs, as the
# Action passes them (each also works by hand):
#   INPUT_PATHS       memory dirs, one per line or separated by spaces; globs are
#                     expanded by bash. Default: every directory holding a tracked
#                     MEMORY.md, and every tracked `.claude/memory/` dir.
#   INPUT_FAIL_LEVEL  error (default): fail on lint errors and a cut MEMORY.md;
#                     warning: also on lint warnings (`lint --strict`);
#                     never: annotate only.
#   MEMCTL_BIN        the memctl binary (default: memctl on PATH)
# The repository root is each dir's project (`--project .`), so lint compares
# memories with its CLAUDE.md and AGENTS files (ML119) and reads its settings (ML4xx).
# Exit status: 0 clean (or below the fail level), 1 findings at the fail level,
# 2 usage or runtime error.
set -uo pipefail

memctl=${MEMCTL_BIN:-memctl}
level=${INPUT_FAIL_LEVEL:-error}
case "$level" in
  error|warning|never) ;;
  *) echo "memctl-action: fail-level must be error, warning or never, not \`$level\`" >&2; exit 2 ;;
esac
if ! command -v "$memctl" >/dev/null 2>&1; then
  echo "memctl-action: memctl not found: $memctl" >&2
  exit 2
fi

# Workflow-command escaping of a message (GitHub: %, CR, LF).
escape() {
  local s=$1
  s=${s//'%'/%25}
  s=${s//$'\r'/%0D}
  s=${s//$'\n'/%0A}
  printf '%s' "$s"
}

dirs=()
if [ -n "${INPUT_PATHS:-}" ]; then
  # Word splitting and globbing of the input are the point here.
  shopt -s nullglob globstar
  # shellcheck disable=SC2206
  words=(${INPUT_PATHS})
  shopt -u nullglob globstar
  for d in "${words[@]}"; do
    if [ ! -d "$d" ]; then
      echo "memctl-action: not a directory: $d" >&2
      exit 2
    fi
    dirs+=("${d%/}")
  done
else
  while IFS= read -r d; do
    dirs+=("$d")
  done < <(
    git ls-files -z -- ':(glob)**/MEMORY.md' ':(glob)**/.claude/memory/**' 2>/dev/null |
      tr '\0' '\n' |
      sed -E -e 's#/\.claude/memory/.*#/.claude/memory#' -e 's#^\.claude/memory/.*#.claude/memory#' \
        -e 's#^MEMORY\.md$#.#' -e 's#/MEMORY\.md$##' |
      sort -u
  )
fi
if [ ${#dirs[@]} -eq 0 ]; then
  echo "::notice title=memctl::no tracked memory dir (no MEMORY.md or .claude/memory/ in git); set the paths input to check others"
  exit 0
fi

lint_args=(lint --format github)
[ "$level" = warning ] && lint_args+=(--strict)
status=0
fail() { # the worst exit status so far: 2 over 1 over 0
  if [ "$1" -eq 2 ] || { [ "$1" -eq 1 ] && [ "$status" -eq 0 ]; }; then status=$1; fi
}

for d in "${dirs[@]}"; do
  echo "::group::memctl lint $d"
  "$memctl" --dir "$d" --project . "${lint_args[@]}"
  rc=$?
  echo "::endgroup::"
  case $rc in
    0) ;;
    1) [ "$level" != never ] && fail 1 ;;
    *) echo "::error title=memctl lint::memctl lint failed on $(escape "$d") (exit $rc)"; fail 2 ;;
  esac
  [ -f "$d/MEMORY.md" ] || continue
  echo "::group::memctl truncate-check $d"
  out=$("$memctl" --dir "$d" truncate-check 2>&1)
  rc=$?
  printf '%s\n' "$out"
  echo "::endgroup::"
  case $rc in
    0) ;;
    1)
      echo "::error file=$d/MEMORY.md,title=memctl truncate-check::$(escape "Claude Code would not load all of this MEMORY.md:"$'\n'"$out")"
      [ "$level" != never ] && fail 1
      ;;
    *) echo "::error title=memctl truncate-check::memctl truncate-check failed on $(escape "$d") (exit $rc)"; fail 2 ;;
  esac
done
exit $status
