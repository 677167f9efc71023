#!/usr/bin/env bash
# Runs README.md's test command N times (default 3) on a clean clone of this repository's HEAD,
# as CI would (CI=true), and prints for each run: pass or fail, its duration and the names of the
# tests that failed. Exits 1 if any run failed.
#
#   bench/suite_stability.sh [N]
#
# The clone is made once; between runs everything git does not track is removed except the
# virtualenv, which the test command itself brings up to date. Logs stay in the printed folder.
set -uo pipefail
runs="${1:-3}"
case "$runs" in '' | *[!0-9]* | 0) echo "usage: $0 [N], N a whole number from 1" >&2; exit 2 ;; esac
repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel) || exit 2
work=$(mktemp -d "${TMPDIR:-/tmp}/suite-stability.XXXXXX")
git clone -q "$repo" "$work/clone" || exit 2
cd "$work/clone" || exit 2
test_command=$(bash .ci/test_command.sh README.md)
[ -n "$test_command" ] || { echo "README.md has no test command" >&2; exit 2; }
echo "commit $(git rev-parse --short HEAD), $(nproc) cores, logs in $work"
echo "+ $test_command"
failed_runs=0
for run in $(seq 1 "$runs"); do
  git clean -xdfq -e .venv
  log="$work/run-$run.log"
  started=$(date +%s)
  CI=true bash -c "$test_command" >"$log" 2>&1
  status=$?
  seconds=$(( $(date +%s) - started ))
  duration=$(printf '%dm%02ds' $((seconds / 60)) $((seconds % 60)))
  counts=$(grep -E '^=+ .*(passed|failed|error).* in [0-9.]+s' "$log" | tail -n 1 | sed -E 's/^=+ //; s/ =+$//')
  if [ "$status" -eq 0 ]; then
    line="run $run: PASS  $duration  ${counts:-no pytest summary}"
  else
    failed_runs=$((failed_runs + 1))
    names=$(grep -E '^(FAILED|ERROR) ' "$log" | sed -E 's/^(FAILED|ERROR) ([^ ]+).*/\2/' | sort -u | paste -sd ' ' -)
    line="run $run: FAIL  $duration  ${counts:-exit $status}  failed: ${names:-see $log}"
  fi
  echo "$line"
done
echo
echo "$((runs - failed_runs)) of $runs runs green"
[ "$failed_runs" -eq 0 ]
