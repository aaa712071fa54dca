// Each command's --help ends with the page of docs/ that walks through it (docs/guide/), so that the
// short help leads to the long one.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace pipegrid::cli {

/// The page for a command (`simulate`, `platform`, …), relative to the repository; empty if none.
std::string help_page(const std::string& command);

/// Sets every command's --help footer to its page, and the top level's to the guides.
void add_help_pages(CLI::App& app);

}  // namespace pipegrid::cli
