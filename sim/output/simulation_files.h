// What `pipegrid simulate` writes under --out DIR once the run is over (the trace is written as it
// goes: trace_writer.h): summary.json, links.csv and links_timeline.csv for a finished run, or the
// file of what ended it — deadlock.json, failure.json.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/exec/simulation_io.h"
#include "sim/output/output_files.h"

namespace pipegrid::output {

/// DIR/summary.json, DIR/links.csv and, with `link_timeline`, DIR/links_timeline.csv; returns them in
/// that order.
std::vector<OutputFile> write_simulation_files(const std::string& dir, const nlohmann::json& summary,
                                               const sim::SimulationResult& result, bool link_timeline);

/// The line `simulate` ends with: "wrote DIR/summary.json, links.csv, trace.csv, trace.json", the
/// files in the order written, "no trace" where none was.
std::string written_line(const std::string& dir, const std::vector<OutputFile>& files);

}  // namespace pipegrid::output
