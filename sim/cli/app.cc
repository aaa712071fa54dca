#include "sim/cli/app.h"

#include <fmt/format.h>
#include <iostream>
#include <new>

#include "common/exit_codes.h"
#include "common/input_error.h"
#include "common/io_error.h"
#include "common/message_text.h"
#include "common/standard_output.h"
#include "common/version.h"
#include "sim/cli/experiment_command.h"
#include "sim/cli/experiment_runner.h"
#include "sim/cli/help_pages.h"
#include "sim/cli/options_command.h"
#include "sim/cli/outputs_command.h"
#include "sim/cli/pitfalls_command.h"
#include "sim/cli/plan_command.h"
#include "sim/cli/platform_command.h"
#include "sim/cli/report_command.h"
#include "sim/cli/subcommand.h"

namespace pipegrid::cli {

namespace {

std::vector<std::string> given_command_line;

// simulate, schedule and check: their flags are an experiment, run and printed.
void add_experiment_command(CLI::App& app, std::function<int()>& run, input::Command command, const char* help) {
  add_subcommand(app, run, command, std::string(input::command_name(command)), help,
                 [](const input::OptionValues& values) { return run_and_print(input::Experiment{values}); });
}

// CLI11 says of a word that is not a command only that it was not expected, without naming what
// was: the first word that is no option, where the app (or the command it names, as `platform`) takes
// a command, must be one of them.
void refuse_unknown_command(const CLI::App& app, const std::vector<std::string>& args) {
  const CLI::App* parent = &app;
  for (const std::string& word : args) {
    if (word.starts_with("-")) return;
    const std::vector<const CLI::App*> commands = parent->get_subcommands({});
    if (commands.empty()) return;
    const CLI::App* chosen = nullptr;
    std::vector<std::string> names;
    for (const CLI::App* command : commands) {
      if (command->get_name().empty()) continue;  // an option group, which CLI11 keeps as a command
      names.push_back(command->get_name());
      if (command->check_name(word)) chosen = command;
    }
    if (!chosen)
      throw InputError(fmt::format("{}: unknown command; the commands are {}", shown(word), fmt::join(names, ", ")));
    parent = chosen;
  }
}

}  // namespace

void build_app(CLI::App& app, std::function<int()>& run) {
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("pipegrid ") + kPipegridVersion);
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  add_experiment_command(app, run, input::Command::Schedule,
                         "Generate a schedule, check it, time it without contention and print it");
  add_experiment_command(app, run, input::Command::Check,
                         "Validate a schedule written as CSV (PyTorch's format), report a deadlock or time it");
  add_platform_commands(app, run);
  add_experiment_command(
      app, run, input::Command::Simulate,
      "Run a schedule with one SimGrid actor per GPU on a platform: contended p2p, collectives, traces");
  add_experiment_commands(app, run);
  add_plan_command(app, run);
  add_report_command(app, run);
  add_options_command(app, run);
  add_outputs_command(app, run);
  add_pitfalls_command(app, run);
  add_help_pages(app);
}

Failure failure_of_current_exception() {
  try {
    throw;
  } catch (const InputError& e) {
    return {kExitInputError, std::string("pipegrid: error: ") + e.what()};
  } catch (const IoError& e) {
    return {kExitIoError, std::string("pipegrid: error: ") + e.what()};
  } catch (const std::bad_alloc&) {
    return {kExitInternalError, "pipegrid: internal error: out of memory"};
  } catch (const std::exception& e) {
    return {kExitInternalError, std::string("pipegrid: internal error: ") + e.what()};
  } catch (...) {
    return {kExitInternalError, "pipegrid: internal error: an exception of unknown type"};
  }
}

int guarded(const std::function<int()>& body) {
  try {
    const int code = body();
    // Once, here, for every command: a result that did not reach stdout is not a success.
    finish_stdout();
    return code;
  } catch (...) {
    const Failure failure = failure_of_current_exception();
    std::cerr << failure.line << '\n';
    return failure.exit_code;
  }
}

const std::vector<std::string>& command_line() { return given_command_line; }

int run_command_line(const std::vector<std::string>& args) {
  given_command_line = {"pipegrid"};
  given_command_line.insert(given_command_line.end(), args.begin(), args.end());
  return guarded([&] {
    CLI::App app{"pipegrid: simulate pipeline-parallel LLM training schedules", "pipegrid"};
    std::function<int()> run;
    build_app(app, run);
    refuse_unknown_command(app, args);
    std::vector<const char*> argv{"pipegrid"};
    for (const std::string& a : args) argv.push_back(a.c_str());
    try {
      app.parse(static_cast<int>(argv.size()), argv.data());
    } catch (const CLI::Success& e) {  // --help, --version
      return app.exit(e);
    } catch (const CLI::ParseError& e) {
      std::cerr << "pipegrid: error: " << one_line(e.what()) << '\n';
      return kExitInputError;
    }
    return run();
  });
}

}  // namespace pipegrid::cli
