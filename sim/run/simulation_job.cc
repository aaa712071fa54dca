#include "sim/run/simulation_job.h"

#include <fmt/format.h>
#include <fstream>

#include "common/version.h"
#include "schedules/deadlock.h"
#include "sim/exec/report.h"
#include "sim/model/iteration_flops.h"
#include "sim/run/memory_report.h"

namespace pipegrid::run {

namespace {

// TFLOP/s per GPU as Megatron reports it (hardware FLOPs, recomputation included) and MFU (model
// FLOPs, PaLM's definition, over the GPUs' peak).
// Per step, from the steady state: the last step's duration (the only step when there is one).
nlohmann::json model_metrics(const ResolvedRun& run, double step) {
  if (!run.model || step <= 0) return nullptr;
  const double makespan = step;
  const std::int64_t global_batch =
      static_cast<std::int64_t>(run.model->micro_batch) * run.input.schedule.microbatches * run.parallelism.dp;
  const double gpus = run.parallelism.gpus();
  const double hardware = model::hardware_flops_per_iteration(*run.model, global_batch, run.parallelism.recompute);
  const double useful = model::model_flops_per_iteration(*run.model, global_batch);
  return {{"global_batch", global_batch},
          {"tflops_per_gpu", hardware / gpus / makespan / 1e12},
          {"mfu", useful / gpus / makespan / run.peak_flops},
          {"samples_per_second", static_cast<double>(global_batch) / makespan}};
}

}  // namespace

SimulationOutcome run_simulation(const input::OptionValues& values) {
  SimulationOutcome outcome;
  outcome.run = resolve_simulation(values);
  const ResolvedRun& run = outcome.run;
  if (run.compute_deadlock) {
    outcome.deadlock = run.compute_deadlock;
    return outcome;
  }
  outcome.result = sim::simulate(run.input);
  if (outcome.result.failure_report) {
    outcome.failure = *outcome.result.failure_report +
                      (run.input.out_dir.empty() ? "" : fmt::format("; wrote {}/failure.json", run.input.out_dir));
    return outcome;
  }
  if (outcome.result.deadlock_report) {
    outcome.deadlock = outcome.result.deadlock_report;
    outcome.wrote_deadlock_json = !run.input.out_dir.empty();
    return outcome;
  }
  nlohmann::json& summary = outcome.summary;
  summary =
      sim::summary_json(outcome.result, run.input.schedule, run.echo, model_metrics(run, outcome.result.steady_step()));
  summary["memory"] = memory_json(run);
  if (!run.compute_breakdown.is_null()) summary["compute_breakdown"] = run.compute_breakdown;
  summary["version"] = kPipegridVersion;
  if (!run.input.out_dir.empty()) {
    std::ofstream(run.input.out_dir + "/summary.json") << summary.dump(2) << '\n';
    sim::write_links_csv(run.input.out_dir + "/links.csv", outcome.result);
    if (run.input.link_timeline)
      sim::write_links_timeline_csv(run.input.out_dir + "/links_timeline.csv", outcome.result);
  }
  return outcome;
}

}  // namespace pipegrid::run
