#!/usr/bin/env bash
# What the planner's pruning loses: three spaces simulated exhaustively (--top above their candidates),
# each analysed for the recall of the exhaustive top 20 in the planner's top 20 and the regret of its
# first choice (analyse.py). Usage, from the repository root after `make` (about 40 minutes on two cores):
#   experiments/plan-pruning/run.sh OUT [JOBS]
set -euo pipefail
out=${1:?usage: run.sh OUT [JOBS]}
jobs=${2:-2}
pipegrid=${PIPEGRID:-build/pipegrid}
here=$(dirname "$0")
plan() {  # NAME ARGS…
  local name=$1; shift
  "$pipegrid" plan "$@" --flash-attention --top 100000 --jobs "$jobs" --out "$out/$name" > "$out/$name.out" 2> "$out/$name.err"
  /usr/bin/python3 "$here/analyse.py" "$out/$name" 20
}
mkdir -p "$out"
# Dense, one pipeline per two nodes at most: the links matter little.
plan llama3.1-8b-16xh100 --model llama3.1-8b --preset dgx-h100 --nodes 2 --global-batch 64 --space micro-batch=1,2
# Dense on 8 nodes at a small batch: pipeline and gradient traffic cross the rails.
plan gpt-7.5b-64xa100 --model gpt-7.5b --preset dgx-a100 --nodes 8 --global-batch 128 --space micro-batch=1,2 \
  --space recompute=none,selective --space schedule=1f1b,interleaved,zb-h1,zbv,dualpipev
# Mixture of experts: the all-to-alls as DeepEP's contended flows in SimGrid, α-β in the estimate.
plan mixtral-8x7b-32xh100 --model mixtral-8x7b --preset dgx-h100 --nodes 4 --global-batch 64 --space micro-batch=1 \
  --space recompute=none,selective --space schedule=1f1b,interleaved,zb-h1
