#include "sim/cli/app.h"

#include <iostream>

#include "common/input_error.h"
#include "sim/cli/exit_codes.h"
#include "sim/cli/experiment_command.h"
#include "sim/cli/platform_command.h"
#include "sim/cli/schedule_command.h"
#include "sim/cli/simulate_command.h"

namespace pipegrid::cli {

void build_app(CLI::App& app, std::function<int()>& run) {
  app.require_subcommand(1);
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  add_schedule_commands(app, run);
  add_platform_commands(app, run);
  add_simulate_command(app, run);
  add_experiment_commands(app, run);
}

int run_command_line(const std::vector<std::string>& args) {
  CLI::App app{"pipegrid: simulate pipeline-parallel LLM training schedules", "pipegrid"};
  std::function<int()> run;
  build_app(app, run);
  std::vector<const char*> argv{"pipegrid"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "pipegrid: error: " << e.what() << '\n';
    return kExitInputError;
  }
  try {
    return run();
  } catch (const InputError& e) {
    std::cerr << "pipegrid: error: " << e.what() << '\n';
    return kExitInputError;
  }
}

}  // namespace pipegrid::cli
