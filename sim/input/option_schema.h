// The input schema: every option of every pipegrid command, declared once. The command line builds
// its flags from it, experiment files and sweep axes find their keys in it, and `pipegrid options`
// prints it (docs/options.md is that output).
#pragma once

#include <string_view>
#include <vector>

#include "sim/input/option_spec.h"

namespace pipegrid::input {

/// Every option, in the order help and documentation list them. An option may serve several commands;
/// a name that means different things to different commands (--format, --placement, --out) has one
/// entry per meaning.
const std::vector<OptionSpec>& option_schema();

/// The options of one command, in schema order.
std::vector<const OptionSpec*> options_of(Command command);
/// The option --`flag` of `command`; nullptr when the command has none.
const OptionSpec* find_option(Command command, std::string_view flag);
/// The option that the experiment key [section] key sets for `command`; nullptr when there is none.
const OptionSpec* find_experiment_key(Command command, std::string_view section, std::string_view key);
/// Whether some command that experiment files run (simulate, schedule) has the key "section.key".
bool is_experiment_key(std::string_view path);

/// The commands an experiment file can run ([sim] command).
inline constexpr Command kExperimentCommands[] = {Command::Simulate, Command::Schedule};

}  // namespace pipegrid::input
