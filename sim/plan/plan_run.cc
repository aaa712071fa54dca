#include "sim/plan/plan_run.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <fmt/format.h>
#include <iostream>
#include <map>
#include <set>
#include <thread>
#include <unistd.h>

#include "common/input_error.h"
#include "common/log.h"
#include "sim/input/experiment_file.h"
#include "sim/input/option_schema.h"
#include "sim/input/relative_paths.h"
#include "sim/input/text_values.h"
#include "sim/output/atomic_file.h"
#include "sim/output/output_files.h"
#include "sim/plan/plan_files.h"
#include "sim/plan/space.h"
#include "sim/platform/platform_reader.h"
#include "sim/platform/platform_xml.h"
#include "sim/run/generated_platform.h"
#include "sim/run/run_spec.h"
#include "sim/sweep/results_csv.h"
#include "sim/sweep/slurm.h"
#include "sim/sweep/sweep_spec.h"

namespace pipegrid::plan {

namespace {

constexpr double kGiB = 1u << 30;

// The options plan takes that name a layout's axes: they restrict the space (read_space), so they do
// not go into the base every layout shares.
bool layout_option(std::string_view flag) {
  constexpr std::string_view kLayoutFlags[] = {"tp", "pp", "dp", "cp", "ep", "micro-batch", "microbatches",
                                               "schedule", "chunks", "recompute", "sequence-parallel", "zero",
                                               "distributed-optimizer", "grad-overlap", "precision", "placement",
                                               "cp-algo", "tp-comm-overlap", "layer-split"};
  return std::find(std::begin(kLayoutFlags), std::end(kLayoutFlags), flag) != std::end(kLayoutFlags);
}

input::OptionValues simulate_base(const input::OptionValues& v) {
  input::OptionValues base(input::Command::Simulate);
  for (const auto& [option, value] : v.given())
    if (option->commands.contains(input::Command::Simulate) && !layout_option(option->flag)) base.set(*option, *value);
  // The simulated runs keep their summaries and links, not their traces, unless asked.
  if (!base.has("trace")) base.set_text(*input::find_option(input::Command::Simulate, "trace"), "off");
  return base;
}

// A stage line on stderr with its ETA (the time so far per candidate); on a terminal it rewrites
// itself, otherwise a line each tenth.
class StageProgress {
 public:
  explicit StageProgress(std::size_t total)
      : total_(total), terminal_(isatty(STDERR_FILENO) != 0), start_(std::chrono::steady_clock::now()) {}
  void operator()(std::size_t done) {
    const auto tenth = [&](std::size_t n) { return n * 10 / std::max<std::size_t>(total_, 1); };
    if (!terminal_ && tenth(done) == tenth(shown_) && !(done == total_ && shown_ != done)) return;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const double eta = done > 0 ? elapsed / static_cast<double>(done) * static_cast<double>(total_ - done) : 0;
    std::cerr << fmt::format("{}plan: estimated {} of {} candidates, {:.0f} s, ETA {:.0f} s{}", terminal_ ? "\r" : "",
                             done, total_, elapsed, eta, terminal_ ? "  " : "\n")
              << std::flush;
    shown_ = done;
  }
  ~StageProgress() {
    if (terminal_) std::cerr << '\n';
  }

 private:
  std::size_t total_, shown_ = 0;
  bool terminal_;
  std::chrono::steady_clock::time_point start_;
};

bool before(const PlanRow& a, const PlanRow& b, double ta, double tb) {
  if (ta != tb) return ta < tb;
  if (a.estimate.peak_memory_bytes != b.estimate.peak_memory_bytes)
    return a.estimate.peak_memory_bytes < b.estimate.peak_memory_bytes;
  return a.layout.text() < b.layout.text();
}

// InputError when nothing fits: the layout that came closest, and what it lacks.
[[noreturn]] void nothing_fits(const std::vector<PlanRow>& rows, const Enumeration& space) {
  const PlanRow* closest = nullptr;
  for (const PlanRow& r : rows)
    if (r.estimate.excluded_by == "memory" &&
        (!closest || r.estimate.peak_memory_bytes - r.estimate.capacity_bytes <
                         closest->estimate.peak_memory_bytes - closest->estimate.capacity_bytes))
      closest = &r;
  if (closest)
    throw InputError(fmt::format("plan: nothing fits: the closest layout ({}) needs {:.1f} GiB on its fullest GPU, "
                                 "{:.1f} GiB more than the {:.1f} GiB it may hold",
                                 closest->layout.text(), closest->estimate.peak_memory_bytes / kGiB,
                                 (closest->estimate.peak_memory_bytes - closest->estimate.capacity_bytes) / kGiB,
                                 closest->estimate.capacity_bytes / kGiB));
  std::string rules;
  for (const auto& [rule, count] : space.excluded) rules += fmt::format("; {} ({})", rule, count);
  throw InputError(fmt::format("plan: no layout of the {} combinations can run{}", space.combinations, rules));
}

// The communication a simulated run's most exposed rank waited for (summary.json's ranks).
double exposed_comm(const std::string& run_dir) {
  std::ifstream in(output::output_path(run_dir, output::OutputFile::Summary));
  const nlohmann::json summary = nlohmann::json::parse(in, nullptr, false);
  double most = 0;
  if (summary.is_discarded() || !summary.contains("ranks")) return most;
  for (const nlohmann::json& rank : summary["ranks"]) {
    double sum = 0;
    const nlohmann::json exposed = rank.value("exposed_comm", nlohmann::json::object());
    for (const auto& [kind, seconds] : exposed.items())
      if (seconds.is_number()) sum += seconds.get<double>();
    most = std::max(most, sum);
  }
  return most;
}

// Runs the plan chose that did not end ok: a warning for each status, and when none did, an error,
// never a plan whose "best" nothing simulated. The runs' own messages are in DIR/simulate/results.csv.
void refuse_failed_simulations(const std::vector<PlanRow>& rows, const std::vector<std::size_t>& chosen,
                               const std::string& sweep_out) {
  std::map<std::string, int> failed;
  int ok = 0;
  for (std::size_t i : chosen) {
    const std::string& status = rows[i].simulation_status;
    if (status == "ok") ++ok;
    else if (!status.empty()) ++failed[status];
  }
  if (failed.empty()) return;
  std::string counts;
  for (const auto& [status, n] : failed) counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", n, status);
  const std::string where = sweep::results_path(sweep_out, {});
  if (ok == 0)
    throw std::runtime_error(fmt::format("plan: none of the {} simulations ended ok ({}); their messages: {}",
                                         chosen.size(), counts, where));
  log::cli().warn("plan: {} of the {} simulations did not end ok ({}); their messages: {}", chosen.size() - ok,
                  chosen.size(), counts, where);
}

}  // namespace

PlanOutcome run_plan(const input::OptionValues& v, const sweep::RunConfiguration& simulate,
                     const std::string& self_binary) {
  v.check_required();
  const std::string out = v.text("out");
  std::filesystem::create_directories(out);
  const input::OptionValues base = simulate_base(v);
  const run::ModelSpec model = run::model_spec_of(base);
  const run::PlatformSpec platform = run::platform_spec_of(base);
  if (platform.file.empty() && !platform.generated)
    throw InputError("--platform FILE.xml or --preset NAME --nodes N: the cluster to plan for");
  const std::string platform_file =
      platform.generated ? run::write_generated_platform(out, platform::platform_xml(*platform.generated)) : platform.file;
  const platform::PlatformFacts facts = platform::read_platform(platform_file);
  if (facts.gpus.empty()) throw InputError(fmt::format("{}: has no GPU hosts to plan for", platform_file));

  Job job;
  job.model = model.transformer;
  job.gpus = static_cast<int>(facts.gpus.size());
  job.gpus_per_node = static_cast<int>(std::count_if(facts.gpus.begin(), facts.gpus.end(),
                                                     [&](const auto& g) { return g.node == facts.gpus[0].node; }));
  job.global_batch = static_cast<int>(v.integer("global-batch"));
  job.allow_tp_across_nodes = v.flag("allow-tp-across-nodes");
  // One enumeration per cluster size (--gpus 256,512,1024 compares them in one plan).
  std::vector<int> counts{job.gpus};
  if (v.has("gpus")) counts = input::parse_gpu_counts(v.text("gpus"));
  for (int n : counts)
    if (n > job.gpus) throw InputError(fmt::format("--gpus {}: the platform has {} GPUs", n, job.gpus));
  const Space space = read_space(v);
  Enumeration enumeration;
  for (int n : counts) {
    job.gpus = n;
    Enumeration e = enumerate(job, space);
    std::cerr << fmt::format("plan: {} layouts of {} GPUs enumerated, {} candidates ({} excluded by the rules)\n",
                             e.combinations, n, e.candidates.size(), e.combinations - e.candidates.size());
    enumeration.combinations += e.combinations;
    for (const auto& [rule, count] : e.excluded) enumeration.excluded[rule] += count;
    std::move(e.candidates.begin(), e.candidates.end(), std::back_inserter(enumeration.candidates));
  }
  PlanOutcome outcome;
  outcome.combinations = enumeration.combinations;
  outcome.excluded = enumeration.excluded;

  // Stages 1 and 2: the memory model, then the contention-free engine, for every candidate.
  EstimateSetup setup;
  setup.base = base;
  setup.platform_file = platform_file;
  setup.moe = job.model.moe.enabled();
  setup.memory_bytes = v.has("memory") ? v.number("memory") * kGiB : 0;
  setup.jobs = v.has("jobs") ? static_cast<int>(v.integer("jobs")) : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  setup.scratch = out + "/.estimates";
  std::vector<Layout> layouts = enumeration.candidates;
  std::set<std::string> known;
  for (const Layout& l : layouts) known.insert(l.text());
  std::vector<std::string> also;
  for (const std::string& text : v.names("also")) {
    const Layout l = Layout::parse(text, "--also");
    also.push_back(l.text());
    if (known.insert(l.text()).second) layouts.push_back(l);
  }
  std::vector<Estimate> estimates;
  {
    StageProgress progress(layouts.size());
    estimates = estimate_all(setup, layouts, std::ref(progress));
  }
  std::filesystem::remove_all(setup.scratch);
  std::vector<PlanRow> rows;
  for (std::size_t i = 0; i < layouts.size(); ++i) {
    PlanRow row;
    row.layout = layouts[i];
    row.estimate = estimates[i];
    row.stage = row.estimate.excluded_by.empty() ? "estimated" : "excluded";
    if (!row.estimate.excluded_by.empty()) ++outcome.excluded[row.estimate.excluded_by.substr(0, row.estimate.excluded_by.find(':'))];
    rows.push_back(std::move(row));
  }
  std::vector<std::size_t> estimated;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i].stage == "estimated") estimated.push_back(i);
  if (estimated.empty()) nothing_fits(rows, enumeration);
  std::sort(estimated.begin(), estimated.end(), [&](std::size_t a, std::size_t b) {
    return before(rows[a], rows[b], rows[a].estimate.step_seconds, rows[b].estimate.step_seconds);
  });
  std::cerr << fmt::format("plan: {} candidates estimated, {} excluded by memory or the run's rules\n",
                           estimated.size(), rows.size() - estimated.size());

  // Stage 3: the best K by estimate of each cluster size, and --also's, simulated with contention as a sweep.
  const std::size_t top = static_cast<std::size_t>(v.integer("top"));
  std::vector<std::size_t> chosen;
  for (int n : counts) {
    std::size_t taken = 0;
    for (std::size_t i : estimated)
      if (taken < top && rows[i].layout.gpus() == n) {
        chosen.push_back(i);
        ++taken;
      }
  }
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (std::find(also.begin(), also.end(), rows[i].layout.text()) != also.end() &&
        std::find(chosen.begin(), chosen.end(), i) == chosen.end() && rows[i].stage == "estimated")
      chosen.push_back(i);
  std::vector<Layout> simulated_layouts;
  for (std::size_t i : chosen) simulated_layouts.push_back(rows[i].layout);
  const std::string sweep_file = out + "/simulate.toml";
  // Its paths as seen from DIR, where the sweep file lives and from where the sweep reads them (relative_paths.h).
  output::write_atomically(sweep_file,
                           simulate_sweep_text(input::paths_seen_from(base, out), simulated_layouts, setup.moe));
  const sweep::SweepSpec spec = sweep::read_sweep(sweep_file);
  sweep::SweepOptions options;
  options.out = out + "/simulate";
  options.jobs = setup.jobs;
  options.pipegrid = self_binary;
  options.log_level = v.text("log-level");
  options.run_configuration = simulate;
  if (v.flag("slurm")) {
    const sweep::SlurmOptions slurm{v.text("partition"), static_cast<int>(v.integer("array-size")),
                                    static_cast<int>(v.integer("jobs-per-task"))};
    outcome.slurm_job = sweep::submit_array(sweep_file, options, slurm);
    outcome.submitted = true;
  } else if (v.flag("merge")) {
    sweep::merge_shards(spec, options.out);
  } else {
    std::cerr << fmt::format("plan: simulating the best {} with contention ({} at once)\n", chosen.size(), options.jobs);
    const sweep::SweepTally tally = sweep::run_sweep(spec, options);
    std::cerr << fmt::format("plan: simulated {} layouts ({} already done, {} ok) in {:.1f} s\n", tally.configurations,
                             tally.already_done, tally.ok, tally.seconds);
  }
  if (!outcome.submitted) {
    const std::vector<sweep::ResultRow> results = sweep::read_results(sweep::results_path(options.out, {}), spec.axes);
    std::map<std::string, const sweep::ResultRow*> by_id;
    for (const sweep::ResultRow& r : results) by_id[r.id] = &r;
    for (std::size_t k = 0; k < chosen.size(); ++k) {
      const auto found = by_id.find(spec.configurations[k].id);
      if (found == by_id.end()) continue;
      PlanRow& row = rows[chosen[k]];
      const sweep::ResultRow& r = *found->second;
      row.simulation_status = r.status;
      row.simulation = static_cast<int>(k);
      if (r.status != "ok") continue;
      row.stage = "simulated";
      row.simulated_step = std::stod(r.metrics.at("makespan"));
      row.tflops_per_gpu = std::stod(r.metrics.at("tflops_per_gpu"));
      row.mfu = std::stod(r.metrics.at("mfu"));
      row.bubble_fraction = std::stod(r.metrics.at("bubble_fraction"));
      row.exposed_comm_seconds = exposed_comm(options.out + "/runs/" + r.id);
    }
  }
  if (!outcome.submitted) refuse_failed_simulations(rows, chosen, options.out);
  order_rows(rows);
  outcome.rows = std::move(rows);
  write_plan_csv(out, outcome.rows);
  nlohmann::json inputs = {{"model", job.model.name},
                           {"platform", platform.generated ? "--preset " + platform.preset : platform.file},
                           {"gpus", counts},
                           {"global_batch", job.global_batch},
                           {"memory_gib", setup.memory_bytes > 0 ? nlohmann::json(setup.memory_bytes / kGiB) : nlohmann::json("capacity less 5 GiB")},
                           {"top", top}};
  for (const auto& [axis, values] : space.values) inputs["space"][axis] = values;
  write_plan_json(out, outcome, inputs);
  // The best layout's experiment, as its simulation ran it, its paths seen from DIR: `pipegrid run
  // best.toml` gives its step. Only a simulated layout has one.
  if (!outcome.rows.empty() && outcome.rows.front().stage == "simulated")
    output::write_atomically(
        out + "/best.toml",
        input::experiment_text(input::Experiment{input::paths_seen_from(
            spec.configurations[outcome.rows.front().simulation].experiment.values, out)}));
  outcome.tokens_per_step = static_cast<double>(job.global_batch) * job.model.seq;
  return outcome;
}

}  // namespace pipegrid::plan
