#!/usr/bin/env bash
# `make fuzz`: runs each libFuzzer harness of the fuzz build for SECONDS, leak detection on, on its
# working corpus BUILD/corpus/NAME/ (the seeds of tests/fuzz/corpus/NAME/ copied in, plus what earlier
# runs found there), so that fuzzing never writes into the repository. Crash, leak, timeout and
# out-of-memory inputs go to BUILD/artifacts/NAME/ (emptied first), the log to BUILD/logs/NAME.log.
# Prints, per harness, the executions run and the crashes found; exits 1 if any harness found one.
#
#   tests/fuzz/run.sh BUILD SECONDS [NAME…]     (default: every harness)
set -uo pipefail

[ $# -ge 2 ] || { echo "usage: $0 BUILD SECONDS [NAME...]" >&2; exit 2; }
build=$(realpath "$1")
seconds=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
harnesses=(action schedule_csv platform_xml experiment_toml sweep_toml option_value report_dir hf_config)
[ $# -gt 0 ] && harnesses=("$@")

failed=0
report=()
for name in "${harnesses[@]}"; do
  binary=$build/tests/fuzz/fuzz_$name
  corpus=$build/corpus/$name
  artifacts=$build/artifacts/$name
  log=$build/logs/$name.log
  [ -x "$binary" ] || { echo "fuzz: no harness $binary (make fuzz builds it)" >&2; exit 2; }
  rm -rf "$artifacts"
  mkdir -p "$corpus" "$artifacts" "$build/logs"
  cp "$here/corpus/$name"/* "$corpus/"
  # The shipped Hugging Face configs seed hf_config from where they live, not from a copy.
  if [ "$name" = hf_config ]; then
    for config in "$here"/../../experiments/models/*/config.json; do
      cp "$config" "$corpus/$(basename "$(dirname "$config")").json"
    done
  fi
  options=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -detect_leaks=1 -print_final_stats=1
           -artifact_prefix="$artifacts/")
  [ -f "$here/$name.dict" ] && options+=(-dict="$here/$name.dict")
  echo "fuzz: $name for ${seconds}s"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$binary" "${options[@]}" "$corpus" >"$log" 2>&1
  status=$?
  executions=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | tail -n 1 | grep -o '[0-9]*$')
  found=$(find "$artifacts" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) |
          sort)
  crashes=$(printf '%s' "$found" | grep -c . || true)
  report+=("$(printf '%-16s %12s executions  %d crashes' "$name" "${executions:-?}" "$crashes")")
  if [ "$crashes" -gt 0 ] || [ "$status" -ne 0 ]; then
    failed=1
    echo "fuzz: $name: exit status $status, log $log"
    grep -m 3 -E '^==[0-9]+==ERROR|SUMMARY:|fuzz check failed|runtime error|terminate called' "$log" | sed 's/^/  /'
    printf '  artifact %s\n' $found
  fi
done

echo
echo "fuzz: ${seconds}s per harness"
printf '%s\n' "${report[@]}"
if [ "$failed" -ne 0 ]; then
  echo "fuzz: FAILED; minimise an artifact with BINARY -minimize_crash=1 -runs=10000 ARTIFACT and add it to" \
       "tests/fuzz/corpus/NAME/ as regression-WHAT (tests/fuzz/README.md)"
  exit 1
fi
