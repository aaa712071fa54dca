# The README's commands. `make demo` and `make test` install what is missing, build (Release) and run.
BUILD ?= build
JOBS ?= $(shell nproc)
PIPEGRID = $(BUILD)/pipegrid
MAKEFLAGS += --no-print-directory

.PHONY: all deps configure build demo test bench clean

all: build

deps:
	@scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

# The bundled default: every schedule side by side on one pipeline, as a table and as timelines.
demo: configure
	@cmake --build $(BUILD) -j $(JOBS) --target pipegrid
	$(PIPEGRID) schedule --schedule all --pp 4 --microbatches 8
	@echo
	$(PIPEGRID) schedule --schedule all --pp 4 --microbatches 8 --format timeline

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

# Speed and memory of the schedule engine (never asserted in tests); README quotes the numbers.
bench: build
	$(BUILD)/bench/bench_schedule_engine 1f1b 64 512
	$(BUILD)/bench/bench_schedule_engine interleaved 64 512 4
	$(BUILD)/bench/bench_schedule_engine 1f1b 512 8192
	$(BUILD)/bench/bench_schedule_engine interleaved 512 8192 2

clean:
	rm -rf $(BUILD)
