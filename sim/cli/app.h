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

/// Runs `body` and maps what escapes it to an exit code, with one line on stderr: InputError
/// "pipegrid: error: …" (2); any other exception "pipegrid: internal error: …" (70).
int guarded(const std::function<int()>& body);

/// Parses `args` (without the program name) with a fresh app and runs the chosen command, guarded.
int run_command_line(const std::vector<std::string>& args);

}  // namespace pipegrid::cli
