#!/usr/bin/env bash
# The Megatron-LM 1T run on 3072 simulated A100 GPUs: 1F1B and interleaved, each with fused and separate
# weight-gradient accumulation, then the table against the paper's 163 TFLOP/s per GPU. From the
# repository root after `make`:
#   experiments/megatron-1t/run.sh [OUT_DIR]      (4 simulations, about 7 minutes with JOBS=1)
set -euo pipefail
out=${1:-out/megatron-1t}
"${PIPEGRID:-build/pipegrid}" sweep experiments/megatron-1t/sweep.toml --out "$out" --jobs "${JOBS:-2}"
/usr/bin/python3 experiments/megatron-1t/table.py "$out"
