#include "sim/output/links_csv.h"

#include <cstdio>
#include <fmt/format.h>
#include <stdexcept>

#include "common/csv_text.h"
#include "common/input_error.h"
#include "sim/output/output_files.h"
#include "sim/output/summary.h"

namespace pipegrid::output {

using namespace sim;

namespace {

std::FILE* open_csv(const std::string& dir, OutputFile file) {
  const std::string path = output_path(dir, file);
  std::FILE* out = std::fopen(path.c_str(), "w");
  if (!out) throw InputError(fmt::format("--out: cannot write {}", path));
  fmt::print(out, "{}", csv_header(file));
  return out;
}

// links.csv and links_timeline.csv need the links' loads over time.
void require_link_load(const SimulationResult& result) {
  for (const LinkReport& link : result.links)
    if (!link.over_time)
      throw std::logic_error("links.csv: the run kept no link load over time (SimulationInput::link_load)");
}

}  // namespace

void write_links_csv(const std::string& dir, const SimulationResult& result) {
  require_link_load(result);
  std::FILE* out = open_csv(dir, OutputFile::Links);
  for (const LinkReport& link : result.links) {
    const auto [base, direction] = split_direction(link.name);
    fmt::print(out, "{},{},{},{},{},{},{},{},{},{},{},{},{}\n", csv_cell(base), csv_cell(link_class(link.name)),
               link.bandwidth, link.latency, csv_cell(link.sharing_policy), link.bytes, link.analytic_bytes,
               link.flows, link.busy_time, link.mean_utilization_busy(), link.peak_utilization(), link.peak_start,
               csv_cell(direction));
  }
  std::fclose(out);
}

void write_links_timeline_csv(const std::string& dir, const SimulationResult& result) {
  require_link_load(result);
  std::FILE* out = open_csv(dir, OutputFile::LinksTimeline);
  for (const LinkReport& link : result.links) {
    const auto [base, direction] = split_direction(link.name);
    const std::string base_cell = csv_cell(base), direction_cell = csv_cell(direction);
    for (const auto& [k, bytes] : link.windows)
      fmt::print(out, "{},{},{},{}\n", base_cell, direction_cell, static_cast<double>(k) * link.window, bytes);
  }
  std::fclose(out);
}

}  // namespace pipegrid::output
