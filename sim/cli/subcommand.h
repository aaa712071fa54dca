// How a pipegrid subcommand is wired to CLI11, in one place for every command: added under its parent
// with its options declared from the input schema (CommandOptions), and, when CLI11 picks it, `run`
// set to the command's work, which build_app's caller runs once the command line is parsed.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <string>

#include "sim/cli/command_options.h"
#include "sim/input/option_schema.h"
#include "sim/input/option_values.h"

namespace pipegrid::cli {

/// A subcommand and the options of its input::Command declared on it.
struct Subcommand {
  CLI::App* app;
  std::shared_ptr<const CommandOptions> options;
};

/// Adds `name` under `parent` with `command`'s options.
Subcommand add_subcommand(CLI::App& parent, input::Command command, const std::string& name, const std::string& help);

/// When CLI11 picks `sub`, `run` becomes `action`, which returns the process's exit code
/// (exit_codes.h) and may throw InputError.
void run_when_chosen(CLI::App& sub, std::function<int()>& run, std::function<int()> action);

/// Both, as most commands are wired: `action` is given the options' values, read when run() is called,
/// once the loggers are at their --log-level (log_level.h).
CLI::App* add_subcommand(CLI::App& parent, std::function<int()>& run, input::Command command, const std::string& name,
                         const std::string& help, std::function<int(const input::OptionValues&)> action);

}  // namespace pipegrid::cli
