// The Gantt chart of a trace as inline SVG, generated here so that the report needs no script and
// no picture file: one row per pipeline rank, computations coloured by kind as gantt.py colours them
// and labelled with their micro-batch (and chunk, direction), transfers in a lane under them, idle
// time shaded as the bubble, a time axis; for a deadlock the blocked rows hatched and the cycle drawn.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "sim/report/trace_chart.h"

namespace pipegrid::report {

/// Rows drawn at most (pipeline ranks); a deeper pipeline's page says how many were left out.
inline constexpr int kMaxRows = 128;

struct DeadlockMarks {
  struct Blocked {
    int rank;
    double since;    // where the row's hatching starts
    std::string at;  // the action it is blocked at
  };
  struct Arrow {
    int from;
    int to;
    double at;          // the time it is drawn at: the waiting rank's blocked_since
    std::string label;  // the awaited action
  };
  double time = 0;
  std::vector<Blocked> blocked;
  std::vector<Arrow> arrows;
};

/// A <figure> with the SVG, its legend and its notes (the bar cap when it applies). `deadlock` may be
/// null. `id` prefixes the SVG's ids, unique per page.
std::string gantt_html(const TraceChart& chart, const DeadlockMarks* deadlock, std::string_view id);

// Parts of it, in their own files.
struct GanttGeometry;
std::string gantt_axis_svg(const GanttGeometry& g);
std::string deadlock_marks_svg(const GanttGeometry& g, const std::map<int, int>& row_of_rank, const DeadlockMarks& marks,
                               std::string_view id);
std::string gantt_legend_html(const TraceChart& chart, bool deadlock);

}  // namespace pipegrid::report
