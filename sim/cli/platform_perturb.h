// `pipegrid platform perturb FILE.xml --slow-gpu HOST=F@T --degrade-link LINK=F@T --fail NAME@T[..T2]
// --out DIR`: the platform with SimGrid profile files for the common what-ifs (sim/platform/perturb.h).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace pipegrid::cli {

/// Adds `perturb` to the `platform` command; when chosen it sets `run` to its action.
void add_perturb(CLI::App& platform, std::function<int()>& run);

}  // namespace pipegrid::cli
