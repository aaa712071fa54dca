#include "sim/cli/simulate_command.h"

#include <algorithm>
#include <fmt/format.h>
#include <iostream>
#include <vector>

#include "common/exit_codes.h"
#include "common/number_format.h"
#include "sim/output/simulation_files.h"
#include "sim/output/summary.h"

namespace pipegrid::cli {

namespace {

// One line on what priced the compute: the GPU and, for pipeline rank 0's step, the op kinds that
// take most of it.
void print_compute(std::ostream& out, const nlohmann::json& breakdown) {
  if (breakdown["model"] != "kernels") {
    out << fmt::format("compute: every FLOP at {:g} of the GPU's peak (--compute-efficiency)\n",
                       breakdown["compute_efficiency"].get<double>());
    return;
  }
  std::vector<std::pair<double, std::string>> kinds;
  double total = 0;
  for (const auto& [kind, seconds] : breakdown["ranks"][0]["step_seconds_by_kind"].items()) {
    kinds.emplace_back(seconds.get<double>(), kind);
    total += seconds.get<double>();
  }
  std::sort(kinds.rbegin(), kinds.rend());
  out << fmt::format("compute: kernel model on {} ({}); rank 0's step {} s of kernels:", breakdown["gpu_name"].get<std::string>(),
                     breakdown["calibration"].get<std::string>(), format_number(total));
  for (std::size_t k = 0; k < std::min<std::size_t>(4, kinds.size()); ++k)
    out << fmt::format(" {} {:.0f} %", kinds[k].second, 100 * kinds[k].first / total);
  out << '\n';
}

void print_table(std::ostream& out, const run::ResolvedRun& run, const sim::SimulationResult& result,
                 const nlohmann::json& summary, const std::vector<output::OutputFile>& written) {
  const sim::SimulationInput& in = run.input;
  const sim::ParallelSizes& sizes = in.placement.sizes();
  // The platform as echoed: its file, or the platform gen command of a generated one.
  const std::string platform = run.echo["platform"].get<std::string>();
  out << fmt::format("{} on {}: {} GPUs (tp {}, pp {}, dp {}{}), {} micro-batches, chunks {}\n", in.schedule.name,
                     platform, sizes.gpus(), sizes.tp, sizes.pp, sizes.dp,
                     sizes.cp > 1 ? fmt::format(", cp {}", sizes.cp) : "", in.schedule.microbatches, in.schedule.chunks);
  out << fmt::format("makespan {} s, bubble fraction {:.4f}", format_number(result.makespan), result.bubble_fraction);
  if (summary.contains("tflops_per_gpu"))
    out << fmt::format(", {:.1f} TFLOP/s per GPU, MFU {:.3f}", summary["tflops_per_gpu"].get<double>(),
                       summary["mfu"].get<double>());
  out << "\npace: " << summary["pace"]["explanation"].get<std::string>() << '\n';
  if (summary.contains("compute_breakdown")) print_compute(out, summary["compute_breakdown"]);
  out << '\n';
  const bool moe = in.costs.routing().enabled();
  const bool cp = sizes.cp > 1;  // its column only then, so other runs print as they did
  out << fmt::format("{:>5} {:>10} {:>12} {:>12} {:>12} {:>12} {:>12}", "rank", "stages", "busy", "idle",
                     "p2p exposed", "tp exposed", "dp exposed");
  if (cp) out << fmt::format(" {:>12}", "cp exposed");
  out << (moe ? fmt::format(" {:>12} {:>12} {:>8}\n", "a2a exposed", "a2a hidden", "overlap") : std::string("\n"));
  for (const auto& r : output::summarize_ranks(result, in.schedule)) {
    out << fmt::format("{:>5} {:>10} {:>12.6g} {:>12.6g} {:>12.6g} {:>12.6g} {:>12.6g}", r.rank,
                       fmt::format("{}", fmt::join(r.stages, ",")), r.busy, r.idle, r.p2p_exposed, r.tp_exposed,
                       r.dp_exposed);
    if (cp) out << fmt::format(" {:>12.6g}", r.cp_exposed);
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
  if (!run.outputs.dir.empty()) out << output::written_line(run.outputs.dir, written) << '\n';
}

}  // namespace

int print_simulation_outcome(const run::SimulationOutcome& outcome, const std::string& format) {
  if (outcome.failure) {
    std::cerr << *outcome.failure << '\n';
    return kExitPlatformFailed;
  }
  if (outcome.deadlock) {
    std::cerr << *outcome.deadlock << '\n';
    if (!outcome.written.empty() && outcome.written.back() == output::OutputFile::Deadlock)
      std::cerr << "wrote " << output::output_path(outcome.run.outputs.dir, output::OutputFile::Deadlock) << '\n';
    return kExitDeadlock;
  }
  if (format == "json") std::cout << outcome.summary.dump(2) << '\n';
  else print_table(std::cout, outcome.run, outcome.result, outcome.summary, outcome.written);
  return kExitOk;
}

}  // namespace pipegrid::cli
