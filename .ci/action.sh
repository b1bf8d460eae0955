#!/usr/bin/env bash
# The script of the root action.yml: runs `tch run` from the action's inputs (INPUT_* variables),
# appends summary.md to the job summary, and names the reports in the step's outputs. Its exit
# status is tch's: 0 when nothing unexpected failed, 1 when something did, 2 when the run could
# not start. Tested without GitHub by harness/tch/tests/action.rs, with a fake
# GITHUB_STEP_SUMMARY and GITHUB_OUTPUT; TCH_BIN names the tch to run (default: `tch` on PATH).
set -euo pipefail

tch="${TCH_BIN:-tch}"
report_dir="${INPUT_REPORT_DIR:-tch-report}"
if [[ -z "${INPUT_CANDIDATE:-}" ]]; then
  echo "tch action: the input 'candidate' is required (the command that starts your adapter)" >&2
  exit 2
fi

args=(run --report-dir "$report_dir" --candidate "$INPUT_CANDIDATE")
# Dialects split on commas and blanks, over any number of lines.
IFS=$', \t\n' read -r -d '' -a dialects <<< "${INPUT_DIALECTS:-}" || true
for dialect in "${dialects[@]}"; do
  [[ -n "$dialect" ]] && args+=(--dialect "$dialect")
done
if [[ -n "${INPUT_EXPECT_FAIL:-}" ]]; then
  args+=(--expect-fail "$INPUT_EXPECT_FAIL")
fi
# Extra arguments split on blanks and newlines (a YAML block works), never evaluated by a shell:
# quotes are not removed, so write globs bare (`--case hermes/*`).
read -r -d '' -a extra <<< "${INPUT_ARGS:-}" || true
args+=("${extra[@]}")

# Reports left by an earlier step must not pass for this run's.
rm -f "$report_dir/summary.md" "$report_dir/report.json" "$report_dir/junit.xml"

echo "tch ${args[*]}"
status=0
"$tch" "${args[@]}" || status=$?

if [[ -f "$report_dir/summary.md" ]]; then
  if [[ -n "${GITHUB_STEP_SUMMARY:-}" ]]; then
    cat "$report_dir/summary.md" >> "$GITHUB_STEP_SUMMARY"
  fi
elif [[ -n "${GITHUB_STEP_SUMMARY:-}" ]]; then
  printf '## tch\n\nThe run could not start (exit %s): see the step log.\n' "$status" >> "$GITHUB_STEP_SUMMARY"
fi
if [[ -n "${GITHUB_OUTPUT:-}" ]]; then
  {
    echo "report-dir=$report_dir"
    echo "junit=$report_dir/junit.xml"
  } >> "$GITHUB_OUTPUT"
fi
exit "$status"
