// The whiteboard picture of a pipeline: one row per rank, time flowing right, every op drawn as its
// label over its duration, idle time as dots.
#pragma once

#include <iosfwd>

#include "sim/run/schedule_run.h"

namespace pipegrid::cli {

using run::ScheduleRun;

/// Widest diagram draw_timeline agrees to draw, in columns.
inline constexpr long kMaxTimelineColumns = 20000;

/// Needs run.timing.spans. Scale: the shortest op is as wide as the longest label plus one column,
/// so every label fits and durations stay proportional. An op is its label followed by '-' up to its
/// last column, which is blank:
///
///   rank 0 |0F0 0F1 0F2 0F3 ........0B0---- 0F4 0B1---- …
///
/// Throws InputError when the picture would be wider than kMaxTimelineColumns. A caller drawing several
/// runs to compare them passes one `columns_per_unit` for all (the largest timeline_scale).
void draw_timeline(std::ostream& out, const ScheduleRun& run, double columns_per_unit = 0);

/// The columns per time unit draw_timeline would choose for this run on its own.
double timeline_scale(const ScheduleRun& run);

}  // namespace pipegrid::cli
