// The flags of `pipegrid simulate` and their resolution into a checked SimulationInput: everything
// that can be wrong with the input is found here, before SimGrid starts.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "schedules/action_times.h"
#include "sim/exec/executor.h"
#include "sim/model/memory_model.h"
#include "sim/model/parallelism.h"
#include "sim/model/transformer.h"

namespace pipegrid::cli {

/// The flags as given; strings for choices, so that their errors are pipegrid's one line.
struct SimulateFlags {
  std::string platform;
  std::string schedule;
  int pp = 1, microbatches = 1, chunks = 0, tp = 1, dp = 1;
  std::string placement = "tp-dp-pp";
  bool allow_tp_across_nodes = false;
  // Explicit costs.
  std::optional<double> time_f, time_b, time_w, time_fb;
  double p2p_bytes = 0;
  // A model.
  std::string model;
  std::optional<int> layers, hidden, heads, seq, vocab, ffn_hidden;
  int micro_batch = 1;
  double compute_efficiency = 1;
  bool scatter_gather = false;
  std::string recompute = "none";
  int gradient_bytes = 4;
  bool distributed_optimizer = false;
  bool uneven_layers = false;
  bool flash_attention = false;
  // Mixture of experts.
  std::optional<int> experts, top_k, shared_experts, expert_hidden, max_nodes_per_token, first_dense_layers,
      dispatch_bytes, combine_bytes;
  int ep = 1;
  std::string routing = "uniform";
  std::string ep_comm = "flow";
  double comm_sm_fraction = 0;
  std::string stage_cost_scale;
  // Fidelity and outputs.
  std::string p2p = "async", tp_comm = "analytic", dp_comm = "flow";
  std::string out;
  std::string trace = "all";
  std::string format = "table";
};

void add_simulate_flags(CLI::App& command, SimulateFlags& flags);

/// A resolved run: the input for the executor, the model when one was given, and the inputs echoed
/// for summary.json.
/// What each pipeline rank's GPUs hold, for the memory report: per virtual stage, one micro-batch's
/// activations (and the part a split backward's W keeps) and the stage's static bytes per GPU.
struct MemoryPlan {
  std::vector<double> activation_bytes;  // per virtual stage
  std::vector<double> kept_for_weight_gradient;
  std::vector<model::StaticMemory> static_bytes;  // per virtual stage
};

struct ResolvedRun {
  sim::SimulationInput input;
  std::optional<model::Transformer> model;
  model::Parallelism parallelism;
  std::optional<MemoryPlan> memory;  // with a model
  std::vector<double> rank_capacity;  // the smallest GPU memory among each pipeline rank's GPUs
  double peak_flops = 0;  // median speed of the job's GPUs: the MFU denominator
  nlohmann::json echo;
};

/// Reads the platform, generates and checks the schedule, places the job and prices it. Throws
/// InputError (one line) for any bad input.
ResolvedRun resolve(const SimulateFlags& flags);

}  // namespace pipegrid::cli
