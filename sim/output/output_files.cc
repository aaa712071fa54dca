#include "sim/output/output_files.h"

#include <array>
#include <stdexcept>

namespace pipegrid::output {

namespace {

// chunk: the action's virtual stage among its rank's (empty on comm rows); direction: DualPipe's `down`
// or `up` (empty for other schedules) — schedules/stage_chunks.h.
constexpr std::array<std::string_view, 16> kTraceColumns = {
    "gpu",   "host",       "node", "tp",    "dp",    "pp",  "track", "kind",
    "stage", "microbatch", "peer", "bytes", "start", "end", "chunk", "direction"};

constexpr std::array<std::string_view, 13> kLinkColumns = {
    "link",           "class",         "bandwidth",      "latency",
    "sharing_policy", "bytes",         "analytic_bytes", "flows",
    "busy_time",      "mean_utilization_busy", "peak_utilization", "peak_start",
    "direction"};

constexpr std::array<std::string_view, 4> kLinkTimelineColumns = {"link", "direction", "window_start", "bytes"};

// Around the sweep's axes (between id and status): its outcome, then summary.json's metrics.
constexpr std::array<std::string_view, 10> kResultColumns = {
    "id", "status", "message", "makespan", "first_step", "steady_step", "bubble_fraction", "tflops_per_gpu", "mfu",
    "samples_per_second"};

// A plan's candidates (sim/plan/plan_files.h), a contract: issue 37 names them.
constexpr std::array<std::string_view, 20> kPlanColumns = {
    "place", "tp", "pp", "dp", "cp", "ep", "micro_batch", "microbatches", "schedule", "chunks", "recompute",
    "sequence_parallel", "zero", "peak_memory_bytes", "estimated_step_s", "simulated_step_s", "tflops_per_gpu", "mfu",
    "stage", "excluded_by"};

using enum OutputFile;

// In the order `pipegrid report` names the files it reads. status.json is read by the report too, for
// the warning an unfinished run gets, but it is not what the page is drawn from: it stays out of the
// page's footer and of what an empty folder is told.
constexpr bool kReportReads = true, kRunWrites = true;
constexpr std::array<OutputFileSpec, 23> kFiles = {{
    {Status, "status.json",
     "written first and last: running, then how the run ended (complete, deadlock, platform-failure, interrupted, "
     "error) with its exit code",
     {}, 1, false, kRunWrites},
    {Summary, "summary.json", "what ran, with which options, and what came out (simulate, schedule, check)", {}, 1,
     kReportReads, kRunWrites},
    {TraceCsv, "trace.csv", "one row per action and transfer of every traced GPU", kTraceColumns, 1, kReportReads,
     kRunWrites},
    {TraceJson, "trace.json", "the trace as Chrome trace events, for Perfetto", {}, 1, false, kRunWrites},
    {TraceJsonGz, "trace.json.gz", "trace.json, gzip-compressed (more than 256 GPUs traced)", {}, 1, false,
     kRunWrites},
    {Deadlock, "deadlock.json", "the cycle of waits of a run that deadlocked (exit 3)", {}, 2, kReportReads,
     kRunWrites},
    {Failure, "failure.json", "the resource that went down and every GPU's state then (exit 4)", {}, 1, false,
     kRunWrites},
    {Links, "links.csv", "per link and direction: bytes, busy time, the busiest window", kLinkColumns, 1,
     kReportReads, kRunWrites},
    {LinksTimeline, "links_timeline.csv", "per link, the bytes of every --link-window window (--link-timeline)",
     kLinkTimelineColumns, 1, false, kRunWrites},
    {Experiment, "experiment.toml", "the experiment a run or a sweep's configuration ran", {}, 1, kReportReads},
    {Lesson, "lesson.json", "a pitfall's lesson: its text and what each setup showed", {}, 1, kReportReads},
    {ScheduleCsv, "schedule.csv", "the ranks' programs, one line per rank (schedule, check)", {}, 1, false,
     kRunWrites},
    {PlatformXml, "platform.xml", "a generated or perturbed platform, as SimGrid reads it", {}, 1, false,
     kRunWrites},
    {GanttPng, "gantt.png", "the trace drawn as a Gantt chart (--plot)", {}, 1, false, kRunWrites},
    {ReportHtml, "report.html", "one self-contained page of a run's folder (pipegrid report, --report)", {}, 1,
     false, kRunWrites},
    {Results, "results.csv", "a sweep's outcome: one row per configuration", kResultColumns, 1},
    {RunInputs, "inputs.json", "a sweep run's input files' hashes and pipegrid's version", {}, 1},
    {RunStdout, "stdout.json", "a sweep run's summary as the child printed it", {}, 1},
    {PlanCsv, "plan.csv", "a plan's candidates, one row each: its place, estimate, simulated step, or why it was excluded",
     kPlanColumns, 1},
    {PlanJson, "plan.json", "a plan's inputs and what each stage saw: combinations, exclusions by rule, the best", {}, 1},
    {BestToml, "best.toml", "the plan's best layout as an experiment: `pipegrid run best.toml` reruns it", {}, 1},
    {ParetoPng, "pareto.png", "a plan's step time against peak memory", {}, 1},
    {SimulateToml, "simulate.toml", "the sweep a plan runs to simulate its best layouts with contention", {}, 1},
}};

std::string join(std::span<const std::string_view> names, std::string_view separator) {
  std::string text;
  for (std::string_view name : names) (text += text.empty() ? "" : separator) += name;
  return text;
}

}  // namespace

std::span<const OutputFileSpec> output_files() { return kFiles; }

const OutputFileSpec& output_file(OutputFile id) {
  for (const OutputFileSpec& file : kFiles)
    if (file.id == id) return file;
  throw std::logic_error("output_file: a file missing from the catalogue");
}

std::string output_path(const std::string& dir, OutputFile id) {
  return dir + "/" + std::string(output_file(id).name);
}

std::string csv_header(OutputFile id) { return join(output_file(id).columns, ",") + "\n"; }

std::string report_file_names() {
  std::vector<std::string_view> names;
  for (const OutputFileSpec& file : kFiles)
    if (file.report_reads) names.push_back(file.name);
  return join(names, ", ");
}

std::vector<OutputFile> run_files() {
  std::vector<OutputFile> files;
  for (const OutputFileSpec& file : kFiles)
    if (file.run_writes) files.push_back(file.id);
  return files;
}

}  // namespace pipegrid::output
