#include "sim/cli/experiment_command.h"

#include <filesystem>
#include <fmt/format.h>
#include <iostream>
#include <thread>

#include "common/exit_codes.h"
#include "common/input_error.h"
#include "common/log.h"
#include "sim/cli/app.h"
#include "sim/cli/child_process.h"
#include "sim/cli/command_options.h"
#include "sim/cli/experiment_runner.h"
#include "sim/cli/gantt_plot.h"
#include "sim/cli/log_level.h"
#include "sim/cli/subcommand.h"
#include "sim/input/text_values.h"
#include "sim/sweep/slurm.h"
#include "sim/sweep/sweep_spec.h"

namespace pipegrid::cli {

namespace {

// The experiment of FILE with the flags after it (any flag of its command) overriding its keys.
input::Experiment experiment_with_overrides(const std::string& file, const std::vector<std::string>& overrides) {
  input::Experiment experiment = input::read_experiment(input::read_toml(file), file);
  if (overrides.empty()) return experiment;
  CLI::App app{"", std::string("pipegrid ") + std::string(input::command_name(experiment.command()))};
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  const CommandOptions options(app, experiment.command());
  std::vector<const char*> argv{"pipegrid"};
  for (const std::string& a : overrides) argv.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    throw InputError(fmt::format("{}: {}", file, e.what()));
  }
  experiment.values.merge(options.values());
  return experiment;
}

// `run`'s own --log-level and --progress, given, override the file's [output] keys as the flags after it do.
void take_run_flags(const input::OptionValues& flags, input::Experiment& experiment) {
  const input::Command command = experiment.command();
  if (flags.has("log-level"))
    experiment.values.set_text(*input::find_option(command, "log-level"), flags.text("log-level"));
  if (!flags.has("progress")) return;
  const input::OptionSpec* progress = input::find_option(command, "progress");
  if (!progress)
    throw InputError(fmt::format("--progress: shows a simulation's progress; this experiment runs {}",
                                 input::command_name(command)));
  experiment.values.set_text(*progress, flags.text("progress"));
}

int run_experiment(const input::OptionValues& flags, const std::vector<std::string>& overrides) {
  use_log_level(flags);
  flags.check_required();
  const std::string& file = flags.text("file");
  input::Experiment experiment = experiment_with_overrides(file, overrides);
  take_run_flags(flags, experiment);
  const bool plot = flags.flag("plot");
  if (plot && !experiment.values.has("out"))
    throw InputError("--plot: needs an output directory ([output] out or --out)");
  if (plot && experiment.command() != input::Command::Simulate)
    throw InputError(fmt::format("--plot: draws a simulation's trace; this experiment runs {}",
                                 input::command_name(experiment.command())));
  if (plot) check_gantt_plotter("DIR/gantt.png");
  AroundRun around{{file}, {}};
  // A deadlocked run is drawn too: gantt.py finds deadlock.json beside the trace and draws the cycle.
  // Drawn while the run still holds its folder.
  if (plot)
    around.after = [&](int code) {
      if (code != kExitOk && code != kExitDeadlock) return;
      const std::string& out = experiment.values.text("out");
      if (const std::string why = draw_gantt_chart(out + "/trace.csv", out + "/gantt.png"); !why.empty())
        log::cli().warn("the Gantt chart could not be drawn: {}", why);
    };
  return run_and_print(experiment, around);
}

std::string reran_text(const std::map<std::string, std::size_t>& reran) {
  std::size_t total = 0;
  std::vector<std::string> reasons;
  for (const auto& [reason, count] : reran) {
    total += count;
    reasons.push_back(fmt::format("{} ({})", reason, count));
  }
  return fmt::format("sweep: reran {} configuration{} with a result: {}\n", total, total == 1 ? "" : "s",
                     fmt::join(reasons, ", "));
}

int run_sweep(const input::OptionValues& v) {
  v.check_required();
  const sweep::SweepSpec spec = sweep::read_sweep(v.text("file"));
  sweep::SweepOptions options;
  options.out = v.text("out");
  options.jobs = v.has("jobs") ? static_cast<int>(v.integer("jobs"))
                               : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  options.timeout_seconds = v.number("timeout");
  options.force = v.flag("force");
  options.log_level = v.text("log-level");
  if (v.has("shard")) {
    const input::ShardText shard = input::parse_shard(v.text("shard"));
    options.shard = sweep::Shard{shard.index, shard.count};
  }
  options.pipegrid = self_binary();
  options.run_configuration = [](const input::Experiment& experiment) {
    return guarded([&] { return run_and_print(experiment); });
  };
  if (v.flag("merge")) {
    const std::size_t rows = sweep::merge_shards(spec, options.out);
    std::cerr << fmt::format("sweep: merged {} of {} configurations into {}/results.csv\n", rows,
                             spec.configurations.size(), options.out);
    return rows == spec.configurations.size() ? kExitOk : 1;
  }
  if (v.flag("slurm")) {
    const sweep::SlurmOptions slurm{v.text("partition"), static_cast<int>(v.integer("array-size")),
                                    static_cast<int>(v.integer("jobs-per-task"))};
    const std::string job = sweep::submit_array(v.text("file"), options, slurm);
    std::cout << job << '\n';
    std::cerr << fmt::format("sweep: submitted job array {} ({} tasks); when it is done: pipegrid sweep {} --out {} --merge\n",
                             job, slurm.array_size, v.text("file"), options.out);
    return kExitOk;
  }
  const sweep::SweepTally tally = sweep::run_sweep(spec, options);
  if (!tally.reran.empty()) std::cerr << reran_text(tally.reran);
  std::cerr << fmt::format("sweep: {} configurations, {} already done, {} ran ({} ok) in {:.1f} s; results in {}\n",
                           tally.configurations, tally.already_done, tally.ran, tally.ok, tally.seconds,
                           sweep::results_path(options.out, options.shard));
  return kExitOk;
}

}  // namespace

void add_experiment_commands(CLI::App& app, std::function<int()>& run) {
  const Subcommand run_command = add_subcommand(app, input::Command::Run, "run",
                                                "Run an experiment file (TOML); flags after it override its keys");
  run_command.app->allow_extras();
  // Its flags and the words after them (the overrides) are taken when it is chosen.
  run_command.app->callback([&run, options = run_command.options, sub = run_command.app] {
    run = [flags = options->values(), overrides = sub->remaining()] { return run_experiment(flags, overrides); };
  });

  add_subcommand(app, run, input::Command::Sweep, "sweep",
                 "Run every configuration of a sweep file, in parallel, resumably", run_sweep);
}

}  // namespace pipegrid::cli
