#!/usr/bin/env bash
# DeepSeek-V3's layout on 2048 simulated H800 GPUs: 1F1B, ZB-H1, DualPipe and DualPipeV, then DualPipe
# under growing routing skew. Usage, from the repository root after `make`:
#   experiments/deepseek-v3/run.sh [OUT_DIR]
set -euo pipefail
out=${1:-out/deepseek-v3}
pipegrid=${PIPEGRID:-build/pipegrid}
mkdir -p "$out"
job=(--platform platforms/h800-256node.xml --pp 16 --dp 128 --ep 64 --microbatches 32
     --model deepseek-v3 --uneven-layers --flash-attention --distributed-optimizer --comm-sm-fraction 0.1515
     --trace off --ep-comm analytic --dp-comm analytic)
run() {  # NAME ARGS…: one simulation, its wall time and peak RSS next to its summary
  local name=$1; shift
  /usr/bin/time -f "%e %M" -o "$out/$name.time" "$pipegrid" simulate "${job[@]}" "$@" --out "$out/$name" > /dev/null
}
for schedule in 1f1b zb-h1 dualpipe dualpipev; do run "$schedule" --schedule "$schedule"; done
for skew in 0.05 0.1 0.2 0.5; do run "dualpipe-zipf$skew" --schedule dualpipe --routing "zipf:$skew"; done
/usr/bin/python3 experiments/deepseek-v3/table.py "$out"
