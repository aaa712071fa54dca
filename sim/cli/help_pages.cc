#include "sim/cli/help_pages.h"

#include <array>
#include <string_view>
#include <utility>

namespace pipegrid::cli {

namespace {

constexpr std::array<std::pair<std::string_view, std::string_view>, 11> kPages = {{
    {"simulate", "docs/guide/simulate-and-sweep.md"},
    {"schedule", "docs/guide/simulate-and-sweep.md"},
    {"check", "docs/guide/simulate-and-sweep.md"},
    {"run", "docs/guide/simulate-and-sweep.md"},
    {"sweep", "docs/guide/simulate-and-sweep.md"},
    {"plan", "docs/guide/planning.md"},
    {"platform", "docs/guide/what-ifs.md"},
    {"pitfalls", "docs/guide/teaching.md"},
    {"report", "docs/guide/teaching.md"},
    {"options", "docs/options.md"},
    {"outputs", "docs/output-files.md"},
}};

void set_footers(CLI::App& command, const std::string& page) {
  command.footer("Guide: " + page + " (in pipegrid's source tree); every option: docs/options.md");
  for (CLI::App* sub : command.get_subcommands({}))
    if (!sub->get_name().empty()) set_footers(*sub, page);
}

}  // namespace

std::string help_page(const std::string& command) {
  for (const auto& [name, page] : kPages)
    if (name == command) return std::string(page);
  return "";
}

void add_help_pages(CLI::App& app) {
  app.footer(
      "Guides, one per use (in pipegrid's source tree): docs/guide/simulate-and-sweep.md, planning.md, what-ifs.md,\n"
      "teaching.md, models-and-parallelisms.md, gpus-and-calibration.md; every option: docs/options.md.");
  for (CLI::App* command : app.get_subcommands({})) {
    const std::string page = help_page(command->get_name());
    if (!page.empty()) set_footers(*command, page);
  }
}

}  // namespace pipegrid::cli
