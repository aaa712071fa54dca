#!/usr/bin/env bash
# DeepSeek-V3's layout (2048 H800 GPUs, PP 16, EP 64, DualPipe, m = 32) with its all-to-alls as DeepEP's
# contended flows and as α-β, back to back under /usr/bin/time: the flow run's wall time and peak RSS,
# and its step against the α-β run's. Usage, from the repository root after `make`:
#   bench/deepseek_flows.sh [MICROBATCHES]     (32 by default)
set -euo pipefail
m=${1:-32}
pipegrid=${PIPEGRID:-build/pipegrid}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
job=(--platform platforms/h800-256node.xml --pp 16 --dp 128 --ep 64 --microbatches "$m" --model deepseek-v3
     --uneven-layers --flash-attention --distributed-optimizer --comm-sm-fraction 0.1515 --trace off
     --dp-comm analytic --schedule dualpipe)
for model in flow analytic; do
  /usr/bin/time -f "%e %U %M" -o "$work/$model.time" "$pipegrid" simulate "${job[@]}" --ep-comm "$model" \
    --out "$work/$model" > "$work/$model.out"
done
step() { sed -n 's/^makespan \([0-9.e+-]*\) s.*/\1/p' "$work/$1.out"; }
comms() { sed -n 's/.*"simgrid_comms": \([0-9]*\).*/\1/p' "$work/$1/summary.json"; }
echo "deepseek-v3 layout, 2048 GPUs, dualpipe, m = $m, all-to-alls as DeepEP flows and as alpha-beta"
printf '%-22s %10s %9s %9s %9s %12s\n' "--ep-comm" "step s" "wall s" "user s" "RSS MB" "SimGrid comms"
for model in flow analytic; do
  read -r wall user rss < "$work/$model.time"
  awk -v l="$model" -v s="$(step "$model")" -v w="$wall" -v u="$user" -v r="$rss" -v c="$(comms "$model")" \
    'BEGIN { printf "%-22s %10.6g %9.2f %9.2f %9.0f %12s\n", l, s, w, u, r / 1024, c }'
done
awk -v f="$(step flow)" -v a="$(step analytic)" \
  'BEGIN { printf "flow step / alpha-beta step: %.4f (%+.2f %%)\n", f / a, 100 * (f / a - 1) }'
