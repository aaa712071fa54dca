// What a simulation writes under --out DIR besides the trace: summary.json, links.csv and
// links_timeline.csv
// (docs/design.md, "Outputs"). Columns and keys are declared here once; README documents them.
#pragma once

#include <array>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "schedules/schedule.h"
#include "sim/exec/executor.h"

namespace pipegrid::sim {

/// Per pipeline rank, averaged over its TP × DP GPUs.
struct RankSummary {
  int rank = 0;
  std::vector<int> stages;
  double busy = 0;
  double idle = 0;
  double p2p_exposed = 0;
  double tp_exposed = 0;
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

/// The link class a link belongs to, from its name: the last '-'-separated word, after dropping
/// SimGrid's _UP / _DOWN direction suffix ("node3-gpu5-nvlink_UP" → "nvlink").
std::string link_class(std::string_view link_name);

/// summary.json: `inputs` (echoed by the caller: what was simulated and with which options) plus
/// makespan, bubble_fraction, pace, ranks, gpus, bytes_per_link_class and, when `model` is given,
/// its metrics (tflops_per_gpu, mfu).
nlohmann::json summary_json(const SimulationResult& result, const Schedule& schedule, nlohmann::json inputs,
                            nlohmann::json model_metrics = nullptr);

/// links.csv: one row per link of the platform and direction, by name; unused links have zeros.
inline constexpr std::array<std::string_view, 13> kLinkColumns = {
    "link",           "class",     "bandwidth",  "latency",
    "sharing_policy", "bytes",     "analytic_bytes", "flows",
    "busy_time",      "mean_utilization_busy", "peak_utilization", "peak_start",
    "direction"};
void write_links_csv(const std::string& path, const SimulationResult& result);

/// links_timeline.csv: per link and direction, the bytes of every --link-window window that carried
/// any (windows without bytes are left out), by link, then time.
inline constexpr std::array<std::string_view, 4> kLinkTimelineColumns = {"link", "direction", "window_start", "bytes"};
void write_links_timeline_csv(const std::string& path, const SimulationResult& result);

}  // namespace pipegrid::sim
