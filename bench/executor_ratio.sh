#!/usr/bin/env bash
# The executor against its baseline on the Megatron-1T layout (3072 GPUs, docs/performance.md): the
# plain SimGrid 1F1B loop (bench/raw_simgrid_1f1b.cc), pipegrid's 1F1B and interleaved
# (v = 2) runs with --trace off and no --out, and the same 1F1B run writing its outputs, links.csv alone
# (--out --trace off: the links' loads over time are followed only for it) and with the default trace,
# back to back, each under /usr/bin/time. Prints one table: wall, user and peak RSS of each, their
# ratios to the raw loop, and the outputs' size and cost against trace off without --out. Reports only:
# nothing is asserted. ROUNDS (default 3) runs the five one after the other that many times and keeps each one's fastest
# round: on a shared machine a neighbour's load moves one round's ratio noticeably, and the fastest
# round is the one least disturbed.
# From the repository root after `make`: bench/executor_ratio.sh [MICROBATCHES]   (default 512)
set -euo pipefail
pipegrid=${PIPEGRID:-build/pipegrid}
raw=${RAW:-build/bench/bench_raw_simgrid_1f1b}
m=${1:-512}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
job=(--platform platforms/superpod-a100-384node.xml --tp 8 --pp 64 --dp 6 --microbatches "$m" --model gpt-1t
     --recompute full --scatter-gather --tp-comm analytic --dp-comm flow)

rounds=${ROUNDS:-3}

. "$(dirname "$0")/fastest_round.sh"
for ((round = 1; round <= rounds; ++round)); do
  run raw "$raw" "${job[@]}" --schedule 1f1b --trace off
  run 1f1b "$pipegrid" simulate "${job[@]}" --schedule 1f1b --trace off
  run interleaved "$pipegrid" simulate "${job[@]}" --schedule interleaved --chunks 2 --trace off
  rm -rf "$work/links"
  run 1f1b-links "$pipegrid" simulate "${job[@]}" --schedule 1f1b --trace off --out "$work/links"
  rm -rf "$work/out"
  run 1f1b-out "$pipegrid" simulate "${job[@]}" --schedule 1f1b --out "$work/out"
done
out_bytes=$(du -sb "$work/out" | cut -f1)

read -r raw_wall raw_user _ < "$work/raw.time"
read -r off_wall off_user off_rss < "$work/1f1b.time"
echo "executor on megatron-1t, 3072 GPUs, m = $m, fastest of $rounds rounds (ratios: to the raw SimGrid loop; outputs: to 1f1b trace off)"
printf '%-28s %10s %9s %9s %9s %10s %10s\n' run "step s" "wall s" "user s" "RSS MB" "wall/raw" "user/raw"
for name in raw 1f1b interleaved 1f1b-links 1f1b-out; do
  read -r wall user rss < "$work/$name.time"
  label=$name
  case $name in
    raw) label="raw SimGrid 1F1B loop" ;;
    1f1b) label="pipegrid 1f1b --trace off" ;;
    interleaved) label="pipegrid interleaved v=2 off" ;;
    1f1b-links) label="pipegrid 1f1b --out, off" ;;
    1f1b-out) label="pipegrid 1f1b --out (trace)" ;;
  esac
  awk -v l="$label" -v s="$(step "$name")" -v w="$wall" -v u="$user" -v r="$rss" -v rw="$raw_wall" -v ru="$raw_user" \
    'BEGIN { printf "%-28s %10.6g %9.2f %9.2f %9.0f %10.3f %10.3f\n", l, s, w, u, r / 1024, w / rw, u / ru }'
done
read -r out_wall out_user _ < "$work/1f1b-out.time"
read -r links_wall links_user _ < "$work/1f1b-links.time"
awk -v b="$out_bytes" -v w="$out_wall" -v u="$out_user" -v ow="$off_wall" -v ou="$off_user" \
    -v lw="$links_wall" -v lu="$links_user" \
  'BEGIN { printf "outputs of --out: %.1f MB (du -sb); %.3f x the wall, %.3f x the user time of trace off without --out\n",
           b / 1e6, w / ow, u / ou
           printf "of which links.csv (--out --trace off): %.3f x the wall, %.3f x the user time; the trace: %.3f x, %.3f x\n",
           lw / ow, lu / ou, w / lw, u / lu }'
cat "$work/raw.out"
echo "megatron-1t on 3072 GPUs: $off_wall s wall, $off_rss KB peak RSS"
