#include "sim/output/links_csv.h"

#include <cstdio>
#include <fmt/format.h>
#include <stdexcept>

#include "common/csv_text.h"
#include "sim/output/atomic_file.h"
#include "sim/output/output_files.h"
#include "sim/output/summary.h"

namespace pipegrid::output {

using namespace sim;

namespace {

// links.csv and links_timeline.csv need the links' loads over time.
void require_link_load(const SimulationResult& result) {
  for (const LinkReport& link : result.links)
    if (!link.over_time)
      throw std::logic_error("links.csv: the run kept no link load over time (SimulationInput::link_load)");
}

}  // namespace

void write_links_csv(const std::string& dir, const SimulationResult& result) {
  require_link_load(result);
  AtomicFile csv(output_path(dir, OutputFile::Links));
  std::FILE* out = csv.file();
  fmt::print(out, "{}", csv_header(OutputFile::Links));
  for (const LinkReport& link : result.links) {
    const auto [base, direction] = split_direction(link.name);
    fmt::print(out, "{},{},{},{},{},{},{},{},{},{},{},{},{}\n", csv_cell(base), csv_cell(link_class(link.name)),
               link.bandwidth, link.latency, csv_cell(link.sharing_policy), link.bytes, link.analytic_bytes,
               link.flows, link.busy_time, link.mean_utilization_busy(), link.peak_utilization(), link.peak_start,
               csv_cell(direction));
  }
  csv.commit();
}

void write_links_timeline_csv(const std::string& dir, const SimulationResult& result) {
  require_link_load(result);
  AtomicFile csv(output_path(dir, OutputFile::LinksTimeline));
  std::FILE* out = csv.file();
  fmt::print(out, "{}", csv_header(OutputFile::LinksTimeline));
  for (const LinkReport& link : result.links) {
    const auto [base, direction] = split_direction(link.name);
    const std::string base_cell = csv_cell(base), direction_cell = csv_cell(direction);
    for (const auto& [k, bytes] : link.windows)
      fmt::print(out, "{},{},{},{}\n", base_cell, direction_cell, static_cast<double>(k) * link.window, bytes);
  }
  csv.commit();
}

}  // namespace pipegrid::output
