// Sweeps on a Slurm cluster: a job array whose task i runs shard i of K, and the merge of the shards'
// results once the array is done.
#pragma once

#include <string>

#include "sim/sweep/runner.h"

namespace pipegrid::sweep {

struct SlurmOptions {
  std::string partition;  // empty: the cluster's default
  int array_size = 1;     // K tasks
  int jobs_per_task = 1;  // runs at once inside a task
};

/// Writes DIR/sweep.sbatch — an array of K tasks, task i running `pipegrid sweep SWEEP --out DIR
/// --shard i/K` — and submits it with `sbatch --parsable`. Returns the job id; throws InputError when
/// sbatch is missing or refuses the script (its first line of output).
std::string submit_array(const std::string& sweep_file, const SweepOptions& options, const SlurmOptions& slurm);

/// Gathers DIR/shards/*/results.csv into DIR/results.csv, rows in configuration order; returns how
/// many configurations have a row (the others are still missing: rerun or resubmit).
std::size_t merge_shards(const SweepSpec& spec, const std::string& out);

}  // namespace pipegrid::sweep
