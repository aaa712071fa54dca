#include "sim/run/schedule_report.h"

#include <algorithm>

#include "common/version.h"

namespace pipegrid::run {

namespace {

nlohmann::json times_json(const ActionTimes& t) {
  return {{"f", t.f}, {"b", t.b}, {"w", t.w}, {"i", t.i()}, {"fb", t.pair()}};
}

// A model's per-stage prices (replica 0's) and what they were priced for.
nlohmann::json model_json(const ModelStep& m) {
  nlohmann::json stages = nlohmann::json::array();
  for (std::size_t s = 0; s < m.ops.size(); ++s) {
    const StageOpTimes& t = m.ops[s];
    nlohmann::json stage = {{"stage", s},
                      {"f", t.f},
                      {"i", t.i},
                      {"w", t.w},
                      {"tp_allreduce", t.tp_allreduce},
                      {"tp_allreduces_f", t.tp_forward},
                      {"tp_allreduces_b", t.tp_backward},
                      {"send_forward", {{"latency", m.forward_messages[s].latency}, {"transfer", m.forward_messages[s].transfer}}},
                      {"send_backward",
                       {{"latency", m.backward_messages[s].latency}, {"transfer", m.backward_messages[s].transfer}}}};
    // Sequence parallelism's halves, each tp_allreduce / 2 (listed only then: other runs keep their bytes).
    if (t.tp_reduce_scatters_forward + t.tp_reduce_scatters_backward + t.tp_all_gathers_forward + t.tp_all_gathers_backward > 0)
      stage.update({{"tp_reduce_scatters_f", t.tp_reduce_scatters_forward},
                    {"tp_reduce_scatters_b", t.tp_reduce_scatters_backward},
                    {"tp_all_gathers_f", t.tp_all_gathers_forward},
                    {"tp_all_gathers_b", t.tp_all_gathers_backward}});
    stages.push_back(std::move(stage));
  }
  nlohmann::json out = m.echo;
  out["stages"] = std::move(stages);
  return out;
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
  nlohmann::json out = {{"schedule", s.name},
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
  if (run.model) {
    // Priced from a model: no one set of times, no fixed latency; the step is the estimate.
    out.erase("times");
    out.erase("p2p_latency");
    out["model"] = model_json(*run.model);
    out["step_time"] = run.model->step_time;
    out["estimate"] = "contention-free";
  }
  return out;
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
