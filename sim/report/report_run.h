// One run's part of a report: its sections in the order a lecture reads them — the deadlock if any,
// the figures, the Gantt chart, the cycle of waits and its fix, the per-rank table, the links, the
// inputs.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sim/report/run_files.h"

namespace pipegrid::report {

struct RunReport {
  std::string title;    // the run's inputs in a line, or "" when none are recorded
  std::string outcome;  // "makespan 33.04 s, bubble 27.4 %" or "deadlock at t = 4.002 s"
  bool deadlocked = false;
  std::string body;     // the sections, headed at the given level
  std::vector<std::string> files;  // the files it was made from, for the footer
};

/// `id` prefixes the SVG ids (unique per page); `level` is the sections' heading level (2 or 3).
/// InputError with the file's name when one is malformed.
RunReport run_report(const RunFiles& files, int level, std::string_view id);

}  // namespace pipegrid::report
