#!/usr/bin/env bash
# Every schedule on two DGX A100 nodes with a real model, side by side (README.md says what it shows).
# Usage: experiments/schedules-2node/run.sh [OUT_DIR]   (from the repository root, after `make`)
set -euo pipefail
out=${1:-out/schedules-2node}
pipegrid=${PIPEGRID:-build/pipegrid}
mkdir -p "$out"
for schedule in 1f1b interleaved zb-h1 zb-h2 zbv dualpipe dualpipev gpipe; do
  "$pipegrid" simulate --platform platforms/dgx-a100-2node.xml --schedule "$schedule" \
    --tp 2 --pp 8 --dp 1 --microbatches 16 --layers 48 --hidden 4096 --heads 32 --seq 2048 --vocab 51200 --compute-efficiency 0.6 \
    --p2p async --out "$out/$schedule" --trace off --format json > "$out/$schedule.json"
done
python3 experiments/schedules-2node/table.py "$out"
