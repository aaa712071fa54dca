// links.csv and links_timeline.csv of a simulation: what each link and direction carried, and when.
// Their columns are the output catalogue's (output_files.h); docs/outputs.md says what each means.
#pragma once

#include <string>

#include "sim/exec/simulation_io.h"

namespace pipegrid::output {

/// DIR/links.csv: one row per link of the platform and direction, by name; unused links have zeros.
void write_links_csv(const std::string& dir, const sim::SimulationResult& result);

/// DIR/links_timeline.csv: per link and direction, the bytes of every --link-window window that
/// carried any (windows without bytes are left out), by link, then time.
void write_links_timeline_csv(const std::string& dir, const sim::SimulationResult& result);

}  // namespace pipegrid::output
