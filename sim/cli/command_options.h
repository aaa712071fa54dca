// A command's flags on the command line, built from the input schema: CLI11 only splits the words,
// the schema reads and checks every value (so that every error is pipegrid's one line).
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "sim/input/option_schema.h"
#include "sim/input/option_values.h"

namespace pipegrid::cli {

class CommandOptions {
 public:
  /// Declares every option of `command` on `app`: its flag (or its place, for a positional one), help
  /// with unit, range and default.
  CommandOptions(CLI::App& app, input::Command command);
  CommandOptions(const CommandOptions&) = delete;
  CommandOptions& operator=(const CommandOptions&) = delete;

  /// What the last parse gave, checked: InputError "--tp 0: must be at least 1". Required options are
  /// not checked here (an experiment file may give them): see OptionValues::check_required.
  input::OptionValues values() const;

 private:
  struct Bound {
    const input::OptionSpec* spec;
    CLI::Option* option = nullptr;
    std::string text;
    std::vector<std::string> texts;  // HostPair
    bool on = false;                 // Flag
  };
  input::Command command_;
  std::vector<std::unique_ptr<Bound>> bound_;  // CLI11 holds pointers into them
};

/// The help line of an option: its help, then its unit, range and choices.
std::string option_help(const input::OptionSpec& option);

}  // namespace pipegrid::cli
