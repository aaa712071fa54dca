#include "sim/cli/simulate_command.h"

#include <fmt/format.h>
#include <fstream>
#include <iostream>
#include <memory>

#include "schedules/deadlock.h"
#include "common/number_format.h"
#include "sim/cli/exit_codes.h"
#include "sim/cli/memory_report.h"
#include "sim/cli/simulate_options.h"
#include "sim/exec/report.h"
#include "sim/model/iteration_flops.h"

namespace pipegrid::cli {

namespace {

// TFLOP/s per GPU as Megatron reports it (hardware FLOPs, recomputation included) and MFU (model
// FLOPs, PaLM's definition, over the GPUs' peak).
nlohmann::json model_metrics(const ResolvedRun& run, double makespan) {
  if (!run.model || makespan <= 0) return nullptr;
  const std::int64_t global_batch =
      static_cast<std::int64_t>(run.model->micro_batch) * run.input.schedule.microbatches * run.parallelism.dp;
  const double gpus = run.parallelism.gpus();
  const double hardware = model::hardware_flops_per_iteration(*run.model, global_batch, run.parallelism.recompute);
  const double useful = model::model_flops_per_iteration(*run.model, global_batch);
  return {{"global_batch", global_batch},
          {"tflops_per_gpu", hardware / gpus / makespan / 1e12},
          {"mfu", useful / gpus / makespan / run.peak_flops}};
}

void print_table(std::ostream& out, const ResolvedRun& run, const sim::SimulationResult& result,
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

int simulate_and_report(const SimulateFlags& flags) {
  const ResolvedRun run = resolve(flags);
  if (const auto deadlock = find_deadlock(run.input.schedule)) {
    std::cerr << deadlock->report(run.input.schedule) << '\n';
    return kExitDeadlock;
  }
  const sim::SimulationResult result = sim::simulate(run.input);
  if (result.deadlock_report) {
    std::cerr << *result.deadlock_report << '\n';
    if (!run.input.out_dir.empty()) std::cerr << "wrote " << run.input.out_dir << "/deadlock.json\n";
    return kExitDeadlock;
  }
  nlohmann::json summary = sim::summary_json(result, run.input.schedule, run.echo, model_metrics(run, result.makespan));
  summary["memory"] = memory_json(run);
  if (!run.input.out_dir.empty()) {
    std::ofstream(run.input.out_dir + "/summary.json") << summary.dump(2) << '\n';
    sim::write_links_csv(run.input.out_dir + "/links.csv", result);
  }
  if (flags.format == "json")
    std::cout << summary.dump(2) << '\n';
  else
    print_table(std::cout, run, result, summary);
  return kExitOk;
}

}  // namespace

void add_simulate_command(CLI::App& app, std::function<int()>& run) {
  auto flags = std::make_shared<SimulateFlags>();
  CLI::App* command = app.add_subcommand(
      "simulate", "Run a schedule with one SimGrid actor per GPU on a platform: contended p2p, collectives, traces");
  add_simulate_flags(*command, *flags);
  command->callback([&run, flags] { run = [flags] { return simulate_and_report(*flags); }; });
}

}  // namespace pipegrid::cli
