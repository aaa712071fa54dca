#!/usr/bin/env bash
# Narayanan et al. (SC'21) Table 1 on simulated DGX A100 SuperPOD nodes: the ten GPT models, 1.7B on
# 32 GPUs to 1T on 3072, each in the paper's layout (layouts.csv, README.md says where each number
# comes from), priced by the calibrated compute model with nothing tuned per row. From the repository
# root after `make`:
#   experiments/megatron-table1/run.sh OUT      (writes OUT/table.csv and prints it)
# Every row runs at micro-batch 1, as the paper states; MICRO_BATCH=script takes the sizes of the
# authors' run script instead (layouts.csv), MICRO_BATCH=N any one size.
set -euo pipefail
out=${1:?usage: run.sh OUT}
pipegrid=${PIPEGRID:-build/pipegrid}
here=$(dirname "$0")
mkdir -p "$out"
tail -n +2 "$here/layouts.csv" | while IFS=, read -r params tp pp dp batch script_micro chunks ddp; do
  micro=${MICRO_BATCH:-1}
  [ "$micro" = script ] && micro=$script_micro
  paper=$(awk -F, -v p="$params" '$1 == p' "$here/paper_table1.csv")
  IFS=, read -r _ heads hidden layers _ _ gpus _ _ _ _ seq _ <<< "$paper"
  schedule=1f1b
  [ "$chunks" -gt 1 ] && schedule=interleaved
  # Megatron pads GPT-2's 50257 tokens to a multiple of 128·t (--make-vocab-size-divisible-by 128).
  vocab=$(( (50257 + 128 * tp - 1) / (128 * tp) * 128 * tp ))
  # torch DDP (p = 1 rows) reduces gradient buckets during the backward; Megatron's local DDP after it.
  overlap=off
  [ "$ddp" = torch ] && overlap=on
  /usr/bin/time -f "%e %M" -o "$out/$params.time" "$pipegrid" simulate \
    --platform platforms/superpod-a100-384node.xml --schedule "$schedule" --chunks "$chunks" \
    --tp "$tp" --pp "$pp" --dp "$dp" --microbatches $(( batch / (dp * micro) )) --micro-batch "$micro" \
    --layers "$layers" --hidden "$hidden" --heads "$heads" --seq "$seq" --vocab "$vocab" \
    --recompute full --scatter-gather --gradient-bytes 2 --optimizer-bytes 50 --grad-accumulation separate \
    --grad-overlap "$overlap" \
    --tp-comm analytic --dp-comm flow --trace off --out "$out/$params" > /dev/null
done
/usr/bin/python3 "$here/table.py" "$out"
