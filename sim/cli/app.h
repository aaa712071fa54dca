// The command line of pipegrid as one CLI11 app, built in one place from the input schema; and the
// map from what escapes a command to pipegrid's exit codes.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace pipegrid::cli {

/// Adds every subcommand to `app`; the chosen one sets `run`. Options given twice take the last value.
void build_app(CLI::App& app, std::function<int()>& run);

/// Runs `body`, then checks that stdout took every write (common/standard_output.h), and maps what
/// escapes either to an exit code, with one line on stderr (failure_of_current_exception).
int guarded(const std::function<int()>& body);

/// What an exception ends a command with: its exit code and the one line on stderr.
struct Failure {
  int exit_code = 70;
  std::string line;
};
/// Inside a catch block: InputError "pipegrid: error: …" (2), IoError "pipegrid: error: …" (74), any
/// other exception "pipegrid: internal error: …" (70).
Failure failure_of_current_exception();

/// The command line as given to run_command_line, "pipegrid" first: what status.json records.
const std::vector<std::string>& command_line();

/// Parses `args` (without the program name) with a fresh app and runs the chosen command, guarded.
int run_command_line(const std::vector<std::string>& args);

}  // namespace pipegrid::cli
