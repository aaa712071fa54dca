// Runs a sweep's configurations, each in its own process (SimGrid keeps process-wide state), up to N
// at once, writing a results row as each finishes and skipping the configurations already done.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/sweep/sweep_spec.h"

namespace pipegrid::sweep {

struct Shard {
  int index = 0;
  int count = 1;
  bool contains(std::size_t configuration) const { return static_cast<int>(configuration % count) == index; }
};

/// What runs one configuration inside its own (forked) process: pipegrid's command line, given
/// `run EXPERIMENT.toml --out DIR --format json`; returns the exit code.
using RunConfiguration = std::function<int(const std::vector<std::string>& args)>;

struct SweepOptions {
  std::string out;                 // DIR: DIR/results.csv (or DIR/shards/I/results.csv), DIR/runs/ID/
  int jobs = 1;
  double timeout_seconds = 0;      // per run; 0: none
  std::optional<Shard> shard;
  std::string pipegrid;            // this binary: what a Slurm task runs
  RunConfiguration run_configuration;
};

struct SweepTally {
  std::size_t configurations = 0;  // in this shard
  std::size_t already_done = 0;
  std::size_t ran = 0;
  std::size_t ok = 0;
  double seconds = 0;
};

/// Runs what is missing from the results file and rewrites it, rows in configuration order, at the
/// end. Progress on stderr: a bar with an ETA on a terminal, one line per finished run otherwise.
SweepTally run_sweep(const SweepSpec& spec, const SweepOptions& options);

/// The results file of a shard (or of the whole sweep).
std::string results_path(const std::string& out, const std::optional<Shard>& shard);

}  // namespace pipegrid::sweep
