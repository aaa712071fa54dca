#!/usr/bin/env bash
# DeepSeek-V3's layout on 2048 simulated H800 GPUs in FP8: 1F1B, ZB-H1, DualPipe and DualPipeV, then
# DualPipe under growing routing skew, the all-to-alls as DeepEP's contended flows; DualPipe once with
# α-β all-to-alls, to compare; and DualPipe at the report's batch, for its GPU-hours per trillion
# tokens. Usage, from the repository root after `make` (JOBS runs at once, 1 by default: each run's
# wall time is in the tables, so give it a core):
#   experiments/deepseek-v3/run.sh [OUT_DIR]
set -euo pipefail
out=${1:-out/deepseek-v3}
pipegrid=${PIPEGRID:-build/pipegrid}
mkdir -p "$out"
job=(--platform platforms/h800-256node.xml --pp 16 --dp 128 --ep 64 --microbatches 32
     --model deepseek-v3 --uneven-layers --flash-attention --distributed-optimizer --comm-sm-fraction 0.1515
     --precision fp8 --trace off --dp-comm analytic)
run() {  # NAME ARGS…: one simulation, its wall time and peak RSS next to its summary
  local name=$1; shift
  /usr/bin/time -f "%e %M" -o "$out/$name.time" "$pipegrid" simulate "${job[@]}" "$@" --out "$out/$name" > /dev/null
}
jobs=${JOBS:-1}
limit() { while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done; }
for schedule in 1f1b zb-h1 dualpipe dualpipev; do limit; run "$schedule" --schedule "$schedule" --ep-comm flow & done
for skew in 0.05 0.1 0.2 0.5; do
  limit; run "dualpipe-zipf$skew" --schedule dualpipe --routing "zipf:$skew" --ep-comm flow &
done
limit; run dualpipe-analytic --schedule dualpipe --ep-comm analytic &
# The report's batch, 15360 sequences a step (§4.2): 120 micro-batches per pipeline, for its GPU-hours.
limit; run dualpipe-batch15360 --schedule dualpipe --ep-comm flow --microbatches 120 &
wait
/usr/bin/python3 experiments/deepseek-v3/table.py "$out"
