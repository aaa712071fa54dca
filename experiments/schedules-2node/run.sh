#!/usr/bin/env bash
# Every schedule on two DGX A100 nodes with a real model, side by side (README.md says what it shows).
# Usage: experiments/schedules-2node/run.sh [OUT_DIR]   (from the repository root, after `make`)
set -euo pipefail
out=${1:-out/schedules-2node}
pipegrid=${PIPEGRID:-build/pipegrid}
mkdir -p "$out"
for schedule in 1f1b interleaved zb-h1 zb-h2 zbv dualpipe dualpipev gpipe; do
  "$pipegrid" simulate --platform platforms/dgx-a100-2node.xml --schedule "$schedule" \
    --tp 2 --pp 8 --dp 1 --microbatches 16 --layers 48 --hidden 4096 --heads 32 --seq 2048 --vocab 51200 \
    --p2p async --out "$out/$schedule" --trace off --format json > "$out/$schedule.json"
done
python3 experiments/schedules-2node/table.py "$out"
# Rendezvous p2p: each schedule in its framework's comm plan, then in the per-op grouping.
echo
echo "| schedule | rendezvous, framework plan | rendezvous, per-op |"
echo "|---|---|---|"
for schedule in 1f1b interleaved zb-h1 zb-h2 zbv dualpipe dualpipev gpipe; do
  cells=()
  for plan in framework per-op; do
    set +e
    result=$("$pipegrid" simulate --platform platforms/dgx-a100-2node.xml --schedule "$schedule" \
      --tp 2 --pp 8 --dp 1 --microbatches 16 --layers 48 --hidden 4096 --heads 32 --seq 2048 --vocab 51200 \
      --p2p rendezvous --comm-plan "$plan" --trace off --format json 2>&1)
    status=$?
    set -e
    case $status in
      0) cells+=("$(python3 -c 'import json,sys; print("%.3f s" % json.load(sys.stdin)["steady_step"])' <<<"$result")") ;;
      2) cells+=("refused: $(grep -o 'rank [0-9]*, comm batch [0-9]*: [^ ]* is the [0-9a-z]* receive' <<<"$result")…") ;;
      3) cells+=("deadlock: $(head -n 1 <<<"$result" | cut -c1-90)…") ;;
      *) cells+=("exit $status") ;;
    esac
  done
  echo "| $schedule | ${cells[0]} | ${cells[1]} |"
done
