#include "sim/cli/plan_command.h"

#include <fmt/format.h>
#include <iostream>

#include "common/exit_codes.h"
#include "common/log.h"
#include "sim/cli/app.h"
#include "sim/cli/child_process.h"
#include "sim/cli/gantt_plot.h"
#include "sim/cli/experiment_runner.h"
#include "sim/cli/subcommand.h"
#include "sim/input/experiment_file.h"
#include "sim/plan/plan_files.h"
#include "sim/plan/plan_run.h"
#include "sim/report/report.h"

namespace pipegrid::cli {

namespace {

// The plan's options: plan.toml's (when given) with the flags over them.
input::OptionValues plan_values(const input::OptionValues& flags) {
  if (!flags.has("file")) return flags;
  const std::string& file = flags.text("file");
  input::OptionValues values = input::read_experiment_as(input::read_toml(file), file, input::Command::Plan).values;
  input::OptionValues overrides(input::Command::Plan);
  for (const auto& [option, value] : flags.given())
    if (option->flag != "file") overrides.set(*option, *value);
  values.merge(overrides);
  return values;
}

int run_plan(const input::OptionValues& flags) {
  const input::OptionValues v = plan_values(flags);
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
  const bool pareto = !outcome.rows.empty() && outcome.rows.front().place > 0;
  if (pareto)
    if (const std::string why = draw_pareto(out + "/plan.csv", out + "/pareto.png"); !why.empty())
      log::cli().warn("pareto.png could not be drawn: {}", why);
  if (v.flag("report")) report::write_report(out);
  std::cerr << fmt::format("plan: wrote {}/plan.csv, plan.json{}{}{}\n", out,
                           !outcome.rows.empty() && outcome.rows.front().simulation >= 0 ? ", best.toml" : "",
                           pareto ? ", pareto.png" : "", v.flag("report") ? ", report.html" : "");
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
