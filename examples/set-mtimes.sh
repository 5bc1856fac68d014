#!/bin/sh
# Give the example memory dir the modification times the README's example output
# shows (git sets every file's mtime to the checkout time). Run once after cloning:
#   sh examples/set-mtimes.sh
# then use MEMCTL_NOW=2026-03-10T12:00:00Z for the README's ages.
set -e
cd "$(dirname "$0")/memory"
export TZ=UTC0
touch -t 202603101000 MEMORY.md
touch -t 202603100937 team/MEMORY.md
touch -t 202603100936 team/release_checklist.md
touch -t 202603091620 feedback_bundled_refactor_prs.md
touch -t 202603081200 project_merge_freeze.md
touch -t 202603071015 feedback_terse_summaries.md
touch -t 202603060900 user_profile.md
touch -t 202603041430 feedback_testing_policy.md
touch -t 202603021145 project_auth_rewrite.md
touch -t 202602200800 reference_grafana_latency.md
touch -t 202602111710 reference_linear_ingest.md
