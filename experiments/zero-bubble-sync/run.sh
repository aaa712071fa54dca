#!/usr/bin/env bash
# 1F1B, ZB-H1, ZB-H2 and interleaved 1F1B with the zero-bubble paper's profiled times, under
# post-validation and under an all-reduce sync, against the paper's measured throughput (README.md).
# Usage: experiments/zero-bubble-sync/run.sh [OUT_DIR]   (from the repository root, after `make`)
set -euo pipefail
here=experiments/zero-bubble-sync
out=${1:-out/zero-bubble-sync}
pipegrid=${PIPEGRID:-build/pipegrid}
mkdir -p "$out/platforms" "$out/runs"
# One row per (model, p, m) of the paper's Table 6 (= arXiv Table 9): times in ms, its T_B our I.
tail -n +2 "$here/paper.csv" | while IFS=, read -r model p m b tf ti tw tc _; do
  platform="$out/platforms/star-${p}gpu-${tc}ms.xml"
  [ -f "$platform" ] || python3 "$here/platform.py" "$p" "$(awk -v c="$tc" 'BEGIN { printf "%.9g", c / 1000 }')" "$platform"
  for schedule in 1f1b zb-h1 zb-h2 interleaved; do
    # Explicit times are per virtual stage: interleaved 1F1B's two chunks per rank each take half.
    v=1; [ "$schedule" = interleaved ] && v=2
    read -r f bw w < <(awk -v f="$tf" -v i="$ti" -v w="$tw" -v v="$v" \
      'BEGIN { printf "%.9g %.9g %.9g\n", f / 1000 / v, (i + w) / 1000 / v, w / 1000 / v }')
    for sync in post-validation allreduce; do
      "$pipegrid" simulate --platform "$platform" --schedule "$schedule" --pp "$p" --microbatches "$m" \
        --time-f "$f" --time-b "$bw" --time-w "$w" --p2p-bytes 1 --p2p async \
        --steps 3 --optimizer-sync "$sync" --time-optimizer 0 --trace off --format json \
        > "$out/runs/$model-p$p-m$m-$schedule-$sync.json"
    done
  done
done
python3 "$here/table.py" "$here/paper.csv" "$out"
