#!/usr/bin/env bash
# The platform what-ifs: one job swept over the InfiniBand bandwidth × oversubscription of the
# 32-node DGX A100 cluster it generates, tabulated and drawn as a heat map. From the repository root
# after `make`: experiments/platform-what-ifs/run.sh
set -euo pipefail
pipegrid=${PIPEGRID:-build/pipegrid}
out=out/platform-what-ifs
"$pipegrid" sweep experiments/platform-what-ifs/sweep.toml --out "$out" --jobs "${JOBS:-2}"
/usr/bin/python3 experiments/platform-what-ifs/table.py "$out"
