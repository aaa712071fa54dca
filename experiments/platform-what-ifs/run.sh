#!/usr/bin/env bash
# The platform what-ifs: write nine variants of a 32-node DGX A100 cluster, sweep one job over them,
# tabulate and draw the step time over InfiniBand bandwidth × oversubscription. From the repository
# root after `make`: experiments/platform-what-ifs/run.sh
set -euo pipefail
pipegrid=${PIPEGRID:-build/pipegrid}
out=out/platform-what-ifs
mkdir -p "$out/platforms"
for ib in 100 50 25; do
  bandwidth=$(( 25000 * ib / 100 ))MBps
  for os in 1 2 4; do
    "$pipegrid" platform gen --preset dgx-a100 --nodes 32 --ib-bw "$bandwidth" --oversubscription "$os" \
      > "$out/platforms/ib$ib-os$os.xml"
  done
done
"$pipegrid" sweep experiments/platform-what-ifs/sweep.toml --out "$out" --jobs "${JOBS:-2}"
/usr/bin/python3 experiments/platform-what-ifs/table.py "$out"
