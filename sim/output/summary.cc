#include "sim/output/summary.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <stdexcept>

#include "common/number_format.h"

namespace pipegrid::output {

using namespace sim;

std::pair<std::string_view, std::string_view> split_direction(std::string_view name) {
  for (std::string_view suffix : {"_UP", "_DOWN"})
    if (name.ends_with(suffix)) return {name.substr(0, name.size() - suffix.size()), suffix.substr(1)};
  return {name, ""};
}

std::string link_class(std::string_view link_name) {
  const std::string_view base = split_direction(link_name).first;
  const auto dash = base.rfind('-');
  return std::string(dash == std::string_view::npos ? base : base.substr(dash + 1));
}

std::vector<RankSummary> summarize_ranks(const SimulationResult& result, const Schedule& schedule) {
  std::vector<RankSummary> ranks(schedule.ranks);
  std::vector<int> gpus(schedule.ranks, 0);
  for (int r = 0; r < schedule.ranks; ++r) ranks[r].rank = r;
  for (int s = 0; s < schedule.num_stages(); ++s) ranks[schedule.rank_of(s)].stages.push_back(s);
  for (const GpuReport& gpu : result.gpus) {
    RankSummary& rank = ranks[gpu.coordinates.pp];
    const GpuAccount& a = gpu.account;
    rank.busy += a.busy;
    rank.idle += result.makespan - a.busy - a.exposed();
    rank.p2p_exposed += a.p2p_exposed;
    rank.tp_exposed += a.tp_exposed;
    rank.cp_exposed += a.cp_exposed;
    rank.dp_exposed += a.dp_exposed;
    rank.a2a_exposed += a.a2a_exposed;
    rank.a2a_hidden += a.a2a_hidden;
    ++gpus[gpu.coordinates.pp];
  }
  for (int r = 0; r < schedule.ranks; ++r) {
    const double n = std::max(1, gpus[r]);
    for (double* v : {&ranks[r].busy, &ranks[r].idle, &ranks[r].p2p_exposed, &ranks[r].tp_exposed, &ranks[r].cp_exposed, &ranks[r].dp_exposed,
                      &ranks[r].a2a_exposed, &ranks[r].a2a_hidden})
      *v /= n;
  }
  return ranks;
}

Pace find_pace(const std::vector<RankSummary>& ranks, const SimulationResult& result) {
  Pace pace;
  for (const GpuReport& g : result.gpus)
    if (pace.gpu.empty() || g.account.busy > pace.gpu_busy) {
      pace.gpu = g.host;
      pace.gpu_busy = g.account.busy;
    }
  for (const RankSummary& r : ranks) {
    pace.mean_busy += r.busy / static_cast<double>(ranks.size());
    if (r.busy > ranks[pace.rank].busy) pace.rank = r.rank;
  }
  pace.busy = ranks.empty() ? 0 : ranks[pace.rank].busy;
  const double excess = pace.mean_busy > 0 ? pace.busy / pace.mean_busy - 1 : 0;
  if (excess < 1e-9)
    pace.explanation = "every rank computes equally long: the bubble comes from the schedule, not from imbalance";
  else
    pace.explanation = fmt::format(
        "pipeline rank {} (stages {}) computes longest, {} s against a mean of {} s ({:.1f} % more): the other ranks "
        "wait for it",
        pace.rank, fmt::join(ranks[pace.rank].stages, ", "), format_number(pace.busy), format_number(pace.mean_busy),
        100 * excess);
  // Busy is averaged over a rank's GPUs; a slower GPU inside a rank holds back its TP group.
  if (pace.gpu_busy > pace.busy * (1 + 1e-9))
    pace.explanation += fmt::format("; {} computes longest of all GPUs, {} s: the GPUs it works with wait for it",
                                    pace.gpu, format_number(pace.gpu_busy));
  return pace;
}

nlohmann::json summary_json(const SimulationResult& result, const Schedule& schedule, nlohmann::json inputs,
                            nlohmann::json model_metrics) {
  const std::vector<RankSummary> ranks = summarize_ranks(result, schedule);
  const Pace pace = find_pace(ranks, result);
  nlohmann::json json{{"makespan", result.makespan},
                      {"bubble_fraction", result.bubble_fraction},
                      {"steps", std::max<std::size_t>(result.step_ends.size(), 1)},
                      {"first_step", result.first_step()},
                      {"steady_step", result.steady_step()},
                      {"actors", result.actors},
                      {"simgrid_comms", result.simgrid_comms},
                      {"rail_fold", result.rail_fold}};
  if (result.rail_fold) {
    json["rail_fold_mirror_links"] = result.rail_fold_mirror_links;
    json["rail_fold_analytic_mirror_links"] = result.rail_fold_analytic_mirror_links;
  }
  if (result.searched_routes > 0)
    json["route_search"] = {{"searched", result.searched_routes}, {"checked_against_simgrid", result.routes_checked_against_search}};
  if (!result.rail_fold) json["rail_fold_why_not"] = result.rail_fold_why_not;
  if (!model_metrics.is_null()) json.update(model_metrics);
  json["pace"] = {{"rank", pace.rank}, {"stages", ranks.empty() ? std::vector<int>{} : ranks[pace.rank].stages},
                  {"busy", pace.busy}, {"mean_busy", pace.mean_busy}, {"gpu", pace.gpu}, {"gpu_busy", pace.gpu_busy},
                  {"explanation", pace.explanation}};
  json["inputs"] = std::move(inputs);
  // Context parallelism's keys only where it runs (cp > 1), so that other runs keep their bytes.
  const bool context_parallel =
      std::any_of(result.gpus.begin(), result.gpus.end(), [](const GpuReport& g) { return g.coordinates.cp > 0; });
  json["ranks"] = nlohmann::json::array();
  for (const RankSummary& r : ranks) {
    json["ranks"].push_back({{"rank", r.rank}, {"stages", r.stages}, {"busy", r.busy}, {"idle", r.idle},
                             {"exposed_comm",
                              {{"p2p", r.p2p_exposed}, {"tp", r.tp_exposed}, {"dp", r.dp_exposed}, {"a2a", r.a2a_exposed}}},
                             {"a2a_hidden", r.a2a_hidden}, {"a2a_overlap", r.a2a_overlap()}});
    if (context_parallel) json["ranks"].back()["exposed_comm"]["cp"] = r.cp_exposed;
  }
  json["gpus"] = nlohmann::json::array();
  for (const GpuReport& g : result.gpus) {
    const GpuAccount& a = g.account;
    json["gpus"].push_back({{"host", g.host}, {"node", g.node}, {"tp", g.coordinates.tp}, {"dp", g.coordinates.dp},
                            {"pp", g.coordinates.pp}, {"busy", a.busy}, {"idle", result.makespan - a.busy - a.exposed()},
                            {"exposed_comm",
                             {{"p2p", a.p2p_exposed}, {"tp", a.tp_exposed}, {"dp", a.dp_exposed}, {"a2a", a.a2a_exposed}}},
                            {"a2a_hidden", a.a2a_hidden},
                            {"a2a_exposed_in_pairs", a.a2a_exposed_in_pairs},
                            {"optimizer_sync_wait", a.sync_wait},
                            {"finish", a.finish}});
    if (context_parallel) {
      json["gpus"].back()["cp"] = g.coordinates.cp;
      json["gpus"].back()["exposed_comm"]["cp"] = a.cp_exposed;
    }
  }
  std::map<std::string, double> by_class;
  for (const LinkReport& link : result.links) by_class[link_class(link.name)] += link.bytes;
  json["bytes_per_link_class"] = by_class;
  return json;
}

}  // namespace pipegrid::output
