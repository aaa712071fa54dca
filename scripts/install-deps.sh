#!/usr/bin/env bash
# Installs the Debian 12 packages pipegrid builds, tests and plots with — only those missing, so it is
# a no-op (no apt-get at all) on a machine that has them. Needs root or sudo when something is missing.
# With --clang (or its older name --fuzz), clang 14 and its sanitizer runtimes instead: the compiler of
# `make test-sanitize` and of the fuzz build (`make fuzz`, tests/fuzz/README.md).
set -euo pipefail

packages=(
  build-essential cmake pkg-config  # toolchain; pkg-config finds SimGrid, which ships only a .pc file
  libsimgrid-dev                    # the discrete-event simulation kernel (sim/)
  libboost-graph-dev                # the checker's dependency graph (schedules/)
  libspdlog-dev libfmt-dev          # logging and formatting
  libgtest-dev                      # tests
  libcli11-dev                      # the command line
  libpugixml-dev                    # reading platform XML with line numbers, before SimGrid sees it
  nlohmann-json3-dev                # summary.json, --format json
  libtomlplusplus-dev               # experiment and sweep files
  zlib1g-dev                        # trace.json.gz (--trace-json gzip): deflate, as gzip writes it
  python3-matplotlib python3-pandas # plots (experiments/plot/)
  python3-scipy                     # make calibrate fits the kernel model (experiments/calibration/)
  chromium                          # a real browser: tests/report/browser_test.py loads the HTML report
  slurm-wlm munge                   # needed by the Slurm integration test (tests/sweep/run_slurm_sweep_test.sh)
)
clang_packages=(
  clang-14 libclang-rt-14-dev       # clang 14, its libFuzzer and its ASan and UBSan runtimes
)
case "${1:-}" in --clang | --fuzz) packages=("${clang_packages[@]}") ;; esac

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}"
as_root=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install ${missing[*]}" >&2; exit 1; }
  as_root=(sudo)
fi
"${as_root[@]}" apt-get update -q
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
