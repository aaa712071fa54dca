#include "sim/plan/estimate.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <iostream>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include "common/child_groups.h"
#include "common/exit_codes.h"
#include "common/input_error.h"
#include "sim/run/memory_report.h"
#include "sim/run/run_spec.h"
#include "sim/run/simulation_run.h"

namespace pipegrid::plan {

Estimate estimate_one(const EstimateSetup& setup, const Layout& layout,
                      std::unique_ptr<sim::ContentionFreeSession>& session) {
  Estimate out;
  run::ResolvedRun run;
  try {
    input::OptionValues values = setup.base;
    layout.apply(values, setup.moe);
    run::RunSpec spec = run::simulation_spec(values);
    // The platform generated once, and the collectives α-β, as `pipegrid schedule` times a model.
    spec.platform = {};
    spec.platform.file = setup.platform_file;
    sim::ExecOptions& o = spec.comm.exec;
    o.tp_comm = o.dp_comm = o.ep_comm = o.cp_comm = sim::CommFidelity::Analytic;
    spec.outputs = {};
    run = run::resolve_simulation(spec);
  } catch (const InputError& e) {
    out.excluded_by = fmt::format("input: {}", e.what());
    return out;
  }
  if (run.compute_deadlock) {
    out.excluded_by = "deadlock";
    return out;
  }
  // The fullest rank against what it may hold.
  const nlohmann::json memory = run::memory_json(run);
  double worst_margin = -1e300;
  for (const nlohmann::json& rank : memory["ranks"]) {
    const double total = rank["total"], capacity = setup.memory_bytes > 0 ? setup.memory_bytes
                                                                           : rank["capacity"].get<double>() - kReserveBytes;
    out.peak_memory_bytes = std::max(out.peak_memory_bytes, total);
    if (total - capacity > worst_margin) {
      worst_margin = total - capacity;
      out.capacity_bytes = capacity;
    }
  }
  if (worst_margin > 0) {
    out.excluded_by = "memory";
    return out;
  }
  try {
    if (!session) session = std::make_unique<sim::ContentionFreeSession>(run.input);
    out.step_seconds = session->step(run.input).step.step_time;
  } catch (const InputError& e) {
    out.excluded_by = fmt::format("estimate: {}", e.what());
  }
  return out;
}

namespace {

std::string part_file(const std::string& scratch, int part) { return fmt::format("{}/estimates-{}.tsv", scratch, part); }

// A child's work: every `parts`-th layout from `part` on, one line each as it is done.
[[noreturn]] void estimate_part(const EstimateSetup& setup, const std::vector<Layout>& layouts, int part, int parts) {
  int code = kExitOk;
  try {
    std::ofstream file(part_file(setup.scratch, part));
    std::unique_ptr<sim::ContentionFreeSession> session;
    for (std::size_t i = part; i < layouts.size(); i += parts) {
      const Estimate e = estimate_one(setup, layouts[i], session);
      std::string why = e.excluded_by;
      std::replace(why.begin(), why.end(), '\t', ' ');
      std::replace(why.begin(), why.end(), '\n', ' ');
      file << fmt::format("{}\t{:.17g}\t{:.17g}\t{:.17g}\t{}\n", i, e.peak_memory_bytes, e.capacity_bytes,
                          e.step_seconds, why)
           << std::flush;
    }
    session.reset();
  } catch (const std::exception& e) {
    std::cerr << "pipegrid: plan: an estimate failed: " << e.what() << '\n';
    code = kExitInternalError;
  }
  std::cerr.flush();
  std::_Exit(code);
}

std::size_t lines_in(const std::string& path) {
  std::ifstream file(path);
  return static_cast<std::size_t>(std::count(std::istreambuf_iterator<char>(file), {}, '\n'));
}

}  // namespace

std::vector<Estimate> estimate_all(const EstimateSetup& setup, const std::vector<Layout>& layouts,
                                   const std::function<void(std::size_t)>& progress) {
  std::filesystem::create_directories(setup.scratch);
  const int parts = std::max(1, std::min<int>(setup.jobs, static_cast<int>(std::max<std::size_t>(1, layouts.size()))));
  ChildGroups groups(Grouping::Shared);
  std::vector<pid_t> children;
  std::cout.flush();
  std::cerr.flush();
  for (int part = 0; part < parts; ++part) {
    const pid_t pid = groups.fork_child();
    if (pid == 0) estimate_part(setup, layouts, part, parts);
    children.push_back(pid);
  }
  std::size_t running = children.size();
  bool failed = false;
  while (running > 0) {
    for (pid_t& pid : children) {
      if (pid == 0) continue;
      int status = 0;
      const pid_t done = waitpid(pid, &status, WNOHANG);
      if (done == pid) {
        groups.reaped(pid);
        failed |= !(WIFEXITED(status) && WEXITSTATUS(status) == kExitOk);
        pid = 0;
        --running;
      }
    }
    std::size_t done = 0;
    for (int part = 0; part < parts; ++part) done += lines_in(part_file(setup.scratch, part));
    progress(done);
    if (running > 0) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  if (failed) throw std::runtime_error("plan: an estimate's process failed (its error is above)");
  std::vector<Estimate> estimates(layouts.size());
  std::vector<bool> seen(layouts.size(), false);
  for (int part = 0; part < parts; ++part) {
    std::ifstream file(part_file(setup.scratch, part));
    std::string line;
    while (std::getline(file, line)) {
      std::istringstream fields(line);
      std::size_t i = 0;
      Estimate e;
      fields >> i >> e.peak_memory_bytes >> e.capacity_bytes >> e.step_seconds;
      fields.get();  // the tab before the reason
      std::getline(fields, e.excluded_by);
      if (i >= layouts.size()) throw std::runtime_error("plan: an estimate's file names no layout");
      estimates[i] = std::move(e);
      seen[i] = true;
    }
    std::filesystem::remove(part_file(setup.scratch, part));
  }
  if (std::find(seen.begin(), seen.end(), false) != seen.end())
    throw std::runtime_error("plan: a layout was left without an estimate");
  return estimates;
}

}  // namespace pipegrid::plan
