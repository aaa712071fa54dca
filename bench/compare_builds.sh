#!/usr/bin/env bash
# Two builds of pipegrid on the headline runs, alternating, each run's fastest of ROUNDS (3) rounds by
# user time: Megatron-1T 1F1B (3072 GPUs, --trace off), the same writing its outputs (--out, the
# default trace), the same at --log-level debug, and DeepSeek-V3 DualPipe with DeepEP flows (2048 GPUs,
# --out, trace off). Prints user time, wall time and peak RSS of each, and the new build's ratio to the
# old. Reports only: nothing is asserted (docs/performance.md keeps the numbers).
# From the repository root: bench/compare_builds.sh OLD_PIPEGRID NEW_PIPEGRID
set -euo pipefail
old=${1:?usage: compare_builds.sh OLD_PIPEGRID NEW_PIPEGRID}
new=${2:?usage: compare_builds.sh OLD_PIPEGRID NEW_PIPEGRID}
rounds=${ROUNDS:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
megatron=(--platform platforms/superpod-a100-384node.xml --tp 8 --pp 64 --dp 6 --microbatches 512 --model gpt-1t
          --recompute full --scatter-gather --tp-comm analytic --dp-comm flow --schedule 1f1b)
deepseek=(--platform platforms/h800-256node.xml --pp 16 --dp 128 --ep 64 --microbatches 32 --model deepseek-v3
          --uneven-layers --flash-attention --distributed-optimizer --comm-sm-fraction 0.1515 --trace off
          --dp-comm analytic --schedule dualpipe --ep-comm flow)

# run NAME BINARY ARGS…: "user wall rss_kb" of NAME's fastest round so far (by user time) in $work/NAME.
run() {
  local name=$1 binary=$2
  shift 2
  rm -rf "$work/out"
  /usr/bin/time -f "%U %e %M" -o "$work/$name.try" "$binary" simulate "$@" > /dev/null 2> "$work/$name.err"
  if [ ! -f "$work/$name" ] || awk '{ exit !($1 < best) }' best="$(cut -d' ' -f1 "$work/$name")" "$work/$name.try"; then
    mv "$work/$name.try" "$work/$name"
  fi
}
for ((round = 1; round <= rounds; ++round)); do
  for build in old new; do
    binary=$old
    [ "$build" = new ] && binary=$new
    run "$build-megatron" "$binary" "${megatron[@]}" --trace off
    run "$build-megatron-out" "$binary" "${megatron[@]}" --out "$work/out"
    run "$build-deepseek" "$binary" "${deepseek[@]}" --out "$work/out"
  done
  run new-megatron-debug "$new" "${megatron[@]}" --trace off --log-level debug
done
echo "fastest of $rounds rounds by user time, old then new, alternating"
printf '%-28s %9s %9s %9s %9s %9s %9s %8s %8s\n' run "old user" "new user" "old wall" "new wall" "old MB" "new MB" user RSS
for name in megatron megatron-out deepseek; do
  read -r ou ow orss < "$work/old-$name"
  read -r nu nw nrss < "$work/new-$name"
  awk -v l="$name" -v ou="$ou" -v nu="$nu" -v ow="$ow" -v nw="$nw" -v orss="$orss" -v nrss="$nrss" \
    'BEGIN { printf "%-28s %9.2f %9.2f %9.2f %9.2f %9.0f %9.0f %+7.1f%% %+7.1f%%\n", l, ou, nu, ow, nw, orss / 1024,
             nrss / 1024, 100 * (nu / ou - 1), 100 * (nrss / orss - 1) }'
done
read -r du dw drss < "$work/new-megatron-debug"
read -r nu _ _ < "$work/new-megatron"
awk -v du="$du" -v dw="$dw" -v drss="$drss" -v nu="$nu" \
  'BEGIN { printf "new megatron --log-level debug: %.2f s user, %.2f s wall, %.0f MB; %+.1f%% user against warn\n",
           du, dw, drss / 1024, 100 * (du / nu - 1) }'
echo "debug's stderr: $(wc -l < "$work/new-megatron-debug.err") lines, $(wc -c < "$work/new-megatron-debug.err") bytes"
