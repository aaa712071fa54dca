// Which compute model prices a transformer run, resolved from the options and the platform: the
// calibrated kernel model of the platform's GPU (the default), or FLOPs at --compute-efficiency.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/model/compute_model.h"
#include "sim/model/parallelism.h"
#include "sim/model/stage_cost.h"
#include "sim/model/transformer.h"
#include "sim/platform/platform_facts.h"
#include "sim/run/run_spec.h"

namespace pipegrid::run {

struct ComputeCosts {
  std::vector<model::ComputeWork> work;  // per virtual stage
  std::vector<double> optimizer_seconds;  // per pipeline rank: the step's update on one of its GPUs
  nlohmann::json breakdown;               // summary.json's compute_breakdown
  nlohmann::json echo;                    // summary.json's options.model.compute
  int sms = 0;                            // the kernel model's GPU's SMs; 0 with --compute-efficiency
  double mfu_peak_scale = 1;              // MFU's peak over the job's speed: FP8 over BF16 under --precision fp8
  std::string mfu_peak_precision;         // the peak's precision when it is not the job's speed ("fp8", "bf16")
};

struct StageLayoutView {
  std::vector<int> model_stage;  // per virtual stage
  std::vector<int> rank;         // per virtual stage
  int ranks = 0;
};

/// Throws InputError (one line) when the job's GPUs name no known gpu_model or several, unless
/// --compute-efficiency is given (`platform` names the platform in it); `reference_speed` is the
/// job's median GPU speed.
ComputeCosts resolve_compute(const ModelSpec& spec, int gradient_bytes, const std::string& platform,
                             const model::Parallelism& parallelism,
                             const std::vector<model::StageCost>& model_stages, const StageLayoutView& layout,
                             const std::vector<platform::GpuHost>& job_gpus, double reference_speed,
                             int microbatches);

}  // namespace pipegrid::run
