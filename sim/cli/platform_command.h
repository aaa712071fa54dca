// `pipegrid platform gen` (write a cluster's SimGrid platform file) and `pipegrid platform info`
// (check one and summarise it, optionally with the route SimGrid computes between two GPUs).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace pipegrid::cli {

/// Adds `platform` and its two subcommands to `app`. The chosen one sets `run` to its action, which
/// returns the process's exit code (exit_codes.h) and may throw InputError.
void add_platform_commands(CLI::App& app, std::function<int()>& run);

}  // namespace pipegrid::cli
