#include "sim/cli/plan_command.h"

#include <fmt/format.h>
#include <iostream>

#include "common/exit_codes.h"
#include "sim/cli/app.h"
#include "sim/cli/child_process.h"
#include "sim/cli/experiment_runner.h"
#include "sim/cli/subcommand.h"
#include "sim/plan/plan_files.h"
#include "sim/plan/plan_run.h"

namespace pipegrid::cli {

namespace {

int run_plan(const input::OptionValues& v) {
  const auto simulate = [](const input::Experiment& experiment) {
    return guarded([&] { return run_and_print(experiment); });
  };
  const plan::PlanOutcome outcome = plan::run_plan(v, simulate, self_binary());
  const std::string out = v.text("out");
  if (outcome.submitted) {
    std::cout << outcome.slurm_job << '\n';
    std::cerr << fmt::format("plan: submitted the simulations as job array {}; when it is done: pipegrid plan … "
                             "--out {} --merge\n",
                             outcome.slurm_job, out);
    return kExitOk;
  }
  plan::print_plan_table(std::cout, outcome, v.has("tokens") ? v.number("tokens") : 0);
  std::cerr << fmt::format("plan: wrote {}/plan.csv{}\n", out,
                           !outcome.rows.empty() && outcome.rows.front().simulation >= 0 ? ", best.toml" : "");
  return kExitOk;
}

}  // namespace

void add_plan_command(CLI::App& app, std::function<int()>& run) {
  add_subcommand(app, run, input::Command::Plan, "plan",
                 "Find the best layout for a model on a cluster at a global batch within memory: enumerate, prune "
                 "by memory and the contention-free engine, simulate the best with contention",
                 run_plan);
}

}  // namespace pipegrid::cli
