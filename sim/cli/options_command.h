// `pipegrid options`: the input schema as a Markdown table per command — every option's flag,
// experiment key, type, unit, range, default and help. docs/options.md is its output.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <iosfwd>

namespace pipegrid::cli {

void add_options_command(CLI::App& app, std::function<int()>& run);

/// The tables `pipegrid options` prints.
void write_options_markdown(std::ostream& out);

}  // namespace pipegrid::cli
