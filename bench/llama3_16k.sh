#!/usr/bin/env bash
# One step of Llama-3.1-405B on 16 384 H100s in the layout Meta published (Dubey et al. 2024, "The
# Llama 3 Herd of Models": TP 8, PP 16, DP 128, sequence 8192, 16 sequences per pipeline a step,
# interleaved) on a generated 2048-node DGX H100 platform, with the defaults: the data-parallel rings
# of 128 as contended flows (--ring-flows auto streams rings above 16 members). Against it, the plain
# SimGrid 1F1B loop of bench/raw_simgrid_1f1b.cc for the same GPUs and micro-batches.
# Prints wall, user time and peak RSS of each, the ratios to the raw loop, and the size of
# `--out --trace off`. Reports only; ROUNDS (1) runs each that many times and keeps the fastest.
# From the repository root: PIPEGRID=build/pipegrid RAW=build/bench/bench_raw_simgrid_1f1b bench/llama3_16k.sh
set -euo pipefail
pipegrid=${PIPEGRID:-build/pipegrid}
raw=${RAW:-build/bench/bench_raw_simgrid_1f1b}
rounds=${ROUNDS:-1}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
job=(--preset dgx-h100 --nodes 2048 --model llama3.1-405b --seq 8192 --tp 8 --pp 16 --dp 128 --microbatches 16
     --uneven-layers --distributed-optimizer --tp-comm analytic --dp-comm flow --trace off)

. "$(dirname "$0")/fastest_round.sh"
for ((round = 1; round <= rounds; ++round)); do
  run raw "$raw" "${job[@]}" --schedule 1f1b
  run streamed "$pipegrid" simulate "${job[@]}" --schedule interleaved --chunks 2
  rm -rf "$work/out"
  run out "$pipegrid" simulate "${job[@]}" --schedule interleaved --chunks 2 --out "$work/out"
done
read -r raw_wall raw_user _ < "$work/raw.time"
echo "llama3.1-405b on 16384 H100s (tp 8, pp 16, dp 128, m = 16), fastest of $rounds rounds"
printf '%-40s %10s %9s %9s %9s %10s %10s\n' run "step s" "wall s" "user s" "RSS MB" "wall/raw" "user/raw"
for name in raw streamed out; do
  read -r wall user rss < "$work/$name.time"
  case $name in
    raw) label="raw SimGrid 1F1B loop" ;;
    streamed) label="pipegrid interleaved v=2, DP flows" ;;
    out) label="the same with --out --trace off" ;;
  esac
  awk -v l="$label" -v s="$(step "$name")" -v w="$wall" -v u="$user" -v r="$rss" -v rw="$raw_wall" -v ru="$raw_user" \
    'BEGIN { printf "%-40s %10.6g %9.2f %9.2f %9.0f %10.3f %10.3f\n", l, s, w, u, r / 1024, w / rw, u / ru }'
done
echo "outputs of --out --trace off: $(du -sb "$work/out" | cut -f1) bytes"
