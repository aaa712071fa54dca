// The planner's first two stages for each candidate: the memory model's peak (what simulate's memory
// report would give the fullest rank), and for what fits, the contention-free engine's step — the
// run layer resolving the layout exactly as simulate would, the collectives α-β. Candidates are split
// over child processes (SimGrid allows one engine a process), each loading the platform once.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sim/exec/contention_free.h"
#include "sim/input/option_values.h"
#include "sim/plan/layout.h"

namespace pipegrid::plan {

struct Estimate {
  double peak_memory_bytes = 0;  // the fullest rank's (0 when the run layer refused the layout)
  double capacity_bytes = 0;     // what that rank may hold: --memory, or its GPUs' less the reserve
  double step_seconds = 0;       // the contention-free step; 0 when excluded
  std::string excluded_by;       // "memory", "input: …" (the run layer's refusal), "deadlock", or ""
};

/// The reserve a GPU's capacity keeps back by default (docs/guide/planning.md): the CUDA context, NCCL's
/// buffers and the allocator's fragmentation.
inline constexpr double kReserveBytes = 5.0 * (1ull << 30);

struct EstimateSetup {
  input::OptionValues base{input::Command::Simulate};  // the model, and every option the plan fixes
  std::string platform_file;                            // the platform, generated once
  bool moe = false;
  double memory_bytes = 0;  // --memory; 0: each rank's GPUs' capacity less kReserveBytes
  int jobs = 1;
  std::string scratch;      // a directory for the children's results
};

/// Estimates every layout, `jobs` at once in child processes; `progress(done)` is called as they
/// finish. Results in the layouts' order.
std::vector<Estimate> estimate_all(const EstimateSetup& setup, const std::vector<Layout>& layouts,
                                   const std::function<void(std::size_t)>& progress);

/// One layout in this process: `session` is the loaded platform, made on first use and kept for the
/// next layouts (one SimGrid engine a process: a process that simulates later must let it go first).
Estimate estimate_one(const EstimateSetup& setup, const Layout& layout,
                      std::unique_ptr<sim::ContentionFreeSession>& session);

}  // namespace pipegrid::plan
