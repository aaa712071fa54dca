#include "sim/cli/schedule_output.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <ostream>

#include "sim/run/schedule_report.h"

namespace pipegrid::cli {

using run::ScheduleRun;
using run::model_stages_per_rank;
using run::parameters_share;
using run::peak_in_rank_shares;

namespace {

std::string describe_times(const ActionTimes& t) {
  return fmt::format("F {}, B {}, W {}, I {}, FB {}", format_number(t.f), format_number(t.b), format_number(t.w),
                     format_number(t.i()), format_number(t.pair()));
}

// What priced the ops: the kernel model of a GPU, or FLOPs at one efficiency (compute_costs.h's echo).
std::string compute_name(const nlohmann::json& compute) {
  if (compute.contains("gpu")) return compute["gpu"].get<std::string>();
  if (compute.contains("compute_efficiency"))
    return fmt::format("FLOPs at efficiency {}", format_number(compute["compute_efficiency"].get<double>()));
  return "the GPU";
}

}  // namespace

void print_table(std::ostream& out, const ScheduleRun& run) {
  const Schedule& s = run.schedule;
  out << fmt::format("schedule {}: pp {}, microbatches {}, chunks {}\n", s.name, s.ranks, s.microbatches, s.chunks);
  if (run.model) {
    const nlohmann::json& echo = run.model->echo;
    out << fmt::format("model {} on {}: tp {}, dp {}{}; ops priced by the compute model of {}, messages and "
                       "collectives by the platform's routes (α-β)\n",
                       echo["model"].get<std::string>(), echo["platform"].get<std::string>(), echo["tp"].get<int>(),
                       echo["dp"].get<int>(), echo.contains("cp") ? fmt::format(", cp {}", echo["cp"].get<int>()) : "",
                       compute_name(echo["compute"]));
    out << fmt::format("step time {} s: the contention-free estimate (no two flows share a link; pipegrid simulate "
                       "times contention)\n",
                       format_number(run.model->step_time));
  } else {
    out << fmt::format("times per virtual stage: {}; p2p latency {}\n", describe_times(run.times),
                       format_number(run.options.p2p_latency));
  }
  out << fmt::format("makespan {}, bubble fraction {:.4f}, longest rank span {} (the zero-bubble paper's cost)\n\n",
                     format_number(run.timing.makespan), run.timing.bubble_fraction,
                     format_number(run.timing.longest_rank_span));
  out << fmt::format("{:>5} {:>12} {:>12} {:>17}\n", "rank", "busy", "idle", "peak activations");
  for (int r = 0; r < s.ranks; ++r) {
    const RankTiming& t = run.timing.ranks[r];
    out << fmt::format("{:>5} {:>12} {:>12} {:>17}\n", r, format_number(t.busy), format_number(t.idle),
                       run.peak_activations[r]);
  }
  out << "\nprograms:\n";
  for (int r = 0; r < s.ranks; ++r) {
    out << fmt::format("{:>5}:", r);
    for (const Op& op : s.programs[r]) out << ' ' << to_string(op);
    out << '\n';
  }
}

void print_comparison(std::ostream& out, const std::vector<ScheduleRun>& runs, const ActionTimes& per_rank_stage,
                      const std::vector<std::string>& skipped) {
  if (!runs.empty())
    out << fmt::format("pp {}, microbatches {}; times per rank-stage: {}; p2p latency {}\n",
                       runs.front().schedule.ranks, runs.front().schedule.microbatches, describe_times(per_rank_stage),
                       format_number(runs.front().options.p2p_latency));
  out << "(a schedule that cuts a rank's share of the model into k stages runs 1/k of these times per stage;\n"
         " peak activations and parameters count a rank's share of the model as 1)\n\n";
  out << fmt::format("{:<12} {:>6} {:>12} {:>8} {:>12} {:>17} {:>11}\n", "schedule", "chunks", "makespan", "bubble",
                     "rank span", "peak activations", "parameters");
  for (const ScheduleRun& run : runs)
    out << fmt::format("{:<12} {:>6} {:>12} {:>8.4f} {:>12} {:>17} {:>11}\n", run.schedule.name, run.schedule.chunks,
                       format_number(run.timing.makespan), run.timing.bubble_fraction,
                       format_number(run.timing.longest_rank_span),
                       format_number(peak_in_rank_shares(run)), format_number(parameters_share(run.schedule)));
  for (const std::string& reason : skipped) out << "skipped " << reason << '\n';
}

}  // namespace pipegrid::cli
