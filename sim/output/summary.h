// summary.json of a simulation: per pipeline rank and GPU where the time went, the rank that set the
// pace, the bytes per link class, and the inputs echoed. docs/outputs.md documents its keys.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "schedules/schedule.h"
#include "sim/exec/simulation_io.h"

namespace pipegrid::output {

using sim::SimulationResult;

/// Per pipeline rank, averaged over its TP × DP GPUs.
struct RankSummary {
  int rank = 0;
  std::vector<int> stages;
  double busy = 0;
  double idle = 0;
  double p2p_exposed = 0;
  double tp_exposed = 0;
  double cp_exposed = 0;
  double dp_exposed = 0;
  double a2a_exposed = 0;
  double a2a_hidden = 0;
  /// The share of the all-to-all time hidden under computation, 0 when there is none.
  double a2a_overlap() const { return a2a_exposed + a2a_hidden > 0 ? a2a_hidden / (a2a_exposed + a2a_hidden) : 0; }
};

std::vector<RankSummary> summarize_ranks(const SimulationResult& result, const Schedule& schedule);

/// The rank that set the pace: the one that computed longest (the others wait for it), and why.
struct Pace {
  int rank = 0;
  double busy = 0;
  double mean_busy = 0;  // over all ranks
  std::string gpu;       // the GPU that computed longest of all (a slow GPU inside a TP group sets its pace)
  double gpu_busy = 0;
  std::string explanation;
};
Pace find_pace(const std::vector<RankSummary>& ranks, const SimulationResult& result);

/// A link's name without SimGrid's _UP / _DOWN direction suffix, and the direction ("UP", "DOWN", "").
std::pair<std::string_view, std::string_view> split_direction(std::string_view link_name);

/// The link class a link belongs to, from its name: the last '-'-separated word, after dropping
/// SimGrid's _UP / _DOWN direction suffix ("node3-gpu5-nvlink_UP" → "nvlink").
std::string link_class(std::string_view link_name);

/// summary.json: `inputs` (echoed by the caller: what was simulated and with which options) plus
/// makespan, bubble_fraction, pace, ranks, gpus, bytes_per_link_class and, when `model` is given,
/// its metrics (tflops_per_gpu, mfu).
nlohmann::json summary_json(const SimulationResult& result, const Schedule& schedule, nlohmann::json inputs,
                            nlohmann::json model_metrics = nullptr);

}  // namespace pipegrid::output
