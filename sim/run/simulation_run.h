// A simulation's spec resolved into a checked run: the platform read, the schedule generated and
// checked, the job placed and priced. Everything that can be wrong with the input is found here,
// before SimGrid starts.
#pragma once

#include <nlohmann/json.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/exec/simulation_io.h"
#include "sim/run/run_spec.h"
#include "sim/model/memory_model.h"
#include "sim/model/parallelism.h"
#include "sim/model/transformer.h"

namespace pipegrid::run {

class GeneratedPlatformFile;  // generated_platform.h

/// What each pipeline rank's GPUs hold, for the memory report: per virtual stage, one micro-batch's
/// activations (and the part a split backward's W keeps) and the stage's static bytes per GPU.
struct MemoryPlan {
  std::vector<double> activation_bytes;  // per virtual stage
  std::vector<double> kept_for_weight_gradient;
  std::vector<model::StaticMemory> static_bytes;  // per virtual stage
  /// How a rank's stages' unsharded_weights and unreduced_gradients add up: held at once (summed) or
  /// one stage's at a time (the largest).
  bool sum_unsharded = true, sum_unreduced = true;
  int zero = 0;  // the memory report shows the working set from ZeRO-2 on
};

/// A resolved run: the input for the executor, the model when one was given, and the inputs echoed
/// for summary.json.
struct ResolvedRun {
  sim::SimulationInput input;
  std::optional<model::Transformer> model;
  model::Parallelism parallelism;
  std::optional<MemoryPlan> memory;   // with a model
  std::vector<double> rank_capacity;  // the smallest GPU memory among each pipeline rank's GPUs
  double peak_flops = 0;              // median speed of the job's GPUs (dense bf16)
  double mfu_peak_scale = 1;          // MFU is against peak_flops × this: the FP8 peak under --precision fp8,
                                      // a --gpu-file GPU's own peak
  std::string mfu_peak_precision;     // that peak's precision when it is not peak_flops; "" when it is
  nlohmann::json echo;               // summary.json's inputs (simulation_echo.h)
  nlohmann::json compute_breakdown;  // what each stage's kernels cost (summary.json); null without a model
  nlohmann::json compute_echo;       // how they were priced, for the echo; null without a model
  nlohmann::json layer_split;        // each model stage's layers and compute (layer_split.h); null without a model
  double grad_bucket_parameters = 0;  // Megatron's bucket size, as given or by default
  bool own_comms = false;  // the schedule file wrote its comm actions; no plan lowered them
  /// Set when the compute order itself deadlocks (find_deadlock); input.schedule is then not lowered.
  std::optional<std::string> compute_deadlock;
  OutputSpec outputs;               // what is written, where (outputs.dir empty: nothing)
  bool platform_generated = false;  // from platform gen's options: under --out, DIR/platform.xml
  /// The generated platform's temporary file, while input.platform_file names it (no --out).
  std::shared_ptr<const GeneratedPlatformFile> generated_platform;
};

/// Reads the platform, generates (or reads) and checks the schedule, lowers it by the comm plan, places
/// the job and prices it. Throws InputError (one line) for any bad input, including a job too large
/// for this machine.
ResolvedRun resolve_simulation(const RunSpec& spec);

}  // namespace pipegrid::run
