// pipegrid: a discrete-event simulator of pipeline-parallel LLM training. This file only maps the
// command line onto the commands and their failures onto exit codes (DESIGN.md, "Errors").
#include <CLI/CLI.hpp>
#include <exception>
#include <functional>
#include <iostream>

#include "schedules/input_error.h"
#include "sim/cli/exit_codes.h"
#include "sim/cli/platform_command.h"
#include "sim/cli/schedule_command.h"
#include "sim/cli/simulate_command.h"

int main(int argc, char** argv) {
  using namespace pipegrid::cli;
  CLI::App app{"pipegrid: simulate pipeline-parallel LLM training schedules", "pipegrid"};
  app.require_subcommand(1);
  std::function<int()> run;
  add_schedule_commands(app, run);
  add_platform_commands(app, run);
  add_simulate_command(app, run);
  try {
    app.parse(argc, argv);
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
  } catch (const pipegrid::InputError& e) {
    std::cerr << "pipegrid: error: " << e.what() << '\n';
    return kExitInputError;
  }
}
