// The command line of pipegrid as one CLI11 app, built in one place: main parses the process's
// arguments with it, and `pipegrid run` parses an experiment file's with a fresh one.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace pipegrid::cli {

/// Adds every subcommand to `app`; the chosen one sets `run`. Options given twice take the last value,
/// so that flags after an experiment file's override its keys.
void build_app(CLI::App& app, std::function<int()>& run);

/// Parses `args` (without the program name) with a fresh app and runs the chosen command, mapping
/// failures to exit codes as main does (InputError: one line, 2).
int run_command_line(const std::vector<std::string>& args);

}  // namespace pipegrid::cli
