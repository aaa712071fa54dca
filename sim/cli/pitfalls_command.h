// `pipegrid pitfalls [NAME --out DIR [--report]]`: the catalogue of lessons in experiments/pitfalls/ —
// listed, or one lesson's broken and fixed setups run, each in a child process of this binary, with
// their outcomes against the exit codes lesson.toml expects.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace pipegrid::cli {

/// Exit code of `pipegrid pitfalls NAME`: 0 when every setup ended with the exit code its lesson
/// expects, 1 otherwise (2 for bad input, as everywhere).
inline constexpr int kExitLessonMismatch = 1;

void add_pitfalls_command(CLI::App& app, std::function<int()>& run);

}  // namespace pipegrid::cli
