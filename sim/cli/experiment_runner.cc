#include "sim/cli/experiment_runner.h"

#include <stdexcept>

#include "sim/cli/log_level.h"
#include "sim/cli/report_command.h"
#include "sim/cli/schedule_command.h"
#include "sim/cli/simulate_command.h"

namespace pipegrid::cli {

namespace {

int run_command(const input::Experiment& experiment) {
  const input::OptionValues& values = experiment.values;
  switch (experiment.command()) {
    case input::Command::Simulate:
      return print_simulation_outcome(run::run_simulation(run::simulation_spec(values)), values.text("format"));
    case input::Command::Schedule:
      return run_schedule_command(values, input::Command::Schedule);
    case input::Command::Check:
      return run_schedule_command(values, input::Command::Check);
    default:
      throw std::logic_error("run_and_print: not a command that runs an experiment");
  }
}

}  // namespace

int run_and_print(const input::Experiment& experiment) {
  use_log_level(experiment.values);
  check_report_request(experiment.values);
  const int code = run_command(experiment);
  report_after_run(experiment.values, code);
  return code;
}

}  // namespace pipegrid::cli
