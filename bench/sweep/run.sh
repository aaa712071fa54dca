#!/usr/bin/env bash
# The sweep benchmark: 200 configurations of 8 GPUs from scratch with --jobs N (default: every core),
# reporting configurations per second and the CPU share used (200 % = both cores of the CI machine).
# From the repository root after `make`: bench/sweep/run.sh [JOBS]
set -euo pipefail
pipegrid=${PIPEGRID:-build/pipegrid}
jobs=${1:-$(nproc)}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
/usr/bin/time -f "%e %P" -o "$out/time" "$pipegrid" sweep bench/sweep/sweep.toml --out "$out/sweep" --jobs "$jobs" \
  2> "$out/progress"
read -r wall cpu < "$out/time"
rows=$(($(wc -l < "$out/sweep/results.csv") - 1))
ok=$(grep -c ',ok,' "$out/sweep/results.csv" || true)
echo "sweep of $rows configurations ($ok ok), --jobs $jobs: $wall s wall, $(awk -v n="$rows" -v w="$wall" \
  'BEGIN { printf "%.1f", n / w }') configurations/s, $cpu CPU"
