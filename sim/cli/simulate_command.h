// `pipegrid simulate`: a schedule run by one SimGrid actor per GPU on a platform file.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace pipegrid::cli {

/// Adds the subcommand to `app`; when chosen it sets `run` (see schedule_command.h).
void add_simulate_command(CLI::App& app, std::function<int()>& run);

}  // namespace pipegrid::cli
