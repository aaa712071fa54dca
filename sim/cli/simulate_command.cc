#include "sim/cli/simulate_command.h"

#include <fmt/format.h>
#include <iostream>

#include "common/exit_codes.h"
#include "common/number_format.h"
#include "sim/exec/report.h"

namespace pipegrid::cli {

namespace {

void print_table(std::ostream& out, const run::ResolvedRun& run, const sim::SimulationResult& result,
                 const nlohmann::json& summary) {
  const sim::SimulationInput& in = run.input;
  out << fmt::format("{} on {}: {} GPUs (tp {}, pp {}, dp {}), {} micro-batches, chunks {}\n", in.schedule.name,
                     in.platform_file, in.sizes.gpus(), in.sizes.tp, in.sizes.pp, in.sizes.dp, in.schedule.microbatches,
                     in.schedule.chunks);
  out << fmt::format("makespan {} s, bubble fraction {:.4f}", format_number(result.makespan), result.bubble_fraction);
  if (summary.contains("tflops_per_gpu"))
    out << fmt::format(", {:.1f} TFLOP/s per GPU, MFU {:.3f}", summary["tflops_per_gpu"].get<double>(),
                       summary["mfu"].get<double>());
  out << "\npace: " << summary["pace"]["explanation"].get<std::string>() << "\n\n";
  const bool moe = in.costs.routing().enabled();
  out << fmt::format("{:>5} {:>10} {:>12} {:>12} {:>12} {:>12} {:>12}", "rank", "stages", "busy", "idle",
                     "p2p exposed", "tp exposed", "dp exposed");
  out << (moe ? fmt::format(" {:>12} {:>12} {:>8}\n", "a2a exposed", "a2a hidden", "overlap") : std::string("\n"));
  for (const auto& r : sim::summarize_ranks(result, in.schedule)) {
    out << fmt::format("{:>5} {:>10} {:>12.6g} {:>12.6g} {:>12.6g} {:>12.6g} {:>12.6g}", r.rank,
                       fmt::format("{}", fmt::join(r.stages, ",")), r.busy, r.idle, r.p2p_exposed, r.tp_exposed,
                       r.dp_exposed);
    out << (moe ? fmt::format(" {:>12.6g} {:>12.6g} {:>8.3f}\n", r.a2a_exposed, r.a2a_hidden, r.a2a_overlap())
                : std::string("\n"));
  }
  const nlohmann::json& memory = summary["memory"];
  if (run.memory) {
    out << "\nmemory per GPU at its peak (GB):";
    for (const auto& rank : memory["ranks"])
      out << fmt::format(" rank {} {:.1f}{}", rank["rank"].get<int>(), rank["total"].get<double>() / 1e9,
                         rank["over"].get<bool>() ? " (over!)" : "");
    out << fmt::format("; capacity {:.1f}\n", run.rank_capacity.front() / 1e9);
  }
  if (!memory["over_capacity"].empty())
    out << fmt::format("warning: ranks {} need more memory than their GPUs have\n",
                       memory["over_capacity"].dump());
  out << "\nbytes per link class:";
  for (const auto& [link_class, bytes] : summary["bytes_per_link_class"].items())
    out << fmt::format(" {} {:.4g}", link_class, bytes.get<double>());
  out << '\n';
  if (!in.out_dir.empty()) out << fmt::format("wrote {}/summary.json, links.csv, trace.csv, trace.json\n", in.out_dir);
}

}  // namespace

int print_simulation_outcome(const run::SimulationOutcome& outcome, const std::string& format) {
  if (outcome.deadlock) {
    std::cerr << *outcome.deadlock << '\n';
    if (outcome.wrote_deadlock_json) std::cerr << "wrote " << outcome.run.input.out_dir << "/deadlock.json\n";
    return kExitDeadlock;
  }
  if (format == "json") std::cout << outcome.summary.dump(2) << '\n';
  else print_table(std::cout, outcome.run, outcome.result, outcome.summary);
  return kExitOk;
}

}  // namespace pipegrid::cli
