#include "sim/cli/experiment_runner.h"

#include <fmt/format.h>
#include <optional>
#include <stdexcept>
#include <unistd.h>

#include "common/interruption.h"
#include "common/standard_output.h"
#include "sim/cli/app.h"
#include "sim/cli/log_level.h"
#include "sim/cli/report_command.h"
#include "sim/cli/schedule_command.h"
#include "sim/cli/simulate_command.h"
#include "sim/output/output_folder.h"
#include "sim/run/input_files.h"

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

// What SIGINT or SIGTERM leaves said on stderr: the folder says the rest (output_folder.h).
class InterruptedLine {
 public:
  InterruptedLine() {
    slot_ = interruption::say_on_interrupt(
        [](int signal) { return fmt::format("pipegrid: interrupted by {}\n", interruption::signal_name(signal)); });
  }
  ~InterruptedLine() { interruption::forget(slot_); }
  InterruptedLine(const InterruptedLine&) = delete;
  InterruptedLine& operator=(const InterruptedLine&) = delete;

 private:
  int slot_ = -1;
};

}  // namespace

int run_and_print(const input::Experiment& experiment, const AroundRun& around) {
  use_log_level(experiment.values);
  check_report_request(experiment.values);
  std::optional<output::OutputFolder> folder;
  std::optional<InterruptedLine> line;
  if (experiment.values.has("out")) {
    const auto inputs = [&] {
      std::vector<std::string> files = run::files_read(experiment);
      files.insert(files.end(), around.inputs.begin(), around.inputs.end());
      return files;
    };
    folder.emplace(experiment.values.text("out"), inputs, output::RunIdentity{getpid(), command_line()});
  } else {
    line.emplace();
  }
  int code = 0;
  try {
    code = run_command(experiment);
    // The result printed is part of the run: status.json says complete only once stdout took it.
    finish_stdout();
    if (folder) folder->finish(code);
    // The page and the chart read the folder as it ends: after status.json says how.
    report_after_run(experiment.values, code);
    if (around.after) around.after(code);
  } catch (...) {
    const Failure failure = failure_of_current_exception();
    if (folder) {
      try {
        folder->finish(failure.exit_code, failure.line);
      } catch (...) {
        // The failure that ended the run is the one to report, not the status it could not write.
      }
    }
    throw;
  }
  return code;
}

}  // namespace pipegrid::cli
