# The README's commands. `make demo` and `make test` install what is missing, build (Release) and run.
BUILD ?= build
JOBS ?= $(shell nproc)
PIPEGRID = $(BUILD)/pipegrid
MAKEFLAGS += --no-print-directory

FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60

.PHONY: all deps clang-deps configure build demo test docs-check test-sanitize bench calibrate clean fuzz fuzz-build

all: build

deps:
	@scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

# The bundled default: the quickstart sweep (every schedule on two simulated DGX A100 nodes), its
# table and its Gantt chart (out/quickstart/gantt.png), then the schedules side by side without a
# network, as a table and as ASCII timelines, then one lesson of the pitfalls catalogue, broken and
# fixed, with its pictures and its page (out/pitfalls/1f1b-rendezvous-sends/report.html).
demo: configure
	@cmake --build $(BUILD) -j $(JOBS) --target pipegrid
	$(PIPEGRID) sweep experiments/quickstart/sweep.toml --out out/quickstart --jobs $(JOBS)
	/usr/bin/python3 experiments/quickstart/report.py out/quickstart
	@echo
	$(PIPEGRID) schedule --schedule all --pp 4 --microbatches 8
	@echo
	$(PIPEGRID) schedule --schedule all --pp 4 --microbatches 8 --format timeline
	@echo
	$(PIPEGRID) pitfalls 1f1b-rendezvous-sends --out out/pitfalls/1f1b-rendezvous-sends --report --plot

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

# The docs' long examples: every page of README.md and docs/ that has a block marked `long`, each of its
# blocks in order (`make test` runs the rest; tests/docs/doc_blocks.py says how a page marks a block).
docs-check: build
	/usr/bin/python3 tests/docs/run_doc_blocks.py --pipegrid $(PIPEGRID) --long

# The whole suite built by clang 14 with AddressSanitizer and UndefinedBehaviorSanitizer (-O1 -g1,
# assertions on) in its own build directory. clang, because it builds the suite faster than g++ and
# its instrumented code runs faster (docs/performance.md), which keeps CI's .ci/run under its 30 minutes.
# Left out: the tests that run no C++ (label no_cxx: the plot scripts' Python), the docs' commands
# (label docs: the C++ tests' own in small, a minute more under the sanitizers), NVIDIA's recipes at
# their full size (label experiment: 49 layouts the engine tests cover in small), two that only
# compare outputs byte for byte (a sweep with one job against two; each sweep run against the same
# run alone): they run no code the other sweep tests do not, and were much of the sweep tests' time
# under the sanitizers; and a killed plan resumed (PlanResume: the plan's resumption is PlanCli's, the
# kill the sweep signal tests', and its three plans of contended runs took over 300 s sanitized).
# Any sanitizer report fails the test that made it.
SANITIZE_BUILD ?= build-sanitize
SANITIZE_SKIP = ^(Sweep\.(SameSweepSameBytesWhateverTheJobs|EachRunWritesWhatPipegridRunWritesAlone)|PlanResume\..*)$$
test-sanitize: deps clang-deps
	@cmake -S . -B $(SANITIZE_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++-14 -DPIPEGRID_SANITIZE=ON >/dev/null
	@cmake --build $(SANITIZE_BUILD) -j $(JOBS)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --test-dir $(SANITIZE_BUILD) --output-on-failure -j $(JOBS) -LE 'no_cxx|experiment|docs' -E '$(SANITIZE_SKIP)'

# The compute model's constants for GPU (experiments/calibration): a100-80gb (the default) on vTrain's
# 1440 measured runs, h100-sxm on NVIDIA's 98 published DGX H100 step times (experiments/h100-recipes).
# Writes platforms/gpus/GPU.calibrated.toml and out/calibration[-h100]/, then rebuilds with the new
# constants compiled in.
GPU ?= a100-80gb
CALIBRATE_SCRIPT_a100-80gb = calibrate.py
CALIBRATE_SCRIPT_h100-sxm = calibrate_h100.py
calibrate: build
	@test -n "$(CALIBRATE_SCRIPT_$(GPU))" || { echo "make calibrate: GPU=$(GPU): must be a100-80gb or h100-sxm (the GPUs with measured runs)"; exit 2; }
	/usr/bin/python3 experiments/calibration/$(CALIBRATE_SCRIPT_$(GPU)) --pipegrid $(PIPEGRID) --jobs $(JOBS)
	@cmake --build $(BUILD) -j $(JOBS)

# Speed and memory (never asserted in tests): the schedule engine, the executor at 3072 GPUs against
# the plain SimGrid 1F1B loop (bench/executor_ratio.sh), DeepSeek-V3's layout with contended
# all-to-alls against alpha-beta (bench/deepseek_flows.sh), Llama-3.1-405B on 16 384 GPUs against the
# raw loop (bench/llama3_16k.sh), `check` on CSVs of 10^4 to 10^6 ranks and
# `schedule` of 1F1B at p = 512, m = 8192 (bench/check_scaling.sh), and a sweep of 200 small
# configurations over every core. docs/performance.md gives the numbers and how long each takes. With BASE=PATH (an
# older build's pipegrid), both builds on the headline runs, alternating (bench/compare_builds.sh).
bench: build
	@cmake --build $(BUILD) -j $(JOBS) --target bench_schedule_engine bench_zone_routes platform_routes_bench
	$(BUILD)/bench/bench_schedule_engine 1f1b 64 512
	$(BUILD)/bench/bench_schedule_engine interleaved 64 512 4
	$(BUILD)/bench/bench_schedule_engine 1f1b 512 8192
	$(BUILD)/bench/bench_schedule_engine interleaved 512 8192 2
	PIPEGRID=$(PIPEGRID) RAW=$(BUILD)/bench/bench_raw_simgrid_1f1b bench/executor_ratio.sh
	PIPEGRID=$(PIPEGRID) bench/deepseek_flows.sh
	PIPEGRID=$(PIPEGRID) RAW=$(BUILD)/bench/bench_raw_simgrid_1f1b bench/llama3_16k.sh
	PIPEGRID=$(PIPEGRID) bench/check_scaling.sh
	PIPEGRID=$(PIPEGRID) bench/sweep/run.sh $(JOBS)
	PIPEGRID=$(PIPEGRID) bench/plan.sh $(JOBS)
	@if [ -n "$(BASE)" ]; then bench/compare_builds.sh $(BASE) $(PIPEGRID); fi

# libFuzzer harnesses built by clang with ASan and UBSan (tests/fuzz/README.md): each runs FUZZ_SECONDS
# on a copy of its seed corpus; fails on any crash, leak or timeout (inputs in $(FUZZ_BUILD)/artifacts/).
clang-deps:
	@scripts/install-deps.sh --clang

fuzz-build: deps clang-deps
	@cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++-14 -DPIPEGRID_FUZZ=ON >/dev/null
	@cmake --build $(FUZZ_BUILD) -j $(JOBS) --target fuzzers

fuzz: fuzz-build
	tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

clean:
	rm -rf $(BUILD) $(SANITIZE_BUILD) $(FUZZ_BUILD)
