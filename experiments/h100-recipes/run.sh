#!/usr/bin/env bash
# NVIDIA's 98 published DGX H100 step times (h100_dgxc_benchmarking.csv) against pipegrid: every row
# in its published layout and precision, on a generated DGX H100 platform of its size, priced by the
# H100's calibrated compute model. From the repository root after `make`:
#   experiments/h100-recipes/run.sh OUT     (OUT/table.csv: measured, simulated, error; OUT/measured.png)
# ENGINE=contention-free times each row with `pipegrid schedule` (about a minute for all 98) instead
# of SimGrid with contention (`simulate`, about two hours on two cores; it resumes where it stopped).
set -euo pipefail
out=${1:?usage: run.sh OUT}
here=$(dirname "$0")
/usr/bin/python3 "$here/recipes.py" run "$out" --engine "${ENGINE:-simgrid}" --jobs "${JOBS:-2}" \
  --pipegrid "${PIPEGRID:-build/pipegrid}" > /dev/null
/usr/bin/python3 "$here/plot.py" "$out/table.csv" "$out/measured.png"
cat "$out/table.csv"
