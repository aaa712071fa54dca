#!/usr/bin/env bash
# pipegrid plan on the two jobs issue 37 names, under /usr/bin/time: GPT-3 175B on 1024 A100s at a
# global batch of 1536 and Llama 3.1 70B on 512 H100s at 512, K = 20, both with FlashAttention. Prints
# each plan's wall time, peak RSS and what each stage saw. Usage, from the repository root after `make`:
#   bench/plan.sh [JOBS]     (2 by default)
set -euo pipefail
jobs=${1:-2}
pipegrid=${PIPEGRID:-build/pipegrid}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
plan() {  # NAME ARGS…
  local name=$1; shift
  /usr/bin/time -f "%e %M" -o "$work/$name.time" "$pipegrid" plan "$@" --flash-attention --top 20 --jobs "$jobs" \
    --out "$work/$name" > "$work/$name.out" 2> "$work/$name.err"
  read -r wall rss < "$work/$name.time"
  local enumerated candidates estimated simulated
  enumerated=$(sed -n 's/^plan: \([0-9]*\) layouts .*/\1/p' "$work/$name.err")
  candidates=$(sed -n 's/^plan: .* enumerated, \([0-9]*\) candidates.*/\1/p' "$work/$name.err")
  estimated=$(sed -n 's/^plan: \([0-9]*\) candidates estimated.*/\1/p' "$work/$name.err")
  simulated=$(grep -c ',simulated,' "$work/$name/plan.csv" || true)
  printf '%-34s %9.1f %8.0f %11s %11s %10s %10s\n' "$name" "$wall" "$((rss / 1024))" "$enumerated" "$candidates" \
    "$estimated" "$simulated"
  sed -n '2p' "$work/$name.out" | sed 's/^/    best: /'
}
printf '%-34s %9s %8s %11s %11s %10s %10s\n' "plan" "wall s" "RSS MB" "enumerated" "candidates" "fit+timed" "simulated"
plan gpt3-175b-1024xa100-b1536 --model gpt-175b --preset dgx-a100 --nodes 128 --global-batch 1536
plan llama3.1-70b-512xh100-b512 --model llama3.1-70b --preset dgx-h100 --nodes 64 --global-batch 512
