// `pipegrid plan`: which layout, for a model on a cluster at a global batch within memory
// (sim/plan/plan_run.h; docs/guide/planning.md).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace pipegrid::cli {

void add_plan_command(CLI::App& app, std::function<int()>& run);

}  // namespace pipegrid::cli
