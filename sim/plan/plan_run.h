// `pipegrid plan` below the command line: the space enumerated, each candidate's memory and
// contention-free step estimated, the best K by estimate (and --also's) simulated with contention as a
// sweep (DIR/simulate.toml, run or submitted to Slurm through the sweep's machinery), and the plan's
// files written (docs/guide/planning.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/input/option_values.h"
#include "sim/plan/estimate.h"
#include "sim/plan/layout.h"
#include "sim/sweep/runner.h"

namespace pipegrid::plan {

/// One row of plan.csv.
struct PlanRow {
  Layout layout;
  Estimate estimate;
  std::optional<double> simulated_step;  // summary.json's makespan of its SimGrid run
  double tflops_per_gpu = 0, mfu = 0;    // of the SimGrid run, else of the estimate
  double bubble_fraction = 0;            // of the SimGrid run
  double exposed_comm_seconds = 0;       // of the SimGrid run: its rank with the most, every kind summed
  std::string simulation_status;         // the sweep's status of its run ("" when not simulated)
  int simulation = -1;                   // its configuration in DIR/simulate.toml
  std::string stage;                     // excluded, estimated, simulated
  int place = 0;                         // 1, 2, … (0: excluded)
};

struct PlanOutcome {
  std::vector<PlanRow> rows;  // in plan.csv's order
  std::size_t combinations = 0;
  std::map<std::string, std::size_t> excluded;  // rule → combinations, the enumeration's and the stages'
  double tokens_per_step = 0;  // global batch × sequence
  bool submitted = false;                       // --slurm: the simulations run later (--merge)
  std::string slurm_job;
};

/// Runs the plan of `values` (a plan command's). InputError (exit 2) for bad input and when nothing
/// fits, naming the closest layout and the memory it lacks.
PlanOutcome run_plan(const input::OptionValues& values, const sweep::RunConfiguration& simulate,
                     const std::string& self_binary);

}  // namespace pipegrid::plan
