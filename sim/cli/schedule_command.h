// `pipegrid schedule` (generate, check and time a named schedule, or compare them all) and
// `pipegrid check` (the same for a schedule written by hand as CSV).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace pipegrid::cli {

/// Adds the two subcommands to `app`. Each sets `run` to its action when it is the one chosen;
/// the action returns the process's exit code (exit_codes.h) and may throw InputError.
void add_schedule_commands(CLI::App& app, std::function<int()>& run);

}  // namespace pipegrid::cli
