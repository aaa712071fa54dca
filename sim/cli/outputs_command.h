// `pipegrid outputs`: the output stage's catalogue (sim/output/output_files.h) as Markdown — every file
// pipegrid writes, what it holds, who writes it, and a CSV's columns. docs/output-files.md is its output.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <iosfwd>

namespace pipegrid::cli {

void add_outputs_command(CLI::App& app, std::function<int()>& run);

/// The page `pipegrid outputs` prints.
void write_outputs_markdown(std::ostream& out);

}  // namespace pipegrid::cli
