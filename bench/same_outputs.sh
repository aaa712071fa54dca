#!/usr/bin/env bash
# Every file five runs write, as sha256 sums: the check that a change which should move nothing in the
# results moved nothing. Run it with the build before the change and with the one after, then diff the
# two lists. The runs: the quickstart sweep (results.csv and every run's folder), Megatron-1T 1F1B with
# the default trace, DeepSeek-V3 DualPipe with DeepEP flows, one pitfall's broken and fixed runs with
# their page, and a run whose platform loses a GPU (exit 4).
# Paths are echoed into the outputs, so give both builds the same OUT_DIR, one after the other.
# From the repository root: PIPEGRID=build/pipegrid bench/same_outputs.sh OUT_DIR > sums.txt
set -uo pipefail
pipegrid=${PIPEGRID:-build/pipegrid}
out=${1:?usage: same_outputs.sh OUT_DIR}
rm -rf "$out"
mkdir -p "$out"

# run NAME COMMAND…: the command's exit code and stdout kept beside its outputs.
run() {
  local name=$1
  shift
  "$@" > "$out/$name.stdout" 2> "$out/$name.stderr"
  echo "$?" > "$out/$name.exit"
}

run quickstart "$pipegrid" sweep experiments/quickstart/sweep.toml --out "$out/quickstart" --jobs 2
run megatron-1t "$pipegrid" simulate --platform platforms/superpod-a100-384node.xml --tp 8 --pp 64 --dp 6 \
  --microbatches 512 --model gpt-1t --recompute full --scatter-gather --tp-comm analytic --dp-comm flow \
  --schedule 1f1b --out "$out/megatron-1t"
run deepseek-v3 "$pipegrid" simulate --platform platforms/h800-256node.xml --pp 16 --dp 128 --ep 64 --microbatches 32 \
  --model deepseek-v3 --uneven-layers --flash-attention --distributed-optimizer --comm-sm-fraction 0.1515 \
  --trace off --dp-comm analytic --schedule dualpipe --ep-comm flow --out "$out/deepseek-v3"
run pitfall "$pipegrid" pitfalls 1f1b-rendezvous-sends --out "$out/pitfall" --report
"$pipegrid" platform gen --preset dgx-a100 --nodes 4 > "$out/cluster.xml"
"$pipegrid" platform perturb "$out/cluster.xml" --fail node1-gpu3@0.03 --out "$out/down" > /dev/null
run gpu-down "$pipegrid" simulate --platform "$out/down/platform.xml" --schedule 1f1b --tp 8 --pp 2 --dp 2 \
  --microbatches 4 --model gpt-7.5b --layers 8 --out "$out/gpu-down"

# Left out: what is measured on the host — each sweep run's wall_seconds, and the sweep's progress
# lines on stderr, which carry wall times.
cd "$out" && find . -type f ! -name wall_seconds ! -name quickstart.stderr -print0 | sort -z | xargs -0 sha256sum
