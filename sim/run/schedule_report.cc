#include "sim/run/schedule_report.h"

#include <algorithm>

#include "common/version.h"

namespace pipegrid::run {

namespace {

nlohmann::json times_json(const ActionTimes& t) {
  return {{"f", t.f}, {"b", t.b}, {"w", t.w}, {"i", t.i()}, {"fb", t.pair()}};
}

}  // namespace

double peak_in_rank_shares(const ScheduleRun& run) {
  const int peak = *std::max_element(run.peak_activations.begin(), run.peak_activations.end());
  return static_cast<double>(peak) / model_stages_per_rank(run.schedule);
}

double parameters_share(const Schedule& s) {
  return static_cast<double>(s.num_stages()) / s.layout.num_model_stages();
}

nlohmann::json to_json(const ScheduleRun& run) {
  const Schedule& s = run.schedule;
  nlohmann::json ranks = nlohmann::json::array();
  for (int r = 0; r < s.ranks; ++r) {
    const RankTiming& t = run.timing.ranks[r];
    ranks.push_back({{"rank", r}, {"busy", t.busy}, {"idle", t.idle}, {"peak_activations", run.peak_activations[r]}});
  }
  return {{"schedule", s.name},
          {"pp", s.ranks},
          {"microbatches", s.microbatches},
          {"chunks", s.chunks},
          {"times", times_json(run.times)},
          {"p2p_latency", run.options.p2p_latency},
          {"p2p", p2p_mode_name(run.options.p2p)},
          {"p2p_channels", run.options.channels},
          {"comm_plan", run.written_comms ? "the file's"
                                          : std::string(comm_plan_name(run.plan == CommPlan::Framework
                                                                           ? plan_of_framework(run.schedule)
                                                                           : run.plan))},
          {"makespan", run.timing.makespan},
          {"bubble_fraction", run.timing.bubble_fraction},
          {"longest_rank_span", run.timing.longest_rank_span},
          {"ranks", std::move(ranks)},
          {"version", kPipegridVersion}};
}

nlohmann::json comparison_json(const std::vector<ScheduleRun>& runs, const ActionTimes& per_rank_stage,
                               const std::vector<std::string>& skipped) {
  nlohmann::json rows = nlohmann::json::array();
  for (const ScheduleRun& run : runs) {
    nlohmann::json row = to_json(run);
    row["peak_activations_rank_shares"] = peak_in_rank_shares(run);
    row["parameters_share"] = parameters_share(run.schedule);
    rows.push_back(std::move(row));
  }
  return {{"times_per_rank_stage", times_json(per_rank_stage)}, {"schedules", std::move(rows)}, {"skipped", skipped}};
}

}  // namespace pipegrid::run
