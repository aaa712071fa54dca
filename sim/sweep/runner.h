// Runs a sweep's configurations, each in its own process (SimGrid keeps process-wide state), up to N
// at once, writing a results row as each finishes. A configuration already done is kept only while
// nothing it depends on has changed: its options (its id), the files it read (their content) and
// pipegrid's version.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/sweep/child_runs.h"
#include "sim/sweep/sweep_spec.h"

namespace pipegrid::sweep {

struct Shard {
  int index = 0;
  int count = 1;
  bool contains(std::size_t configuration) const { return static_cast<int>(configuration % count) == index; }
};

struct SweepOptions {
  std::string out;  // DIR: DIR/results.csv (or DIR/shards/I/results.csv), DIR/runs/ID/
  int jobs = 1;
  double timeout_seconds = 0;  // wall time per run; 0: none
  bool force = false;          // run every configuration again
  std::optional<Shard> shard;
  std::string pipegrid;  // this binary: what a Slurm task runs
  std::string log_level = "warn";  // --log-level: the sweep's, and each run's in its own stderr.txt
  RunConfiguration run_configuration;
};

struct SweepTally {
  std::size_t configurations = 0;  // in this shard
  std::size_t already_done = 0;
  std::size_t ran = 0;
  std::size_t ok = 0;
  /// Why configurations with a result ran again, and how many for each reason ("platforms/a.xml
  /// changed", "pipegrid 0.2.0 → 0.3.0", "--force", "timeout", "error").
  std::map<std::string, std::size_t> reran;
  double seconds = 0;
};

/// Runs what is missing or stale in the results file and rewrites it, rows in configuration order,
/// at the end. Progress on stderr: a bar with an ETA on a terminal, one line per finished run
/// otherwise. Each run's directory keeps experiment.toml (the resolved experiment), inputs.json (the
/// version and the files it read, with their hashes), its outputs, stdout.json, stderr.txt,
/// wall_seconds and attempts.
SweepTally run_sweep(const SweepSpec& spec, const SweepOptions& options);

/// A finished run's status from its wait status (waitpid's) and wall time: timeout when it ran longer
/// than `timeout` (> 0) — whether the sweep killed it or it ended before the sweep looked — else ok,
/// invalid (exit code 2), deadlock (3) or error (any other code, or a signal).
std::string run_status(int wait_status, double seconds, double timeout);

/// The results file of a shard (or of the whole sweep).
std::string results_path(const std::string& out, const std::optional<Shard>& shard);

}  // namespace pipegrid::sweep
