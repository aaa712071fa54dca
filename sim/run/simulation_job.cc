#include "sim/run/simulation_job.h"

#include <fmt/format.h>

#include "common/version.h"
#include "schedules/deadlock.h"
#include "sim/exec/executor.h"
#include "sim/output/run_folder.h"
#include "sim/output/simulation_files.h"
#include "sim/output/summary.h"
#include "sim/output/trace_writer.h"
#include "sim/model/iteration_flops.h"
#include "sim/run/memory_report.h"

namespace pipegrid::run {

namespace {

// TFLOP/s per GPU as Megatron reports it (hardware FLOPs, recomputation included) and MFU (model
// FLOPs, PaLM's definition, over the GPUs' peak).
// Per step, from the steady state: the last step's duration (the only step when there is one).
// With --flash-attention the attention core counts its causal half, the FLOPs its kernels compute
// (and NeMo's formulas count): counting the whole square against them would put MFU above 1 once
// the square dominates (Llama-3.1-8B at 128K tokens).
nlohmann::json model_metrics(const ResolvedRun& run, double step, bool flash_attention) {
  if (!run.model || step <= 0) return nullptr;
  const double makespan = step;
  const std::int64_t global_batch =
      static_cast<std::int64_t>(run.model->micro_batch) * run.input.schedule.microbatches * run.parallelism.dp;
  const double gpus = run.parallelism.gpus();
  const auto attention = flash_attention ? model::AttentionCount::Causal : model::AttentionCount::Square;
  const double hardware =
      model::hardware_flops_per_iteration(*run.model, global_batch, run.parallelism.recompute, attention);
  const double useful = model::model_flops_per_iteration(*run.model, global_batch, attention);
  const double peak = run.peak_flops * run.mfu_peak_scale;
  nlohmann::json metrics = {{"global_batch", global_batch},
                            {"tflops_per_gpu", hardware / gpus / makespan / 1e12},
                            {"mfu", useful / gpus / makespan / peak},
                            {"samples_per_second", static_cast<double>(global_batch) / makespan}};
  // As NVIDIA's tables give it: an FP8 run's MFU against the FP8 dense peak; a --gpu-file GPU's against its own.
  if (!run.mfu_peak_precision.empty()) metrics["mfu_peak_flops"] = {{"precision", run.mfu_peak_precision}, {"flops", peak}};
  return metrics;
}

}  // namespace

SimulationOutcome run_simulation(const RunSpec& spec) {
  SimulationOutcome outcome;
  outcome.run = resolve_simulation(spec);
  ResolvedRun& run = outcome.run;
  if (run.compute_deadlock) {
    outcome.deadlock = run.compute_deadlock;
    return outcome;
  }
  const std::string& dir = run.outputs.dir;
  std::optional<output::TraceWriter> trace;
  if (!dir.empty()) {
    trace.emplace(dir, output::traced_gpus(run.input.platform_gpus, run.input.placement), run.outputs.trace,
                  output::stage_labels(run.input.schedule), run.outputs.trace_json);
    run.input.trace = &*trace;
  }
  outcome.result = sim::simulate(run.input);
  run.input.trace = nullptr;
  if (trace) {
    trace->close();
    outcome.written = trace->files();
  }
  if (const auto& failure = outcome.result.failure) {
    outcome.failure = failure->line;
    if (!dir.empty()) {
      output::write_json(dir, output::OutputFile::Failure, failure->file);
      *outcome.failure += "; wrote " + output::output_path(dir, output::OutputFile::Failure);
    }
    return outcome;
  }
  if (const auto& deadlock = outcome.result.deadlock) {
    outcome.deadlock = deadlock->line;
    if (!dir.empty()) {
      output::write_json(dir, output::OutputFile::Deadlock, deadlock->file);
      outcome.written.push_back(output::OutputFile::Deadlock);
    }
    return outcome;
  }
  nlohmann::json& summary = outcome.summary;
  summary = output::summary_json(outcome.result, run.input.schedule, run.echo,
                                 model_metrics(run, outcome.result.steady_step(), spec.model && spec.model->flash_attention));
  summary["memory"] = memory_json(run);
  if (!run.compute_breakdown.is_null()) summary["compute_breakdown"] = run.compute_breakdown;
  summary["version"] = kPipegridVersion;
  if (!dir.empty()) {
    std::vector<output::OutputFile> files = output::write_simulation_files(dir, summary, outcome.result, run.input.link_timeline);
    files.insert(files.end(), outcome.written.begin(), outcome.written.end());
    if (run.platform_generated) files.push_back(output::OutputFile::PlatformXml);
    outcome.written = std::move(files);
  }
  return outcome;
}

}  // namespace pipegrid::run
