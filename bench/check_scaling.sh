#!/usr/bin/env bash
# `pipegrid check` on CSVs of 10^4, 10^5 and 10^6 ranks of two actions each (line r: `rF0,rB0`, one
# micro-batch through r stages), and `pipegrid schedule --schedule 1f1b --pp 512 --microbatches 8192`:
# wall time and peak RSS under /usr/bin/time -v, and the cost per action. Both should grow linearly in
# the actions (issue 33: check on 10^5 ranks took a minute, 10^6 did not finish). Usage, from the
# repository root after `make`:
#   bench/check_scaling.sh [RANKS…]     (10000 100000 1000000 by default)
set -euo pipefail
pipegrid=${PIPEGRID:-build/pipegrid}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10000 100000 1000000)

# Runs "$@" under /usr/bin/time -v, prints LABEL ACTIONS wall-s user-s RSS-MB and user microseconds
# per action (user time, which a neighbour's load on a shared machine moves less than wall time).
measure() {
  local label=$1 actions=$2
  shift 2
  /usr/bin/time -v -o "$work/time" "$@" > "$work/out"
  awk -v l="$label" -v a="$actions" -F': ' '
    /Elapsed \(wall clock\)/ { n = split($2, t, ":"); wall = (n == 3) ? t[1] * 3600 + t[2] * 60 + t[3] : t[1] * 60 + t[2] }
    /User time \(seconds\)/ { user = $2 }
    /Maximum resident set size/ { rss = $2 }
    END { printf "%-44s %10d %9.2f %9.2f %9.0f %12.3f\n", l, a, wall, user, rss / 1024, 1e6 * user / a }' "$work/time"
}

printf '%-44s %10s %9s %9s %9s %12s\n' "case" "actions" "wall s" "user s" "RSS MB" "us/action"
for ranks in "${sizes[@]}"; do
  awk -v n="$ranks" 'BEGIN { for (r = 0; r < n; ++r) printf "%dF0,%dB0\n", r, r }' > "$work/ranks-$ranks.csv"
  measure "check, $ranks ranks x (rF0,rB0)" $((2 * ranks)) "$pipegrid" check "$work/ranks-$ranks.csv"
done
measure "schedule 1f1b --pp 512 --microbatches 8192" $((2 * 512 * 8192)) \
  "$pipegrid" schedule --schedule 1f1b --pp 512 --microbatches 8192 --format json
