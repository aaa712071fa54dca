// `pipegrid run FILE.toml` (one experiment) and `pipegrid sweep SWEEP.toml` (many, locally or on Slurm).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace pipegrid::cli {

void add_experiment_commands(CLI::App& app, std::function<int()>& run);

}  // namespace pipegrid::cli
